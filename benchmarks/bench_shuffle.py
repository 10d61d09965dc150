"""Paper 4: exact ε(δ) of shuffled binary RR vs n (time and memory), next to the FMT numerical
clone-pair bound, plus the dashboard's slider-move cost at n = 10⁶.

Run: python benchmarks/bench_shuffle.py  (prints Markdown tables; timings on a shared machine vary).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_time, peak_memory_mb, table  # noqa: E402

from dpexplore.shuffle import (  # noqa: E402
    binary_rr,
    chernoff_epsilon,
    exact_epsilon,
    fmt_epsilon,
    gdp_epsilon_at,
    gdp_mu,
    k_rr,
)
from dpexplore.shuffle import exact as _exact  # noqa: E402


def _fresh_exact(e0: float, n: int, delta: float, **kw) -> float:
    _exact._CACHE.clear()  # time the full computation, not the per-process cache
    return exact_epsilon(binary_rr(e0), n, delta, **kw)


def main() -> None:
    delta = 1e-6
    for e0 in (1.0, 4.0):
        rows = []
        for n in (10**4, 10**5, 10**6, 10**7):
            R = binary_rr(e0)
            eps = _fresh_exact(e0, n, delta)
            t_ex = median_time(lambda n=n, e0=e0: _fresh_exact(e0, n, delta), repeat=3)
            mem = peak_memory_mb(lambda n=n, e0=e0: _fresh_exact(e0, n, delta))
            t_fmt = median_time(lambda n=n, e0=e0: fmt_epsilon(e0, n, delta), repeat=1)
            rows.append([f"{n:.0e}", f"{eps:.5f}", f"{t_ex * 1e3:.1f}", f"{mem:.1f}",
                         f"{gdp_epsilon_at(gdp_mu(R, n), delta):.5f}",
                         f"{fmt_epsilon(e0, n, delta):.5f}", f"{t_fmt * 1e3:.0f}"])
        print(f"\n## binary RR, ε0 = {e0:g}, δ = 1e-6 (exact two-sided ε vs FMT21 numerical clone bound)\n")
        print(table(["n", "exact ε", "exact time (ms)", "exact peak mem (MiB)", "GDP ε", "FMT21 num. ε",
                     "FMT21 time (ms)"], rows))

    rows = []
    for n, k in ((10**6, 0), (10**6, 1000), (10**6, 500_000), (10**7, 5_000_000)):
        t = median_time(lambda n=n, k=k: _fresh_exact(1.0, n, delta, k=k), repeat=1)
        rows.append([f"{n:.0e}", k, f"{_fresh_exact(1.0, n, delta, k=k):.6f}", f"{t * 1e3:.0f}"])
    print("\n## general k (binary RR, ε0 = 1): direct convolution of the two binomials\n")
    print(table(["n", "k", "exact ε", "time (ms)"], rows))

    rows = []
    for m in (1, 4, 10):
        t = median_time(lambda m=m: _fresh_exact(1.0, 10**5, delta, messages=m), repeat=1)
        rows.append([m, f"{_fresh_exact(1.0, 10**5, delta, messages=m):.5f}", f"{t * 1e3:.1f}"])
    print("\n## unbundled multi-message (binary RR, ε0 = 1, n = 1e5)\n")
    print(table(["m", "exact ε", "time (ms)"], rows))

    rows = []
    for n in (100, 500, 1000, 1999):
        _exact._CACHE.clear()
        t = median_time(lambda n=n: (_exact._CACHE.clear(), exact_epsilon(k_rr(1.0, 4), n, delta)), repeat=1)
        t_ch = median_time(lambda n=n: chernoff_epsilon(k_rr(1.0, 4), n, delta), repeat=1)
        rows.append([n, f"{exact_epsilon(k_rr(1.0, 4), n, delta):.5f}", f"{t * 1e3:.0f}",
                     f"{chernoff_epsilon(k_rr(1.0, 4), n, delta):.5f}", f"{t_ch * 1e3:.0f}"])
    print("\n## 4-RR (trinomial grid) exact vs Chernoff bound, ε0 = 1\n")
    print(table(["n", "exact ε", "time (ms)", "Chernoff ε", "time (ms)"], rows))

    from dpexplore.ui.shuffle import ShuffleAsymptoticsDashboard

    d = ShuffleAsymptoticsDashboard(query_string="n=1000000")
    rows = []
    for e0 in (2.02, 2.04, 4.0):
        t0, c0 = time.perf_counter(), time.process_time()
        d.widgets["epsilon0"].value = e0
        rows.append([f"{e0:g}", f"{time.perf_counter() - t0:.2f}", f"{time.process_time() - c0:.2f}",
                     ", ".join(f"{k} {v:.2f}" for k, v in d.timings.items())])
    print("\n## dashboard at n = 1e6: one ε0 slider move (all panels but the solver recompute)\n")
    print(table(["ε0", "wall (s)", "CPU (s)", "per panel (wall s)"], rows))


if __name__ == "__main__":
    main()
