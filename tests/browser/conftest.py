"""The browser every module of these tests shares: per module, after its ``server``, a
:class:`~tests.browser.harness.Browsers` (check_page's pages in one persistent context that shares compiled scripts,
and fresh incognito contexts on request)."""

from __future__ import annotations

import pytest

from .harness import Browsers


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = Browsers(p)
        yield b
        b.close()
