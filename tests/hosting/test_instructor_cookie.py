"""The instructor link is exchanged for an HttpOnly, SameSite=Strict cookie and a redirect to the clean
URL; later page requests carry a short-lived grant to the kernel; clients cannot set the server's
headers themselves (issue 31.5/31.6). A tornado app with a stand-in for Voila's render handler."""

import json
from types import SimpleNamespace
from urllib.parse import urlsplit

import tornado.testing
import tornado.web

from dpexplore.classroom import credentials as cred
from dpexplore.hosting import instructor


class FakeRender(tornado.web.RequestHandler):
    """What the wrapper needs of Voila's handler: ``voila_configuration``, ``base_url`` and ``get``."""

    voila_configuration = SimpleNamespace(http_header_envs=["X-Other"])
    base_url = "/"
    seen: list = []

    async def get(self, path=None):
        got = {k: v for k, v in self.request.headers.get_all() if k.lower().startswith("x-dpx")}
        type(self).seen.append(got)
        self.write(json.dumps(got))


FakeRender.get = instructor.wrap_render(FakeRender.get)


class InstructorCookieTest(tornado.testing.AsyncHTTPTestCase):
    def setUp(self):
        import os
        import tempfile

        self.dir = tempfile.mkdtemp()
        self._old = os.environ.get("DPEXPLORE_POLL_DIR")
        os.environ["DPEXPLORE_POLL_DIR"] = self.dir
        self.token = cred.ensure_instructor_token(self.dir)
        super().setUp()

    def tearDown(self):
        import os

        super().tearDown()
        if self._old is None:
            os.environ.pop("DPEXPLORE_POLL_DIR", None)
        else:
            os.environ["DPEXPLORE_POLL_DIR"] = self._old

    def get_app(self):
        return tornado.web.Application([(r"/voila/render/(.*)", FakeRender)])

    def _get(self, url, **headers):
        return self.fetch(url, follow_redirects=False, headers=headers)

    def test_the_token_is_exchanged_for_a_cookie_and_a_clean_url(self):
        r = self._get(f"/voila/render/06_class_poll.ipynb?x=1&instructor={self.token}")
        assert r.code == 302
        location = r.headers["Location"]
        assert urlsplit(location).path == "/voila/render/06_class_poll.ipynb"
        assert urlsplit(location).query == "x=1&teach=1" and self.token not in location
        cookie = r.headers["Set-Cookie"]
        assert cookie.startswith(f"{instructor.COOKIE}=") and self.token not in cookie
        low = cookie.lower()
        assert "httponly" in low and "samesite=strict" in low and "path=/" in low and "max-age=" in low
        assert r.headers["Referrer-Policy"] == "no-referrer" and r.headers["Cache-Control"] == "no-store"
        assert not FakeRender.seen or all(self.token not in json.dumps(s) for s in FakeRender.seen)
        value = cookie.split(";", 1)[0].split("=", 1)[1]
        FakeRender.seen.clear()
        r = self._get("/voila/render/06_class_poll.ipynb?teach=1", Cookie=f"{instructor.COOKIE}={value}")
        assert r.code == 200
        got = FakeRender.seen[-1]
        assert cred.check_grant(self.token, got[cred.GRANT_HEADER])  # the kernel gets a grant, not the token
        assert instructor.CLIENT_HEADER not in got  # a loopback peer (a hub's or nginx's proxy) is no identity
        assert set(FakeRender.voila_configuration.http_header_envs) >= {cred.GRANT_HEADER, instructor.CLIENT_HEADER,
                                                                         "X-Other"}

    def test_a_wrong_token_gets_no_cookie_and_still_leaves_the_url(self):
        r = self._get("/voila/render/06_class_poll.ipynb?instructor=" + "A" * 43)
        assert r.code == 302 and "Set-Cookie" not in r.headers and "instructor=" not in r.headers["Location"]

    def test_clients_cannot_send_the_servers_headers(self):
        FakeRender.seen.clear()
        forged = cred.make_grant("z" * 43)
        r = self._get("/voila/render/06_class_poll.ipynb", **{cred.GRANT_HEADER: forged,
                                                              instructor.CLIENT_HEADER: "6.6.6.6"})
        assert r.code == 200
        got = FakeRender.seen[-1]
        assert cred.GRANT_HEADER not in got and instructor.CLIENT_HEADER not in got
        r = self._get("/voila/render/06_class_poll.ipynb", Cookie=f"{instructor.COOKIE}=1.2.{'0' * 64}")
        assert cred.GRANT_HEADER not in FakeRender.seen[-1]  # a forged cookie gives no grant


def test_forwarded_addresses_are_believed_only_from_a_trusted_proxy(monkeypatch):
    """Issue 39 J1: behind a proxy every request has one peer address; the page's failure counter must not be
    keyed by it, and a client's own X-Forwarded-For must not choose its key."""
    class Case(InstructorCookieTest):
        def runTest(self):  # noqa: D102
            pass

    case = Case()
    case.setUp()
    try:
        FakeRender.seen.clear()
        case._get("/voila/render/06_class_poll.ipynb", **{"X-Forwarded-For": "203.0.113.5"})
        assert instructor.CLIENT_HEADER not in FakeRender.seen[-1]  # not trusted: ignored
        monkeypatch.setenv(instructor.TRUSTED_PROXIES_ENV, "127.0.0.0/8")
        case._get("/voila/render/06_class_poll.ipynb", **{"X-Forwarded-For": "6.6.6.6, 203.0.113.5"})
        assert FakeRender.seen[-1][instructor.CLIENT_HEADER] == "203.0.113.5"  # nginx's appended peer
        case._get("/voila/render/06_class_poll.ipynb", **{"X-Forwarded-For": "not-an-address"})
        assert instructor.CLIENT_HEADER not in FakeRender.seen[-1]
    finally:
        case.tearDown()


def test_the_access_log_line_of_the_exchange_hides_the_token(caplog):
    import logging

    case = InstructorCookieTest("test_a_wrong_token_gets_no_cookie_and_still_leaves_the_url")
    case.setUp()
    try:
        with caplog.at_level(logging.DEBUG, logger="tornado.access"):
            r = case._get(f"/voila/render/06_class_poll.ipynb?instructor={case.token}")
        assert r.code == 302
        lines = [rec.getMessage() for rec in caplog.records if rec.name == "tornado.access"]
        assert lines and all(case.token not in line for line in lines)
        # the handler writes instructor=<redacted>; where hosting.connections' log scrubber is installed
        # (any test that started a hardened server in this process) the whole query is [scrubbed]
        assert any("instructor=<redacted>" in line or "?[scrubbed]" in line for line in lines)
    finally:
        case.tearDown()
