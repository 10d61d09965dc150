"""The poll store: a SQLite database (standard library) shared by every kernel of one server.

One file, ``polls.sqlite3``, in the directory named by ``$DPEXPLORE_POLL_DIR`` (set by
``python -m dpexplore.serve --poll-dir``; default ``~/.cache/dpexplore/polls``). Every Voila kernel
(one per page view) opens it; many may write at once:

* the database is in WAL mode (readers never block the writer, one writer at a time);
* every connection sets ``busy_timeout`` so a writer waits for the lock instead of failing;
* every write is one ``BEGIN IMMEDIATE`` transaction (take the write lock first, then check the
  limits and insert: two kernels cannot both pass a limit check and both insert).

What is stored, and only that:

* ``polls``: join code, SHA-256 of the instructor secret, question text, ε, created / closing /
  expiry times;
* ``tokens``: one random token per student page view (issued when the page joins), with its time;
* ``join_failures``: a keyed hash of the client address of each failed join, with its time, kept for
  the rate limit's window only (:attr:`PollStore.failed_join_limit`);
* ``responses``: the **randomized** bit and a timestamp, bound to a token by a ``UNIQUE``
  constraint (one answer per page view). The student's true answer never reaches this module:
  :meth:`PollStore.submit` takes a bit that the student's kernel already randomized.
* ``predictions``: for a **prediction round** (peer instruction: the room predicts what a plot will do,
  :meth:`PollStore.create_round`), the index of the chosen answer and a timestamp, one per token (and
  per voter). A prediction about a plot is not sensitive and is **not** randomized: a round's
  :attr:`PollInfo.epsilon` is ``inf`` and every page says the answers are stored as given.
* ``kary_responses``: for a **k-choice poll** (:meth:`PollStore.create_kary_poll`, 3 to 8 labelled choices),
  the report the student's kernel made with the poll's frequency oracle (:mod:`.kary`: k-RR, one choice;
  OUE, k bits stored as one integer), one per token (and per voter); checked against the poll's k and
  oracle whenever it is read back (:meth:`PollStore.kary_reports`, :meth:`PollStore.kary_tally`).

Who may do what: :meth:`PollStore.create_poll` takes the creator's identity (the page passes what
:func:`dpexplore.classroom.credentials.instructor_identity` found; a student page has none) and counts
open polls per creator; :meth:`PollStore.join` rate-limits token issue per poll and failed joins per
client address.

Expired polls (and their tokens and responses) are deleted by :meth:`PollStore.purge_expired`,
which every poll creation and every student join calls; until then an expired poll answers like an
unknown one.

For a hosted class with many servers, the same schema runs on PostgreSQL through SQLAlchemy + psycopg
(``PollStore(url="postgresql://…")`` or ``$DPEXPLORE_POLL_DB``; :mod:`.store_backends` holds both
backends). With a ``voter`` (a hub user), :meth:`PollStore.join` and :meth:`PollStore.submit` accept one
answer per voter and poll (a ``UNIQUE (code, voter)`` index), whichever page view sends it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import secrets
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.validation import check_epsilon, check_int, check_real
from .kary import (
    KARY_ORACLES,
    MAX_KARY_CHOICES,
    MIN_KARY_CHOICES,
    KaryReports,
    KaryTally,
    check_oracle,
    decode_reports,
    encode_report,
    kary_tally,
)
from .paths import default_poll_dir
from .poll_types import (
    MAX_CHOICE_CHARS,
    MAX_CHOICES,
    AlreadyAnswered,
    BadSecret,
    ChoiceTally,
    PollClosed,
    PollCreated,
    PollError,
    PollInfo,
    PollLimitReached,
    RateLimited,
    Tally,
    UnknownPoll,
    check_choices,
)
from .store_backends import BUSY_TIMEOUT_MS, Backend, Connection, SQLiteBackend, backend_for

__all__ = [
    "SCHEMA_VERSION", "MAX_QUESTION_CHARS", "MAX_OPEN_POLLS", "MAX_RESPONSES_PER_POLL", "MAX_TOKENS_PER_POLL",
    "MAX_LIFETIME_HOURS", "DEFAULT_LIFETIME_HOURS", "MIN_LIFETIME_HOURS", "MIN_CLOSE_MINUTES", "MAX_EPSILON",
    "MIN_EPSILON", "MAX_OPEN_POLLS_PER_CREATOR", "TOKEN_RATE", "FAILED_JOIN_RATE", "RateLimited",
    "PollError", "UnknownPoll", "PollClosed", "AlreadyAnswered", "PollLimitReached", "BadSecret",
    "PollCreated", "PollInfo", "Tally", "ChoiceTally", "PollStore", "default_poll_dir", "check_join_code",
    "check_secret", "check_choices", "MAX_CHOICES", "MAX_CHOICE_CHARS", "BUSY_TIMEOUT_MS", "KARY_ORACLES",
    "MIN_KARY_CHOICES", "MAX_KARY_CHOICES", "KaryReports", "KaryTally",
]

#: version of the tables (:mod:`.store_backends`); versions 1 (no creator, no join failures) and 2 (no voter)
#: of a SQLite file, and 3 (no prediction rounds) and 4 (no k-choice polls) on either backend, are upgraded in
#: one transaction; any other version is refused (no silent migration)
SCHEMA_VERSION = 5
#: longest question text (characters)
MAX_QUESTION_CHARS = 300
#: most polls open at once on one server (each create counts until its poll expires)
MAX_OPEN_POLLS = 50
#: most polls one creator (an instructor identity) may have open at once
MAX_OPEN_POLLS_PER_CREATOR = 10
#: most responses one poll accepts
MAX_RESPONSES_PER_POLL = 2000
#: most student page views (tokens) one poll issues — bounds what reloading can do to the table
MAX_TOKENS_PER_POLL = 4 * MAX_RESPONSES_PER_POLL
#: longest life of a poll, after which it and all its rows are deleted (hours)
MAX_LIFETIME_HOURS = 24.0
DEFAULT_LIFETIME_HOURS = 3.0
#: shortest life of a poll (hours) and shortest closing time (minutes): anything shorter cannot be used in class
MIN_LIFETIME_HOURS = 0.25
MIN_CLOSE_MINUTES = 1.0
#: default rate limits (count, window in seconds): tokens issued per poll, failed joins per client address
TOKEN_RATE = (240, 60.0)
FAILED_JOIN_RATE = (20, 60.0)
#: ε range a poll accepts (randomized response at ε = 10 flips 1 answer in 22 000: barely private)
MIN_EPSILON, MAX_EPSILON = 0.05, 10.0

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed by a class
CODE_LENGTH = 6
_CODE_RE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
SECRET_BYTES = 24  # secrets.token_urlsafe(24): 32 characters, 192 random bits
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{32}")
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{32}")


def check_join_code(code: object) -> str:
    """Validate a join code's type, length and alphabet (before any database query); upper-cases it.

    Examples
    --------
    >>> check_join_code(" k7mq2x ")
    'K7MQ2X'
    >>> check_join_code("K7MQ2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpexplore.classroom.poll_types.PollError: join code must be 6 characters from A-Z and 2-9 ...; got 'K7MQ2'
    """
    if not isinstance(code, str):
        raise TypeError(f"join code must be a string; got {type(code).__name__}")
    text = code[:64].strip().upper() if len(code) <= 64 else code
    if len(text) != CODE_LENGTH or not _CODE_RE.fullmatch(text):
        shown = text if len(text) <= 20 else text[:20] + "…"
        raise PollError(f"join code must be {CODE_LENGTH} characters from A-Z and 2-9 (no I, O, 0, 1); got {shown!r}")
    return text


def check_secret(secret: object) -> str:
    """Validate an instructor secret's type, length and alphabet (never echoes the value)."""
    if not isinstance(secret, str):
        raise TypeError(f"secret must be a string; got {type(secret).__name__}")
    if not _SECRET_RE.fullmatch(secret):
        raise PollError(f"the instructor secret must be 32 characters from A-Z, a-z, 0-9, '-' and '_'; "
                        f"got {len(secret)} characters that do not match")
    return secret


def _check_token(token: object) -> str:
    if not isinstance(token, str) or not _TOKEN_RE.fullmatch(token):
        raise PollError("student token must be the 32-character token this page was issued")
    return token


def _hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


_ONE_PER_VOTER = ("you have already answered this poll (one answer per signed-in student: a reload, another tab "
                  "or another browser cannot answer again); the server refused the second answer")
_CREATOR_RE = re.compile(r"[A-Za-z0-9_.:@\-]{1,80}")


def _check_creator(creator: object, name: str = "creator") -> str:
    if not isinstance(creator, str):
        raise TypeError(f"{name} must be a string; got {type(creator).__name__}")
    if not _CREATOR_RE.fullmatch(creator):
        raise PollError(f"{name} must be 1 to 80 characters from A-Z, a-z, 0-9 and '_.:@-'; got {creator[:40]!r}")
    return creator


def _check_rate(rate: object, name: str) -> tuple[int, float]:
    if not isinstance(rate, tuple) or len(rate) != 2:
        raise TypeError(f"{name} must be a (count, seconds) tuple; got {rate!r}")
    return (check_int(rate[0], f"{name}[0]", low=1, high=1_000_000),
            check_real(rate[1], f"{name}[1]", low=0.0, high=86_400.0, low_open=True))


def _check_question(question: object) -> str:
    if not isinstance(question, str):
        raise TypeError(f"question must be a string; got {type(question).__name__}")
    if len(question) > 4 * MAX_QUESTION_CHARS:  # before any work on a (client-sent) huge string
        raise PollError(f"question must be at most {MAX_QUESTION_CHARS} characters; got {len(question)}")
    text = " ".join(question.split())  # one line: no layout tricks
    if not text:
        raise PollError("question must not be empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise PollError(f"question must be at most {MAX_QUESTION_CHARS} characters; got {len(text)}")
    if any(not ch.isprintable() for ch in text):
        raise PollError("question must contain printable characters only")
    return text


class PollStore:
    """The SQLite poll database in ``directory`` (default :func:`default_poll_dir`).

    Parameters
    ----------
    directory : str or Path, optional
        Folder of ``polls.sqlite3`` (created with mode 0700 if missing).
    url : str, optional
        A database URL instead of a folder: ``postgresql://user:password@host/db`` (the PostgreSQL
        backend, :mod:`dpexplore.classroom.store_backends`; needs the ``postgres`` extra) or
        ``sqlite:///path/file.sqlite3``. With neither argument, ``$DPEXPLORE_POLL_DB`` if set, else
        :func:`default_poll_dir`.
    clock : callable, optional
        Returns the current time in seconds (tests pass a fake clock).
    token_rate : (int, float)
        At most this many tokens per poll in any window of this many seconds (:meth:`join`).
    failed_join_rate : (int, float)
        At most this many failed joins per client address in any such window; then every join from
        that address is refused until the window has passed (a correct code too: otherwise guessing
        would go on).

    Examples
    --------
    >>> import tempfile
    >>> store = PollStore(tempfile.mkdtemp())
    >>> poll = store.create_poll("Did you sleep less than 6 hours last night?", epsilon=1.0)
    >>> token = store.issue_token(poll.code)
    >>> store.submit(poll.code, token, 1)
    >>> t = store.tally(poll.code, poll.secret)
    >>> t.responses, t.yes, t.tokens
    (1, 1, 1)
    """

    def __init__(self, directory: str | os.PathLike | None = None, *, url: str | None = None, clock=time.time,
                 token_rate: tuple[int, float] = TOKEN_RATE,
                 failed_join_rate: tuple[int, float] = FAILED_JOIN_RATE) -> None:
        self.token_rate = _check_rate(token_rate, "token_rate")
        self.failed_join_rate = _check_rate(failed_join_rate, "failed_join_rate")
        if url is not None and directory is not None:
            raise TypeError("give the poll store a directory (SQLite) or a url, not both")
        if url is None and directory is None:
            url = os.environ.get("DPEXPLORE_POLL_DB") or None
        self.directory: Path | None = None
        self.path: Path | None = None  # the SQLite file (None on PostgreSQL)
        if url is None:
            self.directory = Path(directory) if directory is not None else default_poll_dir()
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.path = self.directory / "polls.sqlite3"
            self._backend: Backend = SQLiteBackend(self.path)
        else:
            self._backend = backend_for(url)
            if isinstance(self._backend, SQLiteBackend):
                self.path = self._backend.path
                self.directory = self.path.parent
                self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.location = self._backend.location
        self._url = url  # another process opens the same database with PollStore(url=...)
        self._clock = clock
        self._init_schema()

    # -- transactions (the backend makes them: SQLite BEGIN IMMEDIATE, PostgreSQL an advisory lock) --------
    def _write(self):
        """One write transaction that holds the writers' lock before anything is read."""
        return self._backend.write()

    def _read(self):
        """One read transaction on a consistent snapshot."""
        return self._backend.read()

    def _init_schema(self) -> None:
        self._backend.prepare()
        with self._write() as con:
            con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = con.execute("SELECT version FROM schema_version").fetchone()
            if row is None:
                con.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif row[0] in (1, 2, 3, 4) and (row[0] >= 3 or isinstance(self._backend, SQLiteBackend)):
                if row[0] == 1:  # version 1 -> 2: polls get a creator (the new tables come below)
                    con.execute("ALTER TABLE polls ADD COLUMN creator TEXT NOT NULL DEFAULT 'unknown'")
                if row[0] <= 2:  # version 2 -> 3: tokens and responses get a voter (one answer per hub user)
                    for table in ("tokens", "responses"):  # (made with the voter below if they do not exist)
                        if con.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                                       (table,)).fetchone()[0]:
                            con.execute(f"ALTER TABLE {table} ADD COLUMN voter TEXT")
                if row[0] <= 3:  # version 3 -> 4: polls get a prediction round's answers (its table comes below)
                    con.execute("ALTER TABLE polls ADD COLUMN choices TEXT")
                # version 4 -> 5: polls get a k-choice poll's oracle (the kary_responses table comes below)
                con.execute("ALTER TABLE polls ADD COLUMN oracle TEXT")
                con.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise RuntimeError(f"{self.location} has poll schema version {row[0]}; this dpexplore uses "
                                   f"{SCHEMA_VERSION}. Delete it (polls are temporary) or use another "
                                   "DPEXPLORE_POLL_DIR / DPEXPLORE_POLL_DB.")
            for statement in self._backend.tables() + self._backend.indexes():
                con.execute(statement)
            if con.execute("SELECT count(*) FROM salt").fetchone()[0] == 0:
                con.execute("INSERT INTO salt (value) VALUES (?)", (secrets.token_hex(16),))

    def schema_version(self) -> int:
        """The schema version stored in the database."""
        with self._read() as con:
            return int(con.execute("SELECT version FROM schema_version").fetchone()[0])

    # -- operations ----------------------------------------------------------------------
    def purge_expired(self) -> int:
        """Delete every expired poll with its tokens and responses; return how many polls went."""
        with self._write() as con:
            return self._purge(con)

    def _purge(self, con: Connection) -> int:
        now = self._clock()
        con.execute("DELETE FROM join_failures WHERE at <= ?", (now - self.failed_join_rate[1],))
        return con.execute("DELETE FROM polls WHERE expires_at <= ?", (now,)).rowcount

    def create_poll(self, question: str, *, epsilon: float, closes_in_minutes: float | None = None,
                    lifetime_hours: float = DEFAULT_LIFETIME_HOURS, creator: str = "local") -> PollCreated:
        """Create a poll; return its join code (public) and secret (the instructor's, shown once).

        Parameters
        ----------
        question : str
            1 to ``MAX_QUESTION_CHARS`` printable characters (whitespace is collapsed).
        epsilon : float
            Randomized-response ε of every answer, in [MIN_EPSILON, MAX_EPSILON].
        closes_in_minutes : float, optional
            Stop accepting answers after this many minutes, at least ``MIN_CLOSE_MINUTES`` (default:
            open until it expires).
        lifetime_hours : float
            Delete the poll and its rows after this many hours, in [MIN_LIFETIME_HOURS, MAX_LIFETIME_HOURS].
        creator : str
            Who creates it (an instructor identity, e.g. ``"launcher"`` or ``"hub:alice"``); at most
            ``MAX_OPEN_POLLS_PER_CREATOR`` polls per creator are open at once.
        """
        text = _check_question(question)
        eps = check_epsilon(epsilon)
        if not MIN_EPSILON <= eps <= MAX_EPSILON:
            raise PollError(f"epsilon must be in [{MIN_EPSILON:g}, {MAX_EPSILON:g}]; got {eps!r}")
        return self._create(text, eps, None, closes_in_minutes, lifetime_hours, creator)

    def create_round(self, question: str, choices, *, closes_in_minutes: float | None = None,
                     lifetime_hours: float = DEFAULT_LIFETIME_HOURS, creator: str = "local") -> PollCreated:
        """Create a prediction round (peer instruction): the room picks one of ``choices``; return its join code
        and secret. Predictions are stored as given (not randomized): the round's ε is ``inf``.

        Parameters are those of :meth:`create_poll`, with ``choices`` (2 to ``MAX_CHOICES`` distinct strings,
        see :func:`check_choices`) instead of ε. A round counts as a poll against every limit.

        Examples
        --------
        >>> import tempfile
        >>> store = PollStore(tempfile.mkdtemp())
        >>> r = store.create_round("Does the error go up or down when n doubles?", ["up", "down", "same"])
        >>> info, token = store.join(r.code)
        >>> info.choices, info.epsilon
        (('up', 'down', 'same'), inf)
        >>> store.submit_choice(r.code, token, 1)
        >>> store.choice_tally(r.code, r.secret).counts
        (0, 1, 0)
        """
        text = _check_question(question)
        answers = check_choices(choices)
        return self._create(text, math.inf, answers, closes_in_minutes, lifetime_hours, creator)

    def create_kary_poll(self, question: str, labels, *, oracle: str, epsilon: float,
                         closes_in_minutes: float | None = None, lifetime_hours: float = DEFAULT_LIFETIME_HOURS,
                         creator: str = "local") -> PollCreated:
        """Create a k-choice poll: ``labels`` (``MIN_KARY_CHOICES`` to ``MAX_KARY_CHOICES`` distinct strings,
        checked like a round's answers), answered in each student's kernel by the frequency oracle ``oracle``
        (``"krr"`` or ``"oue"``, :mod:`dpexplore.classroom.kary`) at ``epsilon`` (in [MIN_EPSILON, MAX_EPSILON]);
        only the report is stored (:meth:`submit_report`). Other parameters and every limit as :meth:`create_poll`.

        Examples
        --------
        >>> import tempfile
        >>> from dpexplore.classroom.kary import randomize_choice
        >>> store = PollStore(tempfile.mkdtemp())
        >>> p = store.create_kary_poll("Commute?", ["walk", "bike", "bus"], oracle="krr", epsilon=1.0)
        >>> info, token = store.join(p.code)
        >>> report = randomize_choice(1, oracle=info.oracle, k=len(info.labels), epsilon=info.epsilon, rng=0)
        >>> store.submit_report(p.code, token, report)
        >>> r = store.kary_reports(p.code, p.secret)
        >>> r.k, r.oracle, r.n
        (3, 'krr', 1)
        """
        text = _check_question(question)
        answers = check_choices(labels, least=MIN_KARY_CHOICES, most=MAX_KARY_CHOICES, name="labels")
        oracle = check_oracle(oracle)
        eps = check_epsilon(epsilon)
        if not MIN_EPSILON <= eps <= MAX_EPSILON:
            raise PollError(f"epsilon must be in [{MIN_EPSILON:g}, {MAX_EPSILON:g}]; got {eps!r}")
        return self._create(text, eps, answers, closes_in_minutes, lifetime_hours, creator, oracle)

    def _create(self, text: str, eps: float, choices: tuple[str, ...] | None, closes_in_minutes: float | None,
                lifetime_hours: float, creator: str, oracle: str | None = None) -> PollCreated:
        life = check_real(lifetime_hours, "lifetime_hours", low=MIN_LIFETIME_HOURS, high=MAX_LIFETIME_HOURS)
        who = _check_creator(creator)
        now = self._clock()
        expires = now + life * 3600.0
        closes = None
        if closes_in_minutes is not None:
            minutes = check_real(closes_in_minutes, "closes_in_minutes", low=MIN_CLOSE_MINUTES, high=life * 60.0)
            closes = now + minutes * 60.0
        secret = secrets.token_urlsafe(SECRET_BYTES)
        with self._write() as con:
            self._purge(con)
            n_open = con.execute("SELECT count(*) FROM polls").fetchone()[0]
            if n_open >= MAX_OPEN_POLLS:
                raise PollLimitReached(f"this server already has {n_open} polls (the maximum is {MAX_OPEN_POLLS}); "
                                       "wait until one expires")
            mine = con.execute("SELECT count(*) FROM polls WHERE creator = ?", (who,)).fetchone()[0]
            if mine >= MAX_OPEN_POLLS_PER_CREATOR:
                raise PollLimitReached(f"{who} already has {mine} polls on this server (the maximum per instructor "
                                       f"is {MAX_OPEN_POLLS_PER_CREATOR}); delete one or wait until one expires")
            for _ in range(20):  # 32^6 ≈ 1e9 codes, at most 50 live: a clash is rare
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                inserted = con.execute(
                    "INSERT INTO polls (code, secret_sha256, question, epsilon, created_at, closes_at, expires_at, "
                    "creator, choices, oracle) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING",
                    (code, _hash_secret(secret), text, eps, now, closes, expires, who,
                     None if choices is None else json.dumps(list(choices), ensure_ascii=False), oracle)).rowcount
                if inserted == 1:
                    break
            else:  # pragma: no cover - 20 clashes in a row
                raise PollError("could not find a free join code; try again")
        return PollCreated(code=code, secret=secret, question=text, epsilon=eps, closes_at=closes, expires_at=expires)

    def _info(self, con: Connection, code: str) -> PollInfo:
        row = con.execute("SELECT question, epsilon, closes_at, expires_at, closed, choices, oracle FROM polls "
                          "WHERE code = ?", (code,)).fetchone()
        now = self._clock()
        if row is None or row[3] <= now:
            raise UnknownPoll(f"there is no poll with join code {code} on this server (wrong code, or it expired)")
        question, eps, closes, expires, closed, stored, oracle = row
        is_open = not closed and (closes is None or now < closes)
        choices = None
        if stored is not None:  # read back from the database: checked like a client's input
            try:
                if not isinstance(stored, str) or len(stored) > 16 * MAX_KARY_CHOICES * MAX_CHOICE_CHARS:
                    raise ValueError("too long")
                choices = (check_choices(json.loads(stored)) if oracle is None else
                           check_choices(json.loads(stored), least=MIN_KARY_CHOICES, most=MAX_KARY_CHOICES))
            except (ValueError, TypeError):
                raise PollError(f"poll {code} is damaged in the database (its answers do not parse)") from None
            if oracle is None and float(eps) != math.inf:
                raise PollError(f"poll {code} is damaged in the database (a prediction round with a finite ε)")
        if oracle is not None:  # a k-choice poll: a known oracle, k labels and an ε a poll may have
            if oracle not in KARY_ORACLES or choices is None or not MIN_EPSILON <= float(eps) <= MAX_EPSILON:
                raise PollError(f"poll {code} is damaged in the database (a k-choice poll without a valid oracle, "
                                "labels or ε)")
            return PollInfo(code=code, question=question, epsilon=float(eps), closes_at=closes, expires_at=expires,
                            is_open=is_open, oracle=oracle, labels=choices)
        return PollInfo(code=code, question=question, epsilon=float(eps), closes_at=closes, expires_at=expires,
                        is_open=is_open, choices=choices)

    def poll_info(self, code: str) -> PollInfo:
        """The public facts of a poll (question, ε, open or not): what a student page shows."""
        code = check_join_code(code)
        with self._read() as con:
            return self._info(con, code)

    def issue_token(self, code: str) -> str:
        """Issue one student token for this poll: :meth:`join` without a client address."""
        return self.join(code)[1]

    def _client_key(self, con: Connection, client: str) -> str:
        salt = con.execute("SELECT value FROM salt").fetchone()[0]  # the address itself is never stored
        return hmac.new(salt.encode(), client.encode(errors="replace"), hashlib.sha256).hexdigest()

    def join(self, code: object, *, client: str | None = None,
             voter: str | None = None) -> tuple[PollInfo, str]:
        """Join a poll: its public facts and one new student token (a page calls this once).

        The token lives in that page's kernel; :meth:`submit` accepts one answer per token, and with
        a ``voter`` one answer per voter and poll, whichever token sends it.

        Parameters
        ----------
        code : str
            The join code, as typed or taken from the URL (checked here).
        client : str, optional
            The client's own address where the server knows it (:mod:`dpexplore.hosting.instructor`).
            Failed joins are counted against the ``voter`` when there is one (a hub user), else this
            address: after ``failed_join_rate[0]`` failures in ``failed_join_rate[1]`` s that voter or
            address is refused until the window has passed; another voter's typos never refuse this
            one's correct code behind one proxy address (issue 39 J1). Otherwise the page bounds guesses.
        voter : str, optional
            Who the student is, when something vouches for it (under JupyterHub ``"hub:<user>"``,
            from the single-user server's ``JUPYTERHUB_USER``): 1 to 80 characters from A-Z, a-z,
            0-9 and ``'_.:@-'``. A reload, a second tab or a second browser of the same voter gets a
            new token bound to the same voter, and the database's ``UNIQUE (code, voter)`` index
            refuses a second answer. ``PollInfo.already_answered`` tells the page at once.

        Raises
        ------
        RateLimited
            Too many failed joins from this client, or too many tokens for this poll in the window.
        UnknownPoll, PollClosed, PollLimitReached, PollError
        """
        if client is not None and (not isinstance(client, str) or len(client) > 200):
            raise TypeError(f"client must be a string of at most 200 characters; got {type(client).__name__}")
        who = None if voter is None else _check_creator(voter, "voter")
        if not client and not who:  # nothing to count a malformed code against: refuse it before any query
            code = check_join_code(code)
        token = secrets.token_urlsafe(SECRET_BYTES)
        failure: PollError | None = None
        with self._write() as con:
            self._purge(con)
            now = self._clock()
            # the failure counter's identity: the hub user where there is one, else the client's address
            key = self._client_key(con, f"voter:{who}") if who else (self._client_key(con, client) if client else None)
            if key is not None:
                limit, window = self.failed_join_rate
                failed = con.execute("SELECT count(*), min(at) FROM join_failures WHERE client = ? AND at > ?",
                                     (key, now - window)).fetchone()
                if failed[0] >= limit:
                    wait = max(1, math.ceil(failed[1] + window - now))
                    whom = "you" if who else "your address"
                    raise RateLimited(f"too many wrong join codes from {whom} ({failed[0]} in {window:g} s); "
                                      f"try again in {wait} s")
            try:
                code = check_join_code(code)
                info = self._info(con, code)
            except UnknownPoll as exc:
                failure = exc
            except PollError as exc:  # malformed: counted too (a guesser may send anything)
                failure = exc
            if failure is not None:
                if key is not None:
                    con.execute("INSERT INTO join_failures (client, at) VALUES (?, ?)", (key, now))
            else:
                if not info.is_open:
                    raise PollClosed(f"poll {code} is closed: it no longer accepts answers")
                limit, window = self.token_rate
                recent = con.execute("SELECT count(*) FROM tokens WHERE code = ? AND issued_at > ?",
                                     (code, now - window)).fetchone()[0]
                if recent >= limit:
                    raise RateLimited(f"poll {code} is being joined very fast ({recent} joins in {window:g} s, the "
                                      f"limit is {limit}); try again in a few seconds")
                issued = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
                if issued >= MAX_TOKENS_PER_POLL:
                    raise PollLimitReached(f"poll {code} has had {issued} student page views (the maximum is "
                                           f"{MAX_TOKENS_PER_POLL})")
                con.execute("INSERT INTO tokens (token, code, issued_at, voter) VALUES (?, ?, ?, ?)",
                            (token, code, now, who))
                if who is not None and con.execute(f"SELECT count(*) FROM {_answers(info)} WHERE code = ? AND "
                                                   "voter = ?", (code, who)).fetchone()[0]:
                    info = replace(info, already_answered=True)
        if failure is not None:
            raise failure
        return info, token

    def submit(self, code: str, token: str, randomized_bit: int) -> None:
        """Store one randomized bit for this token (a second answer with the same token is refused).

        Parameters
        ----------
        code : str
            The poll's join code.
        token : str
            The token :meth:`issue_token` gave this page.
        randomized_bit : {0, 1}
            The answer **after** randomized response (the student's kernel flipped the coin).

        Raises
        ------
        AlreadyAnswered
            This token has answered already (the ``UNIQUE`` constraint on ``responses.token``).
        PollClosed, UnknownPoll, PollLimitReached
        """
        code = check_join_code(code)
        token = _check_token(token)
        if isinstance(randomized_bit, (bool, np.bool_)) or not isinstance(randomized_bit, (int, np.integer)):
            shown = (f"array of shape {randomized_bit.shape}" if isinstance(randomized_bit, np.ndarray)
                     else f"{randomized_bit!r:.40}")
            raise TypeError(f"randomized_bit must be the integer 0 or 1; got {shown} of type "
                            f"{type(randomized_bit).__name__}")
        if randomized_bit not in (0, 1):
            raise PollError(f"randomized_bit must be 0 or 1; got {randomized_bit!r}")
        self._insert_answer(code, token, int(randomized_bit), kind="rr")

    def submit_choice(self, code: str, token: str, choice: int) -> None:
        """Store one prediction (the index of the chosen answer) of a prediction round for this token.

        One per token and, with a voter, one per voter and round, as :meth:`submit`. Raises
        ``PollError`` if ``code`` is a randomized-response poll (its answers must be randomized bits).
        """
        code = check_join_code(code)
        token = _check_token(token)
        if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)):
            raise TypeError(f"choice must be an integer index of the round's answers; got type {type(choice).__name__}")
        if not 0 <= choice < MAX_CHOICES:
            raise PollError(f"choice must be in [0, {MAX_CHOICES - 1}]; got {choice!r}")
        self._insert_answer(code, token, int(choice), kind="predict")

    def submit_report(self, code: str, token: str, report) -> None:
        """Store one k-choice poll report for this token: what :func:`dpexplore.classroom.kary.randomize_choice`
        returned in the student's kernel (k-RR: an int in [0, k − 1]; OUE: k bits). One per token and per voter,
        as :meth:`submit`; ``PollError`` if ``code`` is another kind of poll or the report does not fit its k."""
        code = check_join_code(code)
        token = _check_token(token)
        size = (report.size if isinstance(report, np.ndarray) else
                len(report) if isinstance(report, (list, tuple)) else 1)
        if isinstance(report, (bool, np.bool_)) or not isinstance(report, (int, np.integer, list, tuple, np.ndarray)) \
                or size > MAX_KARY_CHOICES:
            raise TypeError(f"report must be an integer (k-RR) or at most {MAX_KARY_CHOICES} bits (OUE); got type "
                            f"{type(report).__name__}")
        self._insert_answer(code, token, report, kind="kary")

    def _insert_answer(self, code: str, token: str, value, *, kind: str) -> None:
        with self._write() as con:
            info = self._info(con, code)
            has = "kary" if info.oracle is not None else ("predict" if info.choices is not None else "rr")
            if kind != has:
                raise PollError(f"poll {code} is a " + {"rr": "randomized-response poll: it takes randomized bits "
                                "only (submit)", "predict": "prediction round: send a choice (submit_choice)",
                                "kary": "k-choice poll: send the oracle's report (submit_report)"}[has])
            if kind == "predict" and value >= len(info.choices):
                raise PollError(f"choice must be in [0, {len(info.choices) - 1}] for poll {code}; got {value}")
            if kind == "kary":
                value = encode_report(value, oracle=info.oracle, k=len(info.labels))
            if not info.is_open:
                raise PollClosed(f"poll {code} is closed: it no longer accepts answers")
            owner = con.execute("SELECT code, voter FROM tokens WHERE token = ?", (token,)).fetchone()
            if owner is None or owner[0] != code:
                raise PollError("this page's token was not issued for this poll (reload the page to get one)")
            voter = owner[1]
            table = _answers(info)
            if voter is not None and con.execute(f"SELECT count(*) FROM {table} WHERE code = ? AND voter = ?",
                                                 (code, voter)).fetchone()[0]:
                raise AlreadyAnswered(_ONE_PER_VOTER)
            n = con.execute(f"SELECT count(*) FROM {table} WHERE code = ?", (code,)).fetchone()[0]
            if n >= MAX_RESPONSES_PER_POLL:
                raise PollLimitReached(f"poll {code} has {n} answers, the maximum")
            column = {"rr": "randomized_bit", "predict": "choice", "kary": "report"}[kind]
            try:
                con.execute(f"INSERT INTO {table} (code, token, {column}, received_at, voter) "
                            "VALUES (?, ?, ?, ?, ?)", (code, token, value, self._clock(), voter))
            except self._backend.integrity_error as exc:
                if not self._backend.is_unique_violation(exc):
                    raise
                raise AlreadyAnswered(_ONE_PER_VOTER if voter is not None else
                                      "this page has already answered this poll (one answer per page view); "
                                      "the server refused the second answer") from None

    def _check_secret(self, con: Connection, code: str, secret: str | None, creator: str | None = None) -> None:
        """The poll's secret, or (``secret=None``) its creator's identity, must match."""
        if secret is None:
            row = con.execute("SELECT creator FROM polls WHERE code = ?", (code,)).fetchone()
            if creator is None or row is None or not hmac.compare_digest(row[0].encode(), creator.encode()):
                raise BadSecret(f"poll {code} was not created by this instructor (or there is no such poll)")
            return
        row = con.execute("SELECT secret_sha256 FROM polls WHERE code = ?", (code,)).fetchone()
        stored = row[0] if row else _hash_secret("x" * 32)  # compare anyway: same work for unknown codes
        if not hmac.compare_digest(stored, _hash_secret(secret)) or row is None:
            raise BadSecret(f"the instructor secret does not match poll {code} (or there is no such poll)")

    def _auth_args(self, code: str, secret: str | None, creator: str | None) -> tuple[str, str | None, str | None]:
        code = check_join_code(code)
        if secret is None and creator is None:
            raise TypeError("give the poll's secret or its creator's identity")
        return code, (None if secret is None else check_secret(secret)), (
            None if creator is None else _check_creator(creator))

    def tally(self, code: str, secret: str | None = None, *, creator: str | None = None) -> Tally:
        """Aggregate counts of a poll; needs the poll's secret (checked in constant time) or, with
        ``secret=None``, the identity of its creator (an instructor page re-opened by its creator)."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._read() as con:
            self._check_secret(con, code, secret, creator)
            info = self._info(con, code)
            if info.choices is not None or info.oracle is not None:
                raise PollError(f"poll {code} is not a yes/no poll: read it with choice_tally or kary_tally")
            n, yes, last = con.execute("SELECT count(*), coalesce(sum(randomized_bit), 0), max(received_at) "
                                       "FROM responses WHERE code = ?", (code,)).fetchone()
            tokens = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
        return Tally(info=info, responses=int(n), yes=int(yes), tokens=int(tokens), last_response_at=last)

    def choice_tally(self, code: str, secret: str | None = None, *, creator: str | None = None) -> ChoiceTally:
        """How many predictions each answer of a prediction round got (auth as :meth:`tally`)."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._read() as con:
            self._check_secret(con, code, secret, creator)
            info = self._info(con, code)
            if info.choices is None:
                raise PollError(f"poll {code} is not a prediction round: read it with tally or kary_tally")
            counts = [0] * len(info.choices)
            for choice, k in con.execute("SELECT choice, count(*) FROM predictions WHERE code = ? GROUP BY choice",
                                         (code,)).fetchall():
                if not 0 <= choice < len(counts):  # the CHECK allows up to MAX_CHOICES - 1: a damaged row
                    raise PollError(f"poll {code} is damaged in the database (a prediction out of range)")
                counts[choice] = int(k)
            last = con.execute("SELECT max(received_at) FROM predictions WHERE code = ?", (code,)).fetchone()[0]
            tokens = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
        return ChoiceTally(info=info, counts=tuple(counts), tokens=int(tokens), last_response_at=last)

    def kary_reports(self, code: str, secret: str | None = None, *, creator: str | None = None) -> KaryReports:
        """A k-choice poll's stored reports with its k, oracle, ε and labels (auth as :meth:`tally`), each report
        checked against the poll's k and oracle (``PollError`` for a damaged row): page 14 runs its
        local-vs-central comparison on them."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._read() as con:
            self._check_secret(con, code, secret, creator)
            return self._kary_reports(con, code)[0]

    def _kary_reports(self, con: Connection, code: str) -> tuple[KaryReports, PollInfo]:
        info = self._info(con, code)
        if info.oracle is None:
            raise PollError(f"poll {code} is not a k-choice poll: read it with tally or choice_tally")
        k = len(info.labels)
        stored = [r[0] for r in con.execute("SELECT report FROM kary_responses WHERE code = ? ORDER BY id",
                                            (code,)).fetchall()]
        if len(stored) > MAX_RESPONSES_PER_POLL:
            raise PollError(f"poll {code} is damaged in the database (more answers than the maximum)")
        reports = decode_reports(stored, oracle=info.oracle, k=k)
        reports.setflags(write=False)
        return KaryReports(k, info.oracle, info.epsilon, info.labels, reports), info

    def kary_tally(self, code: str, secret: str | None = None, *, creator: str | None = None) -> KaryTally:
        """A k-choice poll's raw report counts and per-choice estimates with standard errors (auth as
        :meth:`tally`; :func:`dpexplore.classroom.kary.kary_tally`)."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._read() as con:
            self._check_secret(con, code, secret, creator)
            reports, info = self._kary_reports(con, code)
            last = con.execute("SELECT max(received_at) FROM kary_responses WHERE code = ?", (code,)).fetchone()[0]
            tokens = con.execute("SELECT count(*) FROM tokens WHERE code = ?", (code,)).fetchone()[0]
        return kary_tally(info, reports, tokens=int(tokens), last_response_at=last)

    def close_poll(self, code: str, secret: str | None = None, *, creator: str | None = None) -> None:
        """Stop accepting answers (the tally stays readable until the poll expires)."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._write() as con:
            self._check_secret(con, code, secret, creator)
            con.execute("UPDATE polls SET closed = 1 WHERE code = ?", (code,))

    def delete_poll(self, code: str, secret: str | None = None, *, creator: str | None = None) -> None:
        """Delete a poll with all its tokens and responses now."""
        code, secret, creator = self._auth_args(code, secret, creator)
        with self._write() as con:
            self._check_secret(con, code, secret, creator)
            con.execute("DELETE FROM polls WHERE code = ?", (code,))

    def closed_result(self, code: str) -> Tally | ChoiceTally | KaryTally | None:
        """A closed poll's counts for the students' pages (None while it is open): the room's result is public
        once the instructor has closed the poll to show it."""
        info = self.poll_info(code)
        if info.is_open:
            return None
        with self._read() as con:
            creator = con.execute("SELECT creator FROM polls WHERE code = ?", (info.code,)).fetchone()[0]
        read = (self.kary_tally if info.oracle is not None else
                self.tally if info.choices is None else self.choice_tally)
        return read(info.code, creator=creator)


def _answers(info: PollInfo) -> str:
    """The table that holds this poll's answers."""
    return "kary_responses" if info.oracle is not None else ("responses" if info.choices is None else "predictions")


def minutes_left(t: float | None, now: float) -> float:
    """Minutes from ``now`` until ``t`` (inf for None), never negative."""
    return math.inf if t is None else max(0.0, (t - now) / 60.0)
