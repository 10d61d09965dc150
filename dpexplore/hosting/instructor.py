"""The server side of the instructor credential (:mod:`dpexplore.classroom.credentials`).

Wraps Voila's render handler (``TornadoVoilaHandler.get``) so that on every page request

* a client's own ``X-Dpx-Instructor`` / ``X-Dpx-Client`` headers are dropped (only the server sets them);
* ``X-Dpx-Client`` is set to the client's own address where the server knows it (:func:`client_address`):
  the page's kernel rate-limits failed joins by it. A request from 127.0.0.1 or ::1 (a hub's proxy, an
  nginx on the same machine, or this machine's own browser) carries no ``X-Dpx-Client``: an address the
  whole room shares is no identity (issue 39 J1), so failures are then counted per hub user or per page
  view. ``$DPEXPLORE_TRUSTED_PROXIES`` (comma-separated addresses or networks, e.g. ``127.0.0.1``) names
  the proxies whose ``X-Forwarded-For`` is believed: from those, the client is the right-most address of
  that header that is not itself a trusted proxy; from anybody else the header is ignored;
* ``?instructor=TOKEN`` (the link the launcher printed) is **exchanged**: a valid token gets the
  ``HttpOnly``, ``SameSite=Strict`` cookie :data:`COOKIE` (an expiry and an HMAC, not the token), and
  either way the answer is a redirect to the same page without the token (``?teach=1``), with
  ``Referrer-Policy: no-referrer``: no kernel is started, the token never reaches a kernel's
  environment, and later requests and their ``Referer`` headers do not carry it;
* a request with a valid cookie gets a fresh short-lived grant in ``X-Dpx-Instructor``, which Voila
  passes to the page's kernel (the two header names are added to ``VoilaConfiguration.http_header_envs``).

Imported only by :func:`dpexplore.hosting.install_voila_mitigations` (it imports tornado).
"""

from __future__ import annotations

import hmac
import inspect
import ipaddress
import logging
import os
from urllib.parse import parse_qsl, urlencode

from ..classroom import credentials as cred

__all__ = ["COOKIE", "CLIENT_HEADER", "EXCHANGE_PARAM", "TRUSTED_PROXIES_ENV", "call_get", "client_address",
           "wrap_render", "install"]

COOKIE = "dpx-instructor"
CLIENT_HEADER = "X-Dpx-Client"
EXCHANGE_PARAM = "instructor"
_HEADERS = (cred.GRANT_HEADER, CLIENT_HEADER)
_LOG = logging.getLogger("dpexplore.hosting")
TRUSTED_PROXIES_ENV = "DPEXPLORE_TRUSTED_PROXIES"
_MAX_FORWARDED = 20  # X-Forwarded-For entries looked at (a client may send a long one)
#: the addresses a proxy on this machine connects from (a hub's proxy, nginx): an address the whole room shares
_PROXY_PEERS = ("127.0.0.1", "::1")


def _networks(text: str) -> list:
    nets = []
    for part in text.split(","):
        part = part.strip()
        if part:
            try:
                nets.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                _LOG.warning("dpexplore: $%s: %r is not an address or network; ignored", TRUSTED_PROXIES_ENV,
                             part[:60])
    return nets


def _address(text: str):
    try:
        return ipaddress.ip_address(text.strip().split("%", 1)[0])
    except ValueError:
        return None


def client_address(remote_ip: str | None, forwarded_for: str | None = None, trusted: str | None = None) -> str:
    """The client's own address as far as the server can know it, or ``""`` when it cannot.

    Parameters
    ----------
    remote_ip : str
        The address of the connection's peer.
    forwarded_for : str, optional
        The request's ``X-Forwarded-For`` header (believed only from a trusted proxy).
    trusted : str, optional
        Comma-separated trusted proxy addresses or networks (default ``$DPEXPLORE_TRUSTED_PROXIES``).

    Examples
    --------
    >>> client_address("198.51.100.7")
    '198.51.100.7'
    >>> client_address("127.0.0.1", "203.0.113.5")  # a proxy nobody said to trust: no address
    ''
    >>> client_address("127.0.0.1", "6.6.6.6, 203.0.113.5", trusted="127.0.0.1")  # nginx appended the peer
    '203.0.113.5'
    >>> client_address("198.51.100.7", "6.6.6.6", trusted="127.0.0.1")  # not from the proxy: header ignored
    '198.51.100.7'
    """
    nets = _networks(os.environ.get(TRUSTED_PROXIES_ENV, "") if trusted is None else trusted)
    peer = _address(remote_ip or "")
    if peer is None:
        return ""
    if any(peer in n for n in nets if n.version == peer.version):
        hops = [h for h in (forwarded_for or "").split(",")[-_MAX_FORWARDED:]]
        for hop in reversed(hops):
            addr = _address(hop)
            if addr is None:
                return ""  # a malformed hop: no address rather than a forged one
            if not any(addr in n for n in nets if n.version == addr.version):
                return "" if str(addr) in _PROXY_PEERS else str(addr)
        return ""
    return "" if str(peer) in _PROXY_PEERS else str(peer)


def _token(handler) -> str | None:
    try:
        return cred.read_instructor_token()
    except cred.CredentialError as exc:
        getattr(handler, "log", _LOG).warning("dpexplore: instructor token refused: %s", exc)
        return None


def _exchange(handler, offered: str) -> None:
    token = _token(handler)
    query = [(k, v) for k, v in parse_qsl(handler.request.query, keep_blank_values=True)
             if k not in (EXCHANGE_PARAM, "teach")]
    if token is not None and hmac.compare_digest(offered.encode(errors="replace"), token.encode()):
        handler.set_cookie(COOKIE, cred.make_cookie(token), path=handler.base_url or "/", httponly=True,
                           samesite="Strict", secure=handler.request.protocol == "https",
                           max_age=cred.COOKIE_SECONDS)
    else:
        getattr(handler, "log", _LOG).warning("dpexplore: an instructor link with a wrong token was used (from %s)",
                                              handler.request.remote_ip)
    path = "/" + handler.request.path.lstrip("/")  # never a protocol-relative //host redirect
    handler.request.uri = f"{path}?{EXCHANGE_PARAM}=<redacted>"  # what the access log prints for this request
    handler.set_header("Referrer-Policy", "no-referrer")
    handler.set_header("Cache-Control", "no-store")
    handler.redirect(f"{path}?{urlencode([*query, ('teach', '1')])}")


async def call_get(orig_get, handler, *args, **kwargs):
    """Call a wrapped handler's ``get`` and await what it returns when that is awaitable.

    Voila's ``get`` is ``@tornado.web.authenticated``: for a visitor not yet logged in (a hub user's first
    request) the decorator redirects and returns ``None`` instead of a coroutine; awaiting that raised a
    TypeError, logged with a traceback on every first page view under a hub.
    """
    result = orig_get(handler, *args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


def wrap_render(orig_get):
    """Wrap a render handler's ``get`` (see the module docstring)."""

    async def get(self, path=None):
        headers = self.request.headers
        for name in _HEADERS:
            if name in headers:
                del headers[name]
        cfg = getattr(self, "voila_configuration", None)
        if cfg is not None and not all(h in cfg.http_header_envs for h in _HEADERS):
            cfg.http_header_envs = [*cfg.http_header_envs, *(h for h in _HEADERS if h not in cfg.http_header_envs)]
        offered = self.get_query_argument(EXCHANGE_PARAM, None)
        if offered is not None:
            return _exchange(self, offered)
        client = client_address(self.request.remote_ip, headers.get("X-Forwarded-For"))
        if client:
            headers[CLIENT_HEADER] = client[:200]
        cookie = self.get_cookie(COOKIE)
        if cookie:
            token = _token(self)
            if token is not None and cred.check_cookie(token, cookie):
                headers[cred.GRANT_HEADER] = cred.make_grant(token)
        return await call_get(orig_get, self, path)

    get._dpexplore = True  # type: ignore[attr-defined]  # patches.install() sees a patched get: no re-wrap
    get._dpx_instructor = True  # type: ignore[attr-defined]
    return get


def install() -> bool:
    """Wrap Voila's render handler (idempotent); False if Voila is not installed."""
    try:
        from voila.tornado.handler import TornadoVoilaHandler
    except ImportError:  # pragma: no cover - Voila not installed or restructured
        return False
    if not getattr(TornadoVoilaHandler.get, "_dpx_instructor", False):
        TornadoVoilaHandler.get = wrap_render(TornadoVoilaHandler.get)
    return True
