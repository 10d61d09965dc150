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


#: relative tolerance of a stored float: the numbers are sums of up to ~10^7 rounded terms, and numpy's
#: reduction order (pairwise blocks, SIMD width) differs between x86 machines (AVX2 vs AVX-512), so two
#: correct runs may differ by up to m * u = 1e7 * 1.1e-16 ~ 1e-9 relative. Seen: fisher_constant moved by
#: 6 ulp (4.393179065421522 vs ...528) on CI's machine. Any change of the code path moves a number far more.
FLOAT_RTOL = 1e-9


def _same(got, want) -> bool:
    """Equal structure; strings that are float reprs equal within FLOAT_RTOL; everything else exactly."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, str) and isinstance(got, str):
        try:
            a, b = float(got), float(want)
        except ValueError:
            return got == want
        if not (math.isfinite(a) and math.isfinite(b)):
            return got == want
        return abs(a - b) <= FLOAT_RTOL * max(abs(a), abs(b))
    return got == want


def test_same_tells_a_rounding_difference_from_a_change():
    assert _same(["4.393179065421522", 3, "exact"], ["4.393179065421528", 3, "exact"])
    assert not _same(["4.39317906"], ["4.39317908"])
    assert not _same(["1.0", 3], ["1.0", 4])
    assert not _same(["inf"], ["1e308"])
    assert not _same(["exact"], ["bnb"])


def test_fingerprint_of_public_numbers():
    """Every public number as before the split (float reprs within FLOAT_RTOL, see there; the rest exactly),
    except the cases moved on purpose (CHANGED)."""
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
        assert _same(got[key], want[key]), (key, got[key], want[key])
    for key, check in fp.CHANGED.items():
        assert check(got[key], want[key]), key
    assert all(math.isfinite(float(x)) for x in got["constants"])
