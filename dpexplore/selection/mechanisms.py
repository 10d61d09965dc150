"""Private selection: the exponential mechanism, report noisy max and permute-and-flip, with exact output laws.

Every mechanism picks one of K candidates r with scores q_r (higher is better) whose sensitivity is at
most Δ (one person changes every score by at most Δ). Each is ε-DP:

* the **exponential mechanism** (McSherry & Talwar 2007; Dwork & Roth 2014, §3.4) outputs r with
  probability ∝ exp(ε q_r / (2Δ)) (∝ exp(ε q_r / Δ) when the scores are *monotone*: one person moves
  every score in the same direction);
* **report noisy max** (Dwork & Roth, §3.3) outputs argmax_r (q_r + Z_r): with Laplace noise of scale
  2Δ/ε (Δ/ε when monotone); with Gumbel noise of scale 2Δ/ε it *is* the exponential mechanism (the
  Gumbel-max trick); with exponential noise of scale 2Δ/ε it *is* permute-and-flip (Ding, Kifer, Wang,
  Rogers & Zhang 2021);
* **permute-and-flip** (McKenna & Sheldon 2020) lives in :mod:`dpexplore.core.permute_and_flip`; it is
  re-exported here with the same calling convention.

Each ``*_probabilities`` function returns the exact output law: closed forms for the exponential
mechanism and Gumbel/exponential noise, exact piecewise integration for Laplace noise
(:func:`report_noisy_max_probabilities`).

Examples
--------
>>> exponential_mechanism_probabilities([0.0, 0.0], epsilon=1.0).tolist()
[0.5, 0.5]
>>> report_noisy_max([0.0, 50.0, 0.0], epsilon=10.0, rng=0).index
1
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.permute_and_flip import permute_and_flip as _core_pf
from dpexplore.core.permute_and_flip import permute_and_flip_probabilities as _core_pf_law
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_array, check_bool, check_choice, check_epsilon, check_int, check_positive

__all__ = [
    "MAX_CANDIDATES",
    "MAX_ABS_SCORE",
    "MAX_CANDIDATES_EXACT",
    "NOISES",
    "SelectionResult",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "noise_scale",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "report_noisy_max",
    "report_noisy_max_probabilities",
    "selection_probabilities",
]

#: the most candidates a selection takes
MAX_CANDIDATES = 100_000
#: the most candidates an exact law takes (Laplace noise: K integrals over K + 1 pieces)
MAX_CANDIDATES_EXACT = 200
#: the largest |score| (so that score differences and sums stay finite)
MAX_ABS_SCORE = 1e15
#: the noise distributions of :func:`report_noisy_max`
NOISES = ("laplace", "exponential", "gumbel")


@dataclass(frozen=True)
class SelectionResult:
    """Output of a private selection.

    Attributes
    ----------
    index : int
        The selected candidate.
    mechanism : str
        Which mechanism selected it.
    epsilon : float
        The ε spent (ε-DP when every score has sensitivity ≤ ``sensitivity``).
    sensitivity : float
    delta : float
        Always 0.
    """

    index: int
    mechanism: str
    epsilon: float
    sensitivity: float
    delta: float = 0.0


def check_scores(scores, name: str = "scores", *, max_size: int = MAX_CANDIDATES) -> np.ndarray:
    """Validate a score vector: a 1-d array of 1 … ``max_size`` numbers, each of size ≤ ``MAX_ABS_SCORE``.

    Examples
    --------
    >>> check_scores([1, 2]).tolist()
    [1.0, 2.0]
    >>> check_scores([])
    Traceback (most recent call last):
    ...
    ValueError: scores must have at least 1 entries; got 0
    """
    arr = check_array(scores, name, ndim=1, min_size=1, max_size=max_size, kind="a 1-d array of numbers")
    if np.max(np.abs(arr)) > MAX_ABS_SCORE:
        raise ValueError(f"{name} must lie in [-{MAX_ABS_SCORE:g}, {MAX_ABS_SCORE:g}] (differences of scores must "
                         f"not overflow); got {float(np.max(np.abs(arr))):g}")
    return arr


def _args(epsilon, sensitivity, monotone) -> tuple[float, float, bool]:
    return check_epsilon(epsilon), check_positive(sensitivity, "sensitivity"), check_bool(monotone, "monotone")


def noise_scale(epsilon: float, sensitivity: float = 1.0, *, monotone: bool = False) -> float:
    """The noise scale b of report noisy max (and the temperature of the exponential mechanism): 2Δ/ε, or Δ/ε
    for monotone scores.

    Examples
    --------
    >>> noise_scale(1.0, 1.0), noise_scale(1.0, 1.0, monotone=True)
    (2.0, 1.0)
    """
    eps, sens, mono = _args(epsilon, sensitivity, monotone)
    return (1.0 if mono else 2.0) * sens / eps


def exponential_mechanism_probabilities(scores, *, epsilon: float, sensitivity: float = 1.0,
                                        monotone: bool = False) -> np.ndarray:
    """Exact output law of the exponential mechanism: P(r) = exp(q_r / b) / Σ_s exp(q_s / b), b = 2Δ/ε (Δ/ε monotone).

    Examples
    --------
    >>> p = exponential_mechanism_probabilities([0.0, 2.0], epsilon=1.0)
    >>> round(float(p[1]), 6) == round(math.e / (1 + math.e), 6)
    True
    """
    q = check_scores(scores)
    b = noise_scale(epsilon, sensitivity, monotone=monotone)
    z = (q - q.max()) / b
    w = np.exp(z)
    return w / w.sum()


def exponential_mechanism(scores, *, epsilon: float, sensitivity: float = 1.0, monotone: bool = False,
                          rng: RNGLike = None) -> SelectionResult:
    """The exponential mechanism: output r with probability ∝ exp(ε q_r / (2Δ)) (∝ exp(ε q_r / Δ) if monotone).

    Parameters
    ----------
    scores : array_like, shape (K,)
        Utility of each candidate (higher is better), each of sensitivity ≤ Δ.
    epsilon : float
        ε > 0.
    sensitivity : float
        Δ > 0.
    monotone : bool
        The scores are monotone in the data (a count): the factor 2 is not needed.
    rng : Generator, int or None

    Returns
    -------
    SelectionResult

    References
    ----------
    McSherry & Talwar (2007); Dwork & Roth (2014), §3.4, Theorem 3.10 (privacy), 3.11 (utility).

    Examples
    --------
    >>> exponential_mechanism([0.0, 100.0], epsilon=1.0, rng=0).index
    1
    """
    p = exponential_mechanism_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    gen = as_generator(rng)
    idx = int(np.searchsorted(np.cumsum(p), gen.random() * p.sum(), side="right"))
    return SelectionResult(min(idx, p.size - 1), "exponential mechanism", check_epsilon(epsilon),
                           float(sensitivity))


def _rnm_noise(gen: np.random.Generator, noise: str, b: float, size: int) -> np.ndarray:
    if noise == "laplace":
        return gen.laplace(0.0, b, size)
    if noise == "gumbel":
        return gen.gumbel(0.0, b, size)
    return gen.exponential(b, size)


def report_noisy_max(scores, *, epsilon: float, sensitivity: float = 1.0, noise: str = "laplace",
                     monotone: bool = False, rng: RNGLike = None) -> SelectionResult:
    """Report noisy max: output argmax_r (q_r + Z_r), Z_r i.i.d. of scale b = 2Δ/ε (Δ/ε if monotone).

    Parameters
    ----------
    scores : array_like, shape (K,)
    epsilon, sensitivity : float
    noise : {"laplace", "exponential", "gumbel"}
        Laplace (Dwork & Roth, Claim 3.9), exponential (= permute-and-flip in law; Ding et al. 2021) or
        Gumbel (= the exponential mechanism in law).
    monotone : bool
        Monotone scores: scale Δ/ε suffices (Laplace, exponential and Gumbel alike).
    rng : Generator, int or None

    Returns
    -------
    SelectionResult

    Examples
    --------
    >>> report_noisy_max([0.0, 100.0], epsilon=1.0, noise="gumbel", rng=0).index
    1
    """
    q = check_scores(scores)
    noise = check_choice(noise, "noise", NOISES)
    b = noise_scale(epsilon, sensitivity, monotone=monotone)
    z = _rnm_noise(as_generator(rng), noise, b, q.size)
    return SelectionResult(int(np.argmax(q + z)), f"report noisy max ({noise})", check_epsilon(epsilon),
                           float(sensitivity))


def permute_and_flip(scores, *, epsilon: float, sensitivity: float = 1.0, monotone: bool = False,
                     rng: RNGLike = None) -> SelectionResult:
    """Permute-and-flip (McKenna & Sheldon 2020): :func:`dpexplore.core.permute_and_flip.permute_and_flip`
    with this module's calling convention (for monotone scores it runs at 2ε: acceptance exp(ε(q − q*)/Δ)).

    Examples
    --------
    >>> permute_and_flip([0.0, 100.0], epsilon=1.0, rng=0).index
    1
    """
    q = check_scores(scores)
    eps, sens, mono = _args(epsilon, sensitivity, monotone)
    res = _core_pf(q, 2.0 * eps if mono else eps, sensitivity=sens, rng=rng)
    return SelectionResult(res.index, "permute-and-flip", eps, sens)


def permute_and_flip_probabilities(scores, *, epsilon: float, sensitivity: float = 1.0,
                                   monotone: bool = False) -> np.ndarray:
    """Exact output law of permute-and-flip
    (:func:`dpexplore.core.permute_and_flip.permute_and_flip_probabilities`; monotone scores: at 2ε).

    Examples
    --------
    >>> permute_and_flip_probabilities([0.0, 0.0], epsilon=1.0).round(6).tolist()
    [0.5, 0.5]
    """
    q = check_scores(scores, max_size=MAX_CANDIDATES_EXACT * 10)
    eps, sens, mono = _args(epsilon, sensitivity, monotone)
    return _core_pf_law(q, 2.0 * eps if mono else eps, sensitivity=sens)


@functools.lru_cache(maxsize=64)
def _leggauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights (cached: numpy computes them by an eigenvalue problem each call)."""
    nodes, weights = np.polynomial.legendre.leggauss(n)
    nodes.setflags(write=False)
    weights.setflags(write=False)
    return nodes, weights


def _laplace_rnm_law(q: np.ndarray, b: float) -> np.ndarray:
    """P(argmax (q_r + Z_r) = r), Z ~ Laplace(b) i.i.d., by exact piecewise integration.

    P(r) = ∫ f(x − q_r) Π_{s≠r} F(x − q_s) dx. Between consecutive sorted scores every factor is an
    exponential or one minus an exponential; with u = exp(x/b) the integrand is a finite sum of powers of u.
    Below the smallest score the integrand is a single exponential (closed form); above the largest, with
    u = exp(−(x − q_max)/b), a polynomial of degree K − 1 in u on [0, 1] (Gauss–Legendre, exact). The
    pieces between scores are integrated with Gauss–Legendre on sub-intervals of width ≤ b/4 (64 nodes
    each: the integrand is entire, the rule's error is far below double rounding).
    """
    k = q.size
    if k == 1:
        return np.ones(1)
    qs = np.sort(q)
    lo, hi = qs[0], qs[-1]
    # left tail x < q_min: f(x − q_r) = e^{(x−q_r)/b}/(2b), F(x − q_s) = e^{(x−q_s)/b}/2:
    # ∫_{−∞}^{lo} 2^{−K} b^{−1} e^{(Kx − Σq)/b} dx = 2^{−K} e^{(K lo − Σq)/b} / K (the same for every r)
    left = np.full(k, 2.0 ** (-k) * math.exp((k * lo - q.sum()) / b) / k)
    # right tail x > q_max: u = e^{−(x−hi)/b}, dx = −b du/u; f(x−q_r) = u e^{(q_r−hi)/b}/(2b);
    # F(x−q_s) = 1 − u e^{(q_s−hi)/b}/2 → P_r = ½ e^{(q_r−hi)/b} ∫_0^1 Π_{s≠r}(1 − a_s u) du, a_s = ½ e^{(q_s−hi)/b}
    a = 0.5 * np.exp((q - hi) / b)
    nodes, weights = _leggauss(k // 2 + 1)
    u = 0.5 * (nodes + 1.0)
    w = 0.5 * weights
    logs = np.log1p(-np.outer(u, a))  # (G, K)
    tot = logs.sum(axis=1, keepdims=True)
    right = a * (w @ np.exp(tot - logs))
    # the middle [lo, hi]: Gauss–Legendre on pieces of width ≤ b/4 between consecutive distinct scores
    mid = np.zeros(k)
    gn, gw = _leggauss(64)
    uniq = np.unique(qs)
    for x0, x1 in zip(uniq[:-1], uniq[1:]):
        pieces = max(1, int(math.ceil((x1 - x0) / (0.25 * b))))
        if pieces > 4000:  # far-apart scores: the integrand there is negligible for all but the top; cap the work
            pieces = 4000
        edges = np.linspace(x0, x1, pieces + 1)
        xs = (0.5 * (edges[:-1, None] + edges[1:, None]) + 0.5 * (edges[1:, None] - edges[:-1, None]) * gn).ravel()
        ws = (0.5 * (edges[1:, None] - edges[:-1, None]) * gw).ravel()
        d = xs[:, None] - q[None, :]  # (N, K)
        logf = -np.abs(d) / b - math.log(2.0 * b)
        logF = np.where(d < 0, d / b - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(d) / b)))
        tot = logF.sum(axis=1, keepdims=True)
        mid += ws @ np.exp(tot - logF + logf)
    p = left + mid + right
    return p / p.sum()  # removes rounding drift only: the three parts sum to 1 exactly in theory


def report_noisy_max_probabilities(scores, *, epsilon: float, sensitivity: float = 1.0, noise: str = "laplace",
                                   monotone: bool = False) -> np.ndarray:
    """Exact output law of :func:`report_noisy_max`.

    Gumbel noise: the exponential mechanism's law (closed form). Exponential noise: permute-and-flip's law
    (Ding et al. 2021; :func:`permute_and_flip_probabilities`). Laplace noise:
    P(r) = ∫ f(x − q_r) Π_{s≠r} F(x − q_s) dx integrated piecewise exactly (closed-form tails, Gauss–Legendre
    between the scores; see the source); at most ``MAX_CANDIDATES_EXACT`` candidates.

    Examples
    --------
    >>> p = report_noisy_max_probabilities([0.0, 0.0, 0.0], epsilon=1.0)
    >>> [round(float(x), 9) for x in p]
    [0.333333333, 0.333333333, 0.333333333]
    """
    noise = check_choice(noise, "noise", NOISES)
    if noise == "gumbel":
        return exponential_mechanism_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity,
                                                   monotone=monotone)
    if noise == "exponential":
        return permute_and_flip_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    q = check_scores(scores, max_size=MAX_CANDIDATES_EXACT)
    return _laplace_rnm_law(q, noise_scale(epsilon, sensitivity, monotone=monotone))


def selection_probabilities(mechanism: str, scores, *, epsilon: float, sensitivity: float = 1.0,
                            monotone: bool = False) -> np.ndarray:
    """The exact law of a mechanism by name: ``"em"``, ``"rnm"`` (Laplace), ``"pf"``, ``"rnm-gumbel"``,
    ``"rnm-exponential"``.

    Examples
    --------
    >>> selection_probabilities("pf", [0.0, 0.0], epsilon=1.0).round(3).tolist()
    [0.5, 0.5]
    """
    mech = check_choice(mechanism, "mechanism", SELECTORS)
    kw = dict(epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    if mech == "em":
        return exponential_mechanism_probabilities(scores, **kw)
    if mech == "pf":
        return permute_and_flip_probabilities(scores, **kw)
    noise = {"rnm": "laplace", "rnm-gumbel": "gumbel", "rnm-exponential": "exponential"}[mech]
    return report_noisy_max_probabilities(scores, noise=noise, **kw)


#: mechanism names of :func:`selection_probabilities` and :func:`select`
SELECTORS = ("em", "rnm", "pf", "rnm-gumbel", "rnm-exponential")
__all__ += ["SELECTORS", "check_scores", "select"]


def select(mechanism: str, scores, *, epsilon: float, sensitivity: float = 1.0, monotone: bool = False,
           rng: RNGLike = None) -> SelectionResult:
    """Run a mechanism by name (see :data:`SELECTORS`).

    Examples
    --------
    >>> select("rnm", [0.0, 100.0], epsilon=1.0, rng=0).index
    1
    """
    mech = check_choice(mechanism, "mechanism", SELECTORS)
    kw = dict(epsilon=epsilon, sensitivity=sensitivity, monotone=monotone, rng=rng)
    if mech == "em":
        return exponential_mechanism(scores, **kw)
    if mech == "pf":
        return permute_and_flip(scores, **kw)
    noise = {"rnm": "laplace", "rnm-gumbel": "gumbel", "rnm-exponential": "exponential"}[mech]
    return report_noisy_max(scores, noise=noise, **kw)


#: the most values (rows × candidates) one call of :func:`select_many` draws noise for
MAX_DRAW_VALUES = 20_000_000
__all__ += ["MAX_DRAW_VALUES", "select_many"]


def _draw_scaled(mech: str, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """One selection per row of ``x`` (shape (R, K); x = scores / b with b the noise scale 2Δ/ε, or Δ/ε monotone).

    Each row runs the same algorithm as the one-at-a-time function, all rows at once: the exponential
    mechanism by inverse CDF on its weights exp(x − max x) (:func:`exponential_mechanism`); report noisy max
    as argmax(x + Z), Z of scale 1 (:func:`report_noisy_max`: argmax(q + bZ) is the same argmax); permute-and-flip
    as a uniform random order (argsort of uniforms) and one coin per candidate with heads probability
    exp(x − max x), the first heads in that order (:func:`dpexplore.core.permute_and_flip.permute_and_flip`).
    """
    rows, k = x.shape
    if mech == "em":
        cum = np.cumsum(np.exp(x - x.max(axis=1, keepdims=True)), axis=1)
        u = gen.random(rows) * cum[:, -1]
        return np.minimum((cum <= u[:, None]).sum(axis=1), k - 1)  # = searchsorted(cum, u, side="right")
    if mech == "pf":
        accept = np.exp(x - x.max(axis=1, keepdims=True))  # the maximiser's coin is sure (p = 1)
        order = np.argsort(gen.random((rows, k)), axis=1)  # a uniform random order per row
        heads = gen.random((rows, k)) < np.take_along_axis(accept, order, axis=1)
        return order[np.arange(rows), np.argmax(heads, axis=1)]
    noise = {"rnm": "laplace", "rnm-gumbel": "gumbel", "rnm-exponential": "exponential"}[mech]
    return np.argmax(x + _rnm_noise(gen, noise, 1.0, (rows, k)), axis=1)


def select_many(mechanism: str, scores, *, epsilon, sensitivity: float = 1.0, monotone: bool = False,
                runs: int = 1, rng: RNGLike = None) -> np.ndarray:
    """``runs`` independent selections by one mechanism (see :data:`SELECTORS`), drawn at once.

    The same algorithms as :func:`select` (each run is one run of the mechanism; see ``_draw_scaled``), for
    Monte-Carlo panels and audits: thousands of runs cost a few array operations instead of a Python call each.

    Parameters
    ----------
    mechanism : str
    scores : array_like, shape (K,)
    epsilon : float or sequence of float
        One ε, or several: then ``runs`` selections at each.
    sensitivity : float
    monotone : bool
    runs : int
        Selections per ε, at most ``MAX_DRAW_VALUES // K`` in all.
    rng : Generator, int or None

    Returns
    -------
    ndarray of int
        Shape (runs,) for one ε, (len(epsilon), runs) for several: the selected indices.

    Examples
    --------
    >>> select_many("pf", [0.0, 100.0], epsilon=1.0, runs=4, rng=0).tolist()
    [1, 1, 1, 1]
    >>> select_many("em", [0.0, 100.0], epsilon=[1.0, 2.0], runs=2, rng=0).shape
    (2, 2)
    """
    mech = check_choice(mechanism, "mechanism", SELECTORS)
    q = check_scores(scores)
    one = np.ndim(epsilon) == 0
    eps_list = [epsilon] if one else list(epsilon)
    if not 1 <= len(eps_list) <= 64:
        raise ValueError(f"epsilon must be a number or a sequence of 1 to 64 numbers; got {len(eps_list)}")
    runs = check_int(runs, "runs", low=1, high=MAX_DRAW_VALUES)
    if len(eps_list) * runs * q.size > MAX_DRAW_VALUES:
        raise ValueError(f"len(epsilon) * runs * K must be <= {MAX_DRAW_VALUES:,}; got {len(eps_list)} * {runs} * "
                         f"{q.size}")
    b = np.array([noise_scale(e, sensitivity, monotone=monotone) for e in eps_list])
    x = np.broadcast_to(q[None, None, :] / b[:, None, None], (b.size, runs, q.size)).reshape(-1, q.size)
    out = _draw_scaled(mech, x, as_generator(rng)).reshape(b.size, runs)
    return out[0] if one else out
