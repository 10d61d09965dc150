"""Audits of the intro track: the neighbouring pair A / B of the counting query, and broken variants.

The released value on A (count c) and on B (count c + Δ) is audited by :func:`dpexplore.core.audit.sampled_audit`
with the output itself as the score (likelihood-ratio optimal for Laplace and Gaussian noise and for one
randomized-response bit); the exact ε of the pair follows from its output law. The broken variants
release with half the noise (randomized response at 2ε) while claiming the same ε.

Examples
--------
>>> a = audit_release("laplace", epsilon=1.0, runs=4000, rng=0)
>>> a.exact_epsilon, a.violation
(1.0, False)
>>> audit_release("laplace", epsilon=1.0, runs=40000, broken=True, rng=0).violation
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.audit import PairAudit, sampled_audit
from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_bool, check_choice

from .theory import check_release_args, release_pair

__all__ = ["audit_release", "composed_pair_epsilon"]


def audit_release(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                  runs: int = 20_000, broken: bool = False, rng: RNGLike = None, progress=None) -> PairAudit:
    """Audit one release of the counting query on the pair A (count c) / B (count c + Δ).

    Parameters
    ----------
    mechanism : {"laplace", "gaussian", "rr"}
    epsilon, delta, sensitivity : float
        The claim (δ counts for the Gaussian mechanism only: the others claim δ = 0).
    runs : int
        Releases per data set.
    broken : bool
        Audit the variant with half the noise (randomized response at 2ε).
    rng, progress
        As in :func:`dpexplore.core.audit.sampled_audit`.

    Returns
    -------
    PairAudit
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    broken = check_bool(broken, "broken")
    claim_delta = d if mech == "gaussian" else 0.0
    if mech == "gaussian":
        sigma = gaussian_sigma(eps, d, sens) / (2.0 if broken else 1.0)
        exact = gdp_epsilon(sens / sigma, d)
    else:
        exact = 2.0 * eps if broken else eps
    g0, g1 = as_generator(rng).spawn(2)

    def sample(m: int):
        return (release_pair(mech, np.zeros(m, dtype=int), epsilon=eps, delta=d, sensitivity=sens, broken=broken,
                             rng=g0),
                release_pair(mech, np.ones(m, dtype=int), epsilon=eps, delta=d, sensitivity=sens, broken=broken,
                             rng=g1))

    stat = sampled_audit(sample, runs, delta=claim_delta, claimed_epsilon=eps, chunk=max(1000, runs // 10),
                         progress=progress)
    names = {"laplace": "Laplace mechanism", "gaussian": "Gaussian mechanism (analytic σ)",
             "rr": "randomized response (one answer)"}
    bug = {"laplace": " (noise halved)", "gaussian": " (σ halved)", "rr": " (flips as for 2ε)"}
    return PairAudit(("BROKEN " if broken else "") + names[mech] + (bug[mech] if broken else ""),
                     "one person's answer no → yes" + (f" (the count moves by Δ = {sens:g})" if mech != "rr" else ""),
                     eps, claim_delta, float(exact), stat, broken)


def composed_pair_epsilon(mechanism: str, *, epsilon: float, delta: float, k: int) -> float:
    """The exact ε at δ of k composed Gaussian releases (√k·μ-GDP); NaN for Laplace (no closed form here:
    the composition dashboard shows dp_accounting's PLD instead).

    Examples
    --------
    >>> round(composed_pair_epsilon("gaussian", epsilon=1.0, delta=1e-5, k=1), 6)
    1.0
    """
    mech = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    _, eps, d, _ = check_release_args(mech, epsilon, delta, 1.0)
    if mech == "laplace":
        return math.nan
    return gdp_epsilon(math.sqrt(int(k)) / gaussian_sigma(eps, d, 1.0), d)
