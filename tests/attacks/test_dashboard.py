"""The "Why DP" dashboard without a browser: every control redraws a plot, at most six controls, the lessons'
questions hold at seeds 0–9 with a visible change, the audit passes the honest release and refutes the broken
one, hostile URL values are clamped."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from pathlib import Path  # noqa: E402

from dpexplore.ui.attacks import AttacksDashboard  # noqa: E402
from dpexplore.ui.teaching import (  # noqa: E402
    VISIBLE_FRACTION,
    check_value,
    direction,
    load_lessons,
    plotted_change,
    question_views,
    validate_lessons,
)

LESSONS = Path(__file__).resolve().parents[2] / "notebooks" / "lessons.json"
NAME = "AttacksDashboard"


def _board(qs=""):
    return AttacksDashboard(query_string=qs, render=False, background=False)


@pytest.fixture(scope="module")
def board():
    return _board()


def _fig_json(b):
    return {k: f.to_json() for k, f in b.figures.items()}


@pytest.mark.slow
def test_every_control_changes_a_plot_and_at_most_six_controls(board):
    assert len(AttacksDashboard.controls) <= 6
    assert not board.errors, board.errors
    assert set(board.figures) == {p.name for p in AttacksDashboard.panels}
    for ctl in AttacksDashboard.controls:
        before = _fig_json(board)
        if ctl.kind == "choice":
            new = next(v for v in ctl.option_values if v != board.params()[ctl.name])
        elif ctl.kind in ("int", "logint"):
            new = min(int(ctl.high), int(board.params()[ctl.name]) + max(1, int(board.params()[ctl.name]) // 2))
        else:
            new = min(float(ctl.high), float(board.params()[ctl.name]) * 3)
        board.set_params(**{ctl.name: new})
        assert not board.errors, (ctl.name, board.errors)
        after = _fig_json(board)
        assert any(before[k] != after[k] for k in after), f"moving {ctl.name} changed no plot"
        board.set_params(**{ctl.name: ctl.default})


def test_lessons_are_valid():
    lessons, errors = validate_lessons(load_lessons(LESSONS), {NAME: AttacksDashboard})
    assert [e for e in errors if NAME in e or "why-dp" in e] == []
    entry = lessons[NAME]
    assert 2 <= len(entry["questions"]) <= 3 and entry["presets"] and entry["sequences"]


def _questions():
    return [q["id"] for q in load_lessons(LESSONS)["dashboards"][NAME]["questions"]]


@pytest.mark.slow
@pytest.mark.parametrize("qid", _questions())
def test_each_question_holds_at_seeds_0_to_9_with_a_visible_change(qid, board):
    lessons, _ = validate_lessons(load_lessons(LESSONS), {NAME: AttacksDashboard})
    q = next(q for q in lessons[NAME]["questions"] if q["id"] == qid)
    for seed in range(10):
        views = question_views(board, q, seed=seed)
        for check in q["check"]:
            before, after = (views[(check["panel"], a)] for a in (False, True))
            b, a = check_value(check, *before), check_value(check, *after)
            assert np.isfinite(b) and np.isfinite(a), (seed, check, b, a)
            assert direction(b, a) == check["expect"], (seed, check, b, a)
            assert plotted_change(check, before, after) >= VISIBLE_FRACTION, (seed, check, b, a)


def test_audit_passes_the_honest_release_and_refutes_the_broken_one():
    b = _board("n=50&m=200")
    panel = b.audit_panel
    panel.runs.value = 20_000
    panel.start(wait=True)
    rep = panel.report
    assert rep is not None and not rep.violation, rep
    assert rep.exact_epsilon <= rep.claimed_epsilon + 1e-9
    assert "What it means to an attacker" in panel.result.value
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value


@pytest.mark.slow
def test_broken_noise_choice_beats_the_dp_bound_on_the_page():
    """The page's quoted behaviour: with the broken per-query calibration the attack's measured fraction
    exceeds the claimed DP bound e/(1 + e) by 0.1 at every m ≥ 2n, at seeds 0–9 (n = 40 keeps it fast)."""
    from dpexplore.attacks.theory import dp_recovery_bound

    b = _board("noise=broken&n=40&m=160")
    bound = dp_recovery_bound(1.0)
    for seed in range(10):
        b.set_params(seed=seed)
        res = b.results["recover"][""]
        grid = np.asarray(res.grid)
        assert np.all(res.mean[0][grid >= 80] > bound + 0.1), (seed, res.mean[0])
    assert not b.errors


def test_hostile_url_values_are_clamped_or_reported():
    b = _board("n=100000&m=-5&epsilon=nan&noise=cauchy")
    p = b.params()
    assert p["n"] == 100 and p["noise"] == "bounded" and 10 <= p["m"] <= 2000
    assert not b.errors


def test_the_page_attacks_the_class_poll_answers_and_says_whose(tmp_path, monkeypatch):
    """?poll=CODE (issue 40): panel 3's secret column is the class poll's stored answers, dealt to the roster; the
    page says whose data it is; panels 1, 2 and 4 keep fair coins; a bad or unknown code is said and ignored."""
    from dpexplore.attacks.data import class_secret_bits
    from dpexplore.classroom.store import PollStore

    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path))
    store = PollStore(tmp_path)
    poll = store.create_poll("Have you ever copied homework?", epsilon=1.0)  # creator "local": this process
    bits = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0]
    for b in bits:
        store.submit(poll.code, store.issue_token(poll.code), b)
    board = _board(f"poll={poll.code}&n=40&m=160")
    assert not board.errors, board.errors
    said = board._message_box.value
    assert f"class poll {poll.code}" in said and "10 answers" in said and "4 yes" in said, said
    assert "not anyone's true answer" in said and "Panels 1, 2 and 4 use fair coins" in said
    want = class_secret_bits([1] * 4 + [0] * 6, 40, rng=0)
    drawn = board.results["picture"][""]
    assert drawn.values[0, :, 0].astype(int).tolist() == want.tolist()
    note = " ".join(a.text for a in board.figures["picture"].layout.annotations)
    assert f"class poll {poll.code}" in note and "roster of 40 fake students" in note
    assert "class_secret_bits" in board.reproduce(board.params())
    plain = _board("n=40&m=160")  # the same settings without the poll: fair coins, said so
    assert "fair coins" in " ".join(a.text for a in plain.figures["picture"].layout.annotations)
    for bad, why in (("ZZZZZZ", "poll ZZZZZZ was not created by this instructor"),
                     ("%3Cb%3E", "join code must be 6 characters from A-Z and 2-9 (no I, O, 0, 1); got "
                                 "&#x27;&lt;B&gt;")):
        other = _board(f"poll={bad}&n=40&m=160")
        text = other._message_box.value
        assert f"URL parameter poll ignored: {why}" in text and "fair coins" in text, text
        assert "<B>" not in text and other._class is None and not other.errors


def test_an_epsilon_move_redraws_panel_4_only_under_bounded_noise_and_every_panel_under_dp_noise(monkeypatch):
    """Under bounded noise panels 1-3 do not read ε (Panel.unused_when): moving the ε slider redraws the
    released means only; under Laplace noise every panel reads ε and all four redraw."""
    b = _board("noise=bounded&n=40&m=80")
    drawn: list[str] = []
    real = b._figure_or_error
    monkeypatch.setattr(b, "_figure_or_error", lambda panel, params: (drawn.append(panel.name), real(panel, params))[1])
    b.widgets["epsilon"].value = 2.0  # as the slider does: the control's observer calls refresh("epsilon")
    assert drawn == ["membership"], drawn
    assert not b.errors, b.errors
    b.widgets["noise"].value = "laplace"
    drawn.clear()
    b.widgets["epsilon"].value = 4.0
    assert sorted(drawn) == sorted(p.name for p in AttacksDashboard.panels), drawn
    assert not b.errors, b.errors
