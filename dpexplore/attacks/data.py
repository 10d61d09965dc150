"""The data of the attacks module: a secret column of n bits, subset-count queries, and a population of
people with d 0/1 attributes (allele-frequency-style columns) for membership inference.

Everything here is generated (no download): the secret bits are fair coins (the uniform prior under which
:func:`dpexplore.attacks.theory.dp_recovery_bound` holds), the population's attribute frequencies are drawn
from Uniform(0.05, 0.95) (a stand-in for minor-allele frequencies, as in Homer et al. 2008's simulations:
what matters for the attack is only that the attacker knows them approximately), and the people are
independent rows of Bernoulli(p_j) attributes.

Examples
--------
>>> subset_queries(4, 3, rng=0).shape
(3, 4)
>>> secret_bits(5, rng=0).tolist()
[0, 1, 1, 1, 0]
"""

from __future__ import annotations

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_array, check_cells, check_choice, check_int, check_real

__all__ = [
    "MAX_ANSWERS",
    "MAX_ATTRIBUTES",
    "MAX_CELLS",
    "MAX_PEOPLE",
    "MAX_QUERIES",
    "QUERY_FAMILIES",
    "check_bits",
    "check_queries",
    "class_secret_bits",
    "population_frequencies",
    "sample_people",
    "secret_bits",
    "subset_queries",
]

#: the most people (secret bits) n a reconstruction takes
MAX_PEOPLE = 2000
#: the most queries m
MAX_QUERIES = 20_000
#: the largest query matrix m·n (entries; also bounds the linear program's size)
MAX_CELLS = 4_000_000
#: the most attributes d of a membership-inference release
MAX_ATTRIBUTES = 100_000
#: the most answers :func:`class_secret_bits` takes (a class poll's stored answers)
MAX_ANSWERS = 100_000
#: the query families of :func:`subset_queries`
QUERY_FAMILIES = ("random", "prefix", "hadamard")


def secret_bits(n: int, *, p: float = 0.5, rng: RNGLike = None) -> np.ndarray:
    """n secret bits, each 1 with probability ``p`` (independently): the column the attacker wants.

    Examples
    --------
    >>> secret_bits(8, rng=1).sum()
    np.int64(4)
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    p = check_real(p, "p", low=0.0, high=1.0)
    return (as_generator(rng).random(n) < p).astype(np.int64)


def class_secret_bits(answers, n: int, *, rng: RNGLike = None) -> np.ndarray:
    """A roster of n people whose secret bits are a class's answers (e.g. the class poll's stored answers).

    With k answers, each answer is the bit of ⌊n/k⌋ people and n mod k answers (a random choice) of one
    more; the roster is then shuffled. With k ≥ n that is n of the answers drawn without replacement. So the
    roster's number of 1s is the class's scaled to n people, up to the n mod k extra draws (between
    ⌊n/k⌋·ones and ⌊n/k⌋·ones + min(ones, n mod k)). A class poll stores randomized answers: these are the
    bits as stored, not anyone's true answer.

    Parameters
    ----------
    answers : sequence of 0/1 (or bool)
        The class's answers, 1 ≤ k ≤ ``MAX_ANSWERS``.
    n : int
        People on the roster, 1 ≤ n ≤ ``MAX_PEOPLE``.
    rng : Generator, int or None
        Who gets which answer.

    Returns
    -------
    ndarray of int64, shape (n,)

    Raises
    ------
    TypeError, ValueError
        ``answers`` is not a 1-d sequence of 0/1 values, is empty or longer than ``MAX_ANSWERS``; n out of
        range.

    Examples
    --------
    >>> bits = class_secret_bits([1, 0, 0, 1], 10, rng=0)
    >>> bits.size, int(bits.sum()) in (4, 5, 6)
    (10, True)
    >>> int(class_secret_bits([1, 1, 1], 7, rng=0).sum())
    7
    >>> class_secret_bits([0, 2], 5)
    Traceback (most recent call last):
    ...
    ValueError: answers must contain only 0/1 values; got 2.0
    """
    if np.ndim(answers) == 1 and np.size(answers) > MAX_ANSWERS:
        raise ValueError(f"answers must have at most {MAX_ANSWERS} entries; got {np.size(answers)}")
    a = check_array(answers, "answers", ndim=1, min_size=1, allow_bool=True, kind="a 1-d array of 0/1 values")
    if np.any((a != 0) & (a != 1)):
        raise ValueError(f"answers must contain only 0/1 values; got {float(a[(a != 0) & (a != 1)][0])!r}")
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    g = as_generator(rng)
    k = a.size
    extra = g.choice(k, size=n % k, replace=False)
    roster = np.concatenate([np.tile(a, n // k), a[extra]]).astype(np.int64)
    return g.permutation(roster)


def subset_queries(n: int, m: int, *, family: str = "random", rng: RNGLike = None) -> np.ndarray:
    """An m × n 0/1 query matrix: row i asks "how many people in subset S_i have the secret bit 1?".

    Parameters
    ----------
    n, m : int
        People and queries (1 ≤ n ≤ ``MAX_PEOPLE``, 1 ≤ m ≤ ``MAX_QUERIES``, m·n ≤ ``MAX_CELLS``).
    family : {"random", "prefix", "hadamard"}
        ``"random"``: each person in each subset with probability 1/2 (Dinur & Nissim's random queries);
        ``"prefix"``: S_i = the first 1 + (i mod n) people (the n prefix counts, cycled);
        ``"hadamard"``: rows of (H + 1)/2 for the Sylvester–Hadamard matrix H of the smallest order
        2^k ≥ n, first n columns, cycled if m > 2^k (0/1 rows, pairwise "half-overlapping").
    rng : Generator, int or None
        Used by ``"random"`` only.

    Returns
    -------
    ndarray of int8, shape (m, n)

    Raises
    ------
    ValueError
        n, m or m·n out of range, unknown family.

    Examples
    --------
    >>> subset_queries(3, 4, family="prefix").tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 0]]
    >>> subset_queries(3, 2, family="hadamard").tolist()
    [[1, 1, 1], [1, 0, 1]]
    """
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    m = check_int(m, "m", low=1, high=MAX_QUERIES)
    check_cells(MAX_CELLS, m=m, n=n)
    fam = check_choice(family, "family", QUERY_FAMILIES)
    if fam == "random":
        return (as_generator(rng).random((m, n)) < 0.5).astype(np.int8)
    if fam == "prefix":
        lengths = 1 + np.arange(m) % n
        return (np.arange(n)[None, :] < lengths[:, None]).astype(np.int8)
    order = 1
    while order < n:
        order *= 2
    rows = np.arange(m) % order
    # Sylvester: H[i, j] = (-1)^popcount(i & j); (H + 1)/2 = 1 where popcount is even
    both = rows[:, None] & np.arange(n)[None, :]
    parity = np.zeros(both.shape, dtype=np.int64)
    while np.any(both):
        parity ^= both & 1
        both = both >> 1
    return (1 - parity).astype(np.int8)


def check_queries(queries, name: str = "queries", *, n: int | None = None) -> np.ndarray:
    """Validate a 0/1 query matrix (m × n within the public maxima); return it as float64.

    Examples
    --------
    >>> check_queries([[0, 1], [1, 1]]).shape
    (2, 2)
    >>> check_queries([[0, 2]])
    Traceback (most recent call last):
    ...
    ValueError: queries must contain only 0/1 entries; got 2.0 at row 0, column 1
    """
    arr = np.asarray(queries) if isinstance(queries, np.ndarray) else queries
    shape = np.shape(arr) if not isinstance(arr, (str, bytes)) else ()
    if len(shape) == 2:  # refuse oversize input before converting it
        check_int(shape[1], f"{name}'s number of columns n", low=1, high=MAX_PEOPLE)
        check_int(shape[0], f"{name}'s number of rows m", low=1, high=MAX_QUERIES)
        check_cells(MAX_CELLS, m=shape[0], n=shape[1])
    a = check_array(arr, name, ndim=2, min_size=1, allow_bool=True, kind="a 2-d array of 0/1 values")
    bad = (a != 0) & (a != 1)
    if np.any(bad):
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must contain only 0/1 entries; got {float(a[i, j])!r} at row {i}, column {j}")
    if n is not None and a.shape[1] != n:
        raise ValueError(f"{name} must have n = {n} columns (one per person); got shape {a.shape}")
    return a


def check_bits(bits, name: str = "secret") -> np.ndarray:
    """Validate a vector of n 0/1 values (1 ≤ n ≤ ``MAX_PEOPLE``); return it as int64.

    Examples
    --------
    >>> check_bits([1, 0, 1]).tolist()
    [1, 0, 1]
    """
    if np.ndim(bits) == 1 and np.size(bits) > MAX_PEOPLE:
        raise ValueError(f"{name} must have at most {MAX_PEOPLE} entries (people); got {np.size(bits)}")
    a = check_array(bits, name, ndim=1, min_size=1, allow_bool=True, kind="a 1-d array of 0/1 values")
    if np.any((a != 0) & (a != 1)):
        raise ValueError(f"{name} must contain only 0/1 values; got {float(a[(a != 0) & (a != 1)][0])!r}")
    return a.astype(np.int64)


def population_frequencies(d: int, *, low: float = 0.05, high: float = 0.95, rng: RNGLike = None) -> np.ndarray:
    """The population's frequency p_j of attribute j = 1, for d attributes: Uniform(low, high).

    Examples
    --------
    >>> p = population_frequencies(1000, rng=0)
    >>> bool(p.min() >= 0.05 and p.max() <= 0.95)
    True
    """
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    lo = check_real(low, "low", low=0.0, high=1.0)
    hi = check_real(high, "high", low=lo, high=1.0)
    return as_generator(rng).uniform(lo, hi, d)


def sample_people(frequencies, k: int, *, rng: RNGLike = None) -> np.ndarray:
    """k people from the population: a k × d 0/1 matrix, attribute j ~ Bernoulli(p_j), independently.

    Examples
    --------
    >>> sample_people([0.0, 1.0], 2, rng=0).tolist()
    [[0, 1], [0, 1]]
    """
    p = check_array(frequencies, "frequencies", ndim=1, min_size=1, max_size=MAX_ATTRIBUTES)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("frequencies must lie in [0, 1]")
    k = check_int(k, "k", low=1, high=MAX_PEOPLE)
    check_cells(MAX_CELLS, k=k, d=p.size)
    return (as_generator(rng).random((k, p.size)) < p).astype(np.int8)
