"""What the theorems say: the Dinur–Nissim thresholds, and how much any attacker can recover from a
differentially private release.

**Reconstruction is easy when the noise is small** (Dinur & Nissim 2003; Dwork & Roth 2014, §8.1):

* with all 2ⁿ subset counts and every error at most E, the attacker's guess is wrong on at most 4E bits
  (Dwork & Roth Thm 8.1): fraction recovered ≥ 1 − 4E/n — :func:`exponential_attack_recovery` (a bound
  with its constant);
* with m = O(n log² n) random subset counts and every error o(√n), a linear program recovers all but o(n)
  bits (Dinur & Nissim Thm 2; Dwork & Roth Thm 8.2) — :func:`sqrt_n_threshold` gives the scale √n, a
  *rate* (drawn with constant 1: noise well below √n breaks privacy, noise well above may not).

**Reconstruction is impossible when the release is DP** (replacement neighbours: one person's bit
changed). Take the secret bits independent and uniform. Fix every bit but bit i; the two values of bit i
give neighbouring data sets, so any guess of bit i from the output is a test between them with some
false-alarm rate α and miss rate β ≥ f(α), the release's trade-off curve (:func:`dpexplore.core.risk.dp_tradeoff`).
With the prior 1/2 the guess is right with probability ½(1 − α) + ½(1 − β) ≤ ½(1 + max_α (1 − α − f(α))).
For (ε, δ)-DP that maximum is the advantage (e^ε − 1 + 2δ)/(e^ε + 1), so **every** attacker's expected
fraction of bits recovered is at most (e^ε + δ)/(e^ε + 1) (:func:`dp_recovery_bound`; for δ = 0:
e^ε/(1 + e^ε), 0.731 at ε = 1) — however many queries, whatever the algorithm. For μ-GDP (the Gaussian
release) the same argument with f = G_μ gives Φ(μ/2) (:func:`gdp_recovery_bound`). This is a bound on the
*expected* fraction: one run's fraction scatters around its mean by about 1/(2√n).

References
----------
Dinur, Nissim (2003). *Revealing information while preserving privacy*. PODS.
Dwork, Roth (2014). *The algorithmic foundations of differential privacy*, §8.1.
Dong, Roth, Su (2022). *Gaussian differential privacy*, JRSS B (trade-off functions).
Vadhan (2017). *The complexity of differential privacy*, §5 (reconstruction lower bounds).

Examples
--------
>>> round(dp_recovery_bound(1.0), 4)
0.7311
>>> sqrt_n_threshold(100)
10.0
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpexplore.core.gaussian import gaussian_sigma
from dpexplore.core.risk import attacker_success_bound, dp_tradeoff
from dpexplore.core.validation import check_bool, check_choice, check_delta, check_epsilon, check_int, check_real

from .data import MAX_ATTRIBUTES, MAX_PEOPLE, MAX_QUERIES

__all__ = [
    "dp_recovery_bound",
    "exponential_attack_recovery",
    "gdp_recovery_bound",
    "means_noise_scale",
    "membership_tpr_bound",
    "membership_tpr_normal",
    "release_recovery_bound",
    "sqrt_n_threshold",
]


def sqrt_n_threshold(n: int) -> float:
    """The Dinur–Nissim noise scale √n: errors o(√n) on O(n log² n) random counts let an LP recover all
    but o(n) bits (a rate: the page draws it with constant 1).

    Examples
    --------
    >>> sqrt_n_threshold(400)
    20.0
    """
    return math.sqrt(check_int(n, "n", low=1, high=MAX_PEOPLE))


def exponential_attack_recovery(bound: float, n: int) -> float:
    """Dwork & Roth Thm 8.1: with all 2ⁿ subset counts answered within E, the best-fitting candidate
    differs from the secret in at most 4E bits: fraction recovered ≥ max(0, 1 − 4E/n) (a bound).

    Examples
    --------
    >>> exponential_attack_recovery(5.0, 100)
    0.8
    """
    e = check_real(bound, "bound", low=0.0)
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    return max(0.0, 1.0 - 4.0 * e / n)


def dp_recovery_bound(epsilon: float, delta: float = 0.0) -> float:
    """The most any attacker can expect to recover of uniform secret bits from an (ε, δ)-DP release
    (replacement neighbours): (1 + advantage)/2 = (e^ε + δ)/(e^ε + 1), capped at 1 (see the module docstring).

    Computed from the trade-off curve of :mod:`dpexplore.core.risk`: ½(1 + max_α(1 − α − f_{ε,δ}(α))),
    which is :func:`dpexplore.core.risk.attacker_success_bound`.

    Examples
    --------
    >>> dp_recovery_bound(0.0)
    0.5
    >>> alpha = np.linspace(0, 1, 100_001)
    >>> from dpexplore.core.risk import dp_tradeoff
    >>> grid = 0.5 * (1 + np.max(1 - alpha - dp_tradeoff(1.0, 0.0, alpha)))
    >>> bool(abs(grid - dp_recovery_bound(1.0)) < 1e-5)
    True
    """
    eps = check_real(epsilon, "epsilon", low=0.0, allow_inf=True)
    d = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    if math.isinf(eps):
        return 1.0
    return float(attacker_success_bound(eps, d))


def gdp_recovery_bound(mu: float) -> float:
    """The most any attacker can expect to recover of uniform bits from a μ-GDP release: Φ(μ/2) (exact
    for the Gaussian shift).

    Examples
    --------
    >>> round(gdp_recovery_bound(1.0), 4)
    0.6915
    """
    mu = check_real(mu, "mu", low=0.0, allow_inf=True)
    return float(special.ndtr(mu / 2.0))


def release_recovery_bound(noise: str, *, m: int, epsilon: float, delta: float = 1e-5,
                           per_query: bool = False) -> float:
    """The recovery bound that the m answers' **true** guarantee implies (worst case over query sets).

    Honest calibration: ``"laplace"`` is ε-DP → :func:`dp_recovery_bound` (ε); ``"gaussian"`` is μ-GDP with
    μ = √m/σ → :func:`gdp_recovery_bound` (tighter than the (ε, δ) form). Broken per-query calibration:
    Laplace spends m·ε, the Gaussian √m times the per-answer μ — the bound goes to 1.

    Examples
    --------
    >>> round(release_recovery_bound("laplace", m=400, epsilon=1.0), 4)
    0.7311
    >>> release_recovery_bound("laplace", m=400, epsilon=1.0, per_query=True)
    1.0
    """
    mech = check_choice(noise, "noise", ("laplace", "gaussian"))
    m = check_int(m, "m", low=1, high=MAX_QUERIES)
    eps = check_epsilon(epsilon)
    per_query = check_bool(per_query, "per_query")
    if mech == "laplace":
        return dp_recovery_bound(eps * m if per_query else eps)
    d = check_delta(delta)
    sigma = gaussian_sigma(eps, d, 1.0 if per_query else math.sqrt(m))
    return gdp_recovery_bound(math.sqrt(m) / sigma)


def means_noise_scale(noise: str, *, n: int, d: int, epsilon: float, delta: float = 1e-5,
                      per_query: bool = False) -> float:
    """Noise of each of d released column means of n people: Laplace scale d/(nε) (ℓ1 sensitivity d/n under
    replacement) or Gaussian σ for (ε, δ) at ℓ2 sensitivity √d/n; the broken per-query calibration gives
    each mean the whole ε (sensitivity 1/n).

    Examples
    --------
    >>> means_noise_scale("laplace", n=100, d=50, epsilon=1.0)
    0.5
    """
    mech = check_choice(noise, "noise", ("laplace", "gaussian"))
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    eps = check_epsilon(epsilon)
    pq = check_bool(per_query, "per_query")
    if mech == "laplace":
        return (1.0 if pq else d) / (n * eps)
    return gaussian_sigma(eps, check_delta(delta), (1.0 if pq else math.sqrt(d)) / n)


def membership_tpr_bound(fpr, noise: str, *, n: int, d: int, epsilon: float, delta: float = 1e-5):
    """The largest true-positive rate any membership test can have at false-positive rate ``fpr`` against
    the honestly noised means: 1 − f(α) with f the release's trade-off curve — f_{ε,0} for Laplace
    (ε-DP), G_μ with μ = (√d/n)/σ for the Gaussian (exact: the release is μ-GDP).

    A random target and a random study make the test's (FPR, TPR) an average over neighbouring pairs;
    1 − f is concave, so the average stays under the curve too.

    Examples
    --------
    >>> round(float(membership_tpr_bound(0.1, "laplace", n=100, d=50, epsilon=1.0)), 4)
    0.2718
    """
    mech = check_choice(noise, "noise", ("laplace", "gaussian"))
    eps = check_epsilon(epsilon)
    if mech == "laplace":
        return 1.0 - dp_tradeoff(eps, 0.0, fpr)
    from dpexplore.core.gaussian import gdp_tradeoff

    sigma = means_noise_scale("gaussian", n=n, d=d, epsilon=eps, delta=delta)
    mu = math.sqrt(check_int(d, "d", low=1, high=MAX_ATTRIBUTES)) / n / sigma
    return 1.0 - gdp_tradeoff(mu, fpr)


def membership_tpr_normal(fpr, frequencies, *, n: int, reference: int, noise_sd: float = 0.0):
    """Normal approximation of the TPR at ``fpr`` of the inner-product test T = ⟨y − p̂, q − p̂⟩
    (Dwork, Smith, Steinke, Ullman & Vadhan 2015; Homer et al. 2008's statistic is its ℓ1 cousin).

    With v_j = p_j(1 − p_j), a study of n, a reference sample of N people (p̂) and noise of sd s per mean:
    E[T | out] ≈ Σ v_j/N, E[T | in] ≈ Σ v_j(1/n + 1/N), Var T ≈ Σ v_j(1 + 1/N)(v_j/n + v_j/N + s²) in both
    cases (the in/out difference of the variance and the non-normality are neglected): an approximation
    (a "rate with its constant"), not a bound.

    Examples
    --------
    >>> p = np.full(1000, 0.5)
    >>> round(float(membership_tpr_normal(0.05, p, n=100, reference=10_000)), 2)
    0.93
    """
    p = np.asarray(frequencies, dtype=float)
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    big = check_int(reference, "reference", low=1, high=10**9)
    s2 = check_real(noise_sd, "noise_sd", low=0.0) ** 2
    v = p * (1 - p)
    shift = float(np.sum(v) / n)
    sd = math.sqrt(float(np.sum(v * (1 + 1 / big) * (v / n + v / big + s2))))
    a = np.asarray(fpr, dtype=float)
    out = special.ndtr(shift / sd - special.ndtri(1 - np.clip(a, 1e-300, 1.0)))
    out = np.where(a <= 0, 0.0, out)
    return float(out) if out.ndim == 0 else out


