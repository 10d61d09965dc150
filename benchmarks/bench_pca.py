"""Paper 2 (private PCA): time per iteration of the adaptive method vs n·d, against one A x product (the floor),
the baselines, and the dashboard's latency at its defaults.

Run: python benchmarks/bench_pca.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, median_time, table  # noqa: E402

from dpexplore.pca import (  # noqa: E402
    adaptive_power_iteration,
    analyze_gauss,
    make_matrix,
    noisy_power_iteration,
    power_iteration,
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    a = ap.parse_args()
    sizes = [(500, 50), (1000, 200), (2000, 400)] if a.quick else [(500, 50), (1000, 200), (2000, 400), (8000, 500)]
    T = 10
    rows = []
    for n, d in sizes:
        data = make_matrix(n, d, eigengap=0.8, rng=0)
        A = data.A
        x = np.ones(d) / np.sqrt(d)
        t_ax = median_time(lambda A=A, x=x: A @ x, repeat=20)
        t_ad = median_time(lambda A=A: adaptive_power_iteration(A, epsilon=10, delta=1e-5, iterations=T, rng=0),
                           repeat=5) / T
        t_wc = median_time(lambda A=A: noisy_power_iteration(A, epsilon=10, delta=1e-5, iterations=T, rng=0),
                           repeat=5) / T
        t_np = median_time(lambda A=A: power_iteration(A, iterations=T, rng=0), repeat=5) / T
        t_ag = median_time(lambda A=A: analyze_gauss(A, epsilon=10, delta=1e-5, rng=0), repeat=3)
        res = adaptive_power_iteration(A, epsilon=10, delta=1e-5, iterations=T, rng=0)
        rows.append([n, d, f"{n * d:.1e}", f"{t_ax * 1e3:.3f}", f"{t_np * 1e3:.3f}", f"{t_wc * 1e3:.3f}",
                     f"{t_ad * 1e3:.3f}", f"{t_ad / t_ax:.1f}", f"{t_ag * 1e3:.1f}",
                     f"{np.mean(res.rows_filtered):.1f}"])
    print(f"## Time per iteration (T = {T}, ε = 10, δ = 1e-5)\n\n{machine_line()}\n")
    print(table(["n", "d", "n·d", "one A x (ms)", "non-private / iter (ms)", "worst-case / iter (ms)",
                 "adaptive / iter (ms)", "adaptive ÷ A x", "Analyze Gauss total (ms)", "rows left out / iter"],
                rows))

    from dpexplore.ui.pca import PrivatePCADashboard

    t0, c0 = time.perf_counter(), time.process_time()
    dash = PrivatePCADashboard(query_string="")
    build, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    lat = []
    for name, val in [("epsilon", 12.59), ("coherence", 0.0126), ("kappa", 0.85), ("epsilon", 10.0)]:
        t0, c0 = time.perf_counter(), time.process_time()
        dash.widgets[name].value = val
        lat.append([name, val, f"{time.perf_counter() - t0:.2f}", f"{time.process_time() - c0:.2f}",
                    ", ".join(f"{k} {v:.2f}" for k, v in dash.timings.items())])
    print(f"\n## Dashboard at defaults (n=1000, d=200, trials=3): first draw {build:.2f} s wall, "
          f"{build_cpu:.2f} s CPU (wall ≫ CPU means the machine was busy)\n")
    print(table(["slider moved", "to", "recompute wall (s)", "CPU (s)", "last per-panel wall times (s)"], lat))


if __name__ == "__main__":
    main()
