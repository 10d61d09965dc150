"""Preheated kernels (``python -m dpexplore.serve --preheat N``) in Voila + headless Chromium: a page
served from the pool opens on its deep link's settings (the kit applies the URL after Voila hands the
kernel over), a plain link on the defaults, the page gets its kernel's owner cookie (closing the tab
frees the kernel), and the pool refills. Skips like tests/browser/test_dashboards.py."""

import re
import time
from pathlib import Path

import pytest

from dpexplore.serve import merge_options, preheat_options
from tests.hosting.wsclient import API_COOKIES, kernel_alive

from .harness import JS_RENDERED, VoilaServer, check_page, require_browser

ROOT = Path(__file__).resolve().parents[2]
NB = "01_spectral_clustering.ipynb"
pytestmark = pytest.mark.browser


def _pooled_kernels(srv) -> list[str]:
    return re.findall(r"Using pre-heated kernel: ([0-9a-f-]{36})", srv.log())


def _wait_pool(srv, size: int, timeout: float = 120.0, fills: int = 1) -> None:
    """Until Voila logged ``fills`` times that the pool is full (each refill after a page took a kernel
    logs it again; refills wait until no page was requested for pool_fill_quiet, 5 s here)."""
    t_end = time.time() + timeout
    while time.time() < t_end:
        if srv.log().count(f"is filled with {size} kernel(s)") >= fills:
            return
        time.sleep(0.5)
    pytest.fail(f"the pool did not fill within {timeout:.0f} s:\n{srv.log()[-3000:]}")


@pytest.fixture(scope="module")
def server():
    require_browser()
    extra = merge_options(preheat_options(ROOT / "notebooks", 2, [NB]), ["--LimitedKernelManager.pool_fill_quiet=5"])
    with VoilaServer(ROOT / "notebooks", cwd=ROOT, extra_args=extra) as srv:
        _wait_pool(srv, 2)
        yield srv


def _readout(page, name: str) -> str:
    return page.locator(f".dpx-ctl-{name} .widget-readout").first.inner_text().strip()


def test_a_deep_link_served_from_the_pool_opens_on_its_settings(server, browser):
    seen: dict[str, str] = {}

    def read(page, res):
        seen.update({name: _readout(page, name) for name in ("k", "seed", "epsilon")})
        seen["snippet"] = page.locator(".jupyter-widgets pre").last.inner_text()

    before = len(_pooled_kernels(server))
    res = check_page(browser, f"{server.url}/voila/render/{NB}?k=5&seed=7&epsilon=0.5", pre_actions=read,
                     min_plots=3, timeout=240)
    assert not res.failures, res.failures
    assert len(_pooled_kernels(server)) == before + 1, "the page was not served from the pool"
    assert seen["k"] == "5" and seen["seed"] == "7" and float(seen["epsilon"]) == 0.5, seen
    assert "k=5" in seen["snippet"] and "seed=7" in seen["snippet"], seen["snippet"][:400]


def test_a_plain_link_from_the_pool_opens_on_the_defaults_and_a_bad_parameter_is_reported(server, browser):
    seen: dict[str, str] = {}

    def read(page, res):
        seen.update({name: _readout(page, name) for name in ("k", "seed")})
        seen["notes"] = page.locator(".dpx-note").all_inner_texts()

    before = len(_pooled_kernels(server))
    res = check_page(browser, f"{server.url}/voila/render/{NB}?nosuch=1", pre_actions=read, min_plots=3, timeout=240)
    assert not res.failures, res.failures
    assert len(_pooled_kernels(server)) == before + 1
    assert seen["k"] == "3" and seen["seed"] == "0", seen
    assert any("nosuch" in n and "ignored" in n for n in seen["notes"]), seen["notes"]


def test_a_pooled_page_owns_its_kernel_and_closing_the_tab_frees_it(server, browser):
    _wait_pool(server, 2, timeout=180, fills=3)  # refilled after the two earlier pages took its kernels
    ctx = browser.new_context()
    ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
        ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")) else route.abort())
    page = ctx.new_page()
    try:
        resp = page.goto(f"{server.url}/voila/render/{NB}", wait_until="commit", timeout=120_000)
        page.wait_for_function(JS_RENDERED, timeout=120_000, polling=100)
        page.wait_for_selector(".widget-slider", timeout=60_000)
        kernel_id = page.evaluate(
            "() => JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
        assert kernel_id in _pooled_kernels(server)
        assert f"dpx-kernel-{kernel_id}=" in (resp.all_headers().get("set-cookie") or "")
        api = [c for c in ctx.cookies() if c["name"] == f"dpx-kapi-{kernel_id}"]
        assert api, "the pooled page got no cookie for its kernel's model"
        API_COOKIES[kernel_id] = f"{api[0]['name']}={api[0]['value']}"  # what its browser sends
        assert kernel_alive(server.url, kernel_id)
        t0 = time.monotonic()
        page.close(run_before_unload=True)
        while kernel_alive(server.url, kernel_id) and time.monotonic() - t0 < 20:
            time.sleep(0.2)
        assert not kernel_alive(server.url, kernel_id), "closing the tab did not shut down the pooled page's kernel"
    finally:
        ctx.close()
