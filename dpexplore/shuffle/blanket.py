"""The privacy blanket of k-RR evaluated exactly (item 4 of :mod:`.worst`'s docstring).

Layer 5 of :mod:`dpexplore.shuffle`. Every k-RR report is (k/d)·Uniform(k) + (1 − k/d)·δ_x; given the
number M of blanket reports among the others, the pair "target + M uniform reports" depends on the
histogram only through (h_0, h_1), and its δ(ε) is two binomial tails per row (Pascal recurrences,
:func:`dpexplore.shuffle.pairs._pascal_tails`). The M-mixture is bracketed by blocks of M.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from dpexplore.core.validation import check_int

from ._validate import check_real_array
from .clones import _mass_blocks
from .constants import _check_randomizer
from .pairs import MAX_USERS, _log_binom_pmf, _pascal_tails, _seg_cumsum
from .randomizers import Randomizer

__all__ = ["BLANKET_BLOCKS", "BLANKET_BLOCKS_LIMIT", "blanket_pair_delta"]

#: default blocks of M (the blanket count) in :func:`blanket_pair_delta` (the bracket shrinks like 1/blocks)
BLANKET_BLOCKS = 32
#: public maximum of ``blocks`` in :func:`blanket_pair_delta`
BLANKET_BLOCKS_LIMIT = 4096
_BLANKET_CHUNK = 400_000  # (block, T) cells per vectorised step (≈ 20 arrays of this size: ≈ 64 MB)


def _binom_range(N: np.ndarray, p: float, tail: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A window [lo, hi] around the mean of Bin(N, p) (vectorised over N) and its exact outside mass.

    The width (mean ± (√(2 ln(1/tail)) + 2) sd) only decides how tight the caller's bound is; the
    outside mass is computed exactly and added by the caller, so any width is correct.
    """
    N = np.asarray(N, dtype=float)
    z = math.sqrt(2.0 * math.log(1.0 / tail)) + 2.0
    mean, sd = N * p, np.sqrt(N * p * (1.0 - p))
    lo = np.maximum(np.floor(mean - z * sd - 2.0), 0.0)
    hi = np.minimum(np.ceil(mean + z * sd + 2.0), N)
    outside = stats.binom.cdf(lo - 1.0, N, p) + stats.binom.sf(hi, N, p)
    return lo, hi, np.clip(outside, 0.0, 1.0)


def _blanket_S_delta(e0: float, k: int, S: np.ndarray, gamma: float, tail: float, upper: bool = True) -> np.ndarray:
    """Upper value of δ(ε) = Σ_h (P − γQ)_+ of the pair "target 1 vs 0 + (S − 1) uniform reports", per S.

    With α = e^{ε0} − 1 and d = e^{ε0} + k − 1, the multinomial identity Mult_{S−1}(h − e_y) =
    Mult_S(h)·h_y·k/S gives P_b(h) = Mult_S(h; uniform)·k/(dS)·(α h_b + S): the laws depend on
    h only through (h_0, h_1) (sufficient). Given T = h_0 + h_1 ~ Bin(S, 2/k), h_1 ~ Bin(T, ½) and
    P − γQ = k/(dS)·(α(1 + γ)h_1 + S(1 − γ) − γαT) is increasing in h_1: positive on the half-line
    h_1 ≥ a_T = ⌊x*_T⌋ + 1, x*_T = (γαT − S(1 − γ))/(α(1 + γ)). With g = P(Bin(T, ½) ≥ a_T) and
    p = Bin(a_T − 1; T, ½), the row's sum is α(1 + γ)(T − a_T + 1)p/2 − (γ − 1)(S + αT/2)g.
    Along T the threshold moves by 0 or 1 (slope γ/(1 + γ) < 1), so g and log p follow exact
    two-term recurrences (Pascal's rule); they are restarted from scipy's incomplete beta / log-pmf
    every 128 rows of T (and at the first row with a non-empty half-line), which keeps the
    accumulated rounding ≤ ≈ 1e-13 relative. Upper value: T outside its window (mass ``tail`` per
    side) is added with its whole P-mass; margins for the recurrences' rounding (1e-11 of the
    running sum of |increments|), the cancellation (1e-11 of both terms), a threshold off by one
    through rounding and the pmf's rounding are added. ``upper=False``: no margins (the error
    bar's lower end).
    """
    d, al, p = math.exp(e0) + k - 1, math.expm1(e0), 2.0 / k
    S = np.asarray(S, dtype=float)
    if gamma >= math.exp(e0):  # ε ≥ ε0: P/Q = (αh_1 + S)/(αh_0 + S) ≤ e^{ε0} cellwise
        return np.zeros(S.shape)
    lo, hi, outside = _binom_range(S, p, tail)
    # a T-row's P-mass is Bin(T; S, 2/k)·k/(dS)·(αT/2 + S) ≤ Bin(T; S, 2/k)·(k/d)(1 + α/2)
    out = outside * (k / d) * (1.0 + al / 2.0) if upper else np.zeros(S.shape)
    L = int((hi - lo).max()) + 1
    rows = max(1, _BLANKET_CHUNK // L)
    j = np.arange(L)[None, :]
    for i0 in range(0, S.size, rows):
        sl = slice(i0, i0 + rows)
        T = lo[sl, None] + j
        valid = T <= hi[sl, None]
        T = np.where(valid, T, hi[sl, None])
        Sb = np.broadcast_to(S[sl, None], T.shape)
        a = np.floor((gamma * al * T - Sb * (1.0 - gamma)) / (al * (1.0 + gamma))) + 1.0  # x* ≥ 0 since γ ≥ 1
        inner = valid & (a <= T)  # a > T: empty half-line, the row adds 0
        a = np.clip(a, 1.0, T)  # placeholder outside ``inner``
        g0, pj, anchor, idx, m_g0 = _pascal_tails(T, a, inner)
        lwa = np.zeros(T.shape)
        lwa[anchor] = _log_binom_pmf(T[anchor], Sb[anchor], p)
        with np.errstate(divide="ignore", invalid="ignore"):  # cells outside ``inner``/``valid`` are masked
            lw_inc = np.log((Sb - T) / (T + 1.0)) + math.log(p / (1.0 - p))
            lw = _seg_cumsum(np.where(valid & (T < Sb), lw_inc, 0.0), idx, lwa)
            X = al * (1.0 + gamma) * (T - a + 1.0) * pj / 2.0
            Y = (gamma - 1.0) * (Sb + al * T / 2.0) * g0
            val = X - Y
            if upper:
                eta = 1e-12 * (T + Sb) / al  # rounding of x*: the cell a − 1 or a may be misplaced
                val = (val + 1e-11 * (X + np.abs(Y)) + (gamma - 1.0) * (Sb + al * T / 2.0) * m_g0
                       + al * (1.0 + gamma) * eta * np.maximum(pj, pj * (T - a + 1.0) / a))
            val = np.where(inner, np.maximum(val, 0.0), 0.0)
            w = np.exp(lw) * (k / (d * Sb)) * ((1.0 + 1e-10) if upper else 1.0)
            out[sl] += np.sum(np.where(valid, w * val, 0.0), axis=1)
    return np.minimum(out, 1.0)


def _blanket_delta(e0: float, k: int, n: int, eps: float, *, blocks: int = BLANKET_BLOCKS,
                   tail: float = 1e-20, need: str = "upper") -> tuple[float, float]:
    """(upper, lower) on E_{M ~ Bin(n − 1, k/d)} δ_M(ε), δ_M = the pair "target + M uniform reports".

    δ_M is non-increasing in M (one more independent uniform report is post-processing), so blocks
    of M bracket the expectation: upper Σ P(block)·δ_{first M} + P(M outside the window); lower
    Σ P(block)·δ_{first M of the next block}. ``need`` = "upper", "lower" or "both".
    """
    if eps >= e0:  # the blanket pair is ε0-DP (it is post-processing of the target's report)
        return 0.0, 0.0
    r, N = k / (math.exp(e0) + k - 1), n - 1
    lo, hi, outside = (float(x[0]) for x in _binom_range(np.array([float(N)]), r, tail))
    starts, nxt, w, _ = _mass_blocks(N, r, lo, hi, blocks)
    g = math.exp(min(eps, 700.0))
    up = low = math.nan
    if need in ("upper", "both"):
        up = min(1.0, float(np.dot(w, _blanket_S_delta(e0, k, starts + 1.0, g, tail))) + outside)
    if need in ("lower", "both"):
        low = float(np.dot(w, _blanket_S_delta(e0, k, nxt + 1.0, g, tail, upper=False)))
    return up, low


def _blanket_tail(delta: float) -> float:
    """Window tail for :func:`_blanket_delta` at a target δ: the outside mass it adds is ≪ δ."""
    return max(1e-300, min(1e-12, 1e-6 * delta))


def blanket_pair_delta(randomizer: Randomizer, n: int, epsilon, *, bound: str = "upper",
                       blocks: int = BLANKET_BLOCKS):
    """δ(ε) of the privacy blanket evaluated exactly: ≥ δ(ε) of every neighbouring pair (k-RR).

    Every k-RR report is W_x = (k/d)·Uniform(k symbols) + (1 − k/d)·(point mass at x),
    d = e^{ε0} + k − 1 (the "privacy blanket" of Balle, Bell, Gascón & Nissim 2019). Conditioning
    on which of the other n − 1 users report from the blanket (M ~ Bin(n − 1, k/d) of them) and on
    the others' point masses (a known shift of the histogram), joint convexity of the hockey-stick
    divergence gives, for **every** configuration of the other users' inputs,
    δ(ε) ≤ E_M δ_M(ε), δ_M = the pair "target 1 vs 0 + M uniform reports", which is evaluated
    exactly (two incomplete-beta tails per count in {0, 1}; see ``_blanket_S_delta``) and
    bracketed over blocks of M (δ_M is non-increasing in M: one more uniform report is
    post-processing). BBGN19 bound the same expectation by Bennett's inequality
    (:func:`blanket_delta`); this is its exact value, and it is never above the k-RR clone pair
    (:func:`dominating_pair_delta`: the blanket pair is a post-processing of it). For k-RR with
    k ≥ 3 it meets the third-symbol pair (an actual pair, :func:`third_symbol_epsilon`) to
    ≈ 1e-4 in ε at n ≥ 10⁴: then the worst case is pinned (see :func:`worst_case_epsilon`).

    Parameters
    ----------
    randomizer : Randomizer
        From :func:`binary_rr` or :func:`k_rr`.
    n : int
        Users, 2 ≤ n ≤ :data:`MAX_USERS`.
    epsilon : float or array_like
    bound : {"upper", "lower"}
        The certified upper end, or the lower end of the block discretisation (its error bar).
    blocks : int
        Blocks of M, 1 … :data:`BLANKET_BLOCKS_LIMIT` (the bracket's width shrinks like 1/blocks).

    Examples
    --------
    >>> from dpexplore.shuffle import k_rr
    >>> up = blanket_pair_delta(k_rr(2.0, 3), 10_000, 0.1)
    >>> lo = blanket_pair_delta(k_rr(2.0, 3), 10_000, 0.1, bound="lower")
    >>> bool(lo <= up)
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    if bound not in ("upper", "lower"):
        raise ValueError(f"bound must be 'upper' or 'lower'; got {bound!r}")
    blocks = check_int(blocks, "blocks", low=1, high=BLANKET_BLOCKS_LIMIT)
    eps = check_real_array(epsilon, "epsilon")
    if R.krr is None:
        raise ValueError("the privacy blanket is implemented for k-ary randomized response (binary_rr / k_rr); "
                         f"got the custom randomizer {R.name!r}")
    e0, k = R.krr
    i = 0 if bound == "upper" else 1
    out = np.array([_blanket_delta(e0, k, n, float(e), blocks=blocks, tail=1e-22, need=bound)[i]
                    for e in eps.ravel()]).reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


def _blanket_epsilon(R: Randomizer, n: int, delta: float, hi: float, blocks: int = 4 * BLANKET_BLOCKS) -> float:
    """Smallest ε ≤ ``hi`` found with blanket upper δ(ε) ≤ δ (certified); ``hi`` if none below it."""
    e0, k = R.krr
    tail = _blanket_tail(delta)

    def f(e):
        return math.log(max(_blanket_delta(e0, k, n, e, blocks=blocks, tail=tail)[0], 1e-300)) - math.log(delta)

    if f(0.0) <= 0:
        return 0.0
    if f(hi) > 0:
        return hi
    root = float(optimize.brentq(f, 0.0, hi, xtol=1e-9, rtol=1e-6))
    step = 1e-6 * max(1e-3, root)
    while f(root) > 0:  # step onto the feasible side (steps double: a flat δ(ε) cannot make this crawl)
        root, step = min(hi, root + step), 2.0 * step
    return root
