"""Audits of the private statistics: worst-case neighbouring pairs, exact ε, measured ε̂, broken variants.

The unit of privacy is one person with up to c rows (:mod:`.mechanisms`). For each statistic the pair is
the worst case the model allows:

* count / histogram: X and X plus one person whose c rows all fall in one bin (the count or that bin moves
  by c);
* mean with public n: one person's value moves from ``lower`` to ``upper`` (the mean moves by c(U − L)/n);
* quantile: X (n points spread over [L, U]) and X plus one point, for every position of that point on a
  grid; the exact ε is the largest over these pairs of the largest log-density ratio of the two exact
  piecewise-uniform output laws (:func:`dpexplore.statistics.quantile_law`), never more than ε.

The additive mechanisms' exact ε on their pair is Δ/b (Laplace), ε (geometric, α = e^(−ε/Δ)) and the
GDP curve of μ = Δ/σ at δ (Gaussian). The statistical audit (:func:`dpexplore.core.audit.sampled_audit`)
uses the output itself as the score (likelihood-ratio monotone for these shifts) and, for the quantile,
the exact log-likelihood ratio.

Broken variants (teaching only):

* :func:`broken_mean_data_bounds`: the clipping bounds, hence the sensitivity, taken from the data's own
  min and max (*Programming DP* ch. 5, "avoiding sensitivity underestimation"): the noise scale itself
  depends on the private data, so the two neighbours' laws have different scales and the log-ratio is
  unbounded: exact ε = ∞.
* :func:`broken_histogram_data_bins`: bins from the private data's min and max: the published edges move
  with one person (an outlier), so the two laws have disjoint supports: exact ε = ∞.

Examples
--------
>>> a = audit_statistic("count", epsilon=1.0, runs=4000, rng=0)
>>> a.exact_epsilon, a.violation
(1.0, False)
>>> audit_statistic("mean", epsilon=1.0, broken="data_bounds", runs=20000, rng=0).violation
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.audit import PairAudit, sampled_audit
from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int, check_real

from .mechanisms import (
    MAX_ROWS_PER_PERSON,
    NOISES,
    HistogramResult,
    MeanResult,
    _add_noise,
    _bounds,
    _column,
    quantile_law,
    true_histogram,
)

__all__ = ["AUDITED", "BROKEN", "MAX_AUDIT_N", "audit_statistic", "broken_histogram_data_bins",
           "broken_mean_data_bounds", "quantile_exact_epsilon"]

#: the statistics :func:`audit_statistic` audits, and the broken variants (statistic → variant)
AUDITED = ("count", "histogram", "mean", "quantile")
BROKEN = {"mean": "data_bounds", "histogram": "data_bins"}
#: the largest data set of an audit pair
MAX_AUDIT_N = 10_000


# -- the broken variants ------------------------------------------------------------------------------
def broken_mean_data_bounds(x, *, epsilon: float, rng: RNGLike = None) -> MeanResult:
    """BROKEN on purpose: the mean with public n, clipped to the data's **own** [min, max].

    The sensitivity (max − min)/n is computed from the private data, so the noise scale leaks it and
    the release is not ε-DP for any ε (see the module docstring). Claims ``epsilon``. Teaching only.

    Examples
    --------
    >>> broken_mean_data_bounds([0.0, 1.0], epsilon=1.0, rng=0).epsilon
    1.0
    """
    arr = _column(x, min_size=2)
    eps = check_epsilon(epsilon)
    lo, hi = float(arr.min()), float(arr.max())
    if hi <= lo:
        hi = lo + 1e-12
    sens = (hi - lo) / arr.size  # the bug: Δ from the data
    value, scale, sd = _add_noise(float(arr.mean()), noise="laplace", sensitivity=sens, epsilon=eps, delta=0.0,
                                  gen=as_generator(rng))
    return MeanResult(float(value), "public_n (BROKEN: bounds from the data)", "laplace", scale, sd, sens, eps,
                      0.0, lo, hi, arr.size, 0, 0.0, 1)


def broken_histogram_data_bins(x, *, bins: int, epsilon: float, rng: RNGLike = None) -> HistogramResult:
    """BROKEN on purpose: a Laplace histogram whose equal bins span the data's **own** [min, max].

    The edges are published with the counts, and they move with a single outlier. Claims ``epsilon``.
    Teaching only.

    Examples
    --------
    >>> broken_histogram_data_bins([0.0, 1.0, 5.0], bins=2, epsilon=1.0, rng=0).edges.tolist()
    [0.0, 2.5, 5.0]
    """
    arr = _column(x, min_size=2)
    b = check_int(bins, "bins", low=1, high=10_000)
    eps = check_epsilon(epsilon)
    lo, hi = float(arr.min()), float(arr.max())
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, b + 1)  # the bug: bins from the data
    counts, _ = true_histogram(arr, edges)
    raw, scale, sd = _add_noise(counts, noise="laplace", sensitivity=1.0, epsilon=eps, delta=0.0,
                                gen=as_generator(rng))
    raw = np.atleast_1d(raw)
    return HistogramResult(raw, raw, edges, "laplace", scale, sd, 1.0, eps, 0.0, 1, 0)


# -- exact ε of the quantile's exponential mechanism ----------------------------------------------------
def _log_density(z: np.ndarray, p: np.ndarray, y: np.ndarray) -> np.ndarray:
    i = np.clip(np.searchsorted(z, y, side="right") - 1, 0, p.size - 1)
    with np.errstate(divide="ignore"):
        return np.log(p[i]) - np.log(z[i + 1] - z[i])


def _pair_epsilon(za, pa, zb, pb) -> float:
    """max |log(p_a(y)/p_b(y))| over y: both densities are constant between the merged breakpoints."""
    edges = np.unique(np.concatenate([za, zb]))
    mids = 0.5 * (edges[:-1] + edges[1:])
    la, lb = _log_density(za, pa, mids), _log_density(zb, pb, mids)
    ok = np.isfinite(la) | np.isfinite(lb)
    diff = np.abs(la[ok] - lb[ok])
    return float(np.max(diff)) if diff.size else 0.0


def quantile_pair(n: int, lower: float, upper: float) -> np.ndarray:
    """The audit's data set X for the quantile: n points evenly inside [lower, upper]."""
    return lower + (upper - lower) * (np.arange(n) + 0.5) / n


def quantile_exact_epsilon(q: float, *, epsilon: float, n: int = 50, lower: float = 0.0, upper: float = 1.0,
                           positions: int = 41, rows_per_person: int = 1) -> tuple[float, float]:
    """The exact ε of :func:`dpexplore.statistics.private_quantile` on X = :func:`quantile_pair` and X plus
    one person's c rows at each of ``positions`` points of [lower, upper]; returns (the largest ε, the
    position attaining it).

    Exact for each pair (both output laws are piecewise uniform, so the log-density ratio takes finitely
    many values); the largest over this family of pairs, which is ≤ ε by the mechanism's theorem.

    Examples
    --------
    >>> e, at = quantile_exact_epsilon(0.5, epsilon=1.0, n=20)
    >>> 0 < e <= 1.0
    True
    """
    eps = check_epsilon(epsilon)
    n = check_int(n, "n", low=2, high=MAX_AUDIT_N)
    lo, hi = _bounds(lower, upper)
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    m = check_int(positions, "positions", low=1, high=10_000)
    x = quantile_pair(n, lo, hi)
    za, pa = quantile_law(x, q, lower=lo, upper=hi, epsilon=eps, rows_per_person=c)
    best, at = -1.0, lo
    for pos in np.linspace(lo, hi, m):
        zb, pb = quantile_law(np.concatenate([x, np.full(c, pos)]), q, lower=lo, upper=hi, epsilon=eps,
                              rows_per_person=c)
        e = _pair_epsilon(za, pa, zb, pb)
        if e > best:
            best, at = e, float(pos)
    return best, at


# -- the audit ----------------------------------------------------------------------------------------------
def _additive_exact(noise: str, eps: float, delta: float, shift: float, scale: float) -> float:
    if noise == "laplace":
        return shift / scale
    if noise == "geometric":
        return eps
    return gdp_epsilon(shift / scale, delta)


def audit_statistic(statistic: str, *, epsilon: float, delta: float = 1e-5, noise: str = "laplace", n: int = 100,
                    lower: float = 0.0, upper: float = 10.0, q: float = 0.5, rows_per_person: int = 1,
                    broken: str | None = None, runs: int = 20_000, confidence: float = 0.95,
                    rng: RNGLike = None, progress=None) -> PairAudit:
    """Audit one release on its worst-case neighbouring pair (see the module docstring).

    Parameters
    ----------
    statistic : {"count", "histogram", "mean", "quantile"}
    epsilon : float
        The claim.
    delta : float
        For ``noise="gaussian"`` (the others claim δ = 0).
    noise : {"laplace", "gaussian", "geometric"}
        Count and histogram; the mean uses Laplace or Gaussian; the quantile is the exponential mechanism.
    n, lower, upper, q, rows_per_person
        The pair's size, public bounds, quantile level, and c.
    broken : {None, "data_bounds", "data_bins"}
        ``"data_bounds"`` with ``"mean"``, ``"data_bins"`` with ``"histogram"`` (Laplace noise, c = 1).
    runs, confidence, rng, progress
        As in :func:`dpexplore.core.audit.sampled_audit` (runs per data set).

    Returns
    -------
    PairAudit
        ``exact_epsilon``: the pair's exact ε (``inf`` for the broken variants); ``statistical``: ε̂.
    """
    stat = check_choice(statistic, "statistic", AUDITED)
    eps = check_epsilon(epsilon)
    noise = check_choice(noise, "noise", NOISES)
    n = check_int(n, "n", low=2, high=MAX_AUDIT_N)
    lo, hi = _bounds(lower, upper)
    c = check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    if broken is not None:
        want = BROKEN.get(stat)
        if broken != want:
            raise ValueError(f"broken must be None or {want!r} for statistic={stat!r}; got {broken!r}"
                             if want else f"broken must be None for statistic={stat!r}; got {broken!r}")
        noise = "laplace"
    if stat == "mean" and noise == "geometric":
        raise ValueError("noise must be 'laplace' or 'gaussian' for statistic='mean'; got 'geometric'")
    d = check_delta(delta) if (noise == "gaussian" and stat != "quantile") else 0.0
    g0, g1 = as_generator(rng).spawn(2)
    kw = dict(delta=d, confidence=conf, claimed_epsilon=eps, chunk=max(1000, runs // 10), progress=progress,
              threshold="tail")  # tail thresholds: a tight test for discrete scores and far tails alike

    if broken == "data_bounds":  # one person's value 1 → 10 among n − 1 zeros (replace one person)
        x0 = np.zeros(n)
        x0[-1] = 1.0
        x1 = x0.copy()
        x1[-1] = 10.0

        def bulk(x, g, m):  # m releases: one call, then m − 1 more draws of its noise (the same law)
            r = broken_mean_data_bounds(x, epsilon=eps, rng=g)
            return np.concatenate([[r.value], x.mean() + g.laplace(0.0, r.noise_scale, m - 1)])

        def sample(m):
            return bulk(x0, g0, m), bulk(x1, g1, m)

        stat_a = sampled_audit(sample, runs, **kw)
        return PairAudit("BROKEN mean (clipping bounds = the data's own min and max)",
                         f"n = {n}: one person's value 1 → 10 (the rest 0)", eps, 0.0, math.inf, stat_a, True)
    if broken == "data_bins":  # X: n points in [L, U]; X': one more person far above U
        x0 = quantile_pair(n, lo, hi)
        x1 = np.concatenate([x0, [hi + 10 * (hi - lo)]])

        def sample(m):  # the score, the published top edge, does not depend on the noise: one call per chunk
            return (np.full(m, broken_histogram_data_bins(x0, bins=10, epsilon=eps, rng=g0).edges[-1]),
                    np.full(m, broken_histogram_data_bins(x1, bins=10, epsilon=eps, rng=g1).edges[-1]))

        stat_a = sampled_audit(sample, runs, **kw)
        return PairAudit("BROKEN histogram (bins from the data's own min and max)",
                         "X and X plus one outlier: the published top edge moves", eps, 0.0, math.inf, stat_a, True)

    if stat == "quantile":
        exact, at = quantile_exact_epsilon(q, epsilon=eps, n=n, lower=lo, upper=hi, rows_per_person=c)
        x0 = quantile_pair(n, lo, hi)
        x1 = np.concatenate([x0, np.full(c, at)])
        za, pa = quantile_law(x0, q, lower=lo, upper=hi, epsilon=eps, rows_per_person=c)
        zb, pb = quantile_law(x1, q, lower=lo, upper=hi, epsilon=eps, rows_per_person=c)

        def draw(x, z, p, g, m):  # bulk sampling from the exact law (the same law private_quantile samples)
            i = g.choice(p.size, size=m, p=p)
            return z[i] + g.random(m) * (z[i + 1] - z[i])

        def score(y):
            return _log_density(zb, pb, y) - _log_density(za, pa, y)

        def sample(m):
            return score(draw(x0, za, pa, g0, m)), score(draw(x1, zb, pb, g1, m))

        stat_a = sampled_audit(sample, runs, **kw)
        return PairAudit(f"exponential-mechanism {q:g}-quantile (Smith 2011)",
                         f"n = {n} evenly spread points vs the same plus {c} row(s) at {at:.3g} (the worst of "
                         "41 positions)", eps, 0.0, exact, stat_a, False)

    if stat in ("count", "histogram"):
        shift = float(c)
        base = float(n)
        what = ("the count" if stat == "count" else "one bin's count") + f" moves by c = {c}"
        neigh = f"n = {n} rows vs one more person with {c} row(s) ({what})"
    else:
        shift = c * (hi - lo) / n
        base = lo
        neigh = f"n = {n}, one person's value {lo:g} → {hi:g} (the mean moves by c(U − L)/n = {shift:.3g})"
    _, scale, _ = _add_noise(0.0, noise=noise, sensitivity=shift, epsilon=eps, delta=d, gen=as_generator(0))
    exact = _additive_exact(noise, eps, d, shift, scale)

    def sample(m):
        a = _add_noise(np.full(m, base), noise=noise, sensitivity=shift, epsilon=eps, delta=d, gen=g0)[0]
        b = _add_noise(np.full(m, base + shift), noise=noise, sensitivity=shift, epsilon=eps, delta=d, gen=g1)[0]
        return a, b

    stat_a = sampled_audit(sample, runs, **kw)
    names = {"count": "count", "histogram": "histogram (one bin)", "mean": "mean with public n"}
    return PairAudit(f"{names[stat]}, {noise} noise", neigh, eps, d, float(exact), stat_a, False)
