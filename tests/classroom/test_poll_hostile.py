"""The poll page driven the way a hostile client drives it: widget-protocol messages to the page's
own widgets (a click on a hidden or disabled button, a change of a disabled input, malformed values),
anonymous pages trying to create polls, join-code guessing (issues 31.4, 31.5, 31.7, 31.9, 25.1, 25.2).

Each test runs on the old code too (no new keyword arguments in the hostile paths) and fails there
on an assertion: the counts quoted in the comments are what the old code gave.
"""

import time

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.ui.poll import ClassPoll  # noqa: E402

from .. import widget_protocol as wp  # noqa: E402
from ..widget_protocol import client_click as click  # noqa: E402
from ..widget_protocol import client_update as update  # noqa: E402
from .conftest import rows  # noqa: E402

shell = wp.shell  # the fixture: a stand-in shell counting the tracebacks sent to the client


@pytest.fixture
def poll(store):
    return store.create_poll("Have you ever copied homework?", epsilon=1.0)


def _responses(store, code):
    return rows(store, "SELECT count(*), coalesce(sum(randomized_bit), 0) FROM responses WHERE code = ?", (code,))[0]


def _tokens(store, code):
    return rows(store, "SELECT count(*) FROM tokens WHERE code = ?", (code,))[0][0]


def _stuff(page, code, rounds):
    """The ballot-stuffing script of issue 31.4: re-join through the hidden Join button, answer, flip, send."""
    for _ in range(rounds):
        update(page.code_input, value=code)
        click(page.join_button)
        update(page.answer, index=0)  # "Yes"
        click(page.flip_button)
        click(page.send_button)


def test_one_page_sends_one_answer_whatever_its_client_sends(shell, store, poll):
    """Old code: 30 rounds from one page view gave 30 answers and 30 tokens (every hidden Join click a new
    token and a new coin). Now: one join, one answer."""
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    t0 = time.perf_counter()
    _stuff(page, poll.code, 30)
    dt = time.perf_counter() - t0
    assert _responses(store, poll.code)[0] == 1
    assert _tokens(store, poll.code) == 1
    assert shell.tracebacks == 0
    assert sum(page.refused.values()) >= 5 * 29  # every later click/change refused server side
    print(f"\n30 stuffing rounds from one page: {_responses(store, poll.code)[0]} answer(s) accepted, "
          f"{sum(page.refused.values())} messages refused, {150 / dt:.0f} messages/s handled")


def test_a_report_cannot_be_rerolled_through_the_protocol(shell, store, poll, monkeypatch):
    """Old code: a click on the hidden Join button gave a new token, hence a new coin: a client could re-roll
    until the report said what it wanted (100 chosen 'Yes' in the issue)."""
    import random

    import dpexplore.ui.poll as poll_page

    monkeypatch.setattr(poll_page.secrets, "randbits", random.Random(1).getrandbits)
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    update(page.answer, index=0)
    click(page.flip_button)
    first = page._coin_html.value
    for _ in range(10):
        update(page.code_input, value=poll.code)
        click(page.join_button)  # hidden after the join: refused
        click(page.flip_button)
        assert page._coin_html.value == first
    assert _tokens(store, poll.code) == 1


def test_after_send_the_page_is_done_and_its_inputs_refuse_changes(shell, store, poll):
    """Issue 25.2: after Send, Yes/No/Flip were active and a second try ended in a red error."""
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    update(page.answer, index=1)
    click(page.flip_button)
    click(page.send_button)
    assert all(w.disabled for w in (page.answer, page.flip_button, page.send_button))
    assert "Done" in page._sent_html.value and "you can close this page" in page._sent_html.value
    update(page.answer, index=0)
    click(page.flip_button)
    click(page.send_button)
    assert page.answer.value is None and page._coin is None  # the true answer is forgotten, no new coin
    assert page._poll_messages.value == ""  # no red error: nothing was done
    assert _responses(store, poll.code)[0] == 1 and shell.tracebacks == 0


def test_the_student_page_shows_no_status_line_no_plot_footer_and_hides_the_guide(store, poll):
    """Issue 25.2: the student page showed 'Updated in 0.00 s ()', a footer about plots it does not have,
    and the instructor's guide (the notebook's markdown cells)."""
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    texts = " ".join(getattr(w, "value", "") for w in page.children if isinstance(getattr(w, "value", None), str))
    assert "Updated in" not in texts and "Reading the plots" not in texts
    assert "not cryptographically secure" in texts  # the teaching-PRNG warning stays
    assert ".jp-MarkdownCell{display:none" in page._question_html.value


def test_the_landing_page_is_the_students_join_field(store, poll, monkeypatch):
    """Issue 25.1: without ?join= the page was the instructor's create form, for anybody."""
    monkeypatch.setenv("SERVER_SOFTWARE", "voila/0.5.13")  # a Voila page: a visitor asked for it
    page = ClassPoll(query_string="", store=store, render=False)
    assert page.mode == "student" and not hasattr(page, "create_button")
    assert page._join_row.layout.display is None
    update(page.code_input, value=poll.code.lower())
    click(page.join_button)
    assert page.poll.code == poll.code and page._join_row.layout.display == "none"


def test_an_anonymous_page_cannot_create_a_poll(shell, store, monkeypatch):
    """Issue 31.5: 45 anonymous page views filled the server's 50-poll maximum. A Voila page without the
    instructor credential is a student page, with ?teach=1 too: nothing to create polls with."""
    monkeypatch.setenv("SERVER_SOFTWARE", "voila/0.5.13")
    for qs in ("", "teach=1", "poll=ABCDEF", "teach=1&instructor=" + "A" * 43):
        page = ClassPoll(query_string=qs, store=store, render=False)
        assert page.mode == "student" and not hasattr(page, "create_button"), qs
        if qs:
            assert "instructor link" in page._poll_messages.value, qs
    assert rows(store, "SELECT count(*) FROM polls") == [(0,)]
    assert shell.tracebacks == 0


def test_join_code_guessing_is_rate_limited_per_page(shell, store, poll, monkeypatch):
    """Issue 31.7: ~200 guesses/s from one page. Old code: all 201 guesses below reached the database."""
    wrong = "ABCDEF" if poll.code != "ABCDEF" else "ABCDEG"
    page = ClassPoll(query_string=f"join={wrong}", store=store, render=False)  # a typo: the join field appears
    asked = [wrong]
    real_join = store.join if hasattr(store, "join") else None
    if real_join is not None:
        monkeypatch.setattr(store, "join", lambda code, **kw: (asked.append(code), real_join(code, **kw))[1])
    real_info = store.poll_info
    monkeypatch.setattr(store, "poll_info", lambda code: (asked.append(code), real_info(code))[1])
    t0 = time.perf_counter()
    for i in range(200):
        update(page.code_input, value=wrong if i % 2 else "ZZZZZ" + "23456789"[i % 8])
        click(page.join_button)
    dt = time.perf_counter() - t0
    limit = getattr(ClassPoll, "failed_join_limit", (5, 60.0))[0]
    assert len(asked) == limit  # the page's own limit: later guesses never reach the database
    update(page.code_input, value=poll.code)  # even the right code waits for the window
    click(page.join_button)
    assert page.poll is None and "too many wrong join codes from this page" in page._poll_messages.value
    assert shell.tracebacks == 0
    print(f"\n1 + 200 guesses from one page ({200 / dt:.0f}/s): {len(asked)} reached the database, "
          f"{201 - len(asked)} refused by the page")


def test_join_code_guessing_is_rate_limited_per_client_address(make_store, monkeypatch):
    """Many pages (new page views) from one address share the store's limit: the 4th wrong code is refused."""
    store = make_store(failed_join_rate=(3, 60.0))
    poll = store.create_poll("Q?", epsilon=1.0)
    wrong = "ABCDEF" if poll.code != "ABCDEF" else "ABCDEG"
    monkeypatch.setenv("HTTP_X_DPX_CLIENT", "203.0.113.9")
    for _ in range(3):
        ClassPoll(query_string=f"join={wrong}", store=store, render=False)
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    assert page.poll is None and "too many wrong join codes from your address" in page._poll_messages.value
    monkeypatch.setenv("HTTP_X_DPX_CLIENT", "203.0.113.10")
    assert ClassPoll(query_string=f"join={poll.code}", store=store, render=False).poll.code == poll.code


@pytest.mark.parametrize("target, state", [
    ("answer", {"index": 7}), ("answer", {"value": "Maybe"}), ("code_input", {"value": 12345}),
    ("code_input", {"value": "x" * 100_000}), ("answer", {"index": "nan"}),
])
def test_hostile_updates_of_the_student_page_send_no_traceback(shell, store, poll, target, state):
    """Issue 31.9: the poll page's own widgets answered hostile updates with a traceback (server paths)."""
    page = ClassPoll(query_string=f"join={poll.code}", store=store, render=False)
    update(getattr(page, target), **state)
    assert shell.tracebacks == 0


@pytest.mark.parametrize("target, state", [
    ("closes_in", {"value": "abc"}), ("closes_in", {"value": 10**12}), ("question", {"value": {"a": 1}}),
    ("question", {"value": "q" * 50_000}),
])
def test_hostile_updates_of_the_instructor_page_send_no_traceback(shell, store, target, state):
    page = ClassPoll(query_string="teach=1", store=store, render=False)
    update(getattr(page, target), **state)
    click(page.create_button)
    assert shell.tracebacks == 0
    page.stop_watching()
