"""Paper 3 (Markov trajectories): online mechanism throughput and exact pair-chain analysis vs n.

Prints Markdown tables. Timings are wall-clock medians on whatever machine runs this (they were
first taken on a shared 2-core machine under load).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_time, table  # noqa: E402

from dpexplore.markov import (  # noqa: E402
    OnlineBaseline,
    OnlinePermuteAndFlip,
    analyze,
    baseline_kernel,
    city_grid,
    credit_migration,
    distances,
    mechanism_kernel,
    sample_trajectories,
    simulate,
    time_profile,
)


def online_rate(mech, states) -> float:
    t0 = time.perf_counter()
    for s in states:
        mech.step(int(s))
    return len(states) / (time.perf_counter() - t0)


def main() -> None:
    rows = []
    for name, chain in (("credit (7)", credit_migration()), ("grid 5×5 (25)", city_grid(5)),
                        ("grid 10×10 (100)", city_grid(10)), ("grid 17×17 (289)", city_grid(17))):
        s = simulate(chain, 5000, rng=0)
        pf = OnlinePermuteAndFlip(chain, epsilon=3.0, rho=2.0, rng=0)
        bl = OnlineBaseline(chain, epsilon=3.0, rng=0)
        d = distances(chain)
        mk = mechanism_kernel(chain, epsilon=3.0, rho=2.0, d=d)
        batch = simulate(chain, 200, size=200, rng=1)
        t_batch = median_time(lambda mk=mk, batch=batch: sample_trajectories(mk, batch, rng=0), repeat=3)
        rows.append([name, f"{online_rate(pf, s):,.0f}", f"{online_rate(bl, s):,.0f}",
                     f"{batch.size / t_batch:,.0f}"])
    print("## Online release: steps per second (ε = 3, ρ = 2)\n")
    print(table(["chain (states)", "Mechanism 1 online", "baseline online", "batch, exact-law sampler (200×200)"],
                rows))

    rows = []
    for side in (3, 5, 7, 10, 14, 17):
        chain = city_grid(side)
        t0 = time.perf_counter()
        d = distances(chain)
        t_d = time.perf_counter() - t0
        t0 = time.perf_counter()
        mk = mechanism_kernel(chain, epsilon=3.0, rho=2.0, d=d)
        t_k = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = analyze(chain, mk, d)
        t_a = time.perf_counter() - t0
        t0 = time.perf_counter()
        bres = analyze(chain, baseline_kernel(chain, epsilon=3.0), d)
        t_b = time.perf_counter() - t0
        t0 = time.perf_counter()
        time_profile(chain, mk, d, 200, v=np.linspace(0, d.max(), 41))
        t_p = time.perf_counter() - t0
        rows.append([chain.n, chain.n**2, f"{t_d * 1e3:.0f}", f"{t_k * 1e3:.0f}", f"{t_a:.2f}", f"{t_b:.2f}",
                     f"{t_p:.2f}", f"{res.tail(15.0):.2g}", f"{bres.tail(15.0):.2g}"])
    print("\n## Exact pair-chain analysis vs number of states (city grid, ε = 3, ρ = 2)\n")
    print(table(["states n", "pair states n²", "distances (ms)", "kernel (ms)", "stationary analysis M1 (s)",
                 "… baseline (s)", "time profile T=200 (s)", "P(e ≥ 15) M1", "P(e ≥ 15) baseline"], rows))

    c = credit_migration()
    d = distances(c)
    base = analyze(c, baseline_kernel(c, epsilon=3.0), d)
    rows = []
    for rho in (0.5, 1.0, 2.0, 5.0, 10.0):
        m = analyze(c, mechanism_kernel(c, epsilon=3.0, rho=rho, d=d), d)
        rows.append([rho, f"{m.tail(15.0):.2g}", f"{base.tail(15.0):.2g}", f"{m.tail(10.0):.2g}",
                     f"{base.tail(10.0):.2g}", f"{m.entropy_rate:.3g}", f"{base.entropy_rate:.3g}",
                     f"{m.entropy_rate / base.entropy_rate:.2f}"])
    print("\n## Credit chain (rated states, default dropped), ε = 3, exact stationary values\n")
    print(table(["ρ", "P(e≥15) M1", "P(e≥15) baseline", "P(e≥10) M1", "P(e≥10) baseline", "entropy rate M1 (nats)",
                 "baseline (nats)", "ratio"], rows))


if __name__ == "__main__":
    main()
