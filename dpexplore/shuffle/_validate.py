"""Validation of array-valued arguments (ε grids, α grids) shared by the shuffle modules."""

from __future__ import annotations

import numpy as np

#: public maximum of n (users) for the closed-form / asymptotic functions (GDP μ, JSD terms, Chernoff,
#: Poisson λ, FMT/blanket formulas, the solver); exact computations have their own, smaller maxima
#: (``exact.MAX_USERS`` = 1e10, ``worst.MAX_USERS`` = 1e9, grid limits)
MAX_N_FORMULA = 10**15
#: public maximum of the samples drawn per chunk by the statistical audit
MAX_CHUNK = 10**7


def check_real_array(x, name: str, *, low: float = 0.0, high: float | None = None) -> np.ndarray:
    """A finite real number or array of them in [low, high]; TypeError/ValueError naming ``name``."""
    if isinstance(x, (str, bytes, dict)) or x is None or isinstance(x, bool):
        raise TypeError(f"{name} must be a real number (or an array of them); got {type(x).__name__} {x!r}")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged sequences and exotic objects
        raise TypeError(f"{name} must be a real number (or an array of them); got {x!r}") from exc
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number (or an array of them); got {x!r} (dtype {arr.dtype})")
    arr = arr.astype(float)
    rng = f"[{low:g}, {high:g}]" if high is not None else f">= {low:g}"
    if np.any(~np.isfinite(arr)) or np.any(arr < low) or (high is not None and np.any(arr > high)):
        raise ValueError(f"{name} must be a finite number {rng} (or an array of them); got {x!r}")
    return arr
