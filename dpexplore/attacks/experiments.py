"""The measured panels of the "Why DP" page as library functions (one call = one panel's numbers).

Each function validates its arguments, runs its trials on spawned streams through
:func:`dpexplore.core.experiment.run_experiment` and returns an :class:`~dpexplore.core.ExperimentResult`,
so ``python -m dpexplore.experiments attacks.<name>`` runs them too. In every reconstruction trial the
secret bits, the random queries and the noise are fresh draws.

Examples
--------
>>> r = recovery_vs_queries(50, ms=[25, 200], noise="bounded", bound=1.0, trials=2, rng=0)
>>> r.series, r.values.shape
(('lp',), (1, 2, 2))
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_series, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_bool, check_cells, check_choice, check_int, check_real

from .data import MAX_ATTRIBUTES, MAX_CELLS, MAX_PEOPLE, MAX_QUERIES, check_bits, secret_bits, subset_queries
from .mechanisms import DP_NOISE, METHODS, NOISE_MODELS, answer_queries, reconstruct
from .membership import MAX_REFERENCE, MAX_STUDIES, MEANS_NOISE, MembershipParts, membership_score_parts, roc_at
from .theory import means_noise_scale

__all__ = [
    "FPRS",
    "MAX_TRIALS",
    "MAX_WORK",
    "membership_roc",
    "reconstruction_picture",
    "recovery_vs_noise",
    "recovery_vs_queries",
]

#: the most trials per grid point
MAX_TRIALS = 1000
#: the largest total LP work of one call: Σ over grid points and trials of m·n
MAX_WORK = 200_000_000
#: the false-positive rates of the membership ROC
FPRS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _noise_kwargs(noise: str, bound, epsilon, delta, per_query) -> dict:
    mech = check_choice(noise, "noise", NOISE_MODELS)
    kw: dict = {"noise": mech}
    if mech in ("bounded", "rounding"):
        if bound is None:
            raise ValueError(f"bound must be given (a number E >= 0) for noise={mech!r}")
        kw["bound"] = check_real(bound, "bound", low=0.0, high=float(MAX_PEOPLE))
    if mech in DP_NOISE:
        if epsilon is None:
            raise ValueError(f"epsilon must be given (the total ε of all m answers) for noise={mech!r}")
        kw["epsilon"] = check_real(epsilon, "epsilon", low=0.0, low_open=True)
        kw["delta"] = check_real(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        kw["per_query"] = check_bool(per_query, "per_query")
    return kw


def _one_attack(rng, n: int, m: int, methods, kw) -> list[float]:
    gs, gq, gn = rng.spawn(3)
    x = secret_bits(n, rng=gs)
    a = subset_queries(n, m, rng=gq)
    rel = answer_queries(x, a, rng=gn, **kw)
    return [reconstruct(rel.answers, a, method=meth).fraction_recovered(x) for meth in methods]


def _check_work(n: int, ms, trials: int, methods) -> None:
    work = n * sum(ms) * trials * len(methods)
    if work > MAX_WORK:
        raise ValueError(f"n * sum(m) * trials * len(methods) must be <= {MAX_WORK:,}; got {work:,}")


def _queries_trial(m, rng, *, n, methods, kw):
    return _one_attack(rng, n, int(m), methods, kw)


def recovery_vs_queries(n: int, *, ms: Sequence[int], noise: str = "bounded", bound: float | None = None,
                        epsilon: float | None = None, delta: float = 1e-5, per_query: bool = False,
                        methods: Sequence[str] = ("lp",), trials: int = 10, rng: RNGLike = None,
                        n_jobs: int | None = None) -> ExperimentResult:
    """Panel "fraction recovered vs m": the reconstruction attack's fraction of correct bits, per method.

    Compare with the bounds of :mod:`dpexplore.attacks.theory` (the DP bound for ``"laplace"`` /
    ``"gaussian"`` noise, which does not depend on m; the Dinur–Nissim √n scale for bounded noise).

    Examples
    --------
    >>> r = recovery_vs_queries(40, ms=[160], noise="laplace", epsilon=1.0, trials=3, rng=0)
    >>> bool(r.mean[0, 0] < 0.8)
    True
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    ms_ = check_grid(ms, "ms", low=1, high=MAX_QUERIES, integer=True)
    check_cells(MAX_CELLS, m=max(ms_), n=n)
    meths = check_series(methods, "methods", METHODS)
    trials = check_trials(trials, MAX_TRIALS)
    _check_work(n, ms_, trials, meths)
    kw = _noise_kwargs(noise, bound, epsilon, delta, per_query)
    params = dict(n=n, ms=list(ms_), methods=list(meths), trials=trials, **kw)
    trial = functools.partial(_queries_trial, n=n, methods=meths, kw=kw)
    return run_experiment(recovery_vs_queries, params, trial, axis="m", grid=ms_, series=meths, trials=trials,
                          rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0))


def _noise_trial(level, rng, *, n, m, methods, kw, key):
    return _one_attack(rng, n, m, methods, {**kw, key: float(level)})


def recovery_vs_noise(n: int, *, m: int, noise: str = "bounded", levels: Sequence[float], delta: float = 1e-5,
                      per_query: bool = False, methods: Sequence[str] = ("lp",), trials: int = 10,
                      rng: RNGLike = None, n_jobs: int | None = None) -> ExperimentResult:
    """Panel "fraction recovered vs noise": the grid ``levels`` is the error bound E (``"bounded"``,
    ``"rounding"``; axis ``"bound"``) or the total ε (``"laplace"``, ``"gaussian"``; axis ``"epsilon"``).

    Examples
    --------
    >>> r = recovery_vs_noise(40, m=160, noise="bounded", levels=[0.5, 40.0], trials=2, rng=0)
    >>> r.axis, bool(r.mean[0, 0] > r.mean[0, 1])
    ('bound', True)
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    m = check_int(m, "m", low=1, high=MAX_QUERIES)
    check_cells(MAX_CELLS, m=m, n=n)
    mech = check_choice(noise, "noise", NOISE_MODELS)
    if mech == "none":
        raise ValueError("noise must be one with a level for this panel: 'bounded', 'rounding', 'laplace' or "
                         "'gaussian'; got 'none'")
    dp = mech in DP_NOISE
    lv = check_grid(levels, "levels", low=0.0, low_open=dp, high=None if dp else float(MAX_PEOPLE))
    meths = check_series(methods, "methods", METHODS)
    trials = check_trials(trials, MAX_TRIALS)
    _check_work(n, [m] * len(lv), trials, meths)
    key = "epsilon" if dp else "bound"
    kw = _noise_kwargs(mech, lv[0], lv[0], delta, per_query)
    kw.pop(key)
    params = dict(n=n, m=m, levels=list(lv), methods=list(meths), trials=trials, **kw)
    trial = functools.partial(_noise_trial, n=n, m=m, methods=meths, kw=kw, key=key)
    return run_experiment(recovery_vs_noise, params, trial, axis=key, grid=lv, series=meths, trials=trials, rng=rng,
                          n_jobs=n_jobs, value_range=(0.0, 1.0))


def _picture_trial(rng, *, n, m, method, kw, secret=None):
    gs, gq, gn = rng.spawn(3)
    x = secret_bits(n, rng=gs) if secret is None else secret
    a = subset_queries(n, m, rng=gq)
    rel = answer_queries(x, a, rng=gn, **kw)
    guess = reconstruct(rel.answers, a, method=method)
    return np.vstack([x, guess.bits, guess.relaxed]).astype(float), {"max_abs_error": float(np.max(np.abs(rel.errors)))}


def reconstruction_picture(n: int, *, m: int, noise: str = "bounded", bound: float | None = None,
                           epsilon: float | None = None, delta: float = 1e-5, per_query: bool = False,
                           method: str = "lp", secret=None, rng: RNGLike = None) -> ExperimentResult:
    """Panel "the secret vs the reconstruction": one attack; series ``secret``, ``guess`` (the rounded bits)
    and ``relaxed`` (the LP's fractional solution) over the people (grid 0 … n − 1).

    ``secret``: the n secret bits to attack (e.g. :func:`~dpexplore.attacks.data.class_secret_bits` of a
    class's answers); default: n fair coins drawn from ``rng``. The queries and the noise come from ``rng``
    either way.

    Examples
    --------
    >>> r = reconstruction_picture(30, m=120, noise="none", rng=0)
    >>> bool(np.all(r.values[0, :, 0] == r.values[1, :, 0]))
    True
    >>> r = reconstruction_picture(4, m=40, noise="none", secret=(1, 1, 0, 1), rng=0)
    >>> r.values[0, :, 0].tolist(), r.parameters["secret"]
    ([1.0, 1.0, 0.0, 1.0], '1101')
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    m = check_int(m, "m", low=1, high=MAX_QUERIES)
    check_cells(MAX_CELLS, m=m, n=n)
    meth = check_choice(method, "method", METHODS)
    kw = _noise_kwargs(noise, bound, epsilon, delta, per_query)
    if secret is not None:
        secret = check_bits(secret, "secret")
        if secret.size != n:
            raise ValueError(f"secret must have n = {n} bits (one per person); got {secret.size}")
    # the given bits themselves are a parameter: the result (and its cache key) is a pure function of them
    params = dict(n=n, m=m, method=meth, secret="fair coins" if secret is None else "".join(map(str, secret)), **kw)
    trial = functools.partial(_picture_trial, n=n, m=m, method=meth, kw=kw, secret=secret)
    return run_experiment(reconstruction_picture, params, trial, axis="person", grid=list(range(n)),
                          series=["secret", "guess", "relaxed"], trials=1, rng=rng, per="trial")


#: the simulations of recent membership trials, by (n, d, studies, reference, the trial stream's state): a trial's
#: scores at any noise model and ε are its parts' (:class:`~dpexplore.attacks.membership.MembershipParts`), so the
#: page's noise-free and noisy curves share one simulation per trial, and a move of ε draws nothing new
_PARTS: OrderedDict = OrderedDict()
_PARTS_SIZE = 64
_PARTS_LOCK = threading.Lock()


def _trial_parts(rng, *, n, d, studies, reference) -> MembershipParts:
    # the trial's stream is private to run_experiment (spawned, used once): its state determines the draws
    key = (n, d, studies, reference, repr(rng.bit_generator.state))
    with _PARTS_LOCK:
        if key in _PARTS:
            _PARTS.move_to_end(key)
            return _PARTS[key]
    parts = membership_score_parts(n=n, d=d, studies=studies, reference=reference, noises=MEANS_NOISE[1:], rng=rng)
    with _PARTS_LOCK:
        _PARTS[key] = parts
        while len(_PARTS) > _PARTS_SIZE:
            _PARTS.popitem(last=False)
    return parts


def _roc_trial(rng, *, n, d, studies, reference, noise, epsilon, delta, per_query, fprs):
    parts = _trial_parts(rng, n=n, d=d, studies=studies, reference=reference)
    scale = 0.0 if noise == "none" else means_noise_scale(noise, n=n, d=d, epsilon=epsilon, delta=delta,
                                                          per_query=per_query)
    members, non = parts.scores(noise, scale)
    return roc_at(members, non, fprs)[None, :]


def membership_roc(n: int, d: int, *, noise: str = "none", epsilon: float | None = None, delta: float = 1e-5,
                   per_query: bool = False, studies: int = 1000, reference: int = 1000,
                   fprs: Sequence[float] = FPRS, trials: int = 5, rng: RNGLike = None,
                   n_jobs: int | None = None) -> ExperimentResult:
    """Panel "membership inference": the ROC (TPR at each false-positive rate in ``fprs``) of the
    inner-product test on released column means; each trial is a fresh population and ``studies``
    member / non-member releases (series ``tpr``).

    Compare with :func:`dpexplore.attacks.theory.membership_tpr_bound` (the DP trade-off bound) and
    :func:`dpexplore.attacks.theory.membership_tpr_normal` (a normal approximation).

    Examples
    --------
    >>> r = membership_roc(100, 500, studies=200, fprs=[0.05], trials=2, rng=0)
    >>> bool(r.mean[0, 0] > 0.2)
    True
    """
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    mech = check_choice(noise, "noise", MEANS_NOISE)
    studies = check_int(studies, "studies", low=20, high=MAX_STUDIES)
    reference = check_int(reference, "reference", low=1, high=MAX_REFERENCE)
    fp = check_grid(fprs, "fprs", low=0.0, high=1.0)
    trials = check_trials(trials, MAX_TRIALS)
    if studies * d * trials > MAX_WORK:
        raise ValueError(f"studies * d * trials must be <= {MAX_WORK:,}; got {studies * d * trials:,}")
    if mech != "none":
        if epsilon is None:
            raise ValueError(f"epsilon must be given for noise={mech!r}")
        eps = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    else:
        eps = math.inf
    pq = check_bool(per_query, "per_query")
    params = dict(n=n, d=d, noise=mech, epsilon=None if mech == "none" else eps, delta=float(delta), per_query=pq,
                  studies=studies, reference=reference, fprs=list(fp), trials=trials)
    trial = functools.partial(_roc_trial, n=n, d=d, studies=studies, reference=reference, noise=mech,
                              epsilon=None if mech == "none" else eps, delta=float(delta), per_query=pq, fprs=fp)
    return run_experiment(membership_roc, params, trial, axis="fpr", grid=fp, series=["tpr"], trials=trials, rng=rng,
                          per="trial", value_range=(0.0, 1.0), n_jobs=n_jobs)
