"""Classroom features in Voila + headless Chromium: ``?mode=predict`` asks a question and reveals after the
student commits (the plot changes only then), ``?preset=name`` sets the controls, a panel's CSV link
holds the experiment result's own CSV, and the copy button puts the view's deep link and snippet on the
clipboard. Skips like tests/browser/test_dashboards.py (fails with DPEXPLORE_REQUIRE_BROWSER=1)."""

import base64
import os
import re
import time
from pathlib import Path

import pytest

from .harness import VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NB = "03_markov_trajectories.ipynb"
pytestmark = pytest.mark.browser

#: the plotted data of every plot (x and y of each trace): unlike JS_PLOT_SIG's SVG paths it does not change when a
#: plot is only resized (the first plot fits itself to the screen as the page settles)
JS_PLOT_DATA = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .map(g => (g.data || []).map(t => JSON.stringify([t.x, t.y, t.z])).join('|')).join('||')"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    from dpexplore.classroom.credentials import ensure_instructor_token

    poll_dir = tmp_path_factory.mktemp("polls")  # the class-wide predictions' rounds, and the instructor token
    token = ensure_instructor_token(poll_dir)
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env={**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}) as srv:
        srv.poll_dir, srv.token = poll_dir, token
        yield srv


def test_predict_mode_asks_then_reveals(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def drive(page, res):
        box = page.locator(".dpx-predict")
        assert box.is_visible(), "predict box hidden in ?mode=predict"
        text = box.inner_text()
        assert "Question 1 of 3" in text and "Double ε (3 → 6)" in text, text
        assert page.locator(".dpx-reveal").count() == 0
        before = page.evaluate(JS_PLOT_DATA)
        page.locator(".dpx-q-choices label", has_text="goes down").click()
        page.wait_for_timeout(1500)
        assert page.evaluate(JS_PLOT_DATA) == before, "the plotted data changed before the student committed"
        page.locator(".dpx-q-commit").click()
        page.wait_for_function(f"(s0) => ({JS_PLOT_DATA})() !== s0", arg=before, timeout=120_000, polling=100)
        reveal = page.locator(".dpx-reveal")
        reveal.wait_for(timeout=60_000)
        page.wait_for_function("() => /as stated|other way/.test(document.querySelector('.dpx-reveal').innerText)",
                               timeout=120_000, polling=200)
        text = reveal.inner_text()
        assert "You predicted goes down" in text and "Right." in text, text
        assert "favour states close to the true one" in text, text  # the one-line explanation
        assert "✓ as stated" in text, text
        assert float(page.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 6
        # the verdict is under the panel asked about (panel 2, "tail"), scrolled into view
        assert page.locator(".dpx-verdict-tail .dpx-reveal").count() == 1
        page.wait_for_timeout(1500)  # smooth scrolling
        r = page.evaluate("() => { const b = document.querySelector('.dpx-reveal').getBoundingClientRect(); "
                          "return [b.top, b.bottom, window.innerHeight]; }")
        assert 0 <= r[0] and r[1] <= r[2], r

    res = check_page(browser, f"{server.url}/voila/render/{NB}?mode=predict", min_plots=1, pre_actions=drive,
                     screenshot=str(SHOTS / "teaching-predict.png"))
    assert not res.failures, (res.failures, server.log()[-3000:])


def test_preset_from_url_sets_the_controls_and_shows_its_note(server, browser):
    def check(page, res):
        assert float(page.locator(".dpx-ctl-rho .widget-readout").inner_text()) == 10
        assert float(page.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 3
        note = page.locator(".dpx-preset-note").inner_text()
        assert "Wide adjacency" in note and "protects trajectories that differ more" in note, note
        assert page.locator(".dpx-lesson-problem").count() == 0

    res = check_page(browser, f"{server.url}/voila/render/{NB}?preset=wide-adjacency&epsilon=3", min_plots=1,
                     pre_actions=check)
    assert not res.failures, (res.failures, server.log()[-3000:])


def test_csv_link_holds_the_results_csv_and_copy_puts_link_and_snippet_on_the_clipboard(server, browser):
    from dpexplore.ui.markov import MarkovTrajectoryDashboard

    want = MarkovTrajectoryDashboard(query_string="seed=5", render=False, background=False).results["tail"][""]

    def check(page, res):
        link = page.locator(".dpx-csv-tail a.dpx-csv").first
        link.wait_for(timeout=120_000)  # panels fill in one by one; the page may settle between two
        href = link.get_attribute("href")
        assert href.startswith("data:text/csv;base64,"), href[:60]
        text = base64.b64decode(href.split(",", 1)[1]).decode("utf-8")
        assert "# seed: 5" in text and "# version:" in text
        assert text == want.to_csv()
        assert link.get_attribute("download").endswith("seed5.csv")
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        page.locator("button.dpx-copy").click()
        page.wait_for_function("() => document.querySelector('.dpx-copy-status').textContent !== ''",
                               timeout=10_000)
        status = page.locator(".dpx-copy-status").inner_text()
        if "Copied" in status and page.locator(".dpx-copy-text").is_hidden():
            copied = page.evaluate("() => navigator.clipboard.readText()")
        else:  # the fallback: the text is shown, selected
            copied = page.locator(".dpx-copy-text").input_value()
        assert f"{server.url}/voila/render/{NB}?" in copied and "seed=5" in copied, copied[:300]
        assert "large_error_probability(" in copied and "rng=5" in copied, copied[:600]
        res.timings["copy_status"] = status  # type: ignore[assignment]

    res = check_page(browser, f"{server.url}/voila/render/{NB}?seed=5", min_plots=1, pre_actions=check,
                     screenshot=str(SHOTS / "teaching-csv.png"))
    print(res.timings)
    assert not res.failures, (res.failures, server.log()[-3000:])


def test_a_bad_lessons_file_gives_one_clear_message_and_the_dashboard_works(browser, tmp_path):
    bad = tmp_path / "lessons.json"
    bad.write_text('{"dashboards": {"ShuffleAsymptoticsDashboard": {"presets": [{"name": "x", "title": "X", '
                   '"note": "", "values": {"n": 5, "epsilon0": 2.0}}], "questions": [{"id": "q"}]}}}')
    env = {**os.environ, "DPEXPLORE_LESSONS": str(bad)}

    def check(page, res):
        box = page.locator(".dpx-lesson-problem")
        assert box.count() == 1
        text = box.inner_text()
        assert "ShuffleAsymptoticsDashboard, preset 'x', values.n: must be an integer in [10, 1000000]; got 5" in text
        assert "question 'q': missing field 'question'" in text, text
        assert "preset=x ignored" in text, text
        assert float(page.locator(".dpx-ctl-n .widget-readout").inner_text().replace(",", "")) == 10000

    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        res = check_page(browser, f"{srv.url}/voila/render/04_shuffle_asymptotics.ipynb?preset=x", min_plots=1,
                         move_slider=True, pre_actions=check)
        assert not res.failures, (res.failures, srv.log()[-3000:])


# -- issue 25: presentation mode, absolute presets and the URL, lesson sequences, the verdict beside its panel --
JS_PLOT_TEXT_MIN = """() => Math.min(...Array.from(document.querySelectorAll('.js-plotly-plot svg text'))
  .filter(t => (t.textContent || '').trim() && t.getBoundingClientRect().width > 0)
  .map(t => parseFloat(getComputedStyle(t).fontSize)))"""


@pytest.mark.parametrize("nb", ["04_shuffle_asymptotics.ipynb", "05_quadratic_objective_perturbation.ipynb"])
def test_presentation_mode_on_a_projector(nb, server, browser):
    """?present=1 at 1024×768: the guide, long captions, the audit and the secondary controls are hidden, plot
    text is at least 16 px, and the first plot with its legend is on the first screen; the toggle turns it off."""
    from .test_dashboards import JS_PLOT_READABLE

    SHOTS.mkdir(parents=True, exist_ok=True)
    found = {}

    def check(page, res):
        page.wait_for_timeout(3000)
        hidden = page.evaluate("""() => ['.jp-MarkdownCell', '.dpx-audit', '.dpx-caption-long', '.dpx-snippet']
            .map(s => Array.from(document.querySelectorAll(s)).every(e => e.offsetParent === null))""")
        assert all(hidden), hidden
        sliders = page.evaluate("() => Array.from(document.querySelectorAll('.widget-slider'))"
                                ".filter(s => s.offsetParent !== null).length")
        assert 1 <= sliders <= 4, sliders
        found["present"] = page.evaluate(JS_PLOT_READABLE, [16, True])
        page.screenshot(path=str(SHOTS / f"present-{nb[:2]}-1024x768.png"))
        assert "present=1" in page.evaluate("() => window.location.search")
        page.locator(".dpx-present-toggle").click()
        page.wait_for_function("() => document.querySelector('.jp-MarkdownCell') && "
                               "document.querySelector('.jp-MarkdownCell').offsetParent !== null", timeout=30_000)
        page.wait_for_timeout(1500)
        found["normal_min_px"] = page.evaluate(JS_PLOT_TEXT_MIN)
        assert "present=1" not in page.evaluate("() => window.location.search")

    res = check_page(browser, f"{server.url}/voila/render/{nb}?present=1", min_plots=1, pre_actions=check,
                     viewport=(1024, 768))
    assert not res.failures, (res.failures, server.log()[-3000:])
    assert found["present"] == [], found["present"]
    assert 12 <= found["normal_min_px"] < 16, found


def test_a_preset_is_absolute_and_the_address_bar_follows_it(server, browser):
    """Item 6: "A larger graph" after "Strong privacy" leaves ε at its default, and the URL names the new preset."""
    def check(page, res):
        sel = page.locator(".dpx-preset select")
        sel.select_option(label="Strong privacy (ε = 0.3)")
        page.wait_for_function("() => /preset=strong-privacy/.test(window.location.search)", timeout=120_000)
        assert float(page.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 0.3
        sel.select_option(label="A larger graph (n = 800)")
        page.wait_for_function("() => /preset=big-graph/.test(window.location.search)", timeout=120_000)
        assert float(page.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 1
        assert "n=800" in page.evaluate("() => window.location.search")

    res = check_page(browser, f"{server.url}/voila/render/01_spectral_clustering.ipynb", min_plots=1,
                     pre_actions=check)
    assert not res.failures, (res.failures, server.log()[-3000:])


def test_a_lesson_sequence_steps_and_prints_its_worksheets(server, browser):
    def check(page, res):
        box = page.locator(".dpx-sequence")
        assert box.is_visible() and "step 1 of 2" in box.inner_text()
        assert page.locator(".dpx-ctl-n .widget-readout").inner_text().replace(",", "") == "100"
        page.locator(".dpx-step-next").click()
        page.wait_for_function("() => /step=2/.test(window.location.search)", timeout=120_000)
        assert "step 2 of 2" in box.inner_text()
        assert page.locator(".dpx-ctl-n .widget-readout").inner_text().replace(",", "") == "100000"
        href = page.locator("a.dpx-worksheet").first.get_attribute("href")
        sheet = base64.b64decode(href.split(",", 1)[1]).decode("utf-8")
        assert "Is the Gaussian (GDP) approximation close" in sheet and "Far below" not in sheet
        href = page.locator("a.dpx-worksheet-answers").first.get_attribute("href")
        assert "Far below" in base64.b64decode(href.split(",", 1)[1]).decode("utf-8")

    res = check_page(browser, f"{server.url}/voila/render/04_shuffle_asymptotics.ipynb?lesson=shuffle-crowds",
                     min_plots=1, pre_actions=check, screenshot=str(SHOTS / "teaching-sequence.png"))
    assert not res.failures, (res.failures, server.log()[-3000:])


def _wait_text(page, pattern: str, timeout_ms: int) -> None:
    """Wait until the page's text matches ``pattern`` (a regular expression; the body may not exist yet)."""
    page.wait_for_function("(re) => new RegExp(re).test(document.body ? document.body.innerText : '')",
                           arg=pattern, timeout=timeout_ms, polling=200)


def _wait_rendered(page, timeout_s=180):
    from .harness import JS_RENDERED

    deadline = time.time() + timeout_s
    while not page.evaluate(JS_RENDERED):
        assert time.time() < deadline, "Voila did not finish executing the notebook"
        page.wait_for_timeout(200)


def test_class_wide_predictions_an_instructor_and_three_students(server, browser):
    """Peer instruction in class mode: the instructor's dashboard (the instructor cookie) asks the room; three
    students — each its own browser context, one typing the code on the bare poll page — pick an answer on
    the poll page; the instructor's count rises without a reload; closing the round applies the change, and
    the room's counts per answer appear under the panel asked about, beside the measured outcome."""
    from dpexplore.classroom.credentials import make_cookie
    from dpexplore.hosting.instructor import COOKIE

    SHOTS.mkdir(parents=True, exist_ok=True)
    js_errors: list[str] = []
    contexts = []

    def new_page(**kw):
        ctx = browser.new_context(**kw)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: js_errors.append(str(e)))
        return page

    try:
        teacher = new_page(viewport={"width": 1280, "height": 900})
        teacher.context.add_cookies([{"name": COOKIE, "value": make_cookie(server.token), "url": server.url}])
        teacher.goto(f"{server.url}/voila/render/{NB}?mode=predict", wait_until="commit", timeout=180_000)
        _wait_rendered(teacher)
        teacher.locator(".dpx-room-ask").click()
        teacher.locator(".dpx-room-code").wait_for(timeout=60_000)
        code = teacher.locator(".dpx-room-code").inner_text().strip()
        assert re.fullmatch(r"[A-Z2-9]{6}", code), code
        assert teacher.locator(".dpx-room-link").get_attribute("href") == f"06_class_poll.ipynb?join={code}"
        assert not teacher.locator(".dpx-q-commit").is_visible()  # the room answers, not the projector
        _wait_text(teacher, "Predictions in: 0", 30_000)
        before = teacher.evaluate(JS_PLOT_DATA)
        picks = ["goes down", "goes up", "goes down"]
        for i, pick in enumerate(picks):
            s = new_page(viewport={"width": 390, "height": 800})  # a phone
            poll = f"{server.url}/voila/render/06_class_poll.ipynb"
            if i == 0:  # the landing page: type the projected code
                s.goto(poll, wait_until="commit", timeout=180_000)
                s.locator(".dpx-poll-code-input input").wait_for(timeout=180_000)
                s.locator(".dpx-poll-code-input input").fill(code.lower())
                s.locator(".dpx-poll-join").click()
            else:
                s.goto(f"{poll}?join={code}", wait_until="commit", timeout=180_000)
            s.locator(".dpx-poll-prediction").wait_for(timeout=180_000)
            assert "not randomized" in s.locator("body").inner_text()
            assert s.locator(".dpx-poll-flip").count() == 0 or not s.locator(".dpx-poll-flip").is_visible()
            s.locator(".dpx-poll-prediction label", has_text=pick).click()
            s.locator(".dpx-poll-predict-send").click()
            _wait_text(s, "your prediction is in", 60_000)
            assert s.locator(".dpx-poll-predict-send").is_disabled()
            assert s.locator(".dpx-poll-prediction input").first.is_disabled()
            if i == 0:
                s.screenshot(path=str(SHOTS / "teaching-room-student.png"))
            # the instructor's count follows without a reload
            _wait_text(teacher, f"Predictions in: {i + 1}\\b", 30_000)
        assert teacher.evaluate(JS_PLOT_DATA) == before, "the plotted data changed before the round was closed"
        teacher.locator(".dpx-room-reveal").click()
        teacher.wait_for_function(f"(s0) => ({JS_PLOT_DATA})() !== s0", arg=before, timeout=120_000, polling=100)
        teacher.wait_for_function("() => /as stated|other way/.test((document.querySelector('.dpx-reveal') || "
                                  "{innerText: ''}).innerText)", timeout=120_000, polling=200)
        verdict = teacher.locator(".dpx-verdict-tail .dpx-reveal")  # under the panel asked about
        assert verdict.count() == 1
        text = verdict.inner_text()
        bars = verdict.locator(".dpx-room-bar")
        counts = {bars.nth(k).get_attribute("data-choice"): int(bars.nth(k).get_attribute("data-count"))
                  for k in range(bars.count())}
        assert counts == {c: picks.count(c) for c in counts} and set(picks) < set(counts), (counts, text)
        assert "The room predicted (3 predictions)" in text and "2 of 3 (67%) predicted it" in text, text
        assert "✓ as stated" in text and float(teacher.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 6
        teacher.wait_for_timeout(1500)  # smooth scrolling to the verdict
        teacher.screenshot(path=str(SHOTS / "teaching-room-reveal.png"))
        late = new_page()
        late.goto(f"{server.url}/voila/render/06_class_poll.ipynb?join={code}", wait_until="commit", timeout=180_000)
        _wait_text(late, "is closed", 180_000)
        assert not js_errors, js_errors
    finally:
        for ctx in contexts:
            ctx.close()
