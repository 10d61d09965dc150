"""The measured panels of the intro track as library functions (one call = one panel's numbers).

Each function validates its arguments, runs its trials on spawned streams through
:func:`dpexplore.core.experiment.run_experiment` (serial, joblib and Dask runs give the same numbers; the
result cache applies) and returns an :class:`~dpexplore.core.ExperimentResult`, so
``python -m dpexplore.experiments basics.<name>`` runs them too.

Examples
--------
>>> r = error_vs_epsilon(100, epsilons=[0.5, 2.0], trials=20, rng=0)
>>> r.series, r.values.shape
(('laplace', 'gaussian', 'rr'), (3, 2, 20))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.audit import audit_from_scores
from dpexplore.core.experiment import ExperimentResult, check_grid, check_series, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.randomized_response import flip_probability
from dpexplore.core.validation import check_choice, check_int, check_real

from .game import likelihood_ratio_guess
from .mechanisms import MAX_PEOPLE, MECHANISMS, release_count
from .theory import MAX_RELEASES, check_release_args, noise_sd, output_law, pair_privacy_loss, release_pair

__all__ = [
    "EPSILONS",
    "KS",
    "MAX_RUNS",
    "MAX_TRIALS",
    "NS",
    "TRUE_FRACTION",
    "attacker_success",
    "composition_audit",
    "error_vs_epsilon",
    "privacy_loss_tail",
    "release_histogram",
    "rr_estimate_vs_n",
]

#: the dashboards' grids
EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
NS = (50, 100, 200, 500, 1000, 2000, 5000)
KS = (1, 2, 5, 10, 20, 50, 100)
#: the fraction of "yes" in the intro track's data sets
TRUE_FRACTION = 0.3
#: public maxima
MAX_RUNS = 1_000_000
MAX_TRIALS = 10_000
#: bins of a release histogram
HIST_BINS = 60


def true_count(n: int) -> int:
    """The true count of the intro track's data set of n people: round(0.3·n), at most n − 1.

    Examples
    --------
    >>> true_count(100)
    30
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    return min(int(round(TRUE_FRACTION * n)), n - 1)


def _check_runs(runs) -> int:
    return check_int(runs, "runs", low=20, high=MAX_RUNS)


def histogram_edges(mechanism: str, *, epsilon: float, delta: float, sensitivity: float, n: int) -> np.ndarray:
    """The bin edges the release histogram uses: ±5 noise sd around the pair's counts (integers for
    randomized response)."""
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    c = true_count(n)
    sd = noise_sd(mech, epsilon=eps, delta=d, sensitivity=sens, n=n)
    lo, hi = c - 5 * sd, c + sens + 5 * sd
    if mech == "rr":
        mu = flip_probability(eps)
        centre = c * (1 - mu) + (n - c) * mu  # the "yes" count's mean on A
        half = 5 * math.sqrt(n * mu * (1 - mu)) + 2
        lo, hi = max(-0.5, math.floor(centre - half) - 0.5), min(n + 0.5, math.ceil(centre + half) + 1.5)
        step = max(1, int(math.ceil((hi - lo) / HIST_BINS)))
        return np.arange(lo, hi + step, step, dtype=float)
    return np.linspace(lo, hi, HIST_BINS + 1)


def _hist_trial(rng, *, mech, eps, d, sens, n, runs, edges):
    c = true_count(n)
    a, b = rng.spawn(2)
    out = []
    for cc, g in ((c, a), (c + (1 if mech == "rr" else sens), b)):
        if mech == "rr":  # the number of "yes" among the n flipped answers
            mu = flip_probability(eps)
            y = g.binomial(int(cc), 1 - mu, runs) + g.binomial(n - int(cc), mu, runs)
        else:
            y = cc + release_pair(mech, np.zeros(runs, dtype=int), epsilon=eps, delta=d, sensitivity=sens, rng=g)
        h, _ = np.histogram(y, bins=edges)
        width = np.diff(edges)
        out.append(h / runs / (width if mech != "rr" else width / np.maximum(np.round(width), 1)))
    return np.array(out)


def release_histogram(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                      n: int = 100, runs: int = 20_000, rng: RNGLike = None) -> ExperimentResult:
    """Panel "the picture of DP": the released value's histogram on data set A and on its neighbour B.

    Series ``A`` and ``B`` on the bin centres (``grid``): the density estimate (Laplace, Gaussian: fraction
    of ``runs`` per unit) or the probability per count (randomized response: the number of "yes"). One
    trial of ``runs`` releases per data set. Compare with :func:`dpexplore.basics.theory.output_law`.

    Examples
    --------
    >>> r = release_histogram("laplace", epsilon=1.0, runs=2000, rng=0)
    >>> r.series, len(r.grid)
    (('A', 'B'), 60)
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    runs = _check_runs(runs)
    edges = histogram_edges(mech, epsilon=eps, delta=d, sensitivity=sens, n=n)
    centres = (edges[:-1] + edges[1:]) / 2
    params = dict(mechanism=mech, epsilon=eps, delta=d, sensitivity=sens, n=n, runs=runs)
    trial = functools.partial(_hist_trial, mech=mech, eps=eps, d=d, sens=sens, n=n, runs=runs, edges=edges)
    return run_experiment(release_histogram, params, trial, axis="output", grid=[float(x) for x in centres],
                          series=["A", "B"], trials=1, rng=rng, per="trial")


def loss_grid(epsilon: float) -> np.ndarray:
    """The thresholds t at which :func:`privacy_loss_tail` reports P(L > t): −2ε … 2ε (at least ±1)."""
    top = 2.0 * max(float(epsilon), 0.5)
    return np.linspace(-top, top, 81)


def _loss_trial(rng, *, mech, eps, d, sens, n, runs, grid):
    if mech == "rr":  # the "yes" count of n answers on A; its loss from the exact law of the count
        c = true_count(n)
        mu = flip_probability(eps)
        y = rng.binomial(c, 1 - mu, runs) + rng.binomial(n - c, mu, runs)
        k = np.arange(n + 1)
        pa, pb = output_law("rr", k, count=c, n=n, epsilon=eps)
        with np.errstate(divide="ignore"):
            table = np.log(pa) - np.log(pb)
        loss = table[y]
    else:
        loss = pair_privacy_loss(mech, release_pair(mech, np.zeros(runs, dtype=int), epsilon=eps, delta=d,
                                                    sensitivity=sens, rng=rng), epsilon=eps, delta=d,
                                 sensitivity=sens)
    srt = np.sort(loss)
    return (1.0 - np.searchsorted(srt, grid, side="right") / runs)[None, :]


def privacy_loss_tail(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                      n: int = 100, runs: int = 20_000, rng: RNGLike = None) -> ExperimentResult:
    """Panel "privacy loss": the fraction of ``runs`` releases on data set A whose privacy loss
    L = ln(p_A(y)/p_B(y)) exceeds t, on the grid :func:`loss_grid` (series ``loss``).

    Compare with :func:`dpexplore.basics.theory.privacy_loss_survival`: ε-DP mechanisms never exceed ε;
    the Gaussian mechanism does, on outputs of total probability P(L > ε), which is larger than δ (16δ
    at ε = 1, δ = 10⁻⁵): δ bounds the excess mass P_A(S) − e^ε·P_B(S), not that probability.

    Examples
    --------
    >>> r = privacy_loss_tail("laplace", epsilon=1.0, runs=1000, rng=0)
    >>> float(r.values[0, -1, 0])
    0.0
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    runs = _check_runs(runs)
    grid = loss_grid(eps)
    params = dict(mechanism=mech, epsilon=eps, delta=d, sensitivity=sens, n=n, runs=runs)
    trial = functools.partial(_loss_trial, mech=mech, eps=eps, d=d, sens=sens, n=n, runs=runs, grid=grid)
    return run_experiment(privacy_loss_tail, params, trial, axis="t", grid=[float(x) for x in grid], series=["loss"],
                          trials=1, rng=rng, per="trial", value_range=(0.0, 1.0))


def _error_trial(eps, rng, *, n, delta, sens, mechanisms):
    c = true_count(n)
    kids = rng.spawn(len(MECHANISMS))
    return [abs(release_count(c, n, mechanism=m, epsilon=eps, delta=delta, sensitivity=sens,
                              rng=kids[MECHANISMS.index(m)]).value - c) for m in mechanisms]


def error_vs_epsilon(n: int, *, sensitivity: float = 1.0, delta: float = 1e-5, epsilons: Sequence[float] = EPSILONS,
                     mechanisms: Sequence[str] = MECHANISMS, trials: int = 200, rng: RNGLike = None,
                     n_jobs: int | None = None) -> ExperimentResult:
    """Panel "error": |released count − true count| vs ε, per mechanism (randomized response: the
    debiased count from n flipped answers; it ignores ``sensitivity``).

    Compare with :func:`dpexplore.basics.theory.expected_abs_error`.

    Examples
    --------
    >>> r = error_vs_epsilon(200, epsilons=[1.0], mechanisms=["laplace"], trials=400, rng=1)
    >>> bool(abs(r.mean[0, 0] - 1.0) < 0.15)  # E|Laplace(1)| = 1
    True
    """
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    check_release_args("laplace", 1.0, delta, sensitivity)
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    mechs = check_series(mechanisms, "mechanisms", MECHANISMS)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(n=n, sensitivity=float(sensitivity), delta=float(delta), epsilons=list(eps),
                  mechanisms=list(mechs), trials=trials)
    trial = functools.partial(_error_trial, n=n, delta=float(delta), sens=float(sensitivity), mechanisms=mechs)
    return run_experiment(error_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=mechs, trials=trials,
                          rng=rng, n_jobs=n_jobs)


def _rr_trial(n_, rng, *, eps, fraction, confidence):
    from scipy import special

    n_ = int(n_)
    c = int(round(fraction * n_))
    mu = flip_probability(eps)
    yes = rng.binomial(c, 1 - mu) + rng.binomial(n_ - c, mu)
    ybar = yes / n_
    est = (ybar - mu) / (1 - 2 * mu)
    half = float(special.ndtri(0.5 + confidence / 2)) * math.sqrt(ybar * (1 - ybar) / n_) / (1 - 2 * mu)
    return [ybar, est, float(abs(est - c / n_) <= half)]


def rr_estimate_vs_n(*, epsilon: float, fraction: float = TRUE_FRACTION, ns: Sequence[int] = NS, trials: int = 200,
                     confidence: float = 0.95, rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "randomized response": a survey of n people, each flipping their answer with μ = 1/(e^ε + 1).

    Series ``raw`` (fraction of "yes" answers: biased towards 1/2), ``debiased`` ((ȳ − μ)/(1 − 2μ)) and
    ``covered`` (1 when the survey's Wald interval at ``confidence`` contains the true fraction).

    Examples
    --------
    >>> r = rr_estimate_vs_n(epsilon=1.0, ns=[1000], trials=100, rng=0)
    >>> r.series
    ('raw', 'debiased', 'covered')
    """
    from dpexplore.core.validation import check_epsilon

    eps = check_epsilon(epsilon)
    frac = check_real(fraction, "fraction", low=0.0, high=1.0)
    ns_ = check_grid(ns, "ns", low=1, high=MAX_PEOPLE, integer=True)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(epsilon=eps, fraction=frac, ns=list(ns_), trials=trials, confidence=conf)
    trial = functools.partial(_rr_trial, eps=eps, fraction=frac, confidence=conf)
    return run_experiment(rr_estimate_vs_n, params, trial, axis="n", grid=ns_, series=["raw", "debiased", "covered"],
                          trials=trials, rng=rng, n_jobs=n_jobs)


def _attack_trial(eps, rng, *, mech, delta, sens, rounds, broken):
    secret = (rng.random(rounds) < 0.5).astype(int)
    out = release_pair(mech, secret, epsilon=eps, delta=delta, sensitivity=sens, broken=broken, rng=rng)
    return [float(np.mean(likelihood_ratio_guess(mech, out, sensitivity=sens) == secret))]


def attacker_success(mechanism: str, *, epsilons: Sequence[float] = EPSILONS, delta: float = 1e-5,
                     sensitivity: float = 1.0, rounds: int = 200, trials: int = 20, broken: bool = False,
                     rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "play the attacker": the success rate of the best guesser (likelihood ratio) over ``rounds``
    fair-coin rounds of "A or B?", vs ε (series ``optimal attacker``).

    ``broken=True`` plays against the mechanism with half the noise (a privacy bug): its success can
    exceed the ε-DP bound. Compare with :func:`dpexplore.core.risk.attacker_success_bound` and
    :func:`dpexplore.basics.theory.lr_attacker_success`.

    Examples
    --------
    >>> r = attacker_success("rr", epsilons=[1.0], rounds=500, trials=4, rng=0)
    >>> bool(0.6 < r.mean[0, 0] < 0.85)
    True
    """
    mech, _, d, sens = check_release_args(mechanism, 1.0, delta, sensitivity)
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    rounds = check_int(rounds, "rounds", low=1, high=MAX_RUNS)
    trials = check_trials(trials, MAX_TRIALS)
    broken = bool(broken)
    params = dict(mechanism=mech, epsilons=list(eps), delta=d, sensitivity=sens, rounds=rounds, trials=trials,
                  broken=broken)
    trial = functools.partial(_attack_trial, mech=mech, delta=d, sens=sens, rounds=rounds, broken=broken)
    return run_experiment(attacker_success, params, trial, axis="epsilon", grid=eps, series=["optimal attacker"],
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0))


def _composition_trial(k, rng, *, mech, eps, delta, runs):
    from dpexplore.core.gaussian import gaussian_sigma

    k = int(k)
    g0, g1 = rng.spawn(2)
    if mech == "gaussian":  # the sum of the k outputs is sufficient: N(0, kσ²) vs N(kΔ, kσ²)
        s = gaussian_sigma(eps, delta, 1.0) * math.sqrt(k)
        s0, s1 = g0.normal(0.0, s, runs), g1.normal(float(k), s, runs)
    else:  # the optimal score: minus the summed privacy loss of the k releases
        s0 = -pair_privacy_loss("laplace", g0.laplace(0.0, 1.0 / eps, (k, runs)), epsilon=eps).sum(axis=0)
        s1 = -pair_privacy_loss("laplace", 1.0 + g1.laplace(0.0, 1.0 / eps, (k, runs)), epsilon=eps).sum(axis=0)
    return [audit_from_scores(s0, s1, delta=delta).epsilon_lower]


def composition_audit(mechanism: str, *, epsilon: float, delta: float = 1e-5, ks: Sequence[int] = KS,
                      runs: int = 20_000, rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "composition": the audited lower bound ε̂ (95% confidence, at total δ) of k releases of the
    same count, each the Laplace mechanism at ε or the Gaussian mechanism calibrated to (ε, δ), vs k
    (series ``epsilon_lower``; one audit of ``runs`` runs per data set for each k).

    Examples
    --------
    >>> r = composition_audit("laplace", epsilon=1.0, ks=[1, 4], runs=4000, rng=0)
    >>> bool(np.all(r.values[0, :, 0] <= [1.0, 4.0]))
    True
    """
    mech = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    _, eps, d, _ = check_release_args(mech, epsilon, delta, 1.0)
    ks_ = check_grid(ks, "ks", low=1, high=MAX_RELEASES, integer=True)
    runs = _check_runs(runs)
    if max(ks_) * runs > 50 * MAX_RUNS:
        raise ValueError(f"max(ks) * runs must be <= {50 * MAX_RUNS}; got {max(ks_) * runs}")
    params = dict(mechanism=mech, epsilon=eps, delta=d, ks=list(ks_), runs=runs)
    trial = functools.partial(_composition_trial, mech=mech, eps=eps, delta=d, runs=runs)
    return run_experiment(composition_audit, params, trial, axis="k", grid=ks_, series=["epsilon_lower"], trials=1,
                          rng=rng, n_jobs=n_jobs)
