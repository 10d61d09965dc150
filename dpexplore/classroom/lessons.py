"""Lessons files, UI-free: instructor presets, predict-then-reveal questions and lesson sequences.

The lessons live in a plain JSON file next to the notebooks (``notebooks/lessons.json``)::

    {"dashboards": {"PrivatePCADashboard": {
        "presets": [{"name": "low-privacy", "title": "…", "note": "…", "values": {"epsilon": 50.0}}],
        "questions": [{"id": "halve-eps", "question": "…", "settings": {"epsilon": 10.0},
                       "change": {"epsilon": 5.0}, "choices": ["up", "down", "stays"], "answer": "up",
                       "explanation": "…",
                       "check": [{"panel": "vs_coherence", "series": "adaptive", "expect": "up"}]}]}},
     "sequences": [{"name": "pca-in-15", "title": "…", "dashboard": "PrivatePCADashboard",
                    "steps": [{"preset": "low-privacy", "say": "…", "minutes": 3, "ask": "…", "answer": "…"}]}]}

The file is read back from disk, so it is hostile until checked: :func:`load_lessons` bounds its size and
parses it, :func:`validate_lessons` checks every entry against the dashboard classes (unknown dashboards,
panels and controls, values outside a control's range, missing, unknown or over-long fields, a sequence step
naming no preset of its dashboard) and names the dashboard, the entry and the field in every message; a bad
entry is dropped and the rest still work. A dashboard class is used through its ``controls`` (objects with
``name``, ``kind``, ``default``, ``clamp`` and ``range_text``) and ``panels`` (objects with ``name``): this
module imports no UI package.

:func:`check_value` is the number a question's check compares before and after a change, and
:func:`direction` says which way it moved.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dpexplore.resources import lessons_file

from .store import MAX_CHOICE_CHARS, MAX_CHOICES

__all__ = ["LessonError", "MAX_LESSONS_BYTES", "MAX_STEPS", "MAX_TEXT", "STEP_KINDS", "absolute_values", "check_value",
           "default_lessons_path", "direction", "load_lessons", "run_sheet_html", "step_times", "validate_lessons"]

#: the largest lessons file read (bytes)
MAX_LESSONS_BYTES = 1_000_000

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_EXPECT = ("up", "down", "same")
_PRESET_FIELDS = {"name": str, "title": str, "note": str, "values": dict}
_QUESTION_FIELDS = {"id": str, "question": str, "change": dict, "choices": list, "answer": str,
                    "explanation": str, "check": list}
_QUESTION_OPTIONAL = {"settings": dict}
_CHECK_FIELDS = {"panel", "expect", "series", "label", "trace", "at"}
#: the longest text field of a lessons file (characters)
MAX_TEXT = 4000
#: the most steps of one lesson sequence
MAX_STEPS = 40


class LessonError(ValueError):
    """A lessons file that cannot be used at all (not JSON, not an object, too large)."""


def default_lessons_path() -> Path:
    """``$DPEXPLORE_LESSONS``, else ``lessons.json`` in the working directory (Voila runs a notebook in its
    own folder), else the shipped one (:func:`dpexplore.resources.lessons_file`: a clone's
    ``notebooks/lessons.json`` or the wheel's packaged copy)."""
    env = os.environ.get("DPEXPLORE_LESSONS")
    if env:
        return Path(env)
    here = Path.cwd() / "lessons.json"
    if here.is_file():
        return here
    return lessons_file()


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


def _type_name(typ: Any) -> str:
    return "number" if isinstance(typ, tuple) else typ.__name__


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
            errors.append(f"{where}.{key}: must be a {_type_name(typ)}; got {type(entry[key]).__name__}")
            ok = False
        elif isinstance(entry[key], str) and len(entry[key]) > MAX_TEXT:
            errors.append(f"{where}.{key}: longer than {MAX_TEXT} characters")
            ok = False
    for key, typ in optional.items():
        if key in entry and not isinstance(entry[key], typ):
            errors.append(f"{where}.{key}: must be a {_type_name(typ)}; got {type(entry[key]).__name__}")
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

    Returns ``(lessons, errors)``: ``lessons[class_name] = {"presets": {name: preset}, "questions": [...],
    "sequences": {name: sequence}}`` holding only the valid entries, and one message per problem, each
    naming the dashboard, the preset, question or sequence and the field. Values are checked with each
    control's range (``clamp``/``range_text``). A sequence's steps must name presets of its dashboard.

    Examples
    --------
    A dashboard class is anything with ``controls`` and ``panels`` (here a stand-in for a
    :class:`~dpexplore.ui.dashboard.Dashboard`):

    >>> class Int:  # what validation uses of a control
    ...     name, kind, default = "a", "int", 1
    ...     def clamp(self, v): return min(max(int(v), 0), 9)
    ...     def range_text(self): return "an integer in [0, 9]"
    >>> class P:
    ...     name = "p"
    >>> class Tiny:
    ...     controls, panels = [Int()], [P()]
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
    extra = sorted(set(data) - {"dashboards", "about", "sequences"})
    if extra:
        errors.append(f"lessons file: unknown top-level field(s) {', '.join(map(repr, extra))} "
                      "(allowed: 'dashboards', 'about', 'sequences')")
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
            elif len(choices) > MAX_CHOICES or any(len(" ".join(c.split())) > MAX_CHOICE_CHARS for c in choices):
                # a class-wide prediction round (store.check_choices) must be able to ask it
                errors.append(f"{where}.choices: at most {MAX_CHOICES} answers of at most {MAX_CHOICE_CHARS} "
                              f"characters; got {len(choices)} of up to {max(len(c) for c in choices)}")
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
        out[cls_name] = {"presets": presets, "questions": questions, "sequences": {}}
    _validate_sequences(data.get("sequences", []), out, dashboard_classes, errors)
    return out, errors


_SEQUENCE_FIELDS = {"name": str, "title": str, "dashboard": str, "steps": list}
_SEQUENCE_OPTIONAL = {"about": str, "minutes": (int, float)}
_STEP_FIELDS = {"preset": str, "say": str, "minutes": (int, float), "ask": str, "answer": str}
#: a run sheet's step may say what the instructor does (``do``) and send a question of the dashboard to the
#: students' devices (``question``: its id; the page opens it in the predict box, whose *Ask the room* starts a
#: class-wide prediction round, :mod:`.predictions`)
_STEP_OPTIONAL = {"do": str, "question": str}
#: what a run sheet's step does
STEP_KINDS = ("say", "show", "ask", "play", "reveal")


def _validate_sequences(raw: Any, out: dict[str, dict], dashboard_classes: Mapping[str, type],
                        errors: list[str]) -> None:
    """Check the top-level ``sequences`` list; put each valid one into ``out[dashboard]["sequences"]``."""
    if not isinstance(raw, list):
        errors.append(f"lessons file: 'sequences' must be a list; got {type(raw).__name__}")
        return
    for i, seq in enumerate(raw):
        name = seq.get("name") if isinstance(seq, dict) else None
        where = f"sequence {name!r}" if isinstance(name, str) else f"sequence #{i + 1}"
        if not _fields(where, seq, _SEQUENCE_FIELDS, _SEQUENCE_OPTIONAL, errors):
            continue
        cls_name = seq["dashboard"]
        if cls_name not in dashboard_classes:
            if len(dashboard_classes) > 1:
                errors.append(f"{where}.dashboard: {cls_name[:60]!r} is not a dashboard class "
                              f"(known: {', '.join(dashboard_classes)})")
            continue
        where = f"{cls_name}, {where}"
        if not _NAME_RE.match(name):
            errors.append(f"{where}.name: must be 1-40 characters a-z, 0-9, '-', '_' (it goes in the URL)")
            continue
        entry = out.setdefault(cls_name, {"presets": {}, "questions": [], "sequences": {}})
        if name in entry["sequences"]:
            errors.append(f"{where}: a second sequence with this name (names must be unique)")
            continue
        steps = seq["steps"]
        if not 1 <= len(steps) <= MAX_STEPS:
            errors.append(f"{where}.steps: must list 1 to {MAX_STEPS} steps; got {len(steps)}")
            continue
        ok = True
        for j, step in enumerate(steps):
            sw = f"{where}, step {j + 1}"
            if not _fields(sw, step, _STEP_FIELDS, _STEP_OPTIONAL, errors):
                ok = False
                continue
            if step.get("do", "say") not in STEP_KINDS:
                errors.append(f"{sw}.do: must be one of {', '.join(STEP_KINDS)}; got {step['do'][:20]!r}")
                ok = False
            if "question" in step and step["question"] not in {q["id"] for q in entry["questions"]}:
                errors.append(f"{sw}.question: {step['question'][:40]!r} is not a (valid) question of {cls_name} "
                              f"(known: {', '.join(q['id'] for q in entry['questions']) or 'none'})")
                ok = False
            if step["preset"] not in entry["presets"]:
                errors.append(f"{sw}.preset: {step['preset'][:40]!r} is not a (valid) preset of {cls_name} "
                              f"(known: {', '.join(entry['presets']) or 'none'})")
                ok = False
            m = step["minutes"]
            if isinstance(m, bool) or not (isinstance(m, (int, float)) and math.isfinite(m) and 0 < m <= 60):
                errors.append(f"{sw}.minutes: must be a number in (0, 60]; got {m!r}")
                ok = False
        total = seq.get("minutes")
        if ok and total is not None and (isinstance(total, bool) or not math.isclose(
                sum(st["minutes"] for st in steps), total, abs_tol=1e-9)):
            errors.append(f"{where}.minutes: the steps add up to {sum(st['minutes'] for st in steps):g} minutes, "
                          f"not the stated {total!r}")
            ok = False
        if ok:
            entry["sequences"][name] = dict(seq, steps=[dict(s) for s in steps])


def absolute_values(controls: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """Every control's value for a preset: the preset's value where it names one, the default elsewhere.

    A preset is absolute: choosing it after another preset leaves nothing of the earlier one behind.

    Examples
    --------
    >>> class C:
    ...     def __init__(self, name, default): self.name, self.default = name, default
    >>> absolute_values([C("epsilon", 1.0), C("n", 300)], {"n": 800})
    {'epsilon': 1.0, 'n': 800}
    """
    out = {c.name: c.default for c in controls}
    out.update({k: v for k, v in values.items() if k in out})
    return out


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



def step_times(sequence: Mapping[str, Any]) -> list[tuple[float, float]]:
    """Each step's (start, end) minute from the start of a sequence (its steps' ``minutes`` added up).

    Examples
    --------
    >>> step_times({"steps": [{"minutes": 3}, {"minutes": 2.5}, {"minutes": 4}]})
    [(0, 3), (3, 5.5), (5.5, 9.5)]
    """
    out, t = [], 0
    for step in sequence["steps"]:
        out.append((t, t + step["minutes"]))
        t += step["minutes"]
    return out


def run_sheet_html(sequence: Mapping[str, Any], presets: Mapping[str, Mapping[str, Any]],
                   questions: list[Mapping[str, Any]] = (), *, dashboard_title: str = "") -> str:
    """A validated sequence as a printable, minute-by-minute run sheet (a standalone HTML page).

    One row per step: its minutes (from – to), what the instructor does (say, show, ask the room, play,
    reveal), what to say, what to show (the preset), the question for the room (with its answers when the step
    sends a predict question to the students' devices) and the answer. Every text is escaped.

    Examples
    --------
    >>> seq = {"title": "T", "minutes": 5, "steps": [
    ...     {"preset": "p", "say": "Hi <b>", "minutes": 2, "ask": "Q?", "answer": "A.", "do": "say"},
    ...     {"preset": "p", "say": "Go", "minutes": 3, "ask": "Q2?", "answer": "A2.", "do": "ask", "question": "q"}]}
    >>> page = run_sheet_html(seq, {"p": {"title": "P", "note": "n", "values": {}}},
    ...                       [{"id": "q", "question": "Up?", "choices": ["up", "down"], "answer": "up"}])
    >>> "0–2 min" in page and "2–5 min" in page and "Hi &lt;b&gt;" in page and "up / down" in page
    True
    """
    e = html.escape
    qs = {q["id"]: q for q in questions}
    rows = []
    for (t0, t1), step in zip(step_times(sequence), sequence["steps"]):
        pre = presets.get(step["preset"], {})
        ask = e(step["ask"])
        q = qs.get(step.get("question", ""))
        if q is not None:
            ask += (f"<div class='rs-room'><b>Sent to the students' devices</b> (Ask the room): {e(q['question'])} "
                    f"<i>({e(' / '.join(q['choices']))})</i></div>")
        rows.append(f"<tr><td class='rs-time'>{t0:g}–{t1:g} min</td><td class='rs-do'>{e(step.get('do', 'say'))}</td>"
                    f"<td>{e(step['say'])}</td><td>{e(pre.get('title', step['preset']))}</td><td>{ask}</td>"
                    f"<td>{e(step['answer'])}</td></tr>")
    total = sum(st["minutes"] for st in sequence["steps"])
    head = e(sequence["title"]) + (f" — {e(dashboard_title)}" if dashboard_title else "")
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Run sheet: " + head + "</title>"
            "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;width:100%}"
            "td,th{border:1px solid #999;padding:4px 6px;vertical-align:top;text-align:left}"
            ".rs-time{white-space:nowrap}.rs-do{font-weight:bold;text-transform:uppercase}"
            "@media print{body{margin:0.5cm;font-size:10pt}}</style></head><body>"
            f"<h1>Run sheet: {head}</h1><p>{e(sequence.get('about', ''))} Total: {total:g} minutes.</p>"
            "<table><thead><tr><th>When</th><th>Do</th><th>Say</th><th>Show (preset)</th><th>Ask the room</th>"
            "<th>Answer (instructor)</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table></body></html>")
