"""The private-statistics course page in Voila + headless Chromium: it renders without an error box, every
shown control (and the histogram's bins) redraws a plot, and the first screen at 1024×768 and 1280×900 shows
the first plot and its legend with at most six controls. Skips like tests/browser/test_dashboards.py (fails with
DPEXPLORE_REQUIRE_BROWSER=1)."""

import os
import time
from pathlib import Path

import pytest

from dpexplore.ui.statistics import StatisticsDashboard

from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser
from .test_intro import JS_FIRST_PLOT

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NB = "11_private_statistics.ipynb"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    with VoilaServer(ROOT / "notebooks", cwd=ROOT) as srv:
        yield srv


def _move(page, name, kind):
    before = page.evaluate(JS_PLOT_SIG)
    box = page.locator(f".dpx-ctl-{name}")
    t0 = time.perf_counter()
    if kind == "choice":
        sel = box.locator("select")
        current = sel.input_value()
        labels = [lbl for lbl in sel.locator("option").all_inner_texts()
                  if lbl != sel.locator("option:checked").inner_text()]
        sel.select_option(label=labels[0])
        assert sel.input_value() != current
    else:
        box.locator(".noUi-handle").focus()
        t0 = time.perf_counter()
        page.keyboard.press("ArrowLeft" if name == "n" else "ArrowRight")  # n starts at its maximum
    page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=90_000, polling=50)
    took = round(time.perf_counter() - t0, 2)
    page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=90_000, polling=50)
    page.wait_for_timeout(300)
    return took


def test_every_shown_control_redraws_a_plot(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    kinds = {c.name: c.kind for c in StatisticsDashboard.controls}
    shown = ["epsilon", "clip", "n", "rows_per_person", "column", "statistic"]  # seed: URL only
    times = {}

    def drive(page, res):
        for name in shown:
            times[name] = _move(page, name, kinds[name])
        sel = page.locator(".dpx-ctl-statistic select")
        before = page.evaluate(JS_PLOT_SIG)
        sel.select_option(label="histogram")
        page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=90_000, polling=50)
        page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=90_000, polling=50)
        times["bins"] = _move(page, "bins", "int")
        res.timings["per_control_s"] = times  # type: ignore[assignment]

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=4, actions=drive,
                     screenshot=str(SHOTS / "11_private_statistics-after-controls.png"))
    print(f"{NB}: {res.timings}")
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert set(times) == set(shown) | {"bins"}


@pytest.mark.parametrize("size", [(1024, 768), (1280, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_screen_shows_the_first_plot_and_its_legend(size, server, browser):
    found = {}

    def look(page, res):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(1200)
        page.evaluate("() => { const r = document.getElementById('rendered_cells'); if (r) r.scrollTop = 0; "
                      "window.scrollTo(0, 0); }")
        found.update(page.evaluate(JS_FIRST_PLOT))
        page.screenshot(path=str(SHOTS / f"11_private_statistics-{size[0]}x{size[1]}.png"))

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=1, pre_actions=look)
    assert not res.failures, res.failures
    assert found["controls"] <= 6, found
    assert found["plot_top"] < size[1] * 0.6, found
    assert found["legend_bottom"] is not None and found["legend_bottom"] <= size[1], found
