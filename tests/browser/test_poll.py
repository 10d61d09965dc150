"""The live class poll end to end in one Voila server: one instructor, 20 students (separate browser
contexts), answers sent, the class view updating without a reload, a second answer refused, bad URL
input reported in the page, and the database holding only randomized bits.

Light on a 2-core machine: students' pages are opened in small batches, answers are sent one at a
time (so each submit-to-class-view latency is measured on its own), and the notebook imports no
heavy package. Prints the median submit → class-view latency.
"""

import os
import re
import sqlite3
import statistics
import time
from pathlib import Path

import pytest

from .harness import JS_PLOT_SIG, JS_RENDERED, VoilaServer, launch_browser, require_browser

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.browser
STUDENTS = 20
BATCH = 4
PAGE = "06_class_poll.ipynb"
SHOTS = Path(os.environ.get("DPEXPLORE_SCREENSHOTS", ROOT / "tests" / "browser" / "screenshots"))


def _route_loopback(ctx):
    ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")) else route.abort())


def _wait_rendered(page, timeout_s=180):
    deadline = time.time() + timeout_s
    while not page.evaluate(JS_RENDERED):
        assert time.time() < deadline, "Voila did not finish executing the notebook"
        page.wait_for_timeout(200)


def _responses_shown(page) -> int:
    text = page.locator(".dpx-poll-tally").first.inner_text()
    m = re.search(r"Responses: (\d+)", text)
    return int(m.group(1)) if m else -1


@pytest.fixture(scope="module")
def poll_server(tmp_path_factory):
    require_browser()
    poll_dir = tmp_path_factory.mktemp("polls")
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        srv.poll_dir = poll_dir
        yield srv


def test_class_poll_end_to_end(poll_server, tmp_path):
    from playwright.sync_api import sync_playwright

    srv = poll_server
    url = f"{srv.url}/voila/render/{PAGE}"
    js_errors: list[str] = []
    truths = ["Yes" if i % 5 in (0, 1) else "No" for i in range(STUDENTS)]  # 8 yes, 12 no: known truth
    with sync_playwright() as p:
        browser = launch_browser(p)
        contexts = []
        try:
            # -- the instructor creates a poll ------------------------------------------------
            ictx = browser.new_context(viewport={"width": 1280, "height": 2400})
            contexts.append(ictx)
            _route_loopback(ictx)
            teacher = ictx.new_page()
            teacher.on("pageerror", lambda e: js_errors.append(str(e)))
            teacher.goto(url, wait_until="commit", timeout=180_000)
            _wait_rendered(teacher)
            teacher.locator(".dpx-poll-question textarea").fill("Have you ever copied someone's homework?")
            teacher.locator(".dpx-poll-create").click()
            teacher.locator(".dpx-poll-code").wait_for(timeout=60_000)
            code = teacher.locator(".dpx-poll-code").inner_text().strip()
            assert re.fullmatch(r"[A-Z2-9]{6}", code), code
            href = teacher.locator(".dpx-poll-join-link").get_attribute("href")
            assert href == f"{PAGE}?join={code}"
            teacher.wait_for_function("() => /Responses: 0/.test(document.body.innerText)", timeout=60_000)
            teacher.wait_for_timeout(1500)  # let the first draw of the plots settle
            plots_before = teacher.evaluate(JS_PLOT_SIG)

            # -- 20 students open the link, in small batches ---------------------------------
            students = []
            t_open = time.perf_counter()
            for start in range(0, STUDENTS, BATCH):
                batch = []
                for _ in range(start, min(start + BATCH, STUDENTS)):
                    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
                    contexts.append(ctx)
                    _route_loopback(ctx)
                    page = ctx.new_page()
                    page.on("pageerror", lambda e: js_errors.append(str(e)))
                    page.goto(f"{srv.url}/voila/render/{href}", wait_until="commit", timeout=180_000)
                    batch.append(page)
                for page in batch:
                    _wait_rendered(page)
                    page.locator(".dpx-poll-flip").wait_for(timeout=120_000)
                students += batch
            open_s = time.perf_counter() - t_open

            # -- each student answers; the class view must update by itself --------------------
            latencies, reports = [], []
            for i, (page, truth) in enumerate(zip(students, truths)):
                assert "never sent and never stored" in page.locator(".dpx-poll-deniability").inner_text()
                page.locator(".dpx-poll-answer button", has_text=truth).click()
                page.locator(".dpx-poll-flip").click()
                page.locator(".dpx-poll-report").wait_for(timeout=30_000)
                reports.append(page.locator(".dpx-poll-report").inner_text().strip())
                page.locator(".dpx-poll-send:not([disabled])").wait_for(timeout=30_000)
                t0 = time.perf_counter()
                page.locator(".dpx-poll-send").click()
                teacher.wait_for_function(f"() => /Responses: {i + 1}\\b/.test(document.body.innerText)",
                                          timeout=60_000, polling=50)
                latencies.append(time.perf_counter() - t0)
                page.locator(".dpx-poll-done").wait_for(timeout=30_000)
                assert reports[-1] in page.locator(".dpx-poll-done").inner_text()

            # -- a second answer from the same page is refused by the database ----------------------
            again = students[0]
            again.locator(".dpx-poll-answer button", has_text="Yes").click()
            again.locator(".dpx-poll-flip").click()
            again.locator(".dpx-poll-send:not([disabled])").wait_for(timeout=30_000)
            again.locator(".dpx-poll-send").click()
            again.locator(".dpx-error").wait_for(timeout=30_000)
            assert "already answered" in again.locator(".dpx-error").inner_text()
            teacher.wait_for_timeout(2500)  # > 2 watcher intervals
            assert _responses_shown(teacher) == STUDENTS

            # -- the class view: numbers and plots changed without a reload ----------------------
            yes_reports = sum(r == "Yes" for r in reports)
            tally = teacher.locator(".dpx-poll-tally").first.inner_text()
            assert f"raw 'yes' reports: {yes_reports}/{STUDENTS}" in tally, tally
            teacher.wait_for_function(f"() => /{STUDENTS} response\\(s\\)/.test(document.body.innerText)",
                                      timeout=60_000)
            assert teacher.evaluate(JS_PLOT_SIG) != plots_before
            teacher.locator(".dpx-ctl-reveal input").check()
            teacher.wait_for_function("() => /simulated classes of/.test(document.body.innerText)", timeout=60_000)
            SHOTS.mkdir(parents=True, exist_ok=True)
            teacher.set_viewport_size({"width": 1280, "height": 4200})  # Voila scrolls inside: grow the view
            teacher.wait_for_timeout(1000)
            teacher.screenshot(path=str(SHOTS / "06_class_poll-instructor.png"), full_page=True)
            students[1].screenshot(path=str(SHOTS / "06_class_poll-student.png"), full_page=True)
            body = teacher.evaluate("() => document.body.innerText")
            assert "not cryptographically secure" in body
            assert "Traceback" not in body

            # -- hostile URLs: a message in the page, no database query with bad input -----------
            bad = browser.new_context()
            contexts.append(bad)
            _route_loopback(bad)
            bpage = bad.new_page()
            bpage.goto(f"{url}?join=%3Cscript%3Ealert(1)%3C%2Fscript%3E", wait_until="commit", timeout=180_000)
            _wait_rendered(bpage)
            bpage.locator(".dpx-error").wait_for(timeout=60_000)
            assert "join code must be 6 characters" in bpage.locator(".dpx-error").inner_text()
            assert bpage.locator("script:text('alert(1)')").count() == 0
            bpage.goto(f"{url}?poll={code}&secret={'A' * 32}", wait_until="commit", timeout=180_000)
            _wait_rendered(bpage)
            bpage.locator(".dpx-error").wait_for(timeout=60_000)
            assert "secret does not match" in bpage.locator(".dpx-error").inner_text()
            assert bpage.locator(".dpx-poll-tally").first.inner_text() == "No poll yet."
        finally:
            for ctx in contexts:
                ctx.close()
            browser.close()
    assert not js_errors, js_errors

    # -- the database holds only randomized bits (and tokens, times), in the order they were sent ------
    con = sqlite3.connect(srv.poll_dir / "polls.sqlite3")
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        cols = [r[1] for r in con.execute("PRAGMA table_info(responses)")]
        assert cols == ["id", "code", "token", "randomized_bit", "received_at"]
        bits = [b for (b,) in con.execute("SELECT randomized_bit FROM responses WHERE code = ? ORDER BY id", (code,))]
        tokens = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
    finally:
        con.close()
    assert bits == [1 if r == "Yes" else 0 for r in reports]  # what each page showed as sent, not the truth
    assert tokens == STUDENTS
    print(f"\n{STUDENTS} students: pages opened in {open_s:.1f} s; submit -> class view update: median "
          f"{statistics.median(latencies):.2f} s, min {min(latencies):.2f} s, max {max(latencies):.2f} s; "
          f"{sum(r != t for r, t in zip(reports, truths))} of {STUDENTS} answers flipped by the coin")
