"""Private statistics of a table's column: counts, histograms, sums, means and quantiles.

The unit of privacy is **one person**, who may own up to ``rows_per_person`` = c rows (default 1).
Neighbouring data sets differ by adding or removing one person (all of their rows), except for the mean
with a public n, where n is known and the neighbours differ by *replacing* one person's rows (the only
relation under which n stays the same). Under that model the sensitivities are

* count: Δ = c (a person adds at most c rows);
* histogram: ℓ1 and ℓ2 sensitivity c (all c rows may fall in one bin);
* sum of values clipped to [L, U]: Δ = c·max(|L|, |U|);
* mean with public n (replace one person): Δ = c·(U − L)/n;
* quantile (exponential mechanism over the gaps between sorted points, Smith 2011): the utility
  −|rank − q·n| moves by at most c.

Three noises: ``"laplace"`` (Δ₁/ε, ε-DP), ``"gaussian"`` (analytic σ for (ε, δ), Balle & Wang 2018) from
:mod:`dpexplore.core.additive`, and ``"geometric"``, the two-sided geometric (discrete Laplace) mechanism
of Ghosh, Roughgarden & Sundararajan (2009): integer noise with P(k) ∝ α^|k|, α = e^(−ε/Δ), ε-DP for an
integer-valued query of sensitivity Δ.

Every result carries the released value, the noise scale and standard deviation, the ε/δ spent and the
clipping done. Fields marked *diagnostic* (the number of clipped rows, the clipping bias) are computed
from the raw data for teaching: they are **not** private and a real release must not publish them.

References
----------
Dwork & Roth (2014), The Algorithmic Foundations of Differential Privacy, §3.3 (Laplace), §2.3
(group privacy). Near & Abuah, *Programming Differential Privacy*, ch. 5 (sensitivity, clipping) and
ch. 7 (counts, histograms, means). Smith (2011), Privacy-preserving statistical estimation with
optimal convergence rates, STOC. Ghosh, Roughgarden & Sundararajan (2009), Universally utility-maximizing
privacy mechanisms, STOC.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_epsilon,
    check_int,
    check_real,
)

from .noise import NOISES, _add_noise, _check_noise_args, geometric_noise, noise_sd, postprocessing_bias

__all__ = [
    "ESTIMATORS",
    "MAX_BINS",
    "MAX_ROWS",
    "MAX_ROWS_PER_PERSON",
    "NOISES",
    "CountResult",
    "HistogramResult",
    "MeanResult",
    "QuantileResult",
    "SumResult",
    "bound_contributions",
    "geometric_noise",
    "group_privacy",
    "noise_sd",
    "private_count",
    "private_histogram",
    "private_mean",
    "private_quantile",
    "private_sum",
    "quantile_law",
]

#: the most rows a statistic takes
MAX_ROWS = 1_000_000
#: the most bins of a histogram
MAX_BINS = 10_000
#: the largest contribution bound c (rows per person)
MAX_ROWS_PER_PERSON = 10_000
#: how :func:`private_mean` turns a noisy sum into a mean
ESTIMATORS = ("public_n", "noisy_count")


def _column(x, name: str = "x", min_size: int = 0) -> np.ndarray:
    return check_array(x, name, ndim=1, min_size=min_size, max_size=MAX_ROWS)


def _bounds(lower, upper) -> tuple[float, float]:
    lo = check_real(lower, "lower")
    hi = check_real(upper, "upper")
    if not hi > lo:
        raise ValueError(f"upper must be > lower; got lower={lo:g}, upper={hi:g}")
    return lo, hi


def _c(rows_per_person) -> int:
    return check_int(rows_per_person, "rows_per_person", low=1, high=MAX_ROWS_PER_PERSON)


# -- results ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CountResult:
    """A released count.

    Attributes
    ----------
    value : float
        The noisy count (an integer for the geometric noise).
    noise : str
    noise_scale : float
        Laplace b = Δ/ε, Gaussian σ, geometric Δ/ε (its α = e^(−1/scale)).
    noise_sd : float
        Standard deviation of the released value around the true count (exact).
    sensitivity : float
        Δ = rows_per_person.
    epsilon, delta : float
        The privacy spent.
    rows_per_person : int
    """

    value: float
    noise: str
    noise_scale: float
    noise_sd: float
    sensitivity: float
    epsilon: float
    delta: float
    rows_per_person: int


def private_count(x, *, epsilon: float, delta: float = 0.0, noise: str = "laplace", rows_per_person: int = 1,
                  rng: RNGLike = None) -> CountResult:
    """Release the number of rows of ``x`` with noise of sensitivity Δ = ``rows_per_person``.

    Parameters
    ----------
    x : array_like, shape (n,)
        The rows (only their number is used), at most :data:`MAX_ROWS`.
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1) for ``noise="gaussian"``; must be 0 otherwise.
    noise : {"laplace", "gaussian", "geometric"}
    rows_per_person : int
        c: the most rows one person owns (a contribution bound: enforce it with
        :func:`bound_contributions`).
    rng : Generator, int or None

    Returns
    -------
    CountResult

    Notes
    -----
    Mean absolute error Δ/ε for Laplace noise, σ·√(2/π) for Gaussian, 2α/(1 − α²) for geometric.

    Examples
    --------
    >>> r = private_count(np.zeros(100), epsilon=1.0, rng=0)
    >>> r.noise_scale, r.sensitivity, r.epsilon
    (1.0, 1.0, 1.0)
    """
    arr = _column(x)
    noise, eps, d = _check_noise_args(noise, epsilon, delta)
    c = _c(rows_per_person)
    value, scale, sd = _add_noise(float(arr.size), noise=noise, sensitivity=float(c), epsilon=eps, delta=d,
                                  gen=as_generator(rng))
    return CountResult(float(value), noise, scale, sd, float(c), eps, d, c)


@dataclass(frozen=True)
class HistogramResult:
    """A released histogram.

    Attributes
    ----------
    counts : ndarray, shape (bins,)
        The release after the post-processing asked for (``raw_counts`` before it).
    raw_counts : ndarray, shape (bins,)
        True counts + noise.
    edges : ndarray, shape (bins + 1,)
        The bin edges (public: given, or from the public bounds).
    noise, noise_scale, noise_sd, sensitivity, epsilon, delta, rows_per_person
        As in :class:`CountResult` (per cell; ℓ1 = ℓ2 sensitivity c).
    clipped : int
        *Diagnostic*: rows outside [edges[0], edges[-1]] moved into the end bins.
    postprocessing : tuple of str
        The steps applied, in order (``"round"``, ``"nonnegative"``, ``"normalise"``).
    bias : dict
        *Diagnostic*: step name → expected bias per cell (ndarray, exact; see
        :func:`dpexplore.statistics.theory.postprocessing_bias`), computed from the true counts.
    """

    counts: np.ndarray
    raw_counts: np.ndarray
    edges: np.ndarray
    noise: str
    noise_scale: float
    noise_sd: float
    sensitivity: float
    epsilon: float
    delta: float
    rows_per_person: int
    clipped: int
    postprocessing: tuple = ()
    bias: dict = field(default_factory=dict)


def _edges(bins, lower, upper) -> np.ndarray:
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        b = check_int(bins, "bins", low=1, high=MAX_BINS)
        if lower is None or upper is None:
            raise ValueError("lower and upper (public bounds) are required when bins is a number of bins")
        lo, hi = _bounds(lower, upper)
        return np.linspace(lo, hi, b + 1)
    edges = check_array(bins, "bins", ndim=1, min_size=2, max_size=MAX_BINS + 1)
    if not np.all(np.diff(edges) > 0):
        raise ValueError("bins must be strictly increasing edges (or a number of bins); got non-increasing edges")
    return edges


def true_histogram(x, edges) -> tuple[np.ndarray, int]:
    """Counts of ``x`` in the bins ``edges`` with values outside moved into the end bins; returns
    (counts, rows clipped).

    Examples
    --------
    >>> true_histogram([-5, 0.5, 1.5, 9], [0, 1, 2])
    (array([2., 2.]), 2)
    """
    arr = _column(x)
    e = np.asarray(edges, dtype=float)
    clipped = int(np.sum((arr < e[0]) | (arr > e[-1])))
    idx = np.clip(np.searchsorted(e, arr, side="right") - 1, 0, e.size - 2)
    return np.bincount(idx, minlength=e.size - 1).astype(float), clipped


POSTPROCESSING = ("round", "nonnegative", "normalise")


def private_histogram(x, *, bins, epsilon: float, lower: float | None = None, upper: float | None = None,
                      delta: float = 0.0, noise: str = "laplace", rows_per_person: int = 1,
                      postprocess=(), rng: RNGLike = None) -> HistogramResult:
    """Release the histogram of ``x`` with independent noise in every bin.

    Parameters
    ----------
    x : array_like, shape (n,)
    bins : int or array_like
        A number of equal bins on the **public** bounds [lower, upper], or the edges themselves.
        Never derive them from ``x``: the edges would reveal the data's min and max (see
        :func:`dpexplore.statistics.audit.broken_histogram_data_bins`).
    epsilon, delta, noise, rows_per_person, rng
        As in :func:`private_count`; one person moves at most c counts (ℓ1 = ℓ2 = c).
    lower, upper : float, optional
        The public bounds (when ``bins`` is a number).
    postprocess : sequence of {"round", "nonnegative", "normalise"}
        Applied in this order: round to integers, set negative counts to 0, divide by the total (a
        distribution). Post-processing costs no privacy but adds bias: see ``bias``.

    Returns
    -------
    HistogramResult

    Examples
    --------
    >>> h = private_histogram([0.1, 0.2, 0.7], bins=2, lower=0, upper=1, epsilon=1.0, rng=0)
    >>> h.counts.shape, h.edges.tolist()
    ((2,), [0.0, 0.5, 1.0])
    """
    arr = _column(x)
    edges = _edges(bins, lower, upper)
    noise, eps, d = _check_noise_args(noise, epsilon, delta)
    c = _c(rows_per_person)
    if isinstance(postprocess, str):
        postprocess = (postprocess,)
    steps = tuple(check_choice(s, "postprocess", POSTPROCESSING) for s in postprocess)
    steps = tuple(s for s in POSTPROCESSING if s in steps)  # the fixed order
    counts, clipped = true_histogram(arr, edges)
    gen = as_generator(rng)
    raw, scale, sd = _add_noise(counts, noise=noise, sensitivity=float(c), epsilon=eps, delta=d, gen=gen)
    raw = np.atleast_1d(np.asarray(raw, dtype=float))
    out = raw.copy()
    if "round" in steps:
        out = np.round(out)
    if "nonnegative" in steps:
        out = np.maximum(out, 0.0)
    if "normalise" in steps:
        tot = out.sum()
        out = out / tot if tot > 0 else np.full_like(out, 1.0 / out.size)
    bias = postprocessing_bias(counts, noise=noise, epsilon=eps, delta=d, sensitivity=float(c), steps=steps) \
        if steps else {}
    for a in (out, raw, edges):
        a.setflags(write=False)
    return HistogramResult(out, raw, edges, noise, scale, sd, float(c), eps, d, c, clipped, steps, bias)


@dataclass(frozen=True)
class SumResult:
    """A released sum of clipped values.

    Attributes
    ----------
    value : float
    noise, noise_scale, noise_sd, sensitivity, epsilon, delta, rows_per_person
        As in :class:`CountResult`; Δ = c·max(|L|, |U|).
    lower, upper : float
        The clipping bounds.
    clipped : int
        *Diagnostic*: rows moved by clipping.
    clipping_bias : float
        *Diagnostic*: Σ clip(x) − Σ x (exact, deterministic).
    """

    value: float
    noise: str
    noise_scale: float
    noise_sd: float
    sensitivity: float
    epsilon: float
    delta: float
    rows_per_person: int
    lower: float
    upper: float
    clipped: int
    clipping_bias: float


def _clip(arr: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, int]:
    return np.clip(arr, lo, hi), int(np.sum((arr < lo) | (arr > hi)))


def private_sum(x, *, lower: float, upper: float, epsilon: float, delta: float = 0.0, noise: str = "laplace",
                rows_per_person: int = 1, rng: RNGLike = None) -> SumResult:
    """Release Σ clip(x, lower, upper) + noise of sensitivity c·max(|lower|, |upper|) (add/remove one person).

    Examples
    --------
    >>> s = private_sum([1.0, 2.0, 50.0], lower=0, upper=10, epsilon=1.0, rng=0)
    >>> s.sensitivity, s.clipped, s.clipping_bias
    (10.0, 1, -40.0)
    """
    arr = _column(x)
    lo, hi = _bounds(lower, upper)
    noise, eps, d = _check_noise_args(noise, epsilon, delta)
    c = _c(rows_per_person)
    clipped_x, k = _clip(arr, lo, hi)
    sens = c * max(abs(lo), abs(hi))
    if sens == 0:
        raise ValueError("lower and upper must not both be 0")
    value, scale, sd = _add_noise(float(clipped_x.sum()), noise=noise, sensitivity=sens, epsilon=eps, delta=d,
                                  gen=as_generator(rng))
    return SumResult(float(value), noise, scale, sd, float(sens), eps, d, c, lo, hi, k,
                     float(clipped_x.sum() - arr.sum()))


@dataclass(frozen=True)
class MeanResult:
    """A released mean of clipped values.

    Attributes
    ----------
    value : float
    estimator : str
        ``"public_n"``: (Σ clip(x) + noise)/n with n public (replace-one neighbours, Δ = c(U − L)/n on the
        mean): unbiased for the clipped mean, ``noise_sd`` exact. ``"noisy_count"``: (noisy sum)/(noisy
        count), ε split evenly (add/remove neighbours; Δ_sum = c·max(|L|, |U|), Δ_count = c); the ratio
        is clamped to [L, U]; ``noise_sd`` is then the delta-method approximation
        √(sd_sum² + mean²·sd_count²)/n.
    noise, noise_scale, sensitivity
        Of the sum's noise (``"public_n"``: of the mean directly).
    noise_sd : float
    epsilon, delta : float
        Total spent.
    lower, upper : float
    n : int
    clipped : int
        *Diagnostic*: rows moved by clipping.
    clipping_bias : float
        *Diagnostic*: mean(clip(x)) − mean(x) (exact).
    rows_per_person : int
    """

    value: float
    estimator: str
    noise: str
    noise_scale: float
    noise_sd: float
    sensitivity: float
    epsilon: float
    delta: float
    lower: float
    upper: float
    n: int
    clipped: int
    clipping_bias: float
    rows_per_person: int


def private_mean(x, *, lower: float, upper: float, epsilon: float, delta: float = 0.0, noise: str = "laplace",
                 estimator: str = "public_n", rows_per_person: int = 1, rng: RNGLike = None) -> MeanResult:
    """Release the mean of ``x`` clipped to [lower, upper].

    Parameters
    ----------
    x : array_like, shape (n,)
        n ≥ 1 rows.
    lower, upper : float
        Public clipping bounds, lower < upper. Values outside are moved to the nearest bound: that is
        the clipping bias (``clipping_bias``); wider bounds mean more noise (``noise_sd``).
    epsilon, delta, noise, rows_per_person, rng
        As in :func:`private_count`.
    estimator : {"public_n", "noisy_count"}
        See :class:`MeanResult`.

    Returns
    -------
    MeanResult

    Notes
    -----
    With a public n the error splits exactly: E(value − mean(x))² = clipping_bias² + noise_sd².

    Examples
    --------
    >>> m = private_mean([1.0, 2.0, 3.0, 100.0], lower=0, upper=10, epsilon=1.0, rng=0)
    >>> m.estimator, m.sensitivity, m.clipped, m.clipping_bias
    ('public_n', 2.5, 1, -22.5)
    """
    arr = _column(x, min_size=1)
    lo, hi = _bounds(lower, upper)
    noise, eps, d = _check_noise_args(noise, epsilon, delta)
    est = check_choice(estimator, "estimator", ESTIMATORS)
    c = _c(rows_per_person)
    n = arr.size
    cx, k = _clip(arr, lo, hi)
    bias = float(cx.mean() - arr.mean())
    gen = as_generator(rng)
    if est == "public_n":
        sens = c * (hi - lo) / n
        value, scale, sd = _add_noise(float(cx.mean()), noise=noise, sensitivity=sens, epsilon=eps, delta=d, gen=gen)
        return MeanResult(float(value), est, noise, scale, sd, sens, eps, d, lo, hi, n, k, bias, c)
    if noise == "geometric":
        raise ValueError("noise must be one of ['laplace', 'gaussian'] for estimator='noisy_count' "
                         "(the sum is not integer-valued); got 'geometric'")
    s = _add_noise(float(cx.sum()), noise=noise, sensitivity=c * max(abs(lo), abs(hi)), epsilon=eps / 2,
                   delta=d / 2, gen=gen)
    cnt = _add_noise(float(n), noise=noise, sensitivity=float(c), epsilon=eps / 2, delta=d / 2, gen=gen)
    value = float(np.clip(s[0] / max(cnt[0], 1.0), lo, hi))
    sd = math.sqrt(s[2] ** 2 + cx.mean() ** 2 * cnt[2] ** 2) / n
    return MeanResult(value, est, noise, s[1], sd, c * max(abs(lo), abs(hi)), eps, d, lo, hi, n, k, bias, c)


# -- quantiles: the exponential mechanism over gaps (Smith 2011) -----------------------------------
@dataclass(frozen=True)
class QuantileResult:
    """A released quantile.

    Attributes
    ----------
    value : float
    q : float
    interval : int
        The chosen gap i: the output is uniform on [z_i, z_{i+1}] of the sorted clipped points with
        z_0 = lower, z_{n+1} = upper.
    epsilon : float
    delta : float
        0.
    lower, upper : float
    clipped : int
        *Diagnostic*.
    rows_per_person : int
    """

    value: float
    q: float
    interval: int
    epsilon: float
    delta: float
    lower: float
    upper: float
    clipped: int
    rows_per_person: int


def quantile_law(x, q: float, *, lower: float, upper: float, epsilon: float,
                 rows_per_person: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The exact output law of :func:`private_quantile`: (edges z_0..z_{n+1}, probability of each gap).

    Gap i = [z_i, z_{i+1}] has utility u_i = −|i − q·n| (i points lie below it) and is chosen with
    probability ∝ (z_{i+1} − z_i)·exp(ε·u_i/(2c)); the output is uniform in the gap, so its density is
    piecewise constant: P_i/(z_{i+1} − z_i) on gap i.

    Examples
    --------
    >>> z, p = quantile_law([1.0, 2.0, 3.0], 0.5, lower=0, upper=4, epsilon=1.0)
    >>> z.tolist(), round(float(p.sum()), 12)
    ([0.0, 1.0, 2.0, 3.0, 4.0], 1.0)
    """
    from scipy.special import logsumexp

    arr = _column(x)
    qq = check_real(q, "q", low=0.0, high=1.0)
    lo, hi = _bounds(lower, upper)
    eps = check_epsilon(epsilon)
    c = _c(rows_per_person)
    z = np.concatenate([[lo], np.sort(np.clip(arr, lo, hi)), [hi]])
    n = arr.size
    u = -np.abs(np.arange(n + 1) - qq * n)
    width = np.diff(z)
    with np.errstate(divide="ignore"):
        logw = np.log(width) + eps * u / (2.0 * c)
    p = np.exp(logw - logsumexp(logw))
    return z, p


def private_quantile(x, q: float, *, lower: float, upper: float, epsilon: float, rows_per_person: int = 1,
                     rng: RNGLike = None) -> QuantileResult:
    """Release the q-quantile of ``x`` (clipped to [lower, upper]) by the exponential mechanism (Smith 2011).

    Parameters
    ----------
    x : array_like, shape (n,)
    q : float
        In [0, 1] (0.5: the median).
    lower, upper : float
        Public bounds: the output always lies in [lower, upper].
    epsilon : float
        ε > 0 (pure DP).
    rows_per_person : int
        c; the utility's sensitivity.
    rng : Generator, int or None

    Returns
    -------
    QuantileResult

    Notes
    -----
    The exact law is :func:`quantile_law`. Utility sensitivity: adding or removing one person's c rows
    moves every gap's rank i by at most c and q·n by at most q·c ≤ c, so |Δu| ≤ c and the factor
    exp(ε·u/(2c)) makes the choice ε-DP (McSherry & Talwar 2007; Dwork & Roth Thm 3.10).

    Examples
    --------
    >>> r = private_quantile(np.arange(100.0), 0.5, lower=0, upper=100, epsilon=1.0, rng=0)
    >>> 0 <= r.value <= 100, r.epsilon
    (True, 1.0)
    """
    z, p = quantile_law(x, q, lower=lower, upper=upper, epsilon=epsilon, rows_per_person=rows_per_person)
    gen = as_generator(rng)
    i = int(gen.choice(p.size, p=p))
    value = float(z[i] + gen.random() * (z[i + 1] - z[i]))
    arr = np.asarray(x, dtype=float)
    clipped = int(np.sum((arr < z[0]) | (arr > z[-1])))
    return QuantileResult(value, float(q), i, float(epsilon), 0.0, float(z[0]), float(z[-1]), clipped,
                          int(rows_per_person))


# -- the unit of privacy -----------------------------------------------------------------------------
def bound_contributions(person_ids, *, rows_per_person: int, rng: RNGLike = None) -> np.ndarray:
    """Keep at most c rows of every person (a random subset of theirs); returns the indices kept, sorted.

    After this, the declared ``rows_per_person`` = c of every statistic above is true. Which rows are
    kept depends only on that person's own rows and the randomness, so bounding is stable (one person
    changes only their own ≤ c kept rows).

    Examples
    --------
    >>> bound_contributions([1, 1, 1, 2], rows_per_person=2, rng=0).size
    3
    """
    ids = np.asarray(person_ids)
    if ids.ndim != 1 or ids.size > MAX_ROWS:
        raise ValueError(f"person_ids must be a 1-d array of at most {MAX_ROWS:,} ids; got shape {ids.shape}")
    c = _c(rows_per_person)
    gen = as_generator(rng)
    order = gen.permutation(ids.size)
    _, inv = np.unique(ids[order], return_inverse=True)
    # rank of each row within its person, in the random order
    srt = np.argsort(inv, kind="stable")
    ranks = np.empty(ids.size, dtype=np.int64)
    grp = inv[srt]
    start = np.r_[0, np.flatnonzero(np.diff(grp)) + 1]
    counts = np.diff(np.r_[start, grp.size])
    ranks[srt] = np.arange(grp.size) - np.repeat(start, counts)
    return np.sort(order[ranks < c])


def group_privacy(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, float]:
    """What an (ε, δ)-DP release promises a group of k people: (kε, k·e^((k−1)ε)·δ).

    Dwork & Roth (2014) Thm 2.2 (pure DP: kε); for approximate DP the δ grows as
    Σ_{j<k} e^(jε)·δ ≤ k·e^((k−1)ε)·δ (Vadhan 2017, Lemma 2.2). The second number is a bound ("at most").

    Examples
    --------
    >>> group_privacy(0.5, 3)
    (1.5, 0.0)
    >>> e, d = group_privacy(1.0, 2, 1e-6)
    >>> e, round(d / 1e-6, 6)
    (2.0, 5.436564)
    """
    eps = check_real(epsilon, "epsilon", low=0.0)
    kk = check_int(k, "k", low=1, high=MAX_ROWS_PER_PERSON)
    d = check_real(delta, "delta", low=0.0, high=1.0)
    return kk * eps, min(1.0, kk * math.exp((kk - 1) * eps) * d) if d > 0 else 0.0

