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


def figure_floor() -> float:
    """The one-slider floor: median seconds to build and serialise one 100-point plotly figure (10 runs)."""
    import numpy as np
    import plotly.graph_objects as go

    times = []
    for v in range(10):
        t0 = time.perf_counter()
        go.Figure(go.Scatter(x=np.arange(100), y=np.sin(np.arange(100) * v))).to_json()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def control_move_rows(board, moves: dict, floor: float, *, repeat: int = 3,
                      move: Callable[[object, str, object], None] | None = None,
                      prepare: Callable[[object, str], None] | None = None) -> list[list[str]]:
    """A course page's table rows: for each control in ``moves``, the median seconds of moving it to the given
    value and back (``repeat`` times each way; ``move(board, name, value)``, by default ``set_params``), the
    panels whose figures changed, and the ratio to ``floor``. ``prepare(board, name)`` runs before a control is
    measured (a control that only matters in some state).

    Before every timed move the page gets a fresh seed inside its seed control's range (untimed), so that no
    move is answered from the page's memo: moving back to a value already drawn at the same seed was a memo hit
    (the tables before 2026-12-05 mixed such hits into their medians)."""
    move = move or (lambda b, name, value: b.set_params(**{name: value}))
    seed_ctl = next((c for c in type(board).controls if c.name == "seed"), None)
    fresh = iter(range(int(seed_ctl.high), int(seed_ctl.low), -1)) if seed_ctl is not None else None
    rows = []
    for name, new in moves.items():
        default = board.params()[name]
        if prepare is not None:
            prepare(board, name)
        before = {k: f.to_json() for k, f in board.figures.items()}
        board.set_params(**{name: new})
        drawn = ", ".join(k for k, f in board.figures.items() if f.to_json() != before[k])
        board.set_params(**{name: default})
        times = []
        for _ in range(repeat):
            for value in (new, default):
                if fresh is not None and name == "seed":
                    value = next(fresh)  # the seed itself: a new one each time
                elif fresh is not None:
                    board.set_params(seed=next(fresh))  # untimed: nothing from the memo
                t = time.perf_counter()
                move(board, name, value)
                times.append(time.perf_counter() - t)
        if fresh is not None:
            board.set_params(seed=seed_ctl.default)
        assert not board.errors, board.errors
        med = statistics.median(times)
        rows.append([f"move {name}", f"{med:.2f}", drawn, f"{med / floor:.0f}×"])
    return rows
