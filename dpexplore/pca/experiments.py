"""The measured panels of the paper-2 dashboard as library functions (one call = one panel's numbers).

Each function validates its arguments and runs through :func:`dpexplore.core.experiment.run_experiment`:
independent spawned streams (serial = joblib = Dask), an :class:`~dpexplore.core.ExperimentResult`, and
the optional result cache. δ = 1e-5 and T = ``default_iterations(d, κ)`` as in the dashboard. Within
a trial the data come from the trial stream's child 0 and method ``METHODS[i]`` from child ``1 + i``,
so a method's numbers do not depend on the others.

Examples
--------
>>> r = error_vs_epsilon(200, 20, kappa=0.8, coherence=0.1, epsilons=[1.0, 30.0], trials=1, rng=0)
>>> r.series
('adaptive', 'worst', 'gauss', 'nonprivate')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import (
    ExperimentResult,
    check_grid,
    check_runs,
    check_series,
    check_trials,
    run_experiment,
)
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_epsilon, check_int, check_real

from .data import MAX_CELLS, make_matrix, spiked_gaussian
from .mechanisms import (
    adaptive_power_iteration,
    analyze_gauss,
    default_iterations,
    noisy_power_iteration,
    power_iteration,
)
from .metrics import sin2

__all__ = [
    "DELTA",
    "EPSILONS",
    "MAX_RUNS",
    "MAX_TRIALS",
    "METHODS",
    "NS_IID",
    "error_vs_coherence",
    "error_vs_epsilon",
    "error_vs_n_iid",
    "thresholds_per_iteration",
]

DELTA = 1e-5
EPSILONS = tuple(float(e) for e in np.geomspace(0.3, 100.0, 7))
NS_IID = (200, 400, 800, 1600, 3200)
METHODS = ("adaptive", "worst", "gauss", "nonprivate")
MAX_TRIALS = 10_000
#: most runs (grid values × trials) of one call, on every route (per point and per trial)
MAX_RUNS = 100_000
MAX_D = 4_000  # Analyze Gauss forms a d×d matrix


def _run(method: str, A: np.ndarray, eps: float, T: int, rng) -> np.ndarray:
    if method == "adaptive":
        return adaptive_power_iteration(A, epsilon=eps, delta=DELTA, iterations=T, rng=rng).vector
    if method == "worst":
        return noisy_power_iteration(A, epsilon=eps, delta=DELTA, iterations=T, rng=rng).vector
    if method == "gauss":
        return analyze_gauss(A, epsilon=eps, delta=DELTA, rng=rng).vector
    return power_iteration(A, iterations=T, rng=rng).vector


def _check_shape(n, d, kappa):
    n = check_int(n, "n", low=2)
    d = check_int(d, "d", low=2, high=MAX_D)
    if n * d > MAX_CELLS:
        raise ValueError(f"n*d must be <= {MAX_CELLS:,} (memory); got n = {n}, d = {d}")
    kappa = check_real(kappa, "kappa", low=0.0, high=1.0, low_open=True)
    return n, d, kappa


def _coherence(coherence, n) -> float:
    """Υ below 1/√n (the smallest possible) is raised to it, as in the dashboard."""
    return max(check_real(coherence, "coherence", low=0.0, high=1.0, low_open=True), 1.0 / math.sqrt(n))


def _eps_trial(rng, *, n, d, kappa, coherence, epsilons, methods, T):
    kids = rng.spawn(1 + len(METHODS))
    data = make_matrix(n, d, eigengap=kappa, coherence=coherence, rng=kids[0])
    out = np.empty((len(methods), len(epsilons)))
    for s, m in enumerate(methods):
        if m == "nonprivate":  # ignores ε: one run per trial
            out[s] = sin2(data.v1, _run(m, data.A, 1.0, T, kids[1 + METHODS.index(m)]))
            continue
        streams = kids[1 + METHODS.index(m)].spawn(len(epsilons))
        for i, eps in enumerate(epsilons):
            out[s, i] = sin2(data.v1, _run(m, data.A, eps, T, streams[i]))
    return out, {"sigma1": float(data.sigma1), "sigma2": float(data.sigma2), "coherence": float(data.coherence)}


def error_vs_epsilon(
    n: int, d: int, *, kappa: float, coherence: float, epsilons: Sequence[float] = EPSILONS,
    methods: Sequence[str] = METHODS, trials: int = 3, rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 1: sin²(v1, x) vs total ε for each method, on ``make_matrix`` data with eigengap κ and coherence Υ.

    One data set per trial, shared by every ε and method of the trial (one stream per trial); the
    non-private power iteration ignores ε. ``extras`` holds each trial's σ1, σ2 and realised
    coherence (the theory curves use them). Values lie in [0, 1].

    Examples
    --------
    >>> r = error_vs_epsilon(200, 20, kappa=0.8, coherence=0.1, epsilons=[100.0], methods=["adaptive"], trials=2,
    ...                      rng=0)
    >>> r.values.shape, len(r.extras["sigma1"])
    ((1, 1, 2), 2)
    """
    n, d, kappa = _check_shape(n, d, kappa)
    ups = _coherence(coherence, n)
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    methods = check_series(methods, "methods", METHODS)
    trials = check_runs(len(eps), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    T = default_iterations(d, kappa)
    params = dict(n=n, d=d, kappa=kappa, coherence=ups, epsilons=list(eps), methods=list(methods), trials=trials)
    trial = functools.partial(_eps_trial, n=n, d=d, kappa=kappa, coherence=ups, epsilons=eps, methods=methods, T=T)
    return run_experiment(error_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=methods, trials=trials,
                          rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0), per="trial", extras={"iterations": T})


def _coherence_trial(u, rng, *, n, d, kappa, epsilon, methods, T):
    kids = rng.spawn(1 + len(METHODS))
    data = make_matrix(n, d, eigengap=kappa, coherence=u, rng=kids[0])
    return [sin2(data.v1, _run(m, data.A, epsilon, T, kids[1 + METHODS.index(m)])) for m in methods] \
        + [float(data.coherence)]


def error_vs_coherence(
    n: int, d: int, *, kappa: float, epsilon: float, coherences: Sequence[float] | None = None,
    methods: Sequence[str] = ("adaptive", "worst", "gauss"), trials: int = 3, rng: RNGLike = None,
    n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 2: sin²(v1, x) vs the coherence Υ of the data at one ε.

    ``coherences`` defaults to 6 values from 1/√n to 1 (geometric). Each (Υ, trial) draws its own
    data. The last series, ``"realised coherence"``, is the data's measured Υ (the x positions drawn).

    Examples
    --------
    >>> r = error_vs_coherence(200, 20, kappa=0.8, epsilon=10.0, coherences=[0.1, 1.0], methods=["adaptive"],
    ...                        trials=1, rng=0)
    >>> r.series
    ('adaptive', 'realised coherence')
    """
    n, d, kappa = _check_shape(n, d, kappa)
    epsilon = check_epsilon(epsilon)
    if coherences is None:
        coherences = [float(u) for u in np.geomspace(1.0 / math.sqrt(n), 1.0, 6)]
    grid = check_grid(coherences, "coherences", low=1.0 / math.sqrt(n) * (1 - 1e-12), high=1.0)
    methods = check_series(methods, "methods", METHODS)
    trials = check_runs(len(grid), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    T = default_iterations(d, kappa)
    params = dict(n=n, d=d, kappa=kappa, epsilon=epsilon, coherences=list(grid), methods=list(methods),
                  trials=trials)
    trial = functools.partial(_coherence_trial, n=n, d=d, kappa=kappa, epsilon=epsilon, methods=methods, T=T)
    return run_experiment(error_vs_coherence, params, trial, axis="coherence", grid=grid,
                          series=[*methods, "realised coherence"], trials=trials, rng=rng, n_jobs=n_jobs,
                          value_range=(0.0, 1.0))


def _thresholds_trial(rng, *, n, d, kappa, coherence, epsilon, T):
    kids = rng.spawn(1 + len(METHODS))
    data = make_matrix(n, d, eigengap=kappa, coherence=coherence, rng=kids[0])
    run = adaptive_power_iteration(data.A, epsilon=epsilon, delta=DELTA, iterations=T, rng=kids[1], v1=data.v1)
    curves = np.stack([run.thresholds, run.max_scores, np.asarray(run.rows_filtered, dtype=float)])
    return curves, {"m0": int(run.m0), "epsilon_svt_step": float(run.epsilon_svt_step)}


def thresholds_per_iteration(n: int, d: int, *, kappa: float, coherence: float, epsilon: float, trials: int = 3,
                             rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel 3: the adaptive method's private thresholds θ_t, the true largest contribution, rows left out, per t.

    Grid: iteration t = 1 … T. Series ``"threshold"`` (θ_t chosen by AboveThreshold),
    ``"max_score"`` (max‖a‖·|⟨a, x_t⟩|, a non-private diagnostic) and ``"rows_filtered"``.
    ``extras``: per trial, the SVT target ``m0`` and ``epsilon_svt_step``.

    Examples
    --------
    >>> r = thresholds_per_iteration(200, 20, kappa=0.8, coherence=0.1, epsilon=10.0, trials=1, rng=0)
    >>> r.series, r.grid[:2]
    (('threshold', 'max_score', 'rows_filtered'), (1, 2))
    """
    n, d, kappa = _check_shape(n, d, kappa)
    ups = _coherence(coherence, n)
    epsilon = check_epsilon(epsilon)
    T = default_iterations(d, kappa)
    trials = check_runs(T, check_trials(trials, MAX_TRIALS), MAX_RUNS)
    trial = functools.partial(_thresholds_trial, n=n, d=d, kappa=kappa, coherence=ups, epsilon=epsilon, T=T)
    return run_experiment(thresholds_per_iteration, dict(n=n, d=d, kappa=kappa, coherence=ups, epsilon=epsilon,
                                                         trials=trials),
                          trial, axis="iteration", grid=list(range(1, T + 1)),
                          series=["threshold", "max_score", "rows_filtered"], trials=trials, rng=rng, n_jobs=n_jobs,
                          per="trial")


def _iid_trial(n_, rng, *, d, kappa, epsilon, methods, T):
    kids = rng.spawn(1 + len(METHODS))
    data = spiked_gaussian(n_, d, eigengap=kappa, rng=kids[0])
    return [sin2(data.v1, _run(m, data.A, epsilon, T, kids[1 + METHODS.index(m)])) for m in methods] \
        + [float(data.sigma1)]


def error_vs_n_iid(
    d: int, *, kappa: float, epsilon: float, ns: Sequence[int] = NS_IID, methods: Sequence[str] = METHODS,
    trials: int = 3, rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 4: sin²(v1, x) vs n for i.i.d. N(0, Σ²) rows with a spiked Σ² of trace 1 (Theorem 1.2's setting).

    The last series, ``"sigma1"``, is each data set's σ1 (the theory curve uses it).

    Examples
    --------
    >>> r = error_vs_n_iid(10, kappa=0.8, epsilon=10.0, ns=[200, 400], methods=["nonprivate"], trials=1, rng=0)
    >>> r.series, r.grid
    (('nonprivate', 'sigma1'), (200, 400))
    """
    ns = check_grid(ns, "ns", low=2, integer=True)
    for n_ in ns:
        _check_shape(n_, d, kappa)
    d, kappa = int(d), float(kappa)
    epsilon = check_epsilon(epsilon)
    methods = check_series(methods, "methods", METHODS)
    trials = check_runs(len(ns), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    T = default_iterations(d, kappa)
    params = dict(d=d, kappa=kappa, epsilon=epsilon, ns=list(ns), methods=list(methods), trials=trials)
    trial = functools.partial(_iid_trial, d=d, kappa=kappa, epsilon=epsilon, methods=methods, T=T)
    return run_experiment(error_vs_n_iid, params, trial, axis="n", grid=ns, series=[*methods, "sigma1"],
                          trials=trials, rng=rng, n_jobs=n_jobs)
