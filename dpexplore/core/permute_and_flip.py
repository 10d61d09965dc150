"""Permute-and-flip (McKenna & Sheldon, NeurIPS 2020) and its exact output law."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .random import RNGLike, as_generator
from .validation import check_array, check_epsilon, check_positive

__all__ = ["MAX_CANDIDATES", "PermuteAndFlipResult", "permute_and_flip", "permute_and_flip_probabilities"]

#: Largest number of scores (candidates × batch rows) :func:`permute_and_flip` and
#: :func:`permute_and_flip_probabilities` take; the exact law forms a (B, ⌊K/2⌋ + 1, K) array,
#: so its K is further capped by ``MAX_CANDIDATES_EXACT``.
MAX_CANDIDATES = 10_000_000
#: Largest B·(⌊K/2⌋ + 1)·K of :func:`permute_and_flip_probabilities` (memory: 400 MB of float64).
MAX_CANDIDATES_EXACT = 50_000_000


@dataclass(frozen=True)
class PermuteAndFlipResult:
    """Output of :func:`permute_and_flip`.

    Attributes
    ----------
    index : int
        The selected candidate.
    epsilon : float
        The ε spent (ε-DP when every score has sensitivity ≤ ``sensitivity``).
    delta : float
        Always 0.
    """

    index: int
    epsilon: float
    delta: float = 0.0


def _check_scores(scores, name: str = "scores") -> np.ndarray:
    # the shared path refuses complex (astype(float) would keep the real part), object and str
    arr = check_array(scores, name, finite=False, allow_bool=True, max_size=MAX_CANDIDATES)
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array (or a 2-d batch of rows); got shape {arr.shape}")
    if np.isfinite(arr).all():  # the common case: one pass
        return arr
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        raise ValueError(f"{name} must be finite (or -inf to exclude a candidate); got NaN or +inf")
    if np.any(np.all(arr == -np.inf, axis=-1)):
        raise ValueError(f"{name} must have at least one finite entry per row; got a row of -inf only")
    return arr


def _acceptance(arr: np.ndarray, eps: float, sens: float) -> np.ndarray:
    # p_r = exp(ε (q_r − q*) / (2Δ)); the maximiser has p = 1 and excluded (-inf) candidates p = 0.
    qmax = np.max(arr, axis=-1, keepdims=True)
    # exp(-inf) = 0 for excluded candidates; qmax is finite (at least one finite entry per row).
    # q_r − q* < −1.8e308 overflows to −inf, and a tiny ε/(2Δ) can round to 0 (0·(−inf) = NaN);
    # in both cases the exact p_r = exp(ε (q_r − q*)/(2Δ)) is 0 or 1 to double precision, so we
    # compute the exponent with overflow silenced and map the −inf gaps to p = 0 explicitly.
    with np.errstate(over="ignore", invalid="ignore"):
        gap = arr - qmax
        expo = (eps / (2.0 * sens)) * gap
    return np.where(gap == -np.inf, 0.0, np.exp(np.where(np.isnan(expo), 0.0, expo)))


def permute_and_flip(
    scores, epsilon: float, *, sensitivity: float = 1.0, rng: RNGLike = None
) -> PermuteAndFlipResult:
    """Select a high-scoring candidate with permute-and-flip.

    Algorithm (McKenna & Sheldon 2020, Alg. 1):

    1. q* = max_r q_r.
    2. Visit the candidates in a uniformly random order.
    3. Flip a coin for candidate r with heads probability p_r = exp(ε (q_r − q*)/(2Δ)); output
       the first candidate whose coin lands heads (the maximiser always does).

    It is ε-DP when each score has sensitivity ≤ Δ, never worse than the exponential
    mechanism, and equal in law to ``argmax_r (q_r + Z_r)`` with Z_r ~ Exponential(scale 2Δ/ε)
    (Ding et al. 2021).

    Parameters
    ----------
    scores : array_like, shape (K,)
        Utility of each candidate (higher is better); ``-inf`` excludes a candidate.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0, the sensitivity of every score.
    rng : Generator, int or None

    Returns
    -------
    PermuteAndFlipResult

    See Also
    --------
    permute_and_flip_probabilities : the exact output law.

    Examples
    --------
    >>> permute_and_flip([0.0, 10.0, 0.0], epsilon=100.0, rng=0).index
    1
    """
    arr = _check_scores(scores)
    if arr.ndim != 1:
        raise ValueError(f"scores must be a 1-d array; got shape {arr.shape}")
    eps = check_epsilon(epsilon)
    sens = check_positive(sensitivity, "sensitivity")
    gen = as_generator(rng)
    p = _acceptance(arr, eps, sens)  # step 1 (and the coin biases of step 3)
    order = gen.permutation(arr.size)  # step 2
    heads = gen.random(arr.size) < p[order]  # step 3: all coins at once; the maximiser's is sure
    return PermuteAndFlipResult(index=int(order[np.argmax(heads)]), epsilon=eps)


def permute_and_flip_probabilities(scores, epsilon: float, *, sensitivity: float = 1.0) -> np.ndarray:
    """Exact output distribution of :func:`permute_and_flip`.

    Give each candidate an independent uniform arrival time t; r is output when its coin is
    heads and every earlier candidate's is tails, so

        P(r) = p_r ∫₀¹ Π_{s≠r} (1 − t p_s) dt.

    The integrand is a polynomial of degree K − 1, so Gauss–Legendre quadrature with
    ⌊K/2⌋ + 1 nodes evaluates it exactly (up to rounding); the product is taken in log space.

    Parameters
    ----------
    scores : array_like, shape (K,) or (B, K)
        Utilities; a 2-d array is a batch of B independent selections. ``-inf`` excludes a candidate.
    epsilon : float
    sensitivity : float

    Returns
    -------
    ndarray, same shape as ``scores``
        Probabilities (each row sums to 1).

    Examples
    --------
    >>> p = permute_and_flip_probabilities([0.0, 0.0], epsilon=1.0)
    >>> p.round(6).tolist()
    [0.5, 0.5]
    """
    arr = _check_scores(scores)
    eps = check_epsilon(epsilon)
    sens = check_positive(sensitivity, "sensitivity")
    rows, k_cand = (1, arr.shape[0]) if arr.ndim == 1 else arr.shape
    if rows * (k_cand // 2 + 1) * k_cand > MAX_CANDIDATES_EXACT:
        raise ValueError(
            f"scores must have at most B·(K//2 + 1)·K <= {MAX_CANDIDATES_EXACT:,} (the exact law's quadrature "
            f"array); got B = {rows}, K = {k_cand}"
        )
    p = _acceptance(arr, eps, sens)
    squeeze = p.ndim == 1
    p2 = p[None, :] if squeeze else p
    k = p2.shape[1]
    nodes, weights = np.polynomial.legendre.leggauss(k // 2 + 1)
    t = 0.5 * (nodes + 1.0)  # map [-1, 1] -> [0, 1]
    w = 0.5 * weights
    # log(1 - t p_s) for every node and candidate: shape (B, G, K); nodes are interior so t p < 1.
    logs = np.log1p(-t[None, :, None] * p2[:, None, :])
    total = logs.sum(axis=2, keepdims=True)
    integral = np.einsum("g,bgk->bk", w, np.exp(total - logs))
    probs = p2 * integral
    probs /= probs.sum(axis=1, keepdims=True)  # removes rounding drift only (sum is 1 exactly in theory)
    return probs[0] if squeeze else probs
