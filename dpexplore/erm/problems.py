"""Least squares + LASSO over a box, in the interpolation regime (Cortild & Cartis 2026, Sec. 6).

Per-example loss ``ℓ(θ; x, y) = ½(xᵀθ − y)²``, regulariser ``R(θ) = λ‖θ‖₁``, constraint set the
box ``C = {‖θ‖_∞ ≤ κ}``. The objective is ``J(θ) = Σ_i ℓ(θ; x_i, y_i) + R(θ)``; the reported
metric is the empirical risk ``½ mean((Xθ − y)²)`` (the reference code's ``loss``).
"""

from __future__ import annotations

import numpy as np

from dpexplore.core import RNGLike, as_generator
from dpexplore.core.validation import check_int, check_matrix, check_positive, check_vector

__all__ = [
    "interpolation_data",
    "noisy_anchor",
    "empirical_risk",
    "objective",
    "smoothness_constant",
    "hessian_rank",
    "gradient_bound",
    "check_problem",
]


def check_problem(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix X (n × d) and labels y (n,) and return them as float arrays.

    Examples
    --------
    >>> X, y = check_problem([[1.0, 0.0]], [2.0])
    >>> X.shape, y.shape
    ((1, 2), (1,))
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have one entry per row of X ({X.shape[0]}); got {y.shape[0]}")
    return X, y


def interpolation_data(n: int, d: int, *, xi: float, rng: RNGLike = None):
    """Interpolating least-squares data: rows Gaussian rescaled to ‖x_i‖ = ξ, θ_true ~ N(0, I), y = Xθ_true.

    Every per-example loss is minimised by the same θ_true (the interpolation assumption).

    Parameters
    ----------
    n, d : int
        Number of examples and dimension.
    xi : float
        Norm of every row (> 0).
    rng : Generator, int or None

    Returns
    -------
    X : ndarray, shape (n, d)
    y : ndarray, shape (n,)
    theta_true : ndarray, shape (d,)

    Examples
    --------
    >>> X, y, t = interpolation_data(5, 3, xi=2.0, rng=0)
    >>> bool(np.allclose(np.linalg.norm(X, axis=1), 2.0)), bool(np.allclose(X @ t, y))
    (True, True)
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    xi = check_positive(xi, "xi")
    gen = as_generator(rng)
    X = gen.standard_normal((n, d))
    X = xi * X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    theta_true = gen.standard_normal(d)
    return X, X @ theta_true, theta_true


def noisy_anchor(theta_true, *, eta: float, rng: RNGLike = None) -> np.ndarray:
    """Anchor θ̃ = θ_true + η·N(0, I) (the reference experiment uses η = 0.1).

    η is a per-coordinate standard deviation, so ‖θ̃ − θ*‖ ≈ η√d.

    Examples
    --------
    >>> a = noisy_anchor(np.zeros(4), eta=0.0, rng=0)
    >>> a.tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    theta_true = check_vector(theta_true, "theta_true")
    eta = check_positive(eta, "eta", allow_zero=True)
    return theta_true + eta * as_generator(rng).standard_normal(theta_true.shape[0])


def empirical_risk(X, y, theta):
    """Empirical risk ``½ mean((Xθ − y)²)``; ``theta`` may be (d,) or a batch (B, d).

    Returns
    -------
    float, or ndarray of shape (B,)

    Examples
    --------
    >>> empirical_risk([[1.0], [2.0]], [1.0, 2.0], [1.0])
    0.0
    >>> empirical_risk([[1.0], [2.0]], [1.0, 2.0], [[0.0], [1.0]]).tolist()
    [1.25, 0.0]
    """
    X, y = check_problem(X, y)
    if isinstance(theta, (str, bytes, dict)) or theta is None or np.iscomplexobj(theta):
        raise TypeError(f"theta must be an array of numbers; got {theta!r}")
    try:
        th = np.asarray(theta, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"theta must be an array of numbers; got {theta!r}") from exc
    if not np.all(np.isfinite(th)):
        raise ValueError(f"theta must contain only finite numbers; got {theta!r}")
    if th.ndim not in (1, 2) or th.shape[-1] != X.shape[1]:
        raise ValueError(f"theta must have shape (d,) or (B, d) with d = {X.shape[1]}; got shape {th.shape}")
    r = th @ X.T - y  # (n,) or (B, n)
    out = 0.5 * np.mean(r * r, axis=-1)
    return float(out) if th.ndim == 1 else out


def objective(X, y, theta, *, lam: float) -> float:
    """The non-private objective ``J(θ) = Σ_i ½(x_iᵀθ − y_i)² + λ‖θ‖₁``.

    Examples
    --------
    >>> objective([[1.0]], [0.0], [2.0], lam=1.0)
    4.0
    """
    X, y = check_problem(X, y)
    lam = check_positive(lam, "lam", allow_zero=True)
    th = check_vector(theta, "theta")
    r = X @ th - y
    return float(0.5 * r @ r + lam * np.abs(th).sum())


def smoothness_constant(X) -> float:
    """Per-example smoothness L = max_i ‖x_i‖² (the Hessian of ½(xᵀθ − y)² is x xᵀ).

    This is the exact constant of the given rows. For a private release it must be a **public**
    bound (here: rows are normalised to ‖x_i‖ = ξ, so L = ξ²). The authors' reference code uses
    the looser ``L = d ξ²``; pass that explicitly to reproduce its numbers.

    Examples
    --------
    >>> smoothness_constant([[3.0, 4.0], [1.0, 0.0]])
    25.0
    """
    X = check_matrix(X, "X")
    return float(np.max(np.einsum("ij,ij->i", X, X)))


def hessian_rank(X=None) -> int:
    """Bound ρ on the rank of each per-example Hessian: 1 for least squares (x xᵀ has rank one).

    Examples
    --------
    >>> hessian_rank()
    1
    """
    return 1


def gradient_bound(X, y, radius: float) -> float:
    """Largest per-example gradient norm ζ = max_i max_{‖θ‖_∞ ≤ κ} ‖(x_iᵀθ − y_i) x_i‖ = max_i (κ‖x_i‖₁ + |y_i|)‖x_i‖.

    Exact over the box (attained at a corner θ = ±κ sign(x_i)). It grows linearly in κ, which
    is what makes LOP's noise (and risk) grow with the diameter of C. Like
    :func:`smoothness_constant`, it must be a public bound in a real release.

    Examples
    --------
    >>> gradient_bound([[3.0, 4.0]], [1.0], 2.0)
    75.0
    """
    X, y = check_problem(X, y)
    kappa = check_positive(radius, "radius")
    norms = np.linalg.norm(X, axis=1)
    return float(np.max((kappa * np.abs(X).sum(axis=1) + np.abs(y)) * norms))

