"""The live class poll (notebook ``06_class_poll.ipynb``): a student page first, an instructor page
for the instructor only.

* no parameter — **student, landing**: a field for the join code the instructor projects;
* ``?join=CODE`` — **student**: answer yes/no, watch the coin flip in this page's kernel, send only
  the randomized bit, read how deniable it is; after Send the page is done (nothing stays active);
* ``?teach=1`` — **instructor, new poll** (only with an instructor credential, see
  :mod:`dpexplore.classroom.credentials`: the launcher's instructor link, or code run outside Voila):
  type a question, choose ε from a short list or type it, optionally a closing time, *Create poll*;
  the page becomes the **class view**: join code, QR code and short link to project, the tally;
* ``?poll=CODE`` — the class view again, for the instructor who created it (no secret in the URL).

The class view polls the database in a background thread (every :attr:`ClassPoll.poll_interval`
seconds, for at most the poll's lifetime) and redraws when the tally changes: no reload.

Every byte from the browser is hostile: the query string's length and the join code's format are
checked before any database query; one page joins once; failed joins are rate-limited per page
(:attr:`ClassPoll.failed_join_limit`) and per client address (in the store); clicks on hidden or
disabled buttons and changes of disabled inputs are refused server side (:mod:`dpexplore.ui.guards`);
no widget of the page sends a traceback to the client.
"""

from __future__ import annotations

import collections
import html
import math
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from ..classroom import stats as poll_stats
from ..classroom.credentials import in_voila_page, instructor_identity
from ..classroom.hub import hub_voter, under_hub
from ..classroom.kary import KaryTally, randomize_choice
from ..classroom.store import (
    MAX_EPSILON,
    MAX_LIFETIME_HOURS,
    MAX_QUESTION_CHARS,
    MIN_CLOSE_MINUTES,
    MIN_EPSILON,
    AlreadyAnswered,
    PollClosed,
    PollError,
    PollStore,
    RateLimited,
    Tally,
    check_join_code,
)
from ..core.random import as_generator
from ..core.randomized_response import flip_probability, randomized_response
from ..core.validation import check_real
from . import poll_kary as kpages
from . import poll_pages as pages
from .controls import Control
from .dashboard import (
    Dashboard,
    Panel,
    _preheated,
    _server_log,
    wait_for_request,
)
from .figures import base_figure, color_for, message_figure
from .pagehtml import PRESENT_CSS, header_html

__all__ = ["ClassPoll", "on_binder", "MAX_QUERY_CHARS", "EPSILON_CHOICES"]

on_binder = pages.on_binder

#: longest query string the page reads at all
MAX_QUERY_CHARS = 2000
_POLL_KEYS = ("join", "poll", "secret", "teach")
#: the ε a poll offers in its list (typing another value in [MIN_EPSILON, MAX_EPSILON] is possible)
EPSILON_CHOICES = (("0.5 (a flip in 38% of answers)", 0.5), ("1 (27%)", 1.0),
                   ("ln 3 ≈ 1.10 (25%: odds 3 to 1)", math.log(3)), ("2 (12%)", 2.0), ("3 (4.7%)", 3.0),
                   ("5 (0.7%)", 5.0))
class ClassPoll(Dashboard):
    """A live randomized-response class poll (see the module docstring for the modes).

    Parameters
    ----------
    query_string : str, optional
        Default ``$QUERY_STRING`` (Voila passes the URL's query there).
    store : PollStore, optional
        Default: ``PollStore()`` in ``$DPEXPLORE_POLL_DIR``.
    environ : mapping, optional
        Where the instructor credential, the client address and the page's address are read
        (default ``os.environ``: Voila puts the request's variables there).
    **kwargs
        Passed to :class:`~dpexplore.ui.dashboard.Dashboard`.

    Examples
    --------
    >>> import tempfile
    >>> from dpexplore.classroom import PollStore
    >>> store = PollStore(tempfile.mkdtemp())
    >>> teacher = ClassPoll(query_string="teach=1", store=store, render=False)
    >>> teacher.question.value = "Have you ever copied homework?"
    >>> teacher.create_poll()
    >>> code = teacher.poll.code
    >>> student = ClassPoll(query_string=f"join={code}", store=store, render=False)
    >>> student.answer.value = "Yes"
    >>> student.flip_coin(); student.send()
    >>> teacher.check_now().responses
    1
    >>> teacher.stop_watching()
    """

    title = "Class poll: randomized response, live"
    intro = (
        "The oldest differential-privacy demonstration, run across a class. Each student answers a sensitive "
        "yes/no question; a biased coin in <b>the student's own kernel</b> flips the answer with probability "
        "μ = 1/(e<sup>ε</sup> + 1) before anything is sent, so no single answer can be trusted — yet the "
        "class's fraction can be estimated: E[reported yes] = μ + (1 − 2μ)·π, so π̂ = (p̂ − μ)/(1 − 2μ)."
    )
    paper = ("S. L. Warner, <i>Randomized response: a survey technique for eliminating evasive answer bias</i>, "
             "JASA 60 (1965); the ε-DP reading: Dwork &amp; Roth, <i>The Algorithmic Foundations of Differential "
             "Privacy</i> (2014), §3.2.")
    controls = [
        Control("epsilon", "ε (per answer)", "choice", 1.0, options=EPSILON_CHOICES,
                help="ε of every student's randomized response (the flip probability in brackets); fixed once "
                     "the poll is created"),
        Control("truth", "simulated true yes-fraction", "float", 0.3, 0.0, 1.0, step=0.05,
                help="the known truth of the simulated classes (reveal the simulation)"),
        Control("reveal", "reveal the simulation", "bool", False),
        Control("seed", "simulation seed", "int", 0, 0, 10_000),
    ]
    panels = [
        Panel("class", "The class so far", depends_on=("epsilon", "tally"),
              caption="Raw fraction of 'yes' reports and the debiased estimate of the true fraction with its "
                      "95% interval (exact Clopper–Pearson on the raw fraction, mapped through the debiasing "
                      "map and clipped to [0, 1]; coverage ≥ 95%)."),
        Panel("shrink", "How the interval would shrink", depends_on=("epsilon", "tally"),
              caption="Half-width of the 95% interval against the number of students, at this poll's ε and at "
                      "ε/2 and 2ε, for a class whose true fraction is the current estimate (evaluated exactly "
                      "at the count such a class reports on average). The marker is this class."),
        Panel("simulation", "Reveal the simulation: classes of known truth",
              depends_on=("epsilon", "truth", "reveal", "seed", "tally"),
              caption="Simulated classes of the same size whose true fraction is known: about 95 of 100 "
                      "intervals should contain it."),
    ]
    #: presentation mode keeps the reveal of the simulation (ε is in the form; truth and seed are the instructor's)
    present_controls = ("reveal",)
    #: seconds between two database reads of the class view (bounded to [0.2, 10])
    poll_interval: ClassVar[float] = 1.0
    #: simulated classes in the reveal panel
    simulated_classes: ClassVar[int] = 40
    #: failed joins one page may make in a window of this many seconds: (count, seconds)
    failed_join_limit: ClassVar[tuple[int, float]] = (5, 60.0)

    def __init__(self, *, query_string: str | None = None, store: PollStore | None = None,
                 environ: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        if query_string is None and _preheated():
            # a preheated kernel: the poll to join is in the URL, so wait for the page before building
            # (the imports are done; a late page past the wait opens the student's landing page)
            try:
                wait_for_request(float(os.environ.get("DPEXPLORE_PREHEAT_WAIT", "150")))
            except ValueError:
                wait_for_request(150.0)
        self._env = os.environ if environ is None else environ
        qs = self._env.get("QUERY_STRING", "") if query_string is None else query_string
        problems: list[str] = []
        wanted: dict[str, str] = {}
        rest: list[tuple[str, str]] = []
        if len(qs) > MAX_QUERY_CHARS:
            problems.append(f"The URL's query is {len(qs)} characters long (at most {MAX_QUERY_CHARS} are read): "
                            "ignored.")
            qs = ""
        for key, value in parse_qsl(qs, keep_blank_values=True):
            if key in _POLL_KEYS:
                if key in wanted:
                    problems.append(f"URL parameter {html.escape(key)} given twice: using the first.")
                    continue
                wanted[key] = value
            elif key != "instructor":  # the server exchanges ?instructor= for a cookie; never read here
                rest.append((key, value))
        self.instructor, why = instructor_identity(self._env)
        #: the hub user's poll voter ("hub:<name>": one answer per hub user), None without a hub
        self.voter = hub_voter(self._env)
        if self.instructor is None and under_hub(self._env):
            why = pages.HUB_NOT_INSTRUCTOR
        client = self._env.get("HTTP_X_DPX_CLIENT", "")
        self.client = client[:200] if isinstance(client, str) and client else None
        wants_instructor = "join" not in wanted and ("teach" in wanted or "poll" in wanted or "secret" in wanted)
        if query_string is None and not wanted and not in_voila_page(self._env):
            wants_instructor = True  # JupyterLab or a script: the server's own user runs the notebook
        if wants_instructor and self.instructor is None:
            problems.append(f"This is the students' page: {html.escape(why)}.")
        self.mode = "instructor" if wants_instructor and self.instructor is not None else "student"
        self.poll = None  # PollInfo of the live poll (instructor) or of the joined poll (student)
        self._secret: str | None = None
        self._tally: Tally | None = None
        self._token: str | None = None
        self._coin: dict[str, Any] | None = None
        self._coin_seed: int | None = None  # one coin per page token: drawn at the first flip, never re-drawn
        self._done = False  # the student page has sent (or can no longer send): nothing stays active
        self._join_failures: collections.deque[float] = collections.deque()
        self._refresh_lock = threading.RLock()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self.update_times: list[tuple[int, float]] = []  # (responses, time.time()) of each class-view update
        try:
            self.store = store if store is not None else PollStore()
            store_error = None
        except (OSError, sqlite3.Error, RuntimeError) as exc:
            self.store, store_error = None, f"The poll database cannot be opened: {html.escape(str(exc))}"
        if self.mode == "student":
            self.controls = []  # the student page has no simulation controls and no plots
            self.panels = []
            kwargs.setdefault("background", False)
        super().__init__(query_string=urlencode(rest), **kwargs)
        self._poll_messages = widgets.HTML(layout=widgets.Layout(min_height="0"))
        self._poll_messages.add_class("dpx-poll-messages")
        binder = [widgets.HTML(pages.box("note", pages.BINDER_NOTE))] if pages.on_binder(self._env) else []
        notes = [html.escape(p) for p in problems if not p.startswith("This is the students' page")]
        notes += [p for p in problems if p.startswith("This is the students' page")]  # already escaped
        if store_error:
            notes.append(store_error)
        header = self.children[0]
        if self.mode == "student":
            self._build_student()
            footer = widgets.HTML(pages.student_footer_html())
            self.children = [header, *binder, self._poll_messages, self._student_box, self._message_box, footer]
            self._show_messages(errors=notes)
            if "join" in wanted and self.store is not None:
                self._join(wanted["join"])
            else:
                self._join_row.layout.display = None  # the landing page: type the projected code
            extra = sorted(set(wanted) - {"join", "teach", "poll", "secret"})
            if extra:
                self._show_messages(notes=[f"URL parameter(s) {', '.join(extra)} ignored on a student page."])
        else:
            self._build_instructor()
            body = [c for c in self.children[1:] if c is not self.teaching]  # no view link: it has no code
            self.children = [header, *binder, self._poll_messages, self._instructor_box, *body]
            self._show_messages(errors=notes)
            if "secret" in wanted:
                self._show_messages(notes=["Links with <code>secret=</code> are no longer used (they leaked into "
                                           "logs and Referer headers): the poll's creator re-opens its class view "
                                           "with <code>?poll=CODE</code>."])
            if "poll" in wanted and self.store is not None:
                self._reopen(wanted["poll"])
        self._guard_widgets()  # the poll's own widgets too: no traceback, no click on a hidden/disabled button

    # -- messages and actions ---------------------------------------------------------------
    def _show_messages(self, *, errors: list[str] = (), notes: list[str] = (), replace: bool = False) -> None:
        parts = [pages.box("error", e) for e in errors] + [pages.box("note", n) for n in notes]
        self._poll_messages.value = ("" if replace else self._poll_messages.value) + "".join(parts)

    def _clear_messages(self) -> None:
        self._poll_messages.value = ""

    def _act(self, fn: Callable[[], None], prefix: str = "") -> None:
        """Run a button's action; a library error becomes a message in the page, anything else is logged
        server side (:meth:`_callback_failed`): never a traceback to the client."""
        try:
            fn()
        except (PollError, ValueError, TypeError) as exc:
            self._show_messages(errors=[prefix + html.escape(str(exc))], replace=True)
        except (sqlite3.Error, OSError) as exc:
            self._show_messages(errors=[f"{prefix}the poll database failed ({html.escape(type(exc).__name__)}); "
                                        "try again"], replace=True)
        except Exception as exc:  # noqa: BLE001 - a callback error never reaches the client as a traceback
            self._callback_failed(exc)

    # keep the old names (tests and notebooks use them)
    def _guard(self, fn) -> None:
        self._act(fn)

    _student_guard = _guard

    # -- instructor -------------------------------------------------------------------
    def _build_instructor(self) -> None:
        self.question = widgets.Textarea(placeholder="A yes/no question, e.g. 'Have you ever cheated in an exam?'",
                                         layout=widgets.Layout(width="40em", height="4em"))
        self.question.add_class("dpx-poll-question")
        eps_widget = self.widgets["epsilon"]
        stack = list(self.children)  # the ε list moves from the controls (wherever the layout put them) into the form
        while stack:
            box = stack.pop()
            if isinstance(box, widgets.Box):
                if eps_widget in box.children:
                    box.children = [c for c in box.children if c is not eps_widget]
                stack.extend(box.children)
        self.epsilon_typed = widgets.Text(placeholder="or type ε (0.05 to 10)", layout=widgets.Layout(width="14em"))
        self.epsilon_typed.add_class("dpx-poll-epsilon-typed")
        kpages.form_widgets(self)  # a k-choice question: self.labels (one per line; empty: yes/no), self.oracle
        self.closes_in = widgets.BoundedIntText(value=0, min=0, max=int(MAX_LIFETIME_HOURS * 60),
                                                description="closes after (min, 0 = open until it expires)",
                                                style={"description_width": "initial"},
                                                layout=widgets.Layout(width="28em"))
        self.create_button = widgets.Button(description="Create poll", button_style="primary", icon="plus")
        self.create_button.add_class("dpx-poll-create")
        self.create_button.on_click(lambda _: self._act(self.create_poll))
        self.close_button = widgets.Button(description="Close poll (stop accepting answers)",
                                           layout=widgets.Layout(width="auto"))
        self.close_button.on_click(lambda _: self._act(self.close_poll))
        self._links = widgets.HTML()
        self._copy = pages.copy_widget("")
        self._copy.add_class("dpx-poll-copywrap")
        self._tally_html = widgets.HTML("<div class='dpx-poll-tally'>No poll yet.</div>")
        self._form = widgets.VBox([
            widgets.HTML(f"<b>New poll</b> (instructor: {html.escape(self.instructor or '')}). Question (at most "
                         f"{MAX_QUESTION_CHARS} characters); every student's answer is randomized with ε."),
            self.question, self.labels, self.oracle, widgets.HBox([eps_widget, self.epsilon_typed]),
            widgets.HBox([self.closes_in, self.create_button])])
        # presentation mode (?present=1 too): the teaching bar is not on this page (it has no view link), so its
        # own toggle; the kit's presentation mode hides the guide and enlarges the plot text
        self.present_toggle = widgets.ToggleButton(value=self.presenting, description="Present", icon="desktop",
                                                   tooltip="For a projector: large text, no guide (?present=1)")
        self.present_toggle.add_class("dpx-present-toggle")
        self.present_toggle.observe(lambda ch: self._act(lambda: self.set_presentation(ch["new"])), names="value")
        self._live = widgets.VBox([self._links, self._copy, self._tally_html,
                                   widgets.HBox([self.close_button, self.present_toggle])],
                                  layout=widgets.Layout(display="none"))
        self._instructor_box = widgets.VBox([self._form, self._live],
                                            layout=widgets.Layout(border="1px solid #ddd", padding="6px",
                                                                  margin="4px 0"))

    def set_presentation(self, on: bool, *, redraw: bool = True) -> None:
        """The kit's presentation mode, plus the class view's own
        (:data:`~dpexplore.ui.poll_pages.POLL_PRESENT_CSS`): the counts and the estimate plot on one projector
        screen."""
        super().set_presentation(on, redraw=redraw)
        if self.presenting:
            self._present_css.value = PRESENT_CSS + pages.POLL_PRESENT_CSS
        toggle = getattr(self, "present_toggle", None)
        if toggle is not None and toggle.value != self.presenting:
            toggle.value = self.presenting

    def _chosen_epsilon(self) -> float:
        typed = self.epsilon_typed.value
        if not isinstance(typed, str) or not typed.strip():
            return float(self.params()["epsilon"])
        text = typed.strip()
        if len(text) > 24:
            raise ValueError(f"the typed ε must be a number in [{MIN_EPSILON:g}, {MAX_EPSILON:g}]; got {len(text)} "
                             "characters")
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"the typed ε must be a number in [{MIN_EPSILON:g}, {MAX_EPSILON:g}]; got "
                             f"{html.unescape(text[:24])!r}") from None
        return check_real(value, "the typed ε", low=MIN_EPSILON, high=MAX_EPSILON)

    def create_poll(self) -> None:
        """Create the poll from the form (the Create button calls this); needs the instructor credential."""
        if self.store is None:
            raise PollError("no poll database (see the message above)")
        if self.instructor is None:  # pragma: no cover - an instructor page exists only with one
            raise PollError("creating a poll needs the instructor link")
        if self.poll is not None:
            raise PollError("this page already runs a poll; open the page again for a new one")
        minutes = self.closes_in.value
        longest = int(MAX_LIFETIME_HOURS * 60)
        if not isinstance(minutes, int) or not (minutes == 0 or MIN_CLOSE_MINUTES <= minutes <= longest):
            raise PollError(f"closing time must be 0 (open until it expires) or {MIN_CLOSE_MINUTES:g} to "
                            f"{int(MAX_LIFETIME_HOURS * 60)} minutes; got {minutes!r}")
        question = self.question.value if isinstance(self.question.value, str) else None
        labels = kpages.parse_labels(self.labels.value)
        kw = {"epsilon": self._chosen_epsilon(), "closes_in_minutes": minutes or None, "creator": self.instructor,
              "lifetime_hours": min(MAX_LIFETIME_HOURS, max(3.0, minutes / 60 + 1.0))}
        created = (self.store.create_poll(question, **kw) if labels is None else
                   self.store.create_kary_poll(question, labels, oracle=self.oracle.value, **kw))
        self._clear_messages()
        self._start_live(created.code, created.secret)

    def _reopen(self, code: str) -> None:
        try:
            self._start_live(check_join_code(code), None)
        except (PollError, TypeError) as exc:
            self._show_messages(errors=[f"Cannot open the class view: {html.escape(str(exc))}. You can create a "
                                        "new poll below."])

    def _read_tally(self, code: str) -> Tally | KaryTally:
        kind = self.poll if self.poll is not None else self.store.poll_info(code)
        read = self.store.kary_tally if kind.oracle is not None else self.store.tally
        if self._secret is not None:
            return read(code, self._secret)
        return read(code, creator=self.instructor)

    def _html(self, t: Tally | KaryTally) -> str:
        return (kpages.tally_html if isinstance(t, KaryTally) else pages.tally_html)(t, self._env)

    def _start_live(self, code: str, secret: str | None) -> None:
        self._secret = secret
        try:
            tally = self._read_tally(code)  # checks the secret or the creator before anything is shown
        except BaseException:
            self._secret = None
            raise
        self.poll, self._tally = tally.info, tally
        self._form.layout.display = "none"
        self._live.layout.display = None
        self._links.value = pages.links_html(code, tally, self._env)
        link = pages.poll_link(code, self._env)
        self._copy.text = link.full if link.full and not link.loopback_only else link.relative
        self._tally_html.value = self._html(tally)
        self.update_times.append((tally.responses, time.time()))
        self.refresh("tally")
        self._watcher = threading.Thread(target=self._watch, name="poll-watch", daemon=True)
        self._watcher.start()

    def check_now(self) -> Tally | KaryTally:
        """Read the tally once and update the class view if it changed (the watcher thread calls this)."""
        t = self._read_tally(self.poll.code)
        old = self._tally

        def counts(x):
            return x.responses, getattr(x, "yes", None), getattr(x, "report_counts", None)

        if old is None or (*counts(t), t.tokens, t.info.is_open) != (*counts(old), old.tokens, old.info.is_open):
            self._tally = t
            self._tally_html.value = self._html(t)
            self.update_times.append((t.responses, time.time()))
            if old is None or counts(t) != counts(old):
                self.refresh("tally")
        return t

    def _watch(self) -> None:
        interval = min(max(float(self.poll_interval), 0.2), 10.0)
        deadline = time.time() + MAX_LIFETIME_HOURS * 3600
        while not self._stop.wait(interval) and time.time() < deadline:
            try:
                t = self.check_now()
            except PollError as exc:  # expired and deleted, typically
                self._show_messages(errors=[f"The class view stopped: {html.escape(str(exc))}"], replace=True)
                return
            except (sqlite3.Error, OSError) as exc:  # a locked or busy database: say so, try again
                self._show_messages(errors=[f"reading the poll database failed ({html.escape(type(exc).__name__)}); "
                                            "retrying"], replace=True)
                continue
            except Exception as exc:  # noqa: BLE001 - logged server side, the thread ends
                _server_log(f"dpexplore: the class view's watcher stopped: {type(exc).__name__}: {exc}\n")
                return
            if time.time() >= t.info.expires_at:
                return

    def stop_watching(self) -> None:
        """Stop the class view's background thread."""
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)

    def close_poll(self) -> None:
        """Stop accepting answers (the Close button calls this)."""
        if self.poll is None or self.mode != "instructor":
            raise PollError("there is no poll on this page")
        if self._secret is not None:
            self.store.close_poll(self.poll.code, self._secret)
        else:
            self.store.close_poll(self.poll.code, creator=self.instructor)
        self.check_now()

    def refresh(self, changed: str | None = None) -> None:
        with self._refresh_lock:  # the watcher thread and control changes may both ask
            super().refresh(changed)

    # -- figures ----------------------------------------------------------------------
    def _counts(self) -> tuple[int, int]:
        t = self._tally
        return (t.responses, t.yes) if isinstance(t, Tally) else (0, 0)

    def _epsilon(self, params: Mapping[str, Any]) -> float:
        return self._tally.info.epsilon if self._tally is not None else float(params["epsilon"])

    def figure(self, panel: str, params: Mapping[str, Any]) -> go.Figure:
        if isinstance(self._tally, KaryTally):  # a k-choice poll: its estimates; the other panels are yes/no's
            return kpages.figure(self._tally) if panel == "class" else message_figure(
                "For yes/no polls", "This panel is about a yes/no poll's interval; a k-choice poll's standard "
                "errors are in the table and the plot above.", height=160)
        eps = self._epsilon(params)
        n, yes = self._counts()
        est = poll_stats.estimate_fraction(yes, n, epsilon=eps)
        mu = est.flip_probability
        if panel == "class":
            title = f"{n} response(s) at ε = {eps:.3g}" if self._tally is not None else \
                f"No poll yet: at ε = {eps:.3g} a report is flipped with probability μ = {mu:.3f}"
            fig = base_figure(title, "fraction of the class", "", height=290)
            fig.update_layout(legend={"y": -0.3})
            fig.add_vrect(x0=mu, x1=1 - mu, fillcolor="#eeeeee", opacity=0.5, line_width=0, layer="below")
            if n:
                fig.add_trace(go.Scatter(x=[est.raw_fraction], y=["raw 'yes' reports"], mode="markers",
                                         marker={"size": 14, "color": color_for(1)},
                                         name=f"raw 'yes' fraction {pages.pct(est.raw_fraction)} [measured]"))
                fig.add_trace(go.Scatter(
                    x=[est.estimate_clipped], y=["true fraction (debiased)"], mode="markers",
                    marker={"size": 14, "color": color_for(0)},
                    error_x={"type": "data", "symmetric": False, "array": [est.high - est.estimate_clipped],
                             "arrayminus": [est.estimate_clipped - est.low], "thickness": 3, "width": 10},
                    name=f"debiased estimate {pages.pct(est.estimate_clipped)}, 95% interval [{pages.pct(est.low)}, "
                         f"{pages.pct(est.high)}] [exact Clopper–Pearson, mapped]"))
            else:
                fig.add_trace(go.Scatter(x=[0.0, 1.0], y=["true fraction (debiased)"] * 2, mode="lines",
                                         line={"color": color_for(0), "width": 3},
                                         name="no answers yet: the interval is all of [0, 1]"))
            fig.update_traces(showlegend=True)
            fig.update_xaxes(range=[-0.02, 1.02], tickformat=".0%")
            fig.update_yaxes(type="category", categoryorder="array",
                             categoryarray=["true fraction (debiased)", "raw 'yes' reports"])
            fig.add_annotation(text=f"grey band: where the raw fraction can land in expectation, [μ, 1 − μ] = "
                                    f"[{mu:.2f}, {1 - mu:.2f}]", xref="paper", yref="paper", x=0, y=1.12,
                               showarrow=False, xanchor="left", font={"size": 11, "color": "#555"})
            return fig
        if panel == "shrink":
            f = est.estimate_clipped if n else 0.5
            ns = np.unique(np.round(np.geomspace(5, 2000, 30)).astype(int))
            fig = base_figure(f"Interval half-width for a class whose true fraction is {pages.pct(f)}"
                              + (" (this class's estimate)" if n else ""), "number of students",
                              "half-width of the 95% interval", log_x=True, height=340)
            for i, e in enumerate((eps / 2, eps, 2 * eps)):
                w = poll_stats.interval_halfwidth(ns, epsilon=e, true_fraction=f)
                fig.add_trace(go.Scatter(x=ns, y=w, mode="lines", line={"color": color_for(i), "width": 2,
                                                                         "dash": "solid" if e == eps else "dash"},
                                         name=f"ε = {e:.3g} [exact Clopper–Pearson, mapped and clipped]"))
            if n:
                fig.add_trace(go.Scatter(x=[n], y=[(est.high - est.low) / 2], mode="markers",
                                         marker={"size": 12, "color": "#000", "symbol": "x"},
                                         name=f"this class: n = {n}"))
            fig.update_yaxes(tickformat=".0%", rangemode="tozero")
            return fig
        if panel == "simulation":
            if not params["reveal"]:
                return message_figure("Reveal the simulation", "Tick 'reveal the simulation' to compare this class "
                                      "with simulated classes whose true fraction is known.", height=200)
            return pages.simulation_figure(n if n else 30, float(params["truth"]), eps, self.simulated_classes,
                                           int(params["seed"]), est if n else None)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, params: Mapping[str, Any]) -> str:
        if self.mode == "student":
            return ""
        if isinstance(self._tally, KaryTally):
            return ("from dpexplore.classroom import PollStore\n"
                    f"print(PollStore().kary_tally({self.poll.code!r}, creator={self.instructor!r}))\n")
        n, yes = self._counts()
        eps = self._epsilon(params)
        return ("from dpexplore.classroom import estimate_fraction, simulate_class\n"
                f"print(estimate_fraction({yes}, {n}, epsilon={eps!r}))\n"
                f"print(simulate_class({params['truth']!r}, {n or 30}, epsilon={eps!r}, "
                f"classes={self.simulated_classes}, rng={params['seed']}))\n")

    # -- student ----------------------------------------------------------------------
    def _build_student(self) -> None:
        self._question_html = widgets.HTML(pages.HIDE_GUIDE_CSS)
        self.code_input = widgets.Text(placeholder="join code, e.g. K7MQ2X", layout=widgets.Layout(width="14em"))
        self.code_input.add_class("dpx-poll-code-input")
        self.join_button = widgets.Button(description="Join", button_style="primary")
        self.join_button.add_class("dpx-poll-join")
        self.join_button.on_click(lambda _: self._join(self.code_input.value))
        self._join_row = widgets.VBox([
            widgets.HTML("<div style='font-size:1.2em;margin:0.3em 0'><b>Join the class poll.</b> Type the join "
                         "code your instructor shows (6 letters and digits), or scan the QR code.</div>"),
            widgets.HBox([self.code_input, self.join_button])], layout=widgets.Layout(display="none"))
        self.answer = widgets.ToggleButtons(options=["Yes", "No"], value=None,
                                            description="Your true answer:", style={"description_width": "initial"})
        self.answer.add_class("dpx-poll-answer")
        self.flip_button = widgets.Button(description="Flip the coin", icon="refresh")
        self.flip_button.add_class("dpx-poll-flip")
        self.flip_button.on_click(lambda _: self._act(self.flip_coin))
        self.send_button = widgets.Button(description="Send only the randomized answer", button_style="primary",
                                          disabled=True, layout=widgets.Layout(width="auto"))
        self.send_button.add_class("dpx-poll-send")
        self.send_button.on_click(lambda _: self._act(self.send))
        self._coin_html = widgets.HTML()
        self._coin_html.add_class("dpx-poll-coin")
        self._sent_html = widgets.HTML()
        self._sent_html.add_class("dpx-poll-sent")
        self._answer_box = widgets.VBox([self.answer, widgets.HBox([self.flip_button, self.send_button]),
                                         self._coin_html], layout=widgets.Layout(display="none"))
        # a prediction round (a dashboard's class-wide question): pick one answer, send it as it is
        self.prediction = widgets.RadioButtons(options=[], value=None, layout=widgets.Layout(width="auto"))
        self.prediction.add_class("dpx-poll-prediction")
        self.predict_send = widgets.Button(description="Send my prediction", button_style="primary", disabled=True,
                                           layout=widgets.Layout(width="auto"))
        self.predict_send.add_class("dpx-poll-predict-send")
        self.prediction.observe(lambda ch: setattr(self.predict_send, "disabled", ch["new"] is None or self._done),
                                names="value")
        self.predict_send.on_click(lambda _: self._act(self.send_prediction))
        self._predict_box = widgets.VBox([self.prediction, self.predict_send], layout=widgets.Layout(display="none"))
        # a k-choice poll: pick the true choice, randomize it here with the poll's oracle, send only the report
        self._kary_box = kpages.student_widgets(self)
        self._result_html = widgets.HTML()  # the room's result, once the instructor closes the poll
        self._result_html.add_class("dpx-poll-result")
        self._student_box = widgets.VBox([self._question_html, self._join_row, self._answer_box, self._predict_box,
                                          self._kary_box, self._sent_html, self._result_html],
                                         layout=widgets.Layout(border="1px solid #ddd", padding="6px", margin="4px 0"))
        self._student_box.add_class("dpx-poll-student")

    def _page_may_try(self) -> None:
        """Refuse a join when this page has failed :attr:`failed_join_limit` times within its window."""
        limit, window = self.failed_join_limit
        now = time.monotonic()
        while self._join_failures and self._join_failures[0] <= now - window:
            self._join_failures.popleft()
        if len(self._join_failures) >= limit:
            wait = max(1, math.ceil(self._join_failures[0] + window - now))
            raise PollError(f"too many wrong join codes from this page ({len(self._join_failures)} in "
                            f"{window:g} s); try again in {wait} s")

    def _join(self, code: object) -> None:
        """Join a poll (the Join button and ``?join=`` call this): once per page, rate-limited when wrong."""
        if self._token is not None or self._done:
            self._show_messages(errors=[f"this page has joined poll {self.poll.code} already (one join per page)"],
                                replace=True)
            return
        try:
            if self.store is None:
                raise PollError("no poll database (see the message above)")
            self._page_may_try()
            try:
                info, token = self.store.join(code, client=self.client, voter=self.voter)
            except (RateLimited, PollClosed):
                raise  # not a wrong code
            except PollError:
                self._join_failures.append(time.monotonic())  # a malformed or unknown code
                raise
        except (PollError, TypeError) as exc:
            self._show_messages(errors=[f"Cannot join: {html.escape(str(exc))}"], replace=True)
            self._join_row.layout.display = None
            return
        except (sqlite3.Error, OSError) as exc:
            self._show_messages(errors=[f"Cannot join: the poll database failed ({html.escape(type(exc).__name__)}); "
                                        "try again"], replace=True)
            self._join_row.layout.display = None
            return
        self._clear_messages()
        self.poll, self._token = info, token
        self._coin_seed = None
        self._join_row.layout.display = "none"
        self.code_input.disabled = self.join_button.disabled = True
        if info.choices is not None:  # a prediction round: no coin, one of the question's answers
            head = self.children[0].children[0] if isinstance(self.children[0], widgets.Box) else None
            if isinstance(head, widgets.HTML):  # the page's title is the round's, not the randomized poll's
                head.value = header_html("Class prediction", "Predict what the plot on the projector will do; "
                                         "the room's answers are shown beside it.")
            self._question_html.value = pages.round_joined_html(info, self._env)
            self.prediction.options = list(info.choices)
            self.prediction.value = None
            self._predict_box.layout.display = None
        elif info.oracle is not None:
            self._question_html.value = kpages.joined_html(info, self._env)
            self.kary_answer.options = list(info.labels)
            self.kary_answer.value = None
            self._kary_box.layout.display = None
        else:
            self._question_html.value = pages.joined_html(info, self._env)
            self._answer_box.layout.display = None
        if info.already_answered:  # this hub user answered from another page
            self._finish(pages.ALREADY_ANSWERED_HTML)

    def flip_coin(self) -> None:
        """Randomize the chosen answer (the Flip button calls this); nothing leaves the kernel yet."""
        if self._done:
            raise PollError("this page has sent its answer: it is done")
        if self.poll is None or self._token is None:
            raise PollError("join a poll first")
        if self.poll.oracle is not None:
            return self._randomize_choice()
        if self.answer.value not in ("Yes", "No"):
            raise PollError("choose your true answer (Yes or No) first")
        x = 1 if self.answer.value == "Yes" else 0
        eps = self.poll.epsilon
        mu = flip_probability(eps)
        if self._coin_seed is None:  # fresh OS entropy for this page's one coin; shown below, never stored
            self._coin_seed = secrets.randbits(64)
        seed = self._coin_seed  # pressing Flip again shows the same coin: no re-rolling until it agrees
        u = float(as_generator(seed).random(1)[0])  # the very draw randomized_response makes from this seed
        bit = int(randomized_response([x], eps, rng=seed).bits[0])
        if (bit != x) != (u < mu):  # pragma: no cover - guards the claim on the page
            raise RuntimeError("coin display out of step with randomized_response")
        self._coin = {"bit": bit}
        self._coin_html.value = pages.coin_html(u, mu, bit, x)
        self.send_button.disabled = False
        self._clear_messages()

    def _randomize_choice(self) -> None:
        """A k-choice poll's Randomize: the poll's oracle on the true choice, in this kernel (one seed per page)."""
        info = self.poll
        if self.kary_answer.value not in info.labels:
            raise PollError("choose your true answer first")
        if self._coin_seed is None:  # fresh OS entropy for this page's one randomization, never stored
            self._coin_seed = secrets.randbits(64)
        report = randomize_choice(info.labels.index(self.kary_answer.value), oracle=info.oracle,
                                  k=len(info.labels), epsilon=info.epsilon, rng=self._coin_seed)
        self._coin = {"report": report}
        self._kary_html.value = kpages.report_html(report, info.labels, info.oracle)
        self.kary_send.disabled = False
        self._clear_messages()

    def _finish(self, html_text: str) -> None:
        """The page is done: every input disabled (and refused server side), the true answer forgotten."""
        self._done = True
        self._coin = None
        self.answer.value = None  # forget the true answer in this kernel too
        self.kary_answer.value = None
        for w in (self.answer, self.flip_button, self.send_button, self.code_input, self.join_button,
                  self.prediction, self.predict_send, self.kary_answer, self.kary_flip, self.kary_send):
            w.disabled = True
        self._coin_html.value = self._kary_html.value = ""
        self._sent_html.value = html_text

    def send_prediction(self) -> None:
        """Send the chosen answer of a prediction round (its Send button); one per page, then the page is done."""
        if self._done:
            raise PollError("this page has sent its prediction already: it is done")
        if self.poll is None or self._token is None or self.poll.choices is None:
            raise PollError("join a prediction round first")
        choice = self.prediction.value
        if choice not in self.poll.choices:
            raise PollError("choose one answer first")
        self._send_once(lambda: self.store.submit_choice(self.poll.code, self._token, self.poll.choices.index(choice)),
                        "prediction", pages.prediction_sent_html(choice))

    def send(self) -> None:
        """Send the randomized bit (the Send button calls this); one answer per page, then the page is done."""
        if self._done:
            raise PollError("this page has sent its answer already: it is done")
        if self._coin is None:
            raise PollError("flip the coin first")
        if "report" in self._coin:  # a k-choice poll: the oracle's report
            info, report = self.poll, self._coin["report"]
            self._send_once(lambda: self.store.submit_report(info.code, self._token, report), "answer",
                            kpages.sent_html(report, info.labels, info.oracle, info.epsilon))
            return
        bit = self._coin["bit"]
        self._send_once(lambda: self.store.submit(self.poll.code, self._token, bit), "answer",
                        pages.sent_html(bit, self.poll.epsilon))

    def _send_once(self, submit: Callable[[], None], what: str, done_html: str) -> None:
        """Store this page's one answer with ``submit``; then the page is done, whatever the store said."""
        try:
            submit()
        except (sqlite3.Error, OSError):
            raise  # a busy database: the answer stays, Send can be pressed again
        except AlreadyAnswered:
            done_html = (pages.ALREADY_ANSWERED_HTML if self.voter is not None else
                         "<div class='dpx-poll-done' style='margin:0.3em 0;color:#1e6b3a'><b>Done.</b> This page "
                         f"had already sent its {what}; you can close it.</div>")
        except PollError as exc:
            done_html = (f"<div class='dpx-poll-done' style='margin:0.3em 0;color:#8a4b00'><b>Not sent:</b> "
                         f"{html.escape(str(exc))}. Nothing was stored; you can close this page.</div>")
        self._finish(done_html)
        self._clear_messages()
        self._await_result()

    def _await_result(self) -> None:
        """After this page's answer: wait (a background thread, reading the poll's public facts every
        :attr:`poll_interval` s, bounded by the poll's lifetime) until the instructor closes the poll, then show
        the room's result on this page — the counts per answer, or the class's estimate."""
        if self.store is None or self.poll is None:
            return
        code, store = self.poll.code, self.store
        self._result_html.value = pages.result_wait_html()

        def wait() -> None:
            interval = min(max(float(self.poll_interval), 0.2), 10.0)
            deadline = min(time.time() + MAX_LIFETIME_HOURS * 3600, self.poll.expires_at)
            while not self._stop.wait(interval) and time.time() < deadline:
                try:
                    result = store.closed_result(code)
                except PollError:  # deleted
                    self._result_html.value = ""
                    return
                except (sqlite3.Error, OSError):  # a busy database: the next tick
                    continue
                if result is not None:
                    self._result_html.value = (kpages.room_html if isinstance(result, KaryTally) else
                                               pages.room_result_html)(result, self._env)
                    return

        threading.Thread(target=wait, name="poll-result", daemon=True).start()
