"""Issue 38 in Chromium: on every dashboard page, at 1024×768 (a projector) and 1280×900, no legend box and no
annotation box (the panels' notes) covers a plotted point, and no note runs past its figure's edges.

"A plotted point" is read from what plotly drew (``gd.calcdata`` through the drawn axes' ``c2p``): every marker or
line vertex of a visible scatter trace and the points along its line segments every 3 px (a legend over the middle
of a straight theory line covers the line), and the top of every bar; shaded bands (``fill="toself"``, no line) are
areas, not points. Only the part inside a subplot's area counts (a point clipped off the axes is not drawn).
The boxes are the DOM rectangles of ``.legend`` and of each annotation's text box (``.annotation-text-g``); the
subplot titles of ``make_subplots`` are annotations too and are checked the same way.

One Voila server for the module (copy of tests/browser/test_dashboards.py's fixture); each page is opened in a
fresh context at each size. The geometry is computed here independently of the kit's own placement code
(dpexplore/ui/plotpanel.py), so the test checks the result, not the code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: no plots at their bare URL (the gallery; the poll's join field: its plots are checked in tests/browser/test_poll.py)
NOT_PLOTTED = {"00_index.ipynb", "06_class_poll.ipynb"}
PAGES = [p.name for p in NOTEBOOKS if p.name not in NOT_PLOTTED]
SIZES = [(1024, 768), (1280, 900)]
pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: for every drawn plotly figure: its boxes (legend, annotations) and whether each contains a plotted point
JS_OVERLAPS = """() => {
  const out = [];
  const inside = (p, b) => p[0] >= b.left && p[0] <= b.right && p[1] >= b.top && p[1] <= b.bottom;
  document.querySelectorAll('.js-plotly-plot').forEach((gd, k) => {
    const fl = gd._fullLayout, svg = gd.querySelector('.main-svg');
    if (!fl || !svg || !gd.calcdata) return;
    const s = svg.getBoundingClientRect();
    if (s.width < 2 || s.height < 2) return;  // not shown (a closed section)
    const title = ((fl.title && fl.title.text) || ('figure ' + k)).replace(/<[^>]*>/g, '').slice(0, 60);
    const pts = [];
    for (const trc of gd.calcdata) {
      const t = trc && trc[0] && trc[0].trace;
      if (!t || t.visible !== true || !['scatter', 'bar', 'histogram'].includes(t.type)) continue;
      const xa = fl[(t.xaxis || 'x').replace(/^x/, 'xaxis')], ya = fl[(t.yaxis || 'y').replace(/^y/, 'yaxis')];
      if (!xa || !ya) continue;
      const inArea = (x, y) => x >= xa._offset - 0.5 && x <= xa._offset + xa._length + 0.5
          && y >= ya._offset - 0.5 && y <= ya._offset + ya._length + 0.5;
      const add = (x, y) => { if (isFinite(x) && isFinite(y) && inArea(x, y)) pts.push([s.left + x, s.top + y]); };
      if (t.type !== 'scatter') {
        const h = t.orientation === 'h';
        for (const d of trc) {
          const top = d.s1 !== undefined ? d.s1 : d.s;
          if (h) add(xa._offset + xa.c2p(top), ya._offset + ya.c2p(d.p));
          else add(xa._offset + xa.c2p(d.p), ya._offset + ya.c2p(top));
        }
        continue;
      }
      const mode = t.mode || '';
      const lineW = t.line ? t.line.width : 0;
      const lines = mode.includes('lines') && lineW > 0;
      const marks = mode.includes('markers') || mode.includes('text');
      if (!lines && !marks) continue;
      let prev = null;
      for (const d of trc) {
        const x = xa._offset + xa.c2p(d.x), y = ya._offset + ya.c2p(d.y);
        if (!isFinite(x) || !isFinite(y)) { prev = null; continue; }
        add(x, y);
        if (lines && prev) {
          const n = Math.min(2000, Math.floor(Math.hypot(x - prev[0], y - prev[1]) / 3));
          for (let i = 1; i < n; i++) add(prev[0] + (x - prev[0]) * i / n, prev[1] + (y - prev[1]) * i / n);
        }
        prev = [x, y];
      }
    }
    const boxes = [];
    const lg = gd.querySelector('.legend');
    if (lg) boxes.push(['legend', lg]);
    gd.querySelectorAll('.annotation').forEach((a) => {
      const tg = a.querySelector('.annotation-text-g') || a;
      boxes.push(['note "' + (a.textContent || '').slice(0, 50) + '"', tg]);
    });
    for (const [what, el] of boxes) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const b = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
      const hits = pts.filter((p) => inside(p, b));
      const past = what !== 'legend' && (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1
                                         || r.bottom > s.bottom + 1);
      out.push({figure: title, what, hits: hits.length, first: hits[0] || null, past,
                box: [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)],
                svg: [Math.round(s.left), Math.round(s.top), Math.round(s.right), Math.round(s.bottom)],
                points: pts.length});
    }
    if (!pts.length) out.push({figure: title, what: '(no points)', hits: 0, past: false, points: 0});
  });
  return out;
}"""


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
