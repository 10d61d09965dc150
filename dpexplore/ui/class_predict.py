"""Class-wide predictions in a dashboard, drawn: ask the room, watch the count, close and reveal.

The logic is :mod:`dpexplore.classroom.predictions` (a prediction round in the poll store); this module
draws it inside a dashboard's predict box (:class:`~dpexplore.ui.teaching.TeachingBox`):

* **Ask the room** (instructors only: the launcher's instructor link, a hub's instructors group, or code run
  outside Voila) opens a round for the current question and shows the box to project: join code, QR code,
  the students' link (the poll page, ``06_class_poll.ipynb?join=CODE``) and how many predictions are in,
  updated by a background thread without a reload;
* **Close the round and reveal** closes it, reads the counts and hands them to the teaching box, which
  applies the question's change and shows :func:`histogram_html` beside the measured outcome.
"""

from __future__ import annotations

import html
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from ..classroom.credentials import instructor_identity
from ..classroom.hub import hub_student_link
from ..classroom.links import page_environ, qr_svg, student_link
from ..classroom.predictions import RoomPrediction, open_round, room_prediction
from ..classroom.store import ChoiceTally, PollError, PollStore

__all__ = ["RoomRound", "histogram_html", "count_html"]

#: bar colours of the room's histogram: the right answer, every other answer (Okabe–Ito)
RIGHT_COLOR, OTHER_COLOR = "#009E73", "#56B4E9"


def histogram_html(room: RoomPrediction) -> str:
    """The room's predictions as a bar per answer (text first: counts and shares are read, not only seen).

    Examples
    --------
    >>> from dpexplore.classroom.predictions import RoomPrediction
    >>> "2 of 3 (67%) predicted it" in histogram_html(RoomPrediction(("up", "down"), (1, 2), 1))
    True
    """
    n = room.total
    e = html.escape
    rows = []
    for i, (choice, count, frac) in enumerate(zip(room.choices, room.counts, room.fractions)):
        right = i == room.answer
        bar = (f"<span aria-hidden='true' style='display:inline-block;height:1em;vertical-align:middle;"
               f"width:{12 * frac:.2f}em;background:{RIGHT_COLOR if right else OTHER_COLOR};"
               "margin-right:0.4em'></span>")
        rows.append(f"<div class='dpx-room-bar' data-choice='{e(choice)}' data-count='{count}' style='margin:1px 0'>"
                    f"<span style='display:inline-block;min-width:11em'>{'<b>' if right else ''}{e(choice)}"
                    f"{' ✓' if right else ''}{'</b>' if right else ''}</span> {bar}{count} ({frac:.0%})</div>")
    if n == 0:
        summary = "Nobody in the room predicted (no answers came in)."
    else:
        summary = (f"{room.right} of {n} ({room.right / n:.0%}) predicted it"
                   + ("; most of the room did." if room.most_chosen == (room.answer,) else "."))
    return (f"<div class='dpx-room-histogram' style='margin:0.3em 0'><div><b>The room predicted</b> "
            f"({n} prediction{'s' if n != 1 else ''}):</div>{''.join(rows)}"
            f"<div class='dpx-room-summary'>{summary}</div></div>")


def count_html(t: ChoiceTally) -> str:
    """The line under the projected box: predictions in, page views, open or closed."""
    state = "open" if t.info.is_open else "closed"
    return (f"<div class='dpx-room-count' style='font-size:1.3em;margin:0.2em 0'>Predictions in: "
            f"<b>{t.responses}</b> <span style='font-size:0.75em;color:#555'>({t.tokens} page view"
            f"{'s' if t.tokens != 1 else ''}; round {state})</span></div>")


def _box_html(code: str, question: str, environ: Mapping[str, str]) -> str:
    env = page_environ(environ)  # the students' page is the poll page, through the hub under a hub
    link = hub_student_link(code, env) or student_link(code, env)
    e = html.escape
    if link.full and not link.loopback_only:
        qr = f"<div class='dpx-room-qr' style='float:right;margin:0 0 0.5em 1em'>{qr_svg(link.full, scale=4)}</div>"
        address = (f"<div style='font-size:1.1em;margin:0.2em 0'>or open <b class='dpx-room-short-link' "
                   f"style='font-family:monospace'>{e(link.full)}</b></div>")
    else:
        qr = ""
        address = ("<div style='color:#8a4b00'>No QR code: this page was opened as this machine only (127.0.0.1). "
                   "Serve with <code>--host 0.0.0.0</code> so the students' devices can reach it.</div>"
                   if link.loopback_only else "")
    return (f"{qr}<div><b>Ask the room — project this box.</b> Students open the poll page and type the code "
            f"(or scan): they pick one answer to <i>{e(question)}</i></div>"
            f"<div>Join code <span class='dpx-room-code' style='font-size:2em;font-family:monospace;"
            f"letter-spacing:0.15em;font-weight:bold'>{code}</span></div>{address}"
            f"<div style='font-size:0.9em'>Students' page: <a class='dpx-room-link' href='{e(link.relative)}' "
            f"target='_blank' style='color:#0072B2;text-decoration:underline'>{e(link.relative)}</a> · predictions "
            "are stored as given (not randomized: a guess about a plot is not sensitive) and deleted with the "
            "round; only the counts per answer are shown.</div>")


class RoomRound(widgets.VBox):
    """The class-wide part of a predict box (see the module docstring).

    Parameters
    ----------
    on_reveal : callable
        Called with the :class:`~dpexplore.classroom.predictions.RoomPrediction` when the instructor
        closes the round (the teaching box applies the change and shows it beside the panel).
    on_error : callable
        Called with an exception raised by a button (the dashboard shows it once, never a traceback).
    on_ask : callable, optional
        Called when a round has been opened (the teaching box hides the page's own answer buttons).
    store : PollStore, optional
        The poll store (default: opened at the first *Ask the room*).
    environ : mapping, optional
        The page request's variables (default ``os.environ``; read at each use: a preheated kernel gets
        its request after the dashboard was built).
    """

    #: seconds between two reads of the count
    poll_interval = 2.0

    def __init__(self, on_reveal: Callable[[RoomPrediction], None], on_error: Callable[[BaseException], None], *,
                 on_ask: Callable[[], None] | None = None, store: PollStore | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        super().__init__(layout=widgets.Layout(display="none", margin="4px 0"))
        self.add_class("dpx-room")
        self._on_reveal, self._on_error, self._on_ask = on_reveal, on_error, on_ask
        self._store, self._environ = store, environ
        self.question: Mapping[str, Any] | None = None
        self.round = None  # PollCreated of the open round
        self.tally: ChoiceTally | None = None
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self.ask_button = widgets.Button(description="Ask the room", icon="users", button_style="warning",
                                         tooltip="Open a prediction round: every student answers on their own "
                                                 "device; the room's answers are shown beside the plot")
        self.ask_button.add_class("dpx-room-ask")
        self.reveal_button = widgets.Button(description="Close the round and reveal", button_style="primary",
                                            layout=widgets.Layout(width="auto", display="none"))
        self.reveal_button.add_class("dpx-room-reveal")
        self.box = widgets.HTML(layout=widgets.Layout(display="none", border="2px solid #E69F00",
                                                      padding="4px 10px"))
        self.box.add_class("dpx-room-box")
        self.count = widgets.HTML()
        self.ask_button.on_click(lambda _: self._guard(self.ask))
        self.reveal_button.on_click(lambda _: self._guard(self.reveal))
        # the count right under the buttons: in a projector's side column it stays in view above the long box
        self.children = [widgets.HBox([self.ask_button, self.reveal_button]), self.count, self.box]

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    def instructor(self) -> str | None:
        """Who may ask the room on this page (None: a student's page, which shows no room controls)."""
        return instructor_identity(self.environ)[0]

    def show_for(self, question: Mapping[str, Any] | None) -> None:
        """A new question is shown: close any open round and offer *Ask the room* (to instructors only)."""
        self.stop_watching()
        with self._lock:
            self.question, self.round, self.tally = question, None, None
        self.box.value, self.count.value = "", ""
        self.box.layout.display = "none"
        self.reveal_button.layout.display = "none"
        self.ask_button.disabled = False
        self.layout.display = None if question is not None and self.instructor() is not None else "none"

    @property
    def is_open(self) -> bool:
        """A round is asked and not yet revealed."""
        return self.round is not None

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (PollError, TypeError, ValueError, OSError, sqlite3.Error, RuntimeError) as exc:
            self._on_error(exc)  # in words in the page; anything else reaches the dashboard's guard (logged)

    def ask(self) -> None:
        """Open a round for the current question (the *Ask the room* button)."""
        who = self.instructor()
        if who is None:
            raise PollError("asking the room needs the instructor link (or a hub's instructors group)")
        if self.question is None or self.round is not None:
            raise PollError("this question has been asked already: reveal it, or go to the next question")
        if self._store is None:
            self._store = PollStore()
        created = open_round(self._store, self.question, creator=who)
        with self._lock:
            self.round = created
        self.ask_button.disabled = True
        self.box.value = _box_html(created.code, created.question, self.environ)
        self.box.layout.display = None
        self.reveal_button.layout.display = None
        self.check_now()
        if self._on_ask is not None:
            self._on_ask()
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, args=(self._stop,), name="room-watch", daemon=True)
        self._watcher.start()

    def check_now(self) -> ChoiceTally | None:
        """Read the count once and show it (the watcher thread calls this)."""
        with self._lock:
            r = self.round
            if r is None:
                return None
            t = self._store.choice_tally(r.code, r.secret)
            if self.tally is None or (t.counts, t.tokens, t.info.is_open) != (self.tally.counts, self.tally.tokens,
                                                                             self.tally.info.is_open):
                self.tally = t
                self.count.value = count_html(t)
            return t

    def _watch(self, stop: threading.Event) -> None:
        deadline = time.time() + 3 * 3600
        while not stop.wait(min(max(float(self.poll_interval), 0.2), 10.0)) and time.time() < deadline:
            try:
                if self.check_now() is None:
                    return
            except PollError:  # expired and deleted
                return
            except (sqlite3.Error, OSError):  # a busy database: try again at the next tick
                continue

    def stop_watching(self) -> None:
        """Stop the count's background thread."""
        self._stop.set()
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join(timeout=5)
        self._watcher = None

    def reveal(self) -> None:
        """Close the round, read the room's counts and hand them on (the *Close the round and reveal* button)."""
        with self._lock:
            r = self.round
            if r is None or self.question is None:
                raise PollError("ask the room first")
        self.stop_watching()
        self._store.close_poll(r.code, r.secret)
        t = self._store.choice_tally(r.code, r.secret)
        with self._lock:
            self.tally, self.round = t, None
        self.count.value = count_html(t)
        self.box.layout.display = "none"
        self.reveal_button.layout.display = "none"
        self._on_reveal(room_prediction(t, self.question["answer"]))
