"""The measured panels of the Selection page as library functions (one call = one panel's numbers).

Each validates its arguments, runs its trials on spawned streams through
:func:`dpexplore.core.experiment.run_experiment` and returns an :class:`~dpexplore.core.ExperimentResult`, so
``python -m dpexplore.experiments selection.<name>`` runs them too.

The candidates (:func:`candidate_scores`): "which answer is the most common?" over a small poll of K answers;
the favourite has ``gap`` more votes than the runner-up, the others trail by one vote each. Generated here
(no download): a small histogram is what a selection question asks about.

Examples
--------
>>> r = output_law(k=4, gap=3, epsilon=1.0, runs=200, rng=0)
>>> r.series[:3]
('em exact', 'rnm exact', 'pf exact')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_positive, check_real

from .audit import AUDITED_SELECTORS, audit_selection, audit_svt
from .mechanisms import MAX_CANDIDATES_EXACT, _draw_scaled, noise_scale, select_many, selection_probabilities
from .svt import MAX_POSITIVES, SVT_VARIANTS, svt_spec, svt_variant
from .theory import em_loss_bound

__all__ = [
    "EPSILONS",
    "MAX_RUNS",
    "MAX_STREAM",
    "MAX_TRIALS",
    "PAGE_MECHANISMS",
    "candidate_scores",
    "em_tail_check",
    "loss_vs_epsilon",
    "output_law",
    "selection_audit",
    "stream_queries",
    "svt_audit",
    "svt_stream",
]

#: the page's ε grid
EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: the mechanisms the page compares
PAGE_MECHANISMS = ("em", "rnm", "pf")
#: public maxima
MAX_RUNS = 1_000_000
MAX_TRIALS = 100_000
MAX_STREAM = 60
#: the largest vote gap
MAX_GAP = 1000.0


def candidate_scores(k: int, gap: float) -> np.ndarray:
    """The page's candidates: votes for K answers; the favourite leads the runner-up by ``gap``.

    Votes: 40 + gap for the favourite, then 40, 39, … (one fewer for each further answer).

    Examples
    --------
    >>> candidate_scores(4, 5).tolist()
    [45.0, 40.0, 39.0, 38.0]
    """
    k = check_int(k, "k", low=2, high=MAX_CANDIDATES_EXACT)
    gap = check_real(gap, "gap", low=0.0, high=MAX_GAP)
    return np.concatenate([[40.0 + gap], 40.0 - np.arange(k - 1)])


def _sel_args(k, gap, epsilon, sensitivity):
    return candidate_scores(k, gap), check_epsilon(epsilon), check_positive(sensitivity, "sensitivity")


def _law_trial(rng, *, q, eps, sens, runs):
    kids = rng.spawn(len(PAGE_MECHANISMS))
    exact = [selection_probabilities(m, q, epsilon=eps, sensitivity=sens) for m in PAGE_MECHANISMS]
    sampled = []
    for m, g in zip(PAGE_MECHANISMS, kids):  # ``runs`` runs of the mechanism, drawn at once
        idx = select_many(m, q, epsilon=eps, sensitivity=sens, runs=runs, rng=g)
        sampled.append(np.bincount(idx, minlength=q.size) / runs)
    return np.array(exact + sampled)


def output_law(*, k: int = 5, gap: float = 3.0, epsilon: float = 1.0, sensitivity: float = 1.0, runs: int = 1000,
               rng: RNGLike = None) -> ExperimentResult:
    """Panel "who gets picked": each mechanism's exact output law and the frequencies of ``runs`` selections.

    Series ``<m> exact`` and ``<m> sampled`` for m in em, rnm (Laplace), pf, on the candidate index (0 = the
    favourite).

    Examples
    --------
    >>> r = output_law(k=3, gap=0, epsilon=1.0, runs=300, rng=0)
    >>> [round(float(x), 3) for x in r.mean[0]]  # scores 40, 40, 39: ∝ 1, 1, e^(−1/2)
    [0.384, 0.384, 0.233]
    """
    q, eps, sens = _sel_args(k, gap, epsilon, sensitivity)
    runs = check_int(runs, "runs", low=1, high=MAX_RUNS)
    series = [f"{m} exact" for m in PAGE_MECHANISMS] + [f"{m} sampled" for m in PAGE_MECHANISMS]
    params = dict(k=int(k), gap=float(gap), epsilon=eps, sensitivity=sens, runs=runs)
    trial = functools.partial(_law_trial, q=q, eps=eps, sens=sens, runs=runs)
    return run_experiment(output_law, params, trial, axis="candidate", grid=list(range(q.size)), series=series,
                          trials=1, rng=rng, per="trial", value_range=(0.0, 1.0))


def _loss_trial(rng, *, q, scaled):
    # one run of each mechanism at every ε of the grid (rows of ``scaled`` = q / (2Δ/ε)), drawn at once with
    # select_many's samplers (validated once by the caller): shape (series, grid)
    return np.array([q.max() - q[_draw_scaled(m, scaled, rng)] for m in PAGE_MECHANISMS])


def loss_vs_epsilon(*, k: int = 5, gap: float = 3.0, sensitivity: float = 1.0, epsilons: Sequence[float] = EPSILONS,
                    trials: int = 300, rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "utility": the loss OPT − q_out of one selection per trial vs ε (series em, rnm, pf).

    Compare the means with :func:`dpexplore.selection.theory.selection_expected_loss` (exact) and
    :func:`dpexplore.selection.theory.em_expected_loss_bound` (the theorem's bound).

    Examples
    --------
    >>> r = loss_vs_epsilon(k=3, gap=5, epsilons=[100.0], trials=20, rng=0)
    >>> r.mean[:, 0].tolist()
    [0.0, 0.0, 0.0]
    """
    q = candidate_scores(k, gap)
    sens = check_positive(sensitivity, "sensitivity")
    eps = check_grid(epsilons, "epsilons", low=0.0, low_open=True)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(k=int(k), gap=float(gap), sensitivity=sens, epsilons=list(eps), trials=trials)
    scaled = q[None, :] / np.array([noise_scale(e, sens) for e in eps])[:, None]
    trial = functools.partial(_loss_trial, q=q, scaled=scaled)
    return run_experiment(loss_vs_epsilon, params, trial, axis="epsilon", grid=eps, series=PAGE_MECHANISMS,
                          trials=trials, rng=rng, n_jobs=n_jobs, per="trial")


def _tail_trial(rng, *, q, eps, sens, runs, ts):
    loss = q.max() - q[select_many("em", q, epsilon=eps, sensitivity=sens, runs=runs, rng=rng)]
    bounds = [em_loss_bound(q.size, epsilon=eps, t=t, sensitivity=sens) for t in ts]
    return np.array([[float(np.mean(loss >= b)) for b in bounds], [math.exp(-t) for t in ts]])


def em_tail_check(*, k: int = 5, gap: float = 3.0, epsilon: float = 1.0, sensitivity: float = 1.0,
                  ts: Sequence[float] = (0.0, 0.5, 1.0, 2.0, 3.0), runs: int = 2000,
                  rng: RNGLike = None) -> ExperimentResult:
    """The exponential mechanism's utility theorem in simulation: the fraction of ``runs`` selections whose loss
    is at least (2Δ/ε)(ln K + t) (series ``measured``) beside the theorem's e^(−t) (series ``bound``).

    Examples
    --------
    >>> r = em_tail_check(k=4, epsilon=1.0, ts=[1.0], runs=500, rng=0)
    >>> bool(r.mean[0, 0] <= r.mean[1, 0])
    True
    """
    q, eps, sens = _sel_args(k, gap, epsilon, sensitivity)
    ts_ = check_grid(ts, "ts", low=0.0)
    runs = check_int(runs, "runs", low=1, high=MAX_RUNS)
    params = dict(k=int(k), gap=float(gap), epsilon=eps, sensitivity=sens, ts=list(ts_), runs=runs)
    trial = functools.partial(_tail_trial, q=q, eps=eps, sens=sens, runs=runs, ts=ts_)
    return run_experiment(em_tail_check, params, trial, axis="t", grid=ts_, series=["measured", "bound"], trials=1,
                          rng=rng, per="trial", value_range=(0.0, 1.0))


def stream_queries(n: int) -> np.ndarray:
    """The SVT panel's stream: daily counts of a rare event, baseline around 30 with spikes (generated here).

    Day i: 30 + 6·sin(i/2) rounded, except days 4, 9, 15, 22, 30, … (every few days, growing gaps) with 55.

    Examples
    --------
    >>> stream_queries(6).tolist()
    [30.0, 33.0, 35.0, 36.0, 55.0, 34.0]
    """
    n = check_int(n, "n", low=1, high=MAX_STREAM)
    i = np.arange(n)
    q = np.round(30 + 6 * np.sin(i / 2))
    spikes = [4, 9, 15, 22, 30, 39, 49, 59]
    q[[s for s in spikes if s < n]] = 55.0
    return q


def _stream_trial(rng, *, variant, q, thr, eps, c):
    res = svt_variant(variant, q, thr, epsilon=eps, c=c, rng=rng)
    pos = np.zeros(q.size)
    pos[list(res.positives)] = 1.0
    seen = np.zeros(q.size)
    seen[: res.queries_answered] = 1.0
    return np.array([pos, seen])


def svt_stream(*, n_queries: int = 30, threshold: float = 45.0, epsilon: float = 1.0, c: int = 3,
               variant: str = "lyu", trials: int = 200, rng: RNGLike = None) -> ExperimentResult:
    """Panel "sparse vector": over ``trials`` runs on :func:`stream_queries`, how often each query comes out ⊤
    (series ``positive``) and is examined at all (series ``examined``: SVT stops after c positives).

    Examples
    --------
    >>> r = svt_stream(n_queries=10, epsilon=50.0, c=2, trials=5, rng=0)
    >>> r.mean[0].tolist()
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    """
    q = stream_queries(n_queries)
    thr = check_real(threshold, "threshold", low=-1e6, high=1e6)
    eps = check_epsilon(epsilon)
    c = check_int(c, "c", low=1, high=MAX_POSITIVES)
    var = check_choice(variant, "variant", SVT_VARIANTS)
    trials = check_trials(trials, MAX_TRIALS)
    params = dict(n_queries=int(n_queries), threshold=thr, epsilon=eps, c=c, variant=var, trials=trials)
    trial = functools.partial(_stream_trial, variant=var, q=q, thr=thr, eps=eps, c=c)
    return run_experiment(svt_stream, params, trial, axis="query", grid=list(range(q.size)),
                          series=["positive", "examined"], trials=trials, rng=rng, per="trial",
                          value_range=(0.0, 1.0))


def _finite(x: float) -> float:
    return x if math.isfinite(x) else math.nan


def _svt_audit_trial(rng, *, eps, c, runs):
    rows, inf_exact, inf_pair = [], [], []
    for g, v in zip(rng.spawn(len(SVT_VARIANTS)), SVT_VARIANTS):
        a = audit_svt(v, epsilon=eps, c=c, runs=runs, rng=g)
        rows.append([a.claimed_epsilon, _finite(a.exact_epsilon), _finite(a.pair_epsilon), a.epsilon_lower,
                     float(a.violation)])
        inf_exact.append(not math.isfinite(a.exact_epsilon))
        inf_pair.append(not math.isfinite(a.pair_epsilon))
    return np.array(rows).T, {"exact_infinite": inf_exact, "pair_infinite": inf_pair}


def svt_audit(*, epsilon: float = 1.0, c: int = 2, runs: int = 20_000, rng: RNGLike = None) -> ExperimentResult:
    """Panel "audit" (SVT): per variant (the grid), the claimed ε, the exact worst-case ε, the loss on the worst
    pair, the measured ε̂ (95 % lower bound) and whether the claim is refuted (series ``refuted``: 1/0).

    Infinite ε are stored as NaN with ``extras["exact_infinite"]`` / ``extras["pair_infinite"]`` (per trial,
    per variant) set. See :func:`dpexplore.selection.audit.audit_svt`.

    Examples
    --------
    >>> r = svt_audit(epsilon=1.0, c=1, runs=400, rng=0)
    >>> r.grid[:2], r.extras["exact_infinite"][0][2]
    (('dwork-roth', 'lyu'), True)
    """
    eps = check_epsilon(epsilon)
    c = check_int(c, "c", low=1, high=8)
    runs = check_int(runs, "runs", low=20, high=MAX_RUNS)
    svt_spec("lyu", epsilon=eps, c=c)
    params = dict(epsilon=eps, c=c, runs=runs)
    trial = functools.partial(_svt_audit_trial, eps=eps, c=c, runs=runs)
    return run_experiment(svt_audit, params, trial, axis="variant", grid=list(SVT_VARIANTS),
                          series=["claimed", "exact", "pair", "measured", "refuted"], trials=1, rng=rng, per="trial")


def _sel_audit_trial(rng, *, eps, k, sens, runs):
    rows = []
    for g, m in zip(rng.spawn(len(AUDITED_SELECTORS)), AUDITED_SELECTORS):
        a = audit_selection(m, epsilon=eps, k=k, sensitivity=sens, runs=runs, rng=g)
        rows.append([a.claimed_epsilon, a.exact_epsilon, a.epsilon_lower, float(a.violation)])
    return np.array(rows).T


def selection_audit(*, epsilon: float = 1.0, k: int = 10, sensitivity: float = 1.0, runs: int = 4000,
                    rng: RNGLike = None) -> ExperimentResult:
    """Panel "audit" (selection): per mechanism (em, rnm, pf, pf-broken), the claimed ε, the exact ε of the audited
    pair, the measured ε̂ and ``refuted`` (see :func:`dpexplore.selection.audit.audit_selection`).

    Examples
    --------
    >>> r = selection_audit(epsilon=1.0, k=4, runs=200, rng=0)
    >>> r.grid
    ('em', 'rnm', 'pf', 'pf-broken')
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", low=2, high=MAX_CANDIDATES_EXACT)
    sens = check_positive(sensitivity, "sensitivity")
    runs = check_int(runs, "runs", low=20, high=MAX_RUNS)
    params = dict(epsilon=eps, k=k, sensitivity=sens, runs=runs)
    trial = functools.partial(_sel_audit_trial, eps=eps, k=k, sens=sens, runs=runs)
    return run_experiment(selection_audit, params, trial, axis="mechanism", grid=list(AUDITED_SELECTORS),
                          series=["claimed", "exact", "measured", "refuted"], trials=1, rng=rng, per="trial")
