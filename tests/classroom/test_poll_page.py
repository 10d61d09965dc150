"""The poll page without a kernel (render=False): modes from the URL, hostile URL input, the
student's coin, one answer per page view, the class view, Binder. Hostile clients (issues 25, 31) are
in test_poll_hostile.py."""

import re

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.ui.poll import MAX_QUERY_CHARS, ClassPoll  # noqa: E402

from .conftest import rows  # noqa: E402


@pytest.fixture
def teacher(store):
    t = ClassPoll(query_string="teach=1", store=store, render=False)
    t.question.value = "Have you ever copied homework?"
    t.create_poll()
    yield t
    t.stop_watching()


def _errors(page):
    return page._poll_messages.value


def test_instructor_creates_a_poll_and_sees_join_code_and_links(teacher):
    code = teacher.poll.code
    assert len(code) == 6 and teacher.mode == "instructor"
    links = teacher._links.value
    assert f"06_class_poll.ipynb?join={code}" in links
    assert "secret=" not in links and teacher._secret not in links  # no secret in any link (issue 31.6)
    assert f"?poll={code}" in links and "Project this box" in links
    assert "Responses: 0" in teacher._tally_html.value
    assert teacher._form.layout.display == "none"  # the ε list lives in the form, hidden once the poll runs
    assert set(teacher.figures) == {"class", "shrink", "simulation"} and not teacher.errors


def test_student_flips_sends_and_a_second_answer_is_refused(teacher, store):
    code = teacher.poll.code
    s = ClassPoll(query_string=f"join={code.lower()}", store=store, render=False)
    assert s.mode == "student" and s.poll.code == code and not _errors(s)
    assert "never sent and never stored" in s._question_html.value
    with pytest.raises(Exception, match="flip the coin first"):
        s.send()
    s.answer.value = "No"
    s.flip_coin()
    report = s._coin["bit"]
    assert ("Yes" if report else "No") in s._coin_html.value
    s.send()
    assert s.answer.value is None  # the true answer is forgotten
    assert "Done — sent:" in s._sent_html.value
    s._student_guard(s.flip_coin)  # the page is done: no second coin, no second send
    assert "it is done" in _errors(s)
    s._student_guard(s.send)
    assert "it is done" in _errors(s)
    t = teacher.check_now()
    assert (t.responses, t.yes) == (1, report)
    assert rows(store, "SELECT randomized_bit FROM responses") == [(report,)]
    assert "Responses: 1" in teacher._tally_html.value
    assert "1 response(s)" in teacher.figures["class"].layout.title.text


def test_the_coin_on_the_page_is_the_libraries_coin(teacher, store, monkeypatch):
    """Over many coins at ε = 1 the shown 'flipped' rate matches μ (binomial tolerance; seeds fixed)."""
    import math
    import random
    import re

    import dpexplore.ui.poll as poll_page

    seeds = random.Random(0)
    monkeypatch.setattr(poll_page.secrets, "randbits", seeds.getrandbits)
    s = ClassPoll(query_string=f"join={teacher.poll.code}", store=store, render=False)
    s.answer.value = "Yes"
    flips, m = 0, 400
    for _ in range(m):
        s.answer.value = "Yes"
        s._coin_seed = None  # as on a new page view: one coin per page
        s.flip_coin()
        u, mu = map(float, re.search(r"u = ([0-9.]+); .* μ = ([0-9.]+)", s._coin_html.value).groups())
        flipped = "<b>flipped</b>" in s._coin_html.value
        assert flipped == (s._coin["bit"] == 0)
        if u != mu:  # both are shown to 4 decimals: equal when they agree to 4 decimals
            assert flipped == (u < mu)
        flips += flipped
    mu = 1 / (math.e + 1)
    assert abs(flips - m * mu) <= 4 * math.sqrt(m * mu * (1 - mu))


@pytest.mark.parametrize("qs, message", [
    ("join=<script>", "join code must be 6 characters"),
    ("join=ABCDEF", "no poll with join code ABCDEF"),
    ("join=" + "A" * 1500, "join code must be 6 characters"),
    ("join=", "join code must be 6 characters"),
])
def test_bad_join_codes_show_a_message(store, qs, message):
    s = ClassPoll(query_string=qs, store=store, render=False)
    assert message in _errors(s)
    assert "<script>" not in _errors(s)
    assert s._join_row.layout.display is None  # a box to type the code instead
    assert s._token is None


def test_the_creator_reopens_the_class_view_without_a_secret(teacher, store):
    code = teacher.poll.code
    again = ClassPoll(query_string=f"poll={code}", store=store, render=False)  # "local": the same creator
    try:
        assert again.poll.code == code and "Responses: 0" in again._tally_html.value
    finally:
        again.stop_watching()
    t = ClassPoll(query_string=f"poll={code}&secret={teacher._secret}", store=store, render=False)
    try:
        assert "no longer used" in _errors(t)  # secret links are retired: they leaked into logs and Referer
    finally:
        t.stop_watching()
    other = store.create_poll("Someone else's?", epsilon=1.0, creator="hub:bob")
    t = ClassPoll(query_string=f"poll={other.code}", store=store, render=False)
    assert "not created by this instructor" in _errors(t) and t.poll is None


def test_create_errors_are_shown_in_the_page(store):
    t = ClassPoll(query_string="teach=1", store=store, render=False)
    t.question.value = "x" * 400
    t._guard(t.create_poll)
    assert "at most 300 characters" in _errors(t)
    t.question.value = "ok?"
    t.closes_in.value = 5
    t._guard(t.create_poll)
    try:
        assert t.poll is not None and t.poll.closes_at is not None
        t._guard(t.create_poll)
        assert "already runs a poll" in _errors(t)
    finally:
        t.stop_watching()


def test_long_query_is_not_read(store):
    t = ClassPoll(query_string="join=ABCDEF&" + "x" * MAX_QUERY_CHARS, store=store, render=False)
    assert "at most 2000 are read" in _errors(t) and t.mode == "student" and t.poll is None


def test_binder_note(store, monkeypatch):
    monkeypatch.setenv("BINDER_SERVICE_HOST", "10.0.0.1")
    t = ClassPoll(query_string="", store=store, render=False)
    assert any("shared server" in getattr(c, "value", "") for c in t.children)


def test_closed_poll_refuses_new_students(teacher, store):
    teacher.close_poll()
    assert "closed" in teacher._tally_html.value
    s = ClassPoll(query_string=f"join={teacher.poll.code}", store=store, render=False)
    assert "is closed" in _errors(s)


def test_an_unusable_poll_directory_is_reported_in_the_page(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(blocker))
    t = ClassPoll(query_string="teach=1", render=False)
    assert "poll database cannot be opened" in _errors(t)
    t._guard(t.create_poll)
    assert "no poll database" in _errors(t)
    s = ClassPoll(query_string="join=ABCDEF", render=False)
    assert "poll database cannot be opened" in _errors(s) and s._token is None


def test_one_coin_per_page_pressing_flip_again_shows_the_same_coin(teacher, store):
    """Re-rolling until the report agrees with the true answer would make the report the truth."""
    s = ClassPoll(query_string=f"join={teacher.poll.code}", store=store, render=False)
    s.answer.value = "Yes"
    s.flip_coin()
    first = (s._coin["bit"], s._coin_html.value)
    for _ in range(20):
        s.flip_coin()
        assert (s._coin["bit"], s._coin_html.value) == first
    s.answer.value = "No"  # the same coin applied to the other answer gives the other report
    s.flip_coin()
    assert s._coin["bit"] == 1 - first[0]


def test_the_epsilon_list_quotes_the_true_flip_probabilities():
    """Issue 25.1: ε from a short list (not 1.77407 off a log slider); each label's percentage is recomputed."""
    import math
    import re

    from dpexplore.core import flip_probability
    from dpexplore.ui.poll import EPSILON_CHOICES

    assert [v for _, v in EPSILON_CHOICES] == [0.5, 1.0, math.log(3), 2.0, 3.0, 5.0]
    for label, eps in EPSILON_CHOICES:
        shown = float(re.search(r"\(([^%]*?)([0-9.]+)%", label).group(2))
        decimals = len(str(shown).split(".")[1]) if "." in str(shown) and not str(shown).endswith(".0") else 0
        assert round(100 * flip_probability(eps), decimals) == shown, label


def test_a_typed_epsilon_is_used_and_a_bad_one_is_refused(store):
    t = ClassPoll(query_string="teach=1", store=store, render=False)
    t.question.value = "Q?"
    for bad, msg in [("abc", "must be a number in \\[0.05, 10\\]"),
                     ("20", "typed ε must be a finite number &gt;= 0.05 and &lt;= 10; got 20.0"),
                     ("nan", "typed ε must be a finite number"), ("1" * 40, "got 40 characters")]:
        t.epsilon_typed.value = bad
        t._guard(t.create_poll)
        assert re.search(msg, _errors(t)) and t.poll is None, bad
    t.epsilon_typed.value = " 0.8 "
    t._guard(t.create_poll)
    try:
        assert t.poll.epsilon == 0.8 and "ε = 0.8" in t._links.value
    finally:
        t.stop_watching()


def test_outside_voila_the_notebook_opens_on_the_instructor_page(store, monkeypatch):
    """JupyterLab or a script: the server's own user runs the notebook; in Voila the same call is a student page."""
    for k in ("QUERY_STRING", "SERVER_SOFTWARE", "VOILA_PREHEAT", "VOILA_KERNEL_ID", "VOILA_REQUEST_URL",
              "VOILA_BASE_URL"):
        monkeypatch.delenv(k, raising=False)
    t = ClassPoll(store=store, render=False)
    assert t.mode == "instructor" and t.instructor == "local" and t._form.layout.display != "none"
    monkeypatch.setenv("SERVER_SOFTWARE", "voila/0.5.13")
    assert ClassPoll(store=store, render=False).mode == "student"
