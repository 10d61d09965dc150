"""The one place where randomness is normalised (SPEC 7).

Every randomized function in dpexplore takes ``rng: np.random.Generator | int | None`` and calls
:func:`as_generator` once, then passes the resulting Generator down to every random step.
The global ``np.random`` state is never used.

.. warning::
   NumPy's PCG64 generator is seedable and statistically good, but it is **not a
   cryptographically secure** source of randomness. dpexplore is a teaching tool: never use it
   to protect a real data release.
"""

from __future__ import annotations

import numbers
from typing import Union

import numpy as np

from .validation import MAX_COUNT, check_int

__all__ = ["RNGLike", "as_generator", "spawn"]

RNGLike = Union[np.random.Generator, np.random.SeedSequence, int, None]


def as_generator(rng: RNGLike = None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    Parameters
    ----------
    rng : Generator, SeedSequence, int or None
        A Generator is returned unchanged (so callers share one stream); an int or a
        SeedSequence seeds a new PCG64 Generator; None draws fresh OS entropy.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        For anything else (floats, strings, the legacy ``RandomState``).
    ValueError
        For negative integer seeds.

    Examples
    --------
    >>> g = as_generator(0)
    >>> as_generator(g) is g
    True
    >>> float(as_generator(0).random()) == float(as_generator(0).random())
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if int(rng) < 0:
            raise ValueError(f"rng must be a Generator, a SeedSequence, None or an integer seed >= 0; got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        "rng must be a numpy.random.Generator, a SeedSequence, None or an integer seed >= 0; "
        f"got {rng!r} of type {type(rng).__name__}"
    )


def spawn(rng: RNGLike, count: int) -> list[np.random.Generator]:
    """Return ``count`` statistically independent child Generators of ``rng``.

    Uses ``Generator.spawn`` (NumPy's SeedSequence spawning), so the children do not overlap.
    ``count`` is an integer in [0, ``MAX_COUNT``] (one million; ``dpexplore.core.validation``):
    booleans, strings and non-integral floats are refused.

    Examples
    --------
    >>> a, b = spawn(0, 2)
    >>> float(a.random()) != float(b.random())
    True
    """
    count = check_int(count, "count", low=0, high=MAX_COUNT)
    return as_generator(rng).spawn(count)
