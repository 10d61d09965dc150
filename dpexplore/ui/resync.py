"""Re-send widget states that changed while a page was fetching the kernel's widget states.

A page asks the kernel for every widget's state once (``request_states`` on the
``jupyter.widget.control`` comm) and builds its models from the reply, asynchronously. The
dashboards draw their panels in a background thread, so a panel can change *while* that happens:
its update message is sent just before the reply (whose snapshot still holds the old state) or
before the page has registered the model's comm — and the page drops it. The panel then shows the
old state for good (a plot never drawn, a panel left dimmed); seen as pages that "never finish"
in about 3 % of loads under load (issue 17), with the kernel idle and every panel drawn.

:func:`install` (idempotent, once per kernel) wraps the control-comm handler so that the snapshot
is taken under a lock and, 1, 3 and 8 s after each request, every widget whose state was sent
within 0.5 s before the request (or since) is sent again in full. Re-sending a state the page
already has is harmless (it redraws the same thing); only widgets that changed around the request
are re-sent, so a quiet page costs nothing.
"""

from __future__ import annotations

import threading
import time
import weakref

import ipywidgets as widgets

__all__ = ["install", "RESEND_AFTER_S", "RACE_WINDOW_S"]

#: seconds after a page's state request at which recently changed widgets are re-sent
RESEND_AFTER_S = (1.0, 3.0, 8.0)
#: a widget whose state was sent this long before the request (or later) is re-sent
RACE_WINDOW_S = 0.5

_lock = threading.RLock()
_sent: dict[str, tuple[float, weakref.ref]] = {}  # model id -> (monotonic time of last send, widget)
_installed = False


def _record(widget: widgets.Widget) -> None:
    try:
        _sent[widget.model_id] = (time.monotonic(), weakref.ref(widget))
    except (TypeError, AttributeError):  # a widget being closed has no comm / model id
        pass


def _resend_since(t0: float) -> int:
    """Send again the full state of every live widget whose state was sent at or after ``t0``."""
    with _lock:
        for mid in [m for m, (_, ref) in _sent.items() if ref() is None]:
            del _sent[mid]  # closed widgets
        recent = [ref() for t, ref in list(_sent.values()) if t >= t0]
    n = 0
    for w in recent:
        if w is not None and getattr(w, "comm", None) is not None:
            try:
                w.send_state()
                n += 1
            except Exception:  # noqa: BLE001 - a widget closed meanwhile; nothing to re-send
                pass
    return n


def install() -> None:
    """Wrap ``Widget.send_state`` (to record sends) and the control-comm handler (to re-send). Idempotent."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
        original_send = widgets.Widget.send_state
        original_control = widgets.Widget._handle_control_comm_msg.__func__

        def send_state(self, key=None):
            with _lock:
                original_send(self, key=key)
                _record(self)

        def handle_control(cls, msg):
            t_req = time.monotonic()
            with _lock:  # no widget update between the snapshot and the reply
                original_control(cls, msg)
            try:
                method = msg["content"]["data"]["method"]
            except (KeyError, TypeError):
                return
            if method != "request_states":
                return
            for delay in RESEND_AFTER_S:
                timer = threading.Timer(delay, _resend_since, args=(t_req - RACE_WINDOW_S,))
                timer.daemon = True
                timer.start()

        widgets.Widget.send_state = send_state
        widgets.Widget._handle_control_comm_msg = classmethod(handle_control)
