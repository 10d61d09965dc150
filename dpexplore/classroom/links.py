"""The students' link to a poll: which address to give a room, and its QR code.

A server started with ``--host 0.0.0.0`` is reached by the students at the machine's network
address, while the instructor often opens it as ``127.0.0.1``: the launcher then puts
``http://<LAN address>:<port>`` in ``$DPEXPLORE_PUBLIC_URL`` (:func:`lan_address`), and
:func:`student_link` uses it whenever the page itself was asked for on a loopback name.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PUBLIC_URL_ENV", "MAX_QR_CHARS", "POLL_PAGE", "StudentLink", "lan_address", "student_link", "qr_svg",
           "page_environ"]

PUBLIC_URL_ENV = "DPEXPLORE_PUBLIC_URL"
#: longest text :func:`qr_svg` encodes (a link of a few dozen characters is what a room can scan)
MAX_QR_CHARS = 300
_HOST_RE = re.compile(r"[a-z0-9.\-]{1,253}|\[[0-9a-f:.]{2,45}\]")
_PUBLIC_RE = re.compile(r"https?://([a-z0-9.\-]{1,253}|\[[0-9a-f:.]{2,45}\])(:[0-9]{1,5})?/?")
_PAGE_RE = re.compile(r"[\w.\-]{1,100}\.ipynb")
_SCRIPT_RE = re.compile(r"/[\w.\-/]{0,300}")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")
#: the students' page of every poll and prediction round
POLL_PAGE = "06_class_poll.ipynb"


def lan_address() -> str:
    """This machine's address on its default route (no packet is sent), else ``127.0.0.1``.

    Connecting a UDP socket only asks the kernel which local address it would use.
    """
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        addr = s.getsockname()[0]
    except OSError:
        addr = "127.0.0.1"
    finally:
        s.close()
    return addr


@dataclass(frozen=True)
class StudentLink:
    """The students' link: ``relative`` always works in the page; ``full`` is None when unknown."""

    relative: str
    full: str | None
    loopback_only: bool  # True when the only address known is this machine's own (students cannot use it)


def student_link(code: str, environ: Mapping[str, str] | None = None) -> StudentLink:
    """The link a student opens to join poll ``code`` (``…/06_class_poll.ipynb?join=CODE``).

    From the page request's ``SCRIPT_NAME``, ``SERVER_NAME`` and ``SERVER_PORT`` (Voila sets them;
    each is checked against a strict pattern), with ``$DPEXPLORE_PUBLIC_URL`` replacing a loopback host.

    Examples
    --------
    >>> env = {"SCRIPT_NAME": "/voila/render/06_class_poll.ipynb", "SERVER_NAME": "127.0.0.1",
    ...        "SERVER_PORT": "8866", "DPEXPLORE_PUBLIC_URL": "http://192.168.1.20:8866"}
    >>> student_link("K7MQ2X", env).full
    'http://192.168.1.20:8866/voila/render/06_class_poll.ipynb?join=K7MQ2X'
    """
    env = os.environ if environ is None else environ
    script = env.get("SCRIPT_NAME", "")
    page = script.rsplit("/", 1)[-1] if script.endswith(".ipynb") else "06_class_poll.ipynb"
    page = page if _PAGE_RE.fullmatch(page) else "06_class_poll.ipynb"
    relative = f"{page}?join={code}"
    host = env.get("SERVER_NAME", "").lower()
    port = env.get("SERVER_PORT", "")
    if not (_SCRIPT_RE.fullmatch(script) and script.endswith(".ipynb") and _HOST_RE.fullmatch(host)
            and (port == "" or (port.isdigit() and len(port) <= 5))):
        return StudentLink(relative, None, False)
    base = f"http://{host}{':' + port if port else ''}"
    public = env.get(PUBLIC_URL_ENV, "").lower()
    loopback = host in LOOPBACK
    if loopback and _PUBLIC_RE.fullmatch(public):
        m = _PUBLIC_RE.fullmatch(public)
        base, loopback = public.rstrip("/"), m.group(1) in LOOPBACK
    return StudentLink(relative, f"{base}{script}?join={code}", loopback)


def page_environ(environ: Mapping[str, str] | None = None, page: str = POLL_PAGE) -> dict[str, str]:
    """The page request's variables as if ``page`` (a notebook next to this one) had been asked for.

    A dashboard's prediction round sends students to the poll page, not to the dashboard: the links of
    :func:`student_link` (and the hub's) are built from this.

    Examples
    --------
    >>> page_environ({"SCRIPT_NAME": "/voila/render/01_spectral_clustering.ipynb"})["SCRIPT_NAME"]
    '/voila/render/06_class_poll.ipynb'
    """
    if not isinstance(page, str) or not _PAGE_RE.fullmatch(page):
        raise ValueError(f"page must be a notebook file name (1 to 100 characters, ending in .ipynb); got {page!r:.60}")
    env = dict(os.environ if environ is None else environ)
    script = env.get("SCRIPT_NAME", "")
    if script.endswith(".ipynb"):
        env["SCRIPT_NAME"] = script.rsplit("/", 1)[0] + "/" + page
    return env


def qr_svg(text: str, *, scale: int = 6) -> str:
    """An inline SVG QR code of ``text`` (segno, pure Python; error correction level M).

    Examples
    --------
    >>> qr_svg("http://192.168.1.20:8866/voila/render/06_class_poll.ipynb?join=K7MQ2X").startswith("<svg")
    True
    """
    import segno  # the dashboard extra

    if not isinstance(text, str) or not 1 <= len(text) <= MAX_QR_CHARS:
        raise ValueError(f"text must be a string of 1 to {MAX_QR_CHARS} characters; got "
                         f"{len(text) if isinstance(text, str) else type(text).__name__}")
    if not isinstance(scale, int) or isinstance(scale, bool) or not 1 <= scale <= 20:
        raise ValueError(f"scale must be an integer in [1, 20]; got {scale!r}")
    return segno.make(text, error="m", micro=False).svg_inline(scale=scale, border=2, dark="#000", light="#fff")
