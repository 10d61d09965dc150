"""The release: ``python -m build`` makes wheel + sdist, and the wheel alone serves the gallery.

The wheel (built from the sdist, as ``python -m build`` does) is installed with its ``dashboard`` extra
into a fresh virtual environment outside the repository; ``dpexplore-serve`` is started from an empty
folder with an empty home directory (so nothing of the clone, of the shared venv or of the user's
Jupyter settings can help it) and must serve the gallery and every page: the HTTP pages contain the
gallery's links and the dashboard's widget views, Chromium opens every notebook of the gallery (each draws
its first plot with no error box), the writable state lands in the (fresh) user cache
directory. pip reuses its download cache, so after the
first install this costs about a minute.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import dpexplore

from .browser.harness import check_page, free_port, launch_browser, require_browser, wait_for_port

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.server]


def _clean_env(**extra: str) -> dict:
    """The environment without anything that would import the clone's or the shared venv's dpexplore."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "QUERY_STRING", "JUPYTER_PATH",
                        "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "DPEXPLORE_CACHE_DIR", "DPEXPLORE_POLL_DIR",
                        "DPEXPLORE_LESSONS", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))  # keep pip's cache under a new HOME
    env.update(extra)
    return env


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert out.returncode == 0, f"{cmd[:4]} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def _first_screen_plots(name: str) -> int:
    """How many drawn plots a page must have: every dashboard at least one; the gallery and the class poll's
    student view (no poll open) none."""
    return 0 if name.startswith(("00_index", "06_class_poll")) else 1


def _get(url: str, timeout: float = 300) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 - loopback URL we built
        assert r.status == 200, (url, r.status)
        return r.read().decode()


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv python, build folder): the wheel built from this tree, installed into a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    assert ROOT not in base.parents, "the test venv must live outside the repository"
    dist = base / "dist"
    t0 = time.perf_counter()
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], env=_clean_env())
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    assert wheels[0].name == f"dpexplore-{dpexplore.__version__}-py3-none-any.whl"
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q", f"{wheels[0]}[dashboard]"],
         env=_clean_env(), cwd=base)
    print(f"\nwheel build + install into a fresh venv: {time.perf_counter() - t0:.1f} s")
    return py, base


def test_wheel_ships_the_notebooks_and_the_version(installed):
    py, base = installed
    code = ("import importlib.metadata as m, json, dpexplore, dpexplore.resources as r\n"
            "print(json.dumps([dpexplore.__version__, m.version('dpexplore'), str(r.data_root()),"
            " str(dpexplore.__file__), sorted(p.name for p in r.notebooks_dir().iterdir())]))")
    version, meta, root, init, files = json.loads(_run([str(py), "-c", code], env=_clean_env(), cwd=base).stdout)
    assert version == meta == dpexplore.__version__
    assert f"## [{meta}]" in (ROOT / "CHANGELOG.md").read_text()  # the changelog names the installed version
    site = str(base / "venv")
    assert init.startswith(site) and root.startswith(site) and root.endswith("_data"), (init, root)
    ours = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) + ["lessons.json"]
    assert files == sorted(ours)  # every notebook of the tree, picked up by glob
    assert (Path(root) / "voila.json").read_text() == (ROOT / "voila.json").read_text()


def test_dpexplore_serve_from_any_folder(installed, tmp_path):
    py, _ = installed
    exe = py.with_name("dpexplore-serve")
    assert exe.is_file(), "the console script dpexplore-serve is not installed"
    anywhere, home = tmp_path / "some-folder", tmp_path / "home"
    anywhere.mkdir()
    home.mkdir()
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen([str(exe), "--no-browser", "--port", str(port)], cwd=anywhere, stdout=fh,
                                stderr=subprocess.STDOUT, env=_clean_env(HOME=str(home)), start_new_session=True)
    try:
        wait_for_port(proc, port, timeout=120, what="dpexplore-serve", log=log.read_text)
        url = f"http://127.0.0.1:{port}/voila/render"
        gallery = _get(f"{url}/00_index.ipynb")
        assert "01_spectral_clustering.ipynb" in gallery and f"dpexplore {dpexplore.__version__}" in gallery
        nb = json.loads((ROOT / "notebooks" / "03_markov_trajectories.ipynb").read_text())
        query = nb["metadata"]["dpexplore"]["test_query"]
        page = _get(f"{url}/03_markov_trajectories.ipynb?{query}")
        views = re.findall(r"application/vnd\.jupyter\.widget-view\+json", page)
        assert views, "the dashboard page has no widget view"
        assert "Traceback" not in page and "There was an error when executing cell" not in page
        # the kernels' writable state goes to the (fresh) user's cache directory
        cache = home / ".cache" / "dpexplore"
        deadline = time.time() + 60
        while not (cache / "results").is_dir() and time.time() < deadline:
            time.sleep(0.5)
        assert (cache / "results").is_dir(), f"no result cache under {cache}: {log.read_text()[-2000:]}"
        require_browser()
        from playwright.sync_api import sync_playwright

        # EVERY page of the gallery, from the wheel's [dashboard] install alone, in one browser: each renders
        # with no error box, cell error or kernel error, and each dashboard draws its first plot (intro page 3
        # once showed "No module named 'dp_accounting'" in its first panel: the extra lacked it)
        failures, times = {}, {}
        with sync_playwright() as pw:
            browser = launch_browser(pw)
            try:
                for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
                    meta = json.loads(nb_path.read_text())["metadata"].get("dpexplore", {})
                    q = meta.get("test_query", "")
                    if nb_path.name.startswith("06_class_poll"):  # the instructor's page: the link serve printed
                        token = re.search(r"[?&]instructor=([A-Za-z0-9_\-]+)", log.read_text())
                        q = f"instructor={token.group(1)}" if token else ""
                    plots = _first_screen_plots(nb_path.name)
                    t0 = time.perf_counter()
                    res = check_page(browser, f"{url}/{nb_path.name}" + (f"?{q}" if q else ""), timeout=240,
                                     min_plots=plots, settle_ms=800)
                    times[nb_path.name] = round(time.perf_counter() - t0, 1)
                    if res.failures:
                        failures[nb_path.name] = res.failures
            finally:
                browser.close()
        print(f"\nevery page from the wheel (s): {times}")
        assert len(times) >= 10, times
        assert not failures, (failures, log.read_text()[-3000:])
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
