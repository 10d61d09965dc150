"""The measured panels of the private-ML page as library functions (one call = one panel's numbers).

Each returns an :class:`~dpexplore.core.ExperimentResult` (``python -m dpexplore.experiments ml.<name>``
runs them from the shell). The data set is :func:`dpexplore.ml.data.breast_cancer` (fixed split).

Examples
--------
>>> r = accuracy_vs_noise(noise_multipliers=[1.0, 8.0], trials=3, rng=0)
>>> r.series, r.values.shape
(('dp_sgd', 'non_private'), (2, 2, 3))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_choice, check_delta, check_int, check_probability, check_real

from .accounting import ACCOUNTANTS, MAX_STEPS, dpsgd_epsilon
from .accounting import epsilon_vs_steps as _eps_vs_steps
from .data import breast_cancer
from .mechanisms import MAX_HIDDEN, MODELS, accuracy, dp_sgd, sgd, train_logistic_batch

__all__ = ["NOISE_MULTIPLIERS", "STEP_GRID", "accuracy_vs_noise", "epsilon_vs_steps", "gradient_norms"]

#: the page's grids
NOISE_MULTIPLIERS = (0.7, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
STEP_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
MAX_TRIALS = 200
NORM_BINS = 40


def _common(model, hidden, steps, sampling_rate, clip_norm, lr, delta):
    return dict(model=check_choice(model, "model", MODELS), hidden=check_int(hidden, "hidden", low=1, high=MAX_HIDDEN),
                steps=check_int(steps, "steps", low=1, high=MAX_STEPS),
                sampling_rate=check_probability(sampling_rate, "sampling_rate", open_low=True),
                clip_norm=check_real(clip_norm, "clip_norm", low=1e-3, high=1e3),
                lr=check_real(lr, "lr", low=0.0, high=100.0, low_open=True), delta=check_delta(delta))


def _acc_trial(rng, *, kw, sigmas):
    data = breast_cancer()
    kids = rng.spawn(len(sigmas) + 1)  # one stream per σ, the last for plain SGD
    hidden = kw["hidden"]
    if kw["model"] == "logistic":  # all σ and plain SGD in one vectorised pass (same streams as dp_sgd)
        W = train_logistic_batch(data.X_train, data.y_train, noise_multipliers=list(sigmas) + [0.0],
                                 clip_norms=[kw["clip_norm"]] * len(sigmas) + [math.inf], rngs=kids,
                                 steps=kw["steps"], sampling_rate=kw["sampling_rate"], lr=kw["lr"])
    else:
        plain = {k: v for k, v in kw.items() if k not in ("clip_norm", "delta")}
        W = [dp_sgd(data.X_train, data.y_train, noise_multiplier=s, rng=g, **kw).weights
             for s, g in zip(sigmas, kids[:-1])] + [sgd(data.X_train, data.y_train, rng=kids[-1], **plain)]
    accs = [accuracy(w, data.X_test, data.y_test, hidden) for w in W]
    return np.array([accs[:-1], [accs[-1]] * len(sigmas)])


def accuracy_vs_noise(*, noise_multipliers: Sequence[float] = NOISE_MULTIPLIERS, model: str = "logistic",
                      hidden: int = 16, steps: int = 200, sampling_rate: float = 0.05, clip_norm: float = 1.0,
                      lr: float = 0.5, delta: float = 1e-5, trials: int = 10, rng: RNGLike = None,
                      n_jobs: int | None = None) -> ExperimentResult:
    """Panel "accuracy vs ε": test accuracy of DP-SGD at each noise multiplier σ, and of plain SGD.

    Series ``dp_sgd`` (DP-SGD at σ) and ``non_private`` (plain mini-batch SGD, same steps, rate and step
    size, its own batches; ``extras["epsilon"]`` is the ε at δ of each σ (PLD, Poisson sampling), the
    x axis the page plots.

    Examples
    --------
    >>> r = accuracy_vs_noise(noise_multipliers=[1.0], trials=2, rng=0)
    >>> [round(e, 2) for e in r.extras["epsilon"]]
    [4.77]
    """
    kw = _common(model, hidden, steps, sampling_rate, clip_norm, lr, delta)
    sig = check_grid(noise_multipliers, "noise_multipliers", low=0.05, high=1000.0)
    trials = check_trials(trials, MAX_TRIALS)
    eps = [dpsgd_epsilon(sampling_rate=kw["sampling_rate"], noise_multiplier=s, steps=kw["steps"],
                         delta=kw["delta"]) for s in sig]
    params = dict(noise_multipliers=list(sig), trials=trials, **kw)
    return run_experiment(accuracy_vs_noise, params, functools.partial(_acc_trial, kw=kw, sigmas=tuple(sig)),
                          axis="noise_multiplier", grid=list(sig), series=["dp_sgd", "non_private"], trials=trials,
                          rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0), extras={"epsilon": eps}, per="trial")


def _steps_trial(rng, *, q, sigma, delta, grid):
    r = _eps_vs_steps(sampling_rate=q, noise_multiplier=sigma, delta=delta, steps=list(grid))
    return np.array([r[a] for a in ACCOUNTANTS])


def epsilon_vs_steps(*, sampling_rate: float = 0.05, noise_multiplier: float = 1.0, delta: float = 1e-5,
                     steps: Sequence[int] = STEP_GRID, rng: RNGLike = 0) -> ExperimentResult:
    """Panel "ε vs steps": ε at δ after T steps by each accountant (``pld``, ``rdp``, ``none``, ``basic``).

    Deterministic (no randomness: ``rng`` only labels the result). All four are upper bounds; ``none`` is
    exact for the composition it describes (no amplification).

    Examples
    --------
    >>> r = epsilon_vs_steps(steps=[10, 100])
    >>> r.series
    ('pld', 'rdp', 'none', 'basic')
    """
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.05, high=1000.0)
    delta = check_delta(delta)
    grid = [check_int(t, "steps", low=1, high=MAX_STEPS) for t in steps]
    if not 1 <= len(grid) <= 50:
        raise ValueError(f"steps must list 1 to 50 step counts; got {len(grid)}")
    params = dict(sampling_rate=q, noise_multiplier=sigma, delta=delta, steps=grid)
    return run_experiment(epsilon_vs_steps, params, functools.partial(_steps_trial, q=q, sigma=sigma, delta=delta,
                                                                      grid=grid),
                          axis="steps", grid=grid, series=list(ACCOUNTANTS), trials=1, rng=rng, per="trial")


def norm_edges(clip_norm: float) -> np.ndarray:
    """Bin edges of the gradient-norm histogram: 0 … max(3C, 3) in :data:`NORM_BINS` bins (the last bin
    collects everything above)."""
    return np.linspace(0.0, max(3.0 * float(clip_norm), 3.0), NORM_BINS + 1)


def _norm_trial(rng, *, kw, sigma, edges):
    data = breast_cancer()
    r = dp_sgd(data.X_train, data.y_train, noise_multiplier=sigma, rng=rng, **kw)
    out = []
    for v in (r.norms_before, r.norms_after):
        h, _ = np.histogram(np.minimum(v, edges[-1] - 1e-12), bins=edges)
        out.append(h / max(v.size, 1))
    return np.array(out), {"clipped_fraction": r.clipped_fraction, "epsilon": r.epsilon,
                           "test_accuracy": r.accuracy(data.X_test, data.y_test),
                           "median_norm": float(np.median(r.norms_before)) if r.norms_before.size else math.nan}


def gradient_norms(*, noise_multiplier: float = 1.0, model: str = "logistic", hidden: int = 16, steps: int = 200,
                   sampling_rate: float = 0.05, clip_norm: float = 1.0, lr: float = 0.5, delta: float = 1e-5,
                   rng: RNGLike = None) -> ExperimentResult:
    """Panel "gradient norms": histogram of every per-example gradient norm of one training run, before
    and after clipping (series ``before``, ``after``: fraction of all per-example gradients per bin, on
    the bin centres; the last bin holds every norm ≥ its left edge). ``extras``: the clipped fraction,
    ε, test accuracy and median norm of the run.

    Examples
    --------
    >>> r = gradient_norms(steps=50, rng=0)
    >>> float(r.values[1].sum().round(6)), r.extras["clipped_fraction"][0] < 0.5
    (1.0, True)
    """
    kw = _common(model, hidden, steps, sampling_rate, clip_norm, lr, delta)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.0, high=1000.0)
    edges = norm_edges(kw["clip_norm"])
    centres = (edges[:-1] + edges[1:]) / 2
    params = dict(noise_multiplier=sigma, **kw)
    return run_experiment(gradient_norms, params, functools.partial(_norm_trial, kw=kw, sigma=sigma, edges=edges),
                          axis="gradient_norm", grid=[float(c) for c in centres], series=["before", "after"],
                          trials=1, rng=rng, per="trial")
