"""Class-wide predictions without a browser (issue 25): an instructor's dashboard asks the room, students
answer on the poll page, the instructor closes the round and the room's counts appear beside the measured
outcome. The Chromium version (an instructor and 3 student contexts) is in tests/browser/test_teaching.py."""

import json
import re

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.classroom import PollStore  # noqa: E402
from dpexplore.classroom.predictions import RoomPrediction  # noqa: E402
from dpexplore.ui.class_predict import histogram_html  # noqa: E402
from dpexplore.ui.poll import ClassPoll  # noqa: E402

from .test_teaching import TINY_LESSONS, Tiny  # noqa: E402


@pytest.fixture
def tiny_lessons(tmp_path, monkeypatch):
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps(TINY_LESSONS))
    monkeypatch.setenv("DPEXPLORE_LESSONS", str(path))
    return path


@pytest.fixture
def poll_dir(tmp_path, monkeypatch):
    d = tmp_path / "polls"
    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(d))
    monkeypatch.delenv("DPEXPLORE_POLL_DB", raising=False)
    return d


def _student(code, store):
    s = ClassPoll(query_string=f"join={code}", store=store, render=False)
    assert s.mode == "student" and s.poll.choices is not None, s._poll_messages.value
    return s


def test_the_room_predicts_and_its_counts_are_shown_beside_the_measured_outcome(tiny_lessons, poll_dir):
    d = Tiny(query_string="mode=predict")
    t, room = d.teaching, d.teaching.room
    assert room.layout.display is None  # outside Voila the notebook's user is the instructor ("local")
    room.ask_button.click()
    assert not d.errors and room.is_open, d._message_box.value
    code = re.search(r"class='dpx-room-code'[^>]*>([A-Z2-9]{6})<", room.box.value).group(1)
    assert f"06_class_poll.ipynb?join={code}" in room.box.value  # the students' page is the poll page
    assert t.q_choices.layout.display == "none" and t.q_commit.layout.display == "none"
    assert "Predictions in: <b>0</b>" in room.count.value
    assert d.params()["epsilon"] == 2.0  # nothing changes before the reveal
    store = PollStore(poll_dir)
    picks = ["down", "up", "up"]  # question 1's answer is "up"
    for pick in picks:
        s = _student(code, store)
        assert "not randomized" in s._question_html.value and s._predict_box.layout.display is None
        assert "Class prediction" in s.children[0].children[0].value  # not the randomized poll's title
        assert s._answer_box.layout.display == "none"  # no coin for a prediction
        s.prediction.value = pick
        s.send_prediction()
        assert f"your prediction is in: {pick}" in s._sent_html.value
        assert s.prediction.disabled and s.predict_send.disabled  # the page is done
        s._student_guard(s.send_prediction)
        assert "it is done" in s._poll_messages.value
    room.check_now()
    assert "Predictions in: <b>3</b>" in room.count.value
    room.reveal_button.click()
    assert d.params()["epsilon"] == 1.0  # the question's change, applied once the room has answered
    verdict = t.verdict_html
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"data-choice='(\w+)' data-count='(\d+)'", verdict)}
    assert counts == {"up": 2, "down": 1, "stays": 0}
    assert "2 of 3 (67%) predicted it; most of the room did." in verdict
    assert "The answer is <b>up</b>" in verdict and "✓ as stated" in verdict  # and the measured outcome
    assert not room.is_open and store.poll_info(code).is_open is False  # the round is closed
    late = ClassPoll(query_string=f"join={code}", store=store, render=False)
    assert "closed" in late._poll_messages.value
    t.q_next.click()  # the next question: the page's own buttons are back, a new round can be asked
    assert t.q_choices.layout.display is None and not room.ask_button.disabled and room.box.value == ""


def test_a_students_dashboard_in_a_voila_page_offers_no_room_round(tiny_lessons, poll_dir, monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "x")  # a page a visitor asked for, without the instructor's grant
    d = Tiny(query_string="mode=predict")
    assert d.teaching.room.layout.display == "none"
    d.teaching.room._guard(d.teaching.room.ask)  # a client clicking the hidden button anyway
    assert "needs the instructor link" in d._message_box.value and not d.teaching.room.is_open
    with PollStore(poll_dir)._read() as con:  # and no round was made
        assert con.execute("SELECT count(*) FROM polls").fetchone()[0] == 0


def test_the_histogram_says_the_counts_in_text():
    html = histogram_html(RoomPrediction(("up", "down", "stays"), (5, 3, 0), 1))
    assert "3 of 8 (38%) predicted it." in html and "most of the room" not in html
    assert [int(x) for x in re.findall(r"data-count='(\d+)'", html)] == [5, 3, 0]
    assert "Nobody in the room predicted" in histogram_html(RoomPrediction(("a", "b"), (0, 0), 0))
