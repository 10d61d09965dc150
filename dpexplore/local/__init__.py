"""Course module "The local model": frequency oracles for a value in {0, …, k − 1}, and local vs shuffle vs
central at the same ε.

Rooms as in every module: :mod:`.mechanisms` (k-RR, SUE/basic RAPPOR, OUE, OLH, Hadamard response:
``randomize``, the unbiased ``estimate``, heavy-hitter ``top_k``), :mod:`.theory` (the closed-form
variances of Wang et al. 2017 and each oracle's exact ε from its output law), :mod:`.models` (central
Laplace, local, and shuffled k-RR accounted by paper 4's certified worst case), :mod:`.data` (a generated
Zipf sample; the class-poll hook), :mod:`.metrics`, :mod:`.experiments` (one function per measured panel)
and :mod:`.audit` (claimed vs exact vs measured ε; a broken OUE).
"""

from .mechanisms import (
    MAX_CELLS,
    MAX_EPSILON,
    MAX_K,
    MAX_N,
    ORACLE_NAMES,
    ORACLES,
    EstimateResult,
    LocalResult,
    estimate,
    hadamard_size,
    olh_g,
    oracle_probabilities,
    randomize,
    support_counts,
    top_k,
)
from .theory import count_variance, exact_epsilon, frequency_mse

__all__ = [
    "MAX_CELLS",
    "MAX_EPSILON",
    "MAX_K",
    "MAX_N",
    "ORACLES",
    "ORACLE_NAMES",
    "EstimateResult",
    "LocalResult",
    "count_variance",
    "estimate",
    "exact_epsilon",
    "frequency_mse",
    "hadamard_size",
    "olh_g",
    "oracle_probabilities",
    "randomize",
    "support_counts",
    "top_k",
]
