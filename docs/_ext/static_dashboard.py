"""The docs' static fallback for a dashboard: what a page shows, without a kernel behind it.

A rendered docs page has no kernel, and the dashboards draw through :class:`dpexplore.ui.plotpanel.PlotPanel`
(an anywidget that needs the live widget state), so the docs build appends one hidden cell to each
executed notebook that calls :func:`show_static`: it waits until every panel of every dashboard the
notebook built is drawn, then displays the controls' values and each panel's figure as plotly HTML
(interactive: zoom, hover; plotly.js is served from the site's ``_static``). The widget view itself is
removed from the page (``remove-output``): its controls would look live and do nothing.
"""

from __future__ import annotations

import gc
import html

PLOT_CONFIG = {"displaylogo": False, "responsive": True}


def show_static(timeout: float = 600.0) -> int:
    """Display every dashboard of this kernel as static HTML; return how many were shown."""
    import plotly.graph_objects as go
    from IPython.display import HTML, display

    from dpexplore.ui import Dashboard
    from dpexplore.ui.figures import tex_to_html

    boards = [o for o in gc.get_objects() if isinstance(o, Dashboard)]
    for board in boards:
        if not board.wait(timeout):
            raise RuntimeError(f"{type(board).__name__}: the panels were not all drawn within {timeout:.0f} s")
        if board.errors:
            raise RuntimeError(f"{type(board).__name__} shows errors: {board.errors}")
        params = board.params()
        rows = "".join(f"<tr><td>{html.escape(str(c.label))}</td><td><code>{html.escape(repr(params[c.name]))}</code>"
                       "</td></tr>" for c in board.controls if c.name in params)
        display(HTML("<div class='dpx-static-note'><p><b>Static snapshot</b> of the dashboard at its default view "
                     "(plots are interactive: zoom and hover; the controls need a live kernel: run it with "
                     "<code>dpexplore-serve</code> or on Binder).</p>"
                     f"<details><summary>Control values of this snapshot</summary><table>{rows}</table>"
                     "</details></div>"))
        for panel in board.panels:
            fig = go.Figure(board.figures[panel.name])  # a copy, sized by the page instead of the dashboard
            fig.update_layout(width=None, autosize=True)
            caption = f"<p>{tex_to_html(panel.caption)}</p>" if panel.caption else ""
            display(HTML(f"<h4 class='dpx-static-panel'>{tex_to_html(html.escape(panel.title))}</h4>{caption}"
                         + fig.to_html(include_plotlyjs=False, full_html=False, config=PLOT_CONFIG)))
    if not boards:
        display(HTML("<div class='dpx-static-note'><p><b>Live only.</b> This page's widgets need a running "
                     "kernel (run it with <code>dpexplore-serve</code>); the docs show its text only.</p></div>"))
    return len(boards)
