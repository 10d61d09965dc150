"""Each default-view experiment of every dashboard, cold (computed) vs from the result cache.

For every experiment call the dashboard makes at its defaults, times the call with an empty cache
directory and again with the entry present (a fresh result object read from disk each time), and
prints the ratio. Run from the repository root: ``.venv/bin/python benchmarks/bench_cache.py``.
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import table  # noqa: E402

from dpexplore.core import using_cache  # noqa: E402

DASHBOARDS = ("spectral.SpectralClusteringDashboard", "pca.PrivatePCADashboard", "markov.MarkovTrajectoryDashboard",
              "erm.QuadraticPerturbationDashboard")


def main() -> None:
    rows = []
    for name in DASHBOARDS:
        mod, cls = name.split(".")
        with using_cache(None):
            board = getattr(importlib.import_module(f"dpexplore.ui.{mod}"), cls)()
        for var, _, _, func, kwargs in board.snippet_calls():
            with tempfile.TemporaryDirectory() as tmp, using_cache(tmp) as cache:
                t0 = time.perf_counter()
                first = func(**kwargs)
                cold = time.perf_counter() - t0
                t0 = time.perf_counter()
                second = func(**kwargs)
                warm = time.perf_counter() - t0
                note = "from cache" if second.cached else "not cached (wall-clock)"
                rows.append([f"{mod}.{func.__name__} ({var})", f"{cold * 1e3:.0f}", f"{warm * 1e3:.1f}",
                             f"{cold / warm:.0f}×", note, f"{cache.size() / 1024:.0f} KiB"])
                assert second.cached or not first.cached
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    print(table(["experiment (default view)", "cold ms", "cached ms", "ratio", "second call", "entry"], rows))


if __name__ == "__main__":
    main()
