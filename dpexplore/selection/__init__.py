"""Course module "Selection": the exponential mechanism, report noisy max, permute-and-flip, and the sparse vector
technique with the broken variants of Lyu, Su & Li (PVLDB 10, 2017).

Rooms as in every package: :mod:`.mechanisms` (the selections and their exact output laws), :mod:`.theory`
(utility bounds and exact expected losses), :mod:`.svt` (SVT, its variants and exact pattern probabilities),
:mod:`.experiments` (one function per measured panel) and :mod:`.audit` (claimed vs exact vs measured ε).
Permute-and-flip and AboveThreshold are :mod:`dpexplore.core`'s, imported, not copied.
"""

from .mechanisms import (
    MAX_CANDIDATES,
    SelectionResult,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    permute_and_flip,
    permute_and_flip_probabilities,
    report_noisy_max,
    report_noisy_max_probabilities,
)
from .svt import SVT_VARIANTS, SVTResult, above_threshold, sparse_vector, svt_variant

__all__ = [
    "MAX_CANDIDATES",
    "SVT_VARIANTS",
    "SVTResult",
    "SelectionResult",
    "above_threshold",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "report_noisy_max",
    "report_noisy_max_probabilities",
    "sparse_vector",
    "svt_variant",
]
