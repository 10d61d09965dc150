"""Frequency oracles in the local model: each person randomizes their own value in {0, …, k − 1}.

Five oracles, each ε-LDP (every person's report alone is ε-DP with respect to that person's value:
neighbouring inputs are two values v ≠ v' of one person, the *replacement* of one answer):

* ``"krr"`` — generalized (k-ary) randomized response: report v with probability p = e^ε/(e^ε + k − 1),
  else one of the other k − 1 values uniformly (Warner 1965; Kairouz, Oh & Viswanath 2014).
* ``"sue"`` — symmetric unary encoding (basic RAPPOR, Erlingsson, Pihur & Korolova 2014): the one-hot
  vector of v, each bit kept with p = e^(ε/2)/(e^(ε/2) + 1) (a 1 stays 1 with p, a 0 becomes 1 with
  q = 1 − p).
* ``"oue"`` — optimized unary encoding (Wang et al. 2017): the 1-bit stays 1 with p = 1/2, each 0-bit
  becomes 1 with q = 1/(e^ε + 1).
* ``"olh"`` — optimized local hashing (Wang et al. 2017): each person draws a hash H: {0..k−1} → {0..g−1}
  with g = round(e^ε) + 1 and reports (H, k-RR over g values of H(v)). The hash family here is *all*
  functions [k] → [g], drawn uniformly (a table per person): for v ≠ v', P(H(v) = H(v')) = 1/g exactly,
  which is what the unbiasedness and the variance formula assume (a practical deployment uses a seeded
  universal hash, whose collisions are only approximately 1/g).
* ``"hr"`` — Hadamard response (Acharya, Sun & Zhang 2019): K = the smallest power of 2 > k; value v owns
  the set C_v = {j : H_K[v + 1, j] = +1} of K/2 columns; report a uniform column of C_v with probability
  e^ε/(e^ε + 1), else a uniform column outside it.

Every oracle is a *pure* protocol (Wang et al. 2017, Def. 3): the support count C(v) (reports that
"support" v) is a sum of independent Bernoulli(p*) for the n_v people holding v and Bernoulli(q*) for the
others, so ĉ(v) = (C(v) − n q*)/(p* − q*) is unbiased and its variance is exactly

    Var ĉ(v) = n q*(1 − q*)/(p* − q*)² + n_v (1 − p* − q*)/(p* − q*)      (Wang et al. 2017, Thm. 2)

(:func:`dpexplore.local.theory.count_variance`; the first term alone is the paper's approximation for
small frequencies). (p*, q*): k-RR (e^ε/(e^ε+k−1), 1/(e^ε+k−1)); SUE (e^(ε/2)/(e^(ε/2)+1), 1/(e^(ε/2)+1));
OUE (1/2, 1/(e^ε+1)); OLH (e^ε/(e^ε+g−1), 1/g); HR (e^ε/(e^ε+1), 1/2).

References
----------
Wang, Blocki, Li & Jha (2017), Locally differentially private protocols for frequency estimation, USENIX
Security. Erlingsson, Pihur & Korolova (2014), RAPPOR, CCS. Acharya, Sun & Zhang (2019), Hadamard response,
AISTATS. Near & Abuah, *Programming Differential Privacy*, ch. 13.

Examples
--------
>>> r = randomize([0, 1, 1, 2], oracle="krr", k=3, epsilon=1.0, rng=0)
>>> r.reports.shape, r.epsilon
((4,), 1.0)
>>> estimate(r).counts.shape
(3,)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_array, check_cells, check_choice, check_epsilon, check_int

__all__ = [
    "MAX_CELLS",
    "MAX_EPSILON",
    "MAX_K",
    "MAX_N",
    "ORACLES",
    "ORACLE_NAMES",
    "EstimateResult",
    "LocalResult",
    "estimate",
    "hadamard_size",
    "olh_g",
    "oracle_probabilities",
    "randomize",
    "support_counts",
    "top_k",
]

ORACLES = ("krr", "sue", "oue", "olh", "hr")
ORACLE_NAMES = {"krr": "k-RR", "sue": "SUE (basic RAPPOR)", "oue": "OUE", "olh": "OLH", "hr": "Hadamard response"}
#: the largest alphabet k
MAX_K = 1024
#: the most people (reports)
MAX_N = 1_000_000
#: the most n·k cells an oracle allocates (unary bit vectors, OLH hash tables, support counts)
MAX_CELLS = 5_000_000
#: the largest ε (above it every oracle is the identity to 1e-13 for k ≤ MAX_K)
MAX_EPSILON = 30.0


def hadamard_size(k: int) -> int:
    """K = the smallest power of 2 strictly greater than k (Hadamard response uses rows 1..k of H_K).

    Examples
    --------
    >>> hadamard_size(3), hadamard_size(4), hadamard_size(8)
    (4, 8, 16)
    """
    k = check_int(k, "k", low=2, high=MAX_K)
    return 1 << k.bit_length()


def olh_g(epsilon: float) -> int:
    """g = round(e^ε) + 1: OLH's hash range, the variance-minimising choice of Wang et al. (2017, §4.4).

    Examples
    --------
    >>> olh_g(1.0), olh_g(math.log(3))
    (4, 4)
    """
    eps = _eps(epsilon)
    return int(round(math.exp(eps))) + 1


def _eps(epsilon) -> float:
    eps = check_epsilon(epsilon)
    if eps > MAX_EPSILON:
        raise ValueError(f"epsilon must be a finite number in (0, {MAX_EPSILON:g}]; got {eps:g}")
    return eps


def oracle_probabilities(oracle: str, *, k: int, epsilon: float) -> tuple[float, float]:
    """(p*, q*): the probability that a report supports the reporter's own value, and any other value.

    Examples
    --------
    >>> p, q = oracle_probabilities("oue", k=5, epsilon=math.log(3))
    >>> p, round(q, 12)
    (0.5, 0.25)
    """
    oracle = check_choice(oracle, "oracle", ORACLES)
    k = check_int(k, "k", low=2, high=MAX_K)
    e = math.exp(_eps(epsilon))
    if oracle == "krr":
        return e / (e + k - 1), 1.0 / (e + k - 1)
    if oracle == "sue":
        h = math.sqrt(e)
        return h / (h + 1), 1.0 / (h + 1)
    if oracle == "oue":
        return 0.5, 1.0 / (e + 1)
    if oracle == "olh":
        g = olh_g(epsilon)
        return e / (e + g - 1), 1.0 / g
    return e / (e + 1), 0.5


@dataclass(frozen=True)
class LocalResult:
    """The reports of n people under one frequency oracle.

    Attributes
    ----------
    oracle : str
        One of :data:`ORACLES`.
    reports : ndarray
        k-RR and HR: shape (n,), ints (a value, a Hadamard column); SUE/OUE: shape (n, k), 0/1 (int8);
        OLH: shape (n,), the hashed-and-randomized value y in {0..g−1}.
    k : int
    epsilon : float
        The ε each report spends (ε-LDP; :func:`dpexplore.local.theory.exact_epsilon` computes it
        from the output law).
    p, q : float
        The oracle's (p*, q*) (:func:`oracle_probabilities`).
    hashes : ndarray or None
        OLH only: shape (n, k), person i's hash table H_i(v) (public: it is part of the report).
    g : int
        OLH's hash range (Hadamard response: K; else k).
    """

    oracle: str
    reports: np.ndarray
    k: int
    epsilon: float
    p: float
    q: float
    hashes: np.ndarray | None = None
    g: int = 0

    @property
    def n(self) -> int:
        return int(self.reports.shape[0])


def _values(values, k: int) -> np.ndarray:
    arr = check_array(values, "values", ndim=1, min_size=1, max_size=MAX_N, kind="an array of integers in [0, k - 1]")
    bad = (arr != np.round(arr)) | (arr < 0) | (arr > k - 1)
    if np.any(bad):
        raise ValueError(f"values must be integers in [0, {k - 1}] (k = {k}); got e.g. {arr[bad][0]:g}")
    return arr.astype(np.int64)


def _krr(v: np.ndarray, k: int, e: float, gen: np.random.Generator) -> np.ndarray:
    keep = gen.random(v.size) < e / (e + k - 1)
    other = (v + gen.integers(1, k, size=v.size)) % k  # uniform over the k − 1 other values
    return np.where(keep, v, other)


def _check_rows(n: int, k: int) -> None:
    check_cells(MAX_CELLS, n=n, k=k)


def randomize(values, *, oracle: str = "krr", k: int, epsilon: float, rng: RNGLike = None,
              _probabilities: tuple[float, float] | None = None) -> LocalResult:
    """Each person randomizes their own value with the frequency oracle ``oracle`` (ε-LDP).

    Parameters
    ----------
    values : array_like of int, shape (n,)
        Each person's value in {0, …, k − 1}; 1 ≤ n ≤ :data:`MAX_N`.
    oracle : {"krr", "sue", "oue", "olh", "hr"}
        See the module docstring.
    k : int
        The alphabet size, 2 ≤ k ≤ :data:`MAX_K`.
    epsilon : float
        Each report's ε, 0 < ε ≤ :data:`MAX_EPSILON`.
    rng : Generator, int or None

    Returns
    -------
    LocalResult

    Raises
    ------
    ValueError
        A value outside {0..k−1}; n·k above :data:`MAX_CELLS` for the unary encodings and OLH.

    Examples
    --------
    >>> r = randomize([3, 3, 0], oracle="oue", k=4, epsilon=1.0, rng=0)
    >>> r.reports.shape, r.p
    ((3, 4), 0.5)
    """
    oracle = check_choice(oracle, "oracle", ORACLES)
    k = check_int(k, "k", low=2, high=MAX_K)
    eps = _eps(epsilon)
    if oracle in ("sue", "oue", "olh"):
        n_raw = np.shape(values)[0] if np.ndim(values) == 1 else 0
        _check_rows(n_raw, k)
    v = _values(values, k)
    gen = as_generator(rng)
    e = math.exp(eps)
    p, q = oracle_probabilities(oracle, k=k, epsilon=eps) if _probabilities is None else _probabilities
    if oracle == "krr":
        return LocalResult(oracle, _krr(v, k, e, gen), k, eps, p, q, None, k)
    if oracle in ("sue", "oue"):
        bits = (gen.random((v.size, k)) < q).astype(np.int8)
        bits[np.arange(v.size), v] = (gen.random(v.size) < p).astype(np.int8)
        return LocalResult(oracle, bits, k, eps, p, q, None, k)
    if oracle == "olh":
        g = olh_g(eps)
        dtype = np.int64 if g > 2**31 - 1 else np.int32
        table = gen.integers(0, g, size=(v.size, k), dtype=dtype)
        hv = table[np.arange(v.size), v].astype(np.int64)
        keep = gen.random(v.size) < e / (e + g - 1)
        other = (hv + gen.integers(1, g, size=v.size)) % g if g > 1 else hv
        return LocalResult(oracle, np.where(keep, hv, other), k, eps, p, q, table, g)
    big_k = hadamard_size(k)
    inside = gen.random(v.size) < e / (e + 1)
    # a uniform column of C_{v+1} (or of its complement): rejection sampling, half the columns qualify
    y = np.empty(v.size, dtype=np.int64)
    todo = np.arange(v.size)
    while todo.size:
        cand = gen.integers(0, big_k, size=todo.size)
        ok = _hadamard_sign(v[todo] + 1, cand) == np.where(inside[todo], 1, -1)
        y[todo[ok]] = cand[ok]
        todo = todo[~ok]
    return LocalResult(oracle, y, k, eps, p, q, None, big_k)


def _hadamard_sign(row, col) -> np.ndarray:
    """H_K[row, col] = (−1)^popcount(row & col) (Sylvester's Hadamard matrix)."""
    x = np.bitwise_and(np.asarray(row, dtype=np.int64), np.asarray(col, dtype=np.int64))
    if _BITWISE_COUNT is not None:  # numpy >= 2.0: one popcount per entry
        return 1 - 2 * (_BITWISE_COUNT(x).astype(np.int64) & 1)
    parity = np.zeros(x.shape, dtype=np.int64)
    while np.any(x):
        parity ^= x & 1
        x = x >> 1
    return 1 - 2 * parity


_BITWISE_COUNT = getattr(np, "bitwise_count", None)


def support_counts(result: LocalResult) -> np.ndarray:
    """C(v) for v = 0..k−1: how many reports support each value (see the module docstring).

    Examples
    --------
    >>> support_counts(randomize([0, 0, 1], oracle="krr", k=2, epsilon=30.0, rng=0)).tolist()
    [2, 1]
    """
    if not isinstance(result, LocalResult):
        raise TypeError(f"result must be a LocalResult; got {type(result).__name__}")
    k = result.k
    if result.oracle == "krr":
        return np.bincount(result.reports, minlength=k)[:k]
    if result.oracle in ("sue", "oue"):
        return result.reports.sum(axis=0, dtype=np.int64)
    if result.oracle == "olh":
        return (result.hashes == result.reports[:, None]).sum(axis=0, dtype=np.int64)
    big_k = result.g
    hist = np.bincount(result.reports, minlength=big_k)
    cols = np.arange(big_k)
    return np.array([int(hist[_hadamard_sign(v + 1, cols) == 1].sum()) for v in range(k)], dtype=np.int64)


@dataclass(frozen=True)
class EstimateResult:
    """Unbiased estimates from one oracle's reports.

    Attributes
    ----------
    counts : ndarray, shape (k,)
        ĉ(v) = (C(v) − n q*)/(p* − q*): unbiased for the true counts (may be negative or non-integer).
    frequencies : ndarray, shape (k,)
        ĉ(v)/n.
    n : int
    oracle : str
    epsilon : float
    """

    counts: np.ndarray
    frequencies: np.ndarray
    n: int
    oracle: str
    epsilon: float


def estimate(result: LocalResult) -> EstimateResult:
    """The unbiased count and frequency estimates ĉ(v) = (C(v) − n q*)/(p* − q*) (Wang et al. 2017, eq. 3).

    Post-processing of the reports: costs no further privacy.

    Examples
    --------
    >>> e = estimate(randomize([0, 1, 1, 1], oracle="sue", k=2, epsilon=30.0, rng=0))
    >>> np.round(e.counts, 6).tolist()
    [1.0, 3.0]

    As ε → ∞ only k-RR and SUE become exact: OUE and OLH keep the own value's signal with probability
    p* = 1/2 (OLH: e^ε/(e^ε + g − 1) → 1/2), so Var ĉ(v) → n_v; Hadamard response keeps q* = 1/2, so
    Var ĉ(v) → n − n_v. They are built for small ε.
    """
    c = support_counts(result)
    n = result.n
    est = (c - n * result.q) / (result.p - result.q)
    return EstimateResult(est, est / n, n, result.oracle, result.epsilon)


def top_k(estimates, m: int) -> np.ndarray:
    """Heavy hitters: the m values with the largest estimated counts, largest first (ties: smaller value first).

    Post-processing of an :class:`EstimateResult` (or an array of estimates).

    Examples
    --------
    >>> top_k(np.array([0.1, 5.0, 3.0, 5.0]), 2).tolist()
    [1, 3]
    """
    arr = estimates.counts if isinstance(estimates, EstimateResult) else check_array(estimates, "estimates", ndim=1,
                                                                                    min_size=1, max_size=MAX_K)
    m = check_int(m, "m", low=1, high=arr.size)
    return np.argsort(-arr, kind="stable")[:m]
