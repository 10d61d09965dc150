"""The class poll's k-choice question (:mod:`dpexplore.classroom.kary`): its page texts and the instructor's plot
(the page logic is :mod:`dpexplore.ui.poll`)."""

from __future__ import annotations

import html
import math
import os
from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import plotly.graph_objects as go

from ..classroom.kary import KaryTally
from ..classroom.store import PollInfo
from ..local.mechanisms import ORACLE_NAMES, oracle_probabilities
from .figures import base_figure, color_for
from .poll_pages import HIDE_GUIDE_CSS, epsilon_text, pct, rule_html

__all__ = ["ORACLE_OPTIONS", "form_widgets", "student_widgets", "parse_labels", "joined_html", "report_html",
           "sent_html", "tally_html", "room_html", "figure"]

#: the oracle list of the instructor's form
ORACLE_OPTIONS = (("k-RR: report one choice (k-ary randomized response)", "krr"),
                  ("OUE: report one bit per choice (optimized unary encoding)", "oue"))


def form_widgets(page) -> None:
    """The instructor form's k-choice fields on ``page`` (a :class:`~dpexplore.ui.poll.ClassPoll`): ``labels``
    (3 to 8 choices, one per line; empty for a yes/no poll) and ``oracle`` (k-RR or OUE)."""
    page.labels = widgets.Textarea(placeholder="For a k-choice question: 3 to 8 choices, one per line (leave "
                                   "empty for yes/no)", layout=widgets.Layout(width="40em", height="6em"))
    page.labels.add_class("dpx-poll-labels")
    page.oracle = widgets.Dropdown(options=ORACLE_OPTIONS, value="krr", description="k choices:",
                                   layout=widgets.Layout(width="40em"))
    page.oracle.add_class("dpx-poll-oracle")


def student_widgets(page) -> widgets.VBox:
    """The student page's k-choice box on ``page``: ``kary_answer`` (the true choice, never sent), ``kary_flip``
    (randomize it in this kernel), ``kary_send`` (send only the report) and ``_kary_html`` (the report)."""
    page.kary_answer = widgets.RadioButtons(options=[], value=None, layout=widgets.Layout(width="auto"))
    page.kary_answer.add_class("dpx-poll-kary-answer")
    page.kary_flip = widgets.Button(description="Randomize my answer", icon="refresh")
    page.kary_flip.add_class("dpx-poll-kary-flip")
    page.kary_flip.on_click(lambda _: page._act(page.flip_coin))
    page.kary_send = widgets.Button(description="Send only the report", button_style="primary", disabled=True,
                                    layout=widgets.Layout(width="auto"))
    page.kary_send.add_class("dpx-poll-kary-send")
    page.kary_send.on_click(lambda _: page._act(page.send))
    page._kary_html = widgets.HTML()
    page._kary_html.add_class("dpx-poll-coin")
    return widgets.VBox([widgets.HTML("Your true answer:"), page.kary_answer,
                         widgets.HBox([page.kary_flip, page.kary_send]), page._kary_html],
                        layout=widgets.Layout(display="none"))


def parse_labels(text: object) -> list[str] | None:
    """The instructor's choices box: one choice per line, blank lines dropped; None when empty (a yes/no poll).
    The store checks the labels (count, length, characters, distinct).

    Examples
    --------
    >>> parse_labels("walk\\n\\n bike \\nbus"), parse_labels("  ")
    (['walk', ' bike ', 'bus'], None)
    """
    if not isinstance(text, str):
        raise TypeError(f"the choices must be text, one per line; got {type(text).__name__}")
    if len(text) > 4000:
        raise ValueError(f"the choices must be at most 4000 characters in all; got {len(text)}")
    lines = [line for line in text.splitlines() if line.strip()]
    return lines or None


def _how(info: PollInfo) -> str:
    k, eps = len(info.labels), info.epsilon
    p, q = oracle_probabilities(info.oracle, k=k, epsilon=eps)
    if info.oracle == "krr":
        return (f"reports your true choice with probability e<sup>ε</sup>/(e<sup>ε</sup> + k − 1) = <b>{p:.1%}</b>, "
                f"and each of the other {k - 1} choices with probability {q:.1%}")
    return (f"makes one bit per choice: the bit of your true choice is 1 with probability <b>{p:.0%}</b>, every "
            f"other bit is 1 with probability 1/(e<sup>ε</sup> + 1) = {q:.1%}")


def joined_html(info: PollInfo, environ: Mapping[str, str] | None = None) -> str:
    """The student page after joining a k-choice poll: the question, what the oracle does, how deniable it is."""
    ratio = math.exp(info.epsilon)
    return HIDE_GUIDE_CSS + (
        f"<div style='font-size:1.2em;margin:0.3em 0'><b>{html.escape(info.question)}</b></div>"
        f"<div class='dpx-poll-deniability' style='max-width:60em'>Poll <code>{info.code}</code> · "
        f"{len(info.labels)} choices · ε = {epsilon_text(info.epsilon)} · {ORACLE_NAMES[info.oracle]}. Before "
        f"anything is sent, <b>this page's kernel</b> randomizes your answer: it {_how(info)}. Only that report is "
        "sent; your true choice is never sent and never stored. Whatever the report, anyone's odds between any two "
        f"of your possible true choices change by a factor of at most e<sup>ε</sup> = <b>{ratio:.2f}</b>.</div>"
        f"<div class='dpx-poll-rule' style='color:#555;font-size:0.85em'>"
        f"{rule_html(os.environ if environ is None else environ, instructor=False)} You see no other student's "
        "answer; the class's estimates are on the instructor's screen.</div>")


def _report_words(report, labels: Sequence[str], oracle: str) -> str:
    if oracle == "krr":
        return f"<b class='dpx-poll-report'>{html.escape(labels[report])}</b>"
    bits = "".join(str(b) for b in report)
    ones = [html.escape(lab) for lab, b in zip(labels, report) if b]
    return (f"<b class='dpx-poll-report' style='font-family:monospace'>{bits}</b> (a 1 for: "
            f"{', '.join(ones) if ones else 'none'})")


def report_html(report, labels: Sequence[str], oracle: str) -> str:
    """The randomized report as shown before sending."""
    return (f"<div style='margin:0.3em 0'>Report to send: {_report_words(report, labels, oracle)}.</div>"
            "<div style='color:#555;font-size:0.85em'>This page randomizes once: pressing Randomize again with the "
            "same choice shows the same report, so nobody can re-roll until it says what they want.</div>")


def sent_html(report, labels: Sequence[str], oracle: str, epsilon: float) -> str:
    """The student page when its report is in."""
    return (f"<div class='dpx-poll-done' style='margin:0.3em 0;color:#1e6b3a'><b>Done — sent:</b> "
            f"{_report_words(report, labels, oracle)} (the randomized report). It changes anyone's odds between two "
            f"of your possible true choices by a factor of at most e<sup>ε</sup> = {math.exp(epsilon):.2f}. Your "
            "true choice was never sent; you can close this page.</div>")


def tally_html(t: KaryTally, environ: Mapping[str, str] | None = None) -> str:
    """The class view's table: per choice the raw report count, the debiased estimate and its standard error."""
    n, k = t.responses, len(t.info.labels)
    state = "open" if t.info.is_open else "closed"
    waiting = f" · {t.tokens - n} joined without an answer yet" if t.tokens > n else ""
    raw = "reports of it" if t.info.oracle == "krr" else "reports with its bit = 1"
    rows = "".join(
        f"<tr class='dpx-poll-kary-row' data-choice='{html.escape(lab)}' data-raw='{c}'>"
        f"<td>{html.escape(lab)}</td><td style='text-align:right'>{c}</td>"
        + (f"<td style='text-align:right'><b>{e:.1f}</b> ({pct(e / n)})</td><td style='text-align:right'>{s:.1f}</td>"
           if n else "<td>–</td><td>–</td>") + "</tr>"
        for lab, c, e, s in zip(t.info.labels, t.report_counts, t.estimates, t.standard_errors))
    return (
        f"<div class='dpx-poll-tally' data-responses='{n}' style='font-size:1.05em;margin:0.4em 0'>"
        f"<b>Responses: {n}</b> ({state}; {t.tokens} page(s) joined{waiting}) · {k} choices · "
        f"{ORACLE_NAMES[t.info.oracle]} at ε = {epsilon_text(t.info.epsilon)}</div>"
        "<table class='dpx-poll-kary' style='border-collapse:collapse'><tr><th>choice</th>"
        f"<th>raw count ({raw}) [measured]</th><th>debiased estimate of how many chose it [unbiased]</th>"
        "<th>standard error [Wang et al. 2017, plug-in]</th></tr>"
        f"{rows}</table>"
        "<div style='color:#555;font-size:0.85em'>Estimate ĉ = (C − n q*)/(p* − q*): unbiased, so it can be "
        "negative or exceed n for a small class; its standard error is √Var ĉ of Wang, Blocki, Li &amp; Jha "
        "(2017, Thm. 2) evaluated at the estimate clipped to [0, n] (the true count is unknown).</div>"
        f"<div class='dpx-poll-rule' style='color:#555;font-size:0.85em'>"
        f"{rule_html(os.environ if environ is None else environ, instructor=True)}</div>")


def room_html(t: KaryTally, environ: Mapping[str, str] | None = None) -> str:
    """The room's result on a student's page once the k-choice poll is closed."""
    return ("<div class='dpx-poll-room' style='margin:0.4em 0;padding:6px 8px;border:2px solid #009E73'>"
            f"<b>The room's result</b> (the poll is closed):{tally_html(t, environ)}</div>")


def figure(t: KaryTally | None) -> go.Figure:
    """The instructor's plot: raw report counts beside the debiased estimates ± one standard error."""
    labels = list(t.info.labels) if t is not None else []
    n = t.responses if t is not None else 0
    title = (f"{n} report(s), {ORACLE_NAMES[t.info.oracle]} at ε = {t.info.epsilon:.3g}" if t is not None
             else "No poll yet")
    fig = base_figure(title, "choice", "students", height=320)
    if t is None or not n:
        return fig
    fig.add_trace(go.Bar(x=labels, y=list(t.report_counts), name="raw report count [measured]",
                         marker={"color": color_for(1)}))
    fig.add_trace(go.Bar(x=labels, y=list(t.estimates), name="debiased estimate ± one standard error [unbiased]",
                         marker={"color": color_for(0)},
                         error_y={"type": "data", "array": list(t.standard_errors), "thickness": 2}))
    fig.add_hline(y=0, line_color="#555", line_width=1)
    fig.update_layout(barmode="group")
    return fig
