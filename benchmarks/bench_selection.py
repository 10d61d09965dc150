"""The Selection page's slider → figure cost in the kernel, at the defaults (no browser).

For each control, the time from the widget's new value to every panel that depends on it redrawn (the page's
own path: the widget's observer calls ``refresh(changed=name)``, which redraws the panels whose ``depends_on``
names the control), ``background=False`` so the call returns when they are drawn. Each move goes to a value the
page has not computed at that seed (a fresh seed is set first, untimed), so nothing is served from the page's
memo: the worst case of a first visit. The column "back" is the move back to the previous value (its
experiments are then in the memo; the figures are rebuilt). Medians of ``--repeat`` moves, beside the
one-slider floor of the same process (:func:`benchmarks._timing.figure_floor`: one 100-point plotly figure
built and serialised). The result cache is off (no ``$DPEXPLORE_CACHE_DIR``). The browser-side cost is
``benchmarks/dashboard_bench.py --pages 12_selection`` (Voila + Chromium).

    .venv/bin/python benchmarks/bench_selection.py [--repeat 3]
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
from benchmarks._timing import figure_floor, machine_line, table  # noqa: E402

#: each control's move: from the default to a nearby value
MOVES = {"epsilon": (1.0, 1.2), "k": (5, 6), "gap": (3.0, 3.5), "sensitivity": (1, 2), "c": (2, 3),
         "seed": (None, None)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ.pop("DPEXPLORE_CACHE_DIR", None)
    from dpexplore.ui.selection import SelectionDashboard

    print(machine_line())
    t0 = time.perf_counter()
    board = SelectionDashboard(query_string="", render=False, background=False)
    first = time.perf_counter() - t0
    floor = figure_floor()
    fresh_seed = iter(range(1000, 10**6))
    rows = []
    for name, (a, b) in MOVES.items():
        fresh, back, drawn, per_panel = [], [], [], {}
        for _ in range(args.repeat):
            if name == "seed":  # a seed never used: every seeded panel is computed afresh
                a, b = next(fresh_seed), next(fresh_seed)
                board.set_params(seed=a)
            else:
                board.set_params(seed=next(fresh_seed), **{name: a})  # untimed: every panel drawn at a new seed
            w = board.widgets[name]
            board.timings.clear()
            t = time.perf_counter()
            w.value = b  # the page's path: the widget's observer → refresh(changed=name)
            fresh.append(time.perf_counter() - t)
            drawn = list(board.timings)
            for k, v in board.timings.items():
                per_panel.setdefault(k, []).append(v)
            t = time.perf_counter()
            w.value = a
            back.append(time.perf_counter() - t)
            assert not board.errors, board.errors
        if name != "seed":
            board.set_params(**{name: a})
        med = statistics.median(fresh)
        rows.append([name, ", ".join(drawn), f"{med:.3f}", f"{med / floor:.0f}×", f"{statistics.median(back):.3f}",
                     ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in per_panel.items())])
    print(f"first render (every panel, in-kernel): {first:.2f} s")
    print(table(["control moved", "panels redrawn", "median s (fresh value)", "÷ floor", "back (memo) s",
                 "per panel s"], rows))
    print(f"one-slider floor (one 100-point plotly figure built and serialised): {floor * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
