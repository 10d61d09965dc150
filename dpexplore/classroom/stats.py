"""The statistics of a randomized-response class poll: debiased estimate, interval, deniability.

Each student holds a true answer x ∈ {0, 1} and reports y = x, or 1 − x with probability
μ = 1/(e^ε + 1) (Warner 1965; :func:`dpexplore.core.randomized_response`). If a fraction π of the
class holds "yes", each report is an independent Bernoulli(p) with

    p = μ + (1 − 2μ) π,

so with k "yes" reports out of n, π̂ = (k/n − μ)/(1 − 2μ) is unbiased (it can fall outside [0, 1]).

**The interval.** Take the exact Clopper–Pearson interval [L, U] for the report probability p
(level 1 − α; its coverage is ≥ 1 − α for every p and n). The map π ↦ p is increasing and affine,
and the true π lies in [0, 1], so

    π ∈ [clip((L − μ)/(1 − 2μ)), clip((U − μ)/(1 − 2μ))]   ⇔   p ∈ [L, U] ∩ [μ, 1 − μ]   ⇐   p ∈ [L, U]

(clip to [0, 1]). Hence the mapped and clipped interval covers π with probability ≥ 1 − α: the
guarantee carries over exactly, clipping only removes values π cannot take. (When [L, U] misses
[μ, 1 − μ] altogether, the clipped interval is a single endpoint; that can only happen in a
non-covering draw.) :func:`exact_coverage` computes the coverage from the binomial law, and the
tests compare it with simulated classes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.experiment import proportion_band
from ..core.random import RNGLike, as_generator
from ..core.randomized_response import flip_probability, randomized_response
from ..core.validation import check_epsilon, check_int, check_probability, check_real

__all__ = ["PollEstimate", "Deniability", "estimate_fraction", "deniability", "simulate_class",
           "interval_halfwidth", "exact_coverage", "simulated_coverage", "check_poll_epsilon", "MAX_SIMULATED_STUDENTS",
           "MIN_MEANINGFUL_EPSILON", "MAX_MEANINGFUL_EPSILON", "MAX_HALFWIDTH_POINTS"]

#: largest class a simulation draws (students × classes)
MAX_SIMULATED_STUDENTS = 10_000_000
#: most class sizes :func:`interval_halfwidth` evaluates in one call
MAX_HALFWIDTH_POINTS = 10_000
#: above this ε the flip probability 1/(e^ε + 1) is below 1e-300: that is no randomization, and no
#: sentence about "how deniable" an answer is means anything (ln(1e300) ≈ 690.78)
MAX_MEANINGFUL_EPSILON = math.log(1e300)
#: below this ε, 1 − 2μ = tanh(ε/2) < 5e-7: every answer is a fair coin and the class's fraction cannot
#: be estimated (the debiasing divides by 1 − 2μ)
MIN_MEANINGFUL_EPSILON = 1e-6


def check_poll_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Validate the ε of a randomized-response answer: a number a student can be told something about.

    Examples
    --------
    >>> check_poll_epsilon(1)
    1.0
    >>> check_poll_epsilon(800)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be in [1e-06, 690.8]: ... is below 1e-300, which is no randomization at all; got 800
    """
    eps = check_epsilon(epsilon, name)
    if eps > MAX_MEANINGFUL_EPSILON:
        raise ValueError(f"{name} must be in [{MIN_MEANINGFUL_EPSILON:g}, {MAX_MEANINGFUL_EPSILON:.1f}]: at {name} = "
                         f"{eps:g} the flip probability 1/(e^{name} + 1) is below 1e-300, which is no randomization "
                         f"at all; got {epsilon!r}")
    if eps < MIN_MEANINGFUL_EPSILON:
        raise ValueError(f"{name} must be in [{MIN_MEANINGFUL_EPSILON:g}, {MAX_MEANINGFUL_EPSILON:.1f}]: at {name} = "
                         f"{eps:g} every answer is (within 5e-7) a fair coin, so nothing about the class can be "
                         f"estimated; got {epsilon!r}")
    return eps


@dataclass(frozen=True)
class PollEstimate:
    """Debiased estimate of the true yes-fraction from ``yes`` randomized reports out of ``n``.

    Attributes
    ----------
    raw_fraction : float
        k/n, the fraction of "yes" reports (NaN when n = 0).
    estimate : float
        (k/n − μ)/(1 − 2μ), unbiased, may lie outside [0, 1].
    estimate_clipped : float
        The estimate clipped to [0, 1] (what a page shows as "about x %").
    low, high : float
        The interval for the true fraction (mapped Clopper–Pearson, clipped to [0, 1]).
    raw_low, raw_high : float
        The Clopper–Pearson interval of the report probability p.
    """

    n: int
    yes: int
    epsilon: float
    flip_probability: float
    confidence: float
    raw_fraction: float
    estimate: float
    estimate_clipped: float
    low: float
    high: float
    raw_low: float
    raw_high: float
    method: str = "Clopper–Pearson on the raw fraction, mapped through (p − μ)/(1 − 2μ), clipped to [0, 1]"


def _debias(p, mu):
    return (np.asarray(p, dtype=float) - mu) / (1.0 - 2.0 * mu)


def estimate_fraction(yes: int, n: int, *, epsilon: float, confidence: float = 0.95) -> PollEstimate:
    """Debiased estimate and interval of the true yes-fraction (see the module docstring).

    Parameters
    ----------
    yes : int
        Number of "yes" reports (after randomized response), 0 ≤ yes ≤ n.
    n : int
        Number of reports (0 gives NaN estimate and the interval [0, 1]).
    epsilon : float
        The ε every report was randomized with.
    confidence : float
        Interval level 1 − α, in (0, 1).

    Examples
    --------
    >>> r = estimate_fraction(14, 30, epsilon=1.0)
    >>> round(r.raw_fraction, 3), round(r.estimate, 3), round(r.low, 3), round(r.high, 3)
    (0.467, 0.428, 0.031, 0.839)
    >>> estimate_fraction(0, 0, epsilon=1.0).high
    1.0
    """
    n = check_int(n, "n", low=0, high=MAX_SIMULATED_STUDENTS)
    yes = check_int(yes, "yes", low=0, high=n)
    eps = check_poll_epsilon(epsilon)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    mu = flip_probability(eps)
    if n == 0:
        nan = math.nan
        return PollEstimate(0, 0, eps, mu, conf, nan, nan, nan, 0.0, 1.0, 0.0, 1.0)
    p, lo, hi = (float(v) for v in proportion_band(yes, n, conf, method="clopper-pearson"))
    est = float(_debias(p, mu))
    low, high = (float(np.clip(_debias(v, mu), 0.0, 1.0)) for v in (lo, hi))
    return PollEstimate(n, yes, eps, mu, conf, p, est, float(np.clip(est, 0.0, 1.0)), low, high, lo, hi)


@dataclass(frozen=True)
class Deniability:
    """How much one randomized report says about its sender.

    Attributes
    ----------
    likelihood_ratio : float
        P(report | true yes) / P(report | true no) for a "yes" report = e^ε (the inverse for "no"):
        anyone's odds on your true answer move by at most this factor.
    posterior_same : float
        With a 50/50 prior, the probability that your true answer equals your report (1 − μ).
    flip_probability : float
        μ, the chance that the coin flipped your answer.
    """

    epsilon: float
    likelihood_ratio: float
    flip_probability: float
    prior: float
    posterior_yes_given_yes: float
    posterior_yes_given_no: float

    @property
    def posterior_same(self) -> float:
        return 1.0 - self.flip_probability


def deniability(epsilon: float, prior: float = 0.5) -> Deniability:
    """Posterior belief about a student's true answer after seeing their report (Bayes with odds e^ε).

    Posterior odds = prior odds × e^{±ε}: a report is at most e^ε times more likely under one true
    answer than the other, which is exactly ε-DP of randomized response.

    Examples
    --------
    >>> d = deniability(math.log(3))
    >>> round(d.likelihood_ratio, 6), round(d.posterior_yes_given_yes, 6), round(d.posterior_yes_given_no, 6)
    (3.0, 0.75, 0.25)
    """
    eps = check_poll_epsilon(epsilon)
    q = check_probability(prior, "prior", open_low=True, open_high=True)
    lr = math.exp(eps)
    odds = q / (1 - q)
    return Deniability(eps, lr, flip_probability(eps), q, odds * lr / (1 + odds * lr), (odds / lr) / (1 + odds / lr))


def simulate_class(true_fraction: float, n: int, *, epsilon: float, classes: int = 1,
                   rng: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Simulated classes of known truth: ``(true_yes, reported_yes)`` counts, one per class.

    Each of ``classes`` classes has ``n`` students; each student's true answer is yes with
    probability ``true_fraction`` and is reported through :func:`~dpexplore.core.randomized_response`.

    Examples
    --------
    >>> t, r = simulate_class(0.3, 40, epsilon=1.0, classes=3, rng=0)
    >>> t.shape, r.shape, bool((r <= 40).all())
    ((3,), (3,), True)
    """
    pi = check_probability(true_fraction, "true_fraction")
    n = check_int(n, "n", low=1)
    classes = check_int(classes, "classes", low=1)
    if n * classes > MAX_SIMULATED_STUDENTS:
        raise ValueError(f"n * classes must be <= {MAX_SIMULATED_STUDENTS}; got {n} * {classes} = {n * classes}")
    check_poll_epsilon(epsilon)
    gen = as_generator(rng)
    truth = (gen.random((classes, n)) < pi).astype(np.int8)
    reports = randomized_response(truth, epsilon, rng=gen).bits
    return truth.sum(axis=1), reports.sum(axis=1).astype(np.int64)


def interval_halfwidth(n, *, epsilon: float, true_fraction: float = 0.5, confidence: float = 0.95) -> np.ndarray:
    """Half-width of the (mapped, clipped) interval for a class of ``n`` whose true fraction is ``true_fraction``.

    Evaluated exactly at the count such a class reports on average at this ε, k = round(p · n) with
    p = μ + (1 − 2μ) · true_fraction; what the class view plots to show how the interval would
    shrink with more students or another ε (for the same class).

    Examples
    --------
    >>> w = interval_halfwidth([10, 100, 1000], epsilon=1.0)
    >>> bool(w[0] > w[1] > w[2])
    True
    """
    if isinstance(n, (bool, np.bool_)) or (isinstance(n, np.ndarray) and n.dtype == bool):
        raise TypeError(f"n must be a class size or a 1-D sequence of class sizes; got {n!r:.40} of type bool")
    try:
        ns = np.atleast_1d(np.asarray(n))
    except ValueError as exc:  # ragged nested sequences
        raise TypeError(f"n must be a class size or a 1-D sequence of class sizes; got a ragged sequence ({exc})") \
            from None
    if ns.ndim != 1:
        raise TypeError(f"n must be a class size or a 1-D sequence of class sizes; got an array of shape {ns.shape}")
    if ns.size > MAX_HALFWIDTH_POINTS:
        raise ValueError(f"n must have at most {MAX_HALFWIDTH_POINTS} entries; got {ns.size}")
    if ns.size and not (np.issubdtype(ns.dtype, np.integer) or np.issubdtype(ns.dtype, np.floating)):
        raise TypeError(f"n must hold integer class sizes; got dtype {ns.dtype}")
    pi = check_probability(true_fraction, "true_fraction")
    mu = flip_probability(check_poll_epsilon(epsilon))
    p = mu + (1 - 2 * mu) * pi
    out = []
    for i, m in enumerate(ns.tolist()):
        m = check_int(m, f"n[{i}]", low=1, high=MAX_SIMULATED_STUDENTS)
        r = estimate_fraction(int(round(p * m)), m, epsilon=epsilon, confidence=confidence)
        out.append((r.high - r.low) / 2)
    return np.asarray(out)


def _interval_arrays(k, n: int, mu: float, confidence: float):
    _, lo, hi = proportion_band(k, np.full(np.shape(k), n), confidence, method="clopper-pearson")
    return np.clip(_debias(lo, mu), 0, 1), np.clip(_debias(hi, mu), 0, 1)


def _check_model(model: str) -> str:
    if model not in ("population", "fixed_class"):
        raise ValueError(f"model must be 'population' or 'fixed_class'; got {model!r}")
    return model


def exact_coverage(true_fraction: float, n: int, *, epsilon: float, confidence: float = 0.95,
                   model: str = "population") -> float:
    """P(the interval covers the truth), summed over the exact law of the "yes"-report count.

    ``model="population"``: each student holds "yes" with probability π = ``true_fraction`` and the
    target is π; the count is Binomial(n, μ + (1 − 2μ)π), so Clopper–Pearson's guarantee gives
    coverage ≥ ``confidence``. ``model="fixed_class"``: the class has exactly m = round(π n)
    students holding "yes" and the target is m/n; the count is Binomial(m, 1 − μ) ⊛ Binomial(n − m, μ),
    a Poisson-binomial law with the same mean and a smaller variance (no theorem is used here: the
    tests check coverage ≥ ``confidence`` for this law on a grid).

    Examples
    --------
    >>> exact_coverage(0.3, 50, epsilon=1.0) >= 0.95
    True
    """
    from scipy import stats

    pi = check_probability(true_fraction, "true_fraction")
    n = check_int(n, "n", low=1, high=100_000)
    mu = flip_probability(check_poll_epsilon(epsilon))
    model = _check_model(model)
    k = np.arange(n + 1)
    low, high = _interval_arrays(k, n, mu, confidence)
    if model == "population":
        target, law = pi, stats.binom.pmf(k, n, mu + (1 - 2 * mu) * pi)
    else:
        m = int(round(pi * n))
        target = m / n
        law = np.convolve(stats.binom.pmf(np.arange(m + 1), m, 1 - mu),
                          stats.binom.pmf(np.arange(n - m + 1), n - m, mu))
    covered = (low <= target) & (target <= high)
    return float(law[covered].sum())


def simulated_coverage(true_fraction: float, n: int, *, epsilon: float, classes: int, confidence: float = 0.95,
                       model: str = "population", rng: RNGLike = None) -> tuple[int, int]:
    """Simulate ``classes`` classes of known truth end to end; return ``(covered, classes)``.

    Each class draws its students' true answers (``model="population"``: yes with probability
    ``true_fraction``, target ``true_fraction``; ``"fixed_class"``: exactly round(π n) yes, target
    that fraction), randomizes every answer with :func:`~dpexplore.core.randomized_response`, and
    computes :func:`estimate_fraction`'s interval from the reports alone.

    Examples
    --------
    >>> c, m = simulated_coverage(0.3, 40, epsilon=1.0, classes=200, rng=1)
    >>> m, c > 170
    (200, True)
    """
    pi = check_probability(true_fraction, "true_fraction")
    n = check_int(n, "n", low=1, high=100_000)
    classes = check_int(classes, "classes", low=1)
    model = _check_model(model)
    check_poll_epsilon(epsilon)
    if n * classes > MAX_SIMULATED_STUDENTS:
        raise ValueError(f"n * classes must be <= {MAX_SIMULATED_STUDENTS}; got {n} * {classes}")
    gen = as_generator(rng)
    if model == "population":
        truth = (gen.random((classes, n)) < pi).astype(np.int8)
        target = pi
    else:
        m = int(round(pi * n))
        truth = np.zeros((classes, n), dtype=np.int8)
        truth[:, :m] = 1
        target = m / n
    reports = randomized_response(truth, epsilon, rng=gen).bits.sum(axis=1)
    low, high = _interval_arrays(reports, n, flip_probability(check_poll_epsilon(epsilon)), confidence)
    return int(((low <= target) & (target <= high)).sum()), classes
