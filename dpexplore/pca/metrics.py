"""Error metric for a private top singular vector."""

from __future__ import annotations

import numpy as np

from dpexplore.core.validation import check_vector

__all__ = ["sin2"]


def sin2(v: np.ndarray, x: np.ndarray) -> float:
    """sin² of the angle between the lines spanned by ``v`` and ``x``: 1 − ⟨v, x⟩²/(‖v‖²‖x‖²).

    Sign-invariant (v and −v are the same answer), 0 for a perfect estimate, about 1 − 1/d for a
    random direction in R^d.

    Raises
    ------
    ValueError
        If the lengths differ or a vector is zero.

    Examples
    --------
    >>> sin2([1.0, 0.0], [-2.0, 0.0])
    0.0
    >>> round(sin2([1.0, 0.0], [1.0, 1.0]), 12)
    0.5
    """
    v = check_vector(v, "v")
    x = check_vector(x, "x")
    if v.size != x.size:
        raise ValueError(f"v and x must have the same length; got {v.size} and {x.size}")
    nv, nx = float(v @ v), float(x @ x)
    if nv == 0.0 or nx == 0.0:
        raise ValueError("v and x must be non-zero vectors; got a zero vector")
    return float(min(1.0, max(0.0, 1.0 - float(v @ x) ** 2 / (nv * nx))))
