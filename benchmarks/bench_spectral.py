"""Paper 1: time and peak memory of each edge-DP mechanism vs one dense top-k eigensolve (the floor).

Run: ``python benchmarks/bench_spectral.py [--sizes 500 1000 2000 5000]``. Prints a Markdown table.
Each row is one SBM(n, k=3, p=0.3, q=0.05) at ε = 1, δ = 1/n²; times include the mechanism, the top-k
eigenvectors and k-means (the shuffle accountant is warmed up first, so it is not timed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_time, peak_memory_mb, table  # noqa: E402

from dpexplore.spectral import (  # noqa: E402
    private_spectral_clustering,
    sbm,
    shuffle_epsilon0,
    top_eigenpairs,
)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000, 5000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    for n in args.sizes:
        A, _ = sbm(n, 3, 0.3, 0.05, rng=0)
        delta = 1.0 / n**2
        shuffle_epsilon0(1.0, n, delta)  # warm the accountant cache
        dense = A.toarray()
        floor_t = median_time(lambda d=dense: top_eigenpairs(d, 3, rng=0), repeat=args.repeat)
        floor_m = peak_memory_mb(lambda a=A: top_eigenpairs(a.toarray(), 3, rng=0))
        row = [n, f"{floor_t:.3f}", f"{floor_m:.0f}"]
        for mech in ("shuffle", "analyze_gauss", "noisy_power"):
            def run(m=mech, a=A, d=delta):
                return private_spectral_clustering(a, 3, mechanism=m, epsilon=1.0, delta=d, rng=0)

            t = median_time(run, repeat=args.repeat)
            mem = peak_memory_mb(run)
            row += [f"{t:.3f}", f"{mem:.0f}"]
        rows.append(row)
        print(f"n={n} done", file=sys.stderr, flush=True)
    header = ["n", "dense top-3 eigsh floor (s)", "floor MiB", "shuffle (s)", "shuffle MiB", "Analyze Gauss (s)",
              "AG MiB", "noisy power (s)", "NP MiB"]
    print(f"## Paper 1 mechanisms: SBM(n, 3, 0.3, 0.05), ε = 1, δ = 1/n² (numpy {np.__version__})\n")
    print(table(header, rows))


if __name__ == "__main__":
    main()
