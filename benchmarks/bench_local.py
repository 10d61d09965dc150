"""The local-model page (issue 44): kernel-side time of the default view and of one move of every control,
against a one-slider floor, without a browser.

For each control the dashboard (``background=False``, so the call returns when every panel it changes is drawn)
is moved away from its default and back, ``--repeat`` times; the table shows the median time of a move, the panels
whose plot changed, and the ratio to the floor: one slider that rebuilds one plotly figure of 100 points (what the kit's
cheapest page does per move). The result cache is off (no ``$DPEXPLORE_CACHE_DIR``); the dashboard's own memo
is on, as on the page, so moving back to the default is a memo hit (both directions are in the median).
The browser-side numbers (key press → plot drawn) come from ``dashboard_bench.py --pages trivial
14_local_model``.

    .venv/bin/python benchmarks/bench_local.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import control_move_rows, figure_floor, machine_line, table  # noqa: E402

MOVES = {"epsilon": 2.0, "oracle": "oue", "k": 16, "n": 2000, "seed": 1}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ.pop("DPEXPLORE_CACHE_DIR", None)
    from dpexplore.ui.local import LocalDashboard

    t0 = time.perf_counter()
    board = LocalDashboard(query_string="", render=False, background=False)
    build = time.perf_counter() - t0
    floor = figure_floor()
    rows = [["default view (4 panels)", f"{build:.2f}", "all", f"{build / floor:.0f}×"]]
    rows += control_move_rows(board, MOVES, floor, repeat=args.repeat)
    print(machine_line())
    print(f"one-slider floor (one 100-point figure built and serialised): {1000 * floor:.1f} ms\n")
    print(table(["what", "median s", "plots changed", "÷ floor"], rows))


if __name__ == "__main__":
    main()
