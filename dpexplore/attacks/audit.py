"""Audits of the attacks module: the noised releases' claimed ε beside their exact ε and a measured ε̂.

Two releases, each on its worst-case neighbouring pair (replacement: one person's data changed):

* :func:`audit_counts` — the m noisy subset counts. The pair: the secret with person i* = the one in the
  most queries having bit 0, and the same secret with that bit 1. Only the c = ‖A[:, i*]‖₁ counts that
  contain i* differ (by 1); the score is the likelihood ratio of those counts (the summed privacy loss for
  Laplace noise, their sum for Gaussian noise): the most powerful test for this pair.
* :func:`audit_means` — the d noisy column means of n people. The pair: a study with the target y, and the
  same study with y replaced by her complement 1 − y (every attribute differs: the worst case for both the
  ℓ1 and the ℓ2 sensitivity). Score: the likelihood ratio (the membership test that knows the pair).

The measured ε̂ comes from :func:`dpexplore.core.audit.audit_from_scores` (a Clopper–Pearson lower bound at
95 %). ``per_query=True`` audits the **broken** variant that calibrates each count / mean to the whole ε
while claiming ε in total: its exact ε is c·ε (Laplace counts) or d·ε (Laplace means), and ε̂ refutes
the claim.

Examples
--------
>>> a = audit_counts(n=50, m=200, noise="laplace", epsilon=1.0, runs=4000, rng=0)
>>> a.violation, a.exact_epsilon <= 1.0
(False, True)
>>> audit_counts(n=50, m=200, noise="laplace", epsilon=1.0, runs=4000, per_query=True, rng=0).violation
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.audit import PairAudit, audit_from_scores, check_audit_args
from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_bool, check_choice, check_delta, check_epsilon, check_int

from .data import MAX_ATTRIBUTES, MAX_PEOPLE, MAX_QUERIES, subset_queries
from .mechanisms import _dp_scale
from .theory import means_noise_scale

__all__ = ["MAX_AUDIT_CELLS", "audit_counts", "audit_means"]

#: runs × (noise draws per run) an audit may take
MAX_AUDIT_CELLS = 50_000_000


def _loss_scores(diff_count: int, shift: float, scale: float, noise: str, runs: int, g0, g1):
    """Likelihood-ratio scores of ``diff_count`` coordinates that move by ``shift`` between the pair."""
    out = []
    for g, centre in ((g0, 0.0), (g1, shift)):
        if noise == "laplace":
            y = centre + g.laplace(0.0, scale, (runs, diff_count))
            out.append(np.sum(np.abs(y) - np.abs(y - shift), axis=1) / scale)
        else:  # Gaussian: the sum is sufficient
            out.append(centre * diff_count + g.normal(0.0, scale * math.sqrt(diff_count), runs))
    return out


def _claim_args(noise, epsilon, delta, per_query, runs):
    mech = check_choice(noise, "noise", ("laplace", "gaussian"))
    eps = check_epsilon(epsilon)
    d = check_delta(delta) if mech == "gaussian" else 0.0
    return mech, eps, d, check_bool(per_query, "per_query"), check_audit_args(runs, 0.95)[0]


def audit_counts(*, n: int, m: int, noise: str = "laplace", epsilon: float, delta: float = 1e-5,
                 per_query: bool = False, runs: int = 20_000, rng: RNGLike = None) -> PairAudit:
    """Audit the m noisy subset counts of n people (random queries) on their worst-case pair.

    Returns
    -------
    PairAudit
        ``claimed_epsilon`` = ε (total), ``exact_epsilon`` = the pair's exact ε at the claimed δ,
        ``statistical`` = the measured ε̂.

    Examples
    --------
    >>> a = audit_counts(n=20, m=40, noise="gaussian", epsilon=1.0, runs=2000, rng=1)
    >>> a.exact_epsilon <= 1.0, a.violation
    (True, False)
    """
    mech, eps, d, pq, runs = _claim_args(noise, epsilon, delta, per_query, runs)
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    m = check_int(m, "m", low=1, high=MAX_QUERIES)
    g = as_generator(rng)
    qa, g0, g1 = g.spawn(3)
    a = subset_queries(n, m, rng=qa)
    c = int(a.sum(axis=0).max())
    if runs * max(c, 1) > MAX_AUDIT_CELLS:
        raise ValueError(f"runs * (queries containing one person) must be <= {MAX_AUDIT_CELLS:,}; got "
                         f"{runs} * {c}")
    scale = _dp_scale(mech, m, eps, d, pq)
    exact = c / scale if mech == "laplace" else gdp_epsilon(math.sqrt(c) / scale, d)
    if c == 0:  # nobody is asked about: nothing to tell apart
        s0 = s1 = np.zeros(runs)
    else:
        s0, s1 = _loss_scores(c, 1.0, scale, mech, runs, g0, g1)
    stat = audit_from_scores(s0, s1, delta=d, claimed_epsilon=eps, threshold="tail")
    name = ("BROKEN (each count gets the whole ε) " if pq else "") + \
        f"{m} {'Laplace' if mech == 'laplace' else 'Gaussian'} subset counts"
    return PairAudit(name, f"one person's bit 0 → 1 (the person in the most queries: {c} of {m})", eps, d,
                     float(exact), stat, pq)


def audit_means(*, n: int, d: int, noise: str = "laplace", epsilon: float, delta: float = 1e-5,
                per_query: bool = False, runs: int = 20_000, rng: RNGLike = None) -> PairAudit:
    """Audit the d noisy column means of n people on their worst-case pair (target y vs 1 − y).

    Examples
    --------
    >>> a = audit_means(n=100, d=20, noise="laplace", epsilon=1.0, runs=4000, rng=0)
    >>> a.exact_epsilon, a.violation
    (1.0, False)
    >>> audit_means(n=100, d=20, noise="laplace", epsilon=1.0, runs=4000, per_query=True, rng=0).violation
    True
    """
    mech, eps, dl, pq, runs = _claim_args(noise, epsilon, delta, per_query, runs)
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    if runs * d > MAX_AUDIT_CELLS:
        raise ValueError(f"runs * d must be <= {MAX_AUDIT_CELLS:,}; got {runs} * {d}")
    scale = means_noise_scale(mech, n=n, d=d, epsilon=eps, delta=delta, per_query=pq)
    exact = (d / n) / scale if mech == "laplace" else gdp_epsilon(math.sqrt(d) / n / scale, dl)
    g0, g1 = as_generator(rng).spawn(2)
    # each mean moves by 1/n between the pair (sign absorbed: the noise is symmetric)
    s0, s1 = _loss_scores(d, 1.0 / n, scale, mech, runs, g0, g1)
    stat = audit_from_scores(s0, s1, delta=dl, claimed_epsilon=eps, threshold="tail")
    name = ("BROKEN (each mean gets the whole ε) " if pq else "") + \
        f"{d} {'Laplace' if mech == 'laplace' else 'Gaussian'} column means of {n} people"
    return PairAudit(name, "one study member's d attributes y → 1 − y (replacement)", eps, dl, float(exact), stat,
                     pq)
