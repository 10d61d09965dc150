"""Exact named pairs at any n: all other users at one symbol (k-RR), and the tail recurrences they share.

Layer 3 of :mod:`dpexplore.shuffle` (randomizers → constants → exact → **pairs** → clones → blanket →
bounds / bnb → worst → compose → profile / solver → audit). ``pure_pair(R, n, others=s)`` is the exact pair
"target 0 → 1, every other user holds symbol s" on the grouped multinomial grid; the third-symbol pair
(others at symbol 2) at any n with the outputs ≠ 0, 1 merged (exact for k = 3, a lower value for k > 3)
costs O(√n) per ε by the Pascal recurrences of :func:`_pascal_tails` (also used by :mod:`.blanket`).
Both are *actual* neighbouring pairs: valid lower ends of the worst case (see :mod:`.worst`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from dpexplore.core.validation import check_delta, check_int

from .constants import _check_randomizer
from .exact import GRID_CELL_LIMIT, ShuffledPair, _grid_counts
from .randomizers import Randomizer

__all__ = ["MAX_USERS", "pure_pair", "third_symbol_epsilon"]

#: public maximum of n (users) for the worst-case and dominating-pair computations
MAX_USERS = 10**9


def _krr_params(R: Randomizer) -> tuple[float, float, float, int]:
    if R.krr is None:
        raise ValueError("the dominating pair is implemented for k-ary randomized response (binary_rr / k_rr); "
                         f"got the custom randomizer {R.name!r}")
    e0, k = R.krr
    d = math.exp(e0) + k - 1
    return math.exp(e0) / d, 1.0 / d, 2.0 / d, k


def _binom_window_mass(N: int, p: float, z: float) -> tuple[int, int, float]:
    """Window [lo, hi] = mean ± (z sd + z) of Bin(N, p) and the exact mass outside it (any window is valid:
    the callers add or drop that mass)."""
    mean, sd = N * p, math.sqrt(N * p * (1.0 - p))
    lo = max(0, int(math.floor(mean - z * sd - z)))
    hi = min(N, int(math.ceil(mean + z * sd + z)))
    out = float(stats.binom.cdf(lo - 1, N, p)) if lo > 0 else 0.0
    out += float(stats.binom.sf(hi, N, p)) if hi < N else 0.0
    return lo, hi, out


def _binom_pmf(x, N: int, p: float) -> np.ndarray:
    """Bin(x; N, p), also where N·p < 1e-100 (ε0 ≳ 230), where Boost's pmf overflows: there x ∈ {0, 1}
    are computed in logs and x ≥ 2 (mass ≤ (Np)²) is returned as 0 — a lower value, used only where
    that is safe (lower ends) or where the caller adds the missing mass."""
    x = np.asarray(x, dtype=float)
    if N * p >= 1e-100:
        return stats.binom.pmf(x, N, p)
    l1 = math.log1p(-p)
    with np.errstate(invalid="ignore"):
        return np.where(x == 0, math.exp(N * l1), np.where(x == 1, N * p * math.exp((N - 1) * l1), 0.0))


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
    a_T = _binom_pmf(T, N, r) * w  # C = T: the target is outside {0, 1}
    z_T = _binom_pmf(T - 1, N, r)  # C = T − 1: the target is in {0, 1}
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
    step = 1e-6 * max(1e-3, root)
    while root > 0 and f(root) <= 1e-9:  # steps double: a flat δ(ε) (ε0 ≈ 700) cannot make this crawl
        root, step = max(0.0, root - step), 2.0 * step
    return root
