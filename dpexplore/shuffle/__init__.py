"""Paper 4: universal shuffle asymptotics (Shvets 2026, arXiv:2602.09029).

n users apply a local randomizer (W_0, W_1) with a finite, full-support output alphabet; a trusted
shuffler releases only the histogram. This package computes

* the randomizer's constants (Σ_π, the Fisher constant I_π, χ², μ3) — :mod:`.constants`;
* exact finite-n laws, privacy curves δ(ε)/ε(δ), JSD and trade-off curves — :mod:`.exact`;
* the asymptotics (JSD ≈ I_π/(8n), GDP μ_n = √(I_π/n), multi-message μ, Chernoff bounds, the
  Poisson boundary regime) — :mod:`.asymptotics`;
* published worst-case comparison bounds (FMT 2021/2023 clones, privacy blanket closed form and
  Bennett bound; Wang et al.'s variation ratio, evaluated but not certified for k ≥ 3) — :mod:`.bounds`;
* the worst case over all neighbouring data sets (exhaustive enumeration; for binary inputs up
  to n = 10⁷ a certified branch and bound over the data sets, within 0.1%; for k-RR the privacy
  blanket evaluated exactly against the third-symbol pair, within 0.1% from n ≈ 10⁴; the
  dominating clone pair, the blanket Bennett bound, the trivial ε0) — :mod:`.worst`;
* privacy-profile export (CSV/JSON) — :mod:`.profile`; T-round composition as a certified bracket
  [lower, upper] by ``dp_accounting`` (upper: the exact blanket with M revealed, which dominates T
  adaptive rounds; lower: an actual pair composed) — :mod:`.compose`;
* the largest affordable ε0 (and the smallest n) for a target (ε, δ) under each accounting — :mod:`.solver`.

Modules import only downward: randomizers → constants → exact → asymptotics / pairs → clones → blanket →
bounds / bnb → worst → compose → profile / solver → audit (tests/shuffle/test_layout.py checks it).
"""

from .asymptotics import (
    CappedEpsilon,
    chernoff_delta,
    chernoff_epsilon,
    gdp_delta_curve,
    gdp_epsilon_at,
    gdp_epsilon_multi,
    gdp_mu,
    gdp_mu_multi,
    jsd_asymptotic,
    jsd_two_term,
    poisson_delta,
    poisson_lambda,
    tradeoff_gdp,
)
from .bounds import (
    blanket_delta,
    blanket_epsilon,
    fmt21_epsilon,
    fmt_delta,
    fmt_epsilon,
    fmt_epsilon_bracket,
    variation_ratio_delta,
    variation_ratio_epsilon,
)
from .constants import (
    chi_square,
    fisher_constant,
    mixture_constant,
    mixture_constant_closed_form,
    mu3,
    sigma_b,
    sigma_mix,
    sigma_pi,
)
from .exact import (
    ShuffledPair,
    exact_tradeoff,
    histogram_law,
    jsd_exact,
    likelihood_ratio,
    shuffled_pair,
)
from .profile import ComposedPrivacy, PrivacyProfile, compose_rounds, privacy_profile
from .randomizers import MAX_ALPHABET, Randomizer, binary_rr, k_rr, randomizer
from .solver import (
    ACCOUNTINGS,
    AffordableEpsilon0,
    affordable_epsilon0,
    frequency_variance,
    shuffled_epsilon,
    shuffled_epsilon_capped,
    smallest_n,
)
from .worst import (
    WorstCaseEpsilon,
    blanket_pair_delta,
    dominating_pair_delta,
    dominating_pair_epsilon,
    exact_delta,
    exact_epsilon,
    pure_pair,
    worst_case_delta,
    worst_case_epsilon,
)

__all__ = [
    "ACCOUNTINGS",
    "MAX_ALPHABET",
    "WorstCaseEpsilon",
    "ComposedPrivacy",
    "PrivacyProfile",
    "compose_rounds",
    "privacy_profile",
    "smallest_n",
    "shuffled_epsilon_capped",
    "gdp_epsilon_multi",
    "CappedEpsilon",
    "dominating_pair_delta",
    "blanket_pair_delta",
    "dominating_pair_epsilon",
    "pure_pair",
    "worst_case_delta",
    "worst_case_epsilon",
    "AffordableEpsilon0",
    "Randomizer",
    "ShuffledPair",
    "affordable_epsilon0",
    "binary_rr",
    "blanket_epsilon",
    "blanket_delta",
    "variation_ratio_delta",
    "variation_ratio_epsilon",
    "chernoff_delta",
    "chernoff_epsilon",
    "chi_square",
    "exact_delta",
    "exact_epsilon",
    "exact_tradeoff",
    "fisher_constant",
    "fmt21_epsilon",
    "fmt_delta",
    "fmt_epsilon",
    "fmt_epsilon_bracket",
    "frequency_variance",
    "gdp_delta_curve",
    "gdp_epsilon_at",
    "gdp_mu",
    "gdp_mu_multi",
    "histogram_law",
    "jsd_asymptotic",
    "jsd_exact",
    "jsd_two_term",
    "k_rr",
    "likelihood_ratio",
    "mixture_constant",
    "mixture_constant_closed_form",
    "mu3",
    "poisson_delta",
    "poisson_lambda",
    "randomizer",
    "shuffled_epsilon",
    "shuffled_pair",
    "sigma_b",
    "sigma_mix",
    "sigma_pi",
    "tradeoff_gdp",
]
