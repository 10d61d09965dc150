"""An on-disk cache of experiment results, shared by every process that points at the same directory.

An experiment's result is a pure function of (function, parameters, seed, library version), so it can
be stored under a content address: the SHA-256 of those four, as canonical JSON. Each entry is one
JSON file, written to a temporary file in the same directory and moved into place with
:func:`os.replace` (atomic on POSIX and Windows): two kernels that compute the same entry at the
same time both write a complete file and the last rename wins; a reader never sees half a file.
The directory is bounded: after each write, the least recently used entries (file modification
time, refreshed on every hit) beyond ``max_bytes`` are deleted. Entries of other library versions
are never read (the version is part of the key) and are the first to be evicted, being the oldest.

The cache is **off by default** in the library. It is on when ``$DPEXPLORE_CACHE_DIR`` names a
directory (``python -m dpexplore.serve`` sets it, so every Voila kernel inherits it) or after
:func:`set_cache_dir`. ``$DPEXPLORE_CACHE_MAX_BYTES`` (default 256 MiB) bounds its size.
Clear it with :func:`clear_cache` or by deleting the directory.

Examples
--------
>>> import tempfile
>>> c = ResultCache(tempfile.mkdtemp())
>>> k = c.key("f", {"n": 3}, 0, "0.1.0")
>>> c.get(k) is None
True
>>> c.put(k, {"answer": 42})
>>> c.get(k)
{'answer': 42}
>>> c.clear()
1
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_MAX_BYTES_ENV",
    "DEFAULT_MAX_BYTES",
    "ResultCache",
    "cache_stats",
    "clear_cache",
    "get_cache",
    "set_cache_dir",
    "using_cache",
]

CACHE_DIR_ENV = "DPEXPLORE_CACHE_DIR"
CACHE_MAX_BYTES_ENV = "DPEXPLORE_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 256 * 2**20
_SUFFIX = ".json"


class ResultCache:
    """A bounded content-addressed store of JSON documents in one directory (see the module docstring).

    Parameters
    ----------
    directory : str or Path
        Created if missing.
    max_bytes : int
        Size bound of the stored entries (≥ 1); the least recently used ones go first.
    """

    def __init__(self, directory: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ValueError(f"max_bytes must be an integer >= 1; got {max_bytes!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.errors = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(function: str, parameters: Mapping[str, Any], seed: int, version: str) -> str:
        """Content address of a result: SHA-256 of the canonical JSON of its four inputs."""
        doc = json.dumps({"function": function, "parameters": parameters, "seed": int(seed), "version": version},
                         sort_keys=True, separators=(",", ":"), allow_nan=True)
        return hashlib.sha256(doc.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"cache key must be 64 lowercase hex digits; got {key!r}")
        return self.directory / (key + _SUFFIX)

    def get(self, key: str) -> Any | None:
        """The stored document, or None (missing or unreadable: a damaged file counts as missing)."""
        path = self._path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError, IsADirectoryError):
            with self._lock:
                self.misses += 1
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # least recently *used* goes first
        with self._lock:
            self.hits += 1
        return doc

    def put(self, key: str, doc: Any) -> None:
        """Store ``doc`` (JSON-able) under ``key`` atomically, then evict beyond ``max_bytes``."""
        path = self._path(key)
        data = json.dumps(doc, allow_nan=True, separators=(",", ":")).encode()
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=_SUFFIX, dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with self._lock:
            self.writes += 1
        self.evict()

    def _entries(self) -> Iterator[tuple[float, int, Path]]:
        for entry in os.scandir(self.directory):
            if not entry.name.endswith(_SUFFIX) or entry.name.startswith(".tmp-"):
                continue
            try:
                st = entry.stat()
            except FileNotFoundError:  # removed by another process meanwhile
                continue
            yield st.st_mtime, st.st_size, Path(entry.path)

    def size(self) -> int:
        """Bytes held by the entries."""
        return sum(s for _, s, _ in self._entries())

    def evict(self) -> int:
        """Delete the least recently used entries until the total is at most ``max_bytes``; return how many."""
        entries = sorted(self._entries())
        total = sum(s for _, s, _ in entries)
        removed = 0
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
            total -= size
        return removed

    def clear(self) -> int:
        """Delete every entry; return how many were deleted.

        Temporary files of writes in progress (another kernel's) are left alone; they become
        entries or vanish when that write ends.
        """
        removed = 0
        for _, _, path in list(self._entries()):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
        return removed

    def __repr__(self) -> str:
        return f"ResultCache({str(self.directory)!r}, max_bytes={self.max_bytes})"


_STATE: dict[str, Any] = {"explicit": False, "cache": None}


def _max_bytes_from_env() -> int:
    text = os.environ.get(CACHE_MAX_BYTES_ENV, "")
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"${CACHE_MAX_BYTES_ENV} must be an integer >= 1; got {text!r}") from None
    if value < 1:
        raise ValueError(f"${CACHE_MAX_BYTES_ENV} must be an integer >= 1; got {text!r}")
    return value


def get_cache() -> ResultCache | None:
    """The active result cache, or None when caching is off (the library default).

    Set by :func:`set_cache_dir`; otherwise taken from ``$DPEXPLORE_CACHE_DIR`` (read on every call,
    so a process that sets the variable later still gets it).
    """
    if _STATE["explicit"]:
        return _STATE["cache"]
    directory = os.environ.get(CACHE_DIR_ENV, "")
    if not directory:
        return None
    cache = _STATE["cache"]
    max_bytes = _max_bytes_from_env()
    if cache is None or str(cache.directory) != str(Path(directory)) or cache.max_bytes != max_bytes:
        cache = _STATE["cache"] = ResultCache(directory, max_bytes)
    return cache


def set_cache_dir(directory: str | os.PathLike | None, max_bytes: int | None = None) -> ResultCache | None:
    """Turn the result cache on at ``directory`` (or off with None) for this process; return it.

    Overrides ``$DPEXPLORE_CACHE_DIR`` until called again. Use :func:`using_cache` for a block.
    """
    _STATE["explicit"] = True
    _STATE["cache"] = None if directory is None else ResultCache(directory, max_bytes or _max_bytes_from_env())
    return _STATE["cache"]


@contextlib.contextmanager
def using_cache(directory: str | os.PathLike | None, max_bytes: int | None = None) -> Iterator[ResultCache | None]:
    """Within the block, cache results at ``directory`` (None: caching off); restore the setting after."""
    saved = dict(_STATE)
    try:
        yield set_cache_dir(directory, max_bytes)
    finally:
        _STATE.clear()
        _STATE.update(saved)


def clear_cache() -> int:
    """Delete every entry of the active cache (0 if caching is off); return how many were deleted."""
    cache = get_cache()
    return 0 if cache is None else cache.clear()


def cache_stats() -> dict[str, int] | None:
    """This process's hits, misses and writes of the active cache, and its size in bytes (None if off)."""
    cache = get_cache()
    if cache is None:
        return None
    return {"hits": cache.hits, "misses": cache.misses, "writes": cache.writes, "bytes": cache.size()}
