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
from benchmarks._timing import machine_line, table  # noqa: E402

MOVES = {"rho": 1.0, "block_share": 0.8, "k": 30, "mode": "group", "prior": 0.2}


def _floor() -> float:
    import numpy as np
    import plotly.graph_objects as go

    def one(v):
        fig = go.Figure(go.Scatter(x=np.arange(100), y=np.sin(np.arange(100) * v)))
        fig.to_json()

    times = []
    for v in range(10):
        t0 = time.perf_counter()
        one(v)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


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
    floor = _floor()
    rows = [["default view (4 panels)", f"{build:.2f}", "all", f"{build / floor:.0f}×"]]
    for name, new in MOVES.items():
        default = board.params()[name]
        before = {k: f.to_json() for k, f in board.figures.items()}
        board.set_params(**{name: new})
        drawn = ", ".join(k for k, f in board.figures.items() if f.to_json() != before[k])
        board.set_params(**{name: default})
        times = []
        for _ in range(args.repeat):
            for value in (new, default):
                t = time.perf_counter()
                board.widgets[name].value = value  # the page's route: refresh(changed=name)
                times.append(time.perf_counter() - t)
        assert not board.errors, board.errors
        med = statistics.median(times)
        rows.append([f"move {name}", f"{med:.2f}", drawn, f"{med / floor:.0f}×"])
    print(machine_line())
    print(f"one-slider floor (one 100-point figure built and serialised): {1000 * floor:.1f} ms\n")
    print(table(["what", "median s", "plots changed", "÷ floor"], rows))
    print()
    print(table(["library call", "median s"], _library_rows()))


if __name__ == "__main__":
    main()
