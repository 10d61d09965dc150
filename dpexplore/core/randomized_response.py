"""Binary randomized response (Warner 1965) and its debiasing."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .random import RNGLike, as_generator
from .validation import check_array, check_epsilon

__all__ = ["RandomizedResponseResult", "flip_probability", "randomized_response", "debias_randomized_response"]


@dataclass(frozen=True)
class RandomizedResponseResult:
    """Output of :func:`randomized_response`.

    Attributes
    ----------
    bits : ndarray of int8
        The released bits, same shape as the input.
    flip_probability : float
        μ = 1/(e^ε + 1), the probability that each bit was flipped.
    epsilon : float
        The ε spent (each bit is ε-DP; neighbouring inputs differ in one bit).
    delta : float
        Always 0.
    """

    bits: np.ndarray
    flip_probability: float
    epsilon: float
    delta: float = 0.0


def flip_probability(epsilon: float) -> float:
    """μ = 1/(e^ε + 1): the flip probability that makes randomized response ε-DP.

    Examples
    --------
    >>> round(flip_probability(math.log(3)), 6)
    0.25
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    return 0.0 if math.isinf(eps) else 1.0 / (math.exp(min(eps, 700.0)) + 1.0)


def _check_bits(bits) -> np.ndarray:
    # the shared path refuses complex, object and str
    arr = check_array(bits, "bits", finite=False, allow_bool=True, kind="an array of 0/1 values")
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise ValueError("bits must be an array of 0/1 values; got other values, e.g. "
                         f"{arr[(arr != 0) & (arr != 1)].flat[0].item():g}")
    return arr.astype(np.int8)


def randomized_response(bits, epsilon: float, *, rng: RNGLike = None) -> RandomizedResponseResult:
    """Release each bit, flipped independently with probability μ = 1/(e^ε + 1).

    For a single bit the output probabilities on inputs 0 and 1 are (1 − μ, μ) and (μ, 1 − μ),
    whose ratio is exactly e^ε: randomized response is ε-DP per bit.

    Parameters
    ----------
    bits : array_like of {0, 1}
        Any shape.
    epsilon : float
        ε > 0 (``numpy.inf`` gives the identity, for limit checks).
    rng : Generator, int or None
        Source of randomness (see :func:`dpexplore.core.as_generator`).

    Returns
    -------
    RandomizedResponseResult

    Examples
    --------
    >>> res = randomized_response([0, 1, 1, 0], epsilon=1.0, rng=0)
    >>> res.bits.shape, round(res.flip_probability, 4)
    ((4,), 0.2689)
    """
    arr = _check_bits(bits)
    eps = check_epsilon(epsilon, allow_inf=True)
    mu = flip_probability(eps)
    gen = as_generator(rng)
    flips = gen.random(arr.shape) < mu
    released = np.where(flips, 1 - arr, arr).astype(np.int8)
    return RandomizedResponseResult(bits=released, flip_probability=mu, epsilon=eps)


def debias_randomized_response(released, epsilon: float):
    """Unbiased estimate of the input bits (or their mean) from randomized-response output.

    E[released] = μ + (1 − 2μ)·x, so x̂ = (released − μ)/(1 − 2μ) is unbiased for x. Applied to a
    mean of released bits it gives an unbiased estimate of the true mean (post-processing:
    no extra privacy cost).

    Examples
    --------
    >>> float(debias_randomized_response(0.5, 1.0))
    0.5
    """
    eps = check_epsilon(epsilon, allow_inf=True)
    mu = flip_probability(eps)
    arr = check_array(released, "released", allow_bool=True)
    out = (arr - mu) / (1.0 - 2.0 * mu)
    return float(out) if out.ndim == 0 else out
