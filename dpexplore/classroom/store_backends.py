"""Where the poll store's rows live: SQLite (standard library, the default) or PostgreSQL (SQLAlchemy + psycopg).

:class:`~dpexplore.classroom.store.PollStore` speaks one small dialect of SQL (``?`` placeholders,
``INSERT … ON CONFLICT DO NOTHING``, ``CREATE … IF NOT EXISTS``) through a backend that knows how to

* open a connection and run one statement (:meth:`Connection.execute`, the same on both);
* make a **write transaction** that serializes every writer of the database, so that a limit check
  and the insert after it cannot interleave with another kernel's (SQLite: ``BEGIN IMMEDIATE``;
  PostgreSQL: a transaction-level advisory lock ``pg_advisory_xact_lock`` taken first);
* make a **read transaction** that sees one consistent snapshot (SQLite: ``BEGIN``; PostgreSQL:
  ``REPEATABLE READ, READ ONLY``);
* create the tables with its own column types (PostgreSQL's ``REAL`` is 4 bytes: times are
  ``DOUBLE PRECISION`` there) and tell a uniqueness violation from other integrity errors.

Durability: a write returns only after ``COMMIT`` returned. SQLite in WAL mode with
``synchronous = FULL``, and PostgreSQL with ``fsync = on`` (its default; a server setting) and
``synchronous_commit = on`` (set by every connection of this store), keep every committed transaction
across a ``kill -9`` of any process, the PostgreSQL server's included (tests/classroom/test_store_durability.py).

Connections are opened per operation and closed after it (SQLAlchemy's ``NullPool`` for PostgreSQL):
a class of 200 page kernels holds no idle database connections (PostgreSQL allows 100 by default).
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["DatabaseUnavailable", "Connection", "Backend", "SQLiteBackend", "PostgresBackend", "backend_for",
           "MAX_URL_CHARS"]

BUSY_TIMEOUT_MS = 15_000
#: longest database URL accepted
MAX_URL_CHARS = 2000
#: the advisory lock key every writer of a PostgreSQL poll database takes (any fixed 64-bit number)
ADVISORY_LOCK_KEY = 0x6470_6578_706C  # "dpexpl"

_TABLES = [
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS polls (
        code TEXT PRIMARY KEY,
        secret_sha256 TEXT NOT NULL,
        question TEXT NOT NULL CHECK (length(question) BETWEEN 1 AND 300),
        epsilon {real} NOT NULL CHECK (epsilon > 0),
        created_at {real} NOT NULL,
        closes_at {real},
        expires_at {real} NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0,
        creator TEXT NOT NULL DEFAULT 'unknown',
        choices TEXT,
        oracle TEXT)""",
    """CREATE TABLE IF NOT EXISTS tokens (
        token TEXT PRIMARY KEY,
        code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
        issued_at {real} NOT NULL,
        voter TEXT)""",
    """CREATE TABLE IF NOT EXISTS responses (
        id {serial},
        code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
        token TEXT NOT NULL UNIQUE REFERENCES tokens(token) ON DELETE CASCADE,
        randomized_bit INTEGER NOT NULL CHECK (randomized_bit IN (0, 1)),
        received_at {real} NOT NULL,
        voter TEXT)""",
    # a prediction round's answers (polls.choices is set): the index of the chosen answer, not randomized
    """CREATE TABLE IF NOT EXISTS predictions (
        id {serial},
        code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
        token TEXT NOT NULL UNIQUE REFERENCES tokens(token) ON DELETE CASCADE,
        choice INTEGER NOT NULL CHECK (choice BETWEEN 0 AND 5),
        received_at {real} NOT NULL,
        voter TEXT)""",
    # a k-choice poll's answers (polls.oracle is set): the oracle's report, a k-RR value or an OUE bit vector as
    # one integer (k <= 8); checked against the poll's k and oracle again when read
    """CREATE TABLE IF NOT EXISTS kary_responses (
        id {serial},
        code TEXT NOT NULL REFERENCES polls(code) ON DELETE CASCADE,
        token TEXT NOT NULL UNIQUE REFERENCES tokens(token) ON DELETE CASCADE,
        report INTEGER NOT NULL CHECK (report BETWEEN 0 AND 255),
        received_at {real} NOT NULL,
        voter TEXT)""",
    """CREATE TABLE IF NOT EXISTS join_failures (
        id {serial},
        client TEXT NOT NULL,
        at {real} NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS salt (value TEXT NOT NULL)",
]
_INDEXES = [
    "CREATE INDEX IF NOT EXISTS responses_code ON responses(code)",
    # one answer per (poll, voter); NULL voters (no hub: one answer per page view) are distinct on both
    "CREATE UNIQUE INDEX IF NOT EXISTS responses_voter ON responses(code, voter)",
    "CREATE INDEX IF NOT EXISTS predictions_code ON predictions(code)",
    "CREATE UNIQUE INDEX IF NOT EXISTS predictions_voter ON predictions(code, voter)",
    "CREATE INDEX IF NOT EXISTS kary_responses_code ON kary_responses(code)",
    "CREATE UNIQUE INDEX IF NOT EXISTS kary_responses_voter ON kary_responses(code, voter)",
    "CREATE INDEX IF NOT EXISTS tokens_code ON tokens(code)",
    "CREATE INDEX IF NOT EXISTS tokens_code_time ON tokens(code, issued_at)",
    "CREATE INDEX IF NOT EXISTS polls_creator ON polls(creator)",
    "CREATE INDEX IF NOT EXISTS join_failures_client ON join_failures(client, at)",
]


class DatabaseUnavailable(OSError):
    """The PostgreSQL server is down, unreachable, or busier than the timeouts allow.

    An ``OSError``, like SQLite's disk errors, so a page treats both the same way: say so, keep the
    student's coin, let Send be pressed again. (SQLite's own ``sqlite3.OperationalError`` is left as it is.)
    """


class Connection:
    """One open database connection: :meth:`execute` takes ``?`` placeholders on every backend."""

    def __init__(self, raw, *, qmark: bool) -> None:
        self.raw = raw
        self._qmark = qmark

    def execute(self, sql: str, params: tuple = ()):
        """Run one statement; return its cursor (``fetchone``, ``fetchall``, ``rowcount``)."""
        cur = self.raw.cursor()
        cur.execute(sql if self._qmark else sql.replace("?", "%s"), params)
        return cur


class Backend:
    """What :class:`~dpexplore.classroom.store.PollStore` needs of a database (see the module docstring)."""

    #: shown in messages and by :attr:`PollStore.location`
    location: str
    #: the exception class of constraint violations
    integrity_error: type[Exception]

    def tables(self) -> list[str]:
        """CREATE statements of the current schema, in this backend's column types."""
        raise NotImplementedError

    def indexes(self) -> list[str]:
        return list(_INDEXES)

    def is_unique_violation(self, exc: Exception) -> bool:
        raise NotImplementedError

    def prepare(self) -> None:
        """Anything to do once before the schema (SQLite: WAL mode)."""

    @contextmanager
    def write(self) -> Iterator[Connection]:
        raise NotImplementedError
        yield  # pragma: no cover

    @contextmanager
    def read(self) -> Iterator[Connection]:
        raise NotImplementedError
        yield  # pragma: no cover


class SQLiteBackend(Backend):
    """One SQLite file in WAL mode (readers never block the writer; one writer at a time)."""

    integrity_error = sqlite3.IntegrityError

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.location = str(self.path)

    def tables(self) -> list[str]:
        return [t.format(real="REAL", serial="INTEGER PRIMARY KEY") for t in _TABLES]

    def is_unique_violation(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc)

    def _connect(self) -> Connection:
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA secure_delete = ON")  # deleted rows are overwritten, not left in free pages
        con.execute("PRAGMA synchronous = FULL")  # a committed answer survives the machine losing power too
        return Connection(con, qmark=True)

    def prepare(self) -> None:
        con = self._connect()
        try:
            mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise RuntimeError(f"could not put {self.path} in WAL mode (got {mode!r}); is it on a network disk?")
        finally:
            con.raw.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """BEGIN IMMEDIATE takes the write lock before anything is read."""
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
        finally:
            con.raw.close()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        con = self._connect()
        try:
            con.execute("BEGIN")  # one consistent snapshot for the whole read
            try:
                yield con
            finally:
                con.execute("COMMIT")
        finally:
            con.raw.close()


class _OneLine(logging.Filter):
    """SQLAlchemy's pool logs a failed close or reset at ERROR with the whole traceback; the store already
    turns a lost server into :class:`DatabaseUnavailable`, so the pool's record keeps one line, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info:
            exc = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {str(exc)[:120]})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _quiet_pool_log() -> None:
    # a logger's filters see only its own records (not its children's): name the pool classes' loggers
    for name in ("sqlalchemy.pool", "sqlalchemy.pool.base", "sqlalchemy.pool.impl.NullPool"):
        log = logging.getLogger(name)
        if not any(isinstance(f, _OneLine) for f in log.filters):
            log.addFilter(_OneLine())


class PostgresBackend(Backend):
    """A PostgreSQL database through SQLAlchemy (``postgresql+psycopg://…``), one connection per operation."""

    def __init__(self, url: str) -> None:
        import sqlalchemy  # imported only when a PostgreSQL store is asked for
        from sqlalchemy.pool import NullPool

        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the [postgres] extra installs it
            raise ImportError("a postgresql:// poll store needs psycopg: pip install 'dpexplore[postgres]'") from exc
        self._psycopg = psycopg
        self.integrity_error = psycopg.IntegrityError
        # what "the database is not there or too busy" looks like from the driver and from SQLAlchemy's connect
        self._unavailable = (psycopg.OperationalError, psycopg.InterfaceError,
                             sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError)
        _quiet_pool_log()
        self._engine = sqlalchemy.create_engine(
            # no reset on return: every transaction here ends in its own COMMIT or ROLLBACK, and NullPool closes
            # the connection anyway; the reset's ROLLBACK on a connection the server dropped was what made the
            # pool log 7 traceback blocks (253 lines) per crash to stderr (issue 39)
            url, poolclass=NullPool, pool_reset_on_return=None,
            # every wait is bounded: connecting, waiting for the writers' lock, any one statement
            # synchronous_commit=on for our sessions whatever the server's default: with it off, COMMIT returns
            # before the WAL is on disk, and a server crash lost 9 of 451 acknowledged answers in
            # tests/classroom/test_store_durability.py (server started with synchronous_commit=off)
            connect_args={"connect_timeout": 10,
                          "options": f"-c lock_timeout={BUSY_TIMEOUT_MS} -c statement_timeout={BUSY_TIMEOUT_MS} "
                                     "-c synchronous_commit=on"})
        u = self._engine.url
        self.location = f"postgresql://{u.host or 'localhost'}{':' + str(u.port) if u.port else ''}/{u.database}"

    def tables(self) -> list[str]:
        return [t.format(real="DOUBLE PRECISION", serial="BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
                for t in _TABLES]

    def is_unique_violation(self, exc: Exception) -> bool:
        return isinstance(exc, self._psycopg.errors.UniqueViolation)

    @contextmanager
    def _transaction(self, first: str, params: tuple = ()) -> Iterator[Connection]:
        raw = None
        try:
            raw = self._engine.raw_connection()  # psycopg connection, not in autocommit: one transaction
            con = Connection(raw, qmark=False)
            try:
                con.execute(first, params)
                yield con
                raw.commit()
            except BaseException:
                with suppress(Exception):  # a dead connection cannot roll back: keep the first error
                    raw.rollback()
                raise
        except self._unavailable as exc:  # server down, connection lost, lock or statement timeout
            raise DatabaseUnavailable(f"the poll database {self.location} is unavailable or busy "
                                      f"({type(exc).__name__}); try again") from exc
        finally:
            if raw is not None:
                with suppress(Exception):
                    raw.close()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """Every writer takes the same transaction-level advisory lock first (released at COMMIT/ROLLBACK)."""
        with self._transaction("SELECT pg_advisory_xact_lock(?)", (ADVISORY_LOCK_KEY,)) as con:
            yield con

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._transaction("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY") as con:
            yield con


_PG_RE = re.compile(r"postgres(?:ql)?(?:\+psycopg)?://", re.IGNORECASE)


def backend_for(url: str) -> Backend:
    """The backend a database URL names: ``sqlite:///path/file.sqlite3`` or ``postgresql://…``.

    ``postgresql://`` and ``postgres://`` mean ``postgresql+psycopg://`` (psycopg 3, the driver the
    ``postgres`` extra installs).

    Examples
    --------
    >>> backend_for("sqlite:////tmp/polls.sqlite3").location
    '/tmp/polls.sqlite3'
    >>> backend_for("mysql://x")
    Traceback (most recent call last):
    ...
    ValueError: poll database URL must start with sqlite:/// or postgresql:// ; got 'mysql://'
    """
    if not isinstance(url, str):
        raise TypeError(f"poll database URL must be a string; got {type(url).__name__}")
    if len(url) > MAX_URL_CHARS:
        raise ValueError(f"poll database URL must be at most {MAX_URL_CHARS} characters; got {len(url)}")
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
        if not path or path.endswith("/"):
            raise ValueError(f"a sqlite:/// poll database URL must name a file; got {url!r}")
        return SQLiteBackend(Path(path))
    m = _PG_RE.match(url)
    if m:
        return PostgresBackend("postgresql+psycopg://" + url[m.end():])
    scheme = url.split("://", 1)[0][:20] + "://" if "://" in url else url[:20]  # never echo a password
    raise ValueError(f"poll database URL must start with sqlite:/// or postgresql:// ; got {scheme!r}")
