"""Paper 4, issue 28: T-round composition brackets and the binary worst case vs FMT21 numerical.

Table 1 — ``compose_rounds`` (certified upper = the exact blanket with M revealed, lower = an actual pair
composed; both by dp_accounting's PLD): upper/lower, time per call (median of 3), and the ratio of the
upper end to composing FMT21's clone pair (the published pair that bounds every ε0-LDP randomizer; same
grid, same pessimistic rounding) — for 3-, 16-RR and binary RR, ε0 ∈ {0.5, 1, 2, 4}, n ∈ {1e4 … 1e7},
T ∈ {10, 100, 1000}, δ = 1e-6.
Table 2 — binary RR's certified worst case (branch and bound, width ≤ 1e-3) vs FMT21 numerical, n = 1e6,
1e7, timed side by side (median of 3).

Run: python benchmarks/bench_shuffle_compose.py [--quick] [--only "binary RR"]  (--quick: n ≤ 1e5 and T ≤ 100 in
table 1; --only NAME: table 1's rows of that randomizer only, no table 2 — to regenerate the rows a change touched;
--no-timing: one call per row, the time column left empty — for a machine too loaded for timings to mean anything).
Timings on a shared machine vary; ratios are measured in the same run.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, median_time, table  # noqa: E402

from dpexplore.shuffle import binary_rr, compose_rounds, fmt_epsilon, k_rr, worst_case_epsilon  # noqa: E402
from dpexplore.shuffle import clones as _clones  # noqa: E402
from dpexplore.shuffle import compose as _compose  # noqa: E402
from dpexplore.shuffle import exact as _exact  # noqa: E402
from dpexplore.shuffle.pairs import _binom_window_mass  # noqa: E402


def fmt21_composed(e0: float, n: int, T: int, delta: float, disc: float) -> float:
    """T-fold composition of FMT21's clone pair (C ~ Bin(n − 1, e^{−ε0}) clones, target e^{ε0}/(e^{ε0} + 1)),
    blocks of C at their first C (dominating), losses rounded up: the same machinery as the upper end."""
    z = _compose._z_of(min(1e-12, 1e-4 * delta / T))
    r, N = math.exp(-e0), n - 1
    lo, hi, inf = _binom_window_mass(N, r, z)
    nb = int(min(64, max(1, math.ceil((hi - lo + 1) / max(1.0, 0.006 * N * r)))))
    starts, _, w, _ = _clones._mass_blocks(N, r, lo, hi, nb)
    u = 1.0 / (1.0 + math.exp(-e0))
    loss, mass, out = _compose._clone_cells(np.full(w.size, u), starts, np.zeros(w.size), w, z)
    fin = np.isfinite(loss)
    pmf = _compose._to_grid(loss[fin], mass[fin], disc, upper=True)
    return min(_compose._compose(pmf, min(1.0, inf + out), disc, T, delta, True)[1], T * e0)


def compose_table(quick: bool, only: str | None = None, timing: bool = True) -> None:
    delta = 1e-6
    rows = []
    ns = (10**4, 10**5) if quick else (10**4, 10**5, 10**6, 10**7)
    Ts = (10, 100) if quick else (10, 100, 1000)
    for name, make in (("3-RR", lambda e: k_rr(e, 3)), ("16-RR", lambda e: k_rr(e, 16)), ("binary RR", binary_rr)):
        if only is not None and name != only:
            continue
        for e0 in (0.5, 1.0, 2.0, 4.0):
            for n in ns:
                for T in Ts:
                    R = make(e0)
                    c = compose_rounds(R, n, T, delta)
                    t = median_time(lambda R=R, n=n, T=T: compose_rounds(R, n, T, delta), repeat=3) if timing else None
                    f21 = fmt21_composed(e0, n, T, delta, c.discretization)
                    rows.append([name, f"{e0:g}", f"{n:.0e}", T, f"{c.lower:.5g}", f"{c.epsilon:.5g}",
                                 f"{c.ratio:.4f}", "" if t is None else f"{t:.2f}", f"{f21:.5g}",
                                 f"{f21 / c.epsilon:.2f}",
                                 f"{c.discretization:.1e}", "yes" if c.capped else ""])
                    print(" | ".join(map(str, rows[-1])), flush=True)
    print("\n## compose_rounds: certified [lower, upper] for T rounds (δ = 1e-6)\n")
    print("upper = the exact privacy blanket with M revealed (binary RR: FMT23's clone pair), lower = the "
          "third-symbol pair (binary RR: the canonical pair, the larger of its two directions); "
          "FMT21 = composing FMT21's clone pair on the same "
          "grid; time = median of 3 calls (s).\n")
    print(table(["randomizer", "ε0", "n", "T", "lower", "upper", "upper/lower", "time (s)", "FMT21 composed",
                 "FMT21/upper", "Δ", "capped"], rows))
    for label, sel in (("k-RR", [float(r[6]) for r in rows if r[0] != "binary RR"]),
                       ("binary RR", [float(r[6]) for r in rows if r[0] == "binary RR"])):
        if sel:
            print(f"\n{label} rows: upper/lower max {max(sel):.4f}, median {np.median(sel):.4f}")


def binary_worst_table() -> None:
    delta = 1e-6
    rows = []
    for n in (10**6, 10**7):
        for e0 in (0.5, 1.0, 2.0, 4.0, 8.0):
            R = binary_rr(e0)

            def cold(R=R, n=n):
                _exact._CACHE.clear()
                _clones._block_weights.cache_clear()
                return worst_case_epsilon(R, n, delta, lower=False)

            w = cold()
            t_w = median_time(cold, repeat=3)
            t_f = median_time(lambda e0=e0, n=n: fmt_epsilon(e0, n, delta), repeat=3)
            rows.append([f"{n:.0e}", f"{e0:g}", f"{w.epsilon:.6f}", f"{w.lower:.6f}", w.pairs_evaluated,
                         f"{t_w:.2f}", f"{fmt_epsilon(e0, n, delta):.6f}", f"{t_f:.2f}", f"{t_f / t_w:.2f}"])
            print(" | ".join(map(str, rows[-1])), flush=True)
    print("\n## binary RR: certified worst case (branch and bound, ≤ 1e-3) vs FMT21 numerical (δ = 1e-6)\n")
    print(table(["n", "ε0", "worst case ε (certified)", "lower", "pairs", "time (s)", "FMT21 num. ε",
                 "FMT21 time (s)", "speed (FMT21 time / ours)"], rows))


def main() -> None:
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    print(machine_line())
    t0 = time.perf_counter()
    compose_table(quick, only, timing="--no-timing" not in sys.argv)
    if not quick and only is None:
        binary_worst_table()
    print(f"\n(total {time.perf_counter() - t0:.0f} s) " + machine_line("at end"))


if __name__ == "__main__":
    main()
