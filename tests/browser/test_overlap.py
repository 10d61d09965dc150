"""Issue 38 in Chromium: on every dashboard page, at 1024×768 (a projector) and 1280×900, no legend box and no
annotation box (the panels' notes) covers a plotted point, and no note runs past its figure's edges.

"A plotted point" is read from what plotly drew (``gd.calcdata`` through the drawn axes' ``c2p``): every marker or
line vertex of a visible scatter trace and the points along its line segments every 3 px (a legend over the middle
of a straight theory line covers the line), the top of every bar, and a heatmap's whole extent (every 5 px: an
image of cells is data everywhere); shaded bands (``fill="toself"``, no line) are areas, not points. Only the part
inside a subplot's area counts (a point clipped off the axes is not drawn).
The boxes are the DOM rectangles of ``.legend`` and of each annotation's text box (``.annotation-text-g``); the
subplot titles of ``make_subplots`` are annotations too and are checked the same way.

One Voila server for the module (copy of tests/browser/test_dashboards.py's fixture); each page is opened in a
fresh context at each size, at its default settings. The geometry is computed by ``JS_OVERLAPS``
(tests/browser/harness.py; the poll's Present view uses it too) independently of the kit's own placement code
(dpexplore/ui/plotpanel.py), so the test checks the result, not the code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import JS_OVERLAPS, VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: no plots at their bare URL (the gallery; the poll's join field: its plots are checked in tests/browser/test_poll.py)
NOT_PLOTTED = {"00_index.ipynb", "06_class_poll.ipynb"}
PAGES = [p.name for p in NOTEBOOKS if p.name not in NOT_PLOTTED]
SIZES = [(1024, 768), (1280, 900)]
pytestmark = [pytest.mark.browser, pytest.mark.slow]

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(tmp_path_factory.mktemp("polls"))}
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        yield srv


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("nb", PAGES, ids=lambda nb: nb.split(".")[0])
def test_no_legend_or_note_covers_a_plotted_point(nb, size, server, browser):
    found: list[dict] = []
    res = check_page(browser, f"{server.url}/voila/render/{nb}", min_plots=1, viewport=size,
                     pre_actions=lambda page, _res: found.extend(page.evaluate(JS_OVERLAPS)),
                     screenshot=str(SHOTS / f"overlap-{nb.split('.')[0]}-{size[0]}x{size[1]}.png"))
    assert not res.failures, (res.failures, server.log()[-3000:])
    boxes = [b for b in found if b["what"] != "(no points)"]
    assert boxes, "no legend or note found on the page: the check read nothing"
    assert any(b["points"] for b in found), "no plotted point found: the check read nothing"
    covering = [b for b in found if b["hits"]]
    past = [b for b in found if b["past"]]
    assert not covering, "boxes over plotted points: " + "; ".join(
        f"{b['figure']!r}: {b['what']} {b['box']} covers {b['hits']} of {b['points']} points (e.g. {b['first']})"
        for b in covering)
    assert not past, "notes past their figure's edge: " + "; ".join(
        f"{b['figure']!r}: {b['what']} {b['box']} vs figure {b['svg']}" for b in past)
