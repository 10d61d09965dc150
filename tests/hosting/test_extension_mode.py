"""Issue 13 item 10: Voila as a Jupyter server extension (JupyterLab, Binder) with the project's
``jupyter_config.json`` installed as binder/postBuild installs it (in the user's Jupyter config
directory). Voila ignores ``multi_kernel_manager_class`` there; ``ServerApp.kernel_manager_class``
brings the kernel cap, the page-kernel reaper and (on import) every websocket fix."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.browser.harness import free_port

from .wsclient import API_COOKIES, V1, connect, fetch_page, kernel_alive, read_for

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def _server(tmp_path, extra_args=(), extra_env=None):
    """``jupyter server`` (Voila loaded as its extension) reading only the project's jupyter_config.json."""
    config = tmp_path / "jupyter-config"
    config.mkdir()
    shutil.copy(ROOT / "jupyter_config.json", config / "jupyter_config.json")  # what binder/postBuild does
    port = free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), **(extra_env or {})}
    env.pop("QUERY_STRING", None)
    cmd = [sys.executable, "-m", "jupyter_server", f"--ServerApp.root_dir={ROOT / 'tests' / 'fixtures'}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           "--ServerApp.open_browser=False", "--ServerApp.allow_root=True", "--IdentityProvider.token=",
           "--LimitedKernelManager.max_kernels=2", "--LimitedKernelManager.connect_timeout=3",
           "--LimitedKernelManager.reap_interval=1", *extra_args]
    log_path = tmp_path / "server.log"
    with open(log_path, "w") as log:
        # cwd: an empty folder, so no voila.json is read: jupyter_config.json alone must do it
        proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            deadline = time.time() + 60
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"jupyter server exited: {log_path.read_text()[-2000:]}")
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("jupyter server did not open its port within 60 s") from None
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}", log_path
        finally:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=15)


@pytest.fixture
def extension_server(tmp_path):
    with _server(tmp_path) as srv:
        yield srv


@pytest.fixture
def locked_server(tmp_path):
    """A hub user's server as the recipe configures it: lockdown on, read-only contents."""
    args = ["--ServerApp.contents_manager_class=dpexplore.hosting.lockdown.ReadOnlyContentsManager",
            "--ServerApp.config_manager_class=dpexplore.hosting.lockdown.ReadOnlyConfigManager"]
    with _server(tmp_path, args, {"DPEXPLORE_LOCKDOWN": "1"}) as srv:
        yield srv


def _render(url: str) -> tuple[str, str]:
    """GET a page like a browser would; return (kernel id, the owner cookie 'name=value' it set)."""
    import re

    with urllib.request.urlopen(f"{url}/voila/render/binary_traffic.ipynb", timeout=120) as resp:  # noqa: S310
        html = resp.read().decode()
        cookies = resp.headers.get_all("Set-Cookie") or []
    kernel_id = re.search(r'kernelId"?\s*[:=]\s*"([0-9a-f-]{36})"', html).group(1)
    owner = [c.split(";")[0] for c in cookies if c.startswith(f"dpx-kernel-{kernel_id}=")]
    api = [c.split(";")[0] for c in cookies if c.startswith(f"dpx-kapi-{kernel_id}=")]
    if api:  # what the page's browser would send to GET /api/kernels/<id> (kernel_alive uses it)
        API_COOKIES[kernel_id] = api[0]
    return kernel_id, owner[0] if owner else ""


def _shutdown(url: str, kernel_id: str, cookie: str) -> int:
    req = urllib.request.Request(f"{url}/voila/api/shutdown/{kernel_id}", data=b"_xsrf=forged",
                                 headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - loopback
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_extension_mode_has_the_cap_the_frame_checks_the_reaper_and_the_owner_shutdown(extension_server):
    url, log_path = extension_server
    viewed, _ = _render(url)  # the Voila extension renders it
    abandoned, _ = _render(url)
    with pytest.raises(urllib.error.HTTPError) as info:  # LimitedKernelManager.max_kernels=2 applies
        fetch_page(url, "binary_traffic.ipynb")
    assert info.value.code == 503
    assert "close a tab" in info.value.read().decode(errors="replace")

    async def attack():
        ws = await connect(url, viewed, subprotocol=V1)
        await ws.write_message((2**62).to_bytes(8, "little") + bytes(8), binary=True)
        _, closed = await read_for(ws, 5.0)
        ws.close()
        return closed

    try:
        closed = asyncio.run(asyncio.wait_for(attack(), 20))
    except (asyncio.TimeoutError, OSError) as exc:
        closed = f"no answer: {exc!r}"
    t0 = time.perf_counter()
    with urllib.request.urlopen(f"{url}/api/status", timeout=3) as resp:  # noqa: S310 - loopback
        assert resp.status == 200
    answer = time.perf_counter() - t0
    print(f"\nextension mode: hostile v1 frame -> socket closed {closed}; /api/status answered in {answer:.3f} s")
    assert closed is True
    assert "malformed frame" in log_path.read_text()

    # the page that never connected is shut down; the one that connected is not
    t_end = time.monotonic() + 20
    while kernel_alive(url, abandoned) and time.monotonic() < t_end:
        time.sleep(0.5)
    assert not kernel_alive(url, abandoned) and kernel_alive(url, viewed)

    # the page's own shutdown request (owner cookie) works; a forged one does not
    kernel_id, owner = _render(url)
    assert owner, "the page got no owner cookie"
    assert _shutdown(url, kernel_id, "_xsrf=forged") == 403 and kernel_alive(url, kernel_id)
    assert _shutdown(url, kernel_id, owner) == 204 and not kernel_alive(url, kernel_id)


CODE_REQUESTS = ("execute_request", "inspect_request", "complete_request", "history_request", "debug_request")


def _try_code(url: str, kernel_id: str, marker: Path) -> None:
    """Send every code-running request a client could, each writing ``marker`` if run."""
    from .wsclient import message

    code = f"open({str(marker)!r}, 'w').write('pwned')"

    async def attack():
        ws = await connect(url, kernel_id)
        for msg_type in CODE_REQUESTS:
            content = {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                       "allow_stdin": False, "cursor_pos": 0, "detail_level": 0}
            channel = "control" if msg_type == "debug_request" else "shell"
            await ws.write_message(message(msg_type, content, channel=channel))
        await asyncio.sleep(4)
        ws.close()

    asyncio.run(asyncio.wait_for(attack(), 30))


def test_a_voila_page_kernel_runs_no_client_code_in_extension_mode(extension_server, tmp_path):
    """Standalone Voila drops a client's execute_request; jupyter_server's websocket (extension mode: Binder,
    a hub user's server) did not: a page's kernel ran code sent over its websocket."""
    url, _ = extension_server
    kernel_id, _ = _render(url)
    marker = tmp_path / "pwned-page"
    _try_code(url, kernel_id, marker)
    assert not marker.exists()


def _http(url, method, body=None, xsrf=""):
    """One request with the page's XSRF cookie and header (as a browser of that page would send it)."""
    headers = {"Content-Type": "application/json"}
    if xsrf:
        headers.update({"Cookie": f"_xsrf={xsrf}", "X-XSRFToken": xsrf})
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 - loopback
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _xsrf(url: str) -> str:
    """An XSRF token a browser could hold: tornado's double-submit check compares cookie and header (a hex
    token is its version-1 form), which is all a student's own browser needs to pass it."""
    return "ab" * 16


def test_a_locked_down_server_runs_no_client_code_and_accepts_no_notebook(locked_server, tmp_path):
    """The hub recipe's single-user server: a kernel started through the REST API runs no code sent over its
    websocket, and no notebook can be uploaded (which Voila would then run); the gallery page still renders."""
    url, log_path = locked_server
    kernel_id, _ = _render(url)  # pages still render (Voila reads the notebook, the kernel runs it)
    xsrf = _xsrf(url)
    status, body = _http(f"{url}/api/kernels", "POST", {"name": "python3"}, xsrf)
    assert status in (201, 503), body[:300]  # allowed, within the cap; but it runs nothing a client sends
    target = json.loads(body)["id"] if status == 201 else kernel_id
    marker = tmp_path / "pwned-rest"
    _try_code(url, target, marker)
    assert not marker.exists()
    assert "DPEXPLORE_LOCKDOWN=1" in log_path.read_text() or status == 503
    evil = {"type": "notebook", "format": "json", "content": {"cells": [], "metadata": {}, "nbformat": 4,
                                                              "nbformat_minor": 5}}
    for method, path, payload in (("PUT", "/api/contents/evil.ipynb", evil),
                                  ("POST", "/api/contents", {"type": "notebook"}),
                                  ("PATCH", "/api/contents/binary_traffic.ipynb", {"path": "moved.ipynb"}),
                                  ("DELETE", "/api/contents/binary_traffic.ipynb", None),
                                  ("POST", "/api/contents/binary_traffic.ipynb/checkpoints", None)):
        status, body = _http(url + path, method, payload, xsrf)
        assert status == 403 and b"read-only" in body, (method, path, status, body[:200])
    assert (ROOT / "tests" / "fixtures" / "binary_traffic.ipynb").exists()
    assert not (ROOT / "tests" / "fixtures" / "evil.ipynb").exists()
    status, _ = _http(f"{url}/api/contents/binary_traffic.ipynb", "GET")
    assert status == 200  # reading still works
    # issue 39 W2: the frontend config API wrote ~/.jupyter/serverconfig/<any name>.json (a disk-fill path)
    config_dir = tmp_path / "jupyter-config" / "serverconfig"
    for method in ("PUT", "PATCH"):
        status, body = _http(f"{url}/api/config/fill{method}", method, {"x": "a" * 100_000}, xsrf)
        assert status == 403 and b"read-only" in body, (method, status, body[:200])
    assert not config_dir.exists() or not list(config_dir.glob("fill*.json"))
    status, body = _http(f"{url}/api/config/notebook", "GET")
    assert status == 200 and body.strip().startswith(b"{")  # reading still works
