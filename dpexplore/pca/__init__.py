"""Paper 2: differentially private PCA by adaptive power iteration (Nguyen, Ene & Nguyen 2026).

Rows of A ∈ R^{n×d} are individuals; neighbouring inputs differ in one row (add/remove by default,
replace on request). :func:`adaptive_power_iteration` (Algorithm 1: SVT-chosen row filter + Gaussian
noise scaled by the threshold) against the worst-case :func:`noisy_power_iteration`, Analyze Gauss
(:func:`analyze_gauss`, DTTZ14) and the non-private :func:`power_iteration`; data with set eigengap and
coherence (:mod:`.data`); the theorems as rates (:mod:`.theory`); ``sin2`` as the error metric; audits,
worst-case neighbours and deliberately broken variants in :mod:`.audit` (import it explicitly).
"""

from .data import PCAData, coherence, make_matrix, spiked_gaussian, top_singular
from .mechanisms import (
    PCAResult,
    ThresholdChoice,
    adaptive_calibration,
    adaptive_power_iteration,
    analyze_gauss,
    analyze_gauss_calibration,
    choose_threshold,
    clip_rows,
    default_iterations,
    default_m0,
    filtered_update,
    noisy_power_iteration,
    power_iteration,
    row_scores,
    threshold_grid,
    worst_case_calibration,
    zcdp_budget,
)
from .metrics import sin2
from .theory import TheoryValue, dttz14_bound, theorem_1_1, theorem_1_2

__all__ = [
    "PCAData",
    "PCAResult",
    "TheoryValue",
    "ThresholdChoice",
    "adaptive_calibration",
    "adaptive_power_iteration",
    "analyze_gauss",
    "analyze_gauss_calibration",
    "choose_threshold",
    "clip_rows",
    "coherence",
    "default_iterations",
    "default_m0",
    "dttz14_bound",
    "filtered_update",
    "make_matrix",
    "noisy_power_iteration",
    "power_iteration",
    "row_scores",
    "sin2",
    "spiked_gaussian",
    "theorem_1_1",
    "theorem_1_2",
    "threshold_grid",
    "top_singular",
    "worst_case_calibration",
    "zcdp_budget",
]
