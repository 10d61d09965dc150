"""What a hostile client sends a page's widgets, delivered the way the kernel's comm delivers it, and a
stand-in shell that counts the tracebacks ipywidgets would send back (shared by the hostile-client tests)."""

import ipywidgets.widgets.widget as ipw_widget
import pytest


class FakeIPython:
    """Stands in for the kernel's shell: ipywidgets sends a traceback to the client through showtraceback()."""

    def __init__(self):
        self.tracebacks = 0

    def showtraceback(self, *a, **k):
        self.tracebacks += 1


@pytest.fixture
def shell(monkeypatch):
    ip = FakeIPython()
    monkeypatch.setattr(ipw_widget, "get_ipython", lambda: ip)
    return ip


def client_update(w, **state):
    """Deliver a client's `update` message to the widget the way the kernel's comm does."""
    w.comm.handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                       "buffers": []})


def client_click(w):
    """A client's click: what the browser's button view sends, sendable for any button, shown or not."""
    w.comm.handle_msg({"content": {"data": {"method": "custom", "content": {"event": "click"}}}, "buffers": []})
