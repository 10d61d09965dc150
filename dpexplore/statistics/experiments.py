"""The measured panels of the private-statistics page as library functions (one call = one panel's numbers).

The data: one column of the diabetes table (:func:`dpexplore.statistics.data.load_diabetes`), its first n
rows in a fixed public order (a permutation with seed :data:`ORDER_SEED`, so a smaller n is a subsample
that does not change with the trial seed), or ``values`` given directly (an upload). Bounds: the column's
public range [L, U_pub]; the clipping bound is U = L + ``clip``·(U_pub − L).

Each function runs its trials on spawned streams through :func:`dpexplore.core.experiment.run_experiment`
and returns an :class:`~dpexplore.core.ExperimentResult`; compare with the exact curves of
:func:`exact_mse` (bias² + noise variance, or the quantile's exact law).

Examples
--------
>>> r = mse_vs_epsilon("bmi", "mean", epsilons=[0.5, 2.0], trials=20, rng=0)
>>> r.series, r.values.shape
(('squared error',), (1, 2, 20))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_array, check_choice, check_epsilon, check_int, check_real

from .data import COLUMNS, PUBLIC_BOUNDS, load_diabetes
from .mechanisms import (
    MAX_BINS,
    MAX_ROWS_PER_PERSON,
    _add_noise,
    noise_sd,
    private_histogram,
    private_mean,
    private_quantile,
    quantile_law,
    true_histogram,
)

__all__ = [
    "CLIPS",
    "CS",
    "EPSILONS",
    "MAX_TRIALS",
    "MAX_VALUES",
    "ORDER_SEED",
    "PAGE_STATISTICS",
    "column_data",
    "exact_mse",
    "histogram_release",
    "mse_vs_bound",
    "mse_vs_epsilon",
    "mse_vs_rows_per_person",
]

#: the page's statistics (the quantile is the median)
PAGE_STATISTICS = ("count", "histogram", "mean", "median")
#: the panels' grids
EPSILONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
CLIPS = tuple(float(x) for x in np.round(np.linspace(0.05, 1.0, 20), 4))
CS = (1, 2, 3, 5, 8, 12, 20)
#: public maxima
MAX_TRIALS = 10_000
MAX_VALUES = 50_000
#: the fixed public order of the rows (a subsample of n is the first n in this order)
ORDER_SEED = 20_040_401


def column_data(column: str = "bmi", *, n: int | None = None, clip: float = 1.0, values=None,
                lower: float | None = None, upper: float | None = None) -> tuple[np.ndarray, float, float, float]:
    """(x, L, U, U_pub): the first n rows of a column in the fixed order, the public lower bound, the clipping
    bound U = L + clip·(U_pub − L) and the public upper bound.

    ``values`` (an upload, at most :data:`MAX_VALUES`) replaces the diabetes column; then ``lower`` and
    ``upper`` are the public bounds the user states.

    Examples
    --------
    >>> x, lo, u, top = column_data("age", n=100, clip=0.5)
    >>> x.size, lo, u, top
    (100, 18.0, 54.0, 90.0)
    """
    if values is None:
        col = check_choice(column, "column", COLUMNS)
        x = load_diabetes().column(col)
        _, lo, top = PUBLIC_BOUNDS[col]
    else:
        x = check_array(values, "values", ndim=1, min_size=2, max_size=MAX_VALUES)
        if lower is None or upper is None:
            raise ValueError("lower and upper (the public bounds) are required with values")
        lo, top = check_real(lower, "lower"), check_real(upper, "upper")
        if not top > lo:
            raise ValueError(f"upper must be > lower; got lower={lo:g}, upper={top:g}")
    order = np.random.default_rng(ORDER_SEED).permutation(x.size)
    nn = x.size if n is None else check_int(n, "n", low=2, high=x.size)
    f = check_real(clip, "clip", low=0.0, high=1.0, low_open=True)
    return x[order[:nn]], float(lo), float(lo + f * (top - lo)), float(top)


def _stat_args(statistic, epsilon, rows_per_person, bins):
    stat = check_choice(statistic, "statistic", PAGE_STATISTICS)
    eps = check_epsilon(epsilon) if epsilon is not None else None
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    b = check_int(bins, "bins", low=1, high=MAX_BINS)
    return stat, eps, c, b


def exact_mse(statistic: str, x, *, lower: float, upper: float, epsilon: float, rows_per_person: int = 1,
              bins: int = 10) -> tuple[float, float]:
    """(bias², variance) of the page's release of ``statistic`` on x (Laplace noise; exact).

    count: (0, 2(c/ε)²); histogram: per cell (0, 2(c/ε)²); mean (public n, clipped to [L, U]):
    (clipping bias², 2(c(U − L)/(nε))²); median: the exponential mechanism's exact law on [L, U] gives
    E(Y − m)² = Σ_i P_i·E[(Y − m)² | gap i] with Y uniform on the gap, m the true median; reported as
    (bias², variance) of that law.

    Examples
    --------
    >>> exact_mse("count", [1.0, 2.0], lower=0, upper=1, epsilon=0.5)
    (0.0, 8.0)
    """
    stat, eps, c, _ = _stat_args(statistic, epsilon, rows_per_person, bins)
    arr = np.asarray(x, dtype=float)
    if stat in ("count", "histogram"):
        return 0.0, noise_sd("laplace", epsilon=eps, sensitivity=c) ** 2
    if stat == "mean":
        bias = float(np.clip(arr, lower, upper).mean() - arr.mean())
        return bias**2, noise_sd("laplace", epsilon=eps, sensitivity=c * (upper - lower) / arr.size) ** 2
    z, p = quantile_law(arr, 0.5, lower=lower, upper=upper, epsilon=eps, rows_per_person=c)
    a, b = z[:-1], z[1:]
    m = float(np.quantile(arr, 0.5))
    mean = float(np.sum(p * (a + b) / 2))
    second = float(np.sum(p * (a * a + a * b + b * b) / 3))  # E[Y²] of a uniform on [a, b]
    return (mean - m) ** 2, max(0.0, second - mean * mean)


def _squared_error(stat, x, lo, u, eps, c, bins, gen) -> float:
    if stat == "count":
        r = _add_noise(float(x.size), noise="laplace", sensitivity=float(c), epsilon=eps, delta=0.0, gen=gen)[0]
        return (r - x.size) ** 2
    if stat == "histogram":
        h = private_histogram(x, bins=bins, lower=lo, upper=u, epsilon=eps, rows_per_person=c, rng=gen)
        truth, _ = true_histogram(x, h.edges)
        return float(np.mean((h.raw_counts - truth) ** 2))
    if stat == "mean":
        return (private_mean(x, lower=lo, upper=u, epsilon=eps, rows_per_person=c, rng=gen).value - x.mean()) ** 2
    r = private_quantile(x, 0.5, lower=lo, upper=u, epsilon=eps, rows_per_person=c, rng=gen)
    return (r.value - float(np.quantile(x, 0.5))) ** 2


def _eps_trial(eps, rng, *, stat, x, lo, u, c, bins):
    return [_squared_error(stat, x, lo, u, float(eps), c, bins, rng)]


def mse_vs_epsilon(column: str = "bmi", statistic: str = "mean", *, clip: float = 0.5, n: int | None = None,
                   rows_per_person: int = 1, bins: int = 10, epsilons: Sequence[float] = EPSILONS,
                   trials: int = 200, values=None, lower: float | None = None, upper: float | None = None,
                   rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "error vs ε": the squared error of one release (Laplace noise; histogram: the mean over its
    cells; median: the exponential mechanism) vs ε (series ``squared error``). Compare with
    :func:`exact_mse` (bias² + variance).

    Examples
    --------
    >>> r = mse_vs_epsilon("age", "count", epsilons=[1.0], trials=400, rng=0)
    >>> bool(abs(r.mean[0, 0] - 2.0) < 0.6)  # 2(c/ε)² = 2
    True
    """
    stat, _, c, b = _stat_args(statistic, None, rows_per_person, bins)
    x, lo, u, _ = column_data(column, n=n, clip=clip, values=values, lower=lower, upper=upper)
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(column=column, statistic=stat, clip=float(clip), n=int(x.size), rows_per_person=c, bins=b,
                  epsilons=list(eps), trials=trials, values=None if values is None else [float(v) for v in values],
                  lower=lower, upper=upper)
    trial = functools.partial(_eps_trial, stat=stat, x=x, lo=lo, u=u, c=c, bins=b)
    return run_experiment(mse_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=["squared error"],
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, math.inf))


def _bound_trial(clip, rng, *, stat, x, lo, top, eps, c):
    return [_squared_error(stat, x, lo, lo + float(clip) * (top - lo), eps, c, 1, rng)]


def mse_vs_bound(column: str = "bmi", statistic: str = "mean", *, epsilon: float = 1.0, n: int | None = None,
                 rows_per_person: int = 1, clips: Sequence[float] = CLIPS, trials: int = 200, values=None,
                 lower: float | None = None, upper: float | None = None, rng: RNGLike = None,
                 n_jobs: int | None = None) -> ExperimentResult:
    """Panel "the clipping bound": the squared error of the private mean (or median) vs the clipping bound
    U = L + clip·(U_pub − L) (series ``squared error``). Compare with :func:`exact_mse` at each bound.

    Examples
    --------
    >>> r = mse_vs_bound("bmi", clips=[0.2, 1.0], trials=50, rng=0)
    >>> r.grid
    (0.2, 1.0)
    """
    stat = check_choice(statistic, "statistic", ("mean", "median"))
    eps = check_epsilon(epsilon)
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    x, lo, _, top = column_data(column, n=n, values=values, lower=lower, upper=upper)
    grid = check_grid(clips, "clips", low=0.0, high=1.0, low_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(column=column, statistic=stat, epsilon=eps, n=int(x.size), rows_per_person=c, clips=list(grid),
                  trials=trials, values=None if values is None else [float(v) for v in values],
                  lower=lower, upper=upper)
    trial = functools.partial(_bound_trial, stat=stat, x=x, lo=lo, top=top, eps=eps, c=c)
    return run_experiment(mse_vs_bound, params, trial, axis="clip", grid=grid, series=["squared error"],
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, math.inf))


def _hist_trial(rng, *, x, lo, u, eps, c, bins):
    h = private_histogram(x, bins=bins, lower=lo, upper=u, epsilon=eps, rows_per_person=c,
                          postprocess=("round", "nonnegative"), rng=rng)
    return np.vstack([h.raw_counts, h.counts])


def histogram_release(column: str = "bmi", *, epsilon: float = 1.0, clip: float = 1.0, n: int | None = None,
                      rows_per_person: int = 1, bins: int = 10, trials: int = 50, values=None,
                      lower: float | None = None, upper: float | None = None,
                      rng: RNGLike = None) -> ExperimentResult:
    """Panel "released histogram": each trial's released counts per bin (grid: the bin centres) on the public
    bins [L, U]: series ``noisy`` (true + Laplace(c/ε)) and ``rounded, ≥ 0`` (post-processed).

    Examples
    --------
    >>> r = histogram_release("age", bins=5, trials=3, rng=0)
    >>> r.series, len(r.grid)
    (('noisy', 'rounded, ≥ 0'), 5)
    """
    eps = check_epsilon(epsilon)
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    b = check_int(bins, "bins", low=1, high=200)
    x, lo, u, _ = column_data(column, n=n, clip=clip, values=values, lower=lower, upper=upper)
    trials = check_trials(trials, MAX_TRIALS)
    edges = np.linspace(lo, u, b + 1)
    centres = [float(v) for v in (edges[:-1] + edges[1:]) / 2]
    params = dict(column=column, epsilon=eps, clip=float(clip), n=int(x.size), rows_per_person=c, bins=b,
                  trials=trials, values=None if values is None else [float(v) for v in values],
                  lower=lower, upper=upper)
    trial = functools.partial(_hist_trial, x=x, lo=lo, u=u, eps=eps, c=c, bins=b)
    return run_experiment(histogram_release, params, trial, axis="bin centre", grid=centres,
                          series=["noisy", "rounded, ≥ 0"], trials=trials, rng=rng, per="trial")


def _c_trial(c, rng, *, stat, x, lo, u, eps, bins):
    return [_squared_error(stat, x, lo, u, eps, int(c), bins, rng)]


def mse_vs_rows_per_person(column: str = "bmi", statistic: str = "mean", *, epsilon: float = 1.0,
                           clip: float = 0.5, n: int | None = None, bins: int = 10, cs: Sequence[int] = CS,
                           trials: int = 200, values=None, lower: float | None = None,
                           upper: float | None = None, rng: RNGLike = None,
                           n_jobs: int | None = None) -> ExperimentResult:
    """Panel "the unit of privacy": the squared error when each person may own up to c rows (the noise
    grows with c; the data stay the same) vs c (series ``squared error``). Compare with :func:`exact_mse`.

    Examples
    --------
    >>> r = mse_vs_rows_per_person("age", "count", cs=[1, 4], trials=100, rng=0)
    >>> bool(r.mean[0, 1] > 4 * r.mean[0, 0])  # variance grows as c²
    True
    """
    stat, eps, _, b = _stat_args(statistic, epsilon, 1, bins)
    x, lo, u, _ = column_data(column, n=n, clip=clip, values=values, lower=lower, upper=upper)
    grid = check_grid(cs, "cs", low=1, high=MAX_ROWS_PER_PERSON, integer=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(column=column, statistic=stat, epsilon=eps, clip=float(clip), n=int(x.size), bins=b,
                  cs=list(grid), trials=trials, values=None if values is None else [float(v) for v in values],
                  lower=lower, upper=upper)
    trial = functools.partial(_c_trial, stat=stat, x=x, lo=lo, u=u, eps=eps, bins=b)
    return run_experiment(mse_vs_rows_per_person, params, trial, axis="rows per person", grid=grid,
                          series=["squared error"], trials=trials, rng=rng, n_jobs=n_jobs,
                          value_range=(0.0, math.inf))
