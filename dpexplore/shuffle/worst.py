"""Worst case over all neighbouring data sets of the shuffled histogram.

The model: n users, each holds an input from the randomizer's input domain (``R.inputs``: 2 for
binary-input randomizers, k for k-ary randomized response); neighbouring data sets differ in one
user's input (replacement). The shuffled output is the histogram of the n reports, so a pair of
neighbouring data sets is described, up to permutation of the users, by the target's two inputs
(a, b) and the count vector c of the other n − 1 users' inputs.

What is computed, and why it is (an upper bound on) the maximum
-----------------------------------------------------------------
1. **Exhaustive** (``exhaustive=True``): every pair up to the symmetries of the randomizer is
   evaluated exactly and the maximum is taken — this *is* the worst case, by definition.
   Binary inputs: the pairs are (T_{n,k}, T_{n,k+1}), k = 0 … n − 1 (k users of the others hold
   1), both directions; for a symmetric randomizer (W1 = W0 reversed, e.g. binary RR) k and
   n − 1 − k give the same two-sided profile, so k ≤ (n − 1)/2 suffices. k-RR (k ≥ 3): by the
   symmetry of k-RR under permutations of the symbols the target moves 0 → 1 and the other users'
   counts are (c_0, c_1, a multiset of counts on the symbols 2 … k − 1); each histogram law is an
   exact multinomial convolution on the dense grid (tiny n only). The canonical pair (others at 0)
   is *not* the worst case in general: others at a third symbol, or some k > 0 for binary RR, are
   worse (paper-4 spec, round-1 correction; tests/shuffle/test_worst.py checks this by brute force).
1b. **Branch and bound over k** (binary inputs, n ≤ :data:`BNB_MAX_N` = 10⁷; :func:`_binary_sweep`):
   the pairs are again k = 0 … n − 1, but one exact "block pair" bounds every k in a block
   [a, b]: a users at 1 and n − 1 − b at 0 are common to all of them, and each of the b − a
   others reports a coin with probability γ = 1 − |w1 − w0| (2/(e^{ε0} + 1) for binary RR) and a
   value fixed by its input otherwise; conditioning on the coins' number M (same law throughout
   the block) and on the fixed values (a shift), joint convexity gives δ_k ≤ P(M < m0) +
   δ_{block pair with m0 coins}. Blocks are swept with growing widths from both ends, each is
   either dominated by the best exact single pair (× (1 + rtol)) or narrowed down to single k.
   Result: a certified bracket [lower, epsilon] with lower attained by one pair and
   epsilon ≤ lower·(1 + rtol) (default 1e-3) — the worst case to 0.1%, never below it
   (tests/shuffle/test_worst.py: equal to the exhaustive maximum at rtol = 1e-9, block bounds
   checked against every pair of the block). Measured: 27–260 pairs, 0.03–2.7 s at n ≤ 10⁶,
   0.15–10 s at n = 10⁷ (benchmarks/bench_shuffle.py). The maximum is not at k = 0 in general
   (binary RR, ε0 = 8, n = 10⁶: k = 15 is worse than k = 0, and at rtol = 1e-9 k = 293).
2. **Dominating pair** (always available for k-RR, binary RR included): every user's report
   decomposes as W_x = (2/d)·U{0,1} + (rest), d = e^{ε0} + k − 1, because every k-RR law puts
   mass ≥ 1/d on each of the symbols 0 and 1. Conditioning on which of the other users are
   "clones" (report uniform on {0, 1}) and what the others reported, joint convexity of the
   hockey-stick divergence gives, for *every* configuration of the others,
   δ(ε) ≤ E_{C ~ Bin(n − 1, 2/d)} δ_C(ε), where δ_C is the pair "C clones + the target" on the
   {0, 1} counts: P_C(x) = u·Bin(x − 1; C, ½) + v·Bin(x; C, ½), Q_C swaps u and v, u = e^{ε0}/d,
   v = 1/d (x = number of 1s; target 1 vs 0; the target's reports outside {0, 1} have the same
   mass under both and are separated from these cells once C is known, so they add nothing).
   This is the clone reduction of Feldman, McMillan & Talwar (2023, their pair for binary RR),
   derived here for k-RR (for k = 2 it is exactly their FMT23 pair, and Wang et al.'s
   variation-ratio pair). Because adding an independent clone is post-processing, δ_C is non-increasing in
   C, so sums over blocks of C bracket the expectation rigorously: δ ≤ Σ_blocks P(block)·δ_{first C}
   (upper) and ≥ Σ P(block)·δ_{next block's first C} (lower), with the binomial mass outside
   mean ± 12 sd added to the upper value. O(number of blocks) per ε, i.e. O(1)–O(√n).
3. **FMT21 clone pair** (Feldman, McMillan & Talwar 2021): bounds every ε0-LDP randomizer and
   every data set; evaluated with the same block bracket. For large k and small ε0 it is tighter
   than the k-RR clone pair (16-RR, ε0 = 0.5), so the certified value is the smaller of the two.
4. **Privacy blanket, evaluated exactly** (k-RR, k ≥ 3; :func:`blanket_pair_delta`): every
   report is W_x = (k/d)·Uniform(k) + (1 − k/d)·δ_x (the blanket of Balle, Bell, Gascón &
   Nissim 2019). Conditioning on which other users report from the blanket (M ~ Bin(n − 1, k/d))
   and on the others' point masses (a known shift), joint convexity gives δ(ε) ≤ E_M δ_M(ε) for
   every configuration, δ_M = "target + M uniform reports". δ_M is exact (the laws depend on the
   histogram only through (h_0, h_1): P_b ∝ Mult(h)·(αh_b + M + 1), α = e^{ε0} − 1, so P − γQ > 0 on
   a half-line of h_1 for each h_0 + h_1; two binomial tails per row, by Pascal recurrences) and
   the M-mixture is bracketed by blocks (δ_M non-increasing in M). BBGN19 bound the same
   decomposition with Bennett's inequality (:func:`dpexplore.shuffle.blanket_delta`, item 4b,
   still computed and drawn for comparison). The blanket pair is a post-processing of the k-RR
   clone pair (item 2: it is not told how many blanket reports fell on {0, 1}), so it is never
   above it. **Against the third-symbol pair** ("all other users hold symbol 2", an actual data
   set; O(√n) per ε, outputs ≠ 0, 1 merged for k > 3 — a lower value) it closes the bracket:
   measured ratio certified/lower ≤ 1 + 1e-3 for 3-, 4- and 16-RR at 10⁴ ≤ n ≤ 10⁷, ε0 ∈ [0.5, 8],
   δ = 1e-6 (wider at n ≤ 1000 and where ε is near ε0: up to 6% at n = 20–200). The cost is one
   blanket evaluation at lower·(1 + rtol/4) or lower·(1 + rtol) (no root search):
   0.014–0.08 s at n = 10⁶, 0.013–0.15 s at n = 10⁷ (benchmarks/bench_shuffle.py).
5. **Trivial bound**: the histogram is post-processing of the reports, so ε ≤ ε0 (δ = 0).

Not used: Wang et al.'s variation-ratio bound (2023). For binary RR it coincides with the FMT23
clone pair (item 2). For k-RR with k ≥ 3 it evaluates to the merged third-symbol pair — a lower
value of one actual pair — and brute force over all data sets finds pairs above it at small n
(:func:`dpexplore.shuffle.variation_ratio_delta`), so it is not a certified worst-case bound.

:func:`worst_case_epsilon` returns the exhaustive maximum where the enumeration is affordable
(``exhaustive=True``: lower = upper = the worst case), the branch-and-bound bracket for binary
inputs up to n = 10⁷ and the exact-blanket/third-symbol bracket for k-RR (``certified_exact``
when it closes to ``rtol``), and otherwise the certified upper bound min(exact blanket (k ≥ 3),
dominating pair, FMT21 pair, blanket Bennett bound (k ≥ 3), ε0) together with a *lower* end: the
largest exact ε of the named pairs it evaluated (canonical pair, a few k > 0, the third-symbol
pair). The true worst case lies in [lower, epsilon]; ``epsilon`` is never below it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from dpexplore.core.validation import check_delta, check_int, check_real

from ._validate import check_real_array
from .constants import _check_randomizer
from .randomizers import Randomizer

__all__ = [
    "MAX_USERS",
    "EXHAUSTIVE_BINARY_MAX_N",
    "EXHAUSTIVE_BINARY_LIMIT",
    "BNB_MAX_N",
    "BNB_RTOL",
    "BNB_MAX_PAIRS",
    "WorstCaseEpsilon",
    "worst_case_epsilon",
    "worst_case_delta",
    "dominating_pair_delta",
    "dominating_pair_epsilon",
    "blanket_pair_delta",
    "BLANKET_BLOCKS",
    "BLANKET_BLOCKS_LIMIT",
    "pure_pair",
    "third_symbol_epsilon",
]

#: public maximum of n (users) for the worst-case and dominating-pair computations
MAX_USERS = 10**9
#: binary inputs: every pair k = 0 … n − 1 is evaluated exactly up to this n (default of ``exhaustive_max_n``)
EXHAUSTIVE_BINARY_MAX_N = 600
#: public maximum of ``exhaustive_max_n`` (n = 10⁴ takes ≈ 10–20 s on one core)
EXHAUSTIVE_BINARY_LIMIT = 20_000
#: binary inputs above ``exhaustive_max_n``: the certified branch and bound over k runs up to this n
BNB_MAX_N = 10**7
#: default relative width of the branch-and-bound bracket (upper ≤ lower·(1 + rtol) when it closes)
BNB_RTOL = 1e-3
#: default and public maximum of the pairs the branch and bound may evaluate
BNB_MAX_PAIRS = 2000
BNB_PAIRS_LIMIT = 100_000
_EXH_GRID_WORK = 3_000_000  # k-RR exhaustive enumeration: configurations × grid cells
_BLOCKS = 256  # C-blocks of the dominating pair (error bars shrink like 1/blocks)
_TAIL_SD = 12.0


@dataclass(frozen=True)
class WorstCaseEpsilon:
    """ε(δ) in the worst case over neighbouring data sets (see the module docstring).

    Attributes
    ----------
    epsilon : float
        Certified: ≥ the ε of every neighbouring pair. Equal to the worst case when ``exhaustive``.
    lower : float
        Largest exact ε among the pairs evaluated (attained by ``pair``): the worst case is ≥ it.
    exhaustive : bool
        Every neighbouring pair was evaluated (then ``lower == epsilon``).
    pair : str
        The configuration attaining ``lower``.
    method : str
        Which bound gives ``epsilon`` ("exhaustive", "branch and bound over k (certified bracket)",
        "exact privacy blanket (certified bracket)", "dominating pair", "FMT21 clone pair",
        "privacy blanket (BBGN19 Bennett bound)", "trivial ε0", …).
    dominating_upper, dominating_lower : float
        The dominating-pair ε (upper) and its discretisation's lower end (NaN if not computed).
    """

    epsilon: float
    lower: float
    exhaustive: bool
    pair: str
    method: str
    delta: float
    n: int
    dominating_upper: float = math.nan
    dominating_lower: float = math.nan
    #: for binary-input pairs (T_{n,k}, T_{n,k+1}): the k attaining ``lower`` (None otherwise)
    pair_k: int | None = None
    #: branch and bound over k (binary inputs): pairs evaluated, and whether the bracket closed to ``rtol``
    pairs_evaluated: int = 0
    rtol: float = math.nan

    @property
    def certified_exact(self) -> bool:
        """The worst case is known: exhaustive, or a closed branch-and-bound bracket (width ≤ rtol)."""
        return self.exhaustive or (math.isfinite(self.rtol) and self.epsilon <= self.lower * (1 + self.rtol) + 1e-300)

    @property
    def label(self) -> str:
        """Short text for legends: which bound and which pair."""
        if self.exhaustive:
            return f"exact worst case over all neighbouring data sets (attained by {self.pair})"
        if self.certified_exact:
            how = "branch and bound" if "branch and bound" in self.method else (
                "exact privacy blanket" if "blanket" in self.method else self.method)
            return (f"worst case over all neighbouring data sets: ε ∈ [{self.lower:.6g}, {self.epsilon:.6g}] "
                    f"(certified {how}, width ≤ {self.rtol:.0e}; lower end attained by {self.pair})")
        return (f"worst case ≤ {self.epsilon:.4g} ({self.method}); ≥ {self.lower:.4g} attained by {self.pair}")


# -- dominating (clone / variation-ratio) pair ---------------------------------------------------
def _krr_params(R: Randomizer) -> tuple[float, float, float, int]:
    if R.krr is None:
        raise ValueError("the dominating pair is implemented for k-ary randomized response (binary_rr / k_rr); "
                         f"got the custom randomizer {R.name!r}")
    e0, k = R.krr
    d = math.exp(e0) + k - 1
    return math.exp(e0) / d, 1.0 / d, 2.0 / d, k


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
            while f(root) > 0:
                root = min(e0, root + 1e-6 * max(1e-3, root))
        res.append(root)
    if not lower:
        return res[0], math.nan
    return res[0], min(res[1], res[0])


# -- the privacy blanket, evaluated exactly (k-RR) ------------------------------------------------
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


def _seg_cumsum(inc: np.ndarray, idx: np.ndarray, val: np.ndarray) -> np.ndarray:
    """Row-wise x[j] = val[j] at the anchors, else x[j − 1] + inc[j − 1]; ``idx`` = :func:`_seg_index`."""
    c = np.zeros(inc.shape)
    np.cumsum(inc[:, :-1], axis=1, out=c[:, 1:])  # c[j] = Σ_{i < j} inc[i]
    return c + np.take_along_axis(val - c, idx, axis=1)


def _seg_index(anchor: np.ndarray) -> np.ndarray:
    """For each cell, the column of the last anchor at or before it (``anchor[:, 0]`` all True)."""
    return np.maximum.accumulate(np.where(anchor, np.arange(anchor.shape[1])[None, :], 0), axis=1)


def _pascal_tails(T: np.ndarray, a: np.ndarray, inner: np.ndarray):
    """Row-wise along T (axis 1, T increasing by 1): g = P(Bin(T, ½) ≥ a), p = Bin(a − 1; T, ½).

    Valid where ``inner`` (1 ≤ a ≤ T; other cells are placeholders). Where a moves by 0 or 1 from
    one column to the next, Pascal's rule gives exact two-term steps: g(T + 1, a + D) − g(T, a) =
    ½p(1 − D(T + 1)/a), p(T + 1, a + D) = p·(T + 1)/(2a) (D = 1) or (T + 1)/(2(T − a + 2)) (D = 0).
    They are restarted from scipy's incomplete beta and pmf every 128 columns, after any other
    step and where ``inner`` begins, so the rounding stays ≲ 1e-13 relative. Returns (g, p,
    anchors, their :func:`_seg_index`, margin): ``margin`` ≥ the rounding of g (1e-11 of the
    running Σ|steps| + the anchor).
    """
    L = T.shape[1]
    j = np.arange(L)[None, :]
    first = np.argmax(inner, axis=1)
    D = np.zeros(T.shape)
    D[:, :-1] = a[:, 1:] - a[:, :-1]
    restart = np.zeros(T.shape, dtype=bool)
    restart[:, 1:] = ((D[:, :-1] != 0.0) & (D[:, :-1] != 1.0)) | ~inner[:, :-1]
    anchor = inner & (((j - first[:, None]) % 128 == 0) | restart)
    anchor[:, 0] = True
    idx = _seg_index(anchor)
    g0a, lpa = np.zeros(T.shape), np.zeros(T.shape)
    aa, Ta = a[anchor], T[anchor]
    ok = (aa >= 1.0) & (aa <= Ta)
    g0a[anchor] = np.where(ok, special.betainc(np.clip(aa, 1.0, None), np.maximum(Ta - aa + 1.0, 1.0), 0.5), 0.0)
    lpa[anchor] = _log_binom_pmf(aa - 1.0, Ta, 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):  # cells outside ``inner`` are masked
        lp_inc = np.where(D > 0, np.log((T + 1.0) / (2.0 * a)), np.log((T + 1.0) / (2.0 * (T - a + 2.0))))
        pj = np.exp(_seg_cumsum(np.where(inner, lp_inc, 0.0), idx, lpa))
        inc = np.where(inner, 0.5 * pj * (1.0 - D * (T + 1.0) / a), 0.0)
    g0 = _seg_cumsum(inc, idx, g0a)
    margin = 1e-11 * _seg_cumsum(np.abs(inc), idx, np.abs(g0a))
    return g0, pj, anchor, idx, margin


def _log_binom_pmf(x: np.ndarray, N: np.ndarray, p: float) -> np.ndarray:
    """log Bin(x; N, p), to ≈ 1e-13 relative in the pmf: scipy's ``binom.logpmf`` differences
    log-gammas and is off by ≈ 1e-8 relative at N ≈ 10⁶–10⁷, its ``binom.pmf`` is not; the
    log-pmf is used only where the pmf underflows (there the cell is negligible)."""
    pm = stats.binom.pmf(x, N, p)
    with np.errstate(divide="ignore"):
        return np.where(pm > 1e-290, np.log(np.maximum(pm, 1e-300)), stats.binom.logpmf(x, N, p))


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
    while f(root) > 0:  # step onto the feasible side
        root = min(hi, root + 1e-6 * max(1e-3, root))
    return root


def _krr_third_lower(R: Randomizer, n: int, delta: float, cells_max: int) -> tuple[float, str]:
    """ε(δ) of the third-symbol pair (others at symbol 2): exact on the grid where it fits, else the
    O(√n) version (outputs ≠ 0, 1 merged: exact for k = 3, a lower value for k > 3)."""
    G = 3 if R.inputs == 3 else 4
    if (n + 1) ** (G - 1) <= cells_max:
        return pure_pair(R, n, others=2).epsilon(delta), "third-symbol pair (others at symbol 2)"
    name = "third-symbol pair (others at symbol 2" + (")" if R.inputs == 3 else
                                                       "; outputs ≠ 0, 1 merged: a lower value)")
    return third_symbol_epsilon(R, n, delta), name


def _krr_bracket(R: Randomizer, n: int, delta: float, rtol: float, lower: float) -> tuple[float, str] | None:
    """k-RR, k ≥ 3: a certified upper end ≤ lower·(1 + rtol) and the bound giving it, or None.

    lower = the third-symbol pair's ε (an actual pair, :func:`_krr_third_lower`); the upper end is
    a point where the exact blanket's upper δ is ≤ δ, tried at lower·(1 + rtol/4) with 8 blocks of
    M, then at lower·(1 + rtol) with 32 and 256 blocks (one δ evaluation each: no root search).
    """
    e_loc = R.local_epsilon
    if lower * (1.0 + rtol) >= e_loc:  # the trivial bound ε0 closes the bracket
        return e_loc, "trivial ε0 (post-processing of ε0-LDP reports)"
    e0, k = R.krr
    tail = _blanket_tail(delta)
    for f, b in ((rtol / 4, 8), (rtol, 32), (rtol, 256)):
        e_t = lower * (1.0 + f)
        if e_t > 0 and _blanket_delta(e0, k, n, e_t, blocks=b, tail=tail)[0] <= delta:
            return e_t, "exact privacy blanket (certified bracket)"
    return None


# -- binary inputs: certified branch and bound over k ---------------------------------------------
def _swap_symmetric(R: Randomizer) -> bool:
    """Binary inputs: W1 is W0 reversed (binary RR), so the pairs k and n − 1 − k are mirror images."""
    return bool(np.allclose(R.W1, R.W0[::-1], rtol=0, atol=1e-15))


def _clone_upper_delta(R: Randomizer, n: int, eps: np.ndarray) -> np.ndarray:
    """min(k-RR clone pair, FMT21 clone pair) upper δ at each ε: both bound every data set."""
    u, v, r, _ = _krr_params(R)
    e_loc = R.local_epsilon
    a = 1.0 / (1.0 + math.exp(-e_loc))
    return np.array([min(_dominating_delta(u, v, r, n - 1, float(e), need="upper")[0],
                         _dominating_delta(a, 1.0 - a, math.exp(-e_loc), n - 1, float(e), need="upper")[0])
                     for e in eps])


def _binary_groups(R: Randomizer) -> tuple[float, float] | None:
    """(w0, w1): the two inputs' probabilities of the high-ratio group, for the branch and bound."""
    if R.inputs != 2 or R.grouped().K != 2:
        return None
    Rg = R.grouped()
    w0, w1 = float(Rg.W0[1]), float(Rg.W1[1])
    return (w0, w1) if 0.0 < w0 < 1.0 and 0.0 < w1 < 1.0 else None


def _block_pair(R: Randomizer, n: int, a: int, b: int, t: float):
    """A pair whose profile bounds that of every pair k ∈ [a, b] (see :func:`_binary_sweep`); its slack t."""
    from .exact import _pair_from_others, shuffled_pair

    if a == b:
        return shuffled_pair(R, n, k=a, cache=False), 0.0
    w0, w1 = _binary_groups(R)
    wm = b - a
    gam = 1.0 - abs(w1 - w0)  # mass common to Ber(w0) and Ber(w1): a coin Ber(c) with probability gam
    c = min(w0, w1) / gam
    m0 = int(stats.binom.ppf(t, wm, gam)) if t > 0 else 0  # P(M < m0) ≤ t, M ~ Bin(b − a, gam)
    others = [(n - 1 - b, w0), (a, w1)] + ([(m0, c)] if m0 > 0 else [])
    return (_pair_from_others(R, others, w0, w1, n=n, k=a, method=f"block bound k ∈ [{a}, {b}]"),
            t if m0 > 0 else 0.0)


def _binary_sweep(R: Randomizer, n: int, value, *, t: float, rtol: float, atol: float, max_pairs: int):
    """Certified maximum over the pairs k = 0 … n − 1 of a privacy quantity (binary inputs).

    The model's pairs are "target 0 vs 1, k of the other n − 1 users hold 1" (k = 0 … n − 1; for a
    randomizer symmetric under swapping the inputs, k and n − 1 − k are mirror images, so
    k ≤ (n − 1)/2). For a block k ∈ [a, b] every such data set contains a common part: a users at 1
    and n − 1 − b at 0; each of the b − a others reports, with probability γ = 1 − |w1 − w0|, a coin
    Ber(c) (c = min(w0, w1)/γ), and otherwise a value fixed by its input. Conditioning on which
    of them are coins (M ~ Bin(b − a, γ), the same law for every k in the block) and on the fixed
    values (a shift of the count, which changes nothing), joint convexity of the hockey-stick
    divergence gives δ_k(ε) ≤ E_M δ_{A + Bin(M, c)}(ε) ≤ P(M < m0) + δ_{A + Bin(m0, c)}(ε), since
    adding a coin is post-processing (δ non-increasing in M). So one exact pair bounds a whole
    block. Blocks are swept from k = 0 with growing widths; a block whose bound is ≤ the best exact
    single-k value (× (1 + rtol), + atol) is done, otherwise it is narrowed down to single k
    (exact). Returns (lower, upper, k attaining lower, pairs evaluated, closed): the worst case is
    in [lower, upper] — lower attained by the pair k, upper ≥ every pair's value (entrywise).
    """
    sym = _swap_symmetric(R)
    kmax = (n - 1) // 2 if sym else n - 1
    lower = kl = None
    evals = 0

    def exact_at(k: int) -> np.ndarray:
        nonlocal lower, kl, evals
        v = np.asarray(value(*_block_pair(R, n, k, k, t)), dtype=float)
        evals += 1
        if lower is None:
            lower, kl = v.copy(), np.full(v.shape, k)
        else:
            m = v > lower
            lower[m], kl[m] = v[m], k
        return v

    ends = sorted({*range(0, min(kmax, 15) + 1), *(() if sym else range(max(0, kmax - 15), kmax + 1))})
    for k in ends:  # the ends: every pair (the maximum is often at a small k > 0, or n − 1 − small k)
        exact_at(k)
    upper = lower.copy()
    lo_k, hi_k = 16, kmax if sym else kmax - 16  # the rest, swept from both ends toward the middle
    if sym:
        halves = [(lo_k, hi_k, 1)]
    else:
        mid = (lo_k + hi_k) // 2
        halves = [(lo_k, mid, 1), (hi_k, mid + 1, -1)]
    closed = True
    for start, stop, step in halves:
        a, w = start, 2
        hist: list[tuple[int, float]] = []  # (width, worst ratio bound / threshold) of the last blocks
        aim = 1.0 - 0.25 * rtol / (1.0 + rtol)  # just under the threshold, in units of it
        while (a <= stop) if step > 0 else (a >= stop):
            if evals >= max_pairs:  # budget spent: one block bound for the rest (still certified)
                v = np.asarray(value(*_block_pair(R, n, min(a, stop), max(a, stop), t)), dtype=float)
                upper, closed = np.maximum(upper, v), False
                evals += 1
                break
            b = min(stop, a + w - 1) if step > 0 else max(stop, a - w + 1)
            if b == a:
                upper = np.maximum(upper, exact_at(a))
                a, w = a + step, 2
                continue
            v = np.asarray(value(*_block_pair(R, n, min(a, b), max(a, b), t)), dtype=float)
            evals += 1
            thr = lower * (1.0 + rtol) + atol
            ok = bool(np.all(v <= thr))
            wb = abs(b - a)
            hist = (hist + [(wb, float(np.max(v / np.maximum(thr, 1e-300))))])[-2:]
            # next width: the block bound grows about linearly in the width (users taken out of the exact
            # part); a secant through the last two blocks aims just under the threshold (a guess only —
            # every block is still checked), else grow ×1.5 / halve
            guess = None
            if len(hist) == 2 and hist[0][0] != hist[1][0]:
                slope = (hist[1][1] - hist[0][1]) / (hist[1][0] - hist[0][0])
                if slope > 0:
                    guess = int((aim - (hist[1][1] - slope * hist[1][0])) / slope)
            if ok:
                upper = np.maximum(upper, v)
                nxt = int(w * 1.5) + 1 if guess is None else min(max(guess, wb // 2 + 1), 3 * wb + 2)
                a, w = b + step, max(1, nxt)
            else:
                w = max(1, w // 2 if guess is None else min(max(guess, wb // 4), wb // 2 + 1))
    return lower, np.maximum(upper, lower), kl, evals, closed


# -- exact pairs with all other users at one symbol -------------------------------------------
def pure_pair(randomizer: Randomizer, n: int, *, others: int):
    """The exact pair "target 0 → 1, all n − 1 other users hold symbol ``others``".

    With H_n = Mult(n, W_s) (s = ``others``), the laws with the target at b are
    H_n(N)·(1/n) Σ_y N_y W_b(y)/W_s(y) (the paper's canonical likelihood-ratio identity with
    reference symbol s), evaluated on the histogram grouped into {0}, {1}, {s}, {the rest}
    (sufficient: W_0, W_1 and W_s are constant on each group). ``others=0`` is the canonical pair;
    ``others=2`` the third-symbol pair of k-RR.

    Examples
    --------
    >>> from dpexplore.shuffle import k_rr
    >>> round(pure_pair(k_rr(2.0, 3), 1000, others=2).epsilon(1e-6), 4)
    0.372
    """
    from .exact import GRID_CELL_LIMIT, ShuffledPair, _grid_counts

    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_USERS)
    s = check_int(others, "others", low=0, high=R.inputs - 1)
    if R.krr is None and s > 1:
        raise ValueError(f"others must be 0 or 1 for a custom binary-input randomizer; got {others!r}")
    if R.krr is not None:
        e0, k = R.krr
        d = math.exp(e0) + k - 1
        Ws = np.full(k, 1.0 / d)
        Ws[s] = math.exp(e0) / d
    else:
        Ws = R.W1 if s == 1 else R.W0
    groups = sorted({0, 1, s})
    labels = np.full(R.K, len(groups))
    for g, y in enumerate(groups):
        labels[y] = g
    G = int(labels.max()) + 1
    cells = (n + 1) ** (G - 1)
    if cells > GRID_CELL_LIMIT:
        raise ValueError(f"n must satisfy (n + 1)^{G - 1} <= {GRID_CELL_LIMIT} for the exact pure-configuration "
                         f"pair with {G} groups; got n={n}")
    ws = np.bincount(labels, weights=Ws, minlength=G)
    r0 = np.bincount(labels, weights=R.W0, minlength=G) / ws  # W_0/W_s, constant on each group
    r1 = np.bincount(labels, weights=R.W1, minlength=G) / ws
    counts, valid = _grid_counts(n, G)
    counts = counts[valid]
    lgam = special.gammaln(np.arange(n + 2) + 1.0)
    with np.errstate(divide="ignore"):
        logh = lgam[n] - lgam[counts].sum(axis=1) + counts @ np.log(ws)
        logq = logh + np.log(counts @ r0 / n)
        logp = logh + np.log(counts @ r1 / n)
    return ShuffledPair(R, n, 0, 1, logp, logq, counts, 0.0, 0.0, f"pure configuration (others at {s}, {G} groups)")



# -- the third-symbol pair at any n (k-RR, k ≥ 3) ------------------------------------------------
def _third_symbol_delta(R: Randomizer, n: int, eps: float) -> float:
    """δ(ε) of the third-symbol pair with the outputs ≠ 0, 1 merged (a lower value, exact for k = 3).

    Others at symbol 2: each other report is 0 or 1 w.p. 1/d each (a "clone" given it lands in
    {0, 1}), so with T = N_0 + N_1 and C ~ Bin(n − 1, 2/d) the clones among the others,
    P(T, N_1) = Pr(C = T)·w·Bin(N_1; T, ½) + Pr(C = T − 1)·[u·Bin(N_1 − 1; T − 1, ½) + v·Bin(N_1; T − 1, ½)],
    w = (k − 2)/d (target outside {0, 1}), Q swaps u and v. Divided by Bin(N_1; T, ½), both are
    linear in N_1 (Bin(N_1 − 1; T − 1)/Bin(N_1; T) = 2N_1/T, Bin(N_1; T − 1)/Bin(N_1; T) = 2(T − N_1)/T),
    so P − γQ > 0 on a half-line of N_1 and each T costs two binomial tails: O(√n) per ε. Merging
    the outputs ≠ 0, 1 is post-processing (exact for k = 3, where only symbol 2 is left); T outside
    mean ± 9 sd is dropped and the threshold used gives a lower value of the supremum, so the
    result is never above the pair's true δ — a valid lower end for the worst case.
    """
    u, v, r, k = _krr_params(R)
    w = 1.0 - u - v
    gamma = math.exp(min(eps, 700.0))
    N = n - 1
    mean, sd = N * r, math.sqrt(N * r * (1 - r))
    lo = max(1, int(math.floor(mean - 9 * sd - 9)))  # dropping T beyond ±9 sd only lowers δ (a lower value)
    hi = min(N + 1, int(math.ceil(mean + 9 * sd + 10)))
    T = np.arange(lo, hi + 1, dtype=float)
    a_T = stats.binom.pmf(T, N, r) * w  # C = T: the target is outside {0, 1}
    z_T = stats.binom.pmf(T - 1, N, r)  # C = T − 1: the target is in {0, 1}
    # per cell, divided by Bin(N_1; T, ½): P = a + z(2u N_1 + 2v (T − N_1))/T, Q = a + z(2v N_1 + 2u (T − N_1))/T
    cP, sP = a_T + 2 * v * z_T, 2 * (u - v) * z_T / T  # P = cP + sP·N_1
    cQ, sQ = a_T + 2 * u * z_T, -2 * (u - v) * z_T / T
    alpha, beta = cP - gamma * cQ, sP - gamma * sQ  # P − γQ = α + β N_1, β > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        x0 = np.where(beta > 0, np.floor(-alpha / beta) + 1, T + 1)
    a = np.clip(x0, 0, T + 1)  # any threshold gives a lower value of the supremum
    # Σ_{N_1 ≥ a} Bin(N_1; T, ½) = g and Σ_{N_1 ≥ a} N_1 Bin(N_1; T, ½) = (T/2)·g + (T − a + 1)·p/2
    # (p = Bin(a − 1; T, ½)), by the Pascal recurrences along T; a ≤ 0: (1, T/2), a > T: (0, 0)
    inner = (a >= 1) & (a <= T)
    g, p, _, _, _ = _pascal_tails(T[None, :], np.clip(a, 1, T)[None, :], inner[None, :])
    tail0 = np.where(inner, g[0], (a <= 0).astype(float))
    tail1 = np.where(inner, 0.5 * T * g[0] + 0.5 * (T - a + 1.0) * p[0], np.where(a <= 0, 0.5 * T, 0.0))
    return float(np.sum(np.maximum(alpha * tail0 + beta * tail1, 0.0)))


def third_symbol_epsilon(randomizer: Randomizer, n: int, delta: float) -> float:
    """ε(δ) of the third-symbol pair of k-RR (outputs ≠ 0, 1 merged): exact for k = 3, a lower value for k > 3.

    Either way a valid *lower* end of the worst case over data sets, at any n (O(√n) per ε).

    Examples
    --------
    >>> from dpexplore.shuffle import k_rr
    >>> round(third_symbol_epsilon(k_rr(2.0, 3), 1000, 1e-6), 4)  # = pure_pair(..., others=2)
    0.372
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    delta = check_delta(delta)
    if R.krr is None or R.inputs < 3:
        raise ValueError(f"randomizer must be k-RR with k >= 3 for the third-symbol pair; got {R.name!r}")
    e0 = R.krr[0]
    def f(e):  # in log δ: δ spans many decades between 0 and ε0, where a root search on δ itself crawls
        return math.log(max(_third_symbol_delta(R, n, e), 1e-300)) - math.log(delta)

    if f(0.0) <= 0:
        return 0.0
    if f(e0) > 0:
        return e0
    root = float(optimize.brentq(f, 0.0, e0, xtol=1e-9, rtol=1e-6))
    # step to the infeasible side with room for the rounding of δ (≲ 1e-11 relative): a lower end
    while root > 0 and f(root) <= 1e-9:
        root = max(0.0, root - 1e-6 * max(1e-3, root))
    return root


# -- exhaustive enumeration ----------------------------------------------------------------------
def _krr_matrix(R: Randomizer) -> np.ndarray:
    e0, k = R.krr
    d = math.exp(e0) + k - 1
    W = np.full((k, k), 1.0 / d)
    np.fill_diagonal(W, math.exp(e0) / d)
    return W


def _dense_law(inputs: list[int], W: np.ndarray, n: int) -> np.ndarray:
    """Law of the histogram of reports of users with these inputs, on the dense (n + 1)^K grid."""
    K = W.shape[1]
    L = np.zeros((n + 1,) * K)
    L[(0,) * K] = 1.0
    for x in inputs:
        new = np.zeros_like(L)
        for y in range(K):
            src = tuple(slice(0, n) if j == y else slice(None) for j in range(K))
            dst = tuple(slice(1, n + 1) if j == y else slice(None) for j in range(K))
            new[dst] += W[x, y] * L[src]
        L = new
    return L.ravel()


def _krr_configs(n_others: int, k: int):
    """Others' counts (c0, c1, then non-increasing counts on symbols 2..k−1), up to symmetry."""
    def parts(total, m, cap):
        if m == 0:
            if total == 0:
                yield ()
            return
        for first in range(min(total, cap), -1, -1):
            for rest in parts(total - first, m - 1, first):
                yield (first, *rest)
    for c0 in range(n_others + 1):
        for c1 in range(n_others - c0 + 1):
            for rest in parts(n_others - c0 - c1, k - 2, n_others):
                yield (c0, c1, *rest)


def _exhaustive_krr_feasible(n: int, k: int) -> bool:
    if k > 4 or (n + 1) ** k > 100_000:
        return False
    configs = sum(1 for _ in _krr_configs(n - 1, k))
    return (n + 1) ** k * n * k * configs <= _EXH_GRID_WORK


def _exhaustive(R: Randomizer, n: int, delta: float) -> tuple[float, str]:
    from .exact import shuffled_pair

    best, arg, self_k = -1.0, "", None
    if R.inputs == 2:
        sym = _swap_symmetric(R)
        ks = range(0, (n - 1) // 2 + 1) if sym else range(0, n)
        for k in ks:
            pair = shuffled_pair(R, n, k=k, cache=False)
            if best >= 0 and pair.delta(best) <= delta:
                continue
            e = pair.epsilon(delta)
            if e > best:
                best, arg, self_k = e, f"k = {k} of the other users hold 1", k
        return best, arg, self_k
    W = _krr_matrix(R)
    k = W.shape[0]
    for cfg in _krr_configs(n - 1, k):
        others = [s for s, c in enumerate(cfg) for _ in range(c)]
        P = _dense_law(others + [1], W, n)
        Q = _dense_law(others + [0], W, n)
        from dpexplore.core.privacy_curves import exact_epsilon as _pq_eps
        e = max(_pq_eps(P, Q, delta), _pq_eps(Q, P, delta))
        if e > best:
            best, arg = e, f"others' input counts {cfg}"
    return best, arg, None


def _exhaustive_ok(R: Randomizer, n: int, max_n: int = EXHAUSTIVE_BINARY_MAX_N) -> bool:
    if R.inputs == 2:
        return R.grouped().K == 2 and n <= max_n
    return _exhaustive_krr_feasible(n, R.inputs)


# -- public entry points -------------------------------------------------------------------------
def worst_case_epsilon(randomizer: Randomizer, n: int, delta: float, *,
                       max_grid_cells: int | None = None, lower: bool = True,
                       exhaustive_max_n: int = EXHAUSTIVE_BINARY_MAX_N, rtol: float = BNB_RTOL,
                       max_pairs: int = BNB_MAX_PAIRS) -> WorstCaseEpsilon:
    """ε(δ) of the shuffled histogram in the worst case over all neighbouring data sets.

    See the module docstring for the three methods (exhaustive enumeration, the dominating pair,
    the trivial ε0) and why each is ≥ the ε of every neighbouring pair.

    Parameters
    ----------
    randomizer : Randomizer
    n : int
        Users, 2 ≤ n ≤ :data:`MAX_USERS`.
    delta : float
    max_grid_cells : int, optional
        Largest multinomial grid for the named k-RR pairs of the lower end (default
        ``GRID_CELL_LIMIT``; the dashboard passes a smaller one to stay interactive).
    lower : bool
        Compute the lower end (named pairs). ``False`` skips it where the enumeration is not
        exhaustive (``lower`` is then 0 and ``pair`` says so): :func:`exact_epsilon` needs only the
        certified value.
    exhaustive_max_n : int
        Binary inputs: evaluate every pair k = 0 … n − 1 up to this n (default
        :data:`EXHAUSTIVE_BINARY_MAX_N`, at most :data:`EXHAUSTIVE_BINARY_LIMIT`; ≈ 2 s at
        n = 2000, 10–20 s at n = 10⁴). The exhaustive maximum is often far below the dominating
        pair (binary RR, ε0 = 4, n = 10⁴, δ = 10⁻⁶: 0.315 exact worst case).
    rtol : float
        Binary inputs with ``exhaustive_max_n`` < n ≤ :data:`BNB_MAX_N`: the certified branch and
        bound over k (:func:`_binary_sweep`) stops when its upper end is within ``rtol`` of the
        best exact pair (default :data:`BNB_RTOL`; 1e-9 ≤ rtol ≤ 0.5). ``epsilon`` is its upper end
        (never below the worst case), ``lower`` the exact ε of the pair attaining it.
    max_pairs : int
        Most pairs the branch and bound evaluates (default :data:`BNB_MAX_PAIRS`, at most
        100 000); if spent, the rest of k is bounded by one block and the other certified bounds.

    Returns
    -------
    WorstCaseEpsilon

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr, k_rr
    >>> w = worst_case_epsilon(binary_rr(2.0), 200, 1e-3)
    >>> w.exhaustive, w.lower == w.epsilon
    (True, True)
    >>> w = worst_case_epsilon(k_rr(2.0, 3), 1000, 1e-6)
    >>> w.lower <= w.epsilon and w.lower >= 0.3719
    True
    """
    from .exact import GRID_CELL_LIMIT, shuffled_pair

    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    delta = check_delta(delta)
    cells_max = GRID_CELL_LIMIT if max_grid_cells is None else check_int(max_grid_cells, "max_grid_cells", low=1,
                                                                          high=GRID_CELL_LIMIT)
    ex_max = check_int(exhaustive_max_n, "exhaustive_max_n", low=2, high=EXHAUSTIVE_BINARY_LIMIT)
    rtol = check_real(rtol, "rtol", low=1e-9, high=0.5)
    max_pairs = check_int(max_pairs, "max_pairs", low=32, high=BNB_PAIRS_LIMIT)
    e_loc = R.local_epsilon
    if _exhaustive_ok(R, n, ex_max):
        e, arg, pk = _exhaustive(R, n, delta)
        e = min(e, e_loc)
        return WorstCaseEpsilon(e, e, True, arg, "exhaustive", delta, n, pair_k=pk)
    bnb = None
    if _binary_groups(R) is not None and n <= BNB_MAX_N:
        t = delta * 1e-6  # slack for the coins' lower quantile (see _binary_sweep): ε is solved at δ − t
        lo_, up_, kl_, ev_, closed = _binary_sweep(
            R, n, lambda pr, tt: [min(pr.epsilon(delta - tt), e_loc)], t=t, rtol=rtol, atol=0.0,
            max_pairs=max_pairs)
        bnb = (float(lo_[0]), float(up_[0]), int(kl_[0]), ev_)
        if closed:
            pk = bnb[2]
            return WorstCaseEpsilon(bnb[1], bnb[0], False, f"k = {pk} of the other users hold 1",
                                    "branch and bound over k (certified bracket)", delta, n, pair_k=pk,
                                    pairs_evaluated=ev_, rtol=rtol)
    third = None
    if R.krr is not None and R.inputs >= 3:  # k-RR: third-symbol pair vs the exact blanket
        third = _krr_third_lower(R, n, delta, cells_max)
        br = _krr_bracket(R, n, delta, rtol, third[0])
        if br is not None:
            return WorstCaseEpsilon(br[0], third[0], False, third[1], br[1], delta, n, rtol=rtol)
    # lower end: exact named pairs
    want_lower = bool(lower)
    lower, arg, pk = -1.0, "", None
    cands: list[tuple[str, object, int | None]] = []  # (name, ε(δ) of the pair, k)
    if R.grouped().K == 2 or (n + 1) ** (R.grouped().K - 1) <= cells_max:
        kmax = 8 if R.grouped().K == 2 else 0
        for k in sorted({0, *[j for j in (1, 2, 3, 4, 8) if j <= kmax and j < n]}):
            cands.append((f"k = {k} of the other users hold 1" if k else "canonical pair (others at 0)",
                          lambda k=k: shuffled_pair(R, n, k=k).epsilon(delta), k))
    if third is not None:  # already computed for the bracket
        cands.append((third[1], lambda: third[0], None))
    for name, make, kk in (cands if want_lower else []):
        try:
            e = make()
        except ValueError:
            continue
        if e > lower:
            lower, arg, pk = e, name, kk
    up, dlo = (math.nan, math.nan)
    method = "trivial ε0 (post-processing of ε0-LDP reports)"
    eps = e_loc
    if R.krr is not None:
        u_, v_, r_, _ = _krr_params(R)
        # BBGN19's privacy-blanket Bennett bound holds for every data set too; for k ≥ 3 it does not tell
        # the adversary how many blanket reports hit the target's two symbols and can beat both clone pairs
        # (4-RR, ε0 = 1, n = 10⁵); for k = 2 the dominating pair is the exact value of what it bounds, so it
        # is skipped. Closed form in M: cheap, so it goes first and bounds the clone pairs' root searches.
        if R.inputs >= 3:
            from .bounds import _blanket_bennett_delta, _smallest_feasible_epsilon

            kk = R.krr[1]
            ub = _smallest_feasible_epsilon(lambda x: _blanket_bennett_delta(e_loc, n, kk, x), e_loc, delta)
            if ub < eps:
                eps, method = ub, "privacy blanket (BBGN19 Bennett bound)"
        # the dominating (k-RR clone) pair: always solved when the full report is wanted (its value and error
        # bar are reported); on the fast path (lower=False) only where it can beat the current ε
        if want_lower or _dominating_delta(u_, v_, r_, n - 1, eps, need="upper")[0] <= delta:
            up, dlo = _clone_mixture_epsilon(u_, v_, r_, n - 1, delta, lower=want_lower,
                                             hi=None if want_lower else eps)
            if up < eps:
                eps, method = up, "dominating pair (clone reduction)"
        # FMT21's clone pair bounds every ε0-LDP randomizer and data set too; for large k at small ε0 it is
        # tighter than the k-RR clone pair (3-RR, ε0 = 0.1): the certified value is the smallest one
        a = 1.0 / (1.0 + math.exp(-e_loc))
        # only solve for FMT21's ε where it can win: its δ at the current ε must already be ≤ δ
        if _dominating_delta(a, 1.0 - a, math.exp(-e_loc), n - 1, eps, need="upper")[0] <= delta:
            up21, _ = _clone_mixture_epsilon(a, 1.0 - a, math.exp(-e_loc), n - 1, delta, lower=False, hi=eps)
            if up21 < eps:
                eps, method = up21, "FMT21 clone pair (block upper end)"
    if R.krr is not None and R.inputs >= 3 and eps > 0:  # the exact blanket (its bracket did not close)
        ub = _blanket_epsilon(R, n, delta, eps)
        if ub < eps:
            eps, method = ub, "exact privacy blanket (root of its block upper end)"
    if bnb is not None:  # the budget ran out: its bracket is still certified
        if bnb[1] < eps:
            eps, method = bnb[1], "branch and bound over k (budget spent; certified upper end)"
        if bnb[0] > lower:
            lower, arg, pk = bnb[0], f"k = {bnb[2]} of the other users hold 1", bnb[2]
    if lower < 0:
        lower, arg = 0.0, ("none evaluated exactly at this n" if want_lower else "not computed (lower=False)")
    if lower > eps * (1 + 1e-6) + 1e-9:  # a named pair above a certified bound: a bug, never hide it
        raise RuntimeError(f"internal error: exact pair ε {lower} exceeds the certified bound {eps} ({method})")
    return WorstCaseEpsilon(eps, min(lower, eps), False, arg, method, delta, n, up, dlo, pk,
                            pairs_evaluated=0 if bnb is None else bnb[3])


def worst_case_delta(randomizer: Randomizer, n: int, epsilon, *, max_grid_cells: int | None = None,
                     lower: bool = True, rtol: float = BNB_RTOL,
                     max_pairs: int = BNB_MAX_PAIRS) -> tuple[np.ndarray, np.ndarray, bool]:
    """Worst-case δ(ε) over neighbouring data sets: (upper, lower, exhaustive).

    Exhaustive (binary inputs, n ≤ :data:`EXHAUSTIVE_BINARY_MAX_N`): the maximum over every pair,
    so upper = lower. Otherwise upper = min(dominating pair, FMT21 pair, and for k ≥ 3 the blanket
    Bennett bound) at each ε (0 for ε ≥ ε0,
    the trivial bound; 1 for a custom randomizer), lower = the largest exact δ of the named pairs
    (canonical, third symbol); ``lower=False`` skips it (zeros) where not exhaustive.
    Binary inputs with n ≤ :data:`BNB_MAX_N`: the certified branch and bound over k
    (:func:`_binary_sweep`) on the whole ε grid at once — upper ≥ every pair's δ at every ε, lower
    attained by one pair at each ε, upper ≤ lower·(1 + rtol) + 1e-18 where it closes — combined
    (minimum) with the other certified bounds.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> up, lo, ex = worst_case_delta(binary_rr(1.0), 100, [0.2, 0.5])
    >>> ex and bool(np.all(up == lo)) and bool(up[0] > up[1])
    True
    """
    from .exact import GRID_CELL_LIMIT, shuffled_pair

    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    eps = np.atleast_1d(check_real_array(epsilon, "epsilon"))
    cells_max = GRID_CELL_LIMIT if max_grid_cells is None else check_int(max_grid_cells, "max_grid_cells", low=1,
                                                                          high=GRID_CELL_LIMIT)
    e_loc = R.local_epsilon
    if R.inputs == 2 and R.grouped().K == 2 and n <= EXHAUSTIVE_BINARY_MAX_N:
        sym = _swap_symmetric(R)
        ks = range(0, (n - 1) // 2 + 1) if sym else range(0, n)
        best = np.zeros(eps.shape)
        for k in ks:
            best = np.maximum(best, shuffled_pair(R, n, k=k, cache=False).delta(eps))
        best = np.where(eps >= e_loc, 0.0, best)
        return best, best.copy(), True
    rtol = check_real(rtol, "rtol", low=1e-9, high=0.5)
    max_pairs = check_int(max_pairs, "max_pairs", low=32, high=BNB_PAIRS_LIMIT)
    if _binary_groups(R) is not None and n <= BNB_MAX_N:
        def value(pr, tt):
            return np.where(eps >= e_loc, 0.0, pr.delta(eps) + tt)

        lo_, up_, _, _, _ = _binary_sweep(R, n, value, t=1e-30, rtol=rtol, atol=1e-18, max_pairs=max_pairs)
        if R.krr is not None:  # the clone pairs are certified too: keep the smaller upper end
            clone = _clone_upper_delta(R, n, eps)
            up_ = np.maximum(np.minimum(up_, np.where(eps >= e_loc, 0.0, clone)), lo_)
        return up_, lo_, False
    want_lower = bool(lower)
    lower = np.zeros(eps.shape)
    if not want_lower:
        pass
    elif R.grouped().K == 2 or (n + 1) ** (R.grouped().K - 1) <= cells_max:
        lower = np.maximum(lower, shuffled_pair(R, n).delta(eps))
    if not want_lower:
        pass
    elif R.inputs >= 3 and (n + 1) ** (2 if R.inputs == 3 else 3) <= cells_max:
        lower = np.maximum(lower, pure_pair(R, n, others=2).delta(eps))
    elif R.inputs >= 3:
        lower = np.maximum(lower, np.array([_third_symbol_delta(R, n, float(e)) for e in eps]))
    if R.krr is not None:
        up = _clone_upper_delta(R, n, eps)  # with FMT21's clone pair (see worst_case_epsilon)
        if R.inputs >= 3:  # the exact blanket: 8 blocks of M, 32 where that is not within rtol of the lower end
            from .bounds import _blanket_bennett_delta

            e0, k = R.krr
            up = np.minimum(up, _blanket_bennett_delta(e_loc, n, k, eps))  # BBGN19 (cheap; every data set)
            for i, e in enumerate(eps):
                if e >= e_loc or up[i] <= lower[i] * (1.0 + rtol) + 1e-18:  # nothing to gain
                    continue
                # window tail ≪ rtol·δ: scaled by the clone pairs' δ here (the blanket's is below it)
                tail = max(1e-300, min(1e-12, 1e-6 * rtol * float(up[i])))
                for b in (8, 32):
                    v = _blanket_delta(e0, k, n, float(e), blocks=b, tail=tail)[0]
                    up[i] = min(up[i], v)
                    if up[i] <= lower[i] * (1.0 + rtol) + 1e-18:
                        break
    else:
        up = np.ones(eps.shape)
    up = np.where(eps >= e_loc, 0.0, up)
    return np.maximum(up, lower), np.minimum(lower, up), False
