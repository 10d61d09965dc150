"""The private-statistics page without a browser: controls redraw plots (at most six shown), the lessons'
predict questions hold at seeds 0–9, the audit runs (honest and broken), and the notebook's quoted numbers."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.statistics.audit import audit_statistic  # noqa: E402
from dpexplore.statistics.experiments import column_data, exact_mse  # noqa: E402
from dpexplore.statistics.theory import epsilon_for_accuracy, optimal_bound  # noqa: E402
from dpexplore.ui.statistics import StatisticsDashboard  # noqa: E402
from dpexplore.ui.teaching import direction, load_lessons, measure_question, validate_lessons  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
NOTEBOOK = ROOT / "notebooks" / "11_private_statistics.ipynb"


def _board(qs=""):
    return StatisticsDashboard(query_string=qs, render=False, background=False)


@pytest.fixture(scope="module")
def board():
    return _board("n=120")


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


def _visible(b):
    return [c.name for c in b.controls if b.widgets[c.name].layout.display != "none"]


@pytest.mark.slow
def test_at_most_six_controls_shown_for_every_statistic(board):
    for stat in ("mean", "median", "histogram", "count"):
        board.widgets["statistic"].value = stat
        assert len(_visible(board)) <= 6, (stat, _visible(board))
    board.set_params(statistic="mean")
    assert "clip" in _visible(board) and "bins" not in _visible(board) and "seed" not in _visible(board)


@pytest.mark.slow
def test_every_control_changes_a_plot(board):
    moves = {"column": "age", "statistic": "median", "epsilon": 3.0, "clip": 0.8, "n": 60, "rows_per_person": 3,
             "seed": 1}
    for name, new in moves.items():
        before = _fig_json(board)
        board.set_params(**{name: new})
        assert not board.errors, (name, board.errors)
        assert any(before[k] != v for k, v in _fig_json(board).items()), f"moving {name} changed no plot"
        board.set_params(**{name: next(c.default for c in board.controls if c.name == name)})
    board.set_params(statistic="histogram")
    before = _fig_json(board)
    board.set_params(bins=20)
    assert before["release"] != _fig_json(board)["release"] and not board.errors
    board.set_params(statistic="mean", bins=10)


def test_lessons_are_valid():
    lessons, errors = validate_lessons(load_lessons(LESSONS), {"StatisticsDashboard": StatisticsDashboard})
    assert [e for e in errors if e.startswith("StatisticsDashboard")] == []
    assert len(lessons["StatisticsDashboard"]["questions"]) == 3 and lessons["StatisticsDashboard"]["presets"]
    seqs = json.loads(LESSONS.read_text(encoding="utf-8"))["sequences"]
    assert any(s["dashboard"] == "StatisticsDashboard" for s in seqs)


def _questions():
    return [q["id"] for q in json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]["StatisticsDashboard"][
        "questions"]]


@pytest.mark.slow
@pytest.mark.parametrize("qid", _questions())
def test_predict_questions_hold_at_seeds_0_to_9(qid, board):
    lessons, _ = validate_lessons(load_lessons(LESSONS), {"StatisticsDashboard": StatisticsDashboard})
    q = next(q for q in lessons["StatisticsDashboard"]["questions"] if q["id"] == qid)
    board.set_params(n=442)
    for seed in range(10):
        for check, before, after in measure_question(board, q, seed=seed):
            assert np.isfinite(before) and np.isfinite(after)
            assert direction(before, after) == check["expect"], (seed, check, before, after)
            if check["expect"] != "same":
                assert abs(after - before) >= 0.05 * max(abs(before), abs(after)), (seed, before, after)
    board.set_params(n=120)


@pytest.mark.parametrize("stat", ["mean", "histogram"])
def test_audit_panel_honest_and_broken(stat, board):
    board.set_params(statistic=stat)
    panel = board.audit_panel
    panel.runs.value = 20_000
    panel.broken.value = False
    panel.start(wait=True)
    assert panel.report is not None and not panel.report.violation
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value
    panel.broken.value = False
    board.set_params(statistic="mean")


def test_hostile_url_values_are_clamped():
    b = _board("n=100000&epsilon=nan&statistic=mode&rows_per_person=-3")
    p = b.params()
    assert p["n"] == 442 and p["statistic"] == "mean" and p["rows_per_person"] == 1 and not b.errors


# -- the notebook's quoted numbers, recomputed --------------------------------------------------------
def _guide():
    return "".join(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                   for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown")


def _num(pattern):
    m = re.search(pattern, _guide())
    assert m, pattern
    return [float(g) for g in m.groups()]


def test_quoted_bias_and_variance():
    b2, var = _num(r"bias² ≈ (\d+\.\d+), variance ≈ (\d+\.\d+)")
    x, lo, u, _ = column_data("bmi", clip=0.5)
    eb2, evar = exact_mse("mean", x, lower=lo, upper=u, epsilon=1.0)
    assert round(eb2, 3) == b2 and float(f"{evar:.2g}") == var


def test_quoted_best_bounds():
    at1, at01, at10 = _num(r"At ε = 1 about U = (\d+); at ε = 0\.1 it moves down to about (\d+), at ε = 10 up to\s+"
                           r"about (\d+)")
    x, lo, _, top = column_data("bmi")
    us = lo + np.linspace(0.05, 1.0, 400) * (top - lo)
    for eps, quoted in ((1.0, at1), (0.1, at01), (10.0, at10)):
        assert abs(optimal_bound(x, lower=lo, uppers=us, epsilon=eps) - quoted) <= 1.0, eps


def test_quoted_epsilon_for_accuracy():
    eps_age, post, eps_count = _num(r"costs ε ≈ (\d\.\d+); an attacker who was\s+1% sure you are in the data is "
                                    r"then at most (\d\.\d)% sure\. A count within ±10 costs ε ≈ (\d\.\d+)")
    p = epsilon_for_accuracy("mean", half_width=1.0, n=442, lower=18, upper=90)
    assert round(p.epsilon, 2) == eps_age and round(100 * p.posterior, 1) == post
    assert round(epsilon_for_accuracy("count", half_width=10).epsilon, 2) == eps_count


@pytest.mark.slow
def test_quoted_audit_ranges_over_seeds_0_to_9():
    lo_h, hi_h = _num(r"honest mean at ε = 1, ε̂ is (\d\.\d+)–(\d\.\d+) over seeds 0–9")
    lo_b, hi_b = _num(r"audit measures ε̂\s+(\d\.\d)–(\d\.\d) at seeds 0–9")
    (bins,) = _num(r"ε̂ = (\d\.\d) at every seed")
    honest = [audit_statistic("mean", epsilon=1.0, n=100, runs=20_000, rng=s).epsilon_lower for s in range(10)]
    broken = [audit_statistic("mean", epsilon=1.0, n=100, broken="data_bounds", runs=20_000, rng=s).epsilon_lower
              for s in range(10)]
    hist = [audit_statistic("histogram", epsilon=1.0, n=100, broken="data_bins", runs=20_000, rng=s).epsilon_lower
            for s in range(10)]
    assert (round(min(honest), 2), round(max(honest), 2)) == (lo_h, hi_h)
    assert (round(min(broken), 1), round(max(broken), 1)) == (lo_b, hi_b)
    assert {round(h, 1) for h in hist} == {bins}


@pytest.mark.slow
def test_upload_a_csv_and_use_it():
    b = _board("n=60")
    box = b.upload_box
    box.load([{"name": "bad.csv", "content": b"a,b\n1,2\n3,x\n"}])
    assert "row 3, column &#x27;b&#x27;" in box.message.value and box.use.disabled and not b.errors
    rows = "\n".join(f"{i % 37 + 0.5},{i}" for i in range(80))
    box.load([{"name": "mine.csv", "content": ("weight,id\n" + rows + "\n").encode()}])
    assert list(box.column.options) == ["weight", "id"] and "NOT public" in box.message.value
    before = _fig_json(b)
    box.lower.value, box.upper.value = 0.0, 40.0
    box.apply()
    assert not b.errors, b.errors
    after = _fig_json(b)
    assert all(before[k] != after[k] for k in after)  # every panel now shows the upload
    assert "weight (your upload)" in after["error"]
    box.upper.value = -1.0
    box.apply()
    assert "public upper must be &gt; public lower" in box.message.value
    box.reset()
    assert not b.errors and _fig_json(b)["error"] == before["error"]
