"""Private ERM by objective perturbation: QOP (exact and inexact solves), LOP and clipped LOP.

Each mechanism returns an :class:`ERMResult` with the private θ, the (ε, δ) it spends, the split
of that budget and diagnostics (noise scales, step, Wishart spectrum). Calibration lives in
:mod:`dpexplore.erm.calibration`; solvers in :mod:`dpexplore.erm.solvers`. The mechanisms are in
:mod:`~dpexplore.erm.mechanisms.perturbation`, the comparisons and risk sweeps over them in
:mod:`~dpexplore.erm.mechanisms.sweeps`; this package re-exports both.

Sensitivity constants are **public**: every mechanism takes a public bound ``feature_bound`` ξ
on the row norms (default 1, a constant: never derived from the data) and rescales any example with ‖x_i‖ > ξ to norm ξ
(:func:`~dpexplore.erm.problems.clip_examples`, a per-row map, so DP is kept); the smoothness is
then L = ξ² (or a larger public ``smoothness``: the authors' reference code uses ``L = dξ²``).
LOP also takes a public ``label_bound`` B (labels are clipped to [−B, B]) and calibrates to
ζ = ξ(√d κ ξ + B) (:func:`~dpexplore.erm.problems.box_gradient_bound`). So the released ε and
every noise scale are the same on neighbouring data sets. For :func:`~dpexplore.erm.interpolation_data`
the public bounds are ``feature_bound=xi`` and ``label_bound=interpolation_label_bound(xi)``.

.. warning:: NumPy's generator is not cryptographically secure: teaching only.
"""

from __future__ import annotations

from .perturbation import (  # noqa: F401 - _qop_inexact_setup, _wishart: importable here as before
    MAX_EPSILON,
    MAX_M,
    MAX_TRIALS,
    MAX_WISHART_CELLS,
    SOLVERS,
    ERMResult,
    UncertifiedReleaseError,
    _qop_inexact_setup,
    _wishart,
    lop,
    lop_clipped,
    qop,
    qop_inexact,
)
from .sweeps import InexactSweep, MechanismComparison, compare_mechanisms, qop_inexact_risk_sweep, qop_risk_sweep

__all__ = ["ERMResult", "UncertifiedReleaseError", "MechanismComparison", "InexactSweep", "qop", "qop_inexact",
           "lop", "lop_clipped", "compare_mechanisms", "qop_risk_sweep", "qop_inexact_risk_sweep", "SOLVERS",
           "MAX_EPSILON", "MAX_M", "MAX_TRIALS", "MAX_WISHART_CELLS"]
