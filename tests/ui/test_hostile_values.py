"""What a hostile client can send to a dashboard's widgets (issue 13, items 6 and 7): NaN/±Inf into
integer sliders, view traits (a log slider's base, steps) — and that no traceback is sent back."""

import math

import pytest

from dpexplore.ui import Control, Dashboard, Panel
from dpexplore.ui import figures as F

from .. import widget_protocol as wp
from ..widget_protocol import client_update

shell = wp.shell  # the fixture: a stand-in shell counting the tracebacks sent to the client


class IntDashboard(Dashboard):
    title = "Ints"
    controls = [
        Control("n", "n", "logint", 1000, 100, 10**5),
        Control("T", "T", "int", 5, 1, 50),
        Control("eps", "ε", "log", 1.0, 0.1, 10.0),
    ]
    panels = [Panel("main", "Main")]

    def __init__(self, **kw):
        self.seen: list[dict] = []
        super().__init__(**kw)

    def figure(self, panel, p):
        self.seen.append(dict(p))
        assert isinstance(p["n"], int) and isinstance(p["T"], int) and math.isfinite(p["eps"])
        return F.message_figure("v", "ok")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_python_value_into_a_log_integer_slider_is_clamped_not_raised(bad):
    d = IntDashboard(query_string="")
    d.widgets["n"].value = bad  # before the fix: ValueError from int(round(nan)) in params(), NaN kept
    n = d.widgets["n"].value
    assert math.isfinite(n) and d.seen[-1]["n"] == (1000 if math.isnan(bad) else 10**5 if bad > 0 else 100)
    d.widgets["T"].value = 7  # later changes still work
    assert d.seen[-1]["T"] == 7 and math.isfinite(d.widgets["n"].value)


@pytest.mark.parametrize("name", ["n", "T", "eps"])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_client_value_sends_no_traceback(shell, name, bad):
    d = IntDashboard(query_string="")
    before = d.widgets[name].value
    client_update(d.widgets[name], value=bad)
    assert shell.tracebacks == 0  # before the fix: ipywidgets answered with showtraceback()
    assert d.widgets[name].value == before
    assert "non-finite value for value" in d._message_box.value
    client_update(d.widgets["T"], value=9)  # the dashboard still works
    assert d.seen[-1]["T"] == 9


def test_an_error_inside_a_callback_is_logged_server_side_and_shown_short(shell, capfd, monkeypatch):
    d = IntDashboard(query_string="")
    monkeypatch.setattr(d, "refresh", lambda changed=None: 1 / 0)
    client_update(d.widgets["T"], value=8)
    assert shell.tracebacks == 0
    assert "Internal error while handling that change (ZeroDivisionError)" in d._message_box.value
    assert "Traceback" not in d._message_box.value and ".py" not in d._message_box.value
    assert "ZeroDivisionError" in capfd.readouterr().err  # sys.__stderr__: the server's log


def test_client_view_traits_are_reset(shell):
    d = IntDashboard(query_string="")
    n, t = d.widgets["n"], d.widgets["T"]
    client_update(n, base=1e6, step=3.0)  # every slider position would now mean n = 1e5 (stuck at the max)
    client_update(t, step=25, min=0, max=10**6)
    client_update(t, value=6)  # the next change: params() restores the traits that give values their meaning
    assert (n.base, n.min, n.max, n.step) == (10.0, 2.0, 5.0, 0.05)
    assert (t.min, t.max, t.step) == (1, 50, 1)
    client_update(n, value=2000.0)  # and n is no longer stuck at its most expensive value
    assert d.seen[-1]["n"] == 2000 and d.seen[-1]["T"] == 6 and shell.tracebacks == 0


def test_a_client_cannot_push_a_figure_into_the_kernel(shell):
    """The plot widget is kernel -> browser only: a client's update of its figure (huge or malformed),
    its title or its JavaScript module is dropped, with no traceback, and the next draw is the kernel's."""
    d = IntDashboard(query_string="", render=True)
    plot = d._plots["main"]
    figure, esm = plot.figure, plot._esm
    client_update(plot, figure="x" * 5_000_000, title="<script>", _esm="alert(1)")
    client_update(plot, figure={"not": "a string"})
    assert (plot.figure, plot._esm, plot.title) == (figure, esm, "(v)") and shell.tracebacks == 0
    client_update(d.widgets["T"], value=9)
    assert d.seen[-1]["T"] == 9 and plot.figure == figure  # same figure text for the same message figure
