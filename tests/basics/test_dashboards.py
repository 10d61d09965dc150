"""The intro dashboards without a browser: every control redraws a plot, the lessons' predict questions hold
at seeds 0–9, the attacker game plays through the page, and the audits run (honest and broken)."""

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.ui.teaching import direction, load_lessons, measure_question, validate_lessons  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
CLASSES = {"CountingQueryDashboard": "basics", "AttackerDashboard": "attacker", "CompositionDashboard": "composition"}


def _cls(name):
    return getattr(importlib.import_module(f"dpexplore.ui.{CLASSES[name]}"), name)


def _board(name, qs=""):
    return _cls(name)(query_string=qs, render=False, background=False)


def _fig_json(board):
    return {k: f.to_json() for k, f in board.figures.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CLASSES))
def test_every_control_changes_a_plot_and_at_most_six_controls(name):
    board = _board(name)
    cls = type(board)
    assert len(cls.controls) <= 6, "a first-lecture page shows at most six controls"
    assert not board.errors, board.errors
    for ctl in cls.controls:
        before = _fig_json(board)
        if ctl.kind == "choice":
            new = next(v for v in ctl.option_values if v != board.params()[ctl.name])
        elif ctl.kind in ("int", "logint"):
            new = min(int(ctl.high), int(board.params()[ctl.name]) + max(1, int(board.params()[ctl.name]) // 2))
        else:
            new = min(float(ctl.high), float(board.params()[ctl.name]) * 3)
        board.set_params(**{ctl.name: new})
        after = _fig_json(board)
        assert not board.errors, (ctl.name, board.errors)
        assert any(before[k] != after[k] for k in after), f"{name}: moving {ctl.name} changed no plot"
        board.set_params(**{ctl.name: ctl.default})


def test_lessons_for_the_intro_dashboards_are_valid():
    classes = {n: _cls(n) for n in CLASSES}
    lessons, errors = validate_lessons(load_lessons(LESSONS), classes)
    assert [e for e in errors if any(e.startswith(n) for n in CLASSES)] == []
    for n in CLASSES:
        assert 2 <= len(lessons[n]["questions"]) <= 3 and lessons[n]["presets"], n


def _questions():
    data = json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]
    return [(n, q["id"]) for n in CLASSES for q in data.get(n, {}).get("questions", [])]


@pytest.fixture(scope="module")
def boards():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = _board(name)
        return cache[name]

    return get


@pytest.mark.slow
@pytest.mark.parametrize(("name", "qid"), _questions(), ids=lambda v: v)
def test_each_predict_question_holds_at_seeds_0_to_9(name, qid, boards):
    lessons, _ = validate_lessons(load_lessons(LESSONS), {name: _cls(name)})
    q = next(q for q in lessons[name]["questions"] if q["id"] == qid)
    board = boards(name)
    for seed in range(10):
        for check, before, after in measure_question(board, q, seed=seed):
            assert np.isfinite(before) and np.isfinite(after), (check, before, after)
            assert direction(before, after) == check["expect"], (seed, check, before, after)
            if check["expect"] != "same":  # a change a student can see: ≥ 5 % of the value
                assert abs(after - before) >= 0.05 * max(abs(before), abs(after)), (seed, check, before, after)


def test_the_game_plays_through_the_dashboard():
    board = _board("AttackerDashboard", "rounds=5&mechanism=rr")
    box = board.game_box
    assert "Round 1 of 5" in box.text.value and "“" in box.text.value
    for _ in range(5):
        box.guess("B")
    assert "Game over" in box.text.value and box.button_a.disabled
    box.guess("A")  # a click after the end (a hostile or late client) is ignored
    assert box.game.played == 5
    star = [t for t in board.figures["game"].data if (t.name or "").startswith("you:")]
    assert star and "of 5 right" in star[0].name
    box.new_game()
    assert "Round 1 of 5" in box.text.value and not box.button_a.disabled
    assert not board.errors


@pytest.mark.parametrize("name", list(CLASSES))
def test_audits_run_and_say_what_they_mean_to_an_attacker(name):
    board = _board(name)
    panel = board.audit_panel
    panel.runs.value = 20_000
    panel.start(wait=True)
    rep = panel.report
    assert rep is not None and not rep.violation, rep
    assert "What it means to an attacker" in panel.result.value and "1 in 100" in panel.result.value


@pytest.mark.parametrize("name", ["CountingQueryDashboard", "AttackerDashboard"])
def test_broken_variant_is_caught(name):
    board = _board(name)
    panel = board.audit_panel
    panel.broken.value = True
    panel.runs.value = 100_000
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value


def test_hostile_url_values_are_clamped_or_reported():
    board = _board("CompositionDashboard", "k=100000&epsilon=nan&mechanism=cauchy")
    assert board.params()["k"] == 10 and board.params()["mechanism"] == "gaussian"
    assert not board.errors
