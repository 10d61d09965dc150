"""Kernel-side helpers of the dashboard kit: where the code runs (a kernel, Voila's preheated pool), waiting for
a preheated kernel's page, walking and closing widget trees, the server's log, screening client values, and the
byte size of memoised results. Used by :mod:`dpexplore.ui.dashboard` (and re-exported there).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from dpexplore.core.cache import server_log

__all__ = ["approx_nbytes", "wait_for_request"]


def approx_nbytes(value: Any, _depth: int = 0) -> int:
    """Bytes held by the arrays inside ``value`` (numpy arrays, scipy.sparse matrices, and containers,
    dataclasses and objects holding them), plus a small constant per object.

    Examples
    --------
    >>> import numpy as np
    >>> approx_nbytes({"a": np.zeros(1000), "b": [np.zeros((10, 10))]}) >= 8800
    True
    """
    if _depth > 6:
        return 64
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int) and not callable(nbytes):
        return nbytes
    if hasattr(value, "tocsr") and hasattr(value, "data"):  # scipy.sparse
        return sum(int(getattr(value, a).nbytes) for a in ("data", "indices", "indptr", "row", "col")
                   if hasattr(value, a) and hasattr(getattr(value, a), "nbytes"))
    if isinstance(value, dict):
        return 64 + sum(approx_nbytes(v, _depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return 64 + sum(approx_nbytes(v, _depth + 1) for v in value)
    if isinstance(value, (str, bytes)):
        return 64 + len(value)
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict):
        return 64 + sum(approx_nbytes(v, _depth + 1) for v in fields.values())
    slots = getattr(type(value), "__slots__", ())
    if slots and not isinstance(value, type):
        return 64 + sum(approx_nbytes(getattr(value, a, None), _depth + 1) for a in slots)
    return 64


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    ip = get_ipython()
    return ip is not None and getattr(ip, "kernel", None) is not None


def _preheated() -> bool:
    """True in a kernel Voila started for its preheated pool (``--preheat_kernel``): no page yet."""
    return os.environ.get("VOILA_PREHEAT") == "True" and _in_kernel()


def wait_for_request(timeout: float) -> bool:
    """Block until Voila hands this preheated kernel to a page; put the request's variables
    (``QUERY_STRING``, ...) into ``os.environ``. True if they arrived within ``timeout`` seconds.

    What ``voila.utils.wait_for_request`` does, made robust: a deadline (Voila's waits forever, and
    its cell then fails at the execution timeout), no keep-alive pings that drop the connection
    while a busy server answers late, reconnection after a dropped connection (the server keeps the
    request for a kernel that is not connected), and the server's token for this endpoint
    (``$DPEXPLORE_QUERY_TOKEN``, see :mod:`dpexplore.hosting.patches`).
    """
    import asyncio
    import json

    import websockets  # Voila's dependency; imported only in a preheated kernel

    kernel_id = os.environ.get("VOILA_KERNEL_ID", "")
    if os.environ.get("VOILA_PREHEAT") != "True" or not kernel_id:
        return False
    base = os.environ.get("VOILA_WS_BASE_URL", os.environ.get("VOILA_SERVER_URL", "/"))
    url = (f"{os.environ.get('VOILA_WS_PROTOCOL', 'ws')}://{os.environ.get('VOILA_APP_IP', '127.0.0.1')}:"
           f"{os.environ.get('VOILA_APP_PORT', '8866')}{base}voila/query/{kernel_id}")
    token = os.environ.get("DPEXPLORE_QUERY_TOKEN")
    if token:
        url += f"?dpx_token={token}"
    deadline = time.monotonic() + timeout
    got: list[str] = []

    async def run() -> None:
        while (left := deadline - time.monotonic()) > 0:
            try:
                async with websockets.connect(url, open_timeout=min(10.0, left), ping_interval=None,
                                              close_timeout=1, max_size=2**20) as ws:
                    got.append(await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic())))
                    return
            except asyncio.TimeoutError:
                continue  # the open timed out (retry) or the deadline passed (the loop ends)
            except (OSError, websockets.exceptions.WebSocketException):
                await asyncio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))

    # the kernel's own event loop runs in this thread: wait in a thread with its own loop, as Voila does
    thread = threading.Thread(target=lambda: asyncio.run(run()), name="dpexplore-wait-request", daemon=True)
    thread.start()
    thread.join()
    if not got:
        return False
    try:
        info = json.loads(got[0])
    except ValueError:
        return False
    if not isinstance(info, dict):
        return False
    os.environ.update({k: v for k, v in info.items() if isinstance(k, str) and isinstance(v, str)})
    os.environ["VOILA_PREHEAT"] = "False"  # handed to a page: no further waits
    return True


def _widget_tree(root: widgets.Widget):
    """``root`` and every widget reachable from its synced traits (children, layout, …), each once."""
    stack, seen = [root], set()
    while stack:
        w = stack.pop()
        if id(w) in seen or not isinstance(w, widgets.Widget):
            continue
        seen.add(id(w))
        for name in w.keys:
            value = getattr(w, name, None)
            stack.extend(v for v in (value if isinstance(value, (list, tuple)) else [value])
                         if isinstance(v, widgets.Widget))
        yield w


def _close_tree(root: widgets.Widget) -> None:
    """Close ``root`` and every widget under it (their models leave the kernel and the page)."""
    for w in list(_widget_tree(root)):
        w.close()


_server_log = server_log  # the server's log, never the browser (one implementation, in core.cache)


def _numeric_trait(w: widgets.Widget, name: str) -> bool:
    value = getattr(w, name, None)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _non_finite(v: Any) -> bool:
    """NaN/±Inf, also as the strings jupyter_client's fallback makes of them ('nan', 'inf', '1e999')."""
    if isinstance(v, str) and len(v) < 40:
        try:
            v = float(v)
        except ValueError:
            return False
    return isinstance(v, float) and not math.isfinite(v)


def _unwrapped_handle_msg(cls: type) -> Callable | None:
    """``cls._handle_msg`` without ipywidgets' ``_show_traceback`` wrapper (None if it is not wrapped so)."""
    fn = getattr(cls, "_handle_msg", None)
    if getattr(fn, "__name__", "") != "m" or not getattr(fn, "__closure__", None):
        return None
    inner = [c.cell_contents for c in fn.__closure__ if callable(c.cell_contents)]
    return inner[0] if len(inner) == 1 and getattr(inner[0], "__name__", "") == "_handle_msg" else None
