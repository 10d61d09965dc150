"""The QOP dashboard without a kernel: draws every panel, responds to ε, reproduces its numbers."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from dpexplore.ui.erm import QuadraticPerturbationDashboard  # noqa: E402

SMALL = "n=80&d=10&trials=2&iterations=200"


@pytest.fixture(scope="module")
def board():
    return QuadraticPerturbationDashboard(query_string=SMALL)


def ys(fig, name_start):
    return [np.asarray(t.y, dtype=float) for t in fig.data if t.name and t.name.startswith(name_start)]


def test_draws_every_panel_without_errors(board):
    assert not board.errors and set(board.figures) == {"risk", "bounds", "advantage"}
    names = [t.name for t in board.figures["risk"].data if t.name]
    assert any(n.startswith("LOP (measured, mean ± 95% CI over 2 trials)") for n in names)
    assert any("[approximation" in n for n in names) and any("[exact" in n for n in names)
    assert any("[bound" in (t.name or "") for t in board.figures["bounds"].data)


def test_first_slider_changes_the_risk_curves(board):
    assert board.controls[0].name == "epsilon"
    before = ys(board.figures["risk"], "LOP (measured")[0]
    board.widgets["epsilon"].value = board.widgets["epsilon"].value * 10**0.1  # one slider step right
    after = ys(board.figures["risk"], "LOP (measured")[0]
    assert not np.allclose(before, after)


def test_reproduce_snippet_gives_the_plotted_numbers(board):
    p = board.params()
    ns = {}
    exec(board.reproduce(p).replace("print(res.mean)", ""), ns)
    plotted = ys(board.figures["risk"], "QOP (measured")[0]
    assert np.allclose(ns["res"].mean["QOP"], plotted)


def test_bad_url_values_are_reported_not_fatal():
    b = QuadraticPerturbationDashboard(query_string=SMALL + "&d=100000&alpha1=foo")
    assert b.widgets["d"].value == 10 and "URL parameter d=" in b._message_box.value and not b.errors


def test_audit_panel_reports_claims_and_catches_the_inexact_anchor(board):
    assert board.audit_panel is not None and board.audit_runs[0] == 100_000
    board.widgets["audit"].value = "QOP"
    board.audit_panel.runs.value = 2000
    board.audit_panel.start(wait=True)
    good = board.audit_panel.report
    assert not good.violation and good.exact_epsilon <= good.claimed_epsilon == 2.0
    assert "Consistent with the claim" in board.audit_panel.result.value
    board.widgets["audit"].value = "QOP inexact anchor"
    board.audit_panel.start(wait=True)
    assert board.audit_panel.report.violation and "Claim refuted" in board.audit_panel.result.value
    board.widgets["audit"].value = "LOP"
    board.audit_panel.broken.value = True
    board.audit_panel.runs.value = 4000
    board.audit_panel.start(wait=True)
    bad = board.audit_panel.report
    assert bad.mechanism.startswith("BROKEN") and bad.exact_epsilon > bad.claimed_epsilon and bad.violation
