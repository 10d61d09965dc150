"""What each edge-DP mechanism costs: deterministic accounting, separate from sampling.

* Matrix shuffling: randomized response with ε0 on every pair, then a uniform vertex permutation.
  [OUR stand-in, not the paper's accounting: the paper's own amplification theorem was not available]
  Each vertex's row is treated as one ε0-LDP report among n and amplified with the
  Feldman–McMillan–Talwar bounds of
  :mod:`dpexplore.core.shuffle_amplification` (2021 closed form, 2021/2023 numerical clone pair).
  The accountant is a parameter: a name or any callable ``(epsilon0, n, delta) -> epsilon``.

  **The stand-in is refuted by an audit.** The rows of P Ã Pᵀ are not independent anonymous reports:
  the relabelling is shared by rows and columns, and on a graph whose vertices can be told apart
  (e.g. by their degrees) it can be undone from the release itself. On such a graph the released
  bit between the two re-identified vertices is just the ε0-randomized-response bit, so the true
  edge-DP ε of matrix shuffling is ε0 — no amplification (see
  :func:`dpexplore.spectral.audit.hub_edge_pair` and
  :func:`~dpexplore.spectral.audit.audit_matrix_shuffle_hubs`, which measures ε̂ ≈ ε0 > the FMT
  claim). ``accountant="none"`` — the default everywhere in this package — is the sound guarantee
  for every graph: ε = ε0 (randomized response followed by a data-independent relabelling, i.e.
  post-processing). The FMT accountants stay available to show what an amplified claim would give.

  **Why no amplification claim can hold under worst-case edge DP.** On the two-hub pair the
  release's exact ε is ε0 at *every* n, so any accountant whose ε → 0 as n → ∞ — our FMT stand-in,
  and equally the paper's abstract claim (effective ε → 0 as n grows) read as worst-case edge DP —
  is refuted for large n; attribute it precisely: the audit refutes our stand-in, and it shows that
  the abstract's claim cannot hold in that reading (the paper's own theorem was not available to us,
  so we cannot say which step of it fails). Three reasons the row-as-report picture does not apply:
  (1) a row is not an ε0-LDP report: replacing one vertex's row changes up to n − 1 pairs, so a row
  is only (n − 1)ε0-LDP against replacement, and the FMT bounds for that local ε amplify nothing;
  (2) one edge touches *two* reports (rows i and j), and the bounds are for neighbouring data sets
  that differ in one report; (3) the relabelling is one permutation applied to rows *and* columns,
  so it leaves the graph's structure (degrees, adjacency between rows) intact, and vertices that the
  structure identifies — like the hubs — are identified in the release too.
* Analyze Gauss: one Gaussian mechanism with ℓ2 sensitivity 1 (an edge changes one upper-triangular
  coordinate by 1); σ from the analytic Gaussian mechanism (Balle & Wang 2018).
* Noisy power method: L Gaussian steps composed in zCDP (Bun & Steinke 2016): ρ = L/(2σ²).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from ..core.gaussian import dp_to_zcdp, gaussian_sigma, zcdp_to_dp
from ..core.shuffle_amplification import (
    ACCOUNTANTS,
    shuffle_amplification_epsilon,
    shuffle_amplification_epsilon0,
)
from ..core.validation import check_choice, check_delta, check_epsilon, check_int, check_positive

__all__ = [
    "ACCOUNTANTS",
    "shuffle_epsilon",
    "shuffle_epsilon0",
    "asymptotic_epsilon0",
    "rr_noise_variance",
    "analyze_gauss_sigma",
    "noisy_power_sigma",
    "noisy_power_epsilon",
]

ACCOUNTANTS = ("none", *ACCOUNTANTS)  # "none": ε = ε0, the sound bound (see the module docstring)
Accountant = str | Callable[[float, int, float], float]
EPSILON0_MAX = 30.0


def _check_accountant(accountant) -> Accountant:
    if callable(accountant):
        return accountant
    return check_choice(accountant, "accountant", ACCOUNTANTS)


def shuffle_epsilon(epsilon0: float, n: int, delta: float, *, accountant: Accountant = "none") -> float:
    """ε of matrix shuffling: randomized response with ε0 on every pair, rows shuffled among n vertices.

    Parameters
    ----------
    epsilon0 : float
        ε0 > 0 of randomized response on each pair (ε0-edge-DP before shuffling).
    n : int
        Number of vertices (≥ 2), i.e. the number of shuffled rows.
    delta : float
        Target δ in (0, 1).
    accountant : str or callable
        ``"none"`` (default: ε = ε0, no amplification — the sound bound for every graph),
        ``"fmt21_numerical"`` (our stand-in for the paper's unavailable accounting), ``"fmt23_numerical"``,
        ``"fmt21_closed_form"`` (amplified claims, all refuted on graphs with re-identifiable vertices), or a
        callable
        ``(epsilon0, n, delta) -> epsilon``.

    Returns
    -------
    float
        ε ≤ ε0 of the shuffled release, as the accountant claims it.

    Notes
    -----
    [standard stand-in] Each row is one ε0-LDP report among n (Feldman, McMillan & Talwar 2021, 2023).
    The FMT accountants' claims are refuted on graphs whose vertices are identifiable from the
    release (module docstring); only ``"none"`` holds for every pair of neighbouring graphs.

    Examples
    --------
    >>> e = shuffle_epsilon(3.0, 1000, 1e-6, accountant="fmt21_numerical")
    >>> 0 < e < 3.0
    True
    >>> shuffle_epsilon(3.0, 1000, 1e-6, accountant=lambda e0, n, d: e0 / 2)
    1.5
    >>> shuffle_epsilon(3.0, 1000, 1e-6)  # the default, accountant="none"
    3.0
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2)
    delta = check_delta(delta)
    acc = _check_accountant(accountant)
    if callable(acc):
        return float(acc(e0, n, delta))
    if acc == "none":
        return e0
    return _shuffle_epsilon_cached(e0, n, delta, acc)


@lru_cache(maxsize=4096)
def _shuffle_epsilon_cached(e0: float, n: int, delta: float, acc: str) -> float:
    return shuffle_amplification_epsilon(e0, n, delta, accountant=acc)


def shuffle_epsilon0(epsilon: float, n: int, delta: float, *, accountant: Accountant = "none") -> float:
    """The largest ε0 whose matrix-shuffling guarantee is at most (ε, δ) (at most 30).

    Named accountants use :func:`dpexplore.core.shuffle_amplification_epsilon0` (cached here, since
    dashboards ask for the same values repeatedly); callables are inverted there too, by bisection
    (they must be non-decreasing in ε0).

    Examples
    --------
    >>> e0 = shuffle_epsilon0(1.0, 1000, 1e-6, accountant="fmt21_numerical")
    >>> round(e0, 2), shuffle_epsilon(e0, 1000, 1e-6, accountant="fmt21_numerical") <= 1.0 + 1e-6
    (2.72, True)
    >>> shuffle_epsilon0(1.0, 1000, 1e-6, accountant=lambda e0, n, d: e0 / 2)
    2.0
    >>> shuffle_epsilon0(1.0, 1000, 1e-6)  # the default, accountant="none"
    1.0
    """
    eps = check_epsilon(epsilon)
    n = check_int(n, "n", low=2)
    delta = check_delta(delta)
    acc = _check_accountant(accountant)
    if callable(acc):
        return shuffle_amplification_epsilon0(eps, n, delta, accountant=acc, epsilon0_max=EPSILON0_MAX)
    if acc == "none":
        return min(eps, EPSILON0_MAX)
    return _shuffle_epsilon0_cached(eps, n, delta, acc)


@lru_cache(maxsize=4096)
def _shuffle_epsilon0_cached(eps: float, n: int, delta: float, acc: str) -> float:
    return shuffle_amplification_epsilon0(eps, n, delta, accountant=acc, epsilon0_max=EPSILON0_MAX)


def asymptotic_epsilon0(epsilon: float, n: int, delta: float) -> float:
    """Asymptotic ε0 of the FMT closed form: e^{ε0} ≈ n(e^ε − 1)²/(64 log(4/δ)) [approximation].

    Returns NaN where this gives ε0 ≤ ε (n too small for the approximation to mean anything).
    This is the source of the 1/(n(e^ε − 1)²) rate of the shuffle mechanism.

    Examples
    --------
    >>> round(asymptotic_epsilon0(1.0, 10**6, 1e-12), 2)
    7.37
    >>> asymptotic_epsilon0(1.0, 100, 1e-4)
    nan
    """
    eps = check_epsilon(epsilon)
    n = check_int(n, "n", low=2)
    delta = check_delta(delta)
    val = n * math.expm1(eps) ** 2 / (64.0 * math.log(4.0 / delta))
    return math.log(val) if val > math.exp(eps) else math.nan


def rr_noise_variance(epsilon0: float) -> float:
    """Per-entry variance of debiased randomized response: e^{ε0}/(e^{ε0} − 1)².

    Debiased entries (Ã − μ)/(1 − 2μ), μ = 1/(e^{ε0} + 1), are unbiased with this variance whatever
    the true bit is.

    Examples
    --------
    >>> round(rr_noise_variance(math.log(3)), 6)
    0.75
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    t = -math.expm1(-e0)  # 1 − e^{−ε0}: the same value written without overflow for large ε0
    return math.exp(-e0) / (t * t)


def analyze_gauss_sigma(epsilon: float, delta: float) -> float:
    """σ of Analyze Gauss under edge DP: analytic Gaussian mechanism with ℓ2 sensitivity 1.

    Examples
    --------
    >>> round(analyze_gauss_sigma(1.0, 1e-5), 4)
    3.7306
    """
    return gaussian_sigma(epsilon, delta, 1.0, method="analytic")


def noisy_power_sigma(epsilon: float, delta: float, iterations: int) -> float:
    """Noise multiplier σ of the noisy power method: G_ℓ ~ N(0, (Δ_ℓ σ)²), L steps in zCDP.

    Each step is a Gaussian mechanism with noise-to-sensitivity ratio σ, so ρ_ℓ = 1/(2σ²) and the
    total ρ = L/(2σ²) must equal ``dp_to_zcdp(ε, δ)``: σ = √(L/(2ρ)).

    Examples
    --------
    >>> s = noisy_power_sigma(1.0, 1e-6, 10)
    >>> abs(noisy_power_epsilon(s, 10, 1e-6) - 1.0) < 1e-9
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    L = check_int(iterations, "iterations", low=1)
    rho = dp_to_zcdp(eps, delta)
    return math.sqrt(L / (2.0 * rho))


def noisy_power_epsilon(sigma: float, iterations: int, delta: float) -> float:
    """ε of L noisy power steps with noise multiplier σ: ρ = L/(2σ²), ε = ρ + 2√(ρ ln(1/δ)).

    Examples
    --------
    >>> round(noisy_power_epsilon(10.0, 1, 1e-5), 4)
    0.4848
    """
    s = check_positive(sigma, "sigma")
    L = check_int(iterations, "iterations", low=1)
    return zcdp_to_dp(L / (2.0 * s * s), delta)
