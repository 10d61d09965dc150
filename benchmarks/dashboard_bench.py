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

and, per slider move, where it goes: the kernel's own "Updated in" time (the status line), the
summed time of plotly's draw calls in the page (``Plotly.react``/``newPlot``, wrapped in the page)
with the number of figures drawn, and the websocket bytes the kernel sent.

Two more one-figure pages show the other ways to draw: ``trivial_react`` (the kit's
:class:`~dpexplore.ui.plotpanel.PlotPanel`, redrawn in place with the page's ``Plotly.react``) and
``trivial_figurewidget`` (plotly's ``go.FigureWidget`` updated with ``batch_update``; its WS MB is
the plotly.js it sends). ``--routes react output`` serves the dashboards twice, from one Voila server
per route (``DPEXPLORE_PLOT_ROUTE``), and alternates the two within every round.

Rounds are interleaved (every page once per round, in a fixed order) and the table shows medians
over rounds, with each dashboard's ratio to the trivial floor. Bounded and local: the server binds
127.0.0.1, the browser resolves no other host, every wait has a deadline.

    .venv/bin/python benchmarks/dashboard_bench.py --rounds 3 [--routes react output]
"""

from __future__ import annotations

import argparse
import json
import os
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

TRIVIAL_REACT = '''\
import ipywidgets as widgets
import plotly.graph_objects as go
from dpexplore.ui.plotpanel import PlotPanel

out = PlotPanel()
slider = widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="a")
slider.add_class("dpx-ctl-a")

def draw(change=None):
    a = slider.value
    fig = go.Figure(go.Scatter(x=list(range(50)), y=[a * i * i for i in range(50)]))
    fig.update_layout(height=400, title="y = a x^2", yaxis_range=[0, 5 * 49**2])
    out.show(fig, {"displaylogo": False})

slider.observe(draw, names="value")
draw()
widgets.VBox([slider, out])
'''

TRIVIAL_FIGUREWIDGET = '''\
import ipywidgets as widgets
import plotly.graph_objects as go

slider = widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1, description="a")
slider.add_class("dpx-ctl-a")
fw = go.FigureWidget(go.Scatter(x=list(range(50)), y=[i * i for i in range(50)]))
fw.update_layout(height=400, title="y = a x^2", yaxis_range=[0, 5 * 49**2])

def draw(change=None):
    a = slider.value
    with fw.batch_update():
        fw.data[0].y = [a * i * i for i in range(50)]

slider.observe(draw, names="value")
widgets.VBox([slider, fw])
'''

#: page -> (two cost-driving controls, by control name)
PAGES = {
    "empty": (),
    "trivial": ("a",),
    "trivial_react": ("a",),
    "trivial_figurewidget": ("a",),
    "00_intro_1_randomized_response_laplace": ("epsilon", "n"),
    "00_intro_2_what_epsilon_means": ("epsilon", "delta"),
    "00_intro_3_composition": ("epsilon", "k"),
    "01_spectral_clustering": ("epsilon", "n"),
    "02_private_pca": ("epsilon", "n"),
    "03_markov_trajectories": ("epsilon", "T"),
    "04_shuffle_asymptotics": ("epsilon0", "n"),
    "05_quadratic_objective_perturbation": ("epsilon", "n"),
    "10_why_dp_attacks": ("m", "n"),
    "11_private_statistics": ("epsilon", "clip"),  # n starts at its maximum: ArrowRight would not move it
    "12_selection": ("epsilon", "gap"),
    "13_private_ml": ("noise_multiplier", "steps"),
    "14_local_model": ("epsilon", "n"),
    "15_deployments": ("rho", "block_share"),
}


def _make_root(tmp: Path) -> Path:
    root = tmp / "pages"
    root.mkdir()
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# empty floor")])
    floors = [("empty", empty)] + [
        (name, nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]))
        for name, code in (("trivial", TRIVIAL), ("trivial_react", TRIVIAL_REACT),
                           ("trivial_figurewidget", TRIVIAL_FIGUREWIDGET))]
    for name, nb in floors:
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
        self.ws_in = 0  # kernel -> browser

    def on_http(self, event: dict) -> None:
        self.http += event["encodedDataLength"]

    def on_ws(self, event: dict) -> None:
        self.ws += len(event["response"]["payloadData"])

    def on_ws_in(self, event: dict) -> None:
        self.ws_in += len(event["response"]["payloadData"])


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


#: in-page timing of every plotly draw: wraps Plotly.react and Plotly.newPlot once plotly.js is there
#: (the Output route's mime renderer and the PlotPanel both call Plotly.react; the wrapper sees both)
JS_RENDER_PROBE = """(() => {
  window.__dpxRender = [];
  const wrap = () => {
    const P = window.Plotly;
    if (!P || P.__dpxWrapped) return !!P;
    for (const fn of ['react', 'newPlot']) {
      const orig = P[fn];
      if (typeof orig !== 'function') continue;
      P[fn] = function (...args) {
        const t0 = performance.now();
        return Promise.resolve(orig.apply(this, args)).then(r => {
          window.__dpxRender.push(performance.now() - t0); return r; });
      };
    }
    P.__dpxWrapped = true;
    return true;
  };
  const poll = () => { if (!wrap()) setTimeout(poll, 10); };
  poll();
})();"""

JS_TAKE_RENDERS = "() => { const r = window.__dpxRender || []; window.__dpxRender = []; return r; }"
JS_KERNEL_S = """() => { const m = /Updated in ([0-9.]+) s/.exec(document.body.innerText); return m ? +m[1] : null; }"""


def view(browser, server: VoilaServer, page_name: str, *, moves: int, timeout: float, warm: bool,
         notebook: str | None = None) -> dict:
    """One page view (and, with ``warm``, a second view in the same context for the HTTP bytes).

    ``page_name`` labels the row; ``notebook`` (default: ``page_name``) is the notebook served."""
    notebook = notebook or page_name
    # No ctx.route here: Playwright turns the HTTP cache off while a route is installed, and the warm
    # view must see the cache. Non-loopback hosts are unreachable through the browser's resolver rules.
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(JS_RENDER_PROBE)
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
            cdp.on("Network.webSocketFrameReceived", counts.on_ws_in)
            before = set(_kernel_pids(server))
            t0 = time.perf_counter()
            page.goto(f"{server.url}/voila/render/{notebook}.ipynb", wait_until="commit", timeout=timeout * 1000)
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
            renders = page.evaluate(JS_TAKE_RENDERS)
            res["page_renders"] = len(renders)
            res["page_render_s"] = sum(renders) / 1000
            for ctl in PAGES[notebook]:
                handle = page.locator(f".dpx-ctl-{ctl} .noUi-handle").first
                lat, first, kern, rend, nfig, wsin = [], [], [], [], [], []
                for i in range(moves):
                    sig = page.evaluate(JS_PLOT_SIG)
                    page.evaluate(JS_TAKE_RENDERS)
                    ws0 = counts.ws_in
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
                    r = page.evaluate(JS_TAKE_RENDERS)
                    rend.append(sum(r) / 1000)
                    nfig.append(len(r))
                    wsin.append(counts.ws_in - ws0)
                    k = page.evaluate(JS_KERNEL_S)
                    if k is not None:
                        kern.append(k)
                res[f"slider_{ctl}_s"] = statistics.median(lat) if lat else None
                res[f"first_{ctl}_s"] = statistics.median(first) if first else None
                # where a move goes: the kernel's own "Updated in" time, plotly's draw calls in the page
                # (summed, and how many figures), and the websocket bytes the kernel sent
                res[f"kernel_{ctl}_s"] = statistics.median(kern) if kern else None
                res[f"render_{ctl}_s"] = statistics.median(rend) if rend else None
                res[f"figs_{ctl}"] = statistics.median(nfig) if nfig else None
                res[f"wsin_{ctl}_kb"] = statistics.median(wsin) / 1e3 if wsin else None
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


FLOORS = ("empty", "trivial", "trivial_react", "trivial_figurewidget")
ROUTES = ("react", "output")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--moves", type=int, default=4, help="moves per measured slider")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES))
    ap.add_argument("--routes", nargs="+", default=["react"], choices=ROUTES,
                    help="how the dashboards draw their panels (DPEXPLORE_PLOT_ROUTE); several: one Voila "
                         "server each, the views alternated within every round")
    ap.add_argument("--json", help="also write every raw measurement to this file")
    a = ap.parse_args(argv)
    from contextlib import ExitStack

    from playwright.sync_api import sync_playwright

    print(machine_line(), flush=True)
    raw: list[dict] = []
    # (row label, route, notebook): floors once (they do not use the kit), each dashboard once per route
    plan = []
    for name in a.pages:
        for route in ((a.routes[0],) if name in FLOORS else a.routes):
            label = name if name in FLOORS or len(a.routes) == 1 else f"{name} [{route}]"
            plan.append((label, route, name))
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        root = _make_root(Path(tmp))
        extra = ["--MappingKernelManager.cull_idle_timeout=30", "--MappingKernelManager.cull_interval=5",
                 "--LimitedKernelManager.max_kernels=60"]
        servers = {}
        for route in a.routes:
            env = dict(os.environ, DPEXPLORE_PLOT_ROUTE=route)
            servers[route] = stack.enter_context(VoilaServer(root, cwd=ROOT, extra_args=extra, env=env))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            *CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"])
        for r in range(a.rounds):
            for label, route, name in plan:
                row = view(browser, servers[route], label, notebook=name, moves=a.moves, timeout=a.timeout,
                           warm=(r == 0))
                row["round"] = r
                row["route"] = route
                raw.append(row)
                print(json.dumps(row), flush=True)
                time.sleep(1.0)
        browser.close()
    if a.json:
        Path(a.json).write_text(json.dumps(raw, indent=1))
    labels = [lab for lab, _, _ in plan]
    by = {n: [r for r in raw if r["page"] == n] for n in labels}
    triv = {k: _med(by.get("trivial", []), k) for k in ("first_plot_s", "all_panels_s", "slider_a_s")}

    def ratio(x, floor):
        return f"{x / floor:.2f}" if x is not None and floor else "–"

    def f(x, nd=2):
        return "–" if x is None else f"{x:.{nd}f}"

    rows, where = [], []
    for label, _, name in plan:
        rs = by[label]
        fp, ap_, ctls = _med(rs, "first_plot_s"), _med(rs, "all_panels_s"), PAGES[name]
        sl = [(c, _med(rs, f"slider_{c}_s")) for c in ctls]
        rows.append([
            label, f(fp), ratio(fp, triv["first_plot_s"]), f(ap_), ratio(ap_, triv["all_panels_s"]),
            "; ".join(f"{c} {f(s)} (×{ratio(s, triv['slider_a_s'])}; first change {f(_med(rs, f'first_{c}_s'))})"
                      for c, s in sl) or "–",
            f(_med(rs, "http_cold_mb"), 1), f(_med(rs, "http_warm_mb"), 2), f(_med(rs, "ws_mb"), 2),
            f(_med(rs, "kernel_mib"), 0), sum(len(r["errors"]) for r in rs),
        ])
        for c in ctls:
            where.append([label, c, f(_med(rs, f"slider_{c}_s")), f(_med(rs, f"kernel_{c}_s")),
                          f(_med(rs, f"render_{c}_s")), f(_med(rs, f"figs_{c}"), 1), f(_med(rs, f"wsin_{c}_kb"), 0)])
    print()
    print(f"Medians over {a.rounds} interleaved round(s); ratios are to the trivial dashboard (Output route) "
          "of the same run.")
    print(table(["page", "first plot s", "× trivial", "all panels s", "× trivial",
                 "slider → full redraw median s (first plot change)", "HTTP MB cold", "HTTP MB warm", "WS MB",
                 "kernel MiB", "errors"], rows))
    print()
    print("Where a slider move goes (medians): the kernel's own 'Updated in' time (dashboards only), the summed "
          "time of plotly's draw calls in the page and how many figures were drawn, kernel → browser websocket kB.")
    print(table(["page", "slider", "full redraw s", "kernel s", "plotly draw s", "figures", "WS in kB"], where))
    print(machine_line("at end"))
    return 0 if all(not r["errors"] for r in raw) else 1


if __name__ == "__main__":
    sys.exit(main())
