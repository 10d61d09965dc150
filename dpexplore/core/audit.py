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

  is below the true ε with probability ≥ 1 − α. The test's threshold is chosen on one half of the
  runs and evaluated on the other half, so the choice does not bias the bound.

An audit can only *refute* a privacy claim (ε̂ > claimed ε means the claim is false on this pair);
ε̂ ≤ claimed ε is consistent with the claim, not a proof of it.

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
from scipy import stats

from .gaussian import gaussian_sigma
from .permute_and_flip import PermuteAndFlipResult, permute_and_flip
from .privacy_curves import exact_epsilon, hockey_stick
from .random import RNGLike, as_generator
from .randomized_response import RandomizedResponseResult, _check_bits, flip_probability
from .validation import check_delta, check_epsilon, check_int, check_positive, check_real

__all__ = [
    "ExactAudit",
    "StatisticalAudit",
    "exact_audit",
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
    if claimed_epsilon is not None:
        claimed_epsilon = check_real(claimed_epsilon, "claimed_epsilon", low=0.0, allow_inf=True)
    top = eps if math.isfinite(eps) and eps > 0 else 1.0
    epsilons = np.linspace(0.0, 1.5 * top, check_int(grid, "grid", low=2))
    deltas = np.array([max(hockey_stick(p, q, e), hockey_stick(q, p, e)) for e in epsilons])
    violation = claimed_epsilon is not None and eps > claimed_epsilon * (1 + 1e-9) + 1e-12
    return ExactAudit(eps, delta, claimed_epsilon, bool(violation), epsilons, deltas)


def clopper_pearson_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper confidence bound (level 1 − α) for a binomial proportion.

    Examples
    --------
    >>> round(clopper_pearson_upper(0, 1000, 0.025), 5)
    0.00368
    """
    k = check_int(successes, "successes", low=0)
    n = check_int(trials, "trials", low=1)
    if k > n:
        raise ValueError(f"successes must be <= trials; got {k} > {n}")
    alpha = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    return 1.0 if k == n else float(stats.beta.ppf(1.0 - alpha, k + 1, n - k))


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
    progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 250,
) -> StatisticalAudit:
    """Black-box audit: a lower bound on ε from runs on two neighbouring inputs.

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
    if not callable(mechanism) or not callable(score):
        raise TypeError("mechanism and score must be callables")
    runs = check_int(runs, "runs", low=20)
    delta = check_delta(delta, allow_zero=True)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    if claimed_epsilon is not None:
        claimed_epsilon = check_real(claimed_epsilon, "claimed_epsilon", low=0.0, allow_inf=True)
    chunk = check_int(chunk, "chunk", low=1)
    gen = as_generator(rng)
    g0, g1 = gen.spawn(2)
    s0, s1 = np.empty(runs), np.empty(runs)
    t0 = time.perf_counter()
    done = 0
    while done < runs:
        stop = min(runs, done + chunk)
        for i in range(done, stop):
            s0[i] = float(score(mechanism(input0, g0)))
            s1[i] = float(score(mechanism(input1, g1)))
        done = stop
        if progress is not None and progress(done, runs) is False:
            return StatisticalAudit(math.nan, conf, done, math.nan, math.nan, math.nan, claimed_epsilon, False,
                                    time.perf_counter() - t0, cancelled=True)
    res = audit_from_scores(s0, s1, delta=delta, confidence=conf, claimed_epsilon=claimed_epsilon)
    return StatisticalAudit(res.epsilon_lower, conf, runs, res.threshold, res.false_positive_rate,
                            res.false_negative_rate, claimed_epsilon, res.violation, time.perf_counter() - t0)


def audit_from_scores(
    scores0, scores1, *, delta: float = 0.0, confidence: float = 0.95, claimed_epsilon: float | None = None
) -> StatisticalAudit:
    """The statistical audit on precomputed scores (for mechanisms that sample in bulk).

    ``scores0[i]`` / ``scores1[i]`` are the test scores of independent runs on input 0 / input 1
    (the same number of each). The first half of each chooses the threshold, the second half
    evaluates it.

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> res = audit_from_scores(g.normal(0, 1, 20000), g.normal(3, 1, 20000), delta=1e-3)
    >>> res.epsilon_lower > 2
    True
    """
    t0 = time.perf_counter()
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
    half = s0.size // 2
    thr = _best_threshold(s0[:half], s1[:half], delta)  # calibration half
    e0, e1 = s0[half:], s1[half:]  # evaluation half
    m = e0.size
    fp = int(np.sum(e0 >= thr))
    fn = int(np.sum(e1 < thr))
    eps_hat = epsilon_lower_bound(fp, fn, m, delta=delta, confidence=conf)
    violation = claimed_epsilon is not None and eps_hat > claimed_epsilon
    return StatisticalAudit(eps_hat, conf, int(s0.size), thr, fp / m, fn / m, claimed_epsilon, bool(violation),
                            time.perf_counter() - t0)


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
    runs = check_int(runs, "runs", low=1)
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
