"""The intro track's mechanisms on one counting query: "how many people in the data set have the trait?"

A data set of n people, ``count`` of whom have the trait. Its neighbour differs in one person, whose
answer changes from "no" to "yes" (and who may move the query by up to ``sensitivity``: rows per
person). Three ways to release the count privately: the Laplace and Gaussian mechanisms
(:mod:`dpexplore.core`) on the count, and randomized response, where every person flips their own
answer (Warner 1965) and the analyst debiases the sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.additive import gaussian_mechanism, laplace_mechanism
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.randomized_response import flip_probability
from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_real,
)

__all__ = ["MAX_PEOPLE", "MECHANISMS", "CountRelease", "RRSurvey", "release_count", "rr_count_sd", "rr_survey"]

#: the mechanisms of the intro track, in the order the dashboards draw them
MECHANISMS = ("laplace", "gaussian", "rr")
#: the largest data set the intro track simulates (people)
MAX_PEOPLE = 1_000_000


@dataclass(frozen=True)
class CountRelease:
    """A privately released count.

    Attributes
    ----------
    value : float
        The release (for ``"rr"``: the debiased count estimated from the flipped answers).
    mechanism : str
    epsilon, delta : float
        The privacy spent.
    noise_sd : float
        The standard deviation of ``value`` around the true count (exact).
    """

    value: float
    mechanism: str
    epsilon: float
    delta: float
    noise_sd: float


@dataclass(frozen=True)
class RRSurvey:
    """One randomized-response survey: what the analyst sees and estimates.

    Attributes
    ----------
    n : int
    raw_fraction : float
        The fraction of "yes" among the (flipped) answers: biased towards 1/2.
    estimate : float
        The debiased fraction (ȳ − μ)/(1 − 2μ), μ = 1/(e^ε + 1).
    lower, upper : float
        Its Wald interval estimate ± z·√(ȳ(1 − ȳ)/n)/(1 − 2μ) at ``confidence``.
    epsilon : float
    confidence : float
    """

    n: int
    raw_fraction: float
    estimate: float
    lower: float
    upper: float
    epsilon: float
    confidence: float


def _rr_count(count: int, n: int, epsilon: float, gen: np.random.Generator) -> float:
    mu = flip_probability(epsilon)
    yes = gen.binomial(count, 1.0 - mu) + gen.binomial(n - count, mu)  # the flipped answers' "yes" count
    return (yes - n * mu) / (1.0 - 2.0 * mu)


def rr_count_sd(n: int, epsilon: float) -> float:
    """Standard deviation of the debiased randomized-response count: √(n μ(1 − μ))/(1 − 2μ) (exact).

    Every answer is a coin with variance μ(1 − μ) whether the truth is yes or no.

    Examples
    --------
    >>> round(rr_count_sd(100, math.log(3)), 6)
    8.660254
    """
    mu = flip_probability(check_epsilon(epsilon))
    return math.sqrt(check_int(n, "n", low=1, high=MAX_PEOPLE) * mu * (1.0 - mu)) / (1.0 - 2.0 * mu)


def release_count(count: int, n: int, *, mechanism: str, epsilon: float, delta: float = 1e-5,
                  sensitivity: float = 1.0, rng: RNGLike = None) -> CountRelease:
    """Release ``count`` (of ``n`` people) with the Laplace or Gaussian mechanism or by randomized response.

    Parameters
    ----------
    count : int
        The true count, 0 ≤ count ≤ n.
    n : int
        People in the data set, 1 ≤ n ≤ :data:`MAX_PEOPLE`.
    mechanism : {"laplace", "gaussian", "rr"}
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1) (Gaussian only).
    sensitivity : float
        Δ > 0 (Laplace and Gaussian; randomized response protects each person's one bit, Δ = 1).
    rng : Generator, int or None

    Examples
    --------
    >>> r = release_count(30, 100, mechanism="laplace", epsilon=1.0, rng=0)
    >>> r.mechanism, r.noise_sd == math.sqrt(2)
    ('laplace', True)
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    count = check_int(count, "count", low=0, high=n)
    mech = check_choice(mechanism, "mechanism", MECHANISMS)
    eps = check_epsilon(epsilon)
    sens = check_positive(sensitivity, "sensitivity")
    gen = as_generator(rng)
    if mech == "laplace":
        r = laplace_mechanism(float(count), sensitivity=sens, epsilon=eps, rng=gen)
        return CountRelease(r.value, mech, eps, 0.0, math.sqrt(2.0) * r.scale)
    if mech == "gaussian":
        g = gaussian_mechanism(float(count), sensitivity=sens, epsilon=eps, delta=check_delta(delta), rng=gen)
        return CountRelease(g.value, mech, eps, g.delta, g.sigma)
    return CountRelease(_rr_count(count, n, eps, gen), mech, eps, 0.0, rr_count_sd(n, eps))


def rr_survey(bits, *, epsilon: float, confidence: float = 0.95, rng: RNGLike = None) -> RRSurvey:
    """Every person flips their answer with probability μ = 1/(e^ε + 1); the analyst debiases the mean.

    Parameters
    ----------
    bits : array_like of {0, 1}
        The true answers (1 = yes), at most :data:`MAX_PEOPLE`.
    epsilon : float
        ε > 0 per person.
    confidence : float
        Level of the interval, in (0, 1).

    Examples
    --------
    >>> s = rr_survey([1] * 30 + [0] * 70, epsilon=2.0, rng=0)
    >>> s.n, bool(s.lower < s.estimate < s.upper)
    (100, True)
    """
    from scipy import special

    arr = check_array(bits, "bits", allow_bool=True, min_size=1, max_size=MAX_PEOPLE,
                      kind="an array of 0/1 values").ravel()
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError("bits must be an array of 0/1 values; got other values")
    n = check_int(arr.size, "len(bits)", low=1, high=MAX_PEOPLE)
    eps = check_epsilon(epsilon)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    mu = flip_probability(eps)
    flips = as_generator(rng).random(n) < mu
    ybar = float(np.mean(np.where(flips, 1 - arr, arr)))
    est = (ybar - mu) / (1.0 - 2.0 * mu)
    z = float(special.ndtri(0.5 + conf / 2.0))
    half = z * math.sqrt(ybar * (1.0 - ybar) / n) / (1.0 - 2.0 * mu)
    return RRSurvey(n, ybar, est, est - half, est + half, eps, conf)
