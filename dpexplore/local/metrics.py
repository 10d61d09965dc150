"""Errors of frequency estimates.

Examples
--------
>>> np.allclose(frequency_error([0.5, 0.5], [0.4, 0.6]), 0.01)
True
"""

from __future__ import annotations

import numpy as np

from dpexplore.core.validation import check_array, check_int

from .mechanisms import MAX_K

__all__ = ["frequency_error", "mean_squared_error", "top_k_recall"]


def _pair(truth, est):
    t = check_array(truth, "truth", ndim=1, min_size=1, max_size=MAX_K)
    e = check_array(est, "estimate", ndim=1, min_size=1, max_size=MAX_K)
    if t.shape != e.shape:
        raise ValueError(f"estimate must have the shape of truth {t.shape}; got {e.shape}")
    return t, e


def frequency_error(truth, estimate) -> np.ndarray:
    """Squared error per value, (f̂(v) − f(v))²."""
    t, e = _pair(truth, estimate)
    return (e - t) ** 2


def mean_squared_error(truth, estimate) -> float:
    """The mean over the k values of (f̂(v) − f(v))².

    Examples
    --------
    >>> mean_squared_error([1.0, 0.0], [0.0, 0.0])
    0.5
    """
    return float(frequency_error(truth, estimate).mean())


def top_k_recall(truth, estimate, m: int) -> float:
    """The share of the true m most frequent values found among the estimate's m largest (ties: smaller value).

    Examples
    --------
    >>> top_k_recall([5, 4, 1, 0], [4, 5, 0, 1], 2)
    1.0
    """
    t, e = _pair(truth, estimate)
    m = check_int(m, "m", low=1, high=t.size)
    a = set(np.argsort(-t, kind="stable")[:m].tolist())
    b = set(np.argsort(-e, kind="stable")[:m].tolist())
    return len(a & b) / m
