"""Course module "Real deployments": a 2020-Census-style TopDown mini-lab and a sourced ε registry.

Rooms: :mod:`.data` (a toy geography generated from a seed), :mod:`.topdown` (discrete-Gaussian
measurements under a ρ-zCDP budget split across levels, then non-negativity, integrality, hierarchical
consistency and exact invariants), :mod:`.metrics`, :mod:`.theory` (exact raw error, a clipping-bias
reference, ρ → (ε, δ)), :mod:`.experiments` (one function per measured panel) and :mod:`.registry`
(documented deployments, each with its source, read in an attacker's terms).
"""

from .data import DEFAULT_SEED, MAX_BLOCKS, MAX_PER_LEVEL, Geography, toy_geography
from .topdown import DEFAULT_DELTA, TopDownResult, fit_to_total, level_rhos, topdown

__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_SEED",
    "MAX_BLOCKS",
    "MAX_PER_LEVEL",
    "Geography",
    "TopDownResult",
    "fit_to_total",
    "level_rhos",
    "topdown",
    "toy_geography",
]
