"""Capacity through JupyterHub: what one student costs when every student has their own server.

``benchmarks/capacity.py`` measures students of one shared ``dpexplore-serve`` (one Voila server).
Under JupyterHub each student gets their **own** single-user ``jupyter_server`` (with Voila) and
their own kernels. This script starts the local demo hub (``python -m dpexplore.hub demo``: the
recipe of ``deploy/jupyterhub``, the ``simple`` local-process spawner, configurable-http-proxy) and
drives ``--students`` simulated students through it with Playwright Chromium (one browser, one
context per student, so every student has their own hub cookies). Students go **one after another**
(each: log in, which spawns their server; the gallery ``00_index.ipynb``, the hub's default URL; one
dashboard, by default the paper-1 page ``01_spectral_clustering.ipynb``, the page ``capacity.py``
measures; ``--moves`` moves of its first slider), and every student's page **stays open**, so the
memory is read with all students' dashboards open.

Measured from /proc with psutil (processes found under the demo's process tree; a student's server
and kernels by ``JUPYTERHUB_USER`` in their environment; CPU read every 0.25 s and at every phase's
end, so a kernel that exits counts with its last reading):

* spawn time (login clicked -> the hub redirected to the user's server) and the pages' ready times;
* CPU-seconds of the student's own server + kernels for the spawn, the gallery view, the dashboard
  view and per slider move; the hub's and the proxy's CPU in each phase;
* PSS and RSS of each student's server and kernels (and their sum) with every page open; the hub's
  and the proxy's;
* the load average at the start and the end: the machine is shared with other work, which shows in
  the times (not in the CPU-seconds, which are the processes' own).

Writes ``benchmarks/results/hub_capacity.json``; :func:`dpexplore.hosting.capacity.render_hub_markdown`
turns it into the hub table of ``docs/guides/capacity.md`` (``--write-guide``). Bounded and local: the
hub binds 127.0.0.1, ``--students`` is at most the demo's ``MAX_DEMO_STUDENTS``, every wait has a deadline.

    nice .venv/bin/python benchmarks/hub_capacity.py --students 8 --moves 3
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpexplore.hub import MAX_DEMO_STUDENTS  # noqa: E402

MAX_STUDENTS = MAX_DEMO_STUDENTS  #: public maximum of simulated students (the demo hub's own maximum)
MAX_MOVES = 20  #: public maximum of slider moves per student
MAX_TIMEOUT = 1800.0  #: public maximum of the per-wait deadline (s)
RESULT = ROOT / "benchmarks" / "results" / "hub_capacity.json"
GUIDE = ROOT / "docs" / "guides" / "capacity.md"
DASHBOARD = "01_spectral_clustering.ipynb"
GALLERY = "00_index.ipynb"
PASSWORD = "hub-capacity-1"


def check_args(students, moves, timeout, password: str = PASSWORD, dashboard: str = DASHBOARD) -> None:
    """Raise ValueError (TypeError for a wrong type) naming the bad argument, its range and its value."""
    for name, value, low, high in (("students", students, 1, MAX_STUDENTS), ("moves", moves, 1, MAX_MOVES)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer; got {type(value).__name__} {value!r}")
        if not low <= value <= high:
            raise ValueError(f"{name} must be in [{low}, {high}]; got {value!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 10 <= timeout <= MAX_TIMEOUT:
        raise ValueError(f"timeout must be a number of seconds in [10, {MAX_TIMEOUT}]; got {timeout!r}")
    if not isinstance(password, str) or len(password) < 8:
        raise ValueError("password must be a string of at least 8 characters")
    if not isinstance(dashboard, str) or not re.fullmatch(r"[\w.-]+\.ipynb", dashboard) \
            or not (ROOT / "notebooks" / dashboard).is_file():
        raise ValueError(f"dashboard must name a notebook in notebooks/; got {dashboard!r}")


# -- processes ------------------------------------------------------------------------------------------------

def _role(p: psutil.Process) -> tuple[str, str | None]:
    """(role, user) of a process under the demo: hub, proxy, wrapper, server, kernel or other."""
    cmd = " ".join(p.cmdline())
    if "configurable-http-proxy" in cmd:
        return "proxy", None
    if "jupyterhub.singleuser" in cmd or "jupyterhub-singleuser" in cmd:
        return "server", p.environ().get("JUPYTERHUB_USER")
    if "ipykernel" in cmd:
        return "kernel", p.environ().get("JUPYTERHUB_USER")
    if "-m jupyterhub -f" in cmd:
        return "hub", None
    if "dpexplore.hub demo" in cmd:
        return "wrapper", None
    return "other", p.environ().get("JUPYTERHUB_USER")


class Tracker:
    """Reads the CPU of every process under the demo's root, keeping the last reading of exited ones."""

    def __init__(self, root_pid: int, period: float = 0.25):
        self.root = psutil.Process(root_pid)
        self.period = period
        self.procs: dict[int, tuple[psutil.Process, str, str | None]] = {}
        self.cpu: dict[int, float] = {}
        self._cmd: dict[int, tuple[str, ...]] = {}
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        with self.lock:
            try:
                found = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                found = []
            for p in found:
                try:
                    cmd = tuple(p.cmdline())
                    # (re)classify a new process, and one whose command line changed: a spawned server is seen
                    # between fork and exec with the hub's command line (it was once counted as the hub)
                    if p.pid not in self.procs or self._cmd.get(p.pid) != cmd:
                        self.procs[p.pid] = (p, *_role(p))
                        self._cmd[p.pid] = cmd
                except psutil.Error:
                    continue
            for pid, (p, _, _) in self.procs.items():
                try:
                    t = p.cpu_times()
                    self.cpu[pid] = t.user + t.system  # children's times are their own processes' here
                except psutil.Error:
                    pass  # exited: keep the last reading

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.sample()

    def start(self) -> Tracker:
        self.sample()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def totals(self) -> dict:
        """CPU-seconds so far by (role) for hub/proxy/wrapper and by user -> {server, kernels}."""
        self.sample()
        out: dict = {"hub": 0.0, "proxy": 0.0, "wrapper": 0.0, "other": 0.0, "users": {}}
        with self.lock:
            for pid, (_, role, user) in self.procs.items():
                cpu = self.cpu.get(pid, 0.0)
                if role in ("server", "kernel") and user:
                    u = out["users"].setdefault(user, {"server": 0.0, "kernels": 0.0})
                    u["server" if role == "server" else "kernels"] += cpu
                else:
                    out[role if role in out else "other"] += cpu
        return out

    def memory(self) -> dict:
        """PSS/RSS (MiB) of every live process, by role and user; kernels counted per user."""
        self.sample()
        out: dict = {"hub": None, "proxy": None, "users": {}}
        with self.lock:
            items = list(self.procs.values())
        for p, role, user in items:
            try:
                info = p.memory_full_info()
            except psutil.Error:
                continue
            mib = {"rss_mib": info.rss / 2**20, "pss_mib": info.pss / 2**20}
            if role in ("hub", "proxy"):
                out[role] = {k: round(v, 1) for k, v in mib.items()}
            elif role in ("server", "kernel") and user:
                u = out["users"].setdefault(user, {"server_rss_mib": 0.0, "server_pss_mib": 0.0, "kernels": 0,
                                                   "kernels_rss_mib": 0.0, "kernels_pss_mib": 0.0})
                if role == "server":
                    u["server_rss_mib"] += mib["rss_mib"]
                    u["server_pss_mib"] += mib["pss_mib"]
                else:
                    u["kernels"] += 1
                    u["kernels_rss_mib"] += mib["rss_mib"]
                    u["kernels_pss_mib"] += mib["pss_mib"]
        for u in out["users"].values():
            u["total_rss_mib"] = u["server_rss_mib"] + u["kernels_rss_mib"]
            u["total_pss_mib"] = u["server_pss_mib"] + u["kernels_pss_mib"]
            for k in list(u):
                if k.endswith("_mib"):
                    u[k] = round(u[k], 1)
        return out


def _delta(after: dict, before: dict, user: str) -> dict:
    a = after["users"].get(user, {"server": 0.0, "kernels": 0.0})
    b = before["users"].get(user, {"server": 0.0, "kernels": 0.0})
    d = {"server": a["server"] - b["server"], "kernels": a["kernels"] - b["kernels"],
         "hub_proxy": (after["hub"] + after["proxy"]) - (before["hub"] + before["proxy"])}
    return {k: round(v, 3) for k, v in d.items()}


# -- the hub ----------------------------------------------------------------------------------------------------

def start_hub(students: int, password: str, port: int, log, timeout: float) -> subprocess.Popen:
    """The demo hub, its output to ``log`` (a file: an unread pipe fills and hangs the hub)."""
    proc = subprocess.Popen([sys.executable, "-m", "dpexplore.hub", "demo", "--port", str(port), "--students",
                             str(students), "--password", password], stdout=log, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True, cwd=ROOT)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/hub/login", timeout=5) as r:
                if r.status == 200:
                    return proc
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_hub(proc)
            raise RuntimeError(f"the demo hub did not answer in {timeout:.0f} s (exit code {proc.poll()})")
        time.sleep(0.5)


def stop_hub(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


# -- one student -----------------------------------------------------------------------------------------------

def _wait_rendered(page, timeout: float) -> None:
    from tests.browser.harness import JS_RENDERED

    deadline = time.monotonic() + timeout
    while not page.evaluate(JS_RENDERED):
        if time.monotonic() > deadline:
            raise TimeoutError(f"Voila did not finish {page.url} in {timeout:.0f} s")
        page.wait_for_timeout(200)


def _quiet(tracker: Tracker, user: str, timeout: float, idle_s: float = 1.5) -> None:
    """Wait until the user's server + kernels used < 0.05 CPU-s over ``idle_s`` (plots finished), or the deadline."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        u = tracker.totals()["users"].get(user, {"server": 0.0, "kernels": 0.0})
        now = u["server"] + u["kernels"]
        if last is not None and now - last < 0.05:
            return
        last = now
        time.sleep(idle_s)


def drive_student(browser, url: str, user: str, password: str, dashboard: str, moves: int, timeout: float,
                  tracker: Tracker) -> tuple[dict, object]:
    """Log ``user`` in (spawn), render the gallery, open ``dashboard``, move its first slider ``moves`` times."""
    from playwright.sync_api import TimeoutError as PWTimeout

    from tests.browser.harness import JS_PLOT_SIG, SLIDER

    ms = int(timeout * 1000)
    row: dict = {"user": user, "errors": []}
    ctx = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = ctx.new_page()
    page.goto(url + "/hub/login", timeout=ms)
    page.fill("#username_input", user)
    page.fill("#password_input", password)
    c0 = tracker.totals()
    t0 = time.perf_counter()
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/**", timeout=ms, wait_until="commit")
    row["spawn_s"] = round(time.perf_counter() - t0, 2)
    c1 = tracker.totals()
    _wait_rendered(page, timeout)
    row["gallery_ready_s"] = round(time.perf_counter() - t0, 2)
    _quiet(tracker, user, timeout)
    c2 = tracker.totals()
    t1 = time.perf_counter()
    page.goto(f"{url}/user/{user}/voila/render/{dashboard}", wait_until="commit", timeout=ms)
    _wait_rendered(page, timeout)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=ms)
    row["dashboard_ready_s"] = round(time.perf_counter() - t1, 2)
    _quiet(tracker, user, timeout)
    c3 = tracker.totals()
    row["slider_s"] = []
    if page.locator(SLIDER).count() == 0:
        row["errors"].append("no slider on the dashboard")
    for _ in range(moves if not row["errors"] else 0):
        before = page.evaluate(JS_PLOT_SIG)
        page.locator(SLIDER).first.focus()
        t = time.perf_counter()
        page.keyboard.press("ArrowRight")
        try:
            page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=min(ms, 120_000),
                                   polling=50)
            row["slider_s"].append(round(time.perf_counter() - t, 3))
        except PWTimeout:
            row["errors"].append("a slider move changed no plot within the deadline")
        _quiet(tracker, user, timeout, idle_s=1.0)
    c4 = tracker.totals()
    if "Traceback" in page.locator("body").inner_text():
        row["errors"].append("a traceback on the dashboard")
    row["moves_measured"] = len(row["slider_s"])
    row["cpu_s"] = {"spawn": _delta(c1, c0, user), "gallery_view": _delta(c2, c1, user),
                    "dashboard_view": _delta(c3, c2, user), "slider_moves": _delta(c4, c3, user)}
    return row, ctx


# -- the whole run ---------------------------------------------------------------------------------------------

def _med(xs):
    xs = [x for x in xs if x is not None]
    return round(statistics.median(xs), 3) if xs else None


def summarize(rows: list[dict], memory: dict) -> dict:
    """Per-student medians (CPU, memory, times) and the hub's and proxy's cost, from the students' rows."""
    def cpu(phase, part):
        return [r["cpu_s"][phase][part] for r in rows if "cpu_s" in r]

    def own(phase):
        return [r["cpu_s"][phase]["server"] + r["cpu_s"][phase]["kernels"] for r in rows if "cpu_s" in r]

    moves = sum(r.get("moves_measured", 0) for r in rows)
    move_cpu = sum(own("slider_moves"))
    move_hub = sum(cpu("slider_moves", "hub_proxy"))
    users = list(memory["users"].values())
    return {
        "spawn_median_s": _med([r.get("spawn_s") for r in rows]),
        "spawn_max_s": max((r["spawn_s"] for r in rows if "spawn_s" in r), default=None),
        "gallery_ready_median_s": _med([r.get("gallery_ready_s") for r in rows]),
        "dashboard_ready_median_s": _med([r.get("dashboard_ready_s") for r in rows]),
        "slider_p50_s": _med([s for r in rows for s in r.get("slider_s", [])]),
        "cpu_s_per_spawn": _med(own("spawn")),
        "server_cpu_s_per_spawn": _med(cpu("spawn", "server")),
        "cpu_s_per_gallery_view": _med(own("gallery_view")),
        "cpu_s_per_page_view": _med(own("dashboard_view")),
        "server_cpu_s_per_page_view": _med(cpu("dashboard_view", "server")),
        "cpu_s_per_slider_move": round(move_cpu / moves, 3) if moves else None,
        "server_cpu_s_per_slider_move": (round(sum(cpu("slider_moves", "server")) / moves, 3) if moves else None),
        "hub_proxy_cpu_s_per_login": _med([a + b for a, b in zip(cpu("spawn", "hub_proxy"),
                                                                 cpu("gallery_view", "hub_proxy"))]),
        "hub_proxy_cpu_s_per_page_view": _med(cpu("dashboard_view", "hub_proxy")),
        "hub_proxy_cpu_s_per_slider_move": round(move_hub / moves, 3) if moves else None,
        "moves_measured": moves,
        "student_server_pss_mib": _med([u["server_pss_mib"] for u in users]),
        "student_server_rss_mib": _med([u["server_rss_mib"] for u in users]),
        "student_kernels": _med([u["kernels"] for u in users]),
        "student_kernels_pss_mib": _med([u["kernels_pss_mib"] for u in users]),
        "student_kernels_rss_mib": _med([u["kernels_rss_mib"] for u in users]),
        "student_pss_mib": _med([u["total_pss_mib"] for u in users]),
        "student_rss_mib": _med([u["total_rss_mib"] for u in users]),
        "hub_rss_mib": (memory.get("hub") or {}).get("rss_mib"),
        "proxy_rss_mib": (memory.get("proxy") or {}).get("rss_mib"),
    }


def run(students: int, moves: int, timeout: float = 300.0, dashboard: str = DASHBOARD,
        password: str = PASSWORD) -> dict:
    """Start the demo hub, drive ``students`` students through it one after another, measure, stop the hub."""
    check_args(students, moves, timeout, password, dashboard)
    from playwright.sync_api import sync_playwright

    from tests.browser.harness import free_port, launch_browser, require_browser

    require_browser()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from capacity import _machine

    result: dict = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": _machine(), "notebook": dashboard, "gallery": GALLERY,
        "client": "Playwright Chromium (one browser, one context per student); students one after another, "
                  "every student's dashboard left open",
        "spawner": "demo hub: JupyterHub simple local-process spawner, configurable-http-proxy",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "note": "the machine is shared with other work (see the load averages): times include waiting for the "
                "cores, CPU-seconds are the processes' own; students log in one after another, so spawn and page "
                "times are those of an otherwise quiet hub; the recipe passes no result-cache folder to the "
                "servers, so each student's server has its own cache (under its own home) and every student's "
                "dashboard computes its default view (no sharing between students, unlike dpexplore-serve)",
        "students": students, "moves_per_student": moves,
    }
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="dpx-hubcap-") as tmp:
        log_path = Path(tmp) / "hub.log"
        with open(log_path, "w") as log:
            t_hub = time.perf_counter()
            proc = start_hub(students, password, port, log, timeout)
            result["hub_start_s"] = round(time.perf_counter() - t_hub, 1)
            tracker = Tracker(proc.pid).start()
            rows: list[dict] = []
            try:
                result["hub_proxy_memory_idle"] = {k: tracker.memory()[k] for k in ("hub", "proxy")}
                with sync_playwright() as p:
                    browser = launch_browser(p)
                    try:
                        for i in range(1, students + 1):
                            user = f"student{i}"
                            try:
                                row, _ctx = drive_student(browser, f"http://127.0.0.1:{port}", user, password,
                                                          dashboard, moves, timeout, tracker)
                            except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                                row = {"user": user, "errors": [f"{type(exc).__name__}: {str(exc)[:300]}"]}
                            rows.append(row)
                            print(json.dumps(row), flush=True)
                        time.sleep(3)
                        memory = tracker.memory()  # every student's dashboard open
                    finally:
                        browser.close()
                totals = tracker.totals()
            finally:
                tracker.stop()
                stop_hub(proc)
            text = log_path.read_text(errors="replace")
    result["students_rows"] = rows
    result["memory_with_students"] = memory
    result["cpu_s_totals"] = {"hub": round(totals["hub"], 2), "proxy": round(totals["proxy"], 2),
                              "wrapper": round(totals["wrapper"], 2)}
    result["errors"] = sum(len(r["errors"]) for r in rows)
    result["tracebacks_in_hub_log"] = text.count("Traceback")
    result["summary"] = summarize(rows, memory)
    result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    return result


def write_guide(result_path: Path, guide: Path) -> None:
    """Put the hub table for ``result_path`` between the hub-capacity markers of ``guide``."""
    from dpexplore.hosting.capacity import render_hub_markdown

    serve = ROOT / "benchmarks" / "results" / "capacity.json"
    table = render_hub_markdown(json.loads(result_path.read_text()), serve=json.loads(serve.read_text()))
    text = guide.read_text()
    new, n = re.subn(r"(<!-- hub-capacity-table:start -->\n).*?(<!-- hub-capacity-table:end -->)",
                     lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    if n != 1:
        raise ValueError(f"{guide} must hold one pair of hub-capacity-table markers; found {n}")
    guide.write_text(new)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=8, help=f"simulated students (1..{MAX_STUDENTS})")
    ap.add_argument("--moves", type=int, default=3, help=f"slider moves per student (1..{MAX_MOVES})")
    ap.add_argument("--notebook", default=DASHBOARD, help="the dashboard each student opens")
    ap.add_argument("--timeout", type=float, default=300, help=f"deadline of each wait, s (10..{MAX_TIMEOUT:g})")
    ap.add_argument("--out", default=str(RESULT))
    ap.add_argument("--write-guide", action="store_true",
                    help="only regenerate the hub table of docs/guides/capacity.md from --out, and stop")
    a = ap.parse_args(argv)
    if a.write_guide:
        write_guide(Path(a.out), GUIDE)
        return 0
    try:
        check_args(a.students, a.moves, a.timeout, PASSWORD, a.notebook)
    except (TypeError, ValueError) as exc:
        ap.error(str(exc))
    result = run(a.students, a.moves, a.timeout, a.notebook)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["summary"], indent=1))
    print("wrote", a.out)
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
