"""The deployments page (issue 44 items 3–4): kernel-side time of the default view and of one move of every control,
against a one-slider floor, without a browser; and the library's own costs (the discrete Gaussian sampler, the
ρ → ε conversion, one TopDown run).

For each control the dashboard (``background=False``, so the call returns when every panel it changes is drawn)
is moved away from its default and back through its widget, as the page does (only the panels that depend on
the control are redrawn), ``--repeat`` times; the table shows the median time of a move, the panels
whose plot changed, and the ratio to the floor: one slider that rebuilds one plotly figure of 100 points. The
result cache is off (no ``$DPEXPLORE_CACHE_DIR``); the dashboard's own memo is on, as on the page, so moving back
to the default is a memo hit (both directions are in the median).

    .venv/bin/python benchmarks/bench_deployments.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import control_move_rows, figure_floor, machine_line, table  # noqa: E402

MOVES = {"rho": 1.0, "block_share": 0.8, "k": 30, "mode": "group", "prior": 0.2}


def _widget_move(board, name, value) -> None:
    board.widgets[name].value = value  # the page's route: refresh(changed=name)


def _library_rows() -> list[list[str]]:
    from dpexplore.core.discrete_gaussian import discrete_gaussian, zcdp_epsilon
    from dpexplore.deployments import topdown, toy_geography

    rows = []
    for label, fn in (("discrete_gaussian(10, size=10⁶)", lambda: discrete_gaussian(10.0, size=1_000_000, rng=0)),
                      ("zcdp_epsilon(2.56, 1e-10)", lambda: zcdp_epsilon(2.56, 1e-10)),
                      ("topdown(toy_geography(), rho=0.1) (ε cached)",
                       lambda: topdown(toy_geography(), rho=0.1, rng=0))):
        times = []
        for _ in range(5):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        rows.append([label, f"{statistics.median(times):.4f}"])
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ.pop("DPEXPLORE_CACHE_DIR", None)
    from dpexplore.ui.deployments import DeploymentsDashboard

    t0 = time.perf_counter()
    board = DeploymentsDashboard(query_string="", render=False, background=False)
    build = time.perf_counter() - t0
    floor = figure_floor()
    rows = [["default view (4 panels)", f"{build:.2f}", "all", f"{build / floor:.0f}×"]]
    rows += control_move_rows(board, MOVES, floor, repeat=args.repeat, move=_widget_move)
    print(machine_line())
    print(f"one-slider floor (one 100-point figure built and serialised): {1000 * floor:.1f} ms\n")
    print(table(["what", "median s", "plots changed", "÷ floor"], rows))
    print()
    print(table(["library call", "median s"], _library_rows()))


if __name__ == "__main__":
    main()
