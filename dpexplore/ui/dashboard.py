"""The dashboard base class every paper's dashboard derives from.

A dashboard is an ``ipywidgets.VBox``: title, controls, a status line, a message box for errors,
plot panels, a "reproduce in code" snippet and a footer. A subclass declares

* ``title``, ``intro`` (one paragraph), ``paper`` (the reference shown in the footer);
* ``controls``: a list of :class:`~dpexplore.ui.controls.Control`;
* ``panels``: a list of :class:`Panel` (a name, a title and which controls it depends on);
* ``figure(panel_name, params) -> go.Figure``: library calls + a pure figure builder;
* ``reproduce(params) -> str``: the library calls that reproduce the current view.

The base class does the rest: URL deep links from Voila's ``QUERY_STRING``, server-side clamping
of every value, recomputing only the panels whose controls changed, catching library errors and
showing them in the page (the controls keep their values; the next valid change recomputes),
timings in the status line, and the footer with the teaching-PRNG warning.
"""

from __future__ import annotations

import html
import math
import os
import sys
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import parse_qsl

import ipywidgets as widgets
import plotly.graph_objects as go

import dpexplore

from .audit import AuditPanel, AuditReport
from .controls import Control
from .figures import message_figure

__all__ = ["Dashboard", "Panel", "PRNG_FOOTER"]

PRNG_FOOTER = (
    "This dashboard's randomness is NumPy's seedable pseudo-random generator: reproducible, "
    "<b>not cryptographically secure</b>. dpexplore is for teaching and exploration, "
    "<b>never for real data releases</b>."
)

_ERROR_STYLE = (
    "border-left:4px solid #c0392b;background:#fdecea;padding:6px 10px;margin:4px 0;"
    "font-family:var(--jp-ui-font-family, sans-serif);color:#611a15"
)
_NOTE_STYLE = (
    "border-left:4px solid #b7950b;background:#fef9e7;padding:6px 10px;margin:4px 0;"
    "font-family:var(--jp-ui-font-family, sans-serif);color:#5d4a05"
)


@dataclass(frozen=True)
class Panel:
    """One plot of a dashboard.

    Parameters
    ----------
    name : str
        Key passed to :meth:`Dashboard.figure`.
    title : str
        Heading shown above the plot.
    depends_on : tuple of str or None
        Control names whose change redraws this panel (None: every control).
    caption : str
        One or two sentences under the heading: what to look at.
    """

    name: str
    title: str
    depends_on: tuple[str, ...] | None = None
    caption: str = ""


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


def _server_log(text: str) -> None:
    """Write to the kernel process's real stderr (the server's log), not to the browser.

    In a kernel, ipykernel forwards both ``sys.stderr`` and file descriptor 2 to the client as
    ``stream`` messages; it keeps the original descriptor as ``_original_stdstream_copy``.
    """
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if isinstance(fd, int):
        os.write(fd, text.encode(errors="replace"))
    elif sys.__stderr__ is not None:
        sys.__stderr__.write(text)
        sys.__stderr__.flush()


def _numeric_trait(w: widgets.Widget, name: str) -> bool:
    value = getattr(w, name, None)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _non_finite(v: Any) -> bool:
    """NaN/±Inf, also as the strings jupyter_client's fallback makes of them ('nan', 'inf', '1e999')."""
    if isinstance(v, str) and len(v) < 40:
        try:
            v = float(v)
        except ValueError:
            return False
    return isinstance(v, float) and not math.isfinite(v)


def _unwrapped_handle_msg(cls: type) -> Callable | None:
    """``cls._handle_msg`` without ipywidgets' ``_show_traceback`` wrapper (None if it is not wrapped so)."""
    fn = getattr(cls, "_handle_msg", None)
    if getattr(fn, "__name__", "") != "m" or not getattr(fn, "__closure__", None):
        return None
    inner = [c.cell_contents for c in fn.__closure__ if callable(c.cell_contents)]
    return inner[0] if len(inner) == 1 and getattr(inner[0], "__name__", "") == "_handle_msg" else None


class Dashboard(widgets.VBox):
    """Base class of the paper dashboards (see the module docstring)."""

    title: ClassVar[str] = "dpexplore dashboard"
    intro: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    controls: ClassVar[list[Control]] = []
    panels: ClassVar[list[Panel]] = []
    #: how many computed results :meth:`memo` keeps per dashboard
    memo_size: ClassVar[int] = 64
    #: Audit panel (shown when a subclass implements :meth:`audit_report`): what is audited, and
    #: the run-count slider's (default, maximum)
    audit_description: ClassVar[str] = ""
    audit_runs: ClassVar[tuple[int, int]] = (2000, 20000)

    def __init__(self, *, query_string: str | None = None, render: bool | None = None, **overrides: Any) -> None:
        """Build the dashboard and draw every panel once.

        Parameters
        ----------
        query_string : str, optional
            URL query (``"epsilon=0.5&n=800"``); default: ``$QUERY_STRING`` (set by Voila).
        render : bool, optional
            Display figures into the page (default: only inside a running kernel).
        **overrides
            Initial control values by name (validated like URL parameters).
        """
        super().__init__()
        self._render = _in_kernel() if render is None else render
        self._controls = {c.name: c for c in self.controls}
        self._memo: OrderedDict[Hashable, Any] = OrderedDict()
        self._busy = False
        self.messages: list[str] = []
        self.errors: dict[str, str] = {}
        self.figures: dict[str, go.Figure] = {}
        self.timings: dict[str, float] = {}

        values = {c.name: c.default for c in self.controls}
        qs = os.environ.get("QUERY_STRING", "") if query_string is None else query_string
        for key, text in parse_qsl(qs, keep_blank_values=True):
            if key.startswith("voila"):
                continue
            ctl = self._controls.get(key)
            if ctl is None:
                self.messages.append(
                    f"URL parameter {html.escape(key)!s} ignored: not a control of this dashboard "
                    f"(known: {', '.join(self._controls)})"
                )
                continue
            try:
                values[key] = ctl.parse(text)
            except ValueError as exc:
                self.messages.append(html.escape(str(exc)))
        for key, val in overrides.items():
            ctl = self._controls.get(key)
            if ctl is None:
                raise TypeError(f"{type(self).__name__} has no control {key!r}; known: {list(self._controls)}")
            if ctl.clamp(val) != val:
                raise ValueError(f"{key} must be {ctl.range_text()}; got {val!r}")
            values[key] = val

        self.widgets = {c.name: c.make_widget(values[c.name]) for c in self.controls}
        for name, w in self.widgets.items():
            w.observe(self._make_handler(name), names="value")

        self._status = widgets.HTML(layout=widgets.Layout(min_height="1.5em"))
        self._message_box = widgets.HTML()
        self._outputs = {p.name: widgets.Output(layout=widgets.Layout(width="100%")) for p in self.panels}
        self._snippet = widgets.HTML()
        snippet_box = widgets.Accordion(children=[self._snippet], titles=("Reproduce in code",))
        snippet_box.selected_index = None

        header = widgets.HTML(
            f"<h2 style='margin:0.2em 0'>{html.escape(self.title)}</h2>"
            + (f"<p style='margin:0.2em 0 0.6em 0;max-width:60em'>{self.intro}</p>" if self.intro else "")
        )
        controls_box = widgets.GridBox(
            list(self.widgets.values()),
            layout=widgets.Layout(grid_template_columns="repeat(auto-fill, minmax(320px, 1fr))",
                                  grid_gap="4px 16px", padding="6px", border="1px solid #ddd"),
        )
        panel_boxes = []
        for p in self.panels:
            head = f"<h3 style='margin:0.8em 0 0.1em 0'>{html.escape(p.title)}</h3>"
            if p.caption:
                head += f"<div style='color:#444;max-width:60em;margin-bottom:0.2em'>{p.caption}</div>"
            panel_boxes.append(widgets.VBox([widgets.HTML(head), self._outputs[p.name]]))
        footer = widgets.HTML(self._footer_html())
        self.audit_panel: AuditPanel | None = None
        audit_box = []
        if type(self).audit_report is not Dashboard.audit_report:
            self.audit_panel = AuditPanel(
                lambda broken, runs, seed, progress: self.audit_report(
                    self.params(), broken=broken, runs=runs, rng=seed, progress=progress),
                default_runs=self.audit_runs[0], max_runs=self.audit_runs[1],
                description=self.audit_description, seed=lambda: int(self.params().get("seed", 0)),
                runs_note=lambda runs: self.audit_runs_note(self.params(), runs))
            audit_box = [widgets.VBox([widgets.HTML(
                "<h3 style='margin:0.8em 0 0.1em 0'>Audit: is the claimed ε true?</h3>"), self.audit_panel])]
        self.children = [header, controls_box, self._status, self._message_box, *panel_boxes, *audit_box,
                         snippet_box, footer]
        self.refresh()
        self._guard_widgets()

    # -- parameters ---------------------------------------------------------------------
    def params(self) -> dict[str, Any]:
        """Current control values, clamped server side (out-of-range client values are corrected)."""
        out = {}
        busy, self._busy = self._busy, True  # bound/value corrections below must not re-trigger refresh
        try:
            for name, ctl in self._controls.items():
                w = self.widgets[name]
                raw = w.value
                ctl.reset_bounds(w)
                val = ctl.clamp(raw)
                finite = not isinstance(raw, float) or math.isfinite(raw)  # NaN/±Inf: never round them
                same = finite and val == (int(round(raw)) if ctl.kind == "logint" and isinstance(raw, float) else raw)
                if not same:
                    self.messages.append(
                        f"{html.escape(name)}={html.escape(repr(raw))} is outside the valid range "
                        f"({html.escape(ctl.range_text())}): using {html.escape(repr(val))}"
                    )
                if w.value != val and not (ctl.kind == "logint" and same):
                    w.value = val
                out[name] = val
        finally:
            self._busy = busy
        return out

    def set_params(self, **values: Any) -> None:
        """Set several controls at once and redraw once (used by tests and notebooks)."""
        self._busy = True
        try:
            for k, v in values.items():
                if k not in self.widgets:
                    raise TypeError(f"{type(self).__name__} has no control {k!r}")
                self.widgets[k].value = v
        finally:
            self._busy = False
        self.refresh()

    # -- memo -----------------------------------------------------------------------
    def memo(self, key: Hashable, fn: Callable[[], Any]) -> Any:
        """Return ``fn()``, cached under ``key`` (an LRU of ``memo_size`` entries).

        Panels that share an expensive library call (a Monte-Carlo sweep, say) compute it once.
        """
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        value = fn()
        self._memo[key] = value
        while len(self._memo) > self.memo_size:
            self._memo.popitem(last=False)
        return value

    # -- subclass interface ------------------------------------------------------------
    def figure(self, panel: str, params: Mapping[str, Any]) -> go.Figure:  # pragma: no cover - abstract
        raise NotImplementedError

    def reproduce(self, params: Mapping[str, Any]) -> str:
        return ""

    def audit_report(self, params: Mapping[str, Any], *, broken: bool, runs: int, rng: int,
                     progress: Callable[[int, int], bool]) -> AuditReport:  # pragma: no cover - optional
        """Audit the dashboard's mechanism at the current settings (override to get an Audit panel).

        Run the mechanism (or its ``broken_*`` variant when ``broken``) on a worst-case neighbouring
        pair with :func:`dpexplore.core.audit.audit_mechanism` / ``audit_from_scores`` (passing
        ``progress``) and/or compute the exact ε from the output laws; return an AuditReport.
        """
        raise NotImplementedError

    def audit_runs_note(self, params: Mapping[str, Any], runs: int) -> str:
        """Say what the selected audit does with ``runs`` when it does not use it as is ("" otherwise).

        Override where an audit is exact (no sampling) or caps its run count, so the slider never
        shows a number the audit does not use.
        """
        return ""

    # -- refresh -------------------------------------------------------------------------
    def _make_handler(self, name: str):
        def handler(change):
            if not self._busy:
                try:
                    self.refresh(changed=name)
                except Exception as exc:  # noqa: BLE001 - a callback error never reaches the client as a traceback
                    self._callback_failed(exc)

        return handler

    def _callback_failed(self, exc: BaseException) -> None:
        """Log a widget-callback error server side (:func:`_server_log`: the server's log) and show
        a short message in the page: a traceback sent to the browser would show server paths and source."""
        _server_log(f"dpexplore: error in a callback of {type(self).__name__}:\n"
                    + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        try:
            self._note_now(f"Internal error while handling that change ({html.escape(type(exc).__name__)}); "
                           "the details are in the server's log.")
        except Exception:  # noqa: BLE001 - the page is unusable anyway; the log has the error
            pass

    def _note_now(self, text: str) -> None:
        self.messages.append(text)
        self._message_box.value = self._messages_html()
        self.messages = []

    def _guard_widgets(self) -> None:
        """Handle every client message to this dashboard's widgets without sending tracebacks.

        ipywidgets answers an exception raised while applying a client's update (a NaN for an
        ``IntSlider``, a trait error) with ``showtraceback()``: the client receives the traceback, with
        server paths and source lines. Here each widget's comm handler drops non-finite numbers from a
        client's state update (JSON has none; a slider value never is one) and reports any other error
        with :meth:`_callback_failed`.
        """
        stack: list[widgets.Widget] = [self]
        seen: set[int] = set()
        while stack:
            w = stack.pop()
            if id(w) in seen or not isinstance(w, widgets.Widget):
                continue
            seen.add(id(w))
            for name in w.keys:
                value = getattr(w, name, None)
                stack.extend(v for v in (value if isinstance(value, (list, tuple)) else [value])
                             if isinstance(v, widgets.Widget))
            inner = _unwrapped_handle_msg(type(w))
            if inner is not None and getattr(w, "comm", None) is not None:
                w.comm.on_msg(self._make_guard(w, inner))

    def _make_guard(self, w: widgets.Widget, inner: Callable) -> Callable:
        def guarded(msg):
            try:
                data = msg["content"]["data"]
                state = data.get("state") if data.get("method") == "update" else None
                if isinstance(state, dict):
                    bad = [k for k, v in state.items() if _numeric_trait(w, k) and _non_finite(v)]
                    for k in bad:
                        del state[k]
                    if bad:
                        self._note_now(f"Ignored a non-finite value for {html.escape(', '.join(bad))}.")
                inner(w, msg)
            except Exception as exc:  # noqa: BLE001 - see _guard_widgets
                self._callback_failed(exc)

        return guarded

    def refresh(self, changed: str | None = None) -> None:
        """Recompute and redraw the panels that depend on ``changed`` (all panels if None)."""
        params = self.params()
        todo = [p for p in self.panels if changed is None or p.depends_on is None or changed in p.depends_on]
        self._status.value = self._status_html("Computing " + ", ".join(p.title for p in todo) + " …", busy=True)
        total = time.perf_counter()
        for p in todo:
            t0 = time.perf_counter()
            self.errors.pop(p.name, None)
            try:
                fig = self.figure(p.name, params)
            except (ValueError, TypeError, ArithmeticError) as exc:
                self.errors[p.name] = f"{p.title}: {exc}"
                fig = message_figure(p.title, "Cannot draw this panel for these settings (see the message above).")
            except Exception as exc:  # an internal error: say so in the page, never a silent failure
                self.errors[p.name] = (
                    f"{p.title}: internal error {type(exc).__name__}: {exc} — please report it with the "
                    f"'reproduce in code' snippet. ({traceback.extract_tb(exc.__traceback__)[-1].name})"
                )
                fig = message_figure(p.title, "Internal error (see the message above).")
            self.timings[p.name] = time.perf_counter() - t0
            self.figures[p.name] = fig
            self._show(p.name, fig)
        elapsed = time.perf_counter() - total
        self._message_box.value = self._messages_html()
        self._snippet.value = self._snippet_html(params)
        if getattr(self, "audit_panel", None) is not None:
            self.audit_panel.update_note()
        detail = ", ".join(f"{p.title} {self.timings[p.name]:.2f} s" for p in todo)
        self._status.value = self._status_html(f"Updated in {elapsed:.2f} s ({detail}). Seed and settings "
                                               "are in 'Reproduce in code' below.")
        self.messages = []

    def _show(self, name: str, fig: go.Figure) -> None:
        if not self._render:
            return
        out = self._outputs[name]
        out.clear_output(wait=True)
        with out:
            # No "responsive": True here. With it, a plot drawn while the dashboard is not yet on the page
            # (every first draw in Voila) gets a 0-px-high container and stays invisible (measured in
            # headless Chromium); without it the plot takes the layout's height and the container's width.
            fig.show(renderer="plotly_mimetype", config={"displaylogo": False})

    # -- html pieces ---------------------------------------------------------------------
    @staticmethod
    def _status_html(text: str, busy: bool = False) -> str:
        color = "#1f618d" if busy else "#555"
        return f"<span style='color:{color};font-size:0.9em'>{html.escape(text)}</span>"

    def _messages_html(self) -> str:
        parts = [f"<div class='dpx-error' style='{_ERROR_STYLE}'><b>Error.</b> {html.escape(e)}</div>"
                 for e in self.errors.values()]
        parts += [f"<div class='dpx-note' style='{_NOTE_STYLE}'>{m}</div>" for m in self.messages]
        return "".join(parts)

    def _snippet_html(self, params: Mapping[str, Any]) -> str:
        code = self.reproduce(params)
        query = "&".join(f"{k}={v}" for k, v in params.items() if self._controls[k].kind != "text")
        head = (f"# dpexplore {dpexplore.__version__}; same numbers for the same seed and version\n"
                f"# deep link to this view: append ?{query} to this page's URL\n")
        return ("<pre style='white-space:pre-wrap;font-size:0.85em;background:#f7f7f7;padding:8px'>"
                + html.escape(head + code) + "</pre>")

    def _footer_html(self) -> str:
        ref = f"<div><b>Paper.</b> {self.paper}</div>" if self.paper else ""
        return (
            "<hr style='margin-top:1.5em'><div style='font-size:0.85em;line-height:1.4;color:#444;max-width:60em'>"
            f"{ref}<div><b>Reading the plots.</b> Solid lines with shaded bands are measured (mean and 95% "
            "confidence band over the trials); theory curves say in brackets whether they are "
            "<i>exact</i>, a <i>bound</i> with explicit constants, a <i>rate</i> drawn with a stated constant, "
            "or an <i>approximation</i>. No theory curve is fitted to the data it is compared with.</div>"
            f"<div style='margin-top:0.4em'><b>Teaching tool.</b> {PRNG_FOOTER}</div>"
            f"<div style='margin-top:0.4em'>dpexplore {dpexplore.__version__} · "
            "<a href='00_index.ipynb' style='color:#0072B2;text-decoration:underline'>all dashboards</a></div></div>"
        )
