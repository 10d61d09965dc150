"""Dominating clone pairs (k-RR clone reduction, FMT21's clone pair) and their block-bracketed mixtures.

Layer 4 of :mod:`dpexplore.shuffle` (see :mod:`.worst`, items 2 and 3 of its docstring, for why each
pair dominates every neighbouring pair). δ(ε) of the mixture E_{C ~ Bin(N, r)} δ_C(ε) is bracketed by
blocks of C (δ_C is non-increasing in C: adding a clone is post-processing); the upper end adds the
binomial mass outside the window, so it is certified.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize, stats

from dpexplore.core.validation import check_delta, check_int

from ._validate import check_real_array
from .constants import _check_randomizer
from .pairs import MAX_USERS, _krr_params
from .randomizers import Randomizer

__all__ = ["dominating_pair_delta", "dominating_pair_epsilon"]

_BLOCKS = 256  # C-blocks of the dominating pair (error bars shrink like 1/blocks)
_TAIL_SD = 12.0


def _clone_tail(u: float, v: float, C: np.ndarray, gamma: float) -> np.ndarray:
    """δ_C(ε) = Σ_x (P_C(x) − γ Q_C(x))_+ for each C (x = 1s among clones + target; by symmetry
    the reverse direction is the same with 0s).

    P_C/Q_C is increasing in x (Bin(x − 1)/Bin(x) = x/(C − x + 1)), so the positive part is one
    tail x ≥ x_min; x_min from the threshold, and its two neighbours are tried as well (each choice
    is a lower value of the supremum, the true threshold is among them): float rounding never
    makes δ_C too small.
    """
    out = np.zeros(C.shape)
    if u <= gamma * v:
        return out
    t_star = (gamma * u - v) / (u - gamma * v)  # P/Q > γ  <=>  x/(C − x + 1) > t*
    xm = np.floor(t_star * (C + 1.0) / (1.0 + t_star)) + 1.0
    # the three candidate thresholds in one scipy call (the per-call overhead dominates at these sizes)
    x = np.clip(xm[None, :] + np.array([-1.0, 0.0, 1.0])[:, None], 0.0, C + 1.0)
    s = stats.binom.sf(np.concatenate([x - 2.0, x - 1.0]), np.broadcast_to(C, (6, C.size)), 0.5)
    s1, s0 = s[:3], s[3:]  # P(Bin(C, ½) ≥ x − 1), P(Bin(C, ½) ≥ x)
    val = (u * s1 + v * s0) - gamma * (v * s1 + u * s0)
    out = np.maximum(out, val.max(axis=0))
    return np.maximum(out, 0.0)


@functools.lru_cache(maxsize=512)
def _block_weights(N: int, r: float, blocks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """The ε-independent part of :func:`_dominating_delta` (cached: a root search reuses it).

    Blocks of C over mean ± 12 sd of Bin(N, r): (first C of each block, first C of the next
    block, the block's probability, the binomial mass outside the window, the block width).
    """
    mean, sd = N * r, math.sqrt(N * r * (1.0 - r))
    if mean < 1e-100:  # ε0 ≳ 230: Boost's binomial overflows; C = 0 w.p. ≥ 1 − Nr, the rest is outside
        one = (np.zeros(1), np.ones(1), np.ones(1))
        for a in one:
            a.setflags(write=False)
        return one[0], one[1], one[2], min(1.0, mean), 1
    lo = max(0, int(math.floor(mean - _TAIL_SD * sd - _TAIL_SD)))
    hi = min(N, int(math.ceil(mean + _TAIL_SD * sd + _TAIL_SD)))
    starts, nxt, w, width = _mass_blocks(N, r, lo, hi, blocks)
    outside = float(stats.binom.cdf(lo - 1, N, r) + stats.binom.sf(hi, N, r))
    for a in (starts, nxt, w):
        a.setflags(write=False)  # shared by the cache
    return starts, nxt, w, outside, width


def _mass_blocks(N: int, r: float, lo: float, hi: float, blocks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """[lo, hi] cut into ``blocks`` equal blocks of Bin(N, r): (first value of each block, first value
    of the next block, the block's probability, the block width)."""
    width = max(1, math.ceil((hi - lo + 1) / blocks))
    starts = np.arange(lo, hi + 1, width, dtype=float)
    ends = np.minimum(starts + width - 1, hi)
    w = np.maximum(stats.binom.cdf(ends, N, r) - stats.binom.cdf(starts - 1, N, r), 0.0)
    return starts, np.append(starts[1:], float(hi + 1)), w, width


def _dominating_delta(u: float, v: float, r: float, N: int, eps: float, blocks: int = _BLOCKS,
                      need: str = "both") -> tuple[float, float]:
    """(upper, lower) on E_{C ~ Bin(N, r)} δ_C(ε), bracketed by blocks of C (δ_C non-increasing).

    ``need="upper"`` / ``"lower"`` skips the other end (returned as NaN) — half the work.
    """
    gamma = math.exp(min(eps, 700.0))
    starts, nxt, w, outside, width = _block_weights(N, r, blocks)
    if width == 1:
        val = float(np.dot(w, _clone_tail(u, v, starts, gamma)))
        return min(1.0, val + outside), val
    up = min(1.0, float(np.dot(w, _clone_tail(u, v, starts, gamma))) + outside) if need != "lower" else math.nan
    low = float(np.dot(w, _clone_tail(u, v, nxt, gamma))) if need != "upper" else math.nan
    return up, low


def dominating_pair_delta(randomizer: Randomizer, n: int, epsilon, *, bound: str = "upper"):
    """δ(ε) of the dominating pair: ≥ δ(ε) of every neighbouring pair of n shuffled k-RR reports.

    Parameters
    ----------
    randomizer : Randomizer
        From :func:`binary_rr` or :func:`k_rr`.
    n : int
        Users, 2 ≤ n ≤ :data:`MAX_USERS`.
    epsilon : float or array_like
    bound : {"upper", "lower"}
        The certified upper end, or the lower end of the block discretisation (the error bar).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> up = dominating_pair_delta(binary_rr(2.0), 10_000, 0.1)
    >>> lo = dominating_pair_delta(binary_rr(2.0), 10_000, 0.1, bound="lower")
    >>> lo <= up
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    if bound not in ("upper", "lower"):
        raise ValueError(f"bound must be 'upper' or 'lower'; got {bound!r}")
    eps = check_real_array(epsilon, "epsilon")
    u, v, r, _ = _krr_params(R)
    i = 0 if bound == "upper" else 1
    out = np.array([_dominating_delta(u, v, r, n - 1, float(e))[i] for e in eps.ravel()]).reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


def dominating_pair_epsilon(randomizer: Randomizer, n: int, delta: float) -> tuple[float, float]:
    """(upper, lower) ε(δ) of the dominating pair; ``upper`` is a certified worst-case ε (≤ ε0).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> up, lo = dominating_pair_epsilon(binary_rr(4.0), 100_000, 1e-6)
    >>> lo <= up < 4.0
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    delta = check_delta(delta)
    u, v, r, _ = _krr_params(R)
    return _clone_mixture_epsilon(u, v, r, n - 1, delta)


def _clone_mixture_epsilon(u: float, v: float, r: float, N: int, delta: float,
                           lower: bool = True, hi: float | None = None) -> tuple[float, float]:
    """(upper, lower) ε(δ) of E_{C ~ Bin(N, r)} of the clone pair, target weights (u, v); lower NaN if not asked.

    ``hi``: an ε already known to satisfy the upper end's δ(hi) ≤ δ narrows the root bracket (the
    search falls back to [0, ε0] if it does not).
    """
    e0 = math.log(u / v)
    res = []
    for i in ((0, 1) if lower else (0,)):
        def f(e, i=i):
            return math.log(max(_dominating_delta(u, v, r, N, e, need=("upper", "lower")[i])[i], 1e-300)) \
                - math.log(delta)
        if f(0.0) <= 0:
            res.append(0.0)
            continue
        top = e0 if hi is None or i == 1 else min(e0, hi)
        if top < e0 and f(top) > 0:
            top = e0
        if f(top) > 0:  # cannot happen at ε0 (δ_C(ε0) = 0); trivial bound
            res.append(e0)
            continue
        root = float(optimize.brentq(f, 0.0, top, xtol=1e-9, rtol=1e-6))
        if i == 0:  # step onto the feasible side so the upper value is certified
            step = 1e-6 * max(1e-3, root)
            while f(root) > 0:  # steps double: a flat δ(ε) (ε0 ≈ 700) cannot make this crawl
                root, step = min(e0, root + step), 2.0 * step
        res.append(root)
    if not lower:
        return res[0], math.nan
    return res[0], min(res[1], res[0])


def _clone_upper_delta(R: Randomizer, n: int, eps: np.ndarray) -> np.ndarray:
    """min(k-RR clone pair, FMT21 clone pair) upper δ at each ε: both bound every data set."""
    u, v, r, _ = _krr_params(R)
    e_loc = R.local_epsilon
    a = 1.0 / (1.0 + math.exp(-e_loc))
    return np.array([min(_dominating_delta(u, v, r, n - 1, float(e), need="upper")[0],
                         _dominating_delta(a, 1.0 - a, math.exp(-e_loc), n - 1, float(e), need="upper")[0])
                     for e in eps])
