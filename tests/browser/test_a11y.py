"""Accessibility (WCAG 2.1 AA) of every page, checked with axe-core in headless Chromium.

Every notebook (``notebooks/*.ipynb``: pages added later are included), presentation mode, and the
class poll's class and student views are opened in Voila, left to finish computing, then checked with
axe's wcag2a/wcag2aa/wcag21a/wcag21aa rules: any violation of impact serious or critical fails. The
same pages must give every plot an accessible name (its title) and a generated text summary.

Skips without Chromium/playwright (:func:`~tests.browser.harness.require_browser`) or axe-core
(:func:`~tests.browser.axe.require_axe`), unless ``DPEXPLORE_REQUIRE_BROWSER=1`` (``.ci/run``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .axe import describe, failing, require_axe, run_axe
from .harness import VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DASHBOARDS = [p for p in NOTEBOOKS if p.name != "00_index.ipynb"]
POLL = "06_class_poll.ipynb"
pytestmark = pytest.mark.browser

# every plot: its accessible name and the text of its description (what a screen reader says)
JS_PLOT_TEXT = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(p => {
  const fig = p.closest('[role=figure]');
  const ids = fig ? (fig.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean) : [];
  const desc = ids.map(i => document.getElementById(i)).filter(Boolean).map(e => e.textContent.trim()).join(' ');
  return {name: fig ? (fig.getAttribute('aria-label') || '') : '', desc};
})"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    require_axe()
    poll_dir = tmp_path_factory.mktemp("a11y-polls")
    env = {**os.environ, "DPEXPLORE_POLL_DIR": str(poll_dir)}
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, env=env) as srv:
        srv.poll_dir = poll_dir
        yield srv


def _instructor_cookie(server) -> list[dict]:
    """The launcher's instructor link exchanged for its HttpOnly cookie (as an instructor's browser gets it)."""
    import http.client
    from urllib.parse import urlsplit

    from dpexplore.classroom.credentials import ensure_instructor_token

    token = ensure_instructor_token(server.poll_dir)
    u = urlsplit(server.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", f"/voila/render/{POLL}?instructor={token}")
    r = conn.getresponse()
    r.read()
    assert r.status == 302, r.status
    for key, value in r.getheaders():  # jupyter_server sets its own username cookie first
        name, _, rest = value.partition("=")
        if key.lower() == "set-cookie" and name == "dpx-instructor":
            return [{"name": name, "value": rest.split(";")[0], "url": server.url}]
    raise AssertionError(f"no instructor cookie in {r.getheaders()}")


def _check(browser, server, query_page: str, *, min_plots: int = 0, cookies: list[dict] | None = None) -> None:
    found: dict = {}

    def audit(page, res):
        toggles = page.locator(".dpx-data-toggle")
        for i in range(toggles.count()):  # open every data table: axe checks their markup too
            toggles.nth(i).click()
        if toggles.count():
            page.wait_for_function("(n) => document.querySelectorAll('.dpx-data table, .dpx-data-empty').length >= n",
                                   arg=toggles.count(), timeout=60_000, polling=100)
        found["violations"] = run_axe(page)
        found["plots"] = page.evaluate(JS_PLOT_TEXT)

    res = check_page(browser, f"{server.url}/voila/render/{query_page}", actions=audit, min_plots=min_plots,
                     cookies=cookies)
    assert not res.failures, (res.failures, server.log()[-3000:])
    violations = found["violations"]
    counts = {imp: sum(len(v["nodes"]) for v in violations if v["impact"] == imp)
              for imp in ("critical", "serious", "moderate", "minor")}
    named = sum(1 for p in found["plots"] if p["name"] and p["desc"])
    print(f"\nAXE {query_page}: nodes by impact {counts}; rules {sorted({v['id'] for v in violations})}; "
          f"plots with name+summary {named}/{len(found['plots'])}")
    bad = failing(violations)
    assert not bad, f"{query_page}: axe found serious/critical violations:\n{describe(bad)}"
    missing = [p for p in found["plots"] if not (p["name"] and p["desc"])]
    assert not missing, f"{query_page}: {len(missing)} of {len(found['plots'])} plot(s) lack a name or summary"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_page_has_no_serious_axe_violation(path, server, browser):
    _check(browser, server, path.name, min_plots=1 if path in DASHBOARDS and path.name != POLL else 0)


PRESENTED = [p for p in DASHBOARDS if p.name != POLL]  # the poll's pages have no presentation mode


@pytest.mark.parametrize("path", PRESENTED, ids=[p.stem for p in PRESENTED])
def test_presentation_mode_has_no_serious_axe_violation(path, server, browser):
    _check(browser, server, f"{path.name}?present=1", min_plots=1)


@pytest.mark.skipif(not (ROOT / "notebooks" / POLL).exists(), reason="no class poll notebook")
@pytest.mark.parametrize("view", ["class", "student"])
def test_poll_views_have_no_serious_axe_violation(view, server, browser):
    from dpexplore.classroom.store import PollStore

    # the class view is its creator's: the launcher's instructor (cookie from the instructor link)
    created = PollStore(server.poll_dir).create_poll("Have you ever skipped a lecture?", epsilon=1.0,
                                                     creator="launcher")
    if view == "class":
        _check(browser, server, f"{POLL}?poll={created.code}", cookies=_instructor_cookie(server))
    else:
        _check(browser, server, f"{POLL}?join={created.code}")
