import os

# One BLAS thread in this process and in every kernel the tests start (nbclient, Voila): on a
# 2-core machine several multi-threaded BLAS users oversubscribe the cores badly.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests are derandomized by default so that CI is reproducible: the same examples run on
# every machine, and a failure is a real regression rather than a rare unlucky draw. Set
# HYPOTHESIS_PROFILE=explore to search with fresh random examples (and more of them) locally.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: at most this many pytest-xdist workers for ``-n auto`` (pyproject's addopts): each browser module's worker holds a
#: Voila server, its kernels and a Chromium (about 1.5 GB); past 8 the long browser modules set the wall time anyway
MAX_WORKERS = 8
#: memory one worker may need at its peak (a browser module: Voila + kernels + Chromium + the worker itself)
WORKER_BYTES = 1.5 * 2**30


def _usable_cpus() -> int:
    """CPUs this process may run on: its affinity mask, and a cgroup v2 CPU quota (containers, CI) if lower."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = min(n, max(1, int(int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, n)


def _available_bytes() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return None


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: no error where xdist is absent
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the default, pyproject's addopts): one worker per usable CPU, at most MAX_WORKERS and at most
    what the available memory holds; on a single CPU none (0 = run in this process, no xdist overhead).

    ``PYTEST_XDIST_AUTO_NUM_WORKERS=N`` overrides (as in pytest-xdist itself); ``-n N`` / ``-n 0`` on the command
    line bypass this hook altogether.
    """
    env = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if env:
        return int(env)
    n = min(_usable_cpus(), MAX_WORKERS)
    mem = _available_bytes()
    if mem is not None:
        n = min(n, max(1, int(mem // WORKER_BYTES)))
    return n if n >= 2 else 0


def _module_scoped(item) -> bool:
    """Does the test use a module-, class- or package-scoped fixture (a Voila server, a browser, a computed table)?"""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # doctests
        return False
    for name in item.fixturenames:
        defs = info.name2fixturedefs.get(name)
        if defs and defs[-1].scope in ("module", "class", "package"):
            return True
    return False


_RANK = {"notebook": 1, "server": 2, "browser": 3}


def _rank(item) -> int:
    return max((_RANK[m.name] for m in item.iter_markers() if m.name in _RANK), default=0)


#: one result cache for every Voila server this test run starts (tests/browser/harness.py): a page opened by
#: several modules computes its default view once. Results are keyed by the code's version and every parameter,
#: so a hit is the same numbers; the cache is safe for concurrent kernels (it is what a served class shares).
TEST_RESULT_CACHE_ENV = "DPEXPLORE_TEST_RESULT_CACHE"


def pytest_configure(config):
    if not os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get(TEST_RESULT_CACHE_ENV):
        import tempfile

        os.environ[TEST_RESULT_CACHE_ENV] = tempfile.mkdtemp(prefix="dpx-test-results-")  # inherited by workers
        config._dpx_result_cache = os.environ[TEST_RESULT_CACHE_ENV]
    # the controller of a parallel run: a file where worker gw0 tells the scheduler (tests/xdist_units.py) which
    # tests share a module-scoped fixture, and how heavy each is (the controller itself collects nothing)
    if not os.environ.get("PYTEST_XDIST_WORKER") and getattr(config.option, "dist", "no") != "no":
        import tempfile

        fd, path = tempfile.mkstemp(prefix="dpx-xdist-units-", suffix=".json")
        os.close(fd)
        os.environ["DPX_XDIST_UNITS"] = path  # inherited by the workers, started after this hook
        config._dpx_units_file = path


def pytest_unconfigure(config):
    cache = getattr(config, "_dpx_result_cache", None)
    if cache:
        import shutil

        os.environ.pop(TEST_RESULT_CACHE_ENV, None)
        shutil.rmtree(cache, ignore_errors=True)
    path = getattr(config, "_dpx_units_file", None)
    if path:
        os.environ.pop("DPX_XDIST_UNITS", None)
        try:
            os.unlink(path)
        except OSError:
            pass


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: no error where xdist is absent
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` (pyproject's addopts) with tests/xdist_units.py's scheduler: see there."""
    if config.getvalue("dist") == "loadgroup":
        from tests.xdist_units import UnitScheduling

        return UnitScheduling(config, log)
    return None


def pytest_collection_modifyitems(config, items):
    # Doctests and unit tests first, then notebooks, then the browser: failures show up early. (Under pytest-xdist
    # the scheduler in tests/xdist_units.py hands the long browser and server modules out first instead.)
    items.sort(key=_rank)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    path = os.environ.get("DPX_XDIST_UNITS")
    if worker == "gw0" and path:
        import json

        info = {}
        for item in items:
            explicit = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                               for m in item.iter_markers("xdist_group")})
            info[item.nodeid] = {"module": item.nodeid.split("::", 1)[0], "rank": _rank(item),
                                 "shared": _module_scoped(item), "group": "_".join(explicit) or None}
        with open(path + ".tmp", "w") as f:
            json.dump(info, f)
        os.replace(path + ".tmp", path)


@pytest.fixture(scope="session")
def repo_root():
    return ROOT


@pytest.fixture(scope="session")
def dask_client():
    """One small Dask cluster for the whole run (1 worker process, 1 thread: kind to a 2-core machine).

    A worker process, so the experiments' trial functions really travel by pickle, as on a cluster.
    """
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as client:
        yield client
