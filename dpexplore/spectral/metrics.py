"""Error measures: misclassification up to relabelling, subspace and Procrustes distances."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..core.validation import check_cells, check_matrix

__all__ = ["misclassification_rate", "confusion_matrix", "sin_theta_distance", "procrustes_error",
           "MAX_CONFUSION_CELLS"]

#: Largest (distinct true labels) × (distinct predicted labels) of :func:`confusion_matrix`.
MAX_CONFUSION_CELLS = 10_000_000


def _labels(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of labels; got shape {arr.shape}")
    if arr.dtype == object or arr.dtype.kind in "fc":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            return arr.astype(np.int64)
        if arr.dtype == object:
            return np.unique(arr.astype(str), return_inverse=True)[1]
        raise ValueError(f"{name} must hold integer or string labels; got dtype {arr.dtype}")
    return np.unique(arr, return_inverse=True)[1]


def confusion_matrix(labels_true, labels_pred) -> np.ndarray:
    """Counts C[a, b] = #{i : true_i = a, pred_i = b} over the distinct labels of each (sorted).

    Examples
    --------
    >>> confusion_matrix([0, 0, 1], [1, 1, 0]).tolist()
    [[0, 2], [1, 0]]
    """
    t = _labels(labels_true, "labels_true")
    p = _labels(labels_pred, "labels_pred")
    if t.size != p.size:
        raise ValueError(f"labels_true and labels_pred must have the same length; got {t.size} and {p.size}")
    t = np.unique(t, return_inverse=True)[1]
    p = np.unique(p, return_inverse=True)[1]
    check_cells(MAX_CONFUSION_CELLS, distinct_true_labels=int(t.max()) + 1, distinct_pred_labels=int(p.max()) + 1)
    out = np.zeros((t.max() + 1, p.max() + 1), dtype=np.int64)
    np.add.at(out, (t, p), 1)
    return out


def misclassification_rate(labels_true, labels_pred) -> float:
    """Fraction of vertices misclassified under the best matching of predicted to true labels.

    min over one-to-one label matchings of the fraction wrong, via the Hungarian algorithm on the
    confusion matrix (``scipy.optimize.linear_sum_assignment``). Label names do not matter; the two
    labelings may have different numbers of clusters (unmatched clusters count as wrong). A random
    balanced k-labeling scores about 1 − 1/k (chance level).

    Examples
    --------
    >>> misclassification_rate([0, 0, 1, 1, 2, 2], [2, 2, 0, 0, 1, 1])
    0.0
    >>> misclassification_rate([0, 0, 1, 1], [0, 1, 1, 1])
    0.25
    """
    c = confusion_matrix(labels_true, labels_pred)
    rows, cols = linear_sum_assignment(c, maximize=True)
    return float(1.0 - c[rows, cols].sum() / c.sum())


def _orthonormal(x, name: str) -> np.ndarray:
    arr = check_matrix(x, name)
    n, k = arr.shape
    if k > n:
        raise ValueError(f"{name} must have at most as many columns as rows (a k-dimensional subspace of R^n); "
                         f"got shape {arr.shape}")
    q, r = np.linalg.qr(arr)
    # rank test of numpy.linalg.matrix_rank: |R_jj| <= max(n, k)·eps·max|R_jj| is a zero direction in
    # float64; QR would then return an arbitrary column and the distance would be meaningless.
    diag = np.abs(np.diag(r))
    tol = max(n, k) * np.finfo(float).eps * (float(diag.max()) if diag.size else 0.0)
    if diag.size and (diag.max() == 0.0 or np.any(diag <= tol)):
        j = int(np.argmin(diag))
        raise ValueError(f"{name} must have linearly independent columns (full column rank {k}); "
                         f"column {j} is (numerically) in the span of the others or zero")
    return q


def sin_theta_distance(u, v) -> float:
    """‖sin Θ(U, V)‖_F between the column spans of two n×k matrices (orthonormalised first).

    ‖sin Θ‖_F² = k − ‖UᵀV‖_F² for orthonormal U, V. 0 for equal subspaces, √k for orthogonal ones.
    Both must have full column rank k ≤ n (a zero or dependent column spans no k-dim subspace:
    ``ValueError``).

    Examples
    --------
    >>> e = np.eye(4)
    >>> sin_theta_distance(e[:, :2], e[:, [1, 0]]), round(sin_theta_distance(e[:, :2], e[:, 2:]), 6)
    (0.0, 1.414214)
    """
    a, b = _orthonormal(u, "u"), _orthonormal(v, "v")
    if a.shape != b.shape:
        raise ValueError(f"u and v must have the same shape; got {a.shape} and {b.shape}")
    val = a.shape[1] - float(np.sum((a.T @ b) ** 2))
    return float(np.sqrt(max(val, 0.0)))


def procrustes_error(u_hat, u) -> float:
    """min over orthogonal O of ‖Û O − U‖_F (orthogonal Procrustes; both taken as given, not normalised).

    Examples
    --------
    >>> e = np.eye(3)
    >>> round(procrustes_error(e[:, [1, 0]], e[:, :2]), 12)
    0.0
    """
    a, b = check_matrix(u_hat, "u_hat"), check_matrix(u, "u")
    if a.shape != b.shape:
        raise ValueError(f"u_hat and u must have the same shape; got {a.shape} and {b.shape}")
    w, _, vt = np.linalg.svd(a.T @ b)
    diff = a @ (w @ vt) - b
    return float(np.linalg.norm(diff))
