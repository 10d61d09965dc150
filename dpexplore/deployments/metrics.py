"""What the TopDown lab measures on one run: error by geographic level and bias by true block size.

Examples
--------
>>> import numpy as np
>>> bias_by_size(np.array([0, 1, 50]), np.array([1, 1, 48]), bins=((0, 0), (1, 2), (3, 100)))
array([ 1.,  0., -2.])
"""

from __future__ import annotations

import numpy as np

__all__ = ["LEVELS", "SIZE_BINS", "bias_by_size", "bin_labels", "rmse"]

#: the geographic levels, top down
LEVELS = ("nation", "state", "county", "block")
#: true block size bins (inclusive ranges) for the bias panel
SIZE_BINS = ((0, 0), (1, 2), (3, 5), (6, 10), (11, 25), (26, 50), (51, 100), (101, 10**9))


def bin_labels(bins=SIZE_BINS) -> tuple[str, ...]:
    """Labels such as ``"0"``, ``"1–2"``, ``"101+"``.

    Examples
    --------
    >>> bin_labels(((0, 0), (1, 2), (3, 10**9)))
    ('0', '1–2', '3+')
    """
    out = []
    for lo, hi in bins:
        out.append(str(lo) if lo == hi else (f"{lo}+" if hi >= 10**9 else f"{lo}–{hi}"))
    return tuple(out)


def bias_by_size(true, released, bins=SIZE_BINS) -> np.ndarray:
    """Mean of (released − true) over the blocks whose true count falls in each bin (NaN for an empty bin).

    Examples
    --------
    >>> bias_by_size(np.array([0, 0]), np.array([2, 0]), bins=((0, 0), (1, 5))).tolist()
    [1.0, nan]
    """
    t = np.asarray(true).ravel()
    diff = np.asarray(released, dtype=np.float64).ravel() - t
    out = np.full(len(bins), np.nan)
    for k, (lo, hi) in enumerate(bins):
        m = (t >= lo) & (t <= hi)
        if m.any():
            out[k] = float(diff[m].mean())
    return out


def rmse(true, released) -> float:
    """Root mean squared error over the cells of one level.

    Examples
    --------
    >>> rmse([0, 0], [3, 4])
    3.5355339059327378
    """
    d = np.asarray(released, dtype=np.float64).ravel() - np.asarray(true, dtype=np.float64).ravel()
    return float(np.sqrt(np.mean(d * d)))
