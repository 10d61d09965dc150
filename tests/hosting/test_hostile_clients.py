"""Issue 13 (hosting round 2): what a hostile or careless client can do to a served dashboard.

One Voila server with the repository's voila.json (cwd = repository root, as ``python -m
dpexplore.serve`` runs it) serving ``tests/``, with a short connect timeout so that abandoned pages'
kernels are reclaimed within the test. Every check here failed on the code before the fix (see the
commit messages): hostile frames hung the server or kept memory, client comm_open created widgets,
NaN answers carried tracebacks, plain GETs held kernels for 20 minutes, closing a tab freed nothing.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import struct
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest

from tests.browser.harness import VoilaServer, chromium_available

from .wsclient import (
    API_COOKIES,
    V1,
    connect,
    decode,
    fetch_page,
    kernel_alive,
    message,
    read_for,
    walk_states,
    widget_update,
)

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]
TRAFFIC = "fixtures/binary_traffic.ipynb"
DEMO = "hosting/notebooks/hostile_demo.ipynb"
CONNECT_TIMEOUT = 4  # s, LimitedKernelManager.connect_timeout for this server (default 120)


@pytest.fixture(scope="module")
def server():
    args = [f"--LimitedKernelManager.connect_timeout={CONNECT_TIMEOUT}", "--LimitedKernelManager.reap_interval=1"]
    with VoilaServer(ROOT / "tests", cwd=ROOT, extra_args=args) as srv:
        yield srv


def _answer_s(url: str, timeout: float = 5.0) -> float:
    """Seconds the server takes to answer a small page (inf if it does not answer within ``timeout``)."""
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - loopback test server
            resp.read()
    except OSError:
        return math.inf
    return time.perf_counter() - t0


def _rss_mib(srv: VoilaServer) -> float:
    return psutil.Process(srv.proc.pid).memory_info().rss / 2**20


# -- items 1 and 2: hostile frames ------------------------------------------------------------------
FRAMES = {
    # v1 subprotocol: the first 8 bytes are an offset count
    "v1 2**62 offsets": (V1, [(2**62).to_bytes(8, "little") + bytes(8)]),
    "v1 seven 0x01 bytes": (V1, [b"\x01" * 7]),
    # legacy protocol: the first 4 bytes are a buffer count; each frame on its own connection, three
    # different counts (the server cached one ~130 MB struct format per distinct count)
    "legacy 4e6 buffers x3": (None, [struct.pack("!i", 4_000_000 + i) + bytes(8) for i in range(3)]),
}


@pytest.mark.parametrize("case", list(FRAMES))
def test_a_hostile_frame_closes_its_socket_and_the_server_keeps_serving(server, case):
    subprotocol, frames = FRAMES[case]
    _, kernel_id, _ = fetch_page(server.url, TRAFFIC)
    rss0 = _rss_mib(server)

    async def attack() -> list[bool]:
        closed = []
        for frame in frames:
            ws = await connect(server.url, kernel_id, subprotocol=subprotocol)
            await ws.write_message(frame, binary=True)
            _, was_closed = await read_for(ws, 5.0)
            closed.append(was_closed)
            ws.close()
        return closed

    try:
        closed = asyncio.run(asyncio.wait_for(attack(), 30))
    except (asyncio.TimeoutError, OSError) as exc:  # a hung server stops accepting websockets
        closed = [f"no answer: {exc!r}"]
    time.sleep(1.0)
    answer = _answer_s(f"{server.url}/voila/tree")
    grew = _rss_mib(server) - rss0
    print(f"\n{case}: socket closed {closed}; /voila/tree answered in {answer:.3f} s; server RSS {grew:+.1f} MiB")
    assert answer < 3.0, f"{case}: the server did not answer within 3 s after the frame"
    assert grew < 50, f"{case}: server memory grew by {grew:.0f} MiB"
    assert closed == [True] * len(frames), closed  # the server closed the socket on the malformed frame
    html, _, _ = fetch_page(server.url, TRAFFIC, timeout=60)  # and another page still renders
    assert "kernelId" in html
    assert "malformed frame" in server.log()


def test_well_formed_v1_frames_still_reach_the_kernel(server):
    """The checks pass real v1 traffic: a kernel_info_request over v1 gets its reply."""
    from jupyter_client.session import Session
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    _, kernel_id, _ = fetch_page(server.url, TRAFFIC)
    session = Session()
    msg = session.msg("kernel_info_request", {})
    parts = [session.pack(msg[k]) for k in ("header", "parent_header", "metadata", "content")]

    async def run():
        ws = await connect(server.url, kernel_id, subprotocol=V1)
        await ws.write_message(serialize_msg_to_ws_v1(parts, "shell"), binary=True)
        frames, closed = await read_for(ws, 8.0)
        ws.close()
        return frames, closed

    frames, closed = asyncio.run(run())
    assert not closed
    assert any(isinstance(f, bytes) and b"kernel_info_reply" in f for f in frames)


# -- item 8: client-created widgets -----------------------------------------------------------------
SLIDER_STATE = {"_model_module": "@jupyter-widgets/controls", "_model_module_version": "2.0.0",
                "_model_name": "IntSliderModel", "_view_module": "@jupyter-widgets/controls",
                "_view_module_version": "2.0.0", "_view_name": "IntSliderView", "value": 3}


def test_a_client_cannot_create_widgets_in_the_kernel_but_the_page_can_load_their_state(server):
    _, kernel_id, _ = fetch_page(server.url, TRAFFIC)
    hostile, control = uuid.uuid4().hex, uuid.uuid4().hex

    async def run():
        ws = await connect(server.url, kernel_id)
        await ws.write_message(message("comm_open", {"comm_id": hostile, "target_name": "jupyter.widget",
                                                     "data": {"state": SLIDER_STATE, "buffer_paths": []}},
                                     metadata={"version": "2.1.0"}))
        await ws.write_message(message("comm_msg", {"comm_id": hostile, "data": {"method": "request_state"}}))
        # what the page's widget manager does on connect: open the control comm, ask for every state
        await ws.write_message(message("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control",
                                                     "data": {}}, metadata={"version": "1.0.0"}))
        await ws.write_message(message("comm_msg", {"comm_id": control, "data": {"method": "request_states"}}))
        frames, _ = await read_for(ws, 6.0)
        ws.close()
        return [decode(f) for f in frames]

    msgs = asyncio.run(run())
    replies = {m["content"].get("comm_id") for m in msgs if m["msg_type"] == "comm_msg"}
    assert hostile not in replies, "the kernel created a widget a client asked for"
    assert control in replies, "the page's own state request (jupyter.widget.control) got no answer"
    assert "Dropped a comm_open from the client" in server.log()


# -- item 6: NaN / ±Inf from a client ---------------------------------------------------------------
def test_non_finite_slider_values_send_no_traceback_and_the_dashboard_keeps_working(server):
    _, kernel_id, models = fetch_page(server.url, DEMO)

    async def run():
        ws = await connect(server.url, kernel_id)
        states = await walk_states(ws, models)
        sliders = {s.get("description"): cid for cid, s in states.items() if "Slider" in s.get("_model_name", "")}
        for name in ("n", "T", "ε"):
            for bad in (math.nan, math.inf, -math.inf):
                await ws.write_message(widget_update(sliders[name], {"value": bad}))  # json: NaN, Infinity
        await ws.write_message(widget_update(sliders["T"], {"value": 7}))
        frames, _ = await read_for(ws, 6.0)
        ws.close()
        return [f for f in frames if isinstance(f, str)]

    texts = asyncio.run(run())
    msgs = [json.loads(t) for t in texts]
    assert not [m for m in msgs if m["msg_type"] == "error"], "a traceback was sent to the client"
    for t in texts:
        assert "Traceback" not in t and "site-packages" not in t and ".py:" not in t, t[:400]
    html_updates = " ".join(t for t in texts if "Ignored a non-finite value" in t or "T=7" in t)
    assert "Ignored a non-finite value" in html_updates and "T=7" in html_updates


# -- item 4: plain GETs ----------------------------------------------------------------------------
def test_a_plain_get_kernel_is_reclaimed_soon_but_a_connected_page_keeps_its_kernel(server):
    _, abandoned, _ = fetch_page(server.url, TRAFFIC)  # no browser, no websocket
    _, viewed, _ = fetch_page(server.url, TRAFFIC)
    t0 = time.monotonic()

    async def stay_connected():
        ws = await connect(server.url, viewed)
        t_end = time.monotonic() + CONNECT_TIMEOUT + 20
        while kernel_alive(server.url, abandoned) and time.monotonic() < t_end:
            await asyncio.sleep(0.5)
        gone_after = time.monotonic() - t0
        await asyncio.sleep(2)
        ws.close()
        return gone_after

    gone_after = asyncio.run(stay_connected())
    print(f"\nplain-GET kernel reclaimed {gone_after:.1f} s after its page was sent (connect_timeout "
          f"{CONNECT_TIMEOUT} s)")
    assert not kernel_alive(server.url, abandoned), "the never-connected kernel is still running"
    assert gone_after < CONNECT_TIMEOUT + 10
    assert kernel_alive(server.url, viewed), "a connected page's kernel was shut down"
    assert "no browser has connected to it" in server.log()


# -- item 5: closing a tab ---------------------------------------------------------------------------
def _forged_shutdown(base_url: str, kernel_id: str) -> int:
    """What any script can send: its own _xsrf cookie and the same value in the form."""
    req = urllib.request.Request(f"{base_url}/voila/api/shutdown/{kernel_id}", data=b"_xsrf=forged",
                                 headers={"Cookie": "_xsrf=forged",
                                          "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback test server
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_script_cannot_shut_down_a_page_kernel_it_knows_the_id_of(server):
    _, kernel_id, _ = fetch_page(server.url, TRAFFIC)
    assert _forged_shutdown(server.url, kernel_id) == 403  # before the fix: 204, kernel gone
    req = urllib.request.Request(f"{server.url}/api/kernels/{kernel_id}", method="DELETE",
                                 headers={"Cookie": "_xsrf=forged", "X-XSRFToken": "forged"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)  # noqa: S310 - loopback test server
    assert info.value.code == 403  # before the fix: 204, kernel gone
    assert kernel_alive(server.url, kernel_id)


def test_closing_a_tab_frees_its_kernel_and_nobody_else_can(server):
    if not chromium_available():
        if os.environ.get("DPEXPLORE_REQUIRE_BROWSER") == "1":
            pytest.fail("browser required (DPEXPLORE_REQUIRE_BROWSER=1) but no Chromium")
        pytest.skip("no Chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    from tests.browser.harness import JS_RENDERED, launch_browser

    with sync_playwright() as p:
        browser = launch_browser(p)
        try:
            ctx = browser.new_context()
            ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
                ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")) else route.abort())
            page = ctx.new_page()
            page.goto(f"{server.url}/voila/render/{TRAFFIC}", wait_until="commit", timeout=120_000)
            page.wait_for_function(JS_RENDERED, timeout=120_000, polling=100)
            page.wait_for_selector(".widget-slider", timeout=60_000)  # widgets drawn: the page is connected
            kernel_id = page.evaluate(
                "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
            api = [c for c in ctx.cookies() if c["name"] == f"dpx-kapi-{kernel_id}"]
            assert api, "the page got no cookie for its kernel's model"
            API_COOKIES[kernel_id] = f"{api[0]['name']}={api[0]['value']}"  # what its browser sends
            assert kernel_alive(server.url, kernel_id)
            # another client that knows the kernel id cannot shut it down
            assert _forged_shutdown(server.url, kernel_id) == 403
            assert kernel_alive(server.url, kernel_id)
            t0 = time.monotonic()
            page.close(run_before_unload=True)
            while kernel_alive(server.url, kernel_id) and time.monotonic() - t0 < 20:
                time.sleep(0.2)
            gone_after = time.monotonic() - t0
            ctx.close()
        finally:
            browser.close()
    print(f"\nclosed tab: kernel gone {gone_after:.2f} s after page.close(run_before_unload=True)")
    assert not kernel_alive(server.url, kernel_id), "the closed tab's kernel is still running after 20 s"
    assert gone_after < 10
