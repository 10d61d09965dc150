"""Classroom features of the dashboards, drawn: presets, predict-then-reveal, lesson sequences, worksheets,
presentation mode and export.

The lessons file (``notebooks/lessons.json``) is read and checked by :mod:`dpexplore.classroom.lessons`
(its format is described there); the worksheets are printed by :mod:`dpexplore.classroom.worksheets`.
This module only draws them.

:class:`TeachingBox` is the widget a :class:`~dpexplore.ui.dashboard.Dashboard` places under its header:

* a preset selector (``?preset=name``); a preset is absolute (every control it does not name goes back to
  its default), and the page's URL follows the view (preset, settings, page options) as it changes;
* the predict-then-reveal questions (``?mode=predict`` opens them); the verdict appears under the panel the
  question is about, which is scrolled into view;
* lesson sequences (``?lesson=name&step=k``): ordered steps, each a preset, what to say, minutes and the
  question to ask, stepped through with Previous / Next, with printable student and instructor worksheets;
* a "Presentation mode" toggle (``?present=1``, see :meth:`~dpexplore.ui.dashboard.Dashboard.set_presentation`);
* a button that copies the deep link and the code snippet of the current view to the clipboard.

:meth:`TeachingBox.csv_widget` gives each measured panel its download links, rendered from the results the
panel drew (so a link never describes another view than the plot above it).
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import anywidget
import ipywidgets as widgets
import traitlets

from dpexplore.classroom.lessons import (
    LessonError,
    absolute_values,
    check_value,
    direction,
    load_lessons,
    run_sheet_html,
    step_times,
    validate_lessons,
)
from dpexplore.classroom.predictions import RoomPrediction
from dpexplore.classroom.worksheets import worksheet_html, worksheet_markdown

from .class_predict import RoomRound, histogram_html
from .questions import VISIBLE_FRACTION, measure_question, plotted_change, question_views

__all__ = ["PAGE_OPTIONS", "TeachingBox", "VISIBLE_FRACTION", "check_value", "load_lessons",
           "validate_lessons", "csv_links_html", "direction", "measure_question", "plotted_change", "question_views",
           "view_query"]

#: URL keys that are page options, not controls
PAGE_OPTIONS = ("mode", "preset", "present", "lesson", "step")
_TRUE = ("1", "true", "yes", "on")
#: the largest CSV offered as a data: link (bytes of CSV text; larger results: use the snippet)
MAX_CSV_BYTES = 2_000_000

_NOTE_STYLE = ("border-left:4px solid #1f618d;background:#eaf2f8;padding:6px 10px;margin:4px 0;"
               "font-family:var(--jp-ui-font-family, sans-serif);color:#1b2631")
_BAD_STYLE = ("border-left:4px solid #b7950b;background:#fef9e7;padding:6px 10px;margin:4px 0;"
              "font-family:var(--jp-ui-font-family, sans-serif);color:#5d4a05")



# -- export --------------------------------------------------------------------------------
def csv_links_html(panel_title: str, results: Mapping[str, Any] | None) -> str:
    """``<a download href="data:text/csv;base64,…">`` links, one per ExperimentResult a panel drew ("" if none).

    Examples
    --------
    >>> from dpexplore.core.experiment import ExperimentResult
    >>> r = ExperimentResult.from_values(function="f", parameters={}, seed=3, axis="x", grid=[1],
    ...                                  series=["a"], values=[[[0.5]]], version="0")
    >>> "download data (CSV)" in csv_links_html("1. Error", {"": r})
    True
    """
    links = []
    for label, res in (results or {}).items():
        if not hasattr(res, "to_csv"):
            continue
        text = res.to_csv()
        stem = re.sub(r"[^A-Za-z0-9]+", "_", f"{panel_title} {label}").strip("_")[:60] or "data"
        seed, n = getattr(res, "seed", None), getattr(res, "n", None)
        tag = f"_seed{seed}" if seed is not None else ""
        tag += f"_n{n}" if isinstance(n, int) else ""
        where = f", n = {n:,}" if isinstance(n, int) else ""
        what = f"download data{': ' + label if label else ''}{where} (CSV)"
        if len(text) > MAX_CSV_BYTES:
            links.append(f"<span>{html.escape(what)}: too large for a link ({len(text)} bytes); "
                         "run the 'reproduce in code' snippet and call <code>.to_csv()</code></span>")
            continue
        links.append(_data_link("dpx-csv", f"{stem}{tag}.csv", "text/csv", text, what))
        if callable(getattr(res, "to_json", None)):
            js = res.to_json()
            if len(js) <= MAX_CSV_BYTES:
                links.append(_data_link("dpx-json", f"{stem}{tag}.json", "application/json", js, "(JSON)"))
    if not links:
        return ""
    return "<div style='font-size:0.85em;margin:2px 0 6px 0'>⬇ " + " · ".join(links) + "</div>"


def view_query(dashboard, params: Mapping[str, Any]) -> str:
    """The URL query of the view (every non-text control), URL-encoded."""
    return urlencode([(k, v) for k, v in params.items() if dashboard._controls[k].kind != "text"])


_COPY_ESM = """
function render({ model, el }) {
  const btn = document.createElement("button");
  btn.className = "dpx-copy jupyter-button";
  btn.textContent = "Copy link + code";
  btn.title = "Copies this view's deep link and its 'reproduce in code' snippet to the clipboard";
  const out = document.createElement("textarea");
  out.className = "dpx-copy-text";
  out.readOnly = true;
  out.style.cssText = "display:none;width:100%;height:8em;font-family:monospace;font-size:0.8em";
  const say = document.createElement("span");
  say.className = "dpx-copy-status";
  say.style.cssText = "margin-left:8px;font-size:0.85em;color:#555";
  const text = () => {
    const url = window.location.origin + window.location.pathname + "?" + model.get("query");
    return "# " + url + "\\n" + model.get("snippet");
  };
  // the address bar follows the view (preset, settings, page options): a reload or a shared link shows it
  const follow = () => {
    const q = model.get("query");
    if (!q || !window.history || !window.history.replaceState) return;
    try { window.history.replaceState(window.history.state, "", window.location.pathname + "?" + q); } catch (e) {}
  };
  model.on("change:query", follow);
  follow();
  btn.addEventListener("click", async () => {
    const t = text();
    out.value = t;
    try {
      await navigator.clipboard.writeText(t);
      out.style.display = "none";
      say.textContent = "Copied to the clipboard.";
    } catch (e) {
      out.style.display = "block";
      out.focus();
      out.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e2) {}
      say.textContent = ok ? "Copied to the clipboard." : "Press Ctrl+C (⌘C) to copy the selected text.";
    }
  });
  el.append(btn, say, out);
  return () => model.off("change:query", follow);
}
export default { render };
"""


class CopyView(anywidget.AnyWidget):
    """The "copy link + code" button; its ``query`` is also written into the page's address bar."""

    _esm = _COPY_ESM
    query = traitlets.Unicode("").tag(sync=True)
    snippet = traitlets.Unicode("").tag(sync=True)

    def set_state(self, sync_data: Mapping[str, Any]) -> None:
        """Refuse every client update: the browser has nothing to set on this widget."""
        return None


_SCROLL_ESM = """
export default {
  render({ model, el }) {
    el.className += " dpx-scroll-anchor";
    // block "panel" (presentation mode): the top of the panel this anchor belongs to (its heading and plot), so
    // the plot asked about is on the projector's screen beside the side column; otherwise the anchor, centred
    const go = () => {
      if (model.get("token") <= 0) return;
      const panel = model.get("block") === "panel" ? el.closest(".dpx-panel") : null;
      (panel || el).scrollIntoView({ block: panel ? "start" : "center", behavior: "smooth" });
      // and, in the side column, the reveal (once there is one) or the room's count at the column's top
      const side = panel ? document.querySelector(".dpx-teach-side.dpx-open") : null;
      if (side) setTimeout(() => {
        const res = side.querySelector(".dpx-q-result");
        const target = res && res.innerText.trim() && res.querySelector(".dpx-reveal") ? res
          : side.querySelector(".dpx-room-count") || side.querySelector(".dpx-question");
        if (target) side.scrollTop += target.getBoundingClientRect().top - side.getBoundingClientRect().top - 4;
      }, 400);
    };
    model.on("change:token", go);
    // asked before the page drew (?present=1&mode=predict): scroll once the widgets above have laid out
    if (model.get("token") > 0) setTimeout(go, 1500);
    return () => model.off("change:token", go);
  },
};
"""


class ScrollAnchor(anywidget.AnyWidget):
    """An empty element that scrolls itself into view each time the kernel raises ``token``."""

    _esm = _SCROLL_ESM
    token = traitlets.Int(0).tag(sync=True)
    #: "center": the anchor itself; "panel": the top of its panel (presentation mode)
    block = traitlets.Unicode("center").tag(sync=True)

    def set_state(self, sync_data: Mapping[str, Any]) -> None:
        """Refuse every client update."""
        return None


def _data_link(css: str, name: str, mime: str, text: str, what: str) -> str:
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (f"<a class='{css}' download='{html.escape(name)}' href='data:{mime};base64,{data}' "
            f"style='color:#0072B2;text-decoration:underline'>{html.escape(what)}</a>")


def _values_text(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in values.items())


# -- the widget ----------------------------------------------------------------------------
class TeachingBox(widgets.VBox):
    """Presets, predict-then-reveal questions, lesson sequences and export for one dashboard (see the
    module docstring).

    Built by :class:`~dpexplore.ui.dashboard.Dashboard` before its controls: :meth:`initial_values` gives
    the values a ``?preset=``, ``?lesson=`` or ``?mode=predict`` sets before the first draw.
    """

    def __init__(self, dashboard, options: Mapping[str, str], *, lessons_path: str | os.PathLike | None = None):
        super().__init__(layout=widgets.Layout(margin="2px 0"))
        self.add_class("dpx-teaching")
        self.dashboard = dashboard
        self.cls_name = type(dashboard).__name__
        self.problems: list[str] = []
        self._qindex = 0
        mode = options.get("mode")
        if mode not in (None, "predict", "explore"):
            self.problems.append(f"URL parameter mode={html.escape(str(mode)[:40])!s} ignored: must be "
                                 "'predict' or 'explore'")
        self.predict_mode = mode == "predict"
        present = options.get("present")
        if present is not None and present.strip().lower() not in (*_TRUE, "0", "false", "no", "off"):
            self.problems.append(f"URL parameter present={html.escape(present[:40])} ignored: must be 1 or 0")
        self.present = present is not None and present.strip().lower() in _TRUE
        try:
            data = load_lessons(lessons_path)
        except LessonError as exc:
            data = {"dashboards": {}}
            if not isinstance(exc.__cause__, FileNotFoundError) and "no lessons file" not in str(exc):
                self.problems.append(str(exc))
        except OSError as exc:
            data = {"dashboards": {}}
            self.problems.append(f"lessons file could not be read ({type(exc).__name__})")
        lessons, errors = validate_lessons(data, {self.cls_name: type(dashboard)})
        self.problems += errors
        mine = lessons.get(self.cls_name, {"presets": {}, "questions": [], "sequences": {}})
        self.presets: dict[str, dict] = mine["presets"]
        self.questions: list[dict] = mine["questions"]
        self.sequences: dict[str, dict] = mine.get("sequences", {})
        if self.predict_mode and not self.questions:
            self.problems.append("URL parameter mode=predict ignored: the lessons file has no questions for "
                                 f"{self.cls_name}")
            self.predict_mode = False
        self.preset: str | None = None
        wanted = options.get("preset")
        if wanted is not None:
            if wanted in self.presets:
                self.preset = wanted
            else:
                self.problems.append(f"URL parameter preset={html.escape(wanted[:40])} ignored: not a preset of this "
                                     f"dashboard (known: {', '.join(self.presets) or 'none'})")
        self.lesson: str | None = None
        self.step = 0
        wanted = options.get("lesson")
        if wanted is not None:
            if wanted in self.sequences:
                self.lesson = wanted
                self.step = self._parse_step(options.get("step"))
                self.preset = self.sequences[wanted]["steps"][self.step]["preset"]
                qi = self._step_question(self.step)
                if qi is not None:  # the step sends a question to the room: the predict box opens on it
                    self.predict_mode, self._qindex = True, qi
            else:
                self.problems.append(f"URL parameter lesson={html.escape(wanted[:40])} ignored: not a lesson sequence "
                                     f"of this dashboard (known: {', '.join(self.sequences) or 'none'})")
        self._csv: dict[str, widgets.HTML] = {}
        self._verdicts: dict[str, widgets.HTML] = {}
        self._anchors: dict[str, ScrollAnchor] = {}
        self._drawn: dict[str, tuple[dict, dict, Any]] = {}  # panel -> (params, results, figure) of its last draw
        self._reveal: dict[str, Any] | None = None
        self._draws = 0  # panel draws so far; a reveal waits for a draw of its panels after the commit
        self._panel_draws: dict[str, int] = {}
        self._build()

    def _parse_step(self, text: str | None) -> int:
        steps = self.sequences[self.lesson]["steps"]
        if text is None:
            return 0
        if text.isdigit() and 1 <= int(text) <= len(steps):
            return int(text) - 1
        self.problems.append(f"URL parameter step={html.escape(text[:20])} ignored: must be an integer in "
                             f"[1, {len(steps)}]")
        return 0

    # -- values before the first draw -------------------------------------------------------
    def initial_values(self) -> dict[str, Any]:
        """Control values set by ``?preset=`` / ``?lesson=`` and, in predict mode, by the first question's
        ``settings``. A preset is absolute: it gives every control (its value, or the default)."""
        out: dict[str, Any] = {}
        if self.preset is not None:
            out.update(absolute_values(self.dashboard.controls, self.presets[self.preset]["values"]))
        if self.predict_mode and self.questions:
            out.update(self.questions[self._qindex]["settings"])
        return out

    # -- layout -------------------------------------------------------------------------------
    def _build(self) -> None:
        rows: list[widgets.Widget] = []
        self.problem_box = widgets.HTML(self._problems_html())
        rows.append(self.problem_box)
        self.preset_select = widgets.Dropdown(
            options=[("— lesson preset —", "")] + [(p["title"], n) for n, p in self.presets.items()],
            value=self.preset or "", description="", tooltip="Lesson preset: sets every control at once",
            layout=widgets.Layout(width="17em"))
        self.preset_select.add_class("dpx-preset")
        self.preset_note = widgets.HTML(self._preset_note_html())
        self.preset_select.observe(self._on_preset, names="value")
        self.predict_button = widgets.ToggleButton(value=self.predict_mode, description="Predict, then reveal",
                                                   tooltip="Questions: commit to an answer, then watch the plot")
        self.predict_button.add_class("dpx-predict-toggle")
        self.predict_button.observe(self._on_toggle, names="value")
        self.present_button = widgets.ToggleButton(
            value=self.present, description="Present", icon="desktop",
            tooltip="For a projector: large plot text; hides the guide, long captions, the audit and secondary "
                    "controls (?present=1)")
        self.present_button.add_class("dpx-present-toggle")
        self.present_button.observe(lambda ch: self._guard(lambda: self.dashboard.set_presentation(ch["new"])),
                                    names="value")
        self.lesson_select = widgets.Dropdown(
            options=[("— lesson sequence —", "")] + [(q["title"], n) for n, q in self.sequences.items()],
            value=self.lesson or "", description="", layout=widgets.Layout(width="15em"))
        self.lesson_select.add_class("dpx-lesson-select")
        self.lesson_select.observe(lambda ch: self._guard(lambda: self.start_lesson(ch["new"] or None)), names="value")
        self.copy = CopyView()
        bar = [w for w in (self.preset_select if self.presets else None,
                           self.lesson_select if self.sequences else None,
                           self.predict_button if self.questions else None, self.present_button, self.copy)
               if w is not None]
        rows.append(widgets.HBox(bar, layout=widgets.Layout(flex_flow="row wrap", align_items="center",
                                                            grid_gap="4px 12px")))
        rows.append(self.preset_note)
        # a lesson sequence, step by step
        self.step_text = widgets.HTML()
        self.step_prev = widgets.Button(description="◀ Previous step")
        self.step_prev.add_class("dpx-step-prev")
        self.step_next = widgets.Button(description="Next step ▶", button_style="info")
        self.step_next.add_class("dpx-step-next")
        self.step_prev.on_click(lambda _: self._guard(lambda: self.go_step(self.step - 1)))
        self.step_next.on_click(lambda _: self._guard(lambda: self.go_step(self.step + 1)))
        self.worksheets = widgets.HTML()
        self.worksheets.add_class("dpx-worksheets")
        self.sequence_box = widgets.VBox(
            [self.step_text, widgets.HBox([self.step_prev, self.step_next]), self.worksheets],
            layout=widgets.Layout(border="1px solid #a9dfbf", padding="4px 10px",
                                  display="flex" if self.lesson else "none"))
        self.sequence_box.add_class("dpx-sequence")
        # predict, then reveal
        self.q_text = widgets.HTML()
        self.q_choices = widgets.RadioButtons(options=[], value=None, layout=widgets.Layout(width="auto"))
        self.q_choices.add_class("dpx-q-choices")
        self.q_commit = widgets.Button(description="Commit and reveal", button_style="primary", disabled=True)
        self.q_commit.add_class("dpx-q-commit")
        self.q_next = widgets.Button(description="Next question")
        self.q_next.add_class("dpx-q-next")
        self.q_result = widgets.HTML()
        self.q_result.add_class("dpx-q-result")
        self.q_choices.observe(
            lambda ch: setattr(self.q_commit, "disabled", ch["new"] is None or self._reveal is not None), names="value")
        self.q_commit.on_click(lambda _: self._guard(self.commit))
        self.q_next.on_click(lambda _: self._guard(lambda: self.start_question(self._qindex + 1)))
        # class-wide predictions: an instructor asks the room, students answer on the poll page (ui.class_predict)
        self.room = RoomRound(lambda room: self.commit(room=room), self._room_failed, on_ask=self._room_asked)
        self._own = widgets.VBox([self.q_choices, widgets.HBox([self.q_commit, self.q_next])])
        self.predict_box = widgets.VBox([self.q_text, self.room, self._own, self.q_result],
                                        layout=widgets.Layout(border="1px solid #aed6f1", padding="4px 10px",
                                                              display="flex" if self.predict_mode else "none"))
        self.predict_box.add_class("dpx-predict")
        # the lesson step and the question in one box: in presentation mode a side column fixed beside the plots
        # (PRESENT_CSS), so the step, the question, the room's count and the plot asked about share one screen
        self.side_box = widgets.VBox([self.sequence_box, self.predict_box])
        self.side_box.add_class("dpx-teach-side")
        rows.append(self.side_box)
        if self.questions:
            self._show_question(self._qindex)
        if self.lesson:
            self._show_step()
        self._sync_side()
        self.children = rows

    def _sync_side(self) -> None:
        """Mark the side box open (class ``dpx-open``) while a lesson sequence or the predict box shows."""
        for cls, on in (("dpx-open", bool(self.lesson) or self.predict_mode), ("dpx-q-open", self.predict_mode)):
            if on and cls not in self.side_box._dom_classes:
                self.side_box.add_class(cls)
            elif not on and cls in self.side_box._dom_classes:
                self.side_box.remove_class(cls)

    def show_asked_panel(self) -> None:
        """In presentation mode, scroll the panel the current question is about to the top of the screen."""
        if not (self.present and self.predict_mode and self.questions):
            return
        anchor = self._anchors.get(self._verdict_panel(self.questions[self._qindex]))
        if anchor is not None:
            anchor.block = "panel"
            anchor.token += 1

    def _guard(self, fn) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - never a traceback in the page
            self.dashboard._callback_failed(exc)

    def _problems_html(self) -> str:
        if not self.problems:
            return ""
        items = "".join(f"<li>{html.escape(p)}</li>" for p in self.problems[:20])
        more = f"<li>… and {len(self.problems) - 20} more</li>" if len(self.problems) > 20 else ""
        return (f"<div class='dpx-lesson-problem' style='{_BAD_STYLE}'><b>Lessons file / page options:</b> "
                f"the entries below were skipped; the dashboard works without them.<ul style='margin:2px 0'>"
                f"{items}{more}</ul></div>")

    def _preset_note_html(self) -> str:
        if self.preset is None:
            return ""
        p = self.presets[self.preset]
        return (f"<div class='dpx-preset-note' style='{_NOTE_STYLE}'><b>{html.escape(p['title'])}.</b> "
                f"{html.escape(p['note'])} <span style='color:#555'>(sets {html.escape(_values_text(p['values']))}; "
                "every other control at its default)</span></div>")

    # -- presets -------------------------------------------------------------------------------
    def preset_values(self, name: str) -> dict[str, Any]:
        """Every control's value under preset ``name``: the preset's, or the control's default."""
        return absolute_values(self.dashboard.controls, self.presets[name]["values"])

    def apply_preset(self, name: str) -> None:
        """Set every control at once (one redraw): the preset's values, the defaults elsewhere; show its note."""
        self.preset = name or None
        self.preset_note.value = self._preset_note_html()
        if self.preset_select.value != (name or ""):
            self.preset_select.value = name or ""  # (its observer lands here again and changes nothing)
            return
        if self.preset is not None:
            self.dashboard.set_params(**self.preset_values(name))

    def _on_preset(self, change) -> None:
        self._guard(lambda: self.apply_preset(change["new"]))

    # -- lesson sequences ------------------------------------------------------------------------
    def start_lesson(self, name: str | None) -> None:
        """Open lesson sequence ``name`` at its first step (None closes it)."""
        self.lesson = name if name in self.sequences else None
        if self.lesson_select.value != (self.lesson or ""):
            self.lesson_select.value = self.lesson or ""
        self.sequence_box.layout.display = "flex" if self.lesson else "none"
        self._sync_side()
        if self.lesson is not None:
            self.go_step(0)
        else:
            self.dashboard.refresh_url()

    def _step_question(self, i: int) -> int | None:
        """Index of the question step ``i`` of the open sequence sends to the room (None: it sends none)."""
        qid = self.sequences[self.lesson]["steps"][i].get("question")
        return next((k for k, q in enumerate(self.questions) if q["id"] == qid), None) if qid else None

    def go_step(self, i: int) -> None:
        """Show step ``i`` of the open sequence (clipped to its steps) and apply its preset; a step that names a
        question opens it in the predict box (its *Ask the room* sends it to the students' devices). A step that
        goes on with the question of the step before (a "reveal" step) keeps the round and the view as they are."""
        if self.lesson is None:
            return
        steps = self.sequences[self.lesson]["steps"]
        prev = self.step
        self.step = min(max(int(i), 0), len(steps) - 1)
        self._show_step()
        qi = self._step_question(self.step)
        if qi is not None and qi == self._step_question(prev) and abs(self.step - prev) == 1 and self.predict_mode:
            self.dashboard.refresh_url()
            return  # the same question's round goes on (ask → reveal)
        self.apply_preset(steps[self.step]["preset"])
        if qi is not None:
            if not self.predict_mode:
                self.predict_button.value = True  # (_on_toggle opens the box)
            self.start_question(qi)
        elif self.predict_mode and any(st.get("question") for st in steps):
            self.predict_button.value = False  # a run sheet's step without a question: the question box closes
        self.dashboard.refresh_url()

    def _show_step(self) -> None:
        seq = self.sequences[self.lesson]
        steps = seq["steps"]
        st = steps[self.step]
        pre = self.presets[st["preset"]]
        e = html.escape
        t0, t1 = step_times(seq)[self.step]
        room = ("<div class='dpx-step-room' style='font-size:0.9em'>This question is in the box below: "
                "<b>Ask the room</b> sends it to the students' devices.</div>"
                if st.get("question") and self.room.instructor() is not None else "")
        self.step_text.value = (
            f"<div class='dpx-step'><b>{e(seq['title'])}</b> — step {self.step + 1} of {len(steps)} "
            f"<span style='color:#555'>(min {t0:g}–{t1:g}; preset: {e(pre['title'])})</span>"
            + (f" <b class='dpx-step-do' style='text-transform:uppercase;color:#0072B2'>{e(st['do'])}</b>"
               if "do" in st else "")
            + f"<div class='dpx-step-say'><i>Say:</i> {e(st['say'])}</div>"
            f"<div class='dpx-step-ask'><b>Ask the room:</b> {e(st['ask'])}</div>{room}"
            f"<details class='dpx-step-answer'><summary style='cursor:pointer'>Answer (instructor)</summary>"
            f"{e(st['answer'])}</details></div>")
        self.step_prev.disabled = self.step == 0
        self.step_next.disabled = self.step == len(steps) - 1
        title = self.dashboard.title
        kw = {"dashboard_title": title}
        links = [
            _data_link("dpx-worksheet", f"{self.lesson}_worksheet.html", "text/html",
                       worksheet_html(seq, self.presets, **kw), "student worksheet (HTML)"),
            _data_link("dpx-worksheet", f"{self.lesson}_worksheet.md", "text/markdown",
                       worksheet_markdown(seq, self.presets, **kw), "(Markdown)"),
            _data_link("dpx-worksheet-answers", f"{self.lesson}_answers.html", "text/html",
                       worksheet_html(seq, self.presets, answers=True, **kw), "instructor's copy with answers (HTML)"),
            _data_link("dpx-worksheet-answers", f"{self.lesson}_answers.md", "text/markdown",
                       worksheet_markdown(seq, self.presets, answers=True, **kw), "(Markdown)"),
        ]
        if "minutes" in seq:  # a run sheet: the minute-by-minute plan, printable
            links.append(_data_link("dpx-run-sheet", f"{self.lesson}_run_sheet.html", "text/html",
                                    run_sheet_html(seq, self.presets, self.questions, dashboard_title=title),
                                    "run sheet (HTML)"))
        self.worksheets.value = ("<div style='font-size:0.85em;margin:2px 0'>⬇ Print: " + " ".join(links[:2])
                                 + " · " + " ".join(links[2:4]) + (" · " + links[4] if len(links) > 4 else "")
                                 + "</div>")

    # -- predict, then reveal ------------------------------------------------------------------
    def _on_toggle(self, change) -> None:
        self.predict_box.layout.display = "flex" if change["new"] else "none"
        self.predict_mode = bool(change["new"])
        self._sync_side()
        if self.questions:
            self.room.show_for(self.questions[self._qindex] if self.predict_mode and self._reveal is None else None)
            self.show_asked_panel()
        self.dashboard.refresh_url()

    def _room_failed(self, exc: BaseException) -> None:
        """An error of the room's buttons, in words in the page (a database error by its kind only)."""
        if isinstance(exc, (ValueError, TypeError)):
            self.dashboard._note_now(f"Ask the room: {html.escape(str(exc))}")
        else:
            self.dashboard._note_now(f"Ask the room: the poll database failed ({html.escape(type(exc).__name__)}); "
                                     "try again")

    def _room_asked(self) -> None:
        """A round is open: the room answers, so the page's own answer buttons give way to the room's."""
        self.q_choices.layout.display = "none"
        self.q_commit.layout.display = "none"
        self.show_asked_panel()  # the projector shows the plot the room is asked about
        self.q_result.value = ("<div style='font-size:0.9em;color:#1b2631'>The room is answering. Close the round "
                               "when the count stops rising: the change is applied and the room's answers are "
                               "shown under the panel.</div>")

    def _show_question(self, i: int) -> None:
        self._qindex = i % len(self.questions)
        self._reveal = None
        q = self.questions[self._qindex]
        settings = _values_text(q["settings"])
        self.q_text.value = (
            f"<div class='dpx-question'><b>Question {self._qindex + 1} of {len(self.questions)}.</b> "
            f"{html.escape(q['question'])}"
            + (f"<div style='color:#555;font-size:0.9em'>Starting point: {html.escape(settings)}.</div>"
               if settings else "")
            + "<div style='font-size:0.9em'>Commit to an answer first: the plot changes only after you do.</div></div>")
        self.q_choices.options = list(q["choices"])
        self.q_choices.value = None
        self.q_choices.disabled = False
        self.q_commit.disabled = True
        self.q_choices.layout.display = self.q_commit.layout.display = None
        self.q_result.value = ""
        for w in self._verdicts.values():
            w.value = ""
        self.room.show_for(q if self.predict_mode else None)

    def start_question(self, i: int) -> None:
        """Show question ``i`` and set its starting point (``settings``)."""
        self._show_question(i)
        self.show_asked_panel()
        q = self.questions[self._qindex]
        if q["settings"] and any(self.dashboard.params().get(k) != v for k, v in q["settings"].items()):
            self.dashboard.set_params(**q["settings"])

    def _verdict_panel(self, q: Mapping[str, Any]) -> str:
        return q["check"][0]["panel"]

    def commit(self, choice: str | None = None, *, room: RoomPrediction | None = None) -> None:
        """Record the answer — the page's own, or the ``room``'s (a closed prediction round) — apply the question's
        change (one redraw) and reveal beside the panel."""
        q = self.questions[self._qindex]
        if room is None:
            if choice is not None:
                self.q_choices.value = choice
            choice = self.q_choices.value
            if choice is None or self._reveal is not None:
                return
        elif self._reveal is not None:
            return
        self.q_choices.disabled = True
        self.q_commit.disabled = True
        before = {self._check_key(c): self._measure(c, q["settings"]) for c in q["check"]}
        self._reveal = {"question": q, "choice": choice, "room": room, "before": before, "after": {}, "scrolled": False}
        if room is not None:
            self._reveal["head"] = (f"{histogram_html(room)}The answer is <b>{html.escape(q['answer'])}</b>. "
                                    f"{html.escape(q['explanation'])}")
        else:
            right = choice == q["answer"]
            verdict = ("<b style='color:#1e8449'>Right.</b>" if right else
                       f"<b style='color:#a04000'>Not quite</b> — the answer is <b>{html.escape(q['answer'])}</b>.")
            self._reveal["head"] = (f"You predicted <b>{html.escape(choice)}</b>. {verdict} "
                                    f"{html.escape(q['explanation'])}")
        self._reveal["generation"] = self._draws
        panel = self._verdict_panel(q)
        title = next((p.title for p in self.dashboard.panels if p.name == panel), panel)
        self.q_result.value = (f"<div style='font-size:0.9em;color:#1b2631'>Answer recorded: the result appears "
                               f"under <b>{html.escape(title)}</b>.</div>")
        self._update_verdict()
        self.dashboard.set_params(**{**q["settings"], **q["change"]})

    def _update_verdict(self) -> None:
        r = self._reveal
        panel = self._verdict_panel(r["question"])
        w = self.verdict_widget(panel)
        w.value = self._reveal_html()
        if self.present:  # presentation mode: the reveal (the room's counts) in the side column, beside the plot
            self.q_result.value = w.value
        if "dpx-reveal'" in w.value and not r["scrolled"]:  # the verdict is complete: bring it into view
            r["scrolled"] = True
            self._anchors[panel].block = "panel" if self.present else "center"
            self._anchors[panel].token += 1

    @staticmethod
    def _check_key(c: Mapping[str, Any]) -> str:
        return f"{c['panel']}:{c.get('label', '')}:{c.get('series', c.get('trace'))}"

    def _measure(self, c: Mapping[str, Any], want: Mapping[str, Any]) -> float | None:
        """The check's value on the panel's last draw, if that draw used the settings ``want``."""
        drawn = self._drawn.get(c["panel"])
        if drawn is None or any(drawn[0].get(k) != v for k, v in want.items()):
            return None
        try:
            return check_value(c, drawn[1], drawn[2])
        except ValueError:
            return None

    def _reveal_html(self) -> str:
        r = self._reveal
        q = r["question"]
        after_settings = {**q["settings"], **q["change"]}
        waiting = [c["panel"] for c in q["check"] if self._panel_draws.get(c["panel"], -1) <= r["generation"]
                   or any(self._drawn[c["panel"]][0].get(k) != v for k, v in after_settings.items())]
        if waiting:  # the verdict comes once the plot shows the change
            said = ("The room has answered" if r["room"] is not None else
                    f"You predicted <b>{html.escape(r['choice'])}</b>")
            return (f"<div class='dpx-reveal-wait' style='{_NOTE_STYLE}'>{said}. Applying the change: the plot is "
                    "redrawing …</div>")
        lines = []
        for c in q["check"]:
            key = self._check_key(c)
            b, a = r["before"].get(key), r["after"].get(key)
            if a is None:
                a = self._measure(c, after_settings)
                if a is not None:
                    r["after"][key] = a
            name = c.get("series", c.get("trace"))
            if b is None or a is None:
                lines.append(f"{html.escape(name)}: " + ("not measured here (the starting point was not drawn)"
                                                         if b is None else "could not be measured after the change"))
                continue
            got = direction(b, a)
            mark = "✓ as stated" if got == c["expect"] else "✗ this seed went the other way (noise: try more trials)"
            lines.append(f"{html.escape(name)}: {b:.4g} → {a:.4g} ({got}) {mark}")
        seed = self.dashboard.params().get("seed")
        measured = ("<div style='font-size:0.9em;color:#333'>Measured in this page"
                    + (f" (seed {seed})" if seed is not None else "") + ": " + "; ".join(lines) + "</div>")
        return f"<div class='dpx-reveal' style='{_NOTE_STYLE}'>{r['head']}{measured}</div>"

    @property
    def verdict_html(self) -> str:
        """The verdict of the current question as shown beside its panel ("" before a commit)."""
        if self._reveal is None:
            return ""
        return self.verdict_widget(self._verdict_panel(self._reveal["question"])).value

    # -- hooks called by the dashboard ---------------------------------------------------------
    def csv_widget(self, panel_name: str) -> widgets.HTML:
        """The HTML widget under a panel that holds its download links."""
        w = self._csv.get(panel_name)
        if w is None:
            w = self._csv[panel_name] = widgets.HTML()
            w.add_class(f"dpx-csv-{panel_name}")
        return w

    def verdict_widget(self, panel_name: str) -> widgets.HTML:
        """The HTML widget under a panel where a question about it shows its verdict."""
        w = self._verdicts.get(panel_name)
        if w is None:
            w = self._verdicts[panel_name] = widgets.HTML()
            w.add_class(f"dpx-verdict-{panel_name}")
            self._anchors[panel_name] = ScrollAnchor()
        return w

    def panel_widgets(self, panel_name: str) -> tuple[widgets.Widget, ...]:
        """What the dashboard puts under a panel's plot: the verdict (and its scroll anchor), the downloads."""
        verdict = self.verdict_widget(panel_name)
        return (self._anchors[panel_name], verdict, self.csv_widget(panel_name))

    def panel_drawn(self, name: str, params: Mapping[str, Any]) -> None:
        """Called after a panel is drawn: update its download links and a pending reveal (cheap: no computation)."""
        d = self.dashboard
        results = dict(d.results.get(name, {}))
        self._drawn[name] = (dict(params), results, d.figures.get(name))
        self._draws += 1
        self._panel_draws[name] = self._draws
        w = self._csv.get(name)
        if w is not None:
            title = next((p.title for p in d.panels if p.name == name), name)
            value = csv_links_html(title, results) if name not in d.errors else ""
            if w.value != value:
                w.value = value
        if self._reveal is not None and any(c["panel"] == name for c in self._reveal["question"]["check"]):
            self._update_verdict()

    def page_query(self, params: Mapping[str, Any]) -> str:
        """The URL query of the current view: every setting, and the page options in force (preset while the
        settings are the preset's, lesson and step, predict mode, presentation mode)."""
        d = self.dashboard
        opts: list[tuple[str, Any]] = []
        if self.lesson is not None:
            opts += [("lesson", self.lesson), ("step", self.step + 1)]
        elif self.preset is not None and all(params.get(k) == v for k, v in self.preset_values(self.preset).items()):
            opts.append(("preset", self.preset))
        if self.predict_mode:
            opts.append(("mode", "predict"))
        if d.presenting:
            opts.append(("present", 1))
        base = view_query(d, params)
        return "&".join(x for x in (urlencode(opts), base) if x)

    def view_changed(self, params: Mapping[str, Any]) -> None:
        """Called after a redraw: the copy button (and the address bar) get the view's query and its snippet."""
        import dpexplore

        d = self.dashboard
        self.copy.query = self.page_query(params)
        self.copy.snippet = (f"# dpexplore {dpexplore.__version__}; same numbers for the same seed and version\n"
                             + d.experiment_code() + d.reproduce(params))

