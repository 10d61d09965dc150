"""Every dashboard against two floors, in one interleaved run (Voila + headless Chromium, loopback).

Floors, measured in the same run: an **empty notebook** (one markdown cell) and a **trivial
dashboard** (one slider and one plotly figure through an ``ipywidgets.Output``, drawn the way the
dashboard kit draws: plotly's mimetype bundle set as the Output's state). For each page view the
script records

* ``first plot``: request -> the first plotly figure is drawn;
* ``all panels``: request -> every widget and plot drawn and the page quiet for 1 s;
* ``slider``: median key press -> the last plot it changes is drawn (a full redraw: no plot
  changes for 0.6 s after it), for two cost-driving sliders (``--moves`` each);
* ``HTTP MB``: bytes the page pulled over HTTP (Chrome's ``Network.loadingFinished``
  ``encodedDataLength``), for a cold browser cache and, in the first round, for a second view
  in the same browser context (``warm``: what a student pays after the first page);
* ``WS MB``: websocket payload bytes in both directions over the whole view;
* ``kernel MiB``: resident memory of the page's kernel after the slider moves.

Rounds are interleaved (every page once per round, in a fixed order) and the table shows medians
over rounds, with each dashboard's ratio to the trivial floor. Bounded and local: the server binds
127.0.0.1, the browser resolves no other host, every wait has a deadline.

    .venv/bin/python benchmarks/dashboard_bench.py --rounds 3
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import machine_line, table  # noqa: E402
from tests.browser.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    JS_PLOT_SIG,
    JS_PROGRESS,
    JS_RENDERED,
    VoilaServer,
)

TRIVIAL = '''\
import json
import ipywidgets as widgets
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

out = widgets.Output()
slider = widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="a")
slider.add_class("dpx-ctl-a")

def draw(change=None):
    a = slider.value
    fig = go.Figure(go.Scatter(x=list(range(50)), y=[a * i * i for i in range(50)]))
    fig.update_layout(height=400, title="y = a x^2", yaxis_range=[0, 5 * 49**2])
    d = fig.to_dict()
    d["config"] = {"displaylogo": False}
    bundle = {"application/vnd.plotly.v1+json": json.loads(to_json_plotly(d))}
    out.outputs = ({"output_type": "display_data", "data": bundle, "metadata": {}},)

slider.observe(draw, names="value")
draw()
widgets.VBox([slider, out])
'''

#: page -> (two cost-driving controls, by control name)
PAGES = {
    "empty": (),
    "trivial": ("a",),
    "01_spectral_clustering": ("epsilon", "n"),
    "02_private_pca": ("epsilon", "n"),
    "03_markov_trajectories": ("epsilon", "T"),
    "04_shuffle_asymptotics": ("epsilon0", "n"),
    "05_quadratic_objective_perturbation": ("epsilon", "n"),
}


def _make_root(tmp: Path) -> Path:
    root = tmp / "pages"
    root.mkdir()
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# empty floor")])
    trivial = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(TRIVIAL)])
    for name, nb in (("empty", empty), ("trivial", trivial)):
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, root / f"{name}.ipynb")
    return root


def _kernel_pids(server: VoilaServer) -> dict[int, psutil.Process]:
    try:
        kids = psutil.Process(server.proc.pid).children(recursive=True)
    except psutil.Error:
        return {}
    out = {}
    for k in kids:
        try:
            if k.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(k.cmdline()):
                out[k.pid] = k
        except psutil.Error:
            pass
    return out


class _Bytes:
    """Byte counters fed by Chrome DevTools network events."""

    def __init__(self) -> None:
        self.http = 0
        self.ws = 0

    def on_http(self, event: dict) -> None:
        self.http += event["encodedDataLength"]

    def on_ws(self, event: dict) -> None:
        self.ws += len(event["response"]["payloadData"])


def _until_quiet(page, sig0: str, t_key: float, *, quiet: float = 0.6, timeout: float = 60.0) -> tuple[float, float]:
    """Seconds from ``t_key`` to the first and to the last plot change (once no plot changed for ``quiet`` s)."""
    last_sig, last_change, first_change = sig0, None, None
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        sig = page.evaluate(JS_PLOT_SIG)
        now = time.perf_counter()
        if sig != last_sig:
            last_sig, last_change = sig, now
            first_change = now if first_change is None else first_change
        elif last_change is not None and now - last_change >= quiet:
            return first_change - t_key, last_change - t_key
        page.wait_for_timeout(20)
    raise TimeoutError("no plot change" if last_change is None else "plots kept changing")


def view(browser, server: VoilaServer, page_name: str, *, moves: int, timeout: float, warm: bool) -> dict:
    """One page view (and, with ``warm``, a second view in the same context for the HTTP bytes)."""
    # No ctx.route here: Playwright turns the HTTP cache off while a route is installed, and the warm
    # view must see the cache. Non-loopback hosts are unreachable through the browser's resolver rules.
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    res: dict = {"page": page_name, "errors": []}
    try:
        for attempt in ("cold", "warm") if warm else ("cold",):
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            counts = _Bytes()
            cdp.on("Network.loadingFinished", counts.on_http)
            for ev in ("Network.webSocketFrameReceived", "Network.webSocketFrameSent"):
                cdp.on(ev, counts.on_ws)
            before = set(_kernel_pids(server))
            t0 = time.perf_counter()
            page.goto(f"{server.url}/voila/render/{page_name}.ipynb", wait_until="commit", timeout=timeout * 1000)
            deadline = t0 + timeout
            first = None
            while time.perf_counter() < deadline:
                if first is None and page.evaluate("() => !!document.querySelector('.js-plotly-plot .main-svg')"):
                    first = time.perf_counter() - t0
                if page.evaluate(JS_RENDERED):
                    break
                page.wait_for_timeout(50)
            last, since = None, time.perf_counter()
            while time.perf_counter() < deadline:
                prog = page.evaluate(JS_PROGRESS)
                if first is None and prog["drawn"]:
                    first = time.perf_counter() - t0
                ready = prog["roots"] >= prog["want"] and prog["drawn"] == prog["plots"] and not prog["stale"]
                key = (prog["sig"], ready)
                if key != last:
                    last, since = key, time.perf_counter()
                elif ready and time.perf_counter() - since >= 1.0:
                    break
                page.wait_for_timeout(50)
            else:
                res["errors"].append(f"{attempt}: page did not settle within {timeout:.0f} s")
            if attempt == "warm":
                res["http_warm_mb"] = counts.http / 1e6
                page.close()
                break
            res["first_plot_s"] = first
            res["all_panels_s"] = since - t0
            for ctl in PAGES[page_name]:
                handle = page.locator(f".dpx-ctl-{ctl} .noUi-handle").first
                lat, first = [], []
                for i in range(moves):
                    sig = page.evaluate(JS_PLOT_SIG)
                    handle.focus()
                    t_key = time.perf_counter()
                    page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
                    try:  # key press -> the last panel it redraws is drawn (a full redraw)
                        f1, full = _until_quiet(page, sig, t_key)
                        first.append(f1)
                        lat.append(full)
                    except TimeoutError as exc:
                        res["errors"].append(f"slider {ctl}: {exc}")
                        break
                res[f"slider_{ctl}_s"] = statistics.median(lat) if lat else None
                res[f"first_{ctl}_s"] = statistics.median(first) if first else None
            new = [p for pid, p in _kernel_pids(server).items() if pid not in before]
            try:
                res["kernel_mib"] = sum(p.memory_info().rss for p in new) / 2**20 if new else None
            except psutil.Error:
                res["kernel_mib"] = None
            res["http_cold_mb"] = counts.http / 1e6
            res["ws_mb"] = counts.ws / 1e6
            if page.locator(".dpx-error").count():
                res["errors"].append("dashboard error box shown")
            page.close()
    finally:
        ctx.close()
    return res


def _med(rows: list[dict], key: str):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--moves", type=int, default=4, help="moves per measured slider")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES))
    ap.add_argument("--json", help="also write every raw measurement to this file")
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    print(machine_line(), flush=True)
    raw: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = _make_root(Path(tmp))
        extra = ["--MappingKernelManager.cull_idle_timeout=30", "--MappingKernelManager.cull_interval=5",
                 "--LimitedKernelManager.max_kernels=60"]
        with VoilaServer(root, cwd=ROOT, extra_args=extra) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                *CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])
            for r in range(a.rounds):
                for name in a.pages:
                    row = view(browser, server, name, moves=a.moves, timeout=a.timeout, warm=(r == 0))
                    row["round"] = r
                    raw.append(row)
                    print(json.dumps(row), flush=True)
                    time.sleep(1.0)
            browser.close()
    if a.json:
        Path(a.json).write_text(json.dumps(raw, indent=1))
    by = {n: [r for r in raw if r["page"] == n] for n in a.pages}
    triv = {k: _med(by.get("trivial", []), k) for k in ("first_plot_s", "all_panels_s", "slider_a_s")}

    def ratio(x, floor):
        return f"{x / floor:.2f}" if x is not None and floor else "–"

    def f(x, nd=2):
        return "–" if x is None else f"{x:.{nd}f}"

    rows = []
    for name in a.pages:
        rs = by[name]
        fp, ap_, ctls = _med(rs, "first_plot_s"), _med(rs, "all_panels_s"), PAGES[name]
        sl = [(c, _med(rs, f"slider_{c}_s")) for c in ctls]
        rows.append([
            name, f(fp), ratio(fp, triv["first_plot_s"]), f(ap_), ratio(ap_, triv["all_panels_s"]),
            "; ".join(f"{c} {f(s)} (×{ratio(s, triv['slider_a_s'])}; first change {f(_med(rs, f'first_{c}_s'))})"
                      for c, s in sl) or "–",
            f(_med(rs, "http_cold_mb"), 1), f(_med(rs, "http_warm_mb"), 2), f(_med(rs, "ws_mb"), 2),
            f(_med(rs, "kernel_mib"), 0), sum(len(r["errors"]) for r in rs),
        ])
    print()
    print(f"Medians over {a.rounds} interleaved round(s); ratios are to the trivial dashboard of the same run.")
    print(table(["page", "first plot s", "× trivial", "all panels s", "× trivial",
                 "slider → full redraw median s (first plot change)", "HTTP MB cold", "HTTP MB warm", "WS MB",
                 "kernel MiB", "errors"], rows))
    print(machine_line("at end"))
    return 0 if all(not r["errors"] for r in raw) else 1


if __name__ == "__main__":
    sys.exit(main())
