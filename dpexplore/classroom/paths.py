"""Where the class poll keeps its database: the standard library only, so that the server's hardening
(:mod:`dpexplore.hosting.instructor`, through :mod:`~dpexplore.classroom.credentials`) can find the poll folder
without importing numpy or the poll store."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_poll_dir"]


def default_poll_dir() -> Path:
    """``$DPEXPLORE_POLL_DIR``, else ``$XDG_CACHE_HOME/dpexplore/polls`` (``~/.cache/dpexplore/polls``)."""
    env = os.environ.get("DPEXPLORE_POLL_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dpexplore" / "polls"
