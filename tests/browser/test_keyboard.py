"""Keyboard only: a student with no mouse moves a slider (arrow keys, Home/End), opens a lesson preset,
answers a predict-then-reveal question and sends a class-poll answer — every control reached with Tab,
operated with the keys a screen-reader user would press, and the polite live region announcing the result.

Skips without Chromium/playwright unless ``DPEXPLORE_REQUIRE_BROWSER=1`` (``.ci/run``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .axe import describe, failing, require_axe, run_axe
from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = "03_markov_trajectories.ipynb"  # cheap to recompute; has presets and questions
POLL = "06_class_poll.ipynb"
pytestmark = pytest.mark.browser
MAX_TABS = 400


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    require_axe()
    poll_dir = tmp_path_factory.mktemp("kbd-polls")
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        srv.poll_dir = poll_dir
        yield srv


def tab_to(page, selector: str, *, text: str | None = None) -> None:
    """Press Tab until the focused element matches ``selector`` (and contains ``text``); fail after MAX_TABS."""
    js = """([sel, text]) => { const a = document.activeElement;
      return !!a && a.matches(sel) && (text === null || (a.innerText || a.value || '').includes(text)); }"""
    for _ in range(MAX_TABS):
        if page.evaluate(js, [selector, text]):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector!r} ({text!r}) not reached with {MAX_TABS} Tab presses")


def live_text(page) -> str:
    return page.evaluate("() => (document.getElementById('dpx-live') || {}).textContent || ''")


def wait_idle(page) -> None:
    page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=120_000, polling=100)


def test_dashboard_by_keyboard_only(server, browser):
    def drive(page, res):
        page.keyboard.press("Tab")
        # -- a slider: Tab reaches its handle, which has the label as accessible name -----------------
        tab_to(page, ".noUi-handle")
        handle = page.evaluate_handle("() => document.activeElement")
        assert handle.get_attribute("aria-label"), "the focused slider handle has no accessible name"
        lo, hi = float(handle.get_attribute("aria-valuemin")), float(handle.get_attribute("aria-valuemax"))
        summary0 = page.locator(".dpx-plot-summary").first.inner_text()
        for key, want in (("End", hi), ("Home", lo)):
            page.keyboard.press(key)
            page.wait_for_function("([h, w]) => Math.abs(parseFloat(h.getAttribute('aria-valuenow')) - w) < 1e-9",
                                   arg=[handle, want], timeout=30_000, polling=50)
            wait_idle(page)
            page.wait_for_timeout(1000)  # the kernel's echo of the value arrives before the next key
            assert float(handle.get_attribute("aria-valuenow")) == pytest.approx(want), key
        before = page.evaluate(JS_PLOT_SIG)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=60_000, polling=100)
        wait_idle(page)
        page.wait_for_function("() => /Updated in/.test((document.getElementById('dpx-live') || {}).textContent)",
                               timeout=30_000)
        assert page.locator(".dpx-plot-summary").first.inner_text() != summary0, "the plot summary did not follow"
        # -- a lesson preset: the dropdown, by arrow key ------------------------------------------------
        page.keyboard.press("Shift+Tab")  # back towards the top: the teaching bar is above the controls
        for _ in range(MAX_TABS):
            if page.evaluate("() => !!document.activeElement.closest('.dpx-preset')"):
                break
            page.keyboard.press("Shift+Tab")
        assert page.evaluate("() => document.activeElement.tagName") == "SELECT"
        page.keyboard.press("ArrowDown")
        page.locator(".dpx-preset-note").wait_for(timeout=60_000)
        wait_idle(page)
        # -- predict, then reveal: toggle, a radio choice, commit ---------------------------------------
        tab_to(page, ".dpx-predict-toggle")
        page.keyboard.press("Enter")
        page.locator(".dpx-predict").wait_for(state="visible", timeout=30_000)
        tab_to(page, ".dpx-q-choices input[type=radio]")
        page.keyboard.press("Space")
        tab_to(page, ".dpx-q-commit")
        page.wait_for_function("() => !document.activeElement.disabled", timeout=30_000)
        page.keyboard.press("Enter")
        page.wait_for_function("() => (document.querySelector('.dpx-q-result') || {}).innerText?.trim().length > 0",
                               timeout=120_000, polling=100)
        verdict = page.locator(".dpx-q-result").inner_text().strip()
        page.wait_for_function("(v) => (document.getElementById('dpx-live') || {}).textContent"
                               ".includes(v.slice(0, 30))", arg=verdict, timeout=60_000)
        res.timings["verdict"] = verdict[:80]  # type: ignore[assignment]
        bad = failing(run_axe(page))  # the preset note, the question and its verdict are checked too
        assert not bad, describe(bad)

    res = check_page(browser, f"{server.url}/voila/render/{DASHBOARD}", actions=drive, min_plots=1)
    assert not res.failures, (res.failures, server.log()[-3000:])


def test_poll_answer_by_keyboard_only(server, browser):
    from dpexplore.classroom.store import PollStore

    store = PollStore(server.poll_dir)
    created = store.create_poll("Have you ever skipped a lecture?", epsilon=1.0)

    def drive(page, res):
        page.keyboard.press("Tab")
        tab_to(page, ".dpx-poll-answer button", text="Yes")
        page.keyboard.press("Enter")
        tab_to(page, ".dpx-poll-flip")
        page.keyboard.press("Enter")
        page.locator(".dpx-poll-send:not([disabled])").wait_for(timeout=60_000)
        tab_to(page, ".dpx-poll-send")
        page.keyboard.press("Enter")
        page.locator(".dpx-poll-done").wait_for(timeout=60_000)
        page.wait_for_function("() => /sent: /i.test((document.getElementById('dpx-live') || {}).textContent)",
                               timeout=30_000)
        bad = failing(run_axe(page))
        assert not bad, describe(bad)

    res = check_page(browser, f"{server.url}/voila/render/{POLL}?join={created.code}", actions=drive)
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert store.tally(created.code, created.secret).responses == 1
    assert re.search(r"\w", res.text)
