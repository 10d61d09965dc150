"""Monte-Carlo sweeps and experiment results.

* :func:`sweep` runs ``func(param, rng)`` over a parameter grid × trials with one spawned rng stream
  per (grid value, trial), serially, through joblib, or on Dask (``joblib.parallel_config(backend="dask")``):
  the numbers are the same whatever runs them.
* :class:`ExperimentResult` is what every ``dpexplore.<paper>.experiments`` function returns: the grid,
  every trial's value per series, the mean and a confidence band, the parameters, the seed, the library
  version and the function's name; it round-trips through :meth:`ExperimentResult.to_csv` /
  :meth:`ExperimentResult.from_csv` and :meth:`~ExperimentResult.to_dict` / :meth:`~ExperimentResult.from_dict`.
* :func:`run_experiment` is the one place an experiment function calls: it fixes the seed, looks the
  result up in the optional on-disk cache (:mod:`dpexplore.core.cache`), runs the sweep and builds the result.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import numbers
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._version import __version__
from .random import RNGLike, as_generator
from .result_io import BANDS, MAX_RESULT_VALUES, MAX_SERIES, check_result_dict, read_result_csv, write_result_csv
from .validation import MAX_COUNT, check_array, check_choice, check_int, check_n_jobs, check_real

# no module-level scipy: a dashboard kernel imports this module through the kit, and scipy.special is only needed
# for Student-t and Beta quantiles (imported where they are computed)

__all__ = [
    "BANDS",
    "MAX_RESULT_VALUES",
    "MAX_RUNS",
    "ExperimentResult",
    "SweepResult",
    "experiment_progress",
    "mean_confidence_band",
    "proportion_band",
    "resolve_seed",
    "check_runs",
    "run_experiment",
    "sweep",
]

#: most runs (grid values × trials) one experiment makes, on either route of :func:`run_experiment`
MAX_RUNS = MAX_COUNT

ProgressFn = Callable[[int, int], Any]
_PROGRESS: contextvars.ContextVar[ProgressFn | None] = contextvars.ContextVar("dpexplore_progress", default=None)


@dataclass(frozen=True)
class SweepResult:
    """Output of :func:`sweep`.

    Attributes
    ----------
    grid : list
        The parameter values, in order.
    values : ndarray, shape (len(grid), trials) + out_shape
        Every trial's output.
    mean, lower, upper : ndarray, shape (len(grid),) + out_shape
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


def mean_confidence_band(values, confidence: float = 0.95, axis: int = 0, value_range=None):
    """Mean and two-sided Student-t confidence band for the mean along ``axis``.

    With a single trial the band collapses to the mean (no spread can be estimated).
    NaN trials (e.g. a failed run) are ignored.

    Parameters
    ----------
    values : array_like
    confidence : float
    axis : int
    value_range : (low, high), optional
        The range every value lies in (e.g. ``(0, 1)`` for a fraction). The band is intersected with
        it: the true mean lies in the range, so the intersection covers it exactly as often as the
        t-band does, and a band never shows an impossible value (a fraction below 0).

    Examples
    --------
    >>> m, lo, hi = mean_confidence_band([1.0, 2.0, 3.0])
    >>> float(m), bool(lo < 2 < hi)
    (2.0, True)
    >>> m, lo, hi = mean_confidence_band([0.0, 0.0, 0.3], value_range=(0, 1))
    >>> float(lo)
    0.0
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
    from scipy import special  # Student-t quantile

    half = special.stdtrit(np.maximum(count - 1, 1), 0.5 + conf / 2.0) * sd / np.sqrt(np.maximum(count, 1))
    half = np.where(count > 1, half, 0.0)
    lower, upper = mean - half, mean + half
    if value_range is not None:
        lo_r, hi_r = _check_range(value_range)
        lower, upper = np.clip(lower, lo_r, hi_r), np.clip(upper, lo_r, hi_r)
    return mean, lower, upper


def _check_range(value_range) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in value_range)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"value_range must be a pair (low, high) of numbers; got {value_range!r}") from exc
    if not lo < hi:
        raise ValueError(f"value_range must have low < high; got {value_range!r}")
    return lo, hi


def proportion_band(successes, trials, confidence: float = 0.95, method: str = "wilson"):
    """Estimate and two-sided confidence interval of a binomial proportion ``successes / trials``.

    ``method="wilson"`` is the Wilson score interval; ``"clopper-pearson"`` the exact (conservative)
    interval from Beta quantiles. Both stay inside [0, 1] and do not collapse at 0 or 1 successes.
    Arrays broadcast; ``trials == 0`` gives NaN.

    Examples
    --------
    >>> p, lo, hi = proportion_band(0, 10)
    >>> float(p), float(lo), round(float(hi), 3)
    (0.0, 0.0, 0.278)
    >>> p, lo, hi = proportion_band(0, 10, method="clopper-pearson")
    >>> round(float(hi), 3)
    0.308
    """
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    method = check_choice(method, "method", ("wilson", "clopper-pearson"))
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(x < 0) or np.any(x > n):
        raise ValueError("successes must lie in [0, trials]")
    with np.errstate(invalid="ignore", divide="ignore"):
        phat = np.where(n > 0, x / np.maximum(n, 1), np.nan)
        alpha = 1.0 - conf
        if method == "wilson":
            z = statistics.NormalDist().inv_cdf(1 - alpha / 2)  # the normal quantile (= scipy's ndtri to 1e-15)
            denom = 1 + z**2 / np.maximum(n, 1)
            centre = (phat + z**2 / (2 * np.maximum(n, 1))) / denom
            half = z * np.sqrt(phat * (1 - phat) / np.maximum(n, 1) + z**2 / (4 * np.maximum(n, 1) ** 2)) / denom
            lower, upper = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
            lower = np.where(x == 0, 0.0, lower)
            upper = np.where(x == n, 1.0, upper)
        else:
            from scipy import special  # Beta quantiles

            lower = np.where(x > 0, special.betaincinv(np.maximum(x, 1e-300), n - x + 1, alpha / 2), 0.0)
            upper = np.where(x < n, special.betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - alpha / 2), 1.0)
        lower = np.where(n > 0, lower, np.nan)
        upper = np.where(n > 0, upper, np.nan)
    return phat, lower, upper


def _band(values: np.ndarray, band: str, confidence: float, value_range) -> tuple[np.ndarray, ...]:
    """Mean and band over the last axis of ``values`` (NaN trials ignored)."""
    if band == "t":
        return mean_confidence_band(values, confidence, axis=-1, value_range=value_range)
    finite = np.isfinite(values)
    ok = values[finite]
    if not np.all((ok == 0) | (ok == 1)):
        raise ValueError(f"band={band!r} is for proportions: every trial's value must be 0 or 1")
    successes = np.where(finite, values, 0.0).sum(axis=-1)
    return proportion_band(successes, finite.sum(axis=-1), confidence, method=band)


@contextlib.contextmanager
def experiment_progress(callback: ProgressFn | None) -> Iterator[None]:
    """Within the block, every :func:`sweep` calls ``callback(done, total)`` as its runs complete.

    Used by the command line (a ``tqdm`` bar); works with serial, joblib and Dask runs, since the
    callback is called in this process as results come back.

    Examples
    --------
    >>> seen = []
    >>> with experiment_progress(lambda done, total: seen.append((done, total))):
    ...     _ = sweep(lambda p, g: p, [1.0, 2.0], trials=2, rng=0)
    >>> seen[-1]
    (4, 4)
    """
    token = _PROGRESS.set(callback)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def sweep(
    func: Callable[[Any, np.random.Generator], Any],
    grid: Sequence[Any],
    *,
    trials: int,
    rng: RNGLike = None,
    confidence: float = 0.95,
    n_jobs: int | None = None,
    backend: str | None = None,
    progress: ProgressFn | None = None,
) -> SweepResult:
    """Run ``func(param, rng)`` for every grid value and trial, each with its own rng stream.

    Streams come from ``Generator.spawn`` (one child per (grid value, trial)), so results do not
    depend on the order of execution and a run is reproducible from one seed, serially or in
    parallel.

    Parameters
    ----------
    func : callable
        ``func(param, rng) -> float or array`` (the same output shape every time). For joblib
        process backends and Dask it must be picklable (a module-level function or a
        ``functools.partial`` of one).
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
        ``joblib.parallel_config(backend="dask")`` around the call and ``n_jobs=-1`` (``backend``
        here is passed to joblib as well); dpexplore has no scheduler of its own.
    progress : callable, optional
        ``progress(done, total)`` after each completed run (default: the callback set by
        :func:`experiment_progress`, if any).

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
    outs = _run_jobs(func, jobs, n_jobs=n_jobs, backend=backend, progress=progress)
    values = np.asarray(outs, dtype=float)
    values = values.reshape((len(grid), trials) + values.shape[1:])
    mean, lower, upper = mean_confidence_band(values, confidence, axis=1)
    return SweepResult(grid=grid, values=values, mean=mean, lower=lower, upper=upper, confidence=confidence)


def _run_jobs(func, jobs, *, n_jobs, backend, progress):
    """``[func(*job) for job in jobs]``, serially or through joblib (any backend, Dask included), in order."""
    progress = progress if progress is not None else _PROGRESS.get()
    total = len(jobs)
    outs: list = []
    if n_jobs is None or n_jobs == 1:
        for job in jobs:
            outs.append(func(*job))
            if progress is not None:
                progress(len(outs), total)
        return outs
    try:
        import joblib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("n_jobs needs joblib: pip install joblib") from exc
    par = joblib.Parallel(n_jobs=n_jobs, backend=backend, return_as="generator")
    for out in par(joblib.delayed(func)(*job) for job in jobs):  # results come back in submission order
        outs.append(out)
        if progress is not None:
            progress(len(outs), total)
    return outs


# -- experiment results ---------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """JSON-able plain Python version of a parameter value (tuples become lists)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        return float(value)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    raise TypeError(f"experiment parameters must be numbers, strings, booleans, None or lists of them; "
                    f"got {value!r} of type {type(value).__name__}")


def _freeze(value: Any) -> Any:
    """Plain value with lists turned into tuples (dicts stay dicts, so results pickle)."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: _freeze(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """The outcome of one experiment function: a measured curve per series over a grid.

    Attributes
    ----------
    function : str
        Qualified name of the experiment function (``"dpexplore.spectral.experiments.misclassification_vs_epsilon"``).
    parameters : dict
        Every argument that determines the numbers (not ``rng``, ``n_jobs``), as plain values.
    seed : int
        The seed the sweep ran from: ``function(**parameters, rng=seed)`` recomputes these numbers.
    version : str
        ``dpexplore.__version__`` that computed them.
    axis : str
        Name of the grid's parameter (``"epsilon"``, ``"n"``, …).
    grid : tuple
        The grid values, in order.
    series : tuple of str
        One label per measured curve (e.g. the mechanisms).
    values : ndarray, shape (len(series), len(grid), trials)
        Every trial's value (NaN: the trial produced none).
    mean, lower, upper : ndarray, shape (len(series), len(grid))
        Mean over trials and the confidence band (see ``band``).
    band : str
        ``"t"`` (Student t for the mean, intersected with ``value_range`` if given), ``"wilson"`` or
        ``"clopper-pearson"`` (proportions: each trial's value is 0 or 1).
    confidence : float
    value_range : tuple or None
        The range the values are known to lie in (used by the t-band).
    extras : dict
        Other measured outputs of the run (plain values), e.g. an estimated k.
    cached : bool
        True when this object was read from the result cache (not part of the data; not saved).
    """

    function: str
    parameters: Mapping[str, Any]
    seed: int
    version: str
    axis: str
    grid: tuple
    series: tuple
    values: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    band: str = "t"
    confidence: float = 0.95
    value_range: tuple | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    cached: bool = field(default=False, compare=False)

    @classmethod
    def from_values(cls, *, function: str, parameters: Mapping[str, Any], seed: int, axis: str, grid: Sequence,
                    series: Sequence[str], values, band: str = "t", confidence: float = 0.95,
                    value_range=None, extras: Mapping[str, Any] | None = None, version: str | None = None,
                    cached: bool = False) -> ExperimentResult:
        """Build a result from every trial's values; the mean and band are computed here."""
        if version is None:
            version = __version__
        band = check_choice(band, "band", BANDS)
        confidence = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
        grid = tuple(_freeze(_plain(list(grid))))
        series = tuple(str(s) for s in series)
        arr = np.array(values, dtype=float)
        if arr.shape[:2] != (len(series), len(grid)) or arr.ndim != 3:
            raise ValueError(f"values must have shape (len(series), len(grid), trials) = "
                             f"({len(series)}, {len(grid)}, trials); got {arr.shape}")
        vr = None if value_range is None else _check_range(value_range)
        mean, lower, upper = _band(arr, band, confidence, vr)
        for a in (arr, mean, lower, upper):
            a.setflags(write=False)
        params = _freeze(_plain(dict(parameters)))
        return cls(function=str(function), parameters=params, seed=int(seed), version=str(version), axis=str(axis),
                   grid=grid, series=series, values=arr, mean=np.asarray(mean, dtype=float),
                   lower=np.asarray(lower, dtype=float), upper=np.asarray(upper, dtype=float), band=band,
                   confidence=confidence, value_range=vr, extras=_freeze(_plain(dict(extras or {}))), cached=cached)

    @property
    def trials(self) -> int:
        return int(self.values.shape[2])

    def curve(self, series: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, lower, upper)`` of one series over the grid."""
        if series not in self.series:
            raise KeyError(f"no series {series!r} in this result; series: {list(self.series)}")
        i = self.series.index(series)
        return self.mean[i], self.lower[i], self.upper[i]

    def trial_values(self, series: str) -> np.ndarray:
        """Every trial's value of one series, shape (len(grid), trials)."""
        if series not in self.series:
            raise KeyError(f"no series {series!r} in this result; series: {list(self.series)}")
        return self.values[self.series.index(series)]

    def summary(self, digits: int = 4) -> str:
        """A plain-text table: one line per series and grid value with the mean and band.

        Examples
        --------
        >>> r = ExperimentResult.from_values(function="f", parameters={}, seed=1, axis="x", grid=[1],
        ...                                  series=["a"], values=[[[0.1, 0.3]]], version="0")
        >>> print(r.summary())  # doctest: +NORMALIZE_WHITESPACE
        f (seed 1, dpexplore 0, 2 trials, 95% t band)
        a  x=1  mean 0.2  [-1.071, 1.471]
        """
        head = (f"{self.function} (seed {self.seed}, dpexplore {self.version}, {self.trials} trials, "
                f"{self.confidence:.0%} {self.band} band)")
        lines = [head]
        for s, name in enumerate(self.series):
            for i, x in enumerate(self.grid):
                lines.append(f"{name}  {self.axis}={x:.{digits}g}  mean {self.mean[s, i]:.{digits}g}  "
                             f"[{self.lower[s, i]:.{digits}g}, {self.upper[s, i]:.{digits}g}]"
                             if isinstance(x, (int, float)) else
                             f"{name}  {self.axis}={x}  mean {self.mean[s, i]:.{digits}g}  "
                             f"[{self.lower[s, i]:.{digits}g}, {self.upper[s, i]:.{digits}g}]")
        return "\n".join(lines)

    def same_numbers(self, other: ExperimentResult) -> bool:
        """True when ``other`` holds exactly the same data (values, grid, parameters, seed, version, band)."""
        if not isinstance(other, ExperimentResult) or json.dumps(self._meta()) != json.dumps(other._meta()):
            return False
        return all(a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
                   for a, b in ((self.values, other.values), (self.mean, other.mean), (self.lower, other.lower),
                                (self.upper, other.upper)))

    # -- conversion -----------------------------------------------------------------------------
    def _meta(self) -> dict[str, Any]:
        return {"function": self.function, "parameters": _plain(self.parameters), "seed": self.seed,
                "version": self.version, "axis": self.axis, "grid": _plain(list(self.grid)),
                "series": list(self.series), "band": self.band, "confidence": self.confidence,
                "value_range": None if self.value_range is None else list(self.value_range),
                "extras": _plain(self.extras)}

    def to_dict(self) -> dict[str, Any]:
        """Plain (JSON-able) dict; :meth:`from_dict` rebuilds the result. NaN values stay ``float('nan')``.

        Examples
        --------
        >>> r = ExperimentResult.from_values(function="f", parameters={"n": 3}, seed=1, axis="x", grid=[1, 2],
        ...                                  series=["a"], values=[[[0.1, 0.3], [0.2, 0.2]]], version="0")
        >>> ExperimentResult.from_dict(r.to_dict()).same_numbers(r)
        True
        """
        out = self._meta()
        out["values"] = self.values.tolist()
        out["mean"], out["lower"], out["upper"] = self.mean.tolist(), self.lower.tolist(), self.upper.tolist()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, cached: bool = False) -> ExperimentResult:
        """Inverse of :meth:`to_dict` (the mean and band are recomputed from the values).

        The dict is untrusted: every field is checked (:func:`dpexplore.core.result_io.check_result_dict`)
        and a bad one is a ``ValueError``/``TypeError`` naming it.

        Examples
        --------
        >>> ExperimentResult.from_dict({"function": "f", "parameters": {}, "seed": float("nan")})
        Traceback (most recent call last):
        ...
        ValueError: experiment result: missing key 'version'
        """
        return cls.from_values(**check_result_dict(data), cached=cached)

    def to_csv(self, path=None) -> str:
        """CSV text (written to ``path`` too, if given): ``# key: json`` header lines, then one row per trial.

        Columns: ``series, <axis>, trial, value``. Floats are written with ``repr`` so that
        :meth:`from_csv` gives back exactly the same numbers. Every text cell a spreadsheet would run
        as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or CR; numbers excepted) is written
        with a leading ``'`` (:mod:`dpexplore.core.csvsafe`), and each header line is one quoted cell,
        so a pasted text inside the parameters cannot start a cell.

        Examples
        --------
        >>> r = ExperimentResult.from_values(function="f", parameters={"n": 3}, seed=1, axis="x", grid=[1, 2],
        ...                                  series=["a"], values=[[[0.1, 0.3], [0.2, 0.2]]], version="0")
        >>> print(r.to_csv().splitlines()[-1])
        a,2,1,0.2
        >>> ExperimentResult.from_csv(r.to_csv()).same_numbers(r)
        True
        """
        # Python floats (``tolist``): the writer prints str(v), which is repr(v) — the exact round trip — and a
        # float needs no formula escaping; the grid's JSON once per grid point, not once per trial
        values = np.asarray(self.values, dtype=float).tolist()
        xs = [json.dumps(_plain(x)) for x in self.grid]
        rows = ([name, xs[i], t, v]
                for s, name in enumerate(self.series) for i in range(len(xs)) for t, v in enumerate(values[s][i]))
        return write_result_csv(self._meta(), rows, path)

    @classmethod
    def from_csv(cls, source) -> ExperimentResult:
        """Read what :meth:`to_csv` wrote: a path, a file object or the CSV text itself (a string with a line break).

        The file is untrusted: a malformed row, an unknown series or grid value, a trial index out of
        range, a repeated cell, a non-integer seed or broken header JSON is a ``ValueError``/``TypeError``
        naming the field and the row, raised before anything sized by the file is allocated
        (:func:`dpexplore.core.result_io.read_result_csv`).
        """
        return cls.from_values(**read_result_csv(source))


def resolve_seed(rng: RNGLike) -> int:
    """The integer seed an experiment runs from.

    An int is used as is; ``None`` draws fresh OS entropy (recorded, so the run can be repeated);
    a Generator or SeedSequence contributes one draw (the Generator advances).

    Examples
    --------
    >>> resolve_seed(7)
    7
    >>> resolve_seed(None) >= 0
    True
    """
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        as_generator(rng)  # validates (>= 0)
        return int(rng)
    if rng is None:
        return int(np.random.SeedSequence().entropy)
    return int(as_generator(rng).integers(0, 2**63 - 1))


def _qualname(func: Callable | str) -> str:
    if isinstance(func, str):
        if not func or len(func) > 200:
            raise ValueError(f"function must be a name of 1 to 200 characters or a function; got {func[:40]!r}")
        return func
    if not callable(func) or not isinstance(getattr(func, "__qualname__", None), str) \
            or not isinstance(getattr(func, "__module__", None), str):
        raise TypeError(f"function must be the experiment function or its name (a str); got {type(func).__name__}")
    return f"{func.__module__}.{func.__qualname__}"


def run_experiment(
    function: Callable | str,
    parameters: Mapping[str, Any],
    trial: Callable[[Any, np.random.Generator], Sequence[float]],
    *,
    axis: str,
    grid: Sequence[Any],
    series: Sequence[str],
    trials: int,
    rng: RNGLike = None,
    n_jobs: int | None = None,
    backend: str | None = None,
    band: str = "t",
    confidence: float = 0.95,
    value_range=None,
    extras: Callable[[], Mapping[str, Any]] | Mapping[str, Any] | None = None,
    per: str = "point",
    cache: bool = True,
) -> ExperimentResult:
    """Run an experiment's trials with independent streams and wrap the numbers up in an :class:`ExperimentResult`.

    ``per="point"`` (default): :func:`sweep` over ``grid`` × ``trials``, one spawned stream per
    (grid value, trial); ``trial(grid_value, rng)`` returns one value per series.
    ``per="trial"``: for curves measured on one draw (a trajectory's tail at every threshold, a
    spectrum): one spawned stream per trial (the same spawning as a sweep over one grid value);
    ``trial(rng)`` returns an array of shape (len(series), len(grid)), or ``(array, extras)`` where
    ``extras`` is a dict of plain values stored per trial (``result.extras[key]`` is the list over trials).

    The result is a pure function of (function, parameters, seed, version): when the result cache
    is on (:func:`dpexplore.core.cache.set_cache_dir` or ``$DPEXPLORE_CACHE_DIR``) and ``cache`` is
    true, a stored result is returned instead of recomputing (``result.cached`` is then True).
    Pass ``cache=False`` for anything that is not a pure function of its inputs (wall-clock times).

    Parameters
    ----------
    function : callable or str
        The public experiment function (its qualified name labels the result and keys the cache).
    parameters : mapping
        Every argument that determines the numbers (plain values).
    trial : callable
        See ``per``; picklable (module-level function or ``functools.partial``) for process or Dask runs.
    extras : dict or callable, optional
        Further plain outputs stored in the result (a callable is called once, after the runs).

    Examples
    --------
    >>> r = run_experiment("demo", {"mu": 1.0}, lambda x, g: [x + g.normal()], axis="x", grid=[0.0, 1.0],
    ...                    series=["noisy"], trials=50, rng=0)
    >>> r.values.shape, r.seed
    ((1, 2, 50), 0)
    """
    name = _qualname(function)
    if isinstance(grid, (str, bytes, Mapping)) or not hasattr(grid, "__len__"):
        raise TypeError(f"grid must be a sequence of parameter values; got {type(grid).__name__}")
    grid = list(grid)
    if isinstance(series, (str, bytes)) or not hasattr(series, "__len__") or not 1 <= len(series) <= MAX_SERIES:
        raise ValueError(f"series must be a list of 1 to {MAX_SERIES} names; got {series!r}"[:200])
    trials = check_runs(len(grid), trials)
    if len(series) * len(grid) * trials > MAX_RESULT_VALUES:
        raise ValueError(f"len(series)*len(grid)*trials must be <= {MAX_RESULT_VALUES:,} values; got "
                         f"{len(series)} * {len(grid)} * {trials}")
    seed = resolve_seed(rng)
    params = _plain(dict(parameters))
    store, key, identity = _cache_slot(name, params, seed) if cache else (None, None, None)
    if store is not None:
        hit = store.get(key, identity)
        if hit is not None:
            got = _from_cache(hit, name, params, seed, axis, grid, series, trials)
            if got is not None:
                return got
    grid = list(grid)
    trial_extras: dict[str, list] = {}
    if per == "point":
        res = sweep(trial, grid, trials=trials, rng=seed, n_jobs=n_jobs, backend=backend)
        values = np.asarray(res.values, dtype=float)
        if values.ndim == 2:
            values = values[:, :, None]
        if values.shape[2] != len(series):
            raise ValueError(f"trial must return {len(series)} value(s) (one per series); got {values.shape[2]}")
        values = np.moveaxis(values, 2, 0)
    elif per == "trial":
        streams = as_generator(seed).spawn(trials)
        outs = _run_jobs(trial, [(g,) for g in streams], n_jobs=n_jobs, backend=backend, progress=None)
        curves = []
        for out in outs:
            if isinstance(out, tuple):
                out, more = out
                for k, v in more.items():
                    trial_extras.setdefault(k, []).append(v)
            arr = np.asarray(out, dtype=float)
            if arr.shape != (len(series), len(grid)):
                raise ValueError(f"trial must return an array of shape (len(series), len(grid)) = "
                                 f"({len(series)}, {len(grid)}); got {arr.shape}")
            curves.append(arr)
        values = np.stack(curves, axis=-1)
    else:
        raise ValueError(f"per must be one of ['point', 'trial']; got {per!r}")
    more = dict(extras() if callable(extras) else (extras or {}))
    more.update(trial_extras)
    result = ExperimentResult.from_values(function=name, parameters=params, seed=seed, axis=axis, grid=grid,
                                          series=series, values=values, band=band, confidence=confidence,
                                          value_range=value_range, extras=more)
    if store is not None:
        store.put(key, result.to_dict(), identity)  # a filesystem error is logged there, never raised
    return result


def _cache_slot(name: str, params: dict, seed: int):
    """``(cache, key, identity)`` of a result, or Nones when caching is off or the code cannot be hashed."""
    from .cache import code_fingerprint, get_cache

    store = get_cache()
    if store is None or not store.usable:
        return None, None, None
    try:
        version = f"{__version__}+{code_fingerprint()}"
    except OSError as exc:  # the package's source cannot be read: no key that follows the code
        store._log_once("fingerprint", f"off: cannot hash the package's source ({exc})")
        return None, None, None
    identity = {"function": name, "parameters": params, "seed": seed, "version": version}
    return store, store.key(**identity), identity


def _from_cache(doc, name, params, seed, axis, grid, series, trials) -> ExperimentResult | None:
    """The cached result if it is a valid result of exactly this call (else None: recomputed and overwritten)."""
    try:
        got = ExperimentResult.from_dict(doc, cached=True)
    except (ValueError, TypeError):
        return None
    same = (got.function == name and json.dumps(_plain(got.parameters), sort_keys=True) == json.dumps(
        params, sort_keys=True) and got.seed == seed and got.version == __version__ and got.axis == str(axis)
        and got.grid == tuple(_freeze(_plain(grid))) and got.series == tuple(str(s) for s in series)
        and got.trials == trials)
    return got if same else None


def check_runs(grid_size: int, trials: Any, maximum: int = MAX_RUNS, name: str = "trials") -> int:
    """Validate a trial count and ``grid_size × trials`` (the number of runs) against ``maximum``; return trials.

    Every experiment function calls it before any work, and :func:`run_experiment` on both routes.

    Examples
    --------
    >>> check_runs(64, 100)
    100
    >>> check_runs(1000, 10_000)
    Traceback (most recent call last):
    ...
    ValueError: grid size × trials must be <= 1,000,000 runs; got 1000 × 10000
    """
    trials = check_int(trials, name, low=1, high=maximum)
    if grid_size * trials > maximum:
        raise ValueError(f"grid size × {name} must be <= {maximum:,} runs; got {grid_size} × {trials}")
    return trials


def check_trials(trials: Any, maximum: int, name: str = "trials") -> int:
    """Validate a trial count in [1, maximum] (every experiment has a public maximum)."""
    return check_int(trials, name, low=1, high=maximum)


def check_grid(values: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, integer: bool = False, max_size: int = 64) -> tuple:
    """Validate a non-empty grid (sequence of numbers in a range, at most ``max_size`` of them).

    Examples
    --------
    >>> check_grid([0.5, 1, 2], "epsilons", low=0, low_open=True)
    (0.5, 1.0, 2.0)
    >>> check_grid([], "epsilons")
    Traceback (most recent call last):
    ...
    ValueError: epsilons must be a non-empty sequence of at most 64 numbers; got []
    """
    if isinstance(values, (numbers.Real, np.number)):
        values = [values]
    if isinstance(values, (str, bytes, Mapping)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a sequence of numbers; got {values!r} of type {type(values).__name__}")
    vals = list(values)
    if not 1 <= len(vals) <= max_size:
        raise ValueError(f"{name} must be a non-empty sequence of at most {max_size} numbers; got {vals!r}"[:200])
    out = []
    for i, v in enumerate(vals):
        if integer:
            out.append(check_int(v, f"{name}[{i}]", low=None if low is None else math.ceil(low),
                                 high=None if high is None else math.floor(high)))
        else:
            out.append(check_real(v, f"{name}[{i}]", low=low, high=high, low_open=low_open))
    return tuple(out)


def check_series(values: Any, name: str, choices: Sequence[str]) -> tuple[str, ...]:
    """Validate a non-empty list of distinct choices (e.g. mechanisms), kept in the order of ``choices``.

    Examples
    --------
    >>> check_series(["b", "a"], "mechanisms", ("a", "b", "c"))
    ('a', 'b')
    """
    if isinstance(values, str):
        values = [values]
    if not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of strings from {tuple(choices)}; got {values!r}")
    vals = [check_choice(v, f"{name} entry", tuple(choices)) for v in values]
    if not vals:
        raise ValueError(f"{name} must name at least one of {tuple(choices)}; got []")
    return tuple(c for c in choices if c in vals)
