"""Auditing: measured privacy beside claimed privacy.

Two kinds of audit:

* **Exact** (:func:`exact_audit`): when a mechanism's output law on two neighbouring inputs can be
  written down (randomized response, permute-and-flip, short Markov trajectories, shuffled
  histograms), the privacy curve δ(ε) of that pair and the smallest ε at a given δ follow exactly.
* **Statistical** (:func:`audit_mechanism`): run the mechanism many times on a pair of neighbouring
  inputs, turn a score of the output into a yes/no test "was it input 1?", and convert the test's
  false-positive and false-negative rates into a *lower bound* on ε that holds with the stated
  confidence. (ε, δ)-DP forces, for every test (Kairouz et al. 2015; Jagielski et al. 2020),

      1 − δ − FN ≤ e^ε · FP    and    1 − δ − FP ≤ e^ε · FN,

  so with Clopper–Pearson upper bounds FP⁺, FN⁺ (each at level 1 − α/2, jointly 1 − α),

      ε̂ = max(0, log((1 − δ − FN⁺)/FP⁺), log((1 − δ − FP⁺)/FN⁺))

  is below the true ε with probability ≥ 1 − α (by default 95 %: ε̂ is a lower bound on the true ε
  at 95 % confidence, not with certainty). The test's threshold is chosen on one half of the
  runs and evaluated on the other half, so the choice does not bias the bound.

An audit can only *refute* a privacy claim (ε̂ > claimed ε means the claim is false on this pair);
ε̂ ≤ claimed ε is consistent with the claim, not a proof of it.

The machinery every paper's audit shares lives here once: :func:`check_audit_args` (the arguments of a
statistical audit), :func:`sampled_audit` (scores drawn in chunks with progress and cancel, then the
held-out test), :func:`audit_from_scores` (the test, with a ``"plug-in"`` or ``"tail"`` threshold rule),
:func:`exact_audit_result` (an :class:`ExactAudit` from a pair's ε and privacy curve) and
:class:`PairAuditMixin` (the ``epsilon_lower`` / ``cancelled`` / ``violation`` of a paper's audit result).
Each paper's ``audit.py`` keeps only its neighbouring pairs, scores and broken variants.

The ``broken_*`` mechanisms are deliberately wrong versions for teaching (each spends more than it
claims); they are never the default anywhere and say so in their names and results.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .gaussian import gaussian_sigma
from .permute_and_flip import PermuteAndFlipResult, permute_and_flip
from .privacy_curves import exact_epsilon, hockey_stick
from .random import RNGLike, as_generator
from .randomized_response import RandomizedResponseResult, _check_bits, flip_probability
from .validation import check_choice, check_delta, check_epsilon, check_int, check_positive, check_real

__all__ = [
    "MAX_AUDIT_COUNT",
    "MAX_AUDIT_GRID",
    "MAX_AUDIT_RUNS",
    "ExactAudit",
    "StatisticalAudit",
    "PairAuditMixin",
    "PairAudit",
    "exact_audit",
    "exact_audit_result",
    "check_audit_args",
    "sampled_audit",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "audit_mechanism",
    "audit_from_scores",
    "gaussian_mechanism_scores",
    "broken_randomized_response",
    "broken_gaussian_sigma",
    "broken_permute_and_flip",
]


@dataclass(frozen=True)
class ExactAudit:
    """Result of :func:`exact_audit`.

    Attributes
    ----------
    epsilon : float
        The smallest ε for which the pair satisfies (ε, δ)-DP.
    delta : float
    claimed_epsilon : float or None
    violation : bool
        ``epsilon > claimed_epsilon`` (beyond rounding).
    epsilons, deltas : ndarray
        The pair's privacy curve δ(ε) (two-sided max) on a grid, for plotting.
    """

    epsilon: float
    delta: float
    claimed_epsilon: float | None
    violation: bool
    epsilons: np.ndarray
    deltas: np.ndarray


def exact_audit(p, q, *, delta: float = 0.0, claimed_epsilon: float | None = None, grid: int = 60) -> ExactAudit:
    """Exact privacy of one neighbouring pair from the two output laws.

    Parameters
    ----------
    p, q : array_like
        Output distributions of the mechanism on the two neighbouring inputs.
    delta : float
        δ at which to report ε (0 for pure DP).
    claimed_epsilon : float, optional
        The ε the mechanism's accounting claims; sets ``violation``.
    grid : int
        Points of the returned privacy curve.

    Examples
    --------
    >>> mu = 1 / (math.e + 1)          # randomized response at ε = 1
    >>> audit = exact_audit([1 - mu, mu], [mu, 1 - mu], claimed_epsilon=1.0)
    >>> round(audit.epsilon, 6), audit.violation
    (1.0, False)
    """
    delta = check_delta(delta, allow_zero=True)
    eps = exact_epsilon(p, q, delta)
    return exact_audit_result(eps, lambda e: max(hockey_stick(p, q, e), hockey_stick(q, p, e)), delta=delta,
                              claimed_epsilon=claimed_epsilon, grid=grid)


def exact_audit_result(epsilon: float, curve: Callable[[float], float], *, delta: float,
                       claimed_epsilon: float | None = None, grid: int = 60) -> ExactAudit:
    """An :class:`ExactAudit` from a pair's exact ε (at ``delta``) and its privacy curve δ(ε).

    The one place that turns an exact computation into a result: the curve is evaluated on
    ``grid`` points of [0, 1.5 ε] ([0, 1.5] when ε is 0 or infinite), and ``violation`` is
    ε > claimed ε beyond rounding (relative 1e-9, absolute 1e-12). Used by :func:`exact_audit` and by
    the papers' exact audits whose laws are not finite vectors (a Gaussian shift, a word law in logs).

    Examples
    --------
    >>> from dpexplore.core import gdp_delta, gdp_epsilon
    >>> a = exact_audit_result(gdp_epsilon(1.0, 1e-5), lambda e: gdp_delta(1.0, e), delta=1e-5, claimed_epsilon=4.0)
    >>> round(a.epsilon, 3), a.violation, a.deltas.shape
    (4.377, True, (60,))
    """
    eps = float(epsilon)
    if claimed_epsilon is not None:
        claimed_epsilon = check_real(claimed_epsilon, "claimed_epsilon", low=0.0, allow_inf=True)
    top = eps if math.isfinite(eps) and eps > 0 else 1.0
    epsilons = np.linspace(0.0, 1.5 * top, check_int(grid, "grid", low=2, high=MAX_AUDIT_GRID))
    deltas = np.array([curve(e) for e in epsilons])
    violation = claimed_epsilon is not None and eps > claimed_epsilon * (1 + 1e-9) + 1e-12
    return ExactAudit(eps, delta, claimed_epsilon, bool(violation), epsilons, deltas)


def clopper_pearson_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper confidence bound (level 1 − α) for a binomial proportion.

    Examples
    --------
    >>> round(clopper_pearson_upper(0, 1000, 0.025), 5)
    0.00368
    """
    from scipy import special  # betaincinv(a, b, q) = beta(a, b).ppf(q) of scipy.stats (both Boost's ibeta_inv;
    # equal to the bit at 10⁵ settings), without scipy.stats' ~0.5 s and ~20 MiB in a page kernel
    k = check_int(successes, "successes", low=0, high=MAX_AUDIT_COUNT)
    n = check_int(trials, "trials", low=1, high=MAX_AUDIT_COUNT)
    if k > n:
        raise ValueError(f"successes must be <= trials; got {k} > {n}")
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    return 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1.0 - alpha))


def epsilon_lower_bound(false_positives: int, false_negatives: int, runs: int, *, delta: float = 0.0,
                        confidence: float = 0.95) -> float:
    """ε̂ from a test's error counts on ``runs`` samples per input (see the module docstring).

    Examples
    --------
    >>> round(epsilon_lower_bound(100, 100, 1000), 2)  # FP = FN = 0.1: the point estimate is log 9 ≈ 2.2
    1.99
    """
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    delta = check_delta(delta, allow_zero=True)
    alpha = (1.0 - conf) / 2.0
    fp = clopper_pearson_upper(false_positives, runs, alpha)
    fn = clopper_pearson_upper(false_negatives, runs, alpha)
    cands = [0.0]
    if fp > 0 and 1 - delta - fn > 0:
        cands.append(math.log((1 - delta - fn) / fp))
    if fn > 0 and 1 - delta - fp > 0:
        cands.append(math.log((1 - delta - fp) / fn))
    return max(cands)


@dataclass(frozen=True)
class StatisticalAudit:
    """Result of :func:`audit_mechanism`.

    Attributes
    ----------
    epsilon_lower : float
        ε̂: a lower bound on the mechanism's ε on this pair, valid with probability ``confidence``
        (NaN if the audit was cancelled).
    confidence : float
    runs : int
        Mechanism runs per input (half chose the threshold, half evaluated it).
    threshold : float
        The test: "input 1" when score ≥ threshold.
    false_positive_rate, false_negative_rate : float
        Measured on the evaluation half.
    claimed_epsilon : float or None
    violation : bool
        ``epsilon_lower > claimed_epsilon``: the claim is refuted at this confidence.
    seconds : float
    cancelled : bool
    """

    epsilon_lower: float
    confidence: float
    runs: int
    threshold: float
    false_positive_rate: float
    false_negative_rate: float
    claimed_epsilon: float | None
    violation: bool
    seconds: float
    cancelled: bool = False

    @property
    def advantage(self) -> float:
        """|TPR − FPR| = |1 − FP − FN| that the audit's own threshold test reached on the evaluation half.

        A measured value, not a bound: the best attacker can do better (another score or threshold), and
        ε̂'s attacker bound (:func:`dpexplore.core.risk.advantage_bound` at ε̂) is what the claim cannot
        promise below, not what this test achieved. NaN if the audit was cancelled.

        Examples
        --------
        >>> g = np.random.default_rng(0)
        >>> res = audit_from_scores(g.normal(0, 1, 20000), g.normal(3, 1, 20000))
        >>> res.advantage == abs(1 - res.false_positive_rate - res.false_negative_rate)
        True
        >>> bool(res.advantage < 2 * 0.9332 - 1)  # below the best test's 2Φ(3/2) − 1: its threshold sits in a tail
        True
        """
        return abs(1.0 - self.false_positive_rate - self.false_negative_rate)


def _best_threshold(s0: np.ndarray, s1: np.ndarray, delta: float) -> float:
    """Threshold maximising the plug-in ε estimate (ties in favour of balanced error rates)."""
    cand = np.unique(np.concatenate([s0, s1]))
    if cand.size > 400:
        cand = np.unique(np.quantile(np.concatenate([s0, s1]), np.linspace(0, 1, 401)))
    s0s, s1s = np.sort(s0), np.sort(s1)
    fp = 1.0 - np.searchsorted(s0s, cand, side="left") / s0.size  # P0(score >= t)
    fn = np.searchsorted(s1s, cand, side="left") / s1.size  # P1(score < t)
    # +1/2 pseudo-counts keep the plug-in finite where a rate is 0
    fp_s = (fp * s0.size + 0.5) / (s0.size + 1)
    fn_s = (fn * s1.size + 0.5) / (s1.size + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.log(np.maximum(1 - delta - fn_s, 1e-300) / fp_s)
        e2 = np.log(np.maximum(1 - delta - fp_s, 1e-300) / fn_s)
    return float(cand[int(np.argmax(np.maximum(e1, e2)))])


Progress = Callable[[int, int], "bool | None"]
THRESHOLD_RULES = ("plug-in", "tail")


def _tail_threshold(s0: np.ndarray, s1: np.ndarray, delta: float, conf: float) -> float:
    """Threshold maximising the Clopper–Pearson lower bound ε̂ (at confidence ``conf``) on the calibration half
    (rule ``"tail"``).

    Candidates: quantiles of the pooled calibration scores at 1/400 steps *plus* log-spaced tail
    quantiles down to 1/size (large ε is only visible far in the tails, at false-positive rates of
    10⁻⁴, which a 1/400 grid cannot reach). The criterion is the same lower bound that is then
    evaluated on the held-out half: a plug-in estimate would favour far-tail thresholds backed by a
    handful of runs, which then fail on the evaluation half.
    """
    from scipy import special  # betaincinv(a, b, q) = beta(a, b).ppf(q) of scipy.stats (both Boost's ibeta_inv;
    # equal to the bit at 10⁵ settings), without scipy.stats' ~0.5 s and ~20 MiB in a page kernel
    pooled = np.concatenate([s0, s1])
    tail = np.geomspace(0.5 / pooled.size, 0.0025, 120)
    cand = np.unique(np.quantile(pooled, np.concatenate([np.linspace(0, 1, 401), tail, 1 - tail])))
    n0, n1 = s0.size, s1.size
    k_fp = n0 - np.searchsorted(np.sort(s0), cand, side="left")  # runs of input 0 with score ≥ t
    k_fn = np.searchsorted(np.sort(s1), cand, side="left")  # runs of input 1 with score < t
    alpha = (1.0 - conf) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):  # k = n gives b = 0: the bound is 1 there (set below)
        fp_up = np.where(k_fp < n0, special.betaincinv(k_fp + 1, n0 - k_fp, 1 - alpha), 1.0)
        fn_up = np.where(k_fn < n1, special.betaincinv(k_fn + 1, n1 - k_fn, 1 - alpha), 1.0)
        e1 = np.log(np.maximum(1 - delta - fn_up, 1e-300) / fp_up)
        e2 = np.log(np.maximum(1 - delta - fp_up, 1e-300) / fn_up)
    return float(cand[int(np.argmax(np.maximum(e1, e2)))])


#: the most runs (and the largest chunk) a statistical audit takes: 10⁷ runs per input
MAX_AUDIT_RUNS = 10_000_000
#: the finest ε grid of an exact audit's curve
MAX_AUDIT_GRID = 1_000_000
#: the largest count a Clopper–Pearson bound takes (beyond 2⁵³ counts are not exact in float64)
MAX_AUDIT_COUNT = 2**53

_UNSET: Any = object()


def check_audit_args(runs, confidence, *, chunk=_UNSET, progress=None,
                     max_runs: int | None = None) -> tuple[int, float, int | None]:
    """Validate the arguments every statistical audit takes; returns ``(runs, confidence, chunk)``.

    ``runs`` ≥ 20 (at most ``max_runs`` when given, else ``MAX_AUDIT_RUNS``), 0 < ``confidence`` < 1,
    ``chunk`` an integer ≥ 1 when given (None when not), ``progress`` a callable or None.

    Examples
    --------
    >>> check_audit_args(1000, 0.95, chunk=100)
    (1000, 0.95, 100)
    """
    runs = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS if max_runs is None else max_runs)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    chunk = None if chunk is _UNSET else check_int(chunk, "chunk", low=1, high=MAX_AUDIT_RUNS)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) -> bool or None; got "
                        f"{type(progress).__name__}")
    return runs, conf, chunk


def _cancelled_audit(conf: float, runs: int, claimed: float | None, started: float) -> StatisticalAudit:
    return StatisticalAudit(math.nan, conf, runs, math.nan, math.nan, math.nan, claimed, False,
                            time.perf_counter() - started, cancelled=True)


def sampled_audit(
    sample: Callable[[int], tuple[Any, Any]],
    runs: int,
    *,
    delta: float = 0.0,
    confidence: float = 0.95,
    claimed_epsilon: float | None = None,
    chunk: int | None = None,
    progress: Progress | None = None,
    threshold: str = "plug-in",
    started: float | None = None,
) -> StatisticalAudit:
    """The statistical audit of scores drawn in chunks, with progress and cancel.

    ``sample(m)`` returns ``(scores0, scores1)``: the scores of m further runs on input 0 and on
    input 1, m = min(``chunk``, runs still to do) (all that are still to do when ``chunk`` is None). A
    bulk sampler may return more than m; the surplus is dropped. The caller owns the random streams
    (``sample`` closes over them), so an audit's numbers do not depend on how it is chunked when each
    input draws from its own stream. After each chunk ``progress(done, runs)`` is called; ``False``
    cancels: the result then has ε̂ = NaN, ``cancelled=True`` and ``runs`` = the runs made per input.
    Otherwise :func:`audit_from_scores` runs the held-out test; ``seconds`` counts from ``started``
    (a :func:`time.perf_counter` value, default: this call).

    Examples
    --------
    >>> g0, g1 = np.random.default_rng(0).spawn(2)
    >>> res = sampled_audit(lambda m: (g0.normal(0, 1, m), g1.normal(3, 1, m)), 20000, delta=1e-3, chunk=5000)
    >>> res.epsilon_lower > 2, res.runs
    (True, 20000)
    >>> sampled_audit(lambda m: (g0.normal(0, 1, m), g1.normal(3, 1, m)), 20000, chunk=5000,
    ...               progress=lambda done, total: done < 10000).cancelled
    True
    """
    t0 = time.perf_counter() if started is None else started
    runs, conf, chunk = check_audit_args(runs, confidence, progress=progress,
                                         **({} if chunk is None else {"chunk": chunk}))  # None: no chunking
    s0, s1 = np.empty(runs), np.empty(runs)
    done = 0
    while done < runs:
        a, b = sample(runs - done if chunk is None else min(chunk, runs - done))
        a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
        take = min(a.size, b.size, runs - done)
        if take < 1:
            raise ValueError("sample(m) must return at least one score per input")
        s0[done : done + take], s1[done : done + take] = a[:take], b[:take]
        done += take
        if progress is not None and progress(done, runs) is False:
            return _cancelled_audit(conf, done, claimed_epsilon, t0)
    return audit_from_scores(s0, s1, delta=delta, confidence=conf, claimed_epsilon=claimed_epsilon,
                             threshold=threshold, started=t0)


def audit_mechanism(
    mechanism: Callable[[Any, np.random.Generator], Any],
    input0: Any,
    input1: Any,
    *,
    score: Callable[[Any], float],
    runs: int = 4000,
    delta: float = 0.0,
    confidence: float = 0.95,
    claimed_epsilon: float | None = None,
    rng: RNGLike = None,
    progress: Progress | None = None,
    chunk: int = 250,
) -> StatisticalAudit:
    """Black-box audit: a lower bound on ε from runs on two neighbouring inputs, at ``confidence`` (95 %).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> output``: one run of the mechanism under audit.
    input0, input1 : Any
        Neighbouring inputs (an edge flip, one row changed, one trajectory changed, …).
    score : callable
        ``score(output) -> float``; larger values should suggest ``input1``. The best score is
        the likelihood ratio when it is known; any function gives a valid (maybe weaker) bound.
    runs : int
        Runs per input (≥ 20); half choose the threshold, half evaluate it.
    delta : float
        The δ of the claim being audited.
    confidence : float
        Probability that ε̂ is below the true ε (default 0.95).
    claimed_epsilon : float, optional
        Sets ``violation``.
    rng : Generator, int or None
    progress : callable, optional
        Called as ``progress(done, total)`` after every ``chunk`` runs; return ``False`` to cancel.

    Returns
    -------
    StatisticalAudit

    Examples
    --------
    >>> from dpexplore.core import randomized_response
    >>> mech = lambda bit, g: int(randomized_response([bit], 1.0, rng=g).bits[0])
    >>> res = audit_mechanism(mech, 0, 1, score=float, runs=2000, claimed_epsilon=1.0, rng=0)
    >>> 0.5 < res.epsilon_lower <= 1.0, res.violation
    (True, False)
    """
    t0 = time.perf_counter()
    if not callable(mechanism) or not callable(score):
        raise TypeError("mechanism and score must be callables")
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress)
    delta = check_delta(delta, allow_zero=True)
    if claimed_epsilon is not None:
        claimed_epsilon = check_real(claimed_epsilon, "claimed_epsilon", low=0.0, allow_inf=True)
    g0, g1 = as_generator(rng).spawn(2)

    def sample(m: int):
        return ([float(score(mechanism(input0, g0))) for _ in range(m)],
                [float(score(mechanism(input1, g1))) for _ in range(m)])

    return sampled_audit(sample, runs, delta=delta, confidence=conf, claimed_epsilon=claimed_epsilon, chunk=chunk,
                         progress=progress, started=t0)


def audit_from_scores(
    scores0, scores1, *, delta: float = 0.0, confidence: float = 0.95, claimed_epsilon: float | None = None,
    threshold: str = "plug-in", started: float | None = None,
) -> StatisticalAudit:
    """The statistical audit on precomputed scores (for mechanisms that sample in bulk).

    ``scores0[i]`` / ``scores1[i]`` are the test scores of independent runs on input 0 / input 1
    (the same number of each). The first half of each chooses the threshold, the second half
    evaluates it. ``threshold`` is the rule that chooses it on the first half: ``"plug-in"`` (the
    largest plug-in ε over ≤ 401 quantiles) or ``"tail"`` (the largest Clopper–Pearson lower bound,
    with tail quantiles down to 1/size: for large ε, visible only at false-positive rates far below
    1/400). Either rule gives a valid bound; ``seconds`` counts from ``started`` (default: this call).

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> res = audit_from_scores(g.normal(0, 1, 20000), g.normal(3, 1, 20000), delta=1e-3)
    >>> res.epsilon_lower > 2
    True
    """
    t0 = time.perf_counter() if started is None else started
    s0 = np.asarray(scores0, dtype=float).ravel()
    s1 = np.asarray(scores1, dtype=float).ravel()
    if s0.size != s1.size or s0.size < 20:
        raise ValueError(f"scores0 and scores1 must have the same size >= 20; got {s0.size} and {s1.size}")
    if not (np.all(np.isfinite(s0)) and np.all(np.isfinite(s1))):
        raise ValueError("score must return finite numbers for every output")
    delta = check_delta(delta, allow_zero=True)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    if claimed_epsilon is not None:
        claimed_epsilon = check_real(claimed_epsilon, "claimed_epsilon", low=0.0, allow_inf=True)
    rule = check_choice(threshold, "threshold", THRESHOLD_RULES)
    half = s0.size // 2
    if rule == "tail":  # calibration half
        thr = _tail_threshold(s0[:half], s1[:half], delta, conf)
    else:
        thr = _best_threshold(s0[:half], s1[:half], delta)
    e0, e1 = s0[half:], s1[half:]  # evaluation half
    m = e0.size
    fp = int(np.sum(e0 >= thr))
    fn = int(np.sum(e1 < thr))
    eps_hat = epsilon_lower_bound(fp, fn, m, delta=delta, confidence=conf)
    violation = claimed_epsilon is not None and eps_hat > claimed_epsilon
    return StatisticalAudit(eps_hat, conf, int(s0.size), thr, fp / m, fn / m, claimed_epsilon, bool(violation),
                            time.perf_counter() - t0)


class PairAuditMixin:
    """What every paper's audit result derives from its ``claimed_epsilon``, ``exact_epsilon`` and ``statistical``.

    For frozen dataclasses of one mechanism audited on one neighbouring pair: ``exact_epsilon`` is a
    float (NaN where the law is not computable) or None, ``statistical`` a :class:`StatisticalAudit`
    or None.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Demo(PairAuditMixin):
    ...     claimed_epsilon: float
    ...     exact_epsilon: float
    ...     statistical: StatisticalAudit | None = None
    >>> Demo(1.0, 1.2).violation, Demo(1.0, 1.0).violation, Demo(1.0, math.nan).epsilon_lower
    (True, False, None)
    """

    claimed_epsilon: float
    exact_epsilon: float | None
    statistical: StatisticalAudit | None

    @property
    def epsilon_lower(self) -> float | None:
        """ε̂ of the statistical audit (NaN if cancelled; None if none was run)."""
        return None if self.statistical is None else self.statistical.epsilon_lower

    @property
    def cancelled(self) -> bool:
        return self.statistical is not None and self.statistical.cancelled

    @property
    def violation(self) -> bool:
        """The exact ε or the lower bound ε̂ (at its confidence) exceeds the claim (refuted on this pair)."""
        tol = 1e-9 * max(1.0, self.claimed_epsilon)
        ex = self.exact_epsilon is not None and self.exact_epsilon > self.claimed_epsilon + tol
        lo = self.epsilon_lower
        st = lo is not None and math.isfinite(lo) and lo > self.claimed_epsilon
        return bool(ex or st)


@dataclass(frozen=True)
class PairAudit(PairAuditMixin):
    """One mechanism audited on one neighbouring pair: the claim, the pair's exact ε and the measured ε̂.

    The fields a paper's audit result shares (a paper subclasses it to add its own, e.g.
    :class:`dpexplore.pca.audit.PCAAudit`); ``epsilon_lower``, ``cancelled`` and ``violation`` come
    from :class:`PairAuditMixin`.

    Attributes
    ----------
    mechanism : str
        What was audited ("BROKEN …" for a broken variant).
    neighbours : str
        The neighbouring pair, in words.
    claimed_epsilon : float
        The ε claimed at ``delta`` for the audited release.
    delta : float
        δ at which every ε here is stated.
    exact_epsilon : float
        The pair's exact ε at ``delta`` (NaN where its law is not computable; ``inf`` for disjoint supports).
    statistical : StatisticalAudit
        The black-box lower bound ε̂ at its confidence (``statistical.epsilon_lower``) and its test.
    broken : bool
        A deliberately broken variant was audited.

    Examples
    --------
    >>> a = PairAudit("demo", "x vs x'", 1.0, 0.0, 1.5, None, False)
    >>> a.violation, a.epsilon_lower
    (True, None)
    """

    mechanism: str
    neighbours: str
    claimed_epsilon: float
    delta: float
    exact_epsilon: float
    statistical: StatisticalAudit | None
    broken: bool


def gaussian_mechanism_scores(sigma: float, sensitivity: float, runs: int, *, rng: RNGLike = None):
    """Outputs of the scalar Gaussian mechanism on neighbouring values 0 and Δ (``runs`` each).

    The output itself is the likelihood-ratio-optimal score for this pair. Use with
    :func:`audit_from_scores` to audit a σ calibration (e.g. :func:`broken_gaussian_sigma`).

    Examples
    --------
    >>> s0, s1 = gaussian_mechanism_scores(1.0, 1.0, 5, rng=0)
    >>> s0.shape, s1.shape
    ((5,), (5,))
    """
    sigma = check_positive(sigma, "sigma")
    sens = check_positive(sensitivity, "sensitivity")
    runs = check_int(runs, "runs", low=1, high=MAX_AUDIT_RUNS)
    g = as_generator(rng)
    return g.normal(0.0, sigma, runs), g.normal(sens, sigma, runs)


# -- deliberately broken mechanisms (teaching only) ----------------------------------------
def broken_randomized_response(bits, epsilon: float, *, rng: RNGLike = None) -> RandomizedResponseResult:
    """BROKEN on purpose: randomized response that flips with μ(2ε) but *claims* ε.

    A classic bug (the factor 2 of a two-sided ratio forgotten). Its result reports the claimed ε;
    its true ε is 2ε. For teaching audits only — never use it.

    Examples
    --------
    >>> broken_randomized_response([0, 1], 1.0, rng=0).epsilon
    1.0
    """
    arr = _check_bits(bits)
    eps = check_epsilon(epsilon)
    mu = flip_probability(2.0 * eps)  # the bug
    flips = as_generator(rng).random(arr.shape) < mu
    return RandomizedResponseResult(np.where(flips, 1 - arr, arr).astype(np.int8), mu, eps)


def broken_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """BROKEN on purpose: half the analytic Gaussian σ (the "noise scale halved" bug).

    Examples
    --------
    >>> from dpexplore.core import gaussian_sigma
    >>> broken_gaussian_sigma(1.0, 1e-5) == gaussian_sigma(1.0, 1e-5) / 2
    True
    """
    return 0.5 * gaussian_sigma(epsilon, delta, check_positive(sensitivity, "sensitivity"))


def broken_permute_and_flip(
    scores, epsilon: float, *, sensitivity: float = 1.0, rng: RNGLike = None
) -> PermuteAndFlipResult:
    """BROKEN on purpose: permute-and-flip with acceptance exp(ε(q − q*)/Δ) — the factor 2 dropped.

    Its true ε is 2ε (it *is* permute-and-flip at 2ε) while its result claims ε. Its exact law is
    ``permute_and_flip_probabilities(scores, 2 * epsilon)``. For teaching audits only.

    Examples
    --------
    >>> broken_permute_and_flip([0.0, 1.0], 1.0, rng=0).epsilon
    1.0
    """
    eps = check_epsilon(epsilon)
    res = permute_and_flip(scores, 2.0 * eps, sensitivity=sensitivity, rng=rng)  # the bug
    return PermuteAndFlipResult(index=res.index, epsilon=eps)
