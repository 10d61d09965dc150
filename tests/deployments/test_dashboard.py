"""The deployments page without a browser: controls redraw plots (at most six shown), the lessons' questions hold
at seeds 0–9, the audit (honest and broken), and the numbers the notebook quotes."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from dpexplore.classroom.lessons import direction  # noqa: E402
from dpexplore.core.discrete_gaussian import zcdp_epsilon  # noqa: E402
from dpexplore.core.gaussian import zcdp_to_dp  # noqa: E402
from dpexplore.deployments.audit import audit_topdown, exact_pair_epsilon  # noqa: E402
from dpexplore.deployments.experiments import bias_by_block_size  # noqa: E402
from dpexplore.deployments.registry import load_registry  # noqa: E402
from dpexplore.ui.deployments import BIAS_SENTENCE, DeploymentsDashboard, registry_figure  # noqa: E402
from dpexplore.ui.questions import measure_question  # noqa: E402
from dpexplore.ui.teaching import load_lessons, validate_lessons  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "notebooks" / "lessons.json"
NOTEBOOK = ROOT / "notebooks" / "15_deployments.ipynb"


@pytest.fixture(scope="module")
def board():
    return DeploymentsDashboard(query_string="", render=False, background=False)


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


def _visible(b):
    return [c.name for c in b.controls if b.widgets[c.name].layout.display != "none"]


def test_at_most_six_controls_and_every_control_changes_a_plot(board):
    assert len(_visible(board)) <= 6 and "seed" not in _visible(board)
    moves = {"rho": 1.0, "block_share": 0.8, "k": 30, "mode": "group", "prior": 0.2, "seed": 1}
    for name, new in moves.items():
        before = _fig_json(board)
        board.set_params(**{name: new})
        assert not board.errors, (name, board.errors)
        assert any(before[k] != v for k, v in _fig_json(board).items()), f"moving {name} changed no plot"
        board.set_params(**{name: next(c.default for c in board.controls if c.name == name)})


def test_lessons_are_valid_and_questions_hold_at_seeds_0_to_9(board):
    lessons, errors = validate_lessons(load_lessons(LESSONS), {"DeploymentsDashboard": DeploymentsDashboard})
    assert [e for e in errors if e.startswith("DeploymentsDashboard")] == []
    entry = json.loads(LESSONS.read_text(encoding="utf-8"))["dashboards"]["DeploymentsDashboard"]
    assert 2 <= len(entry["questions"]) <= 3 and entry["presets"]
    for q in entry["questions"]:
        for seed in range(10):
            for check, before, after in measure_question(board, q, seed=seed):
                assert direction(before, after) == check["expect"], (q["id"], seed, before, after)


def test_registry_table_cites_every_source():
    fig = registry_figure({"k": 1, "mode": "time", "prior": 0.01})
    sources = fig.data[0].cells.values[-1]
    rows = load_registry()
    assert len(sources) == len(rows)
    for r, cell in zip(rows, sources):
        assert r.source["url"] in cell


def test_notebook_numbers():
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert json.dumps(BIAS_SENTENCE, ensure_ascii=False)[1:-1] in text  # the page's tested sentence, verbatim
    # ρ = 0.1 → ε at δ = 10⁻¹⁰: tight 2.88, simple 3.13; the audit pair's exact ε 2.76
    assert round(zcdp_epsilon(0.1, 1e-10), 2) == 2.88 and round(zcdp_to_dp(0.1, 1e-10), 2) == 3.13
    assert round(exact_pair_epsilon(0.1, 0.5, 1e-10), 2) == 2.76
    for s in ("ε = 2.88 (simple: 3.13)", "exact ε is 2.76", "at most 0.51 at seeds 0–9", "ε̂ = 7.9 at every seed",
              "about +0.35", "about 5.6"):
        assert s in text, s
    assert round(1 / (2 * 0.09), 1) == 5.6  # 90 % of ρ = 0.1 for blocks: σ² = 1/(2·0.09)
    census = {r.key: r for r in load_registry()}
    assert census["census2020_persons"].epsilon + census["census2020_units"].epsilon == pytest.approx(19.61)


@pytest.mark.slow
def test_quoted_bias_at_rho_1_and_audit_over_seeds():
    at_one = [np.nanmean(bias_by_block_size(rho=1.0, trials=50, rng=s).values[0, 0]) for s in range(10)]
    assert all(0.3 <= round(v, 2) <= 0.4 for v in at_one), at_one  # "about +0.35"
    honest = [audit_topdown(rho=0.1, runs=20_000, rng=s) for s in range(10)]
    broken = [audit_topdown(rho=0.1, broken=True, runs=20_000, rng=s) for s in range(10)]
    assert max(a.epsilon_lower for a in honest) <= 0.51 and not any(a.violation for a in honest)
    assert all(round(a.epsilon_lower, 1) == 7.9 and a.violation for a in broken)
    assert all(a.exact_epsilon == np.inf for a in broken)


def test_audit_panel_runs_honest_and_broken(board):
    ok = board.audit_report(board.params(), broken=False, runs=2000, rng=0, progress=lambda d, t: True)
    bad = board.audit_report(board.params(), broken=True, runs=2000, rng=0, progress=lambda d, t: True)
    assert ok.exact_epsilon <= ok.claimed_epsilon and bad.exact_epsilon == np.inf
