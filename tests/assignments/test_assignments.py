"""Tests of the graders: every assignment builds with ``otter assign``, its reference solution gets full marks
under ``otter run`` (local grading, no Docker), and every wrong solution in :mod:`.mutants` loses exactly the
points of the questions it gets wrong, at the graders' fixed seeds."""

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("otter", reason="otter-grader is in the [assignments] extra")

from .mutants import MUTANTS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = ROOT / "assignments"
#: otter started without jsonschema's IRI grammar (dpexplore.hosting.lean: ~0.9 CPU-s less per call; grading unchanged)
OTTER = [sys.executable, "-m", "dpexplore.hosting.lean", "otter"]
#: the grading budget of one student notebook (issue 45: at most 60 s here)
MAX_GRADE_SECONDS = 60.0

pytestmark = pytest.mark.slow


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _otter(*args, cwd):
    proc = subprocess.run([*OTTER, *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"otter {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module", params=sorted(MUTANTS))
def built(request, tmp_path_factory):
    """``otter assign`` on the master notebook; returns (name, dist directory, autograder zip)."""
    name = request.param
    src = tmp_path_factory.mktemp(f"src-{name}")
    shutil.copytree(ASSIGNMENTS / name, src, dirs_exist_ok=True)
    dist = src / "dist"
    _otter("assign", f"{name}.ipynb", str(dist), cwd=src)
    zips = list((dist / "autograder").glob(f"{name}-autograder_*.zip"))
    assert len(zips) == 1, zips
    return name, dist, zips[0]


def grade(zip_path: Path, notebook: Path, out: Path) -> tuple[dict[str, float], dict[str, float], float]:
    """``otter run`` one notebook; returns (score per question, maximum per question, wall seconds) and prints the
    CPU seconds of otter and its kernel."""
    out.mkdir(parents=True, exist_ok=True)
    t0, cpu0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    _otter("run", "-a", str(zip_path), "-o", str(out), str(notebook), cwd=notebook.parent)
    seconds, cpu1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    print(f"[{notebook.name}: {seconds:.1f} s wall, {cpu:.1f} s CPU]")
    tests = json.loads((out / "results.json").read_text())["tests"]
    scores = {t["name"]: t["score"] for t in tests if t.get("max_score") is not None}
    maxima = {t["name"]: t["max_score"] for t in tests if t.get("max_score") is not None}
    return scores, maxima, seconds


def _mutate(reference: Path, cells: dict[str, str], dest: Path) -> Path:
    nb = nbformat.read(reference, as_version=4)
    for marker, source in cells.items():
        hits = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
        assert len(hits) == 1, f"{marker!r} identifies {len(hits)} cells of {reference.name}"
        hits[0].source = source
        hits[0].outputs = []
    nbformat.write(nb, dest)
    return dest


def test_student_notebook_holds_no_solution_or_hidden_test(built):
    name, dist, _ = built
    text = (dist / "student" / f"{name}.ipynb").read_text()
    assert "BEGIN SOLUTION" not in text and "# SOLUTION" not in text
    assert "hidden: true" not in text and "BEGIN TEST CONFIG" not in text


def test_autograder_zip_holds_the_tests_and_installs_dpexplore(built):
    name, dist, zip_path = built
    nb = nbformat.read(dist / "autograder" / f"{name}.ipynb", as_version=4)
    graded = {q for c in nb.cells if c.cell_type == "code" for q in re.findall(r'grader\.check\("(\w+)"\)', c.source)}
    with zipfile.ZipFile(zip_path) as z:
        names = set(z.namelist())
        env = z.read("environment.yml").decode()
    assert graded and {f"tests/{q}.py" for q in graded} <= names, sorted(names)
    assert re.search(r"^\s*- dpexplore\s*$", env, re.M), env  # Gradescope installs it (assignments/README.md)


def test_reference_solution_gets_full_marks(built, tmp_path):
    name, dist, zip_path = built
    scores, maxima, seconds = grade(zip_path, dist / "autograder" / f"{name}.ipynb", tmp_path / "out")
    print(f"{name}: reference graded in {seconds:.1f} s: {scores}")
    assert maxima and scores == maxima
    assert seconds <= MAX_GRADE_SECONDS


@pytest.mark.parametrize("index", range(max(len(m) for m in MUTANTS.values())))
def test_wrong_solutions_lose_exactly_their_points(built, tmp_path, index):
    name, dist, zip_path = built
    if index >= len(MUTANTS[name]):
        pytest.skip(f"{name} has {len(MUTANTS[name])} mutants")
    mutant = MUTANTS[name][index]
    if mutant["cells"] is None:
        notebook = tmp_path / f"{name}.ipynb"
        shutil.copy(dist / "student" / f"{name}.ipynb", notebook)
    else:
        notebook = _mutate(dist / "autograder" / f"{name}.ipynb", mutant["cells"], tmp_path / f"{name}.ipynb")
    scores, maxima, seconds = grade(zip_path, notebook, tmp_path / "out")
    print(f"{name} / {mutant['name']}: graded in {seconds:.1f} s: {scores}")
    expected = {q: 0 for q in maxima} if mutant["scores"] == "zero" else {**maxima, **mutant["scores"]}
    assert scores == expected
    assert seconds <= MAX_GRADE_SECONDS


def test_every_autograded_question_has_a_mutant_scoring_zero(built):
    name, dist, _ = built
    nb = nbformat.read(dist / "autograder" / f"{name}.ipynb", as_version=4)
    graded = {q for c in nb.cells if c.cell_type == "code"
              for q in re.findall(r'grader\.check\("(\w+)"\)', c.source)}
    zeroed = {q for m in MUTANTS[name] if m["cells"] is not None for q, s in m["scores"].items() if s == 0}
    assert graded and graded <= zeroed, sorted(graded - zeroed)
