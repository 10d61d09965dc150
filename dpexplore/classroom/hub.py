"""The class poll under a JupyterHub: who the student is, and who the instructors are (standard library only).

Under a hub every user has their own single-user server, started by the hub with
``$JUPYTERHUB_USER`` set to the user's hub name; the server's Voila page kernels inherit its
environment. So a page kernel knows which hub user asked for the page, and:

* :func:`hub_voter` gives the poll store a **voter** ``"hub:<name>"``: the store accepts one answer per
  (poll, voter), so a reload, a second tab or another browser of the same hub user cannot answer twice
  (without a hub there is no voter and the page-view rule holds: one answer per page view);
* :func:`hub_instructor` recognises an **instructor** without a secret link: the hub configuration
  (``deploy/jupyterhub/jupyterhub_config.py``) sets ``$DPEXPLORE_HUB_INSTRUCTOR=1`` in the servers of
  the members of the hub group named by ``$DPEXPLORE_INSTRUCTOR_GROUP`` (default ``instructors``),
  through :func:`spawner_instructor_flag`, a callable in ``c.Spawner.environment`` (JupyterHub calls
  such callables with the spawner at each spawn). Importing this module under a hub registers
  :func:`hub_instructor` with :func:`dpexplore.classroom.credentials.register_instructor_source`.

What this trusts: the server's environment, which the hub sets when it spawns the server. A user who can
run arbitrary code in their own server (a terminal, JupyterLab) can change it — and can write to a
shared poll store anyway; the recipe in ``deploy/jupyterhub`` gives students Voila only (see its README,
"What holds and what does not").
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any

from .credentials import register_instructor_source
from .links import LOOPBACK, PUBLIC_URL_ENV, StudentLink, student_link

__all__ = ["HUB_USER_ENV", "INSTRUCTOR_ENV", "GROUP_ENV", "DEFAULT_GROUP", "MAX_NAME_CHARS", "hub_user",
           "hub_voter", "hub_instructor", "under_hub", "instructor_group", "spawner_instructor_flag",
           "hub_student_link", "register"]

HUB_USER_ENV = "JUPYTERHUB_USER"
#: set to "1" by the hub configuration in the servers of the instructor group's members
INSTRUCTOR_ENV = "DPEXPLORE_HUB_INSTRUCTOR"
#: the hub group whose members are instructors (read by the hub configuration; default :data:`DEFAULT_GROUP`)
GROUP_ENV = "DPEXPLORE_INSTRUCTOR_GROUP"
DEFAULT_GROUP = "instructors"
#: longest hub user name used (a longer or differently spelt name means "no hub identity")
MAX_NAME_CHARS = 80
_NAME_RE = re.compile(r"[A-Za-z0-9_.:@\-]{1,80}")
_IDENTITY_CHARS = 80  # the store's limit for a voter or creator identity
_PREFIX_RE = re.compile(r"/(?:[\w.~%@:\-]{1,200}/){0,8}")
_ORIGIN_RE = re.compile(r"(https?://([a-z0-9.\-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?)(?:/[\w.~%@:/\-]{0,200})?")


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    if environ is None:
        return os.environ
    if not isinstance(environ, Mapping):
        raise TypeError(f"environ must be a mapping (e.g. os.environ) or None; got {type(environ).__name__}")
    return environ


def hub_user(environ: Mapping[str, str] | None = None) -> str | None:
    """The hub user this server belongs to (``$JUPYTERHUB_USER``), or None without a (usable) one.

    A name is used only when it is 1 to :data:`MAX_NAME_CHARS` characters from ``A-Za-z0-9_.:@-``;
    anything else (empty, too long, other characters, not a string) is None.

    Examples
    --------
    >>> hub_user({"JUPYTERHUB_USER": "alice"}), hub_user({}), hub_user({"JUPYTERHUB_USER": "a b"})
    ('alice', None, None)
    """
    name = _env(environ).get(HUB_USER_ENV)
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        return None
    return name


def under_hub(environ: Mapping[str, str] | None = None) -> bool:
    """True when this process runs in a hub user's server with a usable user name (:func:`hub_user`)."""
    return hub_user(environ) is not None


def _identity(name: str) -> str:
    ident = f"hub:{name}"
    if len(ident) <= _IDENTITY_CHARS:
        return ident
    # a long name: keep it recognisable and unique within the store's 80 characters
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    return f"hub:{name[:_IDENTITY_CHARS - 4 - 17]}.{digest}"


def hub_voter(environ: Mapping[str, str] | None = None) -> str | None:
    """The poll voter of this hub user, ``"hub:<name>"`` (at most 80 characters), or None without a hub.

    A name longer than 76 characters is shortened to its first 59 characters, a dot and 16 hex digits
    of its SHA-256 (still one voter per name).

    Examples
    --------
    >>> hub_voter({"JUPYTERHUB_USER": "alice"}), hub_voter({})
    ('hub:alice', None)
    >>> len(hub_voter({"JUPYTERHUB_USER": "x" * 80}))
    80
    """
    name = hub_user(environ)
    return None if name is None else _identity(name)


def hub_instructor(environ: Mapping[str, str] | None = None) -> str | None:
    """``"hub:<name>"`` when the hub marked this server's user as an instructor, else None.

    The mark is ``$DPEXPLORE_HUB_INSTRUCTOR`` equal to ``"1"``, which the hub configuration sets only
    for members of the instructor group (:func:`spawner_instructor_flag`).

    Examples
    --------
    >>> hub_instructor({"JUPYTERHUB_USER": "ada", "DPEXPLORE_HUB_INSTRUCTOR": "1"})
    'hub:ada'
    >>> hub_instructor({"JUPYTERHUB_USER": "bob", "DPEXPLORE_HUB_INSTRUCTOR": "0"}) is None
    True
    """
    env = _env(environ)
    if env.get(INSTRUCTOR_ENV) != "1":
        return None
    return hub_voter(env)


def instructor_group(environ: Mapping[str, str] | None = None) -> str:
    """The name of the hub's instructor group: ``$DPEXPLORE_INSTRUCTOR_GROUP``, default ``instructors``.

    Raises
    ------
    ValueError
        The variable is set to something that is not 1 to 80 characters from ``A-Za-z0-9_.:@-``.
    """
    value = _env(environ).get(GROUP_ENV) or DEFAULT_GROUP
    if not isinstance(value, str) or not _NAME_RE.fullmatch(value):
        raise ValueError(f"{GROUP_ENV} must be a hub group name of 1 to 80 characters from A-Z, a-z, 0-9 and "
                         f"'_.:@-'; got {str(value)[:40]!r}")
    return value


def spawner_instructor_flag(spawner: Any, group: str | None = None) -> str:
    """For ``c.Spawner.environment[INSTRUCTOR_ENV]``: ``"1"`` if the spawner's user is in the group, else ``"0"``.

    JupyterHub calls a callable value of ``Spawner.environment`` with the spawner when it starts a
    server, so membership is read at spawn time: a user added to the group gets the mark at their
    server's next start.

    Parameters
    ----------
    spawner : jupyterhub.spawner.Spawner
        Anything with ``.user.groups``, a list of objects with a ``.name`` (JupyterHub's ORM groups).
    group : str, optional
        Default :func:`instructor_group` of the hub's own environment.
    """
    wanted = instructor_group() if group is None else group
    user = getattr(spawner, "user", None)
    groups = getattr(user, "groups", None) or []
    return "1" if any(getattr(g, "name", None) == wanted for g in groups) else "0"


def hub_student_link(code: str, environ: Mapping[str, str] | None = None) -> StudentLink | None:
    """Under a hub, the students' link to poll ``code``: through the hub's ``user-redirect``, or None.

    The page's own address names *this* user's server (``/user/<instructor>/voila/render/…``), which
    students cannot open; ``<hub base>/hub/user-redirect/voila/render/06_class_poll.ipynb?join=CODE``
    sends each student to the same page in their own server.

    Examples
    --------
    >>> env = {"JUPYTERHUB_USER": "ada", "JUPYTERHUB_BASE_URL": "/", "JUPYTERHUB_SERVICE_PREFIX": "/user/ada/",
    ...        "SCRIPT_NAME": "/user/ada/voila/render/06_class_poll.ipynb", "SERVER_NAME": "hub.example.org",
    ...        "SERVER_PORT": "443"}
    >>> hub_student_link("K7MQ2X", env).relative
    '/hub/user-redirect/voila/render/06_class_poll.ipynb?join=K7MQ2X'
    """
    env = _env(environ)
    if not under_hub(env):
        return None
    base = env.get("JUPYTERHUB_BASE_URL") or "/"
    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX") or ""
    if not _PREFIX_RE.fullmatch(base) or not _PREFIX_RE.fullmatch(prefix):
        return None
    plain = student_link(code, env)  # checks SCRIPT_NAME, host and port; its relative link is the page's
    script = env.get("SCRIPT_NAME", "")
    page = plain.relative.split("?", 1)[0]
    inner = script[len(prefix):] if script.startswith(prefix) else f"voila/render/{page}"
    if not inner.endswith(page):
        inner = f"voila/render/{page}"
    relative = f"{base}hub/user-redirect/{inner.lstrip('/')}?join={code}"
    for name in ("JUPYTERHUB_PUBLIC_URL", PUBLIC_URL_ENV):  # the hub's public address, when configured
        m = _ORIGIN_RE.fullmatch(env.get(name, "").lower())
        if m:
            return StudentLink(relative, f"{m.group(1)}{relative}", m.group(2) in LOOPBACK)
    if plain.full is None:
        return StudentLink(relative, None, False)
    origin = "/".join(plain.full.split("/", 3)[:3])  # http://host[:port] of the page's own request
    return StudentLink(relative, f"{origin}{relative}", plain.loopback_only)


def register(environ: Mapping[str, str] | None = None) -> bool:
    """Register :func:`hub_instructor` as an instructor source when running under a hub; True if it did."""
    if not under_hub(environ):
        return False
    register_instructor_source(hub_instructor)
    return True


register()
