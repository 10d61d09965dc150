"""Where dpexplore's files are: the notebooks and their configuration (read-only) and its writable state.

Two layouts are supported, and every caller goes through this module instead of guessing paths:

* **a clone** of the repository (``pip install -e .``, Binder, ``python -m dpexplore.serve`` run from the
  checkout): the notebooks are ``<clone>/notebooks/`` and the Voila/Jupyter configuration is
  ``<clone>/voila.json`` and ``<clone>/jupyter_config.json``;
* **an installed wheel**: the build copied the same files into the package, as
  ``dpexplore/_data/notebooks/`` (every ``notebooks/*.ipynb`` and ``lessons.json``, by glob) and
  ``dpexplore/_data/voila.json`` / ``jupyter_config.json``.

Both layouts have the same shape: :func:`data_root` holds ``voila.json`` beside the ``notebooks/``
folder, so Voila started in :func:`data_root` reads the project's settings in either case. The packaged
copy wins when both exist (a wheel's files are the ones that match its code).

Writable state never goes next to the package (site-packages may be read-only): the experiment result
cache and the class-poll database default to folders under :func:`user_cache_dir`.

This module uses only the standard library.

Examples
--------
>>> (notebooks_dir() / "00_index.ipynb").is_file()
True
>>> voila_config().name, voila_config().parent == data_root()
('voila.json', True)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = [
    "data_root", "jupyter_config", "lessons_file", "notebooks_dir", "state_dir", "user_cache_dir", "voila_config",
]

_PACKAGE = Path(__file__).resolve().parent


def _has_notebooks(root: Path) -> bool:
    return (root / "notebooks" / "00_index.ipynb").is_file() and (root / "voila.json").is_file()


def data_root() -> Path:
    """The folder holding ``notebooks/``, ``voila.json`` and ``jupyter_config.json``.

    ``dpexplore/_data`` in an installed wheel, else the clone's root (the folder above the package).

    Raises
    ------
    FileNotFoundError
        When neither layout is present (e.g. an install from a wheel built without the notebooks).
    """
    for root in (_PACKAGE / "_data", _PACKAGE.parent):
        if _has_notebooks(root):
            return root
    raise FileNotFoundError(f"dpexplore's notebooks were found neither in {_PACKAGE / '_data'} (an installed wheel) "
                            f"nor in {_PACKAGE.parent / 'notebooks'} (a clone); reinstall dpexplore from a wheel or "
                            "run from a clone of the repository")


def notebooks_dir() -> Path:
    """The folder of the gallery's notebooks (``00_index.ipynb`` and one per dashboard)."""
    return data_root() / "notebooks"


def lessons_file() -> Path:
    """The lesson presets and predict questions shipped beside the notebooks (``lessons.json``)."""
    return notebooks_dir() / "lessons.json"


def voila_config() -> Path:
    """The ``voila.json`` that ``python -m dpexplore.serve`` gives Voila (hardening, timeouts, kernel cap)."""
    return data_root() / "voila.json"


def jupyter_config() -> Path:
    """The ``jupyter_config.json`` for Voila as a Jupyter server extension (Binder, ``jupyter lab``)."""
    return data_root() / "jupyter_config.json"


def user_cache_dir() -> Path:
    """The user's cache folder for dpexplore (not created here).

    ``$XDG_CACHE_HOME/dpexplore`` if that variable is set, else ``~/Library/Caches/dpexplore`` on macOS,
    ``%LOCALAPPDATA%\\dpexplore\\Cache`` on Windows and ``~/.cache/dpexplore`` elsewhere.
    """
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "dpexplore"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "dpexplore"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "dpexplore" / "Cache"
    return Path.home() / ".cache" / "dpexplore"


def state_dir(name: str) -> Path:
    """A named folder of writable state under :func:`user_cache_dir` (``"results"``, ``"polls"``).

    Examples
    --------
    >>> state_dir("polls").name
    'polls'
    >>> state_dir("../x")
    Traceback (most recent call last):
    ...
    ValueError: name must be a plain folder name (letters, digits, '-', '_'); got '../x'
    """
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError(f"name must be a plain folder name (letters, digits, '-', '_'); got {name!r}")
    return user_cache_dir() / name
