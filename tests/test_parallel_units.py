"""The parallel scheduler's units (tests/xdist_units.py): which tests must share a worker, and in what order."""

import json

import pytest

pytest.importorskip("xdist")

from tests.xdist_units import UnitScheduling  # noqa: E402


def _units(tmp_path, monkeypatch, info, workers=2):
    path = tmp_path / "units.json"
    path.write_text(json.dumps(info))
    monkeypatch.setenv("DPX_XDIST_UNITS", str(path))
    sched = object.__new__(UnitScheduling)  # only _units() is exercised: no controller, no workers
    sched.assigned_work = {f"gw{i}": {} for i in range(workers)}
    return sched._units(list(info))


def _info(module, n, *, rank=0, shared=False, group=None):
    return {f"{module}::t{i}": {"module": module, "rank": rank, "shared": shared, "group": group} for i in range(n)}


def test_units(tmp_path, monkeypatch):
    info = {**_info("tests/u.py", 3), **_info("tests/m.py", 12, shared=True),
            **_info("tests/browser/test_b.py", 10, rank=3, shared=True),
            **_info("tests/browser/test_small.py", 5, rank=3, shared=True),
            **_info("tests/g1.py", 2, group="pg"), **_info("tests/g2.py", 1, group="pg")}
    scope, weight = _units(tmp_path, monkeypatch, info)
    # unshared tests: one unit each
    assert len({scope[f"tests/u.py::t{i}"] for i in range(3)}) == 3
    # a module sharing a module-scoped fixture (not a browser module): whole, however long
    assert {scope[f"tests/m.py::t{i}"] for i in range(12)} == {"tests/m.py"}
    # a browser module of 10 on 2 workers: 2 consecutive chunks of 5; one of 5: whole
    chunks = [scope[f"tests/browser/test_b.py::t{i}"] for i in range(10)]
    assert chunks[:5] == [chunks[0]] * 5 and chunks[5:] == [chunks[5]] * 5 and chunks[0] != chunks[5]
    assert {scope[f"tests/browser/test_small.py::t{i}"] for i in range(5)} == {"tests/browser/test_small.py"}
    assert weight[chunks[0]] == weight[chunks[5]] == 3
    # an explicit xdist_group: one unit across modules
    assert {scope[k] for k in info if k.startswith(("tests/g1.py", "tests/g2.py"))} == {"group:pg"}


def test_browser_chunks_follow_the_worker_count(tmp_path, monkeypatch):
    info = _info("tests/browser/test_b.py", 40, rank=3, shared=True)
    for workers, want in ((1, 1), (2, 2), (8, 8), (32, 10)):  # at least 4 tests a chunk
        scope, _ = _units(tmp_path, monkeypatch, info, workers=workers)
        assert len(set(scope.values())) == want, workers


def test_without_the_workers_file_every_module_is_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_XDIST_UNITS", str(tmp_path / "missing.json"))
    sched = object.__new__(UnitScheduling)
    sched.assigned_work = {"gw0": {}, "gw1": {}}
    scope, _ = sched._units(["tests/a.py::x", "tests/a.py::y[1]", "tests/b.py::z"])
    assert scope == {"tests/a.py::x": "tests/a.py", "tests/a.py::y[1]": "tests/a.py", "tests/b.py::z": "tests/b.py"}
