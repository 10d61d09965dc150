"""An on-disk cache of experiment results, shared by every process that points at the same directory.

An experiment's result is a pure function of (function, parameters, seed, code), so it can be
stored under a content address: the SHA-256 of those, as canonical JSON, where "code" is the
library version **and** :func:`code_fingerprint` (a hash of every ``.py`` file of the installed
``dpexplore`` package and of the numpy and scipy versions, computed once per process): after any
change to the code an old entry is never found again.

**Nothing is served that was not verified.** A file is used only if all of these hold:

* it is a regular file (opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: a
  symlink, FIFO, device or directory is refused without reading it) of at most
  :data:`MAX_ENTRY_BYTES` bytes (read with that bound, so a file that grows is refused too);
* its integrity tag, an HMAC-SHA256 under this installation's secret over the key and the stored
  bytes, is valid (constant-time comparison). The secret is 32 random bytes in a file created with
  mode 0600 (``<cache dir>/.secret`` unless ``secret_file`` or ``$DPEXPLORE_CACHE_SECRET`` names
  another path, e.g. in the server user's config directory) and used only if it is a regular
  file owned by this process's user that nobody else can read or write; otherwise the cache is off.
  Somebody who can write the directory but is not the server's user cannot make a valid entry;
* it parses as JSON nested at most :data:`MAX_DEPTH` deep and names exactly the key asked for,
  and (when the caller gives it) the same function, parameters, seed and code version.

Anything else is ignored (logged once per entry on the ``dpexplore.cache`` logger) and recomputed;
:func:`dpexplore.core.run_experiment` moreover rebuilds the result with the strict loader and checks
that it names the function, parameters, seed and version asked for. Every filesystem error (a directory
that cannot be created or lies under a regular file, an unreadable entry, a full disk) means "no
cache" for that call with one logged warning, never an exception.

Each entry is one file, written to a temporary file in the same directory and moved into place with
:func:`os.replace` (atomic on POSIX and Windows): two kernels that compute the same entry at the
same time both write a complete file and the last rename wins; a reader never sees half a file.
The directory is bounded by ``max_bytes``: each process keeps a running estimate of the directory's
size (one scan when it first writes, then its own writes added), and only when the estimate passes
``max_bytes``, or after :data:`RESCAN_WRITES` writes, scans the folder and deletes the least recently
used entries (file modification time, refreshed on every hit) down to :data:`LOW_WATER` × ``max_bytes``.
So a write costs one file, not a scan of the folder; the folder can exceed ``max_bytes`` by what
other processes wrote since this one's last scan.

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
import errno
import functools
import hashlib
import hmac
import json
import logging
import math
import numbers
import os
import re
import secrets
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .result_io import nesting_depth_ok

__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_MAX_BYTES_ENV",
    "MAX_CACHE_BYTES",
    "CACHE_SECRET_ENV",
    "DEFAULT_MAX_BYTES",
    "LOW_WATER",
    "MAX_DEPTH",
    "MAX_ENTRY_BYTES",
    "RESCAN_WRITES",
    "ResultCache",
    "cache_stats",
    "clear_cache",
    "code_fingerprint",
    "get_cache",
    "server_log",
    "set_cache_dir",
    "using_cache",
]

CACHE_DIR_ENV = "DPEXPLORE_CACHE_DIR"
CACHE_MAX_BYTES_ENV = "DPEXPLORE_CACHE_MAX_BYTES"
#: names the secret file elsewhere (e.g. in the server user's config directory); default ``<cache dir>/.secret``
CACHE_SECRET_ENV = "DPEXPLORE_CACHE_SECRET"
DEFAULT_MAX_BYTES = 256 * 2**20
#: largest entry file read or written (bytes); a larger file is refused unread
MAX_ENTRY_BYTES = 64 * 2**20
#: deepest JSON nesting accepted in an entry (a result is nested 5 deep)
MAX_DEPTH = 32
#: eviction deletes down to this fraction of ``max_bytes`` (so the next scan is far away)
LOW_WATER = 0.9
#: a process rescans the folder at least once per this many of its own writes
RESCAN_WRITES = 10_000
_SUFFIX = ".json"
_MAGIC = b"dpx1 "
_SECRET_BYTES = 32
_LOG = logging.getLogger("dpexplore.cache")


def server_log(text: str) -> None:
    """Write ``text`` to the process's real stderr: in a Jupyter kernel the server's log, never the browser.

    ipykernel forwards both ``sys.stderr`` and file descriptor 2 to the page as ``stream`` messages
    and keeps the original descriptor as ``sys.stderr._original_stdstream_copy``: a cache warning
    (which names server paths) must not reach a student's page.
    """
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if isinstance(fd, int):
        os.write(fd, text.encode(errors="replace"))
    elif sys.__stderr__ is not None:
        sys.__stderr__.write(text)
        sys.__stderr__.flush()


class _ServerLogHandler(logging.Handler):
    """The ``dpexplore.cache`` logger's own handler: :func:`server_log` (records still propagate)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            server_log(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging must never fail a panel
            self.handleError(record)


if not any(isinstance(h, _ServerLogHandler) for h in _LOG.handlers):
    _LOG.addHandler(_ServerLogHandler(logging.WARNING))
_O_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class _Rejected(Exception):
    """An entry that exists but is not served (the message says why)."""


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 (hex) of every ``.py`` file of the installed ``dpexplore`` package, numpy's and scipy's versions.

    Computed once per process (~1.3 MB of source: a few milliseconds); part of every cache key, so
    any change to the code (or to the numpy/scipy that draw and compute) starts a fresh set of entries.

    Examples
    --------
    >>> len(code_fingerprint()), code_fingerprint() == code_fingerprint()
    (64, True)
    """
    import numpy
    import scipy

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(f"numpy {numpy.__version__}\nscipy {scipy.__version__}\n".encode())
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        h.update(f"{rel}\n{len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def _read_bounded(path: Path, limit: int, what: str, *, touch: bool = False) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file at ``path`` (no symlink/FIFO/device), at most ``limit``, and its ``fstat``.

    ``touch`` refreshes its modification time through the open descriptor (never a path that could
    have become a symlink meanwhile).

    Raises FileNotFoundError if missing, :class:`_Rejected` if not a bounded regular file, OSError otherwise.
    """
    try:
        fd = os.open(path, _O_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _Rejected(f"{what} is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _Rejected(f"{what} is not a regular file (mode {stat.filemode(st.st_mode)})")
        if st.st_size > limit:
            raise _Rejected(f"{what} has {st.st_size} bytes, more than the limit {limit}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _Rejected(f"{what} grew past the limit {limit} bytes while being read")
        if touch and os.utime in os.supports_fd:
            with contextlib.suppress(OSError):
                os.utime(fd)  # least recently *used* goes first
        return b"".join(chunks), st
    finally:
        os.close(fd)


class ResultCache:
    """A bounded, verified, content-addressed store of JSON documents in one directory (see the module docstring).

    Parameters
    ----------
    directory : str or Path
        Created if missing. If it cannot be created or used, the cache is off (``usable`` is False,
        ``problem`` says why, one warning is logged) and every call is a miss.
    max_bytes : int
        Size bound of the stored entries (≥ 1); the least recently used ones go first.
    secret_file : str or Path, optional
        Where this installation's HMAC secret lives (default ``<directory>/.secret``); created with
        mode 0600 if missing. Must be a regular file owned by this user, unreadable by others.
    """

    def __init__(self, directory: str | os.PathLike, max_bytes: int = DEFAULT_MAX_BYTES,
                 secret_file: str | os.PathLike | None = None) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ValueError(f"max_bytes must be an integer >= 1; got {max_bytes!r}")
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.secret_file = Path(secret_file) if secret_file is not None else self.directory / ".secret"
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.errors = 0
        self.rejected = 0
        self.scans = 0
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._logged: set[str] = set()
        self._estimate: int | None = None  # bytes in the folder as this process knows it
        self._since_scan = 0
        self._secret: bytes | None = None
        self._secret_id: tuple[int, ...] | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            if not self.directory.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(self.directory))
            self._secret = self._load_secret()
        except (OSError, _Rejected) as exc:
            self._disable(f"{exc}")

    # -- state and logging ----------------------------------------------------------------------
    @property
    def usable(self) -> bool:
        """False when the cache is off because of a filesystem problem (see ``problem``)."""
        return self.problem is None

    def _log_once(self, topic: str, message: str) -> None:
        with self._lock:
            if topic in self._logged or len(self._logged) > 10_000:
                return
            self._logged.add(topic)
        _LOG.warning("dpexplore result cache %s: %s", self.directory, message)

    def _disable(self, reason: str) -> None:
        self.problem = reason
        self._log_once("disabled", f"off ({reason}); results are computed, not cached")

    def _fs_error(self, exc: OSError, doing: str) -> None:
        with self._lock:
            self.errors += 1
        self._log_once(f"fs:{doing}:{type(exc).__name__}", f"cannot {doing} ({exc}); computing without the cache")

    # -- the secret ------------------------------------------------------------------------------
    def _load_secret(self) -> bytes:
        path = self.secret_file
        try:
            data, st = _read_bounded(path, _SECRET_BYTES, "secret file")
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-secret-", dir=path.parent)  # mode 0600
            try:
                os.write(fd, secrets.token_bytes(_SECRET_BYTES))
                os.close(fd)
                with contextlib.suppress(FileExistsError):  # another process made it first: use theirs
                    os.link(tmp, path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            data, st = _read_bounded(path, _SECRET_BYTES, "secret file")
        if hasattr(os, "geteuid") and (st.st_uid != os.geteuid() or st.st_mode & 0o077):
            raise _Rejected(f"secret file {path} must be owned by this user and not readable or writable by others "
                            f"(owner uid {st.st_uid}, mode {stat.filemode(st.st_mode)})")
        if len(data) != _SECRET_BYTES:
            raise _Rejected(f"secret file {path} does not hold {_SECRET_BYTES} bytes")
        self._secret_id = (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns)
        return data

    def _refresh(self, force: bool = False) -> bool:
        """Reload the secret if its file was replaced or removed (the folder deleted to clear it); True if usable."""
        if self.problem is not None:
            return False
        try:
            st = os.stat(self.secret_file, follow_symlinks=False)
            if not force and (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns) == self._secret_id:
                return True
        except FileNotFoundError:
            pass
        except OSError as exc:
            self._fs_error(exc, "check the secret file")
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._secret = self._load_secret()
        except (OSError, _Rejected) as exc:
            self._secret = None
            self._log_once(f"secret:{exc}", f"cannot use the secret file ({exc}); computing without the cache")
            return False
        with self._lock:
            self._estimate = None
        return True

    def _tag(self, key: str, payload: bytes) -> bytes:
        assert self._secret is not None
        return hmac.new(self._secret, b"dpexplore-cache-v1\n" + key.encode() + b"\n" + payload,
                        hashlib.sha256).hexdigest().encode()

    # -- keys and paths -------------------------------------------------------------------------
    @staticmethod
    def key(function: str, parameters: Mapping[str, Any], seed: int, version: str) -> str:
        """Content address of a result: SHA-256 of the canonical JSON of its four inputs."""
        return hashlib.sha256(_identity_json(function, parameters, seed, version).encode()).hexdigest()

    def _path(self, key: str) -> Path:
        if not isinstance(key, str) or len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"cache key must be 64 lowercase hex digits; got {key!r}")
        return self.directory / (key + _SUFFIX)

    # -- read -----------------------------------------------------------------------------------
    def get(self, key: str, identity: Mapping[str, Any] | None = None) -> Any | None:
        """The stored document if it passes every check of the module docstring, else None.

        ``identity`` (``{"function", "parameters", "seed", "version"}``), when given, must be what
        ``key`` was made from and what the entry was stored with.
        """
        path = self._path(key)
        doc = None
        if self._secret is not None:
            try:
                try:
                    doc = self._verified(key, path, identity)
                except _Rejected as exc:  # written under a new secret (the folder was re-created)? reload, retry once
                    if "integrity tag" not in str(exc) or self._secret_id is None or not self._secret_changed():
                        raise
                    doc = self._verified(key, path, identity)
            except FileNotFoundError:
                pass
            except _Rejected as exc:
                with self._lock:
                    self.rejected += 1
                self._log_once(f"entry:{key}", f"entry {key[:12]}… ignored and recomputed: {exc}")
            except OSError as exc:
                self._fs_error(exc, "read an entry")
        with self._lock:
            if doc is None:
                self.misses += 1
            else:
                self.hits += 1
        return None if doc is None else doc["doc"]

    def _secret_changed(self) -> bool:
        old = self._secret
        return self._refresh(force=True) and self._secret != old

    def _verified(self, key: str, path: Path, identity: Mapping[str, Any] | None) -> dict:
        data, _ = _read_bounded(path, MAX_ENTRY_BYTES, "entry", touch=True)
        head, sep, payload = data.partition(b"\n")
        if not sep or not head.startswith(_MAGIC):
            raise _Rejected("no integrity tag (not written by this version of the cache)")
        if not hmac.compare_digest(head[len(_MAGIC):], self._tag(key, payload)):
            raise _Rejected("integrity tag does not match (altered, or not written with this installation's secret)")
        try:
            doc = json.loads(payload)
        except (ValueError, RecursionError) as exc:
            raise _Rejected(f"not valid JSON ({type(exc).__name__})") from None
        if not isinstance(doc, dict) or not nesting_depth_ok(doc, MAX_DEPTH) or set(doc) != {"key", "identity", "doc"}:
            raise _Rejected(f"not an entry document (or nested deeper than {MAX_DEPTH})")
        if doc["key"] != key:
            raise _Rejected("stored under another key")
        stored = doc["identity"]
        if stored is not None:
            try:
                if self.key(**stored) != key:
                    raise _Rejected("its function, parameters, seed and version do not hash to its key")
            except (TypeError, ValueError):
                raise _Rejected("malformed identity") from None
        if identity is not None and (stored is None or _identity_json(**stored) != _identity_json(**identity)):
            raise _Rejected("names another function, parameters, seed or version")
        return doc

    # -- write ----------------------------------------------------------------------------------
    def put(self, key: str, doc: Any, identity: Mapping[str, Any] | None = None) -> None:
        """Store ``doc`` (JSON-able) under ``key`` atomically with its tag; evict if the folder is over its bound.

        A filesystem error is logged once and otherwise ignored (the result is simply not cached).
        """
        path = self._path(key)
        if identity is not None and self.key(**identity) != key:
            raise ValueError("identity does not hash to key")
        if self._secret is None or not self._refresh():
            return
        payload = json.dumps({"key": key, "identity": None if identity is None else dict(identity), "doc": doc},
                             allow_nan=True, separators=(",", ":")).encode()
        data = _MAGIC + self._tag(key, payload) + b"\n" + payload
        if len(data) > MAX_ENTRY_BYTES:
            self._log_once("too-big", f"an entry of {len(data)} bytes exceeds {MAX_ENTRY_BYTES}: not cached")
            return
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=_SUFFIX, dir=self.directory)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            self._fs_error(exc, "write an entry")
            return
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        with self._lock:
            self.writes += 1
            self._since_scan += 1
            if self._estimate is not None:
                self._estimate += len(data)
            due = self._estimate is None or self._estimate > self.max_bytes or self._since_scan >= RESCAN_WRITES
        if due:
            self._maybe_evict()

    def _maybe_evict(self) -> None:
        try:
            self.evict(target=int(LOW_WATER * self.max_bytes))
        except OSError as exc:
            self._fs_error(exc, "scan the folder")

    # -- folder ---------------------------------------------------------------------------------
    def _entries(self) -> Iterator[tuple[float, int, Path]]:
        for entry in os.scandir(self.directory):
            if not entry.name.endswith(_SUFFIX) or entry.name.startswith("."):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed by another process meanwhile
                continue
            yield st.st_mtime, st.st_size, Path(entry.path)

    def size(self) -> int:
        """Bytes held by the entries (scans the folder; 0 if it cannot be read)."""
        try:
            return sum(s for _, s, _ in self._entries())
        except OSError:
            return 0

    def evict(self, target: int | None = None) -> int:
        """Scan the folder; if it holds more than ``max_bytes``, delete the least recently used entries down to
        ``target`` bytes (default ``max_bytes``). Returns how many were deleted."""
        target = self.max_bytes if target is None else target
        entries = sorted(self._entries())
        total = sum(s for _, s, _ in entries)
        removed = 0
        if total > self.max_bytes:
            for _, size, path in entries:
                if total <= target:
                    break
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed += 1
                total -= size
        with self._lock:
            self._estimate, self._since_scan = total, 0
            self.scans += 1
        return removed

    def clear(self) -> int:
        """Delete every entry; return how many were deleted.

        Temporary files of writes in progress (another kernel's) and the secret are left alone.
        """
        removed = 0
        try:
            for _, _, path in list(self._entries()):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed += 1
        except OSError as exc:
            self._fs_error(exc, "clear the folder")
        with self._lock:
            self._estimate = None
        return removed

    def __repr__(self) -> str:
        return f"ResultCache({str(self.directory)!r}, max_bytes={self.max_bytes})"


def _identity_json(function: str, parameters: Mapping[str, Any], seed: int, version: str) -> str:
    if not isinstance(function, str) or not isinstance(version, str) or not isinstance(parameters, Mapping):
        raise TypeError("a cache identity is (function: str, parameters: mapping, seed: int, version: str)")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"a cache identity's seed must be an integer; got {seed!r}")
    return json.dumps({"function": function, "parameters": parameters, "seed": int(seed), "version": version},
                      sort_keys=True, separators=(",", ":"), allow_nan=True)


_STATE: dict[str, Any] = {"explicit": False, "cache": None}


_SIZE_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6, "mib": 2**20,
               "g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12, "tib": 2**40}
#: largest accepted ``$DPEXPLORE_CACHE_MAX_BYTES`` (1 TiB)
MAX_CACHE_BYTES = 2**40


def parse_max_bytes(text: str) -> int:
    """A cache size from text: an integer, a float with an integral value (``1e9``), or a number with a unit.

    Raises a ``ValueError`` naming ``$DPEXPLORE_CACHE_MAX_BYTES`` (issue 39: ``1e9`` used to be replaced by the
    default with only a log line).

    Examples
    --------
    >>> parse_max_bytes("1e9"), parse_max_bytes("256MiB"), parse_max_bytes(" 2 GB ")
    (1000000000, 268435456, 2000000000)
    >>> parse_max_bytes("lots")
    Traceback (most recent call last):
    ...
    ValueError: $DPEXPLORE_CACHE_MAX_BYTES must be a size from 1 byte to 1 TiB (e.g. 1e9, 256MiB); got 'lots'
    """
    raw = str(text).strip()
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?(?:[eE][+]?[0-9]+)?)\s*([A-Za-z]*)", raw)
    value = None
    if m and m.group(2).lower() in _SIZE_UNITS:
        number = float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]
        if math.isfinite(number) and number == int(number):
            value = int(number)
    if value is None or not 1 <= value <= MAX_CACHE_BYTES:
        raise ValueError(f"${CACHE_MAX_BYTES_ENV} must be a size from 1 byte to 1 TiB (e.g. 1e9, 256MiB); "
                         f"got {raw[:40]!r}")
    return value


def _max_bytes_from_env() -> int:
    text = os.environ.get(CACHE_MAX_BYTES_ENV, "").strip()
    return parse_max_bytes(text) if text else DEFAULT_MAX_BYTES


def get_cache() -> ResultCache | None:
    """The active result cache, or None when caching is off (the library default).

    Set by :func:`set_cache_dir`; otherwise taken from ``$DPEXPLORE_CACHE_DIR`` (read on every call,
    so a process that sets the variable later still gets it). A directory that cannot be used gives a
    cache whose ``usable`` is False (one warning logged); a malformed ``$DPEXPLORE_CACHE_MAX_BYTES`` is a
    ``ValueError`` naming it (a dashboard shows it in the page; ``dpexplore.serve`` refuses to start).
    """
    if _STATE["explicit"]:
        return _STATE["cache"]
    directory = os.environ.get(CACHE_DIR_ENV, "")
    if not directory:
        return None
    cache = _STATE["cache"]
    max_bytes = _max_bytes_from_env()
    if cache is None or str(cache.directory) != str(Path(directory)) or cache.max_bytes != max_bytes:
        cache = _STATE["cache"] = ResultCache(directory, max_bytes, os.environ.get(CACHE_SECRET_ENV) or None)
    return cache


def set_cache_dir(directory: str | os.PathLike | None, max_bytes: int | None = None) -> ResultCache | None:
    """Turn the result cache on at ``directory`` (or off with None) for this process; return it.

    Overrides ``$DPEXPLORE_CACHE_DIR`` until called again. Use :func:`using_cache` for a block.
    """
    _STATE["explicit"] = True
    _STATE["cache"] = None if directory is None else ResultCache(directory, max_bytes or _max_bytes_from_env(),
                                                                 os.environ.get(CACHE_SECRET_ENV) or None)
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
    """This process's hits, misses, writes, rejected entries and errors of the active cache, and its size."""
    cache = get_cache()
    if cache is None:
        return None
    return {"hits": cache.hits, "misses": cache.misses, "writes": cache.writes, "rejected": cache.rejected,
            "errors": cache.errors, "bytes": cache.size()}
