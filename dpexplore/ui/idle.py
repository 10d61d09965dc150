"""Tell the reader before the server frees an idle page's kernel, and offer to resume (issue 39, H2).

A hardened server (:class:`dpexplore.hosting.kernels.LimitedKernelManager`) shuts down the kernel of an
open page that has sent no input for ``idle_page_timeout`` seconds (plus a short margin): an idle tab no
longer holds its seat for ever. The server passes that time to its kernels as
``$DPEXPLORE_IDLE_PAGE_TIMEOUT``; in such a kernel a dashboard watches its own page's input (every widget
message from the browser, :func:`install`) and

* :data:`WARN_BEFORE_S` seconds before the time says so ("move any control to keep it");
* at the time shows that the page paused and a link that reopens it with the same settings (the page's
  own query, as the "copy link" button gives it), so the reader resumes where they were.

Without the variable (a script, a notebook in JupyterLab, a server without the limit) nothing happens.
"""

from __future__ import annotations

import html
import os
import threading
import time
from collections.abc import Callable

import ipywidgets as widgets
from ipywidgets.widgets.widget import _show_traceback

from .kernel import _unwrapped_handle_msg

__all__ = ["ENV", "WARN_BEFORE_S", "IdleWatch", "install", "touch", "timeout_from_env"]

#: the environment variable the server sets for its kernels (seconds; absent or 0: no idle pause)
ENV = "DPEXPLORE_IDLE_PAGE_TIMEOUT"
#: seconds before the pause at which the page warns
WARN_BEFORE_S = 120.0
#: bounds of the timeout read from the environment (a bad value disables the watch, it never crashes a page)
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 10.0, 7 * 86400.0

#: the notices sit at the foot of the window, whatever the reader has scrolled to
_FIXED = "position:fixed;left:8px;right:8px;bottom:8px;z-index:1000;color:#1a1a1a;"

_last_input = [time.monotonic()]
_lock = threading.Lock()
_installed = [False]


def touch() -> None:
    """Record input from the page now (called for every widget message the browser sends)."""
    with _lock:
        _last_input[0] = time.monotonic()


def last_input() -> float:
    """``time.monotonic()`` of the page's last input in this kernel."""
    with _lock:
        return _last_input[0]


def install() -> None:
    """Stamp every browser-to-kernel widget message as input, and the page's request for the widgets' state
    (it opened or reconnected). Idempotent; call before widgets are created (a widget's comm binds its
    message handler when it opens)."""
    with _lock:
        if _installed[0]:
            return
        _installed[0] = True
    orig = widgets.Widget._handle_msg
    orig_control = widgets.Widget._handle_control_comm_msg.__func__
    # ipywidgets wraps _handle_msg in _show_traceback (it sends a client's failing update back as a
    # traceback); the dashboards' guard (Dashboard._guard_widgets) unwraps that to call the inner method.
    # So the stamp goes inside, and the same wrapper is put back around it: the guard keeps finding it.
    inner = _unwrapped_handle_msg(widgets.Widget)

    def _handle_msg(self, msg):
        touch()
        return (inner or orig)(self, msg)

    def _handle_control(cls, msg):
        touch()
        return orig_control(cls, msg)

    _handle_msg._dpx_idle = True  # type: ignore[attr-defined]
    outer = _show_traceback(_handle_msg) if inner is not None else _handle_msg
    outer._dpx_idle = True  # type: ignore[attr-defined]
    widgets.Widget._handle_msg = outer
    widgets.Widget._handle_control_comm_msg = classmethod(_handle_control)


def timeout_from_env(environ: dict | None = None) -> float | None:
    """The idle timeout the server gave this kernel, in seconds, or None (unset, 0 or not a number in
    [MIN_TIMEOUT_S, MAX_TIMEOUT_S])."""
    raw = (os.environ if environ is None else environ).get(ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S else None


def _minutes(seconds: float) -> str:
    m = seconds / 60.0
    return f"{m:.0f} minute{'s' if round(m) != 1 else ''}" if m >= 1 else f"{seconds:.0f} seconds"


class IdleWatch:
    """Warn, then show the pause notice with a resume link, in ``box`` (an HTML widget on the page).

    Parameters
    ----------
    box : ipywidgets.HTML
        Where the notices go (empty while the page is in use).
    query : callable
        Returns the page's current settings as a URL query (without ``?``), for the resume link.
    timeout : float
        Seconds without input after which the server frees the kernel (the notice shows at this time).
    warn_before : float
        Seconds before ``timeout`` at which the warning shows.
    clock : callable
        ``time.monotonic`` (tests pass their own).
    input_time : callable
        When the page last sent input (default: :func:`last_input`).

    Examples
    --------
    >>> import ipywidgets as widgets
    >>> t = [0.0]
    >>> w = IdleWatch(widgets.HTML(), lambda: "epsilon=0.5", timeout=600, clock=lambda: t[0],
    ...               input_time=lambda: 0.0)
    >>> w.check()
    'active'
    >>> t[0] = 500.0; w.check()
    'warned'
    >>> t[0] = 600.0; w.check(); 'href="?epsilon=0.5"' in w.box.value
    'paused'
    True
    """

    def __init__(self, box: widgets.HTML, query: Callable[[], str], timeout: float, *,
                 warn_before: float = WARN_BEFORE_S, clock: Callable[[], float] = time.monotonic,
                 input_time: Callable[[], float] = last_input) -> None:
        self.box, self._query, self.timeout = box, query, float(timeout)
        self.warn_before = min(float(warn_before), self.timeout / 2)
        self._clock, self._input_time = clock, input_time
        self.state = "active"
        self._thread: threading.Thread | None = None

    def check(self) -> str:
        """Update the notice for the time now; return the state (``active``, ``warned`` or ``paused``)."""
        if self.state == "paused":
            return self.state  # the server frees the kernel now: nothing this page does reaches it
        idle = self._clock() - self._input_time()
        if idle >= self.timeout:
            self.state = "paused"
            query = html.escape(self._query(), quote=True)
            self.box.value = (
                f"<div class='dpx-idle' role='status' style='{_FIXED}border:2px solid #8a5300;background:#fff4e0;"
                "padding:8px 12px;font-size:15px'><b>This page has paused.</b> After "
                f"{_minutes(self.timeout)} without input the server freed its place for other readers, so the "
                f"controls no longer change anything. <a href=\"?{query}\">Resume where you were</a> (reopens "
                "the page with the same settings).</div>")
        elif idle >= self.timeout - self.warn_before:
            if self.state != "warned":
                self.state = "warned"
                self.box.value = (
                    f"<div class='dpx-idle' role='status' style='{_FIXED}border:1px solid #8a5300;"
                    "background:#fff4e0;padding:6px 12px'>No input for a while: this page pauses in about "
                    f"{_minutes(self.timeout - idle)} to free its place on the server. Move any control to keep "
                    "it.</div>")
        elif self.state != "active":
            self.state = "active"
            self.box.value = ""
        return self.state

    def start(self, every: float = 5.0) -> None:
        """Check every ``every`` seconds in a daemon thread until the page has paused."""
        if self._thread is not None:
            return
        touch()  # a page just built is in use (its browser connects after the notebook ran)

        def run() -> None:
            while self.check() != "paused":
                time.sleep(every)

        self._thread = threading.Thread(target=run, name="dpx-idle-watch", daemon=True)
        self._thread.start()
