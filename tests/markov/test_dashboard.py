"""The Markov-trajectory dashboard, without a kernel: panels, errors, URL state, reproduce-in-code."""

import contextlib
import io

import numpy as np
import pytest

from dpexplore.ui.markov import MarkovTrajectoryDashboard

SMALL = "T=40&trials=3&chain=traffic&grid=3"


@pytest.fixture(scope="module")
def board():
    return MarkovTrajectoryDashboard(query_string=SMALL)


def test_builds_every_panel_and_labels_theory(board):
    assert not board.errors and set(board.figures) == {"chain", "tail", "entropy", "drift"}
    names = [t.name for t in board.figures["tail"].data if t.name]
    assert any("[exact" in n for n in names) and any("measured" in n for n in names)
    assert board.controls[1].name == "epsilon" and board.controls[1].kind == "log"  # the first slider


def _mechanism_1_exact(board):  # by name: the panel's headline curve is drawn last, not first
    return next(t for t in board.figures["tail"].data if t.name.startswith("Mechanism 1 [exact"))


def test_first_slider_changes_plotted_curves(board):
    before = np.array(_mechanism_1_exact(board).y, dtype=float)
    board.widgets["epsilon"].value = board.widgets["epsilon"].value * 10**0.05  # one slider step right
    after = np.array(_mechanism_1_exact(board).y, dtype=float)
    assert not np.allclose(np.nan_to_num(before), np.nan_to_num(after))


def test_pasted_matrix_errors_are_shown_and_recover():
    d = MarkovTrajectoryDashboard(query_string="T=20&trials=2&chain=paste")
    assert not d.errors
    d.widgets["matrix"].value = "0.5 0.6\n0.5 0.5"
    assert "row 0 sums to 1.1" in d._message_box.value
    d.widgets["matrix"].value = "0.5 0.5\n0.5 eval(1)"
    assert "row 2, entry 2: &#x27;eval(1)&#x27; is not a non-negative decimal number" in d._message_box.value
    d.widgets["matrix"].value = "1 0\n0.5 0.5"
    assert "cannot reach" in d._message_box.value
    d.widgets["matrix"].value = "0.9 0.1\n0.5 0.5"
    assert not d.errors and "Error" not in d._message_box.value


def test_reproduce_snippet_gives_the_dashboards_numbers():
    d = MarkovTrajectoryDashboard(query_string="T=30&trials=2&rho=1.5&v=6")
    code = d.reproduce(d.params())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})  # noqa: S102 - our own generated snippet
    values = [float(x) for x in out.getvalue().split()]
    ma, ba = d._analyses(d.params())
    assert values == pytest.approx([ma.tail(6.0), ba.tail(6.0), ma.entropy_rate, ba.entropy_rate])
    assert "large_error_probability(chain=" in d._snippet.value and "entropy_vs_length(" in d._snippet.value
