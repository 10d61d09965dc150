"""Least squares + LASSO over a box, in the interpolation regime (Cortild & Cartis 2026, Sec. 6).

Per-example loss ``ℓ(θ; x, y) = ½(xᵀθ − y)²``, regulariser ``R(θ) = λ‖θ‖₁``, constraint set the
box ``C = {‖θ‖_∞ ≤ κ}``. The objective is ``J(θ) = Σ_i ℓ(θ; x_i, y_i) + R(θ)``; the reported
metric is the empirical risk ``½ mean((Xθ − y)²)`` (the reference code's ``loss``).
"""

from __future__ import annotations

import numpy as np

from dpexplore.core import RNGLike, as_generator
from dpexplore.core.validation import check_cells, check_int, check_matrix, check_positive, check_real, check_vector

__all__ = [
    "interpolation_data",
    "noisy_anchor",
    "empirical_risk",
    "objective",
    "smoothness_constant",
    "hessian_rank",
    "gradient_bound",
    "clip_examples",
    "box_gradient_bound",
    "interpolation_label_bound",
    "check_problem",
    "MAX_N",
    "MAX_D",
    "MAX_CELLS",
    "MAX_ENTRY",
    "MAX_SCALE",
]

#: Largest n (examples) of :func:`interpolation_data`.
MAX_N = 1_000_000
#: Largest dimension d (:func:`interpolation_data`, :func:`box_gradient_bound`, the calibrations).
MAX_D = 10_000
#: Largest n·d of :func:`interpolation_data` (memory: 400 MB of float64).
MAX_CELLS = 50_000_000
#: Largest |X_ij| and |y_i| of a problem (:func:`check_problem`): squares, row norms and
#: gradients (κ‖x‖₁ + |y|)‖x‖ then stay finite in float64.
MAX_ENTRY = 1e100
#: Largest public bound ξ (feature_bound, xi), B (label_bound) and κ (radius): ζ = ξ(√d κ ξ + B)
#: is then ≤ 1e50·(100·1e100 + 1e50) ≈ 1e152, and the noise scales derived from it stay finite.
MAX_SCALE = 1e50


def check_problem(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix X (n × d) and labels y (n,) and return them as float arrays.

    Entries are finite with |value| ≤ ``MAX_ENTRY`` (1e100); complex input is refused.

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
    for name, arr in (("X", X), ("y", y)):
        big = float(np.max(np.abs(arr)))
        if big > MAX_ENTRY:
            raise ValueError(f"{name} must have entries with |value| <= {MAX_ENTRY:g} (norms and gradients must stay "
                             f"finite in float64); got {big:g}")
    return X, y


def interpolation_data(n: int, d: int, *, xi: float, rng: RNGLike = None):
    """Interpolating least-squares data: rows Gaussian rescaled to ‖x_i‖ = ξ, θ_true ~ N(0, I), y = Xθ_true.

    Every per-example loss is minimised by the same θ_true (the interpolation assumption).

    **Public bounds** (what the mechanisms need, fixed before seeing the data): every row has norm
    exactly ξ, so ``feature_bound=xi`` (smoothness L = ξ²); given a row, its label x_iᵀθ_true is
    N(0, ξ²) under θ_true's N(0, I) prior, so :func:`interpolation_label_bound` (5ξ) bounds all but
    a fraction ≈ 6·10⁻⁷ of the labels (LOP clips the rest; only LOP needs a label bound).

    Parameters
    ----------
    n, d : int
        Number of examples (≤ ``MAX_N`` = 10⁶) and dimension (≤ ``MAX_D`` = 10⁴), with
        n·d ≤ ``MAX_CELLS`` = 5·10⁷.
    xi : float
        Norm of every row, in (0, ``MAX_SCALE`` = 1e50].
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
    n = check_int(n, "n", low=1, high=MAX_N)
    d = check_int(d, "d", low=1, high=MAX_D)
    check_cells(MAX_CELLS, n=n, d=d)
    xi = check_real(xi, "xi", low=0.0, low_open=True, high=MAX_SCALE)
    gen = as_generator(rng)
    X = gen.standard_normal((n, d))
    X = xi * X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    theta_true = gen.standard_normal(d)
    return X, X @ theta_true, theta_true


def noisy_anchor(theta_true, *, eta: float | None = None, scale: float | None = None,
                 rng: RNGLike = None) -> np.ndarray:
    """An anchor θ̃ near θ_true: give exactly one of ``eta`` (its distance) or ``scale`` (its noise per coordinate).

    One symbol, one meaning across this package: **η is the anchor accuracy ‖θ̃ − θ*‖** — the
    quantity :func:`~dpexplore.erm.qop_inexact` declares (``eta``), the utility bounds use and the
    dashboard's slider sets.

    * ``eta=η``: θ̃ = θ_true + η·u with u uniform on the unit sphere, so ‖θ̃ − θ_true‖ = η exactly;
    * ``scale=s``: θ̃ = θ_true + s·N(0, I), the reference experiment's anchor (s = 0.1); then
      ‖θ̃ − θ_true‖ ≈ s√d, which is the η to declare (compute it as ``np.linalg.norm(θ̃ − θ_true)``).

    Examples
    --------
    >>> a = noisy_anchor(np.zeros(4), eta=0.5, rng=0)
    >>> round(float(np.linalg.norm(a)), 12)
    0.5
    >>> noisy_anchor(np.zeros(4), scale=0.0, rng=0).tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    theta_true = check_vector(theta_true, "theta_true")
    if (eta is None) == (scale is None):
        raise TypeError("noisy_anchor needs exactly one of eta (the distance ‖θ̃ − θ_true‖) or scale (the standard "
                        f"deviation per coordinate); got eta={eta!r}, scale={scale!r}")
    gen = as_generator(rng)
    if scale is not None:
        scale = check_positive(scale, "scale", allow_zero=True)
        return theta_true + scale * gen.standard_normal(theta_true.shape[0])
    eta = check_positive(eta, "eta", allow_zero=True)
    u = gen.standard_normal(theta_true.shape[0])
    norm = float(np.linalg.norm(u))
    while norm == 0.0:  # probability 0; kept so the direction is always defined
        u = gen.standard_normal(theta_true.shape[0])
        norm = float(np.linalg.norm(u))
    return theta_true + eta * (u / norm)


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

    This is the exact constant of the given rows — a diagnostic computed from the data, **not** a
    public bound: the mechanisms take ``feature_bound`` ξ instead and use L = ξ² (or a larger public
    ``smoothness``; the authors' reference code uses ``L = d ξ²``).

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


def clip_examples(X, y, *, feature_bound: float):
    """Rescale every example (x_i, y_i) with ‖x_i‖ > ξ = ``feature_bound`` by ξ/‖x_i‖ (both x_i and y_i).

    A per-row map that does not look at the other rows, so neighbouring data sets stay neighbouring
    and a mechanism run on the clipped rows keeps its DP guarantee with the **public** constants
    ``L = ξ²``. Scaling the label with the features keeps the interpolation assumption: if
    x_iᵀθ* = y_i then (c x_i)ᵀθ* = c y_i. Rows inside the bound are returned unchanged.

    Parameters
    ----------
    X : ndarray (n, d)
    y : ndarray (n,)
    feature_bound : float
        Public bound ξ > 0 on the row norms.

    Returns
    -------
    X, y : ndarrays (copies)

    Examples
    --------
    >>> Xc, yc = clip_examples([[3.0, 4.0], [0.6, 0.8]], [10.0, 2.0], feature_bound=1.0)
    >>> Xc.tolist(), yc.tolist()
    ([[0.6, 0.8], [0.6, 0.8]], [2.0, 2.0])
    """
    X, y = check_problem(X, y)
    xi = check_positive(feature_bound, "feature_bound")
    norms = np.linalg.norm(X, axis=1)
    scale = np.where(norms > xi, xi / np.maximum(norms, 1e-300), 1.0)
    return X * scale[:, None], y * scale


def interpolation_label_bound(xi: float) -> float:
    """Public label bound 5ξ for :func:`interpolation_data` (labels are N(0, ξ²) given a row, z = 5).

    Examples
    --------
    >>> interpolation_label_bound(2.0)
    10.0
    """
    return 5.0 * check_positive(xi, "xi")


def box_gradient_bound(*, feature_bound: float, label_bound: float, radius: float, d: int) -> float:
    """Public per-example gradient bound ζ = ξ(√d κ ξ + B) of least squares over the box [standard].

    The largest ‖(xᵀθ − y)x‖ over the public domain ‖x‖ ≤ ξ, |y| ≤ B, ‖θ‖_∞ ≤ κ: it equals
    max (κ‖x‖₁ + |y|)‖x‖ (:func:`gradient_bound`), attained at x = ξ·s/√d for a sign vector s. It
    depends on no data, so LOP's noise calibrated to it is data-independent; it grows linearly in κ.

    Examples
    --------
    >>> box_gradient_bound(feature_bound=1.0, label_bound=2.0, radius=3.0, d=4)
    8.0

    ξ, B and κ are at most ``MAX_SCALE`` (1e50) and d ≤ ``MAX_D`` (10⁴), so ζ ≤ ~1e152 is finite.
    """
    xi = check_real(feature_bound, "feature_bound", low=0.0, low_open=True, high=MAX_SCALE)
    b = check_real(label_bound, "label_bound", low=0.0, low_open=True, high=MAX_SCALE)
    kappa = check_real(radius, "radius", low=0.0, low_open=True, high=MAX_SCALE)
    d = check_int(d, "d", low=1, high=MAX_D)
    return float(xi * (np.sqrt(d) * kappa * xi + b))


def gradient_bound(X, y, radius: float) -> float:
    """Largest per-example gradient norm ζ = max_i max_{‖θ‖_∞ ≤ κ} ‖(x_iᵀθ − y_i) x_i‖ = max_i (κ‖x_i‖₁ + |y_i|)‖x_i‖.

    Exact over the box (attained at a corner θ = ±κ sign(x_i)). It grows linearly in κ, which
    is what makes LOP's noise (and risk) grow with the diameter of C. It is computed from the data
    (a diagnostic, not private); the mechanisms use the public :func:`box_gradient_bound`.

    Examples
    --------
    >>> gradient_bound([[3.0, 4.0]], [1.0], 2.0)
    75.0
    """
    X, y = check_problem(X, y)
    kappa = check_positive(radius, "radius")
    norms = np.linalg.norm(X, axis=1)
    return float(np.max((kappa * np.abs(X).sum(axis=1) + np.abs(y)) * norms))

