"""Predict questions measured off the drawn panels: what a question's change does to the plot (for the tests
that every question is answerable from the page, issue 25 item 5, and for the verdict under a panel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpexplore.classroom.lessons import check_value

__all__ = ["VISIBLE_FRACTION", "measure_question", "plotted_change", "question_views"]


def measure_question(dashboard, question: Mapping[str, Any], *,
                     seed: int | None = None) -> list[tuple[dict, float, float]]:
    """Compute each check of ``question`` before and after its change (only the panels the checks use).

    Uses the dashboard's current values, the question's ``settings`` (and ``seed`` if given), then the same
    with ``change`` applied; returns ``(check, before, after)`` per check. The tests assert that
    :func:`direction` of each pair is the check's ``expect``.
    """
    views = question_views(dashboard, question, seed=seed)
    out = []
    for c in question["check"]:
        vals = [check_value(c, *views[(c["panel"], after)]) for after in (False, True)]
        out.append((dict(c), vals[0], vals[1]))
    return out


#: a predict question's checked change must move its plotted curve by at least this fraction of the axis span
VISIBLE_FRACTION = 0.05


def _plotted_trace(check: Mapping[str, Any], results: Mapping[str, Any] | None, figure: Any):
    """The drawn trace a check measures: by name for ``trace`` checks; for ``series`` checks the trace whose
    y values are the series' mean over trials (what the panel draws for it)."""
    import numpy as np

    data = [t for t in (figure.data if figure is not None else ()) if getattr(t, "y", None) is not None
            and getattr(t, "fill", None) != "toself"]
    if "trace" in check:
        return next((t for t in data if check["trace"] in (t.name or "")), None)
    res = (results or {}).get(check.get("label", ""))
    if res is None or check["series"] not in getattr(res, "series", ()):
        return None
    with np.errstate(all="ignore"):
        mean = np.nanmean(np.asarray(res.values, dtype=float)[list(res.series).index(check["series"])], axis=-1)
    for t in data:
        try:
            y = np.asarray(t.y, dtype=float).ravel()
        except (TypeError, ValueError):
            continue
        want = np.full(y.shape, mean[0]) if mean.size == 1 else mean  # one grid point: drawn as a level line
        if y.shape != want.shape:
            continue
        both = np.isfinite(y) & np.isfinite(want)  # a log axis drops zeros: compare what is drawn
        if both.any() and np.allclose(y[both], want[both], rtol=1e-9, atol=0):
            return t
    return None


def _axis(figure: Any, trace: Any):
    ref = getattr(trace, "yaxis", None) or "y"
    name = "yaxis" + ref[1:]
    return figure.layout[name] if name in figure.layout else figure.layout.yaxis, ref


def plotted_change(check: Mapping[str, Any], before: tuple[Mapping[str, Any], Any],
                   after: tuple[Mapping[str, Any], Any]) -> float:
    """How far a check's curve moves on the page, as a fraction of its y axis's span, in plotted coordinates.

    ``before`` and ``after`` are ``(results, figure)`` of the panel. The curve is the trace the check measures
    (:func:`_plotted_trace`); y values are taken in the axis's own coordinates (log10 on a log axis); the
    move is the mean absolute difference over the points both draws have (the value at ``at`` if the check
    names one), and the span is the after-figure's y range (its set ``range``, else the extent of every
    finite y value drawn on that axis, which is what plotly's autorange shows); on a log axis a value ≤ 0
    counts as the bottom of the axis (the curve leaves the plot there). Raises ValueError if the curve is
    not drawn.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> def fig(y):
    ...     return go.Figure([go.Scatter(x=[1, 2], y=y, name="a"), go.Scatter(x=[1, 2], y=[0, 10], name="b")])
    >>> round(plotted_change({"panel": "p", "trace": "a"}, ({}, fig([1, 2])), ({}, fig([2, 3]))), 3)
    0.1
    """
    import numpy as np

    t_b, t_a = _plotted_trace(check, *before), _plotted_trace(check, *after)
    if t_b is None or t_a is None:
        raise ValueError(f"panel {check['panel']!r}: the checked curve is not drawn")
    axis, ref = _axis(after[1], t_a)
    log = axis.type == "log"

    def coords(values, floor=np.nan):
        y = np.asarray(values, dtype=float)
        if not log:
            return y
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(y > 0, np.log10(np.where(y > 0, y, 1.0)), np.where(np.isnan(y), np.nan, floor))

    if axis.range is not None and all(v is not None for v in axis.range):
        lo, hi = (float(v) for v in axis.range)
    else:
        ys = [coords(t.y) for t in after[1].data if getattr(t, "y", None) is not None
              and (getattr(t, "yaxis", None) or "y") == ref and t.visible is not False]
        flat = np.concatenate([y.ravel() for y in ys if y.dtype.kind == "f"]) if ys else np.array([])
        flat = flat[np.isfinite(flat)]
        lo, hi = (float(flat.min()), float(flat.max())) if flat.size else (0.0, 1.0)
    span = abs(hi - lo) or 1.0
    # on a log axis a value <= 0 is not drawn: the curve leaves through the bottom of the axis
    yb, ya = coords(t_b.y, min(lo, hi)), coords(t_a.y, min(lo, hi))
    if "at" in check:
        def at(t, y):
            x = np.asarray(t.x, dtype=float)
            return y[[int(np.nanargmin(np.abs(x - float(check["at"]))))]]
        yb, ya = at(t_b, yb), at(t_a, ya)
    m = min(yb.size, ya.size)
    moved = np.abs(ya[:m] - yb[:m])
    moved = moved[np.isfinite(moved)]
    if not moved.size:
        raise ValueError(f"panel {check['panel']!r}: the checked curve has no finite value")
    return float(np.mean(moved) / span)


def question_views(dashboard, question: Mapping[str, Any], *, seed: int | None = None):
    """``{(panel, after): (results, figure)}`` for the panels a question's checks use, before and after its
    change, at the question's ``settings`` (and ``seed`` if given); figures finalized as the page shows them."""
    from .figures import finalize_figure

    base = {**dashboard.params(), **question["settings"]}
    if seed is not None and "seed" in base:
        base["seed"] = seed
    views: dict[tuple[str, bool], tuple[dict, Any]] = {}
    for c in question["check"]:
        for after in (False, True):
            key = (c["panel"], after)
            if key not in views:
                params = {**base, **question["change"]} if after else base
                dashboard.results.pop(c["panel"], None)
                fig = finalize_figure(dashboard.figure(c["panel"], params))
                views[key] = (dict(dashboard.results.get(c["panel"], {})), fig)
    return views
