"""Mechanism 1 (online permute-and-flip over −log P distances) and the uniform feasible-set baseline.

Both mechanisms release a private trajectory s'_0, s'_1, … **online**: s'_t depends only on the
sensitive state s_t, the previous private state s'_{t−1} and fresh randomness, so they run on a
stream (:class:`OnlinePermuteAndFlip`, :class:`OnlineBaseline`) and in batch
(:func:`private_trajectory`, :func:`baseline_trajectory`, :func:`sample_trajectories`). Every private
state is feasible for the chain: s'_t ∈ N(s'_{t−1}) = {j : P[s'_{t−1}, j] > 0}, so the released word is
one the chain itself could produce.

[reconstruction] The paper's full text was not available: Mechanism 1 and the baseline follow the
paper's description where it is specific (feasible neighbourhood, utility −d(j, s_t), permute-and-flip,
ρ-adjacency of Definition 4) and the specification in ``papers/3-markov-trajectories.md`` elsewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.permute_and_flip import permute_and_flip_probabilities
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_positive

from .chains import MarkovChain, as_chain, check_distance_matrix, check_irreducible, check_states
from .distances import distances

__all__ = [
    "TrajectoryResult",
    "StepKernel",
    "OnlinePermuteAndFlip",
    "OnlineBaseline",
    "private_trajectory",
    "baseline_trajectory",
    "mechanism_kernel",
    "baseline_kernel",
    "sample_trajectories",
    "mechanism_epsilon",
    "feasible_sets",
]


@dataclass(frozen=True)
class TrajectoryResult:
    """A released private trajectory.

    Attributes
    ----------
    states : ndarray of int, shape (T,)
        The private trajectory s'_0, …, s'_{T−1} (state indices).
    epsilon : float
        The ε spent under ``adjacency``.
    adjacency : str
        The neighbouring relation the guarantee refers to.
    errors : ndarray, shape (T,)
        e_t = d(s'_t, s_t) (the symmetric −log P distance; nats).
    step_log_probs : ndarray, shape (T,)
        log M(s'_t | s'_{t−1}, s_t): the log-probability of each released step under the mechanism's
        exact step law (its mean is minus the empirical entropy Ĥ_T, in nats per step).
    mechanism : str
    """

    states: np.ndarray
    epsilon: float
    adjacency: str
    errors: np.ndarray
    step_log_probs: np.ndarray
    mechanism: str

    @property
    def empirical_entropy(self) -> float:
        """Ĥ_T = −(1/T) Σ_t log M(s'_t | s'_{t−1}, s_t), nats per step."""
        return float(-np.mean(self.step_log_probs))


def feasible_sets(chain) -> np.ndarray:
    """Feasible neighbourhoods N(i) = {j : P_ij > 0} as a padded index array (−1 pads), shape (n, k_max).

    Examples
    --------
    >>> feasible_sets([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]).tolist()
    [[0, 1], [2, -1], [0, -1]]
    """
    c = as_chain(chain)
    k = int(c.support.sum(axis=1).max())
    out = np.full((c.n, k), -1, dtype=np.int64)
    for i in range(c.n):
        idx = np.flatnonzero(c.support[i])
        out[i, : idx.size] = idx
    return out


def mechanism_epsilon(epsilon: float, *, coefficient: float = 2.0) -> float:
    """ε spent by Mechanism 1 under ρ-adjacency (Definition 4) for a given acceptance coefficient.

    The acceptance probability is exp((ε / (c ρ)) (u_t(j) − max u_t)). Step t's utility
    u_t(j) = −d(j, s_t) changes by at most d(s_t, s̃_t) between two trajectories (triangle
    inequality), and permute-and-flip with acceptance exp(ε'(q − q*)/(2Δ)) is ε'-DP, so step t costs
    ε_t = 2 ε d(s_t, s̃_t) / (c ρ). Adaptive composition over t gives Σ_t ε_t ≤ 2ε/c for
    ρ-adjacent trajectories: ε for c = 2 (the default), 2ε for c = 1.

    Examples
    --------
    >>> mechanism_epsilon(3.0), mechanism_epsilon(3.0, coefficient=1.0)
    (3.0, 6.0)
    """
    eps = check_epsilon(epsilon)
    c = check_positive(coefficient, "coefficient")
    return 2.0 * eps / c


def _check_trajectory(chain: MarkovChain, trajectory) -> np.ndarray:
    return check_states(trajectory, "trajectory", chain.n)


# -- online mechanisms ------------------------------------------------------------------------------


class _Online:
    mechanism = ""

    def __init__(self, chain, rng: RNGLike, symmetrize: str) -> None:
        self.chain = check_irreducible(chain)
        self.d = distances(self.chain, symmetrize=symmetrize)
        self.rng = as_generator(rng)
        self.previous: int | None = None
        self.states: list[int] = []

    def _feasible(self) -> np.ndarray:
        # N(s'_{t-1}); at t = 0 every state is feasible.
        if self.previous is None:
            return np.arange(self.chain.n)
        return np.flatnonzero(self.chain.support[self.previous])

    def step(self, state: int) -> int:
        """Release s'_t for the sensitive state s_t = ``state`` and return it."""
        s = check_int(state, "state", low=0, high=self.chain.n - 1)
        out = self._choose(s, self._feasible())
        self.previous = out
        self.states.append(out)
        return out

    def _choose(self, s: int, feasible: np.ndarray) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class OnlinePermuteAndFlip(_Online):
    """Mechanism 1 on a stream: call :meth:`step` with each sensitive state as it arrives.

    At time t, with feasible set N(s'_{t−1}) (all states at t = 0) and utility
    u_t(j) = −d(j, s_t), permute-and-flip selects s'_t with acceptance probability
    exp((ε/(c ρ)) (u_t(j) − max_N u_t)). Sampling uses the identity permute-and-flip ≡
    argmax_j (u_t(j) + Z_j) with Z_j i.i.d. Exponential(scale c ρ / ε) (Ding et al. 2021), one
    vectorised draw per step.

    Parameters
    ----------
    chain : MarkovChain or array_like
        An irreducible chain.
    epsilon : float
        ε > 0, the budget for ρ-adjacent trajectories (with the default coefficient).
    rho : float
        ρ > 0, the adjacency radius of Definition 4 (Σ_t d(s_t, s̃_t) ≤ ρ).
    coefficient : float
        c in the acceptance exponent ε/(cρ); 2 (default) is the proven choice, see
        :func:`mechanism_epsilon`.
    symmetrize : {"sum", "max"}
    rng : Generator, int or None

    Examples
    --------
    >>> m = OnlinePermuteAndFlip([[0.9, 0.1], [0.2, 0.8]], epsilon=50.0, rho=1.0, rng=0)
    >>> [m.step(s) for s in [0, 0, 1, 1]]
    [0, 0, 1, 1]
    """

    mechanism = "Mechanism 1 (permute-and-flip)"

    def __init__(self, chain, *, epsilon: float, rho: float, coefficient: float = 2.0, symmetrize: str = "sum",
                 rng: RNGLike = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.rho = check_positive(rho, "rho")
        self.coefficient = check_positive(coefficient, "coefficient")
        check_choice(symmetrize, "symmetrize", ("sum", "max"))
        super().__init__(chain, rng, symmetrize)
        self.scale = self.coefficient * self.rho / self.epsilon
        self.epsilon_spent = mechanism_epsilon(self.epsilon, coefficient=self.coefficient)

    def _choose(self, s: int, feasible: np.ndarray) -> int:
        u = -self.d[feasible, s]  # utility u_t(j) = -d(j, s_t) on the feasible set
        z = self.rng.exponential(self.scale, size=feasible.size)
        return int(feasible[np.argmax(u + z)])

    def step_law(self, s: int, previous: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of s'_t given s_t = s and s'_{t−1} = previous: (candidates, probabilities)."""
        feas = np.arange(self.chain.n) if previous is None else np.flatnonzero(self.chain.support[previous])
        p = permute_and_flip_probabilities(-self.d[feas, s], self.epsilon, sensitivity=self.coefficient * self.rho / 2)
        return feas, p


class OnlineBaseline(_Online):
    """The uniform feasible-set baseline on a stream [reconstruction of Chen, Leahy, Jones & Hale 2023].

    With F = N(s'_{t−1}) (all states at t = 0) and k = |F|: if s_t ∈ F, output s_t with probability
    e^ε/(e^ε + k − 1) and otherwise a uniform pick from F \\ {s_t}; if s_t ∉ F, a uniform pick from F.
    Transition probabilities are ignored (only the support of P matters). Each step is ε-DP in the
    sensitive state (a k-ary randomized response on F), so the guarantee is ε for trajectories that
    differ in **one** state (Hamming adjacency), m ε if they differ in m states.

    Examples
    --------
    >>> b = OnlineBaseline([[0.9, 0.1], [0.2, 0.8]], epsilon=50.0, rng=0)
    >>> [b.step(s) for s in [0, 1, 1, 0]]
    [0, 1, 1, 0]
    """

    mechanism = "baseline (uniform on the feasible set)"

    def __init__(self, chain, *, epsilon: float, symmetrize: str = "sum", rng: RNGLike = None) -> None:
        self.epsilon = check_epsilon(epsilon)
        check_choice(symmetrize, "symmetrize", ("sum", "max"))
        super().__init__(chain, rng, symmetrize)
        self.epsilon_spent = self.epsilon

    def _choose(self, s: int, feasible: np.ndarray) -> int:
        k = feasible.size
        hit = self.previous is None or bool(self.chain.support[self.previous, s])
        if not hit:  # s_t is not reachable: a uniform feasible state
            return int(feasible[self.rng.integers(k)])
        # keep s_t with probability e^ε/(e^ε + k − 1), else a uniform other feasible state
        if k == 1 or self.rng.random() < 1.0 / (1.0 + (k - 1) * math.exp(-self.epsilon)):
            return s
        others = feasible[feasible != s]
        return int(others[self.rng.integers(k - 1)])

    def step_law(self, s: int, previous: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of s'_t given s_t = s and s'_{t−1} = previous: (candidates, probabilities)."""
        feas = np.arange(self.chain.n) if previous is None else np.flatnonzero(self.chain.support[previous])
        return feas, _baseline_law(s, feas, self.epsilon)


def _baseline_law(s: int, feasible: np.ndarray, eps: float) -> np.ndarray:
    k = feasible.size
    hit = feasible == s
    if not hit.any():
        return np.full(k, 1.0 / k)
    # e^ε/(e^ε + k − 1) for s_t and 1/(e^ε + k − 1) for each other feasible state, written stably
    other = math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    law = np.full(k, other)
    law[hit] = 1.0 - (k - 1) * other
    return law


# -- batch, one trajectory --------------------------------------------------------------------------


def _run(online: _Online, chain: MarkovChain, trajectory) -> TrajectoryResult:
    traj = _check_trajectory(chain, trajectory)
    if traj.ndim != 1:
        raise ValueError(f"trajectory must be a 1-d array of state indices; got shape {traj.shape}")
    states = np.array([online.step(int(s)) for s in traj], dtype=np.int64)
    prev = [None] + states[:-1].tolist()
    logp = np.empty(traj.size)
    for t, (s, a) in enumerate(zip(traj.tolist(), prev)):
        feas, law = online.step_law(s, a)
        logp[t] = math.log(max(float(law[np.searchsorted(feas, states[t])]), np.finfo(float).tiny))
    adjacency = (f"rho-adjacent trajectories (sum_t d(s_t, s~_t) <= rho = {online.rho:g})"
                 if isinstance(online, OnlinePermuteAndFlip) else "trajectories differing in one state (Hamming 1)")
    return TrajectoryResult(states=states, epsilon=online.epsilon_spent, adjacency=adjacency,
                            errors=online.d[states, traj], step_log_probs=logp, mechanism=online.mechanism)


def private_trajectory(chain, trajectory, *, epsilon: float, rho: float, coefficient: float = 2.0,
                       symmetrize: str = "sum", rng: RNGLike = None) -> TrajectoryResult:
    """Release a private version of ``trajectory`` with Mechanism 1 (online permute-and-flip).

    For t = 0, 1, …: candidates N(s'_{t−1}) (all states at t = 0), utility u_t(j) = −d(j, s_t),
    permute-and-flip with acceptance exp((ε/(cρ))(u_t(j) − max u_t)) (see
    :class:`OnlinePermuteAndFlip`).

    Parameters
    ----------
    chain : MarkovChain or array_like
        Irreducible chain (a plain row-stochastic array is accepted).
    trajectory : array_like of int, shape (T,)
        The sensitive trajectory (state indices).
    epsilon : float
        Privacy budget for ρ-adjacent trajectories.
    rho : float
        Adjacency radius (Definition 4): trajectories with Σ_t d(s_t, s̃_t) ≤ ρ are neighbours.
    coefficient : float
        Exponent coefficient c (default 2, the proven choice; see :func:`mechanism_epsilon`).
    symmetrize : {"sum", "max"}
    rng : Generator, int or None

    Returns
    -------
    TrajectoryResult
        ``.states`` (the private trajectory), ``.epsilon`` = 2ε/c, ``.errors``, ``.step_log_probs``.

    References
    ----------
    Benvenuti & Hale, *Differential Privacy for Markov Chain State Trajectories* (Mechanism 1);
    McKenna & Sheldon, *Permute-and-Flip*, NeurIPS 2020.

    Examples
    --------
    >>> from dpexplore.markov import credit_migration, simulate
    >>> chain = credit_migration()
    >>> s = simulate(chain, 20, rng=0)
    >>> r = private_trajectory(chain, s, epsilon=3.0, rho=1.0, rng=0)
    >>> r.states.shape, r.epsilon
    ((20,), 3.0)
    >>> bool(all(chain.P[a, b] > 0 for a, b in zip(r.states[:-1], r.states[1:])))  # feasible for the chain
    True
    """
    c = check_irreducible(chain)
    online = OnlinePermuteAndFlip(c, epsilon=epsilon, rho=rho, coefficient=coefficient, symmetrize=symmetrize,
                                  rng=rng)
    return _run(online, c, trajectory)


def baseline_trajectory(chain, trajectory, *, epsilon: float, symmetrize: str = "sum",
                        rng: RNGLike = None) -> TrajectoryResult:
    """Release a private version of ``trajectory`` with the uniform feasible-set baseline.

    [reconstruction of Chen, Leahy, Jones & Hale 2023] See :class:`OnlineBaseline`. ``epsilon`` is
    the per-step budget; the guarantee is ε-DP for trajectories that differ in one state.
    ``symmetrize`` only affects the reported ``errors``.

    Examples
    --------
    >>> from dpexplore.markov import credit_migration, simulate
    >>> chain = credit_migration()
    >>> r = baseline_trajectory(chain, simulate(chain, 20, rng=0), epsilon=3.0, rng=0)
    >>> r.states.shape, r.epsilon
    ((20,), 3.0)
    """
    c = check_irreducible(chain)
    return _run(OnlineBaseline(c, epsilon=epsilon, symmetrize=symmetrize, rng=rng), c, trajectory)


# -- exact step kernels and vectorised sampling -----------------------------------------------------


@dataclass(frozen=True, eq=False)
class StepKernel:
    """A mechanism's exact step law, compactly over the feasible sets.

    Attributes
    ----------
    feasible : ndarray of int, shape (n, k)
        N(a) padded with −1.
    first : ndarray, shape (n, n)
        ``first[s, b]`` = P(s'_0 = b | s_0 = s) (every state feasible at t = 0).
    probs : ndarray, shape (n, n, k)
        ``probs[a, s, j]`` = P(s'_t = feasible[a, j] | s'_{t−1} = a, s_t = s) (0 on pads).
    epsilon : float
        ε spent under ``adjacency``.
    adjacency : str
    mechanism : str
    """

    feasible: np.ndarray
    first: np.ndarray
    probs: np.ndarray
    epsilon: float
    adjacency: str
    mechanism: str

    @property
    def n(self) -> int:
        return int(self.first.shape[0])

    def dense(self) -> np.ndarray:
        """M[a, s, b] as a dense (n, n, n) array (small chains only)."""
        n = self.n
        M = np.zeros((n, n, n))
        for a in range(n):
            k = int((self.feasible[a] >= 0).sum())
            M[a][:, self.feasible[a, :k]] = self.probs[a, :, :k]
        return M


def mechanism_kernel(chain, *, epsilon: float, rho: float, coefficient: float = 2.0, symmetrize: str = "sum",
                     d: np.ndarray | None = None) -> StepKernel:
    """Mechanism 1's exact step law from permute-and-flip's exact output law.

    ``probs[a, s, :]`` = permute_and_flip_probabilities(−d(N(a), s), ε, sensitivity = cρ/2), i.e.
    acceptance exp((ε/(cρ))(u − u*)); infeasible candidates are excluded with −inf scores. Computed
    as one batch of n² score rows (in chunks that bound memory).

    Examples
    --------
    >>> K = mechanism_kernel([[0.5, 0.5], [0.5, 0.5]], epsilon=1.0, rho=1.0)
    >>> K.probs.shape, bool(np.allclose(K.probs.sum(axis=2), 1))
    ((2, 2, 2), True)
    """
    c = check_irreducible(chain)
    eps = check_epsilon(epsilon)
    rho = check_positive(rho, "rho")
    coef = check_positive(coefficient, "coefficient")
    dist = distances(c, symmetrize=symmetrize) if d is None else check_distance_matrix(d, c.n)
    feas = feasible_sets(c)
    n, k = feas.shape
    sens = coef * rho / 2.0
    first = _pf_rows(-dist.T, eps, sens)  # row s: scores -d(b, s) over all b
    # scores[a, s, j] = -d(feas[a, j], s), -inf on pads
    scores = np.where(feas[:, None, :] >= 0, -dist[np.maximum(feas, 0)].transpose(0, 2, 1), -np.inf)
    probs = _pf_rows(scores.reshape(n * n, k), eps, sens).reshape(n, n, k)
    return StepKernel(feasible=feas, first=first, probs=probs, epsilon=mechanism_epsilon(eps, coefficient=coef),
                      adjacency=f"rho-adjacent trajectories (rho = {rho:g})", mechanism="Mechanism 1")


def _pf_rows(scores: np.ndarray, eps: float, sens: float) -> np.ndarray:
    rows, k = scores.shape
    chunk = max(1, int(2e7 // (k * (k // 2 + 1))))  # bounds the (rows, nodes, k) quadrature buffer
    out = np.empty_like(scores)
    for start in range(0, rows, chunk):
        out[start : start + chunk] = permute_and_flip_probabilities(scores[start : start + chunk], eps,
                                                                    sensitivity=sens)
    return out


def baseline_kernel(chain, *, epsilon: float) -> StepKernel:
    """The baseline's exact step law (see :class:`OnlineBaseline`).

    Examples
    --------
    >>> K = baseline_kernel([[0.5, 0.5], [0.5, 0.5]], epsilon=float(np.log(3)))
    >>> K.probs[0, 1].round(6).tolist()
    [0.25, 0.75]
    """
    c = check_irreducible(chain)
    eps = check_epsilon(epsilon)
    feas = feasible_sets(c)
    n, k = feas.shape
    first = np.stack([_baseline_law(s, np.arange(n), eps) for s in range(n)])
    probs = np.zeros((n, n, k))
    for a in range(n):
        f = feas[a][feas[a] >= 0]
        for s in range(n):
            probs[a, s, : f.size] = _baseline_law(s, f, eps)
    return StepKernel(feasible=feas, first=first, probs=probs, epsilon=eps,
                      adjacency="trajectories differing in one state (Hamming 1)", mechanism="baseline")


def sample_trajectories(kernel: StepKernel, trajectories, *, rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Release private trajectories for a batch of sensitive ones by sampling the exact step law.

    Vectorised over the batch (inverse-CDF sampling of ``kernel``'s rows); equal in law to running
    the online mechanism on each trajectory.

    Parameters
    ----------
    kernel : StepKernel
        From :func:`mechanism_kernel` or :func:`baseline_kernel`.
    trajectories : array_like of int, shape (m, T)
    rng : Generator, int or None

    Returns
    -------
    states : ndarray of int, shape (m, T)
    step_log_probs : ndarray, shape (m, T)
        log M(s'_t | s'_{t−1}, s_t) of each released step.

    Examples
    --------
    >>> K = mechanism_kernel([[0.9, 0.1], [0.2, 0.8]], epsilon=50.0, rho=1.0)
    >>> sample_trajectories(K, [[0, 1, 1], [1, 1, 0]], rng=0)[0].tolist()
    [[0, 1, 1], [1, 1, 0]]
    """
    if not isinstance(kernel, StepKernel):
        raise TypeError(f"kernel must be a StepKernel; got {type(kernel).__name__}")
    n = kernel.n
    traj = check_states(trajectories, "trajectories", n, ndim=(2,))
    gen = as_generator(rng)
    m, T = traj.shape
    out = np.empty((m, T), dtype=np.int64)
    logp = np.empty((m, T))
    rows = kernel.first[traj[:, 0]]
    idx = _inverse_cdf(rows, gen)
    out[:, 0] = idx
    logp[:, 0] = np.log(rows[np.arange(m), idx])
    for t in range(1, T):
        a = out[:, t - 1]
        rows = kernel.probs[a, traj[:, t]]
        j = _inverse_cdf(rows, gen)
        out[:, t] = kernel.feasible[a, j]
        logp[:, t] = np.log(rows[np.arange(m), j])
    return out, logp


def _inverse_cdf(rows: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    cdf = np.cumsum(rows, axis=1)
    u = (1.0 - gen.random(rows.shape[0]))[:, None] * cdf[:, -1:]  # u in (0, total]: zero-mass cells never hit
    return np.minimum((cdf < u).sum(axis=1), rows.shape[1] - 1)
