"""axe-core (Deque's accessibility engine, npm package ``axe-core``) in a Playwright page.

``tools/install_axe.sh`` installs it into ``tests/browser/node_modules`` (``.ci/run`` calls it), or into
``$DPEXPLORE_AXE_DIR/node_modules`` when that is set (found there too); ``$DPEXPLORE_AXE`` may name another
``axe.min.js``. Without it the tests skip with the reason, except
under ``DPEXPLORE_REQUIRE_BROWSER=1`` (``.ci/run``), where a missing engine is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the rule sets checked: WCAG 2.0 and 2.1, levels A and AA
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
#: impacts that fail a test
FAILING = ("serious", "critical")


def axe_path() -> Path | None:
    """Where ``axe.min.js`` is (``$DPEXPLORE_AXE`` or tests/browser/node_modules), or None."""
    env = os.environ.get("DPEXPLORE_AXE")
    candidates = [Path(env)] if env else []
    if os.environ.get("DPEXPLORE_AXE_DIR"):  # where tools/install_axe.sh put it ($DPEXPLORE_AXE_DIR/node_modules)
        candidates.append(Path(os.environ["DPEXPLORE_AXE_DIR"]) / "node_modules" / "axe-core" / "axe.min.js")
    for p in candidates + [HERE / "node_modules" / "axe-core" / "axe.min.js"]:
        if p.is_file():
            return p
    return None


def require_axe() -> Path:
    """The engine's path; skip without it (fail under ``DPEXPLORE_REQUIRE_BROWSER=1``)."""
    import pytest

    p = axe_path()
    if p is not None:
        return p
    reason = ("axe-core is not installed (run tools/install_axe.sh: npm install --prefix tests/browser axe-core@4; "
              "or set DPEXPLORE_AXE to an axe.min.js)")
    if os.environ.get("DPEXPLORE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (DPEXPLORE_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def run_axe(page, *, tags=TAGS) -> list[dict]:
    """Run axe on the whole page; its violations as ``{id, impact, help, nodes: [target, summary]}``."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_path()))
    return page.evaluate(
        """async (tags) => {
          const r = await window.axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
          return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => [n.target.join(' '), (n.failureSummary || '').slice(0, 300)])}));
        }""",
        list(tags),
    )


def failing(violations: list[dict]) -> list[dict]:
    """The violations of impact serious or critical."""
    return [v for v in violations if v["impact"] in FAILING]


def describe(violations: list[dict], *, nodes: int = 3) -> str:
    """One line per violation (rule, impact, node count, first targets)."""
    out = []
    for v in violations:
        out.append(f"{v['impact']}: {v['id']} on {len(v['nodes'])} node(s) ({v['help']}): "
                   + "; ".join(f"{t} -> {s}" for t, s in v["nodes"][:nodes]))
    return "\n".join(out)
