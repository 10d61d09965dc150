"""The measured panels of the local-model page as library functions (one call = one panel's numbers).

The data: :func:`dpexplore.local.data.zipf_answers` (n answers to a k-choice question, generated with a
fixed seed), or ``values`` given directly (e.g. a class poll's answers). The error of one release is the
mean over the k values of (f̂(v) − f(v))², the squared error of the frequency estimates; compare with the
exact expected value of :func:`expected_mse` (from the closed-form variances, all estimators unbiased).

Examples
--------
>>> r = oracle_mse_vs_epsilon(k=4, n=500, epsilons=[1.0], trials=20, rng=0)
>>> r.series
('k-RR', 'SUE (basic RAPPOR)', 'OUE', 'OLH', 'Hadamard response')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_array, check_choice, check_delta, check_int, check_real

from .data import MAX_ZIPF_S, true_counts, zipf_answers
from .mechanisms import MAX_CELLS, MAX_EPSILON, MAX_K, MAX_N, ORACLE_NAMES, ORACLES, _values, estimate, randomize
from .models import central_count_variance, shuffle_epsilon0
from .theory import frequency_mse

__all__ = ["EPSILONS", "MAX_TRIALS", "MODELS", "expected_mse", "model_mse_vs_epsilon", "oracle_mse_vs_epsilon",
           "page_data"]

#: the panels' ε grid
EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0)
#: the most trials of a panel
MAX_TRIALS = 2_000
#: the comparison's series: model name → (oracle, how ε is spent)
MODELS = {"central Laplace": None, "local k-RR": "krr", "local OUE": "oue", "shuffled k-RR": "krr"}


def page_data(*, k: int = 8, n: int = 1000, s: float = 1.1, values=None) -> tuple[np.ndarray, int]:
    """(values, k): the generated Zipf answers, or ``values`` (validated to {0..k−1}).

    Examples
    --------
    >>> v, k = page_data(k=4, n=10)
    >>> v.size, k
    (10, 4)
    """
    k = check_int(k, "k", low=2, high=MAX_K)
    if values is None:
        return zipf_answers(n, k=k, s=check_real(s, "s", low=0.0, high=MAX_ZIPF_S)), k
    return _values(values, k), k


def _cost_check(n: int, k: int, oracles) -> None:
    if any(o in ("sue", "oue", "olh") for o in oracles) and n * k > MAX_CELLS:
        raise ValueError(f"n*k must be <= {MAX_CELLS:,} for the unary encodings and OLH (memory); got n = {n}, k = {k}")


def expected_mse(model: str, *, counts, epsilon: float, delta: float = 1e-6) -> float:
    """Exact expected squared error of the frequency estimates, averaged over the k values.

    ``model``: an oracle name (local at ε), ``"central Laplace"`` or ``"shuffled k-RR"`` (k-RR at
    :func:`dpexplore.local.models.shuffle_epsilon0`), or one of :data:`MODELS`.

    Examples
    --------
    >>> round(expected_mse("central Laplace", counts=[50, 50], epsilon=1.0), 6)  # 8/ε² / n²
    0.0008
    """
    c = check_array(counts, "counts", ndim=1, min_size=2, max_size=MAX_K)
    n = int(round(c.sum()))
    if model == "central Laplace":
        return central_count_variance(epsilon) / n**2
    if model == "shuffled k-RR":
        e0 = shuffle_epsilon0(epsilon, n=n, k=c.size, delta=delta)
        return frequency_mse("krr", counts=c, epsilon=e0)
    oracle = MODELS.get(model, model)
    return frequency_mse(check_choice(oracle, "model", ORACLES + tuple(MODELS)), counts=c, epsilon=epsilon)


def _mse(oracle, v, k, eps, truth, gen) -> float:
    est = estimate(randomize(v, oracle=oracle, k=k, epsilon=eps, rng=gen)).frequencies
    return float(np.mean((est - truth) ** 2))


def _oracle_trial(eps, rng, *, v, k, oracles):
    truth = np.bincount(v, minlength=k) / v.size
    return [_mse(o, v, k, float(eps), truth, rng) for o in oracles]


def oracle_mse_vs_epsilon(*, k: int = 8, n: int = 1000, s: float = 1.1, oracles: Sequence[str] = ORACLES,
                          epsilons: Sequence[float] = EPSILONS, trials: int = 100, values=None,
                          rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "the five oracles": the squared error of each oracle's frequency estimates vs ε (one series per
    oracle, named by :data:`~dpexplore.local.ORACLE_NAMES`). Compare with :func:`expected_mse`.

    Examples
    --------
    >>> r = oracle_mse_vs_epsilon(k=4, n=2000, oracles=["krr"], epsilons=[1.0], trials=200, rng=0)
    >>> v, _ = page_data(k=4, n=2000)
    >>> bool(abs(r.mean[0, 0] / expected_mse("krr", counts=true_counts(v, 4), epsilon=1.0) - 1) < 0.2)
    True
    """
    v, k = page_data(k=k, n=n, s=s, values=values)
    orc = tuple(check_choice(o, "oracles", ORACLES) for o in oracles)
    if not orc:
        raise ValueError("oracles must name at least one oracle; got []")
    _cost_check(v.size, k, orc)
    eps = check_grid(epsilons, "epsilons", low=0.0, high=MAX_EPSILON, low_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(k=k, n=int(v.size), s=float(s), oracles=list(orc), epsilons=list(eps), trials=trials,
                  values=None if values is None else v.tolist())
    trial = functools.partial(_oracle_trial, v=v, k=k, oracles=orc)
    return run_experiment(oracle_mse_vs_epsilon, params, trial, axis="epsilon", grid=eps,
                          series=[ORACLE_NAMES[o] for o in orc], trials=trials, rng=rng, n_jobs=n_jobs,
                          value_range=(0.0, math.inf))


def _model_trial(e, rng, *, v, k, e0s):
    truth = np.bincount(v, minlength=k) / v.size
    e = float(e)
    lap = rng.laplace(0.0, 2.0 / e, size=k) / v.size  # central: counts + Laplace(2/ε), as frequencies
    return [float(np.mean(lap**2)), _mse("krr", v, k, e, truth, rng), _mse("oue", v, k, e, truth, rng),
            _mse("krr", v, k, e0s[e], truth, rng)]


def model_mse_vs_epsilon(*, k: int = 8, n: int = 1000, s: float = 1.1, delta: float = 1e-6,
                         epsilons: Sequence[float] = EPSILONS, trials: int = 100, values=None,
                         rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "local vs shuffle vs central": the squared error of the frequency estimates at the same ε on the
    same data, for the four series of :data:`MODELS` (see :mod:`dpexplore.local.models`; the shuffled series is
    (ε, δ)-DP, the others ε-DP). ``result.extras["epsilon0"]`` is the shuffled k-RR's local ε0 per grid point.

    Examples
    --------
    >>> r = model_mse_vs_epsilon(k=4, n=500, epsilons=[1.0], trials=5, rng=0)
    >>> r.series[0], r.extras["epsilon0"][0] > 1.0
    ('central Laplace', True)
    """
    v, k = page_data(k=k, n=n, s=s, values=values)
    if v.size < 2:
        raise ValueError(f"n must be >= 2 for the shuffle model; got {v.size}")
    _cost_check(v.size, k, ("oue",))
    d = check_delta(delta)
    eps = check_grid(epsilons, "epsilons", low=0.0, high=MAX_EPSILON, low_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    e0s = tuple(shuffle_epsilon0(e, n=v.size, k=k, delta=d) for e in eps)
    params = dict(k=k, n=int(v.size), s=float(s), delta=d, epsilons=list(eps), trials=trials,
                  values=None if values is None else v.tolist())
    trial = functools.partial(_model_trial, v=v, k=k, e0s=dict(zip(eps, e0s)))
    return run_experiment(model_mse_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=list(MODELS),
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, math.inf),
                          extras={"epsilon0": list(e0s)})


_ = (MAX_N, true_counts)  # re-exported names used in doctests
