"""The repository's layout rules (DESIGN.md §1, the brief's standards), for every package of dpexplore:
no module over ~800 lines, and no import circle inside a package — function-level imports included, since a
function-level import of a sibling's private name is a circle in disguise. tests/shuffle/test_layout.py
checks a strict rank order for dpexplore/shuffle; this checks only that each package's graph is acyclic."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "dpexplore"
MAX_LINES = 800
#: every package under dpexplore (a directory with an __init__.py), dpexplore itself included
PACKAGES = sorted(p.parent for p in SRC.rglob("__init__.py"))
#: known circles (strict xfails, so fixing one fails here until it is removed): none today
KNOWN_CYCLES: dict[str, str] = {}


def _param(pkg: Path):
    name = _dotted(pkg / "__init__.py")
    marks = [pytest.mark.xfail(reason=KNOWN_CYCLES[name], strict=True)] if name in KNOWN_CYCLES else []
    return pytest.param(pkg, id=name, marks=marks)


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path) -> set[str]:
    """Absolute dotted names of the dpexplore modules (or packages) a file imports anywhere in it.

    ``from X import name`` yields ``X.name`` when that is a module or package of dpexplore, else ``X``.
    """
    me = _dotted(path)
    base = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "dpexplore")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                mod = ".".join(parts + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "dpexplore":
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                rel = Path(*sub.split("."))
                out.add(sub if (ROOT / rel).with_suffix(".py").exists() or (ROOT / rel / "__init__.py").exists()
                        else mod)
    return out


def import_graph(pkg: Path) -> dict[str, set[str]]:
    """The package's import graph: nodes are its direct modules, subpackages and ``__init__``; an edge
    a -> b when some file of a (any depth, for a subpackage) imports b or something inside b."""
    name = _dotted(pkg / "__init__.py")
    nodes = {p.stem: [p] for p in pkg.glob("*.py")}
    nodes.update({d.name: sorted(d.rglob("*.py")) for d in pkg.iterdir() if (d / "__init__.py").exists()})
    graph: dict[str, set[str]] = {n: set() for n in nodes}
    for node, files in nodes.items():
        for f in files:
            for mod in _imported_modules(f):
                if mod == name:
                    target = "__init__"
                elif mod.startswith(name + "."):
                    target = mod[len(name) + 1 :].split(".")[0]
                else:
                    continue
                if target != node and target in graph:
                    graph[node].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path [a, b, ..., a], or None when it is acyclic."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return stack[stack.index(m) :] + [m]
            if m not in state and (c := visit(m)):
                return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_no_module_over_800_lines():
    long = {str(p.relative_to(ROOT)): n for p in sorted(SRC.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them): {long}"


@pytest.mark.parametrize("pkg", [_param(p) for p in PACKAGES])
def test_no_import_cycle_in_package(pkg):
    cycle = find_cycle(import_graph(pkg))
    assert cycle is None, f"import cycle in {_dotted(pkg / '__init__.py')}: {' -> '.join(cycle)}"


def _fake_package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "dpexplore" / "fake"
    pkg.mkdir(parents=True)
    (tmp_path / "dpexplore" / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    return pkg


def test_the_checker_sees_function_level_and_absolute_imports(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    pkg = _fake_package(tmp_path, {
        "__init__.py": "from .a import f\n",
        "a.py": "from .b import g\n\ndef f():\n    return g()\n",
        "b.py": "def g():\n    from .a import _private\n    return _private\n",
        "c.py": "import dpexplore.fake.a\nfrom dpexplore.fake import b\nfrom dpexplore import fake\n",
        "sub/__init__.py": "",
        "sub/x.py": "def h():\n    from ...fake import c\n    from ..a import f\n",
    })
    graph = import_graph(pkg)
    assert graph == {"__init__": {"a"}, "a": {"b"}, "b": {"a"}, "c": {"a", "b", "__init__"}, "sub": {"a", "c"}}
    assert find_cycle(graph) == ["a", "b", "a"]
    (pkg / "b.py").write_text("def g():\n    return 1\n")
    assert find_cycle(import_graph(pkg)) is None
    (pkg / "a.py").write_text("def f():\n    from . import f as again\n")  # a -> __init__ -> a
    assert find_cycle(import_graph(pkg)) == ["__init__", "a", "__init__"]
