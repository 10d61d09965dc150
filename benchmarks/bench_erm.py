"""Paper 5 (QOP): solver time per run of the three mechanisms at the F2 size and at 10× that size,
the batched κ-sweep the dashboard uses, and the utility-bound optimiser."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, median_time, table  # noqa: E402

from dpexplore.erm import (  # noqa: E402
    REFERENCE_TABLE,
    compare_mechanisms,
    interpolation_data,
    interpolation_label_bound,
    lop,
    lop_clipped,
    noisy_anchor,
    qop,
    qop_utility_bound_curve,
)


def main() -> None:
    rows = []
    for n, d in ((300, 100), (3000, 1000)):
        X, y, t = interpolation_data(n, d, xi=5.0, rng=0)
        a = noisy_anchor(t, scale=0.1, rng=1)
        kw = dict(epsilon=0.5, delta=0.01, lam=1.0, radius=10.0, iterations=1000, feature_bound=5.0)
        rep = 3 if d <= 100 else 1
        B = interpolation_label_bound(5.0)
        t_lop = median_time(lambda X=X, y=y, kw=kw, B=B: lop(X, y, label_bound=B, rng=0, **kw), repeat=rep)
        t_clip = median_time(lambda X=X, y=y, kw=kw: lop_clipped(X, y, clip=1e4, rng=0, **kw), repeat=rep)
        t_qop = median_time(lambda X=X, y=y, a=a, kw=kw: qop(X, y, anchor=a, rng=0, **kw), repeat=rep)
        rows.append([f"{n} × {d}", f"{t_lop:.3f}", f"{t_clip:.3f}", f"{t_qop:.3f}"])
    print("## one private release, StoTOS with K = 1000 (seconds per run)\n")
    print(table(["n × d", "LOP", "clipped LOP", "QOP (incl. Wishart + eigvalsh)"], rows))

    rows = []
    for n, d, trials in ((200, 50, 3), (300, 100, 10)):
        X, y, t = interpolation_data(n, d, xi=5.0, rng=0)
        a = noisy_anchor(t, scale=0.1, rng=1)
        radii = np.logspace(-2, 3, 7)
        t0 = time.perf_counter()
        compare_mechanisms(X, y, radii=radii, epsilon=0.5, delta=0.01, lam=1.0, anchor=a, clip=1e4, trials=trials,
                           feature_bound=5.0, label_bound=interpolation_label_bound(5.0), rng=0)
        el = time.perf_counter() - t0
        runs = 3 * len(radii) * trials
        rows.append([f"{n} × {d}", trials, runs, f"{el:.2f}", f"{1e3 * el / runs:.1f}"])
    print("\n## batched κ sweep (3 mechanisms × 7 radii × trials, one StoTOS loop per mechanism)\n")
    print(table(["n × d", "trials", "runs", "total (s)", "ms per run"], rows))

    eps = np.array([e for e, _ in REFERENCE_TABLE], dtype=float)
    dls = np.array([d for _, d in REFERENCE_TABLE])
    c = dict(L=1, n=10, d=12, D=1)
    t_ex = median_time(lambda: qop_utility_bound_curve(eps, dls, **c), repeat=3)
    t_in = median_time(lambda: qop_utility_bound_curve(eps, dls, tau=1e-3, eta=1e-3, **c), repeat=1)
    print("\n## utility-bound optimiser (the 16 entries of the paper's table, vectorised)\n")
    print(table(["bound", "time (s)"], [["exact", f"{t_ex:.2f}"], ["inexact", f"{t_in:.2f}"]]))
    print("\n" + machine_line("at the end"))


if __name__ == "__main__":
    main()
