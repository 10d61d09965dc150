"""Issue 39 H2: the page is told before the server frees its idle kernel, and can resume where it was
(:mod:`dpexplore.ui.idle`; the server side is tested in tests/hosting/test_round4.py)."""

from __future__ import annotations

import ipywidgets as widgets
import pytest

from dpexplore.ui import idle
from tests.fixtures.kit_demo import KitDemo


class Clock:
    def __init__(self):
        self.now, self.input = 1000.0, 1000.0

    def __call__(self):
        return self.now


def _watch(timeout=600.0, query=lambda: "mu=2&k=3"):
    clock = Clock()
    box = widgets.HTML()
    return idle.IdleWatch(box, query, timeout, clock=clock, input_time=lambda: clock.input), clock, box


def test_the_page_is_warned_then_paused_with_a_link_that_resumes_its_settings():
    w, clock, box = _watch()
    assert w.check() == "active" and box.value == ""
    clock.now += 600 - idle.WARN_BEFORE_S - 1
    assert w.check() == "active" and box.value == ""
    clock.now += 2
    assert w.check() == "warned" and "pauses in about 2 minutes" in box.value and "Move any control" in box.value
    clock.now = clock.input + 600
    assert w.check() == "paused"
    assert "This page has paused" in box.value and "10 minutes without input" in box.value
    assert 'href="?mu=2&amp;k=3"' in box.value  # the same settings, escaped for the attribute
    clock.input = clock.now  # input after the pause reaches no kernel: the notice stays
    assert w.check() == "paused"


def test_input_after_the_warning_takes_the_warning_away():
    w, clock, box = _watch()
    clock.now += 590
    assert w.check() == "warned"
    clock.input = clock.now
    assert w.check() == "active" and box.value == ""


def test_the_link_is_escaped():
    w, clock, box = _watch(query=lambda: 'a="><script>x</script>')
    clock.now += 600
    w.check()
    assert "<script>" not in box.value and "&quot;&gt;&lt;script&gt;" in box.value


def test_a_short_timeout_warns_at_half_time():
    w, clock, box = _watch(timeout=20.0)
    clock.now += 9.9
    assert w.check() == "active"
    clock.now += 0.2
    assert w.check() == "warned"


@pytest.mark.parametrize(("raw", "expected"), [("3600", 3600.0), ("10", 10.0), ("0", None), ("", None),
                                               ("nan", None), ("1e9", None), ("9", None), ("-5", None), ("x", None)])
def test_the_timeout_from_the_server_is_checked(raw, expected):
    assert idle.timeout_from_env({idle.ENV: raw}) == expected


def test_every_widget_message_from_the_page_is_input():
    idle.install()
    idle.install()  # idempotent: one wrapper
    assert getattr(widgets.Widget._handle_msg, "_dpx_idle", False)
    slider = widgets.IntSlider()
    before = idle.last_input()
    slider._handle_msg({"content": {"data": {"method": "update", "state": {"value": 3}, "buffer_paths": []}},
                        "buffers": []})
    assert slider.value == 3 and idle.last_input() >= before


def test_the_resume_link_holds_the_dashboards_current_settings():
    dash = KitDemo(render=False, background=False, mu=2.0, k=3)
    query = dash.teaching.page_query(dash.params())
    assert "mu=2" in query and "k=3" in query
    clock = Clock()
    w = idle.IdleWatch(dash._idle_box, lambda: dash.teaching.page_query(dash.params()), 60.0, clock=clock,
                       input_time=lambda: clock.input)
    clock.now += 60
    assert w.check() == "paused" and f'href="?{query.replace("&", "&amp;")}"' in dash._idle_box.value
    assert dash.idle_watch is None  # outside a kernel served with the limit, no watch runs


def test_the_input_stamp_keeps_the_dashboards_traceback_guard_working():
    """The guard (Dashboard._guard_widgets) unwraps ipywidgets' _show_traceback to call the inner handler,
    so a client's NaN is dropped instead of answered with a traceback. idle.install must leave that shape:
    wrapping the outer function broke it (tests/hosting/test_hostile_clients.py caught the traceback)."""
    import ipywidgets as widgets

    from dpexplore.ui.kernel import _unwrapped_handle_msg

    idle.install()
    inner = _unwrapped_handle_msg(widgets.Widget)
    assert inner is not None and getattr(inner, "_dpx_idle", False)
    before = idle.last_input()
    w = widgets.IntSlider()
    inner(w, {"content": {"data": {"method": "update", "state": {"value": 3}, "buffer_paths": []}}, "buffers": []})
    assert w.value == 3 and idle.last_input() >= before
