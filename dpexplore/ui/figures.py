"""Pure plotly figure builders (data in, ``go.Figure`` out): testable without a kernel.

Conventions every dashboard follows:

* measured Monte-Carlo results are a solid line with markers plus a shaded confidence band,
  named ``"<mechanism> (measured, mean ± 95% CI, T trials)"``;
* theory is dashed/dotted and its name says what it is: ``[exact]``, ``[bound]`` (explicit
  constants), ``[rate, constant c]`` (an Õ-rate drawn with a stated constant — never fitted to
  the data it is compared with) or ``[approximation]``.
"""

from __future__ import annotations

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
]

PLOTLY_MIMETYPE = "application/vnd.plotly.v1+json"

# Okabe–Ito palette: distinguishable for colour-blind readers.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
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
    """An empty figure with the house layout (white template, legend below, axis titles)."""
    fig = go.Figure()
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        template="plotly_white",
        height=height,
        width=width,
        margin={"l": 60, "r": 20, "t": 50, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0, "font": {"size": 11}},
        hovermode="closest",
    )
    fig.update_xaxes(title_text=x_title, type="log" if log_x else "linear", showline=True, linecolor="#888",
                     exponentformat="power" if log_x else "B")
    fig.update_yaxes(title_text=y_title, type="log" if log_y else "linear", showline=True, linecolor="#888",
                     exponentformat="power" if log_y else "B")
    return fig


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
) -> go.Figure:
    """Add a measured curve: mean with markers, and (if given) its confidence band shaded."""
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
) -> go.Figure:
    """Add a theory curve whose legend says whether it is exact, a bound, a rate or an approximation.

    ``note`` is appended (e.g. ``"constant 1, anchored nowhere"`` or ``"Thm 1.1"``). NaN values (a
    theorem whose conditions fail there) leave gaps rather than misleading lines.
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
    return fig


def add_note(fig: go.Figure, text: str, *, y: float = 1.0) -> go.Figure:
    """A small grey note in the top-left corner of the plot area (e.g. why a curve is missing)."""
    fig.add_annotation(text=text, xref="paper", yref="paper", x=0.0, y=y, xanchor="left", yanchor="top",
                       showarrow=False, font={"size": 11, "color": "#555"}, align="left",
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


def tex_to_html(text: str) -> str:
    """TeX-style ``_{…}`` / ``^{…}`` as HTML ``<sub>`` / ``<sup>`` (plotly and the page render those; the
    braces were shown raw). Innermost groups first, so ``e^{ε_{0}}`` works too.

    Examples
    --------
    >>> tex_to_html("T_{n,k} and n^{−1/2}, e^{ε_{0}}")
    'T<sub>n,k</sub> and n<sup>−1/2</sup>, e<sup>ε<sub>0</sub></sup>'
    """
    if not isinstance(text, str) or "{" not in text:
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


def finalize_figure(fig: go.Figure) -> go.Figure:
    """What every dashboard figure gets before it is shown (in place): readable log ticks
    (:func:`readable_log_ticks`), TeX-style sub/superscripts as HTML (:func:`tex_to_html`), and a legend
    that lists only what is drawn — a trace with no finite value (a bound that is vacuous or undefined
    at these settings) leaves the legend and is named in a note in the panel instead.
    """
    readable_log_ticks(fig)
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
