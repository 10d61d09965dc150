"""The "Why DP" page (notebooks/10_why_dp_attacks.ipynb) in Voila + headless Chromium: it renders without an
error box, every control redraws a plot (timed), and the first screen at 1024×768 and 1280×900 shows the first
plot and its legend. Skips like tests/browser/test_dashboards.py (fails with DPEXPLORE_REQUIRE_BROWSER=1)."""

import os
import time
from pathlib import Path

import pytest

from dpexplore.ui.attacks import AttacksDashboard

from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser
from .test_intro import JS_FIRST_PLOT

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NB = "10_why_dp_attacks.ipynb"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    with VoilaServer(ROOT / "notebooks", cwd=ROOT) as srv:
        yield srv


def test_renders_and_every_control_redraws_a_plot(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    times = {}
    # sliders first: the bound E is shown only for the default (bounded) noise; the noise choice last
    order = [c for c in AttacksDashboard.controls if c.kind != "choice"] + \
        [c for c in AttacksDashboard.controls if c.kind == "choice"]

    def drive(page, res):
        for ctl in order:
            before = page.evaluate(JS_PLOT_SIG)
            box = page.locator(f".dpx-ctl-{ctl.name}")
            t0 = time.perf_counter()
            if ctl.kind == "choice":
                sel = box.locator("select")
                current = sel.input_value()
                labels = [lbl for lbl in sel.locator("option").all_inner_texts()
                          if lbl != sel.locator("option:checked").inner_text()]
                sel.select_option(label=labels[0])
                assert sel.input_value() != current
            else:
                handle = box.locator(".noUi-handle")
                handle.focus()
                t0 = time.perf_counter()
                page.keyboard.press("ArrowRight")
            page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=120_000, polling=50)
            times[ctl.name] = round(time.perf_counter() - t0, 2)
            page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=120_000, polling=50)
            page.wait_for_timeout(500)
        res.timings["per_control_s"] = times  # type: ignore[assignment]

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=4, actions=drive,
                     screenshot=str(SHOTS / "10_why_dp_attacks-after-controls.png"))
    print(f"{NB}: {res.timings}")
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert set(times) == {c.name for c in AttacksDashboard.controls}
    assert "not cryptographically secure" in res.text


@pytest.mark.parametrize("size", [(1024, 768), (1280, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_first_screen_shows_the_first_plot_and_its_legend(size, server, browser):
    found = {}

    def look(page, res):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(1200)
        page.evaluate("() => { const r = document.getElementById('rendered_cells'); if (r) r.scrollTop = 0; "
                      "window.scrollTo(0, 0); }")
        found.update(page.evaluate(JS_FIRST_PLOT))
        page.screenshot(path=str(SHOTS / f"10_why_dp_attacks-{size[0]}x{size[1]}.png"))

    res = check_page(browser, f"{server.url}/voila/render/{NB}", min_plots=1, pre_actions=look)
    assert not res.failures, res.failures
    assert found["controls"] <= 6, found
    assert found["plot_top"] < size[1] * 0.6, found
    assert found["legend_bottom"] is not None and found["legend_bottom"] <= size[1], found
