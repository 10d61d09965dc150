"""The TopDown lab's audit: the ρ claim of the measurements on their worst-case neighbouring pair.

What ρ covers. The Bureau's accounting (and this lab's) covers the noisy **measurements**; the invariants
(here the nation and state totals) are published exactly and are *outside* it. On the pair "one person
added" the exact state total alone tells the two data sets apart, so no finite ε holds for the whole
release on that pair: the claim is about the measurements, given the invariants, and that is what is
audited here. Post-processing can only lose information, so auditing the measurements is the worst case
for the released tables.

The pair: one person added to one block (and so to its county): the county measurement and the block
measurement both move by 1. Their joint law is the product of two discrete Gaussians, so the exact
privacy curve δ(ε) is a finite sum over the grid of both outputs (:func:`exact_pair_epsilon`). The
claim is ε = :func:`~dpexplore.core.discrete_gaussian.zcdp_epsilon` (ρ_county + ρ_block, δ). The
black-box audit draws both outputs on both data sets and thresholds the likelihood-ratio score
x/σ²_county + y/σ²_block (:func:`dpexplore.core.audit.sampled_audit`).

Broken variant (``broken=True``): the block counts are declared an **invariant** and published exactly,
while the page still claims the same ρ. The pair's supports are then disjoint: exact ε = ∞, and the
measured ε̂ exceeds the claim.

Examples
--------
>>> a = audit_topdown(rho=0.5, runs=2000, rng=0)
>>> a.violation, a.exact_epsilon <= a.claimed_epsilon
(False, True)
>>> audit_topdown(rho=0.5, broken=True, runs=2000, rng=0).violation
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.audit import PairAudit, sampled_audit
from dpexplore.core.discrete_gaussian import (
    discrete_gaussian,
    discrete_gaussian_pmf,
    discrete_gaussian_support,
    zcdp_epsilon,
)
from dpexplore.core.privacy_curves import exact_epsilon
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_delta, check_int

from .topdown import DEFAULT_DELTA, level_rhos

__all__ = ["MAX_AUDIT_RUNS", "MAX_PAIR_CELLS", "audit_topdown", "exact_pair_epsilon"]

#: most runs per data set
MAX_AUDIT_RUNS = 1_000_000
#: the exact pair's output grid is at most this many cells (σ² ≤ ~2000 at each level)
MAX_PAIR_CELLS = 4_000_000


def _shifted_laws(s2: float) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) on one grid: p the law of N_Z(0, σ²), q of 1 + N_Z(0, σ²)."""
    xs = discrete_gaussian_support(s2)
    grid = np.concatenate([xs, [xs[-1] + 1]])
    return discrete_gaussian_pmf(grid, s2), discrete_gaussian_pmf(grid - 1, s2)


def exact_pair_epsilon(rho: float, block_share: float = 0.5, delta: float = DEFAULT_DELTA) -> float:
    """The exact ε at δ of the county and block measurements on the pair "one person added to a block".

    Examples
    --------
    >>> e = exact_pair_epsilon(0.5, 0.5, 1e-10)
    >>> bool(e <= zcdp_epsilon(0.5, 1e-10))
    True
    """
    rc, rb = level_rhos(rho, block_share)
    d = check_delta(delta)
    pc, qc = _shifted_laws(1.0 / (2.0 * rc))
    pb, qb = _shifted_laws(1.0 / (2.0 * rb))
    if pc.size * pb.size > MAX_PAIR_CELLS:
        raise ValueError(f"rho must be large enough that the exact grid has at most {MAX_PAIR_CELLS:,} cells; got "
                         f"rho={rho!r} ({pc.size * pb.size:,} cells)")
    return float(exact_epsilon(np.outer(pc, pb).ravel(), np.outer(qc, qb).ravel(), d))


def audit_topdown(*, rho: float = 0.1, block_share: float = 0.5, delta: float = DEFAULT_DELTA, broken: bool = False,
                  runs: int = 20_000, rng: RNGLike = None, progress=None) -> PairAudit:
    """Claimed vs exact vs measured ε of the TopDown measurements on "one person added to a block".

    Parameters
    ----------
    rho, block_share : float
        As in :func:`dpexplore.deployments.topdown.topdown`.
    delta : float
        δ of every ε here (default 10⁻¹⁰, the Bureau's).
    broken : bool
        Audit the broken variant (block counts published exactly as an "invariant").
    runs : int
        Runs per data set, in [20, MAX_AUDIT_RUNS].
    rng : Generator, int or None
    progress : callable, optional
        ``progress(done, total)``; return False to cancel.

    Returns
    -------
    dpexplore.core.audit.PairAudit
    """
    rc, rb = level_rhos(rho, block_share)
    d = check_delta(delta)
    n = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS)
    s2c, s2b = 1.0 / (2.0 * rc), 1.0 / (2.0 * rb)
    claimed = zcdp_epsilon(rc + rb, d)
    exact = math.inf if broken else exact_pair_epsilon(rho, block_share, d)
    g0, g1 = as_generator(rng).spawn(2)

    def scores(gen, shift: int, m: int) -> np.ndarray:
        x = shift + discrete_gaussian(s2c, size=m, rng=gen)
        y = np.full(m, shift) if broken else shift + discrete_gaussian(s2b, size=m, rng=gen)
        return x / s2c + (y * 1e6 if broken else y / s2b)

    stat = sampled_audit(lambda m: (scores(g0, 0, m), scores(g1, 1, m)), n, delta=d, claimed_epsilon=claimed,
                         chunk=max(1000, n // 10), progress=progress)
    name = ("BROKEN: block counts published exactly (an 'invariant'), ρ still claimed" if broken
            else f"TopDown measurements (county ρ = {rc:.3g}, block ρ = {rb:.3g})")
    return PairAudit(mechanism=name, neighbours="one person added to one block (county and block move by 1; the "
                     "exact state totals are outside the claim)", claimed_epsilon=claimed, delta=d,
                     exact_epsilon=exact, statistical=stat, broken=bool(broken))
