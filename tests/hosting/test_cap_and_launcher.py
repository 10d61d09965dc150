"""Issue 13 items 3 and 9: the kernel cap holds under a burst of simultaneous page requests, the 503
page tells a visitor what to do, and ``python -m dpexplore.serve`` passes Voila/traitlet options on."""

from __future__ import annotations

import concurrent.futures
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dpexplore import serve
from tests.browser.harness import VoilaServer

ROOT = Path(__file__).resolve().parents[2]


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:  # noqa: S310 - loopback test server
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


@pytest.mark.server
def test_a_burst_of_8_requests_starts_at_most_max_kernels_and_the_rest_get_a_helpful_503():
    with VoilaServer(ROOT / "tests" / "fixtures", cwd=ROOT, extra_args=["--LimitedKernelManager.max_kernels=2"]) as srv:
        url = f"{srv.url}/voila/render/binary_traffic.ipynb"
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(_get, [url] * 8))
        started = srv.log().count("Kernel started:")
    statuses = sorted(status for status, _ in answers)
    print(f"\nburst of 8, cap 2: statuses {statuses}, kernels started {started}")
    assert started == 2, f"{started} kernels started under a cap of 2"
    assert statuses == [200, 200] + [503] * 6
    body = next(body for status, body in answers if status == 503)
    assert "Dashboard server is full (2 sessions): close a tab or try again later" in body


def test_serve_passes_voila_and_traitlet_options_through(monkeypatch, tmp_path):
    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "00_index.ipynb").write_text("{}")
    calls = []
    monkeypatch.setattr(serve, "port_problem", lambda host, port: None)
    monkeypatch.setattr(serve, "run_forwarding_signals", lambda cmd, cwd, env=None: calls.append((cmd, cwd)) or 0)
    code = serve.main([str(nb), "--no-browser", "--port", "8999", "--LimitedKernelManager.max_kernels=2",
                       "--VoilaConfiguration.show_tracebacks=False"])
    assert code == 0
    (cmd, cwd), = calls
    assert cmd[-2:] == ["--LimitedKernelManager.max_kernels=2", "--VoilaConfiguration.show_tracebacks=False"]
    assert "--Voila.port=8999" in cmd and "--Voila.ip=127.0.0.1" in cmd and cwd == tmp_path


def test_serve_still_refuses_a_stray_positional_argument(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        serve.main([str(tmp_path), "extra"])
    assert info.value.code == 2


def test_serve_refuses_a_malformed_cache_size_in_one_line_before_starting_anything(monkeypatch, tmp_path, capsys):
    """Issue 39: $DPEXPLORE_CACHE_MAX_BYTES=1e9 was replaced by the default with only a log line; 'lots' still is
    no size: the launcher says so once and starts nothing (every kernel would fail on it)."""
    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "00_index.ipynb").write_text("{}")
    calls = []
    monkeypatch.setattr(serve, "port_problem", lambda host, port: None)
    monkeypatch.setattr(serve, "run_forwarding_signals", lambda cmd, cwd, env=None: calls.append(cmd) or 0)
    monkeypatch.setenv("DPEXPLORE_CACHE_MAX_BYTES", "lots")
    assert serve.main([str(nb), "--no-browser"]) == 2 and not calls
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "$DPEXPLORE_CACHE_MAX_BYTES must be a size" in err[0], err
    monkeypatch.setenv("DPEXPLORE_CACHE_MAX_BYTES", "1e9")
    assert serve.main([str(nb), "--no-browser"]) == 0 and calls


def test_serve_preheat_selects_the_pool_and_the_users_options_win(monkeypatch, tmp_path):
    nb = tmp_path / "notebooks"
    nb.mkdir()
    for name in ("00_index.ipynb", "01_a.ipynb", "02_b.ipynb"):
        (nb / name).write_text("{}")
    calls = []
    monkeypatch.setattr(serve, "port_problem", lambda host, port: None)
    monkeypatch.setattr(serve, "run_forwarding_signals", lambda cmd, cwd, env=None: calls.append(cmd) or 0)
    assert serve.main([str(nb), "--no-browser", "--preheat", "3", "--VoilaExecutor.timeout=900"]) == 0
    cmd = calls[-1]
    assert "--VoilaConfiguration.preheat_kernel=True" in cmd and "--VoilaConfiguration.default_pool_size=3" in cmd
    pooled = [c.split("=", 1)[1] for c in cmd if c.startswith("--LimitedKernelManager.preheat_notebooks=")]
    assert pooled == ["01_a.ipynb", "02_b.ipynb"]  # never the gallery
    timeouts = [c for c in cmd if c.startswith("--VoilaExecutor.timeout=")]
    assert timeouts == ["--VoilaExecutor.timeout=900"]  # given once (traitlets refuses twice): the user's
    assert serve.main([str(nb), "--no-browser", "--preheat", "1", "--preheat-notebook", "02_b.ipynb"]) == 0
    assert [c for c in calls[-1] if "preheat_notebooks" in c] == ["--LimitedKernelManager.preheat_notebooks=02_b.ipynb"]
    with pytest.raises(SystemExit):
        serve.main([str(nb), "--no-browser", "--preheat", "1", "--preheat-notebook", "nosuch.ipynb"])
    with pytest.raises(SystemExit):
        serve.main([str(nb), "--no-browser", "--preheat", "65"])
    assert serve.main([str(nb), "--no-browser"]) == 0
    assert not any(c.startswith(("--VoilaConfiguration.preheat", "--LimitedKernelManager.preheat")) for c in calls[-1])


def test_serve_reports_a_busy_port_in_one_line_before_starting_anything(tmp_path):
    """Issue 25.9: the launcher printed the gallery address (another server's), then Voila claimed to try
    another port and exited."""
    import socket
    import subprocess
    import sys

    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "00_index.ipynb").write_text("{}")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = subprocess.run([sys.executable, "-m", "dpexplore.serve", str(nb), "--no-browser", "--port", str(port)],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
    print(f"\nbusy port: exit {out.returncode}; stdout {out.stdout!r}; stderr {out.stderr!r}")
    assert out.returncode == 2
    assert out.stdout == ""  # no gallery address that is someone else's
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"port {port} on 127.0.0.1 is already in use" in lines[0], lines
    from tests.browser.harness import free_port

    assert serve.port_problem("127.0.0.1", free_port()) is None
    assert "between 1 and 65535" in serve.port_problem("127.0.0.1", 70000)


@pytest.mark.server
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_stopping_the_launcher_stops_voila(tmp_path, signame):
    """Issue 25.9: SIGTERM to ``python -m dpexplore.serve`` left Voila running (an orphan holding the port)."""
    import json
    import signal
    import subprocess
    import sys
    import time

    import psutil

    from tests.browser.harness import free_port, wait_for_port

    nb = tmp_path / "notebooks"
    nb.mkdir()
    (nb / "00_index.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    port = free_port()
    launcher = subprocess.Popen([sys.executable, "-m", "dpexplore.serve", str(nb), "--no-browser", "--port", str(port)],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    children: list[psutil.Process] = []
    try:
        wait_for_port(launcher, port, timeout=60, what="dpexplore.serve")
        children = psutil.Process(launcher.pid).children(recursive=True)
        assert children, "no Voila process under the launcher"
        t0 = time.monotonic()
        launcher.send_signal(getattr(signal, signame))
        launcher.wait(timeout=30)
        _, alive = psutil.wait_procs(children, timeout=20)
        stopped_after = time.monotonic() - t0
    finally:
        for p in children:
            if p.is_running():
                p.kill()
        if launcher.poll() is None:
            launcher.kill()
    print(f"\n{signame} to the launcher: exit {launcher.returncode}; Voila gone after {stopped_after:.1f} s; "
          f"still running: {alive}")
    assert not alive, f"{signame} to the launcher left Voila running"
    assert launcher.returncode == 0
