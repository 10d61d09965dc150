"""The paper-2 dashboard, without a kernel: draws every panel, reacts to the first slider, reproduces."""

import numpy as np

from dpexplore.ui.pca import PrivatePCADashboard

SMALL = "n=200&d=30&trials=2&epsilon=10"


class Counting(PrivatePCADashboard):
    def __init__(self, **kw):
        self.calls: list[str] = []
        super().__init__(**kw)

    def figure(self, panel, p):
        self.calls.append(panel)
        return super().figure(panel, p)


def test_builds_small_and_draws_every_panel_with_theory_labels():
    b = PrivatePCADashboard(query_string=SMALL)
    assert not b.errors and set(b.figures) == {"vs_eps", "vs_coherence", "thresholds", "vs_n"}
    names = [t.name for t in b.figures["vs_eps"].data]
    assert any(n.startswith("adaptive power (Alg. 1) (measured, mean ± 95% CI over 2 trials)") for n in names)
    assert any("Thm 1.1 (adaptive) [rate, Thm 1.1, constant 1" in n for n in names)
    assert any("DTTZ14 (Analyze Gauss) [bound" in n for n in names)
    assert any("Thm 1.2 (adaptive) [rate" in t.name for t in b.figures["vs_n"].data)


def test_first_slider_changes_a_plot_and_only_dependent_panels_recompute():
    b = Counting(query_string=SMALL)
    assert b.controls[0].name == "epsilon"
    before = b.figures["vs_coherence"].to_dict()
    w = b.widgets["epsilon"]
    b.calls.clear()
    w.value = 10 ** (np.log10(w.value) + 0.1)  # one slider step to the right
    assert b.figures["vs_coherence"].to_dict() != before
    b.calls.clear()
    b.widgets["coherence"].value = 0.2
    assert sorted(b.calls) == ["thresholds", "vs_coherence", "vs_eps"]  # not the i.i.d. panel
    assert not b.errors


def test_coherence_below_floor_is_clamped_with_a_note():
    b = PrivatePCADashboard(query_string=SMALL + "&coherence=0.01")  # 1/sqrt(200) = 0.0707
    assert not b.errors
    assert "below 1/√n = 0.0707" in b._message_box.value


def test_reproduce_snippet_runs():
    b = PrivatePCADashboard(query_string=SMALL)
    code = b.reproduce(b.params())
    ns: dict = {}
    exec(code.replace("print(", "_ = ("), ns)  # our own generated code
    assert 0.0 <= ns["sin2"](ns["data"].v1, ns["res"].vector) <= 1.0
    assert ns["res"].iterations == len(ns["res"].thresholds)


def test_audit_note_says_the_exact_svt_audit_ignores_the_run_count():
    b = PrivatePCADashboard(query_string=SMALL)
    assert b.params()["audit"] != "svt" and b.audit_panel.note.value == ""
    b.widgets["audit"].value = "svt"
    assert "exact" in b.audit_panel.note.value and "not used" in b.audit_panel.note.value
