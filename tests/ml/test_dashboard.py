"""The private-ML page without a browser: every control redraws a plot, the lessons' predict questions hold at
seeds 0-9, the audit passes honest DP-SGD and refutes the broken one, the guide's numbers are what the page shows."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.ui.teaching import direction, load_lessons, measure_question, validate_lessons  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
NAME = "PrivateMLDashboard"


def _board(qs=""):
    from dpexplore.ui.ml import PrivateMLDashboard

    return PrivateMLDashboard(query_string=qs, render=False, background=False)


@pytest.fixture(scope="module")
def board():
    return _board()


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


@pytest.mark.slow
def test_every_control_changes_a_plot_and_at_most_six_controls(board):
    assert len(type(board).controls) <= 6
    assert not board.errors, board.errors
    for ctl in type(board).controls:
        before = _fig_json(board)
        if ctl.kind in ("int", "logint"):
            new = min(int(ctl.high), int(board.params()[ctl.name]) + max(1, int(board.params()[ctl.name]) // 2))
        else:
            new = min(float(ctl.high), float(board.params()[ctl.name]) * 3)
        board.set_params(**{ctl.name: new})
        after = _fig_json(board)
        assert not board.errors, (ctl.name, board.errors)
        assert any(before[k] != after[k] for k in after), f"moving {ctl.name} changed no plot"
        board.set_params(**{ctl.name: ctl.default})


def test_lessons_are_valid():
    from dpexplore.ui.ml import PrivateMLDashboard

    lessons, errors = validate_lessons(load_lessons(LESSONS), {NAME: PrivateMLDashboard})
    assert [e for e in errors if e.startswith(NAME)] == []
    assert 2 <= len(lessons[NAME]["questions"]) <= 3 and lessons[NAME]["presets"]
    seqs = json.loads(LESSONS.read_text(encoding="utf-8"))["sequences"]
    assert any(s["dashboard"] == NAME for s in seqs)


def _questions():
    data = json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]
    return [q["id"] for q in data[NAME]["questions"]]


@pytest.mark.slow
@pytest.mark.parametrize("qid", _questions())
def test_each_predict_question_holds_at_seeds_0_to_9(qid, board):
    from dpexplore.ui.ml import PrivateMLDashboard

    lessons, _ = validate_lessons(load_lessons(LESSONS), {NAME: PrivateMLDashboard})
    q = next(q for q in lessons[NAME]["questions"] if q["id"] == qid)
    for seed in range(10):
        for check, before, after in measure_question(board, q, seed=seed):
            assert np.isfinite(before) and np.isfinite(after), (check, before, after)
            assert direction(before, after) == check["expect"], (seed, check, before, after)
            assert abs(after - before) >= 0.05 * max(abs(before), abs(after)), (seed, check, before, after)


@pytest.mark.slow
def test_audit_passes_honest_and_refutes_no_clipping():
    b = _board()
    panel = b.audit_panel
    panel.runs.value = 20_000
    panel.start(wait=True)
    assert panel.report is not None and not panel.report.violation, panel.report
    assert "What it means to an attacker" in panel.result.value
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value


@pytest.mark.slow
def test_the_guides_numbers(board):
    """Numbers quoted in notebooks/13_private_ml.ipynb and the lesson sequence, recomputed as the page does."""
    from dpexplore.ml import experiments as X
    from dpexplore.ml.accounting import dpsgd_epsilon

    e = {a: dpsgd_epsilon(sampling_rate=0.05, noise_multiplier=1.0, steps=200, delta=1e-5, accountant=a)
         for a in ("pld", "rdp", "none")}
    assert round(e["pld"], 1) == 4.8 and round(e["rdp"], 1) == 5.4 and 150 < e["none"] < 170
    assert dpsgd_epsilon(sampling_rate=0.05, noise_multiplier=32.0, steps=200, delta=1e-5) == pytest.approx(0.16,
                                                                                                          abs=0.01)
    for seed in (0, 1):  # the page's panel at two seeds (each a mean over 10 training seeds)
        r = X.accuracy_vs_noise(rng=seed)
        acc = dict(zip(r.grid, r.mean[0]))
        assert 0.95 <= acc[1.0] <= 0.975 and 0.955 <= r.mean[1][0] <= 0.975  # "about 96 %", "about 96.5 %"
        assert r.lower[1][0] <= acc[1.0] + 0.01  # "the same within the bands"
        assert 0.88 <= acc[8.0] <= 0.94  # "about 90-93 %"
        assert 0.75 <= acc[32.0] <= 0.85  # "about 80 %"
    fr = [X.gradient_norms(rng=s).extras["clipped_fraction"][0] for s in range(10)]
    assert 0.06 <= min(fr) and max(fr) <= 0.09  # "about 7-8 %" at C = 1
    fr = [X.gradient_norms(rng=s, clip_norm=0.1).extras["clipped_fraction"][0] for s in range(10)]
    assert 0.4 <= min(fr) and max(fr) < 0.5  # "almost half" at C = 0.1


@pytest.mark.slow
def test_hostile_url_values_are_clamped_or_reported():
    b = _board("steps=100000000&noise_multiplier=nan&sampling_rate=-3")
    p = b.params()
    assert p["steps"] == 200 and p["noise_multiplier"] == 1.0 and p["sampling_rate"] == 0.05
    assert not b.errors
