"""Paper 4: worst-case ε(δ) over neighbouring data sets vs the FMT21 numerical bound (issue 14), the
canonical-pair exact ε(δ) vs n (time and memory), and the dashboard's slider-move cost at n = 10⁶.

Run: python benchmarks/bench_shuffle.py [--quick]  (Markdown tables; timings on a shared machine vary;
ratios are measured side by side in the same run, median of 3). --quick: only the first table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, median_time, peak_memory_mb, table  # noqa: E402

from dpexplore.shuffle import (  # noqa: E402
    binary_rr,
    blanket_epsilon,
    chernoff_epsilon,
    exact_epsilon,
    fmt_epsilon,
    gdp_epsilon_at,
    gdp_mu,
    k_rr,
    worst_case_epsilon,
)
from dpexplore.shuffle import exact as _exact  # noqa: E402
from dpexplore.shuffle import worst as _worst  # noqa: E402


def _cold() -> None:
    """Clear the per-process caches (exact laws, the dominating pair's block weights): time cold calls."""
    _exact._CACHE.clear()
    _worst._block_weights.cache_clear()


def _fresh_exact(e0: float, n: int, delta: float, **kw) -> float:
    _exact._CACHE.clear()  # time the full computation, not the per-process cache
    kw.setdefault("k", 0)  # these tables time the canonical pair (named)
    return exact_epsilon(binary_rr(e0), n, delta, **kw)


def worst_case_table(ns=(10**6, 10**7), e0s=(0.5, 1.0, 2.0, 4.0, 8.0), ks=(2, 3, 16), delta=1e-6) -> None:
    """Issue 14: worst-case ε(δ) (certified end) vs FMT21 numerical, same run, median of 3."""
    print(machine_line())
    rows = []
    for n in ns:
        for e0 in e0s:
            eps_fmt = fmt_epsilon(e0, n, delta)
            t_fmt = median_time(lambda n=n, e0=e0: fmt_epsilon(e0, n, delta), repeat=3)
            for k in ks:
                eps_bl = blanket_epsilon(e0, n, delta, k=k, method="bennett")
                t_bl = median_time(lambda n=n, e0=e0, k=k: blanket_epsilon(e0, n, delta, k=k, method="bennett"),
                                   repeat=3)
                R = binary_rr(e0) if k == 2 else k_rr(e0, k)
                _cold()
                w = worst_case_epsilon(R, n, delta)  # with the lower end (named pairs), timed separately
                t_w = median_time(lambda R=R, n=n: (_cold(), exact_epsilon(R, n, delta)), repeat=3)
                # binary inputs: exact_epsilon *is* the branch and bound (its lower end comes with it)
                t_lo = t_w if w.pairs_evaluated else median_time(
                    lambda R=R, n=n: (_cold(), worst_case_epsilon(R, n, delta)), repeat=1)
                rows.append([f"{n:.0e}", "binary RR" if k == 2 else f"{k}-RR", f"{e0:g}", f"{w.epsilon:.5f}",
                             w.method, f"{w.lower:.5f}", w.pair, f"{t_w * 1e3:.0f}", f"{t_lo * 1e3:.0f}",
                             f"{eps_fmt:.5f}", f"{t_fmt * 1e3:.0f}", f"{t_fmt / t_w:.1f}",
                             f"{eps_fmt / w.epsilon:.3f}", f"{w.epsilon / max(w.lower, 1e-300):.3f}",
                             f"{eps_bl:.5f}", f"{t_bl * 1e3:.1f}", w.pairs_evaluated or "–"])
    print("\n## worst case over neighbouring data sets vs FMT21 numerical (δ = 1e-6, median of 3)\n")
    print("worst-case ε = exact_epsilon(R, n, δ): the certified upper end, timed (binary RR: the branch and bound "
          "over k, bracket width ≤ 1e-3, so 'certified / lower' ≤ 1.001; k-RR, k ≥ 3: the exact privacy blanket "
          "checked at the third-symbol pair's ε × (1 + 1e-3/4 or 1e-3), the same bracket width); "
          "lower = the largest ε of a named pair (a lower end of the worst case; its time incl. the upper end in "
          "'time with lower'); speed-up = FMT21 time / worst-case time; certified / lower = the remaining gap; "
          "blanket Bennett = BBGN19's numerical bound on the same blanket decomposition (every data set).\n")
    print(table(["n", "randomizer", "ε0", "worst-case ε (certified)", "bound that binds", "lower (named pair)",
                 "pair", "time (ms)", "time with lower (ms)", "FMT21 num. ε", "FMT21 time (ms)", "speed-up",
                 "FMT21 / worst", "certified / lower", "blanket Bennett ε", "Bennett time (ms)",
                 "pairs (branch and bound)"], rows))


def main() -> None:
    worst_case_table()
    if "--quick" in sys.argv:
        return
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
        print(f"\n## binary RR, ε0 = {e0:g}, δ = 1e-6 (canonical pair's exact ε vs FMT21 numerical clone bound)\n")
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
        t = median_time(lambda n=n: (_exact._CACHE.clear(), exact_epsilon(k_rr(1.0, 4), n, delta, k=0)), repeat=1)
        t_ch = median_time(lambda n=n: chernoff_epsilon(k_rr(1.0, 4), n, delta), repeat=1)
        rows.append([n, f"{exact_epsilon(k_rr(1.0, 4), n, delta, k=0):.5f}", f"{t * 1e3:.0f}",
                     f"{chernoff_epsilon(k_rr(1.0, 4), n, delta):.5f}", f"{t_ch * 1e3:.0f}"])
    print("\n## 4-RR (trinomial grid) canonical pair's exact ε vs its Chernoff bound, ε0 = 1\n")
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
