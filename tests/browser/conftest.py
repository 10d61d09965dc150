"""The browser every module of these tests shares: one headless Chromium per module, after its ``server``."""

from __future__ import annotations

import pytest

from .harness import launch_browser


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_browser(p)
        yield b
        b.close()
