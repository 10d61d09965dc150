"""Issue 39 (hosting round 4) against a live hardened Voila server: one client cannot hold more than its share of
the kernels (H2), and what a page is sent with (the Content-Security-Policy, no third-party link)."""

from __future__ import annotations

import http.client
import re
from pathlib import Path

import pytest

from tests.browser.harness import VoilaServer

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
PER_CLIENT = 2


@pytest.fixture(scope="module")
def capped():
    with VoilaServer(FIXTURES, cwd=ROOT, extra_args=[f"--LimitedKernelManager.max_kernels_per_client={PER_CLIENT}",
                                                      "--LimitedKernelManager.max_kernels=8"]) as srv:
        yield srv


def _get(url: str, path: str, source: str) -> tuple[int, dict, str]:
    """GET ``path`` from the local address ``source`` (127.0.0.x: distinct clients on one machine)."""
    host, port = url.removeprefix("http://").split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=120, source_address=(source, 0))
    try:
        con.request("GET", path)
        resp = con.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read().decode(errors="replace")
    finally:
        con.close()


def test_one_client_cannot_hold_more_than_its_share_of_kernels(capped):
    """Before: one address could hold all 40 kernel slots (256 connections allowed) and everyone else got 503."""
    page = "/voila/render/binary_traffic.ipynb"
    for _ in range(PER_CLIENT):
        status, _, body = _get(capped.url, page, "127.0.0.2")
        assert status == 200, body[:300]
    status, _, body = _get(capped.url, page, "127.0.0.2")
    assert status == 503 and "per visitor" in body, (status, body[:300])
    status, _, body = _get(capped.url, page, "127.0.0.3")  # another visitor is served
    assert status == 200 and re.search(r'kernelId"?\s*[:=]\s*"[0-9a-f-]{36}"', body)
    # a proxy's address (127.0.0.1, not trusted) is no identity: it is not capped per client (the global cap is)
    for _ in range(PER_CLIENT + 1):
        status, _, body = _get(capped.url, page, "127.0.0.1")
        assert status == 200, body[:300]


def test_a_page_names_no_third_party_and_sends_its_policy(capped):
    status, headers, body = _get(capped.url, "/voila/render/binary_traffic.ipynb", "127.0.0.4")
    assert status == 200
    csp = headers.get("content-security-policy", "")
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp and "http" not in csp
    assert not re.search(r'(?:href|src)="(?:https?:)?//', body), re.findall(r'(?:href|src)="(?:https?:)?//[^"]*', body)
    status, headers, body = _get(capped.url, "/voila/tree", "127.0.0.4")
    assert status == 200 and "default-src 'self'" in headers.get("content-security-policy", "")
    assert not re.search(r'(?:href|src)="(?:https?:)?//', body)
