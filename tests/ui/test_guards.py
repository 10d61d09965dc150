"""Every dashboard refuses, server side, a click on a hidden or disabled button and a change of a hidden
or disabled control (issue 31.4: ipywidgets checks neither ``disabled`` nor visibility)."""

import ipywidgets as widgets

from dpexplore.ui import Control, Dashboard, Panel, guards
from dpexplore.ui import figures as F

from .. import widget_protocol as wp
from ..widget_protocol import client_click as click
from ..widget_protocol import client_update as update

shell = wp.shell  # the fixture: a stand-in shell counting the tracebacks sent to the client


class Board(Dashboard):
    title = "Guards"
    controls = [
        Control("kind", "kind", "choice", "a", options=("a", "b")),
        Control("k", "k (only for kind b)", "int", 3, 1, 10, shown_if=("kind", "b")),
    ]
    panels = [Panel("main", "Main")]

    def figure(self, panel, p):
        return F.message_figure("v", f"k = {p['k']}")

    def audit_report(self, params, *, broken, runs, rng, progress=None):  # pragma: no cover - never run here
        raise AssertionError("the audit must not run")


def test_a_click_on_a_disabled_button_of_the_kit_is_refused(shell):
    d = Board(query_string="")
    run = d.audit_panel.run_button
    clicks = []
    run.on_click(lambda _: clicks.append(1))
    run._click_handlers.callbacks = run._click_handlers.callbacks[-1:]  # only the recorder: no audit is started
    run.disabled = True  # as while an audit runs
    click(run)
    assert clicks == [] and d.refused == {"a click on a disabled Button": 1}
    run.disabled = False
    click(run)
    assert clicks == [1] and shell.tracebacks == 0


def test_a_hidden_control_cannot_be_changed_and_a_hidden_button_not_clicked(shell):
    d = Board(query_string="")
    k = d.widgets["k"]
    assert k.layout.display == "none"
    update(k, value=9)  # the page does not show k while kind is "a"
    assert k.value == 3 and "a change on a hidden" in next(iter(d.refused))
    update(d.widgets["kind"], index=1)  # the page's own way: show it, then change it
    update(k, value=9)
    assert k.value == 9 and d.params()["k"] == 9
    box = widgets.VBox([widgets.Button()], layout=widgets.Layout(display="none"))
    d.children = [*d.children, box]
    d._guard_widgets()
    hits = []
    box.children[0].on_click(lambda _: hits.append(1))
    click(box.children[0])
    assert hits == [] and shell.tracebacks == 0
    box.layout.display = None
    click(box.children[0])
    assert hits == [1]


def test_refusals_are_logged_at_most_once_per_interval():
    lines = []
    root = widgets.VBox()
    for _ in range(50):
        guards.note_refusal(root, root, "a click on a disabled Button", lines.append)
    assert len(lines) == 1 and root.refused == {"a click on a disabled Button": 50}


def test_view_updates_and_malformed_messages_are_not_refusals():
    b = widgets.Button(disabled=True)
    root = widgets.VBox([b])
    assert guards.refusal(root, b, {"content": {"data": {"method": "update", "state": {"_dom_classes": []}}}}) is None
    assert guards.refusal(root, b, {"content": {"data": {"method": "request_state"}}}) is None
    assert guards.refusal(root, b, {"nonsense": 1}) is None
    assert guards.refusal(root, b, {"content": {"data": {"method": "custom", "content": {}}}}) is not None
