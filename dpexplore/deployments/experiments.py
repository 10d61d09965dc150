"""The measured panels of the deployments page (the TopDown mini-lab) as library functions.

The geography is fixed by its seed ``geo_seed`` (:func:`dpexplore.deployments.data.toy_geography`); each trial draws
fresh noise on a spawned stream through :func:`dpexplore.core.experiment.run_experiment`.

* :func:`bias_by_block_size`: mean (released − true) of the blocks in each true-size bin, after the
  post-processing and for the raw measurements (unbiased: the discrete Gaussian has mean 0).
* :func:`error_by_level`: root mean squared error at each level, released vs raw (raw state and
  nation totals are the sums of the raw county measurements); the raw error's exact value is
  √Var N_Z(0, σ²) at the county and block levels (:func:`dpexplore.deployments.theory.raw_rmse`).

Examples
--------
>>> r = bias_by_block_size(rho=0.1, trials=3, rng=0)
>>> r.series, r.values.shape
(('post-processed', 'raw measurement'), (2, 8, 3))
"""

from __future__ import annotations

import functools

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_int

from .data import DEFAULT_SEED, toy_geography
from .metrics import LEVELS, SIZE_BINS, bias_by_size, rmse
from .topdown import level_rhos, topdown

__all__ = ["MAX_TRIALS", "PAGE_BIAS", "bias_by_block_size", "error_by_level"]

#: what the page says about the bias at its defaults (ρ = 0.1 split evenly, 50 trials): the range of the
#: mean (released − true) over seeds 0–9, rounded to 0.1, for empty blocks, blocks of 1–2 people and
#: blocks of 11 or more (tests/deployments/test_topdown.py recomputes it)
PAGE_BIAS = {"rho": 0.1, "block_share": 0.5, "trials": 50,
             "empty": (1.0, 1.2), "one_or_two": (0.3, 0.5), "eleven_plus": (-0.2, -0.1)}

#: most trials one call runs
MAX_TRIALS = 2_000


@functools.lru_cache(maxsize=8)
def _geo(shape, seed):
    s, c, b = shape
    return toy_geography(s, c, b, seed=seed)


def _bias_trial(rho, share, shape, seed, gen):
    g = _geo(shape, seed)
    r = topdown(g, rho=rho, block_share=share, rng=gen)
    return np.vstack([bias_by_size(g.blocks, r.blocks), bias_by_size(g.blocks, r.noisy_blocks)])


def _level_trial(rho, share, shape, seed, gen):
    g = _geo(shape, seed)
    r = topdown(g, rho=rho, block_share=share, rng=gen)
    released = [rmse([g.nation], [r.counties.sum()]), rmse(g.states, r.counties.sum(axis=1)),
                rmse(g.counties, r.counties), rmse(g.blocks, r.blocks)]
    raw = [rmse([g.nation], [r.noisy_counties.sum()]), rmse(g.states, r.noisy_counties.sum(axis=1)),
           rmse(g.counties, r.noisy_counties), rmse(g.blocks, r.noisy_blocks)]
    return np.vstack([released, raw])


def _check(rho, block_share, shape, geo_seed, trials):
    level_rhos(rho, block_share)
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise ValueError(f"shape must be (states, counties, blocks); got {shape!r}"[:200])
    shape = tuple(check_int(x, f"shape[{i}]", low=1) for i, x in enumerate(shape))
    _geo(shape, check_int(geo_seed, "geo_seed", low=0))
    return shape, check_trials(trials, MAX_TRIALS)


def bias_by_block_size(*, rho: float = 0.1, block_share: float = 0.5, shape=(4, 5, 10), geo_seed: int = DEFAULT_SEED,
                       trials: int = 50, rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Mean (released − true) per true block-size bin (``metrics.SIZE_BINS``), over ``trials`` noise draws.

    Series: ``"post-processed"`` (the TopDown release) and ``"raw measurement"`` (mean 0 in law).
    The grid is each bin's lower edge (labels: ``metrics.bin_labels()``). A bin with no block is NaN.

    Examples
    --------
    >>> r = bias_by_block_size(rho=0.1, trials=2, rng=0)
    >>> from dpexplore.deployments.metrics import bin_labels
    >>> r.grid[:3], bin_labels()[:3]
    ((0, 1, 3), ('0', '1–2', '3–5'))
    """
    shape, trials = _check(rho, block_share, shape, geo_seed, trials)
    params = {"rho": float(rho), "block_share": float(block_share), "shape": list(shape), "geo_seed": int(geo_seed)}
    return run_experiment(bias_by_block_size, params,
                          functools.partial(_bias_trial, float(rho), float(block_share), shape, int(geo_seed)),
                          axis="true block count (bin's lower edge)", grid=[lo for lo, _ in SIZE_BINS],
                          series=["post-processed", "raw measurement"], trials=trials, rng=rng, n_jobs=n_jobs,
                          per="trial")


def error_by_level(*, rho: float = 0.1, block_share: float = 0.5, shape=(4, 5, 10), geo_seed: int = DEFAULT_SEED,
                   trials: int = 50, rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Root mean squared error at each level (``metrics.LEVELS``), released vs raw, over ``trials`` draws.

    The grid is the level's index into ``metrics.LEVELS``. The released nation and state totals are the
    invariants: their error is exactly 0.

    Examples
    --------
    >>> r = error_by_level(rho=0.1, trials=2, rng=0)
    >>> r.grid, LEVELS
    ((0, 1, 2, 3), ('nation', 'state', 'county', 'block'))
    """
    shape, trials = _check(rho, block_share, shape, geo_seed, trials)
    params = {"rho": float(rho), "block_share": float(block_share), "shape": list(shape), "geo_seed": int(geo_seed)}
    return run_experiment(error_by_level, params,
                          functools.partial(_level_trial, float(rho), float(block_share), shape, int(geo_seed)),
                          axis="level (0 nation, 1 state, 2 county, 3 block)", grid=list(range(len(LEVELS))),
                          series=["post-processed", "raw measurement"],
                          trials=trials, rng=rng, n_jobs=n_jobs, per="trial")
