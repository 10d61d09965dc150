"""The k-choice class poll (issue 44 item 2) on both backends (SQLite and PostgreSQL, see conftest.py): round trip
of the reports, limits, one answer per token and per hub user, the 4 -> 5 migration, hostile rows refused,
the estimate unbiased with the standard error it claims, and ε spent = ε claimed."""

import dataclasses
import math

import numpy as np
import pytest

from dpexplore.classroom import store as store_mod
from dpexplore.classroom.kary import (
    MAX_KARY_CHOICES,
    KaryReports,
    KaryTally,
    decode_reports,
    encode_report,
    kary_tally,
    randomize_choice,
)
from dpexplore.classroom.store import (
    MAX_CHOICE_CHARS,
    SCHEMA_VERSION,
    AlreadyAnswered,
    BadSecret,
    PollClosed,
    PollError,
    PollInfo,
    PollLimitReached,
)
from dpexplore.core.random import as_generator
from dpexplore.local import count_variance, exact_epsilon, oracle_probabilities, randomize

from .conftest import rows

LABELS = ("walk", "bike", "bus", "car")


def _poll(store, oracle="krr", labels=LABELS, eps=1.0, **kw):
    labels = list(labels) if isinstance(labels, tuple) else labels
    return store.create_kary_poll("How did you get here today?", labels, oracle=oracle, epsilon=eps, **kw)


@pytest.mark.parametrize("oracle", ["krr", "oue"])
def test_round_trip_stores_only_the_reports(store, oracle):
    p = _poll(store, oracle)
    gen = as_generator(5)
    sent = []
    for true in (0, 1, 2, 3, 3, 2):
        info, token = store.join(p.code)
        assert info.oracle == oracle and info.labels == LABELS and info.choices is None and info.epsilon == 1.0
        report = randomize_choice(true, oracle=oracle, k=4, epsilon=info.epsilon, rng=gen)
        store.submit_report(p.code, token, report)
        sent.append(report)
    r = store.kary_reports(p.code, p.secret)
    assert isinstance(r, KaryReports) and (r.k, r.oracle, r.epsilon, r.labels, r.n) == (4, oracle, 1.0, LABELS, 6)
    assert r.reports.tolist() == [list(s) if oracle == "oue" else s for s in sent]
    assert not r.reports.flags.writeable
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.k = 5
    assert store.kary_reports(p.code, creator="local").n == 6
    # one integer per report in the table, nothing else of the student's answer
    stored = [v for (v,) in rows(store, "SELECT report FROM kary_responses WHERE code = ? ORDER BY id", (p.code,))]
    assert stored == [encode_report(s, oracle=oracle, k=4) for s in sent]
    t = store.kary_tally(p.code, p.secret)
    assert isinstance(t, KaryTally) and t.responses == 6 and t.tokens == 6 and sum(t.report_counts) >= 0
    if oracle == "krr":
        assert sum(t.report_counts) == 6
    assert len(t.estimates) == len(t.standard_errors) == 4 and all(s > 0 for s in t.standard_errors)


def test_empty_tally_and_the_reveal_after_closing(store):
    p = _poll(store, "oue")
    t = store.kary_tally(p.code, p.secret)
    assert t.responses == 0 and t.report_counts == (0,) * 4 and all(math.isnan(e) for e in t.estimates)
    info, token = store.join(p.code)
    store.submit_report(p.code, token, randomize_choice(1, oracle="oue", k=4, epsilon=1.0, rng=1))
    assert store.closed_result(p.code) is None  # open: nothing public
    store.close_poll(p.code, p.secret)
    res = store.closed_result(p.code)
    assert isinstance(res, KaryTally) and res.responses == 1
    with pytest.raises(PollClosed):
        store.join(p.code)


def test_each_kind_of_poll_takes_only_its_own_answers(store):
    p = _poll(store)
    rr = store.create_poll("Q?", epsilon=1.0)
    tok = store.issue_token(p.code)
    with pytest.raises(PollError, match="k-choice poll: send the oracle's report"):
        store.submit(p.code, tok, 1)
    with pytest.raises(PollError, match="k-choice poll"):
        store.submit_choice(p.code, tok, 1)
    with pytest.raises(PollError, match="randomized-response poll"):
        store.submit_report(rr.code, store.issue_token(rr.code), 1)
    with pytest.raises(PollError, match="not a yes/no poll"):
        store.tally(p.code, p.secret)
    with pytest.raises(PollError, match="not a prediction round"):
        store.choice_tally(p.code, p.secret)
    with pytest.raises(PollError, match="not a k-choice poll"):
        store.kary_reports(rr.code, rr.secret)
    with pytest.raises(BadSecret):
        store.kary_reports(p.code, rr.secret)
    with pytest.raises(BadSecret):
        store.kary_tally(p.code, creator="hub:mallory")


@pytest.mark.parametrize("kw, err, msg", [
    ({"labels": ("a", "b")}, PollError, r"labels must be 3 to 8 answers; got 2"),
    ({"labels": tuple("abcdefghi")}, PollError, r"labels must be 3 to 8 answers; got 9"),
    ({"labels": ("a", "a", "b")}, PollError, r"labels must be distinct"),
    ({"labels": ("a", "b", "x" * (MAX_CHOICE_CHARS + 1))}, PollError, r"labels\[2\] must be 1 to 80 characters"),
    ({"labels": ("a", "b", "c\x00")}, PollError, r"labels\[2\] must contain printable"),
    ({"labels": ("a", "b", 3)}, TypeError, r"labels\[2\] must be a string"),
    ({"labels": "abc"}, TypeError, r"labels must be a list or tuple"),
    ({"oracle": "olh"}, PollError, r"oracle must be one of \('krr', 'oue'\); got 'olh'"),
    ({"oracle": None}, TypeError, r"oracle must be one of"),
    ({"eps": 0.01}, PollError, r"epsilon must be in \[0.05, 10\]; got 0.01"),
    ({"eps": math.inf}, ValueError, r"epsilon"),
])
def test_bad_k_choice_polls_are_refused(store, kw, err, msg):
    with pytest.raises(err, match=msg):
        _poll(store, **kw)
    assert rows(store, "SELECT count(*) FROM polls") == [(0,)]


def test_labels_are_collapsed_like_a_rounds_answers(store):
    p = _poll(store, labels=(" a  b ", "c", "d", "e", "f", "g", "h", "i"))
    assert store.poll_info(p.code).labels == ("a b", "c", "d", "e", "f", "g", "h", "i")
    assert len(store.poll_info(p.code).labels) == MAX_KARY_CHOICES


@pytest.mark.parametrize("oracle, report, err, msg", [
    ("krr", 4, PollError, r"k-RR report must be in \[0, 3\]; got 4"),
    ("krr", -1, PollError, r"k-RR report must be in \[0, 3\]"),
    ("krr", True, TypeError, r"report must be an integer"),
    ("krr", (0, 1, 0, 0), TypeError, r"k-RR report must be an integer"),
    ("oue", 3, TypeError, r"OUE report must be a sequence of 4 bits"),
    ("oue", (1, 0, 1), PollError, r"OUE report must have k = 4 bits; got 3"),
    ("oue", (1, 0, 2, 0), PollError, r"bits must be 0 or 1; got 2 at position 2"),
    ("oue", (1, 0, True, 0), PollError, r"bits must be 0 or 1"),
    ("oue", "1010", TypeError, r"report must be an integer"),
    ("oue", [0] * 9, TypeError, r"at most 8 bits"),
    ("oue", [[1, 0], [1]], PollError, r"OUE report must have k = 4 bits; got 2"),
    ("oue", np.zeros(10**6), TypeError, r"at most 8 bits"),
])
def test_bad_reports_are_refused_and_nothing_is_stored(store, oracle, report, err, msg):
    p = _poll(store, oracle)
    with pytest.raises(err, match=msg):
        store.submit_report(p.code, store.issue_token(p.code), report)
    assert store.kary_reports(p.code, p.secret).n == 0


def test_one_answer_per_token_and_per_hub_user(store):
    p = _poll(store, "oue")
    rep = randomize_choice(0, oracle="oue", k=4, epsilon=1.0, rng=2)
    tok = store.issue_token(p.code)
    store.submit_report(p.code, tok, rep)
    with pytest.raises(AlreadyAnswered, match="one answer per page view"):
        store.submit_report(p.code, tok, rep)
    info, t1 = store.join(p.code, voter="hub:ann")
    assert not info.already_answered
    store.submit_report(p.code, t1, rep)
    info, t2 = store.join(p.code, voter="hub:ann")  # a reload / another tab / another browser
    assert info.already_answered
    with pytest.raises(AlreadyAnswered, match="one answer per signed-in student"):
        store.submit_report(p.code, t2, rep)
    store.submit_report(p.code, store.join(p.code, voter="hub:bob")[1], rep)
    assert store.kary_reports(p.code, p.secret).n == 3
    assert rows(store, "SELECT count(*) FROM kary_responses WHERE voter = ?", ("hub:ann",)) == [(1,)]


def test_limits_responses_and_open_polls(store, monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_RESPONSES_PER_POLL", 3)
    p = _poll(store)
    for i in range(3):
        store.submit_report(p.code, store.issue_token(p.code), i)
    with pytest.raises(PollLimitReached, match="3 answers, the maximum"):
        store.submit_report(p.code, store.issue_token(p.code), 0)
    monkeypatch.setattr(store_mod, "MAX_OPEN_POLLS_PER_CREATOR", 2)
    _poll(store)
    with pytest.raises(PollLimitReached, match="local already has 2 polls"):
        _poll(store)


def test_a_version_4_database_is_upgraded_in_place_and_old_polls_stay_readable(make_store):
    store = make_store()
    p = store.create_poll("old?", epsilon=1.0)
    store.submit(p.code, store.issue_token(p.code), 1)
    r = store.create_round("old round?", ["x", "y"])
    store.submit_choice(r.code, store.issue_token(r.code), 1)
    with store._write() as con:  # make it version 4: no k-choice polls
        con.execute("DROP TABLE kary_responses")
        con.execute("ALTER TABLE polls DROP COLUMN oracle")
        con.execute("UPDATE schema_version SET version = 4")
    store = make_store()
    assert store.schema_version() == SCHEMA_VERSION == 5
    assert store.tally(p.code, p.secret).responses == 1
    assert store.choice_tally(r.code, r.secret).counts == (0, 1)
    assert store.poll_info(p.code).oracle is None and store.poll_info(r.code).labels is None
    k = _poll(store, "oue")
    store.submit_report(k.code, store.issue_token(k.code), (0, 1, 1, 0))
    assert store.kary_reports(k.code, k.secret).reports.tolist() == [[0, 1, 1, 0]]
    assert make_store().schema_version() == 5  # opening again changes nothing


@pytest.mark.parametrize("oracle, bad", [("krr", 4), ("krr", 200), ("oue", 16), ("oue", 255)])
def test_a_report_out_of_range_in_the_database_is_refused_not_counted(store, oracle, bad):
    p = _poll(store, oracle)
    store.submit_report(p.code, store.issue_token(p.code), 0 if oracle == "krr" else (1, 0, 0, 0))
    with store._write() as con:
        con.execute("UPDATE kary_responses SET report = ? WHERE code = ?", (bad, p.code))
    for read in (store.kary_reports, store.kary_tally):
        with pytest.raises(PollError, match="damaged in the database"):
            read(p.code, p.secret)


@pytest.mark.parametrize("sql, params", [
    ("UPDATE polls SET oracle = ? WHERE code = ?", ("olh",)),
    ("UPDATE polls SET choices = ? WHERE code = ?", ('["a", "b"]',)),  # k = 2: not a k-choice poll
    ("UPDATE polls SET choices = ? WHERE code = ?", ('["a","b","c","d","e","f","g","h","i"]',)),
    ("UPDATE polls SET choices = ? WHERE code = ?", ('{"a": 1',)),
    ("UPDATE polls SET choices = NULL WHERE code = ?", ()),
    ("UPDATE polls SET epsilon = ? WHERE code = ?", (50.0,)),
])
def test_a_damaged_k_choice_poll_is_refused(store, sql, params):
    p = _poll(store)
    with store._write() as con:
        con.execute(sql, params + (p.code,))
    with pytest.raises(PollError, match="damaged in the database"):
        store.poll_info(p.code)
    with pytest.raises(PollError, match="damaged in the database"):
        store.join(p.code)


def test_decode_reports_refuses_what_is_not_an_integer():
    with pytest.raises(PollError, match="not an integer"):
        decode_reports([1.5], oracle="krr", k=3)
    with pytest.raises(PollError, match="not an integer"):
        decode_reports(["1"], oracle="oue", k=3)
    assert decode_reports([], oracle="oue", k=3).shape == (0, 3)


def _seeded_tallies(oracle, k, eps, counts, seeds):
    """kary_tally's estimates over seeds, on the reports a class with these true counts sends."""
    values = np.repeat(np.arange(k), counts)
    info = PollInfo("ABCDEF", "Q?", eps, None, 1e12, True, oracle=oracle, labels=tuple(f"c{i}" for i in range(k)))
    est, se = [], []
    for s in range(seeds):
        r = randomize(values, oracle=oracle, k=k, epsilon=eps, rng=1000 + s)
        t = kary_tally(info, KaryReports(k, oracle, eps, info.labels, r.reports), tokens=values.size,
                       last_response_at=None)
        est.append(t.estimates)
        se.append(t.standard_errors)
    return np.array(est), np.array(se)


@pytest.mark.parametrize("oracle", ["krr", "oue"])
def test_the_estimate_is_unbiased_and_its_standard_error_is_the_closed_form(oracle):
    """Over 400 seeds of a class of 120 (k = 5, ε = 1): the mean estimate is within 4 standard errors of the mean
    (σ/√400) of the true counts, the empirical variance within 4 of its own standard errors (√(2/399) relative)
    of Wang et al.'s exact variance, and the plug-in standard error shown agrees with it on average to 15 %."""
    k, eps, seeds = 5, 1.0, 400
    counts = np.array([50, 30, 20, 15, 5])
    est, se = _seeded_tallies(oracle, k, eps, counts, seeds)
    var = count_variance(oracle, n=int(counts.sum()), k=k, epsilon=eps, count=counts)
    assert np.all(np.abs(est.mean(axis=0) - counts) <= 4 * np.sqrt(var / seeds))
    assert np.all(np.abs(est.var(axis=0, ddof=1) / var - 1) <= 4 * math.sqrt(2 / (seeds - 1)))
    assert np.all(np.abs(se.mean(axis=0) / np.sqrt(var) - 1) <= 0.15)


@pytest.mark.parametrize("oracle", ["krr", "oue"])
@pytest.mark.parametrize("k", [3, 8])
@pytest.mark.parametrize("eps", [0.05, math.log(3), 10.0])
def test_epsilon_spent_is_the_epsilon_claimed(store, oracle, k, eps):
    """The poll's ε is the exact ε of one report (worst pair of a student's true choices) of the oracle the
    student's kernel runs; and the kernel's reports follow that oracle's law (p*, q*)."""
    p = _poll(store, oracle, labels=[f"c{i}" for i in range(k)], eps=eps)
    info = store.poll_info(p.code)
    assert info.epsilon == eps
    assert exact_epsilon(info.oracle, k=k, epsilon=info.epsilon) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("oracle", ["krr", "oue"])
def test_the_students_kernel_randomizes_with_the_claimed_probabilities(oracle):
    """4000 reports of true choice 1 (k = 4, ε = ln 3): the share supporting choice 1 is p*, any other q*, within
    4.5 binomial standard deviations."""
    k, eps, n = 4, math.log(3), 4000
    gen = as_generator(11)
    reports = [randomize_choice(1, oracle=oracle, k=k, epsilon=eps, rng=gen) for _ in range(n)]
    support = (np.bincount(reports, minlength=k) if oracle == "krr" else np.array(reports).sum(axis=0)) / n
    p, q = oracle_probabilities(oracle, k=k, epsilon=eps)
    want = np.full(k, q)
    want[1] = p
    assert np.all(np.abs(support - want) <= 4.5 * np.sqrt(want * (1 - want) / n))
