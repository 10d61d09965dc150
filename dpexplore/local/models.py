"""Local vs shuffle vs central at the same ε, on the same data: what each trust model costs in accuracy.

* **central**: a trusted curator adds Laplace noise to the histogram of the n answers. Neighbours: one
  person's answer *replaced* by another (n is public, as in the local model), so two cells move by 1: ℓ1
  sensitivity Δ = 2, Laplace scale b = 2/ε per cell, Var = 2b² = 8/ε² per count (exact). ε-DP.
* **local**: every person randomizes with ε-LDP k-RR or OUE; Var from
  :func:`dpexplore.local.theory.count_variance` (exact). ε-DP for the whole release (each report is).
* **shuffle**: every person sends a k-RR report at a larger ε0; a trusted shuffler releases only the
  reports' histogram. Its central (ε, δ) is accounted by paper 4's certified worst case over all
  neighbouring data sets (:func:`dpexplore.shuffle.shuffled_epsilon` with ``accounting="exact"``, for k-RR
  the exact privacy blanket within a certified bracket; we use its **upper** end). ε0 is the largest with
  ε_central(ε0) ≤ ε at δ (:func:`dpexplore.shuffle.affordable_epsilon0`, same accounting); Var is k-RR's at
  ε0. (ε, δ)-DP with δ > 0, while the other two are pure ε-DP: say so when comparing.

Examples
--------
>>> round(central_count_variance(1.0), 12)
8.0
>>> e0 = shuffle_epsilon0(1.0, n=1000, k=4, delta=1e-6)
>>> e0 > 1.0 and shuffle_central_epsilon(e0, n=1000, k=4, delta=1e-6) <= 1.0 + 1e-9
True
"""

from __future__ import annotations

import functools

from dpexplore.core.validation import check_delta, check_epsilon, check_int
from dpexplore.shuffle import affordable_epsilon0, shuffled_epsilon

from .mechanisms import MAX_EPSILON, MAX_K, MAX_N

__all__ = ["CENTRAL_SENSITIVITY", "MAX_SHUFFLE_EPSILON0", "central_count_variance", "shuffle_central_epsilon",
           "shuffle_epsilon0"]

#: ℓ1 sensitivity of the histogram under replacement of one person's answer
CENTRAL_SENSITIVITY = 2.0
#: the largest local ε0 the shuffle search considers
MAX_SHUFFLE_EPSILON0 = 12.0


def central_count_variance(epsilon: float) -> float:
    """Var of one Laplace-noised count of the central histogram: 2(Δ/ε)², Δ = 2 (replacement).

    Examples
    --------
    >>> central_count_variance(2.0)
    2.0
    """
    eps = check_epsilon(epsilon)
    return 2.0 * (CENTRAL_SENSITIVITY / eps) ** 2


def shuffle_central_epsilon(epsilon0: float, *, n: int, k: int, delta: float) -> float:
    """The certified central ε at δ of n shuffled k-RR(ε0) reports: paper 4's worst case over all neighbouring
    data sets (upper end), capped at ε0 (:func:`dpexplore.shuffle.shuffled_epsilon`, ``accounting="exact"``).

    Examples
    --------
    >>> shuffle_central_epsilon(2.0, n=1000, k=8, delta=1e-6) < 2.0
    True
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2, high=MAX_N)
    k = check_int(k, "k", low=2, high=MAX_K)
    return _central(e0, n, k, check_delta(delta))


@functools.lru_cache(maxsize=512)
def _central(e0: float, n: int, k: int, delta: float) -> float:
    return float(shuffled_epsilon(e0, n, delta, accounting="exact", k=k))


@functools.lru_cache(maxsize=512)
def _epsilon0(eps: float, n: int, k: int, delta: float) -> float:
    res = affordable_epsilon0(eps, delta, n, accounting="exact", k=k, epsilon0_max=MAX_SHUFFLE_EPSILON0)
    return float(res.epsilon0)


def shuffle_epsilon0(epsilon: float, *, n: int, k: int, delta: float) -> float:
    """The largest local ε0 (≤ :data:`MAX_SHUFFLE_EPSILON0`) whose shuffled k-RR reports are (ε, δ)-DP by paper
    4's certified worst case (never less than ε: shuffling never hurts; for ε ≥ :data:`MAX_SHUFFLE_EPSILON0`
    it is ε, the trivial bound).

    Examples
    --------
    >>> round(shuffle_epsilon0(0.5, n=1000, k=8, delta=1e-6), 2)
    2.59
    """
    eps = check_epsilon(epsilon)
    if eps > MAX_EPSILON:
        raise ValueError(f"epsilon must be a finite number in (0, {MAX_EPSILON:g}]; got {eps:g}")
    n = check_int(n, "n", low=2, high=MAX_N)
    k = check_int(k, "k", low=2, high=MAX_K)
    d = check_delta(delta)
    if eps >= MAX_SHUFFLE_EPSILON0:  # the trivial bound ε ≤ ε0 already meets the target at ε0 = ε
        return eps
    return max(eps, _epsilon0(eps, n, k, d))
