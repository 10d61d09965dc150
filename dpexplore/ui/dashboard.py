"""The dashboard base class every paper's dashboard derives from.

A dashboard is an ``ipywidgets.VBox``: title, controls, a status line, a message box for errors,
plot panels, a "reproduce in code" snippet and a footer. A subclass declares

* ``title``, ``intro`` (one paragraph), ``paper`` (the reference shown in the footer);
* ``controls``: a list of :class:`~dpexplore.ui.controls.Control`;
* ``panels``: a list of :class:`Panel` (a name, a title, which controls it depends on and when a control is unused);
* ``figure(panel_name, params) -> go.Figure``: library calls + a pure figure builder;
* ``reproduce(params) -> str``: further library calls that reproduce the parts of the view that are
  not experiments (the measured panels call :meth:`Dashboard.experiment`, and the snippet then
  contains that very call).

The base class does the rest: URL deep links from Voila's ``QUERY_STRING``, server-side clamping
of every value, recomputing only the panels whose controls changed, catching library errors and
showing them in the page (the controls keep their values; the next valid change recomputes),
timings in the status line, and the footer with the teaching-PRNG warning.
"""

from __future__ import annotations

import html
import math
import os
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import ipywidgets as widgets
import plotly.graph_objects as go

import dpexplore
from dpexplore.core.experiment import experiment_progress

from . import idle, resync
from .a11y import A11yKit
from .audit import AuditPanel, AuditReport
from .clientinput import ClientInput
from .controls import Control
from .figures import (
    add_note,
    display_output,
    finalize_figure,
    message_figure,
    plotly_mimebundle,
    style_text,
)
from .kernel import (  # noqa: F401 - approx_nbytes, _preheated, _server_log and wait_for_request are re-exported
    _in_kernel,
    _preheated,
    _server_log,
    approx_nbytes,
    wait_for_request,
)
from .pagehtml import ERROR_STYLE as _ERROR_STYLE  # noqa: F401 - re-exported (dpexplore.ui.poll_pages)
from .pagehtml import NOTE_STYLE as _NOTE_STYLE  # noqa: F401 - re-exported (dpexplore.ui.poll_pages)
from .pagehtml import (
    PRESENT_CSS,
    PRNG_FOOTER,
    footer_html,
    header_html,
    messages_html,
    panel_head_html,
    snippet_html,
    status_html,
)
from .plotpanel import PlotPanel
from .teaching import TeachingBox

__all__ = ["Dashboard", "Panel", "PRNG_FOOTER"]


class _Superseded(Exception):  # noqa: N818 - control flow, not an error
    """Raised inside a panel computation once a newer control change made it stale."""


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
    unused_when : tuple of (str, str, object)
        ``(control, other, value)`` triples: a change of ``control`` does not redraw this panel while the
        control ``other`` is at ``value`` (the panel does not read ``control`` then), e.g.
        ``(("epsilon", "noise", "bounded"),)`` for a panel whose noise ignores ε under bounded noise.

    Examples
    --------
    >>> p = Panel("recover", "Recovery", depends_on=("noise", "epsilon", "m"),
    ...           unused_when=(("epsilon", "noise", "bounded"),))
    >>> p.redraws("epsilon", {"noise": "laplace"}), p.redraws("epsilon", {"noise": "bounded"})
    (True, False)
    >>> p.redraws("m", {"noise": "bounded"}), p.redraws("seed", {"noise": "laplace"}), p.redraws(None, {})
    (True, False, True)
    """

    name: str
    title: str
    depends_on: tuple[str, ...] | None = None
    caption: str = ""
    unused_when: tuple[tuple[str, str, Any], ...] = ()

    def redraws(self, changed: str | None, params: Mapping[str, Any]) -> bool:
        """Whether a change of the control ``changed`` (None: everything) redraws this panel at ``params``."""
        if changed is None:
            return True
        if self.depends_on is not None and changed not in self.depends_on:
            return False
        return not any(control == changed and params.get(other) == value
                       for control, other, value in self.unused_when)


class Dashboard(ClientInput, widgets.VBox):
    """Base class of the paper dashboards (see the module docstring)."""

    title: ClassVar[str] = "dpexplore dashboard"
    intro: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    controls: ClassVar[list[Control]] = []
    panels: ClassVar[list[Panel]] = []
    #: how many computed results :meth:`memo` keeps per dashboard
    memo_size: ClassVar[int] = 64
    #: and how many bytes of arrays (numpy, scipy.sparse) those results may hold in all
    memo_bytes: ClassVar[int] = 64 * 2**20
    #: whether the panels show Monte-Carlo measurements (the footer says how to read them)
    measured: ClassVar[bool] = True
    #: a panel whose last draw took longer than this (s) is first drawn from one trial, then in full
    first_estimate_after: ClassVar[float] = 0.3
    #: Audit panel (shown when a subclass implements :meth:`audit_report`): what is audited, and
    #: the run-count slider's (default, maximum)
    audit_description: ClassVar[str] = ""
    audit_runs: ClassVar[tuple[int, int]] = (2000, 20000)
    #: the controls presentation mode keeps (None: the first four); the others are hidden while presenting
    present_controls: ClassVar[tuple[str, ...] | None] = None
    #: panels without a headline curve, by name, each with the reason (it compares equals, it is a table or
    #: images, …); every other panel marks the curve it is about (``headline=True``, :func:`~.figures.mark_headline`)
    no_headline: ClassVar[Mapping[str, str]] = {}

    def __init__(self, *, query_string: str | None = None, render: bool | None = None,
                 background: bool | None = None, **overrides: Any) -> None:
        """Build the dashboard and draw every panel once.

        Parameters
        ----------
        query_string : str, optional
            URL query (``"epsilon=0.5&n=800"``); default: ``$QUERY_STRING`` (set by Voila).
        render : bool, optional
            Display figures into the page (default: only inside a running kernel).
        background : bool, optional
            Compute panels in a worker thread (default: when rendering inside a kernel). The notebook
            cell then returns at once, Voila serves the page, and each panel fills in as it is
            computed; a newer control change cancels work that is no longer wanted. Without it every
            change is computed before the call returns (scripts and tests).
        **overrides
            Initial control values by name (validated like URL parameters).
        """
        super().__init__()
        self._render = _in_kernel() if render is None else render
        if self._render and _in_kernel():
            idle.install()  # the page's input, for the idle pause (before any widget opens its comm)
        self._background = (self._render and _in_kernel()) if background is None else bool(background)
        self._cv = threading.Condition()
        self._generation = 0
        self._pending: set[str] = set()
        self._request: tuple[dict[str, Any], list[str], str | None] | None = None
        self._worker: threading.Thread | None = None
        self._working = False
        self._messages_pending: list[str] = []
        self._controls = {c.name: c for c in self.controls}
        self._memo: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._memo_lock = threading.Lock()
        self._busy = False
        self._local = threading.local()  # messages are per thread: the shell's and the panel worker's
        self.messages = []
        self.errors: dict[str, str] = {}
        self.figures: dict[str, go.Figure] = {}
        self.timings: dict[str, float] = {}
        #: the experiment results each panel drew, by panel name and label (see :meth:`experiment`)
        self.results: dict[str, dict[str, Any]] = {}
        self._calls: dict[str, dict[str, tuple[Callable, dict[str, Any]]]] = {}

        values = {c.name: c.default for c in self.controls}
        # A preheated kernel (Voila's --preheat_kernel pool) runs this before any page asked for it: build
        # and draw the default view now, wait for the request, then apply the URL's parameters (if any).
        preheat = query_string is None and self._render and _preheated()
        qs = ("" if preheat else os.environ.get("QUERY_STRING", "")) if query_string is None else query_string
        url_values, page_options, notes = self._parse_query(qs)
        self.messages.extend(notes)
        values.update(url_values)
        explicit = set(url_values)
        explicit.update(overrides)
        self.presenting = False  # presentation mode (set below, once the widgets exist)
        self.teaching = TeachingBox(self, page_options)  # a preset applies first; explicit values override it
        values.update({k: v for k, v in self.teaching.initial_values().items() if k not in explicit})
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
            w.add_class(f"dpx-ctl-{name}")  # a stable handle for browser tests and benchmarks
        self._visible: dict[str, Callable[[], bool]] = {}  # controls shown only for one value of another
        for ctl in self.controls:  # controls that only matter for one choice of another control
            if ctl.shown_if:
                self._show_if(ctl)

        self._status = widgets.HTML(layout=widgets.Layout(min_height="1.5em"))
        self._message_box = widgets.HTML()
        self.plot_route = self._plot_route()
        layout = {"width": "100%", "min_height": "120px"}
        #: each panel's plot widget: a PlotPanel (redrawn in place), or an Output (the "output" route)
        # the first panel's plot (and its legend) fits on the first screen (PlotPanel.fit_screen)
        self._plots: dict[str, widgets.DOMWidget] = {
            p.name: PlotPanel(layout=widgets.Layout(**layout), fit_screen=i == 0) if self.plot_route == "react"
            else widgets.Output(layout=widgets.Layout(**layout)) for i, p in enumerate(self.panels)}
        # What is dimmed (.dpx-stale) while a panel is computed: a plain Box around a PlotPanel (the
        # anywidget view applies its initial CSS classes but not later changes of them, measured).
        self._outputs: dict[str, widgets.DOMWidget] = {
            name: widgets.Box([w], layout=widgets.Layout(**layout)) if isinstance(w, PlotPanel) else w
            for name, w in self._plots.items()}
        self._overrides = dict(overrides)
        self._panel_boxes: dict[str, widgets.VBox] = {}
        self._snippet = widgets.HTML()
        snippet_box = widgets.Accordion(children=[self._snippet], titles=("Reproduce in code",))
        snippet_box.selected_index = None
        snippet_box.add_class("dpx-snippet")

        header = widgets.HTML(header_html(self.title, self.intro))
        # the controls grid: one column beside the plots (.dpx-side), two or more when above them (narrow screens)
        controls_box = widgets.GridBox(
            list(self.widgets.values()),
            layout=widgets.Layout(grid_template_columns="repeat(auto-fill, minmax(min(100%, 380px), 1fr))",
                                  grid_gap="2px 16px", padding="6px", border="1px solid #ddd"),
        )
        controls_box.add_class("dpx-controls")
        panel_boxes = []
        self.a11y = A11yKit(self)  # accessible names, plot summaries, live region (dpexplore.ui.a11y)
        for p in self.panels:
            head = panel_head_html(p.title, p.caption)
            box = widgets.VBox([widgets.HTML(head), self.a11y.plot_with_text(p.name, self._outputs[p.name]),
                                *self.teaching.panel_widgets(p.name)])
            self.a11y.panel_box(p.name, box)
            self._panel_boxes[p.name] = box
            panel_boxes.append(box)
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
            audit_box[0].add_class("dpx-audit")
        self._present_css = widgets.HTML("", layout=widgets.Layout(display="none"))
        self.add_class("dpx-dashboard")
        header = self.a11y.with_bridge(header)  # the page-side accessibility (dpexplore.ui.a11y) on every page
        # The controls beside the plots (a sticky sidebar, STALE_CSS), so the first plot and its legend are on a
        # projector's first screen (1024×768) while the controls stay next to what they change; on a narrow
        # screen (< 880 px) the sidebar goes above the plots. The audit and the snippet take the whole width below.
        side = widgets.VBox([controls_box, self._status])
        side.add_class("dpx-side")
        main = widgets.VBox([self._message_box, *panel_boxes])
        main.add_class("dpx-main")
        body = widgets.Box([side, main])
        body.add_class("dpx-body")
        #: the idle-pause notices (dpexplore.ui.idle): empty while the page is in use; fixed at the window's foot,
        #: so its place among the children does not matter; the footer stays the last child
        self._idle_box = widgets.HTML()
        self.children = [header, self.teaching, body, *audit_box, snippet_box, self._present_css, self._idle_box,
                         footer]
        if self.teaching.present:
            self.set_presentation(True, redraw=False)
        if self._render and _in_kernel():
            resync.install()  # panels drawn while the page fetches the widget states are sent again
        self.refresh()
        self._guard_widgets()
        if preheat:
            self._await_request()
        self.idle_watch: idle.IdleWatch | None = None
        timeout = idle.timeout_from_env() if self._render and _in_kernel() else None
        if timeout is not None:  # a server that frees idle pages' kernels (LimitedKernelManager.idle_page_timeout)
            self.idle_watch = idle.IdleWatch(self._idle_box, lambda: self.teaching.page_query(self.params()), timeout)
            self.idle_watch.start()

    def _show_if(self, ctl: Control) -> None:
        other, wanted = ctl.shown_if
        src = self.widgets[other]
        self._visible[ctl.name] = lambda: src.value == wanted
        src.observe(lambda _: self._show_controls(), names="value")
        self._show_controls()

    def _show_controls(self) -> None:
        """Show each control unless it belongs to another choice, or presentation mode hides it."""
        keep = self.present_controls if self.present_controls is not None else tuple(self._controls)[:4]
        for name, w in self.widgets.items():
            shown = self._visible.get(name, lambda: True)() and (not self.presenting or name in keep)
            want = None if shown else "none"
            if w.layout.display != want:
                w.layout.display = want

    # -- presentation mode ------------------------------------------------------------------
    def set_presentation(self, on: bool, *, redraw: bool = True) -> None:
        """Presentation mode on or off: large plot text (≥ 16 px), and the page without the notebook's text
        cells, long captions, the audit, the code snippet and the secondary controls (``present_controls``).

        The drawn figures are restyled and shown again (nothing is recomputed).
        """
        on = bool(on)
        self.presenting = on
        self._present_css.value = PRESENT_CSS if on else ""
        if self.teaching.present_button.value != on:
            self.teaching.present_button.value = on  # (its observer calls this again: nothing changes)
        self.teaching.present = on
        self._show_controls()
        if redraw:
            for name, fig in list(self.figures.items()):
                self._show(name, style_text(fig, present=on))
        self.teaching.show_asked_panel()
        self.refresh_url()

    def refresh_url(self) -> None:
        """Give the copy button (and the address bar) the current view's query."""
        teaching = getattr(self, "teaching", None)
        if teaching is not None and getattr(teaching, "copy", None) is not None and hasattr(self, "widgets"):
            teaching.copy.query = teaching.page_query(self.params())

    @property
    def messages(self) -> list[str]:
        """Notes for the message box, collected by the thread that is computing (URL/clamp notes, panel notes)."""
        if not hasattr(self._local, "messages"):
            self._local.messages = []
        return self._local.messages

    @messages.setter
    def messages(self, value: list[str]) -> None:
        self._local.messages = list(value)

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
        """Return ``fn()``, cached under ``key`` (an LRU bounded by ``memo_size`` entries and ``memo_bytes``).

        Panels that share an expensive library call (a Monte-Carlo sweep, say) compute it once. The
        byte bound counts the arrays a value holds (:func:`approx_nbytes`), so a memo of n×d data
        matrices cannot grow a kernel without bound; a value larger than the whole bound is returned
        but not kept.
        """
        with self._memo_lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key][0]
        value = fn()
        size = approx_nbytes(value)
        with self._memo_lock:
            if size <= self.memo_bytes:
                self._memo[key] = (value, size)
                self._memo.move_to_end(key)
            total = sum(sz for _, sz in self._memo.values())
            while self._memo and (len(self._memo) > self.memo_size or total > self.memo_bytes):
                _, (_, sz) = self._memo.popitem(last=False)
                total -= sz
        return value

    def experiment(self, panel: str, label: str, func: Callable[..., Any], **kwargs: Any) -> Any:
        """Call the experiment ``func(**kwargs)`` for ``panel`` (memoised), and record the call for the snippet.

        The "reproduce in code" snippet then contains exactly this call (``r_<panel>[_<label>] =
        func(**kwargs)``) and prints what it computes, so it gives the numbers the panel draws.
        ``kwargs`` must be plain values (numbers, strings, lists of them).
        """
        key = ("experiment", func.__module__, func.__qualname__, repr(sorted(kwargs.items())))
        result = self.memo(key, lambda: func(**kwargs))
        self._calls.setdefault(panel, {})[label] = (func, dict(kwargs))
        self.results.setdefault(panel, {})[label] = result
        return result

    def snippet_calls(self) -> list[tuple[str, Panel, str, Callable, dict[str, Any]]]:
        """``(variable, panel, label, function, kwargs)`` of every experiment call of the view, in panel order."""
        out = []
        for p in self.panels:
            for label, (func, kwargs) in self._calls.get(p.name, {}).items():
                var = f"r_{p.name}" + (f"_{label}" if label else "")
                out.append((var, p, label, func, kwargs))
        return out

    def experiment_code(self) -> str:
        """The experiment calls of the current view as runnable code that prints each result's summary."""
        calls = self.snippet_calls()
        if not calls:
            return ""
        modules: dict[str, list[str]] = {}
        for _, _, _, func, _ in calls:
            names = modules.setdefault(func.__module__, [])
            if func.__name__ not in names:
                names.append(func.__name__)
        lines = [f"from {mod} import {', '.join(names)}" for mod, names in modules.items()]
        for var, panel, _, func, kwargs in calls:
            args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            lines += [f"# {panel.title}", f"{var} = {func.__name__}({args})", f"print({var}.summary())"]
        return "\n".join(lines) + "\n"

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
    def refresh(self, changed: str | None = None) -> None:
        """Recompute and redraw the panels that depend on ``changed`` (all panels if None).

        In background mode this only records the request and returns: the worker thread draws the
        panels, newest settings first, and drops work that a newer change made stale.
        """
        params = self.params()
        messages, self.messages = self.messages, []
        todo = [p.name for p in self.panels if p.redraws(changed, params)]
        if not self._background:
            self._draw(params, todo, messages, generation=None)
            return
        with self._cv:
            self._generation += 1
            self._pending.update(todo)
            pending = [p.name for p in self.panels if p.name in self._pending]
            self._request = (params, pending, None)
            self._messages_pending += messages
            # Dim before the worker can take the request: dimmed after a fast panel was drawn, a panel
            # stays dimmed for good (tests/ui/test_kit.py forces it). Pages still, rarely, keep one
            # drawn panel dimmed in the browser after this fix (about 1 load in 10; cause not found).
            for name in pending:
                self._outputs[name].add_class("dpx-stale")
            self._cv.notify()
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._work, name=f"{type(self).__name__}-panels", daemon=True)
                self._worker.start()
        if messages:  # URL and clamp notes are known now: show them before the panels are computed
            self._message_box.value = self._messages_html(messages)
        self._status.value = self._status_html(
            "Computing " + ", ".join(self._panel(n).title for n in pending) + " …", busy=True)

    def wait(self, timeout: float = 300.0) -> bool:
        """Block until every requested panel is drawn (background mode); True when idle.

        Examples
        --------
        >>> from dpexplore.ui.controls import Control
        >>> class Tiny(Dashboard):
        ...     controls = [Control("a", "a", "int", 1, 0, 9)]
        ...     panels = [Panel("p", "P")]
        ...     def figure(self, panel, params):
        ...         return message_figure("p", str(params["a"]))
        >>> d = Tiny(query_string="", background=True)
        >>> d.wait(), sorted(d.figures)
        (True, ['p'])
        """
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._pending or self._working:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(left)
        return True

    def _panel(self, name: str) -> Panel:
        return next(p for p in self.panels if p.name == name)

    def _work(self) -> None:
        """The worker thread: take the newest request, draw its panels, repeat."""
        while True:
            with self._cv:
                while not self._pending:
                    self._cv.wait()
                params, _, _ = self._request
                names = [p.name for p in self.panels if p.name in self._pending]
                self._pending.clear()
                messages, self._messages_pending = self._messages_pending, []
                generation = self._generation
                self._working = True
            try:
                self._draw(params, names, messages, generation=generation)
            except Exception as exc:  # noqa: BLE001 - the worker must survive anything; log it, say it in the page
                self._callback_failed(exc)
            finally:
                with self._cv:
                    self._working = False
                    self._cv.notify_all()

    def _requeue(self, names: list[str]) -> None:
        """Hand panels not drawn yet, and the notes not shown yet, to the newer request."""
        with self._cv:
            self._pending.update(names)
            self._messages_pending[:0] = [m for m in self.messages if m not in self._messages_pending]
        self.messages = []

    def _stale(self, generation: int | None) -> bool:
        return generation is not None and generation != self._generation

    def _draw(self, params: dict[str, Any], names: list[str], messages: list[str], *,
              generation: int | None) -> None:
        """Draw the panels ``names`` for ``params``; stop early (leaving them pending) once stale."""
        total = time.perf_counter()
        drawn: list[str] = []
        self.messages = messages  # panels add their own notes to this thread's list

        def check(done: int, total_runs: int) -> None:  # experiment progress: abandon stale work
            if self._stale(generation):
                raise _Superseded

        for i, name in enumerate(names):
            if self._stale(generation):
                self._requeue(names[i:])  # a newer request came in: what is not drawn yet stays to do
                return
            p = self._panel(name)
            estimate = (generation is not None and self.timings.get(name, 0.0) > self.first_estimate_after
                        and isinstance(params.get("trials"), int) and params["trials"] > 1)
            try:
                with experiment_progress(check):
                    if estimate:  # a quick first estimate from one trial, then the full band
                        quick = dict(params, trials=1)
                        fig, _ = self._figure_or_error(p, quick)
                        add_note(fig, f"First estimate from 1 trial; the {params['trials']}-trial band follows …")
                        self._show(name, fig)
                        if self._stale(generation):
                            raise _Superseded
                    t0 = time.perf_counter()
                    fig, error = self._figure_or_error(p, params)
            except _Superseded:
                self._requeue(names[i:])
                return
            if error is None:
                self.errors.pop(name, None)
            else:
                self.errors[name] = error
            self.timings[name] = time.perf_counter() - t0
            self.figures[name] = fig
            self._show(name, fig)
            self.teaching.panel_drawn(name, params)
            with self._cv:  # not when a newer request wants this panel again (it stays dimmed until drawn)
                if name not in self._pending:
                    self._outputs[name].remove_class("dpx-stale")
            drawn.append(name)
        elapsed = time.perf_counter() - total
        self._message_box.value = self._messages_html()
        self.messages = []
        self._snippet.value = self._snippet_html(params)
        self.teaching.view_changed(params)
        if getattr(self, "audit_panel", None) is not None:
            self.audit_panel.update_note()
        detail = ", ".join(f"{self._panel(n).title} {self.timings[n]:.2f} s" for n in drawn)
        self._status.value = self._status_html(f"Updated in {elapsed:.2f} s. Seed and settings: 'Reproduce in code' "
                                               "below.", title=f"Per panel: {detail}")

    def _figure_or_error(self, p: Panel, params: Mapping[str, Any]) -> tuple[go.Figure, str | None]:
        """``self.figure(p.name, params)`` with readable log ticks, or a message figure and the error text."""
        self._calls.pop(p.name, None)
        self.results.pop(p.name, None)
        error = None
        try:
            fig = self.figure(p.name, params)
        except _Superseded:
            raise
        except (ValueError, TypeError, ArithmeticError) as exc:
            error = f"{p.title}: {exc}"
            fig = message_figure(p.title, "Cannot draw this panel for these settings (see the message above).")
        except Exception as exc:  # an internal error: say so in the page, never a silent failure
            error = (
                f"{p.title}: internal error {type(exc).__name__}: {exc} — please report it with the "
                f"'reproduce in code' snippet. ({traceback.extract_tb(exc.__traceback__)[-1].name})"
            )
            fig = message_figure(p.title, "Internal error (see the message above).")
        try:  # the kit's finishing touches run on the panel's figure: a failure there is this panel's error too
            return style_text(finalize_figure(fig), present=self.presenting), error
        except Exception as exc:  # noqa: BLE001 - never a page stuck on "Computing…"
            error = error or (f"{p.title}: internal error {type(exc).__name__} while finishing the figure: {exc} — "
                              "please report it with the 'reproduce in code' snippet.")
            return message_figure(p.title, "Internal error (see the message above)."), error

    @staticmethod
    def _plot_route() -> str:
        """How panels are drawn: ``"react"`` (default) or ``"output"``, from ``$DPEXPLORE_PLOT_ROUTE``.

        ``react``: one :class:`~dpexplore.ui.plotpanel.PlotPanel` per panel, redrawn in place with the
        page's ``Plotly.react``. ``output``: an ``ipywidgets.Output`` holding plotly's mimetype bundle,
        which the browser rebuilds from scratch on every change: slider → full redraw 0.42–0.88 s
        against 0.25–0.51 s for ``react`` on the five dashboards (``benchmarks/dashboard_bench.py
        --routes react output``, one interleaved run, loaded 2-core machine); kept as the baseline.
        The variable is the server's (the kernel inherits it), never the browser's.
        """
        route = os.environ.get("DPEXPLORE_PLOT_ROUTE", "react").strip().lower() or "react"
        if route not in ("react", "output"):
            raise ValueError(f"DPEXPLORE_PLOT_ROUTE must be 'react' or 'output'; got {route!r}")
        return route

    def _show(self, name: str, fig: go.Figure) -> None:
        self.a11y.figure_shown(name, fig)  # series told apart without colour; the plot's summary and table
        if not self._render:
            return
        # No "responsive": True here. With it, a plot drawn while the dashboard is not yet on the page
        # (every first draw in Voila) gets a 0-px-high container and stays invisible (measured in
        # headless Chromium); without it the plot takes the layout's height and the container's width.
        config = {"displaylogo": False}
        target = self._plots[name]
        if isinstance(target, PlotPanel):
            target.show(fig, config)
        else:
            # The bundle is the one fig.show(renderer="plotly_mimetype") publishes, set as the Output's
            # state in one update (see figures.plotly_mimebundle / display_output for why).
            target.outputs = display_output(plotly_mimebundle(fig, config))

    # -- html pieces ---------------------------------------------------------------------
    @staticmethod
    def _status_html(text: str, busy: bool = False, title: str = "") -> str:
        return status_html(text, busy, title)

    def _messages_html(self, notes: list[str] | None = None) -> str:
        # one message, said once: panels failing for the same reason share one line
        errors = [(self._panel(name).title, text) for name, text in self.errors.items()]
        return messages_html(errors, self.messages if notes is None else notes)

    def _snippet_html(self, params: Mapping[str, Any]) -> str:
        code = self.experiment_code() + self.reproduce(params)
        query = {k: v for k, v in params.items() if self._controls[k].kind != "text"}
        return snippet_html(code, query, dpexplore.__version__)

    def _footer_html(self) -> str:
        return footer_html(self.paper, self.measured, dpexplore.__version__)
