"""Closed forms for private statistics: errors, the clipping bias/noise split, post-processing bias, and
the ε an accuracy target needs.

Every function here is exact unless its docstring says otherwise (the normalisation bias is a
Monte-Carlo estimate with a fixed seed and its standard error).

Examples
--------
>>> round(expected_abs_error("laplace", epsilon=0.5), 6)
2.0
>>> plan = epsilon_for_accuracy("count", half_width=10.0)
>>> round(plan.epsilon, 4)  # ln(20)/10
0.2996
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon
from dpexplore.core.risk import AttackerView, attacker_view, posterior_bound
from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_int,
    check_real,
)

from .mechanisms import MAX_ROWS, MAX_ROWS_PER_PERSON, _bounds
from .noise import NOISES, _alpha, _check_noise_scale, noise_sd, postprocessing_bias

__all__ = [
    "STATISTICS",
    "AccuracyPlan",
    "epsilon_for_accuracy",
    "expected_abs_error",
    "mean_error_terms",
    "optimal_bound",
    "postprocessing_bias",
    "sensitivity",
]

#: the statistics :func:`epsilon_for_accuracy` plans for
STATISTICS = ("count", "histogram", "sum", "mean")
#: the most points of a bound grid
MAX_GRID = 10_000


def sensitivity(statistic: str, *, n: int | None = None, lower: float | None = None, upper: float | None = None,
                rows_per_person: int = 1) -> float:
    """Δ of a statistic under the unit of privacy "one person with ≤ c rows" (see :mod:`.mechanisms`).

    count and histogram cell: c; sum: c·max(|L|, |U|); mean with public n: c·(U − L)/n.

    Examples
    --------
    >>> sensitivity("mean", n=100, lower=0, upper=50)
    0.5
    """
    stat = check_choice(statistic, "statistic", STATISTICS)
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    if stat in ("count", "histogram"):
        return float(c)
    if lower is None or upper is None:
        raise ValueError(f"lower and upper are required for statistic={stat!r}")
    lo, hi = _bounds(lower, upper)
    if stat == "sum":
        return c * max(abs(lo), abs(hi))
    if n is None:
        raise ValueError("n is required for statistic='mean'")
    return c * (hi - lo) / check_int(n, "n", low=1, high=MAX_ROWS)


def expected_abs_error(noise: str, *, epsilon: float, delta: float = 0.0, sensitivity: float = 1.0) -> float:
    """E|noise|: Δ/ε (Laplace), σ·√(2/π) (Gaussian), 2α/(1 − α²) with α = e^(−ε/Δ) (geometric). Exact.

    Examples
    --------
    >>> round(expected_abs_error("geometric", epsilon=1.0), 4)
    0.8509
    """
    noise, eps, sens = _check_noise_scale(noise, epsilon, sensitivity)
    if noise == "laplace":
        return sens / eps
    if noise == "gaussian":
        return gaussian_sigma(eps, check_delta(delta), sens) * math.sqrt(2.0 / math.pi)
    a = _alpha(eps, sens)
    return 2.0 * a / (1.0 - a * a)


def mean_error_terms(x, *, lower: float, uppers, epsilon: float, delta: float = 0.0, noise: str = "laplace",
                     rows_per_person: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """For each upper bound U: (clipping bias², noise variance) of :func:`private_mean` with a public n.

    bias(U) = mean(clip(x, L, U)) − mean(x) (deterministic), variance = noise_sd(Δ = c(U − L)/n)². Their
    sum is the mean squared error exactly (the noise has mean 0 and is independent of the data).

    Examples
    --------
    >>> b2, var = mean_error_terms([1.0, 2.0, 9.0], lower=0, uppers=[3.0, 9.0], epsilon=1.0)
    >>> b2.round(4).tolist(), var.round(4).tolist()
    ([4.0, 0.0], [2.0, 18.0])
    """
    arr = check_array(x, "x", ndim=1, min_size=1, max_size=MAX_ROWS)
    lo = check_real(lower, "lower")
    us = check_array(uppers, "uppers", ndim=1, min_size=1, max_size=MAX_GRID)
    if np.any(us <= lo):
        raise ValueError(f"uppers must all be > lower = {lo:g}; got min {us.min():g}")
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    n = arr.size
    bias = np.array([np.clip(arr, lo, u).mean() - arr.mean() for u in us])
    unit = noise_sd(noise, epsilon=epsilon, delta=delta, sensitivity=1.0)  # sd for Δ = 1 (linear in Δ: L, G)
    if noise == "geometric":
        raise ValueError("noise must be 'laplace' or 'gaussian' for a mean (its sum is not integer-valued); "
                         "got 'geometric'")
    sd = unit * c * (us - lo) / n
    return bias**2, sd**2


def optimal_bound(x, *, lower: float, uppers, epsilon: float, delta: float = 0.0, noise: str = "laplace",
                  rows_per_person: int = 1) -> float:
    """The upper bound on the grid ``uppers`` with the smallest bias² + variance (computed from the data:
    **not private**, a teaching diagnostic).

    Examples
    --------
    >>> optimal_bound([1.0, 2.0, 9.0], lower=0, uppers=[3.0, 9.0], epsilon=1.0)
    3.0
    """
    b2, var = mean_error_terms(x, lower=lower, uppers=uppers, epsilon=epsilon, delta=delta, noise=noise,
                               rows_per_person=rows_per_person)
    return float(np.asarray(uppers, dtype=float)[int(np.argmin(b2 + var))])


@dataclass(frozen=True)
class AccuracyPlan:
    """The ε an accuracy target needs, and what that ε allows an attacker.

    Attributes
    ----------
    statistic, noise : str
    half_width : float
        The target: |error| ≤ half_width with probability ``confidence``.
    confidence : float
    sensitivity : float
    epsilon, delta : float
        The smallest ε (at δ) that meets the target (exact for the noise's law).
    noise_scale : float
        Laplace b, Gaussian σ, geometric Δ/ε.
    attacker : AttackerView
        :func:`dpexplore.core.risk.attacker_view` at (ε, δ): the best advantage (at most).
    posterior : float
        The largest posterior of an attacker with prior ``prior`` from ε alone
        (:func:`dpexplore.core.risk.posterior_bound` with δ = 0; with δ > 0 rare outputs can reveal more).
    prior : float
    """

    statistic: str
    noise: str
    half_width: float
    confidence: float
    sensitivity: float
    epsilon: float
    delta: float
    noise_scale: float
    attacker: AttackerView
    posterior: float
    prior: float


def epsilon_for_accuracy(statistic: str, *, half_width: float, n: int | None = None, lower: float | None = None,
                         upper: float | None = None, noise: str = "laplace", delta: float = 0.0,
                         rows_per_person: int = 1, confidence: float = 0.95, prior: float = 0.01) -> AccuracyPlan:
    """The smallest ε whose noise keeps |error| ≤ ``half_width`` with probability ``confidence``.

    Parameters
    ----------
    statistic : {"count", "histogram", "sum", "mean"}
        A histogram plans one cell; a mean uses a public n (needs ``n``, ``lower``, ``upper``).
    half_width : float
        > 0, in the statistic's units (geometric noise: rounded down to an integer).
    noise : {"laplace", "gaussian", "geometric"}
    delta : float
        For ``"gaussian"``.
    confidence : float
        In (0, 1), default 0.95.
    prior : float
        The attacker's prior for ``posterior``.

    Returns
    -------
    AccuracyPlan

    Notes
    -----
    Laplace: P(|N| ≤ h) = 1 − e^(−h/b), so ε = Δ·ln(1/(1 − conf))/h. Gaussian: σ = h/z with
    z = Φ⁻¹((1 + conf)/2), and the analytic Gaussian mechanism with σ is (Δ/σ)-GDP, so ε = ε_μ(δ) of
    μ = Δ/σ (Balle & Wang 2018; Dong, Roth & Su 2022). Geometric: P(|K| ≤ h) = 1 − 2α^(h+1)/(1 + α),
    solved for α, ε = −Δ·ln α. The error here is the noise alone: a mean's clipping bias comes on top.

    Examples
    --------
    >>> p = epsilon_for_accuracy("mean", half_width=1.0, n=442, lower=18, upper=80)
    >>> round(p.epsilon, 4), round(p.sensitivity, 4)
    (0.4202, 0.1403)
    """
    from scipy.optimize import brentq

    stat = check_choice(statistic, "statistic", STATISTICS)
    h = check_real(half_width, "half_width", low=0.0, low_open=True)
    noise = check_choice(noise, "noise", NOISES)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    pr = check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True)
    sens = sensitivity(stat, n=n, lower=lower, upper=upper, rows_per_person=rows_per_person)
    d = 0.0
    if noise == "laplace":
        eps = sens * math.log(1.0 / (1.0 - conf)) / h
        scale = sens / eps
    elif noise == "gaussian":
        d = check_delta(delta)
        scale = h / float(special.ndtri(0.5 + conf / 2.0))
        eps = gdp_epsilon(sens / scale, d)
    else:
        if stat in ("mean", "sum") and sens != int(sens):
            raise ValueError("noise='geometric' needs an integer sensitivity; use 'laplace' or 'gaussian'")
        hh = max(0, int(math.floor(h)))
        target = 1.0 - conf
        a = brentq(lambda al: 2 * al ** (hh + 1) / (1 + al) - target, 1e-300, 1 - 1e-15, xtol=1e-15)
        eps = -sens * math.log(a)
        scale = sens / eps
    return AccuracyPlan(stat, noise, h, conf, sens, float(eps), d, float(scale), attacker_view(eps, d),
                        posterior_bound(pr, eps), pr)
