"""Closed forms of the frequency oracles: variances and the exact ε of each oracle from its output law.

Variance (Wang, Blocki, Li & Jha 2017, Thm. 2, exact for every pure protocol here):

    Var ĉ(v) = n q*(1 − q*)/(p* − q*)² + n_v (1 − p* − q*)/(p* − q*)

:func:`count_variance` returns it (``exact=True``, the default) or the first term alone, the paper's
"approximate variance" for small frequencies (eqs. for k-RR n(e^ε + k − 2)/(e^ε − 1)², SUE
n e^(ε/2)/(e^(ε/2) − 1)², OUE and OLH n·4e^ε/(e^ε − 1)² — OLH's with the real-valued g = e^ε + 1; with
the integer g = round(e^ε) + 1 used here, n q*(1 − q*)/(p* − q*)² is evaluated at that g).

Exact ε (worst case over the pairs of one person's values v ≠ v', the neighbour notion of the local model):
the largest log-likelihood ratio of the two output laws,

* k-RR, HR, and OLH given the hash: a finite channel W (values × outputs): max over rows a, b and columns y of
  log W[a, y]/W[b, y] (:func:`channel_epsilon`);
* SUE/OUE: outputs are bit vectors, whose law is a product over bits: the ratio of two product laws is the
  product of the per-bit ratios, so the largest over all 2^k vectors is the product of each bit's largest
  ratio (:func:`product_epsilon`; tests compare it with brute force over all 2^k vectors for small k);
* OLH: the hash H is drawn independently of v and published; given H, the report is g-ary RR of H(v), so
  the ratio is 1 when H(v) = H(v') and at most p/q otherwise; the family of all functions [k] → [g] has
  H with H(v) ≠ H(v') (g ≥ 2), so the worst case is the g-RR channel's ε.

Examples
--------
>>> round(exact_epsilon("sue", k=4, epsilon=1.0), 12)
1.0
>>> v = count_variance("krr", n=1000, k=4, epsilon=1.0, count=0.0)
>>> bool(np.isclose(v, 1000 * (math.e + 2) / (math.e - 1) ** 2))
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.validation import check_array, check_choice, check_int, check_real

from .mechanisms import MAX_K, MAX_N, ORACLES, _eps, hadamard_size, olh_g, oracle_probabilities

__all__ = ["channel", "channel_epsilon", "count_variance", "exact_epsilon", "frequency_mse", "product_epsilon",
           "unary_bit_probabilities"]

#: the largest channel :func:`channel` builds (values × outputs)
MAX_CHANNEL_CELLS = 4_000_000


def count_variance(oracle: str, *, n: int, k: int, epsilon: float, count=0.0, exact: bool = True):
    """Var ĉ(v) of :func:`dpexplore.local.estimate` for a value held by ``count`` of n people.

    Parameters
    ----------
    oracle : {"krr", "sue", "oue", "olh", "hr"}
    n : int
        People, 1 ≤ n ≤ :data:`MAX_N`.
    k : int
    epsilon : float
    count : float or array_like
        n_v (0 ≤ n_v ≤ n).
    exact : bool
        True: the exact variance (both terms). False: Wang et al.'s approximation n q*(1 − q*)/(p* − q*)².

    Examples
    --------
    >>> e = math.e
    >>> bool(np.isclose(count_variance("oue", n=100, k=8, epsilon=1.0, exact=False), 100 * 4 * e / (e - 1) ** 2))
    True
    """
    n = check_int(n, "n", low=1, high=MAX_N)
    p, q = oracle_probabilities(oracle, k=k, epsilon=epsilon)
    c = check_array(count, "count", finite=True)
    if np.any((c < 0) | (c > n)):
        raise ValueError(f"count must be in [0, n] = [0, {n}]; got e.g. {c[(c < 0) | (c > n)].flat[0]:g}")
    base = n * q * (1 - q) / (p - q) ** 2
    out = base + (c * (1 - p - q) / (p - q) if exact else 0.0 * c)
    return float(out) if out.ndim == 0 else out


def frequency_mse(oracle: str, *, counts, epsilon: float) -> float:
    """The mean over the k values of Var(ĉ(v)/n): the expected squared error of the frequency estimates.

    Examples
    --------
    >>> round(frequency_mse("krr", counts=[50, 50], epsilon=30.0), 12)
    0.0
    """
    c = check_array(counts, "counts", ndim=1, min_size=2, max_size=MAX_K)
    n = int(round(c.sum()))
    return float(np.mean(count_variance(oracle, n=n, k=c.size, epsilon=epsilon, count=c))) / n**2


def channel(oracle: str, *, k: int, epsilon: float) -> np.ndarray:
    """The output law W[v, y] of k-RR (k × k), Hadamard response (k × K) or OLH given a hash (g × g, rows
    indexed by H(v)).

    Examples
    --------
    >>> channel("hr", k=3, epsilon=1.0).shape
    (3, 4)
    """
    oracle = check_choice(oracle, "oracle", ("krr", "hr", "olh"))
    k = check_int(k, "k", low=2, high=MAX_K)
    eps = _eps(epsilon)
    e = math.exp(eps)
    if oracle in ("krr", "olh"):
        m = k if oracle == "krr" else olh_g(eps)
        if m * m > MAX_CHANNEL_CELLS:
            raise ValueError(f"the {oracle} channel has {m}² cells, more than {MAX_CHANNEL_CELLS:,}; got "
                             f"epsilon={eps:g}")
        w = np.full((m, m), 1.0 / (e + m - 1))
        np.fill_diagonal(w, e / (e + m - 1))
        return w
    big_k = hadamard_size(k)
    rows = np.arange(1, k + 1)[:, None]
    cols = np.arange(big_k)[None, :]
    x = rows & cols
    parity = np.zeros(x.shape, dtype=np.int64)
    while np.any(x):
        parity ^= x & 1
        x = x >> 1
    return np.where(parity == 0, 2 * e / (big_k * (e + 1)), 2 / (big_k * (e + 1)))


def channel_epsilon(w) -> float:
    """max over rows a, b and columns y of log(W[a, y]/W[b, y]) (∞ if one is 0 and the other not).

    Examples
    --------
    >>> round(channel_epsilon([[0.75, 0.25], [0.25, 0.75]]), 12) == round(math.log(3), 12)
    True
    """
    w = check_array(w, "w", ndim=2, min_size=1, max_size=MAX_CHANNEL_CELLS)
    with np.errstate(divide="ignore"):
        lw = np.log(w)
    hi, lo = lw.max(axis=0), lw.min(axis=0)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(hi), 0.0, hi - lo)
    return float(np.max(gap))


def unary_bit_probabilities(oracle: str, *, k: int, epsilon: float, q: float | None = None) -> np.ndarray:
    """P[v, j] = P(bit j = 1 | value v) of SUE/OUE (p on the diagonal, q elsewhere); ``q`` overrides q*.

    Examples
    --------
    >>> unary_bit_probabilities("oue", k=2, epsilon=math.log(3)).round(3).tolist()
    [[0.5, 0.25], [0.25, 0.5]]
    """
    oracle = check_choice(oracle, "oracle", ("sue", "oue"))
    p, q0 = oracle_probabilities(oracle, k=k, epsilon=epsilon)
    q = q0 if q is None else check_real(q, "q", low=0.0, high=1.0)
    P = np.full((k, k), q)
    np.fill_diagonal(P, p)
    return P


def product_epsilon(bit_probabilities) -> float:
    """Exact ε of a product-of-Bernoullis output law (rows: inputs, columns: bits):
    max over a ≠ b of Σ_j max(log P[a,j]/P[b,j], log (1−P[a,j])/(1−P[b,j])).

    Examples
    --------
    >>> round(product_epsilon([[0.5, 0.25], [0.25, 0.5]]), 12) == round(math.log(3), 12)
    True
    """
    P = check_array(bit_probabilities, "bit_probabilities", ndim=2, min_size=1, max_size=MAX_K * MAX_K)
    best = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        l1, l0 = np.log(P), np.log1p(-P)
        for a in range(P.shape[0]):
            r1 = l1[a][None, :] - l1
            r0 = l0[a][None, :] - l0
            r1 = np.where(np.isnan(r1), -np.inf, r1)
            r0 = np.where(np.isnan(r0), -np.inf, r0)
            per = np.maximum(r1, r0).sum(axis=1)
            per[a] = 0.0
            best = max(best, float(per.max()))
    return best


def exact_epsilon(oracle: str, *, k: int, epsilon: float) -> float:
    """The exact ε of one report of ``oracle``: the worst pair of one person's values (module docstring).

    Examples
    --------
    >>> [round(exact_epsilon(o, k=5, epsilon=0.7), 9) for o in ("krr", "sue", "oue", "olh", "hr")]
    [0.7, 0.7, 0.7, 0.7, 0.7]
    """
    oracle = check_choice(oracle, "oracle", ORACLES)
    k = check_int(k, "k", low=2, high=MAX_K)
    eps = _eps(epsilon)
    if oracle in ("sue", "oue"):
        return product_epsilon(unary_bit_probabilities(oracle, k=min(k, 64), epsilon=eps))  # every pair alike
    if oracle == "olh":
        g = olh_g(eps)
        if g * g > MAX_CHANNEL_CELLS:  # the g-RR channel's ratio, without building it
            return math.log((math.exp(eps) / (math.exp(eps) + g - 1)) * (math.exp(eps) + g - 1))
        return channel_epsilon(channel("olh", k=k, epsilon=eps))
    if oracle == "krr" and k * k > MAX_CHANNEL_CELLS:
        return eps
    return channel_epsilon(channel(oracle, k=k, epsilon=eps))
