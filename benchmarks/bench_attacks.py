"""The "Why DP" page (dpexplore.ui.attacks) in the kernel, without a browser: what one slider move costs.

For each control, the median time of one move from the defaults to a neighbouring value, made as the browser
makes it (the control's widget changes, the page redraws the panels that depend on it: ``refresh(changed=…)``),
``--repeat`` times, each at a fresh seed (100, 101, …; the seed row moves to 200, 201, …) so that nothing is
memoised; the result cache is off (no ``$DPEXPLORE_CACHE_DIR``). Beside it, the plots that changed and the
ratio to the one-slider floor measured in the same run (:func:`benchmarks._timing.figure_floor`). The same
moves are then made on a page that computes in the kernel's background worker (as under Voila: the slider's
callback returns at once and the panels fill in one by one): "first plot" is when the first of them is redrawn.
Then the
default view per panel (cold), and the attacker's LP alone at the sizes the tests use.

    .venv/bin/python benchmarks/bench_attacks.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import figure_floor, machine_line, median_time, table  # noqa: E402

#: one move per control: the value next to the default (the slider's arrow key, roughly); seed: see above
MOVES = {"noise": "laplace", "bound": 1.12, "epsilon": 1.12, "n": 112, "m": 447, "seed": None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)

    from dpexplore.attacks import reconstruct, secret_bits, subset_queries
    from dpexplore.attacks.mechanisms import answer_queries
    from dpexplore.ui.attacks import AttacksDashboard

    print(machine_line(), flush=True)
    t_floor = figure_floor()
    t0 = time.perf_counter()
    board = AttacksDashboard(query_string="", render=False, background=False)
    build = time.perf_counter() - t0
    first = dict(board.timings)
    defaults = board.params()
    rows = []
    for name, value in MOVES.items():
        times, changed = [], set()
        for r in range(a.repeat):
            board.set_params(**dict(defaults, seed=100 + r))  # a fresh view at the defaults: nothing memoised
            new = 200 + r if name == "seed" else value
            before = {k: f.to_json() for k, f in board.figures.items()}
            t0 = time.perf_counter()
            board.widgets[name].value = new  # as the browser moves it: refresh(changed=name)
            times.append(time.perf_counter() - t0)
            changed |= {k for k, f in board.figures.items() if f.to_json() != before[k]}
            assert not board.errors, board.errors
        t = statistics.median(times)
        move = f"{defaults[name]!r} → {value!r}" if name != "seed" else "100 → 200 (fresh seeds)"
        rows.append([name, move, f"{t:.3f}", ", ".join(k for k in board.figures if k in changed),
                     f"{t / t_floor:.0f}×"])
    # the same moves as in the kernel (background worker, as Voila runs the page): when the first plot is redrawn
    back = AttacksDashboard(query_string="", render=False, background=True)
    back.wait()
    for row, name in zip(rows, MOVES):
        firsts = []
        for r in range(a.repeat):
            back.set_params(**dict(defaults, seed=100 + r))
            back.wait()
            old = dict(back.figures)
            t0 = time.perf_counter()
            back.widgets[name].value = 200 + r if name == "seed" else MOVES[name]
            while all(back.figures[k] is old[k] for k in old) and not back.wait(0.002):
                pass
            firsts.append(time.perf_counter() - t0)
            back.wait()
        t = statistics.median(firsts)
        row[3:3] = [f"{t:.3f}"]
    print(f"\nslider → every dependent panel recomputed and drawn, and (kernel's background worker) the first one "
          f"(median of {a.repeat}; floor: one 100-point figure built and serialised, {t_floor * 1e3:.1f} ms)\n")
    print(table(["control", "move", "seconds (all)", "first plot", "plots changed", "all vs floor"], rows))
    print(f"\nfirst view (every panel, cold): {build:.2f} s ({build / t_floor:.0f}× floor); per panel: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in first.items()))
    lp_rows = []
    for n in (100, 200):
        x, q = secret_bits(n, rng=0), subset_queries(n, 4 * n, rng=1)
        for noise, kw in (("bounded", {"bound": 0.05 * n ** 0.5}), ("laplace", {"epsilon": 1.0})):
            ans = answer_queries(x, q, noise=noise, rng=2, **kw).answers
            for meth in ("lp", "least_squares"):
                t = median_time(lambda ans=ans, q=q, meth=meth: reconstruct(ans, q, method=meth), repeat=a.repeat)
                lp_rows.append([n, 4 * n, noise, meth, f"{t:.3f}"])
    print("\nthe attack alone (one reconstruct call)\n")
    print(table(["n", "m", "noise", "method", "seconds"], lp_rows))
    print("\n" + machine_line("at end"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
