"""Issue 13 item 10: Voila as a Jupyter server extension (JupyterLab, Binder) with the project's
``jupyter_config.json`` installed as binder/postBuild installs it (in the user's Jupyter config
directory). Voila ignores ``multi_kernel_manager_class`` there; ``ServerApp.kernel_manager_class``
brings the kernel cap, the page-kernel reaper and (on import) every websocket fix."""

from __future__ import annotations

import asyncio
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

from .wsclient import V1, connect, fetch_page, read_for

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def extension_server(tmp_path):
    """``jupyter server`` (Voila loaded as its extension) reading only the project's jupyter_config.json."""
    config = tmp_path / "jupyter-config"
    config.mkdir()
    shutil.copy(ROOT / "jupyter_config.json", config / "jupyter_config.json")  # what binder/postBuild does
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config)}
    env.pop("QUERY_STRING", None)
    cmd = [sys.executable, "-m", "jupyter_server", f"--ServerApp.root_dir={ROOT / 'tests' / 'fixtures'}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           "--ServerApp.open_browser=False", "--ServerApp.allow_root=True", "--IdentityProvider.token=",
           "--LimitedKernelManager.max_kernels=1"]
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


def test_extension_mode_has_the_cap_and_the_frame_checks(extension_server):
    url, log_path = extension_server
    _, kernel_id, _ = fetch_page(url, "binary_traffic.ipynb")  # the Voila extension renders it
    with pytest.raises(urllib.error.HTTPError) as info:  # LimitedKernelManager.max_kernels=1 applies
        fetch_page(url, "binary_traffic.ipynb")
    assert info.value.code == 503
    assert "close a tab" in info.value.read().decode(errors="replace")

    async def attack():
        ws = await connect(url, kernel_id, subprotocol=V1)
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
