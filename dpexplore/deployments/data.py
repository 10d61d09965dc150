"""A toy geography for the TopDown mini-lab: nation → states → counties → blocks, generated from a seed.

No real Census data is shipped or downloaded: the counts are **generated** by :func:`toy_geography`, the
same for the same seed on every machine (NumPy's PCG64 from ``seed``). Why it is realistic enough for
the lesson: real census blocks are mostly tiny (in 2010 a large share of US blocks had 0–10 residents)
while a few hold hundreds, and counties differ in size by orders of magnitude. The generator draws a
log-normal size for each county and splits it over its blocks with a skewed (Dirichlet with a small
concentration) share, so many blocks hold 0–5 people and a few hold hundreds. It is not the Bureau's
data and its numbers are not the Bureau's errors; what carries over is the *shape*: the bias
post-processing adds is largest, relative to the count, for the smallest areas.

Examples
--------
>>> g = toy_geography(seed=0)
>>> g.blocks.shape, int(g.blocks.sum()) == g.nation
((4, 5, 10), True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import as_generator
from dpexplore.core.validation import check_int, check_real

__all__ = [
    "DEFAULT_SEED",
    "MAX_BLOCKS",
    "MAX_PER_LEVEL",
    "Geography",
    "toy_geography",
]

#: the page's geography seed (said on the page)
DEFAULT_SEED = 2020
#: at most this many children per parent at each level
MAX_PER_LEVEL = 64
#: at most this many blocks in all
MAX_BLOCKS = 20_000


@dataclass(frozen=True)
class Geography:
    """True counts at every level; ``blocks[s, c, b]`` is block b of county c of state s.

    Attributes
    ----------
    blocks : ndarray of int64, shape (states, counties, blocks)
    seed : int
        The generator's seed (the geography is a pure function of it and the shape).
    """

    blocks: np.ndarray
    seed: int

    @property
    def counties(self) -> np.ndarray:
        """County totals, shape (states, counties)."""
        return self.blocks.sum(axis=2)

    @property
    def states(self) -> np.ndarray:
        """State totals, shape (states,)."""
        return self.blocks.sum(axis=(1, 2))

    @property
    def nation(self) -> int:
        """The nation's total."""
        return int(self.blocks.sum())

    def level(self, name: str) -> np.ndarray:
        """The counts of one level (``"nation"``, ``"state"``, ``"county"``, ``"block"``) as a flat array."""
        table = {"nation": lambda: np.array([self.nation]), "state": lambda: self.states,
                 "county": lambda: self.counties.ravel(), "block": lambda: self.blocks.ravel()}
        if name not in table:
            raise ValueError(f"level must be one of {list(table)}; got {name!r}")
        return np.asarray(table[name](), dtype=np.int64)


def toy_geography(n_states: int = 4, n_counties: int = 5, n_blocks: int = 10, *, median_county: float = 400.0,
                  seed: int = DEFAULT_SEED) -> Geography:
    """A deterministic toy geography (``n_states`` × ``n_counties`` × ``n_blocks``).

    Parameters
    ----------
    n_states, n_counties, n_blocks : int
        Children per parent, each in [1, MAX_PER_LEVEL]; the product is at most ``MAX_BLOCKS``.
    median_county : float
        Median county population, in [1, 10⁶]; county sizes are log-normal with σ = 1 around it.
    seed : int
        The geography's seed (≥ 0); the counts are a pure function of the arguments.

    Returns
    -------
    Geography

    Notes
    -----
    County c's population N_c = round(median·e^{Z}), Z ~ N(0, 1); its blocks get
    Multinomial(N_c, w) with w ~ Dirichlet(0.6, ..., 0.6): a skewed split, so small blocks are common.

    Examples
    --------
    >>> g = toy_geography(2, 2, 3, seed=1)
    >>> g.blocks.shape, g.states.shape
    ((2, 2, 3), (2,))
    >>> bool((toy_geography(2, 2, 3, seed=1).blocks == g.blocks).all())
    True
    """
    s = check_int(n_states, "n_states", low=1, high=MAX_PER_LEVEL)
    c = check_int(n_counties, "n_counties", low=1, high=MAX_PER_LEVEL)
    b = check_int(n_blocks, "n_blocks", low=1, high=MAX_PER_LEVEL)
    check_int(s * c * b, "n_states*n_counties*n_blocks", low=1, high=MAX_BLOCKS)
    med = check_real(median_county, "median_county", low=1.0, high=1e6)
    sd = check_int(seed, "seed", low=0)
    gen = as_generator(sd)
    sizes = np.rint(med * np.exp(gen.standard_normal((s, c)))).astype(np.int64)
    blocks = np.empty((s, c, b), dtype=np.int64)
    for i in range(s):
        for j in range(c):
            w = gen.dirichlet(np.full(b, 0.6))
            blocks[i, j] = gen.multinomial(int(sizes[i, j]), w)
    return Geography(blocks=blocks, seed=sd)
