"""Issue 27: the poll page under a hub (render=False, no hub running): one answer per hub user, hub
instructors, the page's words. Uses the store's ``voter=`` when it has it, else a small stand-in that
keeps the same interface (the store's own tests check the database side)."""

from __future__ import annotations

import dataclasses
import inspect
from types import SimpleNamespace

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.classroom import AlreadyAnswered, PollStore, credentials  # noqa: E402
from dpexplore.classroom import hub as hubmod  # noqa: E402
from dpexplore.ui.poll import ClassPoll  # noqa: E402

REAL_VOTER = "voter" in inspect.signature(PollStore.join).parameters


class StandInVoterStore(PollStore):
    """``join(..., voter=)`` and ``PollInfo.already_answered`` as main's store defines them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._voter_of: dict[str, str | None] = {}
        self._answered: set[tuple[str, str]] = set()
        self.join_calls: list[dict] = []

    def join(self, code, *, client=None, voter=None):
        self.join_calls.append({"client": client, "voter": voter})
        info, token = super().join(code, client=client)
        self._voter_of[token] = voter
        already = voter is not None and (info.code, voter) in self._answered
        return SimpleNamespace(**{**dataclasses.asdict(info), "already_answered": already}), token

    def submit(self, code, token, bit):
        voter = self._voter_of.get(token)
        key = (code, voter)
        if voter is not None and key in self._answered:
            raise AlreadyAnswered("this voter has answered this poll already")
        out = super().submit(code, token, bit)
        if voter is not None:
            self._answered.add(key)
        return out


@pytest.fixture
def store(tmp_path):
    return PollStore(tmp_path) if REAL_VOTER else StandInVoterStore(tmp_path)


def _page(name, *, instructor=False):
    env = {"SERVER_SOFTWARE": "voila/0.5.13", "JUPYTERHUB_USER": name, "JUPYTERHUB_BASE_URL": "/",
           "JUPYTERHUB_SERVICE_PREFIX": f"/user/{name}/", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
           "SCRIPT_NAME": f"/user/{name}/voila/render/06_class_poll.ipynb"}
    if instructor:
        env["DPEXPLORE_HUB_INSTRUCTOR"] = "1"
    return env


@pytest.fixture
def hub_sources(monkeypatch):
    monkeypatch.setattr(credentials, "_SOURCES", [hubmod.hub_instructor])


@pytest.fixture
def teacher(store, hub_sources):
    t = ClassPoll(query_string="teach=1", store=store, environ=_page("ada", instructor=True), render=False)
    t.question.value = "Have you ever copied homework?"
    t.create_poll()
    yield t
    t.stop_watching()


def _answer(page, value="Yes"):
    page.answer.value = value
    page.flip_coin()
    page.send()


def test_hub_instructor_creates_without_a_link_and_links_go_through_user_redirect(teacher):
    assert teacher.mode == "instructor" and teacher.instructor == "hub:ada"
    code = teacher.poll.code
    assert f"/hub/user-redirect/voila/render/06_class_poll.ipynb?join={code}" in teacher._links.value
    assert "/user/ada/" not in teacher._copy.text  # students cannot open the instructor's own server
    assert "One answer per hub user" in teacher._tally_html.value
    assert "can answer again" not in teacher._tally_html.value


def test_one_answer_per_hub_user_across_page_views(teacher, store):
    code = teacher.poll.code
    first = ClassPoll(query_string=f"join={code}", store=store, environ=_page("bob"), render=False)
    assert first.voter == "hub:bob" and "One answer per hub user" in first._question_html.value
    second = ClassPoll(query_string=f"join={code}", store=store, environ=_page("bob"), render=False)  # a 2nd tab
    _answer(first)
    _answer(second)  # joined before the first answer: refused at submit
    assert "already answered this poll (one answer per hub user)" in second._sent_html.value
    assert all(w.disabled for w in (second.answer, second.flip_button, second.send_button))
    reload = ClassPoll(query_string=f"join={code}", store=store, environ=_page("bob"), render=False)  # after
    assert "already answered this poll (one answer per hub user)" in reload._sent_html.value
    assert all(w.disabled for w in (reload.answer, reload.flip_button, reload.send_button))
    other = ClassPoll(query_string=f"join={code}", store=store, environ=_page("carol"), render=False)
    _answer(other, "No")
    assert "Done — sent:" in other._sent_html.value
    assert teacher.check_now().responses == 2
    if not REAL_VOTER:
        assert {c["voter"] for c in store.join_calls} == {"hub:bob", "hub:carol"}


def test_a_hub_student_cannot_open_the_class_view(teacher, store):
    code = teacher.poll.code
    for query in ("teach=1", f"poll={code}"):
        page = ClassPoll(query_string=query, store=store, environ=_page("bob"), render=False)
        assert page.mode == "student" and page.instructor is None
        assert "instructors group" in page._poll_messages.value
        assert not hasattr(page, "_tally_html")


def test_without_a_hub_the_page_view_rule_stays_and_says_so(tmp_path):
    store = StandInVoterStore(tmp_path)
    teacher = ClassPoll(query_string="teach=1", store=store, render=False)  # outside Voila: "local"
    teacher.question.value = "Q?"
    teacher.create_poll()
    try:
        assert "a reload or another browser is a new page view and can answer again" in teacher._tally_html.value
        env = {"SERVER_SOFTWARE": "voila/0.5.13"}
        s = ClassPoll(query_string=f"join={teacher.poll.code}", store=store, environ=env, render=False)
        assert s.voter is None and store.join_calls[-1]["voter"] is None
        assert "one answer per page view" in s._question_html.value
        _answer(s)
        again = ClassPoll(query_string=f"join={teacher.poll.code}", store=store, environ=env, render=False)
        _answer(again)  # a new page view answers again, as the page says
        assert teacher.check_now().responses == 2
    finally:
        teacher.stop_watching()
