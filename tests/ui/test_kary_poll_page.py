"""The class poll page's k-choice question (issue 44 item 2) without a browser (render=False): the instructor
creates it, students answer it (randomized in their own kernel, only the report sent), the instructor sees
the raw counts and the debiased estimate with its standard error; one answer per hub user."""

import math

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from dpexplore.classroom import PollStore  # noqa: E402
from dpexplore.classroom.kary import KaryTally  # noqa: E402
from dpexplore.local import count_variance  # noqa: E402
from dpexplore.ui import poll as poll_mod  # noqa: E402
from dpexplore.ui.poll import ClassPoll  # noqa: E402

LABELS = ["walk", "bike", "bus", "car"]


@pytest.fixture
def store(tmp_path):
    return PollStore(tmp_path)


def _teacher(store, oracle="krr", labels="walk\nbike\n\nbus\ncar\n", eps="2"):
    t = ClassPoll(query_string="teach=1", store=store, render=False)
    t.question.value = "How did you get here today?"
    t.labels.value = labels
    t.oracle.value = oracle
    t.epsilon_typed.value = eps
    t._act(t.create_poll)
    return t


def _answer(store, code, choice, env=None):
    s = ClassPoll(query_string=f"join={code}", store=store, render=False, environ=env or {})
    assert s.poll.oracle is not None and s._kary_box.layout.display is None
    s.kary_answer.value = choice
    s._act(s.flip_coin)
    s._act(s.send)
    return s


@pytest.mark.slow
@pytest.mark.parametrize("oracle", ["krr", "oue"])
def test_students_answer_and_the_instructor_sees_the_estimate(store, oracle, monkeypatch):
    seeds = np.random.default_rng(44)  # the students' pages draw their seeds from OS entropy: fixed here
    monkeypatch.setattr(poll_mod.secrets, "randbits", lambda bits: int(seeds.integers(0, 2**62)))
    t = _teacher(store, oracle)
    try:
        assert not t._poll_messages.value and t.poll.labels == tuple(LABELS) and t.poll.epsilon == 2.0
        code = t.poll.code
        truth = ["bus"] * 18 + ["walk"] * 9 + ["bike"] * 3  # 30 students
        for i, choice in enumerate(truth):
            s = _answer(store, code, choice)
            if i == 0:
                assert "never sent and never stored" in s._question_html.value
                assert "Done — sent:" in s._sent_html.value and s.kary_answer.value is None  # true choice forgotten
                assert s.kary_send.disabled and s.kary_flip.disabled
        tally = t.check_now()
        assert isinstance(tally, KaryTally) and tally.responses == 30
        html = t._tally_html.value
        assert "Responses: 30" in html and "debiased estimate" in html and "standard error" in html
        for lab, raw in zip(LABELS, tally.report_counts):
            assert f"data-choice='{lab}' data-raw='{raw}'" in html
        counts = np.array([9, 3, 18, 0])
        var = count_variance(oracle, n=30, k=4, epsilon=2.0, count=counts)
        # one class, one (seeded) draw of the students' randomizations: within 4 standard errors of the truth
        assert np.all(np.abs(np.array(tally.estimates) - counts) <= 4 * np.sqrt(var))
        assert np.allclose(tally.standard_errors,
                           np.sqrt(count_variance(oracle, n=30, k=4, epsilon=2.0,
                                                  count=np.clip(tally.estimates, 0, 30))))
        fig = t.figure("class", t.params())
        assert [tr.name.split(" [")[0] for tr in fig.data] == ["raw report count",
                                                               "debiased estimate ± one standard error"]
        assert list(fig.data[1].y) == list(tally.estimates)
        assert "kary_tally" in t.reproduce(t.params())
        t.close_poll()
        assert "closed" in t._tally_html.value
    finally:
        t.stop_watching()


def test_a_student_randomizes_once_per_page_and_only_the_report_is_stored(store):
    t = _teacher(store, "oue")
    try:
        s = ClassPoll(query_string=f"join={t.poll.code}", store=store, render=False, environ={})
        s._act(s.send)
        assert "flip the coin first" in s._poll_messages.value
        s._act(s.flip_coin)
        assert "choose your true answer first" in s._poll_messages.value
        s.kary_answer.value = "car"
        s.flip_coin()
        first = s._coin["report"]
        s.flip_coin()
        assert s._coin["report"] == first  # the same seed: no re-rolling
        s.send()
        r = store.kary_reports(t.poll.code, creator=t.instructor)
        assert r.reports.tolist() == [list(first)] and r.labels == tuple(LABELS)
    finally:
        t.stop_watching()


def test_one_answer_per_hub_user(store):
    t = _teacher(store)
    try:
        env = {"JUPYTERHUB_USER": "ann"}
        _answer(store, t.poll.code, "bike", env)
        again = ClassPoll(query_string=f"join={t.poll.code}", store=store, render=False, environ=env)
        assert "already" in again._sent_html.value and again.kary_send.disabled
        assert t.check_now().responses == 1
    finally:
        t.stop_watching()


@pytest.mark.parametrize("labels, msg", [("a\nb", "labels must be 3 to 8 answers; got 2"),
                                         ("\n".join("abcdefghi"), "labels must be 3 to 8 answers; got 9"),
                                         ("a\na\nb", "labels must be distinct")])
def test_bad_choices_are_a_message_not_a_poll(store, labels, msg):
    t = _teacher(store, labels=labels)
    assert msg in t._poll_messages.value and t.poll is None


def test_an_empty_choices_box_keeps_the_yes_no_poll(store):
    t = _teacher(store, labels="  \n")
    try:
        assert t.poll.oracle is None and t.poll.epsilon == 2.0 and math.isfinite(t.poll.epsilon)
        assert "raw 'yes' reports" in t._tally_html.value
    finally:
        t.stop_watching()
