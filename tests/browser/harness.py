"""Render notebooks in Voila and drive them in headless Chromium (Playwright + Debian's chromium).

Self-contained (a user's clone has nothing else): a :class:`VoilaServer` serves ``notebooks/`` in
tree mode on a free loopback port; :func:`check_page` opens one notebook, waits until Voila has run
it and every widget and plotly figure is drawn, optionally moves the first slider and waits for a
plot to change, and reports what went wrong — cell errors, tracebacks, widget render failures,
the dashboard's own error box, uncaught JavaScript errors, and ``error`` messages that the kernel
sends over the websocket (how an exception inside a widget callback arrives; Voila shows none).

Parallel runs (pytest-xdist; the README's test command runs ``-n auto``, see pyproject's addopts) — how a new
browser test module (e.g. ``tests/browser/test_course_<name>.py``) gets its own server, per worker:

* define a module-scoped ``server`` fixture that yields ``VoilaServer(ROOT / "notebooks", cwd=ROOT, env=...)``
  (copy ``tests/browser/test_intro.py``'s): :class:`VoilaServer` picks a free loopback port itself and retries
  on another one if the port was taken meanwhile, and its log is a fresh temporary file, so two workers never
  share a port or a file. Put writable state (``DPEXPLORE_POLL_DIR``, caches) in ``tmp_path_factory.mktemp(...)``:
  pytest-xdist gives every worker its own base folder. Never a fixed port, never a file inside the clone.
* take the ``browser`` fixture (tests/browser/conftest.py: one headless Chromium per module, started after your
  ``server``) and open pages with :func:`check_page`.
* nothing else: tests/conftest.py marks every test that uses a module-scoped fixture with
  ``xdist_group(<its file>)``, so the whole module runs on ONE worker (one Voila server, one Chromium), and
  hands browser/server modules out before the unit tests so that no long module starts last; a browser module
  of 2 x 4 tests or more is cut into consecutive chunks, one per worker, each with its own ``server`` and
  ``browser`` (tests/xdist_units.py). So tests of a module must not depend on each other's side effects; if
  some do, mark the module ``pytestmark = [..., pytest.mark.xdist_group("<its file>")]`` to keep it whole.
* one server per module, not one for the whole run: a page's kernel lives on for ``disconnect_timeout`` (180 s,
  voila.json) after its tab closes, under a cap of ``max_kernels`` (40), so a server shared by several modules'
  renders could reach the cap on a fast machine.
"""

from __future__ import annotations

import dataclasses
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = os.environ.get("DPEXPLORE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]

JS_RENDERED = """() => { const el = document.getElementById('rendered_cells');
  return !!el && el.style.display !== 'none' && !document.getElementById('loading'); }"""

JS_PROGRESS = """() => {
  let want = 0;
  for (const s of document.querySelectorAll('script[type="application/vnd.voila.cell-output+json"]')) {
    try { const d = JSON.parse(s.textContent).data || {};
      if ('application/vnd.jupyter.widget-view+json' in d) want++; } catch (e) {}
  }
  const r = document.getElementById('rendered_cells') || document.body;
  const roots = Array.from(r.querySelectorAll('.jupyter-widgets'))
      .filter(e => !(e.parentElement && e.parentElement.closest('.jupyter-widgets'))).length;
  const plots = Array.from(r.querySelectorAll('.js-plotly-plot'));
  const sig = Array.from(r.querySelectorAll('.jupyter-widgets, .js-plotly-plot, svg.main-svg'))
      .map(e => { const b = e.getBoundingClientRect(); return Math.round(b.width) + 'x' + Math.round(b.height); })
      .join('|') + '|' + r.innerText.length;
  // panels still computing (the dashboards' background worker dims them with .dpx-stale)
  const stale = r.querySelectorAll('.dpx-stale').length;
  return {want, roots, plots: plots.length, drawn: plots.filter(p => p.querySelector('.main-svg')).length, sig, stale};
}"""

JS_PLOT_SIG = """() => {
  const parts = [];
  for (const p of document.querySelectorAll('.js-plotly-plot path')) parts.push(p.getAttribute('d') || '');
  for (const t of document.querySelectorAll('.js-plotly-plot text')) parts.push(t.textContent || '');
  return parts.join('\\u0001');
}"""

JS_ERRORS = """() => {
  const r = document.getElementById('rendered_cells') || document.body;
  const errors = [];
  const txt = (el) => (el.innerText || '').trim().slice(0, 1500);
  for (const el of r.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')) {
    const t = txt(el); if (t) errors.push('stderr/cell error: ' + t); }
  for (const el of r.querySelectorAll('.jp-OutputArea-output')) {
    const t = txt(el);
    if (/Error displaying widget|There was an error when executing cell/.test(t)) errors.push('cell output: ' + t); }
  const broken = r.querySelectorAll('.jupyter-widgets-error-widget');
  if (broken.length) errors.push(broken.length + ' widget(s) failed to render');
  if (r.querySelector('.jupyter-widgets-disconnected')) errors.push('a widget is disconnected from its kernel');
  for (const el of r.querySelectorAll('.dpx-error')) errors.push('dashboard error box: ' + txt(el));
  const all = r.innerText || '';
  if (/Traceback \\(most recent call last\\)/.test(all)) errors.push('traceback text on the page');
  return errors;
}"""

#: for every drawn plotly figure: its boxes (legend, annotations), how many plotted points each contains and whether a
#: note runs past the figure (issue 38; checked in tests/browser/test_dashboards.py's first-screen test).
#: "A plotted point" is read from what plotly drew (``gd.calcdata`` through the drawn axes' ``c2p``): every marker or
#: line vertex of a visible scatter trace and points along its segments every 3 px, the top of every bar, and a
#: heatmap's whole extent (every 5 px); shaded bands (``fill="toself"``, no line) are areas, not points; only what
#: lies inside a subplot's area counts. The boxes are the DOM rectangles of ``.legend`` and of each annotation's
#: text box (subplot titles included). Computed independently of the kit's placement code (ui/plotpanel.py).
JS_OVERLAPS = """() => {
  const out = [];
  const inside = (p, b) => p[0] >= b.left && p[0] <= b.right && p[1] >= b.top && p[1] <= b.bottom;
  document.querySelectorAll('.js-plotly-plot').forEach((gd, k) => {
    const fl = gd._fullLayout, svg = gd.querySelector('.main-svg');
    if (!fl || !svg || !gd.calcdata) return;
    const s = svg.getBoundingClientRect();
    if (s.width < 2 || s.height < 2) return;  // not shown (a closed section)
    const title = ((fl.title && fl.title.text) || ('figure ' + k)).replace(/<[^>]*>/g, '').slice(0, 60);
    const pts = [];
    for (const trc of gd.calcdata) {
      const t = trc && trc[0] && trc[0].trace;
      if (!t || t.visible !== true || !['scatter', 'bar', 'histogram', 'heatmap'].includes(t.type)) continue;
      const xa = fl[(t.xaxis || 'x').replace(/^x/, 'xaxis')], ya = fl[(t.yaxis || 'y').replace(/^y/, 'yaxis')];
      if (!xa || !ya) continue;
      const inArea = (x, y) => x >= xa._offset - 0.5 && x <= xa._offset + xa._length + 0.5
          && y >= ya._offset - 0.5 && y <= ya._offset + ya._length + 0.5;
      const add = (x, y) => { if (isFinite(x) && isFinite(y) && inArea(x, y)) pts.push([s.left + x, s.top + y]); };
      if (t.type === 'heatmap') {  // an image of cells: its whole extent (the cells' edges), every 5 px
        const c = trc[0];
        const ext = (a, ax) => (a && a.length ? [Math.min(...a), Math.max(...a)].map(v => ax._offset + ax.c2p(v))
                                              : [ax._offset, ax._offset + ax._length]).sort((u, v) => u - v);
        const [x0, x1] = ext(c.x, xa), [y0, y1] = ext(c.y, ya);
        for (let x = x0; x <= x1; x += 5) for (let y = y0; y <= y1; y += 5) add(x, y);
        continue;
      }
      if (t.type !== 'scatter') {
        const h = t.orientation === 'h';
        for (const d of trc) {
          const top = d.s1 !== undefined ? d.s1 : d.s;
          if (h) add(xa._offset + xa.c2p(top), ya._offset + ya.c2p(d.p));
          else add(xa._offset + xa.c2p(d.p), ya._offset + ya.c2p(top));
        }
        continue;
      }
      const mode = t.mode || '';
      const lineW = t.line ? t.line.width : 0;
      const lines = mode.includes('lines') && lineW > 0;
      const marks = mode.includes('markers') || mode.includes('text');
      if (!lines && !marks) continue;
      let prev = null;
      for (const d of trc) {
        const x = xa._offset + xa.c2p(d.x), y = ya._offset + ya.c2p(d.y);
        if (!isFinite(x) || !isFinite(y)) { prev = null; continue; }
        add(x, y);
        if (lines && prev) {
          const n = Math.min(2000, Math.floor(Math.hypot(x - prev[0], y - prev[1]) / 3));
          for (let i = 1; i < n; i++) add(prev[0] + (x - prev[0]) * i / n, prev[1] + (y - prev[1]) * i / n);
        }
        prev = [x, y];
      }
    }
    const boxes = [];
    const lg = gd.querySelector('.legend');
    if (lg) boxes.push(['legend', lg]);
    gd.querySelectorAll('.annotation').forEach((a) => {
      const tg = a.querySelector('.annotation-text-g') || a;
      boxes.push(['note "' + (a.textContent || '').slice(0, 50) + '"', tg]);
    });
    for (const [what, el] of boxes) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const b = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
      const hits = pts.filter((p) => inside(p, b));
      const past = what !== 'legend' && (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1
                                         || r.bottom > s.bottom + 1);
      out.push({figure: title, what, hits: hits.length, first: hits[0] || null, past,
                box: [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)],
                svg: [Math.round(s.left), Math.round(s.top), Math.round(s.right), Math.round(s.bottom)],
                points: pts.length});
    }
    if (!pts.length) out.push({figure: title, what: '(no points)', hits: 0, past: false, points: 0});
  });
  return out;
}"""

SLIDER = ".widget-slider .noUi-handle, .widget-hslider .noUi-handle"


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def require_browser(*, nginx: bool = False) -> None:
    """Skip (or, under ``DPEXPLORE_REQUIRE_BROWSER=1`` as in ``.ci/run``, fail) without Chromium and
    playwright — and, with ``nginx=True``, without an nginx."""
    import pytest

    missing = []
    if not chromium_available():
        missing.append("no Chromium at /usr/bin/chromium (apt-get install chromium; or set DPEXPLORE_CHROMIUM)")
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing.append("playwright is not installed (pip install -e '.[test]')")
    if nginx and NGINX is None:
        missing.append("no nginx (apt-get install nginx-light)")
    if not missing:
        return
    reason = "; ".join(missing)
    if os.environ.get("DPEXPLORE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (DPEXPLORE_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


#: under pytest-xdist, worker gwK takes its servers' ports from [PORT_BASE + 1000 K, PORT_BASE + 1000 (K + 1)) (K mod
#: PORT_BLOCKS): below Linux's ephemeral range (32768-60999), so no worker's port is ever another worker's free
#: pick, nor a client socket's local port
PORT_BASE, PORT_BLOCKS = 20000, 12


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (in this xdist worker's own block of ports when run in parallel)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and worker[2:].isdigit():
        lo = PORT_BASE + 1000 * (int(worker[2:]) % PORT_BLOCKS)
        rnd = random.Random()
        for _ in range(200):
            port = rnd.randrange(lo, lo + 1000)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(proc: subprocess.Popen, port: int, *, timeout: float, what: str, log=lambda: "") -> None:
    """Return once 127.0.0.1:``port`` accepts connections; raise if ``proc`` exits or ``timeout`` passes."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {log()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not open its port within {timeout:.0f} s")


class VoilaServer:
    """Voila on ``root`` (tree mode) at 127.0.0.1:<free port>; a context manager."""

    def __init__(self, root: Path, cwd: Path, extra_args: list[str] | None = None, env: dict | None = None):
        self.root, self.cwd = Path(root), Path(cwd)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.extra_args = extra_args or []
        self.env = env
        self.log_path = Path(tempfile.mkstemp(prefix="voila-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> VoilaServer:
        env = dict(os.environ if self.env is None else self.env)
        env.pop("QUERY_STRING", None)
        shared = os.environ.get("DPEXPLORE_TEST_RESULT_CACHE")  # tests/conftest.py: one cache per test run
        if shared and "DPEXPLORE_CACHE_DIR" not in env:
            env["DPEXPLORE_CACHE_DIR"] = shared
        for attempt in range(3):
            # started as dpexplore.serve starts it (dpexplore.hosting.lean: without the 15 MiB IRI grammar)
            cmd = [sys.executable, "-m", "dpexplore.hosting.lean", "voila", str(self.root), "--no-browser",
                   "--Voila.ip=127.0.0.1", f"--Voila.port={self.port}", "--Voila.port_retries=0", *self.extra_args]
            self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in __exit__
            self.proc = subprocess.Popen(cmd, cwd=self.cwd, stdout=self._log, stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)
            try:
                wait_for_port(self.proc, self.port, timeout=60, what="voila", log=self.log_path.read_text)
                return self
            except RuntimeError:
                # another process (a parallel test worker's server or client socket) took the free port between
                # free_port() and Voila's bind: start again on another one; any other failure is raised
                taken = self.proc.poll() is not None and "already in use" in self.log_path.read_text()
                if not taken or attempt == 2:
                    raise
                self._log.close()
                self.port = free_port()
                self.url = f"http://127.0.0.1:{self.port}"
        raise AssertionError("unreachable")  # pragma: no cover

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            import signal

            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text()


@dataclasses.dataclass
class PageResult:
    failures: list[str] = dataclasses.field(default_factory=list)
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    text: str = ""
    screenshot: str = ""
    plots: int = 0


#: check_page's whole-page screenshots (``screenshot=``) are taken only where ``$DPEXPLORE_SCREENSHOTS`` names a folder
#: (the tests then write them there): each one grows the viewport to the page's full height (up to 12,000 px), which
#: makes plotly lay out every figure again, and encodes a PNG of that size (about 0.65 CPU-s of Chromium per page,
#: measured on page 01). No assertion reads them; they are for a person to look at. The tests' first-screen shots
#: (one viewport each, cheap) are always written.
FULL_PAGE_SCREENSHOTS = bool(os.environ.get("DPEXPLORE_SCREENSHOTS"))


def launch_browser(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def check_page(browser, url: str, *, move_slider: bool = False, timeout: float = 300.0, settle_ms: int = 1500,
               screenshot: str | None = None, min_plots: int = 0, actions=None, pre_actions=None,
               viewport: tuple[int, int] = (1280, 900), cookies: list[dict] | None = None,
               expect_csp: bool = True) -> PageResult:
    """Open ``url`` in a ``viewport`` (width, height), wait for the dashboard to settle, optionally move a
    slider; collect failures.

    ``pre_actions(page, result)`` runs once the page settled, before the slider moves;
    ``actions(page, result)`` runs after it (for tests that type or click). ``cookies``: added to the
    browser context first (Playwright's ``add_cookies`` form), e.g. the poll's instructor cookie.
    Every page must request nothing from another origin and (``expect_csp``) carry the hardened server's
    Content-Security-Policy, which must refuse nothing the page loads (issue 39).
    """
    from playwright.sync_api import TimeoutError as PWTimeout

    res = PageResult()
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    if cookies:
        ctx.add_cookies(cookies)
    kernel_errors: list[str] = []
    js_errors: list[str] = []

    def on_frame(payload):
        data = payload if isinstance(payload, (bytes, bytearray)) else payload.encode()
        for marker in (b'"msg_type":"error"', b'"msg_type": "error"'):
            if marker in data:
                i = data.find(b'"evalue"')
                kernel_errors.append(data[i : i + 300].decode(errors="replace") if i >= 0 else "error message")

    third_party: list[str] = []  # issue 39: a page must not call any other origin (Voila's lab template did)
    csp_refusals: list[str] = []  # and the page's Content-Security-Policy must not break anything it needs

    def route_local(route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")):
            route.continue_()
        else:
            third_party.append(url[:120])
            route.abort()

    ctx.route("**/*", route_local)
    page = ctx.new_page()
    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    page.on("pageerror", lambda e: js_errors.append(str(e)))
    page.on("console", lambda m: csp_refusals.append(m.text[:200]) if m.type == "error" and (
        "Content Security Policy" in m.text) else None)
    try:
        t0 = time.perf_counter()
        resp = page.goto(url, wait_until="commit", timeout=timeout * 1000)
        if resp is None or resp.status >= 400:
            res.failures.append(f"HTTP {resp.status if resp else 'no response'} for {url}")
            return res
        csp = resp.headers.get("content-security-policy") or ""
        if expect_csp and "default-src 'self'" not in csp:
            res.failures.append(f"the page has no Content-Security-Policy limiting it to its own origin: {csp!r}")
        deadline = t0 + timeout
        while not page.evaluate(JS_RENDERED):
            if time.perf_counter() > deadline:
                res.failures.append(f"Voila did not finish executing the notebook within {timeout:.0f} s")
                return res
            page.wait_for_timeout(100)
        res.timings["executed_s"] = time.perf_counter() - t0
        last, since = None, time.perf_counter()
        while time.perf_counter() < deadline:
            prog = page.evaluate(JS_PROGRESS)
            # settled: every widget root rendered, every plot drawn, none computing, and at least the plots
            # the caller expects (0 == 0 plots also reads "all drawn": on a loaded machine the page could settle
            # before its first plot's div existed, and the count below found none)
            ready = (prog["roots"] >= prog["want"] and prog["drawn"] == prog["plots"] and not prog["stale"]
                     and prog["drawn"] >= min_plots)
            key = (prog["sig"], ready)
            now = time.perf_counter()
            if key != last:
                last, since = key, now
            elif ready and (now - since) * 1000 >= settle_ms:
                break
            page.wait_for_timeout(100)
        else:
            res.failures.append(f"widgets/plots did not settle within {timeout:.0f} s")
        res.timings["settled_s"] = since - t0
        res.plots = page.evaluate("() => document.querySelectorAll('.js-plotly-plot .main-svg').length")
        # a plot can be in the DOM yet invisible (a 0-px-high container): every plot must have a real size
        tiny = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot'))
            .map(e => e.getBoundingClientRect()).filter(r => r.height < 50 || r.width < 50)
            .map(r => Math.round(r.width) + 'x' + Math.round(r.height))""")
        if tiny:
            res.failures.append(f"{len(tiny)} plot(s) rendered with no visible size: {tiny[:5]}")
        if res.plots < min_plots:
            res.failures.append(f"expected at least {min_plots} plotly plot(s), found {res.plots}")
        if pre_actions is not None and not res.failures:
            pre_actions(page, res)
        if move_slider and not res.failures:
            handle = page.locator(SLIDER).first
            if page.locator(SLIDER).count() == 0:
                res.failures.append("no slider on the page")
            else:
                before = page.evaluate(JS_PLOT_SIG)
                handle.focus()
                t_key = time.perf_counter()
                page.keyboard.press("ArrowRight")
                try:
                    page.wait_for_function(f"(s0) => ({JS_PLOT_SIG})() !== s0", arg=before, timeout=60_000,
                                           polling=50)
                    res.timings["slider_to_plot_s"] = time.perf_counter() - t_key
                except PWTimeout:
                    res.failures.append("moving the first slider changed no plot within 60 s")
                page.wait_for_timeout(settle_ms)
        if actions is not None and not res.failures:
            actions(page, res)
        res.failures.extend(page.evaluate(JS_ERRORS))
        res.failures.extend(f"kernel error message: {e}" for e in kernel_errors)
        res.failures.extend(f"JavaScript error: {e}" for e in js_errors)
        if third_party:
            res.failures.append(f"{len(third_party)} request(s) to another origin: {third_party[:3]}")
        res.failures.extend(f"refused by the Content-Security-Policy: {m}" for m in csp_refusals[:3])
        res.text = page.evaluate("() => document.body.innerText")
        if screenshot and FULL_PAGE_SCREENSHOTS:
            # Voila's template scrolls inside the page: grow the viewport to capture everything
            height = page.evaluate("() => document.documentElement.scrollHeight + 2000")
            page.set_viewport_size({"width": viewport[0], "height": min(int(height), 12000)})
            page.wait_for_timeout(500)
            page.screenshot(path=screenshot, full_page=True)
            res.screenshot = screenshot
    finally:
        ctx.close()
    return res


def wrong_join_codes(real: str, count: int) -> list[str]:
    """``count`` well-formed join codes (the poll's alphabet and length) that are not ``real``."""
    from dpexplore.classroom.store import CODE_ALPHABET, CODE_LENGTH

    out = []
    for i in range(count + 1):
        code = "".join(CODE_ALPHABET[(7 * i + 3 * j) % len(CODE_ALPHABET)] for j in range(CODE_LENGTH))
        if code != real.upper():
            out.append(code)
    return out[:count]


def type_join_codes(page, codes: list[str], *, expect: str = "there is no poll with join code {code}") -> None:
    """Type each code in a student poll page's join box and wait until the page answers it (each answer names
    its code, so no answer is mistaken for the one before)."""
    for code in codes:
        page.locator(".dpx-poll-code-input input").fill(code)
        page.locator(".dpx-poll-join").click()
        want = expect.format(code=code)
        page.wait_for_function("w => document.querySelector('.dpx-poll-messages') && "
                               "document.querySelector('.dpx-poll-messages').innerText.includes(w)", arg=want,
                               timeout=60_000)
