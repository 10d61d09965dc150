"""Test matrices for private PCA with a chosen eigengap and coherence.

Definitions used throughout :mod:`dpexplore.pca` (rows of ``A`` are individuals):

* **Eigengap** κ = (σ1² − σ2²)/σ1², with σ1 ≥ σ2 the two largest singular values of ``A``.
* **Coherence** [reconstruction] Υ(A) = max_i |⟨a_i, v1⟩| / σ1 = ‖u1‖_∞, the largest entry (in absolute
  value) of the top *left* singular vector u1 = A v1/σ1. It lies in [1/√n, 1]: Υ = 1/√n when every row
  carries the same share of the top direction (incoherent, "spread"), Υ = 1 when one row carries all of
  it (coherent). This is the "max entry of the singular vector" reading of the paper's Υ; it makes
  σ1²Υ² = max_i ⟨a_i, v1⟩², the squared contribution of the most influential row at convergence, which
  is the quantity the paper's Theorem 1.1 pays for instead of the worst-case row norm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_int, check_matrix, check_real, check_vector

__all__ = ["PCAData", "make_matrix", "spiked_gaussian", "coherence", "top_singular", "MAX_ENTRY", "MAX_CELLS",
           "MAX_D"]

MAX_ENTRY = 1e100  # |A_ij| bound: squares, Gram matrices and scores ‖a‖·|⟨a, x⟩| stay finite
MAX_CELLS = 50_000_000  # n·d bound of the generators (memory: 400 MB of float64)
MAX_D = 5_000  # d bound of make_matrix: it forms the d×d Gram matrix BᵀB (200 MB at the cap)


def _check_data(A, name: str = "A") -> np.ndarray:
    """check_matrix plus a magnitude bound (larger entries overflow AᵀA and the row scores)."""
    A = check_matrix(A, name)
    big = float(np.max(np.abs(A), initial=0.0))
    if big > MAX_ENTRY:
        raise ValueError(f"{name} must have entries of absolute value <= {MAX_ENTRY:g} (larger ones overflow AᵀA and "
                         f"the scores ‖a‖·|⟨a, x⟩|; rescale the data); got {big:g}")
    return A


def _check_size(n: int, d: int) -> None:
    if n * d > MAX_CELLS:
        raise ValueError(f"n*d must be <= {MAX_CELLS:,} (memory); got n = {n}, d = {d}")


@dataclass(frozen=True)
class PCAData:
    """A test matrix and its known truth.

    Attributes
    ----------
    A : ndarray, shape (n, d)
        The data (rows = individuals). Rows have ℓ2 norm ≤ 1 for :func:`make_matrix`.
    v1 : ndarray, shape (d,)
        The direction to recover (top right singular vector of ``A`` for :func:`make_matrix`; the top
        eigenvector of the population covariance for :func:`spiked_gaussian`).
    sigma1, sigma2 : float
        The two largest singular values of ``A`` (:func:`make_matrix`) or the square roots of the two
        largest population eigenvalues λ1, λ2 of the row covariance (:func:`spiked_gaussian`).
    eigengap : float
        κ = (σ1² − σ2²)/σ1².
    coherence : float
        Υ as defined in the module docstring (of ``A`` itself, measured).
    kind : str
        ``"deterministic"`` or ``"gaussian"``.
    """

    A: np.ndarray
    v1: np.ndarray
    sigma1: float
    sigma2: float
    eigengap: float
    coherence: float
    kind: str

    @property
    def n(self) -> int:
        return int(self.A.shape[0])

    @property
    def d(self) -> int:
        return int(self.A.shape[1])


def top_singular(A: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Top right singular vector v1 and the two largest singular values (σ1, σ2) of ``A``.

    Uses the d×d Gram matrix AᵀA and ``scipy.linalg.eigh`` restricted to the top two eigenpairs.

    Examples
    --------
    >>> v, s1, s2 = top_singular(np.diag([3.0, 1.0]))
    >>> float(abs(v[0])), round(s1, 6), round(s2, 6)
    (1.0, 3.0, 1.0)
    """
    from scipy import linalg

    A = _check_data(A, "A")
    d = A.shape[1]
    gram = A.T @ A
    if d == 1:
        return np.ones(1), float(math.sqrt(max(gram[0, 0], 0.0))), 0.0
    w, V = linalg.eigh(gram, subset_by_index=[d - 2, d - 1])
    return V[:, 1], float(math.sqrt(max(w[1], 0.0))), float(math.sqrt(max(w[0], 0.0)))


def coherence(A: np.ndarray, v1: np.ndarray | None = None) -> float:
    """Coherence Υ(A) = max_i |⟨a_i, v1⟩| / σ1 (see the module docstring) [reconstruction].

    Parameters
    ----------
    A : ndarray, shape (n, d)
    v1 : ndarray, shape (d,), optional
        Direction to measure against; default: the top right singular vector of ``A`` (then
        σ1 = ‖A v1‖ and the result is ‖u1‖_∞ ∈ [1/√n, 1]).

    Returns
    -------
    float

    Examples
    --------
    >>> round(coherence(np.ones((4, 3))), 6)  # every row the same: perfectly spread, 1/sqrt(4)
    0.5
    >>> coherence(np.array([[1.0, 0.0], [0.0, 0.1], [0.0, 0.1]]))  # one row carries v1
    1.0
    """
    A = _check_data(A, "A")
    if v1 is None:
        v1, _, _ = top_singular(A)
    v = check_vector(v1, "v1")
    if v.size != A.shape[1] or not np.linalg.norm(v) > 0:
        raise ValueError(f"v1 must be a non-zero vector with d = {A.shape[1]} entries; got {v.size} entries"
                         + (" (all zero)" if v.size == A.shape[1] else ""))
    v = v / np.linalg.norm(v)
    proj = A @ v
    s1 = float(np.linalg.norm(proj))
    if s1 == 0.0:
        return float("nan")
    return float(np.max(np.abs(proj)) / s1)


def make_matrix(
    n: int,
    d: int,
    *,
    eigengap: float,
    coherence: float | None = None,
    rng: RNGLike = None,
) -> PCAData:
    """Deterministic-style input A = σ1 u1 v1ᵀ + B with set eigengap and coherence, rows of norm ≤ 1.

    Construction [reconstruction]: v1 is a uniformly random unit vector of R^d; the top left singular
    vector u1 has ±1/√s on s = round(1/Υ²) random rows and 0 elsewhere, so its coherence is exactly
    1/√s ≈ Υ; the tail B is an n×d Gaussian matrix projected onto u1's orthogonal complement (left)
    and v1's (right), so AᵀA = σ1² v1v1ᵀ + BᵀB and v1 is exactly the top right singular vector; B is
    scaled so that its largest singular value is σ2 = σ1 √(1 − κ), which makes κ exact (the tail
    spectrum has the Marchenko–Pastur shape of a Gaussian matrix). Finally A is scaled so that its
    largest row norm is 1 (the bounded-row model of Dwork, Talwar, Thakurta & Zhang 2014, so clipping
    in the worst-case baselines changes nothing).

    With incoherent u1 every row has about the same norm and the top direction is a small share of
    each row when d is large: the contributions ‖a‖·|⟨a, v1⟩| are then much smaller than the row-norm
    bound 1, which is where the adaptive filter gains. As Υ grows, v1 is carried by fewer rows with
    larger contributions; past Υ ≈ 1/σ1 those rows hit the norm bound and the whole matrix shrinks.

    Parameters
    ----------
    n, d : int
        Rows (individuals) and columns, n ≥ 2, 2 ≤ d ≤ ``MAX_D`` (5000), n·d ≤ ``MAX_CELLS`` (5·10⁷).
    eigengap : float
        κ in (0, 1].
    coherence : float, optional
        Target Υ in [1/√n, 1]; default 1/√n (fully spread).
    rng : Generator, int or None

    Returns
    -------
    PCAData

    Raises
    ------
    ValueError
        If Υ is outside [1/√n, 1] or κ outside (0, 1].

    Examples
    --------
    >>> data = make_matrix(100, 10, eigengap=0.5, coherence=0.2, rng=0)
    >>> data.A.shape, round(data.eigengap, 6), round(data.coherence, 6)
    ((100, 10), 0.5, 0.2)
    >>> bool(np.max(np.linalg.norm(data.A, axis=1)) <= 1 + 1e-12)
    True
    """
    from scipy import linalg

    n = check_int(n, "n", low=2)
    d = check_int(d, "d", low=2, high=MAX_D)
    kappa = check_real(eigengap, "eigengap", low=0.0, high=1.0, low_open=True)
    floor = 1.0 / math.sqrt(n)
    _check_size(n, d)
    ups = floor if coherence is None else check_real(coherence, "coherence", low=0.0, high=1.0, low_open=True)
    if ups < floor * (1 - 1e-9):
        raise ValueError(f"coherence must be a number in [1/sqrt(n), 1] = [{floor:.4g}, 1] for n={n}; got {ups!r}")
    gen = as_generator(rng)
    s = int(min(n, max(1, round(1.0 / ups**2))))
    u1 = np.zeros(n)
    u1[gen.choice(n, size=s, replace=False)] = gen.choice([-1.0, 1.0], size=s) / math.sqrt(s)
    v1 = gen.standard_normal(d)
    v1 /= np.linalg.norm(v1)
    B = gen.standard_normal((n, d))
    B -= np.outer(u1, u1 @ B)  # left: orthogonal to u1
    B -= np.outer(B @ v1, v1)  # right: orthogonal to v1
    top = float(linalg.eigh(B.T @ B, eigvals_only=True, subset_by_index=[d - 1, d - 1])[0])
    sigma2 = math.sqrt(1.0 - kappa)  # with σ1 = 1 before the final scaling
    B *= sigma2 / math.sqrt(top) if top > 0 else 0.0
    A = np.outer(u1, v1) + B
    scale = 1.0 / float(np.max(np.linalg.norm(A, axis=1)))
    A *= scale
    s1, s2 = scale, scale * sigma2
    return PCAData(A=A, v1=v1, sigma1=s1, sigma2=s2, eigengap=(s1**2 - s2**2) / s1**2,
                   coherence=1.0 / math.sqrt(s), kind="deterministic")


def spiked_gaussian(
    n: int,
    d: int,
    *,
    eigengap: float,
    rng: RNGLike = None,
    trace: float = 1.0,
) -> PCAData:
    """i.i.d. rows a_i ~ N(0, Σ²) with a spiked covariance (the setting of Theorem 1.2).

    Σ² = λ1 v1 v1ᵀ + λ2 (I − v1 v1ᵀ) with λ2 = (1 − κ) λ1 and trace λ1 + (d − 1) λ2 = ``trace``, so
    E‖a_i‖² = ``trace`` (default 1: rows of norm ≈ 1, the normalisation under which the paper's rate
    is stated [reconstruction]). ``sigma1 = √λ1``, ``sigma2 = √λ2``; ``v1`` is the population direction.

    Rows are not bounded: the adaptive method needs no bound, the worst-case baselines clip at 1.

    Examples
    --------
    >>> data = spiked_gaussian(500, 20, eigengap=0.9, rng=0)
    >>> data.A.shape, round(data.sigma1**2 + 19 * data.sigma2**2, 12)
    ((500, 20), 1.0)
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=2)
    kappa = check_real(eigengap, "eigengap", low=0.0, high=1.0, low_open=True)
    tr = check_real(trace, "trace", low=0.0, high=1e100, low_open=True)
    _check_size(n, d)
    gen = as_generator(rng)
    v1 = gen.standard_normal(d)
    v1 /= np.linalg.norm(v1)
    lam1 = tr / (1.0 + (d - 1) * (1.0 - kappa))
    lam2 = (1.0 - kappa) * lam1
    # a = √λ2 g + (√λ1 − √λ2) ⟨g, v1⟩ v1 has covariance λ2 I + (λ1 − λ2) v1 v1ᵀ.
    z = gen.standard_normal((n, d))
    A = math.sqrt(lam2) * z + (math.sqrt(lam1) - math.sqrt(lam2)) * np.outer(z @ v1, v1)
    return PCAData(A=A, v1=v1, sigma1=math.sqrt(lam1), sigma2=math.sqrt(lam2), eigengap=kappa,
                   coherence=coherence(A, v1), kind="gaussian")
