"""Tiny timing helpers shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable


def median_time(fn: Callable[[], object], *, repeat: int = 5, min_time: float = 0.0) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs (after one warm-up run)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if min_time and sum(times) > min_time:
            break
    return statistics.median(times)


def peak_memory_mb(fn: Callable[[], object]) -> float:
    """Peak Python-tracked allocation (MiB) while running ``fn()`` (numpy buffers included)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def table(header: list[str], rows: list[list[object]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def machine_line(when: str = "at start") -> str:
    """One line on the machine the timings come from: cores and the load average when called."""
    import os

    try:
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:  # not available on this platform
        load = "unknown"
    return f"Machine: {os.cpu_count()} cores; load average (1, 5, 15 min) {when}: {load}."
