"""Issue 38: the room's result reaches the students' pages once the instructor closes the poll (a public read of a
closed poll, on both store backends), and the poll's class view has a presentation mode."""

import time

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.ui.poll import ClassPoll  # noqa: E402


def test_a_closed_polls_counts_are_public_an_open_ones_are_not(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    for bit in (1, 0, 1):
        store.submit(poll.code, store.issue_token(poll.code), bit)
    assert store.closed_result(poll.code) is None  # open: nobody but the instructor reads counts
    store.close_poll(poll.code, poll.secret)
    t = store.closed_result(poll.code)
    assert (t.responses, t.yes) == (3, 2)
    rnd = store.create_round("Up?", ["up", "down"])
    store.submit_choice(rnd.code, store.issue_token(rnd.code), 1)
    assert store.closed_result(rnd.code) is None
    store.close_poll(rnd.code, rnd.secret)
    assert store.closed_result(rnd.code).counts == (0, 1)


def _wait(pred, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.1)
    return False


def test_a_students_page_shows_the_rooms_result_after_the_close(store, monkeypatch):
    monkeypatch.setattr(ClassPoll, "poll_interval", 0.2)
    rnd = store.create_round("Raise ε: the error?", ["goes up", "goes down"])
    s = ClassPoll(query_string=f"join={rnd.code}", store=store, render=False)
    s.prediction.value = "goes down"
    s.send_prediction()
    assert "Keep this page open" in s._result_html.value
    store.submit_choice(rnd.code, store.issue_token(rnd.code), 0)
    time.sleep(0.5)
    assert "The room predicted" not in s._result_html.value  # still open: nothing shown
    store.close_poll(rnd.code, rnd.secret)
    assert _wait(lambda: "The room predicted" in s._result_html.value), s._result_html.value
    assert "goes down: 1 (50%)" in s._result_html.value and "(2 predictions)" in s._result_html.value
    s.stop_watching()


@pytest.mark.slow
def test_the_class_view_has_a_presentation_mode(store):
    t = ClassPoll(query_string="teach=1", store=store, render=False)
    assert not t.presenting and not t.present_toggle.value
    t.present_toggle.value = True
    assert t.presenting and "display:none" in t._present_css.value.replace(" ", "")
    t2 = ClassPoll(query_string="teach=1&present=1", store=store, render=False)
    assert t2.presenting and t2.present_toggle.value
