"""What a browser sends to a dashboard: the URL query (Voila's ``QUERY_STRING``, also when a preheated
kernel receives its page late) and the widgets' comm messages.

Everything here is hostile until checked: unknown URL parameters become notes, values are parsed and
clamped by their :class:`~dpexplore.ui.controls.Control`, non-finite numbers in a widget update are
dropped, clicks on disabled or hidden controls are refused (:mod:`dpexplore.ui.guards`), and an error
in a callback is logged server side and told in the page in one short line, never as a traceback.

:class:`ClientInput` is a mixin of :class:`~dpexplore.ui.dashboard.Dashboard` (split from
:mod:`dpexplore.ui.dashboard`); it uses the dashboard's controls, widgets, teaching box and message box.
"""

from __future__ import annotations

import html
import os
import threading
import traceback
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

import ipywidgets as widgets

from . import guards
from .kernel import (
    _close_tree,
    _non_finite,
    _numeric_trait,
    _server_log,
    _unwrapped_handle_msg,
    _widget_tree,
    wait_for_request,
)
from .teaching import PAGE_OPTIONS, TeachingBox

__all__ = ["ClientInput"]


class ClientInput:
    """Mixin of :class:`~dpexplore.ui.dashboard.Dashboard`: reads the URL query and guards client messages.

    Its methods are private: the dashboard's constructor calls them (``_parse_query``,
    ``_await_request``, ``_guard_widgets``), as do the teaching box and the poll (``_callback_failed``).
    """

    # -- URL parameters --------------------------------------------------------------------
    def _parse_query(self, qs: str) -> tuple[dict[str, Any], dict[str, str], list[str]]:
        """Control values, page options (``mode``, ``preset``) and notes from a URL query string."""
        values: dict[str, Any] = {}
        page_options: dict[str, str] = {}  # ?mode=predict, ?preset=name (dpexplore.ui.teaching)
        notes: list[str] = []
        for key, text in parse_qsl(qs, keep_blank_values=True):
            if key.startswith("voila"):
                continue
            if key in PAGE_OPTIONS and key not in self._controls:
                page_options[key] = text
                continue
            ctl = self._controls.get(key)
            if ctl is None:
                notes.append(f"URL parameter {html.escape(key)!s} ignored: not a control of this dashboard "
                             f"(known: {', '.join(self._controls)})")
                continue
            try:
                values[key] = ctl.parse(text)
            except ValueError as exc:
                notes.append(html.escape(str(exc)))
        return values, page_options, notes

    def _await_request(self) -> None:
        """Preheated kernel: wait (bounded) until Voila hands this kernel to a page, then apply its URL.

        The default view is already built and its panels are being computed in the background, so a
        page without parameters is complete at once. If no page arrives within
        ``$DPEXPLORE_PREHEAT_WAIT`` seconds (the server recycles a pooled kernel before that, see
        :class:`dpexplore.hosting.kernels.LimitedKernelManager`), the cell returns with the default view and
        a thread keeps waiting, so a late page still gets its deep link.
        """
        try:
            timeout = float(os.environ.get("DPEXPLORE_PREHEAT_WAIT", "150"))
        except ValueError:
            timeout = 150.0
        if wait_for_request(timeout):
            self._apply_query(os.environ.get("QUERY_STRING", ""))
            return

        def late():
            if wait_for_request(24 * 3600.0):
                self._apply_query(os.environ.get("QUERY_STRING", ""))

        threading.Thread(target=late, name="dpexplore-late-request", daemon=True).start()

    def _apply_query(self, qs: str) -> None:
        """Apply a URL query string to the built dashboard: what the constructor does with ``query_string``."""
        try:
            url_values, page_options, notes = self._parse_query(qs)
            for key in self._overrides:
                url_values.pop(key, None)  # constructor arguments win over the URL, as in __init__
            if not (url_values or page_options or notes):
                return  # the default view, already drawn (or being drawn)
            values = dict(url_values)
            if page_options:  # ?mode= / ?preset=: a new teaching box for them
                old = self.teaching
                self.teaching = TeachingBox(self, page_options)
                values.update({k: v for k, v in self.teaching.initial_values().items()
                               if k not in url_values and k not in self._overrides})
                self.children = tuple(self.teaching if c is old else c for c in self.children)
                for name, box in self._panel_boxes.items():
                    box.children = (*box.children[:2], *self.teaching.panel_widgets(name))
                _close_tree(old)
                if self.teaching.present != self.presenting:
                    self.set_presentation(self.teaching.present, redraw=False)
            self.messages.extend(notes)
            self._busy = True
            try:
                for key, val in values.items():
                    self.widgets[key].value = val
            finally:
                self._busy = False
            self.refresh()
            self._guard_widgets()
        except Exception as exc:  # noqa: BLE001 - never a traceback to the page; the log has it
            self._callback_failed(exc)

    # -- client messages -------------------------------------------------------------------
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
        for w in _widget_tree(self):
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
                why = guards.refusal(self, w, msg)  # a click/change on a disabled or hidden control
                if why is not None:
                    guards.note_refusal(self, w, why, _server_log)
                    return
                inner(w, msg)
            except Exception as exc:  # noqa: BLE001 - see _guard_widgets
                self._callback_failed(exc)

        return guarded
