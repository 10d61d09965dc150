"""A widget that changed while a page fetched the widget states is sent again (dpexplore.ui.resync)."""

from __future__ import annotations

import time

import ipywidgets as widgets

from dpexplore.ui import resync


class _Capture:
    def __init__(self):
        self.sent: list[dict] = []

    def send(self, data=None, metadata=None, buffers=None):
        self.sent.append(data)


def test_widgets_changed_around_a_state_request_are_sent_again(monkeypatch):
    monkeypatch.setattr(resync, "RESEND_AFTER_S", (0.05, 0.15))
    monkeypatch.setattr(resync, "RACE_WINDOW_S", 0.1)
    resync.install()
    resync.install()  # idempotent
    quiet, busy = widgets.HTML("a"), widgets.HTML("b")
    caps = {}
    for w in (quiet, busy):
        cap = _Capture()
        monkeypatch.setattr(w.comm, "send", cap.send)
        caps[w.model_id] = cap
    control = _Capture()
    monkeypatch.setattr(widgets.Widget, "_control_comm", control)
    quiet.value = "a2"  # long before the page's request: in its snapshot, not re-sent
    time.sleep(0.3)
    busy.value = "b2"  # just before the request (the background thread drawing a panel)
    widgets.Widget._handle_control_comm_msg({"content": {"data": {"method": "request_states"}}})
    time.sleep(0.4)
    (reply,) = control.sent
    assert reply["method"] == "update_states"
    assert reply["states"][busy.model_id]["state"]["value"] == "b2"
    resent = [m for m in caps[busy.model_id].sent if m.get("method") == "update" and "layout" in m["state"]]
    assert len(resent) == 2 and all(m["state"]["value"] == "b2" for m in resent)  # full state, twice
    assert all("layout" not in m["state"] for m in caps[quiet.model_id].sent)  # only its own change
