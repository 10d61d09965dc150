"""Connection-level limits for the server process: timeouts, connection caps, bounded websocket output,
rate-limited accept errors, scrubbed logs and ``Referrer-Policy`` (issue 31, items 1, 2 and 6).

Installed by :func:`dpexplore.hosting.install_voila_mitigations` (so by importing
:mod:`dpexplore.hosting.kernels`, which Voila and jupyter_server do at start-up, before they create
their HTTP server); configured through :class:`ConnectionLimits` (a ``ConnectionLimits`` section in
``voila.json``, or ``--ConnectionLimits.trait=value``), read when the kernel manager starts.

What a single unauthenticated client could do before, and what holds now:

* **Half-sent requests**: Tornado waits ``idle_connection_timeout`` (3,600 s) for a request's
  headers and keeps every such connection; ~1,000 of them exhausted the process's open files. Now
  every HTTP server this process creates waits :attr:`ConnectionLimits.idle_timeout` for headers (and
  between keep-alive requests) and :attr:`ConnectionLimits.body_timeout` for a body, and a new
  connection beyond :attr:`~ConnectionLimits.max_connections_per_address` or
  :attr:`~ConnectionLimits.max_connections` open ones is answered ``503`` and closed before any byte
  of it is read. Open websockets count (they hold a socket too).
* **Many addresses together at the total cap** (issue 39, S1b): 8 addresses × 256 half-sent requests
  filled all 2,048 slots and every other visitor was refused. At the total cap a newcomer is served by
  closing the connection that has waited longest for a request's headers at the address holding the
  most connections, when that address holds at least two more than the newcomer's (max-min fairness: a
  visitor with few connections always gets one; connections within a request and websockets are never
  closed; ``exempt_addresses`` are never chosen).
* **EMFILE**: the accept loop logged an 8-line traceback per event-loop turn at the open-files
  limit (1.16 GB of log in 2.5 min). Now one line per :attr:`~ConnectionLimits.error_log_interval`
  (with the count), and accepting pauses 0.2 s instead of spinning.
* **A websocket client that never reads**: Tornado's write buffer grows without bound. A kernel
  websocket whose unsent output would exceed :attr:`~ConnectionLimits.max_pending_output` bytes is
  closed (one log line), as is a lagging one while all websockets together have more than
  :attr:`~ConnectionLimits.max_pending_output_total` queued; at most
  :attr:`~ConnectionLimits.max_websockets_per_kernel` websockets are open to one kernel (each gets
  every iopub message).
* **Secrets in logs and Referer**: every log record of the process is scrubbed of the query string of
  poll pages (``06_class_poll``) and of the value of any query parameter whose name contains
  ``secret``, ``token`` or ``key`` (:func:`scrub`); Voila pages are sent with
  ``Referrer-Policy: no-referrer``, so the ~100 requests a page makes carry no ``Referer``.
"""

from __future__ import annotations

import errno
import logging
import re
import socket
import time
from collections import defaultdict
from typing import Any

from tornado import httpserver, httputil, netutil, tcpserver, web, websocket
from tornado.concurrent import Future
from tornado.ioloop import IOLoop
from traitlets import Float, Integer, List, Unicode
from traitlets.config import LoggingConfigurable

__all__ = ["ConnectionLimits", "limits", "configure", "scrub", "install"]

log = logging.getLogger("dpexplore.hosting")

_POLL_QUERY = re.compile(r"(06_class_poll[^\s?#\"'<>]*)\?[^\s#\"'<>)]*")
_SECRET_PARAM = re.compile(r"([?&;][^=&\s\"'<>#]*(?:secret|token|key)[^=&\s\"'<>#]*=)[^&\s\"'<>#)]*", re.I)
_REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n"
            b"Content-Length: 39\r\n\r\nToo many connections: try again later.\n")
_ACCEPT_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class ConnectionLimits(LoggingConfigurable):
    """Limits on the connections one server process accepts (configure as ``ConnectionLimits.<trait>``)."""

    idle_timeout = Float(
        20.0, config=True,
        help="Seconds Tornado waits for a request's headers, and between two requests of a keep-alive "
             "connection, before it closes the connection (Tornado's idle_connection_timeout, 3600 s by "
             "default: a connection that sent half a header was kept for an hour).")
    body_timeout = Float(30.0, config=True, help="Seconds to wait for a request's body (Tornado: none).")
    max_connections = Integer(
        2048, config=True,
        help="Open connections (HTTP and websocket) the server accepts in total; a new one beyond it gets "
             "503 and is closed before it is read. Lowered at start-up to half the open-files limit (the "
             "server also needs files for kernels). 0: no cap.")
    max_connections_per_address = Integer(
        256, config=True,
        help="Open connections from one client address; beyond it, 503 and closed before any byte is read. "
             "Behind a reverse proxy every connection comes from the proxy's address: raise this (or list the "
             "proxy in exempt_addresses) and let the proxy limit each client (deploy/nginx: limit_conn). 0: no cap.")
    exempt_addresses = List(
        Unicode(), config=True,
        help="Client addresses to which max_connections_per_address does not apply (e.g. ['127.0.0.1'] behind "
             "a reverse proxy on the same machine); max_connections still does.")
    max_pending_output = Integer(
        8 * 2**20, config=True,
        help="Bytes a kernel websocket may have queued but not yet sent; a socket whose client does not read "
             "beyond that is closed (its output otherwise grew the server by ~18 MB/s). A dashboard page "
             "reads as fast as it is sent; its largest message is a few MB (a plotly figure's state).")
    max_pending_output_total = Integer(
        256 * 2**20, config=True,
        help="Bytes all kernel websockets together may have queued unsent; a lagging websocket (over 1 MiB "
             "queued) is closed when the total is over this. Bounds what many slow or never-reading clients "
             "hold together (each stays under max_pending_output).")
    max_websockets_per_kernel = Integer(
        4, config=True,
        help="Open websockets to one kernel (a page opens one, two while it reconnects); beyond it the "
             "handshake is refused (HTTP 429). Every websocket of a kernel gets every iopub message. 0: no cap.")
    max_state_requests = Integer(
        8, config=True,
        help="request_states messages (every widget's state, ~0.36 MiB for dashboard 01) one websocket may send "
             "to a Voila page's kernel; further ones are dropped. A page sends one per connection.")
    error_log_interval = Float(60.0, config=True,
                               help="Seconds between two log lines about refused connections or accept errors.")


_limits = ConnectionLimits()
_open: dict[str, set] = defaultdict(set)  # client address -> open IOStreams
_total = [0]
_kernel_ws: dict[str, set] = defaultdict(set)  # kernel id -> open websocket handlers
_waiting: dict = {}  # IOStream -> time.monotonic() since which it waits for a request's headers
_last_log: dict[str, float] = {}
_suppressed: dict[str, int] = defaultdict(int)


def limits() -> ConnectionLimits:
    """The limits in force in this process."""
    return _limits


def configure(parent: Any = None, **overrides: Any) -> ConnectionLimits:
    """Read :class:`ConnectionLimits` from ``parent``'s configuration (called by the kernel manager).

    ``max_connections`` is lowered to half the soft open-files limit (after
    :func:`dpexplore.hosting.raise_open_files_limit`).
    """
    global _limits
    from .limits import raise_open_files_limit

    soft = raise_open_files_limit()
    _limits = ConnectionLimits(parent=parent, **overrides)
    if soft and _limits.max_connections > 0 and _limits.max_connections > soft // 2:
        _limits.max_connections = max(16, soft // 2)
    return _limits


def _rate_limited(kind: str, message: str, *args: Any, level: int = logging.WARNING) -> None:
    """Log ``message`` at most once per ``error_log_interval`` for ``kind``, with the count suppressed since."""
    now = time.monotonic()
    if now - _last_log.get(kind, float("-inf")) < _limits.error_log_interval:
        _suppressed[kind] += 1
        return
    _last_log[kind] = now
    n, _suppressed[kind] = _suppressed[kind], 0
    suffix = f" ({n} more since the last such line)" if n else ""
    log.log(level, message + suffix, *args)


def scrub(text: str) -> str:
    """``text`` with poll pages' query strings and secret-like query parameters replaced by ``[scrubbed]``.

    Examples
    --------
    >>> scrub("404 GET /voila/render/06_class_poll.ipynb?join=ABC&x=1 (127.0.0.1)")
    '404 GET /voila/render/06_class_poll.ipynb?[scrubbed] (127.0.0.1)'
    >>> scrub("GET /voila/render/01_a.ipynb?eps=1&instructor_secret=s3&api_key=k")
    'GET /voila/render/01_a.ipynb?eps=1&instructor_secret=[scrubbed]&api_key=[scrubbed]'
    """
    return _SECRET_PARAM.sub(r"\1[scrubbed]", _POLL_QUERY.sub(r"\1?[scrubbed]", text))


_orig_factory = logging.getLogRecordFactory()


def _scrubbing_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _orig_factory(*args, **kwargs)
    try:
        text = record.getMessage()
    except Exception:  # noqa: BLE001 - a bad format string: leave it to the handler's own error
        return record
    if "?" in text or "=" in text:
        clean = scrub(text)
        if clean != text:
            record.msg, record.args = clean, ()
    return record


_scrubbing_factory._dpexplore = True  # type: ignore[attr-defined]


# -- HTTP connections ------------------------------------------------------------------------------
def _wrap_http_init(orig):
    def initialize(self, *args, **kwargs):
        kwargs.setdefault("idle_connection_timeout", _limits.idle_timeout)  # also Tornado's header timeout
        kwargs.setdefault("body_timeout", _limits.body_timeout)
        return orig(self, *args, **kwargs)

    initialize._dpexplore = True  # type: ignore[attr-defined]
    return initialize


def _release(stream, addr: str) -> None:
    _waiting.pop(stream, None)
    streams = _open.get(addr)
    if streams is not None and stream in streams:
        streams.discard(stream)
        _total[0] -= 1
        if not streams:
            del _open[addr]


def _prune() -> None:
    """Forget streams closed without going through ``close`` (defensive; normally a no-op)."""
    for addr, streams in list(_open.items()):
        for s in [s for s in streams if s.closed()]:
            _release(s, addr)


def _over_limit(addr: str) -> str | None:
    lim = _limits
    per = lim.max_connections_per_address
    if per > 0 and addr not in lim.exempt_addresses and len(_open.get(addr, ())) >= per:
        return f"{per} open connections from {addr}"
    if lim.max_connections > 0 and _total[0] >= lim.max_connections:
        return f"{lim.max_connections} open connections in total"
    return None


def _evict_for(addr: str) -> bool:
    """At the total cap, make room for a connection from ``addr`` (S1b, max-min fairness).

    Closes the connection that has waited longest for a request's headers (a half-sent request or an idle
    keep-alive connection; never one within a request, never a websocket) at the address holding the most
    connections, if that address holds at least two more than ``addr`` (so the two cannot take a slot back
    and forth). Returns whether one was closed.
    """
    mine = len(_open.get(addr, ()))
    exempt = set(_limits.exempt_addresses)
    for count, other in sorted(((len(s), a) for a, s in _open.items() if a not in exempt), reverse=True):
        if count < mine + 2:
            return False
        idle = [(since, id(s), s) for s in _open[other] if (since := _waiting.get(s)) is not None]
        if idle:
            victim = min(idle)[2]
            _rate_limited("evicted", "At the total connection cap: closed the longest-idle connection of %s "
                          "(%d open) for a new one from %s (%d open)", other, count, addr, mine)
            victim.close()
            return True
    return False


class _HeadersSeen(httputil.HTTPMessageDelegate):
    """Wraps a request's delegate: the stream stops waiting once the request's headers are in."""

    def __init__(self, delegate, stream):
        self._delegate, self._stream = delegate, stream

    def headers_received(self, start_line, headers):
        _waiting.pop(self._stream, None)
        return self._delegate.headers_received(start_line, headers)

    def data_received(self, chunk):
        return self._delegate.data_received(chunk)

    def finish(self):
        return self._delegate.finish()

    def on_connection_close(self):
        return self._delegate.on_connection_close()


def _wrap_start_request(orig):
    def start_request(self, server_conn, request_conn):
        delegate = orig(self, server_conn, request_conn)
        stream = getattr(server_conn, "stream", None)
        if stream is None or stream.closed():
            return delegate
        _waiting[stream] = time.monotonic()  # called before the next request's headers are read
        return _HeadersSeen(delegate, stream)

    start_request._dpexplore = True  # type: ignore[attr-defined]
    return start_request


def _wrap_handle_stream(orig):
    def handle_stream(self, stream, address):
        addr = str(address[0]) if isinstance(address, tuple) and address else str(address)
        why = _over_limit(addr)
        if why is not None:
            _prune()
            why = _over_limit(addr)
        if why is not None and why.endswith("in total") and _evict_for(addr):
            why = _over_limit(addr)
        if why is not None:
            _rate_limited("refused", "Refused new connections: %s (answered 503 and closed unread)", why)
            try:
                stream.write(_REFUSED)
            except Exception:  # noqa: BLE001 - the client may be gone already
                pass
            stream.close()
            return None
        _open[addr].add(stream)
        _total[0] += 1
        orig_close = stream.close

        def close(exc_info=False):
            _release(stream, addr)
            return orig_close(exc_info)

        stream.close = close
        return orig(self, stream, address)

    handle_stream._dpexplore = True  # type: ignore[attr-defined]
    return handle_stream


def add_accept_handler(sock: socket.socket, callback):
    """Tornado's ``netutil.add_accept_handler``, with accept errors at the open-files limit (EMFILE,
    ENFILE, ENOBUFS, ENOMEM) logged once per ``error_log_interval`` and accepting paused 0.2 s."""
    io_loop = IOLoop.current()
    removed = [False]
    paused = [False]

    def resume() -> None:
        paused[0] = False
        if not removed[0]:
            io_loop.add_handler(sock, accept_handler, IOLoop.READ)

    def accept_handler(fd, events) -> None:
        for _ in range(netutil._DEFAULT_BACKLOG):
            if removed[0] or paused[0]:
                return
            try:
                connection, address = sock.accept()
            except BlockingIOError:
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno not in _ACCEPT_ERRNOS:
                    raise
                _rate_limited("accept", "Cannot accept connections: %s (the process's open-files limit); "
                              "pausing accept for 0.2 s", exc.strerror, level=logging.ERROR)
                paused[0] = True
                io_loop.remove_handler(sock)
                io_loop.call_later(0.2, resume)
                return
            callback(connection, address)

    def remove_handler() -> None:
        if not paused[0]:
            io_loop.remove_handler(sock)
        removed[0] = True

    io_loop.add_handler(sock, accept_handler, IOLoop.READ)
    return remove_handler


add_accept_handler._dpexplore = True  # type: ignore[attr-defined]


# -- kernel websockets -----------------------------------------------------------------------------
def _wrap_ws_get(orig):
    async def get(self, kernel_id, *args, **kwargs):
        cap = _limits.max_websockets_per_kernel
        sockets = _kernel_ws[kernel_id]
        if cap > 0 and len(sockets) >= cap:
            _rate_limited(f"ws-{kernel_id}", "Refused a websocket to kernel %s: %d are open (a page needs one or "
                          "two)", kernel_id, len(sockets))
            if not sockets:
                _kernel_ws.pop(kernel_id, None)
            raise web.HTTPError(429, f"at most {cap} websockets per kernel")
        sockets.add(self)  # counted from the handshake on: simultaneous handshakes cannot pass the cap
        try:
            return await orig(self, kernel_id, *args, **kwargs)
        finally:  # tornado's get() returns when the websocket closes
            sockets.discard(self)
            if not sockets:
                _kernel_ws.pop(kernel_id, None)

    get._dpexplore = True  # type: ignore[attr-defined]
    return get


_LAGGING = 2**20  # a websocket with this much queued is checked against the limits


def _pending_bytes(stream) -> int:
    """Bytes queued in a Tornado IOStream and not yet written to the socket (0 if unknown)."""
    buf = getattr(stream, "_write_buffer", None)
    if buf is not None:
        try:
            return len(buf)  # tornado >= 5: a _StreamBuffer
        except TypeError:  # pragma: no cover - another implementation
            pass
    return int(getattr(stream, "_write_buffer_size", 0) or 0)


def _wrap_ws_write(orig):
    def write_message(self, message, binary=False):
        conn = self.ws_connection
        stream = getattr(conn, "stream", None)
        pending = _pending_bytes(stream)
        size = len(message) if isinstance(message, (bytes, str)) else 0
        if conn is not None and not conn.is_closing() and pending + size > min(_LAGGING, _limits.max_pending_output):
            why = None
            if pending + size > _limits.max_pending_output:
                why = f"{(pending + size) / 1e6:.1f} MB unsent, limit {_limits.max_pending_output / 1e6:.1f} MB"
            else:
                total = size + sum(_pending_bytes(getattr(h.ws_connection, "stream", None))
                                   for hs in _kernel_ws.values() for h in hs if h.ws_connection is not None)
                if total > _limits.max_pending_output_total:
                    why = (f"{(pending + size) / 1e6:.1f} MB unsent, all websockets {total / 1e6:.1f} MB, limit "
                           f"{_limits.max_pending_output_total / 1e6:.1f} MB")
            if why is not None:
                log.warning("Closing the websocket of kernel %s: its client does not read (%s)",
                            getattr(self, "kernel_id", "?"), why)
                conn._abort()  # closes the socket at once: sending a close frame to a non-reader is pointless
        if conn is None or conn.is_closing():
            done: Future = Future()
            done.set_result(None)
            return done  # jupyter_server logs a warning per message for WebSocketClosedError
        return orig(self, message, binary)

    write_message._dpexplore = True  # type: ignore[attr-defined]
    return write_message


def install() -> None:
    """Apply the connection limits to Tornado, jupyter_server and Voila (idempotent)."""
    if not getattr(httpserver.HTTPServer.initialize, "_dpexplore", False):
        httpserver.HTTPServer.initialize = _wrap_http_init(httpserver.HTTPServer.initialize)
    if not getattr(httpserver.HTTPServer.handle_stream, "_dpexplore", False):
        httpserver.HTTPServer.handle_stream = _wrap_handle_stream(httpserver.HTTPServer.handle_stream)
    if not getattr(httpserver.HTTPServer.start_request, "_dpexplore", False):
        httpserver.HTTPServer.start_request = _wrap_start_request(httpserver.HTTPServer.start_request)
    tcpserver.add_accept_handler = add_accept_handler  # imported by name there
    if not getattr(logging.getLogRecordFactory(), "_dpexplore", False):
        logging.setLogRecordFactory(_scrubbing_factory)
    from jupyter_server.services.kernels.websocket import KernelWebsocketHandler

    if not getattr(KernelWebsocketHandler.get, "_dpexplore", False):
        KernelWebsocketHandler.get = _wrap_ws_get(KernelWebsocketHandler.get)
    if not getattr(getattr(KernelWebsocketHandler, "write_message", None), "_dpexplore", False):
        KernelWebsocketHandler.write_message = _wrap_ws_write(websocket.WebSocketHandler.write_message)
    try:
        from voila.handler import BaseVoilaHandler
    except ImportError:  # pragma: no cover - Voila not installed
        return
    if not getattr(BaseVoilaHandler.set_default_headers, "_dpexplore", False):
        orig = BaseVoilaHandler.set_default_headers

        def set_default_headers(self):
            orig(self)
            self.set_header("Referrer-Policy", "no-referrer")

        set_default_headers._dpexplore = True  # type: ignore[attr-defined]
        BaseVoilaHandler.set_default_headers = set_default_headers
