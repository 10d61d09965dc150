"""Every dashboard's Audit section at its defaults, correct and broken: the issue-8 evidence table.

For each paper dashboard and each choice of its "mechanism to audit" control, runs the dashboard's
own ``audit_report`` at the default parameters and the default run count (exactly what pressing
"Run audit" does), once with the correct mechanism and once with the deliberately broken variant,
and prints a Markdown table: mechanism, claimed ε, exact ε, measured ε̂, runs, time, verdict.

    .venv/bin/python benchmarks/audit_table.py            # all five dashboards (several minutes)
    .venv/bin/python benchmarks/audit_table.py spectral   # one of: spectral pca markov shuffle erm
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import table  # noqa: E402

DASHBOARDS = {
    "spectral": ("dpexplore.ui.spectral", "SpectralClusteringDashboard"),
    "pca": ("dpexplore.ui.pca", "PrivatePCADashboard"),
    "markov": ("dpexplore.ui.markov", "MarkovTrajectoryDashboard"),
    "shuffle": ("dpexplore.ui.shuffle", "ShuffleAsymptoticsDashboard"),
    "erm": ("dpexplore.ui.erm", "QuadraticPerturbationDashboard"),
}


def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.3f}"


def rows_for(name: str, seed: int = 0) -> list[list[object]]:
    import importlib

    mod, cls = DASHBOARDS[name]
    d = getattr(importlib.import_module(mod), cls)()
    params = d.params()
    ctl = next((c for c in d.controls if c.name == "audit"), None)
    choices = [v for _, v in ctl.options] if ctl is not None else [None]
    out = []
    for choice in choices:
        p = dict(params) if choice is None else {**params, "audit": choice}
        for broken in (False, True):
            t0 = time.perf_counter()
            r = d.audit_report(p, broken=broken, runs=d.audit_runs[0], rng=seed, progress=lambda done, total: None)
            secs = time.perf_counter() - t0
            verdict = "refuted" if r.violation else "consistent"
            out.append([name, r.mechanism[:90], _fmt(r.claimed_epsilon), _fmt(r.exact_epsilon),
                        _fmt(r.epsilon_lower), f"{r.runs:,}", f"{secs:.1f} s", verdict])
    return out


def main(argv: list[str]) -> int:
    names = argv or list(DASHBOARDS)
    rows = []
    for name in names:
        rows += rows_for(name)
        print(f"{name}: done", file=sys.stderr, flush=True)
    print(table(["dashboard", "mechanism", "claimed ε", "exact ε", "ε̂", "runs", "time", "verdict"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
