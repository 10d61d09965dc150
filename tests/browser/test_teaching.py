"""Classroom features in Voila + headless Chromium: ``?mode=predict`` asks a question and reveals after the
student commits (the plot changes only then), ``?preset=name`` sets the controls, a panel's CSV link
holds the experiment result's own CSV, and the copy button puts the view's deep link and snippet on the
clipboard. Skips like tests/browser/test_dashboards.py (fails with DPEXPLORE_REQUIRE_BROWSER=1)."""

import base64
import os
from pathlib import Path

import pytest

from .harness import JS_PLOT_SIG, VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))
NB = "03_markov_trajectories.ipynb"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    with VoilaServer(ROOT / "notebooks", cwd=ROOT) as srv:
        yield srv


def test_predict_mode_asks_then_reveals(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)

    def drive(page, res):
        box = page.locator(".dpx-predict")
        assert box.is_visible(), "predict box hidden in ?mode=predict"
        text = box.inner_text()
        assert "Question 1 of 3" in text and "Double ε (3 → 6)" in text, text
        assert page.locator(".dpx-reveal").count() == 0
        before = page.evaluate(JS_PLOT_SIG)
        page.locator(".dpx-q-choices label", has_text="goes down").click()
        page.wait_for_timeout(1500)
        assert page.evaluate(JS_PLOT_SIG) == before, "the plot changed before the student committed"
        page.locator(".dpx-q-commit").click()
        page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=120_000, polling=100)
        reveal = page.locator(".dpx-reveal")
        reveal.wait_for(timeout=60_000)
        page.wait_for_function("() => /as stated|other way/.test(document.querySelector('.dpx-reveal').innerText)",
                               timeout=120_000, polling=200)
        text = reveal.inner_text()
        assert "You predicted goes down" in text and "Right." in text, text
        assert "favour states close to the true one" in text, text  # the one-line explanation
        assert "✓ as stated" in text, text
        assert float(page.locator(".dpx-ctl-epsilon .widget-readout").inner_text()) == 6

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
