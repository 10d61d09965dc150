"""The Selection page's slider → figure cost in the kernel, at the defaults (no browser).

For each control, the time to recompute every panel that depends on it after one move (fresh seed-keyed results,
so nothing is served from the page's memo), measured as the median of ``--repeat`` moves, beside the one-slider
floor of the same process (a trivial plotly figure rebuilt). The browser-side cost is
``benchmarks/dashboard_bench.py --pages 12_selection`` (Voila + Chromium).

    .venv/bin/python benchmarks/bench_selection.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import machine_line, table  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import plotly.graph_objects as go

    from dpexplore.ui.selection import SelectionDashboard

    print(machine_line())
    t0 = time.perf_counter()
    board = SelectionDashboard(query_string="", render=False, background=False)
    first = time.perf_counter() - t0

    def floor():
        go.Figure(go.Scatter(x=list(range(50)), y=[i * i for i in range(50)])).to_json()

    floors = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        floor()
        floors.append(time.perf_counter() - t)
    rows = []
    moves = {"epsilon": (1.0, 1.2), "k": (5, 6), "gap": (3.0, 3.5), "sensitivity": (1, 2), "c": (2, 3)}
    for name, (a, b) in moves.items():
        panels = [p.name for p in board.panels if p.depends_on is None or name in p.depends_on]
        times = []
        for i in range(args.repeat):
            board.set_params(seed=1000 + i)  # a fresh seed: nothing memoised
            board.set_params(**{name: a})
            t = time.perf_counter()
            board.set_params(**{name: b})
            times.append(time.perf_counter() - t)
        board.set_params(**{name: a}, seed=0)
        rows.append([name, ", ".join(panels), f"{statistics.median(times):.3f}",
                     f"{statistics.median(times) / statistics.median(floors):.0f}×"])
    print(f"first render (every panel, in-kernel): {first:.2f} s")
    print(table(["control moved", "panels redrawn", "median s (in-kernel)", "vs one-slider floor"], rows))
    print(f"one-slider floor (one plotly figure built): {statistics.median(floors) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
