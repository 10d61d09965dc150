"""The Laplace and Gaussian mechanisms: a query's value plus calibrated noise.

Sampling is separate from accounting: :func:`laplace_scale` and :func:`dpexplore.core.gaussian_sigma`
say how much noise a privacy level costs, the mechanisms draw it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gaussian import gaussian_sigma
from .random import RNGLike, as_generator
from .validation import check_array, check_delta, check_epsilon, check_positive

__all__ = ["GaussianResult", "LaplaceResult", "gaussian_mechanism", "laplace_mechanism", "laplace_scale"]

#: the largest array a mechanism releases at once (entries)
MAX_VALUES = 10_000_000


@dataclass(frozen=True)
class LaplaceResult:
    """Output of :func:`laplace_mechanism`.

    Attributes
    ----------
    value : float or ndarray
        The released value(s): the input plus Laplace(0, b) noise, same shape as the input.
    scale : float
        b = Δ/ε.
    sensitivity : float
        Δ, the ℓ1-sensitivity the caller declared.
    epsilon : float
        The ε spent.
    delta : float
        Always 0.
    """

    value: float | np.ndarray
    scale: float
    sensitivity: float
    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True)
class GaussianResult:
    """Output of :func:`gaussian_mechanism`.

    Attributes
    ----------
    value : float or ndarray
        The released value(s): the input plus N(0, σ²) noise.
    sigma : float
        The analytic-Gaussian σ for (ε, δ) and Δ (Balle & Wang 2018).
    sensitivity : float
        Δ, the ℓ2-sensitivity the caller declared.
    epsilon, delta : float
        The (ε, δ) spent.
    """

    value: float | np.ndarray
    sigma: float
    sensitivity: float
    epsilon: float
    delta: float


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """b = Δ/ε: the Laplace noise scale that makes a query of ℓ1-sensitivity Δ ε-DP (Dwork et al. 2006).

    Examples
    --------
    >>> laplace_scale(0.5, 1.0)
    2.0
    """
    return check_positive(sensitivity, "sensitivity") / check_epsilon(epsilon)


def _values(value) -> np.ndarray:
    arr = check_array(value, "value", max_size=MAX_VALUES)
    return arr.astype(float)


def _out(arr: np.ndarray, noisy: np.ndarray):
    return float(noisy) if arr.ndim == 0 else noisy


def laplace_mechanism(value, *, sensitivity: float, epsilon: float, rng: RNGLike = None) -> LaplaceResult:
    """Release ``value`` + Laplace(0, Δ/ε) noise (independent per entry): ε-DP for a query of ℓ1-sensitivity Δ.

    Parameters
    ----------
    value : float or array_like
        The query's exact answer on the data (e.g. a count).
    sensitivity : float
        Δ > 0: the most the answer (its ℓ1 norm, for an array) can change when one person's data changes.
    epsilon : float
        ε > 0.
    rng : Generator, int or None

    Returns
    -------
    LaplaceResult

    Notes
    -----
    The output densities on neighbouring answers v and v + Δ differ by a factor at most e^ε at every
    point: |x − v| − |x − v − Δ| ≤ Δ. Mean absolute error b = Δ/ε, standard deviation √2·b.

    Examples
    --------
    >>> r = laplace_mechanism(42.0, sensitivity=1.0, epsilon=0.5, rng=0)
    >>> r.scale, r.epsilon, isinstance(r.value, float)
    (2.0, 0.5, True)
    """
    arr = _values(value)
    b = laplace_scale(epsilon, sensitivity)
    noisy = arr + as_generator(rng).laplace(0.0, b, size=arr.shape)
    return LaplaceResult(value=_out(arr, noisy), scale=b, sensitivity=float(sensitivity), epsilon=float(epsilon))


def gaussian_mechanism(value, *, sensitivity: float, epsilon: float, delta: float,
                       rng: RNGLike = None) -> GaussianResult:
    """Release ``value`` + N(0, σ²) noise with the analytic σ for (ε, δ): (ε, δ)-DP for ℓ2-sensitivity Δ.

    Parameters
    ----------
    value : float or array_like
    sensitivity : float
        Δ > 0 (ℓ2 norm of the largest change of the answer).
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).
    rng : Generator, int or None

    Returns
    -------
    GaussianResult

    Notes
    -----
    σ = :func:`dpexplore.core.gaussian_sigma` (ε, δ, Δ): the smallest σ whose exact privacy profile
    δ(ε) = Φ(−εσ/Δ + Δ/(2σ)) − e^ε Φ(−εσ/Δ − Δ/(2σ)) meets δ (Balle & Wang 2018).

    Examples
    --------
    >>> r = gaussian_mechanism([10.0, 20.0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    >>> r.value.shape, round(r.sigma, 4)
    ((2,), 3.7306)
    """
    arr = _values(value)
    sigma = gaussian_sigma(epsilon, check_delta(delta), sensitivity)
    noisy = arr + as_generator(rng).normal(0.0, sigma, size=arr.shape)
    return GaussianResult(value=_out(arr, noisy), sigma=sigma, sensitivity=float(sensitivity),
                          epsilon=float(epsilon), delta=float(delta))
