"""Spectral clustering on private releases, a small k-means++, and the private spectral-gap estimate of k."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..core.random import RNGLike, as_generator
from ..core.validation import check_adjacency, check_choice, check_delta, check_epsilon, check_int, check_matrix
from .accounting import Accountant, rr_noise_variance
from .mechanisms import MatrixShuffleResult, analyze_gauss, matrix_shuffle, noisy_power_method

__all__ = [
    "MECHANISMS",
    "KMeansResult",
    "kmeans",
    "top_eigenpairs",
    "SpectralClusteringResult",
    "spectral_clustering",
    "private_spectral_clustering",
    "KEstimate",
    "estimate_k",
    "estimate_k_from_release",
    "MAX_N_INIT",
    "MAX_KMEANS_ITER",
]

MECHANISMS = ("shuffle", "analyze_gauss", "noisy_power")
#: Largest ``n_init`` (restarts) and ``max_iter`` (Lloyd iterations) of :func:`kmeans`.
MAX_N_INIT = 1_000
MAX_KMEANS_ITER = 100_000
_DENSE_EIGH_MAX_N = 300  # below this a dense subset eigh is as fast as ARPACK and needs no start vector


# -- k-means ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KMeansResult:
    """Output of :func:`kmeans`: labels (n,), centers (k, d), inertia (sum of squared distances)."""

    labels: np.ndarray
    centers: np.ndarray
    inertia: float


def _sq_dists(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = (x * x).sum(1)[:, None] - 2.0 * x @ c.T + (c * c).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _kmeanspp(x: np.ndarray, k: int, gen: np.random.Generator) -> np.ndarray:
    n = x.shape[0]
    centers = np.empty((k, x.shape[1]))
    centers[0] = x[gen.integers(n)]
    d2 = ((x - centers[0]) ** 2).sum(1)
    for j in range(1, k):
        total = d2.sum()
        idx = gen.integers(n) if total <= 0 else gen.choice(n, p=d2 / total)  # D² sampling
        centers[j] = x[idx]
        d2 = np.minimum(d2, ((x - centers[j]) ** 2).sum(1))
    return centers


def kmeans(x, k: int, *, n_init: int = 4, max_iter: int = 100, rng: RNGLike = None) -> KMeansResult:
    """Lloyd's k-means with k-means++ seeding (Arthur & Vassilvitskii 2007), best of ``n_init`` runs.

    Parameters
    ----------
    x : array_like, shape (n, d)
    k : int
        1 ≤ k ≤ n.
    n_init : int
        Restarts, in [1, ``MAX_N_INIT`` = 1000]; the run with the smallest inertia wins.
    max_iter : int
        Lloyd iterations per restart, in [1, ``MAX_KMEANS_ITER`` = 100 000].
    rng : Generator, int or None
        Drives the seeding (the only random step).

    Examples
    --------
    >>> pts = np.array([[0.0, 0], [0, 0.1], [5, 5], [5, 5.1]])
    >>> kmeans(pts, 2, rng=0).labels.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    arr = check_matrix(x, "x")
    n = arr.shape[0]
    k = check_int(k, "k", low=1, high=n)
    n_init = check_int(n_init, "n_init", low=1, high=MAX_N_INIT)
    max_iter = check_int(max_iter, "max_iter", low=1, high=MAX_KMEANS_ITER)
    gen = as_generator(rng)
    best = None
    for _ in range(n_init):
        centers = _kmeanspp(arr, k, gen)
        labels = np.full(n, -1)
        for _ in range(max_iter):
            d = _sq_dists(arr, centers)
            new = d.argmin(1)
            if np.array_equal(new, labels):
                break
            labels = new
            counts = np.bincount(labels, minlength=k)
            sums = np.zeros_like(centers)
            np.add.at(sums, labels, arr)
            empty = counts == 0
            centers = np.where(empty[:, None], centers, sums / np.maximum(counts, 1)[:, None])
            if empty.any():  # re-seed an empty cluster at the point farthest from its centre
                far = np.argsort(d[np.arange(n), labels])[::-1][: int(empty.sum())]
                centers[empty] = arr[far]
        inertia = float(_sq_dists(arr, centers)[np.arange(n), labels].sum())
        if best is None or inertia < best.inertia:
            best = KMeansResult(labels=labels, centers=centers, inertia=inertia)
    return best


# -- eigenvectors ------------------------------------------------------------------------------------
def _check_symmetric(matrix) -> None:
    """ValueError unless max |M − Mᵀ| ≤ 64·n·eps·max |M| (rounding of a symmetric computation)."""
    n = matrix.shape[0]
    if sp.issparse(matrix):
        m = sp.csr_array(matrix, dtype=float)
        scale = float(abs(m).max()) if m.nnz else 0.0
        diff = m - m.T
        asym = float(abs(diff).max()) if diff.nnz else 0.0
    else:
        scale = float(np.max(np.abs(matrix))) if matrix.size else 0.0
        asym = float(np.max(np.abs(matrix - matrix.T))) if matrix.size else 0.0
    tol = 64.0 * n * np.finfo(float).eps * scale
    if asym > tol:
        raise ValueError(f"matrix must be symmetric (up to rounding, max |M - M^T| <= {tol:.3g}); "
                         f"got max |M - M^T| = {asym:.3g}")


def top_eigenpairs(matrix, k: int, *, rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """The k largest (algebraic) eigenvalues, descending, and their eigenvectors, of a symmetric matrix.

    Never a full decomposition: ``scipy.linalg.eigh(subset_by_index=...)`` for small dense matrices,
    ARPACK (``eigsh``, start vector drawn from ``rng`` for reproducibility) otherwise. ``matrix`` may be
    dense, sparse or a ``LinearOperator``. A dense or sparse ``matrix`` must be symmetric up to
    rounding — max |M − Mᵀ| ≤ 64·n·eps·max |M| (eps = 2⁻⁵², the float64 unit roundoff; a product
    such as X Xᵀ differs from its transpose by at most ~n·eps·max |M| per entry) — otherwise a
    ``ValueError``: ``eigh``/``eigsh`` read one triangle only and would return a wrong answer. A
    ``LinearOperator`` is trusted to be symmetric.

    Examples
    --------
    >>> vals, vecs = top_eigenpairs(np.diag([1.0, 3.0, 2.0]), 2, rng=0)
    >>> vals.tolist(), vecs.shape
    ([3.0, 2.0], (3, 2))
    """
    if isinstance(matrix, spla.LinearOperator) or sp.issparse(matrix):
        if len(matrix.shape) != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 1:
            raise ValueError(f"matrix must be a non-empty square matrix or operator; got shape {matrix.shape}")
        if sp.issparse(matrix):
            if matrix.dtype == object or np.iscomplexobj(matrix) or not (
                    np.issubdtype(matrix.dtype, np.number) or matrix.dtype == bool):
                raise TypeError(f"matrix must be a real (not complex) matrix; got sparse dtype {matrix.dtype}")
            if not np.all(np.isfinite(matrix.data)):
                raise ValueError("matrix must contain only finite numbers")
    else:
        matrix = check_matrix(matrix, "matrix", square=True)
    if not isinstance(matrix, spla.LinearOperator):
        _check_symmetric(matrix)
    n = matrix.shape[0]
    k = check_int(k, "k", low=1, high=n)
    dense_ok = not isinstance(matrix, spla.LinearOperator)
    if dense_ok and (n <= _DENSE_EIGH_MAX_N or k >= n - 1):
        m = matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix, dtype=float)
        vals, vecs = sla.eigh(m, subset_by_index=[n - k, n - 1])
    else:
        v0 = as_generator(rng).standard_normal(n)
        ncv = min(n, max(2 * k + 1, 40))  # a wider Krylov space converges faster on noisy spectra
        vals, vecs = spla.eigsh(matrix, k=k, which="LA", v0=v0, ncv=ncv, tol=1e-8)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order]


# -- clustering --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpectralClusteringResult:
    """Output of :func:`private_spectral_clustering` / :func:`spectral_clustering`.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Cluster of each vertex, in the ORIGINAL vertex order (shuffling undone for evaluation).
    embedding : ndarray, shape (n, k)
        The spectral embedding k-means ran on, original vertex order.
    eigenvalues : ndarray, shape (k,)
        Top-k eigenvalues of the released matrix (NaN for the noisy power method: no matrix released).
    mechanism : str
    epsilon, delta : float
        Privacy actually spent (``inf``/0 for the non-private baseline).
    diagnostics : mapping
        Mechanism details: ``epsilon0``/``flip_probability`` (shuffle), ``sigma`` (Gaussian ones),
        ``sensitivities`` (noisy power), ``seconds`` (wall time of mechanism + eigensolve + k-means).
    """

    labels: np.ndarray
    embedding: np.ndarray
    eigenvalues: np.ndarray
    mechanism: str
    epsilon: float
    delta: float
    diagnostics: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))


def spectral_clustering(adjacency, k: int, *, n_init: int = 4, rng: RNGLike = None) -> SpectralClusteringResult:
    """Non-private baseline: k-means on the top-k eigenvectors of A (steps 4–5 without noise).

    Examples
    --------
    >>> from dpexplore.spectral import sbm, misclassification_rate
    >>> A, z = sbm(120, 3, 0.5, 0.05, rng=0)
    >>> misclassification_rate(z, spectral_clustering(A, 3, rng=0).labels)
    0.0
    """
    return private_spectral_clustering(adjacency, k, mechanism="none", epsilon=math.inf, delta=0.0,
                                       n_init=n_init, rng=rng)


def private_spectral_clustering(
    adjacency,
    k: int,
    *,
    mechanism: str,
    epsilon: float,
    delta: float,
    accountant: Accountant = "none",
    iterations: int = 10,
    n_init: int = 4,
    rng: RNGLike = None,
) -> SpectralClusteringResult:
    """Edge-DP spectral clustering: a private release, its top-k eigenvectors, then k-means.

    Parameters
    ----------
    adjacency : array_like or sparse, shape (n, n)
        Symmetric 0/1 adjacency, zero diagonal.
    k : int
        Number of clusters (1 ≤ k < n).
    mechanism : {"shuffle", "analyze_gauss", "noisy_power", "none"}
        ``"shuffle"``: matrix shuffling, debiased (steps 1–3), eigenvectors of Â, labels mapped back
        through the permutation (step 6). ``"analyze_gauss"``: A + E. ``"noisy_power"``: X_L of the
        noisy power method. ``"none"``: the non-private baseline (ε = ∞).
    epsilon : float
        Target ε > 0 (ignored for ``"none"``).
    delta : float
        δ in (0, 1) (ignored for ``"none"``).
    accountant : str or callable
        Shuffle accountant (see :func:`dpexplore.spectral.shuffle_epsilon`).
    iterations : int
        L for the noisy power method.
    n_init : int
        k-means restarts.
    rng : Generator, int or None
        One stream drives the mechanism, the eigensolver's start vector and the k-means seeding.

    Returns
    -------
    SpectralClusteringResult

    Examples
    --------
    >>> from dpexplore.spectral import sbm, misclassification_rate
    >>> A, z = sbm(300, 3, 0.3, 0.05, rng=0)
    >>> res = private_spectral_clustering(A, 3, mechanism="shuffle", epsilon=4.0, delta=1e-5, rng=0)
    >>> res.labels.shape, res.epsilon <= 4.0, misclassification_rate(z, res.labels) < 0.05
    ((300,), True, True)
    """
    adj = check_adjacency(adjacency, "adjacency")
    n = adj.shape[0]
    k = check_int(k, "k", low=1, high=n - 1)
    mechanism = check_choice(mechanism, "mechanism", (*MECHANISMS, "none"))
    if mechanism != "none":
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
    gen = as_generator(rng)
    t0 = time.perf_counter()
    diag: dict[str, Any] = {}
    if mechanism == "noisy_power":
        res = noisy_power_method(adj, k=k, epsilon=epsilon, delta=delta, iterations=iterations, rng=gen)
        emb, vals = res.embedding[:, :k], np.full(k, np.nan)
        spent = (res.epsilon, res.delta)
        diag.update(sigma=res.sigma, sensitivities=res.sensitivities, iterations=res.iterations)
    elif mechanism == "analyze_gauss":
        res = analyze_gauss(adj, epsilon=epsilon, delta=delta, rng=gen)
        vals, emb = top_eigenpairs(res.matrix, k, rng=gen)
        spent = (res.epsilon, res.delta)
        diag.update(sigma=res.sigma)
    elif mechanism == "shuffle":
        res = matrix_shuffle(adj, epsilon=epsilon, delta=delta, accountant=accountant, rng=gen)
        vals, emb_s = top_eigenpairs(res.debiased(), k, rng=gen)  # steps 3–4
        emb = res.unshuffle(emb_s)  # step 6 (evaluation only): back to the original vertex order
        spent = (res.epsilon, res.delta)
        diag.update(epsilon0=res.epsilon0, flip_probability=res.flip_probability, accountant=res.accountant,
                    permutation=res.permutation)
    else:
        vals, emb = top_eigenpairs(adj, k, rng=gen)
        spent = (math.inf, 0.0)
    labels = kmeans(emb, k, n_init=n_init, rng=gen).labels  # step 5
    diag["seconds"] = time.perf_counter() - t0
    return SpectralClusteringResult(labels=labels, embedding=emb, eigenvalues=np.asarray(vals), mechanism=mechanism,
                                    epsilon=spent[0], delta=spent[1], diagnostics=MappingProxyType(diag))


# -- estimating k ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KEstimate:
    """Output of :func:`estimate_k`.

    Attributes
    ----------
    k : int
        The estimate k̂.
    eigenvalues : ndarray, shape (k_max + 1,)
        λ̂_1 ≥ … ≥ λ̂_{k_max+1} of M = ΠÂΠ (Π = I − 11ᵀ/n).
    gaps : ndarray, shape (k_max,)
        λ̂_j − λ̂_{j+1}.
    bulk_edge : float
        2√(n(p̂(1 − p̂) + e^{ε0}/(e^{ε0} − 1)²)), p̂ the debiased edge density (post-processing).
    method : str
    epsilon0, epsilon, delta : float
        Of the shuffled release it used (no extra cost: post-processing).
    """

    k: int
    eigenvalues: np.ndarray
    gaps: np.ndarray
    bulk_edge: float
    method: str
    epsilon0: float
    epsilon: float
    delta: float


def estimate_k_from_release(release: MatrixShuffleResult, *, k_max: int, method: str = "gap",
                            rng: RNGLike = None) -> KEstimate:
    """The spectral-gap estimate of k from an existing matrix-shuffling release (post-processing).

    [reconstruction] Debias, project out the all-ones direction (M = ΠÂΠ), take λ̂_1 ≥ … ≥ λ̂_{k_max+1}.
    ``"gap"``: j* = argmax_j (λ̂_j − λ̂_{j+1}), k̂ = j* + 1 — a balanced k-block SBM has k − 1 outlier
    eigenvalues once 1 is projected out (its top eigenvector is 1). ``"bulk"``: k̂ = 1 + #{λ̂_j > bulk edge}.

    Examples
    --------
    >>> from dpexplore.spectral import sbm
    >>> A, _ = sbm(300, 3, 0.4, 0.05, rng=1)
    >>> rel = matrix_shuffle(A, epsilon=2.0, delta=1e-5, rng=0)
    >>> estimate_k_from_release(rel, k_max=8, rng=0).k
    3
    """
    if not isinstance(release, MatrixShuffleResult):
        raise TypeError(f"release must be a MatrixShuffleResult; got {type(release).__name__}")
    method = check_choice(method, "method", ("gap", "bulk"))
    a_hat = release.debiased()
    n = a_hat.shape[0]
    k_max = check_int(k_max, "k_max", low=1, high=n - 2)

    def matvec(v):
        v = np.asarray(v, dtype=float).reshape(n, -1)
        w = v - v.mean(axis=0)
        u = a_hat @ w
        return u - u.mean(axis=0)

    op = spla.LinearOperator((n, n), matvec=matvec, matmat=matvec, dtype=float)
    if n <= _DENSE_EIGH_MAX_N:
        vals, _ = top_eigenpairs(matvec(np.eye(n)), k_max + 1)
    else:
        vals, _ = top_eigenpairs(op, k_max + 1, rng=rng)
    gaps = vals[:-1] - vals[1:]
    p_hat = float(np.clip(a_hat.sum() / (n * (n - 1)), 0.0, 1.0))
    edge = 2.0 * math.sqrt(n * (p_hat * (1 - p_hat) + rr_noise_variance(release.epsilon0)))
    if method == "gap":
        k_hat = int(np.argmax(gaps)) + 2  # j* (1-based) + 1
    else:
        k_hat = 1 + int(np.sum(vals > edge))
    return KEstimate(k=min(k_hat, k_max), eigenvalues=vals, gaps=gaps, bulk_edge=edge, method=method,
                     epsilon0=release.epsilon0, epsilon=release.epsilon, delta=release.delta)


def estimate_k(
    adjacency,
    *,
    epsilon: float,
    delta: float,
    k_max: int,
    method: str = "gap",
    accountant: Accountant = "none",
    rng: RNGLike = None,
) -> KEstimate:
    """Private estimate of the number of clusters from a matrix-shuffling release.

    Runs :func:`~dpexplore.spectral.matrix_shuffle` at (ε, δ) and applies
    :func:`estimate_k_from_release`; reusing a release you already made costs nothing extra.

    Parameters
    ----------
    adjacency : array_like or sparse, shape (n, n)
    epsilon, delta : float
    k_max : int
        Largest k considered (1 ≤ k_max ≤ n − 2).
    method : {"gap", "bulk"}
    accountant : str or callable
    rng : Generator, int or None

    Returns
    -------
    KEstimate
        ``.k`` is k̂ (between 2 and k_max for ``"gap"``; ``"bulk"`` can return 1).

    Examples
    --------
    >>> from dpexplore.spectral import sbm
    >>> A, _ = sbm(300, 3, 0.4, 0.05, rng=1)
    >>> estimate_k(A, epsilon=2.0, delta=1e-5, k_max=8, rng=0).k
    3
    """
    adj = check_adjacency(adjacency, "adjacency")
    gen = as_generator(rng)
    release = matrix_shuffle(adj, epsilon=epsilon, delta=delta, accountant=accountant, rng=gen)
    return estimate_k_from_release(release, k_max=k_max, method=method, rng=gen)
