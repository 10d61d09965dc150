"""Paper 4, issue 28: binary randomized response's certified worst-case ε(δ) (the branch and bound over
pairs k in dpexplore/shuffle/bnb.py) vs FMT21's numerical bound (``fmt_epsilon``, the clone pair
numerically; ``fmt21_epsilon`` is the closed form, microseconds, not a speed floor), timed side by side in the same run.

Run: python benchmarks/bench_shuffle_binary.py [--label NAME]  (a Markdown table; writes
benchmarks/results/shuffle_binary.json, keeping earlier labels' rows so before/after sit in one file).
Cold runs (the exact-law caches are cleared before every call), after one warm-up call of each:
``repeat`` (default 5) rounds, each timing FMT21 and then ours back to back, so that both see the
same load; the times are the medians over the rounds and the ratio is the median over the rounds of
FMT21 time / ours (> 1: ours is faster). The machine is shared: absolute times vary, the ratios are
measured in the same run; the load average is recorded. ``--base DIR`` runs the code of another
checkout of the package (e.g. ``git archive main dpexplore | tar -x -C DIR``) for a before/after pair.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _timing import machine_line, table  # noqa: E402

if "--base" in sys.argv:  # time another checkout of the package (the "before" of a before/after pair)
    sys.path.insert(0, sys.argv[sys.argv.index("--base") + 1])

from dpexplore.shuffle import binary_rr, fmt_epsilon, worst_case_epsilon  # noqa: E402
from dpexplore.shuffle import exact as _exact  # noqa: E402
from dpexplore.shuffle import worst as _worst  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "shuffle_binary.json"


def _cold() -> None:
    """Clear the per-process caches so every timed call is a cold one."""
    _exact._CACHE.clear()
    cache_clear = getattr(getattr(_worst, "_block_weights", None), "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


def _rounds(f_fmt, f_ours, repeat: int) -> tuple[float, float, float]:
    """Median FMT21 time, median time of ours and median per-round ratio, timed back to back."""
    f_fmt(), f_ours()  # warm-up
    tf, to = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f_fmt()
        tf.append(time.perf_counter() - t0)
        _cold()
        t0 = time.perf_counter()
        f_ours()
        to.append(time.perf_counter() - t0)
    return statistics.median(tf), statistics.median(to), statistics.median(a / b for a, b in zip(tf, to))


def run(ns=(10**6, 10**7), e0s=(0.5, 1.0, 2.0, 4.0), delta=1e-6, repeat=5) -> dict:
    """Rows of the benchmark (a dict with the machine line and one row per (n, ε0))."""
    machine = machine_line()
    print(machine)
    rows = []
    for n in ns:
        for e0 in e0s:
            eps_fmt = fmt_epsilon(e0, n, delta)
            R = binary_rr(e0)
            _cold()
            w = worst_case_epsilon(R, n, delta)
            t_fmt, t_w, ratio = _rounds(lambda n=n, e0=e0: fmt_epsilon(e0, n, delta),
                                        lambda R=R, n=n: worst_case_epsilon(R, n, delta), repeat)
            rows.append({"n": n, "epsilon0": e0, "delta": delta, "upper": w.epsilon, "lower": w.lower,
                         "gap": w.epsilon - w.lower, "method": w.method, "pair": w.pair,
                         "pairs_evaluated": w.pairs_evaluated, "time_s": t_w, "fmt21_numerical_epsilon": eps_fmt,
                         "fmt21_time_s": t_fmt, "ratio": ratio, "rounds": repeat})
            print(f"n={n:.0e} ε0={e0:g}: ours {t_w:.3f} s, FMT21 {t_fmt:.3f} s, ratio {ratio:.2f}, "
                  f"{w.pairs_evaluated} pairs", flush=True)
    return {"machine_start": machine, "machine_end": machine_line("at end"), "rows": rows,
            "package": str(Path(_exact.__file__).parent)}


def main() -> None:
    label = "current"
    if "--label" in sys.argv:
        label = sys.argv[sys.argv.index("--label") + 1]
    t0 = time.time()
    res = run()
    res["wall_s"] = time.time() - t0
    res["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(table(["n", "ε0", "upper", "lower", "upper − lower", "pairs", "time (ms)", "FMT21 num. ε",
                 "FMT21 time (ms)", "ratio (FMT21 / ours)"],
                [[f"{r['n']:.0e}", f"{r['epsilon0']:g}", f"{r['upper']:.6f}", f"{r['lower']:.6f}",
                  f"{r['gap']:.1e}", r["pairs_evaluated"], f"{r['time_s'] * 1e3:.0f}",
                  f"{r['fmt21_numerical_epsilon']:.5f}", f"{r['fmt21_time_s'] * 1e3:.0f}", f"{r['ratio']:.2f}"]
                 for r in res["rows"]]))
    print(res["machine_end"])
    data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data[label] = res
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=1) + os.linesep)


if __name__ == "__main__":
    main()
