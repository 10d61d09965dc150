"""Issue 38 in Chromium: a student on a phone (390×844, touch). The attacker game (intro 2), a randomized-response
poll and a prediction round complete with every control and result inside the screen's width (no horizontal
scrolling), and the student's page shows the room's result once the instructor closes the poll. One Voila server
for the module (its poll store in a temporary folder)."""

import os
from pathlib import Path

import pytest

from .harness import JS_ERRORS, JS_RENDERED, VoilaServer, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
pytestmark = pytest.mark.browser
W, H = 390, 844

JS_WIDTH = """(sel) => {
  const r = document.getElementById('rendered_cells');
  const out = {doc: document.documentElement.scrollWidth, cells: r ? r.scrollWidth : 0, cut: []};
  for (const el of document.querySelectorAll(sel)) {
    const b = el.getBoundingClientRect();
    if (b.width > 0 && (b.left < -1 || b.right > window.innerWidth + 1))
      out.cut.push((el.className || el.tagName) + ' ' + Math.round(b.left) + '..' + Math.round(b.right));
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    poll_dir = tmp_path_factory.mktemp("polls")
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env={**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}) as srv:
        srv.poll_dir = poll_dir
        yield srv


def _phone(browser, url):
    ctx = browser.new_context(viewport={"width": W, "height": H}, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="commit", timeout=180_000)
    page.wait_for_function(JS_RENDERED, timeout=180_000, polling=200)
    return ctx, page, errors


def _fits(page, sel):
    w = page.evaluate(JS_WIDTH, sel)
    assert w["doc"] <= W + 1 and w["cells"] <= W + 1, f"the page scrolls sideways on a phone: {w}"
    assert not w["cut"], f"cut at the screen's sides: {w['cut']}"


def _visible(page, sel):
    b = page.locator(sel).first.bounding_box()
    assert b is not None and b["width"] > 0, sel
    page.locator(sel).first.scroll_into_view_if_needed()
    b = page.locator(sel).first.bounding_box()
    assert b["x"] >= -1 and b["x"] + b["width"] <= W + 1 and b["y"] >= -1 and b["y"] + b["height"] <= H + 1, (sel, b)


def test_the_attacker_game_on_a_phone(server, browser):
    ctx, page, errors = _phone(browser, f"{server.url}/voila/render/00_intro_2_what_epsilon_means.ipynb?rounds=5")
    try:
        page.locator(".dpx-game").wait_for(timeout=180_000)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3",
                               timeout=180_000)
        _fits(page, ".dpx-game button, .dpx-game, .js-plotly-plot, .dpx-controls")
        for i in range(5):
            page.wait_for_function("(k) => document.querySelector('.dpx-game').innerText.includes("
                                   "'Round ' + k + ' of 5')", arg=i + 1, timeout=60_000)
            btn = ".dpx-game-A" if i % 2 else ".dpx-game-B"
            _visible(page, btn)
            page.locator(btn).tap()
        page.wait_for_function("() => document.querySelector('.dpx-game').innerText.includes('Game over')",
                               timeout=60_000)
        _visible(page, ".dpx-game")
        assert "of 5 right" in page.locator("body").inner_text()
        _fits(page, ".dpx-game button, .dpx-game, .js-plotly-plot")
        page.screenshot(path=str(SHOTS / "phone-game.png"))
        assert not page.evaluate(JS_ERRORS) and not errors
    finally:
        ctx.close()


def test_a_poll_and_a_prediction_round_on_a_phone_show_the_rooms_result(server, browser):
    from dpexplore.classroom.store import PollStore

    SHOTS.mkdir(parents=True, exist_ok=True)
    store = PollStore(server.poll_dir)
    poll = store.create_poll("Have you ever copied someone's homework?", epsilon=1.0)
    url = f"{server.url}/voila/render/06_class_poll.ipynb"
    ctx, page, errors = _phone(browser, f"{url}?join={poll.code}")
    try:
        page.locator(".dpx-poll-answer").wait_for(timeout=180_000)
        _fits(page, ".dpx-poll-student button, .dpx-poll-student")
        page.locator(".dpx-poll-answer button", has_text="Yes").tap()
        page.locator(".dpx-poll-flip").tap()
        page.locator(".dpx-poll-report").wait_for(timeout=60_000)
        _visible(page, ".dpx-poll-report")
        _visible(page, ".dpx-poll-send")
        page.locator(".dpx-poll-send").tap()
        page.wait_for_function("() => /Done — sent/.test(document.body.innerText)", timeout=60_000)
        _visible(page, ".dpx-poll-done")
        for _ in range(2):  # two more students, straight into the store
            store.submit(poll.code, store.issue_token(poll.code), 0)
        store.close_poll(poll.code, poll.secret)
        page.locator(".dpx-poll-room").wait_for(timeout=60_000)
        _visible(page, ".dpx-poll-room")
        assert "The room's result" in page.locator(".dpx-poll-room").inner_text()
        assert "3" in page.locator(".dpx-poll-room").inner_text()
        _fits(page, ".dpx-poll-student button, .dpx-poll-student, .dpx-poll-room")
        page.screenshot(path=str(SHOTS / "phone-poll-result.png"))
        assert not page.evaluate(JS_ERRORS) and not errors
    finally:
        ctx.close()
    rnd = store.create_round("Raise ε: does the error go up or down?", ["goes up", "goes down", "stays the same"])
    ctx, page, errors = _phone(browser, f"{url}?join={rnd.code}")
    try:
        page.locator(".dpx-poll-prediction").wait_for(timeout=180_000)
        _fits(page, ".dpx-poll-student button, .dpx-poll-student, .dpx-poll-prediction label")
        page.locator(".dpx-poll-prediction label", has_text="goes down").tap()
        _visible(page, ".dpx-poll-predict-send")
        page.locator(".dpx-poll-predict-send").tap()
        page.wait_for_function("() => /your prediction is in/.test(document.body.innerText)", timeout=60_000)
        store.submit_choice(rnd.code, store.issue_token(rnd.code), 0)
        store.close_poll(rnd.code, rnd.secret)
        page.locator(".dpx-poll-room").wait_for(timeout=60_000)
        _visible(page, ".dpx-poll-room")
        text = page.locator(".dpx-poll-room").inner_text()
        assert "The room predicted (2 predictions)" in text and "goes down: 1 (50%)" in text, text
        _fits(page, ".dpx-poll-student button, .dpx-poll-student, .dpx-poll-room")
        page.screenshot(path=str(SHOTS / "phone-round-result.png"))
        assert not page.evaluate(JS_ERRORS) and not errors
    finally:
        ctx.close()
