"""Dashboard kit: the only part of dpexplore that imports ipywidgets and plotly.

``Control`` (a control's range, widget, URL form and server-side clamp), ``Dashboard`` and
``Panel`` (the base class of every paper's dashboard) and pure figure builders in
:mod:`dpexplore.ui.figures`. One module per paper holds that paper's dashboard class.
"""

from .audit import AuditPanel, AuditReport
from .controls import Control
from .dashboard import PRNG_FOOTER, Dashboard, Panel

__all__ = ["PRNG_FOOTER", "AuditPanel", "AuditReport", "Control", "Dashboard", "Panel"]
