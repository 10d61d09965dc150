"""What a client of the hosted dashboard server can and cannot do (issue: hosting safely).

* The Voila configuration the project ships (voila.json, the same as jupyter_config.json) is what
  these tests run: the server is started in the repository root, as ``python -m dpexplore.serve`` does.
* A raw websocket client speaking the legacy protocol (no ``v1.kernel.websocket.jupyter.org``
  subprotocol) drives widget traffic that carries binary buffers. voila 0.5.13 then hangs and grows
  without bound; the project's mitigation (dpexplore.hosting) keeps it answering — and the same test
  against a server *without* the project's configuration shows the failure, so the test can fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from dpexplore.hosting import safe_read_header_from_binary_message
from tests.browser.harness import VoilaServer

from .wsclient import connect, fetch_page, message, walk_states, widget_update

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


# -- the header reader itself -------------------------------------------------------------
def test_safe_header_reader_agrees_with_v1_serialisation():
    from jupyter_client.session import Session
    from jupyter_server.services.kernels.connection.base import serialize_msg_to_ws_v1

    session = Session()
    msg = session.msg("comm_msg", {"data": {"x": 1}})
    msg_list = session.serialize(msg)[1:]  # [signature, header, parent, metadata, content, *buffers]
    frame = serialize_msg_to_ws_v1(msg_list[1:] + [b"\x00\x01binary"], "iopub")
    header = safe_read_header_from_binary_message(frame)
    assert header is not None and header["msg_type"] == "comm_msg"


def test_safe_header_reader_rejects_legacy_and_garbage_quickly():
    from jupyter_client.session import Session
    from jupyter_server.services.kernels.connection.base import serialize_binary_message

    session = Session()
    msg = session.msg("comm_msg", {"data": {}})
    msg["buffers"] = [b"\x00" * 100]
    msg["channel"] = "iopub"
    legacy = serialize_binary_message(msg)  # what a non-v1 client receives
    t0 = time.perf_counter()
    assert safe_read_header_from_binary_message(legacy) is None
    rng = __import__("random").Random(0)
    for _ in range(2000):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64)))
        out = safe_read_header_from_binary_message(blob)
        assert out is None or isinstance(out, dict)
    assert time.perf_counter() - t0 < 5.0  # the unpatched reader loops ~1e18 times on `legacy`


# -- a live server --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hardened():
    with VoilaServer(FIXTURES, cwd=ROOT) as srv:  # cwd = repo root: voila.json applies
        yield srv


def _get(url: str, timeout: float) -> int:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - loopback test server
        resp.read()
        return resp.status


async def _hostile_widget_traffic(base_url: str, kernel_id: str, slider_id: str, *, seconds: float) -> int:
    """Legacy-protocol client moving a slider whose callback sends binary buffers back."""
    ws = await connect(base_url, kernel_id)
    frames = 0
    t_end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < t_end:
        i += 1
        await ws.write_message(widget_update(slider_id, {"value": i}))
        try:
            while True:
                m = await asyncio.wait_for(ws.read_message(), timeout=0.05)
                if m is None:
                    break
                frames += 1
        except asyncio.TimeoutError:
            pass
    ws.close()
    return frames


def _probe_while_hostile(server: VoilaServer, seconds: float, *, rss_limit_mb: float) -> dict:
    """Run the hostile client in a thread-free event loop while probing the server over HTTP."""
    _, kernel_id, models = fetch_page(server.url, "binary_traffic.ipynb")
    slider_id = models[0]
    proc = psutil.Process(server.proc.pid)
    rss0 = proc.memory_info().rss / 2**20
    result = {"rss0": rss0, "probes_ok": 0, "probes_failed": 0, "rss_max": rss0, "frames": 0}

    async def main():
        task = asyncio.ensure_future(_hostile_widget_traffic(server.url, kernel_id, slider_id, seconds=seconds))
        loop = asyncio.get_running_loop()
        while not task.done():
            try:
                await loop.run_in_executor(None, _get, f"{server.url}/voila/tree", 3.0)
                result["probes_ok"] += 1
            except OSError:
                result["probes_failed"] += 1
            rss = proc.memory_info().rss / 2**20
            result["rss_max"] = max(result["rss_max"], rss)
            if rss > rss_limit_mb:  # unbounded growth: stop before the machine suffers
                task.cancel()
                break
            await asyncio.sleep(0.5)
        try:
            result["frames"] = await task
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - a hung server may drop the socket
            pass

    asyncio.run(main())
    return result


def test_hostile_legacy_client_cannot_hang_the_hardened_server(hardened):
    res = _probe_while_hostile(hardened, seconds=8.0, rss_limit_mb=2000)
    assert res["frames"] > 0, res  # widget traffic did flow to the hostile client
    assert res["probes_failed"] == 0 and res["probes_ok"] >= 5, res
    assert res["rss_max"] - res["rss0"] < 150, res  # memory stays bounded
    # and real users still get dashboards
    html, _, _ = fetch_page(hardened.url, "kit_demo.ipynb")
    assert "Kit demo" in html or "kit_demo" in html


def test_the_same_attack_hangs_an_unhardened_server():
    """Without the project's configuration (run from an empty folder) voila 0.5.13 stops answering."""
    with tempfile.TemporaryDirectory() as empty:
        with VoilaServer(FIXTURES, cwd=Path(empty)) as plain:
            res = _probe_while_hostile(plain, seconds=6.0, rss_limit_mb=900)
    hung = res["probes_failed"] > 0 or res["rss_max"] - res["rss0"] > 300
    assert hung, f"expected the unpatched server to hang or grow; got {res}"


def test_execute_request_from_a_client_is_not_run(hardened):
    _, kernel_id, _ = fetch_page(hardened.url, "binary_traffic.ipynb")
    marker = Path(tempfile.gettempdir()) / f"dpexplore-exec-{os.getpid()}"
    marker.unlink(missing_ok=True)

    async def attack():
        ws = await connect(hardened.url, kernel_id)
        code = f"open({str(marker)!r}, 'w').write('pwned')"
        for msg_type in ("execute_request",):
            await ws.write_message(message(msg_type, {"code": code, "silent": False, "store_history": False,
                                                      "user_expressions": {}, "allow_stdin": False}))
        await asyncio.sleep(4)
        ws.close()

    asyncio.run(attack())
    assert not marker.exists()


@pytest.mark.parametrize("path", [
    "/voila/files/binary_traffic.ipynb",  # the notebook source
    "/voila/files/kit_demo.py",  # Python source next to it
    "/voila/files/../voila.json",
    "/voila/render/kit_demo.py",
    "/api/contents/binary_traffic.ipynb",
    "/api/kernels",
])
def test_sources_are_not_served(hardened, path):
    req = urllib.request.Request(hardened.url + path)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310
            body = resp.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        assert exc.code in (403, 404), exc.code
        return
    assert "setattr(image" not in body and "class KitDemo" not in body, body[:300]


def test_template_traversal_and_logout_answer_without_a_traceback(hardened):
    """Issue 39 leftovers: ``?template=..%2f..`` and ``/logout`` answered 500 with a traceback in the log.
    The template and theme can no longer be chosen from the URL (voila.json), and /logout is a plain 404."""
    for path, ok in (("/voila/render/binary_traffic.ipynb?template=..%2f..%2f", (200,)),
                     ("/voila/render/binary_traffic.ipynb?theme=..%2f..", (200,)),
                     ("/voila/tree?template=..%2f..&theme=..%2f..", (200,)),
                     ("/logout", (404,))):
        try:
            with urllib.request.urlopen(hardened.url + path, timeout=60) as resp:  # noqa: S310 - loopback
                status, body = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        assert status in ok, (path, status, body[:200])
        assert b"Traceback" not in body
    log = hardened.log()
    assert "Traceback" not in log and "Uncaught exception" not in log, log[-3000:]


def test_contents_api_gives_no_notebook_content(hardened):
    with urllib.request.urlopen(f"{hardened.url}/voila/api/contents/binary_traffic.ipynb", timeout=30) as r:  # noqa: S310
        model = json.loads(r.read())
    assert model["content"] is None
    html, _, _ = fetch_page(hardened.url, "binary_traffic.ipynb")
    assert "setattr(image" not in html  # strip_sources: the page carries outputs, not code


def test_client_cannot_push_a_control_outside_its_range(hardened):
    """A client that widens a slider's max and sends a huge value gets the clamped value back."""
    _, kernel_id, models = fetch_page(hardened.url, "kit_demo.ipynb")

    async def attack():
        """Walk the widget tree from the page's top-level views (request_state on each model)."""
        ws = await connect(hardened.url, kernel_id)
        return ws, await walk_states(ws, models)

    async def run():
        ws, states = await attack()
        (kid,) = [cid for cid, st in states.items()
                  if st.get("_model_name") == "IntSliderModel" and st.get("description", "") == "k"]
        await ws.write_message(widget_update(kid, {"max": 10**9}))
        await ws.write_message(widget_update(kid, {"value": 10**9}))
        final = {}
        t_end = time.monotonic() + 20
        while time.monotonic() < t_end:
            try:
                m = await asyncio.wait_for(ws.read_message(), timeout=1)
            except asyncio.TimeoutError:
                if final.get("value") == 10:
                    break
                continue
            if isinstance(m, str):
                msg = json.loads(m)
                data = msg.get("content", {}).get("data", {})
                if msg.get("content", {}).get("comm_id") == kid and "state" in data:
                    final.update(data["state"])
        ws.close()
        return final

    final = asyncio.run(run())
    assert final.get("value") == 10 and final.get("max") == 10, final


def test_load_tool_smoke():
    """The load test (benchmarks/load_test.py) runs end to end on two sessions, and idle kernels
    are culled after the sessions end (the full run with N = 10, 20, ... is a benchmark)."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import load_test

    from tests.browser.harness import chromium_available

    if not chromium_available():
        if os.environ.get("DPEXPLORE_REQUIRE_BROWSER") == "1":
            pytest.fail("browser required (DPEXPLORE_REQUIRE_BROWSER=1) but no Chromium")
        pytest.skip("no Chromium at /usr/bin/chromium")
    args = ["--sessions", "2", "--notebook", "kit_demo.ipynb", "--notebooks-dir", str(FIXTURES), "--moves", "2",
            "--cull", "6", "--grace", "60", "--timeout", "240"]
    # One retry: on a heavily loaded machine a session has once missed its 240 s deadline (CI log of a
    # fresh clone while two other test runs shared the 2 cores). The tool counts that as an error, as it
    # should; a second failure in a row is a real failure.
    code = load_test.main(args)
    if code != 0:
        code = load_test.main(args)
    assert code == 0


def test_kernel_cap_refuses_a_session_beyond_it_with_503():
    """``LimitedKernelManager``: with the cap at 1, a second page view gets HTTP 503 (not a hang) while
    the first session's kernel is alive."""
    import urllib.error

    with VoilaServer(FIXTURES, cwd=ROOT, extra_args=["--LimitedKernelManager.max_kernels=1"]) as srv:
        url = f"{srv.url}/voila/render/binary_traffic.ipynb"
        assert _get(url, timeout=120) == 200  # its kernel stays up (no websocket, not yet culled)
        with pytest.raises(urllib.error.HTTPError) as info:
            _get(url, timeout=120)
        assert info.value.code == 503
