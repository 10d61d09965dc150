"""Classroom features of the dashboards: predict-then-reveal questions, instructor presets, and export.

The lessons live in a plain JSON file next to the notebooks (``notebooks/lessons.json``), one entry per
dashboard class, so an instructor adds a preset or a question without writing Python::

    {"dashboards": {"PrivatePCADashboard": {
        "presets": [{"name": "low-privacy", "title": "…", "note": "…", "values": {"epsilon": 50.0}}],
        "questions": [{"id": "halve-eps", "question": "…", "settings": {"epsilon": 10.0},
                       "change": {"epsilon": 5.0}, "choices": ["up", "down", "stays"], "answer": "up",
                       "explanation": "…",
                       "check": [{"panel": "vs_coherence", "series": "adaptive", "expect": "up"}]}]}}}

:func:`validate_lessons` checks the file against the dashboard classes (unknown dashboards, panels and
controls, values outside a control's range, missing or unknown fields) and names the dashboard, the
preset or question and the field in every message; a bad entry is dropped and the rest still work.
Every question states a ``check``: which measured series (an :class:`~dpexplore.core.experiment.ExperimentResult`
series of a panel, or a drawn trace for panels that compute exactly) must move in which direction
when ``change`` is applied to ``settings``. The tests run each check at seeds 0, 1, 2; the page runs it
again on what it draws and shows the measured before → after next to the stated answer.

:class:`TeachingBox` is the widget a :class:`~dpexplore.ui.dashboard.Dashboard` places under its header:
a preset selector (``?preset=name``), the predict-then-reveal questions (``?mode=predict`` opens them),
and a button that copies the deep link and the code snippet of the current view to the clipboard.
:meth:`TeachingBox.csv_widget` gives each measured panel its "download data (CSV)" links.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import ipywidgets as widgets

__all__ = ["PAGE_OPTIONS", "LessonError", "TeachingBox", "check_value", "load_lessons", "validate_lessons",
           "csv_links_html", "direction", "measure_question", "view_query"]

#: URL keys that are page options, not controls
PAGE_OPTIONS = ("mode", "preset")
#: the largest CSV offered as a data: link (bytes of CSV text; larger results: use the snippet)
MAX_CSV_BYTES = 2_000_000
#: the largest lessons file read (bytes)
MAX_LESSONS_BYTES = 1_000_000

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_EXPECT = ("up", "down", "same")
_PRESET_FIELDS = {"name": str, "title": str, "note": str, "values": dict}
_QUESTION_FIELDS = {"id": str, "question": str, "change": dict, "choices": list, "answer": str,
                    "explanation": str, "check": list}
_QUESTION_OPTIONAL = {"settings": dict}
_CHECK_FIELDS = {"panel", "expect", "series", "label", "trace", "at"}

_NOTE_STYLE = ("border-left:4px solid #1f618d;background:#eaf2f8;padding:6px 10px;margin:4px 0;"
               "font-family:var(--jp-ui-font-family, sans-serif);color:#1b2631")
_BAD_STYLE = ("border-left:4px solid #b7950b;background:#fef9e7;padding:6px 10px;margin:4px 0;"
              "font-family:var(--jp-ui-font-family, sans-serif);color:#5d4a05")


class LessonError(ValueError):
    """A lessons file that cannot be used at all (not JSON, not an object, too large)."""


def default_lessons_path() -> Path:
    """``$DPEXPLORE_LESSONS``, else ``lessons.json`` in the working directory (Voila runs a notebook in its
    own folder), else the repository's ``notebooks/lessons.json``."""
    env = os.environ.get("DPEXPLORE_LESSONS")
    if env:
        return Path(env)
    here = Path.cwd() / "lessons.json"
    if here.is_file():
        return here
    return Path(__file__).resolve().parents[2] / "notebooks" / "lessons.json"


def load_lessons(path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Read a lessons file; raise :class:`LessonError` with a clear message if it is not a JSON object.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "lessons.json"
    >>> _ = p.write_text('{"dashboards": [}')
    >>> try:
    ...     load_lessons(p)
    ... except LessonError as e:
    ...     print(e)
    lessons.json is not valid JSON (line 1, column 17: Expecting value)
    """
    p = Path(default_lessons_path() if path is None else path)
    if not p.is_file():
        raise LessonError(f"{p.name}: no lessons file at {p}")
    if p.stat().st_size > MAX_LESSONS_BYTES:
        raise LessonError(f"{p.name} is larger than {MAX_LESSONS_BYTES} bytes")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise LessonError(f"{p.name} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise LessonError(f"{p.name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise LessonError(f"{p.name} must hold a JSON object with a 'dashboards' object; got {type(data).__name__}")
    return data


def _value_error(ctl, value: Any) -> str | None:
    """Why ``value`` is not a valid value of control ``ctl`` (None if it is)."""
    k = ctl.kind
    if k in ("float", "log"):
        ok_type = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif k in ("int", "logint"):
        ok_type = isinstance(value, int) and not isinstance(value, bool)
    elif k == "bool":
        ok_type = isinstance(value, bool)
    elif k == "text":
        ok_type = isinstance(value, str)
    else:
        ok_type = True
    if not ok_type or (isinstance(value, float) and not math.isfinite(value)) or ctl.clamp(value) != value:
        return f"must be {ctl.range_text()}; got {value!r}"
    return None


def _check_values(where: str, values: Any, controls: Mapping[str, Any], errors: list[str]) -> dict[str, Any] | None:
    if not isinstance(values, dict) or not values:
        errors.append(f"{where}: must be a non-empty object of control values; got {values!r}")
        return None
    out, ok = {}, True
    for key, val in values.items():
        ctl = controls.get(key)
        if ctl is None:
            errors.append(f"{where}.{key}: not a control of this dashboard (known: {', '.join(controls)})")
            ok = False
            continue
        why = _value_error(ctl, val)
        if why:
            errors.append(f"{where}.{key}: {why}")
            ok = False
            continue
        out[key] = float(val) if ctl.kind in ("float", "log") else val
    return out if ok else None


def _fields(where: str, entry: Any, required: Mapping[str, type], optional: Mapping[str, type],
            errors: list[str]) -> bool:
    if not isinstance(entry, dict):
        errors.append(f"{where}: must be an object; got {type(entry).__name__}")
        return False
    ok = True
    for key, typ in required.items():
        if key not in entry:
            errors.append(f"{where}: missing field '{key}'")
            ok = False
        elif not isinstance(entry[key], typ):
            errors.append(f"{where}.{key}: must be a {typ.__name__}; got {type(entry[key]).__name__}")
            ok = False
    for key, typ in optional.items():
        if key in entry and not isinstance(entry[key], typ):
            errors.append(f"{where}.{key}: must be a {typ.__name__}; got {type(entry[key]).__name__}")
            ok = False
    unknown = sorted(set(entry) - set(required) - set(optional))
    if unknown:
        errors.append(f"{where}: unknown field(s) {', '.join(map(repr, unknown))} "
                      f"(allowed: {', '.join([*required, *optional])})")
        ok = False
    return ok


def _validate_check(where: str, chk: Any, panels: set[str], errors: list[str]) -> dict[str, Any] | None:
    if not isinstance(chk, dict):
        errors.append(f"{where}: must be an object; got {type(chk).__name__}")
        return None
    bad = sorted(set(chk) - _CHECK_FIELDS)
    if bad:
        errors.append(f"{where}: unknown field(s) {', '.join(map(repr, bad))} "
                      f"(allowed: {', '.join(sorted(_CHECK_FIELDS))})")
        return None
    if chk.get("panel") not in panels:
        errors.append(f"{where}.panel: must be one of {sorted(panels)}; got {chk.get('panel')!r}")
        return None
    if chk.get("expect") not in _EXPECT:
        errors.append(f"{where}.expect: must be one of {list(_EXPECT)}; got {chk.get('expect')!r}")
        return None
    if ("series" in chk) == ("trace" in chk) or not isinstance(chk.get("series", chk.get("trace")), str):
        errors.append(f"{where}: give exactly one of 'series' (a measured series name) or 'trace' "
                      "(text in a drawn curve's name), as a string")
        return None
    if "label" in chk and not isinstance(chk["label"], str):
        errors.append(f"{where}.label: must be a string; got {chk['label']!r}")
        return None
    if "at" in chk and (isinstance(chk["at"], bool) or not isinstance(chk["at"], (int, float))):
        errors.append(f"{where}.at: must be a number; got {chk['at']!r}")
        return None
    return dict(chk)


def validate_lessons(data: Any, dashboard_classes: Mapping[str, type]) -> tuple[dict[str, dict], list[str]]:
    """Check a lessons object against the dashboard classes it names.

    Returns ``(lessons, errors)``: ``lessons[class_name] = {"presets": {name: preset}, "questions": [...]}``
    holding only the valid entries, and one message per problem, each naming the dashboard, the preset
    or question and the field. Values are checked with each :class:`~dpexplore.ui.controls.Control`'s
    range (``clamp``/``range_text``).

    Examples
    --------
    >>> from dpexplore.ui.controls import Control
    >>> from dpexplore.ui.dashboard import Dashboard, Panel
    >>> class Tiny(Dashboard):
    ...     controls = [Control("a", "a", "int", 1, 0, 9)]
    ...     panels = [Panel("p", "P")]
    >>> data = {"dashboards": {"Tiny": {"presets": [
    ...     {"name": "big", "title": "Big a", "note": "a at 9", "values": {"a": 9}},
    ...     {"name": "bad", "title": "Bad", "note": "", "values": {"a": 12, "b": 1}}]}}}
    >>> lessons, errors = validate_lessons(data, {"Tiny": Tiny})
    >>> sorted(lessons["Tiny"]["presets"])
    ['big']
    >>> print("\\n".join(errors))
    Tiny, preset 'bad', values.a: must be an integer in [0, 9]; got 12
    Tiny, preset 'bad', values.b: not a control of this dashboard (known: a)
    """
    errors: list[str] = []
    out: dict[str, dict] = {}
    if not isinstance(data, dict):
        return out, [f"lessons file: must be a JSON object; got {type(data).__name__}"]
    extra = sorted(set(data) - {"dashboards", "about"})
    if extra:
        errors.append(f"lessons file: unknown top-level field(s) {', '.join(map(repr, extra))} "
                      "(allowed: 'dashboards', 'about')")
    boards = data.get("dashboards")
    if not isinstance(boards, dict):
        return out, [*errors, "lessons file: missing object 'dashboards' (one entry per dashboard class)"]
    for cls_name, entry in boards.items():
        cls = dashboard_classes.get(cls_name)
        if cls is None:
            if len(dashboard_classes) > 1:  # a single-class check (a page) ignores the other dashboards
                errors.append(f"lessons file: {cls_name!r} is not a dashboard class "
                              f"(known: {', '.join(dashboard_classes)})")
            continue
        if not isinstance(entry, dict):
            errors.append(f"{cls_name}: must be an object with 'presets' and/or 'questions'")
            continue
        extra = sorted(set(entry) - {"presets", "questions"})
        if extra:
            errors.append(f"{cls_name}: unknown field(s) {', '.join(map(repr, extra))} "
                          "(allowed: 'presets', 'questions')")
        controls = {c.name: c for c in cls.controls}
        panels = {p.name for p in cls.panels}
        presets: dict[str, dict] = {}
        raw_presets = entry.get("presets", [])
        if not isinstance(raw_presets, list):
            errors.append(f"{cls_name}.presets: must be a list; got {type(raw_presets).__name__}")
            raw_presets = []
        for i, pre in enumerate(raw_presets):
            name = pre.get("name") if isinstance(pre, dict) else None
            where = f"{cls_name}, preset {name!r}" if isinstance(name, str) else f"{cls_name}, preset #{i + 1}"
            if not _fields(where, pre, _PRESET_FIELDS, {}, errors):
                continue
            if not _NAME_RE.match(name):
                errors.append(f"{where}.name: must be 1-40 characters a-z, 0-9, '-', '_' (it goes in the URL)")
                continue
            if name in presets:
                errors.append(f"{where}: a second preset with this name (names must be unique)")
                continue
            values = _check_values(f"{where}, values", pre["values"], controls, errors)
            if values is not None:
                presets[name] = dict(pre, values=values)
        questions: list[dict] = []
        raw_questions = entry.get("questions", [])
        if not isinstance(raw_questions, list):
            errors.append(f"{cls_name}.questions: must be a list; got {type(raw_questions).__name__}")
            raw_questions = []
        ids: set[str] = set()
        for i, q in enumerate(raw_questions):
            qid = q.get("id") if isinstance(q, dict) else None
            where = f"{cls_name}, question {qid!r}" if isinstance(qid, str) else f"{cls_name}, question #{i + 1}"
            if not _fields(where, q, _QUESTION_FIELDS, _QUESTION_OPTIONAL, errors):
                continue
            ok = True
            if qid in ids:
                errors.append(f"{where}: a second question with this id (ids must be unique)")
                ok = False
            choices = q["choices"]
            if (len(choices) < 2 or not all(isinstance(c, str) and c for c in choices)
                    or len(set(choices)) < len(choices)):
                errors.append(f"{where}.choices: must be a list of at least 2 different non-empty strings")
                ok = False
            elif q["answer"] not in choices:
                errors.append(f"{where}.answer: must be one of the choices {choices}; got {q['answer']!r}")
                ok = False
            settings = {}
            if "settings" in q:
                settings = _check_values(f"{where}, settings", q["settings"], controls, errors)
                ok = ok and settings is not None
            change = _check_values(f"{where}, change", q["change"], controls, errors)
            ok = ok and change is not None
            for key in change or {}:
                if settings is not None and (key not in settings or settings[key] == change[key]):
                    errors.append(f"{where}, change.{key}: the starting point 'settings' must set {key} too, to "
                                  "a different value (a question compares before and after)")
                    ok = False
            if not q["check"]:
                errors.append(f"{where}.check: must list at least one check")
                ok = False
            checks = [_validate_check(f"{where}, check #{j + 1}", c, panels, errors) for j, c in enumerate(q["check"])]
            if not ok or any(c is None for c in checks):
                continue
            ids.add(qid)
            questions.append(dict(q, settings=settings, change=change, check=checks))
        out[cls_name] = {"presets": presets, "questions": questions}
    return out, errors


# -- measuring a check ---------------------------------------------------------------------
def check_value(check: Mapping[str, Any], results: Mapping[str, Any] | None, figure: Any = None) -> float:
    """The number a question's check compares before and after: the mean over trials (and over the grid,
    or at the grid point nearest ``at``) of one measured series, or the mean y of a drawn trace.

    ``results`` is ``Dashboard.results[panel]`` (label → ExperimentResult); ``figure`` the panel's figure
    (for ``trace`` checks). Raises ValueError naming what is missing.

    Examples
    --------
    >>> from dpexplore.core.experiment import ExperimentResult
    >>> r = ExperimentResult.from_values(function="f", parameters={}, seed=0, axis="x", grid=[1, 2],
    ...                                  series=["a"], values=[[[1.0, 3.0], [5.0, 7.0]]], version="0")
    >>> check_value({"panel": "p", "series": "a", "expect": "up"}, {"": r})
    4.0
    >>> check_value({"panel": "p", "series": "a", "expect": "up", "at": 2}, {"": r})
    6.0
    """
    import numpy as np

    if "trace" in check:
        traces = [t for t in (figure.data if figure is not None else ())
                  if check["trace"] in (t.name or "") and getattr(t, "y", None) is not None]
        if not traces:
            raise ValueError(f"panel {check['panel']!r} draws no curve named like {check['trace']!r}")
        y = np.asarray(traces[0].y, dtype=float)
        if "at" in check:
            x = np.asarray(traces[0].x, dtype=float)
            y = y[[int(np.nanargmin(np.abs(x - float(check["at"]))))]]
        y = y[np.isfinite(y)]
        if not y.size:
            raise ValueError(f"curve {check['trace']!r} of panel {check['panel']!r} has no finite value")
        return float(np.mean(y))
    res = (results or {}).get(check.get("label", ""))
    if res is None or not hasattr(res, "series"):
        raise ValueError(f"panel {check['panel']!r} has no measured result {check.get('label', '')!r}")
    if check["series"] not in res.series:
        raise ValueError(f"panel {check['panel']!r}: no series {check['series']!r} (has {list(res.series)})")
    vals = np.asarray(res.values, dtype=float)[list(res.series).index(check["series"])]
    if "at" in check:
        grid = np.asarray(res.grid, dtype=float)
        vals = vals[int(np.argmin(np.abs(grid - float(check["at"]))))]
    return float(np.nanmean(vals))


def direction(before: float, after: float, *, rtol: float = 1e-9) -> str:
    """'up', 'down' or 'same' (equal up to ``rtol`` relative, i.e. floating-point noise)."""
    if abs(after - before) <= rtol * max(abs(before), abs(after), 1e-300):
        return "same"
    return "up" if after > before else "down"


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
        name = f"{stem}_seed{getattr(res, 'seed', '')}.csv"
        what = f"download data{': ' + label if label else ''} (CSV)"
        if len(text) > MAX_CSV_BYTES:
            links.append(f"<span>{html.escape(what)}: too large for a link ({len(text)} bytes); "
                         "run the 'reproduce in code' snippet and call <code>.to_csv()</code></span>")
            continue
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        links.append(f"<a class='dpx-csv' download='{html.escape(name)}' href='data:text/csv;base64,{data}' "
                     f"style='color:#0072B2;text-decoration:underline'>{html.escape(what)}</a>")
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
  btn.textContent = "Copy link + code of this view";
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
}
export default { render };
"""


def _copy_widget():
    try:
        import anywidget
        import traitlets
    except ImportError:  # pragma: no cover - anywidget is a dependency; a plain text box otherwise
        return None

    class CopyView(anywidget.AnyWidget):
        _esm = _COPY_ESM
        query = traitlets.Unicode("").tag(sync=True)
        snippet = traitlets.Unicode("").tag(sync=True)

    return CopyView()


# -- the widget ----------------------------------------------------------------------------
class TeachingBox(widgets.VBox):
    """Presets, predict-then-reveal questions and export for one dashboard (see the module docstring).

    Built by :class:`~dpexplore.ui.dashboard.Dashboard` before its controls: :meth:`initial_values` gives
    the values a ``?preset=`` or ``?mode=predict`` sets before the first draw.
    """

    def __init__(self, dashboard, options: Mapping[str, str], *, lessons_path: str | os.PathLike | None = None):
        super().__init__(layout=widgets.Layout(margin="2px 0"))
        self.add_class("dpx-teaching")
        self.dashboard = dashboard
        self.cls_name = type(dashboard).__name__
        self.problems: list[str] = []
        mode = options.get("mode")
        if mode not in (None, "predict", "explore"):
            self.problems.append(f"URL parameter mode={html.escape(str(mode)[:40])!s} ignored: must be "
                                 "'predict' or 'explore'")
        self.predict_mode = mode == "predict"
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
        mine = lessons.get(self.cls_name, {"presets": {}, "questions": []})
        self.presets: dict[str, dict] = mine["presets"]
        self.questions: list[dict] = mine["questions"]
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
        self._csv: dict[str, widgets.HTML] = {}
        self._drawn: dict[str, tuple[dict, dict, Any]] = {}  # panel -> (params, results, figure) of its last draw
        self._reveal: dict[str, Any] | None = None
        self._draws = 0  # panel draws so far; a reveal waits for a draw of its panels after the commit
        self._panel_draws: dict[str, int] = {}
        self._qindex = 0
        self._build()

    # -- values before the first draw -------------------------------------------------------
    def initial_values(self) -> dict[str, Any]:
        """Control values set by ``?preset=`` and, in predict mode, by the first question's ``settings``."""
        out: dict[str, Any] = {}
        if self.preset is not None:
            out.update(self.presets[self.preset]["values"])
        if self.predict_mode and self.questions:
            out.update(self.questions[0]["settings"])
        return out

    # -- layout -------------------------------------------------------------------------------
    def _build(self) -> None:
        rows: list[widgets.Widget] = []
        self.problem_box = widgets.HTML(self._problems_html())
        rows.append(self.problem_box)
        self.preset_select = widgets.Dropdown(
            options=[("— choose a lesson —", "")] + [(p["title"], n) for n, p in self.presets.items()],
            value=self.preset or "", description="Lesson preset", style={"description_width": "initial"},
            layout=widgets.Layout(width="30em"))
        self.preset_select.add_class("dpx-preset")
        self.preset_note = widgets.HTML(self._preset_note_html())
        self.preset_select.observe(self._on_preset, names="value")
        self.predict_button = widgets.ToggleButton(value=self.predict_mode, description="Predict, then reveal",
                                                   tooltip="Questions: commit to an answer, then watch the plot")
        self.predict_button.add_class("dpx-predict-toggle")
        self.predict_button.observe(self._on_toggle, names="value")
        self.copy = _copy_widget()
        bar = [w for w in (self.preset_select if self.presets else None,
                           self.predict_button if self.questions else None, self.copy) if w is not None]
        rows.append(widgets.HBox(bar, layout=widgets.Layout(flex_flow="row wrap", align_items="center",
                                                            grid_gap="4px 12px")))
        rows.append(self.preset_note)
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
        self.predict_box = widgets.VBox([self.q_text, self.q_choices, widgets.HBox([self.q_commit, self.q_next]),
                                         self.q_result],
                                        layout=widgets.Layout(border="1px solid #aed6f1", padding="4px 10px",
                                                              display="flex" if self.predict_mode else "none"))
        self.predict_box.add_class("dpx-predict")
        rows.append(self.predict_box)
        if self.questions:
            self._show_question(0)
        self.children = rows

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
        vals = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in p["values"].items())
        return (f"<div class='dpx-preset-note' style='{_NOTE_STYLE}'><b>{html.escape(p['title'])}.</b> "
                f"{html.escape(p['note'])} <span style='color:#555'>(sets {html.escape(vals)})</span></div>")

    # -- presets -------------------------------------------------------------------------------
    def apply_preset(self, name: str) -> None:
        """Set the preset's controls at once (one redraw) and show its note."""
        self.preset = name or None
        self.preset_note.value = self._preset_note_html()
        if self.preset is not None:
            self.dashboard.set_params(**self.presets[name]["values"])

    def _on_preset(self, change) -> None:
        self._guard(lambda: self.apply_preset(change["new"]))

    # -- predict, then reveal ------------------------------------------------------------------
    def _on_toggle(self, change) -> None:
        self.predict_box.layout.display = "flex" if change["new"] else "none"

    def _show_question(self, i: int) -> None:
        self._qindex = i % len(self.questions)
        self._reveal = None
        q = self.questions[self._qindex]
        settings = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}" for k, v in q["settings"].items())
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
        self.q_result.value = ""

    def start_question(self, i: int) -> None:
        """Show question ``i`` and set its starting point (``settings``)."""
        self._show_question(i)
        q = self.questions[self._qindex]
        if q["settings"] and any(self.dashboard.params().get(k) != v for k, v in q["settings"].items()):
            self.dashboard.set_params(**q["settings"])

    def commit(self, choice: str | None = None) -> None:
        """Record the student's answer, apply the question's change (one redraw) and reveal."""
        q = self.questions[self._qindex]
        if choice is not None:
            self.q_choices.value = choice
        choice = self.q_choices.value
        if choice is None or self._reveal is not None:
            return
        self.q_choices.disabled = True
        self.q_commit.disabled = True
        before = {self._check_key(c): self._measure(c, q["settings"]) for c in q["check"]}
        self._reveal = {"question": q, "choice": choice, "before": before, "after": {}}
        right = choice == q["answer"]
        verdict = ("<b style='color:#1e8449'>Right.</b>" if right else
                   f"<b style='color:#a04000'>Not quite</b> — the answer is <b>{html.escape(q['answer'])}</b>.")
        self._reveal["head"] = (f"You predicted <b>{html.escape(choice)}</b>. {verdict} "
                                f"{html.escape(q['explanation'])}")
        self._reveal["generation"] = self._draws
        self.q_result.value = self._reveal_html()
        self.dashboard.set_params(**{**q["settings"], **q["change"]})

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
            return (f"<div class='dpx-reveal-wait' style='{_NOTE_STYLE}'>You predicted <b>{html.escape(r['choice'])}"
                    "</b>. Applying the change: the plot is redrawing …</div>")
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

    # -- hooks called by the dashboard ---------------------------------------------------------
    def csv_widget(self, panel_name: str) -> widgets.HTML:
        """The HTML widget under a panel that holds its CSV download links."""
        w = self._csv.get(panel_name)
        if w is None:
            w = self._csv[panel_name] = widgets.HTML()
            w.add_class(f"dpx-csv-{panel_name}")
        return w

    def panel_drawn(self, name: str, params: Mapping[str, Any]) -> None:
        """Called after a panel is drawn: update its CSV links and a pending reveal (cheap: no computation)."""
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
            self.q_result.value = self._reveal_html()

    def view_changed(self, params: Mapping[str, Any]) -> None:
        """Called after a redraw: the copy button gets the view's query and its "reproduce in code" snippet."""
        if self.copy is not None:
            import dpexplore

            d = self.dashboard
            self.copy.query = view_query(d, params)
            self.copy.snippet = (f"# dpexplore {dpexplore.__version__}; same numbers for the same seed and version\n"
                                 + d.experiment_code() + d.reproduce(params))


def measure_question(dashboard, question: Mapping[str, Any], *,
                     seed: int | None = None) -> list[tuple[dict, float, float]]:
    """Compute each check of ``question`` before and after its change (only the panels the checks use).

    Uses the dashboard's current values, the question's ``settings`` (and ``seed`` if given), then the same
    with ``change`` applied; returns ``(check, before, after)`` per check. The tests assert that
    :func:`direction` of each pair is the check's ``expect``.
    """
    base = {**dashboard.params(), **question["settings"]}
    if seed is not None and "seed" in base:
        base["seed"] = seed
    out = []
    cache: dict[tuple[str, bool], tuple[dict, Any]] = {}
    for c in question["check"]:
        vals = []
        for after in (False, True):
            key = (c["panel"], after)
            if key not in cache:
                params = {**base, **question["change"]} if after else base
                dashboard.results.pop(c["panel"], None)
                fig = dashboard.figure(c["panel"], params)
                cache[key] = (dict(dashboard.results.get(c["panel"], {})), fig)
            vals.append(check_value(c, *cache[key]))
        out.append((dict(c), vals[0], vals[1]))
    return out
