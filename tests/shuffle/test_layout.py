"""Issue 28: the shuffle package's layout (a strict import order, no module over ~800 lines) and the
fingerprint of its public numbers (unchanged by the split of worst.py; see tests/shuffle/fingerprint.py)."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest

import dpexplore.shuffle

PKG = Path(dpexplore.shuffle.__file__).parent
#: the dependency order: a module may import only modules of a *smaller* rank (function-level imports included)
RANK = {"_validate": 0, "randomizers": 0, "constants": 1, "exact": 2, "asymptotics": 3, "pairs": 3, "clones": 4,
        "blanket": 5, "bounds": 6, "bnb": 6, "worst": 7, "compose": 8, "profile": 9, "solver": 9, "audit": 10,
        "__init__": 11}


def _sibling_imports(path: Path) -> set[str]:
    """Modules of dpexplore.shuffle imported anywhere in the file (relative or absolute, any depth)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:  # from . import x
                    out.update(a.name for a in node.names)
            elif node.level == 0 and node.module and node.module.startswith("dpexplore.shuffle"):
                rest = node.module[len("dpexplore.shuffle"):].lstrip(".")
                out.update([rest.split(".")[0]] if rest else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("dpexplore.shuffle."):
                    out.add(a.name.split(".")[2])
    return out


def test_every_module_is_ranked():
    mods = {p.stem for p in PKG.glob("*.py")}
    assert mods == set(RANK), f"rank the new/removed modules: {mods ^ set(RANK)}"


@pytest.mark.parametrize("name", sorted(RANK))
def test_imports_only_downward(name):
    for dep in _sibling_imports(PKG / f"{name}.py"):
        assert dep in RANK, f"{name} imports unknown sibling {dep}"
        assert RANK[dep] < RANK[name], f"{name} (rank {RANK[name]}) imports {dep} (rank {RANK[dep]})"


def test_the_checker_sees_function_level_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def g():\n    from .worst import _x\n    from dpexplore.shuffle import bounds\n")
    assert _sibling_imports(f) == {"worst", "bounds"}


@pytest.mark.parametrize("path", sorted(PKG.glob("*.py")), ids=lambda p: p.name)
def test_no_module_over_800_lines(path):
    assert len(path.read_text().splitlines()) <= 800


def test_fingerprint_of_public_numbers():
    """Every public number as before the split (exact repr), except the cases moved on purpose (CHANGED)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import fingerprint as fp
    finally:
        sys.path.pop(0)
    want = json.loads(fp.FILE.read_text())
    got = fp.cases()
    assert set(got) == set(want)
    for key in want:
        if key in fp.CHANGED:
            continue
        assert got[key] == want[key], key
    for key, check in fp.CHANGED.items():
        assert check(got[key], want[key]), key
    assert all(math.isfinite(float(x)) for x in got["constants"])
