"""Prediction rounds in the poll store (issue 25, class-wide predictions) on both backends (conftest.py):
the room's answers to a predict question, one per page view and one per hub user, counted per answer."""

import math

import numpy as np
import pytest

from dpexplore.classroom import PollStore
from dpexplore.classroom.store import (
    MAX_CHOICE_CHARS,
    MAX_CHOICES,
    MAX_OPEN_POLLS_PER_CREATOR,
    SCHEMA_VERSION,
    AlreadyAnswered,
    BadSecret,
    PollClosed,
    PollError,
    PollLimitReached,
    UnknownPoll,
    check_choices,
)

from .conftest import rows

CHOICES = ["goes up", "goes down", "stays about the same"]


class Clock:
    def __init__(self):
        self.t = 1_000_000.0

    def __call__(self):
        return self.t


def test_a_round_collects_one_prediction_per_page_view_and_counts_them_per_answer(store):
    r = store.create_round("When n doubles, the error …", CHOICES, creator="launcher")
    picks = [0, 1, 1, 2, 1, 0, np.int64(1)]
    for pick in picks:
        info, token = store.join(r.code)
        assert info.choices == tuple(CHOICES) and info.epsilon == math.inf and info.is_open
        store.submit_choice(r.code, token, pick)
    t = store.choice_tally(r.code, r.secret)
    assert t.counts == tuple(int(np.sum(np.array(picks) == i)) for i in range(3)) == (2, 4, 1)
    assert t.responses == len(picks) and t.tokens == len(picks)
    assert store.choice_tally(r.code, creator="launcher").counts == t.counts  # the creator needs no secret
    # stored as given, in the predictions table only: nothing in the randomized answers' table
    assert rows(store, "SELECT count(*) FROM responses") == [(0,)]
    assert sorted(c for (c,) in rows(store, "SELECT choice FROM predictions")) == sorted(int(p) for p in picks)


def test_one_prediction_per_token_and_per_hub_user(store):
    r = store.create_round("Q?", CHOICES)
    _, token = store.join(r.code)
    store.submit_choice(r.code, token, 0)
    with pytest.raises(AlreadyAnswered, match="one answer per page view"):
        store.submit_choice(r.code, token, 1)
    info, first = store.join(r.code, voter="hub:ann")
    second = store.join(r.code, voter="hub:ann")[1]  # a second tab, opened before the first sent
    assert info.already_answered is False
    store.submit_choice(r.code, first, 2)
    with pytest.raises(AlreadyAnswered, match="one answer per signed-in student"):
        store.submit_choice(r.code, second, 1)
    assert store.join(r.code, voter="hub:ann")[0].already_answered is True  # a reload is told at once
    assert store.join(r.code, voter="hub:bob")[0].already_answered is False
    assert store.choice_tally(r.code, r.secret).counts == (1, 0, 1)


def test_a_round_and_a_randomized_poll_never_take_each_others_answers(store):
    r = store.create_round("Q?", CHOICES)
    p = store.create_poll("Q?", epsilon=1.0)
    assert store.poll_info(p.code).choices is None
    _, tr = store.join(r.code)
    _, tp = store.join(p.code)
    with pytest.raises(PollError, match="prediction round: send a choice"):
        store.submit(r.code, tr, 1)
    with pytest.raises(PollError, match="randomized-response poll: it takes randomized bits only"):
        store.submit_choice(p.code, tp, 1)
    with pytest.raises(PollError, match="choice_tally"):
        store.tally(r.code, r.secret)
    with pytest.raises(PollError, match="read it with tally"):
        store.choice_tally(p.code, p.secret)
    with pytest.raises(BadSecret):
        store.choice_tally(r.code, p.secret)
    with pytest.raises(BadSecret):
        store.choice_tally(r.code, creator="someone-else")


@pytest.mark.parametrize("bad, err, match", [
    ("up,down", TypeError, "list or tuple"),
    (["only one"], PollError, "2 to 6 answers; got 1"),
    ([f"c{i}" for i in range(MAX_CHOICES + 1)], PollError, "2 to 6 answers; got 7"),
    (["up", "  up "], PollError, "distinct"),
    (["up", ""], PollError, r"choices\[1\] must be 1 to 80"),
    (["up", "x" * (MAX_CHOICE_CHARS + 1)], PollError, r"choices\[1\] must be 1 to 80 characters; got 81"),
    (["up", "x" * 10**6], PollError, r"choices\[1\] must be 1 to 80 characters; got 1000000"),
    (["up", 3], TypeError, r"choices\[1\] must be a string; got int"),
    (["up", "do\x00wn"], PollError, "printable"),
])
def test_bad_choices_are_refused_before_any_write(tmp_path, bad, err, match):
    store = PollStore(tmp_path)  # checked before any query: one backend is enough
    with pytest.raises(err, match=match):
        store.create_round("Q?", bad)
    assert rows(store, "SELECT count(*) FROM polls") == [(0,)]


@pytest.mark.parametrize("bad, err, match", [
    (3, PollError, r"choice must be in \[0, 2\] for poll"),
    (-1, PollError, r"choice must be in \[0, 5\]; got -1"),
    (MAX_CHOICES, PollError, r"choice must be in \[0, 5\]; got 6"),
    (True, TypeError, "choice must be an integer"),
    (1.0, TypeError, "choice must be an integer"),
    ("1", TypeError, "choice must be an integer"),
])
def test_a_bad_choice_is_refused(tmp_path, bad, err, match):
    store = PollStore(tmp_path)
    r = store.create_round("Q?", CHOICES)
    _, token = store.join(r.code)
    with pytest.raises(err, match=match):
        store.submit_choice(r.code, token, bad)
    assert store.choice_tally(r.code, r.secret).counts == (0, 0, 0)


def test_a_closed_round_refuses_predictions_and_rounds_count_against_the_poll_limits(make_store):
    clock = Clock()
    store = make_store(clock=clock)
    r = store.create_round("Q?", CHOICES, closes_in_minutes=1, creator="hub:teacher")
    _, token = store.join(r.code)
    clock.t += 61
    with pytest.raises(PollClosed):
        store.submit_choice(r.code, token, 0)
    for _ in range(MAX_OPEN_POLLS_PER_CREATOR - 1):
        store.create_poll("Q?", epsilon=1.0, creator="hub:teacher")
    with pytest.raises(PollLimitReached, match="hub:teacher already has 10 polls"):
        store.create_round("Q?", CHOICES, creator="hub:teacher")
    clock.t += 25 * 3600  # everything expired: the round and its rows go with the next purge
    assert store.purge_expired() == MAX_OPEN_POLLS_PER_CREATOR
    assert rows(store, "SELECT count(*) FROM predictions") == [(0,)]
    with pytest.raises(UnknownPoll):
        store.poll_info(r.code)


def test_a_damaged_round_in_the_database_is_refused_not_trusted(store):
    r = store.create_round("Q?", CHOICES)
    with store._write() as con:
        con.execute("UPDATE polls SET choices = ? WHERE code = ?", ('["one", 2', r.code))
    with pytest.raises(PollError, match="damaged in the database"):
        store.poll_info(r.code)
    with store._write() as con:
        con.execute("UPDATE polls SET choices = ?, epsilon = 1.0 WHERE code = ?", ('["a", "b"]', r.code))
    with pytest.raises(PollError, match="finite"):
        store.join(r.code)


def test_a_version_3_database_is_upgraded_in_place_on_both_backends(make_store):
    store = make_store()
    p = store.create_poll("old?", epsilon=1.0)
    store.submit(p.code, store.issue_token(p.code), 1)
    with store._write() as con:  # make it version 3: no prediction rounds
        con.execute("DROP TABLE predictions")
        con.execute("ALTER TABLE polls DROP COLUMN choices")
        con.execute("DROP TABLE kary_responses")
        con.execute("ALTER TABLE polls DROP COLUMN oracle")
        con.execute("UPDATE schema_version SET version = 3")
    store = make_store()
    assert store.schema_version() == SCHEMA_VERSION == 5
    assert store.tally(p.code, p.secret).responses == 1
    r = store.create_round("new?", CHOICES)
    store.submit_choice(r.code, store.issue_token(r.code), 2)
    assert store.choice_tally(r.code, r.secret).counts == (0, 0, 1)


def test_check_choices_collapses_whitespace():
    assert check_choices(("a  b", " c ")) == ("a b", "c")
