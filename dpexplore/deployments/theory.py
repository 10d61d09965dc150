"""Closed forms next to the TopDown lab's measurements.

* :func:`raw_rmse`: the raw measurement's error at a level is exactly √Var N_Z(0, σ²) (exact).
* :func:`clipping_bias_reference`: E[max(0, X)] for X ~ N_Z(0, σ²), what clipping an empty block's
  measurement at 0 adds on average when nothing else is adjusted (a *reference*, not a bound: the
  fit to the county total also moves the block, and rounding adds ±1/2).
* :func:`privacy_of`: ρ → (ε, δ) both ways (the tight Canonne–Kamath–Steinke conversion and the simple
  ρ + 2√(ρ ln 1/δ)).

Examples
--------
>>> round(raw_rmse(0.05), 3)  # ρ_block = 0.05: σ² = 10
3.162
>>> round(clipping_bias_reference(0.05), 3)
1.251
"""

from __future__ import annotations

import math

from dpexplore.core.discrete_gaussian import (
    discrete_gaussian_pmf,
    discrete_gaussian_support,
    discrete_gaussian_variance,
    zcdp_epsilon,
)
from dpexplore.core.gaussian import zcdp_to_dp
from dpexplore.core.validation import check_delta, check_real

__all__ = ["clipping_bias_reference", "privacy_of", "raw_rmse"]


def _sigma2(rho_level: float) -> float:
    r = check_real(rho_level, "rho_level", low=0.0, low_open=True, high=1e6)
    return 1.0 / (2.0 * r)


def raw_rmse(rho_level: float) -> float:
    """Exact RMSE of one level's raw measurements at ρ_level: √Var N_Z(0, 1/(2ρ_level)).

    Examples
    --------
    >>> round(raw_rmse(0.5), 4)  # σ² = 1: the variance is just below 1
    1.0
    """
    return math.sqrt(discrete_gaussian_variance(_sigma2(rho_level)))


def clipping_bias_reference(rho_level: float) -> float:
    """E[max(0, X)], X ~ N_Z(0, 1/(2ρ_level)): an empty block's mean after clipping alone (reference).

    Examples
    --------
    >>> round(clipping_bias_reference(0.5), 3)
    0.364
    """
    s2 = _sigma2(rho_level)
    xs = discrete_gaussian_support(s2)
    xs = xs[xs > 0]
    return float((xs * discrete_gaussian_pmf(xs, s2)).sum())


def privacy_of(rho: float, delta: float = 1e-10) -> dict:
    """{"rho", "delta", "epsilon_tight", "epsilon_simple"}: what ρ-zCDP gives at δ.

    ``epsilon_tight`` ≤ ``epsilon_simple`` always (both are upper bounds on the ε of the release).

    Examples
    --------
    >>> p = privacy_of(2.56, 1e-10)
    >>> round(p["epsilon_tight"], 2), round(p["epsilon_simple"], 2)
    (17.16, 17.92)
    """
    r = check_real(rho, "rho", low=0.0, high=1e6)
    d = check_delta(delta)
    return {"rho": r, "delta": d, "epsilon_tight": zcdp_epsilon(r, d), "epsilon_simple": zcdp_to_dp(r, d)}


