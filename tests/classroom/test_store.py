"""The poll store on both backends (SQLite and PostgreSQL, see conftest.py): schema, privacy of what is
stored, one answer per token and per voter, limits, expiry, secrets, hostile input, and many writer processes
at once. Tests named *sqlite* are about the SQLite file itself (WAL, upgrades in place)."""

import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dpexplore.classroom import store as store_mod
from dpexplore.classroom.store import (
    MAX_QUESTION_CHARS,
    SCHEMA_VERSION,
    AlreadyAnswered,
    BadSecret,
    PollClosed,
    PollError,
    PollLimitReached,
    PollStore,
    UnknownPoll,
    check_join_code,
    default_poll_dir,
)

from .conftest import rows


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def _url(store):
    """A URL that opens the same database in another process."""
    return f"sqlite:///{store.path}" if store.path is not None else store._url


def _columns(store, table):
    if store.path is not None:
        return [r[1] for r in _rows(store.path, f"PRAGMA table_info({table})")]
    return [c for (c,) in rows(store, "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                      "ORDER BY ordinal_position", (table,))]


def _rows(path, sql):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_schema_version(store):
    assert store.schema_version() == SCHEMA_VERSION == 5
    assert rows(store, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def test_sqlite_is_in_wal_mode(tmp_path):
    store = PollStore(tmp_path)
    assert _rows(store.path, "PRAGMA journal_mode") == [("wal",)]
    assert _rows(store.path, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def test_a_sqlite_database_of_another_schema_version_is_refused(tmp_path):
    PollStore(tmp_path)
    con = sqlite3.connect(tmp_path / "polls.sqlite3")
    con.execute("UPDATE schema_version SET version = 99")
    con.commit()
    con.close()
    with pytest.raises(RuntimeError, match="schema version 99"):
        PollStore(tmp_path)


def test_only_the_randomized_bit_and_a_timestamp_are_stored(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    bits = [1, 0, 0, 1, 1]
    for b in bits:
        store.submit(poll.code, store.issue_token(poll.code), b)
    assert _columns(store, "responses") == ["id", "code", "token", "randomized_bit", "received_at", "voter"]
    assert _columns(store, "tokens") == ["token", "code", "issued_at", "voter"]
    assert [b for (b,) in rows(store, "SELECT randomized_bit FROM responses ORDER BY id")] == bits
    assert rows(store, "SELECT count(*) FROM responses WHERE voter IS NOT NULL") == [(0,)]  # no hub: no voter
    # the secret is not stored, only its hash
    assert rows(store, "SELECT count(*) FROM polls WHERE secret_sha256 = ?", (poll.secret,)) == [(0,)]
    if store.path is not None:
        assert poll.secret.encode() not in store.path.read_bytes()
    t = store.tally(poll.code, poll.secret)
    assert (t.responses, t.yes, t.tokens) == (5, 3, 5)


def test_one_answer_per_token_enforced_by_the_database(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    tok = store.issue_token(poll.code)
    store.submit(poll.code, tok, 1)
    with pytest.raises(AlreadyAnswered, match="already answered"):
        store.submit(poll.code, tok, 0)
    assert store.tally(poll.code, poll.secret).responses == 1
    # the constraint itself is in the table: a raw second insert fails too
    with pytest.raises(store._backend.integrity_error) as err, store._write() as con:
        con.execute("INSERT INTO responses (code, token, randomized_bit, received_at) VALUES (?, ?, 0, 0)",
                    (poll.code, tok))
    assert store._backend.is_unique_violation(err.value)
    # an unissued token, and a token of another poll, are refused
    with pytest.raises(PollError, match="not issued for this poll"):
        store.submit(poll.code, "A" * 32, 1)
    other = store.create_poll("Other?", epsilon=1.0)
    with pytest.raises(PollError, match="not issued for this poll"):
        store.submit(other.code, store.issue_token(poll.code), 1)


def test_a_new_page_view_gets_a_new_token_and_can_answer_again(store):
    """What docs/guides/poll.md says a reload can do: a new page view is a new token (counted in the tally)."""
    poll = store.create_poll("Q?", epsilon=1.0)
    for _ in range(2):
        store.submit(poll.code, store.issue_token(poll.code), 1)
    t = store.tally(poll.code, poll.secret)
    assert (t.responses, t.tokens) == (2, 2)


@pytest.mark.parametrize("bad", [2, -1])
def test_randomized_bit_must_be_0_or_1(store, bad):
    poll = store.create_poll("Q?", epsilon=1.0)
    with pytest.raises(PollError, match="randomized_bit must be 0 or 1"):
        store.submit(poll.code, store.issue_token(poll.code), bad)


@pytest.mark.parametrize("bad, shown", [(0.5, "0.5 of type float"), (1.0, "1.0 of type float"), ("1", "str"),
                                        (None, "NoneType"), (True, "bool"), (np.bool_(True), "bool"),
                                        (np.array([1]), r"array of shape \(1,\)"),
                                        (np.array([[1, 0]]), r"array of shape \(1, 2\)")])
def test_randomized_bit_of_another_type_is_a_type_error_naming_it(store, bad, shown):
    """Issue 30.6: before, an array or a float 1.0 was accepted or failed inside int()/numpy."""
    poll = store.create_poll("Q?", epsilon=1.0)
    with pytest.raises(TypeError, match=f"randomized_bit must be the integer 0 or 1; got .*{shown}"):
        store.submit(poll.code, store.issue_token(poll.code), bad)
    assert store.tally(poll.code, poll.secret).responses == 0


def test_question_and_epsilon_are_bounded(store):
    with pytest.raises(PollError, match=f"at most {MAX_QUESTION_CHARS} characters; got {MAX_QUESTION_CHARS + 1}"):
        store.create_poll("x" * (MAX_QUESTION_CHARS + 1), epsilon=1.0)
    with pytest.raises(PollError, match="must not be empty"):
        store.create_poll("   ", epsilon=1.0)
    with pytest.raises(TypeError, match="question must be a string"):
        store.create_poll(None, epsilon=1.0)
    with pytest.raises(PollError, match=r"epsilon must be in \[0.05, 10\]; got 20.0"):
        store.create_poll("Q?", epsilon=20.0)
    with pytest.raises(ValueError, match="epsilon must be"):
        store.create_poll("Q?", epsilon=-1)
    with pytest.raises(ValueError, match="lifetime_hours"):
        store.create_poll("Q?", epsilon=1.0, lifetime_hours=25)
    assert store.create_poll("  two\n lines  ", epsilon=1.0).question == "two lines"


def test_open_polls_responses_and_tokens_are_bounded(store, monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_OPEN_POLLS", 2)
    monkeypatch.setattr(store_mod, "MAX_RESPONSES_PER_POLL", 2)
    monkeypatch.setattr(store_mod, "MAX_TOKENS_PER_POLL", 3)
    poll = store.create_poll("Q?", epsilon=1.0)
    store.create_poll("Q2?", epsilon=1.0)
    with pytest.raises(PollLimitReached, match="maximum is 2"):
        store.create_poll("Q3?", epsilon=1.0)
    toks = [store.issue_token(poll.code) for _ in range(3)]
    with pytest.raises(PollLimitReached, match="maximum is 3"):
        store.issue_token(poll.code)
    store.submit(poll.code, toks[0], 1)
    store.submit(poll.code, toks[1], 0)
    with pytest.raises(PollLimitReached, match="the maximum"):
        store.submit(poll.code, toks[2], 1)


def test_polls_close_expire_and_are_deleted(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    poll = store.create_poll("Q?", epsilon=1.0, closes_in_minutes=10, lifetime_hours=1)
    tok = store.issue_token(poll.code)
    late = store.issue_token(poll.code)
    store.submit(poll.code, tok, 1)
    clock.t += 11 * 60  # closed: no answers, the tally still readable
    with pytest.raises(PollClosed, match="closed"):
        store.submit(poll.code, late, 0)
    with pytest.raises(PollClosed):
        store.issue_token(poll.code)
    assert store.tally(poll.code, poll.secret).info.is_open is False
    clock.t += 3600  # expired: gone, with every row
    assert store.purge_expired() == 1
    with pytest.raises(UnknownPoll, match="no poll with join code"):
        store.poll_info(poll.code)
    for table in ("polls", "tokens", "responses"):
        assert rows(store, f"SELECT count(*) FROM {table}") == [(0,)]


def test_instructor_close_and_delete(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    store.close_poll(poll.code, poll.secret)
    with pytest.raises(PollClosed):
        store.issue_token(poll.code)
    store.delete_poll(poll.code, poll.secret)
    with pytest.raises(UnknownPoll):
        store.poll_info(poll.code)


def test_the_tally_needs_the_secret(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    wrong = ("B" if poll.secret[0] != "B" else "C") + poll.secret[1:]
    with pytest.raises(BadSecret, match="does not match"):
        store.tally(poll.code, wrong)
    with pytest.raises(BadSecret):
        store.close_poll(poll.code, wrong)
    with pytest.raises(PollError, match="32 characters"):
        store.tally(poll.code, "short")
    with pytest.raises(BadSecret):  # unknown code, well-formed secret: the same answer
        store.tally("ABCDEF" if poll.code != "ABCDEF" else "ABCDEG", poll.secret)


@pytest.mark.parametrize("code", ["", "ABC", "ABCDEFG", "ABCDE0", "ABCDE1", "ABC'; DROP TABLE polls; --",
                                  "x" * 1_000_000, "ÄBCDEF", "ABC\x00EF"])
def test_hostile_join_codes_are_refused_before_any_query(store, code, monkeypatch):
    def no_db(*a, **k):  # pragma: no cover - must not be reached
        raise AssertionError("database opened for a malformed code")

    monkeypatch.setattr(store._backend, "write", no_db)
    monkeypatch.setattr(store._backend, "read", no_db)
    with pytest.raises(PollError, match="join code must be 6 characters"):
        store.poll_info(code)
    with pytest.raises(PollError, match="join code must be 6 characters"):
        store.issue_token(code)
    with pytest.raises(PollError, match="join code must be 6 characters"):
        store.submit(code, "A" * 32, 1)


def test_join_code_type_and_normalisation():
    assert check_join_code(" abcdef ") == "ABCDEF"
    with pytest.raises(TypeError, match="join code must be a string"):
        check_join_code(123456)


def test_default_poll_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path / "p"))
    assert default_poll_dir() == tmp_path / "p"
    monkeypatch.delenv("DPEXPLORE_POLL_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert default_poll_dir() == tmp_path / "c" / "dpexplore" / "polls"


WRITER = textwrap.dedent("""
    import sys
    from dpexplore.classroom.store import PollStore, AlreadyAnswered
    where, code, n, shared = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    # a concurrency test, not the rate limit
    store = PollStore(url=where, token_rate=(10**6, 60.0))
    print("ready", flush=True)
    sys.stdin.readline()  # a barrier: every process is imported and connected before any writes
    ok = dup = 0
    try:
        store.submit(code, shared, 1)   # every process races to answer with the same token
        ok += 1
    except AlreadyAnswered:
        dup += 1
    for i in range(n):
        store.submit(code, store.issue_token(code), i % 2)
    print(ok, dup)
""")


def _race(cmd, procs):
    """Start ``procs`` copies of ``cmd``, release them together (each prints "ready", then waits for a line),
    and return each one's last line as a tuple of ints."""
    ps = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
          for _ in range(procs)]
    for p in ps:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()[-800:]
    for p in ps:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=120) for p in ps]
    assert all(p.returncode == 0 for p in ps), [o[1][-800:] for o in outs]
    return [tuple(map(int, o[0].split())) for o in outs]


def test_many_writer_processes_at_once(store):
    """8 processes start together (a barrier); each sends 40 answers (80 write transactions) and all race to use one
    shared token: every answer lands, nothing fails with 'database is locked', exactly one shared answer."""
    poll = store.create_poll("Q?", epsilon=1.0)
    shared = store.issue_token(poll.code)
    procs, n = 8, 40
    counts = _race([sys.executable, "-c", WRITER, _url(store), poll.code, str(n), shared], procs)
    assert sum(c[0] for c in counts) == 1 and sum(c[1] for c in counts) == procs - 1
    t = store.tally(poll.code, poll.secret)
    assert t.responses == procs * n + 1
    assert t.yes == procs * (n // 2) + 1
    assert t.tokens == procs * n + 1


# -- issue 30.6: a lifetime too short to use --------------------------------------------------------------
@pytest.mark.parametrize("kw, msg", [
    ({"lifetime_hours": 1e-9}, r"lifetime_hours must be a finite number >= 0.25 and <= 24; got 1e-09"),
    ({"lifetime_hours": 0.2}, r"lifetime_hours must be a finite number >= 0.25"),
    ({"closes_in_minutes": 1e-9}, r"closes_in_minutes must be a finite number >= 1 and <= 180; got 1e-09"),
    ({"closes_in_minutes": np.array([5.0])}, r"closes_in_minutes must be .*array of shape \(1,\)"),
    ({"epsilon": np.array([1.0])}, r"epsilon must be .*array of shape \(1,\)"),
])
def test_a_poll_too_short_to_use_or_with_array_arguments_is_refused(store, kw, msg):
    """Before: a poll living 3.6 microseconds, or closing after 0.06 ms, was created."""
    with pytest.raises((ValueError, TypeError), match=msg):
        store.create_poll("Q?", **{"epsilon": 1.0, **kw})


# -- issue 31.5: polls counted per creator ----------------------------------------------------------------
def test_open_polls_are_counted_per_creator(store, monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_OPEN_POLLS_PER_CREATOR", 2)
    for _ in range(2):
        store.create_poll("Q?", epsilon=1.0, creator="hub:alice")
    with pytest.raises(PollLimitReached, match="hub:alice already has 2 polls"):
        store.create_poll("Q?", epsilon=1.0, creator="hub:alice")
    p = store.create_poll("Q?", epsilon=1.0, creator="hub:bob")  # another instructor is not blocked
    assert rows(store, "SELECT creator FROM polls WHERE code = ?", (p.code,)) == [("hub:bob",)]
    for bad in ("", "a b", "x" * 81, "<script>"):
        with pytest.raises(PollError, match="creator must be 1 to 80 characters"):
            store.create_poll("Q?", epsilon=1.0, creator=bad)


def test_the_creator_reopens_a_poll_without_its_secret_nobody_else_does(store):
    p = store.create_poll("Q?", epsilon=1.0, creator="launcher")
    assert store.tally(p.code, creator="launcher").responses == 0
    with pytest.raises(BadSecret, match="not created by this instructor"):
        store.tally(p.code, creator="hub:mallory")
    with pytest.raises(BadSecret):
        store.close_poll(p.code, creator="hub:mallory")
    with pytest.raises(TypeError, match="secret or its creator"):
        store.tally(p.code)
    store.close_poll(p.code, creator="launcher")
    assert not store.tally(p.code, p.secret).info.is_open


# -- issue 31.4 / 31.7: token issue and failed joins are rate-limited in the database --------------------------
def test_token_issue_is_rate_limited_per_poll(make_store):
    """Before: 8,000 joins in 199 s exhausted a poll's tokens. Now at most token_rate[0] per window, per poll."""
    clock = Clock()
    store = make_store(clock=clock, token_rate=(5, 60.0))
    p, q = store.create_poll("P?", epsilon=1.0), store.create_poll("Q?", epsilon=1.0)
    for _ in range(5):
        store.join(p.code, client="10.0.0.1")
    with pytest.raises(store_mod.RateLimited, match=r"5 joins in 60 s, the limit is 5"):
        store.join(p.code, client="10.0.0.2")
    store.join(q.code)  # another poll is not affected
    clock.t += 61
    store.join(p.code)  # the window has passed
    assert store.tally(p.code, p.secret).tokens == 6


def test_failed_joins_are_rate_limited_per_client_address(make_store):
    """Before: ~200 guesses/s from one page. Now a client's 4th wrong code in a window is refused, and
    so is any join from it (a correct code too) until the window has passed; other clients are unaffected."""
    clock = Clock()
    store = make_store(clock=clock, failed_join_rate=(3, 60.0))
    p = store.create_poll("P?", epsilon=1.0)
    wrong = "ABCDEF" if p.code != "ABCDEF" else "ABCDEG"
    for bad in (wrong, "nonsense", wrong):
        with pytest.raises(PollError, match="no poll with join code|join code must be 6"):
            store.join(bad, client="192.0.2.7")
    for attempt in (wrong, p.code):
        with pytest.raises(store_mod.RateLimited, match=r"too many wrong join codes from your address \(3 in 60 s\); "
                                                        r"try again in 60 s"):
            store.join(attempt, client="192.0.2.7")
    assert store.join(p.code, client="192.0.2.8")[0].code == p.code
    stored = rows(store, "SELECT client FROM join_failures")
    assert len(stored) == 3 and all("192.0.2" not in c and len(c) == 64 for (c,) in stored)  # a keyed hash
    clock.t += 61
    assert store.join(p.code, client="192.0.2.7")[0].code == p.code
    assert rows(store, "SELECT count(*) FROM join_failures") == [(0,)]  # purged after the window


def test_one_hub_users_wrong_codes_do_not_lock_out_the_room_behind_one_proxy_address(make_store):
    """Issue 39 J1: under a hub every join reaches the store with the proxy's address; student2's 20 typos
    locked student1's correct code out. Failures are counted per voter (hub user) now: the typist is
    still bounded (their 21st try waits, a right code too, so guessing stays bounded), the others are not."""
    clock = Clock()
    store = make_store(clock=clock)
    p = store.create_poll("P?", epsilon=1.0)
    wrong = "ABCDEF" if p.code != "ABCDEF" else "ABCDEG"
    limit = store.failed_join_rate[0]
    assert limit == 20
    for _ in range(limit):
        with pytest.raises(PollError, match="no poll with join code"):
            store.join(wrong, client="127.0.0.1", voter="hub:student2")
    assert store.join(p.code, client="127.0.0.1", voter="hub:student1")[0].code == p.code
    assert store.join(p.code, voter="hub:student3")[0].code == p.code  # no address at all
    for attempt in (wrong, p.code):
        with pytest.raises(store_mod.RateLimited, match=r"too many wrong join codes from you \(20 in 60 s\)"):
            store.join(attempt, client="127.0.0.1", voter="hub:student2")
    clock.t += 61
    assert store.join(p.code, client="127.0.0.1", voter="hub:student2")[0].code == p.code


def test_a_version_1_sqlite_database_is_upgraded_in_place(tmp_path):
    con = sqlite3.connect(tmp_path / "polls.sqlite3")
    con.executescript("""
        PRAGMA journal_mode = WAL;
        CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);
        CREATE TABLE polls (code TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL, question TEXT NOT NULL,
            epsilon REAL NOT NULL, created_at REAL NOT NULL, closes_at REAL, expires_at REAL NOT NULL,
            closed INTEGER NOT NULL DEFAULT 0);
        INSERT INTO polls VALUES ('ABCDEF', 'x', 'old?', 1.0, 0, NULL, 9e12, 0);""")
    con.commit()
    con.close()
    store = PollStore(tmp_path)
    assert store.schema_version() == SCHEMA_VERSION == 5
    assert store.poll_info("ABCDEF").question == "old?"
    assert _rows(store.path, "SELECT creator FROM polls") == [("unknown",)]


def test_a_version_2_sqlite_database_gets_the_voter_columns_and_keeps_its_answers(tmp_path):
    store = PollStore(tmp_path)
    p = store.create_poll("old?", epsilon=1.0)
    store.submit(p.code, store.issue_token(p.code), 1)
    con = sqlite3.connect(store.path)  # make it a version 2 file: no voter columns, no voter index
    con.executescript("""DROP INDEX responses_voter; ALTER TABLE responses DROP COLUMN voter;
                         ALTER TABLE tokens DROP COLUMN voter; DROP TABLE predictions;
                         ALTER TABLE polls DROP COLUMN choices; DROP TABLE kary_responses;
                         ALTER TABLE polls DROP COLUMN oracle; UPDATE schema_version SET version = 2;""")
    con.close()
    store = PollStore(tmp_path)
    assert store.schema_version() == 5
    assert _columns(store, "responses")[-1] == "voter" and _columns(store, "tokens")[-1] == "voter"
    assert store.tally(p.code, p.secret).responses == 1
    info, tok = store.join(p.code, voter="hub:ann")
    store.submit(p.code, tok, 0)
    with pytest.raises(AlreadyAnswered, match="one answer per signed-in student"):
        store.submit(p.code, store.join(p.code, voter="hub:ann")[1], 1)


# -- issue 27.2: one answer per voter (a hub user), whichever page view sends it ----------------------------
def test_one_answer_per_voter_across_reloads_tabs_and_browsers(store):
    poll = store.create_poll("Q?", epsilon=1.0)
    info, first = store.join(poll.code, voter="hub:alice")
    assert info.already_answered is False
    second = store.join(poll.code, voter="hub:alice")[1]  # a second tab, opened before the first answered
    store.submit(poll.code, first, 1)
    info, third = store.join(poll.code, voter="hub:alice")  # a reload after answering: told at once
    assert info.already_answered is True
    for tok in (second, third, first):
        with pytest.raises(AlreadyAnswered, match="already answered"):
            store.submit(poll.code, tok, 0)
    info, tok = store.join(poll.code, voter="hub:bob")  # another student is accepted
    assert info.already_answered is False
    store.submit(poll.code, tok, 0)
    store.submit(poll.code, store.issue_token(poll.code), 1)  # no voter: one answer per page view, as before
    t = store.tally(poll.code, poll.secret)
    assert (t.responses, t.yes, t.tokens) == (3, 2, 5)
    assert sorted(rows(store, "SELECT voter FROM responses WHERE voter IS NOT NULL")) == [("hub:alice",),
                                                                                         ("hub:bob",)]
    # the database itself refuses a second row of a voter (the check above is not the only guard)
    with pytest.raises(store._backend.integrity_error) as err, store._write() as con:
        con.execute("INSERT INTO responses (code, token, randomized_bit, received_at, voter) VALUES (?, ?, 0, 0, ?)",
                    (poll.code, second, "hub:alice"))
    assert store._backend.is_unique_violation(err.value)
    other = store.create_poll("Other?", epsilon=1.0)  # one answer per voter *per poll*
    store.submit(other.code, store.join(other.code, voter="hub:alice")[1], 1)


@pytest.mark.parametrize("bad, err", [("", PollError), ("a b", PollError), ("x" * 81, PollError),
                                      ("<script>", PollError), (7, TypeError)])
def test_a_malformed_voter_is_refused_before_any_query(store, bad, err, monkeypatch):
    poll = store.create_poll("Q?", epsilon=1.0)
    monkeypatch.setattr(store._backend, "write", None)  # calling it would fail differently
    with pytest.raises(err, match="voter must be"):
        store.join(poll.code, voter=bad)


VOTER_RACE = textwrap.dedent("""
    import sys
    from dpexplore.classroom.store import PollStore, AlreadyAnswered
    url, code = sys.argv[1], sys.argv[2]
    store = PollStore(url=url, token_rate=(10**6, 60.0))
    tokens = [store.join(code, voter="hub:eve")[1] for _ in range(5)]  # five tabs of one student
    print("ready", flush=True)
    sys.stdin.readline()
    ok = dup = 0
    for tok in tokens:
        try:
            store.submit(code, tok, 1)
            ok += 1
        except AlreadyAnswered:
            dup += 1
    print(ok, dup)
""")


def test_one_voter_racing_from_many_processes_lands_once(store):
    """6 processes (servers) x 5 tabs of the same hub user send at once: exactly one answer is stored."""
    poll = store.create_poll("Q?", epsilon=1.0)
    counts = _race([sys.executable, "-c", VOTER_RACE, _url(store), poll.code], 6)
    assert sum(c[0] for c in counts) == 1 and sum(c[1] for c in counts) == 29
    t = store.tally(poll.code, poll.secret)
    assert (t.responses, t.tokens) == (1, 30)


def test_a_database_url_selects_the_backend(tmp_path, monkeypatch):
    s = PollStore(url=f"sqlite:///{tmp_path}/sub/p.sqlite3")
    assert s.path == tmp_path / "sub" / "p.sqlite3" and s.location == str(s.path)
    monkeypatch.setenv("DPEXPLORE_POLL_DB", f"sqlite:///{tmp_path}/env.sqlite3")
    assert PollStore().path == tmp_path / "env.sqlite3"  # the environment's URL, when nothing is given
    assert PollStore(tmp_path / "d").path == tmp_path / "d" / "polls.sqlite3"  # an explicit folder wins
    with pytest.raises(TypeError, match="a directory .* or a url, not both"):
        PollStore(tmp_path, url="sqlite:///x.sqlite3")
    for bad, msg in (("mysql://u:hunter2@h/db", "must start with sqlite:/// or postgresql://"),
                     ("sqlite:///", "must name a file"), ("x" * 3000, "at most 2000 characters")):
        with pytest.raises(ValueError, match=msg) as err:
            PollStore(url=bad)
        assert "hunter2" not in str(err.value)  # a password in a URL is never echoed


def test_an_unreachable_postgresql_server_is_an_os_error_naming_the_database(tmp_path):
    """The page catches OSError (as for a SQLite disk error) and lets Send be pressed again; a driver's own
    exception type would have gone through as a traceback."""
    pytest.importorskip("psycopg")
    from dpexplore.classroom.store_backends import DatabaseUnavailable

    msg = r"the poll database postgresql://localhost/polls is unavailable"
    with pytest.raises(DatabaseUnavailable, match=msg) as e:
        PollStore(url=f"postgresql://nobody@/polls?host={tmp_path}")  # no server listens on that socket folder
    assert isinstance(e.value, OSError)
