"""Accessibility at kit level (WCAG 2.1 AA): every dashboard built on :class:`~dpexplore.ui.dashboard.Dashboard`
gets it, including dashboards added later.

* :class:`A11yBridge` — a small anywidget (ES module below, no dependency) that, in the page,

  - gives every control an accessible name (its label: the slider handles of ipywidgets 8 have
    none, the label is a separate element) and a description (its help text, the widget's tooltip),
    via ``aria-label`` / ``aria-describedby``; the slider handles (noUiSlider) already answer the
    arrow keys, PageUp/PageDown and Home/End;
  - gives every plot ``role="figure"``, its title as accessible name and its generated summary as
    description;
  - owns one polite live region (``role="status"``) into which it copies, when their text changes,
    the kit's status line ("Computing …", "Updated in …"), predict-then-reveal verdicts, audit
    verdicts, error boxes and the class poll's count;
  - adds a visible keyboard focus ring and keeps text contrast ≥ 4.5:1 while a panel is dimmed
    ("computing": opacity :data:`STALE_OPACITY`, checked by the tests with
    :func:`dpexplore.core.plottext.contrast_ratio`).

* :class:`PlotText` — under each plot: the summary (:func:`dpexplore.core.plottext.summarize`, from
  the numbers drawn, so it follows the sliders) and a "Data table" toggle listing the plotted numbers.
* :func:`style_series` — series told apart without colour: a marker symbol per palette colour (the
  dashboards give a mechanism the same colour in every panel, so it gets the same symbol
  everywhere), markers added to line-only traces, a fill pattern per bar series.
* :class:`A11yKit` — what a dashboard holds: the bridge and one :class:`PlotText` per panel.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Mapping
from typing import Any

import anywidget
import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
import traitlets

from ..core.plottext import Series, plain_text, summarize, table_rows
from .figures import COLORS

__all__ = [
    "SYMBOLS",
    "PATTERNS",
    "STALE_OPACITY",
    "ANNOUNCED",
    "A11Y_CSS",
    "figure_series",
    "figure_summary",
    "style_series",
    "table_html",
    "PlotText",
    "A11yBridge",
    "A11yKit",
]

#: marker symbol of the i-th palette colour (:data:`dpexplore.ui.figures.COLORS`), then of further series
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star", "pentagon",
           "hexagon", "star-square", "hourglass")
#: bar fill pattern of the i-th bar series
PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")
#: opacity of a panel while it is computing (``.dpx-stale``); text on it keeps contrast ≥ 4.5:1
STALE_OPACITY = 0.85
#: elements whose text changes the live region announces (CSS selectors)
ANNOUNCED = (".dpx-status", ".dpx-q-result", ".dpx-audit-verdict", ".dpx-poll-tally", ".dpx-poll-report",
             ".dpx-poll-done", ".dpx-error", ".dpx-announce")

A11Y_CSS = (
    # dimmed while computing, but readable: the kit's darkest-grey text keeps >= 4.5:1 (tests/ui/test_a11y.py)
    f".dpx-stale{{opacity:{STALE_OPACITY} !important;filter:saturate(0.35);outline:2px dashed #1f618d;"
    "outline-offset:-2px;cursor:progress}"
    # a visible keyboard focus everywhere
    "#rendered_cells :focus-visible,.jupyter-widgets :focus-visible,.noUi-handle:focus{outline:3px solid #0072B2 "
    "!important;outline-offset:2px !important;box-shadow:0 0 0 5px rgba(255,255,255,0.9)}"
    # the accordion header's grey (--jp-ui-font-color2 on --jp-layout-color2) is 4.45:1: darker
    ".jupyter-widget-Collapse-header{color:var(--jp-ui-font-color1,#212121) !important}"
    # ipywidgets' button_style colours with white text are 2.7-3.5:1 (info, warning): darker shades >= 5:1
    ".jupyter-button.mod-primary{background-color:#1565c0 !important;color:#fff !important}"
    ".jupyter-button.mod-info{background-color:#00707c !important;color:#fff !important}"
    ".jupyter-button.mod-success{background-color:#2e7d32 !important;color:#fff !important}"
    ".jupyter-button.mod-warning{background-color:#b45309 !important;color:#fff !important}"
    ".jupyter-button.mod-danger{background-color:#c62828 !important;color:#fff !important}"
    # links told from text by more than colour (WCAG 1.4.1)
    "#rendered_cells a[href]{text-decoration:underline}"
    ".dpx-sr-only{position:absolute !important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0}"
    # the generated summary is the plots' text alternative (aria-describedby): read by screen readers, not shown
    # (sighted readers have the plot, and the "Data table" toggle for its numbers)
    ".dpx-plot-summary{position:absolute !important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0}"
    ".dpx-data-table{border-collapse:collapse;font-size:0.85em;margin:0.3em 0;color:#222}"
    ".dpx-data-table th,.dpx-data-table td{border:1px solid #bbb;padding:1px 6px;text-align:right}"
    ".dpx-data-table th:first-child,.dpx-data-table td:first-child{text-align:left}"
    ".dpx-data-table caption{text-align:left;font-weight:bold;color:#222}"
    ".dpx-a11y-bridge{height:0;overflow:hidden;margin:0}"
)

_ESM = r"""
const ANNOUNCED = @ANNOUNCED@;
const CSS = @CSS@;
let counter = 0;
const uid = (p) => p + "-" + Date.now().toString(36) + "-" + (counter++);
const text = (e) => (e && (e.innerText || e.textContent) || "").replace(/\s+/g, " ").trim();

function liveRegion() {
  let r = document.getElementById("dpx-live");
  if (!r) {
    r = document.createElement("div");
    r.id = "dpx-live";
    r.className = "dpx-sr-only";
    r.setAttribute("role", "status");
    r.setAttribute("aria-live", "polite");
    r.setAttribute("aria-atomic", "false");
    r.setAttribute("aria-relevant", "additions text");
    document.body.appendChild(r);
  }
  return r;
}

function say(message) {  // each announcement its own node: a quick second one does not cut the first
  const r = liveRegion();
  const p = document.createElement("div");
  p.textContent = message.slice(0, 600);
  r.appendChild(p);
  while (r.childNodes.length > 4) r.removeChild(r.firstChild);
}

function describe(el, target, tip) {  // the control's help text as its accessible description
  if (!tip || !target || target.getAttribute("aria-describedby")) return;
  let d = el.querySelector(":scope > .dpx-sr-only.dpx-desc");
  if (!d) {
    d = document.createElement("span");
    d.className = "dpx-sr-only dpx-desc";
    d.id = uid("dpx-desc");
    d.textContent = tip;
    el.appendChild(d);
  }
  target.setAttribute("aria-describedby", d.id);
}

function nameControls(root) {
  for (const el of root.querySelectorAll(".widget-slider, .widget-hslider, .widget-vslider")) {
    const label = text(el.querySelector(".widget-label")) || el.getAttribute("title") || "slider";
    const tip = el.getAttribute("title") || "";
    const readout = el.querySelector(".widget-readout");
    // the value as shown (a log slider's aria-valuenow is its log10 exponent: "-0.0" at ε = 1)
    const shown = readout ? text(readout) : "";
    for (const h of el.querySelectorAll(".noUi-handle")) {
      if (h.getAttribute("aria-label") !== label) h.setAttribute("aria-label", label);
      if (shown && h.getAttribute("aria-valuetext") !== shown) h.setAttribute("aria-valuetext", shown);
      describe(el, h, tip);
    }
    if (readout && !readout.getAttribute("aria-label")) {
      readout.setAttribute("aria-label", label + " (type a value)");
      readout.setAttribute("role", "textbox");
    }
  }
  for (const el of root.querySelectorAll(".widget-inline-hbox, .widget-dropdown, .widget-text, .widget-textarea, "
                                         + ".widget-checkbox, .widget-toggle-buttons, .widget-radio")) {
    const label = text(el.querySelector(":scope > .widget-label"));
    const tip = el.getAttribute("title") || "";
    for (const c of el.querySelectorAll("select, input, textarea")) {
      // the label, else the tooltip, else the placeholder or a dropdown's first ("— choose … —") option
      const first = c.tagName === "SELECT" && c.options.length ? c.options[0].text.replace(/[—–]/g, "").trim() : "";
      const name = label || tip || c.getAttribute("placeholder") || first;
      const labelled = Array.from(c.labels || []).some((l) => text(l));  // an empty <label for> names nothing
      if (!c.getAttribute("aria-label") && !labelled && name) c.setAttribute("aria-label", name);
      if (c.type !== "radio") describe(el, c, tip);
    }
    const group = el.querySelector(".widget-radio-box, .widget-toggle-buttons > div:not(.widget-label)");
    if (group && label && !group.getAttribute("aria-label")) {
      group.setAttribute("role", group.classList.contains("widget-radio-box") ? "radiogroup" : "group");
      group.setAttribute("aria-label", label);
    }
  }
  for (const b of root.querySelectorAll("button.jupyter-button, .jupyter-widgets button")) {
    const tip = b.getAttribute("title") || "";
    if (!text(b) && !b.getAttribute("aria-label") && tip) b.setAttribute("aria-label", tip);
    if (tip && tip !== text(b)) describe(b.parentElement || b, b, tip);
  }
}

function toolbars(root) {  // a plot's toolbar is one tab stop; the arrow keys move inside it (roving tabindex)
  for (const bar of root.querySelectorAll(".modebar")) {
    const btns = Array.from(bar.querySelectorAll("a.modebar-btn, button.modebar-btn"));
    if (!btns.length) continue;
    if (!btns.some((b) => b.getAttribute("tabindex") === "0")) btns[0].setAttribute("tabindex", "0");
    for (const b of btns) if (b.getAttribute("tabindex") !== "0") b.setAttribute("tabindex", "-1");
    if (!bar.getAttribute("role")) {
      bar.setAttribute("role", "toolbar");
      bar.setAttribute("aria-label", "plot tools");
    }
    if (bar.__dpxRoving) continue;
    bar.__dpxRoving = true;
    bar.addEventListener("keydown", (ev) => {
      const all = Array.from(bar.querySelectorAll("a.modebar-btn, button.modebar-btn"));
      const i = all.indexOf(document.activeElement);
      if (i < 0 || !["ArrowRight", "ArrowLeft", "Home", "End"].includes(ev.key)) return;
      const j = ev.key === "Home" ? 0 : ev.key === "End" ? all.length - 1
        : (i + (ev.key === "ArrowRight" ? 1 : all.length - 1)) % all.length;
      all[i].setAttribute("tabindex", "-1");
      all[j].setAttribute("tabindex", "0");
      all[j].focus();
      ev.preventDefault();
    });
  }
}

function namePlots(root) {
  for (const s of root.querySelectorAll(".dpx-plot-summary[data-panel]")) {
    const panel = s.closest(".dpx-panel");
    if (!panel) continue;
    const plot = panel.querySelector(".js-plotly-plot") || panel.querySelector(".dpx-plot");
    if (!plot) continue;
    const name = s.getAttribute("data-title") || "plot";
    if (plot.getAttribute("role") !== "figure") plot.setAttribute("role", "figure");
    if (plot.getAttribute("aria-label") !== name) plot.setAttribute("aria-label", name);
    if (plot.getAttribute("aria-describedby") !== s.id) plot.setAttribute("aria-describedby", s.id);
  }
}

const said = new WeakMap();  // per widget: the text last seen
// what the page shows while it loads (its first 3 s, before any key or click) is not announced
const T0 = performance.now();
let interacted = false;
for (const ev of ["keydown", "pointerdown"]) document.addEventListener(ev, () => { interacted = true; }, true);
function announce(root) {
  const now = new Map();
  for (const el of root.querySelectorAll(ANNOUNCED.join(","))) {
    const key = el.closest(".jupyter-widgets") || el;  // a widget's element outlives its (re-rendered) content
    now.set(key, ((now.get(key) || "") + " " + text(el)).trim());
  }
  const parts = [];
  for (const [key, t] of now) {
    if (said.get(key) === t) continue;
    const first = !said.has(key);
    said.set(key, t);
    if (t && !(first && !interacted && performance.now() - T0 < 3000)) parts.push(t);
  }
  for (const t of parts) say(t);
}

function patch() {
  const root = document.getElementById("rendered_cells") || document.body;
  nameControls(root);
  namePlots(root);
  toolbars(root);
  announce(root);
}

function install() {
  if (window.__dpxA11y) return;
  window.__dpxA11y = { runs: 0 };  // installed once per page; runs: how often the page was patched
  const style = document.createElement("style");
  style.id = "dpx-a11y-css";
  style.textContent = CSS;
  document.head.appendChild(style);
  liveRegion();
  let queued = false;
  const run = () => {
    queued = false;
    window.__dpxA11y.runs++;
    try { patch(); } catch (e) { console.warn("dpexplore a11y:", e); }
  };
  // one patch per burst of DOM changes (60 ms debounce)
  new MutationObserver(() => { if (!queued) { queued = true; setTimeout(run, 60); } })
    .observe(document.body, { childList: true, subtree: true, characterData: true });
  run();
}

export default {
  render({ model, el }) {
    el.classList.add("dpx-a11y-bridge");
    install();
    const speak = () => { const m = model.get("message"); if (m) say(m); };
    model.on("change:serial", speak);
    return () => model.off("change:serial", speak);
  },
};
"""


class A11yBridge(anywidget.AnyWidget):
    """The page-side half of the kit's accessibility (see the module docstring); one per dashboard.

    :meth:`say` puts a message into the page's polite live region. Client updates are refused.

    Examples
    --------
    >>> b = A11yBridge()
    >>> b.say("Updated."); b.message, b.serial
    ('Updated.', 1)
    >>> b.set_state({"message": "<script>"}); b.message
    'Updated.'
    """

    _esm = traitlets.Unicode(_ESM.replace("@ANNOUNCED@", repr(list(ANNOUNCED)).replace("'", '"'))
                             .replace("@CSS@", repr(A11Y_CSS))).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    serial = traitlets.Int(0).tag(sync=True)

    def say(self, text: str) -> None:
        """Announce ``text`` (plain text, at most 600 characters) politely."""
        self.message = plain_text(text)[:600]
        self.serial += 1

    def set_state(self, sync_data: Mapping[str, Any]) -> None:
        """Refuse every client update: the browser has nothing to set on this widget."""
        return None


# -- figures -> series ------------------------------------------------------------------------
def _axis_title(fig: go.Figure, ref: str | None, letter: str) -> str:
    name = letter + "axis" + (ref[1:] if ref and len(ref) > 1 else "")
    axis = fig.layout[name] if name in fig.layout else None
    return plain_text(axis.title.text) if axis is not None and axis.title and axis.title.text else ""


def _values(v: Any) -> list:
    if v is None:
        return []
    if isinstance(v, np.ndarray):
        return v.ravel().tolist()
    return list(v)


def figure_series(fig: go.Figure) -> list[Series]:
    """The data series a figure draws, for :func:`~dpexplore.core.plottext.summarize` and the data table.

    A shaded confidence band (a ``fill="toself"`` trace named ``"<name> band"``, as
    :func:`~dpexplore.ui.figures.add_measured` draws it) becomes the ``lower``/``upper`` of its series;
    traces that are not drawn (``visible=False``) or have no finite value are left out.

    Examples
    --------
    >>> from dpexplore.ui.figures import base_figure, add_measured
    >>> fig = add_measured(base_figure("t", "ε", "error"), [1, 2], [0.5, 0.2], [0.4, 0.1], [0.6, 0.3],
    ...                    name="A", color="#0072B2", trials=5)
    >>> [(s.name, s.y, s.lower) for s in figure_series(fig)]
    [('A (measured, mean ± 95% CI over 5 trials)', [0.5, 0.2], [0.4, 0.1])]
    """
    bands: dict[str, tuple[list, list]] = {}
    out: list[Series] = []
    for tr in fig.data:
        if tr.visible is False or tr.visible == "legendonly":
            continue
        xt = _axis_title(fig, getattr(tr, "xaxis", None), "x")
        yt = _axis_title(fig, getattr(tr, "yaxis", None), "y")
        if tr.type == "heatmap":
            rows = tr.z if tr.z is not None else []
            out.append(Series(plain_text(tr.name) or "heatmap", kind="heatmap", z=[_values(r) for r in rows],
                              x_title=xt, y_title=yt))
            continue
        if tr.type == "histogram":
            out.append(Series(plain_text(tr.name) or "histogram", x=_values(tr.x), kind="histogram", x_title=xt))
            continue
        if tr.type not in ("scatter", "scattergl", "bar"):
            continue
        x, y = _values(tr.x), _values(tr.y)
        if tr.type == "bar" and getattr(tr, "orientation", None) == "h":
            x, y, xt, yt = y, x, yt, xt
        if tr.type == "scatter" and tr.fill == "toself" and (tr.name or "").endswith(" band"):
            n = len(x) // 2
            # add_measured draws the upper ends left to right, then the lower ends right to left
            bands[tr.legendgroup or tr.name[: -len(" band")]] = (x[:n], y[n:][::-1], y[:n])
            continue
        if not y:
            continue
        out.append(Series(plain_text(tr.name) or f"series {len(out) + 1}", x=x, y=y,
                          kind="bar" if tr.type == "bar" else "line", x_title=xt, y_title=yt))
        group = getattr(tr, "legendgroup", None)
        band = bands.get(group) if group else None
        if band is not None and len(band[0]) == len(x) and list(band[0]) == list(x):
            xs, lo, hi = band
            out[-1] = Series(out[-1].name, x=x, y=y, kind="line", x_title=xt, y_title=yt, lower=lo, upper=hi)
    return out


def figure_summary(fig: go.Figure, title: str = "") -> str:
    """The plot's text alternative at these settings (its title, else ``title``, and one clause per series)."""
    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else title
    notes = [plain_text(a.text) for a in (fig.layout.annotations or ()) if a.text]
    text = summarize(title, figure_series(fig))
    return text + (" Notes in the plot: " + " ".join(notes) if notes else "")


def style_series(fig: go.Figure) -> go.Figure:
    """Make the series of ``fig`` distinguishable without colour (in place; see the module docstring).

    A trace keeps a marker symbol or bar pattern a dashboard set itself.

    Examples
    --------
    >>> fig = go.Figure([go.Scatter(x=[1, 2], y=[1, 2], mode="lines", line={"color": COLORS[1]}),
    ...                  go.Scatter(x=[1, 2], y=[2, 3], mode="lines+markers", line={"color": COLORS[0]})])
    >>> [(t.mode, t.marker.symbol) for t in style_series(fig).data]
    [('lines+markers', 'square'), ('lines+markers', 'circle')]
    """
    extra = itertools.count(len(COLORS))
    seen: dict[str, int] = {}
    bars = 0
    for tr in fig.data:
        if tr.type == "bar":
            if tr.marker.pattern.shape is None and len([t for t in fig.data if t.type == "bar"]) > 1:
                tr.marker.pattern.shape = PATTERNS[bars % len(PATTERNS)]
            bars += 1
            continue
        if tr.type not in ("scatter", "scattergl") or tr.fill in ("toself", "tonexty", "tozeroy", "tonextx"):
            continue
        mode = tr.mode or "lines+markers"
        if "lines" not in mode and "markers" not in mode:
            continue
        color = tr.line.color if isinstance(tr.line.color, str) else tr.marker.color
        key = color.upper() if isinstance(color, str) else f"trace-{id(tr)}"
        if key not in seen:
            palette = [c.upper() for c in COLORS]
            seen[key] = palette.index(key) if key in palette else next(extra)
        symbol = SYMBOLS[seen[key] % len(SYMBOLS)]
        if tr.marker.symbol is None:
            tr.marker.symbol = symbol
        if "markers" not in mode:  # a line-only theory curve: sparse markers on it and in its legend
            tr.mode = mode + "+markers"
            n = len(tr.x) if tr.x is not None else 0
            tr.marker.update(size=7, maxdisplayed=12 if n > 12 else None,
                             color=tr.marker.color if tr.marker.color is not None else color)
    return fig


def table_html(title: str, fig: go.Figure) -> str:
    """The plotted numbers of ``fig`` as an HTML table with a caption and column headers."""
    header, rows, left = table_rows(figure_series(fig))
    if not rows:
        return "<p class='dpx-data-empty'>No numbers are plotted at these settings.</p>"
    head = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    more = f"<p>{left} further rows are not listed (the CSV has them).</p>" if left else ""
    return (f"<table class='dpx-data-table'><caption>Data plotted in “{html.escape(plain_text(title))}”</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}")


_ids = itertools.count(1)


class PlotText(widgets.VBox):
    """Under a plot: its generated summary and a "Data table" toggle showing the plotted numbers.

    Examples
    --------
    >>> t = PlotText("Error vs ε")
    >>> t.update(go.Figure(go.Scatter(x=[1, 2], y=[0.5, 0.1], name="A"), layout={"title": "Error vs ε"}))
    >>> "A: falls from 0.5 at x = 1 to 0.1 at x = 2" in t.summary_text
    True
    >>> t.toggle.value = True; "<table" in t.table.value
    True
    """

    def __init__(self, title: str) -> None:
        self.title = plain_text(title)
        self.dom_id = f"dpx-sum-{next(_ids)}"
        self.summary_text = ""
        self._fig: go.Figure | None = None
        self.summary = widgets.HTML()
        self.toggle = widgets.ToggleButton(value=False, description="Data table",
                                           tooltip=f"Show the numbers plotted in {self.title}")
        self.toggle.add_class("dpx-data-toggle")
        self.table = widgets.HTML()
        self.table.add_class("dpx-data")
        self.toggle.observe(lambda _: self._fill_table(), names="value")
        super().__init__([self.summary, self.toggle, self.table], layout=widgets.Layout(margin="0 0 0.4em 0"))
        self.add_class("dpx-plot-text")

    def update(self, fig: go.Figure) -> None:
        """Describe ``fig`` (the figure just drawn) and, if the table is open, list its numbers."""
        self._fig = fig
        self.summary_text = figure_summary(fig, self.title)
        value = (f"<p class='dpx-plot-summary' id='{self.dom_id}' data-panel='1' "
                 f"data-title='{html.escape(self.title, quote=True)}'>{html.escape(self.summary_text)}</p>")
        if self.summary.value != value:
            self.summary.value = value
        self._fill_table()

    def _fill_table(self) -> None:
        value = table_html(self.title, self._fig) if self.toggle.value and self._fig is not None else ""
        if self.table.value != value:
            self.table.value = value


class A11yKit:
    """A dashboard's accessibility parts: the :class:`A11yBridge` and a :class:`PlotText` per panel.

    The dashboard lays out each panel's plot through :meth:`plot_with_text` (its summary and data table
    go right under it), puts its header through :meth:`with_bridge`, and calls :meth:`figure_shown`
    with each figure just before it is sent to the page.
    """

    def __init__(self, dashboard) -> None:
        self.dashboard = dashboard
        self.bridge = A11yBridge(layout=widgets.Layout(height="0px", overflow="hidden"))
        self.texts: dict[str, PlotText] = {}
        status = getattr(dashboard, "_status", None)
        if status is not None:
            status.add_class("dpx-status")

    def text_widget(self, panel_name: str) -> PlotText:
        """The summary + data table widget of panel ``panel_name`` (created once)."""
        w = self.texts.get(panel_name)
        if w is None:
            title = next((p.title for p in self.dashboard.panels if p.name == panel_name), panel_name)
            w = self.texts[panel_name] = PlotText(title)
        return w

    def plot_with_text(self, panel_name: str, plot: widgets.Widget) -> widgets.VBox:
        """The panel's plot widget with its summary and data table right under it, in one box."""
        return widgets.VBox([plot, self.text_widget(panel_name)], layout=widgets.Layout(width="100%"))

    def with_bridge(self, header: widgets.Widget) -> widgets.VBox:
        """``header`` with the bridge under it (every page keeps its header: the bridge is on every page)."""
        return widgets.VBox([header, self.bridge])

    def panel_box(self, panel_name: str, box: widgets.Widget) -> widgets.Widget:
        """Mark ``box`` as the panel's container (the page names the plot inside it)."""
        box.add_class("dpx-panel")
        return box

    def figure_shown(self, panel_name: str, fig: go.Figure) -> None:
        """Style ``fig``'s series for readers without colour and update the panel's summary and table."""
        try:
            style_series(fig)
            self.text_widget(panel_name).update(fig)
        except Exception as exc:  # noqa: BLE001 - the plot is still drawn; the page and the log say what failed
            failed = getattr(self.dashboard, "_callback_failed", None)
            if failed is None:
                raise
            failed(exc)
