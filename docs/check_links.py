"""Internal link check of the built site: every local ``href``/``src`` resolves to a file, and every
``#anchor`` to an ``id`` in that file. External links (http, https, mailto) are not fetched.

Also: no page shows raw template text (``{{ version }}``: a substitution MyST did not apply, e.g. inside
inline code).

And, where Playwright and Chromium (``/usr/bin/chromium``) are installed (the test extra), no static plot of the
notebook gallery is wider than its text column at 1280 × 900 (they were cut off, issue 45); without them that
check is skipped with a line saying so, or fails under ``DPEXPLORE_REQUIRE_BROWSER=1`` (CI).

Usage: ``python docs/check_links.py docs/_build/html`` (exit status 1 and a list when something is broken).
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

RAW_TEMPLATE = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_.]*\s*\}\}")


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.raw: list[str] = []  # raw template text shown on the page
        self._skip = 0  # inside <script>/<style>

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.raw += RAW_TEMPLATE.findall(data)

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "a" and key == "src"):
                self.links.append(a[key])


def check(site: Path) -> list[str]:
    # (_static/ holds the theme's own template fragments, not pages)
    pages = {p: _Collect() for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts}
    for p, c in pages.items():
        c.feed(p.read_text(errors="replace"))
    broken = [f"{p.relative_to(site)}: raw template text {t!r}" for p, c in pages.items() for t in c.raw]
    for page, c in pages.items():
        for link in c.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "data:", "javascript:")) or re.match(r"^[a-z]+:", link):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link} (no file {target})")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no id {parts.fragment!r})")
    return broken


PLOT_WIDTH_JS = """() => [...document.querySelectorAll('.plotly-graph-div')].map(d => {
    const svg = d.querySelector('.main-svg');
    const col = d.closest('article') || d.closest('main') || document.body;
    return [svg ? svg.getBoundingClientRect().right : 0, col.getBoundingClientRect().right];
})"""


def clipped_plots(site: Path, width: int = 1280) -> list[str] | None:
    """Gallery plots wider than their text column in Chromium, or None where no browser is available."""
    import os

    chromium = Path("/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None or not chromium.exists():
        if os.environ.get("DPEXPLORE_REQUIRE_BROWSER") == "1":
            return ["plot check: Playwright and /usr/bin/chromium are required (DPEXPLORE_REQUIRE_BROWSER=1)"]
        return None
    bad = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            for html in sorted((site / "gallery").glob("*.html")):
                page.goto(html.as_uri(), wait_until="load")
                page.wait_for_timeout(300)
                for i, (right, column) in enumerate(page.evaluate(PLOT_WIDTH_JS)):
                    if right > column + 1:
                        bad.append(f"{html.relative_to(site)}: plot {i + 1} ends at {right:.0f} px, "
                                   f"its column at {column:.0f} px ({width} px wide window)")
        finally:
            browser.close()
    return bad


if __name__ == "__main__":
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html").resolve()
    if not (site / "index.html").is_file():
        sys.exit(f"{site}/index.html not found: build the docs first")
    problems = check(site)
    for line in problems:
        print(line)
    n = sum(1 for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)
    print(f"internal links: {n} pages checked, {len(problems)} broken")
    clipped = clipped_plots(site)
    if clipped is None:
        print("plots: not checked (no Playwright or no /usr/bin/chromium; pip install -e '.[test]')")
    else:
        for line in clipped:
            print(line)
        print(f"plots: {len(clipped)} wider than their column")
    sys.exit(1 if problems or clipped else 0)
