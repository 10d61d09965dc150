"""The instructor credential (issue 31.5/31.6): the token file is verified before it is trusted, cookies
and grants are HMACs with an expiry, and only a page with a valid grant (or code outside Voila) is an
instructor."""

import os
import stat

import pytest

from dpexplore.classroom import credentials as cred
from dpexplore.classroom.links import qr_svg, student_link

VOILA = {"SERVER_SOFTWARE": "voila/0.5.13", "QUERY_STRING": ""}


def test_the_token_file_is_created_once_with_mode_600(tmp_path):
    t = cred.ensure_instructor_token(tmp_path)
    path = cred.token_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cred.ensure_instructor_token(tmp_path) == t == cred.read_instructor_token(tmp_path)
    assert cred.read_instructor_token(tmp_path / "none") is None


@pytest.mark.parametrize("make, msg", [
    (lambda p: (p.write_text("x" * 43), p.chmod(0o644)), "accessible to other users"),
    (lambda p: (p.write_text("short"), p.chmod(0o600)), "does not hold a token"),
    (lambda p: (p.write_text("x" * 1000), p.chmod(0o600)), "1000 bytes"),
    (lambda p: os.mkfifo(p, 0o600), "not a regular file"),
    (lambda p: p.mkdir(), "not a regular file"),
])
def test_an_untrustworthy_token_file_is_refused(tmp_path, make, msg):
    make(cred.token_path(tmp_path))
    with pytest.raises(cred.CredentialError, match=msg):
        cred.read_instructor_token(tmp_path)


def test_a_symlinked_token_file_is_refused(tmp_path):
    real = tmp_path / "elsewhere"
    real.write_text("y" * 43)
    real.chmod(0o600)
    cred.token_path(tmp_path).symlink_to(real)
    with pytest.raises(cred.CredentialError, match="cannot be opened"):
        cred.read_instructor_token(tmp_path)


def test_cookies_and_grants_expire_and_are_bound_to_the_token():
    a, b = "a" * 43, "b" * 43
    c = cred.make_cookie(a, now=1000.0)
    assert a not in c and cred.check_cookie(a, c, now=1001.0)
    assert not cred.check_cookie(b, c, now=1001.0)
    assert not cred.check_cookie(a, c, now=1000.0 + cred.COOKIE_SECONDS + 1)
    g = cred.make_grant(a, now=1000.0)
    assert cred.check_grant(a, g, now=1000.0 + cred.GRANT_SECONDS - 1)
    assert not cred.check_grant(a, g, now=1000.0 + cred.GRANT_SECONDS + 1)
    assert not cred.check_grant(a, c, now=1001.0)  # a cookie is not a grant
    expiry, nonce, mac = g.split(".")
    far = str(int(expiry) + 10**6)
    assert not cred.check_grant(a, f"{far}.{nonce}.{mac}", now=1001.0)  # changed expiry: bad MAC
    for junk in (None, 5, "", "x" * 500, "1.2.3", g + "0"):
        assert not cred.check_grant(a, junk, now=1001.0)


def test_instructor_identity(tmp_path):
    token = cred.ensure_instructor_token(tmp_path)
    assert cred.instructor_identity({}, poll_dir=tmp_path)[0] == "local"  # not a Voila page: the server's user
    who, why = cred.instructor_identity(VOILA, poll_dir=tmp_path)
    assert who is None and "instructor link" in why
    env = {**VOILA, cred.GRANT_ENV: cred.make_grant(token)}
    assert cred.instructor_identity(env, poll_dir=tmp_path)[0] == "launcher"
    forged = {**VOILA, cred.GRANT_ENV: cred.make_grant("z" * 43)}
    who, why = cred.instructor_identity(forged, poll_dir=tmp_path)
    assert who is None and "expired or belongs to another server" in why
    cred.token_path(tmp_path).chmod(0o644)
    who, why = cred.instructor_identity(env, poll_dir=tmp_path)
    assert who is None and "cannot be trusted" in why
    assert cred.in_voila_page({"VOILA_PREHEAT": "True"}) and not cred.in_voila_page({"SERVER_SOFTWARE": "x"})


def test_a_registered_source_plugs_in(monkeypatch, tmp_path):
    monkeypatch.setattr(cred, "_SOURCES", [])
    cred.register_instructor_source(lambda env: "hub:" + env["HUB_USER"] if env.get("HUB_USER") == "alice" else None)
    assert cred.instructor_identity({**VOILA, "HUB_USER": "alice"}, poll_dir=tmp_path)[0] == "hub:alice"
    assert cred.instructor_identity({**VOILA, "HUB_USER": "bob"}, poll_dir=tmp_path)[0] is None
    with pytest.raises(TypeError, match="callable"):
        cred.register_instructor_source("not a function")


def test_a_page_with_a_grant_is_the_instructor_page_and_creates_as_launcher(tmp_path, monkeypatch):
    pytest.importorskip("ipywidgets")
    from dpexplore.classroom import PollStore
    from dpexplore.ui.poll import ClassPoll

    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path))
    token = cred.ensure_instructor_token(tmp_path)
    store = PollStore(tmp_path)
    env = {**VOILA, cred.GRANT_ENV: cred.make_grant(token)}
    page = ClassPoll(query_string="teach=1", store=store, environ=env, render=False)
    try:
        assert page.mode == "instructor" and page.instructor == "launcher"
        page.question.value = "Q?"
        page.epsilon_typed.value = "1.5"
        page.create_poll()
        assert page.poll.epsilon == 1.5
        assert store.tally(page.poll.code, creator="launcher").responses == 0
    finally:
        page.stop_watching()
    bad = ClassPoll(query_string="teach=1", store=store, environ={**VOILA}, render=False)
    assert bad.mode == "student" and "instructor link" in bad._poll_messages.value


def test_student_links_use_the_lan_address_and_refuse_hostile_hosts():
    env = {"SCRIPT_NAME": "/voila/render/06_class_poll.ipynb", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8866"}
    link = student_link("K7MQ2X", env)
    assert link.relative == "06_class_poll.ipynb?join=K7MQ2X" and link.loopback_only
    lan = student_link("K7MQ2X", {**env, "DPEXPLORE_PUBLIC_URL": "http://192.168.1.20:8866"})
    assert lan.full == "http://192.168.1.20:8866/voila/render/06_class_poll.ipynb?join=K7MQ2X"
    assert not lan.loopback_only
    direct = student_link("K7MQ2X", {**env, "SERVER_NAME": "10.1.2.3"})
    assert direct.full.startswith("http://10.1.2.3:8866/") and not direct.loopback_only
    for host in ("evil.com/<script>", "a b", "x" * 300):
        assert student_link("K7MQ2X", {**env, "SERVER_NAME": host}).full is None
    assert student_link("K7MQ2X", {**env, "SCRIPT_NAME": "/x/<b>.ipynb"}).full is None


def test_qr_code_is_svg_and_bounded():
    pytest.importorskip("segno")
    svg = qr_svg("http://192.168.1.20:8866/voila/render/06_class_poll.ipynb?join=K7MQ2X")
    assert svg.startswith("<svg") and "</svg>" in svg
    with pytest.raises(ValueError, match="1 to 300 characters"):
        qr_svg("x" * 301)
