"""The sparse vector technique (SVT) and the broken variants of Lyu, Su & Li (PVLDB 10, 2017).

SVT answers a stream of queries q_1, q_2, … (each of sensitivity ≤ Δ) with "above" (⊤) or "below" (⊥) a
threshold T, and stops after c positives. Its cost depends on c, not on how many queries were asked.

Honest versions (both claim ε and are ε-DP):

* ``"dwork-roth"`` — Dwork & Roth (2014), §3.6, Algorithm 2 ("Sparse"): c runs of AboveThreshold at ε/c
  each, the threshold noise re-drawn after every ⊤. This is :func:`sparse_vector` with ``split=None``;
  it calls :func:`dpexplore.core.sparse_vector.above_threshold` once per positive.
* ``"lyu"`` — Lyu, Su & Li, Algorithm 1: ε = ε1 + ε2, threshold noise ρ ~ Lap(Δ/ε1) drawn once, query
  noise ν_i ~ Lap(2cΔ/ε2) (their Theorem 2: ε-DP; re-drawing ρ is unnecessary).

Broken variants (each *claims* ε; each is deliberately wrong, for teaching audits only):

* ``"no-query-noise"`` — no noise on the queries (Lyu et al.'s Alg. 5, from Stoddard, Chen & Machanavajjhala
  2014): not ε'-DP for any finite ε'.
* ``"shared-query-noise"`` — the query noise is drawn once and *not re-drawn* for each query (so every
  comparison shares one noisy offset): as bad as no query noise. (In Lyu et al.'s analysis the threshold
  noise need *not* be re-drawn after a ⊤ — Alg. 1 vs Alg. 2 — so the noise that must be re-drawn is the
  per-query noise; this is the variant that forgets it.)
* ``"noise-independent-of-c"`` — Alg. 1's noise for c = 1 used for any c (ν ~ Lap(4Δ/ε) whatever c is;
  the flaw of Lyu et al.'s Alg. 4 (Lee & Clifton 2014) and Alg. 6 (Chen et al. 2015)): by Lyu et al.'s
  analysis its ε is (1 + c)ε/2, and our worst-case pair family approaches that.
* ``"noisy-value"`` — releases the noisy value q_i + ν_i with each ⊤ (Lyu et al.'s Alg. 3, from Roth's
  2011 lecture notes): the privacy loss of m queries grows like mε/(2c): not ε'-DP for any finite ε'.

:func:`svt_log_probability` gives the exact probability of an answer pattern on given query answers
(a one-dimensional integral over the threshold noise, computed piecewise by Gauss–Legendre in log space,
or a closed form when there is no query noise); :mod:`dpexplore.selection.audit` builds the privacy
numbers from it.

Examples
--------
>>> r = sparse_vector([0, 0, 100, 0, 100], threshold=50, epsilon=20.0, c=2, rng=0)
>>> r.positives
(2, 4)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.sparse_vector import AboveThresholdResult
from dpexplore.core.sparse_vector import above_threshold as _core_above_threshold
from dpexplore.core.validation import check_array, check_choice, check_epsilon, check_int, check_positive, check_real

__all__ = [
    "BROKEN_VARIANTS",
    "HONEST_VARIANTS",
    "MAX_POSITIVES",
    "MAX_QUERIES",
    "MAX_QUERIES_EXACT",
    "SVT_VARIANTS",
    "AboveThresholdResult",
    "SVTResult",
    "SVTSpec",
    "above_threshold",
    "sample_patterns",
    "sparse_vector",
    "svt_log_probability",
    "svt_spec",
    "svt_variant",
]

HONEST_VARIANTS = ("dwork-roth", "lyu")
BROKEN_VARIANTS = ("no-query-noise", "shared-query-noise", "noise-independent-of-c", "noisy-value")
SVT_VARIANTS = HONEST_VARIANTS + BROKEN_VARIANTS
#: the most queries one SVT run takes
MAX_QUERIES = 1_000_000
#: the most positives c
MAX_POSITIVES = 1000
#: the most queries of an exact law or an exact pattern probability (patterns: up to 2^m)
MAX_QUERIES_EXACT = 64


@dataclass(frozen=True)
class SVTSpec:
    """The noise of one SVT variant at a claimed ε (scales of Laplace noise; 0 = none).

    Attributes
    ----------
    variant, title : str
    claimed_epsilon : float
        What the variant's accounting claims.
    epsilon_threshold, epsilon_queries : float
        The claimed split ε1 (threshold) + ε2 (queries) = ε (for ``"dwork-roth"``: summed over the c rounds).
    threshold_scale, query_scale : float
        b_ρ and b_ν.
    c : int
    sensitivity : float
    redraw_threshold, shared_query_noise, releases_value, broken : bool
    source : str
        Where the variant comes from.
    """

    variant: str
    title: str
    claimed_epsilon: float
    epsilon_threshold: float
    epsilon_queries: float
    threshold_scale: float
    query_scale: float
    c: int
    sensitivity: float
    redraw_threshold: bool
    shared_query_noise: bool
    releases_value: bool
    broken: bool
    source: str


def svt_spec(variant: str, *, epsilon: float, c: int = 1, sensitivity: float = 1.0, split: float = 0.5) -> SVTSpec:
    """The noise scales of a variant at claimed ε, c positives and sensitivity Δ (``split`` = ε1/ε for ``"lyu"``).

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=1.0, c=2)
    >>> s.threshold_scale, s.query_scale
    (2.0, 8.0)
    >>> svt_spec("dwork-roth", epsilon=1.0, c=2).query_scale
    8.0
    """
    var = check_choice(variant, "variant", SVT_VARIANTS)
    eps = check_epsilon(epsilon)
    c = check_int(c, "c", low=1, high=MAX_POSITIVES)
    d = check_positive(sensitivity, "sensitivity")
    split = check_real(split, "split", low=0.0, high=1.0, low_open=True, high_open=True)
    half = eps / 2
    if var == "dwork-roth":
        return SVTSpec(var, "Dwork & Roth's Sparse (c × AboveThreshold at ε/c)", eps, half, half, 2 * c * d / eps,
                       4 * c * d / eps, c, d, True, False, False, False, "Dwork & Roth (2014), §3.6, Alg. 2")
    if var == "lyu":
        e1, e2 = split * eps, (1 - split) * eps
        return SVTSpec(var, "Lyu, Su & Li's SVT (Alg. 1)", eps, e1, e2, d / e1, 2 * c * d / e2, c, d, False, False,
                       False, False, "Lyu, Su & Li (2017), Alg. 1, Theorem 2")
    if var == "no-query-noise":
        return SVTSpec(var, "BROKEN: no noise on the queries", eps, half, half, d / half, 0.0, c, d, False, False,
                       False, True, "Lyu, Su & Li (2017), Alg. 5 (Stoddard et al. 2014)")
    if var == "shared-query-noise":
        return SVTSpec(var, "BROKEN: query noise not re-drawn per query", eps, half, half, d / half,
                       2 * c * d / half, c, d, False, True, False, True,
                       "our variant of Lyu, Su & Li's Alg. 1 (one ν for all queries)")
    if var == "noise-independent-of-c":
        return SVTSpec(var, "BROKEN: query noise scale independent of c", eps, half, half, d / half, 2 * d / half,
                       c, d, False, False, False, True,
                       "Lyu, Su & Li (2017): the flaw of Alg. 4 (Lee & Clifton 2014) and Alg. 6 (Chen et al. 2015)")
    return SVTSpec(var, "BROKEN: releases the noisy value with each positive", eps, half, half, c * d / half,
                   c * d / half, c, d, False, False, True, True, "Lyu, Su & Li (2017), Alg. 3 (Roth 2011)")


@dataclass(frozen=True)
class SVTResult:
    """Output of :func:`sparse_vector` / :func:`svt_variant`.

    Attributes
    ----------
    answers : tuple of bool
        ⊤ (True) / ⊥ (False) for every query examined, in order (it stops after the c-th ⊤).
    positives : tuple of int
        Indices of the ⊤ answers.
    values : tuple of float
        The released noisy values of the positives (only the ``"noisy-value"`` variant releases them; else empty).
    queries_answered : int
    epsilon : float
        The ε claimed (true for the honest variants; see :func:`svt_spec` for the broken ones).
    epsilon_threshold, epsilon_queries : float
        The claimed split ε1 + ε2.
    variant : str
    delta : float
        Always 0.
    """

    answers: tuple
    positives: tuple
    values: tuple
    queries_answered: int
    epsilon: float
    epsilon_threshold: float
    epsilon_queries: float
    variant: str
    delta: float = 0.0


def above_threshold(queries: Iterable[float], threshold: float, *, epsilon: float, sensitivity: float = 1.0,
                    rng: RNGLike = None) -> AboveThresholdResult:
    """AboveThreshold (c = 1): :func:`dpexplore.core.sparse_vector.above_threshold` with keyword-only ε.

    Examples
    --------
    >>> above_threshold([0, 0, 100], 50, epsilon=10.0, rng=0).index
    2
    """
    return _core_above_threshold(queries, threshold, epsilon, sensitivity=sensitivity, rng=rng)


def _check_queries(queries, name: str = "queries", max_size: int = MAX_QUERIES) -> np.ndarray:
    return check_array(queries, name, ndim=1, min_size=1, max_size=max_size, kind="a 1-d array of numbers")


def sparse_vector(queries, threshold: float, *, epsilon: float, c: int = 1, sensitivity: float = 1.0,
                  split: float | None = None, rng: RNGLike = None) -> SVTResult:
    """The sparse vector technique: ⊤/⊥ for each query until c positives; ε-DP for any number of queries.

    Parameters
    ----------
    queries : array_like
        The query answers on the private data, each of sensitivity ≤ Δ.
    threshold : float
        The public threshold T.
    epsilon : float
        The total ε (it does not grow with the number of queries; it is split over the c positives).
    c : int
        Stop after c positives.
    sensitivity : float
        Δ.
    split : float or None
        None: Dwork & Roth's Sparse — c runs of :func:`dpexplore.core.sparse_vector.above_threshold` at
        ε/c, the threshold re-drawn after each ⊤ (ε1 = ε2 = ε/2 in total). A number in (0, 1): Lyu, Su & Li's
        Alg. 1 with ε1 = split·ε (threshold, ρ ~ Lap(Δ/ε1), drawn once) and ε2 = ε − ε1 (queries,
        ν ~ Lap(2cΔ/ε2)).
    rng : Generator, int or None

    Returns
    -------
    SVTResult

    Examples
    --------
    >>> sparse_vector([0, 100, 0, 100], 50, epsilon=20.0, c=2, split=0.5, rng=1).positives
    (1, 3)
    """
    q = _check_queries(queries)
    thr = check_real(threshold, "threshold")
    eps = check_epsilon(epsilon)
    c = check_int(c, "c", low=1, high=MAX_POSITIVES)
    sens = check_positive(sensitivity, "sensitivity")
    gen = as_generator(rng)
    if split is None:
        answers: list[bool] = []
        start = 0
        while start < q.size and sum(answers) < c:
            res = _core_above_threshold(q[start:], thr, eps / c, sensitivity=sens, rng=gen)
            answers += [False] * (res.queries_answered - (res.index is not None)) + ([True] if res.index is not None
                                                                                     else [])
            start += res.queries_answered
        pos = tuple(i for i, a in enumerate(answers) if a)
        return SVTResult(tuple(answers), pos, (), len(answers), eps, eps / 2, eps / 2, "dwork-roth")
    spec = svt_spec("lyu", epsilon=eps, c=c, sensitivity=sens, split=split)
    return _run(spec, q, thr, gen)


def svt_variant(variant: str, queries, threshold: float, *, epsilon: float, c: int = 1, sensitivity: float = 1.0,
                rng: RNGLike = None) -> SVTResult:
    """Run any variant of :data:`SVT_VARIANTS` (the broken ones are for teaching audits only).

    Examples
    --------
    >>> svt_variant("no-query-noise", [0, 100], 50, epsilon=20.0, rng=0).answers
    (False, True)
    """
    spec = svt_spec(variant, epsilon=epsilon, c=c, sensitivity=sensitivity)
    q = _check_queries(queries)
    thr = check_real(threshold, "threshold")
    gen = as_generator(rng)
    if spec.variant == "dwork-roth":
        return sparse_vector(q, thr, epsilon=epsilon, c=c, sensitivity=sensitivity, rng=gen)
    return _run(spec, q, thr, gen)


def _run(spec: SVTSpec, q: np.ndarray, thr: float, gen: np.random.Generator) -> SVTResult:
    rho = gen.laplace(0.0, spec.threshold_scale)
    shared = gen.laplace(0.0, spec.query_scale) if spec.shared_query_noise else 0.0
    answers, values = [], []
    for qi in q:
        nu = shared if spec.shared_query_noise else (gen.laplace(0.0, spec.query_scale) if spec.query_scale else 0.0)
        top = bool(qi + nu >= thr + rho)
        answers.append(top)
        if top:
            if spec.releases_value:
                values.append(float(qi + nu))
            if sum(answers) >= spec.c:
                break
    pos = tuple(i for i, a in enumerate(answers) if a)
    return SVTResult(tuple(answers), pos, tuple(values), len(answers), spec.claimed_epsilon, spec.epsilon_threshold,
                     spec.epsilon_queries, spec.variant)


def sample_patterns(spec: SVTSpec, queries, threshold: float, runs: int, *, rng: RNGLike = None):
    """``runs`` independent runs of a variant on fixed query answers, vectorised.

    Returns ``(codes, values)``: ``codes[j]`` encodes run j's answer pattern in base 3 (digit i: 0 not
    examined, 1 ⊥, 2 ⊤; see :func:`pattern_code`); ``values[j]`` is the first released noisy value (NaN if none;
    only the ``"noisy-value"`` variant releases values).

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=50.0)
    >>> codes, _ = sample_patterns(s, [0.0, 100.0], 50.0, 3, rng=0)
    >>> [decode_pattern(int(x)) for x in codes]
    [(False, True), (False, True), (False, True)]
    """
    q = _check_queries(queries, max_size=MAX_QUERIES_EXACT)
    thr = check_real(threshold, "threshold")
    runs = check_int(runs, "runs", low=1, high=10_000_000)
    gen = as_generator(rng)
    rho = gen.laplace(0.0, spec.threshold_scale, runs)
    shared = gen.laplace(0.0, spec.query_scale, runs) if spec.shared_query_noise else None
    count = np.zeros(runs, dtype=int)
    alive = np.ones(runs, dtype=bool)
    codes = np.zeros(runs, dtype=np.int64)
    values = np.full(runs, np.nan)
    for i, qi in enumerate(q):
        if shared is not None:
            nu = shared
        elif spec.query_scale > 0:
            nu = gen.laplace(0.0, spec.query_scale, runs)
        else:
            nu = np.zeros(runs)
        top = qi + nu >= thr + rho
        codes += np.where(alive, np.where(top, 2, 1), 0) * 3**i
        if spec.releases_value:  # the first released value
            values = np.where(alive & top & (count == 0), qi + nu, values)
        hit = alive & top
        count += hit
        if spec.redraw_threshold:
            rho = np.where(hit, gen.laplace(0.0, spec.threshold_scale, runs), rho)
        alive &= count < spec.c
    return codes, values


def pattern_code(answers: Sequence[bool]) -> int:
    """Base-3 code of an answer pattern (digit i: 1 ⊥, 2 ⊤).

    Examples
    --------
    >>> pattern_code([False, True])
    7
    """
    return int(sum((2 if a else 1) * 3**i for i, a in enumerate(answers)))


def decode_pattern(code: int) -> tuple:
    """Inverse of :func:`pattern_code`.

    Examples
    --------
    >>> decode_pattern(7)
    (False, True)
    """
    out = []
    code = int(code)
    while code:
        code, d = divmod(code, 3)
        out.append(d == 2)
    return tuple(out)


__all__ += ["decode_pattern", "pattern_code", "svt_log_value_density", "svt_pattern_log_probabilities",
            "svt_patterns"]


def svt_patterns(m: int, c: int) -> list[tuple]:
    """Every answer pattern SVT can output on m queries with c positives (it stops at the c-th ⊤).

    Examples
    --------
    >>> svt_patterns(2, 1)
    [(True,), (False, True), (False, False)]
    """
    m = check_int(m, "m", low=1, high=20)
    c = check_int(c, "c", low=1, high=MAX_POSITIVES)
    out: list[tuple] = []

    def rec(prefix: tuple):
        if sum(prefix) == c or len(prefix) == m:
            out.append(prefix)
            return
        rec(prefix + (True,))
        rec(prefix + (False,))

    rec(())
    return out


# -- exact probabilities -------------------------------------------------------------------------------------
_GL_N, _GL_W = np.polynomial.legendre.leggauss(48)


def _log_cdf(x: np.ndarray, b: float) -> np.ndarray:
    """log P(Lap(b) ≤ x), stable in both tails."""
    with np.errstate(over="ignore"):
        return np.where(x < 0, x / b - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(x) / b)))


def _quadrature_nodes(kinks: np.ndarray, scale_min: float, scale_max: float, upper: float = math.inf,
                      max_pieces: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """The nodes and log weights of :func:`_log_integral` (see there)."""
    lo = float(kinks.min()) - 80.0 * scale_max
    hi = min(float(kinks.max()) + 80.0 * scale_max, upper)
    if hi <= lo:
        lo = hi - 80.0 * scale_max
    pts = np.unique(np.concatenate([[lo, hi], kinks[(kinks > lo) & (kinks < hi)]]))
    widths = np.diff(pts)
    npieces = np.maximum(1, np.ceil(widths / (2.0 * scale_min)).astype(int))
    if npieces.sum() > max_pieces:  # very spread kinks: coarser pieces
        npieces = np.maximum(1, np.ceil(npieces * max_pieces / npieces.sum()).astype(int))
    edges = np.concatenate([np.linspace(a, b, n + 1)[:-1] for a, b, n in zip(pts[:-1], pts[1:], npieces)] + [[hi]])
    half = 0.5 * np.diff(edges)
    mids = 0.5 * (edges[:-1] + edges[1:])
    xs = (mids[:, None] + half[:, None] * _GL_N).ravel()
    lw = np.log((half[:, None] * _GL_W).ravel())
    return xs, lw


def _log_integral(logfun, kinks: np.ndarray, scale_min: float, scale_max: float, upper: float = math.inf,
                  max_pieces: int = 20_000) -> float:
    """log ∫_{−∞}^{upper} exp(logfun(w)) dw for a log-integrand smooth between ``kinks``, decaying
    exponentially (rate ≥ 1/scale_max) outside them. Gauss–Legendre (48 nodes) on pieces of width ≤ 2·scale_min
    between the kinks (on each piece the integrand is a product of exponentials and of 1 − ½e^(−x/b), entire and
    varying by at most a factor e^(2·#factors) across it: the rule's error is far below double rounding), over
    kinks ± 80·scale_max (the integrand beyond is below e^(−80) of its value at the edge)."""
    xs, lw = _quadrature_nodes(kinks, scale_min, scale_max, upper, max_pieces)
    vals = logfun(xs) + lw
    top = np.max(vals)
    if not np.isfinite(top):
        return -math.inf
    return float(top + math.log(np.sum(np.exp(vals - top))))



def _log_integral_upto(logfun, kinks: np.ndarray, scale_min: float, scale_max: float, uppers: np.ndarray,
                       max_pieces: int = 20_000) -> np.ndarray:
    """:func:`_log_integral` for many upper limits at once: log ∫_{−∞}^{u} exp(logfun(w)) dw for each u.

    One quadrature: the pieces of :func:`_log_integral` (same rule, same widths ≤ 2·scale_min, from
    kinks.min() − 80·scale_max) with every u a further piece edge, their masses summed cumulatively in log space.
    An upper limit at or below that start is left to :func:`_log_integral` (its own lower end).
    """
    uppers = np.asarray(uppers, dtype=float)
    out = np.full(uppers.shape, -math.inf)
    lo = float(kinks.min()) - 80.0 * scale_max
    cap = float(kinks.max()) + 80.0 * scale_max
    ends = np.minimum(uppers, cap)
    inside = ends > lo
    for i in np.flatnonzero(~inside):
        out[i] = _log_integral(logfun, kinks, scale_min, scale_max, upper=float(uppers[i]), max_pieces=max_pieces)
    if not inside.any():
        return out
    hi = float(ends[inside].max())
    pts = np.unique(np.concatenate([[lo, hi], kinks[(kinks > lo) & (kinks < hi)], ends[inside]]))
    widths = np.diff(pts)
    npieces = np.maximum(1, np.ceil(widths / (2.0 * scale_min)).astype(int))
    if npieces.sum() > max_pieces:
        npieces = np.maximum(1, np.ceil(npieces * max_pieces / npieces.sum()).astype(int))
    edges = np.concatenate([np.linspace(a, b, n + 1)[:-1] for a, b, n in zip(pts[:-1], pts[1:], npieces)] + [[hi]])
    half = 0.5 * np.diff(edges)
    mids = 0.5 * (edges[:-1] + edges[1:])
    xs = (mids[:, None] + half[:, None] * _GL_N).ravel()
    vals = (logfun(xs) + np.log((half[:, None] * _GL_W).ravel())).reshape(mids.size, _GL_N.size)
    top = np.max(vals, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        piece = np.where(np.isfinite(top), top + np.log(np.sum(np.exp(vals - top[:, None]), axis=1)), -math.inf)
        cum = np.logaddexp.accumulate(piece)  # cum[j]: log ∫ from lo to edges[j + 1]
    j = np.searchsorted(edges, ends[inside]) - 1  # every end is an edge (exactly: a point of pts)
    out[inside] = cum[j]
    return out

def svt_log_probability(spec: SVTSpec, queries, threshold: float, answers: Sequence[bool], *,
                        value: float | None = None) -> float:
    """log P(the variant outputs exactly ``answers`` on query answers ``queries``) — exact up to quadrature.

    For one threshold draw ρ (density f_ρ), the answers are independent:
    P = ∫ f_ρ(z) Π_{⊥} F_ν(T + z − q_i) Π_{⊤} (1 − F_ν(T + z − q_i)) dz, computed in log space (piecewise
    Gauss–Legendre between the kinks z = 0, q_i − T). The threshold re-drawn after each ⊤ (``"dwork-roth"``):
    the product of one such integral per round. No query noise: the probability that ρ falls in an interval
    (closed form). Shared query noise: the probability that η = ρ − ν falls in an interval (a 1-d integral).
    With ``value`` (``"noisy-value"`` only; ``answers`` = ⊥…⊥⊤): the log *density* that the first ⊤ is the
    last of ``answers`` and its released value is ``value`` (whatever follows: the later answers' factors
    integrate to 1 for each threshold draw, so the marginal has the same one-dimensional integral).

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=1.0)
    >>> p = [math.exp(svt_log_probability(s, [0.0, 1.0], 0.5, a)) for a in svt_patterns(2, 1)]
    >>> round(sum(p), 9)
    1.0
    """
    q = _check_queries(queries, max_size=MAX_QUERIES_EXACT)
    thr = check_real(threshold, "threshold")
    ans = tuple(bool(a) for a in answers)
    if not ans or len(ans) > q.size:
        raise ValueError(f"answers must have 1 … len(queries) = {q.size} entries; got {len(ans)}")
    prefix_ok = value is not None and sum(ans) == 1 and ans[-1]  # the marginal law of the first ⊤ and its value
    if not prefix_ok and (sum(ans) > spec.c or (sum(ans) < spec.c and len(ans) < q.size)
                          or (sum(ans) == spec.c and not ans[-1])):
        raise ValueError("answers must be a pattern the variant can output (see svt_patterns): it stops at the "
                         f"c-th ⊤ (c = {spec.c}) or after the last query")
    br, bn = spec.threshold_scale, spec.query_scale
    x = thr - q[: len(ans)]  # ⊤ at i iff ν_i − ρ ≥ x_i
    top = np.array(ans)
    if value is not None:
        if not spec.releases_value or sum(ans) != 1 or not ans[-1]:
            raise ValueError("value is only for the 'noisy-value' variant with one ⊤, the last answer")
        v = check_real(value, "value")
        # density of ν_m at v − q_m, times P(⊥ before, ρ ≤ v − T)
        log_nu = -abs(v - q[len(ans) - 1]) / bn - math.log(2 * bn)

        def logfun(z):
            out = -np.abs(z) / br - math.log(2 * br)
            for xi in x[:-1]:
                out = out + _log_cdf(z + xi, bn)
            return out

        kinks = np.concatenate([[0.0], -x[:-1]])
        return log_nu + _log_integral(logfun, kinks, min(br, bn), max(br, bn), upper=v - thr)
    if bn == 0.0 or spec.shared_query_noise:
        # ⊤ at i iff η ≤ −x_i with η = ρ (no query noise) or ρ − ν (shared ν): η ∈ (lo, hi]
        lo = max([-xi for xi, a in zip(x, ans) if not a], default=-math.inf)
        hi = min([-xi for xi, a in zip(x, ans) if a], default=math.inf)
        if hi <= lo:
            return -math.inf
        if bn == 0.0:
            cdf = lambda t: 0.0 if t == -math.inf else (1.0 if t == math.inf else  # noqa: E731
                                                         float(np.exp(_log_cdf(np.array(t), br))))
        else:
            cdf = lambda t: _diff_cdf(t, br, bn)  # noqa: E731
        p = cdf(hi) - cdf(lo)
        return math.log(p) if p > 0 else -math.inf
    rounds = _rounds(ans) if spec.redraw_threshold else [ans]  # re-drawn after each ⊤: a threshold per round
    total, start = 0.0, 0
    for rnd in rounds:
        total += _round_log_integral(br, bn, x[start : start + len(rnd)], rnd)
        start += len(rnd)
    del top
    return total


def _round_log_integral(br: float, bn: float, xs: np.ndarray, tops: Sequence[bool]) -> float:
    """log P(answers ``tops`` to the queries x = T − q of one threshold draw ρ ~ Lap(br)), query noise Lap(bn)."""

    def logfun(z):
        out = -np.abs(z) / br - math.log(2 * br)
        for xi, t in zip(xs, tops):
            # ⊥: ν < ρ + x  → F_ν(z + x);  ⊤: 1 − F_ν(z + x) = F_ν(−z − x)
            out = out + (_log_cdf(-(z + xi), bn) if t else _log_cdf(z + xi, bn))
        return out

    return _log_integral(logfun, np.concatenate([[0.0], -xs]), min(br, bn), max(br, bn))


def _rounds(ans: tuple) -> list[tuple]:
    """A pattern split after each ⊤ (one threshold draw per round: ``"dwork-roth"``)."""
    rounds, cur = [], []
    for a in ans:
        cur.append(a)
        if a:
            rounds.append(tuple(cur))
            cur = []
    if cur:
        rounds.append(tuple(cur))
    return rounds


def svt_pattern_log_probabilities(spec: SVTSpec, queries, threshold: float, patterns: Sequence[Sequence[bool]]
                                  ) -> np.ndarray:
    """:func:`svt_log_probability` of every pattern of ``patterns`` (binary-output variants), computed together.

    The threshold re-drawn after each ⊤ (``"dwork-roth"``): each distinct round (where it starts, its answers) is
    integrated once, as :func:`svt_log_probability` does, and shared by the patterns that contain it. One threshold
    draw with query noise: one quadrature grid over every query's kink, and the log-integrand of each pattern
    built along the tree of patterns (a prefix's integrand extended by one ⊥ or ⊤ factor); equal to the
    one-at-a-time results up to the quadrature's rounding (the grid has every kink). No query noise or shared query
    noise: one at a time (closed forms).

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=1.0, c=2)
    >>> pats = svt_patterns(3, 2)
    >>> a = svt_pattern_log_probabilities(s, [0.0, 1.0, 2.0], 0.5, pats)
    >>> b = [svt_log_probability(s, [0.0, 1.0, 2.0], 0.5, p) for p in pats]
    >>> bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))
    True
    """
    q = _check_queries(queries, max_size=MAX_QUERIES_EXACT)
    thr = check_real(threshold, "threshold")
    pats = [tuple(bool(a) for a in p) for p in patterns]
    if not 1 <= len(pats) <= 1_000_000:
        raise ValueError(f"patterns must hold 1 to 1000000 patterns; got {len(pats)}")
    if spec.releases_value:
        raise ValueError("svt_pattern_log_probabilities is for the binary-output variants (not 'noisy-value')")
    for ans in pats:  # the checks of svt_log_probability, before any work
        if not ans or len(ans) > q.size or sum(ans) > spec.c or (sum(ans) < spec.c and len(ans) < q.size) \
                or (sum(ans) == spec.c and not ans[-1]):
            raise ValueError("each pattern must be one the variant can output on these queries (see svt_patterns); "
                             f"got {ans!r}")
    br, bn = spec.threshold_scale, spec.query_scale
    if bn == 0.0 or spec.shared_query_noise:
        return np.array([svt_log_probability(spec, q, thr, a) for a in pats])
    x = thr - q
    if spec.redraw_threshold:
        memo: dict[tuple, float] = {}
        out = []
        for ans in pats:
            total, start = 0.0, 0
            for rnd in _rounds(ans):
                key = (start, rnd)
                if key not in memo:
                    memo[key] = _round_log_integral(br, bn, x[start : start + len(rnd)], rnd)
                total += memo[key]
                start += len(rnd)
            out.append(total)
        return np.array(out)
    m = max(len(a) for a in pats)
    z, lw = _quadrature_nodes(np.concatenate([[0.0], -x[:m]]), min(br, bn), max(br, bn))
    base = -np.abs(z) / br - math.log(2 * br) + lw
    factors = {False: [_log_cdf(z + xi, bn) for xi in x[:m]], True: [_log_cdf(-(z + xi), bn) for xi in x[:m]]}
    wanted = {}
    for i, ans in enumerate(pats):
        wanted.setdefault(ans, []).append(i)
    out = np.empty(len(pats))

    def walk(prefix: tuple, vals: np.ndarray) -> None:  # depth first along the prefixes of the wanted patterns
        if prefix in wanted:
            top = np.max(vals)
            out[wanted[prefix]] = top + math.log(np.sum(np.exp(vals - top))) if np.isfinite(top) else -math.inf
        for a in (False, True):
            nxt = prefix + (a,)
            if nxt in prefixes:
                walk(nxt, vals + factors[a][len(prefix)])

    prefixes = {ans[:j] for ans in pats for j in range(1, len(ans) + 1)}
    walk((), base)
    return out



def svt_log_value_density(spec: SVTSpec, queries, threshold: float, answers: Sequence[bool], values) -> np.ndarray:
    """:func:`svt_log_probability` with ``value=v`` for every v of ``values`` at once (``"noisy-value"`` only).

    The integrand does not depend on v, only the upper limit v − T and the factor of the released value's density:
    one quadrature gives every v (:func:`_log_integral_upto`). Equal to the one-at-a-time results up to the
    quadrature's rounding.

    Examples
    --------
    >>> s = svt_spec("noisy-value", epsilon=1.0)
    >>> a = svt_log_value_density(s, [0.0, 0.0], 0.0, (False, True), [-1.0, 2.0])
    >>> b = [svt_log_probability(s, [0.0, 0.0], 0.0, (False, True), value=v) for v in (-1.0, 2.0)]
    >>> bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))
    True
    """
    q = _check_queries(queries, max_size=MAX_QUERIES_EXACT)
    thr = check_real(threshold, "threshold")
    ans = tuple(bool(a) for a in answers)
    if not spec.releases_value or not ans or len(ans) > q.size or sum(ans) != 1 or not ans[-1]:
        raise ValueError("svt_log_value_density is for the 'noisy-value' variant with one ⊤, the last answer, and "
                         f"1 … len(queries) = {q.size} answers")
    v = check_array(values, "values", ndim=1, min_size=1, max_size=10_000, kind="a 1-d array of numbers")
    br, bn = spec.threshold_scale, spec.query_scale
    x = thr - q[: len(ans)]
    log_nu = -np.abs(v - q[len(ans) - 1]) / bn - math.log(2 * bn)

    def logfun(z):
        out = -np.abs(z) / br - math.log(2 * br)
        for xi in x[:-1]:
            out = out + _log_cdf(z + xi, bn)
        return out

    kinks = np.concatenate([[0.0], -x[:-1]])
    return log_nu + _log_integral_upto(logfun, kinks, min(br, bn), max(br, bn), v - thr)

def _diff_cdf(t: float, br: float, bn: float) -> float:
    """P(ρ − ν ≤ t), ρ ~ Lap(br), ν ~ Lap(bn) independent: ∫ f_ν(n) F_ρ(t + n) dn."""
    if t == -math.inf:
        return 0.0
    if t == math.inf:
        return 1.0

    def logfun(n):
        return -np.abs(n) / bn - math.log(2 * bn) + _log_cdf(t + n, br)

    return math.exp(_log_integral(logfun, np.array([0.0, -t]), min(br, bn), max(br, bn)))
