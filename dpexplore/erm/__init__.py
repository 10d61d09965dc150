"""Paper 5: quadratic objective perturbation (QOP) for private ERM, versus linear objective
perturbation (LOP) and clipped LOP (Cortild & Cartis 2026, arXiv:2605.05905).

Least squares + LASSO over a box in the interpolation regime (:mod:`.problems`), stochastic and
deterministic three-operator splitting solvers (:mod:`.solvers`), the mechanisms
(:mod:`.mechanisms`), their calibration (:mod:`.calibration`) and utility bounds (:mod:`.theory`).
"""

from .calibration import (
    ALPHA1_VARIANTS,
    lop_noise_scale,
    lop_regularization,
    qop_beta,
    qop_output_sigma,
    qop_sigma2,
    wishart_alpha,
    wishart_alpha1,
    wishart_lambda_min_cdf_bound,
    wishart_log_Dm,
)
from .mechanisms import (
    ERMResult,
    InexactSweep,
    MechanismComparison,
    compare_mechanisms,
    lop,
    lop_clipped,
    qop,
    qop_inexact,
    qop_inexact_risk_sweep,
    qop_risk_sweep,
)
from .problems import (
    empirical_risk,
    gradient_bound,
    hessian_rank,
    interpolation_data,
    noisy_anchor,
    objective,
    smoothness_constant,
)
from .solvers import SolverResult, davis_yin, perturbed_objective, reference_solve, stochastic_tos
from .theory import (
    REFERENCE_CONSTANTS,
    REFERENCE_TABLE,
    BoundOptimum,
    lop_noise_vs_radius,
    optimize_qop_exact_bound,
    optimize_qop_inexact_bound,
    qop_exact_bound,
    qop_inexact_bound,
    qop_inexact_utility_bound,
    qop_utility_bound,
    qop_utility_bound_curve,
)

__all__ = [
    "ALPHA1_VARIANTS",
    "BoundOptimum",
    "ERMResult",
    "InexactSweep",
    "MechanismComparison",
    "REFERENCE_CONSTANTS",
    "REFERENCE_TABLE",
    "SolverResult",
    "compare_mechanisms",
    "davis_yin",
    "empirical_risk",
    "gradient_bound",
    "hessian_rank",
    "interpolation_data",
    "lop",
    "lop_clipped",
    "lop_noise_scale",
    "lop_noise_vs_radius",
    "lop_regularization",
    "noisy_anchor",
    "objective",
    "optimize_qop_exact_bound",
    "optimize_qop_inexact_bound",
    "perturbed_objective",
    "qop",
    "qop_beta",
    "qop_exact_bound",
    "qop_inexact",
    "qop_inexact_bound",
    "qop_inexact_utility_bound",
    "qop_output_sigma",
    "qop_inexact_risk_sweep",
    "qop_risk_sweep",
    "qop_sigma2",
    "qop_utility_bound",
    "qop_utility_bound_curve",
    "reference_solve",
    "smoothness_constant",
    "stochastic_tos",
    "wishart_alpha",
    "wishart_alpha1",
    "wishart_lambda_min_cdf_bound",
    "wishart_log_Dm",
]
