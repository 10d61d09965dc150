"""The poll store's tests run on both backends: SQLite (a fresh folder) and PostgreSQL (a fresh database
on a throwaway server, see tests/pgserver.py). ``store`` and ``make_store`` are parametrized over them;
``rows(store, sql)`` reads the tables on either."""

import pytest

from dpexplore.classroom import PollStore

from ..pgserver import PGServer

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_server():
    server = PGServer()
    yield server
    server.close()


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def make_store(backend, tmp_path, request):
    """``make_store(**kw)``: a PollStore on this test's database (the same one on every call)."""
    url = []

    def make(**kw):
        if backend == "sqlite":
            return PollStore(tmp_path, **kw)
        if not url:
            url.append(request.getfixturevalue("pg_server").url())
        return PollStore(url=url[0], **kw)

    return make


@pytest.fixture
def store(make_store):
    return make_store()


def rows(store, sql, params=()):
    """The rows of one query on the store's own database (either backend), as tuples."""
    with store._read() as con:
        return [tuple(r) for r in con.execute(sql, params).fetchall()]
