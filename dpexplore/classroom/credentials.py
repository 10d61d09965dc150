"""Who may create a class poll: the instructor credential (standard library only).

A Voila page is opened by anybody who can reach the server, so a page kernel may create a poll only
when the server vouches for the person who asked for the page. The chain:

1. **The launcher's token.** ``python -m dpexplore.serve`` creates (once) a random token in the
   file ``instructor-token`` of the poll directory, mode 0600 — readable only by the server's user
   — and prints the *instructor link* ``…/06_class_poll.ipynb?instructor=TOKEN``
   (:func:`ensure_instructor_token`, :func:`instructor_link`).
2. **The cookie.** The server (:mod:`dpexplore.hosting.instructor`) answers that link with an
   ``HttpOnly``, ``SameSite=Strict`` cookie (:func:`make_cookie`: an expiry and an HMAC under the
   token, not the token) and a redirect to the same page *without* the token: the token is in one
   URL, once, and never reaches a kernel.
3. **The grant.** On each later page request carrying a valid cookie the server adds a short-lived
   grant (:func:`make_grant`: expiry, nonce, HMAC) as a request header, which Voila hands to the
   page's kernel as ``$HTTP_X_DPX_INSTRUCTOR``; the kernel checks it against the token file
   (:func:`instructor_identity`). A grant lives :data:`GRANT_SECONDS`; the cookie
   :data:`COOKIE_SECONDS`.

Code run outside a Voila page (JupyterLab, a script, the tests) runs as the server's user, who can
read the token file anyway: it is the instructor ``"local"``.

**Plugging in a hub** (issue 27): :func:`register_instructor_source` adds a function
``environ -> identity | None`` tried after the launcher's grant, e.g. one that maps a hub user in
JupyterHub's ``instructors`` group to ``"hub:<name>"``. The identity is stored with each poll
(``polls.creator``): polls are counted per creator, and a creator re-opens their class view without
the poll's secret.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from .paths import default_poll_dir

__all__ = ["TOKEN_FILE", "GRANT_HEADER", "GRANT_ENV", "COOKIE_SECONDS", "GRANT_SECONDS", "CredentialError",
           "token_path", "ensure_instructor_token", "read_instructor_token", "instructor_link", "make_cookie",
           "check_cookie", "make_grant", "check_grant", "in_voila_page", "instructor_identity",
           "register_instructor_source"]

TOKEN_FILE = "instructor-token"
#: request header the server sets (and strips from clients) and the kernel variable Voila makes of it
GRANT_HEADER = "X-Dpx-Instructor"
GRANT_ENV = "HTTP_X_DPX_INSTRUCTOR"
#: life of the instructor cookie and of one page's grant (seconds)
COOKIE_SECONDS = 12 * 3600
GRANT_SECONDS = 600
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
_SIGNED_RE = re.compile(r"(\d{1,12})\.([A-Za-z0-9_-]{0,32})\.([0-9a-f]{64})")
_SOURCES: list[Callable[[Mapping[str, str]], str | None]] = []


class CredentialError(RuntimeError):
    """The token file exists but cannot be trusted (not a regular file, readable by others, ...)."""


def token_path(poll_dir: str | os.PathLike | None = None) -> Path:
    """Where the instructor token lives: ``instructor-token`` in the poll directory."""
    return Path(poll_dir if poll_dir is not None else default_poll_dir()) / TOKEN_FILE


def read_instructor_token(poll_dir: str | os.PathLike | None = None) -> str | None:
    """The launcher's token, or None if there is no token file.

    The file is verified before it is trusted: a regular file (not a symlink, FIFO or device), owned
    by this user, not readable or writable by group or others, at most 256 bytes, holding one token.

    Raises
    ------
    CredentialError
        The file exists but fails a check (the message says which).
    """
    path = token_path(poll_dir)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CredentialError(f"{path} cannot be opened ({type(exc).__name__}: {exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CredentialError(f"{path} is not a regular file")
        if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
            raise CredentialError(f"{path} belongs to another user (uid {st.st_uid})")
        if st.st_mode & 0o077:
            raise CredentialError(f"{path} is accessible to other users (mode {stat.S_IMODE(st.st_mode):o}); "
                                  "it must be 600: chmod 600 it, or delete it and restart the launcher")
        if st.st_size > 256:
            raise CredentialError(f"{path} is {st.st_size} bytes; a token file has 44")
        text = os.read(fd, 257).decode("ascii", errors="replace").strip()
    finally:
        os.close(fd)
    if not _TOKEN_RE.fullmatch(text):
        raise CredentialError(f"{path} does not hold a token (43 characters from A-Z, a-z, 0-9, '-', '_')")
    return text


def ensure_instructor_token(poll_dir: str | os.PathLike | None = None) -> str:
    """The launcher's token, created (mode 0600, atomically) if there is none yet.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> t = ensure_instructor_token(d)
    >>> t == ensure_instructor_token(d) == read_instructor_token(d), len(t)
    (True, 43)
    """
    found = read_instructor_token(poll_dir)
    if found is not None:
        return found
    path = token_path(poll_dir)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:  # another launcher won the race: use its token
        found = read_instructor_token(poll_dir)
        if found is None:  # pragma: no cover - created and deleted between two calls
            raise CredentialError(f"{path} appeared and vanished; try again") from None
        return found
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def instructor_link(base_url: str, token: str, page: str = "06_class_poll.ipynb") -> str:
    """The link the launcher prints: the poll page with ``?instructor=TOKEN`` (exchanged for a cookie)."""
    return f"{base_url.rstrip('/')}/voila/render/{page}?instructor={token}"


def _mac(token: str, *parts: str) -> str:
    return hmac.new(token.encode(), "|".join(parts).encode(), hashlib.sha256).hexdigest()


def _check_signed(token: str, value: object, kind: str, now: float, longest: float) -> bool:
    if not isinstance(value, str) or len(value) > 120:
        return False
    m = _SIGNED_RE.fullmatch(value)
    if m is None:
        return False
    expiry, nonce, mac = m.groups()
    if not now < int(expiry) <= now + longest + 1:
        return False
    return hmac.compare_digest(mac, _mac(token, kind, expiry, nonce))


def make_cookie(token: str, *, now: float | None = None) -> str:
    """The instructor cookie's value: ``expiry..HMAC(token, "cookie", expiry)`` (the token is not in it)."""
    expiry = str(int((time.time() if now is None else now) + COOKIE_SECONDS))
    return f"{expiry}..{_mac(token, 'cookie', expiry, '')}"


def check_cookie(token: str, value: object, *, now: float | None = None) -> bool:
    """True for an unexpired cookie made by :func:`make_cookie` under ``token`` (constant-time compare)."""
    return _check_signed(token, value, "cookie", time.time() if now is None else now, COOKIE_SECONDS)


def make_grant(token: str, *, now: float | None = None) -> str:
    """One page request's grant: ``expiry.nonce.HMAC`` valid for :data:`GRANT_SECONDS`."""
    expiry = str(int((time.time() if now is None else now) + GRANT_SECONDS))
    nonce = secrets.token_urlsafe(12)
    return f"{expiry}.{nonce}.{_mac(token, 'grant', expiry, nonce)}"


def check_grant(token: str, value: object, *, now: float | None = None) -> bool:
    """True for an unexpired grant made by :func:`make_grant` under ``token``.

    Examples
    --------
    >>> check_grant("t" * 43, make_grant("t" * 43)), check_grant("t" * 43, make_grant("u" * 43))
    (True, False)
    >>> check_grant("t" * 43, make_grant("t" * 43, now=0.0))  # expired
    False
    """
    return _check_signed(token, value, "grant", time.time() if now is None else now, GRANT_SECONDS)


def in_voila_page(environ: Mapping[str, str] | None = None) -> bool:
    """True in a kernel Voila started for a page (or for its preheated pool): a visitor asked for it."""
    env = os.environ if environ is None else environ
    return (env.get("SERVER_SOFTWARE", "").startswith("voila")
            or any(k in env for k in ("VOILA_PREHEAT", "VOILA_KERNEL_ID", "VOILA_REQUEST_URL", "VOILA_BASE_URL")))


def register_instructor_source(source: Callable[[Mapping[str, str]], str | None]) -> None:
    """Add a way to recognise an instructor (tried in order after the launcher's grant).

    ``source(environ)`` returns an identity (1–80 characters from ``A-Za-z0-9_.:@-``, e.g.
    ``"hub:alice"``) or None. For a JupyterHub, issue 27's integration registers one that checks the
    hub user's membership of the ``instructors`` group.
    """
    if not callable(source):
        raise TypeError(f"source must be callable; got {type(source).__name__}")
    if source not in _SOURCES:
        _SOURCES.append(source)


def instructor_identity(environ: Mapping[str, str] | None = None, *,
                        poll_dir: str | os.PathLike | None = None) -> tuple[str | None, str]:
    """``(identity, why)``: who the instructor of this page is, or None and the reason in words.

    ``"local"`` outside a Voila page (the code runs as the server's user); ``"launcher"`` for a page
    whose request carried a valid grant; else what a registered source says.
    """
    env = os.environ if environ is None else environ
    if not in_voila_page(env):
        return "local", "this notebook runs as the server's own user"
    grant = env.get(GRANT_ENV)
    why = ("creating a poll needs the instructor link that `python -m dpexplore.serve` printed when it "
           "started (or the file instructor-token in the poll folder)")
    if grant:
        try:
            token = read_instructor_token(poll_dir if poll_dir is not None else env.get("DPEXPLORE_POLL_DIR") or None)
        except CredentialError as exc:
            return None, f"the instructor token cannot be trusted: {exc}"
        if token is not None and check_grant(token, grant):
            return "launcher", "the instructor link of this server"
        why = "the instructor cookie has expired or belongs to another server: open the instructor link again"
    for source in _SOURCES:
        who = source(env)
        if who:
            return who, "a registered instructor source"
    return None, why
