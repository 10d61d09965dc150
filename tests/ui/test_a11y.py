"""Kit-level accessibility without a browser: plot summaries and data tables follow the controls, series
are told apart without colour, and text keeps WCAG AA contrast while a panel is dimmed."""

import numpy as np
import plotly.graph_objects as go
import pytest

from dpexplore.core.plottext import Series, blend, contrast_ratio, describe_series, summarize, table_rows
from dpexplore.ui import Control, Dashboard, Panel, a11y
from dpexplore.ui import figures as F


class Curves(Dashboard):
    title = "Curves"
    controls = [Control("slope", "slope (per unit)", "float", 1.0, -2.0, 2.0, help="how steep the line is")]
    panels = [Panel("line", "A line"), Panel("empty", "Nothing")]

    def figure(self, panel, p):
        if panel == "empty":
            return F.message_figure("Nothing", "nothing to see")
        x = np.array([1.0, 2.0, 4.0])
        fig = F.base_figure("A line", "ε", "error")
        F.add_measured(fig, x, 1 + p["slope"] * x, 0.9 + p["slope"] * x, 1.1 + p["slope"] * x,
                       name="mech", color=F.color_for(0), trials=4)
        F.add_theory(fig, x, 2 + 0 * x, name="flat", kind="bound", color=F.color_for(1))
        F.add_theory(fig, x, 3 + 0 * x, name="flat too", kind="bound", color=F.color_for(2))
        return fig


def test_summary_and_table_follow_the_controls():
    d = Curves(query_string="", render=False, background=False)
    text = d.a11y.texts["line"]
    assert text.summary_text.startswith("A line. mech (measured): error rises from 2 at "
                                        "ε = 1 to 5 at ε = 4")
    assert "flat [bound]: error stays at 2 from ε = 1 to ε = 4" in text.summary_text
    before = text.summary_text
    d.set_params(slope=-1.0)
    assert text.summary_text != before and "falls from 0 at ε = 1 to -3 at ε = 4" in text.summary_text
    assert text.table.value == ""  # the table is built only when asked for
    text.toggle.value = True
    assert "<th scope='col'>lower 95%</th>" in text.table.value and "<td>-3.1</td>" in text.table.value
    d.set_params(slope=0.5)  # an open table follows the controls too
    assert "<td>3</td>" in text.table.value and "<td>-3.1</td>" not in text.table.value
    assert "Nothing. Nothing is plotted at these settings. Notes in the plot: nothing to see" == \
        d.a11y.texts["empty"].summary_text


def test_every_panel_box_holds_its_plot_text_and_the_page_holds_the_bridge():
    d = Curves(query_string="", render=False, background=False)
    for name, box in d._panel_boxes.items():
        assert d.a11y.texts[name] in box.children[1].children and "dpx-panel" in box._dom_classes
    assert d.a11y.bridge in d.children[0].children
    assert "dpx-status" in d._status._dom_classes


def test_series_get_distinct_symbols_consistent_per_colour():
    d = Curves(query_string="", render=False, background=False)
    fig = d.figures["line"]
    shown = [t for t in fig.data if t.fill != "toself"]
    symbols = [t.marker.symbol for t in shown]
    assert symbols == [a11y.SYMBOLS[0], a11y.SYMBOLS[1], a11y.SYMBOLS[2]]
    assert all("markers" in t.mode for t in shown)
    # the same colour in another figure gets the same symbol
    other = a11y.style_series(go.Figure([go.Scatter(x=[1], y=[1], mode="lines", line={"color": F.color_for(2)})]))
    assert other.data[0].marker.symbol == a11y.SYMBOLS[2]
    # a dashboard's own symbol is kept
    own = a11y.style_series(go.Figure([go.Scatter(x=[1], y=[1], mode="markers", marker={"symbol": "star"})]))
    assert own.data[0].marker.symbol == "star"


def test_bars_get_patterns():
    fig = go.Figure([go.Bar(x=["a", "b"], y=[1, 2]), go.Bar(x=["a", "b"], y=[2, 1])])
    assert [t.marker.pattern.shape for t in a11y.style_series(fig).data] == list(a11y.PATTERNS[:2])


def test_describe_series_edge_cases():
    assert describe_series(Series("gap", [1, 2, 3], [np.nan, np.nan, np.nan])) == ""
    assert describe_series(Series("one", [1, 2], [np.nan, 0.5], x_title="n")).startswith("one: 0.5 at n = 2")
    assert "highest 3 at b, lowest 1 at a" in describe_series(Series("bars", ["a", "b"], [1, 3], kind="bar"))
    assert "heatmap of values from 0 to 3" in describe_series(Series("h", kind="heatmap", z=[[0, 1], [2, 3]]))
    s = summarize("T", [Series(f"s{i}", [0, 1], [0, i]) for i in range(12)], max_series=3)
    assert s.endswith("and 9 more series (see the data table).")
    _, rows, left = table_rows([Series("long", list(range(10)), list(range(10)))], max_rows=4)
    assert len(rows) == 4 and left == 6


def test_bridge_refuses_client_state():
    b = a11y.A11yBridge()
    b.set_state({"_esm": "alert(1)", "message": "x"})
    assert "alert(1)" not in b._esm and b.message == ""


# text colours of the kit on their backgrounds (dashboard.py, teaching.py, figures.py, plotly_white)
KIT_TEXT = [("#444444", "#ffffff"), ("#555555", "#ffffff"), ("#1f618d", "#ffffff"), ("#0072B2", "#ffffff"),
            ("#2a3f5f", "#ffffff"), ("#222222", "#ffffff"), ("#611a15", "#fdecea"), ("#5d4a05", "#fef9e7")]
# text inside what is dimmed while computing (.dpx-stale: the plot boxes): plotly_white's font, the
# notes of figures.add_note and the message of figures.message_figure
PLOT_TEXT = ["#2a3f5f", "#555", "#444"]


@pytest.mark.parametrize("fg,bg", KIT_TEXT)
def test_kit_text_contrast(fg, bg):
    assert contrast_ratio(fg, bg) >= 4.5


@pytest.mark.parametrize("fg", PLOT_TEXT)
def test_plot_text_contrast_holds_while_dimmed(fg):
    assert contrast_ratio(blend(fg, "#ffffff", a11y.STALE_OPACITY)) >= 4.5


@pytest.mark.parametrize("style", ["primary", "info", "success", "warning", "danger"])
def test_button_styles_keep_contrast(style):
    import re

    bg = re.search(r"\.jupyter-button\.mod-" + style + r"\{background-color:(#[0-9a-f]{6})", a11y.A11Y_CSS).group(1)
    assert contrast_ratio("#ffffff", bg) >= 4.5


def test_plot_text_colours_are_the_kits():
    import plotly.io as pio

    assert pio.templates["plotly_white"].layout.font.color == PLOT_TEXT[0]
    fig = F.add_note(F.message_figure("t", "m"), "n")
    assert {a.font.color for a in fig.layout.annotations} <= set(PLOT_TEXT)


def test_old_dimming_failed_contrast():
    """The kit dimmed computing panels to opacity 0.45: grey text fell to ~2.5:1 (what the CSS now overrides)."""
    assert contrast_ratio(blend("#555555", "#ffffff", 0.45)) < 3.0
    assert f"opacity:{a11y.STALE_OPACITY} !important" in a11y.A11Y_CSS


def test_palette_starts_with_okabe_ito():
    """The series colours a dashboard uses first are Okabe–Ito's (distinguishable with colour-vision deficiency)."""
    assert F.COLORS[:6] == ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
