"""The exact step laws of Mechanism 1 and the baseline (and their broken variants), and the exact privacy loss
of a pair of trajectories: what :mod:`dpexplore.markov.audit` searches, enumerates and tests.

Both mechanisms release a word whose law factorises over time, so the pure-DP loss of a pair,
ε(s, s̃) = max_w |log P(w | s) − log P(w | s̃)|, is a max-sum over words, computed exactly for any length by a
Viterbi recursion over the private state (:func:`privacy_loss`), in log space (see the audit module's notes).

[reconstruction] Mechanism 1 and the baseline are reconstructions (see :mod:`dpexplore.markov`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from dpexplore.core.validation import check_choice, check_epsilon, check_positive

from .chains import MarkovChain, check_distance_matrix, check_irreducible, check_states
from .distances import distances
from .mechanisms import StepKernel, feasible_sets, mechanism_kernel

__all__ = [
    "MAX_AUDIT_STATES",
    "MECHANISMS",
    "LogStepLaw",
    "log_step_law",
    "step_kernel",
    "broken_mechanism_kernel",
    "broken_baseline_kernel",
    "trajectory_distance",
    "privacy_loss",
]


#: Largest chain the audits accept (the exact step law is a dense n × n × n array).
MAX_AUDIT_STATES = 100


#: The audited mechanisms: the two of the paper and their deliberately broken variants.
MECHANISMS = ("mechanism1", "baseline", "broken_mechanism1", "broken_baseline")


@dataclass(frozen=True, eq=False)
class LogStepLaw:
    """A trajectory mechanism's exact step law in log space (dense; −inf off the chain's support).

    Attributes
    ----------
    first : ndarray, shape (n, n)
        ``first[s, b]`` = log P(s'_0 = b | s_0 = s).
    step : ndarray, shape (n, n, n)
        ``step[a, s, b]`` = log P(s'_t = b | s'_{t−1} = a, s_t = s); −inf where P[a, b] = 0.
    support : ndarray of bool, shape (n, n)
        P > 0 (the feasible transitions of the private trajectory).
    claimed_epsilon : float
        ε the mechanism's accounting claims (for ρ-adjacent pairs, or per changed state).
    adjacency : {"rho", "hamming"}
    rho : float or None
    coefficient : float or None
        Mechanism 1's acceptance coefficient c (exp((ε/(cρ))(u − u*))).
    mechanism : str
        One of :data:`MECHANISMS`.
    """

    first: np.ndarray
    step: np.ndarray
    support: np.ndarray
    claimed_epsilon: float
    adjacency: str
    rho: float | None
    coefficient: float | None
    mechanism: str

    @property
    def n(self) -> int:
        return int(self.first.shape[0])

    @property
    def broken(self) -> bool:
        return self.mechanism.startswith("broken")


def _check_audit_chain(chain) -> MarkovChain:
    c = check_irreducible(chain)
    if c.n > MAX_AUDIT_STATES:
        raise ValueError(f"chain must have at most {MAX_AUDIT_STATES} states for an audit (dense n^3 step law); "
                         f"got {c.n}")
    return c


def _pf_log_rows(scores: np.ndarray, eps: float, sens: float) -> np.ndarray:
    """log of permute-and-flip's exact law, row-wise, without underflow.

    log P(r) = ε(q_r − q*)/(2Δ) + log ∫₀¹ Π_{s≠r}(1 − t p_s) dt, the integral (≥ 1/K) by Gauss–Legendre
    quadrature exactly as :func:`dpexplore.core.permute_and_flip_probabilities` does; only the
    acceptance factor is kept as a logarithm, so entries like e^{−2000} stay exact.
    """
    qmax = np.max(scores, axis=1, keepdims=True)
    la = (eps / (2.0 * sens)) * (scores - qmax)  # -inf stays -inf (excluded candidates)
    p = np.exp(la)
    k = scores.shape[1]
    nodes, weights = np.polynomial.legendre.leggauss(k // 2 + 1)
    t = 0.5 * (nodes + 1.0)
    w = 0.5 * weights
    out = np.empty_like(scores)
    chunk = max(1, int(4e6 // (k * (k // 2 + 1))))
    for start in range(0, scores.shape[0], chunk):
        pc = p[start : start + chunk]
        logs = np.log1p(-t[None, :, None] * pc[:, None, :])
        integral = np.einsum("g,bgk->bk", w, np.exp(logs.sum(axis=2, keepdims=True) - logs))
        lp = la[start : start + chunk] + np.log(integral)
        out[start : start + chunk] = lp - logsumexp(lp, axis=1, keepdims=True)
    return out


def _baseline_log_law(s: int, feasible: np.ndarray, eps: float, retry: bool) -> np.ndarray:
    """log of the baseline's law on ``feasible`` (the broken ``retry`` variant re-draws once)."""
    k = feasible.size
    hit = feasible == s
    if not hit.any():
        return np.full(k, -math.log(k))
    if k == 1:
        return np.zeros(1)
    log_norm = math.log1p((k - 1) * math.exp(-eps))  # log(1 + (k−1)e^{−ε})
    if not retry:  # keep e^ε/(e^ε + k − 1), each other 1/(e^ε + k − 1)
        keep, other = -log_norm, -eps - log_norm
    else:  # q = P(first draw ≠ s_t); re-draw once: keep 1 − q², each other q²/(k − 1)
        log_q = math.log(k - 1) - eps - log_norm
        keep, other = math.log1p(-math.exp(2 * log_q)), 2 * log_q - math.log(k - 1)
    out = np.full(k, other)
    out[hit] = keep
    return out


def log_step_law(chain, mechanism: str = "mechanism1", *, epsilon: float, rho: float | None = None,
                 symmetrize: str = "sum", d: np.ndarray | None = None) -> LogStepLaw:
    """The exact step law of one of :data:`MECHANISMS`, in log space.

    Parameters
    ----------
    chain : MarkovChain or array_like
        Irreducible, at most :data:`MAX_AUDIT_STATES` states.
    mechanism : {"mechanism1", "baseline", "broken_mechanism1", "broken_baseline"}
        ``"broken_mechanism1"`` uses the acceptance coefficient c = 1 (ε/ρ instead of ε/(2ρ)) and
        still claims ε; ``"broken_baseline"`` re-draws once when its randomized answer is not the true
        state (see :func:`broken_baseline_kernel`) and still claims ε.
    epsilon : float
    rho : float
        Required for Mechanism 1 and its broken variant.
    symmetrize : {"sum", "max"}
    d : ndarray, optional
        Precomputed :func:`~dpexplore.markov.distances`.

    Examples
    --------
    >>> law = log_step_law([[0.5, 0.5], [0.5, 0.5]], "baseline", epsilon=float(np.log(3)))
    >>> np.exp(law.step[0, 1]).round(6).tolist()
    [0.25, 0.75]
    """
    c = _check_audit_chain(chain)
    mech = check_choice(mechanism, "mechanism", MECHANISMS)
    eps = check_epsilon(epsilon)
    n = c.n
    support = c.support.copy()
    if mech.endswith("mechanism1"):
        if rho is None:
            raise TypeError("rho must be given for Mechanism 1 (the adjacency radius of Definition 4)")
        r = check_positive(rho, "rho")
        check_choice(symmetrize, "symmetrize", ("sum", "max"))
        dist = distances(c, symmetrize=symmetrize) if d is None else check_distance_matrix(d, n)
        coef = 1.0 if mech == "broken_mechanism1" else 2.0  # the bug: ε/ρ instead of ε/(2ρ)
        sens = coef * r / 2.0  # acceptance exp((ε/(cρ))(u − u*)) = permute-and-flip with Δ = cρ/2
        first = _pf_log_rows(-dist.T.copy(), eps, sens)  # row s: scores −d(b, s) over every b
        feas = feasible_sets(c)
        k = feas.shape[1]
        scores = np.where(feas[:, None, :] >= 0, -dist[np.maximum(feas, 0)].transpose(0, 2, 1), -np.inf)
        lp = _pf_log_rows(scores.reshape(n * n, k), eps, sens).reshape(n, n, k)
        step = np.full((n, n, n), -np.inf)
        for a in range(n):
            m = int((feas[a] >= 0).sum())
            step[a][:, feas[a, :m]] = lp[a, :, :m]
        return LogStepLaw(first, step, support, eps, "rho", r, coef, mech)
    retry = mech == "broken_baseline"
    allstates = np.arange(n)
    first = np.stack([_baseline_log_law(s, allstates, eps, retry) for s in range(n)])
    step = np.full((n, n, n), -np.inf)
    for a in range(n):
        f = np.flatnonzero(support[a])
        for s in range(n):
            step[a, s, f] = _baseline_log_law(s, f, eps, retry)
    return LogStepLaw(first, step, support, eps, "hamming", None, None, mech)


def step_kernel(law: LogStepLaw) -> StepKernel:
    """The linear :class:`~dpexplore.markov.StepKernel` of a log law (for sampling).

    Examples
    --------
    >>> K = step_kernel(log_step_law([[0.5, 0.5], [0.5, 0.5]], "baseline", epsilon=1.0))
    >>> bool(np.allclose(K.probs.sum(axis=2), 1))
    True
    """
    if not isinstance(law, LogStepLaw):
        raise TypeError(f"law must be a LogStepLaw; got {type(law).__name__}")
    n = law.n
    k = int(law.support.sum(axis=1).max())
    feas = np.full((n, k), -1, dtype=np.int64)
    probs = np.zeros((n, n, k))
    for a in range(n):
        f = np.flatnonzero(law.support[a])
        feas[a, : f.size] = f
        probs[a, :, : f.size] = np.exp(law.step[a][:, f])
    adjacency = (f"rho-adjacent trajectories (rho = {law.rho:g})" if law.adjacency == "rho"
                 else "trajectories differing in one state (Hamming 1)")
    return StepKernel(feasible=feas, first=np.exp(law.first), probs=probs, epsilon=law.claimed_epsilon,
                      adjacency=adjacency, mechanism=law.mechanism)


# -- deliberately broken mechanisms (teaching only) --------------------------------------------------


def broken_mechanism_kernel(chain, *, epsilon: float, rho: float, symmetrize: str = "sum",
                            d: np.ndarray | None = None) -> StepKernel:
    """BROKEN on purpose: Mechanism 1 with acceptance exp((ε/ρ)(u − u*)) — the factor 2 of ε/(2ρ) dropped.

    It *claims* ε for ρ-adjacent trajectories (``.epsilon`` is ε) but is Mechanism 1 with coefficient
    c = 1, whose proven bound is 2ε (:func:`~dpexplore.markov.mechanism_epsilon` with
    ``coefficient=1``); its true ε on a pair at distance D with two feasible candidates is
    log(2 e^{εD/ρ} − 1) > εD/ρ. Never the default anywhere; for teaching audits only.

    Examples
    --------
    >>> K = broken_mechanism_kernel([[0.5, 0.5], [0.5, 0.5]], epsilon=1.0, rho=1.0)
    >>> K.epsilon, K.mechanism
    (1.0, 'BROKEN Mechanism 1 (coefficient ε/ρ)')
    """
    eps = check_epsilon(epsilon)
    K = mechanism_kernel(chain, epsilon=eps, rho=rho, coefficient=1.0, symmetrize=symmetrize, d=d)  # the bug
    return StepKernel(feasible=K.feasible, first=K.first, probs=K.probs, epsilon=eps, adjacency=K.adjacency,
                      mechanism="BROKEN Mechanism 1 (coefficient ε/ρ)")


def broken_baseline_kernel(chain, *, epsilon: float) -> StepKernel:
    """BROKEN on purpose: the baseline spends its per-state budget twice (a "retry" bug).

    When the ε-randomized response on the feasible set F does not return the true state s_t ∈ F, it
    draws a second time (another ε on the same state) and outputs that draw, while still claiming ε
    per changed state. The re-draw decision looks at s_t, so this is worse than composing two ε
    draws: on a feasible set of size k ≥ 2 its loss is log(e^{2ε}/(k − 1) + 2e^ε), largest for k = 2
    (log(e^{2ε} + 2e^ε) > 2ε); its true ε is that maximum over the chain's feasible sets. Never the
    default anywhere; for teaching audits only.

    Examples
    --------
    >>> K = broken_baseline_kernel([[0.5, 0.5], [0.5, 0.5]], epsilon=1.0)
    >>> K.epsilon, round(float(np.log(K.probs[0, 1, 1] / K.probs[0, 0, 1])), 4)  # log(e² + 2e)
    (1.0, 2.5515)
    """
    return step_kernel(log_step_law(chain, "broken_baseline", epsilon=epsilon))


# -- exact privacy loss of a pair ---------------------------------------------------------------------


def _check_pair(law: LogStepLaw, s, s_tilde) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(law, LogStepLaw):
        raise TypeError(f"law must be a LogStepLaw; got {type(law).__name__}")
    out = [check_states(x, name, law.n, ndim=(1, 2)) for name, x in (("s", s), ("s_tilde", s_tilde))]
    if out[0].shape != out[1].shape:
        raise ValueError(f"s and s_tilde must have the same shape; got {out[0].shape} and {out[1].shape}")
    return out[0], out[1]


def _max_log_ratio(law: LogStepLaw, S: np.ndarray, St: np.ndarray, context: str,
                   start_state: int | None = None) -> np.ndarray:
    """max_w [log P(w | S) − log P(w | St)] for a batch (B, T) of pairs (Viterbi, max-sum)."""
    n = law.n
    B, T = S.shape
    sup = law.support[:, None, :]  # (a, 1, b)
    stepf = np.where(law.support[:, None, :], law.step, 0.0)  # finite copy; the mask restores -inf

    def diff(t: int) -> np.ndarray:  # (B, a, b): log-ratio of step t, -inf where infeasible
        dd = np.where(sup, stepf[:, S[:, t], :] - stepf[:, St[:, t], :], -np.inf)
        return dd.transpose(1, 0, 2)

    if context == "start":
        V = law.first[S[:, 0]] - law.first[St[:, 0]]  # (B, n): every state feasible at t = 0
    else:
        V0 = np.zeros((B, n)) if start_state is None else np.where(np.arange(n) == start_state, 0.0, -np.inf)[None]
        V = np.max(V0[:, :, None] + diff(0), axis=1)
    for t in range(1, T):
        V = np.max(V[:, :, None] + diff(t), axis=1)
    return V.max(axis=1)


def _losses(law: LogStepLaw, S: np.ndarray, St: np.ndarray, context: str) -> np.ndarray:
    """Exact pure-DP loss (both directions) for a batch of pairs, in memory-bounded chunks."""
    B, _ = S.shape
    chunk = max(1, int(3e6 // (law.n * law.n)))
    out = np.empty(B)
    for i in range(0, B, chunk):
        a, b = S[i : i + chunk], St[i : i + chunk]
        out[i : i + chunk] = np.maximum(_max_log_ratio(law, a, b, context), _max_log_ratio(law, b, a, context))
    return out


def privacy_loss(law: LogStepLaw, s, s_tilde, *, context: str = "start") -> float | np.ndarray:
    """The exact pure-DP privacy loss max_w |log P(w | s) − log P(w | s̃)| of a pair of trajectories.

    Exact for any length T by dynamic programming over the private state (cost O(T n²)).

    Parameters
    ----------
    law : LogStepLaw
    s, s_tilde : array_like of int, shape (T,) or (B, T)
        The two sensitive trajectories (a batch of pairs if 2-d).
    context : {"start", "any"}
        ``"start"``: the trajectories start at t = 0 (every state feasible). ``"any"``: they are a
        window in the middle of two longer trajectories with a common prefix, so the private state
        before the window can be any state a (feasible set N(a)); the loss is the max over a.

    Examples
    --------
    >>> law = log_step_law([[0.5, 0.5], [0.5, 0.5]], "baseline", epsilon=1.0)
    >>> round(float(privacy_loss(law, [0, 1], [0, 0])), 6)  # one state changed: ε
    1.0
    """
    S, St = _check_pair(law, s, s_tilde)
    check_choice(context, "context", ("start", "any"))
    single = S.ndim == 1
    res = _losses(law, np.atleast_2d(S), np.atleast_2d(St), context)
    return float(res[0]) if single else res


def trajectory_distance(d, s, s_tilde) -> float | np.ndarray:
    """D(s, s̃) = Σ_t d(s_t, s̃_t), the distance of Definition 4 (ρ-adjacent iff D ≤ ρ).

    Examples
    --------
    >>> trajectory_distance(np.array([[0.0, 2.0], [2.0, 0.0]]), [0, 1, 1], [1, 1, 0])
    4.0
    """
    arr = np.asarray(d) if not isinstance(d, (str, bytes, dict)) and d is not None else None
    if arr is None or arr.ndim != 2:
        raise ValueError(f"d must be a square distance matrix; got {type(d).__name__}")
    dist = check_distance_matrix(d, arr.shape[0])
    S = check_states(s, "s", dist.shape[0], ndim=(1, 2))
    St = check_states(s_tilde, "s_tilde", dist.shape[0], ndim=(1, 2))
    if S.shape != St.shape:
        raise ValueError(f"s and s_tilde must have the same shape; got {S.shape} and {St.shape}")
    out = dist[S, St].sum(axis=-1)
    return float(out) if np.ndim(out) == 0 else out
