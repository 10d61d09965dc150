"""A plot panel that redraws in place: a tiny anywidget calling the page's ``Plotly.react``.

The Output route (an ``ipywidgets.Output`` holding plotly's ``application/vnd.plotly.v1+json``
bundle) makes the browser's plotly mime renderer build each changed figure from scratch on every
slider move: ``Plotly.newPlot`` and a new DOM per panel. :class:`PlotPanel` keeps one ``<div>`` per
panel and hands each new figure to ``Plotly.react``, which diffs it against what is drawn.

* **No plotly.js in the widget.** Its ES module is the ~3 kB below; it uses ``window.Plotly``,
  which the jupyterlab-plotly extension (installed with plotly) defines on every Voila/JupyterLab
  page. (plotly's own ``go.FigureWidget`` bundles plotly.js into every instance's module: ≈ 5 MB
  over the websocket per panel, measured.) If ``window.Plotly`` does not appear within
  :data:`PLOTLY_WAIT_MS`, the panel says so in words: never a blank panel.
* **The figure is kernel → browser only.** The browser never needs to send the figure: every
  client update of this widget's state is dropped before it reaches a trait (:meth:`PlotPanel.set_state`),
  so a page cannot push a huge or malformed figure into the kernel.
* **Static renderers** (a notebook viewer without the widget state, nbconvert) get the same plotly
  bundle the Output route showed, from :meth:`PlotPanel._repr_mimebundle_`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anywidget
import plotly.graph_objects as go
import traitlets

from .figures import figure_json, plotly_mimebundle

__all__ = ["PlotPanel", "PLOTLY_WAIT_MS", "figure_json"]

#: how long (ms) a panel waits for the page's ``window.Plotly`` before it shows its fallback text
PLOTLY_WAIT_MS = 20000

_ESM = r"""
const WAIT_MS = @WAIT@;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const usable = (P) => !!P && typeof P.react === "function" && !!P.Plots;
async function loadPlotly() {
  if (usable(window.Plotly)) return window.Plotly;
  // jupyterlab-plotly evaluates its plotly.js only when its mime renderer first draws: ask the
  // already-loaded extension to draw one empty figure off-page, then take its plotly.js.
  try {
    const c = window._JUPYTERLAB && window._JUPYTERLAB["jupyterlab-plotly"];
    if (c && typeof c.get === "function") {
      const m = (await c.get("./mimeExtension"))();
      const R = m.RenderedPlotly;
      if (R && !usable(R.Plotly) && m.rendererFactory && m.MIME_TYPE) {
        const r = m.rendererFactory.createRenderer({ mimeType: m.MIME_TYPE });
        try {
          await Promise.race([r.renderModel({ data: { [m.MIME_TYPE]: { data: [], layout: {}, config: {} } },
                                               metadata: {} }), sleep(WAIT_MS)]);
        } catch (e) { /* plotly.js is loaded before it draws; checked below */ }
        if (r.dispose) r.dispose();
      }
      if (R && usable(R.Plotly)) return R.Plotly;
    }
  } catch (e) {
    console.warn("dpexplore: loading plotly.js from jupyterlab-plotly failed", e);
  }
  const t0 = performance.now();
  while (performance.now() - t0 < WAIT_MS) {
    if (usable(window.Plotly)) return window.Plotly;
    await sleep(50);
  }
  return null;
}
function plotlyReady() {  // one load per page, shared by every panel
  if (!window.__dpxPlotly) window.__dpxPlotly = loadPlotly();
  return window.__dpxPlotly;
}
function scrollParent(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if ((o === "auto" || o === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return null;
}
// A first plot that fits on the first screen, legend included: its height is what is left of the viewport
// below the plot's top (as laid out at scroll 0), never more than the figure asks for nor less than FIT_MIN.
const FIT_MIN = 340;
function fitHeight(div, want) {
  const sc = scrollParent(div);
  const top = div.getBoundingClientRect().top + (sc ? sc.scrollTop : window.scrollY);
  const room = Math.floor(window.innerHeight - top - 16);
  return Math.max(FIT_MIN, Math.min(want, room));
}
// A legend below the plot is placed in units of the plot area's height: on a short plot it lands on the
// x axis's title. Move it down until there is a gap (the bottom margin grows, the figure height stays).
async function clearLegend(P, div) {
  try { await clearLegendOnce(P, div); } catch (e) { console.warn("dpexplore: moving the legend failed", e); }
}
async function clearLegendOnce(P, div) {
  for (let i = 0; i < 4; i++) {
    const lg = div.querySelector(".legend"), xt = div.querySelector(".g-xtitle");
    const fl = div._fullLayout;
    if (!lg || !xt || !fl || !fl._size || !fl.legend || fl.legend.y >= 0) return;
    const gap = lg.getBoundingClientRect().top - xt.getBoundingClientRect().bottom;
    if (gap >= 4 || !xt.getBoundingClientRect().height) return;
    await P.relayout(div, { "legend.y": fl.legend.y - (8 - gap) / Math.max(fl._size.h, 40) });
  }
}
// Legends and notes never cover plotted points (issue 38). What counts as a point: every marker and line vertex of
// a visible scatter trace, the line between them every 3 px, the top of every bar (shaded bands are areas).
// A legend over points moves to the first free corner of the plot, else below the plot; a note over points moves
// above the plot (stacked, the title kept at the top); a note wider than its figure is wrapped to fit.
function drawnPoints(div) {
  const fl = div._fullLayout, pts = [];
  for (const trc of div.calcdata || []) {
    const t = trc && trc[0] && trc[0].trace;
    if (!t || t.visible !== true || !["scatter", "bar", "histogram", "heatmap"].includes(t.type)) continue;
    const xa = fl[(t.xaxis || "x").replace(/^x/, "xaxis")], ya = fl[(t.yaxis || "y").replace(/^y/, "yaxis")];
    if (!xa || !ya) continue;
    const add = (x, y) => {
      if (isFinite(x) && isFinite(y) && x >= xa._offset - 0.5 && x <= xa._offset + xa._length + 0.5
          && y >= ya._offset - 0.5 && y <= ya._offset + ya._length + 0.5) pts.push([x, y]);
    };
    if (t.type === "heatmap") {  // an image of cells: every 6 px of its extent is drawn data
      const c = trc[0];
      const ex = (a, ax) => (a && a.length ? [Math.min(...a), Math.max(...a)].map((v) => ax._offset + ax.c2p(v))
                                           : [ax._offset, ax._offset + ax._length]);
      const [x0, x1] = ex(c.x, xa).sort((u, v) => u - v), [y0, y1] = ex(c.y, ya).sort((u, v) => u - v);
      for (let x = x0; x <= x1; x += 6) for (let y = y0; y <= y1; y += 6) add(x, y);
      continue;
    }
    if (t.type !== "scatter") {
      for (const d of trc) {
        const top = d.s1 !== undefined ? d.s1 : d.s;
        if (t.orientation === "h") add(xa._offset + xa.c2p(top), ya._offset + ya.c2p(d.p));
        else add(xa._offset + xa.c2p(d.p), ya._offset + ya.c2p(top));
      }
      continue;
    }
    const mode = t.mode || "", lines = mode.includes("lines") && t.line && t.line.width > 0;
    if (!lines && !mode.includes("markers") && !mode.includes("text")) continue;
    let prev = null;
    for (const d of trc) {
      const x = xa._offset + xa.c2p(d.x), y = ya._offset + ya.c2p(d.y);
      if (!isFinite(x) || !isFinite(y)) { prev = null; continue; }
      add(x, y);
      if (lines && prev) {
        const n = Math.min(2000, Math.floor(Math.hypot(x - prev[0], y - prev[1]) / 3));
        for (let i = 1; i < n; i++) add(prev[0] + (x - prev[0]) * i / n, prev[1] + (y - prev[1]) * i / n);
      }
      prev = [x, y];
    }
  }
  return pts;
}
const TAG = /<\/?[A-Za-z][^<>]*>/g;  // an HTML tag (a bare "<" as in "k < 4" is text)
const plain = (s) => s.replace(TAG, "");
const depth = (s) => (s.match(TAG) || []).reduce((d, t) => d + (t[1] === "/" ? -1 : t.endsWith("/>") ? 0 : 1), 0);
function wrapText(text, width) {  // break each <br> line at spaces, at most `width` visible characters a line
  return text.split(/<br\s*\/?>/i).map((line) => {
    const out = []; let cur = "";
    for (const w of line.split(" ")) {
      if (cur && plain(cur + " " + w).length > width && depth(cur) <= 0) { out.push(cur); cur = w; }
      else cur = cur ? cur + " " + w : w;
    }
    out.push(cur);
    return out.join("<br>");
  }).join("<br>");
}
async function clearMarks(P, div, fit) {
  try { await clearMarksOnce(P, div, fit); } catch (e) { console.warn("dpexplore: moving a legend or note failed", e); }
}
// A legend moved below or a note moved above takes height from the plot area: the figure grows by what the plot
// lost (a first panel fitted to the screen grows only as far as the screen allows), so axis titles keep their room.
async function clearMarksOnce(P, div, fit) {
  const fl0 = div._fullLayout;
  if (!fl0 || !fl0._size) return;
  const h0 = fl0._size.h;
  await placeMarks(P, div);
  const fl = div._fullLayout, lost = Math.round(h0 - fl._size.h);
  if (lost > 2 && fl.height) {
    div.__dpxExtra = (div.__dpxExtra || 0) + lost;
    const want = (div.__dpxWant || fl.height) + div.__dpxExtra;
    const h = fit ? fitHeight(div, want) : want;
    if (h > fl.height + 1) {
      await P.relayout(div, { height: h });
      await clearLegend(P, div);
    }
  }
}
async function placeMarks(P, div) {
  const lay = div.layout || {};
  for (let round = 0; round < 6; round++) {
    const fl = div._fullLayout, svg = div.querySelector(".main-svg");
    if (!fl || !fl._size || !svg) return;
    const s = svg.getBoundingClientRect();
    const rel = (el) => { const r = el.getBoundingClientRect();
      return { l: r.left - s.left, t: r.top - s.top, r: r.right - s.left, b: r.bottom - s.top,
               w: r.width, h: r.height }; };
    const pts = drawnPoints(div);
    const hit = (b) => pts.some(([x, y]) => x >= b.l - 2 && x <= b.r + 2 && y >= b.t - 2 && y <= b.b + 2);
    const upd = {};
    // 1. notes wider than the figure: wrapped to its width
    const anns = Array.from(div.querySelectorAll(".annotation"));
    for (const a of anns) {
      const i = Number(a.getAttribute("data-index")), ann = (lay.annotations || [])[i];
      const b = rel(a.querySelector(".annotation-text-g") || a);
      if (!ann || !ann.text || !b.w || (b.l >= -1 && b.r <= s.width + 1)) continue;
      const room = Math.max(120, s.width - Math.max(4, b.l) - 8);
      const longest = Math.max(...ann.text.split(/<br\s*\/?>/i).map((x) => plain(x).length));
      const orig = ann.dpxText || ann.text;  // wrapped again from the author's lines, not from an earlier wrap
      upd[`annotations[${i}].text`] = wrapText(orig, Math.max(20, Math.floor(longest * room / b.w) - 2));
      upd[`annotations[${i}].dpxText`] = orig;
      if (b.l < -1) { upd[`annotations[${i}].xanchor`] = "left"; upd[`annotations[${i}].x`] = 0;
                      upd[`annotations[${i}].xref`] = "paper"; }
    }
    if (Object.keys(upd).length) { await P.relayout(div, upd); continue; }
    // 2. a legend over points: the first free corner of the plot area, else below the plot
    const lg = div.querySelector(".legend");
    const others = anns.map((a) => rel(a.querySelector(".annotation-text-g") || a));
    const meets = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
    if (lg && hit(rel(lg)) && pts.length) {
      const b = rel(lg), z = fl._size, pad = 6;
      const spots = [[z.l + z.w - b.w - pad, z.t + pad], [z.l + pad, z.t + pad],
                     [z.l + z.w - b.w - pad, z.t + z.h - b.h - pad], [z.l + pad, z.t + z.h - b.h - pad]];
      const free = spots.map(([l, t]) => ({ l, t, r: l + b.w, b: t + b.h }))
        .find((c) => c.l >= z.l && c.t >= z.t && !hit(c) && !others.some((o) => meets(o, c)));
      if (free && b.w < z.w * 0.6 && b.h < z.h * 0.6) {
        Object.assign(upd, { "legend.x": (free.l - z.l) / z.w, "legend.xanchor": "left",
                             "legend.y": 1 - (free.t - z.t) / z.h, "legend.yanchor": "top" });
      } else {
        Object.assign(upd, { "legend.orientation": "h", "legend.x": 0, "legend.xanchor": "left",
                             "legend.y": -0.2, "legend.yanchor": "top" });
      }
      await P.relayout(div, upd);
      await clearLegend(P, div);
      continue;
    }
    // 3. notes over points or over the legend: above the plot area, stacked upwards, the title on top
    const moved = [];
    for (const a of anns) {
      const i = Number(a.getAttribute("data-index")), ann = (lay.annotations || [])[i];
      const full = (fl.annotations || [])[i];  // (plotly's default is an arrow: an arrow's label stays by its point)
      if (!ann || !full || full.showarrow || (ann.yref === "paper" && ann.y >= 1 && ann.yanchor === "bottom")) continue;
      const b = rel(a.querySelector(".annotation-text-g") || a);
      if (hit(b) || (lg && meets(b, rel(lg)))) moved.push([i, ann, b]);  // over points, or over the legend
    }
    if (!moved.length) return;
    let stack = 0;
    for (const a of anns) {  // notes moved up before (an earlier round) stay where they are
      const ann = (lay.annotations || [])[Number(a.getAttribute("data-index"))];
      if (ann && ann.yref === "paper" && ann.y >= 1 && ann.yanchor === "bottom" && ann.dpxMoved)
        stack = Math.max(stack, (ann.yshift || 0) + rel(a.querySelector(".annotation-text-g") || a).h + 2);
    }
    for (const [i, ann, b] of moved) {
      Object.assign(upd, { [`annotations[${i}].yref`]: "paper", [`annotations[${i}].y`]: 1,
                           [`annotations[${i}].yanchor`]: "bottom", [`annotations[${i}].yshift`]: stack + 2,
                           [`annotations[${i}].dpxMoved`]: true });
      if (ann.xref === "paper" || !ann.xref) Object.assign(upd, { [`annotations[${i}].x`]: 0,
                                                                  [`annotations[${i}].xanchor`]: "left",
                                                                  [`annotations[${i}].align`]: "left" });
      stack += b.h + 2;
    }
    const title = div.querySelector(".gtitle");
    const th = title ? title.getBoundingClientRect().height : 0;
    const top = (th ? th + 12 : 6) + stack + 4;
    const t0 = (lay.margin && lay.margin.t) || 0;
    if (top > t0) upd["margin.t"] = top;
    if (th) Object.assign(upd, { "title.yref": "container", "title.y": 1, "title.yanchor": "top",
                                 "title.pad.t": 8 });
    await P.relayout(div, upd);
  }
}
function attached(el) {  // plotly sizes a plot from its container: draw once it is in the page
  return new Promise((resolve) => {
    const t0 = performance.now();
    (function poll() {
      if (el.isConnected || performance.now() - t0 > WAIT_MS) return resolve();
      requestAnimationFrame(poll);
    })();
  });
}
export default {
  render({ model, el }) {
    const div = document.createElement("div");
    div.className = "dpx-plot";
    el.appendChild(div);
    let Plotly = null, ready = false, busy = false, again = false, alive = true;
    const fallback = (why) => {
      div.textContent = "";
      const p = document.createElement("div");
      p.className = "dpx-plot-fallback";
      p.style.cssText = "border:1px dashed #b7950b;background:#fef9e7;color:#5d4a05;padding:12px;margin:4px 0";
      p.textContent = "This plot cannot be drawn here: " + why + " " + (model.get("title") || "");
      div.appendChild(p);
    };
    // A first figure that is not drawn yet dims the panel (.dpx-stale, as while it is computed): the
    // page never looks finished with a plot still missing. (Redraws are dimmed by the kit meanwhile.)
    const pending = (on) => div.classList.toggle("dpx-stale", on && !div.classList.contains("js-plotly-plot"));
    const draw = async () => {
      if (model.get("figure")) pending(true);
      if (!ready) return;  // the first draw follows once plotly.js is there
      if (busy) { again = true; return; }  // one draw at a time; the newest figure wins
      busy = true;
      try {
        do {
          again = false;
          const text = model.get("figure");
          if (!alive || !text) break;
          if (!Plotly) { fallback("the page's plotting library (plotly.js) did not load; reload the page."); break; }
          let fig;
          try { fig = JSON.parse(text); } catch (e) { fallback("the figure is not valid JSON."); break; }
          if (div.querySelector(".dpx-plot-fallback")) div.textContent = "";
          const layout = fig.layout || {};
          div.__dpxWant = layout.height || 0;  // what the figure asks for, before any fit or growth
          div.__dpxExtra = 0;
          if (model.get("fit_screen") && layout.height) layout.height = fitHeight(div, layout.height);
          await Plotly.react(div, fig.data || [], layout, fig.config || {});
          await clearLegend(Plotly, div);
          await clearMarks(Plotly, div, model.get("fit_screen"));
        } while (again && alive);
      } catch (e) {
        fallback("plotly.js failed (" + String(e).slice(0, 200) + ").");
      } finally {
        busy = false;
        pending(false);
      }
    };
    let observer = null;
    if (model.get("figure")) pending(true);
    (async () => {
      await attached(el);
      Plotly = await plotlyReady();
      ready = true;
      if (!alive) return;
      await draw();
      pending(false);
      if (model.get("fit_screen")) {  // the widgets above may still be laying out: fit again once they settle
        for (const ms of [300, 1000, 2500]) {
          await sleep(ms);
          if (!alive || !div.classList.contains("js-plotly-plot")) continue;
          let want = 0;
          try { want = (JSON.parse(model.get("figure")).layout || {}).height || 0; } catch (e) {}
          const h = want ? fitHeight(div, want + (div.__dpxExtra || 0)) : 0;
          const now = div._fullLayout ? div._fullLayout.height : h;
          if (h && Math.abs(h - now) > 4) {
            await Plotly.relayout(div, { height: h });
            await clearLegend(Plotly, div);
            await clearMarks(Plotly, div, model.get("fit_screen"));
          }
        }
      }
      if (Plotly && window.ResizeObserver) {
        let w = el.clientWidth;
        observer = new ResizeObserver(() => {
          if (el.clientWidth !== w && div.classList.contains("js-plotly-plot")) {
            w = el.clientWidth;
            Plotly.Plots.resize(div).then(() => clearMarks(Plotly, div, model.get("fit_screen")));
          }
        });
        observer.observe(el);
      }
    })();
    model.on("change:figure", draw);
    return () => {
      alive = false;
      model.off("change:figure", draw);
      if (observer) observer.disconnect();
      if (Plotly) Plotly.purge(div);
    };
  },
};
""".replace("@WAIT@", str(PLOTLY_WAIT_MS))


class PlotPanel(anywidget.AnyWidget):
    """One dashboard panel's plot, redrawn in place with the page's ``Plotly.react``.

    Set :meth:`show` with a figure; the browser draws it. Client updates are refused.

    Examples
    --------
    >>> p = PlotPanel()
    >>> p.show(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), {"displaylogo": False})
    >>> '"displaylogo":false' in p.figure
    True
    >>> p.set_state({"figure": "{}"})  # what a browser could send: dropped
    >>> p.figure != "{}"
    True
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    #: the figure as plotly JSON text (kernel → browser only)
    figure = traitlets.Unicode("").tag(sync=True)
    #: said in the fallback text when the page cannot draw the plot
    title = traitlets.Unicode("").tag(sync=True)
    #: draw at most as high as the viewport leaves below the plot's top (the first panel: plot and legend
    #: on the first screen), and at least 340 px
    fit_screen = traitlets.Bool(False).tag(sync=True)

    def show(self, fig: go.Figure, config: Mapping | None = None) -> None:
        """Send ``fig`` (with plotly ``config``) to the browser, which redraws the panel in place."""
        self._last = (fig, dict(config or {}))
        text = fig.layout.title.text if fig.layout.title else ""
        self.title = f"({text})" if text else ""
        self.figure = figure_json(fig, config)

    def set_state(self, sync_data: Mapping[str, Any]) -> None:
        """Refuse every client update: the browser has nothing to set on this widget."""
        return None

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view, plus plotly's own bundle for renderers without the widget state."""
        out = super()._repr_mimebundle_(**kwargs)
        last = getattr(self, "_last", None)
        if last is None or out is None:
            return out
        data, meta = out if isinstance(out, tuple) else (out, None)
        data = {**plotly_mimebundle(*last), **data}
        return data if meta is None else (data, meta)
