"""Issue 27: the hub identity of a poll page (dpexplore.classroom.hub), no hub needed."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from dpexplore.classroom import credentials, hub


@pytest.mark.parametrize("name", ["alice", "a", "Bob_1.x@uni.edu", "x:y-z", "x" * 80])
def test_hub_user_accepts_valid_names(name):
    assert hub.hub_user({"JUPYTERHUB_USER": name}) == name
    assert hub.under_hub({"JUPYTERHUB_USER": name})


@pytest.mark.parametrize("name", ["", "x" * 81, "a b", "a/b", "ä", "a\n", "<script>", "a+b", None, 5])
def test_hub_user_refuses_anything_else(name):
    env = {} if name is None else {"JUPYTERHUB_USER": name}
    assert hub.hub_user(env) is None
    assert hub.hub_voter(env) is None
    assert hub.hub_instructor({**env, "DPEXPLORE_HUB_INSTRUCTOR": "1"}) is None
    assert not hub.under_hub(env)


def test_environ_must_be_a_mapping():
    with pytest.raises(TypeError, match="environ must be a mapping"):
        hub.hub_user(["JUPYTERHUB_USER=alice"])


def test_voter_is_prefixed_short_and_unique_for_long_names():
    assert hub.hub_voter({"JUPYTERHUB_USER": "alice"}) == "hub:alice"
    assert hub.hub_voter({"JUPYTERHUB_USER": "x" * 76}) == "hub:" + "x" * 76  # 80: fits as it is
    a = hub.hub_voter({"JUPYTERHUB_USER": "x" * 77 + "a"})
    b = hub.hub_voter({"JUPYTERHUB_USER": "x" * 77 + "b"})
    assert len(a) == len(b) == 80 and a != b and a.startswith("hub:" + "x" * 59 + ".")
    assert hub._NAME_RE.fullmatch(a)  # the store's identity alphabet


def test_instructor_needs_the_hub_mark_exactly():
    base = {"JUPYTERHUB_USER": "ada"}
    assert hub.hub_instructor({**base, "DPEXPLORE_HUB_INSTRUCTOR": "1"}) == "hub:ada"
    for flag in ("0", "", "true", "yes", "1 ", None):
        env = dict(base) if flag is None else {**base, "DPEXPLORE_HUB_INSTRUCTOR": flag}
        assert hub.hub_instructor(env) is None, flag
    # a request header cannot set it: Voila prefixes header variables with HTTP_
    assert hub.hub_instructor({**base, "HTTP_DPEXPLORE_HUB_INSTRUCTOR": "1"}) is None


def test_spawner_flag_reads_group_membership():
    def spawner(*groups):
        return SimpleNamespace(user=SimpleNamespace(groups=[SimpleNamespace(name=g) for g in groups]))

    assert hub.spawner_instructor_flag(spawner("instructors")) == "1"
    assert hub.spawner_instructor_flag(spawner("students", "instructors")) == "1"
    assert hub.spawner_instructor_flag(spawner("students")) == "0"
    assert hub.spawner_instructor_flag(spawner()) == "0"
    assert hub.spawner_instructor_flag(SimpleNamespace()) == "0"
    assert hub.spawner_instructor_flag(spawner("tas"), group="tas") == "1"
    assert hub.spawner_instructor_flag(spawner("instructors"), group="tas") == "0"


def test_instructor_group_from_the_environment():
    assert hub.instructor_group({}) == "instructors"
    assert hub.instructor_group({"DPEXPLORE_INSTRUCTOR_GROUP": "teachers"}) == "teachers"
    with pytest.raises(ValueError, match="DPEXPLORE_INSTRUCTOR_GROUP must be"):
        hub.instructor_group({"DPEXPLORE_INSTRUCTOR_GROUP": "bad group"})


def test_instructor_source_is_registered_only_under_a_hub():
    code = ("import os, sys; from dpexplore.classroom import credentials, hub; "
            "print(hub.hub_instructor in credentials._SOURCES)")

    def run(env):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              check=True).stdout.strip()

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTERHUB_", "DPEXPLORE_HUB"))}
    assert run(clean) == "False"
    assert run({**clean, "JUPYTERHUB_USER": "ada"}) == "True"
    assert run({**clean, "JUPYTERHUB_USER": "not valid"}) == "False"


def test_a_hub_instructor_page_is_recognised_by_instructor_identity(monkeypatch):
    page = {"SERVER_SOFTWARE": "voila/0.5.13", "JUPYTERHUB_USER": "ada"}
    monkeypatch.setattr(credentials, "_SOURCES", [])
    assert hub.register(page) is True and hub.register({}) is False
    who, _ = credentials.instructor_identity({**page, "DPEXPLORE_HUB_INSTRUCTOR": "1"})
    assert who == "hub:ada"
    who, why = credentials.instructor_identity(page)  # a student's page: no mark
    assert who is None and why


def test_student_link_goes_through_user_redirect():
    env = {"JUPYTERHUB_USER": "ada", "JUPYTERHUB_BASE_URL": "/", "JUPYTERHUB_SERVICE_PREFIX": "/user/ada/",
           "SCRIPT_NAME": "/user/ada/voila/render/06_class_poll.ipynb", "SERVER_NAME": "127.0.0.1",
           "SERVER_PORT": "8000"}
    link = hub.hub_student_link("K7MQ2X", env)
    assert link.relative == "/hub/user-redirect/voila/render/06_class_poll.ipynb?join=K7MQ2X"
    assert link.full == "http://127.0.0.1:8000" + link.relative and link.loopback_only
    public = hub.hub_student_link("K7MQ2X", {**env, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/"})
    assert public.full == "https://hub.example.org" + link.relative and not public.loopback_only
    prefixed = hub.hub_student_link("K7MQ2X", {**env, "JUPYTERHUB_BASE_URL": "/course/",
                                               "JUPYTERHUB_SERVICE_PREFIX": "/course/user/ada/",
                                               "SCRIPT_NAME": "/course/user/ada/voila/render/06_class_poll.ipynb"})
    assert prefixed.relative == "/course/hub/user-redirect/voila/render/06_class_poll.ipynb?join=K7MQ2X"
    assert hub.hub_student_link("K7MQ2X", {k: v for k, v in env.items() if k != "JUPYTERHUB_USER"}) is None
    hostile = hub.hub_student_link("K7MQ2X", {**env, "JUPYTERHUB_BASE_URL": "//evil.example/"})
    assert hostile is None
    odd = hub.hub_student_link("K7MQ2X", {**env, "SERVER_NAME": "bad host!"})
    assert odd.full is None and odd.relative == link.relative


def test_the_recipe_config_loads_and_marks_only_instructors(monkeypatch):
    from pathlib import Path

    from traitlets.config import Config

    monkeypatch.setenv("DPEXPLORE_POLL_DIR", "/srv/polls")
    monkeypatch.setenv("DPEXPLORE_INSTRUCTORS", "ada, bo")
    c = Config()
    path = Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub" / "jupyterhub_config.py"
    exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: c})  # noqa: S102 - our own file
    assert c.Spawner.default_url == "/voila/render/00_index.ipynb"
    assert "--ServerApp.terminals_enabled=False" in c.Spawner.args
    env = c.Spawner.environment
    assert env["DPEXPLORE_POLL_DIR"] == "/srv/polls"
    flag = env["DPEXPLORE_HUB_INSTRUCTOR"]

    def spawner(*groups):
        return SimpleNamespace(user=SimpleNamespace(groups=[SimpleNamespace(name=g) for g in groups]))

    assert flag(spawner("instructors")) == "1" and flag(spawner("students")) == "0"
    assert c.JupyterHub.load_groups == {"instructors": {"users": ["ada", "bo"]}}
    (role,) = c.JupyterHub.load_roles
    assert role["services"] == ["idle-culler"] and "delete:servers" in role["scopes"] and "admin:users" not in role
