"""Course module "Why DP": the attacks that motivate differential privacy.

A reconstruction attack (Dinur & Nissim 2003): from many slightly noisy subset counts of a secret column,
a linear program recovers almost every secret bit — unless the noise is of order √n or more, as
differential privacy at a total ε forces. And membership inference on released column means (Homer et
al. 2008; Dwork, Smith, Steinke, Ullman & Vadhan 2015): telling whether a target is in a study from its
published attribute frequencies — bounded by the DP trade-off curve once the means are noised.

Rooms as in every package: :mod:`.data` (secret bits, query families, a population), :mod:`.mechanisms`
(noisy answers and the reconstruction), :mod:`.theory` (the Dinur–Nissim thresholds and the DP bounds),
:mod:`.membership` (the membership attack), :mod:`.experiments` (one function per panel), :mod:`.audit`
(neighbouring pairs and the broken per-query calibration).
"""

from .data import MAX_ATTRIBUTES, MAX_CELLS, MAX_PEOPLE, MAX_QUERIES, secret_bits, subset_queries
from .mechanisms import Reconstruction, Release, answer_queries, exact_release_epsilon, reconstruct
from .membership import MembershipScores, membership_scores, roc_at
from .theory import dp_recovery_bound, gdp_recovery_bound, sqrt_n_threshold

__all__ = [
    "MAX_ATTRIBUTES",
    "MAX_CELLS",
    "MAX_PEOPLE",
    "MAX_QUERIES",
    "MembershipScores",
    "Reconstruction",
    "Release",
    "answer_queries",
    "dp_recovery_bound",
    "exact_release_epsilon",
    "gdp_recovery_bound",
    "membership_scores",
    "reconstruct",
    "roc_at",
    "secret_bits",
    "sqrt_n_threshold",
    "subset_queries",
]
