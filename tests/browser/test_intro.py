"""The intro track ("Start here") in Voila + headless Chromium: every control of each page redraws a plot
(timed), the attacker game is played by clicking, and the first screen at 1024×768 shows the first plot and its
legend. Skips like tests/browser/test_dashboards.py (fails with DPEXPLORE_REQUIRE_BROWSER=1)."""

import importlib
import os
import time
from pathlib import Path

import pytest

from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
PAGES = {"00_intro_1_randomized_response_laplace.ipynb": ("basics", "CountingQueryDashboard"),
         "00_intro_2_what_epsilon_means.ipynb": ("attacker", "AttackerDashboard"),
         "00_intro_3_composition.ipynb": ("composition", "CompositionDashboard")}
pytestmark = pytest.mark.browser

JS_FIRST_PLOT = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  if (!gd) return {problem: 'no plot'};
  const r = gd.getBoundingClientRect();
  const leg = gd.querySelector('.legend');
  const l = leg ? leg.getBoundingClientRect() : null;
  return {plot_top: r.top, plot_bottom: r.bottom, legend_bottom: l ? l.bottom : null, h: window.innerHeight,
          controls: Array.from(document.querySelectorAll('.dpx-controls > *'))
                      .filter(e => e.offsetParent !== null).length};
}"""


@pytest.fixture(scope="module")
def server():
    require_browser()
    with VoilaServer(ROOT / "notebooks", cwd=ROOT) as srv:
        yield srv


def _controls(nb):
    mod, name = PAGES[nb]
    return getattr(importlib.import_module(f"dpexplore.ui.{mod}"), name).controls


@pytest.mark.parametrize("nb", list(PAGES))
def test_every_control_redraws_a_plot(nb, server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    times = {}

    def drive(page, res):
        for ctl in _controls(nb):
            before = page.evaluate(JS_PLOT_SIG)
            box = page.locator(f".dpx-ctl-{ctl.name}")
            t0 = time.perf_counter()
            if ctl.kind == "choice":
                sel = box.locator("select")
                current = sel.input_value()
                options = [o for o in sel.locator("option").all_inner_texts()]
                labels = [lbl for lbl in options if lbl != sel.locator("option:checked").inner_text()]
                sel.select_option(label=labels[0])
                assert sel.input_value() != current
            else:
                handle = box.locator(".noUi-handle")
                handle.focus()
                t0 = time.perf_counter()
                page.keyboard.press("ArrowRight")
            page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=60_000, polling=50)
            times[ctl.name] = round(time.perf_counter() - t0, 2)
            # every panel the change asked for is drawn before the next control moves
            page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=60_000, polling=50)
            page.wait_for_timeout(500)
        res.timings["per_control_s"] = times  # type: ignore[assignment]

    res = check_page(browser, f"{server.url}/voila/render/{nb}", min_plots=2, actions=drive,
                     screenshot=str(SHOTS / f"{Path(nb).stem}-after-controls.png"))
    print(f"{nb}: {res.timings}")
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert set(times) == {c.name for c in _controls(nb)}


def test_play_the_attacker_by_clicking(server, browser):
    def play(page, res):
        box = page.locator(".dpx-game")
        assert "Round 1 of 5" in box.inner_text()
        for i in range(5):
            before = page.evaluate(JS_PLOT_SIG)
            page.locator(".dpx-game-A" if i % 2 else ".dpx-game-B").click()
            page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=60_000, polling=50)
        page.wait_for_function("() => document.querySelector('.dpx-game').innerText.includes('Game over')",
                               timeout=30_000)
        assert page.locator(".dpx-game-A").is_disabled()
        assert "of 5 right" in page.evaluate("() => document.body.innerText")
        page.locator(".dpx-game-new").click()
        page.wait_for_function("() => document.querySelector('.dpx-game').innerText.includes('Round 1 of 5')",
                               timeout=30_000)

    res = check_page(browser, f"{server.url}/voila/render/00_intro_2_what_epsilon_means.ipynb?rounds=5",
                     min_plots=3, actions=play, screenshot=str(SHOTS / "intro-2-game.png"))
    assert not res.failures, (res.failures, server.log()[-3000:])


@pytest.mark.parametrize("size", [(1024, 768), (1280, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("nb", list(PAGES))
def test_first_screen_shows_the_first_plot_and_its_legend(nb, size, server, browser):
    found = {}

    def look(page, res):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(1200)
        page.evaluate("() => { const r = document.getElementById('rendered_cells'); if (r) r.scrollTop = 0; "
                      "window.scrollTo(0, 0); }")
        found.update(page.evaluate(JS_FIRST_PLOT))
        page.screenshot(path=str(SHOTS / f"{Path(nb).stem}-{size[0]}x{size[1]}.png"))

    res = check_page(browser, f"{server.url}/voila/render/{nb}", min_plots=1, pre_actions=look)
    assert not res.failures, res.failures
    assert found["controls"] <= 6, found
    assert found["plot_top"] < size[1] * 0.6, found
    assert found["legend_bottom"] is not None and found["legend_bottom"] <= size[1], found
