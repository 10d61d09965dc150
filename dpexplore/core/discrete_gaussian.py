"""The discrete Gaussian N_Z(0, σ²) and the conversion of ρ-zCDP to (ε, δ)-DP.

The 2020 US Census adds discrete Gaussian noise to integer counts: P(X = x) ∝ exp(−x²/(2σ²)) on the
integers (Canonne, Kamath & Steinke 2020). Adding it to a count whose value changes by at most Δ between
neighbouring data sets is ρ-zCDP with ρ = Δ²/(2σ²) (their Theorem 4), exactly as the continuous
Gaussian is, and zCDP composes by adding ρ.

* :func:`discrete_gaussian` samples it by their Algorithm 3: a discrete Laplace proposal Y with
  P(Y = y) ∝ exp(−|y|/t), t = ⌊σ⌋ + 1, accepted with probability exp(−(|y| − σ²/t)²/(2σ²)).
  **Teaching stand-in**: the paper does every Bernoulli trial in exact rational arithmetic so that
  no floating-point rounding can leak information; here the proposal (a difference of two geometric
  variables, the same law as their Algorithm 2) and the acceptance test use NumPy's float64
  generator, so each probability is right to about 10⁻¹⁶, not exactly. The output law is otherwise
  the paper's (a test compares it with :func:`discrete_gaussian_pmf`).
* :func:`discrete_gaussian_pmf` and :func:`discrete_gaussian_variance` are exact up to float
  rounding (the normaliser is summed over |x| ≤ 12σ + 12, where the tail is below 10⁻³⁰).
* :func:`zcdp_delta` / :func:`zcdp_epsilon`: the conversion ρ-zCDP ⇒ (ε, δ)-DP of Canonne, Kamath &
  Steinke (2020), Corollary 13: δ = inf_{α>1} exp((α − 1)(αρ − ε))/(α − 1) · (1 − 1/α)^α. It is never
  larger than the simple ε = ρ + 2√(ρ ln(1/δ)) of Bun & Steinke (2016)
  (:func:`~dpexplore.core.gaussian.zcdp_to_dp`), and the Bureau used it to state its ε.

Examples
--------
>>> x = discrete_gaussian(4.0, size=5, rng=0)
>>> x.dtype.kind, x.shape
('i', (5,))
>>> round(float(discrete_gaussian_pmf(0, 1.0)), 4)
0.3989
>>> round(zcdp_epsilon(0.5, 1e-5), 3) <= round(zcdp_to_dp(0.5, 1e-5), 3)
True
"""

from __future__ import annotations

import math

import numpy as np

from .gaussian import zcdp_to_dp
from .random import RNGLike, as_generator
from .validation import check_delta, check_int, check_real

__all__ = [
    "MAX_SAMPLES",
    "MAX_SIGMA2",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "discrete_gaussian_rho",
    "discrete_gaussian_support",
    "discrete_gaussian_variance",
    "zcdp_delta",
    "zcdp_epsilon",
]

#: most samples one call of :func:`discrete_gaussian` draws
MAX_SAMPLES = 10_000_000
#: largest σ² accepted (the pmf's support table has ~24σ entries)
MAX_SIGMA2 = 1e10


def _check_sigma2(sigma2) -> float:
    return check_real(sigma2, "sigma2", low=0.0, high=MAX_SIGMA2, low_open=True)


def discrete_gaussian(sigma2: float, *, size: int | tuple = 1, rng: RNGLike = None) -> np.ndarray:
    """Draw from the discrete Gaussian N_Z(0, σ²): P(X = x) ∝ exp(−x²/(2σ²)), x ∈ Z.

    Parameters
    ----------
    sigma2 : float
        The scale parameter σ² in (0, MAX_SIGMA2] (the variance is slightly below σ²,
        :func:`discrete_gaussian_variance`).
    size : int or tuple of int
        Output shape; at most ``MAX_SAMPLES`` values in all.
    rng : Generator, int or None

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    ValueError, TypeError
        σ² outside its range, a bad size.

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 3: with t = ⌊σ⌋ + 1 draw Y from the discrete Laplace
    law P(Y = y) ∝ exp(−|y|/t) (here as G₁ − G₂, two independent geometric variables on {0, 1, ...}
    with P(G = g) ∝ e^{−g/t}) and keep it with probability exp(−(|Y| − σ²/t)²/(2σ²)); kept values
    have the law ∝ exp(−y²/(2σ²)). Float arithmetic (a teaching stand-in, see the module
    docstring); vectorised: proposals are drawn in batches until ``size`` values are kept
    (acceptance probability at least about 0.4 for every σ, their Section 5.3).

    References
    ----------
    Canonne, Kamath & Steinke (2020). *The Discrete Gaussian for Differential Privacy*. NeurIPS.
    https://arxiv.org/abs/2004.00010

    Examples
    --------
    >>> x = discrete_gaussian(1.0, size=(2, 3), rng=0)
    >>> x.shape
    (2, 3)
    """
    s2 = _check_sigma2(sigma2)
    shape = (size,) if not isinstance(size, tuple) else size
    n = 1
    for i, d in enumerate(shape):
        n *= check_int(d, f"size[{i}]" if len(shape) > 1 else "size", low=0, high=MAX_SAMPLES)
    check_int(n, "size (total number of samples)", low=0, high=MAX_SAMPLES)
    gen = as_generator(rng)
    t = math.floor(math.sqrt(s2)) + 1
    p_geom = -math.expm1(-1.0 / t)  # success probability of a geometric with P(g) ∝ e^{-g/t}
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        m = max(16, int(1.5 * (n - filled)) + 16)
        y = (gen.geometric(p_geom, size=m) - gen.geometric(p_geom, size=m)).astype(np.int64)
        accept = gen.random(m) < np.exp(-((np.abs(y) - s2 / t) ** 2) / (2.0 * s2))
        kept = y[accept][: n - filled]
        out[filled:filled + kept.size] = kept
        filled += kept.size
    return out.reshape(shape)


def discrete_gaussian_support(sigma2: float) -> np.ndarray:
    """The integers |x| ≤ ⌈12σ + 12⌉ (as floats) over which the pmf's normaliser is summed; outside
    them the mass is below 10⁻³⁰.

    Examples
    --------
    >>> discrete_gaussian_support(0.01)[[0, -1]].tolist()
    [-14.0, 14.0]
    """
    s2 = _check_sigma2(sigma2)
    half = int(math.ceil(12.0 * math.sqrt(s2) + 12.0))
    return np.arange(-half, half + 1, dtype=np.float64)


def discrete_gaussian_pmf(x, sigma2: float) -> np.ndarray | float:
    """P(X = x) for X ~ N_Z(0, σ²): exp(−x²/(2σ²)) / Σ_y exp(−y²/(2σ²)).

    Non-integer x has probability 0.

    Examples
    --------
    >>> round(float(discrete_gaussian_pmf(1, 1.0)), 4)
    0.242
    >>> float(discrete_gaussian_pmf(0.5, 1.0))
    0.0
    """
    s2 = _check_sigma2(sigma2)
    z = float(np.exp(-(discrete_gaussian_support(s2) ** 2) / (2.0 * s2)).sum())
    xs = np.asarray(x, dtype=np.float64)
    p = np.where(xs == np.round(xs), np.exp(-(xs**2) / (2.0 * s2)) / z, 0.0)
    return float(p) if p.ndim == 0 else p


def discrete_gaussian_variance(sigma2: float) -> float:
    """Var X for X ~ N_Z(0, σ²) (at most σ², Canonne, Kamath & Steinke 2020, Cor. 9).

    Examples
    --------
    >>> v = discrete_gaussian_variance(4.0)
    >>> bool(v <= 4.0) and round(v, 4)
    4.0
    """
    s2 = _check_sigma2(sigma2)
    xs = discrete_gaussian_support(s2)
    w = np.exp(-(xs**2) / (2.0 * s2))
    return float((xs**2 * w).sum() / w.sum())


def discrete_gaussian_rho(sigma2: float, sensitivity: float = 1.0) -> float:
    """ρ of adding N_Z(0, σ²) to an integer query of sensitivity Δ: ρ = Δ²/(2σ²) (exact zCDP,
    Canonne, Kamath & Steinke 2020, Thm 4).

    Examples
    --------
    >>> discrete_gaussian_rho(2.0)
    0.25
    """
    s2 = _check_sigma2(sigma2)
    d = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    return d * d / (2.0 * s2)


def _log_delta_at(u: float, rho: float, eps: float) -> float:
    # α = 1 + e^u; log of exp((α−1)(αρ−ε))/(α−1)·(1−1/α)^α
    am1 = math.exp(u)
    a = 1.0 + am1
    return am1 * (a * rho - eps) - u + a * (math.log(am1) - math.log(a))


_U_GRID = np.linspace(-30.0, 30.0, 241)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """The δ at which ρ-zCDP gives (ε, δ)-DP (Canonne, Kamath & Steinke 2020, Cor. 13).

    δ = inf_{α>1} exp((α − 1)(αρ − ε))/(α − 1) · (1 − 1/α)^α, capped at 1; minimised numerically over
    log(α − 1) ∈ [−30, 30] (a grid, then a bounded scalar search around the best grid point).

    Parameters
    ----------
    rho : float
        ρ ≥ 0 (ρ = 0 gives δ = 0).
    epsilon : float
        ε ≥ 0.

    Examples
    --------
    >>> round(zcdp_delta(0.5, 5.2985), 7) <= 1e-5
    True
    """
    r = check_real(rho, "rho", low=0.0)
    eps = check_real(epsilon, "epsilon", low=0.0)
    if r == 0.0:
        return 0.0
    grid = _U_GRID
    am1 = np.exp(grid)
    a = 1.0 + am1
    vals = am1 * (a * r - eps) - grid + a * (grid - np.log(a))  # _log_delta_at on the whole grid
    i = int(np.argmin(vals))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = float(vals[i])
    if hi > lo:
        from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
        res = optimize.minimize_scalar(_log_delta_at, bounds=(float(lo), float(hi)), args=(r, eps),
                                       method="bounded", options={"xatol": 1e-10})
        best = min(best, float(res.fun))
    return float(min(1.0, math.exp(best))) if best < 0 else 1.0


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The smallest ε with ρ-zCDP ⇒ (ε, δ)-DP by Canonne, Kamath & Steinke (2020), Cor. 13.

    Never larger than the simple conversion ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3;
    :func:`~dpexplore.core.gaussian.zcdp_to_dp`): that one is the same bound with a looser step.
    Found by root-finding on the decreasing function ε ↦ :func:`zcdp_delta` (ρ, ε) on
    [0, simple ε]; the result is rounded *up* by 10⁻⁹ so it is never below the true value of the
    bound.

    Parameters
    ----------
    rho : float
        ρ ≥ 0.
    delta : float
        δ in (0, 1).

    References
    ----------
    Canonne, Kamath & Steinke (2020), Corollary 13; used by the US Census Bureau to state the ε of
    its ρ budgets (Abowd et al. 2022).

    Examples
    --------
    >>> round(zcdp_epsilon(0.5, 1e-5), 3)
    4.728
    >>> zcdp_epsilon(0.0, 1e-5)
    0.0
    """
    r = check_real(rho, "rho", low=0.0)
    d = check_delta(delta)
    if r == 0.0:
        return 0.0
    hi = zcdp_to_dp(r, d)
    if zcdp_delta(r, 0.0) <= d:
        return 0.0
    def gap(e: float) -> float:
        return math.log(max(zcdp_delta(r, e), 1e-300)) - math.log(d)

    if gap(hi) >= 0.0:  # numerically at the simple bound already
        return float(hi)
    from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
    root = optimize.brentq(gap, 0.0, hi, xtol=1e-12, rtol=1e-12)
    return float(min(hi, root + 1e-9))
