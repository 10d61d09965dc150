"""The measured panels of the paper-1 dashboard as library functions (one call = one panel's numbers).

Every function validates its arguments, runs its trials with one spawned rng stream per (grid point,
trial) through :func:`dpexplore.core.experiment.run_experiment` (so serial, joblib and Dask runs give
the same numbers, and the optional result cache applies), and returns an
:class:`~dpexplore.core.ExperimentResult`. δ = 1/n² throughout, as in the dashboard.

Within a trial the graph comes from the first child of the trial's stream and mechanism ``m`` from
child ``1 + MECHANISM_ORDER.index(m)``: a mechanism's numbers do not depend on which other mechanisms
are measured, and all mechanisms of a trial see the same graph.

Examples
--------
>>> r = misclassification_vs_epsilon(120, 2, 0.4, 0.05, epsilons=[1.0, 4.0], mechanisms=["analyze_gauss"],
...                                  trials=2, rng=0)
>>> r.series, r.grid, r.values.shape
(('analyze_gauss',), (1.0, 4.0), (1, 2, 2))
"""

from __future__ import annotations

import functools
import time
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
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_probability

from .clustering import estimate_k_from_release, private_spectral_clustering, spectral_clustering, top_eigenpairs
from .data import sbm
from .mechanisms import analyze_gauss, matrix_shuffle, noisy_power_method
from .metrics import misclassification_rate, sin_theta_distance

__all__ = [
    "ACCOUNTANT_CHOICES",
    "EPSILONS",
    "MAX_N",
    "MAX_RUNS",
    "MAX_TRIALS",
    "MECHANISM_ORDER",
    "NS",
    "misclassification_vs_epsilon",
    "nonprivate_misclassification",
    "run_times",
    "spectrum",
    "subspace_error_vs_n",
]

#: the dashboard's grids
EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
NS = (100, 200, 400, 800)
MECHANISM_ORDER = ("shuffle", "analyze_gauss", "noisy_power")
ACCOUNTANT_CHOICES = ("none", "fmt21_numerical", "fmt23_numerical", "fmt21_closed_form")
#: public maxima: n×n dense releases (n = 10 000 is 800 MB per matrix) and trials per grid point
MAX_N = 10_000
MAX_TRIALS = 10_000
MAX_ITERATIONS = 1_000
#: most runs (grid values × trials) of one call, on every route (per point and per trial)
MAX_RUNS = 100_000


def _delta(n: int) -> float:
    return 1.0 / n**2


def _check_sbm(n, k, p, q, *, n_low: int = 4):
    n = check_int(n, "n", low=n_low, high=MAX_N)
    k = check_int(k, "k", low=2, high=max(2, n // 2))
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    if q >= p:
        raise ValueError(f"q must be < p (assortative communities); got p={p:g}, q={q:g}")
    return n, k, p, q


def _children(rng: np.random.Generator) -> list[np.random.Generator]:
    """Child 0: the graph; child 1 + i: mechanism MECHANISM_ORDER[i]."""
    return rng.spawn(1 + len(MECHANISM_ORDER))


def _misclassification_trial(eps, rng, *, n, k, p, q, mechanisms, accountant, iterations):
    kids = _children(rng)
    A, z = sbm(n, k, p, q, rng=kids[0])
    out = []
    for mech in mechanisms:
        res = private_spectral_clustering(A, k, mechanism=mech, epsilon=eps, delta=_delta(n), accountant=accountant,
                                          iterations=iterations, rng=kids[1 + MECHANISM_ORDER.index(mech)])
        out.append(misclassification_rate(z, res.labels))
    return out


def misclassification_vs_epsilon(
    n: int, k: int, p: float, q: float, *, epsilons: Sequence[float] = EPSILONS,
    mechanisms: Sequence[str] = MECHANISM_ORDER, accountant: str = "none", iterations: int = 10, trials: int = 3,
    rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 1: fraction of misclassified vertices (best label matching) vs ε, per mechanism.

    Each (ε, trial) draws its own SBM(n, k, p, q) graph and runs every mechanism on it with
    δ = 1/n². ``accountant`` sets how matrix shuffling's ε is counted (``"none"``: ε0 = ε, sound).
    The band is the t-band intersected with [0, 1].

    Examples
    --------
    >>> r = misclassification_vs_epsilon(100, 2, 0.5, 0.02, epsilons=[8.0], mechanisms=["shuffle"], trials=2,
    ...                                  rng=1)
    >>> bool(0 <= r.lower[0, 0] <= r.mean[0, 0] <= r.upper[0, 0] <= 1)
    True
    """
    n, k, p, q = _check_sbm(n, k, p, q)
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    mechs = check_series(mechanisms, "mechanisms", MECHANISM_ORDER)
    accountant = check_choice(accountant, "accountant", ACCOUNTANT_CHOICES)
    iterations = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    trials = check_runs(len(eps), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    params = dict(n=n, k=k, p=p, q=q, epsilons=list(eps), mechanisms=list(mechs), accountant=accountant,
                  iterations=iterations, trials=trials)
    trial = functools.partial(_misclassification_trial, n=n, k=k, p=p, q=q, mechanisms=mechs, accountant=accountant,
                              iterations=iterations)
    return run_experiment(misclassification_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=mechs,
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0))


def _nonprivate_trial(n_, rng, *, k, p, q):
    kids = _children(rng)
    A, z = sbm(n_, k, p, q, rng=kids[0])
    return [misclassification_rate(z, spectral_clustering(A, k, rng=kids[1]).labels)]


def nonprivate_misclassification(n: int, k: int, p: float, q: float, *, trials: int = 3, rng: RNGLike = None,
                                 n_jobs: int | None = None) -> ExperimentResult:
    """Panel 1's grey line: misclassification of non-private spectral clustering (grid: the one n).

    Examples
    --------
    >>> r = nonprivate_misclassification(100, 2, 0.5, 0.02, trials=2, rng=0)
    >>> r.series, r.grid
    (('non-private',), (100,))
    """
    n, k, p, q = _check_sbm(n, k, p, q)
    trials = check_runs(1, check_trials(trials, MAX_TRIALS), MAX_RUNS)
    trial = functools.partial(_nonprivate_trial, k=k, p=p, q=q)
    return run_experiment(nonprivate_misclassification, dict(n=n, k=k, p=p, q=q, trials=trials), trial, axis="n",
                          grid=[n], series=["non-private"], trials=trials, rng=rng, n_jobs=n_jobs,
                          value_range=(0.0, 1.0))


def _subspace_trial(n_, rng, *, k, p, q, epsilon, mechanisms, accountant, iterations):
    kids = _children(rng)
    A, _ = sbm(n_, k, p, q, rng=kids[0])
    g_u = kids[0].spawn(1)[0]
    u = top_eigenpairs(A, k, rng=g_u)[1]
    out = []
    for mech in mechanisms:
        g = kids[1 + MECHANISM_ORDER.index(mech)]
        if mech == "shuffle":
            rel = matrix_shuffle(A, epsilon=epsilon, delta=_delta(n_), accountant=accountant, rng=g)
            uh = rel.unshuffle(top_eigenpairs(rel.debiased(), k, rng=g)[1])
        elif mech == "analyze_gauss":
            uh = top_eigenpairs(analyze_gauss(A, epsilon=epsilon, delta=_delta(n_), rng=g).matrix, k, rng=g)[1]
        else:
            uh = noisy_power_method(A, k=k, epsilon=epsilon, delta=_delta(n_), iterations=iterations, rng=g).embedding
        out.append(sin_theta_distance(uh, u) ** 2)
    return out


def subspace_error_vs_n(
    k: int, p: float, q: float, *, epsilon: float, ns: Sequence[int] = NS,
    mechanisms: Sequence[str] = MECHANISM_ORDER, accountant: str = "none", iterations: int = 10, trials: int = 2,
    rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 2: ‖sin Θ(Û_private, Û)‖²_F between private and non-private top-k eigenvectors of the same graph, vs n.

    Values lie in [0, k]; the band is intersected with that range.

    Examples
    --------
    >>> r = subspace_error_vs_n(2, 0.5, 0.05, epsilon=4.0, ns=[100, 200], mechanisms=["analyze_gauss"], trials=1,
    ...                         rng=0)
    >>> r.axis, r.values.shape
    ('n', (1, 2, 1))
    """
    ns = check_grid(ns, "ns", low=4, high=MAX_N, integer=True)
    _check_sbm(min(ns), k, p, q)
    k = int(k)
    epsilon = check_epsilon(epsilon)
    mechs = check_series(mechanisms, "mechanisms", MECHANISM_ORDER)
    accountant = check_choice(accountant, "accountant", ACCOUNTANT_CHOICES)
    iterations = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    trials = check_runs(len(ns), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    params = dict(k=k, p=float(p), q=float(q), epsilon=epsilon, ns=list(ns), mechanisms=list(mechs),
                  accountant=accountant, iterations=iterations, trials=trials)
    trial = functools.partial(_subspace_trial, k=k, p=float(p), q=float(q), epsilon=epsilon, mechanisms=mechs,
                              accountant=accountant, iterations=iterations)
    return run_experiment(subspace_error_vs_n, params, trial, axis="n", grid=ns, series=mechs, trials=trials,
                          rng=rng, n_jobs=n_jobs, value_range=(0.0, float(k)))


def _projected_top(mat, m: int, rng) -> np.ndarray:
    """Top-m eigenvalues of Π M Π (Π = I − 11ᵀ/n), the matrix the gap detector looks at."""
    dense = mat.toarray() if hasattr(mat, "toarray") else np.asarray(mat, dtype=float)
    dense = dense - dense.mean(0, keepdims=True)
    dense -= dense.mean(1, keepdims=True)
    return top_eigenpairs(dense, m, rng=rng)[0]


def _spectrum_trial(rng, *, n, k, p, q, epsilon, accountant, m):
    kids = _children(rng)
    A, _ = sbm(n, k, p, q, rng=kids[0])
    g = kids[1]
    rel = matrix_shuffle(A, epsilon=epsilon, delta=_delta(n), accountant=accountant, rng=g)
    spec_shuffle = _projected_top(rel.debiased(), m, g)
    est = estimate_k_from_release(rel, k_max=m - 1, rng=g)
    spec_true = _projected_top(A, m, g)
    g2 = kids[2]
    spec_gauss = _projected_top(analyze_gauss(A, epsilon=epsilon, delta=_delta(n), rng=g2).matrix, m, g2)
    extras = {"k_hat": int(est.k), "bulk_edge": float(est.bulk_edge), "epsilon0": float(rel.epsilon0)}
    return np.stack([spec_true, spec_shuffle, spec_gauss]), extras


def spectrum(n: int, k: int, p: float, q: float, *, epsilon: float, accountant: str = "none", trials: int = 1,
             rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel 3: top eigenvalues of Π M Π for the true graph, the shuffled-debiased release and Analyze Gauss.

    Grid: the index j = 1 … m (m = min(2k + 4, 16)); one curve per trial. ``extras`` holds, per trial,
    the release's spectral-gap estimate ``k_hat``, its predicted ``bulk_edge`` and the ε0 used.

    Examples
    --------
    >>> r = spectrum(150, 2, 0.4, 0.05, epsilon=2.0, rng=0)
    >>> r.series, len(r.grid), sorted(r.extras)
    (('true', 'shuffle', 'analyze_gauss'), 8, ['bulk_edge', 'epsilon0', 'k_hat'])
    """
    n, k, p, q = _check_sbm(n, k, p, q, n_low=20)
    epsilon = check_epsilon(epsilon)
    accountant = check_choice(accountant, "accountant", ACCOUNTANT_CHOICES)
    m = min(2 * k + 4, 16)
    trials = check_runs(m, check_trials(trials, MAX_TRIALS), MAX_RUNS)
    trial = functools.partial(_spectrum_trial, n=n, k=k, p=p, q=q, epsilon=epsilon, accountant=accountant, m=m)
    return run_experiment(spectrum, dict(n=n, k=k, p=p, q=q, epsilon=epsilon, accountant=accountant, trials=trials),
                          trial, axis="j", grid=list(range(1, m + 1)), series=["true", "shuffle", "analyze_gauss"],
                          trials=trials, rng=rng, n_jobs=n_jobs, per="trial")


def _times_trial(rng, *, n, k, p, q, epsilon, accountant, iterations):
    kids = _children(rng)
    A, _ = sbm(n, k, p, q, rng=kids[0])
    out = []
    for i, mech in enumerate((*MECHANISM_ORDER, "none")):
        t0 = time.perf_counter()
        private_spectral_clustering(A, k, mechanism=mech, epsilon=epsilon, delta=_delta(n), accountant=accountant,
                                    iterations=iterations, rng=kids[1 + i % len(MECHANISM_ORDER)])
        out.append(time.perf_counter() - t0)
    return np.asarray(out)[:, None]


def run_times(n: int, k: int, p: float, q: float, *, epsilon: float, accountant: str = "none", iterations: int = 10,
              trials: int = 1, rng: RNGLike = None) -> ExperimentResult:
    """Panel 5 (right): wall-clock seconds of one full run (mechanism + eigenvectors + k-means) per mechanism.

    Wall-clock times depend on the machine and its load: this experiment is **never cached** and
    always runs serially (timings of parallel runs would measure the contention).

    Examples
    --------
    >>> r = run_times(100, 2, 0.5, 0.05, epsilon=1.0, rng=0)
    >>> r.series, bool(np.all(r.values > 0))
    (('shuffle', 'analyze_gauss', 'noisy_power', 'none'), True)
    """
    n, k, p, q = _check_sbm(n, k, p, q)
    epsilon = check_epsilon(epsilon)
    accountant = check_choice(accountant, "accountant", ACCOUNTANT_CHOICES)
    iterations = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    trials = check_runs(1, check_trials(trials, 100), MAX_RUNS)
    trial = functools.partial(_times_trial, n=n, k=k, p=p, q=q, epsilon=epsilon, accountant=accountant,
                              iterations=iterations)
    params = dict(n=n, k=k, p=p, q=q, epsilon=epsilon, accountant=accountant, iterations=iterations, trials=trials)
    return run_experiment(run_times, params, trial, axis="n", grid=[n], series=[*MECHANISM_ORDER, "none"],
                          trials=trials, rng=rng, per="trial", cache=False,
                          extras={"note": "wall-clock seconds on this machine under its current load; never cached"})
