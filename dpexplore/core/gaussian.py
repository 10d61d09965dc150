"""Gaussian mechanism calibration, Gaussian differential privacy (GDP) and zCDP conversions.

The Gaussian mechanism ``f(D) + N(0, σ² I)`` with ℓ2-sensitivity Δ is exactly μ-GDP with
μ = Δ/σ (Dong, Roth & Su 2022, Thm 2.7), and its exact privacy profile is

    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)        (Balle & Wang 2018, Thm 8).

:func:`gaussian_sigma` inverts this profile (the *analytic* Gaussian mechanism), which is valid
for every ε > 0, unlike the classic ``σ = Δ √(2 ln(1.25/δ))/ε`` that needs ε < 1.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from .validation import check_array, check_choice, check_delta, check_epsilon, check_positive, check_real

__all__ = [
    "gaussian_sigma",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_tradeoff",
    "gaussian_zcdp_rho",
    "zcdp_to_dp",
    "dp_to_zcdp",
]


def _gdp_delta_scalar(mu: float, eps: float) -> float:
    # δ = Φ(a) − e^ε Φ(b), computed as Φ(a)·(1 − exp(ε + log Φ(b) − log Φ(a))) to avoid cancellation.
    a = -eps / mu + mu / 2.0
    b = -eps / mu - mu / 2.0
    la, lb = special.log_ndtr(a), special.log_ndtr(b)
    if la == -math.inf:  # Φ(a) underflows: δ is below the smallest double
        return 0.0
    diff = eps + lb - la
    if diff >= 0:  # only by rounding; the exact value is >= 0
        return 0.0
    return float(math.exp(la) * -math.expm1(diff))


def gdp_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of μ-Gaussian differential privacy (exact).

    Parameters
    ----------
    mu : float
        GDP parameter μ > 0 (μ = Δ/σ for one Gaussian mechanism).
    epsilon : float
        ε ≥ 0.

    Returns
    -------
    float
        δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).

    References
    ----------
    Dong, Roth, Su (2022), *Gaussian differential privacy*, Cor. 2.13.

    Examples
    --------
    >>> round(gdp_delta(1.0, 1.0), 6)
    0.126937
    """
    mu = check_positive(mu, "mu")
    eps = check_real(epsilon, "epsilon", low=0.0)
    return _gdp_delta_scalar(mu, eps)


def gdp_epsilon(mu: float, delta: float) -> float:
    """Smallest ε ≥ 0 with ``gdp_delta(mu, ε) <= delta``.

    Examples
    --------
    >>> e = gdp_epsilon(1.0, 1e-5)
    >>> abs(gdp_delta(1.0, e) - 1e-5) < 1e-12
    True
    """
    mu = check_positive(mu, "mu")
    delta = check_delta(delta)
    if _gdp_delta_scalar(mu, 0.0) <= delta:
        return 0.0
    hi = max(1.0, mu * mu)
    while _gdp_delta_scalar(mu, hi) > delta:
        hi *= 2.0
    from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
    return float(optimize.brentq(lambda e: _gdp_delta_scalar(mu, e) - delta, 0.0, hi, xtol=1e-14, rtol=1e-12))


def gdp_tradeoff(mu: float, alpha):
    """Trade-off function of μ-GDP: β = T_μ(α) = Φ(Φ⁻¹(1 − α) − μ).

    The smallest type-II error of any test with type-I error α that tells N(0, 1) from N(μ, 1).

    Examples
    --------
    >>> round(float(gdp_tradeoff(1.0, 0.05)), 4)
    0.7405
    """
    mu = check_positive(mu, "mu", allow_zero=True)
    a = check_array(alpha, "alpha", finite=False)  # complex, strings, bools: TypeError naming alpha
    if np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        raise ValueError(f"alpha must be a number (or array of numbers) in [0, 1]; got {alpha!r}")
    out = special.ndtr(special.ndtri(1.0 - a) - mu)
    return float(out) if out.ndim == 0 else out


def gaussian_sigma(
    epsilon: float, delta: float, sensitivity: float = 1.0, *, method: str = "analytic"
) -> float:
    """Noise standard deviation σ for an (ε, δ)-DP Gaussian mechanism.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).
    sensitivity : float
        ℓ2-sensitivity Δ > 0 of the released function.
    method : {"analytic", "classic"}
        ``"analytic"``: the smallest σ whose exact privacy profile meets (ε, δ) (Balle & Wang
        2018, Alg. 1, solved here by bisection on μ = Δ/σ). ``"classic"``:
        σ = Δ √(2 ln(1.25/δ))/ε (Dwork & Roth Thm A.1), only valid for ε < 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For invalid parameters, or ``method="classic"`` with ε ≥ 1.

    References
    ----------
    Balle, Wang (2018). *Improving the Gaussian mechanism for differential privacy: analytical
    calibration and optimal denoising*. ICML.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 1e-5), 4)
    3.7306
    >>> round(gaussian_sigma(0.5, 1e-5, method="classic"), 4)
    9.6896
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    sens = check_positive(sensitivity, "sensitivity")
    method = check_choice(method, "method", ("analytic", "classic"))
    if method == "classic":
        if eps >= 1:
            raise ValueError(
                f"epsilon must be < 1 for method='classic' (the classic Gaussian bound is only valid there); "
                f"got {epsilon!r}. Use method='analytic'."
            )
        return sens * math.sqrt(2.0 * math.log(1.25 / delta)) / eps
    return sens / _analytic_mu(eps, delta)


@functools.lru_cache(maxsize=4096)
def _analytic_mu(eps: float, delta: float) -> float:
    """μ* with δ(ε; μ*) = δ (Balle & Wang 2018, Alg. 1): a pure function of (ε, δ), kept per pair (a Monte Carlo
    trial loop calibrates the same pair thousands of times; each solve is a root search)."""
    # δ(ε; μ) increases with μ: find μ* with δ(ε; μ*) = δ, then σ = Δ/μ*.
    lo, hi = 1e-12, 1.0
    while _gdp_delta_scalar(hi, eps) < delta:
        hi *= 2.0
        if hi > 1e150:
            raise ValueError(f"epsilon={eps:g} is too large to calibrate a Gaussian mechanism in double precision "
                             "(sigma would be ~0): use a smaller epsilon")
    from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
    return optimize.brentq(lambda m: _gdp_delta_scalar(m, eps) - delta, lo, hi, xtol=1e-15, rtol=1e-13)


def gaussian_zcdp_rho(sigma: float, sensitivity: float = 1.0) -> float:
    """zCDP parameter ρ = Δ²/(2σ²) of one Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6).

    Examples
    --------
    >>> gaussian_zcdp_rho(2.0, 1.0)
    0.125
    """
    sigma = check_positive(sigma, "sigma")
    sens = check_positive(sensitivity, "sensitivity")
    return sens * sens / (2.0 * sigma * sigma)


def zcdp_to_dp(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    zCDP composes by adding ρ, so T Gaussian steps with ρ_t each give ``zcdp_to_dp(sum(rho_t), delta)``.

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-5), 4)
    5.2985
    """
    rho = check_positive(rho, "rho", allow_zero=True)
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def dp_to_zcdp(epsilon: float, delta: float) -> float:
    """The largest ρ with ``zcdp_to_dp(ρ, δ) <= ε``: ρ = (√(ln(1/δ) + ε) − √ln(1/δ))².

    Use it to split a target (ε, δ) over several Gaussian steps: give each step ρ/T.

    Examples
    --------
    >>> rho = dp_to_zcdp(1.0, 1e-5)
    >>> abs(zcdp_to_dp(rho, 1e-5) - 1.0) < 1e-12
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + eps) - math.sqrt(log_term)) ** 2

