"""The patches :func:`dpexplore.hosting.install_voila_mitigations` applies to jupyter_server and Voila.

Imported only by that function (it imports jupyter_server, tornado and Voila). Each patch replaces a
class attribute or a module-level name, so it holds however the name was imported elsewhere.

* **Incoming frames** (every kernel websocket, Voila and plain jupyter_server alike):
  ``ZMQChannelsWebsocketConnection.handle_incoming_message`` first checks the frame with
  :mod:`dpexplore.hosting.frames` and closes the socket (code 1008) on a malformed one, and the
  deserializers jupyter_server imported *by name* into
  ``jupyter_server.services.kernels.connection.channels`` are replaced by checking versions.
* **Client-created widgets** (kernels started for a Voila page only): a ``comm_open`` from the
  client is dropped unless it opens the widget *control* comm the page's widget manager uses to ask
  for the widgets' state (``jupyter.widget.control``), at most :data:`MAX_CLIENT_COMMS` times per kernel;
  a connection may ask for every widget's state (``request_states``, each reply ~0.36 MiB for
  dashboard 01) at most ``ConnectionLimits.max_state_requests`` times (a page asks once per
  connection); and a
  ``shutdown_request`` (restart) from the client is dropped: the restarted kernel was empty and kept
  its slot (the page's tab-close request is the legitimate route).
* **Tab-close shutdown**: the rendered page gets an owner cookie for its kernel
  (:func:`owner_token`, an HMAC of the kernel id under a per-process secret, ``HttpOnly``,
  ``SameSite=Strict``, scoped to ``/voila/api/shutdown/<kernel id>``), and
  ``VoilaShutdownKernelHandler`` accepts the page's ``beforeunload`` beacon when it carries that
  cookie. Without it, a shutdown is accepted only on a server with authentication (a token or a
  password: JupyterLab, Binder), under jupyter_server's usual XSRF rule. On an open Voila server the
  XSRF rule alone protects nothing (a script sets the ``_xsrf`` cookie and form field itself), so
  ``DELETE /api/kernels/<id>`` of a page kernel is refused there too. ``GET /api/kernels/<id>`` of a page
  kernel there answers only the page (a second cookie, :func:`api_cookie_name`, scoped to that path), and
  404 to anyone else.
* **Preheated kernels** (``--preheat_kernel``): when Voila hands a pooled kernel to a page
  (``RequestInfoSocketHandler.send_updates``), the kernel manager is told (it becomes that page's
  kernel: grace, connect timeout, owner cookie), and the request-info websocket
  ``/voila/query/<kernel id>``, which hands a page's query string and headers to its kernel, accepts
  only this server's kernels (a per-process token, :data:`QUERY_TOKEN`, given to pooled kernels in
  their environment) and no longer drops another kernel's waiter when a connection closes (0.5.13's
  ``on_close`` deletes the last waiter when it does not find its own: that kernel then waits forever).
  A page takes a pooled kernel only when one has started (``should_use_rendered_notebook``):
  otherwise it gets a new kernel at once instead of waiting for a refill still starting.
* **Page tracking**: the render handler tells :class:`~dpexplore.hosting.kernels.LimitedKernelManager`
  which kernel it started and when it finished sending the page, so kernels whose page never
  connected can be shut down soon after.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import os
import re
import secrets

import tornado.web
from jupyter_server.services.kernels.connection import base as conn_base
from jupyter_server.services.kernels.connection import channels as conn_channels
from jupyter_server.utils import url_path_join

from .connections import limits
from .frames import BadFrame, parse_client_frame, parse_legacy_frame, parse_v1_frame
from .instructor import call_get, client_address

__all__ = ["MAX_CLIENT_COMMS", "CLIENT_COMM_TARGETS", "CODE_REQUESTS", "LOCKDOWN_ENV",
           "PAGE_CSP", "QUERY_TOKEN", "api_cookie_name", "api_token", "owner_cookie_name", "owner_token",
           "strip_external_links", "current_page", "install"]

V1 = "v1.kernel.websocket.jupyter.org"
#: comm targets a Voila page's own front end opens (ipywidgets 8: ask the kernel for every widget's state)
CLIENT_COMM_TARGETS = frozenset({"jupyter.widget.control"})
#: how many such comms a client may open per kernel (one per page load / reconnect)
MAX_CLIENT_COMMS = 32
#: client requests that run or inspect code in a kernel; a Voila page's front end sends none of them.
#: Standalone Voila drops them itself; jupyter_server's websocket (Voila as an extension: Binder, JupyterLab,
#: a hub user's server) forwarded them, so a page's kernel ran code sent over its websocket. Dropped here for
#: page kernels always, and for every kernel when ``$DPEXPLORE_LOCKDOWN`` is ``1`` (the hub recipe sets it:
#: students get Voila only).
CODE_REQUESTS = frozenset({"execute_request", "inspect_request", "complete_request", "history_request",
                           "is_complete_request", "debug_request"})
LOCKDOWN_ENV = "DPEXPLORE_LOCKDOWN"

_SECRET = secrets.token_bytes(32)
#: what a preheated kernel presents to /voila/query/<kernel id> (``?dpx_token=``); given in its environment
QUERY_TOKEN = secrets.token_urlsafe(24)
_CURRENT_PAGE: contextvars.ContextVar[_PageRequest | None] = contextvars.ContextVar("dpexplore_page", default=None)


def owner_token(kernel_id: str) -> str:
    """The owner-cookie value of ``kernel_id`` (HMAC-SHA256 under this process's secret)."""
    return hmac.new(_SECRET, kernel_id.encode(), hashlib.sha256).hexdigest()


def owner_cookie_name(kernel_id: str) -> str:
    return f"dpx-kernel-{kernel_id}"


def api_cookie_name(kernel_id: str) -> str:
    """The cookie that lets a page read ``GET /api/kernels/<its kernel id>`` (scoped to that path)."""
    return f"dpx-kapi-{kernel_id}"


def api_token(kernel_id: str) -> str:
    """The value of :func:`api_cookie_name` (an HMAC under this process's secret, another domain than
    :func:`owner_token`, so neither cookie stands for the other)."""
    return hmac.new(_SECRET, b"api:" + kernel_id.encode(), hashlib.sha256).hexdigest()


class _PageRequest:
    """The render request being served in this task (see :func:`current_page`)."""

    def __init__(self, handler):
        self.handler = handler
        self.kernel_id: str | None = None
        req = getattr(handler, "request", None)
        #: the client's own address where the server knows it (see dpexplore.hosting.instructor.client_address)
        self.client = "" if req is None else client_address(req.remote_ip, req.headers.get("X-Forwarded-For"))

    def kernel_started(self, kernel_id: str) -> None:
        """Called by the kernel manager: give the page the owner cookie of its kernel."""
        self.kernel_id = kernel_id
        h = self.handler
        record = getattr(getattr(h, "kernel_manager", None), "page_kernel_of", None)
        if record is not None:
            record(kernel_id, self.client)
        if not h._headers_written:
            h.set_cookie(owner_cookie_name(kernel_id), owner_token(kernel_id),
                         path=url_path_join(h.base_url, "voila/api/shutdown", kernel_id),
                         httponly=True, samesite="Strict", expires_days=1)
            # the front end reads its kernel's model when its websocket fails (is the kernel dead?)
            h.set_cookie(api_cookie_name(kernel_id), api_token(kernel_id),
                         path=url_path_join(h.base_url, "api/kernels", kernel_id),
                         httponly=True, samesite="Strict", expires_days=1)


def current_page() -> _PageRequest | None:
    """The Voila render request this coroutine serves, or None (a kernel started through the REST API)."""
    return _CURRENT_PAGE.get()


# -- incoming frames ------------------------------------------------------------------------------
def _checked_v1(ws_msg):
    _, channel, msg_list = parse_v1_frame(ws_msg)
    return channel, msg_list


_orig_binary = conn_base.deserialize_binary_message


def _checked_binary(bmsg):
    parse_legacy_frame(bytes(bmsg))
    return _orig_binary(bmsg)


def _is_page_kernel(connection) -> bool:
    pages = getattr(connection.multi_kernel_manager, "page_kernels", None)
    return pages is not None and connection.kernel_id in pages


def _refuse_comm_open(connection, msg) -> str | None:
    """Why a client comm_open must be dropped, or None to let it through."""
    target = msg.content.get("target_name")
    if target not in CLIENT_COMM_TARGETS:
        return f"a client may not create comms with target {str(target)[:40]!r} (only the page's own widgets)"
    km = connection.kernel_manager
    opened = getattr(km, "_dpx_client_comms", 0)
    if opened >= MAX_CLIENT_COMMS:
        return f"more than {MAX_CLIENT_COMMS} client comms for one kernel"
    km._dpx_client_comms = opened + 1
    return None


def _drop_once(connection, kind: str, message: str, *args) -> None:
    """Log a dropped client message once per connection and kind."""
    seen = connection.__dict__.setdefault("_dpx_dropped", set())
    if kind not in seen:
        seen.add(kind)
        connection.log.warning(message + " (further ones on this connection dropped silently)", *args)


def _refuse_page_message(connection, msg) -> bool:
    """Drop (True) the client messages a Voila page's kernel must not act on."""
    if msg.msg_type == "comm_open":
        why = _refuse_comm_open(connection, msg)
        if why is not None:
            connection.log.warning("Dropped a comm_open from the client of kernel %s: %s", connection.kernel_id, why)
            return True
    elif msg.msg_type == "shutdown_request":
        _drop_once(connection, "shutdown", "Dropped a shutdown_request from the client of kernel %s: a page's "
                   "kernel is not restarted or shut down over its websocket", connection.kernel_id)
        return True
    elif msg.msg_type == "comm_msg":
        data = msg.content.get("data")
        if isinstance(data, dict) and data.get("method") == "request_states":
            n = connection.__dict__.get("_dpx_state_requests", 0) + 1
            connection._dpx_state_requests = n
            cap = limits().max_state_requests
            if n > cap:
                _drop_once(connection, "states", "Dropped request_states from the client of kernel %s: more than "
                           "%d on one connection", connection.kernel_id, cap)
                return True
    return False


def _wrap_incoming(orig):
    def handle_incoming_message(self, incoming_msg):
        if not self.channels:
            return orig(self, incoming_msg)  # closed: the original ignores it
        try:
            msg = parse_client_frame(incoming_msg, v1=self.subprotocol == V1)
        except BadFrame as exc:
            self.log.warning("Closing the websocket of kernel %s: malformed frame (%s)", self.kernel_id, exc)
            self.websocket_handler.close(1008, "malformed frame")
            return None
        page = _is_page_kernel(self)
        if msg.msg_type in CODE_REQUESTS and (page or os.environ.get(LOCKDOWN_ENV) == "1"):
            _drop_once(self, "code", "Dropped a %s from the client of kernel %s: %s", msg.msg_type, self.kernel_id,
                       "a Voila page's kernel runs no client code" if page else f"{LOCKDOWN_ENV}=1")
            return None
        if page and _refuse_page_message(self, msg):
            return None
        if page:
            note = getattr(self.multi_kernel_manager, "client_input", None)
            if note is not None:
                note(self.kernel_id)  # the page is in use (LimitedKernelManager.idle_page_timeout)
        return orig(self, incoming_msg)

    handle_incoming_message._dpexplore = True  # type: ignore[attr-defined]
    return handle_incoming_message


# -- /logout on a server without a login -----------------------------------------------------------
def _wrap_logout(orig_get):
    """jupyter_server's ``LogoutHandler.get`` under standalone Voila (no login, no ``static_path`` for the
    logout page's template): it answered 500 with a traceback in the log (issue 39). Plain 404 there."""

    async def get(self):
        if getattr(self.identity_provider, "auth_enabled", True):
            return await orig_get(self) if _is_coroutine(orig_get) else orig_get(self)
        self.set_status(404)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish("404: this server has no login, so there is nothing to log out of\n")

    get._dpexplore = True  # type: ignore[attr-defined]
    return get


def _is_coroutine(func) -> bool:
    import inspect

    return inspect.iscoroutinefunction(func)


# -- no third party: the page's Content-Security-Policy, and Voila's CDN stylesheet links dropped -----------
#: sent with every Voila page (render and tree): nothing from another origin may load, connect or frame it.
#: 'unsafe-inline'/'unsafe-eval' stay for scripts: Voila's pages carry inline configuration scripts and the
#: JupyterLab widget bundles evaluate code; anywidget imports its module from a blob: URL (without blob: every
#: anywidget model failed to initialise); all of it is this server's own bytes.
PAGE_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data:; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; "
            "connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'self'; object-src 'none'; "
            "base-uri 'self'; form-action 'self'")
# Voila 0.5's lab template links Font Awesome's CSS on a public CDN (2 requests per page view from every
# student's browser, issue 39); the same Font Awesome 5.15.4 is already inside Voila's own bundle
_EXTERNAL_LINK = re.compile(r'<link\b[^>]*\bhref="(?:https?:)?//[^"]*"[^>]*>\s*', re.IGNORECASE)


def strip_external_links(html):
    """Drop ``<link href="https://…">`` elements from a chunk of a page (str or bytes).

    Examples
    --------
    >>> strip_external_links('<head><link rel="stylesheet" href="https://cdn.example/x.css" type="text/css" />'
    ...                      '<link rel="stylesheet" href="static/own.css"></head>')
    '<head><link rel="stylesheet" href="static/own.css"></head>'
    """
    if isinstance(html, bytes):
        return _EXTERNAL_LINK.sub("", html.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    if isinstance(html, str):
        return _EXTERNAL_LINK.sub("", html)
    return html


def _no_third_party(handler) -> None:
    handler.set_header("Content-Security-Policy", PAGE_CSP)
    if not getattr(handler, "_dpx_stripping", False):
        write = handler.write

        def stripped_write(chunk):
            return write(strip_external_links(chunk))

        handler.write = stripped_write
        handler._dpx_stripping = True


def _wrap_tree(orig_get):
    async def get(self, path=""):
        _no_third_party(self)
        return await call_get(orig_get, self, path)

    get._dpexplore = True  # type: ignore[attr-defined]
    return get


# -- Voila's render and shutdown handlers ---------------------------------------------------------
def _wrap_render(orig_get):
    async def get(self, path=None):
        _no_third_party(self)
        page = _PageRequest(self)
        requested = getattr(self.kernel_manager, "page_requested", None)
        if requested is not None:
            requested(page.client)  # may refuse (503): this client holds its share of the kernels
        token = _CURRENT_PAGE.set(page)
        try:
            return await call_get(orig_get, self, path)
        finally:
            _CURRENT_PAGE.reset(token)
            done = getattr(self.kernel_manager, "page_done", None)
            if done is not None:
                done(page.client)
            if page.kernel_id is not None:
                sent = getattr(self.kernel_manager, "page_sent", None)
                if sent is not None:
                    sent(page.kernel_id)

    get._dpexplore = True  # type: ignore[attr-defined]
    return get


def _owner_ok(handler) -> bool:
    kernel_id = handler.path_args[0] if handler.path_args else ""
    if isinstance(kernel_id, bytes):
        kernel_id = kernel_id.decode(errors="replace")
    cookie = handler.get_cookie(owner_cookie_name(kernel_id)) if kernel_id else None
    return bool(cookie) and hmac.compare_digest(cookie, owner_token(kernel_id))


def _wrap_xsrf(orig_check):
    def check_xsrf_cookie(self):
        if not hasattr(self, "_jupyter_current_user"):
            return None  # called before authentication; jupyter_server calls it again in prepare()
        if _owner_ok(self):
            return None  # the page that received this kernel (SameSite=Strict: not a cross-site request)
        if not getattr(self.identity_provider, "auth_enabled", True):
            raise tornado.web.HTTPError(403, "only the page that owns a kernel can shut it down")
        return orig_check(self)

    check_xsrf_cookie._dpexplore = True  # type: ignore[attr-defined]
    return check_xsrf_cookie


def _wrap_kernel_api_xsrf(orig_check):
    """``DELETE /api/kernels/<id>`` of a Voila page's kernel on a server without authentication: refused.

    jupyter_server's XSRF rule (cookie equals form/header value) is no protection against a script, which
    sets both itself; Voila's page never uses this route (it shuts down through the beacon above).
    """

    def check_xsrf_cookie(self):
        if not hasattr(self, "_jupyter_current_user"):
            return None
        if self.request.method not in ("GET", "HEAD", "OPTIONS") and not getattr(
                self.identity_provider, "auth_enabled", True):
            kernel_id = self.path_kwargs.get("kernel_id") or (self.path_args[0] if self.path_args else "")
            if kernel_id in getattr(self.kernel_manager, "page_kernels", {}):
                raise tornado.web.HTTPError(403, "a Voila page's kernel is shut down only by its own page")
        return orig_check(self)

    check_xsrf_cookie._dpexplore = True  # type: ignore[attr-defined]
    return check_xsrf_cookie


def _wrap_kernel_get(orig_get):
    """``GET /api/kernels/<id>`` of a Voila page's kernel on a server without authentication: only the page
    that received the kernel (its :func:`api_cookie_name` cookie) reads the model; anyone else gets the
    same 404 as for a kernel that does not exist (no existence oracle, no activity or connection counts).

    The page's front end (``@jupyterlab/services``) asks only when its websocket fails, to tell a dead kernel
    from a dropped connection; a 404 makes it reconnect, as a live kernel's model does.
    """

    async def get(self, kernel_id, *args, **kwargs):
        km = self.kernel_manager
        if (not getattr(self.identity_provider, "auth_enabled", True)
                and kernel_id in getattr(km, "page_kernels", {})):
            cookie = self.get_cookie(api_cookie_name(kernel_id))
            if not (cookie and hmac.compare_digest(cookie, api_token(kernel_id))):
                raise tornado.web.HTTPError(404, "Kernel does not exist: %s", kernel_id)
        return await call_get(orig_get, self, kernel_id, *args, **kwargs)

    get._dpexplore = True  # type: ignore[attr-defined]
    return get


@tornado.web.authenticated
async def _shutdown_post(self, kernel_id):
    if kernel_id in self.kernel_manager:
        from jupyter_core.utils import ensure_async

        await ensure_async(self.kernel_manager.shutdown_kernel(kernel_id))
    self.clear_cookie(owner_cookie_name(kernel_id), path=url_path_join(self.base_url, "voila/api/shutdown", kernel_id))
    self.set_status(204)
    self.finish()


_shutdown_post._dpexplore = True  # type: ignore[attr-defined]


# -- preheated kernels: Voila's request-info websocket --------------------------------------------
def _wrap_send_updates(orig):
    """``RequestInfoSocketHandler.send_updates`` (a classmethod), called by the render handler right
    after it took a pooled kernel for this page, before any byte of the page is written."""

    def send_updates(cls, msg):
        page = current_page()
        kernel_id = msg.get("kernel_id") if isinstance(msg, dict) else None
        if page is not None and isinstance(kernel_id, str):
            taken = getattr(page.handler.kernel_manager, "pool_kernel_taken", None)
            if taken is not None:
                taken(kernel_id)
            page.kernel_started(kernel_id)  # the owner cookie: this page may shut its kernel down
        orig(msg)
        if isinstance(kernel_id, str) and isinstance(msg, dict):
            # keep it also for a kernel whose connection dropped: it reconnects and gets it in open()
            cls._cache[kernel_id] = msg.get("payload")

    send_updates._dpexplore = True  # type: ignore[attr-defined]
    return classmethod(send_updates)


def _wrap_should_use(orig):
    """``VoilaHandler.should_use_rendered_notebook``: use the pool only when a pooled kernel has started
    (Voila's own check counts starts still pending, and the page then waited for one, or failed with it)."""

    def should_use_rendered_notebook(self, notebook_data, pool_size, *args, **kwargs):
        if not orig(self, notebook_data, pool_size, *args, **kwargs):
            return False
        km = self.kernel_manager
        ready = getattr(km, "ready_pool_first", None)
        if ready is None:
            return True
        name = next((n for n, d in getattr(km, "notebook_data", {}).items() if d is notebook_data), None)
        return name is not None and ready(name)

    should_use_rendered_notebook._dpexplore = True  # type: ignore[attr-defined]
    return should_use_rendered_notebook


def _query_open(self, kernel_id, *args, **kwargs):
    token = self.get_argument("dpx_token", "")
    if not (isinstance(token, str) and hmac.compare_digest(token.encode(), QUERY_TOKEN.encode())):
        self.close(1008, "not a kernel of this server")
        return None
    cls = type(self)
    cls._waiters[kernel_id] = self
    payload = cls._cache.pop(kernel_id, None)
    if payload is not None:
        self.write_message(payload)
    return None


def _query_on_close(self):
    cls = type(self)
    for kernel_id, waiter in list(cls._waiters.items()):
        if waiter is self:
            del cls._waiters[kernel_id]


_query_open._dpexplore = True  # type: ignore[attr-defined]


def install() -> dict[str, bool]:
    """Apply every patch (idempotent); return which targets were found."""
    done: dict[str, bool] = {}
    cls = conn_channels.ZMQChannelsWebsocketConnection
    if not getattr(cls.handle_incoming_message, "_dpexplore", False):
        cls.handle_incoming_message = _wrap_incoming(cls.handle_incoming_message)
    # the names jupyter_server imported by name, and their defining module
    for mod in (conn_channels, conn_base):
        mod.deserialize_msg_from_ws_v1 = _checked_v1
        mod.deserialize_binary_message = _checked_binary
    done["incoming_frames"] = True
    from jupyter_server.services.kernels.handlers import KernelHandler

    if not getattr(KernelHandler.check_xsrf_cookie, "_dpexplore", False):
        KernelHandler.check_xsrf_cookie = _wrap_kernel_api_xsrf(KernelHandler.check_xsrf_cookie)
    if not getattr(KernelHandler.get, "_dpexplore", False):
        KernelHandler.get = _wrap_kernel_get(KernelHandler.get)
    from jupyter_server.auth.logout import LogoutHandler

    if not getattr(LogoutHandler.get, "_dpexplore", False):
        LogoutHandler.get = _wrap_logout(LogoutHandler.get)
    try:
        from voila.shutdown_kernel_handler import VoilaShutdownKernelHandler
        from voila.tornado.handler import TornadoVoilaHandler
    except ImportError:  # pragma: no cover - Voila not installed or restructured
        done["voila_handlers"] = False
        return done
    if not getattr(TornadoVoilaHandler.get, "_dpexplore", False):
        TornadoVoilaHandler.get = _wrap_render(TornadoVoilaHandler.get)
    try:
        from voila.tornado.treehandler import TornadoVoilaTreeHandler as _Tree
    except ImportError:  # pragma: no cover - Voila restructured
        _Tree = None
    if _Tree is not None and not getattr(_Tree.get, "_dpexplore", False):
        _Tree.get = _wrap_tree(_Tree.get)
    if not getattr(VoilaShutdownKernelHandler.check_xsrf_cookie, "_dpexplore", False):
        VoilaShutdownKernelHandler.check_xsrf_cookie = _wrap_xsrf(VoilaShutdownKernelHandler.check_xsrf_cookie)
    VoilaShutdownKernelHandler.post = _shutdown_post
    try:
        from voila.request_info_handler import RequestInfoSocketHandler
    except ImportError:  # pragma: no cover - Voila restructured
        done["voila_preheat"] = False
    else:
        from voila.handler import VoilaHandler

        if not getattr(VoilaHandler.should_use_rendered_notebook, "_dpexplore", False):
            VoilaHandler.should_use_rendered_notebook = _wrap_should_use(VoilaHandler.should_use_rendered_notebook)
        if not getattr(RequestInfoSocketHandler.send_updates, "_dpexplore", False):
            RequestInfoSocketHandler.send_updates = _wrap_send_updates(RequestInfoSocketHandler.send_updates)
        RequestInfoSocketHandler.open = _query_open
        RequestInfoSocketHandler.on_close = _query_on_close
        done["voila_preheat"] = True
    done["voila_handlers"] = True
    return done
