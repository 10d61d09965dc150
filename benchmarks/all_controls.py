"""Every control of every dashboard, moved once from its default, timed in the kernel (no browser).

For each dashboard of the gallery (the class a page's notebook constructs) and each of its shown controls
(text boxes excepted), the script moves the control one step from its default (a slider by one step of its
own, a log slider by one step of its exponent, a dropdown to its next option, a checkbox flipped) and back,
``--repeat`` times each way, with a fresh ``seed`` before every move where the page has one (so nothing comes
from the page's memo), and reports the median seconds of ``set_params`` (every panel the control redraws,
computed and serialised) beside the one-slider floor of the same process (one 100-point plotly figure built
and serialised, :func:`benchmarks._timing.figure_floor`). The browser adds its own cost on top (drawing and
the websocket: ``benchmarks/dashboard_bench.py``); this table finds the controls that cannot meet the
course-page goal of 0.3 s whatever the browser does.

    .venv/bin/python benchmarks/all_controls.py [--repeat 2] [--pages AttacksDashboard SelectionDashboard]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks._timing import figure_floor, machine_line, table  # noqa: E402

GOAL_S = 0.3  #: the course-page standard's slider → plot goal (COURSE.md), browser included
MAX_REPEAT = 20  #: public maximum of moves per direction


def dashboard_classes() -> dict[str, type]:
    """The gallery's dashboard classes, by name (the same list the teaching tests use)."""
    from dpexplore.ui.attacker import AttackerDashboard
    from dpexplore.ui.attacks import AttacksDashboard
    from dpexplore.ui.basics import CountingQueryDashboard
    from dpexplore.ui.composition import CompositionDashboard
    from dpexplore.ui.deployments import DeploymentsDashboard
    from dpexplore.ui.erm import QuadraticPerturbationDashboard
    from dpexplore.ui.local import LocalDashboard
    from dpexplore.ui.markov import MarkovTrajectoryDashboard
    from dpexplore.ui.ml import PrivateMLDashboard
    from dpexplore.ui.pca import PrivatePCADashboard
    from dpexplore.ui.selection import SelectionDashboard
    from dpexplore.ui.shuffle import ShuffleAsymptoticsDashboard
    from dpexplore.ui.spectral import SpectralClusteringDashboard
    from dpexplore.ui.statistics import StatisticsDashboard

    classes = (CountingQueryDashboard, AttackerDashboard, CompositionDashboard, SpectralClusteringDashboard,
               PrivatePCADashboard, MarkovTrajectoryDashboard, ShuffleAsymptoticsDashboard,
               QuadraticPerturbationDashboard, AttacksDashboard, StatisticsDashboard, SelectionDashboard,
               PrivateMLDashboard, LocalDashboard, DeploymentsDashboard)
    return {c.__name__: c for c in classes}


def neighbour(ctl, value):
    """The value one step from ``value`` (towards the middle of the range where a step would leave it)."""
    k = ctl.kind
    if k == "bool":
        return not value
    if k == "choice":
        opts = ctl.option_values
        return opts[(opts.index(value) + 1) % len(opts)]
    if k in ("log", "logint"):
        step = ctl.step or 0.1
        up = value * 10 ** step
        new = up if up <= ctl.high else value / 10 ** step
        return int(round(new)) if k == "logint" else new
    step = ctl.step or ((ctl.high - ctl.low) / 100 if k == "float" else 1)
    new = value + step if value + step <= ctl.high else value - step
    return int(round(new)) if k == "int" else new


def measure(cls, repeat: int, floor: float) -> list[list[str]]:
    board = cls(query_string="", render=False, background=False)
    assert not board.errors, board.errors
    rows = []
    seed_ctl = next((c for c in type(board).controls if c.name == "seed"), None)
    seeded = seed_ctl is not None
    seed_default = seed_ctl.default if seeded else None
    # fresh seeds inside the control's range (a value above it is clamped: the same seed, memo hits), from the top
    fresh = iter(range(int(seed_ctl.high), int(seed_ctl.low), -1)) if seeded else iter(())
    for ctl in type(board).controls:
        if ctl.kind == "text" or ctl.name == "seed":
            continue
        if ctl.shown_if and board.params().get(ctl.shown_if[0]) != ctl.shown_if[1]:
            continue
        default = board.params()[ctl.name]
        new = neighbour(ctl, default)
        if new == default:
            continue
        before = {k: f.to_json() for k, f in board.figures.items()}
        board.set_params(**{ctl.name: new})
        drawn = [k for k, f in board.figures.items() if f.to_json() != before[k]]
        board.set_params(**{ctl.name: default})
        times = []
        for _ in range(repeat):
            for value in (new, default):
                if seeded:
                    board.set_params(seed=next(fresh))  # nothing from the memo
                t = time.perf_counter()
                board.set_params(**{ctl.name: value})
                times.append(time.perf_counter() - t)
        if seeded:
            board.set_params(seed=seed_default)
        assert not board.errors, (cls.__name__, ctl.name, board.errors)
        assert not seeded or board.params()["seed"] == seed_default
        med = statistics.median(times)
        rows.append([cls.__name__, ctl.name, f"{med:.3f}", f"{med / floor:.0f}×",
                     "over" if med > GOAL_S else "", f"{len(drawn)}: " + ", ".join(drawn)])
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2, help=f"moves each way, 1 to {MAX_REPEAT}")
    ap.add_argument("--pages", nargs="*", default=None, help="dashboard class names (default: all)")
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= MAX_REPEAT:
        raise SystemExit(f"--repeat must be in [1, {MAX_REPEAT}]; got {args.repeat}")
    classes = dashboard_classes()
    names = args.pages or list(classes)
    unknown = [n for n in names if n not in classes]
    if unknown:
        raise SystemExit(f"unknown dashboards {unknown}; choose from {sorted(classes)}")
    print(machine_line())
    floor = figure_floor()
    rows = []
    t0 = time.perf_counter()
    for n in names:
        rows += measure(classes[n], args.repeat, floor)
        print(f"  {n} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    print(table(["dashboard", "control", "median s (in-kernel)", "vs floor", f"> {GOAL_S} s", "panels redrawn"],
                rows))
    over = [r for r in rows if r[4]]
    print(f"one-slider floor: {floor * 1000:.1f} ms; {len(rows)} controls, {len(over)} over {GOAL_S} s in the kernel "
          f"alone; slowest {max(float(r[2]) for r in rows):.2f} s")
    print(machine_line("at end"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
