"""A TopDown mini-lab: discrete-Gaussian measurements of a toy geography, then the Bureau-style
post-processing (non-negativity, integers, children summing to their parent, exact invariants).

The steps (a small-scale version of Abowd et al. 2022; their Sections 4–6):

1. **Invariants**: the nation total and every state total are published exactly. As for the 2020
   Census, they are *outside* the privacy accounting (a policy choice: their privacy loss is not
   bounded by ρ).
2. **Measurements**: every county count and every block count gets independent discrete Gaussian noise
   N_Z(0, σ²_ℓ). One person is in one county and one block, so each level's vector of counts changes by
   1 in one cell between neighbours (add/remove one person): level ℓ is ρ_ℓ-zCDP with ρ_ℓ = 1/(2σ²_ℓ),
   and the release is ρ = ρ_county + ρ_block-zCDP (composition). ``block_share`` is the fraction of ρ
   given to the blocks.
3. **Post-processing, top down**: each county's estimate combines its own measurement with the sum of
   its blocks' measurements (inverse-variance weights), then the counties of a state are made
   non-negative integers summing to the state's exact total (:func:`fit_to_total`: the closest point
   in L2, then integers by largest remainders); then the blocks of each county are fitted to that
   county's released total in the same way. Post-processing costs no privacy.

Because the released counts cannot be negative while the noise can, a block whose true count is 0 or 1
is pushed **up** on average; the total is fixed, so large blocks are pushed **down**. That is the bias
the page measures.

Examples
--------
>>> from dpexplore.deployments.data import toy_geography
>>> g = toy_geography(seed=0)
>>> r = topdown(g, rho=1.0, rng=0)
>>> bool((r.blocks >= 0).all()) and bool((r.blocks.sum(axis=(1, 2)) == g.states).all())
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from dpexplore.core.discrete_gaussian import discrete_gaussian, zcdp_epsilon
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_delta, check_int, check_real

from .data import Geography

__all__ = [
    "BLOCK_SHARE_RANGE",
    "DEFAULT_DELTA",
    "MAX_RHO",
    "MIN_RHO",
    "TopDownResult",
    "fit_to_total",
    "level_rhos",
    "topdown",
]

#: the δ the Bureau stated its ε at (Abowd et al. 2022)
DEFAULT_DELTA = 1e-10
#: accepted range of the total ρ
MIN_RHO, MAX_RHO = 1e-4, 100.0
#: accepted range of the blocks' share of ρ
BLOCK_SHARE_RANGE = (0.05, 0.95)


@functools.lru_cache(maxsize=256)
def _epsilon(rho: float, delta: float) -> float:
    return zcdp_epsilon(rho, delta)


def level_rhos(rho: float, block_share: float = 0.5) -> tuple[float, float]:
    """(ρ_county, ρ_block) = ((1 − share)·ρ, share·ρ), after validating both.

    Examples
    --------
    >>> level_rhos(1.0, 0.25)
    (0.75, 0.25)
    """
    r = check_real(rho, "rho", low=MIN_RHO, high=MAX_RHO)
    s = check_real(block_share, "block_share", low=BLOCK_SHARE_RANGE[0], high=BLOCK_SHARE_RANGE[1])
    return (1.0 - s) * r, s * r


def fit_to_total(y, total: int) -> np.ndarray:
    """Non-negative integers summing to ``total``, close to the real vector ``y``.

    First the Euclidean projection x* of y onto {x ≥ 0, Σx = total} (x* = max(y − τ, 0) with τ chosen
    so the sum is right; Duchi et al. 2008); then x = ⌊x*⌋ plus one unit for the ``total − Σ⌊x*⌋``
    entries with the largest fractional parts (ties: the lower index). Sum, sign and integrality
    hold exactly.

    Parameters
    ----------
    y : array_like of float, shape (n,)
        Finite values, 1 ≤ n ≤ 10⁶.
    total : int
        ≥ 0.

    Examples
    --------
    >>> fit_to_total([3.0, -2.0, 1.0], 3).tolist()
    [3, 0, 0]
    >>> fit_to_total([0.4, 0.4, 0.2], 1).tolist()
    [1, 0, 0]
    """
    v = np.asarray(y, dtype=np.float64).ravel()
    if v.size < 1 or v.size > 1_000_000 or not np.isfinite(v).all():
        raise ValueError(f"y must hold 1 to 1,000,000 finite numbers; got {v.size} values"
                         + ("" if np.isfinite(v).all() else " with a non-finite one"))
    t = check_int(total, "total", low=0)
    if t == 0:
        return np.zeros(v.size, dtype=np.int64)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - t
    j = np.arange(1, v.size + 1)
    k = int(np.nonzero(u - css / j > 0)[0][-1]) + 1
    tau = css[k - 1] / k
    x = np.maximum(v - tau, 0.0)
    fl = np.floor(x + 1e-9).astype(np.int64)
    fl = np.minimum(fl, t)
    rest = t - int(fl.sum())
    if rest > 0:
        frac = x - fl
        order = np.lexsort((np.arange(v.size), -frac))
        fl[order[:rest]] += 1
    elif rest < 0:  # float rounding pushed the floors over the total: take from the largest fractions' end
        frac = x - fl
        order = np.lexsort((np.arange(v.size), frac))
        order = order[fl[order] > 0]
        fl[order[:-rest]] -= 1
    return fl


@dataclass(frozen=True)
class TopDownResult:
    """One TopDown run.

    Attributes
    ----------
    counties, blocks : ndarray of int64
        The released (post-processed) counts, shapes (states, counties) and (states, counties, blocks).
    noisy_counties, noisy_blocks : ndarray of int64
        The raw measurements (can be negative, do not add up).
    sigma2_county, sigma2_block : float
        The discrete Gaussian scale σ² at each level.
    rho_county, rho_block, rho : float
        ρ per level and in all (the invariants are outside this accounting).
    delta : float
        The δ of ``epsilon``.
    epsilon : float
        ε of (ε, δ)-DP from ρ by Canonne, Kamath & Steinke (2020), Cor. 13.
    """

    counties: np.ndarray
    blocks: np.ndarray
    noisy_counties: np.ndarray
    noisy_blocks: np.ndarray
    sigma2_county: float
    sigma2_block: float
    rho_county: float
    rho_block: float
    rho: float
    delta: float
    epsilon: float


def topdown(geography: Geography, *, rho: float = 1.0, block_share: float = 0.5, delta: float = DEFAULT_DELTA,
            rng: RNGLike = None) -> TopDownResult:
    """Measure the county and block counts of ``geography`` under ρ-zCDP and post-process them top down.

    Parameters
    ----------
    geography : Geography
        From :func:`dpexplore.deployments.data.toy_geography`.
    rho : float
        Total ρ in [MIN_RHO, MAX_RHO] for the county and block measurements.
    block_share : float
        Fraction of ρ for the blocks, in ``BLOCK_SHARE_RANGE``.
    delta : float
        δ in (0, 1) at which ε is stated.
    rng : Generator, int or None
        The noise's randomness (the geography is fixed).

    Returns
    -------
    TopDownResult

    Raises
    ------
    TypeError, ValueError
        A bad geography or parameter.

    References
    ----------
    Abowd et al. (2022). *The 2020 Census Disclosure Avoidance System TopDown Algorithm*. Harvard Data
    Science Review, Special Issue 2. https://hdsr.mitpress.mit.edu/pub/7evz361i

    Examples
    --------
    >>> from dpexplore.deployments.data import toy_geography
    >>> r = topdown(toy_geography(seed=0), rho=0.5, rng=1)
    >>> round(r.rho, 6), r.counties.dtype.kind
    (0.5, 'i')
    """
    if not isinstance(geography, Geography):
        raise TypeError(f"geography must be a Geography (toy_geography()); got {type(geography).__name__}")
    rc, rb = level_rhos(rho, block_share)
    d = check_delta(delta)
    gen = as_generator(rng)
    blocks = geography.blocks
    n_s, n_c, n_b = blocks.shape
    s2c, s2b = 1.0 / (2.0 * rc), 1.0 / (2.0 * rb)
    noisy_c = geography.counties + discrete_gaussian(s2c, size=(n_s, n_c), rng=gen)
    noisy_b = blocks + discrete_gaussian(s2b, size=blocks.shape, rng=gen)
    # county estimate: inverse-variance combination of its measurement and its blocks' sum
    w_own, w_sum = 1.0 / s2c, 1.0 / (n_b * s2b)
    est_c = (w_own * noisy_c + w_sum * noisy_b.sum(axis=2)) / (w_own + w_sum)
    out_c = np.empty((n_s, n_c), dtype=np.int64)
    out_b = np.empty_like(blocks)
    states = geography.states
    for i in range(n_s):
        out_c[i] = fit_to_total(est_c[i], int(states[i]))
        for j in range(n_c):
            out_b[i, j] = fit_to_total(noisy_b[i, j], int(out_c[i, j]))
    r = rc + rb
    return TopDownResult(counties=out_c, blocks=out_b, noisy_counties=noisy_c, noisy_blocks=noisy_b,
                         sigma2_county=s2c, sigma2_block=s2b, rho_county=rc, rho_block=rb, rho=r,
                         delta=d, epsilon=_epsilon(r, d))


