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
   0.15–10 s at n = 10⁷ (benchmarks/bench_shuffle.py, before issue 28's speed-up); binary RR at
   δ = 1e-6, n = 10⁶–10⁷, ε0 ∈ {0.5, 1, 2, 4}: 70–121 pairs, 1.3–3.6× faster than FMT21's
   numerical bound in the same run (benchmarks/bench_shuffle_binary.py; block pairs on narrow
   windows, closed-form ε per pair, tests/shuffle/test_bnb_fast.py). The maximum is not at k = 0 in general
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

Layout (no import circle; each module imports only the ones before it): :mod:`.randomizers` →
:mod:`.constants` → :mod:`.exact` (one pair's laws) → :mod:`.pairs` (pairs with all others at one
symbol, the tail recurrences) → :mod:`.clones` (items 2–3) → :mod:`.blanket` (item 4) → :mod:`.bounds`
(published bounds, item 4b) and :mod:`.bnb` (item 1b) → this module (item 1, the combination, and the
worst-case ``exact_delta`` / ``exact_epsilon``) → :mod:`.compose` → :mod:`.profile` / :mod:`.solver` →
:mod:`.audit`. The private helpers of those modules are re-exported here for compatibility.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.privacy_curves import exact_epsilon as _pq_eps
from dpexplore.core.validation import check_delta, check_int, check_real

from ._validate import check_real_array
from .blanket import (  # noqa: F401  (re-exported: the blanket's helpers used to live here)
    BLANKET_BLOCKS,
    BLANKET_BLOCKS_LIMIT,
    _binom_range,
    _blanket_delta,
    _blanket_epsilon,
    _blanket_S_delta,
    _blanket_tail,
    blanket_pair_delta,
)
from .bnb import (  # noqa: F401  (re-exported)
    BNB_MAX_N,
    BNB_MAX_PAIRS,
    BNB_PAIRS_LIMIT,
    BNB_RTOL,
    _binary_groups,
    _binary_sweep,
    _block_pair,
    _swap_symmetric,
)
from .bounds import _blanket_bennett_delta, _smallest_feasible_epsilon
from .clones import (  # noqa: F401  (re-exported)
    _block_weights,
    _clone_mixture_epsilon,
    _clone_upper_delta,
    _dominating_delta,
    dominating_pair_delta,
    dominating_pair_epsilon,
)
from .constants import _check_randomizer
from .exact import GRID_CELL_LIMIT, MAX_MESSAGES, shuffled_pair
from .pairs import MAX_USERS, _krr_params, _third_symbol_delta, pure_pair, third_symbol_epsilon
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
    "exact_delta",
    "exact_epsilon",
    "dominating_pair_delta",
    "dominating_pair_epsilon",
    "blanket_pair_delta",
    "BLANKET_BLOCKS",
    "BLANKET_BLOCKS_LIMIT",
    "pure_pair",
    "third_symbol_epsilon",
]

#: binary inputs: every pair k = 0 … n − 1 is evaluated exactly up to this n (default of ``exhaustive_max_n``)
EXHAUSTIVE_BINARY_MAX_N = 600
#: public maximum of ``exhaustive_max_n`` (n = 10⁴ takes ≈ 10–20 s on one core)
EXHAUSTIVE_BINARY_LIMIT = 20_000
_EXH_GRID_WORK = 3_000_000  # k-RR exhaustive enumeration: configurations × grid cells


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
        e = max(_pq_eps(P, Q, delta), _pq_eps(Q, P, delta))
        if e > best:
            best, arg = e, f"others' input counts {cfg}"
    return best, arg, None



def _exhaustive_ok(R: Randomizer, n: int, max_n: int = EXHAUSTIVE_BINARY_MAX_N) -> bool:
    if R.inputs == 2:
        return R.grouped().K == 2 and n <= max_n
    return _exhaustive_krr_feasible(n, R.inputs)



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
            max_pairs=max_pairs, tail=1e-13 * delta)  # narrow windows: lost mass ≲ 1e-13 δ (moves ε ≲ 1e-14)
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



def exact_delta(randomizer: Randomizer, n: int, epsilon, *, k: int | None = None, messages: int = 1,
                direction: str = "max"):
    """Exact δ(ε) of the shuffled histogram: worst case over data sets, or one named pair.

    Parameters
    ----------
    randomizer : Randomizer
    n : int
        Number of users.
    epsilon : float or array_like
        ε ≥ 0.
    k : int or None
        None (default): the **worst case over all neighbouring data sets**
        (:func:`dpexplore.shuffle.worst_case_delta`; its certified upper end where the
        enumeration is not exhaustive). An int: the pair (T_{n,k}, T_{n,k+1}) — k users of the
        others hold 1 (k = 0: the canonical pair).
    messages : int
        Unbundled messages per user (binary outputs; needs an explicit pair ``k``).
    direction : {"max", "forward", "reverse"}
        For a named pair: two-sided maximum (default), H_{e^ε}(T_{n,k+1} ‖ T_{n,k}) or the reverse.

    Returns
    -------
    float or ndarray
        δ (plus a ≈ 1e-40 window-truncation term that keeps it an upper bound).

    References
    ----------
    Shvets (2026), arXiv:2602.09029, exact finite-n curves for binary outputs.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> d = exact_delta(binary_rr(1.0), 1000, [0.1, 0.2])
    >>> bool(d[0] > d[1] > 0)
    True
    """
    if k is None:
        _need_pair_for_messages(messages, direction)
        up = worst_case_delta(randomizer, n, epsilon, lower=False)[0]
        return float(up[0]) if np.ndim(epsilon) == 0 else up.reshape(np.shape(epsilon))
    return shuffled_pair(randomizer, n, k=k, messages=messages).delta(epsilon, direction)


def _need_pair_for_messages(messages, direction) -> None:
    m = check_int(messages, "messages", low=1, high=MAX_MESSAGES)
    if m != 1:
        raise ValueError(f"messages > 1 needs an explicit pair k (the worst case over data sets is implemented for "
                         f"one message per user); got messages={messages!r}")
    if direction != "max":
        raise ValueError(f"direction must be 'max' for the worst case over data sets (pass k= for one pair's "
                         f"directions); got {direction!r}")


def exact_epsilon(randomizer: Randomizer, n: int, delta: float, *, k: int | None = None, messages: int = 1,
                  direction: str = "max") -> float:
    """Exact ε(δ): by default the worst case over all neighbouring data sets; ``k=`` for one pair.

    Without ``k`` this is :func:`dpexplore.shuffle.worst_case_epsilon` ``(...).epsilon``: the
    maximum over every neighbouring pair where that enumeration is affordable, otherwise a
    certified upper bound (never below the worst case) — see that function for the method and its
    lower end. With ``k`` it is the pair (T_{n,k}, T_{n,k+1}) (k = 0: the canonical pair).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(exact_epsilon(binary_rr(4.0), 100_000, 1e-6, k=0), 4)  # the canonical pair
    0.0847
    >>> exact_epsilon(binary_rr(4.0), 100_000, 1e-6) >= 0.0847  # worst case over data sets
    True
    """
    if k is None:
        _need_pair_for_messages(messages, direction)
        return worst_case_epsilon(randomizer, n, delta, lower=False).epsilon
    return shuffled_pair(randomizer, n, k=k, messages=messages).epsilon(delta, direction)
