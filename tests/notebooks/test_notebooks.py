"""Every notebook executes headless (nbclient) without errors, with small parameters.

A notebook may set ``metadata.dpexplore.test_query`` (e.g. ``"n=200&trials=2"``): it reaches the
kernel as ``$QUERY_STRING``, exactly as Voila passes URL parameters, so the dashboards run on
small settings here without any test-only code path.
"""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
CHECK_DASHBOARDS = """
import gc
from dpexplore.ui import Dashboard
_boards = [o for o in gc.get_objects() if isinstance(o, Dashboard)]
assert _boards, "the notebook built no dashboard"
for _b in _boards:
    assert _b.wait(240), "the panels were not all drawn within 240 s"
    assert not _b.errors, f"{type(_b).__name__} shows errors: {_b.errors}"
    assert set(_b.figures) == {p.name for p in _b.panels}, "a panel was not drawn"
"""
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_index.ipynb"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, monkeypatch):
    nb = nbformat.read(path, as_version=4)
    query = nb.metadata.get("dpexplore", {}).get("test_query", "")
    monkeypatch.setenv("QUERY_STRING", query)
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    builds_dashboard = any("dpexplore.ui" in c.source for c in nb.cells if c.cell_type == "code")
    if builds_dashboard:  # afterwards, inspect the dashboard objects in the same kernel
        nb.cells.append(nbformat.v4.new_code_cell(CHECK_DASHBOARDS))
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    problems = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{out.get('ename')}: {out.get('evalue')}")
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                problems.append("stderr: " + out.get("text", "")[:500])
    assert not problems, problems


def test_notebooks_saved_without_outputs():
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert not cell.get("outputs"), f"{path.name}: save notebooks without outputs"


def test_every_dashboard_notebook_opens_on_its_dashboard():
    """A student's first screen: a short lead, then the dashboard; the guide follows it (issue 18)."""
    for path in NOTEBOOKS:
        if path.name == "00_index.ipynb":
            continue
        cells = nbformat.read(path, as_version=4).cells
        assert cells[0].cell_type == "markdown" and len(cells[0].source) < 700, path.name
        assert cells[1].cell_type == "code" and "dpexplore.ui" in cells[1].source, path.name
        assert any(c.cell_type == "markdown" and c.source.startswith("# Guide") for c in cells[2:]), path.name
