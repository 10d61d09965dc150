"""Printable worksheets for lesson sequences (Markdown and HTML), UI-free.

A lesson sequence (:mod:`dpexplore.classroom.lessons`) is a list of steps: a preset, what the instructor
says, how many minutes, and the question to ask the room. :func:`worksheet_markdown` and
:func:`worksheet_html` turn one sequence into a student sheet (the questions, each with room to write)
or, with ``answers=True``, the instructor's copy (what to say, the minutes and the answers). Every text
comes from a lessons file (hostile until checked): the HTML escapes all of it, the Markdown escapes the
characters that would start markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["worksheet_html", "worksheet_markdown"]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|])")


def _md(text: str) -> str:
    """``text`` with Markdown's markup characters escaped (a lessons file cannot inject links or HTML)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _settings(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in values.items())


def _steps(sequence: Mapping[str, Any], presets: Mapping[str, Mapping[str, Any]]):
    for i, step in enumerate(sequence["steps"], 1):
        pre = presets.get(step["preset"], {})
        yield i, step, pre.get("title", step["preset"]), _settings(pre.get("values", {}))


def worksheet_markdown(sequence: Mapping[str, Any], presets: Mapping[str, Mapping[str, Any]], *,
                       dashboard_title: str = "", answers: bool = False) -> str:
    """The sequence as a Markdown worksheet: for students, or (``answers=True``) for the instructor.

    Parameters
    ----------
    sequence : mapping
        A validated sequence (``name``, ``title``, ``steps``; see
        :func:`~dpexplore.classroom.lessons.validate_lessons`).
    presets : mapping
        The dashboard's validated presets by name (their titles and values are printed with each step).
    dashboard_title : str
        The page the lesson uses.
    answers : bool
        Add what to say, the minutes and the answers (the instructor's copy).

    Examples
    --------
    >>> seq = {"name": "s", "title": "Noise and ε", "steps": [
    ...     {"preset": "p", "say": "Watch panel 1.", "minutes": 3, "ask": "Does the error fall?", "answer": "Yes."}]}
    >>> md = worksheet_markdown(seq, {"p": {"title": "Strong privacy", "values": {"epsilon": 0.3}}})
    >>> "Does the error fall?" in md and "Yes." not in md
    True
    >>> "Yes." in worksheet_markdown(seq, {}, answers=True)
    True
    """
    total = sum(float(s["minutes"]) for s in sequence["steps"])
    lines = [f"# {_md(sequence['title'])}" + (" — instructor's copy" if answers else ""), ""]
    if dashboard_title:
        lines += [f"Dashboard: {_md(dashboard_title)}. About {total:g} minutes, {len(sequence['steps'])} steps.", ""]
    if sequence.get("about"):
        lines += [_md(sequence["about"]), ""]
    if not answers:
        lines += ["Name: ______________________", ""]
    for i, step, title, vals in _steps(sequence, presets):
        lines += [f"## Step {i}: {_md(title)}" + (f" ({step['minutes']:g} min)" if answers else ""), ""]
        if vals:
            lines += [f"Settings: {_md(vals)} (lesson preset '{_md(step['preset'])}').", ""]
        if answers:
            lines += [f"*Say:* {_md(step['say'])}", ""]
        lines += [f"**Question.** {_md(step['ask'])}", ""]
        blank = ["Your answer:", "", "&nbsp;", "", "&nbsp;", ""]
        lines += [f"*Answer:* {_md(step['answer'])}", ""] if answers else blank
    return "\n".join(lines).rstrip() + "\n"


def worksheet_html(sequence: Mapping[str, Any], presets: Mapping[str, Mapping[str, Any]], *,
                   dashboard_title: str = "", answers: bool = False) -> str:
    """The same worksheet as a standalone, printable HTML page (every text escaped).

    Examples
    --------
    >>> seq = {"name": "s", "title": "<b>x</b>", "steps": [
    ...     {"preset": "p", "say": "s", "minutes": 2, "ask": "Why?", "answer": "Because."}]}
    >>> page = worksheet_html(seq, {})
    >>> "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page and "Because." not in page
    True
    """
    e = html.escape
    total = sum(float(s["minutes"]) for s in sequence["steps"])
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             f"<title>{e(sequence['title'])}</title><style>body{{font-family:sans-serif;max-width:44em;margin:2em auto;"
             "line-height:1.45;font-size:12pt}h2{font-size:13pt;margin-top:1.4em}.box{border:1px solid #999;"
             "height:6em;margin:0.4em 0 1em 0}.say,.ans{color:#1b2631;background:#eaf2f8;padding:4px 8px}"
             "@media print{.step{break-inside:avoid}}</style></head><body>",
             f"<h1>{e(sequence['title'])}{' — instructor’s copy' if answers else ''}</h1>"]
    if dashboard_title:
        parts.append(f"<p>Dashboard: {e(dashboard_title)}. About {total:g} minutes, "
                     f"{len(sequence['steps'])} steps.</p>")
    if sequence.get("about"):
        parts.append(f"<p>{e(sequence['about'])}</p>")
    if not answers:
        parts.append("<p>Name: ______________________</p>")
    for i, step, title, vals in _steps(sequence, presets):
        parts.append(f"<div class='step'><h2>Step {i}: {e(title)}"
                     + (f" ({step['minutes']:g} min)" if answers else "") + "</h2>")
        if vals:
            parts.append(f"<p>Settings: {e(vals)} (lesson preset '{e(step['preset'])}').</p>")
        if answers:
            parts.append(f"<p class='say'><i>Say:</i> {e(step['say'])}</p>")
        parts.append(f"<p><b>Question.</b> {e(step['ask'])}</p>")
        parts.append(f"<p class='ans'><i>Answer:</i> {e(step['answer'])}</p>" if answers else "<div class='box'></div>")
        parts.append("</div>")
    parts.append("</body></html>")
    return "".join(parts)
