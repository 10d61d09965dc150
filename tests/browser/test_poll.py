"""The live class poll end to end in one Voila server (the repository's voila.json: the hardening and the
instructor credential): one instructor and 8 students, each a separate browser context.

* the instructor opens the launcher's instructor link: the server answers with a cookie and a redirect
  to ``?teach=1`` (the token leaves the address bar); creates a poll with ε from the list; the class
  view shows the join code, a QR code, the short link with the network address and a copy button
  that copies a link *with* the code;
* 6 students open the students' link, 2 the bare page and type the code (the landing page is theirs);
  each answers; after Send every input is disabled and the page says it is done, with no status line,
  no plot footer and no guide; the class view updates without a reload;
* a visitor without the cookie gets a student page for ``?teach=1`` and ``?poll=CODE``; the instructor
  re-opens the class view with ``?poll=CODE``; a bad join code gets a message;
* the database holds only randomized bits, one per student.

Light on a 2-core machine: students' pages are opened in small batches, answers are sent one at a
time (so each submit-to-class-view latency is measured on its own). Prints the median latency.
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
STUDENTS = 8
TYPED = 2  # of them open the bare page and type the code
BATCH = 4
PAGE = "06_class_poll.ipynb"
PUBLIC = "http://192.0.2.10:8866"  # what the launcher puts in $DPEXPLORE_PUBLIC_URL for --host 0.0.0.0
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
    from dpexplore.classroom.credentials import ensure_instructor_token

    poll_dir = tmp_path_factory.mktemp("polls")
    token = ensure_instructor_token(poll_dir)
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir), "DPEXPLORE_PUBLIC_URL": PUBLIC}
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        srv.poll_dir, srv.token = poll_dir, token
        yield srv


def _new_page(browser, contexts, js_errors, **ctx_kw):
    ctx = browser.new_context(**ctx_kw)
    contexts.append(ctx)
    _route_loopback(ctx)
    page = ctx.new_page()
    page.on("pageerror", lambda e: js_errors.append(str(e)))
    return page


def test_class_poll_end_to_end(poll_server, tmp_path):
    from playwright.sync_api import sync_playwright

    srv = poll_server
    url = f"{srv.url}/voila/render/{PAGE}"
    js_errors: list[str] = []
    truths = ["Yes" if i % 5 in (0, 1) else "No" for i in range(STUDENTS)]
    with sync_playwright() as p:
        browser = launch_browser(p)
        contexts = []
        try:
            # -- the instructor link: a cookie and a clean URL; then the poll is created -----------
            teacher = _new_page(browser, contexts, js_errors, viewport={"width": 1280, "height": 2400})
            teacher.goto(f"{url}?instructor={srv.token}", wait_until="commit", timeout=180_000)
            _wait_rendered(teacher)
            assert teacher.url.endswith(f"{PAGE}?teach=1") and srv.token not in teacher.url
            cookie = [c for c in teacher.context.cookies() if c["name"] == "dpx-instructor"]
            assert cookie and cookie[0]["httpOnly"] and cookie[0]["sameSite"] == "Strict"
            assert srv.token not in cookie[0]["value"]
            assert "dpx-instructor" not in teacher.evaluate("() => document.cookie")  # HttpOnly
            teacher.locator(".dpx-poll-question textarea").fill("Have you ever copied someone's homework?")
            teacher.locator(".dpx-ctl-epsilon select").select_option(label="ln 3 ≈ 1.10 (25%: odds 3 to 1)")
            teacher.locator(".dpx-poll-create").click()
            teacher.locator(".dpx-poll-code").wait_for(timeout=60_000)
            code = teacher.locator(".dpx-poll-code").inner_text().strip()
            assert re.fullmatch(r"[A-Z2-9]{6}", code), code
            assert "ε = ln 3" in teacher.locator("body").inner_text()
            href = teacher.locator(".dpx-poll-join-link").get_attribute("href")
            assert href == f"{PAGE}?join={code}"
            short = teacher.locator(".dpx-poll-short-link").inner_text()
            assert short == f"{PUBLIC}/voila/render/{PAGE}?join={code}"
            assert teacher.locator(".dpx-poll-qr svg").count() == 1
            teacher.locator(".dpx-poll-copy").click()
            teacher.wait_for_function("() => /\\?join=/.test(document.querySelector('.dpx-poll-copy-status')"
                                      ".textContent)", timeout=10_000)
            assert f"?join={code}" in teacher.locator(".dpx-poll-copy-status").inner_text()
            assert "Project this box" in teacher.locator("body").inner_text()
            teacher.wait_for_function("() => /Responses: 0/.test(document.body.innerText)", timeout=60_000)
            teacher.wait_for_timeout(1500)  # let the first draw of the plots settle
            plots_before = teacher.evaluate(JS_PLOT_SIG)

            # -- students: most by the link, some by typing the code on the bare page -----------
            students = []
            t_open = time.perf_counter()
            for start in range(0, STUDENTS, BATCH):
                batch = []
                for i in range(start, min(start + BATCH, STUDENTS)):
                    page = _new_page(browser, contexts, js_errors, viewport={"width": 1024, "height": 768})
                    page.goto(f"{srv.url}/voila/render/{href if i >= TYPED else PAGE}", wait_until="commit",
                              timeout=180_000)
                    batch.append((i, page))
                for i, page in batch:
                    _wait_rendered(page)
                    if i < TYPED:  # the landing page is the student's: a field for the projected code
                        assert page.locator(".dpx-poll-create").count() == 0
                        page.locator(".dpx-poll-code-input input").fill(code.lower())
                        page.locator(".dpx-poll-join").click()
                    page.locator(".dpx-poll-flip").wait_for(timeout=120_000)
                    students.append(page)
            open_s = time.perf_counter() - t_open

            # -- each student answers; the class view must update by itself ----------------------
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

            # -- after Send: done, nothing active, no status line, no plot footer, no guide -------
            done = students[0]
            done.wait_for_function("() => document.querySelector('.dpx-poll-flip').disabled", timeout=30_000)
            assert done.locator(".dpx-poll-send").is_disabled()
            assert all(b.is_disabled() for b in done.locator(".dpx-poll-answer button").all())
            text = done.locator("body").inner_text()
            assert "Done" in text and "you can close this page" in text
            assert "Updated in" not in text and "Reading the plots" not in text and "Guide" not in text
            assert "not cryptographically secure" in text
            assert done.locator(".jp-MarkdownCell").count() >= 1
            assert all(not m.is_visible() for m in done.locator(".jp-MarkdownCell").all())
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
            assert "not cryptographically secure" in body and "Traceback" not in body

            # -- without the cookie: a student page; with it: the class view again ---------------
            anon = _new_page(browser, contexts, js_errors)
            for qs in ("teach=1", f"poll={code}"):
                anon.goto(f"{url}?{qs}", wait_until="commit", timeout=180_000)
                _wait_rendered(anon)
                anon.locator(".dpx-poll-code-input").wait_for(timeout=60_000)
                assert anon.locator(".dpx-poll-create").count() == 0 and anon.locator(".dpx-poll-tally").count() == 0
                assert "instructor link" in anon.locator(".dpx-poll-messages").inner_text()
            anon.goto(f"{url}?join=%3Cscript%3Ealert(1)%3C%2Fscript%3E", wait_until="commit", timeout=180_000)
            _wait_rendered(anon)
            anon.locator(".dpx-error").wait_for(timeout=60_000)
            assert "join code must be 6 characters" in anon.locator(".dpx-error").inner_text()
            assert anon.locator("script:text('alert(1)')").count() == 0
            back = teacher.context.new_page()
            back.goto(f"{url}?poll={code}", wait_until="commit", timeout=180_000)
            _wait_rendered(back)
            back.wait_for_function(f"() => /Responses: {STUDENTS}\\b/.test(document.body.innerText)", timeout=60_000)
        finally:
            for ctx in contexts:
                ctx.close()
            browser.close()
    assert not js_errors, js_errors
    assert srv.token not in srv.log()  # the exchange's access-log line shows instructor=<redacted>

    # -- the database holds only randomized bits (and tokens, times), in the order they were sent ------
    con = sqlite3.connect(srv.poll_dir / "polls.sqlite3")
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        cols = [r[1] for r in con.execute("PRAGMA table_info(responses)")]
        assert cols == ["id", "code", "token", "randomized_bit", "received_at", "voter"]
        # no hub here: no voter stored (the page-view rule)
        assert con.execute("SELECT count(*) FROM responses WHERE voter IS NOT NULL").fetchone()[0] == 0
        bits = [b for (b,) in con.execute("SELECT randomized_bit FROM responses WHERE code = ? ORDER BY id", (code,))]
        tokens = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
        creator = con.execute("SELECT creator FROM polls WHERE code = ?", (code,)).fetchone()[0]
    finally:
        con.close()
    assert bits == [1 if r == "Yes" else 0 for r in reports]  # what each page showed as sent, not the truth
    assert tokens == STUDENTS and creator == "launcher"
    print(f"\n{STUDENTS} students: pages opened in {open_s:.1f} s; submit -> class view update: median "
          f"{statistics.median(latencies):.2f} s, min {min(latencies):.2f} s, max {max(latencies):.2f} s; "
          f"{sum(r != t for r, t in zip(reports, truths))} of {STUDENTS} answers flipped by the coin")


def test_a_k_choice_round(poll_server):
    """Issue 44: the instructor creates a 4-choice question answered with OUE; two students pick a choice,
    randomize it in their own kernel and send only the report; the class view shows the raw counts and the
    estimates by itself; the database holds one OUE report (an integer < 16) per student."""
    from playwright.sync_api import sync_playwright

    srv = poll_server
    url = f"{srv.url}/voila/render/{PAGE}"
    js_errors: list[str] = []
    with sync_playwright() as p:
        browser = launch_browser(p)
        contexts = []
        try:
            teacher = _new_page(browser, contexts, js_errors, viewport={"width": 1280, "height": 2400})
            teacher.goto(f"{url}?instructor={srv.token}", wait_until="commit", timeout=180_000)
            _wait_rendered(teacher)
            teacher.locator(".dpx-poll-question textarea").fill("How did you get here today?")
            teacher.locator(".dpx-poll-labels textarea").fill("walk\nbike\nbus\ncar")
            teacher.locator(".dpx-poll-oracle select").select_option(
                label="OUE: report one bit per choice (optimized unary encoding)")
            teacher.locator(".dpx-poll-create").click()
            teacher.locator(".dpx-poll-code").wait_for(timeout=60_000)
            code = teacher.locator(".dpx-poll-code").inner_text().strip()
            teacher.wait_for_function("() => /Responses: 0/.test(document.body.innerText)", timeout=60_000)
            sent = []
            for i, choice in enumerate(("bus", "walk")):
                page = _new_page(browser, contexts, js_errors, viewport={"width": 1024, "height": 768})
                page.goto(f"{url}?join={code}", wait_until="commit", timeout=180_000)
                _wait_rendered(page)
                page.locator(".dpx-poll-kary-flip").wait_for(timeout=120_000)
                assert "OUE" in page.locator(".dpx-poll-deniability").inner_text()
                page.locator(".dpx-poll-kary-answer label", has_text=choice).click()
                page.locator(".dpx-poll-kary-flip").click()
                page.locator(".dpx-poll-report").wait_for(timeout=30_000)
                sent.append(page.locator(".dpx-poll-report").inner_text().strip())
                page.locator(".dpx-poll-kary-send:not([disabled])").wait_for(timeout=30_000)
                page.locator(".dpx-poll-kary-send").click()
                page.locator(".dpx-poll-done").wait_for(timeout=30_000)
                teacher.wait_for_function(f"() => /Responses: {i + 1}\\b/.test(document.body.innerText)",
                                          timeout=60_000, polling=100)
            table = teacher.locator(".dpx-poll-kary").inner_text()
            assert "debiased estimate" in table and "standard error" in table and "bus" in table
            body = teacher.evaluate("() => document.body.innerText")
            assert "Traceback" not in body
        finally:
            for ctx in contexts:
                ctx.close()
            browser.close()
    assert not js_errors, js_errors
    con = sqlite3.connect(srv.poll_dir / "polls.sqlite3")
    try:
        stored = [r for (r,) in con.execute("SELECT report FROM kary_responses WHERE code = ? ORDER BY id", (code,))]
    finally:
        con.close()
    assert stored == [sum(int(b) << j for j, b in enumerate(bits)) for bits in sent]


def test_preheated_kernels_get_the_instructor_grant_and_the_client_address(tmp_path):
    """Under ``--preheat`` the request's variables reach a pooled kernel later, over Voila's request-info
    socket: the instructor page and the student page both come from the pool, each with what it needs."""
    require_browser()
    from playwright.sync_api import sync_playwright

    from dpexplore.classroom.credentials import ensure_instructor_token
    from dpexplore.serve import merge_options, preheat_options

    token = ensure_instructor_token(tmp_path)
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(tmp_path)}
    extra = merge_options(preheat_options(ROOT / "notebooks", 1, [PAGE]), ["--LimitedKernelManager.pool_fill_quiet=5"])
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, extra_args=extra, env=env) as srv, sync_playwright() as p:
        deadline = time.time() + 180
        while "is filled with 1 kernel(s)" not in srv.log():
            assert time.time() < deadline, srv.log()[-3000:]
            time.sleep(0.5)
        browser = launch_browser(p)
        contexts, js_errors = [], []
        try:
            teacher = _new_page(browser, contexts, js_errors)
            teacher.goto(f"{srv.url}/voila/render/{PAGE}?instructor={token}", wait_until="commit", timeout=180_000)
            _wait_rendered(teacher)
            teacher.locator(".dpx-poll-question textarea").fill("Pooled?")
            teacher.locator(".dpx-poll-create").click()
            teacher.locator(".dpx-poll-code").wait_for(timeout=60_000)
            code = teacher.locator(".dpx-poll-code").inner_text().strip()
            deadline = time.time() + 180
            while srv.log().count("is filled with 1 kernel(s)") < 2:  # refilled after the instructor took one
                assert time.time() < deadline, srv.log()[-3000:]
                time.sleep(0.5)
            student = _new_page(browser, contexts, js_errors)
            student.goto(f"{srv.url}/voila/render/{PAGE}?join={code}", wait_until="commit", timeout=180_000)
            _wait_rendered(student)
            student.locator(".dpx-poll-flip").wait_for(timeout=120_000)
        finally:
            for ctx in contexts:
                ctx.close()
            browser.close()
        assert len(re.findall(r"Using pre-heated kernel", srv.log())) >= 2, srv.log()[-3000:]
    assert not js_errors, js_errors
    con = sqlite3.connect(tmp_path / "polls.sqlite3")
    try:
        assert con.execute("SELECT creator FROM polls WHERE code = ?", (code,)).fetchone() == ("launcher",)
        assert con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone() == (1,)
    finally:
        con.close()


#: where the poll's class view puts what the projector must show: the counts (the tally box) and the estimate plot
#: (the first panel, "The class so far", with its x axis), in the viewport's coordinates at scroll 0
JS_PRESENT_SCREEN = """() => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: r.height}; };
  const plot = document.querySelector('.js-plotly-plot');
  return {tally: box(document.querySelector('.dpx-poll-tally')), plot: box(plot),
          xaxis: box(plot && plot.querySelector('.xaxislayer-above')),
          title: plot && plot._fullLayout && plot._fullLayout.title ? plot._fullLayout.title.text : '',
          tickpx: plot ? Math.min(...Array.from(plot.querySelectorAll('.xtick text, .ytick text'))
                                   .map(t => parseFloat(getComputedStyle(t).fontSize))) : 0,
          guide: Array.from(document.querySelectorAll('.jp-MarkdownCell')).some(m => m.offsetParent !== null),
          hscroll: document.documentElement.scrollWidth - window.innerWidth};
}"""


def test_present_view_shows_the_estimate_and_the_counts_on_one_projector_screen(poll_server):
    """Issue 38: the instructor's class view in presentation mode (``?poll=CODE&present=1``) at 1024×768 shows
    the room's counts and the estimate plot (to its x axis) on the first screen, in projector-size text, with no
    legend or note over its points."""
    import math

    from playwright.sync_api import sync_playwright

    from dpexplore.classroom.credentials import make_cookie
    from dpexplore.classroom.store import PollStore
    from dpexplore.hosting.instructor import COOKIE

    from .harness import JS_OVERLAPS, check_page

    W, H = 1024, 768
    srv = poll_server
    store = PollStore(srv.poll_dir)
    poll = store.create_poll("Have you ever copied someone's homework?", epsilon=math.log(3), creator="launcher")
    bits = [1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1]  # twelve students' randomized bits, straight into the store
    for b in bits:
        store.submit(poll.code, store.issue_token(poll.code), b)
    seen = {}

    def look(page, res):
        page.wait_for_function(f"() => /Responses: {len(bits)}\\b/.test(document.body.innerText)", timeout=60_000,
                               polling=200)
        page.wait_for_function("() => !document.querySelector('.dpx-stale')", timeout=120_000, polling=200)
        page.wait_for_timeout(1500)  # the first plot's fit to the screen
        seen.update(page.evaluate(JS_PRESENT_SCREEN))
        seen["covering"] = [b for b in page.evaluate(JS_OVERLAPS) if b["hits"] or b["past"]]
        seen["tally_text"] = page.locator(".dpx-poll-tally").first.inner_text()
        seen["pressed"] = page.locator(".dpx-present-toggle").first.evaluate(
            "e => e.classList.contains('mod-active') || e.getAttribute('aria-pressed') === 'true'")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "06_class_poll-present-1024x768.png"))

    with sync_playwright() as p:
        browser = launch_browser(p)
        try:
            res = check_page(browser, f"{srv.url}/voila/render/{PAGE}?poll={poll.code}&present=1", min_plots=1,
                             viewport=(W, H), pre_actions=look,
                             cookies=[{"name": COOKIE, "value": make_cookie(srv.token), "url": srv.url}])
        finally:
            browser.close()
    assert not res.failures, (res.failures, srv.log()[-3000:])
    assert f"raw 'yes' reports: {sum(bits)}/{len(bits)}" in seen["tally_text"], seen["tally_text"]
    assert seen["pressed"], "the Present toggle is not on for ?present=1"
    assert not seen["guide"], "presentation mode still shows the notebook's text"
    assert not seen["covering"], f"a legend or note covers plotted points (or runs past its figure): {seen['covering']}"
    assert seen["hscroll"] <= 1, f"the page scrolls sideways by {seen['hscroll']} px"
    assert seen["tickpx"] >= 16, f"plot text at {seen['tickpx']} px: too small for a projector"
    for what in ("tally", "plot", "xaxis"):
        b = seen[what]
        assert b is not None and b["h"] > 0, f"{what}: not on the page"
        assert b["top"] >= -1 and b["bottom"] <= H + 1 and b["left"] >= -1 and b["right"] <= W + 1, (
            f"the {what} is not on the first {W}x{H} screen: {b}")


def test_page_10_attacks_the_class_poll_answers(poll_server):
    """Issue 40: the poll's instructor opens page 10 (Why DP) with ``?poll=CODE``: panel 3's secret column is the
    class poll's stored answers, and the page and the panel say whose data it is; without the instructor cookie the
    page says it cannot read them and runs on fair coins."""
    from playwright.sync_api import sync_playwright

    from dpexplore.classroom.credentials import make_cookie
    from dpexplore.classroom.store import PollStore
    from dpexplore.hosting.instructor import COOKIE

    from .harness import JS_OVERLAPS, check_page

    srv = poll_server
    store = PollStore(srv.poll_dir)
    poll = store.create_poll("Have you ever copied someone's homework?", epsilon=1.0, creator="launcher")
    for b in (1, 0, 1, 1, 0, 0, 0):
        store.submit(poll.code, store.issue_token(poll.code), b)
    url = f"{srv.url}/voila/render/10_why_dp_attacks.ipynb?poll={poll.code}&n=40&m=160"
    notes: dict[str, str] = {}
    js_notes = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
        .flatMap(g => ((g.layout || {}).annotations || []).map(a => a.dpxText || a.text || '')).join(' ')"""

    covering = []

    def read_notes(who):
        def read(page, res):
            notes[who] = " ".join(page.evaluate(js_notes).replace("<br>", " ").split())
            covering.extend(b for b in page.evaluate(JS_OVERLAPS) if b["hits"] or b["past"])  # the longer note too
        return read

    with sync_playwright() as p:
        browser = launch_browser(p)
        try:
            mine = check_page(browser, url, min_plots=4, pre_actions=read_notes("mine"),
                              cookies=[{"name": COOKIE, "value": make_cookie(srv.token), "url": srv.url}],
                              screenshot=str(SHOTS / "10_why_dp_attacks-class-poll.png"))
            theirs = check_page(browser, url, min_plots=4, pre_actions=read_notes("theirs"))
        finally:
            browser.close()
    assert not mine.failures and not theirs.failures, (mine.failures, theirs.failures, srv.log()[-3000:])
    said = f"the 7 answers stored by the class poll {poll.code}"
    assert f"Panel 3 attacks the class's own data: {said}" in mine.text, mine.text[:3000]
    assert "roster of 40 fake students" in mine.text and "Panels 1, 2 and 4 use fair coins" in mine.text
    assert "Secret bits: " + said in notes["mine"], notes["mine"]  # panel 3 says whose data it is
    assert "URL parameter poll ignored: only the poll's instructor can read its answers" in theirs.text
    assert said not in theirs.text and "Secret bits: fair coins" in notes["theirs"], notes["theirs"]
    assert not covering, f"a legend or note covers plotted data: {covering}"
