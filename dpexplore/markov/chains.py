"""Markov chains: a validated chain type, built-in example chains, a strict text parser and simulation.

Every function that expects a chain also accepts a plain row-stochastic numpy array (it is
wrapped by :func:`as_chain`, with states named ``"0"``, ``"1"``, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.sparse.csgraph import connected_components

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import (
    check_array,
    check_cells,
    check_choice,
    check_int,
    check_probability,
    check_probability_vector,
    check_real,
    check_stochastic_matrix,
)

__all__ = [
    "MarkovChain",
    "as_chain",
    "check_irreducible",
    "stationary_distribution",
    "entropy_rate",
    "credit_migration",
    "city_grid",
    "web_browsing",
    "parse_matrix",
    "simulate",
    "MAX_PASTED_STATES",
    "MAX_LENGTH",
    "MAX_TRAJECTORY_CELLS",
    "check_states",
    "check_distance_matrix",
]

#: Largest matrix :func:`parse_matrix` accepts by default (the dashboard's bound).
MAX_PASTED_STATES = 30
#: Largest trajectory length T of :func:`simulate` (a Python-level loop over steps).
MAX_LENGTH = 1_000_000
#: Largest size·T of :func:`simulate` (its int64 output: 400 MB at the cap).
MAX_TRAJECTORY_CELLS = 50_000_000


@dataclass(frozen=True, eq=False)
class MarkovChain:
    """A finite Markov chain: a validated row-stochastic matrix with state names.

    Parameters
    ----------
    P : array_like, shape (n, n)
        Transition matrix, ``P[i, j] = P(X_{t+1} = j | X_t = i)``: square, finite, non-negative,
        each row summing to 1 (checked with :func:`dpexplore.core.validation.check_stochastic_matrix`).
    states : sequence of str, optional
        State names (default ``"0"``, ``"1"``, ...).
    name : str
        A label for displays.
    initial : array_like, shape (n,), optional
        Law of the first state; default: the stationary distribution if the chain is irreducible,
        else uniform.

    Raises
    ------
    TypeError, ValueError
        For a matrix that is not row-stochastic, or names/initial law of the wrong length.

    Examples
    --------
    >>> c = MarkovChain([[0.9, 0.1], [0.5, 0.5]], states=("up", "down"))
    >>> c.n, c.states
    (2, ('up', 'down'))
    >>> MarkovChain([[0.9, 0.2], [0.5, 0.5]])
    Traceback (most recent call last):
    ...
    ValueError: P must be row-stochastic (entries >= 0, each row sums to 1); row 0 sums to 1.1
    """

    P: np.ndarray
    states: tuple[str, ...] = field(default=())
    name: str = ""
    initial: np.ndarray | None = None

    def __post_init__(self) -> None:
        P = check_stochastic_matrix(self.P, "P")
        P = P / P.sum(axis=1, keepdims=True)  # remove rounding drift within the validation tolerance
        P.setflags(write=False)
        object.__setattr__(self, "P", P)
        n = P.shape[0]
        states = tuple(str(s) for s in self.states) if len(self.states) else tuple(str(i) for i in range(n))
        if len(states) != n:
            raise ValueError(f"states must name each of the {n} states; got {len(states)} names")
        if len(set(states)) != n:
            raise ValueError("states must be distinct names; got duplicates")
        object.__setattr__(self, "states", states)
        if self.initial is not None:
            init = check_probability_vector(self.initial, "initial")
            if init.size != n:
                raise ValueError(f"initial must have {n} entries (one per state); got {init.size}")
            init = init / init.sum()
            init.setflags(write=False)
            object.__setattr__(self, "initial", init)

    @property
    def n(self) -> int:
        """Number of states."""
        return int(self.P.shape[0])

    @cached_property
    def support(self) -> np.ndarray:
        """Boolean matrix of possible transitions (``P > 0``): the feasible sets N(i) are its rows."""
        return self.P > 0

    @cached_property
    def is_irreducible(self) -> bool:
        """Whether every state can reach every other state (one strongly connected class)."""
        k, _ = connected_components(self.support.astype(np.int8), directed=True, connection="strong")
        return k == 1

    @cached_property
    def initial_law(self) -> np.ndarray:
        """The law of the first state used by :func:`simulate` (``initial`` or the default above)."""
        if self.initial is not None:
            return self.initial
        if self.is_irreducible:
            return stationary_distribution(self)
        return np.full(self.n, 1.0 / self.n)

    def __repr__(self) -> str:
        return f"MarkovChain(n={self.n}, name={self.name!r}, states={self.states[:6]}{'...' if self.n > 6 else ''})"


def as_chain(chain, name: str = "chain") -> MarkovChain:
    """Return ``chain`` as a :class:`MarkovChain` (a plain row-stochastic array is wrapped).

    Examples
    --------
    >>> as_chain([[0.5, 0.5], [1.0, 0.0]]).states
    ('0', '1')
    """
    if isinstance(chain, MarkovChain):
        return chain
    if isinstance(chain, (str, bytes)) or chain is None:
        raise TypeError(f"{name} must be a MarkovChain or a row-stochastic 2-d array; got {type(chain).__name__}")
    return MarkovChain(check_stochastic_matrix(chain, name))  # errors name the caller's parameter


def check_irreducible(chain) -> MarkovChain:
    """Raise ``ValueError`` naming an unreachable pair unless the chain is irreducible.

    The −log P distance between i and j is infinite when j cannot be reached from i, so the
    mechanisms need an irreducible chain. Absorbing states (a credit chain's default state) must be
    handled first: see :func:`credit_migration`'s ``default`` option.

    Examples
    --------
    >>> check_irreducible([[1.0, 0.0], [0.5, 0.5]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: chain must be irreducible (every state reachable from every state); state '0' cannot reach ...
    """
    c = as_chain(chain)
    if c.is_irreducible:
        return c
    from scipy.sparse.csgraph import breadth_first_order

    for i in range(c.n):
        reach = breadth_first_order(c.support.astype(np.int8), i, directed=True, return_predecessors=False)
        if reach.size < c.n:
            j = int(np.setdiff1d(np.arange(c.n), reach)[0])
            raise ValueError(
                "chain must be irreducible (every state reachable from every state); "
                f"state {c.states[i]!r} cannot reach state {c.states[j]!r} "
                "(an absorbing or closed class: drop it and renormalise, or add a restart)"
            )
    return c  # pragma: no cover - unreachable


def stationary_distribution(chain) -> np.ndarray:
    """Stationary law μ (μP = μ, Σμ = 1) of an irreducible chain, by a direct linear solve.

    Examples
    --------
    >>> stationary_distribution([[0.9, 0.1], [0.5, 0.5]]).round(6).tolist()
    [0.833333, 0.166667]
    """
    P = check_irreducible(chain).P  # unique only for an irreducible chain (the message names the pair)
    n = P.shape[0]
    A = P.T - np.eye(n)
    A[-1, :] = 1.0  # replace one (redundant) balance equation by the normalisation
    b = np.zeros(n)
    b[-1] = 1.0
    mu = np.linalg.solve(A, b)
    mu = np.clip(mu, 0.0, None)
    return mu / mu.sum()


def entropy_rate(chain) -> float:
    """The chain's entropy rate H = −Σ_i μ_i Σ_j P_ij log P_ij in **nats per step** (μ stationary).

    Examples
    --------
    >>> round(entropy_rate([[0.5, 0.5], [0.5, 0.5]]), 6)  # log 2
    0.693147
    """
    c = check_irreducible(chain)
    mu = stationary_distribution(c)
    P = c.P
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0 = 0: masked by np.where
        plogp = np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0)
    return float(-(mu @ plogp.sum(axis=1)))


# -- validation of state sequences and distance matrices (shared by the package) --------------------


def check_states(value, name: str, n: int, *, ndim: tuple[int, ...] = (1,), min_length: int = 1) -> np.ndarray:
    """Validate an array of state indices in [0, n − 1] (a trajectory, or a batch of them).

    Integers, or floats that are whole numbers; ``ndim`` lists the accepted dimensions; the last
    axis (time) needs at least ``min_length`` entries. Errors name ``name``, the range and the value.

    Examples
    --------
    >>> check_states([0, 2, 1], "trajectory", 3).tolist()
    [0, 2, 1]
    >>> check_states([0, 3], "trajectory", 3)
    Traceback (most recent call last):
    ...
    ValueError: trajectory must contain state indices in [0, 2]; got 3
    """
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise TypeError(f"{name} must be an array of integer state indices; got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of state indices; got {exc}") from None
    if arr.dtype.kind == "f":
        if not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise TypeError(f"{name} must contain integer state indices; got non-integer or non-finite values")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "b" or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an array of integer state indices; got dtype {arr.dtype}")
    if arr.ndim not in ndim:
        raise ValueError(f"{name} must be a {' or '.join(f'{k}-d' for k in ndim)} array of state indices; "
                         f"got shape {arr.shape}")
    if arr.ndim == 0 or arr.shape[-1] < min_length or arr.size == 0:
        raise ValueError(f"{name} must have at least {min_length} state(s) per trajectory; got shape {arr.shape}")
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 0 or hi >= n:
        raise ValueError(f"{name} must contain state indices in [0, {n - 1}]; got {lo if lo < 0 else hi}")
    return arr.astype(np.int64)


def check_distance_matrix(value, n: int, name: str = "d") -> np.ndarray:
    """Validate an n × n distance matrix: finite, non-negative, symmetric, zero diagonal.

    Examples
    --------
    >>> check_distance_matrix([[0.0, 1.0], [1.0, 0.0]], 2).shape
    (2, 2)
    """
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise TypeError(f"{name} must be a {n} x {n} distance matrix; got {type(value).__name__}")
    arr = check_array(value, name, finite=False, kind=f"a {n} x {n} numeric distance matrix")  # refuses complex
    if arr.shape != (n, n):
        raise ValueError(f"{name} must have shape {(n, n)} (one row per state); got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0)
    if np.any(bad):
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must be finite and non-negative (a distance); got {arr[i, j]} at ({i}, {j})")
    if not np.allclose(arr, arr.T, rtol=1e-9, atol=1e-12) or np.any(np.diag(arr) != 0):
        raise ValueError(f"{name} must be symmetric with a zero diagonal (a distance between states)")
    return arr


# -- built-in chains ---------------------------------------------------------------------------

_CREDIT_STATES = ("AAA", "AA", "A", "BBB", "BB", "B", "CCC", "D")
# Jarrow, Lando & Turnbull (1997), Standard & Poor's one-year transition matrix (rows as published,
# rounded to 4 decimals; each row is renormalised to sum to 1).
_JLT1997 = np.array(
    [
        [0.891, 0.0963, 0.0078, 0.0019, 0.003, 0, 0, 0],
        [0.0086, 0.901, 0.0747, 0.0099, 0.0029, 0.0029, 0, 0],
        [0.0009, 0.0291, 0.8894, 0.0649, 0.0101, 0.0045, 0, 0.0009],
        [0.0006, 0.0043, 0.0656, 0.8427, 0.0644, 0.016, 0.0018, 0.0045],
        [0.0004, 0.0022, 0.0079, 0.0719, 0.7764, 0.1043, 0.0127, 0.0241],
        [0, 0.0019, 0.0031, 0.0066, 0.0517, 0.8246, 0.0435, 0.0685],
        [0, 0, 0.0116, 0.0116, 0.0203, 0.0754, 0.6493, 0.2319],
        [0, 0, 0, 0, 0, 0, 0, 1.0],
    ]
)
# S&P global corporate one-year average transition rates 1981-2016 (%), columns
# AAA AA A BBB BB B CCC/C D NR; the NR column is dropped and rows renormalised.
_SP2016 = np.array(
    [
        [87.05, 9.03, 0.53, 0.05, 0.08, 0.03, 0.05, 0, 3.17],
        [0.52, 86.82, 8, 0.51, 0.05, 0.07, 0.02, 0.02, 3.99],
        [0.03, 1.77, 87.79, 5.33, 0.32, 0.13, 0.02, 0.06, 4.55],
        [0.01, 0.1, 3.51, 85.56, 3.79, 0.51, 0.12, 0.18, 6.23],
        [0.01, 0.03, 0.12, 4.97, 76.98, 6.92, 0.61, 0.72, 9.63],
        [0, 0.03, 0.09, 0.19, 5.15, 74.26, 4.46, 3.76, 12.06],
        [0, 0, 0.13, 0.19, 0.63, 12.91, 43.97, 26.78, 15.39],
    ]
)


def credit_migration(source: str = "jlt1997", *, default: str = "drop", restart: float = 0.05) -> MarkovChain:
    """The one-year credit-rating migration chain (AAA, AA, A, BBB, BB, B, CCC and default D).

    The default state D is **absorbing** in the published matrices, which makes the −log P distance
    from D to any rated state infinite. This function handles it explicitly:

    * ``default="drop"`` (the default): keep the 7 rated states only and renormalise each row over
      them, i.e. condition on "not defaulting this year". The result is irreducible.
    * ``default="restart"``: keep D, and let a defaulted issuer re-enter the rated states with
      probability ``restart`` per year (uniformly over the rated states), staying in D otherwise.

    Parameters
    ----------
    source : {"jlt1997", "sp2016"}
        ``"jlt1997"``: Jarrow, Lando & Turnbull (1997), S&P one-year matrix. ``"sp2016"``: S&P
        global corporate one-year averages 1981–2016 with the "not rated" column dropped and rows
        renormalised.
    default : {"drop", "restart"}
    restart : float
        Probability in (0, 1] that D moves back to a rated state (only for ``default="restart"``).

    Returns
    -------
    MarkovChain

    Examples
    --------
    >>> c = credit_migration()
    >>> c.states
    ('AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'CCC')
    >>> round(float(c.P[0, 0]), 4)
    0.891
    >>> credit_migration(default="restart").n
    8
    """
    check_choice(source, "source", ("jlt1997", "sp2016"))
    check_choice(default, "default", ("drop", "restart"))
    if source == "jlt1997":
        M = _JLT1997[:7].copy()
    else:
        M = _SP2016[:, :8] / 100.0  # drop NR
    M = M / M.sum(axis=1, keepdims=True)  # published rows are rounded (and NR dropped): renormalise
    if default == "drop":
        rated = M[:, :7]
        P = rated / rated.sum(axis=1, keepdims=True)
        return MarkovChain(P, states=_CREDIT_STATES[:7], name=f"credit migration ({source}, default dropped)")
    r = check_probability(restart, "restart", open_low=True)
    d_row = np.concatenate([np.full(7, r / 7.0), [1.0 - r]])
    P = np.vstack([M, d_row])
    return MarkovChain(P, states=_CREDIT_STATES, name=f"credit migration ({source}, default restarts w.p. {r:g})")


def city_grid(
    rows: int = 5,
    cols: int | None = None,
    *,
    stay: float = 0.3,
    arterial_every: int = 3,
    arterial_weight: float = 4.0,
) -> MarkovChain:
    """A city-grid traffic chain: a car's intersection, one step per signal cycle.

    The state is the intersection (r, c) of a ``rows`` × ``cols`` street grid. Each step the car
    waits at its light with probability ``stay`` and otherwise drives to one of the (up to 4)
    adjacent intersections, with turn probabilities proportional to the road's weight: streets on
    every ``arterial_every``-th row or column are arterials with weight ``arterial_weight``, the
    others weight 1. (The paper's Gainesville data are not public in a usable form; this is a
    synthetic stand-in with the same structure: sparse feasible sets and non-uniform turns.)

    Examples
    --------
    >>> g = city_grid(3)
    >>> g.n, g.states[4]
    (9, '(1,1)')
    >>> int(g.support[4].sum())  # wait + 4 neighbours
    5
    """
    rows = check_int(rows, "rows", low=2, high=100)
    cols = rows if cols is None else check_int(cols, "cols", low=2, high=100)
    stay = check_probability(stay, "stay", open_low=True, open_high=True)
    every = check_int(arterial_every, "arterial_every", low=1)
    w_art = check_real(arterial_weight, "arterial_weight", low=0.0, low_open=True)
    n = rows * cols
    P = np.zeros((n, n))
    for r in range(rows):
        for c in range(cols):
            i = r * cols + c
            moves = []
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    # a vertical move runs along column c, a horizontal one along row r
                    arterial = (c % every == 0) if dr else (r % every == 0)
                    moves.append((rr * cols + cc, w_art if arterial else 1.0))
            total = sum(w for _, w in moves)
            P[i, i] = stay
            for j, w in moves:
                P[i, j] = (1.0 - stay) * w / total
    names = tuple(f"({r},{c})" for r in range(rows) for c in range(cols))
    return MarkovChain(P, states=names, name=f"city grid {rows}×{cols}")


def web_browsing(n_pages: int = 20, *, links_per_page: int = 4, zipf: float = 1.0, rng: RNGLike = 0) -> MarkovChain:
    """A synthetic web-browsing chain: a reader clicking links between ``n_pages`` pages.

    Page i links to page i+1 (a ring, so every page is reachable) and to ``links_per_page − 1``
    other pages drawn with probability ∝ popularity (Zipf weights 1/rank^zipf). A reader clicks a
    link with probability ∝ the target's popularity. Deterministic for a given ``rng`` (default 0).
    A stand-in for Wikispeedia (see :func:`dpexplore.markov.load_wikispeedia` for the real data).

    Examples
    --------
    >>> w = web_browsing(10, rng=0)
    >>> w.n, w.is_irreducible
    (10, True)
    """
    n = check_int(n_pages, "n_pages", low=3, high=2000)
    k = check_int(links_per_page, "links_per_page", low=1, high=n - 1)
    a = check_real(zipf, "zipf", low=0.0)
    gen = as_generator(rng)
    pop = 1.0 / np.arange(1, n + 1) ** a
    P = np.zeros((n, n))
    for i in range(n):
        targets = {(i + 1) % n}
        weights = pop.copy()
        weights[i] = 0.0
        weights[list(targets)] = 0.0
        extra = gen.choice(n, size=k - 1, replace=False, p=weights / weights.sum()) if k > 1 else []
        targets.update(int(t) for t in extra)
        idx = np.array(sorted(targets))
        P[i, idx] = pop[idx] / pop[idx].sum()
    return MarkovChain(P, states=tuple(f"page{i:02d}" for i in range(n)), name=f"web browsing ({n} pages)")


# -- a strict text parser for pasted matrices -------------------------------------------------------

_NUMBER = re.compile(r"^[+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def parse_matrix(text: str, *, max_states: int = MAX_PASTED_STATES) -> MarkovChain:
    """Parse a pasted transition matrix (no ``eval``): one row per line, numbers split by spaces or commas.

    Rows may also be separated by ``;``. Blank lines and lines starting with ``#`` are ignored.
    Every entry must be a plain non-negative decimal number (``0.25``, ``1e-3``, ``.5``); the
    matrix is then validated with :func:`~dpexplore.core.validation.check_stochastic_matrix`.

    Parameters
    ----------
    text : str
    max_states : int
        Largest accepted number of states (bounds the dashboard's cost).

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        Naming the row and entry of anything that is not a number, ragged rows, too many states,
        or a matrix that is not row-stochastic.

    Examples
    --------
    >>> parse_matrix("0.9 0.1\\n0.5, 0.5").P.tolist()
    [[0.9, 0.1], [0.5, 0.5]]
    >>> parse_matrix("0.9 0.1\\n0.5 x")
    Traceback (most recent call last):
    ...
    ValueError: matrix row 2, entry 2: 'x' is not a non-negative decimal number
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}")
    max_states = check_int(max_states, "max_states", low=1)
    if len(text) > 40 * max_states * max_states + 1000:
        raise ValueError(f"matrix text is too long ({len(text)} characters) for at most {max_states} states")
    lines = [ln.strip() for part in text.splitlines() for ln in part.split(";")]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if not lines:
        raise ValueError("matrix is empty: paste one row per line, e.g. '0.9 0.1' then '0.5 0.5'")
    if len(lines) > max_states:
        raise ValueError(f"matrix must have at most {max_states} states; got {len(lines)} rows")
    rows = []
    for r, line in enumerate(lines, start=1):
        tokens = [t for t in re.split(r"[,\s]+", line) if t]
        if len(tokens) > max_states:
            raise ValueError(f"matrix must have at most {max_states} states; row {r} has {len(tokens)} entries")
        row = []
        for c, tok in enumerate(tokens, start=1):
            if not _NUMBER.match(tok):
                raise ValueError(f"matrix row {r}, entry {c}: {tok[:20]!r} is not a non-negative decimal number")
            row.append(float(tok))
        rows.append(row)
    width = len(rows[0])
    for r, row in enumerate(rows, start=1):
        if len(row) != width:
            raise ValueError(f"matrix rows must all have the same length; row 1 has {width} entries, row {r} has "
                             f"{len(row)}")
    if width != len(rows):
        raise ValueError(f"matrix must be square (one row per state); got {len(rows)} rows of {width} entries")
    return MarkovChain(np.array(rows), name=f"pasted {len(rows)}-state chain")


# -- simulation ---------------------------------------------------------------------------------------


def simulate(chain, length: int, *, initial=None, size: int | None = None, rng: RNGLike = None) -> np.ndarray:
    """Simulate a sensitive state trajectory s_0, …, s_{T−1} of the chain.

    Parameters
    ----------
    chain : MarkovChain or array_like
    length : int
        1 ≤ T ≤ ``MAX_LENGTH`` (10⁶); size·T ≤ ``MAX_TRAJECTORY_CELLS`` (5·10⁷).
    initial : int or array_like, optional
        A starting state index, or a law of s_0 (default: ``chain.initial_law``).
    size : int, optional
        Number of independent trajectories; the result is then an array of shape (size, T).
    rng : Generator, int or None

    Returns
    -------
    ndarray of int, shape (T,) or (size, T)

    Examples
    --------
    >>> simulate([[0.0, 1.0], [1.0, 0.0]], 5, initial=0, rng=0).tolist()
    [0, 1, 0, 1, 0]
    """
    T = check_int(length, "length", low=1, high=MAX_LENGTH)
    m = 1 if size is None else check_int(size, "size", low=1, high=MAX_TRAJECTORY_CELLS)
    check_cells(MAX_TRAJECTORY_CELLS, size=m, length=T)  # the (size, T) int64 output: 400 MB at the cap
    c = as_chain(chain)
    gen = as_generator(rng)
    if initial is None:
        law = c.initial_law
    elif isinstance(initial, (int, np.integer)) and not isinstance(initial, bool):
        start = check_int(initial, "initial", low=0, high=c.n - 1)
        law = np.zeros(c.n)
        law[start] = 1.0
    else:
        law = check_probability_vector(initial, "initial")
        if law.size != c.n:
            raise ValueError(f"initial must have {c.n} entries; got {law.size}")
    cdf = np.cumsum(c.P, axis=1)
    out = np.empty((m, T), dtype=np.int64)
    out[:, 0] = np.minimum(np.searchsorted(np.cumsum(law), gen.random(m) * law.sum(), side="right"), c.n - 1)
    for t in range(1, T):
        rows = cdf[out[:, t - 1]]
        u = gen.random(m)[:, None] * rows[:, -1:]
        out[:, t] = np.minimum((rows <= u).sum(axis=1), c.n - 1)
    return out[0] if size is None else out
