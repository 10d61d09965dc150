"""Course module "Private machine learning": DP-SGD with clipping, subsampling amplification, accounting,
and an audit that catches a wrong ε.

Rooms: :mod:`.data` (the breast-cancer data set scikit-learn ships, read without importing scikit-learn),
:mod:`.accounting` (ε of T subsampled Gaussian steps by PLD / RDP through ``dp_accounting``, without
amplification, by basic composition), :mod:`.mechanisms` (numpy models, per-example gradients, DP-SGD, plain
SGD), :mod:`.audit` (the gradient-canary audit and broken variants), :mod:`.experiments` (one function per
panel of the page).
"""

from .accounting import ACCOUNTANTS, dpsgd_epsilon, epsilon_vs_steps
from .audit import DPSGDAudit, audit_dpsgd
from .data import TabularData, breast_cancer
from .mechanisms import DPSGDResult, accuracy, dp_sgd, sgd

__all__ = ["ACCOUNTANTS", "DPSGDAudit", "DPSGDResult", "TabularData", "accuracy", "audit_dpsgd", "breast_cancer",
           "dp_sgd", "dpsgd_epsilon", "epsilon_vs_steps", "sgd"]
