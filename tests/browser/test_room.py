"""Issue 38 in Chromium: the projector in presentation mode at 1024×768 with a run-sheet step that asks the room —
the question, the plot it is about and the room's counts (while answering and after the reveal) share one screen.
One Voila server for the module (the instructor token and the poll store in a temporary folder)."""

import os
from pathlib import Path

import pytest

from .harness import VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
pytestmark = pytest.mark.browser
W, H = 1024, 768

#: the boxes that must be on the first screen: the side column (step + question + room), the plot asked about
#: (the panel of the verdict widget ``panel``), the question, the room's count or reveal
JS_SCREEN = """(panel) => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, h: r.height}; };
  const v = document.querySelector('.dpx-verdict-' + panel);
  const p = v ? v.closest('.dpx-panel') : null;
  const plot = p ? p.querySelector('.js-plotly-plot') : null;
  const side = document.querySelector('.dpx-teach-side.dpx-open');
  const xaxis = plot ? plot.querySelector('.xtick, .xaxislayer-above') : null;
  return {side: box(side), plot: box(plot), xaxis: box(xaxis),
          question: box(document.querySelector('.dpx-teach-side .dpx-question')),
          step: box(document.querySelector('.dpx-teach-side .dpx-step')),
          count: box(document.querySelector('.dpx-teach-side .dpx-room-count')),
          histogram: box(document.querySelector('.dpx-teach-side .dpx-room-histogram')),
          reveal: box(document.querySelector('.dpx-teach-side .dpx-reveal')),
          hscroll: document.documentElement.scrollWidth - window.innerWidth};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    from dpexplore.classroom.credentials import ensure_instructor_token

    poll_dir = tmp_path_factory.mktemp("polls")
    token = ensure_instructor_token(poll_dir)
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env={**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}) as srv:
        srv.poll_dir, srv.token = poll_dir, token
        yield srv


def _on_screen(b, what, *, right_of=None):
    assert b is not None, f"{what}: not on the page"
    assert b["h"] > 0 and b["top"] >= -1 and b["bottom"] <= H + 1, f"{what} is not on the {W}x{H} screen: {b}"
    assert b["left"] >= -1 and b["right"] <= W + 1, f"{what} is cut at the sides: {b}"


def _no_overlap(a, b, what):
    assert a["right"] <= b["left"] + 1 or b["right"] <= a["left"] + 1, f"{what} overlap: {a} {b}"


@pytest.mark.parametrize("nb, step, panel, cls", [
    ("00_intro_1_randomized_response_laplace.ipynb", 4, "rr", "CountingQueryDashboard"),
    ("00_intro_3_composition.ipynb", 4, "total", "CompositionDashboard"),
])
def test_presentation_keeps_question_plot_and_room_on_one_screen(nb, step, panel, cls, server, browser):
    from dpexplore.classroom.credentials import make_cookie
    from dpexplore.classroom.store import PollStore
    from dpexplore.hosting.instructor import COOKIE

    SHOTS.mkdir(parents=True, exist_ok=True)
    seen = {}

    def drive(page, res):
        side = page.locator(".dpx-teach-side.dpx-open")
        side.wait_for(timeout=60_000)
        assert "Ask the room" in side.inner_text() and "step 4 of" in side.inner_text()
        page.locator(".dpx-room-ask").click()
        page.locator(".dpx-room-code").wait_for(timeout=60_000)
        code = page.locator(".dpx-room-code").inner_text().strip()
        store = PollStore(server.poll_dir)
        for pick in (0, 1, 1):  # three students' devices
            store.submit_choice(code, store.issue_token(code), pick)
        page.wait_for_function("() => /Predictions in: 3\\b/.test(document.body.innerText)", timeout=30_000,
                               polling=200)
        page.wait_for_timeout(1500)  # the smooth scroll to the panel asked about
        seen["asked"] = page.evaluate(JS_SCREEN, panel)
        page.screenshot(path=str(SHOTS / f"room-present-asked-{Path(nb).stem}.png"))
        page.locator(".dpx-room-reveal").click()
        page.wait_for_function("() => /as stated|other way/.test((document.querySelector('.dpx-teach-side "
                               ".dpx-reveal') || {innerText: ''}).innerText)", timeout=120_000, polling=200)
        page.wait_for_timeout(1800)
        seen["revealed"] = page.evaluate(JS_SCREEN, panel)
        seen["reveal_text"] = page.locator(".dpx-teach-side .dpx-reveal").inner_text()
        page.screenshot(path=str(SHOTS / f"room-present-revealed-{Path(nb).stem}.png"))

    res = check_page(browser, f"{server.url}/voila/render/{nb}?present=1&lesson=run-sheet&step={step}", min_plots=1,
                     actions=drive, viewport=(W, H),
                     cookies=[{"name": COOKIE, "value": make_cookie(server.token), "url": server.url}])
    assert not res.failures, (res.failures, server.log()[-3000:])
    a, r = seen["asked"], seen["revealed"]
    for s in (a, r):
        _on_screen(s["side"], "the side column (step, question, room)")
        _on_screen(s["plot"], "the plot asked about")
        _no_overlap(s["side"], s["plot"], "side column and plot")
        assert s["hscroll"] <= 1, s
    _on_screen(a["question"], "the question")
    _on_screen(a["count"], "the room's count")
    _on_screen(r["histogram"], "the room's counts after the reveal")
    # and not scrolled out of the side column's visible part
    for b, side, what in ((a["count"], a["side"], "count"), (r["histogram"], r["side"], "histogram")):
        assert side["top"] - 1 <= b["top"] and b["bottom"] <= side["bottom"] + 1, (what, b, side)
    assert "The room predicted (3 predictions)" in seen["reveal_text"], seen["reveal_text"]


def test_log_sliders_announce_the_value_and_toolbars_are_one_tab_stop(server, browser):
    found = {}

    def look(page, res):
        page.wait_for_timeout(800)  # the page-side accessibility patches after a 60 ms debounce
        found.update(page.evaluate("""() => {
          const h = document.querySelector('.dpx-ctl-epsilon .noUi-handle');
          const r = document.querySelector('.dpx-ctl-epsilon .widget-readout');
          const bars = Array.from(document.querySelectorAll('.js-plotly-plot .modebar'));
          const stops = bars.map(b => Array.from(b.querySelectorAll('a, button'))
              .filter(e => e.tabIndex >= 0).length);
          return {now: h.getAttribute('aria-valuenow'), text: h.getAttribute('aria-valuetext'),
                  shown: (r.innerText || r.textContent).trim(), stops, bars: bars.length};
        }"""))
        handle = page.locator(".dpx-ctl-epsilon .noUi-handle")
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(prev) => { const h = document.querySelector('.dpx-ctl-epsilon .noUi-handle');"
                               " const r = document.querySelector('.dpx-ctl-epsilon .widget-readout');"
                               " return h.getAttribute('aria-valuetext') === (r.innerText || r.textContent).trim()"
                               " && h.getAttribute('aria-valuetext') !== prev; }", arg=found["text"],
                               timeout=30_000)

    res = check_page(browser, f"{server.url}/voila/render/00_intro_1_randomized_response_laplace.ipynb?n=100",
                     min_plots=2, pre_actions=look)
    assert not res.failures, res.failures
    # ε is a log slider: aria-valuenow is the log10 exponent, aria-valuetext the value the readout shows
    assert found["text"] == found["shown"] and float(found["text"]) == pytest.approx(10 ** float(found["now"]),
                                                                                   rel=1e-2), found
    assert found["bars"] >= 2 and max(found["stops"]) <= 1, found  # one tab stop per plot toolbar at most
