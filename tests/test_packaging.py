"""Repository-level promises: import hygiene, configuration files, README commands, lint."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_dpexplore_pulls_in_no_ui_package():
    code = (
        "import sys, dpexplore, dpexplore.core\n"
        "import importlib, pkgutil\n"
        "for m in pkgutil.iter_modules(dpexplore.__path__):\n"
        "    if m.name not in ('ui', 'serve', 'hosting'):\n"
        "        importlib.import_module('dpexplore.' + m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'plotly', 'voila'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_servers_hardening_imports_neither_numpy_nor_scipy():
    """Every dpexplore class the server configurations name (voila.json, jupyter_config.json, the hub recipe's
    single-user settings) and the hardening they install load in the server process, once per student under a
    hub: through ``dpexplore.classroom`` and ``dpexplore.core`` they once pulled in numpy and scipy.optimize
    (measured: 48 MiB RSS, 34 MiB PSS and 0.55 CPU-s per spawn; benchmarks/hub_capacity.py)."""
    names = set()
    for path in (ROOT / "voila.json", ROOT / "jupyter_config.json", ROOT / "deploy/jupyterhub/jupyterhub_config.py"):
        names |= set(re.findall(r"dpexplore\.hosting(?:\.\w+)+", path.read_text()))
    modules = {n.rsplit(".", 1)[0] if n.split(".")[-1][0].isupper() else n for n in names}  # a class: its module
    modules = sorted(modules | {"dpexplore.hosting.patches", "dpexplore.hosting.instructor",
                                "dpexplore.hosting.connections"})
    assert "dpexplore.hosting.kernels" in modules and "dpexplore.hosting.lockdown" in modules, modules
    code = ("import importlib, sys\n"
            f"for m in {modules!r}:\n    importlib.import_module(m)\n"
            "import dpexplore.hosting.kernels as k\nk.LimitedKernelManager\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'plotly', 'ipywidgets')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout[:500]


#: page modules whose *import* loads neither scipy.optimize nor scipy.stats (~15 MiB with scipy.linalg, ~24 MiB):
#: a kernel loads them when the page first solves with them, most pages while drawing their default view, so this
#: is about import time, not the kernel's memory once the page is drawn (benchmarks/results/pages.md).
LEAN_PAGES = ("basics", "attacker", "composition", "attacks", "statistics", "selection", "deployments", "pca",
              "markov", "ml")


def test_the_lean_pages_imports_load_neither_scipy_optimize_nor_scipy_stats():
    # one interpreter for all ten: sys.modules only grows, so none loaded together <=> none loaded by any one
    code = ("import importlib, sys\n"
            f"for page in {LEAN_PAGES!r}:\n    importlib.import_module('dpexplore.ui.' + page)\n"
            "print(sorted(m for m in sys.modules if m in ('scipy.optimize', 'scipy.stats')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout[:500]


def test_voila_settings_are_the_same_for_cli_and_binder():
    # voila.json is read by the `voila` command started in the repository root (python -m dpexplore.serve),
    # jupyter_config.json by Binder's Jupyter server (binder/postBuild copies it): keep them identical.
    cli = json.loads((ROOT / "voila.json").read_text())
    server = json.loads((ROOT / "jupyter_config.json").read_text())
    assert cli == server
    manager = server["VoilaConfiguration"]["multi_kernel_manager_class"]
    assert manager == "dpexplore.hosting.kernels.LimitedKernelManager"
    assert server["LimitedKernelManager"]["max_kernels"] > 0
    assert server["VoilaConfiguration"]["show_tracebacks"] is False
    assert server["VoilaExecutor"]["timeout"] > 0
    assert server["MappingKernelManager"]["cull_idle_timeout"] > 0
    # measured under load (20 sessions on 2 cores): with nbclient's default 4 s, 8 of 20 pages lost their
    # widget output ("Timeout waiting for IOPub output"); and a kernel still executing the notebook must
    # outlive the execution (the idle culler once took one for idle): grace > execution + startup timeouts
    ex = server["VoilaExecutor"]
    assert ex["iopub_timeout"] >= 30
    assert server["LimitedKernelManager"]["unconnected_grace"] > ex["timeout"] + ex["startup_timeout"]


def test_binder_requirements_match_root():
    root = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line and line != "-e ."]
    binder = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    assert [x for x in binder if x] == root
    assert "pip install --no-deps -e ." in (ROOT / "binder" / "postBuild").read_text()


def test_requirements_cover_the_chosen_packages():
    req = (ROOT / "requirements.txt").read_text()
    for pkg in ("numpy", "scipy", "networkx", "ipywidgets>=8", "plotly>=6", "anywidget", "voila>=0.5", "jupyterlab>=4"):
        assert re.search(rf"^{re.escape(pkg)}", req, re.M), pkg


def test_readme_has_exactly_three_commands_and_the_warning():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"<!-- (\w+)-command -->\n```bash\n(.+?)\n```", text)
    assert [name for name, _ in blocks] == ["dashboard", "test", "docs"]
    docs = dict(blocks)["docs"]
    assert " -W " in docs and "docs/_build/html" in docs and "check_links.py" in docs
    assert "not cryptographically secure" in text
    assert "urlpath=voila/render/notebooks/00_index.ipynb" in text
    ci = (ROOT / ".ci" / "run").read_text()
    # CI runs the README's commands, read out of the README itself
    assert "readme_command test" in ci and "readme_command docs" in ci and "<!-- $1-command -->" in ci


def test_serve_launcher_binds_loopback_by_default():
    from dpexplore.serve import voila_command

    cmd = voila_command(ROOT / "notebooks", "127.0.0.1", 8866)
    assert "--Voila.ip=127.0.0.1" in cmd and "--Voila.port_retries=0" in cmd and "--no-browser" in cmd


def test_gallery_links_point_to_existing_notebooks():
    nb = json.loads((ROOT / "notebooks" / "00_index.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", text)
    for link in links:
        assert (ROOT / "notebooks" / link).is_file(), link


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
                    reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_clean():
    exe = Path(sys.executable).parent / "ruff"
    out = subprocess.run([str(exe) if exe.exists() else "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
