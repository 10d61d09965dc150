"""The semester syllabus (docs/course/syllabus.md) names only what exists: every page it links is a notebook of the
gallery, every lesson sequence it names is in notebooks/lessons.json, and every course page is in some week."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYLLABUS = (ROOT / "docs" / "course" / "syllabus.md").read_text(encoding="utf-8")
ROWS = [line for line in SYLLABUS.splitlines() if re.match(r"\| \d+ \|", line)]


def test_the_weeks_are_numbered_in_order():
    assert [int(r.split("|")[1]) for r in ROWS] == list(range(1, len(ROWS) + 1))


def test_every_linked_page_exists_and_every_course_page_has_a_week():
    linked = set(re.findall(r"\(\.\./gallery/([\w.]+\.ipynb)\)", "\n".join(ROWS)))
    assert linked and all((ROOT / "notebooks" / nb).is_file() for nb in linked), linked
    course = {p.name for p in (ROOT / "notebooks").glob("1[0-9]_*.ipynb")} | {
        p.name for p in (ROOT / "notebooks").glob("00_intro_*.ipynb")}
    assert course <= linked, course - linked


def test_every_named_lesson_sequence_exists():
    names = {s["name"] for s in json.loads((ROOT / "notebooks" / "lessons.json").read_text())["sequences"]}
    named = {n for r in ROWS for n in re.findall(r"`([a-z0-9-]+)`", r.split("|")[4])}
    assert named and named <= names, named - names
