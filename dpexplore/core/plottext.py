"""Text alternatives for plots: a short generated summary and a data table of the plotted numbers.

Pure (numbers in, text out): a dashboard's figure is turned into :class:`Series` by the UI kit
(:mod:`dpexplore.ui.a11y`); here they become what a screen reader reads instead of the picture —
:func:`summarize` ("misclassification falls from 0.62 at ε = 0.25 to 0.01 at ε = 8 for matrix
shuffling; …") and :func:`table_rows` (every plotted point, long format). The summary is computed from
the same numbers that are drawn, so it changes with the sliders.

Also here: WCAG colour contrast (:func:`contrast_ratio`, :func:`blend`), used to check the kit's text
colours, including text dimmed while a panel is computing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Series",
    "MAX_SERIES",
    "MAX_TABLE_ROWS",
    "plain_text",
    "fmt",
    "short_title",
    "short_name",
    "describe_series",
    "summarize",
    "table_rows",
    "relative_luminance",
    "contrast_ratio",
    "blend",
]

#: at most this many series are described in a summary (the rest are counted)
MAX_SERIES = 8
#: at most this many rows per series in a data table (the rest are counted)
MAX_TABLE_ROWS = 400

_TAG = re.compile(r"<[^>]*>")
_SUP = re.compile(r"<sup>([^<]*)</sup>", re.I)


@dataclass(frozen=True)
class Series:
    """One drawn data series.

    Parameters
    ----------
    name : str
        Legend name (HTML tags are dropped when it is read).
    x, y : sequence
        The plotted coordinates (numbers; ``x`` may also be category labels). ``y`` may be empty for a
        histogram (then ``x`` holds the sample).
    kind : {"line", "bar", "histogram", "heatmap", "other"}
    x_title, y_title : str
        The axis titles of the subplot the series is drawn in.
    z : sequence of sequences, optional
        A heatmap's values.
    lower, upper : sequence, optional
        A confidence band around ``y`` (same length), if drawn.
    """

    name: str
    x: Sequence = ()
    y: Sequence = ()
    kind: str = "line"
    x_title: str = ""
    y_title: str = ""
    z: Sequence = field(default_factory=tuple)
    lower: Sequence | None = None
    upper: Sequence | None = None


def plain_text(text: object) -> str:
    """``text`` without HTML tags and with collapsed spaces (``"ε<sub>0</sub>"`` → ``"ε0"``).

    Examples
    --------
    >>> plain_text("T<sub>n,k</sub>  (bound)")
    'Tn,k (bound)'

    A superscript stays a power: ``e<sup>ε</sup>`` is read "e^ε", not "eε".

    >>> plain_text("e<sup>ε</sup> · p"), plain_text("10<sup>-5</sup>"), plain_text("e<sup>ε/2</sup>")
    ('e^ε · p', '10^-5', 'e^(ε/2)')
    """
    if text is None:
        return ""
    s = _SUP.sub(lambda m: "^" + (m.group(1) if len(m.group(1)) <= 2 else f"({m.group(1)})"), str(text))
    s = _TAG.sub("", s).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return " ".join(s.split())


def short_title(text: object) -> str:
    """An axis title as said in a sentence: plain text, without trailing parentheses or a definition.

    Examples
    --------
    >>> short_title("ε (log scale)"), short_title("current error e_t = d(s'_t, s_t) (nats)")
    ('ε', 'current error e_t')
    """
    s = plain_text(text)
    s = s.split(" = ", 1)[0].split("; ", 1)[0]
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"\s*\([^()]*\)\s*$", "", s).strip()
    return s or plain_text(text)


_MEASURED = re.compile(r"\(measured[^()]*\)")
_KIND = re.compile(r"\[(exact|bound|rate|approximation|certified)\b[^\[\]]*\]")


def short_name(name: object) -> str:
    """A legend name as said in a summary: the kit's long qualifiers cut to their first word (the data
    table keeps the whole name).

    Examples
    --------
    >>> short_name("LOP (measured, mean ± 95% CI over 3 trials)"), short_name("ε0 [bound, Thm 1.1]")
    ('LOP (measured)', 'ε0 [bound]')
    """
    s = _MEASURED.sub("(measured)", plain_text(name))
    return _KIND.sub(lambda m: f"[{m.group(1)}]", s)


def fmt(v: object) -> str:
    """A number with 3 significant digits (integers as they are); anything else as text.

    Examples
    --------
    >>> fmt(0.123456), fmt(12345.0), fmt(3), fmt(float("nan")), fmt("a")
    ('0.123', '1.23e+04', '3', 'not defined', 'a')
    """
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if not math.isfinite(x):
            return "not defined" if math.isnan(x) else ("∞" if x > 0 else "−∞")
        if x == int(x) and abs(x) < 1e4:
            return str(int(x))
        return f"{x:.3g}"
    return plain_text(v)


def _floats(values: Sequence) -> np.ndarray | None:
    """``values`` as floats, or None if they are not numbers (category labels)."""
    try:
        arr = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return arr


def _trend(y: np.ndarray) -> str:
    d = np.diff(y)
    scale = max(float(np.max(np.abs(y))), 1e-300)
    tol = 1e-9 * scale
    if np.all(np.abs(d) <= tol):
        return "stays at"
    if np.all(d >= -tol):
        return "rises from"
    if np.all(d <= tol):
        return "falls from"
    return "goes from"


def describe_series(s: Series) -> str:
    """One clause saying what series ``s`` shows (first and last value, the extreme values if it is not
    monotone), or "" if it has nothing finite to show.

    Examples
    --------
    >>> describe_series(Series("matrix shuffling", [0.25, 1, 8], [0.62, 0.2, 0.01], x_title="ε",
    ...                        y_title="misclassification"))
    'matrix shuffling: misclassification falls from 0.62 at ε = 0.25 to 0.01 at ε = 8'
    >>> describe_series(Series("bound", [1, 2, 3], [1, 3, 2], x_title="n"))
    'bound: goes from 1 at n = 1 to 2 at n = 3 (highest 3 at n = 2, lowest 1 at n = 1)'
    """
    name = short_name(s.name) or "a series"
    xt, yt = short_title(s.x_title) or "x", short_title(s.y_title)
    what = f"{yt} " if yt else ""
    if s.kind == "heatmap":
        z = _floats([v for row in s.z for v in row]) if len(s.z) else None
        if z is None or not np.isfinite(z).any():
            return ""
        ok = z[np.isfinite(z)]
        return (f"{name}: a {len(s.z)} × {len(s.z[0])} heatmap of values from {fmt(float(ok.min()))} "
                f"to {fmt(float(ok.max()))}")
    if s.kind == "histogram" or (not len(s.y) and len(s.x)):
        xs = _floats(s.x)
        if xs is None or not np.isfinite(xs).any():
            return f"{name}: {len(s.x)} values" if len(s.x) else ""
        ok = xs[np.isfinite(xs)]
        return (f"{name}: histogram of {ok.size} values of {xt} from {fmt(float(ok.min()))} to "
                f"{fmt(float(ok.max()))}, median {fmt(float(np.median(ok)))}")
    ys = _floats(s.y)
    if ys is None or ys.size == 0:
        return ""
    xs_num = _floats(s.x) if len(s.x) == ys.size else None
    labels = list(s.x) if len(s.x) == ys.size else list(range(ys.size))
    ok = np.isfinite(ys)
    if xs_num is not None:
        ok &= np.isfinite(xs_num)
    if not ok.any():
        return ""
    idx = np.flatnonzero(ok)
    if xs_num is not None:
        idx = idx[np.argsort(xs_num[idx], kind="stable")]

    def at(i: int) -> str:
        return f"{xt} = {fmt(labels[i])}" if xs_num is not None else f"{fmt(labels[i])}"

    if s.kind == "bar" or xs_num is None:
        hi, lo = idx[np.argmax(ys[idx])], idx[np.argmin(ys[idx])]
        if idx.size == 1:
            return f"{name}: {what}{fmt(ys[hi])} at {at(hi)}"
        return f"{name}: {what}highest {fmt(ys[hi])} at {at(hi)}, lowest {fmt(ys[lo])} at {at(lo)} ({idx.size} bars)"
    if idx.size == 1:
        return f"{name}: {what}{fmt(ys[idx[0]])} at {at(idx[0])}"
    first, last = idx[0], idx[-1]
    trend = _trend(ys[idx])
    if trend == "stays at":
        text = f"{name}: {what}stays at {fmt(ys[first])} from {at(first)} to {at(last)}"
    else:
        text = f"{name}: {what}{trend} {fmt(ys[first])} at {at(first)} to {fmt(ys[last])} at {at(last)}"
    if trend == "goes from":
        hi, lo = idx[np.argmax(ys[idx])], idx[np.argmin(ys[idx])]
        text += f" (highest {fmt(ys[hi])} at {at(hi)}, lowest {fmt(ys[lo])} at {at(lo)})"
    gaps = int(ys.size - np.count_nonzero(ok))
    if gaps:
        text += f"; not defined at {gaps} of {ys.size} points"
    return text


def summarize(title: str, series: Sequence[Series], *, max_series: int = MAX_SERIES) -> str:
    """The text alternative of a plot: its title, then one clause per series (at most ``max_series``).

    Examples
    --------
    >>> summarize("Error vs ε", [Series("A", [1, 2], [0.5, 0.1], x_title="ε", y_title="error"),
    ...                          Series("B", [1, 2], [0.4, 0.4], x_title="ε", y_title="error")])
    'Error vs ε. A: error falls from 0.5 at ε = 1 to 0.1 at ε = 2; B: error stays at 0.4 from ε = 1 to ε = 2.'
    >>> summarize("Empty", [])
    'Empty. Nothing is plotted at these settings.'
    """
    head = plain_text(title) or "Plot"
    parts = [t for t in (describe_series(s) for s in series) if t]
    if not parts:
        return f"{head}. Nothing is plotted at these settings."
    more = len(parts) - max_series
    text = "; ".join(parts[:max_series])
    if more > 0:
        text += f"; and {more} more series (see the data table)"
    return f"{head}. {text}."


def table_rows(series: Sequence[Series], *, max_rows: int = MAX_TABLE_ROWS) -> tuple[list[str], list[list[str]], int]:
    """The plotted numbers, long format: ``(header, rows, left_out)``.

    One row per point: series name, x, y, and the band's lower/upper ends when a series has a band.
    At most ``max_rows`` rows per series; ``left_out`` counts the rows not listed.

    Examples
    --------
    >>> header, rows, left = table_rows([Series("A", [1, 2], [0.5, 0.25], x_title="ε", y_title="error",
    ...                                         lower=[0.4, 0.2], upper=[0.6, 0.3])])
    >>> header
    ['series', 'ε', 'error', 'lower 95%', 'upper 95%']
    >>> rows[1], left
    (['A', '2', '0.25', '0.2', '0.3'], 0)
    """
    banded = any(s.lower is not None for s in series)
    xts = {plain_text(s.x_title) for s in series if s.kind != "heatmap"} - {""}
    yts = {plain_text(s.y_title) for s in series if s.kind != "heatmap"} - {""}
    header = ["series", xts.pop() if len(xts) == 1 else "x", yts.pop() if len(yts) == 1 else "y"]
    if banded:
        header += ["lower 95%", "upper 95%"]
    rows: list[list[str]] = []
    left = 0
    for s in series:
        name = plain_text(s.name)
        if s.kind == "heatmap":
            cells = [(f"row {i + 1}", f"column {j + 1}", v) for i, row in enumerate(s.z) for j, v in enumerate(row)]
            points = [[name, a, f"{b}: {fmt(v)}"] for a, b, v in cells]
        elif not len(s.y):
            points = [[name, fmt(v), ""] for v in s.x]
        else:
            xs = list(s.x) if len(s.x) == len(s.y) else list(range(len(s.y)))
            points = []
            for i, (xv, yv) in enumerate(zip(xs, s.y)):
                row = [name, fmt(xv), fmt(yv)]
                if banded:
                    row += ([fmt(s.lower[i]), fmt(s.upper[i])] if s.lower is not None and s.upper is not None
                            and i < len(s.lower) and i < len(s.upper) else ["", ""])
                points.append(row)
        if banded:
            points = [p + [""] * (5 - len(p)) for p in points]
        rows.extend(points[:max_rows])
        left += max(0, len(points) - max_rows)
    return header, rows, left


# -- colour contrast (WCAG 2.1, success criterion 1.4.3) ----------------------------------------------
def _rgb(color: str) -> tuple[float, float, float]:
    h = color.strip().lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    if not re.fullmatch(r"[0-9a-fA-F]{6}", h):
        raise ValueError(f"color must be '#rgb' or '#rrggbb'; got {color!r}")
    return tuple(int(h[i: i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]


def relative_luminance(color: str) -> float:
    """WCAG relative luminance of ``'#rrggbb'`` (0 black … 1 white).

    Examples
    --------
    >>> relative_luminance("#ffffff"), relative_luminance("#000000")
    (1.0, 0.0)
    """
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(color)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(fg: str, bg: str = "#ffffff") -> float:
    """WCAG contrast ratio of two colours (1 … 21; AA needs 4.5 for normal text).

    Examples
    --------
    >>> round(contrast_ratio("#767676"), 2)
    4.54
    """
    a, b = relative_luminance(fg), relative_luminance(bg)
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def blend(fg: str, bg: str, alpha: float) -> str:
    """The colour ``fg`` drawn with opacity ``alpha`` over ``bg`` (what a dimmed text looks like).

    Examples
    --------
    >>> blend("#000000", "#ffffff", 0.5)
    '#808080'
    """
    if not (isinstance(alpha, (int, float)) and 0.0 <= alpha <= 1.0):
        raise ValueError(f"alpha must be a number in [0, 1]; got {alpha!r}")
    f, b = _rgb(fg), _rgb(bg)
    return "#" + "".join(f"{round((alpha * x + (1 - alpha) * y) * 255):02x}" for x, y in zip(f, b))
