"""The local-model page without a browser: controls redraw plots (at most six shown), the lessons' predict
questions hold at seeds 0–9, the audit runs (honest and broken), and the notebook's quoted numbers."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.core.risk import advantage_bound  # noqa: E402
from dpexplore.local.audit import audit_oracle  # noqa: E402
from dpexplore.local.data import true_counts  # noqa: E402
from dpexplore.local.experiments import expected_mse, page_data  # noqa: E402
from dpexplore.local.models import shuffle_epsilon0  # noqa: E402
from dpexplore.ui.local import LocalDashboard  # noqa: E402
from dpexplore.ui.teaching import direction, load_lessons, measure_question, validate_lessons  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
NOTEBOOK = ROOT / "notebooks" / "14_local_model.ipynb"


def _board(qs=""):
    return LocalDashboard(query_string=qs, render=False, background=False)


@pytest.fixture(scope="module")
def board():
    return _board("n=300")


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


def _visible(b):
    return [c.name for c in b.controls if b.widgets[c.name].layout.display != "none"]


def test_at_most_six_controls(board):
    assert len(_visible(board)) <= 6 and not board.errors, board.errors


@pytest.mark.slow
def test_every_control_changes_a_plot(board):
    moves = {"oracle": "oue", "epsilon": 3.0, "k": 16, "n": 600, "seed": 1}
    for name, new in moves.items():
        before = _fig_json(board)
        board.set_params(**{name: new})
        assert not board.errors, (name, board.errors)
        assert any(before[k] != v for k, v in _fig_json(board).items()), f"moving {name} changed no plot"
        board.set_params(**{name: next(c.default for c in board.controls if c.name == name)})
    board.set_params(n=300)


def test_lessons_are_valid():
    lessons, errors = validate_lessons(load_lessons(LESSONS), {"LocalDashboard": LocalDashboard})
    assert [e for e in errors if e.startswith("LocalDashboard")] == []
    assert len(lessons["LocalDashboard"]["questions"]) == 3 and lessons["LocalDashboard"]["presets"]
    seqs = json.loads(LESSONS.read_text(encoding="utf-8"))["sequences"]
    assert any(s["dashboard"] == "LocalDashboard" for s in seqs)


def _questions():
    return [q["id"] for q in json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]["LocalDashboard"][
        "questions"]]


@pytest.mark.slow
@pytest.mark.parametrize("qid", _questions())
def test_predict_questions_hold_at_seeds_0_to_9(qid, board):
    lessons, _ = validate_lessons(load_lessons(LESSONS), {"LocalDashboard": LocalDashboard})
    q = next(q for q in lessons["LocalDashboard"]["questions"] if q["id"] == qid)
    for seed in range(10):
        for check, before, after in measure_question(board, q, seed=seed):
            assert np.isfinite(before) and np.isfinite(after)
            assert direction(before, after) == check["expect"], (seed, check, before, after)
            assert abs(after - before) >= 0.05 * max(abs(before), abs(after)), (seed, before, after)


def test_audit_panel_honest_and_broken(board):
    panel = board.audit_panel
    panel.runs.value = 20_000
    panel.broken.value = False
    panel.start(wait=True)
    assert panel.report is not None and not panel.report.violation
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value
    panel.broken.value = False


def test_hostile_url_values_are_clamped():
    b = _board("n=10000000&epsilon=nan&oracle=rappor&k=-3")
    p = b.params()
    assert 100 <= p["n"] <= 10_000 and p["oracle"] == "krr" and 2 <= p["k"] <= 32 and not b.errors
    assert math.isfinite(p["epsilon"]) and 0.1 <= p["epsilon"] <= 8.0


def test_panels_are_the_figures_builders(board):
    figs = _fig_json(board)
    assert set(figs) == {"oracles", "estimates", "models", "audit"}
    assert "paper 4" in figs["models"] and "BROKEN OUE" in figs["audit"]


# -- the notebook's quoted numbers, recomputed --------------------------------------------------------
def _guide():
    return "".join(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                   for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown")


def _num(pattern):
    m = re.search(pattern, _guide())
    assert m, pattern
    return [float(g) for g in m.groups()]


def _sd(oracle, k, eps=1.0):
    v, _ = page_data(k=k, n=1000)
    return math.sqrt(expected_mse(oracle, counts=true_counts(v, k), epsilon=eps))


def test_quoted_oracle_errors():
    krr, oue, hr = _num(r"±(0\.\d+) for k-RR, ±(0\.\d+) for OUE,\s+±(0\.\d+) for Hadamard response")
    assert (round(_sd("krr", 8), 3), round(_sd("oue", 8), 3), round(_sd("hr", 8), 3)) == (krr, oue, hr)
    krr32, oue32 = _num(r"k-RR's grows to ±(0\.\d+), OUE's stays at ±(0\.\d+)")
    assert (round(_sd("krr", 32), 3), round(_sd("oue", 32), 3)) == (krr32, oue32)


def test_quoted_local_shuffle_central():
    ratio, e0, ratio_s = _num(r"local k-RR's expected squared error is (\d+) times the central one \(exact\)\. With a "
                              r"shuffler each\s+person may use ε0 = (\d\.\d+) for the same central ε = 1 at δ = 10⁻⁶, "
                              r"and the error falls to (\d+\.\d) times")
    v, _ = page_data(k=8, n=1000)
    c = true_counts(v, 8)
    central = expected_mse("central Laplace", counts=c, epsilon=1.0)
    assert round(expected_mse("local k-RR", counts=c, epsilon=1.0) / central) == ratio
    assert round(shuffle_epsilon0(1.0, n=1000, k=8, delta=1e-6), 2) == e0
    assert round(expected_mse("shuffled k-RR", counts=c, epsilon=1.0) / central, 1) == ratio_s
    e100, e1000, e10000 = _num(r"(\d\.\d+) at n = 100, (\d\.\d+) at n = 1000, (\d\.\d+) at\s+n = 10 000")
    assert [round(shuffle_epsilon0(1.0, n=n, k=8, delta=1e-6), 2) for n in (100, 1000, 10_000)] == [
        e100, e1000, e10000]


@pytest.mark.slow
def test_quoted_audit_ranges_over_seeds_0_to_9():
    lo_h, hi_h = _num(r"k-RR at ε = 1 \(k = 8\), ε̂ is (\d\.\d+)–(\d\.\d+) over seeds 0–9")
    lo_b, hi_b = _num(r"ε̂ = (\d\.\d+)–(\d\.\d+) at seeds 0–9 against the claimed 1")
    honest = [audit_oracle("krr", k=8, epsilon=1.0, runs=20_000, rng=s).epsilon_lower for s in range(10)]
    broken = [audit_oracle("oue", k=8, epsilon=1.0, broken=True, runs=20_000, rng=s).epsilon_lower for s in range(10)]
    assert (round(min(honest), 2), round(max(honest), 2)) == (lo_h, hi_h)
    assert (round(min(broken), 2), round(max(broken), 2)) == (lo_b, hi_b)
    (adv,) = _num(r"advantage from one report at ε = 1 is at most (0\.\d+)")
    assert round(advantage_bound(1.0), 2) == adv


def test_the_lesson_sequence_answers():
    seq = next(s for s in json.loads(LESSONS.read_text(encoding="utf-8"))["sequences"] if s["name"] == "local-model")
    steps = {s["preset"]: s["answer"] for s in seq["steps"]}
    oue, krr = (float(x) for x in re.search(r"±(0\.\d+) per frequency, exact\).*\(±(0\.\d+)\)",
                                            steps["many-choices"]).groups())
    assert (round(_sd("oue", 32), 3), round(_sd("krr", 32), 3)) == (oue, krr)
    assert min(("krr", "sue", "oue", "olh", "hr"), key=lambda o: _sd(o, 32)) == "oue"
    # strong privacy (ε = 0.2): local is "hundreds of times" the central squared error; the shuffler closes most of it
    v, _ = page_data(k=8, n=1000)
    c = true_counts(v, 8)
    central = expected_mse("central Laplace", counts=c, epsilon=0.2)
    for local in ("local k-RR", "local OUE"):
        assert 100 <= expected_mse(local, counts=c, epsilon=0.2) / central < 1000
    assert expected_mse("shuffled k-RR", counts=c, epsilon=0.2) / central < 10


def test_the_class_polls_own_reports_with_poll_code(tmp_path, monkeypatch):
    """Issue 44 item 2: ``?poll=CODE`` (the poll's instructor) shows the k-choice poll's stored reports in panel 2:
    the estimate is the one dpexplore.local computes from exactly those reports; anyone else, a yes/no poll or an
    unknown code gets a message and the generated answers."""
    from dpexplore.classroom.store import PollStore
    from dpexplore.local.mechanisms import estimate

    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path))
    store = PollStore(str(tmp_path))
    poll = store.create_kary_poll("Favourite season?", ["winter", "spring", "summer", "autumn"], oracle="krr",
                                  epsilon=1.0)
    reports = [0, 2, 2, 3, 1, 2, 2, 0, 3, 2]
    for r in reports:
        store.submit_report(poll.code, store.issue_token(poll.code), r)
    board = _board(f"poll={poll.code.lower()}")
    assert board._class is not None and board._class.n == len(reports)
    assert "the 10 reports stored by the k-choice poll" in board._message_box.value
    fig = board.figures["estimates"]
    (trace,) = [t for t in fig.data if "estimate" in (t.name or "")]
    expected = estimate(store.kary_reports(poll.code, creator="local").as_local_result()).frequencies
    np.testing.assert_allclose(np.asarray(trace.y, dtype=float), expected, rtol=0, atol=1e-12)
    assert list(trace.x) == ["winter", "spring", "summer", "autumn"]
    # panel 3 runs local vs shuffle vs central on the answers the reports estimate: 10 people, k = 4
    from dpexplore.ui.local import class_population

    pop = class_population(board._class)
    assert pop.size == len(reports) and set(pop.tolist()) <= set(range(4))
    models = board.figures["models"]
    assert "estimated from the 10 reports" in json.dumps(models.to_plotly_json()["layout"].get("annotations", []))

    yes_no = store.create_poll("Ever cheated?", epsilon=1.0)
    for code, why in ((yes_no.code, "not a k-choice poll"), ("ZZZZ99", "")):
        other = _board(f"poll={code}")
        assert other._class is None and "URL parameter poll ignored" in other._message_box.value
        assert why in other._message_box.value
    monkeypatch.setenv("SERVER_SOFTWARE", "voila/0.5")  # a student's Voila page: no instructor link, no grant
    stranger = _board(f"poll={poll.code}")
    assert stranger._class is None and "URL parameter poll ignored" in stranger._message_box.value
