"""The result cache: each dashboard's default view cold vs cached, and the cost of a write in a full folder.

1. For every experiment call the dashboard makes at its defaults, times the call with an empty cache
   directory and again with the entry present (a fresh, verified result object read from disk each
   time), and prints the ratio.
2. Eviction: the time of one ``put`` into a folder that already holds ``--entries`` entries, with the
   round-2 algorithm (every write scanned and sorted the whole folder: reproduced as ``put`` followed
   by a full ``evict()``) and with the current one (a running size estimate; a scan only when it
   passes the bound or every ``RESCAN_WRITES`` writes), each as a ratio to the floor measured in the
   same run: a ``put`` into an empty folder.
3. :func:`~dpexplore.core.cache.code_fingerprint`, the hash of the package's source in every key
   (computed once per process).

Run from the repository root: ``.venv/bin/python benchmarks/bench_cache.py [--entries 80000] [--no-dashboards]``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _timing import table  # noqa: E402

from dpexplore.core import ResultCache, using_cache  # noqa: E402
from dpexplore.core import cache as cache_mod  # noqa: E402

DASHBOARDS = ("spectral.SpectralClusteringDashboard", "pca.PrivatePCADashboard", "markov.MarkovTrajectoryDashboard",
              "erm.QuadraticPerturbationDashboard")


def per_write(cache: ResultCache, writes: int, *, full_scan: bool, tag: str) -> float:
    """Median seconds of one put (plus a full evict() when ``full_scan``: the round-2 write)."""
    times = []
    for i in range(writes):
        key = cache.key(tag, {"i": i}, 0, "bench")
        t0 = time.perf_counter()
        cache.put(key, {"values": [0.5] * 50, "i": i})
        if full_scan:
            cache.evict()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def eviction(entries: int) -> list[list[str]]:
    rows = []
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as full:
        warm = ResultCache(empty)
        per_write(warm, 50, full_scan=False, tag="warm-up")
        warm.clear()
        floor = per_write(warm, 200, full_scan=False, tag="floor")
        big = ResultCache(full, max_bytes=10**12)
        blob = b"x" * 400
        for i in range(entries):  # valid-named files of a typical small entry's size (written directly: fast)
            with open(os.path.join(full, f"{i:064x}.json"), "wb") as fh:
                fh.write(blob)
        old = per_write(big, 5, full_scan=True, tag="old")
        big = ResultCache(full, max_bytes=10**12)  # a fresh process's cache: its first write scans once
        first = per_write(big, 1, full_scan=False, tag="first")
        new = per_write(big, 200, full_scan=False, tag="new")
        rows.append(["empty folder (floor)", f"{floor * 1e3:.2f}", "1.0×"])
        rows.append([f"{entries:,} entries, round-2 write (scan + sort every write)", f"{old * 1e3:.1f}",
                     f"{old / floor:.0f}×"])
        rows.append([f"{entries:,} entries, first write of a process (one scan)", f"{first * 1e3:.1f}",
                     f"{first / floor:.0f}×"])
        rows.append([f"{entries:,} entries, later writes (no scan)", f"{new * 1e3:.2f}", f"{new / floor:.1f}×"])
        every = cache_mod.RESCAN_WRITES
        amortized = (first + (every - 1) * new) / every
        rows.append([f"{entries:,} entries, amortized (one rescan per {every:,} writes)", f"{amortized * 1e3:.2f}",
                     f"{amortized / floor:.1f}×"])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=20_000, help="entries already in the folder (default 20,000)")
    ap.add_argument("--no-dashboards", action="store_true", help="skip part 1")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    cache_mod.code_fingerprint.cache_clear()
    t0 = time.perf_counter()
    cache_mod.code_fingerprint()
    print(f"code_fingerprint (once per process): {(time.perf_counter() - t0) * 1e3:.1f} ms")
    print(table(["one put into", "median ms", "vs floor"], eviction(args.entries)))
    if args.no_dashboards:
        return
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
    print(table(["experiment (default view)", "cold ms", "cached ms", "ratio", "second call", "entry"], rows))


if __name__ == "__main__":
    main()
