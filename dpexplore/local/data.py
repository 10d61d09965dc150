"""The page's data: a generated k-ary sample (answers to a k-choice question).

The generated sample: n people answer a question with k choices; choice j is picked with probability ∝
1/(j + 1)^s (a Zipf law, s = 1.1 by default: a few popular answers and a long tail, the shape of
most-visited-page, favourite-emoji or most-used-word data that RAPPOR and Apple's deployments collect).
It is generated here (no download), from a fixed seed, so every page load and every test sees the same
answers.

The class's own data comes from the class poll's k-choice question (only its randomized reports are stored):
page 14 reads them in the ui layer (``dpexplore.ui.local.read_class_reports``), because ``dpexplore.local``
does not import the classroom.

Examples
--------
>>> x = zipf_answers(1000, k=8)
>>> x.shape, int(x.min()) >= 0, int(x.max()) <= 7
((1000,), True, True)
"""

from __future__ import annotations

import numpy as np

from dpexplore.core.validation import check_int, check_real

from .mechanisms import MAX_K, MAX_N

__all__ = ["DATA_SEED", "MAX_ZIPF_S", "true_counts", "zipf_answers", "zipf_probabilities"]

#: the fixed seed of the generated sample
DATA_SEED = 20_170_816
#: the largest Zipf exponent
MAX_ZIPF_S = 5.0


def zipf_probabilities(k: int, s: float = 1.1) -> np.ndarray:
    """P(j) ∝ 1/(j + 1)^s, j = 0..k−1.

    Examples
    --------
    >>> zipf_probabilities(2, 1.0).round(4).tolist()
    [0.6667, 0.3333]
    """
    k = check_int(k, "k", low=2, high=MAX_K)
    s = check_real(s, "s", low=0.0, high=MAX_ZIPF_S)
    w = 1.0 / np.arange(1, k + 1) ** s
    return w / w.sum()


def zipf_answers(n: int, *, k: int, s: float = 1.1, seed: int = DATA_SEED) -> np.ndarray:
    """n answers in {0..k−1} drawn from :func:`zipf_probabilities` with a fixed seed (the same every call).

    A smaller n is a prefix of a larger one at the same (k, s, seed).

    Examples
    --------
    >>> bool(np.array_equal(zipf_answers(10, k=4), zipf_answers(20, k=4)[:10]))
    True
    """
    n = check_int(n, "n", low=1, high=MAX_N)
    p = zipf_probabilities(k, s)
    seed = check_int(seed, "seed", low=0)
    u = np.random.default_rng(seed).random(n)
    return np.minimum(np.searchsorted(np.cumsum(p), u, side="right"), p.size - 1).astype(np.int64)


def true_counts(values, k: int) -> np.ndarray:
    """How many people hold each value 0..k−1.

    Examples
    --------
    >>> true_counts([0, 2, 2], 3).tolist()
    [1, 0, 2]
    """
    from .mechanisms import _values

    k = check_int(k, "k", low=2, high=MAX_K)
    return np.bincount(_values(values, k), minlength=k)
