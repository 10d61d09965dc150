"""Exact analysis of a trajectory mechanism through the pair chain (s_t, s'_t), and empirical metrics.

The sensitive state and the private state together form a Markov chain on pairs with kernel

    K((s, a), (r, b)) = P_sr · M(b | a, r),

where M is the mechanism's step law (:class:`~dpexplore.markov.StepKernel`). Its laws give, without
simulation: the large-error probability P(e ≥ v) with e_t = d(s'_t, s_t) (down to 1e-12 and below,
where Monte Carlo cannot go), the entropy rate of the mechanism, the drift E[e_{t+1} − e_t | state]
and the typical-set quantities. [reconstruction] The metrics follow the specification
(``papers/3-markov-trajectories.md``); entropies are in **nats**.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

from dpexplore.core.validation import check_array, check_cells, check_int, check_positive

from .chains import (
    as_chain,
    check_distance_matrix,
    check_irreducible,
    check_states,
    entropy_rate,
    stationary_distribution,
)
from .mechanisms import StepKernel

__all__ = [
    "PairChainAnalysis",
    "TimeProfile",
    "pair_chain",
    "pair_stationary",
    "analyze",
    "time_profile",
    "word_distribution",
    "running_entropy",
    "word_entropy",
    "typical_fraction",
    "empirical_tail",
    "MAX_PROFILE_LENGTH",
    "MAX_THRESHOLDS",
    "MAX_PROFILE_CELLS",
    "MAX_STATIONARY_ITER",
]

#: Largest ``length`` T of :func:`time_profile` (one exact pair-law step each).
MAX_PROFILE_LENGTH = 100_000
#: Largest number of error thresholds ``v`` (``time_profile``, ``PairChainAnalysis.tail``, ``empirical_tail``).
MAX_THRESHOLDS = 10_000
#: Largest T·len(v) of :func:`time_profile`'s (T, len(v)) tail table.
MAX_PROFILE_CELLS = 10_000_000
#: Largest ``max_iter`` of :func:`pair_stationary`.
MAX_STATIONARY_ITER = 1_000_000


def _check_reals(value, name: str, *, low: float | None = None, high: float | None = None,
                 ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
    """A non-empty finite float array (1-d rows promoted to 2-d when 2-d is accepted) within [low, high]."""
    if isinstance(value, dict):
        raise TypeError(f"{name} must be an array of numbers; got {type(value).__name__}")
    # the shared path: complex (whose real part astype(float) would keep), object, str, bool -> TypeError
    arr = check_array(value, name, finite=False, kind="a rectangular array of real numbers")
    if arr.ndim not in ndim or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty {' or '.join(f'{k}-d' for k in ndim)} array; got shape "
                         f"{arr.shape}")
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= arr < low
    if high is not None:
        bad |= arr > high
    if np.any(bad):
        rng = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
        raise ValueError(f"{name} must contain finite numbers in {rng}; got {arr[bad].flat[0]}")
    return np.atleast_2d(arr) if 2 in ndim else arr


def _check_kernel(chain, kernel) -> tuple:
    c = check_irreducible(chain)
    if not isinstance(kernel, StepKernel):
        raise TypeError(f"kernel must be a StepKernel; got {type(kernel).__name__}")
    if kernel.n != c.n:
        raise ValueError(f"kernel has {kernel.n} states but the chain has {c.n}")
    return c, kernel


def pair_chain(chain, kernel: StepKernel) -> sp.csr_array:
    """Sparse transition matrix of the pair chain (s_t, s'_t), pair (s, a) at index s·n + a.

    Examples
    --------
    >>> from dpexplore.markov import mechanism_kernel
    >>> P = [[0.9, 0.1], [0.3, 0.7]]
    >>> K = pair_chain(P, mechanism_kernel(P, epsilon=1.0, rho=1.0))
    >>> K.shape, bool(np.allclose(K.sum(axis=1), 1))
    ((4, 4), True)
    """
    c, kernel = _check_kernel(chain, kernel)
    n = c.n
    feas = kernel.feasible
    rows_l, cols_l, vals_l = [], [], []
    a = np.arange(n)
    for s in range(n):
        rs = np.flatnonzero(c.P[s])
        vals = c.P[s, rs][None, :, None] * kernel.probs[a][:, rs, :]  # (a, r, j): P_sr M(feas[a, j] | a, r)
        cols = rs[None, :, None] * n + feas[:, None, :]
        rows = np.broadcast_to((s * n + a)[:, None, None], vals.shape)
        ok = (np.broadcast_to(feas[:, None, :], vals.shape) >= 0) & (vals > 0)
        rows_l.append(rows[ok])
        cols_l.append(cols[ok])
        vals_l.append(vals[ok])
    K = sp.csr_array((np.concatenate(vals_l), (np.concatenate(rows_l), np.concatenate(cols_l))), shape=(n * n, n * n))
    K.sum_duplicates()
    return K


def pair_stationary(chain, kernel: StepKernel, *, K: sp.csr_array | None = None, tol: float = 1e-15,
                    max_iter: int = 20000) -> np.ndarray:
    """Stationary law π(s, a) of the pair chain, shape (n, n).

    Power iteration π ← πK from the natural start μ(s)·M_0(a | s) (μ the chain's stationary law, so
    the s-marginal is stationary from the start and only the private component has to mix), until
    the L1 change is below ``tol``. Every update is a sum of non-negative terms, so even tail masses
    of 1e-20 are computed to full relative precision. If it does not converge in ``max_iter`` steps
    (e.g. a periodic chain), a sparse direct solve with one coordinate pinned is tried.

    (For a periodic chain the pair chain can have several stationary laws; the one returned is the
    limit reached from the natural start, i.e. the long-run law of the mechanism started as above.)

    Raises
    ------
    ValueError
        If neither method finds a stationary law.

    Examples
    --------
    >>> from dpexplore.markov import mechanism_kernel
    >>> P = [[0.9, 0.1], [0.3, 0.7]]
    >>> pi = pair_stationary(P, mechanism_kernel(P, epsilon=1.0, rho=1.0))
    >>> pi.sum(axis=1).round(6).tolist()  # the s-marginal is the chain's stationary law
    [0.75, 0.25]
    """
    c, kernel = _check_kernel(chain, kernel)
    n = c.n
    N = n * n
    K = pair_chain(c, kernel) if K is None else K
    Kt = K.T.tocsr()
    p = (stationary_distribution(c)[:, None] * kernel.first).ravel()
    for _ in range(check_int(max_iter, "max_iter", low=1, high=MAX_STATIONARY_ITER)):
        q = Kt @ p
        if np.abs(q - p).sum() < tol:
            return (q / q.sum()).reshape(n, n)
        p = q
    # Not converged (periodic?): pin π_0 = 1 and solve (I − K^T)[1:, 1:] x = K^T[1:, 0] (no dense row,
    # so the LU factors stay sparse). The pinned pair (0, 0) has positive mass when π is unique.
    Ktc = K.T.tocsc()
    A = (sp.eye_array(N, format="csc") - Ktc)[1:, 1:]
    b = Ktc[1:, [0]].toarray().ravel()
    with np.errstate(all="ignore"):  # a singular system is detected below from the residual
        try:
            x = spsolve(A.tocsc(), b, permc_spec="MMD_ATA")
        except RuntimeError:
            x = np.full(N - 1, np.nan)
    pi = np.concatenate([[1.0], np.atleast_1d(x)])
    pi = pi / pi.sum() if np.all(np.isfinite(pi)) else pi
    resid = np.abs(K.T @ pi - pi).sum() if np.all(np.isfinite(pi)) else np.inf
    if not np.isfinite(resid) or resid > 1e-8 or np.any(pi < -1e-10):
        raise ValueError("the pair chain has no unique stationary law (is the chain periodic?)")
    pi = np.clip(pi, 0.0, None)
    return (pi / pi.sum()).reshape(n, n)


@dataclass(frozen=True)
class PairChainAnalysis:
    """Exact long-run quantities of a mechanism on a chain (from the pair chain's stationary law).

    Attributes
    ----------
    stationary : ndarray, shape (n, n)
        π(s, a) = lim P(s_t = s, s'_t = a).
    errors : ndarray, shape (n, n)
        e(s, a) = d(a, s).
    drift : ndarray, shape (n, n)
        E[e_{t+1} − e_t | s_t = s, s'_t = a].
    entropy_rate : float
        Exact rate of the empirical entropy Ĥ_T = −(1/T) Σ log M(s'_t | s'_{t−1}, s_t), nats/step.
    word_entropy_rate : float
        Exact rate of −(1/T) log P(s'_0 … s'_T) (the private word's sample entropy under the chain).
    chain_entropy_rate : float
        The chain's own entropy rate H(P), nats/step (the centre of the typical set).
    mechanism : str
    epsilon : float
    """

    stationary: np.ndarray
    errors: np.ndarray
    drift: np.ndarray
    entropy_rate: float
    word_entropy_rate: float
    chain_entropy_rate: float
    mechanism: str
    epsilon: float

    def tail(self, v) -> np.ndarray:
        """Exact stationary large-error probability P(e ≥ v) (vectorised over v).

        A relative slack of 1e-9 on the comparison keeps pairs at exactly distance v (up to
        rounding of the shortest-path sums) inside the event.
        """
        va = np.atleast_1d(check_array(v, "v", max_size=MAX_THRESHOLDS))
        e = self.errors.ravel()
        w = self.stationary.ravel()
        out = np.array([w[e >= x - 1e-9 * max(1.0, abs(x))].sum() for x in va])
        return out if np.ndim(v) else out[0]

    @property
    def mean_error(self) -> float:
        return float((self.stationary * self.errors).sum())


def _step_tables(c, kernel: StepKernel, d: np.ndarray):
    """Per (a, r) tables: entropy of M(.|a, r), expected −log P[a, b], expected next error d(b, r)."""
    feas = kernel.feasible
    valid = feas >= 0
    M = kernel.probs  # (a, r, j)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0 = 0, masked by np.where
        mlogm = np.where(M > 0, M * np.log(np.where(M > 0, M, 1.0)), 0.0)
    h = -mlogm.sum(axis=2)  # (a, r)
    fz = np.maximum(feas, 0)
    a_idx = np.arange(c.n)[:, None]
    logP = np.where(valid, np.log(np.where(valid, c.P[a_idx, fz], 1.0)), 0.0)  # (a, j): log P[a, feas[a, j]]
    w = -(M * logP[:, None, :]).sum(axis=2)  # (a, r)
    dn = d[fz[:, None, :], np.arange(c.n)[None, :, None]]  # (a, r, j): d(feas[a, j], r)
    g = (M * np.where(valid[:, None, :], dn, 0.0)).sum(axis=2)  # (a, r)
    return h, w, g


def analyze(chain, kernel: StepKernel, d: np.ndarray) -> PairChainAnalysis:
    """Exact stationary analysis of ``kernel`` on ``chain`` (errors measured with distance matrix ``d``).

    Examples
    --------
    >>> from dpexplore.markov import credit_migration, distances, mechanism_kernel, baseline_kernel
    >>> c = credit_migration(); d = distances(c)
    >>> mech = analyze(c, mechanism_kernel(c, epsilon=3.0, rho=1.0, d=d), d)
    >>> base = analyze(c, baseline_kernel(c, epsilon=3.0), d)
    >>> bool(mech.tail(15.0) < 1e-3 * base.tail(15.0)), bool(mech.entropy_rate < base.entropy_rate)
    (True, True)
    """
    c, kernel = _check_kernel(chain, kernel)
    d = check_distance_matrix(d, c.n)
    pi = pair_stationary(c, kernel)
    h, w, g = _step_tables(c, kernel, d)
    errors = d.T.copy()  # errors[s, a] = d(a, s)
    P = c.P
    next_h = P @ h.T  # [s, a] = Σ_r P_sr h[a, r]
    next_w = P @ w.T
    next_e = P @ g.T
    return PairChainAnalysis(
        stationary=pi,
        errors=errors,
        drift=next_e - errors,
        entropy_rate=float((pi * next_h).sum()),
        word_entropy_rate=float((pi * next_w).sum()),
        chain_entropy_rate=entropy_rate(c),
        mechanism=kernel.mechanism,
        epsilon=kernel.epsilon,
    )


@dataclass(frozen=True)
class TimeProfile:
    """Exact per-step laws of a mechanism started at t = 0 (s_0 from the chain's initial law).

    Attributes
    ----------
    v : ndarray, shape (V,)
        Error thresholds.
    tail : ndarray, shape (T, V)
        P(e_t ≥ v) at each t.
    step_entropy : ndarray, shape (T,)
        E[−log M(s'_t | s'_{t−1}, s_t)] at each t (nats).
    word_step_entropy : ndarray, shape (T,)
        E[−log P(s'_t | s'_{t−1})] for t ≥ 1 (NaN at t = 0).
    mean_error : ndarray, shape (T,)
    """

    v: np.ndarray
    tail: np.ndarray
    step_entropy: np.ndarray
    word_step_entropy: np.ndarray
    mean_error: np.ndarray

    @property
    def mean_tail(self) -> np.ndarray:
        """P(e ≥ v) averaged over t < T: the exact counterpart of a simulated time average."""
        return self.tail.mean(axis=0)

    @property
    def expected_running_entropy(self) -> np.ndarray:
        """E[Ĥ_t] for t = 1 … T (Ĥ_t averages the first t steps)."""
        return np.cumsum(self.step_entropy) / np.arange(1, self.step_entropy.size + 1)


def time_profile(chain, kernel: StepKernel, d: np.ndarray, length: int, *, v=None) -> TimeProfile:
    """Propagate the exact pair law for ``length`` steps (stops early once it is stationary to 1e-14).

    Cost per step O(n · nnz(P) + n² k); memory O(n² k). ``length`` ≤ ``MAX_PROFILE_LENGTH`` (10⁵),
    at most ``MAX_THRESHOLDS`` (10⁴) values in ``v``, and length·len(v) ≤ ``MAX_PROFILE_CELLS`` (10⁷).

    Examples
    --------
    >>> from dpexplore.markov import credit_migration, distances, baseline_kernel
    >>> c = credit_migration(); d = distances(c)
    >>> prof = time_profile(c, baseline_kernel(c, epsilon=3.0), d, 50, v=[0.0, 5.0])
    >>> prof.tail.shape, bool(np.allclose(prof.tail[:, 0], 1))
    ((50, 2), True)
    """
    T = check_int(length, "length", low=1, high=MAX_PROFILE_LENGTH)
    vv = None if v is None else check_array(v, "v", max_size=MAX_THRESHOLDS).ravel()
    check_cells(MAX_PROFILE_CELLS, length=T, thresholds=50 if vv is None else max(vv.size, 1))
    c, kernel = _check_kernel(chain, kernel)
    n = c.n
    d = check_distance_matrix(d, n)
    vv = np.linspace(0.0, float(np.max(d)), 50) if vv is None else vv
    errors = d.T  # [s, a]
    # P(e_t >= v) from suffix sums of the pair law sorted by error (positive sums: accurate for tiny tails)
    order = np.argsort(errors.ravel(), kind="stable")
    pos = np.searchsorted(errors.ravel()[order], vv - 1e-9 * np.maximum(1.0, np.abs(vv)), side="left")

    def tails(law: np.ndarray) -> np.ndarray:
        suffix = np.concatenate([np.cumsum(law.ravel()[order][::-1])[::-1], [0.0]])
        return suffix[pos]

    h, w, g = _step_tables(c, kernel, d)
    feas = kernel.feasible
    valid = feas >= 0
    Pt = sp.csr_array(c.P.T)
    mu0 = c.initial_law
    # target index of (r, feas[a, j]) for the scatter step p_{t+1}(r, b) = Σ_a q(r, a) M(b | a, r)
    tgt = (np.arange(n)[None, :, None] * n + np.maximum(feas, 0)[:, None, :])  # (a, r, j)
    Mw = np.where(valid[:, None, :], kernel.probs, 0.0)
    tail = np.empty((T, vv.size))
    step_h = np.empty(T)
    word_h = np.full(T, np.nan)
    mean_e = np.empty(T)
    first = kernel.first
    p = mu0[:, None] * first  # p_0(s, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        h0 = -np.where(first > 0, first * np.log(np.where(first > 0, first, 1.0)), 0.0).sum(axis=1)
    step_h[0] = float(mu0 @ h0)
    t = 0
    tail[0] = tails(p)
    mean_e[0] = float((p * errors).sum())
    while t + 1 < T:
        q = Pt @ p  # q[r, a] = Σ_s P_sr p(s, a)
        step_h[t + 1] = float((q * h.T).sum())
        word_h[t + 1] = float((q * w.T).sum())
        weights = q.T[:, :, None] * Mw  # (a, r, j)
        new = np.bincount(tgt.ravel(), weights=weights.ravel(), minlength=n * n).reshape(n, n)
        t += 1
        tail[t] = tails(new)
        mean_e[t] = float((new * errors).sum())
        if np.abs(new - p).sum() < 1e-14 and t >= 2:  # stationary to 1e-14 in L1: later steps are the same
            tail[t + 1 :] = tail[t]
            mean_e[t + 1 :] = mean_e[t]
            step_h[t + 1 :] = step_h[t]
            word_h[t + 1 :] = word_h[t]
            break
        p = new
    return TimeProfile(v=vv, tail=tail, step_entropy=step_h, word_step_entropy=word_h, mean_error=mean_e)


def word_distribution(kernel: StepKernel, trajectory) -> np.ndarray:
    """Exact law of the whole private word given a sensitive ``trajectory`` (length T, n^T outputs).

    P(w | s) = M_0(w_0 | s_0) Π_{t ≥ 1} M(w_t | w_{t−1}, s_t). Used for exact privacy checks on
    pairs of neighbouring trajectories (keep n^T small: at most 10^6 words).

    Returns
    -------
    ndarray, shape (n,) * T
        Entry [w_0, …, w_{T−1}].

    Examples
    --------
    >>> from dpexplore.markov import baseline_kernel
    >>> K = baseline_kernel([[0.5, 0.5], [0.5, 0.5]], epsilon=1.0)
    >>> float(word_distribution(K, [0, 1, 1]).sum())
    1.0
    """
    if not isinstance(kernel, StepKernel):
        raise TypeError(f"kernel must be a StepKernel; got {type(kernel).__name__}")
    n = kernel.n
    traj = check_states(trajectory, "trajectory", n)
    if n ** traj.size > 10**6:
        raise ValueError(f"word_distribution enumerates n^T = {n}^{traj.size} words; keep it at most 10^6")
    M = kernel.dense()
    dist = kernel.first[traj[0]].copy()  # shape (n,)
    for t in range(1, traj.size):
        # new[w_prefix, b] = dist[w_prefix] * M[w_last, s_t, b]
        step = M[:, traj[t], :]  # (a, b)
        dist = dist[..., None] * step.reshape((1,) * (dist.ndim - 1) + (n, n))
    return dist


def running_entropy(step_log_probs) -> np.ndarray:
    """Ĥ_t = −(1/t) Σ_{u < t} log M(s'_u | ·) for t = 1 … T (rows are trajectories), nats per step.

    Examples
    --------
    >>> running_entropy([[-1.0, -3.0]]).tolist()
    [[1.0, 2.0]]
    """
    lp = _check_reals(step_log_probs, "step_log_probs", high=0.0)
    return -np.cumsum(lp, axis=1) / np.arange(1, lp.shape[1] + 1)


def word_entropy(chain, states) -> np.ndarray:
    """Sample entropy of private words under the chain: −(1/t) Σ_{u=1}^{t} log P(s'_u | s'_{u−1}).

    Rows are words; column t−1 holds the value after t transitions (t = 1 … T−1). The Shannon–
    McMillan–Breiman theorem says a word drawn from the chain has this close to the entropy rate H(P):
    the η-typical set is |value − H(P)| ≤ η.

    Examples
    --------
    >>> import math
    >>> w = word_entropy([[0.5, 0.5], [0.5, 0.5]], [[0, 1, 1]])
    >>> bool(np.allclose(w, math.log(2)))
    True
    """
    c = as_chain(chain)
    s = np.atleast_2d(check_states(states, "states", c.n, ndim=(1, 2), min_length=2))
    p = c.P[s[:, :-1], s[:, 1:]]
    if np.any(p <= 0):
        raise ValueError("a word contains a transition with probability 0 under the chain (not a feasible word)")
    return -np.cumsum(np.log(p), axis=1) / np.arange(1, s.shape[1])


def typical_fraction(chain, states, eta: float) -> float:
    """Fraction of words (rows) in the η-typical set |−(1/T) log P(word) − H(P)| ≤ η (Theorem 4).

    Examples
    --------
    >>> from dpexplore.markov import credit_migration, simulate
    >>> c = credit_migration()
    >>> typical_fraction(c, simulate(c, 2000, size=20, rng=0), eta=0.2)
    1.0
    """
    eta = check_positive(eta, "eta")
    c = check_irreducible(chain)
    h = entropy_rate(c)
    w = word_entropy(c, states)[:, -1]
    return float(np.mean(np.abs(w - h) <= eta))


def empirical_tail(errors, v) -> np.ndarray:
    """Per-trajectory fraction of steps with e_t ≥ v, shape (m, V) (rows: trajectories).

    Examples
    --------
    >>> empirical_tail([[0.0, 1.0, 2.0, 3.0]], [1.0, 2.5]).tolist()
    [[0.75, 0.25]]
    """
    e = _check_reals(errors, "errors", low=0.0)
    vv = _check_reals(v, "v", low=0.0, ndim=(0, 1)).ravel()
    if vv.size > MAX_THRESHOLDS:
        raise ValueError(f"v must have at most {MAX_THRESHOLDS:,} thresholds; got {vv.size:,}")
    return np.stack([(e >= x - 1e-9 * max(1.0, abs(x))).mean(axis=1) for x in vv], axis=1)

