"""The sparse vector technique: AboveThreshold (Dwork & Roth 2014, Algorithm 1 of §3.6)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .random import RNGLike, as_generator
from .validation import check_epsilon, check_positive, check_real

__all__ = ["AboveThresholdResult", "above_threshold"]


@dataclass(frozen=True)
class AboveThresholdResult:
    """Output of :func:`above_threshold`.

    Attributes
    ----------
    index : int or None
        Index of the first query reported "above" (⊤), or None if every query was "below".
    queries_answered : int
        How many queries were examined (index + 1, or all of them).
    noisy_threshold : float
        T̂ = T + ρ (kept for teaching displays; a real deployment would not publish it).
    epsilon : float
        The ε spent: AboveThreshold is ε-DP however many queries it examines.
    delta : float
        Always 0.
    """

    index: int | None
    queries_answered: int
    noisy_threshold: float
    epsilon: float
    delta: float = 0.0


def above_threshold(
    queries: Iterable[float],
    threshold: float,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    rng: RNGLike = None,
) -> AboveThresholdResult:
    """AboveThreshold: report the first query whose noisy answer exceeds a noisy threshold.

    Algorithm (Dwork & Roth, Alg. 1 "AboveThreshold", with sensitivity Δ):

    1. ρ ~ Lap(2Δ/ε); T̂ = T + ρ.
    2. For each query i: ν_i ~ Lap(4Δ/ε); if q_i + ν_i ≥ T̂, output ⊤ for i and halt.
    3. Otherwise output ⊥ and continue.

    It is ε-DP for any number of queries when each query has sensitivity Δ.

    Parameters
    ----------
    queries : iterable of float
        The query answers on the private data, in order (evaluated lazily, so an infinite
        generator works). Each query must have sensitivity ≤ ``sensitivity``.
    threshold : float
        The public threshold T.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0.
    rng : Generator, int or None

    Returns
    -------
    AboveThresholdResult

    References
    ----------
    Dwork, Roth (2014). *The Algorithmic Foundations of Differential Privacy*, §3.6, Algorithm 1.

    Examples
    --------
    >>> res = above_threshold([0, 0, 100, 0], threshold=50, epsilon=10.0, rng=0)
    >>> res.index
    2
    """
    thr = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    sens = check_positive(sensitivity, "sensitivity")
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Iterable):
        raise TypeError(f"queries must be an iterable of numbers; got {type(queries).__name__}")
    gen = as_generator(rng)
    noisy_threshold = thr + gen.laplace(scale=2.0 * sens / eps)  # step 1
    count = 0
    for i, q in enumerate(queries):
        q = check_real(q, f"queries[{i}]")
        count += 1
        if q + gen.laplace(scale=4.0 * sens / eps) >= noisy_threshold:  # step 2
            return AboveThresholdResult(i, count, float(noisy_threshold), eps)
    return AboveThresholdResult(None, count, float(noisy_threshold), eps)
