"""The class poll's page texts and its copy button (HTML only; the page logic is :mod:`dpexplore.ui.poll`)."""

from __future__ import annotations

import html
import math
import os
import time
from collections.abc import Mapping

import plotly.graph_objects as go

import dpexplore

from ..classroom import stats as poll_stats
from ..classroom.hub import hub_student_link, under_hub
from ..classroom.links import StudentLink, qr_svg, student_link
from ..classroom.store import PollInfo, Tally
from .dashboard import _ERROR_STYLE, _NOTE_STYLE, PRNG_FOOTER
from .figures import base_figure, color_for

__all__ = ["BINDER_NOTE", "HIDE_GUIDE_CSS", "POLL_PRESENT_CSS", "on_binder", "box", "copy_widget", "epsilon_text",
           "simulation_figure",
           "pct", "links_html",
           "tally_html", "student_footer_html", "joined_html", "coin_html", "sent_html", "round_joined_html",
           "prediction_sent_html", "poll_link", "rule_html",
           "ALREADY_ANSWERED_HTML", "HUB_NOT_INSTRUCTOR"]

#: the class view in presentation mode (with the kit's PRESENT_CSS): what the room needs on one 1024×768 screen
#: — question, join code, QR, link, ε, the counts and the estimate plot; the instructor's own lines (how to
#: project, the way back, the copy button, the one-answer rule, the status line) are hidden, the QR is smaller
POLL_PRESENT_CSS = (
    "<style>.dpx-poll-howto,.dpx-poll-wayback,.dpx-poll-rule,.dpx-poll-copywrap,.dpx-dashboard .dpx-status"
    "{display:none !important}"
    ".dpx-poll-qr svg{width:150px !important;height:150px !important}"
    ".dpx-poll-short-link{font-size:0.85em}.dpx-poll-tally{margin:0.2em 0 !important}</style>"
)
HIDE_GUIDE_CSS = (  # the guide is the instructor's; a student's phone (390 px wide) gets no horizontal scrolling
    "<style>.jp-MarkdownCell{display:none !important}"
    ".dpx-poll-student{max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}"
    ".dpx-poll-student .widget-hbox{flex-wrap:wrap;gap:6px}"
    ".dpx-poll-student .jupyter-button{white-space:normal;height:auto;min-height:36px;max-width:100%;"
    "line-height:1.3;padding:4px 12px}"
    ".dpx-poll-student .widget-toggle-buttons{flex-wrap:wrap;height:auto}"
    ".dpx-poll-student .widget-toggle-buttons .jupyter-button{min-width:5em;font-size:1.05em}"
    ".dpx-poll-student .jupyter-button.mod-active{background:#0072B2 !important;color:#fff !important;"
    "outline:3px solid #E69F00;font-weight:bold}"
    ".dpx-poll-student .widget-radio-box label{font-size:1.05em;line-height:2}"
    ".dpx-poll-student .widget-text{width:auto !important;max-width:100%}"
    ".dpx-poll-student .widget-label{white-space:normal}"
    "@media (max-width:600px){.dpx-poll-student{margin-bottom:40vh !important}}</style>"
)

BINDER_NOTE = (
    "<b>You are on Binder.</b> Binder gives every visitor their own container, so your students' pages "
    "cannot reach this poll's database: a shared poll needs a <b>shared server</b> — run "
    "<code>python -m dpexplore.serve --host 0.0.0.0</code> on a machine the class can reach, or use a "
    "JupyterHub. Here you can still try both pages yourself."
)

_COPY_ESM = """
function render({ model, el }) {
  const btn = document.createElement("button");
  btn.className = "dpx-poll-copy jupyter-button";
  btn.textContent = "Copy the students' link (with the code)";
  const say = document.createElement("span");
  say.className = "dpx-poll-copy-status";
  say.style.cssText = "margin-left:8px;font-size:0.85em;color:#555";
  const text = () => {
    const t = model.get("text");
    return /^https?:/.test(t) ? t : new URL(t, window.location.href).href;
  };
  btn.addEventListener("click", async () => {
    const t = text();
    try { await navigator.clipboard.writeText(t); say.textContent = "Copied: " + t; }
    catch (e) { say.textContent = "Copy this: " + t; }
  });
  el.append(btn, say);
}
export default { render };
"""


#: the student page when its hub user has answered this poll already (from any page, tab or browser)
ALREADY_ANSWERED_HTML = ("<div class='dpx-poll-done dpx-poll-already' style='margin:0.3em 0;color:#1e6b3a'><b>You have "
                         "already answered this poll (one answer per hub user).</b> Your first answer counts; "
                         "nothing more can be sent from any page, tab or browser of your hub account. You can "
                         "close this page.</div>")
#: why a hub user's page is a student page
HUB_NOT_INSTRUCTOR = ("creating a poll or opening a class view needs membership of the hub's instructors group "
                      "(ask the hub's administrator; the membership applies from your server's next start)")


def poll_link(code: str, environ: Mapping[str, str]) -> StudentLink:
    """The students' link to poll ``code``: through the hub's ``user-redirect`` under a hub, else this page's."""
    return hub_student_link(code, environ) or student_link(code, environ)


def rule_html(environ: Mapping[str, str], *, instructor: bool) -> str:
    """What "one answer" means on this server: per hub user under a hub, per page view without one."""
    if under_hub(environ):
        return ("One answer per hub user is enforced by the database: a reload, a second tab or another browser "
                "of the same student joins again but cannot answer again.")
    if instructor:
        return ("One answer per page view is enforced by the database and the page: a page joins once and sends "
                "once. There is no hub, so nothing knows who a student is: a reload or another browser is a new "
                "page view and can answer again — compare the responses with the number of students in the room.")
    return ("This page answers once. (Without a hub nothing knows who you are: one answer per page view is "
            "the rule.)")


def on_binder(environ: Mapping[str, str] | None = None) -> bool:
    """True inside a Binder container (repo2docker sets ``BINDER_*`` variables there)."""
    env = os.environ if environ is None else environ
    return any(k in env for k in ("BINDER_SERVICE_HOST", "BINDER_REQUEST", "BINDER_LAUNCH_HOST", "BINDER_REPO_URL"))


def pct(x: float) -> str:
    """``x`` as a percentage with one decimal (``"–"`` for None or NaN)."""
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def box(kind: str, text: str) -> str:
    """An HTML message box of ``kind`` ``"error"`` or ``"note"`` around ``text``, which is inserted as HTML as given."""
    style = _ERROR_STYLE if kind == "error" else _NOTE_STYLE
    word = "<b>Error.</b> " if kind == "error" else ""
    return f"<div class='dpx-{kind}' style='{style}'>{word}{text}</div>"


def copy_widget(text: str):
    """A small anywidget button that copies ``text`` to the clipboard in the browser."""
    import anywidget
    import traitlets

    class CopyLink(anywidget.AnyWidget):
        _esm = _COPY_ESM
        text = traitlets.Unicode("").tag(sync=True)

    return CopyLink(text=text)


def epsilon_text(eps: float) -> str:
    """ε as a student reads it: ``"ln 3"`` for ln 3, else the shortest decimal."""
    return "ln 3" if abs(eps - math.log(3)) < 1e-12 else f"{eps:g}"


def links_html(code: str, tally: Tally, environ: Mapping[str, str]) -> str:
    """The class view's box to project: question, join code, QR code, short link."""
    link = poll_link(code, environ)
    info = tally.info
    closes = ("open until it expires" if info.closes_at is None else
              f"closes at {time.strftime('%H:%M', time.localtime(info.closes_at))}")
    if link.full and not link.loopback_only:
        qr = (f"<div class='dpx-poll-qr' style='float:right;margin:0 0 0.5em 1em'>{qr_svg(link.full)}</div>")
        address = (f"<div style='font-size:1.3em;margin:0.3em 0'>or open <b class='dpx-poll-short-link' "
                   f"style='font-family:monospace'>{html.escape(link.full)}</b></div>")
    else:
        qr = ""
        address = ("<div style='color:#8a4b00'>No QR code: this page was opened as this machine only "
                   "(127.0.0.1), an address the students' devices cannot reach. Serve with "
                   "<code>--host 0.0.0.0</code> and the launcher gives the students' pages the machine's "
                   "network address.</div>" if link.loopback_only else "")
    return (
        f"{qr}<div style='font-size:1.1em'><b>Question:</b> {html.escape(info.question)}</div>"
        "<div class='dpx-poll-howto' style='margin:0.4em 0'><b>Project this box:</b> the join code, the QR code and "
        "the link. Students scan the code or open this page and type the join code; nothing here is secret.</div>"
        f"<div>Join code <span class='dpx-poll-code' style='font-size:2.4em;font-family:monospace;"
        f"letter-spacing:0.15em;font-weight:bold'>{code}</span></div>{address}"
        f"<div>ε = {epsilon_text(info.epsilon)} · {closes} · deleted at "
        f"{time.strftime('%H:%M', time.localtime(info.expires_at))} · students' page: "
        f"<a class='dpx-poll-join-link' href='{html.escape(link.relative)}' target='_blank' "
        f"style='color:#0072B2;text-decoration:underline'>{html.escape(link.relative)}</a></div>"
        f"<div class='dpx-poll-wayback' style='color:#555;font-size:0.9em'>Your own way back to this class view: "
        + (f"<code>?poll={code}</code> in your own hub server (you created it with your hub account).</div>"
           if under_hub(environ) else
           f"<code>?poll={code}</code> in this browser (it holds the instructor cookie). Do not project the "
           "instructor link the launcher printed.</div>") + "<div style='clear:both'></div>")


def tally_html(t: Tally, environ: Mapping[str, str] | None = None) -> str:
    """The class view's line of counts, estimate and interval, and the one-answer rule in force."""
    est = poll_stats.estimate_fraction(t.yes, t.responses, epsilon=t.info.epsilon)
    state = "open" if t.info.is_open else "closed"
    waiting = ""
    if t.tokens > t.responses:
        waiting = f" · {t.tokens - t.responses} joined without an answer yet"
    return (
        f"<div class='dpx-poll-tally' data-responses='{t.responses}' style='font-size:1.05em;margin:0.4em 0'>"
        f"<b>Responses: {t.responses}</b> ({state}; {t.tokens} page(s) joined{waiting}) · "
        f"raw 'yes' reports: {t.yes}/{t.responses} = {pct(est.raw_fraction)} · "
        f"<b>debiased estimate: {pct(est.estimate_clipped)}</b>"
        + (f" (unclipped {100 * est.estimate:.1f}%)" if t.responses and not 0 <= est.estimate <= 1 else "")
        + f" · 95% interval [{pct(est.low)}, {pct(est.high)}]</div>"
        f"<div class='dpx-poll-rule' style='color:#555;font-size:0.85em'>"
        f"{rule_html(os.environ if environ is None else environ, instructor=True)}</div>")


def student_footer_html() -> str:
    """The student page's footer: the teaching-PRNG warning, no notes about plots it does not have."""
    return ("<hr style='margin-top:1.5em'><div style='font-size:0.85em;line-height:1.4;color:#444;"
            f"max-width:60em'><div><b>Teaching tool.</b> {PRNG_FOOTER}</div><div style='margin-top:0.4em'>"
            f"dpexplore {dpexplore.__version__}</div></div>")


def joined_html(info: PollInfo, environ: Mapping[str, str] | None = None) -> str:
    """The student page after joining: the question and how deniable an answer is (the guide stays hidden)."""
    d = poll_stats.deniability(info.epsilon)
    return HIDE_GUIDE_CSS + (
        f"<div style='font-size:1.2em;margin:0.3em 0'><b>{html.escape(info.question)}</b></div>"
        f"<div class='dpx-poll-deniability' style='max-width:60em'>Poll <code>{info.code}</code> · ε = "
        f"{epsilon_text(info.epsilon)}. Before anything is sent, a biased coin <b>in this page's kernel</b> flips "
        f"your answer with probability μ = 1/(e<sup>ε</sup> + 1) = <b>{d.flip_probability:.1%}</b>. Only the "
        f"result is sent; your true answer is never sent and never stored. Whatever you report, anyone's odds on "
        f"your true answer change by a factor of at most e<sup>ε</sup> = <b>{d.likelihood_ratio:.2f}</b>: someone "
        f"who thought yes and no equally likely would, after seeing your report, believe it is your true "
        f"answer with probability {d.posterior_same:.1%} — never certainty.</div>"
        f"<div class='dpx-poll-rule' style='color:#555;font-size:0.85em'>"
        f"{rule_html(os.environ if environ is None else environ, instructor=False)} You see no other student's "
        "answer; the class's estimate is on the instructor's screen.</div>")


def round_joined_html(info: PollInfo, environ: Mapping[str, str] | None = None) -> str:
    """The student page after joining a prediction round: the question, and what is stored."""
    return HIDE_GUIDE_CSS + (
        f"<div style='font-size:1.2em;margin:0.3em 0'><b>{html.escape(info.question)}</b></div>"
        f"<div class='dpx-poll-round' style='max-width:60em'>Prediction round <code>{info.code}</code>: pick what "
        "you think the plot on the projector will do, then send it. Your prediction is stored as you send it (it "
        "is not randomized: a guess about a plot is not sensitive); your instructor sees only how many chose each "
        "answer, and everything is deleted with the round.</div>"
        f"<div class='dpx-poll-rule' style='color:#555;font-size:0.85em'>"
        f"{rule_html(os.environ if environ is None else environ, instructor=False)}</div>")


def prediction_sent_html(choice: str) -> str:
    """The student page when its prediction is in."""
    return (f"<div class='dpx-poll-done' style='margin:0.3em 0;color:#1e6b3a'><b>Done — your prediction is in: "
            f"{html.escape(choice)}.</b> Watch the projector: the room's answers appear beside the plot when your "
            "instructor reveals them, and on this page too.</div>")


def coin_html(u: float, mu: float, bit: int, x: int) -> str:
    """The coin as shown to the student: its value, the threshold and the report."""
    said = "Yes" if bit else "No"
    return (
        f"<div style='margin:0.3em 0'>Coin: u = {u:.4f}; the answer is flipped when u &lt; μ = {mu:.4f} → "
        f"<b>{'flipped' if bit != x else 'kept'}</b>. Randomized answer to send: "
        f"<b class='dpx-poll-report'>{said}</b>.</div>"
        "<div style='color:#555;font-size:0.85em'>This page has one coin: pressing Flip again shows the same "
        "coin, so nobody can re-roll until the report says what they want (that would make the report the "
        "true answer and break its deniability).</div>")


def sent_html(bit: int, epsilon: float) -> str:
    """The student page when it is done: what was sent and what it tells anyone."""
    d = poll_stats.deniability(epsilon)
    said = "Yes" if bit else "No"
    return (
        f"<div class='dpx-poll-done' style='margin:0.3em 0;color:#1e6b3a'><b>Done — sent: {said}</b> (the "
        f"randomized answer). Anyone who sees it learns only that your true answer is {said.lower()} with "
        f"probability {d.posterior_same:.1%} against {d.flip_probability:.1%} (starting from 50/50): odds of "
        f"{d.likelihood_ratio:.2f} to 1. Your true answer was never sent; you can close this page.</div>")


def result_wait_html() -> str:
    """The student page after sending, until the instructor closes the poll."""
    return ("<div class='dpx-poll-result-wait' style='color:#555;font-size:0.9em;margin:0.3em 0'>Keep this page "
            "open to see the room's result here when your instructor closes the poll.</div>")


def room_result_html(result, environ: Mapping[str, str] | None = None) -> str:
    """The room's result on a student's page once the poll is closed: each answer's count (a prediction
    round) or the class's estimate with its interval (a randomized-response poll).

    Examples
    --------
    >>> import tempfile
    >>> from dpexplore.classroom.store import PollStore
    >>> store = PollStore(tempfile.mkdtemp())
    >>> r = store.create_round("Q?", ["up", "down"])
    >>> store.submit_choice(r.code, store.issue_token(r.code), 1); store.close_poll(r.code, r.secret)
    >>> "down: 1 (100%)" in room_result_html(store.closed_result(r.code))
    True
    """
    head = "<div class='dpx-poll-room' style='margin:0.4em 0;padding:6px 8px;border:2px solid #009E73'>"
    if getattr(result, "counts", None) is not None and result.info.choices is not None:
        n = sum(result.counts)
        rows = "".join(
            f"<div class='dpx-poll-room-bar' data-choice='{html.escape(c)}' data-count='{k}'>{html.escape(c)}: "
            f"{k} ({k / n if n else 0:.0%}) <span aria-hidden='true' style='display:inline-block;height:0.9em;"
            f"width:{8 * (k / n if n else 0):.2f}em;background:#56B4E9;vertical-align:middle'></span></div>"
            for c, k in zip(result.info.choices, result.counts))
        return (f"{head}<b>The room predicted</b> ({n} prediction{'s' if n != 1 else ''}):{rows}"
                "<div style='font-size:0.9em'>The projector shows which answer the plot gave.</div></div>")
    return f"{head}<b>The room's result</b> (the poll is closed):{tally_html(result, environ)}</div>"


def simulation_figure(m: int, truth: float, eps: float, k: int, seed: int, est=None) -> go.Figure:
    """``k`` simulated classes of ``m`` students, each 'yes' with probability ``truth``, polled at ``eps``: each
    class's 95 % interval against its known true fraction (``est``: this class's estimate, drawn as a line)."""
    true_yes, reported = poll_stats.simulate_class(truth, m, epsilon=eps, classes=k, rng=seed)
    ests = [poll_stats.estimate_fraction(int(r), m, epsilon=eps) for r in reported]
    fracs = true_yes / m
    cover = [e.low <= t <= e.high for e, t in zip(ests, fracs)]
    fig = base_figure(f"{k} simulated classes of {m} students (each student 'yes' with probability "
                      f"{truth:.0%}): {sum(cover)}/{k} intervals contain their class's true fraction",
                      "fraction", "simulated class", height=420)
    for j, (e, t, c) in enumerate(zip(ests, fracs, cover)):
        col = color_for(2) if c else color_for(1)
        fig.add_trace(go.Scatter(x=[e.low, e.high], y=[j, j], mode="lines", line={"color": col, "width": 3},
                                 showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=[t], y=[j], mode="markers", marker={"color": "#000", "size": 5,
                                 "symbol": "line-ns-open"}, showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line={"color": color_for(2), "width": 3},
                             name="95% interval contains the truth"))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line={"color": color_for(1), "width": 3},
                             name="misses it"))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", marker={"color": "#000",
                             "symbol": "line-ns-open"}, name="the class's true fraction [known]"))
    if est is not None:
        fig.add_vline(x=est.estimate_clipped, line_dash="dot", line_color=color_for(0),
                      annotation_text="your class's estimate", annotation_position="top")
    fig.update_xaxes(range=[-0.02, 1.02], tickformat=".0%")
    fig.update_yaxes(showticklabels=False)
    return fig
