"""Pure plotly figure builders (data in, ``go.Figure`` out): testable without a kernel.

Conventions every dashboard follows:

* measured Monte-Carlo results are a solid line with markers plus a shaded confidence band,
  named ``"<mechanism> (measured, mean ± 95% CI, T trials)"``;
* theory is dashed/dotted and its name says what it is: ``[exact]``, ``[bound]`` (explicit
  constants), ``[rate, constant c]`` (an Õ-rate drawn with a stated constant — never fitted to
  the data it is compared with) or ``[approximation]``;
* the curve a panel is about (``headline=True``) is visibly the headline: drawn last, thicker than every
  other curve (:data:`HEADLINE_WIDTH`), in a colour no other curve of the panel uses (:data:`HEADLINE_COLOR`);
  :func:`finalize_figure` enforces it;
* plot text is at least 12 px (16 px in presentation mode, :func:`style_text`), and TeX-style ``_{…}``,
  ``^{…}`` and single-letter subscripts (``θ_t``) are shown as HTML sub/superscripts, never raw.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

__all__ = [
    "COLORS",
    "THEORY_KINDS",
    "color_for",
    "base_figure",
    "add_measured",
    "add_theory",
    "add_note",
    "message_figure",
    "PLOTLY_MIMETYPE",
    "plotly_mimebundle",
    "figure_json",
    "display_output",
    "readable_log_ticks",
    "tex_to_html",
    "finalize_figure",
    "style_text",
    "HEADLINE_COLOR",
    "HEADLINE_WIDTH",
    "is_headline",
    "mark_headline",
]

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"

# Okabe–Ito palette: distinguishable for colour-blind readers (black is kept for the headline curve).
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C8C8C", "#B8860B")
#: the headline curve of a panel: its own colour (no other curve uses it) and width
HEADLINE_COLOR = "#000000"
HEADLINE_WIDTH = 4.5
#: plot text sizes (px): (normal, presentation mode)
TEXT_PX = {"base": (13, 16), "legend": (12, 16), "note": (12, 16), "title": (15, 19), "table": (12, 16)}
THEORY_KINDS = {
    "exact": ("solid", "exact"),
    "bound": ("dash", "bound"),
    "rate": ("dot", "rate"),
    "approximation": ("dashdot", "approximation"),
}


def color_for(index: int) -> str:
    """The ``index``-th colour of the palette (cycles)."""
    return COLORS[index % len(COLORS)]


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def base_figure(
    title: str,
    x_title: str,
    y_title: str,
    *,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 400,
    width: int | None = None,
) -> go.Figure:
    """An empty figure with the house layout (white template, legend below, axis titles).

    The layout without its three texts and its template is built once per (log_x, log_y, height, width) and
    copied, and the registered template is set as plotly sets its default one (:func:`_set_template`): building
    it afresh validated the whole ``plotly_white`` template, 15-20 ms of every panel's redraw.

    Examples
    --------
    >>> fig = base_figure("Error", "ε", "error", log_x=True)
    >>> fig.layout.xaxis.type, fig.layout.xaxis.title.text, fig.layout.title.text
    ('log', 'ε', 'Error')
    """
    fig = go.Figure(layout=_house_layout(bool(log_x), bool(log_y), height, width))  # a copy, without the template
    _set_template(fig, "plotly_white")
    fig.layout.title.text = title
    fig.layout.xaxis.title.text = x_title
    fig.layout.yaxis.title.text = y_title
    return fig


def _set_template(fig: go.Figure, name: str) -> None:
    """Give ``fig`` a registered plotly template the way plotly gives every new figure its default template
    (``BaseFigure._initialize_layout_template``: a registered template is already validated, so it is set with
    validation off); plotly's public path re-validates the whole template (about 8 ms per figure)."""
    import plotly.io as pio

    layout = getattr(fig, "_layout_obj", None)
    if layout is None or not hasattr(layout, "_validate"):  # another plotly: the public path
        fig.update_layout(template=name)
        return
    layout._validate = False
    try:
        layout.template = pio.templates[name]
    finally:
        layout._validate = True


@functools.lru_cache(maxsize=64)
def _house_layout(log_x: bool, log_y: bool, height: int, width: int | None) -> go.Layout:
    fig = go.Figure()
    fig.update_layout(
        title={"text": "", "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        height=height,
        width=width,
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0, "font": {"size": TEXT_PX["legend"][0]},
                "tracegroupgap": 0},
        font={"size": TEXT_PX["base"][0]},
        hovermode="closest",
    )
    fig.update_xaxes(title_text="", type="log" if log_x else "linear", showline=True, linecolor="#888",
                     exponentformat="power" if log_x else "B", automargin=True)
    fig.update_yaxes(title_text="", type="log" if log_y else "linear", showline=True, linecolor="#888",
                     exponentformat="power" if log_y else "B", automargin=True)
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)  # set per figure by _set_template
    return go.Layout(layout)


def add_measured(
    fig: go.Figure,
    x: Sequence[float],
    mean: Sequence[float],
    lower: Sequence[float] | None = None,
    upper: Sequence[float] | None = None,
    *,
    name: str,
    color: str,
    trials: int | None = None,
    row: int | None = None,
    col: int | None = None,
    showlegend: bool = True,
    headline: bool = False,
) -> go.Figure:
    """Add a measured curve: mean with markers, and (if given) its confidence band shaded.

    ``headline=True``: the curve the panel is about (drawn last, thick, in :data:`HEADLINE_COLOR`).
    """
    if headline:
        color = HEADLINE_COLOR
    x = np.asarray(x, dtype=float)
    mean = np.asarray(mean, dtype=float)
    label = f"{name} (measured" + (f", mean ± 95% CI over {trials} trials)" if trials else ")")
    kw = {} if row is None else {"row": row, "col": col}
    if lower is not None and upper is not None:
        lo = np.asarray(lower, dtype=float)
        hi = np.asarray(upper, dtype=float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        yaxis = fig.layout.yaxis if row is None else fig.get_subplot(row, col).yaxis
        if yaxis.type == "log":
            ok &= (lo > 0) & (hi > 0)
        if ok.any():
            xs = np.concatenate([x[ok], x[ok][::-1]])
            ys = np.concatenate([hi[ok], lo[ok][::-1]])
            fig.add_trace(
                go.Scatter(x=xs, y=ys, mode="lines", fill="toself", fillcolor=_rgba(color, 0.18), line={"width": 0},
                           hoverinfo="skip", showlegend=False, legendgroup=name, name=f"{name} band"),
                **kw,
            )
    fig.add_trace(
        go.Scatter(x=x, y=mean, mode="lines+markers", name=label, legendgroup=name, showlegend=showlegend,
                   line={"color": color, "width": 2}, marker={"size": 6, "color": color}),
        **kw,
    )
    if headline:
        mark_headline(fig.data[-1])
    return fig


def add_theory(
    fig: go.Figure,
    x: Sequence[float],
    y: Sequence[float],
    *,
    name: str,
    kind: str,
    color: str,
    note: str = "",
    row: int | None = None,
    col: int | None = None,
    showlegend: bool = True,
    headline: bool = False,
) -> go.Figure:
    """Add a theory curve whose legend says whether it is exact, a bound, a rate or an approximation.

    ``note`` is appended (e.g. ``"constant 1, anchored nowhere"`` or ``"Thm 1.1"``). NaN values (a
    theorem whose conditions fail there) leave gaps rather than misleading lines. ``headline=True``: the
    curve the panel is about (see :func:`mark_headline`).
    """
    if kind not in THEORY_KINDS:
        raise ValueError(f"kind must be one of {list(THEORY_KINDS)}; got {kind!r}")
    dash, word = THEORY_KINDS[kind]
    label = f"{name} [{word}{', ' + note if note else ''}]"
    kw = {} if row is None else {"row": row, "col": col}
    fig.add_trace(
        go.Scatter(x=np.asarray(x, dtype=float), y=np.asarray(y, dtype=float), mode="lines", name=label,
                   showlegend=showlegend, line={"color": color, "width": 2, "dash": dash}, connectgaps=False),
        **kw,
    )
    if headline:
        mark_headline(fig.data[-1])
    return fig


def mark_headline(trace) -> None:
    """Make ``trace`` its panel's headline curve: :func:`finalize_figure` draws it last, thick, in
    :data:`HEADLINE_COLOR` (with its band, if it has one).

    Examples
    --------
    >>> fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name="a"), go.Scatter(x=[0, 1], y=[1, 0], name="b")])
    >>> mark_headline(fig.data[0])
    >>> [t.name for t in finalize_figure(fig).data], fig.data[-1].line.width
    (['b', 'a'], 4.5)
    """
    meta = dict(trace.meta) if isinstance(trace.meta, dict) else {}
    meta["dpx_headline"] = True
    trace.meta = meta


def is_headline(trace) -> bool:
    """True for a trace marked with :func:`mark_headline`."""
    return isinstance(trace.meta, dict) and bool(trace.meta.get("dpx_headline"))


#: an HTML tag in plot text (a bare ``<`` as in "k < 4" is text, not a tag)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def _tag_depth(text: str) -> int:
    """How many HTML tags are open at the end of ``text`` (never break a line inside ``<sup>…</sup>``)."""
    return sum(-1 if t.startswith("</") else 0 if t.endswith("/>") else 1 for t in _TAG.findall(text))


def _wrap(text: str, width: int = 95) -> str:
    """Break each ``<br>``-separated line of ``text`` at spaces so no line is longer than ``width`` characters
    (plotly does not wrap annotations: a long note ran off the plot's right edge). A bare ``<`` is text.

    Examples
    --------
    >>> _wrap("grows like √k for k < 4.75, like k beyond; e<sup>ε − 1</sup> and more", width=30)
    'grows like √k for k < 4.75,<br>like k beyond; e<sup>ε − 1</sup> and more'
    """
    out = []
    for line in text.split("<br>"):
        words, cur = line.split(" "), ""
        for w in words:
            if cur and len(_TAG.sub("", cur + " " + w)) > width and _tag_depth(cur) <= 0:
                out.append(cur)
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        out.append(cur)
    return "<br>".join(out)


def add_note(fig: go.Figure, text: str, *, y: float = 1.0) -> go.Figure:
    """A small grey note in the top-left corner of the plot area (e.g. why a curve is missing), wrapped.

    Examples
    --------
    >>> _wrap("a " * 60, width=20).count("<br>")
    5
    """
    text = _wrap(text)
    # anchored inside the plot area: a low note rests on the x axis (never on its tick labels)
    fig.add_annotation(text=text, xref="paper", yref="paper", x=0.0, y=y, xanchor="left",
                       yanchor="top" if y >= 0.5 else "bottom",
                       showarrow=False, font={"size": TEXT_PX["note"][0], "color": "#555"}, align="left",
                       bgcolor="rgba(255,255,255,0.8)")
    return fig


def message_figure(title: str, message: str, *, height: int = 300) -> go.Figure:
    """A figure that only says something (used when a panel cannot be drawn for these settings)."""
    fig = base_figure(title, "", "", height=height)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.add_annotation(text=message, xref="paper", yref="paper", x=0.5, y=0.5, showarrow=False,
                       font={"size": 13, "color": "#444"})
    return fig


def plotly_mimebundle(fig: go.Figure, config: Mapping | None = None) -> dict:
    """The display bundle ``fig.show(renderer="plotly_mimetype", config=config)`` would publish.

    Built directly: ``fig.show`` first imports plotly.io's renderer framework (nbformat, jsonschema and
    their grammars: 1.4–1.6 s and ~20 MiB per kernel, measured), for a bundle that is this one, byte for
    byte (tested against plotly's own ``PlotlyRenderer``).

    Examples
    --------
    >>> b = plotly_mimebundle(go.Figure(go.Scatter(x=[1], y=[2])), {"displaylogo": False})
    >>> sorted(b[PLOTLY_MIMETYPE])
    ['config', 'data', 'layout']
    """
    return {PLOTLY_MIMETYPE: json.loads(figure_json(fig, config))}


def figure_json(fig: go.Figure, config: Mapping | None = None) -> str:
    """The figure as plotly JSON text (``data``, ``layout`` and, if given, ``config``).

    What :func:`plotly_mimebundle` publishes and :class:`~dpexplore.ui.plotpanel.PlotPanel` sends.

    Examples
    --------
    >>> sorted(json.loads(figure_json(go.Figure(go.Scatter(x=[1], y=[2])), {"displaylogo": False})))
    ['config', 'data', 'layout']
    """
    fig_dict = fig.to_dict()
    if config:
        fig_dict["config"] = dict(config)
    return to_json_plotly(fig_dict)


def display_output(bundle: Mapping) -> tuple[dict]:
    """An ``ipywidgets.Output.outputs`` value showing one display bundle.

    Assigning it to ``Output.outputs`` replaces what the Output shows in one state update; the
    ``with out: display(...)`` route makes the browser upload the whole redrawn Output state and the
    kernel echo it back on every redraw (0.35–1.3 MB per slider move, measured).
    """
    return ({"output_type": "display_data", "data": dict(bundle), "metadata": {}},)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _tick_label(v: float) -> str:
    if 1e-3 <= v < 1e5:
        return f"{v:g}"
    mant, exp = f"{v:.0e}".split("e")
    power = "10" + str(int(exp)).translate(_SUPERSCRIPT)
    return power if mant == "1" else f"{mant}·{power}"


def readable_log_ticks(fig: go.Figure, *, max_decades: float = 4.0) -> go.Figure:
    """Give every log axis spanning at most ``max_decades`` decades full tick labels (in place).

    Plotly labels a short log axis with bare digits between the decades ("3 4 5 … 9 1 2 3"), so 0.3
    reads as "3". Here such an axis gets explicit ticks at 1, 2, 3, 5 (1, 2, 5 beyond 1.3 decades, 1, 3 beyond
    2.5) times
    each power of ten inside the data's range, each labelled with its whole value ("0.3", "2·10⁻⁶").
    Longer axes keep plotly's decade labels, which are unambiguous. Axes with their own ``tickvals``
    are left alone.

    Examples
    --------
    >>> fig = base_figure("t", "x", "y", log_x=True)
    >>> _ = fig.add_trace(go.Scatter(x=[0.2, 0.5, 2.0], y=[1, 2, 3]))
    >>> list(readable_log_ticks(fig).layout.xaxis.ticktext)
    ['0.2', '0.3', '0.5', '1', '2']
    """
    spans: dict[str, list[float]] = {}
    for tr in fig.data:
        for letter in ("x", "y"):
            ref = getattr(tr, f"{letter}axis", None) or letter
            vals = getattr(tr, letter, None)
            if vals is None:
                continue
            try:
                arr = np.asarray(vals, dtype=float).ravel()
            except (TypeError, ValueError):
                continue
            arr = arr[np.isfinite(arr) & (arr > 0)]
            if arr.size:
                lo, hi = spans.get(ref, [np.inf, -np.inf])
                spans[ref] = [min(lo, float(arr.min())), max(hi, float(arr.max()))]
    for ref, (lo, hi) in spans.items():
        name = ref[0] + "axis" + ref[1:]
        axis = fig.layout[name] if name in fig.layout else None
        if axis is None or axis.type != "log" or axis.tickvals is not None:
            continue
        decades = np.log10(hi) - np.log10(lo)
        if decades > max_decades:
            if axis.dtick is None:  # decade labels only (plotly's "2", "5" minor labels are 9 px), at most ~7
                axis.update(dtick=max(1, int(np.ceil(decades / 7))))
            continue
        mantissas = (1, 2, 3, 5) if decades <= 1.3 else (1, 2, 5) if decades <= 2.5 else (1, 3)
        ticks = [m * 10.0**e for e in range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
                 for m in mantissas]
        pad = 10 ** (0.05 * max(decades, 0.2))  # keep the nearest ticks just outside the data
        inside = [t for t in ticks if lo / pad <= t <= hi * pad]
        if len(inside) < 2:  # a very short range: add the neighbours so there is a scale
            below = [t for t in ticks if t < lo][-1:]
            above = [t for t in ticks if t > hi][:1]
            inside = below + inside + above
        axis.update(tickmode="array", tickvals=inside, ticktext=[_tick_label(t) for t in inside])
    return fig


_TEX = re.compile(r"([_^])\{([^{}]*)\}")
# a bare subscript after a one-character symbol (θ_t, λ_max, ε_GDP, Û_private, ‖A‖²_F), not snake_case words
_SUB = re.compile(r"(?<![A-Za-zα-ωΑ-Ω])([^\W\d_]['′]?|[²³‖)])_([A-Za-z0-9α-ωΑ-Ω][A-Za-z0-9α-ωΑ-Ω-]*)")


def tex_to_html(text: str) -> str:
    """TeX-style ``_{…}`` / ``^{…}`` as HTML ``<sub>`` / ``<sup>`` (plotly and the page render those; the
    braces were shown raw). Innermost groups first, so ``e^{ε_{0}}`` works too.

    Examples
    --------
    >>> tex_to_html("T_{n,k} and n^{−1/2}, e^{ε_{0}}")
    'T<sub>n,k</sub> and n<sup>−1/2</sup>, e<sup>ε<sub>0</sub></sup>'
    >>> tex_to_html("θ_t, ‖A‖²_F, λ_max(W) and noisy_power")
    'θ<sub>t</sub>, ‖A‖²<sub>F</sub>, λ<sub>max</sub>(W) and noisy_power'
    """
    if not isinstance(text, str):
        return text
    if "_" in text and "://" not in text:
        text = _SUB.sub(r"\1<sub>\2</sub>", text)
    if "{" not in text:
        return text
    prev = None
    while prev != text:
        prev = text
        text = _TEX.sub(lambda m: f"<{'sub' if m.group(1) == '_' else 'sup'}>{m.group(2)}"
                                  f"</{'sub' if m.group(1) == '_' else 'sup'}>", text)
    return text


def _finite_any(values) -> bool:
    if values is None:
        return False
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return True  # categorical or text data: drawn
    return bool(np.isfinite(arr).any())


def _headline_last(fig: go.Figure) -> None:
    """The headline rule (module docstring): headline traces (and their bands) last, thick, in a colour of
    their own; any other trace in that colour is redrawn grey."""
    heads = [t for t in fig.data if is_headline(t)]
    if not heads:
        return
    groups = {t.legendgroup for t in heads if t.legendgroup}
    last = [t for t in fig.data if is_headline(t) or (getattr(t, "fill", None) == "toself" and t.legendgroup in groups)]
    ids = {id(t) for t in last}
    for t in fig.data:
        if id(t) in ids:
            continue
        for part in ("line", "marker"):
            obj = getattr(t, part, None)
            if obj is not None and isinstance(obj.color, str) and obj.color.lower() == HEADLINE_COLOR:
                obj.color = "#777777"
        line = getattr(t, "line", None)  # (bars and heatmaps have none)
        if line is not None and line.width is not None and line.width >= HEADLINE_WIDTH:
            line.width = HEADLINE_WIDTH - 2
    for t in last:
        if t.fill == "toself":
            t.fillcolor = _rgba(HEADLINE_COLOR, 0.15)
            continue
        t.line.color = HEADLINE_COLOR
        t.line.width = HEADLINE_WIDTH
        if t.marker is not None:
            t.marker.color = HEADLINE_COLOR
    fig.data = [t for t in fig.data if id(t) not in ids] + last


def _legend_packed(fig: go.Figure) -> None:
    """Give every legend entry without a group one of its own (in place). A horizontal legend of ungrouped
    entries is a grid whose columns are as wide as its widest entry (one entry per row in a narrow plot: 9 rows
    for 04's first panel at 1024 px); grouped entries are packed into rows by their own widths."""
    for i, tr in enumerate(fig.data):
        if tr.name and getattr(tr, "showlegend", None) is not False and "legendgroup" in tr and not tr.legendgroup:
            tr.legendgroup = f"dpx-entry-{i}"


def _wrap_subplot_titles(fig: go.Figure) -> None:
    """Break each subplot title (``make_subplots``' centred annotations) to the width of its subplot (in place):
    a long title over a narrow subplot ran off the figure's left edge beside the controls.

    Examples
    --------
    >>> from plotly.subplots import make_subplots
    >>> fig = make_subplots(rows=1, cols=2, column_widths=[0.3, 0.7], subplot_titles=("a " * 30, "b"))
    >>> _wrap_subplot_titles(fig)
    >>> fig.layout.annotations[0].text.count("<br>"), fig.layout.annotations[1].text
    (1, 'b')
    """
    doms = [tuple(fig.layout[k].domain) for k in fig.layout if k.startswith("xaxis") and fig.layout[k].domain]
    for ann in fig.layout.annotations or ():
        if not (ann.text and ann.xanchor == "center" and ann.yanchor == "bottom" and ann.xref == "paper"
                and ann.yref == "paper" and ann.showarrow is False and "<br>" not in ann.text):
            continue
        width = min((b - a for a, b in doms if a - 1e-6 <= ann.x <= b + 1e-6), default=1.0)
        ann.text = _wrap(ann.text, max(30, int(90 * width)))  # (at most two lines over the narrowest ones)


def style_text(fig: go.Figure, *, present: bool = False) -> go.Figure:
    """Set every text of the figure to the kit's sizes (in place): at least 12 px, or at least 16 px in
    presentation mode (:data:`TEXT_PX`). Applied to every drawn figure; switching the mode restyles them.

    Examples
    --------
    >>> fig = add_note(base_figure("t", "x", "y"), "a note")
    >>> style_text(fig, present=True).layout.annotations[0].font.size, fig.layout.legend.font.size
    (16, 16)
    """
    k = 1 if present else 0
    lay = fig.layout
    lay.font.size = TEXT_PX["base"][k]
    lay.legend.font.size = TEXT_PX["legend"][k]
    if lay.title is not None:
        lay.title.font.size = TEXT_PX["title"][k]
    for name in [n for n in lay if n.startswith(("xaxis", "yaxis"))]:
        ax = lay[name]
        ax.tickfont.size = TEXT_PX["legend"][k]
        ax.title.font.size = TEXT_PX["base"][k]
    for ann in lay.annotations or ():
        ann.font.size = TEXT_PX["note"][k]
    for tr in fig.data:
        if tr.type == "table":
            tr.header.font.size = TEXT_PX["table"][k]
            tr.cells.font.size = TEXT_PX["table"][k]
            tr.cells.height = 26 if not present else 32
    return fig


def finalize_figure(fig: go.Figure) -> go.Figure:
    """What every dashboard figure gets before it is shown (in place): readable log ticks
    (:func:`readable_log_ticks`), TeX-style sub/superscripts as HTML (:func:`tex_to_html`), and a legend
    that lists only what is drawn — a trace with no finite value (a bound that is vacuous or undefined
    at these settings) leaves the legend and is named in a note in the panel instead.
    """
    readable_log_ticks(fig)
    _headline_last(fig)
    _legend_packed(fig)
    _wrap_subplot_titles(fig)
    hidden = []
    for tr in fig.data:
        if tr.name:
            tr.name = tex_to_html(tr.name)
        if tr.type == "scatter" and tr.showlegend is not False and tr.name:
            ys = tr.x if tr.orientation == "h" else tr.y
            if not _finite_any(ys):
                tr.showlegend = False
                hidden.append(tr.name)
    lay = fig.layout
    if lay.title and lay.title.text:
        lay.title.text = tex_to_html(lay.title.text)
    for name in [k for k in lay if k.startswith(("xaxis", "yaxis"))]:
        ax = lay[name]
        if ax.title and ax.title.text:
            ax.title.text = tex_to_html(ax.title.text)
    for ann in lay.annotations or ():
        if ann.text:
            ann.text = tex_to_html(ann.text)
    if hidden:
        add_note(fig, "Not drawn at these settings (no finite value): " + "; ".join(dict.fromkeys(hidden)),
                 y=0.02 if len(fig.layout.annotations or ()) else 1.0)
    return fig
