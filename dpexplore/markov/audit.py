"""Auditing Mechanism 1 and the baseline: worst neighbouring trajectories, exact and statistical audits.

What is audited
---------------
* **Mechanism 1** claims ε-DP for ρ-adjacent trajectories (Definition 4: Σ_t d(s_t, s̃_t) ≤ ρ). Its
  proof (see :func:`~dpexplore.markov.mechanism_epsilon`) in fact bounds the privacy loss of *any*
  pair by ε·D/ρ with D = Σ_t d(s_t, s̃_t) (the per-step costs ε d(s_t, s̃_t)/ρ compose). The audit
  checks the DP claim ε on ρ-adjacent pairs; when ρ is smaller than every distance between two
  states (then no two different trajectories are ρ-adjacent and the DP claim holds trivially), it
  audits the distance-scaled form ε·D/ρ on single-step pairs instead and says so.
* **The baseline** claims ε for trajectories differing in one state (Hamming adjacency).

How
---
Both mechanisms release a word whose law factorises over time (the private state s'_t depends on
s'_{t−1}, s_t and fresh randomness only), so the pure-DP privacy loss of a pair,

    ε(s, s̃) = max_w |log P(w | s) − log P(w | s̃)|,

is a max-sum over words and is computed **exactly for any length** by dynamic programming (a Viterbi
recursion over the private state, :func:`privacy_loss`), in log space so that probabilities far
below 1e-308 are still exact. On short windows the whole output-word law is enumerated
(:func:`exact_pair_audit`, which also gives the privacy curve δ(ε)); the two computations agree.

**Worst pair** (:func:`worst_pair`): the loss of a pair concentrates where its sensitive states
differ; later identical states add nothing (the law of the rest of the word given its prefix is the
same under both trajectories). So the hardest pairs are short windows: the search enumerates
windows of length ≤ ``max_length`` (exhaustively when their number is ≤ ``max_pairs``, otherwise a
seeded random subset of ``max_pairs``), each in two contexts — at the start of the trajectory (every
state feasible) and in the middle (after any previous private state a, feasible set N(a); every a
is possible there, because every state of an irreducible chain has a predecessor) — and keeps the
largest exact loss. For Mechanism 1 the loss grows with the pair's distance D and is largest when
the feasible set is small (two candidates at distance D give log(2 e^{εD/(cρ)} − 1)), so windows
whose D is close to ρ, after a private state with few successors, are the hardest known.

**Statistical audit** (:func:`statistical_pair_audit`): the worst window is embedded in a long
trajectory simulated from the chain (:func:`long_pair`), the shipped batch sampler
(:func:`~dpexplore.markov.sample_trajectories`) releases many private words for each of the two
trajectories, and the likelihood ratio (the Neyman–Pearson optimal test statistic, computed exactly
from the log step law) feeds :func:`dpexplore.core.audit.audit_from_scores`, a Clopper–Pearson lower
bound ε̂ at the stated confidence.

Broken variants (teaching only, never defaults): :func:`broken_mechanism_kernel` (acceptance
coefficient ε/ρ instead of ε/(2ρ) while claiming ε) and :func:`broken_baseline_kernel` (spends its
per-state budget twice: it re-draws when the randomized answer is not the true state).

[reconstruction] Mechanism 1 and the baseline are reconstructions (see :mod:`dpexplore.markov`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpexplore.core.audit import ExactAudit, StatisticalAudit, check_audit_args, exact_audit_result, sampled_audit
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_real

from .audit_law import (
    MAX_AUDIT_STATES,
    MECHANISMS,
    LogStepLaw,
    _check_audit_chain,
    _check_pair,
    _losses,
    _max_log_ratio,
    broken_baseline_kernel,
    broken_mechanism_kernel,
    log_step_law,
    privacy_loss,
    step_kernel,
    trajectory_distance,
)
from .chains import (
    MarkovChain,
    check_distance_matrix,
    check_irreducible,
    simulate,
    stationary_distribution,
)
from .distances import distances
from .mechanisms import StepKernel, baseline_kernel, mechanism_kernel, sample_trajectories

__all__ = [
    "MAX_AUDIT_STATES",
    "MECHANISMS",
    "LogStepLaw",
    "TrajectoryPair",
    "MarkovAudit",
    "log_step_law",
    "step_kernel",
    "broken_mechanism_kernel",
    "broken_baseline_kernel",
    "trajectory_distance",
    "privacy_loss",
    "worst_pair",
    "exact_pair_audit",
    "long_pair",
    "statistical_pair_audit",
    "audit_markov",
]


# -- the worst pair -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrajectoryPair:
    """A neighbouring pair of (short) sensitive trajectories and its exact privacy loss.

    Attributes
    ----------
    s, s_tilde : ndarray of int, shape (L,)
    distance : float
        D = Σ_t d(s_t, s̃_t).
    hamming : int
        Number of positions where they differ.
    context : {"start", "any"}
        Where the window sits (see :func:`privacy_loss`).
    start_state : int or None
        For ``context="any"``: the previous private state a that maximises the loss.
    epsilon : float
        The exact privacy loss of the pair.
    claimed_epsilon : float
        What the accounting claims for this pair (ε; or ε·D/ρ in the distance-scaled form).
    claim : str
        Which claim is audited, in words.
    searched : int
        Number of windows examined (each in both contexts).
    exhaustive : bool
        Whether every candidate window was examined.
    """

    s: np.ndarray
    s_tilde: np.ndarray
    distance: float
    hamming: int
    context: str
    start_state: int | None
    epsilon: float
    claimed_epsilon: float
    claim: str
    searched: int
    exhaustive: bool

    @property
    def violation(self) -> bool:
        return bool(self.epsilon > self.claimed_epsilon * (1 + 1e-9) + 1e-12)


def _product(sizes: list[int], budget: int, gen: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Index tuples (one index per position, position i in range(sizes[i])): all if ≤ budget, else a random subset."""
    total = math.prod(sizes)
    if total <= budget:
        grids = np.meshgrid(*[np.arange(m) for m in sizes], indexing="ij")
        return np.stack([g.ravel() for g in grids], axis=1), True
    return np.stack([gen.integers(0, m, size=budget) for m in sizes], axis=1), False


def worst_pair(law: LogStepLaw, d: np.ndarray | None = None, *, max_length: int = 3, max_pairs: int = 20000,
               max_words: int = 200_000) -> TrajectoryPair:
    """Search short neighbouring windows for the largest exact privacy loss (bounded cost).

    ρ-adjacency (Mechanism 1): windows of length L ≤ ``max_length`` whose per-position state pairs
    have Σ d ≤ ρ and D > 0. If none exists (ρ below every distance between two states), single-step
    pairs are audited against the distance-scaled claim ε·D/ρ instead (the worst ratio loss/claim).
    Hamming adjacency (baseline): windows differing in exactly one position.
    Each window is tried at the start and mid-trajectory (see :func:`privacy_loss`). L is also
    limited so that the window's whole output-word law (n^L words) has at most ``max_words`` entries,
    so :func:`exact_pair_audit` can enumerate it.

    Parameters
    ----------
    law : LogStepLaw
    d : ndarray, shape (n, n)
        The distance matrix (required for ρ-adjacency).
    max_length, max_pairs, max_words : int
        Bounds on the search.

    Examples
    --------
    >>> from dpexplore.markov import distances
    >>> P = [[0.6, 0.4, 0.0], [0.2, 0.5, 0.3], [0.3, 0.0, 0.7]]
    >>> law = log_step_law(P, "mechanism1", epsilon=1.0, rho=3.0)
    >>> pair = worst_pair(law, distances(P), max_length=2)
    >>> bool(0 < pair.epsilon <= 1.0), bool(pair.distance <= 3.0)
    (True, True)
    """
    if not isinstance(law, LogStepLaw):
        raise TypeError(f"law must be a LogStepLaw; got {type(law).__name__}")
    max_length = check_int(max_length, "max_length", low=1, high=6)
    max_pairs = check_int(max_pairs, "max_pairs", low=1, high=10**6)
    max_words = check_int(max_words, "max_words", low=law.n, high=10**7)
    n = law.n
    L_max = max(1, min(max_length, int(math.floor(math.log(max_words) / math.log(n) + 1e-9)) if n > 1 else 1))
    gen = np.random.default_rng(0)  # the subset of a non-exhaustive search is fixed (reproducible)
    x, y = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    x, y = x.ravel(), y.ravel()
    eps = law.claimed_epsilon
    cands: list[tuple[np.ndarray, np.ndarray]] = []
    exhaustive = True
    claim = ""
    scaled = False
    if law.adjacency == "rho":
        if d is None:
            raise TypeError("d (the distance matrix) must be given to search rho-adjacent pairs")
        dist = check_distance_matrix(d, n)
        rho = float(law.rho)
        ok = dist[x, y] <= rho * (1 + 1e-12)
        ox, oy = x[ok], y[ok]  # per-position options (includes the n equal pairs)
        edge = ox != oy
        ex, ey = ox[edge], oy[edge]  # options for the first and last position
        # Windows that start or end with an equal position are dominated (an equal last position adds
        # no loss; an equal first one acts only through the previous private state: the "any"
        # context), so the first and last positions differ; the middle ones are free.
        for L in range(1, L_max + 1):
            if ex.size == 0:
                break
            sizes = [ex.size] + [ox.size] * max(0, L - 2) + ([ex.size] if L > 1 else [])
            idx, full = _product(sizes, max_pairs, gen)
            exhaustive &= full
            S = np.stack([ex[idx[:, i]] if i in (0, L - 1) else ox[idx[:, i]] for i in range(L)], axis=1)
            St = np.stack([ey[idx[:, i]] if i in (0, L - 1) else oy[idx[:, i]] for i in range(L)], axis=1)
            D = dist[S, St].sum(axis=1)
            keep = D <= rho * (1 + 1e-12)
            S, St = S[keep], St[keep]
            # keep one of (s, s̃) and (s̃, s) (the loss is symmetric): s < s̃ at the first difference
            rows = np.arange(S.shape[0])
            first_diff = np.argmax(S != St, axis=1)
            canon = S[rows, first_diff] < St[rows, first_diff]
            cands.append((S[canon], St[canon]))
        if sum(c[0].shape[0] for c in cands) == 0:
            scaled = True
            off = x < y
            cands = [(x[off][:, None], y[off][:, None])]
            claim = (f"no two different trajectories are ρ-adjacent (ρ = {rho:g} is below every distance between "
                     "two states), so the ε-DP claim holds trivially; audited instead: the proof's distance-scaled "
                     "form, loss ≤ ε·D/ρ, on single-step pairs")
        else:
            claim = f"ε-DP for ρ-adjacent trajectories (Σ_t d(s_t, s̃_t) ≤ ρ = {rho:g})"
    else:
        # One changed position; a window longer than that adds equal positions only, which add no loss
        # after it and act only through the previous private state before it, which the "any" context
        # already maximises over. So single positions in both contexts are exhaustive.
        off = x < y
        cands.append((x[off][:, None], y[off][:, None]))
        claim = "ε-DP for trajectories differing in one state (Hamming adjacency)"
    best = None
    searched = 0
    dist_mat = check_distance_matrix(d, n) if d is not None else None
    for S, St in cands:
        if S.shape[0] == 0:
            continue
        searched += S.shape[0]
        for context in ("start", "any"):
            loss = _losses(law, S, St, context)
            if scaled:
                D = dist_mat[S, St].sum(axis=1)
                claimed = eps * D / float(law.rho)
                score = loss / claimed
            else:
                claimed = np.full(S.shape[0], eps)
                score = loss
            i = int(np.argmax(score))
            if best is None or score[i] > best[0] * (1 + 1e-12):
                D_i = float(dist_mat[S[i], St[i]].sum()) if dist_mat is not None else math.nan
                best = (float(score[i]), S[i].copy(), St[i].copy(), D_i, context, float(loss[i]), float(claimed[i]))
    if best is None:  # pragma: no cover - every chain has at least one pair
        raise ValueError("no neighbouring pair found")
    _, S, St, D, context, loss, claimed = best
    start_state = None
    if context == "any":  # which previous private state attains the maximum
        per_a = [max(_max_log_ratio(law, S[None], St[None], "any", a)[0], _max_log_ratio(law, St[None], S[None], "any",
                                                                                       a)[0]) for a in range(n)]
        start_state = int(np.argmax(per_a))
    return TrajectoryPair(s=S, s_tilde=St, distance=D, hamming=int((S != St).sum()), context=context,
                          start_state=start_state, epsilon=loss, claimed_epsilon=claimed, claim=claim,
                          searched=searched, exhaustive=exhaustive)


# -- exact audit of one pair (the whole output-word law) ---------------------------------------------


def _word_log_law(law: LogStepLaw, s: np.ndarray, start_state: int | None) -> np.ndarray:
    """log P(w | s) for every word w ∈ [n]^L (flattened, C order); start_state = previous private state."""
    n = law.n
    lp = law.first[s[0]].copy() if start_state is None else law.step[start_state, s[0]].copy()
    for t in range(1, s.size):
        # words extended by one letter: [prefix ending in a, b] = lp[prefix] + log M(b | a, s_t)
        lp = (lp.reshape(-1, n)[:, :, None] + law.step[:, s[t], :][None, :, :]).reshape(-1)
    return lp.reshape(-1)


def exact_pair_audit(law: LogStepLaw, pair: TrajectoryPair, *, grid: int = 60,
                     max_words: int = 200_000) -> ExactAudit:
    """Exact audit of a short pair from its whole output-word law (all n^L words enumerated).

    Returns a :class:`dpexplore.core.audit.ExactAudit`: ``epsilon`` is the largest absolute
    log-likelihood ratio over the words (pure DP, δ = 0), ``deltas`` the pair's privacy curve
    δ(ε) = max(Σ_w (P − e^ε Q)_+, Σ_w (Q − e^ε P)_+) on ``epsilons``, evaluated in log space. For a
    mid-trajectory pair the law is taken after the worst previous private state. The value agrees with
    :func:`privacy_loss` (a dynamic programme that does not enumerate).

    Examples
    --------
    >>> law = log_step_law([[0.5, 0.5], [0.5, 0.5]], "baseline", epsilon=1.0)
    >>> audit = exact_pair_audit(law, worst_pair(law, max_length=1))
    >>> round(audit.epsilon, 6), audit.violation
    (1.0, False)
    """
    if not isinstance(law, LogStepLaw):
        raise TypeError(f"law must be a LogStepLaw; got {type(law).__name__}")
    if not isinstance(pair, TrajectoryPair):
        raise TypeError(f"pair must be a TrajectoryPair; got {type(pair).__name__}")
    grid = check_int(grid, "grid", low=2, high=10_000)
    max_words = check_int(max_words, "max_words", low=1, high=10**7)
    S, St = _check_pair(law, pair.s, pair.s_tilde)
    if S.ndim != 1:
        raise ValueError("exact_pair_audit takes one pair (1-d s and s_tilde)")
    if law.n**S.size > max_words:
        raise ValueError(f"the window has n^L = {law.n}^{S.size} words; at most max_words = {max_words}")
    starts: list[int | None] = ([None] if pair.context == "start" else
                                [pair.start_state] if pair.start_state is not None else list(range(law.n)))
    best = None
    for a in starts:
        lp, lq = _word_log_law(law, S, a), _word_log_law(law, St, a)
        both = np.isfinite(lp) & np.isfinite(lq)
        if np.any(np.isfinite(lp) != np.isfinite(lq)):  # pragma: no cover - the supports always agree
            eps = math.inf
        else:
            eps = float(np.max(np.abs(lp[both] - lq[both])))
        if best is None or eps > best[0]:
            best = (eps, lp[both], lq[both])
    eps, lp, lq = best
    r = lp - lq

    def hs(lx: np.ndarray, rr: np.ndarray, e: float) -> float:  # Σ (X − e^e Y)_+ with rr = log X − log Y
        m = rr > e
        return float(np.sum(np.exp(lx[m]) * -np.expm1(e - rr[m])))

    return exact_audit_result(eps, lambda e: max(hs(lp, r, e), hs(lq, -r, e)), delta=0.0,
                              claimed_epsilon=pair.claimed_epsilon, grid=grid)


# -- the statistical audit on long trajectories -------------------------------------------------------


def long_pair(chain, pair: TrajectoryPair, length: int, *, rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Embed a short pair in two long trajectories that agree outside the window.

    The common parts are simulated from the chain: after the window, a continuation of the chain
    from s's last state; for a mid-trajectory pair (``context="any"``) also a prefix before it (the
    window starts at t₀ = (length − L) // 2 ≥ 1), a stationary chain path that ends in the pair's
    worst previous private state (simulated backwards with the time-reversed chain), so that the
    private trajectory is likely to be there when the window starts. The long pair has the same distance D and the same
    exact privacy loss (identical sensitive states add nothing; checked by :func:`privacy_loss`).

    Examples
    --------
    >>> law = log_step_law([[0.5, 0.5], [0.5, 0.5]], "baseline", epsilon=1.0)
    >>> s, s2 = long_pair([[0.5, 0.5], [0.5, 0.5]], worst_pair(law, max_length=1), 6, rng=0)
    >>> s.shape, int((s != s2).sum())
    ((6,), 1)
    """
    c = check_irreducible(chain)
    if not isinstance(pair, TrajectoryPair):
        raise TypeError(f"pair must be a TrajectoryPair; got {type(pair).__name__}")
    L = int(pair.s.size)
    length = check_int(length, "length", low=L + 1, high=10**5)
    gen = as_generator(rng)
    t0 = 0 if pair.context == "start" else max(1, (length - L) // 2)
    if t0 + L > length:
        raise ValueError(f"length must be at least {t0 + L} for this pair; got {length}")
    if t0 > 0:
        # a stationary chain path ending in the worst previous private state a (so that the private
        # trajectory is likely to sit at a when the window starts): the time-reversed chain
        # P̂_ij = μ_j P_ji / μ_i run backwards from a
        a = pair.start_state if pair.start_state is not None else int(pair.s[0])
        mu = stationary_distribution(c)
        rev = MarkovChain(mu[None, :] * c.P.T / mu[:, None])
        prefix = simulate(rev, t0, initial=int(a), rng=gen)[::-1]
    else:
        prefix = np.empty(0, dtype=np.int64)
    rest = length - t0 - L
    suffix = simulate(c, rest + 1, initial=int(pair.s[-1]), rng=gen)[1:] if rest > 0 else np.empty(0, np.int64)
    s = np.concatenate([prefix, pair.s, suffix]).astype(np.int64)
    s2 = np.concatenate([prefix, pair.s_tilde, suffix]).astype(np.int64)
    return s, s2


def _llr(law: LogStepLaw, words: np.ndarray, s: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """log P(w | s2) − log P(w | s) for a batch of words (only the differing positions contribute)."""
    out = law.first[s2[0], words[:, 0]] - law.first[s[0], words[:, 0]]
    for t in np.flatnonzero(s != s2):
        if t == 0:
            continue
        a, b = words[:, t - 1], words[:, t]
        out = out + law.step[a, s2[t], b] - law.step[a, s[t], b]
    return out


def statistical_pair_audit(kernel: StepKernel, law: LogStepLaw, s, s_tilde, *, runs: int = 20000,
                           confidence: float = 0.95, claimed_epsilon: float | None = None, rng: RNGLike = None,
                           progress: Callable[[int, int], bool | None] | None = None,
                           chunk: int = 5000) -> StatisticalAudit:
    """Black-box audit of a trajectory mechanism on two (long) sensitive trajectories.

    ``kernel`` releases ``runs`` private words for each trajectory (the shipped vectorised sampler,
    :func:`~dpexplore.markov.sample_trajectories`); the test statistic is the exact log-likelihood
    ratio log P(w | s̃) − log P(w | s) from ``law`` (the Neyman–Pearson optimal statistic);
    :func:`dpexplore.core.audit.audit_from_scores` turns its error rates into a lower bound ε̂ at
    ``confidence`` (threshold chosen on one half of the runs, evaluated on the other).

    Parameters
    ----------
    kernel : StepKernel
        The mechanism under audit (e.g. :func:`~dpexplore.markov.mechanism_kernel` or a ``broken_*``).
    law : LogStepLaw
        Its log step law (for the score), from :func:`log_step_law`.
    s, s_tilde : array_like of int, shape (T,)
    runs : int
        Runs per trajectory (≥ 20).
    confidence : float
    claimed_epsilon : float, optional
        Default: ``law.claimed_epsilon``.
    rng : Generator, int or None
    progress : callable, optional
        ``progress(done, runs)`` after every ``chunk`` runs; returning False cancels.
    chunk : int

    Examples
    --------
    >>> P = [[0.5, 0.5], [0.5, 0.5]]
    >>> law = log_step_law(P, "baseline", epsilon=1.0)
    >>> from dpexplore.markov import baseline_kernel
    >>> res = statistical_pair_audit(baseline_kernel(P, epsilon=1.0), law, [0, 1, 1], [0, 0, 1], runs=4000, rng=0)
    >>> 0.5 < res.epsilon_lower <= 1.0, res.violation
    (True, False)
    """
    if not isinstance(kernel, StepKernel):
        raise TypeError(f"kernel must be a StepKernel; got {type(kernel).__name__}")
    S, St = _check_pair(law, s, s_tilde)
    if S.ndim != 1:
        raise ValueError("s and s_tilde must be 1-d trajectories")
    if kernel.n != law.n:
        raise ValueError(f"kernel has {kernel.n} states but law has {law.n}")
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=10**7)
    claimed = law.claimed_epsilon if claimed_epsilon is None else check_real(claimed_epsilon, "claimed_epsilon",
                                                                             low=0.0, allow_inf=True)
    g0, g1 = as_generator(rng).spawn(2)

    def sample(m: int):  # the shipped batch sampler releases m words per trajectory; score: the exact LLR
        w0, _ = sample_trajectories(kernel, np.broadcast_to(S, (m, S.size)), rng=g0)
        w1, _ = sample_trajectories(kernel, np.broadcast_to(St, (m, St.size)), rng=g1)
        return _llr(law, w0, S, St), _llr(law, w1, S, St)

    return sampled_audit(sample, runs, delta=0.0, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress)


# -- everything at once (what the dashboard calls) ----------------------------------------------------


@dataclass(frozen=True)
class MarkovAudit:
    """Result of :func:`audit_markov`.

    Attributes
    ----------
    mechanism : str
    claimed_epsilon : float
        The accounting's ε for the audited pair.
    pair : TrajectoryPair
        The worst short pair found (with its exact loss).
    exact : ExactAudit
        The exact audit of that pair from its whole output-word law.
    long_s, long_s_tilde : ndarray
        The long pair the statistical audit ran on.
    long_epsilon : float
        Exact privacy loss of the long pair (dynamic programme; equals ``pair.epsilon``).
    statistical : StatisticalAudit
    seconds : float
    """

    mechanism: str
    claimed_epsilon: float
    pair: TrajectoryPair
    exact: ExactAudit
    long_s: np.ndarray
    long_s_tilde: np.ndarray
    long_epsilon: float
    statistical: StatisticalAudit
    seconds: float

    @property
    def violation(self) -> bool:
        return bool(self.exact.violation or self.statistical.violation)


def audit_markov(chain, mechanism: str = "mechanism1", *, epsilon: float, rho: float | None = None,
                 symmetrize: str = "sum", length: int = 50, runs: int = 20000, confidence: float = 0.95,
                 max_length: int = 3, max_pairs: int = 20000, rng: RNGLike = None,
                 progress: Callable[[int, int], bool | None] | None = None) -> MarkovAudit:
    """Audit one of :data:`MECHANISMS` on ``chain``: worst short pair (exact) + a long pair (statistical).

    The exact part searches the worst neighbouring window (:func:`worst_pair`) and audits it from its
    whole output-word law (:func:`exact_pair_audit`); the statistical part embeds it in trajectories
    of ``length`` states (:func:`long_pair`) and runs the mechanism's sampler ``runs`` times on each
    (:func:`statistical_pair_audit`).

    Examples
    --------
    >>> P = [[0.6, 0.4, 0.0], [0.2, 0.5, 0.3], [0.3, 0.0, 0.7]]
    >>> res = audit_markov(P, "mechanism1", epsilon=1.0, rho=3.0, length=10, runs=2000, max_length=2, rng=0)
    >>> res.violation, bool(res.statistical.epsilon_lower <= res.exact.epsilon <= 1.0)
    (False, True)
    >>> bad = audit_markov(P, "broken_mechanism1", epsilon=1.0, rho=3.0, length=10, runs=2000, max_length=2, rng=0)
    >>> bad.violation, bad.exact.epsilon > 1.0
    (True, True)
    """
    t0 = time.perf_counter()
    c = _check_audit_chain(chain)
    mech = check_choice(mechanism, "mechanism", MECHANISMS)
    eps = check_epsilon(epsilon)
    gen = as_generator(rng)
    g_long, g_stat = gen.spawn(2)
    d = distances(c, symmetrize=check_choice(symmetrize, "symmetrize", ("sum", "max")))
    law = log_step_law(c, mech, epsilon=eps, rho=rho, symmetrize=symmetrize, d=d)
    if mech == "mechanism1":
        kernel = mechanism_kernel(c, epsilon=eps, rho=rho, symmetrize=symmetrize, d=d)
    elif mech == "broken_mechanism1":
        kernel = broken_mechanism_kernel(c, epsilon=eps, rho=rho, symmetrize=symmetrize, d=d)
    elif mech == "baseline":
        kernel = baseline_kernel(c, epsilon=eps)
    else:
        kernel = broken_baseline_kernel(c, epsilon=eps)
    pair = worst_pair(law, d, max_length=max_length, max_pairs=max_pairs)
    exact = exact_pair_audit(law, pair)
    s, s2 = long_pair(c, pair, max(int(length), pair.s.size + 2), rng=g_long)
    long_eps = privacy_loss(law, s, s2, context="start")
    stat = statistical_pair_audit(kernel, law, s, s2, runs=runs, confidence=confidence,
                                  claimed_epsilon=pair.claimed_epsilon, rng=g_stat, progress=progress)
    return MarkovAudit(kernel.mechanism if mech.startswith("broken") else law.mechanism, pair.claimed_epsilon, pair,
                       exact, s, s2, float(long_eps), stat, time.perf_counter() - t0)
