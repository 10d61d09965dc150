"""The "Why DP" page (dpexplore.ui.attacks) in the kernel, without a browser: what one slider move costs.

For each control, the median time of ``set_params`` from the defaults to a neighbouring value and back
(every panel that control feeds is recomputed and its figure built; the result cache is off), against the
one-slider floor measured in the same run (one plotly figure with one line built per move, as the kit's
trivial page does). Then the default view per panel (cold), and the attacker's LP alone at the sizes the
tests use.

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
from benchmarks._timing import machine_line, median_time, table  # noqa: E402

#: one move per control: the value next to the default (the slider's arrow key, roughly)
MOVES = {"noise": "laplace", "bound": 1.12, "epsilon": 1.12, "n": 112, "m": 447, "seed": 1}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    import plotly.graph_objects as go

    from dpexplore.attacks import reconstruct, secret_bits, subset_queries
    from dpexplore.attacks.mechanisms import answer_queries
    from dpexplore.ui.attacks import AttacksDashboard

    print(machine_line(), flush=True)

    def floor():
        fig = go.Figure(go.Scatter(x=list(range(50)), y=[i * i for i in range(50)]))
        fig.to_json()

    t_floor = median_time(floor, repeat=max(5, a.repeat))
    t0 = time.perf_counter()
    board = AttacksDashboard(query_string="", render=False, background=False)
    build = time.perf_counter() - t0
    defaults = dict(board.timings)
    rows = []
    for name, value in MOVES.items():
        times = []
        default = board.params()[name]
        for r in range(a.repeat):
            if name != "seed":
                board.set_params(seed=100 + r)  # a fresh view: nothing memoised
            t0 = time.perf_counter()
            board.set_params(**{name: value})
            times.append(time.perf_counter() - t0)
            board.set_params(**{name: default})
        assert not board.errors, board.errors
        t = statistics.median(times)
        rows.append([name, f"{default!r} → {value!r}", f"{t:.3f}", f"{t / t_floor:.0f}×"])
    print(f"\nslider → every dependent panel recomputed and drawn (median of {a.repeat}; floor: one-line figure "
          f"{t_floor * 1e3:.1f} ms)\n")
    print(table(["control", "move", "seconds", "vs floor"], rows))
    print(f"\nfirst view (every panel, cold): {build:.2f} s; per panel: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in defaults.items()))
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
