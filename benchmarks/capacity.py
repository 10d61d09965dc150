"""Capacity: what one student costs the server, measured with N simulated students.

Each student is a websocket client (``load_test.ws_session``: it GETs the page, speaks the widget
protocol as the page's JavaScript would, waits until every panel is drawn, then moves the first
slider ``--moves`` times). The script measures, from /proc of the Voila server and its kernels:

* CPU-seconds (user + system, server + kernels) per **page view** (until every page is ready) and
  per **slider move** (after that, divided by the moves measured);
* memory per kernel (RSS and PSS, with every session's kernel alive) and the server's RSS;
* page-ready times;
* with ``--preheat``, the same with a pool of preheated kernels (one per student), plus the CPU of
  filling the pool (per pooled kernel), which is spent before the class arrives;
* what importing ``scipy.stats`` would add to a kernel (a paper dashboard in a fresh interpreter with
  and without it; the dashboards no longer import it).

It writes ``benchmarks/results/capacity.json``, which :mod:`dpexplore.hosting.capacity` turns into the
machine table of ``docs/guides/capacity.md``. The clients run on the same machine as the server, and
so does whatever else the machine runs: the load average is recorded with the numbers.

Bounded and local: the server binds 127.0.0.1, ``--students`` is at most ``MAX_STUDENTS``, every
level has a deadline.

    .venv/bin/python benchmarks/capacity.py --students 6 --moves 4
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from load_test import _kernels, _wait_for_pool, run_level  # noqa: E402

from tests.browser.harness import VoilaServer  # noqa: E402

MAX_STUDENTS = 40  #: public maximum of simulated students (each holds a kernel of ~130 MiB)
MAX_MOVES = 50  #: public maximum of slider moves per student
RESULT = ROOT / "benchmarks" / "results" / "capacity.json"

_IMPORT_PROBE = r"""
import sys, time
if sys.argv[1] == "with":
    import scipy.stats  # noqa: F401 - what the dashboards imported before
from dpexplore.ui.spectral import SpectralClusteringDashboard
d = SpectralClusteringDashboard()
t_end = time.time() + 120
last = None
while time.time() < t_end:  # until the default view is computed: CPU quiet for 2 s
    cpu = time.process_time()
    if last is not None and cpu - last < 0.02:
        break
    last = cpu
    time.sleep(2)
rss = pss = 0
with open("/proc/self/smaps_rollup") as fh:
    for line in fh:
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
print(rss / 1024, pss / 1024, "scipy.stats" in sys.modules)
"""


def kernel_import_cost(repeats: int = 3) -> dict:
    """RSS/PSS (MiB) of a paper-1 dashboard in a fresh interpreter, with and without ``scipy.stats``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out: dict[str, list[float]] = {"with_rss": [], "with_pss": [], "without_rss": [], "without_pss": []}
    for _ in range(repeats):
        for mode in ("with", "without"):
            res = subprocess.run([sys.executable, "-c", _IMPORT_PROBE, mode], capture_output=True, text=True,
                                 env=env, cwd=ROOT, timeout=300, check=True)
            rss, pss, loaded = res.stdout.split()[-3:]
            if mode == "without" and loaded != "False":
                raise RuntimeError("the paper-1 dashboard imported scipy.stats")
            out[f"{mode}_rss"].append(float(rss))
            out[f"{mode}_pss"].append(float(pss))
    med = {k: round(sorted(v)[len(v) // 2], 1) for k, v in out.items()}
    return {"repeats": repeats, "median_mib": med, "samples_mib": {k: [round(x, 1) for x in v] for k, v in out.items()}}


def _memory(server: VoilaServer) -> dict:
    rss, pss = [], []
    for k in _kernels(server):
        try:
            info = k.memory_full_info()
            rss.append(info.rss / 2**20)
            pss.append(info.pss / 2**20)
        except psutil.Error:
            pass
    try:
        srv = psutil.Process(server.proc.pid).memory_info().rss / 2**20
    except psutil.Error:
        srv = None
    n = len(rss)
    return {"kernels": n, "kernel_rss_mib": round(sum(rss) / n, 1) if n else None,
            "kernel_pss_mib": round(sum(pss) / n, 1) if n else None,
            "server_rss_mib": round(srv, 1) if srv is not None else None}


def _cpu(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return t.user + t.system


def _group_cpu(server: VoilaServer) -> float:
    """CPU-seconds of the server and every kernel now alive."""
    total = 0.0
    for p in [psutil.Process(server.proc.pid), *_kernels(server)]:
        try:
            total += _cpu(p)
        except psutil.Error:
            pass
    return total


def measure(notebook: str, students: int, moves: int, preheat: bool, timeout: float) -> dict:
    """One server (stock, or with a pool of ``students`` preheated kernels), one level of ``students``."""
    from dpexplore.serve import preheat_options

    extra = ["--MappingKernelManager.cull_idle_timeout=60", "--MappingKernelManager.cull_interval=5",
             f"--LimitedKernelManager.max_kernels={2 * students + 5}"]
    if preheat:
        extra += preheat_options(ROOT / "notebooks", students, [notebook])
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="dpexplore-cache-") as cache:
        env["DPEXPLORE_CACHE_DIR"] = cache  # a fresh shared result cache: the first student computes
        with VoilaServer(ROOT / "notebooks", cwd=ROOT, extra_args=extra, env=env) as server:
            row: dict = {"preheat_pool": students if preheat else 0}
            if preheat:
                t0 = time.perf_counter()
                _wait_for_pool(server, students)
                fill = _group_cpu(server)  # the server's start and the whole pool, before any student
                row["pool_fill_wall_s"] = round(time.perf_counter() - t0, 1)
                row["cpu_s_pool_fill_total"] = round(fill, 2)
                row["cpu_s_per_pool_kernel_fill"] = round(fill / students, 3)
                row["pool_memory"] = _memory(server)
            level = asyncio.run(run_level(server, notebook, students, moves, timeout, "ws"))
            row["memory_with_students"] = _memory(server)  # every session's kernel alive (cull is 60 s)
    cpu_all, cpu_ready = level["cpu_s"], level["cpu_s_until_all_ready"] or level["cpu_s"]
    view = cpu_ready["server"] + cpu_ready["kernels"]
    move = (cpu_all["server"] + cpu_all["kernels"]) - view
    server_move = cpu_all["server"] - cpu_ready["server"]
    row.update({
        "students": students, "moves_per_student": moves, "moves_measured": level["moves_measured"],
        "errors": level["errors"], "error_examples": level["error_examples"],
        "cpu_s_views_total": round(view, 2), "cpu_s_moves_total": round(move, 2),
        "cpu_s_per_page_view": round(view / students, 3),
        "cpu_s_per_slider_move": round(move / level["moves_measured"], 3) if level["moves_measured"] else None,
        "server_cpu_s_per_page_view": round(cpu_ready["server"] / students, 3),
        "server_cpu_s_per_slider_move": (round(server_move / level["moves_measured"], 3)
                                         if level["moves_measured"] else None),
        "html_done_median_s": level["html_done_median_s"], "ready_median_s": level["ready_median_s"],
        "ready_max_s": level["ready_max_s"], "slider_p50_s": level["slider_p50_s"],
        "slider_p90_s": level["slider_p90_s"], "cpu_s_by_group": cpu_all, "wall_s": level["wall_s"],
    })
    return row


GUIDE = ROOT / "docs" / "guides" / "capacity.md"


def write_guide(result_path: Path, guide: Path) -> None:
    """Put the model's table for ``result_path`` between the markers of ``guide``."""
    import re

    from dpexplore.hosting.capacity import render_markdown

    table = render_markdown(json.loads(result_path.read_text()))
    text = guide.read_text()
    new, n = re.subn(r"(<!-- capacity-table:start -->\n).*?(<!-- capacity-table:end -->)",
                     lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    if n != 1:
        raise ValueError(f"{guide} must hold one pair of capacity-table markers; found {n}")
    guide.write_text(new)


def _machine() -> dict:
    model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                  if ln.startswith("model name")), platform.processor())
    return {"cpus": os.cpu_count(), "cpu_model": model, "memory_mib": round(psutil.virtual_memory().total / 2**20),
            "python": platform.python_version(), "platform": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=6, help=f"simulated students (1..{MAX_STUDENTS})")
    ap.add_argument("--moves", type=int, default=4, help=f"slider moves per student (1..{MAX_MOVES})")
    ap.add_argument("--notebook", default="01_spectral_clustering.ipynb")
    ap.add_argument("--timeout", type=float, default=300, help="deadline per level (s)")
    ap.add_argument("--modes", nargs="+", choices=["stock", "preheat"], default=["stock", "preheat"])
    ap.add_argument("--import-repeats", type=int, default=3, help="repeats of the scipy.stats import probe (0: skip)")
    ap.add_argument("--out", default=str(RESULT))
    ap.add_argument("--write-guide", action="store_true",
                    help="only regenerate the table of docs/guides/capacity.md from --out, and stop")
    a = ap.parse_args(argv)
    if a.write_guide:
        write_guide(Path(a.out), GUIDE)
        return 0
    if not 1 <= a.students <= MAX_STUDENTS:
        ap.error(f"--students must be in [1, {MAX_STUDENTS}]; got {a.students}")
    if not 1 <= a.moves <= MAX_MOVES:
        ap.error(f"--moves must be in [1, {MAX_MOVES}]; got {a.moves}")
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(), "notebook": a.notebook, "client": "websocket (load_test.ws_session)",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "note": "clients, server and kernels share this machine with other work (see the load averages); "
                "each mode uses a fresh shared result cache, so the first student's page computes and the "
                "others may hit the cache, as in a class",
    }
    for mode in a.modes:
        result[mode] = measure(a.notebook, a.students, a.moves, mode == "preheat", a.timeout)
        print(mode, json.dumps(result[mode]), flush=True)
    if a.import_repeats:
        result["kernel_import_scipy_stats"] = kernel_import_cost(a.import_repeats)
        print("import", json.dumps(result["kernel_import_scipy_stats"]), flush=True)
    result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", a.out)
    return 0 if all(result[m]["errors"] == 0 for m in a.modes) else 1


if __name__ == "__main__":
    sys.exit(main())
