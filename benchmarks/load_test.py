"""Load test: N simultaneous dashboard sessions against one Voila server on loopback.

Each session (a headless-Chromium page) opens a dashboard, waits until its plots are drawn, then
moves the first slider ``--moves`` times, timing key press -> plot changed. The script reports
page-ready times, slider-to-plot latency percentiles, kernel memory, errors, and whether every
kernel is gone after the sessions end (the server runs with a short idle-cull time for this).

Bounded and local by construction: the server binds 127.0.0.1, every non-loopback request is
aborted, each session has a deadline, and the whole run stops by itself.

    .venv/bin/python benchmarks/load_test.py --sessions 10 20 --notebook 01_spectral_clustering.ipynb
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.browser.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    JS_PLOT_SIG,
    JS_PROGRESS,
    JS_RENDERED,
    SLIDER,
    VoilaServer,  # noqa: E402
)

LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")


class CpuMeter:
    """CPU seconds (user + system) by process group, sampled every 0.5 s during a level.

    Groups: the Voila server process, its kernels (ipykernel children), the headless browsers
    (every other process under this script: Playwright's driver and Chromium), and the rest of the
    machine (whatever else runs: the difference to the machine's total). A process that exits
    between two samples loses at most its last 0.5 s.
    """

    def __init__(self, server: VoilaServer):
        self.server_pid = server.proc.pid
        self.seen: dict[tuple[int, float], tuple[str, float]] = {}  # (pid, create_time) -> (group, cpu s)
        self.total0 = self._machine()

    @staticmethod
    def _machine() -> float:
        t = psutil.cpu_times()
        return t.user + t.system + getattr(t, "nice", 0.0) + getattr(t, "irq", 0.0) + getattr(t, "softirq", 0.0)

    def sample(self) -> None:
        groups: list[tuple[str, psutil.Process]] = []
        try:
            srv = psutil.Process(self.server_pid)
            groups.append(("server", srv))
            groups += [("kernels", k) for k in srv.children(recursive=True)]
        except psutil.Error:
            pass
        groups.append(("this_script", psutil.Process()))  # the ws clients run here
        ours = {proc.pid for _, proc in groups}  # the server is this script's child too: not a browser
        try:
            groups += [("browsers", c) for c in psutil.Process().children(recursive=True) if c.pid not in ours]
        except psutil.Error:
            pass
        for group, proc in groups:
            try:
                key = (proc.pid, proc.create_time())
                t = proc.cpu_times()
                self.seen[key] = (group, t.user + t.system)
            except psutil.Error:
                pass

    def baseline(self) -> None:
        """Subtract what the long-lived processes (the server, pooled kernels) used before the level."""
        self.sample()
        self.base = dict(self.seen)
        self.total0 = self._machine()

    def result(self) -> dict[str, float]:
        base = getattr(self, "base", {})
        out = {"server": 0.0, "kernels": 0.0, "browsers": 0.0, "this_script": 0.0}
        for key, (group, cpu) in self.seen.items():
            out[group] += cpu - base.get(key, (group, 0.0))[1]
        total = self._machine() - self.total0
        out["other"] = max(0.0, total - sum(out.values()))
        out["machine"] = total
        return {k: round(v, 1) for k, v in out.items()}


def _wait_for_pool(server: VoilaServer, size: int, timeout: float = 300.0) -> None:
    """Wait until ``size`` pooled kernels exist and have gone quiet (each ran its notebook up to the wait and
    drew the default view): their CPU time grows by < 0.05 s per second, three seconds running."""
    deadline = time.time() + timeout
    quiet, last = 0, None
    while time.time() < deadline:
        ks = _kernels(server)
        cpu = 0.0
        for k in ks:
            try:
                t = k.cpu_times()
                cpu += t.user + t.system
            except psutil.Error:
                pass
        busy = None if last is None or last[0] != len(ks) else cpu - last[1]
        last = (len(ks), cpu)
        quiet = quiet + 1 if len(ks) >= size and busy is not None and busy < 0.05 else 0
        if quiet >= 3:
            return
        time.sleep(1)
    print(f"warning: the pool of {size} did not fill and settle within {timeout:.0f} s", file=sys.stderr)


def _rss(server: VoilaServer) -> tuple[float, int]:
    """Total RSS (MiB) and count of the server's kernels now."""
    ks = _kernels(server)
    total = 0.0
    for k in ks:
        try:
            total += k.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20, len(ks)


def _kernels(server: VoilaServer) -> list[psutil.Process]:
    try:
        kids = psutil.Process(server.proc.pid).children(recursive=True)
    except psutil.Error:
        return []
    out = []
    for k in kids:
        try:  # a kernel being culled may already be gone or a zombie
            if k.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(k.cmdline()):
                out.append(k)
        except psutil.Error:
            pass
    return out


async def session(browser, url: str, moves: int, deadline: float, out: dict) -> None:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    await ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort())
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        t0 = time.perf_counter()
        resp = await page.goto(url, wait_until="commit", timeout=(deadline - time.time()) * 1000)
        out["html_first_byte_s"] = time.perf_counter() - t0

        async def html_done():  # when the server finished sending the page (the notebook has executed)
            try:
                await resp.finished()
                out["html_done_s"] = time.perf_counter() - t0
            except Exception:  # noqa: BLE001 - the page closed first; the timeline just lacks this point
                pass

        done_task = asyncio.ensure_future(html_done())
        while not await page.evaluate(JS_RENDERED):
            if time.time() > deadline:
                raise TimeoutError("notebook did not execute")
            await asyncio.sleep(0.1)
        out["rendered_s"] = time.perf_counter() - t0
        stable = None
        while True:
            prog = await page.evaluate(JS_PROGRESS)
            if "first_plot_s" not in out and prog["drawn"]:
                out["first_plot_s"] = time.perf_counter() - t0
            if prog["roots"] >= prog["want"] and prog["plots"] and prog["drawn"] == prog["plots"] and not prog["stale"]:
                if stable is None:
                    stable = time.perf_counter()
                elif time.perf_counter() - stable > 0.5:
                    break
            else:
                stable = None
            if time.time() > deadline:  # say how far the page got: widgets wanted/shown, plots present/drawn
                raise TimeoutError(f"plots did not render (widget roots {prog['roots']}/{prog['want']}, plots "
                                   f"{prog['drawn']}/{prog['plots']} drawn)")
            await asyncio.sleep(0.1)
        out["ready_s"] = stable - t0
        if not done_task.done():
            done_task.cancel()
        lat = []
        handle = page.locator(SLIDER).first
        for i in range(moves):
            before = await page.evaluate(JS_PLOT_SIG)
            await handle.focus()
            t_key = time.perf_counter()
            await page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            await page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before,
                                         timeout=max(1000, (deadline - time.time()) * 1000), polling=50)
            lat.append(time.perf_counter() - t_key)
            await asyncio.sleep(0.3)
        out["latencies"] = lat
        err_boxes = await page.locator(".dpx-error").count()
        if err_boxes:
            errors.append(f"{err_boxes} dashboard error box(es)")
    except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
        errors.append(f"{type(exc).__name__}: {exc}"[:300])
    finally:
        out["errors"] = errors
        await ctx.close()


async def ws_session(base_url: str, notebook: str, moves: int, deadline: float, out: dict, executor=None) -> None:
    """A session without a browser: GET the page, then speak the widget protocol over the kernel's
    websocket as the page's JavaScript would (fetch every widget's state, wait until every panel has a
    plot and none is still computing; move the first slider by one step and wait for a panel update).
    What it measures is the server's side alone: what a class gets when each browser has its own CPU."""
    import urllib.request

    from tests.hosting import wsclient

    errors: list[str] = []
    ws = None
    try:
        t0 = time.perf_counter()
        loop = asyncio.get_running_loop()

        def fetch():
            with urllib.request.urlopen(f"{base_url}/voila/render/{notebook}",  # noqa: S310 - loopback
                                        timeout=max(1.0, deadline - time.time())) as resp:
                return resp.read().decode()

        html = await loop.run_in_executor(executor, fetch)  # one thread per session: every GET at once
        out["html_done_s"] = time.perf_counter() - t0
        import re

        kernel = re.search(r'kernelId"?\s*[:=]\s*"([0-9a-f-]{36})"', html)
        models = re.findall(r'model_id\\?"\s*:\s*\\?"([0-9a-f]{32})', html)
        if kernel is None or not models:
            raise RuntimeError("no kernel id or widget in the page")
        # a browser has no 10 s connect timeout: wait as long as the session may
        ws = await wsclient.connect(base_url, kernel.group(1), timeout=max(10.0, deadline - time.time()))
        dropped: list = []
        states = await wsclient.request_states(ws, seconds=max(1.0, deadline - time.time()), dropped=dropped)
        out["updates_before_state_reply"] = len(dropped)
        out["rendered_s"] = time.perf_counter() - t0

        def is_plot_widget(v):  # the dashboards' anywidget plot (a ``figure`` trait) or an Output holding plotly's
            return "figure" in v or v.get("_model_name") == "OutputModel"

        def outputs():
            return {k: v for k, v in states.items() if is_plot_widget(v)}

        def has_plot(v):
            return bool(v.get("figure")) or any("application/vnd.plotly.v1+json" in (o.get("data") or {})
                                                for o in v.get("outputs") or [])

        def ready():
            outs = outputs()
            stale = any("dpx-stale" in (v.get("_dom_classes") or []) for v in states.values())
            return not stale and sum(map(has_plot, outs.values())) >= 3

        async def pump(until, what, quiet: float = 0.0):
            """Apply incoming widget updates until ``until()``; with ``quiet``, until nothing came for that long."""
            while quiet or not until():
                if time.time() > deadline:
                    raise TimeoutError(what)
                try:
                    frame = await asyncio.wait_for(ws.read_message(), timeout=quiet or 1)
                except asyncio.TimeoutError:
                    if quiet and until():
                        return
                    continue
                if frame is None:
                    raise RuntimeError("the server closed the websocket")
                msg = wsclient.decode(frame)
                data = (msg.get("content") or {}).get("data") or {}
                if msg.get("msg_type") == "comm_msg" and data.get("method") == "update":
                    cid = msg["content"]["comm_id"]
                    states.setdefault(cid, {}).update(data.get("state") or {})
                    new = data.get("state") or {}
                    if ("outputs" in new or "figure" in new) and is_plot_widget(states[cid]):
                        changed.append(cid)

        changed: list[str] = []
        await pump(lambda: any(map(has_plot, outputs().values())), "no plot arrived")
        out["first_plot_s"] = time.perf_counter() - t0
        await pump(ready, "panels did not finish")
        out["ready_s"] = time.perf_counter() - t0
        grid = next((v for v in states.values() if "dpx-controls" in (v.get("_dom_classes") or [])), None)
        kids = [c[len("IPY_MODEL_"):] for c in (grid or {}).get("children", [])]
        slider = next((k for k in kids if states.get(k, {}).get("_model_name", "").endswith("SliderModel")), None)
        if slider is None:
            raise RuntimeError("no slider among the controls")
        lat = []
        for i in range(moves):
            await pump(ready, "panels did not finish", quiet=0.3)  # the previous move's redraws are all in
            st = states[slider]
            v, step = st["value"], st.get("step") or 1
            if st["_model_name"] == "FloatLogSliderModel":
                new = v * st.get("base", 10) ** (step if i % 2 == 0 else -step)
            else:
                new = v + (step if i % 2 == 0 else -step)
            states[slider]["value"] = new
            changed.clear()
            t_key = time.perf_counter()
            await ws.write_message(wsclient.widget_update(slider, {"value": new}))
            await pump(lambda: bool(changed) and any(has_plot(states[c]) for c in changed), "no plot changed")
            lat.append(time.perf_counter() - t_key)
        out["latencies"] = lat
    except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
        msg = f"{type(exc).__name__}: {exc}"
        if "updates_before_state_reply" in out:  # a stall: did an update arrive before the state reply?
            msg += f" ({out['updates_before_state_reply']} widget update(s) arrived before the state reply)"
        errors.append(msg[:300])
    finally:
        out["errors"] = errors
        if ws is not None:
            ws.close()


async def run_level(server: VoilaServer, notebook: str, n: int, moves: int, timeout: float,
                    client: str = "chromium") -> dict:
    from playwright.async_api import async_playwright

    url = f"{server.url}/voila/render/{notebook}"
    results = [dict() for _ in range(n)]
    peak_rss, peak_kernels = 0.0, 0
    meter = CpuMeter(server)
    meter.baseline()
    idle_rss, idle_kernels = _rss(server)  # pooled kernels waiting before any session (preheat)
    t_start = time.perf_counter()
    async with async_playwright() as p:
        deadline = time.time() + timeout
        if client == "ws":
            import concurrent.futures

            browser = None
            executor = concurrent.futures.ThreadPoolExecutor(max_workers=n)
            tasks = [asyncio.ensure_future(ws_session(server.url, notebook, moves, deadline, results[i], executor))
                     for i in range(n)]
        else:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            tasks = [asyncio.ensure_future(session(browser, url, moves, deadline, results[i])) for i in range(n)]
        cpu_at_ready = None
        while not all(t.done() for t in tasks):
            meter.sample()
            if cpu_at_ready is None and all("ready_s" in r or r.get("errors") for r in results):
                cpu_at_ready = meter.result()  # every page is ready: the slider moves come after
            ks = _kernels(server)
            peak_kernels = max(peak_kernels, len(ks))
            rss = 0.0
            for k in ks:
                try:
                    rss += k.memory_info().rss
                except psutil.Error:
                    pass
            peak_rss = max(peak_rss, rss / 2**20)
            await asyncio.sleep(0.5)
        meter.sample()
        if browser is not None:
            await browser.close()
        else:
            executor.shutdown(wait=False)
    wall = time.perf_counter() - t_start
    lat = [x for r in results for x in r.get("latencies", [])]
    ready = [r["ready_s"] for r in results if "ready_s" in r]
    errors = [e for r in results for e in r.get("errors", [])]

    def pct(xs, q):
        if len(xs) >= 2:
            return round(statistics.quantiles(xs, n=100, method="inclusive")[q - 1], 3)
        return round(xs[0], 3) if xs else None

    def med(key):
        xs = [r[key] for r in results if key in r]
        return round(statistics.median(xs), 2) if xs else None

    cpu = meter.result()
    return {
        "sessions": n,
        "client": client,
        "html_done_median_s": med("html_done_s"),
        "rendered_median_s": med("rendered_s"),
        "first_plot_median_s": med("first_plot_s"),
        "ready_median_s": round(statistics.median(ready), 2) if ready else None,
        "ready_max_s": round(max(ready), 2) if ready else None,
        "slider_p50_s": pct(lat, 50),
        "slider_p90_s": pct(lat, 90),
        "slider_max_s": round(max(lat), 3) if lat else None,
        "moves_measured": len(lat),
        "errors": len(errors),
        "error_examples": errors[:3],
        "peak_kernels": peak_kernels,
        "kernel_rss_total_mb": round(peak_rss),
        "kernel_rss_per_kernel_mb": round(peak_rss / peak_kernels) if peak_kernels else None,
        "idle_kernels_before": idle_kernels,
        "idle_kernel_rss_mb": round(idle_rss),
        "wall_s": round(wall, 1),
        "cpu_s": cpu,
        "cpu_s_until_all_ready": cpu_at_ready,
        "timeline": [{k: round(v, 2) for k, v in r.items() if k.endswith("_s")} for r in results],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[2], help="session counts to try, in order")
    ap.add_argument("--notebook", default="01_spectral_clustering.ipynb",
                    help="notebook to open, optionally with a query (a deep link), e.g. "
                         "01_spectral_clustering.ipynb?epsilon=0.5")
    ap.add_argument("--notebooks-dir", default=str(ROOT / "notebooks"))
    ap.add_argument("--moves", type=int, default=4, help="slider moves per session")
    ap.add_argument("--timeout", type=float, default=300, help="deadline per level (s)")
    ap.add_argument("--cull", type=int, default=20, help="idle-kernel cull time for this run (s)")
    ap.add_argument("--grace", type=int, default=300,
                    help="unconnected-kernel grace for this run (s): a kernel whose page never connected "
                         "(a failed session) is culled only after it, so the leftover check waits for it")
    ap.add_argument("--cache-dir", default="fresh",
                    help="shared experiment-result cache of the server's kernels, as python -m dpexplore.serve "
                         "sets it: 'fresh' (default: a new empty directory, so the first session computes), "
                         "a directory, or 'off'")
    ap.add_argument("--voila-arg", action="append", default=[], metavar="--Class.trait=value",
                    help="extra Voila option for the server (repeatable), e.g. "
                         "--voila-arg=--KernelManager.transport=ipc")
    ap.add_argument("--preheat", type=int, default=0, metavar="N",
                    help="serve with N preheated kernels per notebook, as python -m dpexplore.serve --preheat N")
    ap.add_argument("--client", choices=["chromium", "ws"], default="chromium",
                    help="chromium: headless browsers on this machine (default); ws: a websocket client per session "
                         "that speaks the widget protocol without drawing (the server's side alone)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    extra = [f"--MappingKernelManager.cull_idle_timeout={a.cull}", "--MappingKernelManager.cull_interval=5",
             f"--LimitedKernelManager.max_kernels={max(a.sessions) + 5}",
             f"--LimitedKernelManager.unconnected_grace={a.grace}"]
    if a.preheat:
        from dpexplore.serve import preheat_options

        extra += preheat_options(Path(a.notebooks_dir), a.preheat, [a.notebook.split("?")[0]])
        extra[2] = f"--LimitedKernelManager.max_kernels={max(a.sessions) + a.preheat + 5}"
    from dpexplore.serve import merge_options

    extra = merge_options(extra, a.voila_arg)
    import os
    import tempfile

    env = dict(os.environ)
    tmp = tempfile.TemporaryDirectory(prefix="dpexplore-cache-")
    env["DPEXPLORE_CACHE_DIR"] = {"fresh": tmp.name, "off": ""}.get(a.cache_dir, a.cache_dir)
    with tmp, VoilaServer(Path(a.notebooks_dir), cwd=ROOT, extra_args=extra, env=env) as server:
        for n in a.sessions:
            if a.preheat:
                _wait_for_pool(server, a.preheat)
            row = asyncio.run(run_level(server, a.notebook, n, a.moves, a.timeout, a.client))
            # connected kernels go within cull + 30 s; those of failed sessions after the grace
            t_end = time.time() + a.cull + 30 + (a.grace if row["errors"] else 0)
            # with a preheated pool, the refilled pool stays: what is above its size is left over
            while len(_kernels(server)) > a.preheat and time.time() < t_end:
                time.sleep(1)
            row["kernels_left_after"] = max(0, len(_kernels(server)) - a.preheat)
            if row["errors"]:  # what the server said about it (execution timeouts, kernel deaths, ...)
                lines = [ln.strip() for ln in server.log().splitlines()
                         if any(w in ln for w in ("Error", "Timeout", "timed out", "died", "503", "Culling"))]
                row["server_log"] = [ln[:200] for ln in dict.fromkeys(lines)][-5:]
            rows.append(row)
            print(json.dumps(row) if a.json else row, flush=True)
            if row["slider_p50_s"] is None or row["slider_p50_s"] > 5 or row["errors"] > n:
                break  # far past usable: stop rather than pile on
    if not a.json:
        cols = ["sessions", "ready_median_s", "ready_max_s", "slider_p50_s", "slider_p90_s", "slider_max_s",
                "errors", "peak_kernels", "kernel_rss_per_kernel_mb", "kernels_left_after"]
        print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
        for r in rows:
            print("| " + " | ".join(str(r.get(c)) for c in cols) + " |")
    ok = all(r["errors"] == 0 and r["kernels_left_after"] == 0 for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
