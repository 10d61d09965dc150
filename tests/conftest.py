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


def pytest_collection_modifyitems(config, items):
    # Doctests and unit tests first, then notebooks, then the browser: failures show up early.
    order = {"notebook": 1, "server": 2, "browser": 3}

    def rank(item):
        return max((order[m.name] for m in item.iter_markers() if m.name in order), default=0)

    items.sort(key=rank)


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
