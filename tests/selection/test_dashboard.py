"""The Selection page without a browser: every control redraws a plot, at most six controls, the audit panel's
honest run is not refuted and the broken one is, hostile URL values are clamped, the lessons' questions hold."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.ui.selection import SelectionDashboard  # noqa: E402
from dpexplore.ui.teaching import direction, load_lessons, measure_question, validate_lessons  # noqa: E402
from tests.experiment_checks import check_snippet_gives_the_dashboards_numbers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
NAME = "SelectionDashboard"


@pytest.fixture(scope="module")
def board():
    return SelectionDashboard(query_string="", render=False, background=False)


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


def test_renders_every_panel_without_errors(board):
    assert not board.errors, board.errors
    assert set(board.figures) == {p.name for p in board.panels}
    assert len(SelectionDashboard.controls) <= 6


@pytest.mark.slow
def test_every_control_changes_a_plot(board):
    for ctl in SelectionDashboard.controls:
        before = _fig_json(board)
        cur = board.params()[ctl.name]
        new = min(ctl.high, cur + max(1, cur // 2)) if ctl.kind == "int" else min(float(ctl.high), float(cur) * 3 + 1)
        board.set_params(**{ctl.name: new})
        after = _fig_json(board)
        assert not board.errors, (ctl.name, board.errors)
        assert any(before[k] != after[k] for k in after), f"moving {ctl.name} changed no plot"
        board.set_params(**{ctl.name: ctl.default})


@pytest.mark.slow
def test_the_snippet_reproduces_the_panels(board):
    check_snippet_gives_the_dashboards_numbers(board)


def test_the_audit_figure_refutes_exactly_the_broken_ones(board):
    fig = board.figures["audit"]
    names = list(fig.layout.xaxis.ticktext)
    claimed, exact, measured = (np.array(fig.data[i].y, dtype=float) for i in range(3))
    for n, c, e, m in zip(names, claimed, exact, measured):
        refuted = e > c * (1 + 1e-9) + 1e-12 or m > c
        assert refuted == n.startswith("BROKEN"), (n, c, e, m)
    assert sum(n.startswith("BROKEN") for n in names) == 5


def test_audit_panel_honest_and_broken(board):
    panel = board.audit_panel
    panel.runs.value = 2000
    panel.broken.value = False
    panel.start(wait=True)
    assert panel.report is not None and not panel.report.violation
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value
    panel.broken.value = False


@pytest.mark.slow
def test_hostile_url_values_are_clamped():
    b = SelectionDashboard(query_string="k=100000&epsilon=nan&c=-3&gap=1e9", render=False, background=False)
    p = b.params()
    assert p["k"] == 5 and p["epsilon"] == 1.0 and p["c"] == 2 and p["gap"] == 3.0
    assert not b.errors


def test_lessons_are_valid():
    lessons, errors = validate_lessons(load_lessons(LESSONS), {NAME: SelectionDashboard})
    assert [e for e in errors if e.startswith(NAME)] == []
    assert 2 <= len(lessons[NAME]["questions"]) <= 3 and lessons[NAME]["presets"]


def _questions():
    data = json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]
    return [q["id"] for q in data.get(NAME, {}).get("questions", [])]


@pytest.mark.slow
@pytest.mark.parametrize("qid", _questions())
def test_each_predict_question_holds_at_seeds_0_to_9(qid, board):
    lessons, _ = validate_lessons(load_lessons(LESSONS), {NAME: SelectionDashboard})
    q = next(q for q in lessons[NAME]["questions"] if q["id"] == qid)
    for seed in range(10):
        for check, before, after in measure_question(board, q, seed=seed):
            assert np.isfinite(before) and np.isfinite(after), (check, before, after)
            assert direction(before, after) == check["expect"], (seed, check, before, after)
            if check["expect"] != "same":
                assert abs(after - before) >= 0.05 * max(abs(before), abs(after)), (seed, check, before, after)


@pytest.mark.slow
def test_every_control_at_its_ends_draws_without_an_error():
    """Each numeric control at its minimum and at its maximum (the others at their defaults) draws every panel it
    feeds, with no error box: the c slider once reached 8, where the audit's worst pair had 64 > 60 queries."""
    b = SelectionDashboard(query_string="", render=False, background=False)
    for ctl in SelectionDashboard.controls:
        if ctl.kind not in ("int", "float", "log", "logint") or ctl.name == "seed":
            continue
        for end in (ctl.low, ctl.high):
            b.set_params(**{ctl.name: type(ctl.default)(end)})
            assert not b.errors, (ctl.name, end, b.errors)
        b.set_params(**{ctl.name: ctl.default})
