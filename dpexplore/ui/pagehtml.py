"""The HTML pieces of a dashboard page: styles, the header, panel headings, status line, message box,
"reproduce in code" snippet and footer.

Pure functions of their arguments (no widgets): :class:`~dpexplore.ui.dashboard.Dashboard` puts their
output into its ``ipywidgets.HTML`` children. Split from :mod:`dpexplore.ui.dashboard`, which
re-exports :data:`PRNG_FOOTER`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping

from .figures import tex_to_html

__all__ = ["PRNG_FOOTER", "ERROR_STYLE", "NOTE_STYLE", "STALE_CSS", "PRESENT_CSS", "collapsible", "header_html",
           "panel_head_html", "status_html", "messages_html", "snippet_html", "footer_html"]

#: the teaching-PRNG warning every dashboard's footer carries
PRNG_FOOTER = (
    "This dashboard's randomness is NumPy's seedable pseudo-random generator: reproducible, "
    "<b>not cryptographically secure</b>. dpexplore is for teaching and exploration, "
    "<b>never for real data releases</b>."
)

#: inline style of an error line in the message box
ERROR_STYLE = (
    "border-left:4px solid #c0392b;background:#fdecea;padding:6px 10px;margin:4px 0;"
    "font-family:var(--jp-ui-font-family, sans-serif);color:#611a15"
)
#: inline style of a note line in the message box
NOTE_STYLE = (
    "border-left:4px solid #b7950b;background:#fef9e7;padding:6px 10px;margin:4px 0;"
    "font-family:var(--jp-ui-font-family, sans-serif);color:#5d4a05"
)

#: page CSS of every dashboard: dimmed panels while computed; the controls in a sticky sidebar beside the
#: plots (above them on a narrow screen, scrolling inside at most 45 % of its height)
STALE_CSS = (
    ".dpx-stale{opacity:0.45;transition:opacity 0.15s}"
    ".dpx-dashboard,.dpx-body{overflow:visible !important}"
    # the notebook's output area clips (overflow auto/hidden): the sidebar could not stick while #rendered_cells
    # scrolled
    ".jp-OutputArea:has(.dpx-dashboard),.jp-OutputArea-child:has(.dpx-dashboard),"
    ".jp-OutputArea-output:has(.dpx-dashboard){overflow:visible !important}"
    ".dpx-body{display:grid !important;grid-template-columns:minmax(330px,30%) minmax(0,1fr);gap:0 16px;"
    "align-items:start}"
    ".dpx-side{position:sticky;top:0;z-index:20;max-height:100vh;overflow:visible !important}"
    ".dpx-controls{background:var(--jp-layout-color0,#fff);max-height:calc(100vh - 40px);overflow-y:auto}"
    ".dpx-main{min-width:0;overflow:visible !important}"
    ".dpx-main>.widget-vbox:first-child h3,.dpx-main>.widget-html:first-child+.widget-vbox h3{margin-top:0.2em}"
    "@media (max-width:880px){.dpx-body{grid-template-columns:minmax(0,1fr)}"
    ".dpx-side{position:static;max-height:none}.dpx-controls{max-height:min(45vh,235px)}}"
    ".dpx-controls .widget-label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}"
    ".dpx-controls .dpx-wide,.dpx-controls .dpx-full{grid-column:1/-1}"
    # in the sidebar a slider is its label and value on one line, the whole width's track below; a dropdown
    # is its label above the whole width's menu (long labels and option texts are not cut)
    ".dpx-side .widget-slider,.dpx-side .widget-dropdown{flex-wrap:wrap;height:auto !important}"
    ".dpx-side .widget-slider>.widget-label,.dpx-side .widget-dropdown>.widget-label{width:auto !important;"
    "flex:1 1 0;min-width:0;text-align:left;line-height:22px;height:22px}"
    ".dpx-side .widget-slider>.widget-readout{order:2;line-height:22px;height:22px}"
    ".dpx-side .widget-slider>.slider-container{order:3;flex:1 1 100%;margin-left:8px;margin-right:8px}"
    ".dpx-side .widget-dropdown>select{flex:1 1 100%}"
    ".dpx-side .dpx-status{white-space:normal !important;line-height:1.4;margin-top:4px}"
    # a phone (≤ 600 px): the plot's toolbar (shown on touch) would cover titles; the page never scrolls sideways
    "@media (max-width:600px){.js-plotly-plot .modebar-container{display:none !important}"
    ".dpx-dashboard{max-width:100vw;overflow-x:hidden !important}"
    ".dpx-dashboard .widget-hbox{flex-wrap:wrap}"
    ".dpx-dashboard .jupyter-button{white-space:normal;height:auto;min-height:36px;max-width:100%}}"
)

#: presentation mode (``?present=1`` or the toggle): the page shows the title, the teaching bar, the main
#: controls (above the plots, not beside them) and the plots; the notebook's text cells (lead and guide), long
#: captions, the audit, the code snippet and the secondary controls are hidden; page text is larger (plot text is
#: set in the figures)
PRESENT_CSS = (
    "<style>.jp-MarkdownCell,.jp-Cell.jp-MarkdownCell,.dpx-intro,.dpx-caption-long,.dpx-audit,.dpx-snippet"
    "{display:none !important}"
    ".dpx-dashboard h2{font-size:1.6em}.dpx-dashboard h3{font-size:1.3em}"
    ".dpx-dashboard .widget-label,.dpx-dashboard .widget-readout,.dpx-dashboard .jupyter-button,"
    ".dpx-dashboard .dpx-question,.dpx-dashboard .dpx-reveal,.dpx-dashboard .dpx-step"
    "{font-size:16px}.dpx-dashboard .dpx-teaching .jupyter-button{width:auto;padding:0 12px}"
    # the few controls kept go above the plots, which get the whole width for their 16 px legends
    ".dpx-body{grid-template-columns:minmax(0,1fr) !important}.dpx-side{position:static;max-height:none}"
    # an open lesson step or question: the teaching box becomes a right-hand column beside the whole page, its
    # step/question box sticky at the top of the screen while the page scrolls (Voila's containers defeat
    # position:fixed), so the step, the question, the room's count and reveal and the plot asked about share one
    # screen (a 1024×768 projector)
    ".dpx-dashboard:has(.dpx-teach-side.dpx-open){display:grid !important;"
    "grid-template-columns:minmax(0,1fr) min(34vw,440px);column-gap:10px;align-items:start}"
    # room below the last row, so the sticky column never runs out of page at the end
    ".dpx-dashboard:has(.dpx-teach-side.dpx-open)>:last-child{margin-bottom:60vh !important}"
    ".dpx-dashboard:has(.dpx-teach-side.dpx-open)>*{grid-column:1}"
    ".dpx-dashboard:has(.dpx-teach-side.dpx-open)>.dpx-teaching{grid-column:2;grid-row:1 / span 12;"
    "align-self:stretch;margin:0 !important;overflow:visible !important}"
    ".dpx-teach-side.dpx-open{position:sticky !important;top:4px;max-height:calc(100vh - 64px);"
    "overflow-y:auto !important;z-index:30;background:var(--jp-layout-color0,#fff);"
    "box-shadow:0 2px 10px rgba(0,0,0,0.25);padding:4px;box-sizing:border-box}"
    # in the column's bounded height nothing is squeezed over the next; texts wrap, button rows too
    ".dpx-teach-side.dpx-open .widget-vbox>*{flex-shrink:0;max-width:100%;box-sizing:border-box}"
    ".dpx-teach-side.dpx-open .widget-hbox{flex-wrap:wrap;gap:4px}"
    ".dpx-teach-side.dpx-open .widget-html-content{min-width:0;white-space:normal;overflow-wrap:anywhere}"
    ".dpx-teach-side.dpx-open .dpx-worksheets,.dpx-teach-side.dpx-open .dpx-step-room{display:none !important}"
    ".dpx-teach-side.dpx-open .dpx-step,.dpx-teach-side.dpx-open .dpx-question{font-size:15px !important}"
    # a question open beside a step: the question box says it; the step keeps its title and buttons
    ".dpx-teach-side.dpx-q-open .dpx-step-say,.dpx-teach-side.dpx-q-open .dpx-step-ask,"
    ".dpx-teach-side.dpx-q-open .dpx-step-answer{display:none !important}"
    ".dpx-dashboard:has(.dpx-teach-side.dpx-open) [class*='dpx-verdict-']{display:none !important}"
    ".dpx-teach-side .dpx-room-qr svg{width:96px;height:auto}"
    ".dpx-teach-side .dpx-room-code{font-size:1.6em !important}"
    ".dpx-teach-side.dpx-open .dpx-room-box{font-size:13px;line-height:1.35}"
    ".dpx-teach-side .dpx-room-bar>span:first-child{min-width:7.5em !important}"
    ".dpx-teach-side .dpx-room-bar>span[aria-hidden]{max-width:5em}"
    ".dpx-teach-side.dpx-open .dpx-room-box i{display:none}"  # the question, said just above
    "</style>"
)


def _balanced(text: str, i: int) -> bool:
    """True if position ``i`` of ``text`` is outside every HTML tag and every ``<b>``/``<i>`` element."""
    return (text.count("<", 0, i) == text.count(">", 0, i) and text.count("<b>", 0, i) == text.count("</b>", 0, i)
            and text.count("<i>", 0, i) == text.count("</i>", 0, i))


def collapsible(text: str, *, keep: int = 200) -> str:
    """A long caption as its first sentence (or its first ~``keep`` characters, cut at a word), with the rest
    behind a "more" disclosure (the first screen stays for the controls and the plot; nothing is lost).

    Parameters
    ----------
    text : str
        The caption (HTML); never cut inside a tag or a ``<b>``/``<i>`` element.
    keep : int
        Texts up to this many characters are returned as they are.

    Returns
    -------
    str
        ``text``, or a ``<details>`` element whose summary is its head.

    Examples
    --------
    >>> collapsible("Short.")
    'Short.'
    >>> "<details" in collapsible("First sentence here is long enough. " + "More words. " * 40)
    True
    >>> collapsible("word " * 100).startswith("<details")
    True
    """
    if len(text) <= keep:
        return text
    cut = -1
    for i in range(40, min(len(text) - 1, keep)):  # the first sentence end outside an HTML tag
        if text[i] in ".:;" and text[i + 1] == " " and _balanced(text, i):
            cut = i + 1
            break
    if cut < 0:  # no sentence end early enough: cut at the last word boundary before `keep`
        cut = next((i for i in range(keep, 40, -1) if text[i] == " " and _balanced(text, i)), -1)
        if cut < 0:
            return text
        head = text[:cut] + " …"
    else:
        head = text[:cut]
    return (f"<details><summary style='cursor:pointer'>{head} <span style='color:#0072B2'>more…</span>"
            f"</summary>{text[cut:]}</details>")


def header_html(title: str, intro: str = "") -> str:
    """The page's style sheet, its title (plain text, TeX-like symbols rendered) and intro paragraph (HTML).

    Parameters
    ----------
    title : str
        Plain text (escaped here).
    intro : str
        One paragraph of HTML ("" for none); a long one is :func:`collapsible`.

    Returns
    -------
    str

    Examples
    --------
    >>> "<h2" in header_html("A & B") and "A &amp; B" in header_html("A & B")
    True
    """
    return (f"<style>{STALE_CSS}</style><h2 style='margin:0.2em 0'>{tex_to_html(html.escape(title))}</h2>"
            + (f"<div class='dpx-intro' style='margin:0.2em 0 0.4em 0;max-width:60em;line-height:1.45'>"
               f"{collapsible(tex_to_html(intro))}</div>" if intro else ""))


def panel_head_html(title: str, caption: str = "") -> str:
    """A panel's heading and caption; a long caption is :func:`collapsible` (class ``dpx-caption-long``,
    hidden while presenting).

    Parameters
    ----------
    title : str
        Plain text (escaped here).
    caption : str
        HTML ("" for none).

    Returns
    -------
    str

    Examples
    --------
    >>> "dpx-caption-long" in panel_head_html("P", "Look here. " * 40)
    True
    """
    head = f"<h3 style='margin:0.8em 0 0.1em 0'>{tex_to_html(html.escape(title))}</h3>"
    if caption:
        text = collapsible(tex_to_html(caption))
        kind = "dpx-caption dpx-caption-long" if text.startswith("<details") else "dpx-caption"
        head += (f"<div class='{kind}' style='color:#444;max-width:60em;margin-bottom:0.2em;"
                 f"line-height:1.45'>{text}</div>")
    return head


def status_html(text: str, busy: bool = False, title: str = "") -> str:
    """The status line (one line, cut with an ellipsis); ``title`` is its tooltip.

    Parameters
    ----------
    text : str
        Plain text (escaped here).
    busy : bool
        Computing (drawn in blue).
    title : str
        Tooltip ("" for none).

    Returns
    -------
    str

    Examples
    --------
    >>> "dpx-status" in status_html("Updated in 0.10 s.")
    True
    """
    color = "#1f618d" if busy else "#555"
    tip = f" title='{html.escape(title)}'" if title else ""
    return (f"<div class='dpx-status' style='color:{color};font-size:0.9em;white-space:nowrap;overflow:hidden;"
            f"text-overflow:ellipsis'{tip}>{html.escape(text)}</div>")


def messages_html(errors: Iterable[tuple[str, str]], notes: Iterable[str]) -> str:
    """The message box: one error line per reason (panels failing for the same reason share it), then the notes.

    Parameters
    ----------
    errors : iterable of (str, str)
        ``(panel title, error text)``; an error text starting with ``"<title>: "`` loses that prefix.
    notes : iterable of str
        HTML notes (already escaped where they quote input).

    Returns
    -------
    str

    Examples
    --------
    >>> out = messages_html([("A", "A: bad n"), ("B", "B: bad n")], ["a note"])
    >>> out.count("dpx-error"), "A, B: bad n" in out, out.count("dpx-note")
    (1, True, 1)
    """
    by_reason: dict[str, list[str]] = {}
    for title, text in errors:
        reason = text[len(title) + 2:] if text.startswith(title + ": ") else text
        by_reason.setdefault(reason, []).append(title)
    parts = [f"<div class='dpx-error' style='{ERROR_STYLE}'><b>Error.</b> {html.escape(', '.join(titles))}: "
             f"{html.escape(reason)}</div>" for reason, titles in by_reason.items()]
    parts += [f"<div class='dpx-note' style='{NOTE_STYLE}'>{m}</div>" for m in notes]
    return "".join(parts)


def snippet_html(code: str, query: Mapping[str, object], version: str) -> str:
    """The "reproduce in code" block: a header with the version and the view's deep link, then ``code``.

    Parameters
    ----------
    code : str
        Python source.
    query : mapping
        The view's URL parameters.
    version : str
        dpexplore's version.

    Returns
    -------
    str

    Examples
    --------
    >>> "append ?n=5&amp;seed=0" in snippet_html("x = 1\\n", {"n": 5, "seed": 0}, "1.0")
    True
    """
    link = "&".join(f"{k}={v}" for k, v in query.items())
    head = (f"# dpexplore {version}; same numbers for the same seed and version\n"
            f"# deep link to this view: append ?{link} to this page's URL\n")
    return ("<pre style='white-space:pre-wrap;font-size:0.85em;background:#f7f7f7;padding:8px'>"
            + html.escape(head + code) + "</pre>")


def footer_html(paper: str, measured: bool, version: str) -> str:
    """The footer: the paper, how to read the plots, the teaching-PRNG warning and a link to the gallery.

    Parameters
    ----------
    paper : str
        The reference (HTML; "" for none).
    measured : bool
        Whether the panels show Monte-Carlo measurements.
    version : str
        dpexplore's version.

    Returns
    -------
    str

    Examples
    --------
    >>> "not cryptographically secure" in footer_html("", True, "1.0")
    True
    """
    ref = f"<div><b>Paper.</b> {paper}</div>" if paper else ""
    return (
        "<hr style='margin-top:1.5em'><div style='font-size:0.85em;line-height:1.4;color:#444;max-width:60em'>"
        f"{ref}<div><b>Reading the plots.</b> "
        + ("Solid lines with shaded bands are measured (mean and 95% confidence band over the trials); "
           "theory curves" if measured else "Nothing here is sampled: every curve is computed, and")
        + " say in brackets whether they are "
        "<i>exact</i>, a <i>bound</i> with explicit constants, a <i>rate</i> drawn with a stated constant, "
        "or an <i>approximation</i>. No theory curve is fitted to the data it is compared with.</div>"
        f"<div style='margin-top:0.4em'><b>Teaching tool.</b> {PRNG_FOOTER}</div>"
        f"<div style='margin-top:0.4em'>dpexplore {version} · "
        "<a href='00_index.ipynb' style='color:#0072B2;text-decoration:underline'>all dashboards</a></div></div>"
    )
