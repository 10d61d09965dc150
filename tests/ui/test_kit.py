"""The dashboard kit, exercised without a kernel through a small dashboard defined here."""

import numpy as np
import plotly.graph_objects as go
import pytest

from dpexplore.core import randomized_response
from dpexplore.core.validation import check_int
from dpexplore.ui import Control, Dashboard, Panel
from dpexplore.ui import figures as F


class ToyDashboard(Dashboard):
    title = "Toy"
    paper = "Nobody (2026)"
    controls = [
        Control("epsilon", "ε", "log", 1.0, 0.01, 10.0),
        Control("n", "n", "int", 100, 10, 1000),
        Control("k", "k", "int", 2, 1, 50),
        Control("mode", "mode", "choice", "a", options=("a", "b")),
        Control("seed", "seed", "int", 0, 0, 999),
    ]
    panels = [Panel("main", "Main"), Panel("side", "Side", depends_on=("mode",))]

    def __init__(self, **kw):
        self.calls = {"main": 0, "side": 0}
        super().__init__(**kw)

    def figure(self, panel, p):
        self.calls[panel] += 1
        check_int(p["k"], "k", high=p["n"] // 10)  # a cross-control constraint, as a library would raise
        if panel == "main":
            bits = randomized_response(np.zeros(p["n"], dtype=int), p["epsilon"], rng=p["seed"]).bits
            fig = F.base_figure("flips", "i", "bit")
            fig.add_trace(go.Scatter(y=bits))
            return fig
        if p["mode"] == "b":
            raise RuntimeError("boom")
        return F.message_figure("side", "ok")

    def reproduce(self, p):
        return f"randomized_response(np.zeros({p['n']}), {p['epsilon']}, rng={p['seed']})"


def test_builds_with_defaults_and_draws_every_panel():
    d = ToyDashboard(query_string="")
    assert set(d.figures) == {"main", "side"} and not d.errors
    assert d.calls == {"main": 1, "side": 1}
    assert "rng=0" in d._snippet.value and "not cryptographically secure" in d.children[-1].value


def test_url_parameters_and_bad_ones():
    d = ToyDashboard(query_string="epsilon=0.5&n=200&mode=b&foo=1&k=abc")
    assert d.widgets["epsilon"].value == pytest.approx(0.5)
    assert d.widgets["n"].value == 200
    assert d.widgets["k"].value == 2  # invalid URL value: default kept
    assert d.widgets["mode"].value == "b"
    html = d._message_box.value
    assert "URL parameter k=&#x27;abc&#x27; ignored: k must be an integer in [1, 50]" in html
    assert "URL parameter foo ignored" in html
    assert "internal error RuntimeError: boom" in d.errors["side"]


def test_library_error_shown_controls_kept_and_recovery():
    d = ToyDashboard(query_string="")
    d.widgets["k"].value = 30  # k > n // 10 = 10: the library raises ValueError
    assert "k must be an integer <= 10; got 30" in d.errors["main"]
    assert "k must be an integer &lt;= 10; got 30" in d._message_box.value
    assert d.widgets["n"].value == 100 and d.widgets["k"].value == 30  # nothing was reset
    d.widgets["n"].value = 500  # now valid: recomputes and the error is gone
    assert "main" not in d.errors and "Error" not in d._message_box.value


def test_only_dependent_panels_recompute():
    d = ToyDashboard(query_string="")
    d.widgets["epsilon"].value = 2.0
    assert d.calls == {"main": 2, "side": 1}
    d.widgets["mode"].value = "b"
    assert d.calls == {"main": 3, "side": 2}


def test_server_side_clamp_of_client_values():
    d = ToyDashboard(query_string="")
    w = d.widgets["n"]
    w.max = 10**9  # a hostile client widens the range and sends a huge value
    w.value = 10**9
    assert w.value == 1000 and w.max == 1000
    assert "n=1000000000 is outside the valid range (an integer in [10, 1000]): using 1000" in d._message_box.value
    lw = d.widgets["epsilon"]
    lw.max = 9
    lw.value = 1e9
    assert d.params()["epsilon"] == 10.0


def test_overrides_validated():
    assert ToyDashboard(n=500).widgets["n"].value == 500
    with pytest.raises(ValueError, match=r"^n must be an integer in \[10, 1000\]; got 5000$"):
        ToyDashboard(n=5000)
    with pytest.raises(TypeError, match=r"has no control 'zzz'"):
        ToyDashboard(zzz=1)


def test_control_parse_and_clamp():
    c = Control("n", "n", "logint", 1000, 100, 10**6)
    assert c.parse("2000") == 2000 and c.clamp(5e7) == 10**6 and c.clamp("x") == 1000
    with pytest.raises(ValueError, match=r"n must be an integer in \[100, 1000000\]"):
        c.parse("1e9")
    b = Control("flag", "flag", "bool", True)
    assert b.parse("false") is False
    with pytest.raises(ValueError, match=r"default .* outside its range"):
        Control("x", "x", "float", 5.0, 0.0, 1.0)
    t = Control("text", "text", "text", "", max_length=5)
    assert t.clamp("abcdefgh") == "abcde" and t.clamp(3) == ""


def test_figure_helpers_label_theory_kinds():
    fig = F.base_figure("t", "x", "y", log_y=True)
    F.add_measured(fig, [1, 2], [0.1, 0.2], [0.05, 0.1], [0.2, 0.3], name="shuffle", color=F.color_for(0), trials=5)
    F.add_theory(fig, [1, 2], [0.3, np.nan], name="Davis–Kahan", kind="bound", color=F.color_for(1))
    names = [t.name for t in fig.data]
    assert "shuffle (measured, mean ± 95% CI over 5 trials)" in names
    assert "Davis–Kahan [bound]" in names
    with pytest.raises(ValueError, match=r"kind must be one of"):
        F.add_theory(fig, [1], [1], name="x", kind="fitted", color="#000")


def test_audit_panel_runs_reports_and_catches_broken_variant():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
    from kit_demo import KitDemo

    d = KitDemo(query_string="")
    assert d.audit_panel is not None
    d.audit_panel.runs.value = 40000
    d.audit_panel.start(wait=True)
    good = d.audit_panel.report
    assert not good.violation and good.exact_epsilon == pytest.approx(good.claimed_epsilon)
    assert "Consistent with the claim" in d.audit_panel.result.value
    d.audit_panel.broken.value = True
    d.audit_panel.start(wait=True)
    bad = d.audit_panel.report
    assert bad.violation and bad.epsilon_lower > bad.claimed_epsilon
    assert "Claim refuted" in d.audit_panel.result.value
    # server-side bound on the run count
    d.audit_panel.runs.max = 10**9
    d.audit_panel.runs.value = 10**9
    d.audit_panel.start(wait=True)
    assert d.audit_panel.runs.value == 200000


def test_audit_panel_cancel():
    import threading

    from dpexplore.ui import AuditPanel, AuditReport

    started = threading.Event()

    def run(broken, runs, seed, progress):
        done = 0
        while progress(done, runs):
            started.set()
            done += 1
            threading.Event().wait(0.001)
        return AuditReport("m", "pair", 1.0, 0.0, runs=done, cancelled=True)

    panel = AuditPanel(run, default_runs=1000, max_runs=2000, description="", seed=lambda: 0)
    panel.start()
    started.wait(5)
    panel.cancel_button.click()
    panel._thread.join(5)
    assert panel.report.cancelled and "cancelled" in panel.result.value
    assert not panel.run_button.disabled


def test_band_on_a_log_subplot_drops_nonpositive_edges():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2)
    fig.update_yaxes(type="log", row=1, col=2)
    F.add_measured(fig, [1, 2, 3], [1.0, 0.5, 0.2], [-0.1, 0.2, 0.1], [2.0, 0.8, 0.3], name="m", color="#000",
                   row=1, col=2)
    band = fig.data[0]
    assert min(band.y) > 0 and len(band.x) == 4  # the point with a negative lower edge is left out


def test_plotly_bundle_is_the_one_fig_show_publishes():
    # figures.plotly_mimebundle replaces fig.show(renderer="plotly_mimetype"): same bytes, fewer imports
    import json

    from plotly.io._base_renderers import PlotlyRenderer

    fig = F.base_figure("t", "x", "y", log_x=True)
    fig.add_trace(go.Scatter(x=np.array([1e-3, 0.5, 2.0]), y=np.array([np.nan, 1.0, 2.5]), name="a"))
    config = {"displaylogo": False}
    ours = F.plotly_mimebundle(fig, config)
    theirs = PlotlyRenderer(config=config).to_mimebundle(fig.to_dict())
    assert json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True)


@pytest.mark.parametrize("route", ["react", "output", ""])
def test_show_draws_each_route_without_plotly_renderers(route):
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from tests.ui.test_kit import ToyDashboard\n"
        "from dpexplore.ui.plotpanel import PlotPanel\n"
        "d = ToyDashboard(query_string='', render=True)\n"
        "w = d._plots['main']\n"
        "if d.plot_route == 'react':\n"
        "    assert isinstance(w, PlotPanel) and d._outputs['main'].children == (w,)\n"
        "    fig = json.loads(w.figure)\n"
        "    assert sorted(fig) == ['config', 'data', 'layout'] and fig['config'] == {'displaylogo': False}\n"
        "    before = w.figure\n"
        "    d.set_params(n=200)\n"
        "    y = json.loads(w.figure)['data'][0]['y']  # plotly >= 6 sends numpy arrays as base64 'bdata'\n"
        "    import base64, numpy as np\n"
        "    count = len(y) if isinstance(y, list) else \\\n"
        "        len(base64.b64decode(y['bdata'])) // np.dtype(y['dtype']).itemsize\n"
        "    assert w.figure != before and count == 200, count\n"
        "else:\n"
        "    outs = w.outputs\n"
        "    assert len(outs) == 1 and outs[0]['output_type'] == 'display_data', outs\n"
        "    assert 'application/vnd.plotly.v1+json' in outs[0]['data']\n"
        "    d.set_params(n=200)\n"
        "    assert len(w.outputs) == 1\n"
        "mods = ('nbformat', 'jsonschema', 'plotly.io._renderers')\n"
        "print(d.plot_route, sorted(m for m in mods if m in sys.modules))\n"
    )
    import os
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, DPEXPLORE_PLOT_ROUTE=route)
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{route or 'react'} []", out.stdout


def test_an_unknown_plot_route_is_refused(monkeypatch):
    monkeypatch.setenv("DPEXPLORE_PLOT_ROUTE", "figurewidget")
    with pytest.raises(ValueError, match="DPEXPLORE_PLOT_ROUTE must be 'react' or 'output'; got 'figurewidget'"):
        ToyDashboard(query_string="")


def test_plot_panel_ships_no_plotly_js_and_renders_statically():
    from dpexplore.ui.plotpanel import PlotPanel

    esm = PlotPanel()._esm
    # plotly.js is ~4.8 MB; the widget uses the page's copy (its own code: the redraw, the fit to the screen and the
    # legend/note placement of issue 38, ~15 kB)
    assert len(esm.encode()) < 20_000
    assert "Plotly.react" in esm and "dpx-plot-fallback" in esm  # redraw in place, or say why not
    p = PlotPanel()
    fig = F.message_figure("t", "hello")
    p.show(fig, {"displaylogo": False})
    bundle = p._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert bundle[F.PLOTLY_MIMETYPE] == F.plotly_mimebundle(fig, {"displaylogo": False})[F.PLOTLY_MIMETYPE]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_short_log_axes_get_whole_value_labels_and_long_ones_keep_decades():
    fig = F.base_figure("t", "ε", "error", log_x=True, log_y=True)
    fig.add_trace(go.Scatter(x=[0.3, 1.0, 3.0], y=[1e-7, 1e-3, 1e2]))
    F.readable_log_ticks(fig)
    assert list(fig.layout.xaxis.ticktext) == ["0.3", "0.5", "1", "2", "3"]  # 0.3 no longer reads "3"
    assert fig.layout.yaxis.tickvals is None  # nine decades: plotly's decade labels stay
    assert F._tick_label(2e-6) == "2·10⁻⁶" and F._tick_label(1e-6) == "10⁻⁶" and F._tick_label(0.002) == "0.002"
    # subplots: each axis from its own traces; linear axes untouched
    from plotly.subplots import make_subplots

    sub = make_subplots(rows=1, cols=2)
    sub.add_trace(go.Scatter(x=[1, 2], y=[0.02, 0.08]), row=1, col=1)
    sub.add_trace(go.Scatter(x=[1, 2], y=[10, 400]), row=1, col=2)
    sub.update_yaxes(type="log")
    F.readable_log_ticks(sub)
    assert list(sub.layout.yaxis.ticktext) == ["0.02", "0.03", "0.05"]
    assert "400" not in sub.layout.yaxis.ticktext and "10" in sub.layout.yaxis2.ticktext
    assert sub.layout.xaxis.tickvals is None


class SlowDashboard(Dashboard):
    """Two panels; 'slow' sleeps per trial inside an experiment-style progress loop."""

    controls = [Control("a", "a", "int", 1, 0, 50), Control("trials", "trials", "int", 4, 1, 8)]
    panels = [Panel("fast", "Fast"), Panel("slow", "Slow")]
    first_estimate_after = 0.05

    def __init__(self, **kw):
        self.drawn = []
        super().__init__(**kw)

    def figure(self, panel, p):
        import time as _time

        from dpexplore.core.experiment import sweep

        if panel == "slow":
            sweep(lambda x, g: _time.sleep(0.03) or 0.0, [0.0], trials=p["trials"], rng=0)  # progress is checked
        if p["a"] == 13:
            raise ValueError("a must not be 13")
        self.drawn.append((panel, p["a"], p["trials"]))
        return F.message_figure(panel, f"a={p['a']} trials={p['trials']}")


def test_background_mode_draws_every_panel_and_only_the_newest_settings():
    d = SlowDashboard(query_string="", render=True, background=True)
    assert d.wait(30) and set(d.figures) == {"fast", "slow"} and not d.errors
    assert "dpx-stale" not in d._outputs["slow"]._dom_classes
    d.drawn.clear()
    for a in range(2, 8):  # a burst of moves while the worker is busy
        d.widgets["a"].value = a
    assert d.wait(30)
    assert d.drawn[-1][1] == 7 and d.drawn[-2][1] == 7  # both panels end at the newest value
    assert ("slow", 7, 4) in d.drawn  # the full band was drawn last for the slow panel
    full_slow = [x for x in d.drawn if x[0] == "slow" and x[2] == 4]
    assert len(full_slow) < 6, d.drawn  # stale settings were dropped, not queued
    assert "a=7 trials=4" in str(d.figures["slow"].layout.annotations)


def test_background_mode_never_leaves_a_drawn_panel_dimmed(monkeypatch):
    """The kit dims a panel before its worker can draw it: dimming it after a fast panel was already
    drawn left it dimmed for good (made deterministic here by a slow add_class)."""
    import time as _time

    import ipywidgets as widgets

    orig = widgets.DOMWidget.add_class

    def slow_add(self, name):
        _time.sleep(0.2)  # the worker draws "fast" meanwhile, unless it waits for the dimming
        return orig(self, name)

    monkeypatch.setattr(widgets.DOMWidget, "add_class", slow_add)
    d = SlowDashboard(query_string="", render=True, background=True)
    assert d.wait(30)
    assert all("dpx-stale" not in w._dom_classes for w in d._outputs.values()), \
        {n: w._dom_classes for n, w in d._outputs.items()}


def test_background_mode_first_estimate_then_full_band_and_errors_shown_once():
    d = SlowDashboard(query_string="", render=True, background=True)
    d.wait(30)
    d.drawn.clear()
    d.widgets["a"].value = 3
    d.wait(30)
    assert ("slow", 3, 1) in d.drawn and d.drawn.index(("slow", 3, 1)) < d.drawn.index(("slow", 3, 4))
    d.widgets["a"].value = 13
    d.wait(30)
    assert d._message_box.value.count("a must not be 13") == 1  # said once, naming both panels
    assert "Fast, Slow: a must not be 13" in d._message_box.value
    d.widgets["a"].value = 4
    d.wait(30)
    assert not d.errors and "dpx-error" not in d._message_box.value


def test_memo_is_bounded_by_bytes_not_only_entries():
    from dpexplore.ui.dashboard import approx_nbytes

    d = ToyDashboard(query_string="")
    d.memo_bytes = 30 * 2**20
    for i in range(10):  # ten 8 MB matrices: the memo keeps at most three of them
        d.memo(("data", i), lambda: np.zeros((1000, 1000)))
    kept = sum(size for _, size in d._memo.values())
    assert kept <= d.memo_bytes and len(d._memo) <= 3 + 2  # + the small toy entries
    assert ("data", 9) in d._memo and ("data", 0) not in d._memo  # least recently used go first
    big = d.memo("huge", lambda: np.zeros(5 * 2**20))  # 40 MB > the whole bound: returned, not kept
    assert big.size == 5 * 2**20 and "huge" not in d._memo
    import scipy.sparse as sp

    assert approx_nbytes(sp.random(100, 100, density=0.1, format="csr", random_state=0)) >= 1000 * 12


def test_finalize_lists_only_drawn_traces_and_renders_tex():
    fig = F.base_figure("n · JSD(T_{n,k} ‖ T_{n,k+1})", "n", "ε^{2}")
    fig.add_trace(go.Scatter(x=[1, 2], y=[0.1, 0.2], name="measured"))
    fig.add_trace(go.Scatter(x=[1, 2], y=[np.nan, np.nan], name="bound [bound] (vacuous)"))
    fig.add_trace(go.Scatter(x=[1, 2], y=[None, None], name="rate n^{−1/2}"))
    F.finalize_figure(fig)
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert shown == ["measured"]
    note = " ".join(a.text for a in fig.layout.annotations)
    assert "Not drawn at these settings" in note and "bound [bound] (vacuous)" in note and "n<sup>−1/2</sup>" in note
    assert fig.layout.title.text == "n · JSD(T<sub>n,k</sub> ‖ T<sub>n,k+1</sub>)"
    assert fig.layout.yaxis.title.text == "ε<sup>2</sup>"
    blob = fig.to_json()
    assert "_{" not in blob and "^{" not in blob


def test_a_control_shown_only_for_one_choice_of_another():
    from dpexplore.ui.markov import MarkovTrajectoryDashboard

    d = MarkovTrajectoryDashboard(query_string="T=20&trials=1")
    assert d.widgets["matrix"].layout.display == "none" and d.widgets["grid"].layout.display == "none"
    d.widgets["chain"].value = "traffic"
    assert d.widgets["grid"].layout.display is None and d.widgets["matrix"].layout.display == "none"
    d.widgets["chain"].value = "paste"
    assert d.widgets["matrix"].layout.display is None


def test_background_mode_keeps_url_notes_when_the_first_draw_is_superseded():
    d = SlowDashboard(query_string="a=not-a-number&nope=1", render=True, background=True)
    for a in (2, 3, 4):  # newer requests arrive while the first draw is running
        d.widgets["a"].value = a
    assert d.wait(30)
    box = d._message_box.value
    assert "URL parameter a=&#x27;not-a-number&#x27; ignored" in box and "URL parameter nope ignored" in box


@pytest.mark.parametrize("qs", ["epsilon=0.5&n=200&k=3", "epsilon=99&bogus=1&seed=x", "preset=nosuch&n=300",
                                "k=40&n=100", "voila-template=lab", ""])
def test_a_url_applied_after_construction_gives_the_view_the_constructor_gives(qs):
    """A preheated kernel builds the default view, waits for its page, then applies the URL
    (Dashboard._apply_query): the result must be what ``query_string=`` at construction gives —
    the same values, notes, errors, figures and teaching-box problems."""
    direct = ToyDashboard(query_string=qs)
    late = ToyDashboard(query_string="")
    late._apply_query(qs)
    assert late.params() == direct.params()
    assert late._message_box.value == direct._message_box.value
    assert late.errors == direct.errors
    assert {k: f.to_json() for k, f in late.figures.items()} == {k: f.to_json() for k, f in direct.figures.items()}
    assert late.teaching.problems == direct.teaching.problems
    assert late.teaching in late.children and all(
        box.children[2:] == late.teaching.panel_widgets(name) for name, box in late._panel_boxes.items())


def test_constructor_overrides_win_over_a_url_applied_later():
    late = ToyDashboard(query_string="", n=500)
    late._apply_query("n=200&k=7")
    assert late.params()["n"] == 500 and late.params()["k"] == 7


def test_a_failure_while_finishing_a_figure_is_that_panels_error_not_a_stuck_page(monkeypatch):
    from dpexplore.ui import dashboard as dash_mod

    def broken(fig):
        raise RuntimeError("finishing failed")

    d = ToyDashboard(query_string="")
    monkeypatch.setattr(dash_mod, "finalize_figure", broken)
    fig, error = d._figure_or_error(d.panels[0], d.params())
    assert "internal error RuntimeError while finishing the figure: finishing failed" in error
    assert fig.layout.annotations and "Internal error" in fig.layout.annotations[0].text
