"""Monte-Carlo sweeps: a function over a parameter grid × trials, with independent rng streams."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .random import RNGLike, as_generator
from .validation import MAX_COUNT, check_array, check_int, check_n_jobs, check_real

__all__ = ["SweepResult", "sweep", "mean_confidence_band"]


@dataclass(frozen=True)
class SweepResult:
    """Output of :func:`sweep`.

    Attributes
    ----------
    grid : list
        The parameter values, in order.
    values : ndarray, shape (len(grid), trials, *out_shape)
        Every trial's output.
    mean, lower, upper : ndarray, shape (len(grid), *out_shape)
        Mean over trials and a two-sided confidence band for the mean (Student t).
    confidence : float
    """

    grid: list
    values: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    confidence: float

    @property
    def trials(self) -> int:
        return int(self.values.shape[1])


def mean_confidence_band(values, confidence: float = 0.95, axis: int = 0):
    """Mean and two-sided Student-t confidence band for the mean along ``axis``.

    With a single trial the band collapses to the mean (no spread can be estimated).
    NaN trials (e.g. a failed run) are ignored.

    Examples
    --------
    >>> m, lo, hi = mean_confidence_band([1.0, 2.0, 3.0])
    >>> float(m), bool(lo < 2 < hi)
    (2.0, True)
    """
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    arr = check_array(values, "values", min_size=1, finite=False)  # NaN = a failed trial (ignored)
    if arr.ndim == 0:
        raise ValueError(f"values must be an array with at least one dimension; got the scalar {float(arr)!r}")
    axis = check_int(axis, "axis", low=-arr.ndim, high=arr.ndim - 1)
    finite = np.isfinite(arr)
    count = finite.sum(axis=axis)
    filled = np.where(finite, arr, 0.0)
    mean = np.where(count > 0, filled.sum(axis=axis) / np.maximum(count, 1), np.nan)
    dev = np.where(finite, arr - np.expand_dims(mean, axis), 0.0)
    sd = np.sqrt((dev**2).sum(axis=axis) / np.maximum(count - 1, 1))
    half = stats.t.ppf(0.5 + conf / 2.0, np.maximum(count - 1, 1)) * sd / np.sqrt(np.maximum(count, 1))
    half = np.where(count > 1, half, 0.0)
    return mean, mean - half, mean + half


def sweep(
    func: Callable[[Any, np.random.Generator], Any],
    grid: Sequence[Any],
    *,
    trials: int,
    rng: RNGLike = None,
    confidence: float = 0.95,
    n_jobs: int | None = None,
    backend: str | None = None,
) -> SweepResult:
    """Run ``func(param, rng)`` for every grid value and trial, each with its own rng stream.

    Streams come from ``Generator.spawn`` (one child per (grid value, trial)), so results do not
    depend on the order of execution and a run is reproducible from one seed, serially or in
    parallel.

    Parameters
    ----------
    func : callable
        ``func(param, rng) -> float or array`` (the same output shape every time).
    grid : sequence
        Parameter values (numbers, tuples, dicts: whatever ``func`` takes).
    trials : int
        Trials per grid value, in [1, ``MAX_COUNT``]; ``len(grid) * trials`` is at most
        ``MAX_COUNT`` (one million runs, ``dpexplore.core.validation.MAX_COUNT``).
    rng : Generator, int or None
    confidence : float
        Level of the band for the mean (default 0.95).
    n_jobs : int, optional
        ``None`` or 1 runs serially; −1 or an integer in [2, ``MAX_N_JOBS`` = 1024]. Otherwise the
        runs go through ``joblib.Parallel(n_jobs)``
        (``pip install joblib``). A user with a Dask cluster scales out with
        ``joblib.parallel_config(backend="dask")`` around the call (``backend`` here is passed to
        joblib as well); dpexplore has no scheduler of its own.

    Returns
    -------
    SweepResult

    Examples
    --------
    >>> res = sweep(lambda p, g: p + g.normal(), [0.0, 10.0], trials=200, rng=0)
    >>> bool(res.lower[1] < 10 < res.upper[1])
    True
    """
    if not callable(func):
        raise TypeError(f"func must be callable; got {type(func).__name__}")
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence) and not isinstance(grid, np.ndarray):
        raise TypeError(f"grid must be a sequence of parameter values; got {type(grid).__name__}")
    grid = list(grid)
    if not grid:
        raise ValueError("grid must contain at least one parameter value; got an empty grid")
    trials = check_int(trials, "trials", low=1, high=MAX_COUNT)
    n_jobs = check_n_jobs(n_jobs)  # before any work: a bad n_jobs is a ValueError, never an ImportError
    if backend is not None and not isinstance(backend, str):
        raise TypeError(f"backend must be None or a joblib backend name; got {backend!r} of type "
                        f"{type(backend).__name__}")
    if len(grid) * trials > MAX_COUNT:
        raise ValueError(f"len(grid)*trials must be <= {MAX_COUNT:,} runs; got {len(grid)} * {trials}")
    streams = as_generator(rng).spawn(len(grid) * trials)
    jobs = [(grid[i], streams[i * trials + j]) for i in range(len(grid)) for j in range(trials)]
    if n_jobs is None or n_jobs == 1:
        outs = [func(p, g) for p, g in jobs]
    else:
        try:
            import joblib
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("n_jobs needs joblib: pip install joblib") from exc
        outs = joblib.Parallel(n_jobs=n_jobs, backend=backend)(joblib.delayed(func)(p, g) for p, g in jobs)
    values = np.asarray(outs, dtype=float)
    values = values.reshape((len(grid), trials) + values.shape[1:])
    mean, lower, upper = mean_confidence_band(values, confidence, axis=1)
    return SweepResult(grid=grid, values=values, mean=mean, lower=lower, upper=upper, confidence=confidence)
