"""Server-side refusal of what a page's own front end could not have sent (issue 31, item 4).

ipywidgets checks nothing about a client's message against what the page shows: a ``Button``
whose ``disabled`` is True, or which sits in a box with ``layout.display = "none"``, still runs its
``on_click`` callbacks when a client sends ``{"method": "custom", "content": {"event": "click"}}``,
and a disabled ``ToggleButtons`` still takes a new ``index``. A hostile client (any websocket client
of the page's kernel) sends exactly that. :func:`refusal` says why such a message must be dropped;
:meth:`dpexplore.ui.dashboard.Dashboard._guard_widgets` (every dashboard and the class poll) calls it
before ipywidgets handles the message, and :func:`note_refusal` logs it server side (rate-limited).

Refused: any ``custom`` message (a click), and any ``update`` that changes ``value`` or ``index``, sent
to a widget that is disabled, or hidden (``display: none`` or ``visibility: hidden`` on itself or
on a box it sits in, from the dashboard's root). Other updates (a view's own traits) go through the
usual checks.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import ipywidgets as widgets

__all__ = ["refusal", "note_refusal", "hidden_widgets", "REFUSED_KEYS", "LOG_INTERVAL"]

#: update keys refused on a disabled or hidden widget (what a user's input changes)
REFUSED_KEYS = frozenset({"value", "index"})
#: at most one server-log line about refused messages per this many seconds, per dashboard
LOG_INTERVAL = 10.0
_lock = threading.Lock()


def _hidden(w: widgets.Widget) -> bool:
    layout = getattr(w, "layout", None)
    return layout is not None and (getattr(layout, "display", None) == "none"
                                   or getattr(layout, "visibility", None) == "hidden")


def hidden_widgets(root: widgets.Widget) -> set[int]:
    """``id()`` of every widget under ``root`` (through ``children``) that the page does not show."""
    out: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    seen: set[int] = set()
    while stack:
        w, parent_hidden = stack.pop()
        if id(w) in seen or not isinstance(w, widgets.Widget):
            continue
        seen.add(id(w))
        hidden = parent_hidden or _hidden(w)
        if hidden:
            out.add(id(w))
        stack.extend((c, hidden) for c in getattr(w, "children", ()) or ())
    return out


def refusal(root: widgets.Widget, w: widgets.Widget, msg: Any) -> str | None:
    """Why the client message ``msg`` to widget ``w`` (under ``root``) must be dropped, or None."""
    try:
        data = msg["content"]["data"]
        method = data.get("method")
    except (KeyError, TypeError, AttributeError):
        return None  # malformed: ipywidgets' own handling fails, inside the dashboard's guard
    if method == "custom":
        action = "a click"
    elif method == "update" and isinstance(data.get("state"), dict) and REFUSED_KEYS & data["state"].keys():
        action = "a change"
    else:
        return None
    if getattr(w, "disabled", False) is True:
        return f"{action} on a disabled {type(w).__name__}"
    if id(w) in hidden_widgets(root):
        return f"{action} on a hidden {type(w).__name__}"
    return None


def note_refusal(root: Any, w: widgets.Widget, why: str, log) -> None:
    """Count a refusal on ``root`` (``root.refused``: a dict reason -> count) and log it at most once per
    :data:`LOG_INTERVAL` seconds through ``log(text)`` (the server's log, never the client)."""
    with _lock:
        counts = getattr(root, "refused", None)
        if not isinstance(counts, dict):
            counts = {}
            root.refused = counts
        counts[why] = counts.get(why, 0) + 1
        now = time.monotonic()
        last = getattr(root, "_refused_logged_at", None)
        if last is not None and now - last < LOG_INTERVAL:
            return
        root._refused_logged_at = now
    log(f"dpexplore: {type(root).__name__} refused {why} (a client sent what the page does not offer; "
        f"refusals so far: {sum(counts.values())})\n")
