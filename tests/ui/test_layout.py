"""Issue 25: the layout of the dashboard kit after the split of ``ui/dashboard.py`` (into ``dashboard``,
``clientinput`` and ``pagehtml``): no import circle among the ``dpexplore.ui`` modules, no function-level
import of a sibling's private name, the kit's modules under ~800 lines, and the old import paths kept."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dpexplore.ui

PKG = Path(dpexplore.ui.__file__).parent
#: the kit modules this split is responsible for (the paper dashboards have their own owners and tests)
KIT = ["dashboard", "clientinput", "pagehtml", "figures", "plotpanel"]


def _imports(path: Path) -> list[tuple[str, list[str], bool]]:
    """(sibling module, imported names, at function level) for every import of a dpexplore.ui sibling."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            mod = node.module
        elif node.level == 0 and node.module and node.module.startswith("dpexplore.ui."):
            mod = node.module[len("dpexplore.ui."):]
        else:
            continue
        names = [a.name for a in node.names]
        if mod is None:  # from . import x, y
            for name in names:
                out.append((name, [], id(node) not in top))
        else:
            out.append((mod.split(".")[0], names, id(node) not in top))
    return out


def _graph() -> dict[str, set[str]]:
    mods = {p.stem for p in PKG.glob("*.py")}
    return {p.stem: {m for m, _, _ in _imports(p) if m in mods and m != p.stem} for p in PKG.glob("*.py")}


def test_the_ui_modules_import_without_a_circle():
    graph = _graph()
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for dep in sorted(graph[m]):
            assert state.get(dep) != 1, "import circle: " + " -> ".join([*path, m, dep])
            if dep not in state:
                visit(dep, [*path, m])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])


def test_the_circle_check_sees_a_circle(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    from .b import _x\n")
    (tmp_path / "b.py").write_text("from . import a\n")
    assert _imports(tmp_path / "a.py") == [("b", ["_x"], True)]
    assert _imports(tmp_path / "b.py") == [("a", [], False)]


@pytest.mark.parametrize("path", sorted(PKG.glob("*.py")), ids=lambda p: p.name)
def test_no_function_level_import_of_a_siblings_private_name(path):
    for mod, names, nested in _imports(path):
        private = [n for n in names if n.startswith("_")]
        assert not (nested and private), f"{path.name} imports {private} from .{mod} inside a function"


@pytest.mark.parametrize("name", KIT)
def test_kit_modules_are_under_800_lines(name):
    assert len((PKG / f"{name}.py").read_text().splitlines()) <= 800


def test_the_split_kept_every_import_path():
    from dpexplore.ui.dashboard import (  # noqa: F401 - the names the package, the poll, its pages and tests import
        _ERROR_STYLE,
        _NOTE_STYLE,
        PRNG_FOOTER,
        Dashboard,
        Panel,
        _preheated,
        _server_log,
        approx_nbytes,
        wait_for_request,
    )
    from dpexplore.ui.pagehtml import ERROR_STYLE, NOTE_STYLE

    assert (_ERROR_STYLE, _NOTE_STYLE) == (ERROR_STYLE, NOTE_STYLE)
    assert dpexplore.ui.Dashboard is Dashboard and dpexplore.ui.PRNG_FOOTER == PRNG_FOOTER
    # the private methods the teaching box, the poll and the tests call are still the dashboard's
    for meth in ("_parse_query", "_apply_query", "_await_request", "_callback_failed", "_guard_widgets",
                 "_footer_html", "_messages_html", "_status_html", "_snippet_html"):
        assert callable(getattr(Dashboard, meth)), meth
