"""Edge-DP mechanisms for spectral clustering: randomized response, matrix shuffling, Analyze Gauss and
the noisy power method (Koskela, Seif, Poor & Goldsmith, arXiv:2510.07136).

Neighbouring graphs differ in one unordered pair {i, j} (edge DP). Each mechanism returns a frozen
result holding the private matrix or embedding and the (ε, δ) it spent. Randomized response and
Analyze Gauss densify the matrix (O(n²) memory, as the paper says); the noisy power method works on
the sparse adjacency with O(nk) extra memory. All dense work is vectorised over row chunks: there
is no Python loop over the n² entries.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..core.random import RNGLike, as_generator
from ..core.randomized_response import flip_probability
from ..core.validation import (
    check_adjacency,
    check_cells,
    check_delta,
    check_epsilon,
    check_int,
    check_matrix,
    check_real,
)
from .accounting import (
    Accountant,
    analyze_gauss_sigma,
    noisy_power_epsilon,
    noisy_power_sigma,
    shuffle_epsilon,
    shuffle_epsilon0,
)

__all__ = [
    "GraphRRResult",
    "MatrixShuffleResult",
    "AnalyzeGaussResult",
    "NoisyPowerResult",
    "randomized_response_graph",
    "debias",
    "matrix_shuffle",
    "analyze_gauss",
    "noisy_power_method",
    "MAX_DENSE_NODES",
    "MAX_ITERATIONS",
    "MAX_EMBEDDING_CELLS",
]

#: Largest vertex count of the dense releases (``randomized_response_graph``, ``matrix_shuffle``,
#: ``analyze_gauss``): they form an n×n matrix (512 MB of float64 at the cap; the benchmarks go to 5000).
MAX_DENSE_NODES = 8_000
#: Largest ``iterations`` L of :func:`noisy_power_method` (the paper uses L = O(log n)).
MAX_ITERATIONS = 10_000
#: Largest n·p of :func:`noisy_power_method`'s iterate X (n×p float64: 400 MB at the cap).
MAX_EMBEDDING_CELLS = 50_000_000

_CHUNK_ENTRIES = 1 << 22


def _chunk_rows(n: int) -> int:
    return max(1, _CHUNK_ENTRIES // max(n, 1))


def _mirror_upper(mat: np.ndarray) -> None:
    """In place: copy the strict upper triangle onto the lower one and zero the diagonal (chunked)."""
    n = mat.shape[0]
    b = _chunk_rows(n)
    for r0 in range(0, n, b):
        r1 = min(n, r0 + b)
        mat[r0:r1, :r0] = mat[:r0, r0:r1].T  # rows < r0 hold finished upper-triangular entries
        blk = mat[r0:r1, r0:r1]
        il = np.tril_indices(r1 - r0, -1)
        blk[il] = blk.T[il]
    np.fill_diagonal(mat, 0)


def _rr_dense(adj: sp.csr_array, mu: float, gen: np.random.Generator) -> np.ndarray:
    """Randomized response on every pair i < j of a sparse 0/1 matrix, mirrored; dense int8 output."""
    n = adj.shape[0]
    out = np.empty((n, n), dtype=np.int8)
    b = _chunk_rows(n)
    for r0 in range(0, n, b):
        r1 = min(n, r0 + b)
        flips = gen.random((r1 - r0, n)) < mu  # step 1: flip each pair with probability μ
        out[r0:r1] = np.logical_xor(adj[r0:r1].toarray() != 0, flips)
    _mirror_upper(out)  # only the upper triangle's draws are used; the diagonal stays 0
    return out


@dataclass(frozen=True)
class GraphRRResult:
    """Output of :func:`randomized_response_graph`.

    Attributes
    ----------
    matrix : ndarray of int8, shape (n, n)
        The released 0/1 matrix Ã (symmetric, zero diagonal).
    flip_probability : float
        μ = 1/(e^{ε0} + 1).
    epsilon : float
        ε0: randomized response on each pair is ε0-edge-DP (one edge is one pair).
    delta : float
        0.
    """

    matrix: np.ndarray
    flip_probability: float
    epsilon: float
    delta: float = 0.0

    def debiased(self) -> np.ndarray:
        """Â = (Ã − μ(J − I))/(1 − 2μ): unbiased for A (see :func:`debias`)."""
        return debias(self.matrix, self.flip_probability)


def randomized_response_graph(adjacency, *, epsilon0: float, rng: RNGLike = None) -> GraphRRResult:
    """Randomized response on every vertex pair: flip A_ij (i < j) with probability 1/(e^{ε0} + 1).

    Parameters
    ----------
    adjacency : array_like or sparse, shape (n, n)
        n ≤ ``MAX_DENSE_NODES`` (8000): the release is a dense n×n matrix.
        Symmetric 0/1 adjacency with zero diagonal.
    epsilon0 : float
        ε0 > 0 (``numpy.inf`` releases A unchanged, for limit checks).
    rng : Generator, int or None

    Returns
    -------
    GraphRRResult

    Examples
    --------
    >>> res = randomized_response_graph([[0, 1], [1, 0]], epsilon0=2.0, rng=0)
    >>> res.matrix.shape, res.epsilon, round(res.flip_probability, 4)
    ((2, 2), 2.0, 0.1192)
    """
    adj = check_adjacency(adjacency, "adjacency", max_nodes=MAX_DENSE_NODES)
    e0 = check_epsilon(epsilon0, "epsilon0", allow_inf=True)
    mu = flip_probability(e0)
    mat = _rr_dense(adj, mu, as_generator(rng))
    return GraphRRResult(matrix=mat, flip_probability=mu, epsilon=e0)


def debias(released, flip_prob: float) -> np.ndarray:
    """Debias randomized-response output: Â = (Ã − μ(J − I))/(1 − 2μ) (post-processing).

    E[Â] = A entrywise off the diagonal; the noise Â − A has independent entries (i < j) with mean 0
    and variance e^{ε0}/(e^{ε0} − 1)².

    Examples
    --------
    >>> debias(np.array([[0, 1], [1, 0]]), 0.25)
    array([[0. , 1.5],
           [1.5, 0. ]])
    """
    mu = check_real(flip_prob, "flip_prob", low=0.0, high=0.5, high_open=True)
    scale = 1.0 / (1.0 - 2.0 * mu)
    out = check_matrix(released, "released", square=True).copy()
    out *= scale
    out -= mu * scale
    np.fill_diagonal(out, 0.0)
    return out


@dataclass(frozen=True)
class MatrixShuffleResult:
    """Output of :func:`matrix_shuffle`.

    Attributes
    ----------
    matrix : ndarray of int8, shape (n, n)
        The released Ã_s = P Ã Pᵀ: randomized response, then vertices relabelled.
    permutation : ndarray of int, shape (n,)
        Shuffled vertex a is original vertex ``permutation[a]``. Kept for evaluation only (the
        experimenter holds P; a real release would not publish it).
    epsilon0, flip_probability : float
        Randomized response's ε0 and μ = 1/(e^{ε0} + 1).
    epsilon, delta : float
        The shuffled guarantee under ``accountant``.
    accountant : str
    """

    matrix: np.ndarray
    permutation: np.ndarray
    epsilon0: float
    flip_probability: float
    epsilon: float
    delta: float
    accountant: str

    def debiased(self) -> np.ndarray:
        """Step 3: Â = (Ã_s − μ(J − I))/(1 − 2μ), in the shuffled vertex order."""
        return debias(self.matrix, self.flip_probability)

    def unshuffle(self, values: np.ndarray) -> np.ndarray:
        """Map per-vertex values (labels, embedding rows) from shuffled order back to the original."""
        out = np.empty_like(values)
        out[self.permutation] = values
        return out


def matrix_shuffle(
    adjacency,
    *,
    epsilon: float | None = None,
    delta: float,
    epsilon0: float | None = None,
    accountant: Accountant = "none",
    rng: RNGLike = None,
) -> MatrixShuffleResult:
    """Matrix shuffling: randomized response on every pair, then a uniformly random vertex relabelling.

    Give either a target ``epsilon`` (ε0 is then the largest value the accountant allows at
    (ε, δ)) or ``epsilon0`` directly (ε is then what the accountant says it costs).

    Parameters
    ----------
    adjacency : array_like or sparse, shape (n, n)
        n ≤ ``MAX_DENSE_NODES`` (8000): the release is a dense n×n matrix.
    epsilon : float, optional
        Target ε > 0 of the shuffled release.
    delta : float
        δ in (0, 1) (1/n² is a common choice).
    epsilon0 : float, optional
        Randomized response's ε0 (instead of ``epsilon``).
    accountant : str or callable
        See :func:`dpexplore.spectral.shuffle_epsilon`.
    rng : Generator, int or None

    Returns
    -------
    MatrixShuffleResult

    Notes
    -----
    Step 1 [paper]: flip A_ij, i < j, with probability μ = 1/(e^{ε0} + 1); mirror; zero diagonal.
    Step 2 [paper]: Ã_s = P Ã Pᵀ with P uniform. The flips are i.i.d. over pairs, so permuting A first
    and flipping afterwards gives exactly the same output law; this implementation does that (it
    permutes the sparse matrix instead of the dense one).

    Examples
    --------
    >>> from dpexplore.spectral import sbm
    >>> A, _ = sbm(60, 2, 0.5, 0.1, rng=0)
    >>> r = matrix_shuffle(A, epsilon=1.0, delta=1e-4, rng=0)  # sound accounting: ε0 = ε
    >>> r.matrix.shape, r.epsilon0, r.accountant
    ((60, 60), 1.0, 'none')
    >>> r = matrix_shuffle(A, epsilon=1.0, delta=1e-4, accountant="fmt21_numerical", rng=0)  # our stand-in
    >>> r.epsilon <= 1.0 < r.epsilon0
    True
    """
    adj = check_adjacency(adjacency, "adjacency", max_nodes=MAX_DENSE_NODES)
    n = adj.shape[0]
    delta = check_delta(delta)
    if (epsilon is None) == (epsilon0 is None):
        raise TypeError("matrix_shuffle needs exactly one of epsilon (target) or epsilon0 (randomized response)")
    if epsilon0 is None:
        eps = check_epsilon(epsilon)
        e0 = shuffle_epsilon0(eps, n, delta, accountant=accountant)
        eps_spent = shuffle_epsilon(e0, n, delta, accountant=accountant)
    else:
        e0 = check_epsilon(epsilon0, "epsilon0")
        eps_spent = shuffle_epsilon(e0, n, delta, accountant=accountant)
    gen = as_generator(rng)
    perm = gen.permutation(n)  # step 2: shuffled vertex a is original vertex perm[a]
    permuted = adj[perm][:, perm]
    mu = flip_probability(e0)
    mat = _rr_dense(sp.csr_array(permuted), mu, gen)  # step 1 on the permuted graph (same law)
    name = accountant if isinstance(accountant, str) else getattr(accountant, "__name__", "custom")
    return MatrixShuffleResult(matrix=mat, permutation=perm, epsilon0=e0, flip_probability=mu, epsilon=eps_spent,
                               delta=delta, accountant=name)


@dataclass(frozen=True)
class AnalyzeGaussResult:
    """Output of :func:`analyze_gauss`.

    Attributes
    ----------
    matrix : ndarray of float, shape (n, n)
        A + E, E symmetric with E_ij ~ N(0, σ²) i.i.d. for i < j and zero diagonal.
    sigma : float
    epsilon, delta : float
    """

    matrix: np.ndarray
    sigma: float
    epsilon: float
    delta: float


def analyze_gauss(adjacency, *, epsilon: float, delta: float, rng: RNGLike = None,
                  _sigma_scale: float = 1.0) -> AnalyzeGaussResult:
    """Analyze Gauss under edge DP: release A + E with symmetric Gaussian noise.

    One edge changes one upper-triangular coordinate by 1 (ℓ2 sensitivity 1), so σ comes from the
    analytic Gaussian mechanism (Balle & Wang 2018), valid for every ε > 0. The graph has at most
    ``MAX_DENSE_NODES`` (8000) vertices: the release is a dense n×n matrix.

    Examples
    --------
    >>> r = analyze_gauss([[0, 1], [1, 0]], epsilon=1.0, delta=1e-5, rng=0)
    >>> round(r.sigma, 4), bool(np.allclose(r.matrix, r.matrix.T)), float(r.matrix[0, 0])
    (3.7306, True, 0.0)
    """
    adj = check_adjacency(adjacency, "adjacency", max_nodes=MAX_DENSE_NODES)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    sigma = analyze_gauss_sigma(eps, delta) * _sigma_scale  # _sigma_scale: only spectral.audit's broken variant
    return AnalyzeGaussResult(matrix=_gauss_release(adj, sigma, as_generator(rng)), sigma=sigma, epsilon=eps,
                              delta=delta)


def _gauss_release(adj: sp.csr_array, sigma: float, gen: np.random.Generator) -> np.ndarray:
    """A + E, E symmetric with E_ij ~ N(0, σ²) i.i.d. for i < j and zero diagonal."""
    n = adj.shape[0]
    mat = np.empty((n, n))
    gen.standard_normal(out=mat)
    mat *= sigma
    _mirror_upper(mat)  # E symmetric, E_ij for i < j independent, zero diagonal
    coo = adj.tocoo()
    mat[coo.row, coo.col] += coo.data  # + A
    return mat


@dataclass(frozen=True)
class NoisyPowerResult:
    """Output of :func:`noisy_power_method`.

    Attributes
    ----------
    embedding : ndarray, shape (n, p)
        X_L, orthonormal columns.
    sigma : float
        Noise multiplier: step ℓ adds N(0, (Δ_ℓ σ)²) entrywise.
    sensitivities : ndarray, shape (L,)
        Δ_ℓ = √2 · max row norm of X_{ℓ−1}.
    epsilon, delta : float
        Spent, by zCDP composition of the L steps (ρ = Σ Δ_ℓ²/(2(Δ_ℓσ)²) = L/(2σ²)).
    iterations : int
    """

    embedding: np.ndarray
    sigma: float
    sensitivities: np.ndarray
    epsilon: float
    delta: float
    iterations: int


def noisy_power_method(
    adjacency,
    *,
    k: int,
    epsilon: float,
    delta: float,
    iterations: int = 10,
    p: int | None = None,
    rng: RNGLike = None,
    _sensitivity: Callable[[np.ndarray], float] | None = None,
) -> NoisyPowerResult:
    """The noisy power method (Hardt & Price 2014) under edge DP, on the sparse adjacency.

    X_0: random n×p orthonormal. For ℓ = 1..L: Y_ℓ = A X_{ℓ−1} + G_ℓ with
    G_ℓ ~ N(0, (Δ_ℓ σ)²) entrywise, X_ℓ = QR(Y_ℓ). Adding or removing edge {i, j} changes row i of
    A X by X_j and row j by X_i, so the ℓ2 sensitivity is at most Δ_ℓ = √2 · max row norm of X_{ℓ−1}
    (X_{ℓ−1} is already private, so Δ_ℓ is too).

    Parameters
    ----------
    adjacency : array_like or sparse, shape (n, n)
        n·p ≤ ``MAX_EMBEDDING_CELLS`` (5·10⁷).
    k : int
        Number of eigenvectors wanted (1 ≤ k ≤ n).
    epsilon, delta : float
        Total budget; each step gets ρ/L of ρ = ``dp_to_zcdp(ε, δ)``.
    iterations : int
        1 ≤ L ≤ ``MAX_ITERATIONS`` = 10 000 (the spec's experiments use 10; theory asks
        L ≈ C·λ_k/(λ_k − λ_{k+1})·log n).
    p : int, optional
        Block size p ≥ k (default k).
    rng : Generator, int or None

    Returns
    -------
    NoisyPowerResult

    Examples
    --------
    >>> from dpexplore.spectral import sbm
    >>> A, _ = sbm(100, 2, 0.5, 0.05, rng=0)
    >>> r = noisy_power_method(A, k=2, epsilon=1.0, delta=1e-4, rng=0)
    >>> r.embedding.shape, round(r.epsilon, 6), r.sensitivities.shape
    ((100, 2), 1.0, (10,))
    """
    adj = check_adjacency(adjacency, "adjacency")
    n = adj.shape[0]
    k = check_int(k, "k", low=1, high=n)
    p = k if p is None else check_int(p, "p", low=k, high=n)
    check_cells(MAX_EMBEDDING_CELLS, n=n, p=p)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    L = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    sigma = noisy_power_sigma(eps, delta, L)
    # _sensitivity: only spectral.audit's broken variant injects a wrong Δ_ℓ rule
    return _noisy_power_run(adj, k=k, p=p, sigma=sigma, iterations=L, delta=delta, gen=as_generator(rng),
                            sensitivity=_power_step_sensitivity if _sensitivity is None else _sensitivity)


def _power_step_sensitivity(x: np.ndarray) -> float:
    """Δ_ℓ = √2 · max row norm of X_{ℓ−1}: edge {i, j} moves row i of A X by X_j and row j by X_i."""
    return math.sqrt(2.0) * float(np.sqrt((x * x).sum(axis=1)).max())


def _power_step(adj, x: np.ndarray, scale: float, gen: np.random.Generator, reps: int | None = None) -> np.ndarray:
    """One noisy power step's release Y = A X + G, G ~ N(0, scale²) entrywise (``reps`` independent draws
    stacked on a leading axis when given: the audit samples the step in bulk through this same code)."""
    ax = adj @ x
    shape = ax.shape if reps is None else (reps, *ax.shape)
    return ax + gen.standard_normal(shape) * scale


def _noisy_power_run(adj, *, k: int, p: int, sigma: float, iterations: int, delta: float,
                     gen: np.random.Generator, sensitivity) -> NoisyPowerResult:
    """The loop of :func:`noisy_power_method` with a pluggable sensitivity rule (the broken variants swap it)."""
    n = adj.shape[0]
    L = iterations
    x, _ = np.linalg.qr(gen.standard_normal((n, p)))  # X_0: data independent
    sens = np.empty(L)
    for ell in range(L):
        sens[ell] = sensitivity(x)  # Δ_ℓ
        y = _power_step(adj, x, sens[ell] * sigma, gen)  # Y_ℓ = A X_{ℓ−1} + G_ℓ
        x, _ = sla.qr(y, mode="economic")  # X_ℓ = QR(Y_ℓ)
    spent = noisy_power_epsilon(sigma, L, delta)
    return NoisyPowerResult(embedding=x, sigma=sigma, sensitivities=sens, epsilon=spent, delta=delta, iterations=L)
