"""Issue 38: each intro page's run sheet (the ``run-sheet`` lesson sequence of its dashboard) fills the page's
stated minutes (the gallery's, read from tools/make_index.py), minute by minute, with questions the room is asked
on their devices; the validator refuses a run sheet whose steps do not add up, and the page steps through it."""

import ast
import base64
import html
import re
from pathlib import Path

import pytest

from dpexplore.classroom.lessons import STEP_KINDS, load_lessons, run_sheet_html, step_times, validate_lessons

ROOT = Path(__file__).resolve().parents[2]
#: intro notebook -> its dashboard class (each notebook's one constructor call, checked below)
PAGES = {"00_intro_1_randomized_response_laplace.ipynb": "CountingQueryDashboard",
         "00_intro_2_what_epsilon_means.ipynb": "AttackerDashboard",
         "00_intro_3_composition.ipynb": "CompositionDashboard"}


def _gallery_minutes() -> dict[str, float]:
    """The minutes the gallery states for each page (tools/make_index.py, read as source: not imported)."""
    tree = ast.parse((ROOT / "tools" / "make_index.py").read_text())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            first = node.elts[0].value
            if isinstance(first, str) and first.endswith(".ipynb"):
                nums = [e.value for e in node.elts if isinstance(e, ast.Constant) and type(e.value) in (int, float)]
                out[first] = nums[0]
    return out


def _classes():
    pytest.importorskip("ipywidgets")
    from dpexplore.ui.attacker import AttackerDashboard
    from dpexplore.ui.basics import CountingQueryDashboard
    from dpexplore.ui.composition import CompositionDashboard

    return {c.__name__: c for c in (CountingQueryDashboard, AttackerDashboard, CompositionDashboard)}


def test_each_intro_run_sheet_adds_up_to_the_gallerys_minutes():
    minutes = _gallery_minutes()
    assert {minutes[nb] for nb in PAGES} == {30, 25}, minutes  # 30, 30, 25 as the gallery says
    lessons, errors = validate_lessons(load_lessons(), _classes())
    errors = [e for e in errors if "is not a dashboard class" not in e]  # the papers' entries (not given here)
    assert not errors, errors
    for nb, cls in PAGES.items():
        assert f"{cls}(" in (ROOT / "notebooks" / nb).read_text()
        seq = lessons[cls]["sequences"]["run-sheet"]
        steps = seq["steps"]
        assert seq["minutes"] == minutes[nb]
        assert sum(s["minutes"] for s in steps) == minutes[nb], (nb, [s["minutes"] for s in steps])
        assert step_times(seq)[-1][1] == minutes[nb]
        assert all(s["minutes"] <= 6 for s in steps)  # minute by minute: no step longer than 6 minutes
        kinds = {s["do"] for s in steps}
        assert kinds <= set(STEP_KINDS) and {"say", "show", "ask", "reveal"} <= kinds, kinds
        asked = [s for s in steps if s["do"] == "ask"]
        assert len(asked) >= 2 and all(s.get("question") for s in asked)  # sent to the students' devices
        ids = {q["id"] for q in lessons[cls]["questions"]}
        assert {s["question"] for s in asked} <= ids
        page = run_sheet_html(seq, lessons[cls]["presets"], lessons[cls]["questions"], dashboard_title=nb)
        for (t0, t1), s in zip(step_times(seq), steps):
            assert f"{t0:g}–{t1:g} min" in page and html.escape(s["say"]) in page
        assert f"Total: {minutes[nb]:g} minutes" in page and page.count("Sent to the students' devices") >= 2
    assert "play" in {s["do"] for s in lessons["AttackerDashboard"]["sequences"]["run-sheet"]["steps"]}


def test_a_run_sheet_that_does_not_add_up_or_names_a_missing_question_is_refused():
    data = load_lessons()
    seq = next(s for s in data["sequences"] if s["dashboard"] == "CompositionDashboard" and s["name"] == "run-sheet")
    short = dict(seq, steps=seq["steps"][:-1])
    wrong_q = dict(seq, steps=[dict(seq["steps"][0], question="nope"), *seq["steps"][1:]])
    wrong_do = dict(seq, steps=[dict(seq["steps"][0], do="dance"), *seq["steps"][1:]])
    for bad, msg in ((short, "the steps add up to 23 minutes, not the stated 25"),
                     (wrong_q, "'nope' is not a (valid) question of CompositionDashboard"),
                     (wrong_do, "must be one of say, show, ask, play, reveal; got 'dance'")):
        lessons, errors = validate_lessons({"dashboards": data["dashboards"], "sequences": [bad]}, _classes())
        assert "run-sheet" not in lessons["CompositionDashboard"]["sequences"]
        assert any(msg in e for e in errors), errors


@pytest.mark.slow
def test_the_page_steps_through_its_run_sheet_and_opens_each_question_for_the_room():
    cls = _classes()["CompositionDashboard"]
    d = cls(query_string="lesson=run-sheet", render=False, background=False)
    t = d.teaching
    assert "step 1 of 9" in t.step_text.value and "min 0–3" in t.step_text.value and not t.predict_mode
    m = re.search(r"class='dpx-run-sheet' download='([^']+)' href='data:text/html;base64,([^']+)'", t.worksheets.value)
    assert m and m.group(1) == "run-sheet_run_sheet.html"
    assert "Total: 25 minutes" in base64.b64decode(m.group(2)).decode()
    t.go_step(3)  # an "ask" step: its question opens in the predict box, at its starting point
    q = t.questions[t._qindex]
    assert t.predict_mode and t.predict_box.layout.display == "flex" and q["id"] == "halve-eps-audit"
    assert "dpx-open" in t.side_box._dom_classes and d.params()["epsilon"] == q["settings"]["epsilon"]
    t.commit(q["answer"])  # the page's own answer (the room's round is tested in the browser)
    changed = d.params()
    assert changed["epsilon"] == q["change"]["epsilon"]
    t.go_step(4)  # the "reveal" step goes on with the same question: the view keeps the change
    assert d.params() == changed and t._reveal is not None and "min 13–15" in t.step_text.value
    t.go_step(5)  # a step without a question: the question box closes
    assert not t.predict_mode and t.predict_box.layout.display == "none"
    d2 = cls(query_string="lesson=run-sheet&step=7", render=False, background=False)  # a URL straight to an ask
    assert d2.teaching.predict_mode and d2.teaching.questions[d2.teaching._qindex]["id"] == "split-delta"
    assert d2.params()["delta"] == 1e-6
