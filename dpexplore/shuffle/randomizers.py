"""Local randomizers with binary inputs, described by their two output laws (W_0, W_1).

Paper 4 (Shvets 2026), Section 2: a user holding x ∈ {0, 1} reports y ∈ {0, …, K − 1} with
probability W_x(y); every output has positive probability under both inputs (full support).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpexplore.core.validation import check_epsilon, check_int, check_probability_vector

__all__ = ["Randomizer", "binary_rr", "k_rr", "randomizer", "MAX_ALPHABET"]

#: public maximum of the k-RR alphabet size k (checked before anything of size k is allocated)
MAX_ALPHABET = 10_000


@dataclass(frozen=True, eq=False)
class Randomizer:
    """A local randomizer with binary input: output laws ``W0`` (input 0) and ``W1`` (input 1).

    Build one with :func:`binary_rr`, :func:`k_rr` or :func:`randomizer` (which validate).

    Attributes
    ----------
    W0, W1 : ndarray, shape (K,)
        Output probabilities under input 0 and input 1 (read-only, full support).
    name : str
        Short description used in legends and reproduce snippets.
    """

    W0: np.ndarray
    W1: np.ndarray
    name: str = "randomizer"
    _groups: tuple = field(default=(), repr=False)
    #: size of the users' input domain: 2 (inputs 0/1) except for :func:`k_rr`, whose users may hold any of k symbols
    inputs: int = 2
    #: (ε0, k) for k-ary randomized response (binary RR: k = 2); None for a custom randomizer
    krr: tuple | None = None

    @property
    def K(self) -> int:
        """Output alphabet size."""
        return int(self.W0.size)

    @property
    def v(self) -> np.ndarray:
        """The mean shift v = W_1 − W_0."""
        return self.W1 - self.W0

    @property
    def ratio(self) -> np.ndarray:
        """Likelihood ratios W_1(y)/W_0(y)."""
        return self.W1 / self.W0

    @property
    def xi(self) -> np.ndarray:
        """Score increments ξ(y) = W_1(y)/W_0(y) − 1 (paper, canonical likelihood ratio)."""
        return self.W1 / self.W0 - 1.0

    @property
    def local_epsilon(self) -> float:
        """The randomizer's own (local) ε: max_y |log W_1(y)/W_0(y)| (ε0 itself for k-RR)."""
        if self.krr is not None:
            return float(self.krr[0])
        return float(np.max(np.abs(np.log(self.W1) - np.log(self.W0))))

    def grouped(self) -> Randomizer:
        """The randomizer on groups of outputs with equal ratio W_1/W_0 (sorted by ratio).

        The grouped histogram is a sufficient statistic for every pair (T_{n,k}, T_{n,k+1}):
        given that an output lands in a group, its symbol has law W_0(·|group) whatever the input
        (paper, "sufficient statistic" remark; k-RR becomes a trinomial).
        """
        labels = self._groups
        G = max(labels) + 1
        w0 = np.bincount(labels, weights=self.W0, minlength=G)
        w1 = np.bincount(labels, weights=self.W1, minlength=G)
        return Randomizer(_readonly(w0), _readonly(w1), f"{self.name} (grouped)", tuple(range(G)), self.inputs,
                          self.krr)

    def __repr__(self) -> str:
        return f"Randomizer({self.name}, W0={np.round(self.W0, 6).tolist()}, W1={np.round(self.W1, 6).tolist()})"


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def _ratio_groups(W0: np.ndarray, W1: np.ndarray) -> tuple[int, ...]:
    lr = np.log(W1) - np.log(W0)
    order = np.argsort(lr, kind="stable")
    labels = np.empty(lr.size, dtype=int)
    g, prev = -1, None
    for i in order:
        if prev is None or not math.isclose(lr[i], prev, rel_tol=1e-12, abs_tol=1e-12):
            g += 1
            prev = lr[i]
        labels[i] = g
    return tuple(int(x) for x in labels)


def randomizer(W0, W1, *, name: str = "custom") -> Randomizer:
    """A local randomizer from two output laws (validated).

    Parameters
    ----------
    W0, W1 : array_like, shape (K,)
        Probability vectors over the same K ≥ 2 outputs, every entry > 0 (the paper's
        full-support assumption), not equal.
    name : str
        Label for legends.

    Returns
    -------
    Randomizer

    Raises
    ------
    TypeError, ValueError
        If W0 or W1 is not a full-support probability vector, sizes differ, or W0 = W1.

    Examples
    --------
    >>> R = randomizer([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
    >>> R.K, round(R.local_epsilon, 4)
    (3, 0.9163)
    """
    w0 = check_probability_vector(W0, "W0", full_support=True)
    w1 = check_probability_vector(W1, "W1", full_support=True)
    if w0.size != w1.size:
        raise ValueError(f"W0 and W1 must have the same length; got {w0.size} and {w1.size}")
    if w0.size < 2:
        raise ValueError(f"W0 and W1 must have at least 2 outputs; got {w0.size}")
    w0, w1 = w0 / w0.sum(), w1 / w1.sum()
    if np.allclose(w0, w1, rtol=0, atol=1e-15):
        raise ValueError("W0 and W1 must differ (otherwise the randomizer reveals nothing and privacy is trivial)")
    return Randomizer(_readonly(w0), _readonly(w1), str(name), _ratio_groups(w0, w1))


def binary_rr(epsilon0: float) -> Randomizer:
    """Binary randomized response: report the true bit with probability e^{ε0}/(1 + e^{ε0}).

    W_0 = (p, 1 − p), W_1 = (1 − p, p) with p = e^{ε0}/(1 + e^{ε0}); χ² = (e^{ε0} − 1)²/e^{ε0}.

    Examples
    --------
    >>> R = binary_rr(1.0)
    >>> [round(float(x), 4) for x in R.W1]
    [0.2689, 0.7311]
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    if e0 > 700:
        raise ValueError(f"epsilon0 must be a finite number > 0 and <= 700; got {epsilon0!r}")
    q = 1.0 / (1.0 + math.exp(e0))  # probability of the flipped answer
    R = randomizer([1.0 - q, q], [q, 1.0 - q], name=f"binary RR (ε0={e0:g})")
    return Randomizer(R.W0, R.W1, R.name, R._groups, 2, (e0, 2))


def k_rr(epsilon0: float, k: int) -> Randomizer:
    """k-ary randomized response; W0, W1 are the output laws of inputs 0 and 1 (symbols 0 and 1 of k).

    The users' inputs range over all k symbols (``inputs = k``): in the worst case over
    neighbouring data sets the other users may hold a third symbol (see
    :func:`dpexplore.shuffle.worst_case_epsilon`). ``k`` ≤ :data:`MAX_ALPHABET`. The true symbol
    is reported with probability e^{ε0}/(e^{ε0} + k − 1), each other symbol with
    1/(e^{ε0} + k − 1). χ² = (e^{ε0} − 1)²(1 + e^{−ε0})/(e^{ε0} + k − 1). ``k_rr(ε0, 2)`` is
    :func:`binary_rr`.

    Examples
    --------
    >>> R = k_rr(1.0, 4)
    >>> R.K, R.grouped().K
    (4, 3)
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    if e0 > 700:
        raise ValueError(f"epsilon0 must be a finite number > 0 and <= 700; got {epsilon0!r}")
    k = check_int(k, "k", low=2, high=MAX_ALPHABET)  # checked before np.full(k, ...)
    d = math.exp(e0) + k - 1
    # = 1/d, written so each row sums to 1 exactly; at ε0 > 30 that form cancels to 0 (then 1/d: the row's sum
    # is 1 to float precision, and the support stays full up to ε0 = 700)
    other = (1.0 - math.exp(e0) / d) / (k - 1) if e0 <= 30 else 1.0 / d
    w0 = np.full(k, other)
    w1 = np.full(k, other)
    w0[0] = w1[1] = math.exp(e0) / d
    R = randomizer(w0, w1, name=f"{k}-RR (ε0={e0:g})" if k > 2 else f"binary RR (ε0={e0:g})")
    return Randomizer(R.W0, R.W1, R.name, R._groups, k, (e0, k))
