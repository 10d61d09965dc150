"""The Selection page (notebooks/12_selection.ipynb) in Voila + headless Chromium: it renders without an error box,
every slider redraws a plot (timed), and the first screen at 1024×768 and 1280×900 shows the first plot and its
legend. Skips like tests/browser/test_dashboards.py (fails with DPEXPLORE_REQUIRE_BROWSER=1)."""

import os
import time
from pathlib import Path

import pytest

from dpexplore.ui.selection import SelectionDashboard

from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser
from .test_intro import JS_FIRST_PLOT

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NB = "12_selection.ipynb"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    with VoilaServer(ROOT / "notebooks", cwd=ROOT) as srv:
        yield srv


def test_every_slider_redraws_a_plot_and_no_error_box(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    times = {}

    def drive(page, res):
        for ctl in SelectionDashboard.controls:
            before = page.evaluate(JS_PLOT_SIG)
            handle = page.locator(f".dpx-ctl-{ctl.name}").locator(".noUi-handle")
            handle.focus()
            t0 = time.perf_counter()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=180_000, polling=50)
            times[ctl.name] = round(time.perf_counter() - t0, 2)
            page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=180_000, polling=100)
            page.wait_for_timeout(500)
        res.timings["per_control_s"] = times  # type: ignore[assignment]

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=5, actions=drive,
                     screenshot=str(SHOTS / "12_selection-after-controls.png"))
    print(f"{NB}: {res.timings}")
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert set(times) == {c.name for c in SelectionDashboard.controls}


@pytest.mark.parametrize("size", [(1024, 768), (1280, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_screen_shows_the_first_plot_and_its_legend(size, server, browser):
    found = {}

    def look(page, res):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(1200)
        page.evaluate("() => { const r = document.getElementById('rendered_cells'); if (r) r.scrollTop = 0; "
                      "window.scrollTo(0, 0); }")
        found.update(page.evaluate(JS_FIRST_PLOT))
        page.screenshot(path=str(SHOTS / f"12_selection-{size[0]}x{size[1]}.png"))

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=1, pre_actions=look)
    assert not res.failures, res.failures
    assert found["controls"] <= 6, found
    assert found["plot_top"] < size[1] * 0.6, found
    assert found["legend_bottom"] is not None and found["legend_bottom"] <= size[1], found
