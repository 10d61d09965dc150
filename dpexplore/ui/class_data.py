"""A page on the class's own data: the ``?poll=CODE`` URL parameter, and a class poll read as its instructor.

Pages 10 (the attack) and 14 (the local model) can run on what the class poll stored: the poll's instructor
opens them with ``?poll=CODE``. The poll is read as its creator reads the class view (the page's instructor
identity: the instructor link's grant, or a registered source); anyone else, an unknown code or the wrong kind of
poll gets one message in the page and the page's own data. :mod:`dpexplore.classroom` is imported on use: a
page opened without ``?poll`` never touches the store.
"""

from __future__ import annotations

import html
import os
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["POLL_PARAM", "load_class_data", "read_as_instructor", "split_poll_param"]

#: the URL parameter naming a class poll's join code
POLL_PARAM = "poll"


def split_poll_param(qs: str) -> tuple[str, str | None]:
    """The query string without ``poll=…``, and the code (None when absent; the last one counts).

    Examples
    --------
    >>> split_poll_param("eps=1&poll=abc123&n=10")
    ('eps=1&n=10', 'abc123')
    >>> split_poll_param("eps=1")
    ('eps=1', None)
    """
    rest, code = [], None
    for key, text in parse_qsl(qs, keep_blank_values=True):
        if key == POLL_PARAM:
            code = text
        else:
            rest.append((key, text))
    return urlencode(rest), code


def read_as_instructor(code: object, read: Callable[[Any, str, str], Any], environ: Mapping[str, str] | None = None,
                       *, store=None) -> Any:
    """``read(store, code, creator)`` for the class poll ``code``, as its creator (the page's instructor identity);
    raises ``PollError`` (a ``ValueError``) saying why not (a malformed code, not the instructor, what ``read``
    refuses)."""
    from dpexplore.classroom.credentials import instructor_identity
    from dpexplore.classroom.store import PollError, PollStore, check_join_code

    code = check_join_code(code.upper() if isinstance(code, str) else code)
    who, why = instructor_identity(os.environ if environ is None else environ)
    if who is None:
        raise PollError(f"only the poll's instructor can read its answers: {why}")
    return read(store if store is not None else PollStore(), code, who)


def load_class_data(code: str, load: Callable[[str], Any]) -> tuple[Any, str]:
    """``(load(code), "")``, or ``(None, the reason)`` (HTML-escaped) for what a visitor can cause: a page never
    fails on a bad ``?poll``."""
    try:
        return load(code), ""
    except (ValueError, OSError, RuntimeError, sqlite3.Error) as exc:
        return None, html.escape(str(exc))
