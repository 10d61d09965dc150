"""Checks every paper's experiments share: the dashboard's snippet reproduces its numbers; Dask = serial."""

from __future__ import annotations

import contextlib
import html
import io

import numpy as np

from dpexplore.core import ExperimentResult

#: experiments whose values are wall-clock times: the snippet recomputes them, so only the call is compared
WALL_CLOCK = {"run_times"}


def check_snippet_gives_the_dashboards_numbers(board) -> dict:
    """Run the dashboard's 'reproduce in code' snippet; every experiment it calls gives the panel's result."""
    calls = board.snippet_calls()
    assert calls, "the dashboard recorded no experiment call"
    code = board.experiment_code() + board.reproduce(board.params())
    assert code in html.unescape(board._snippet.value)  # the page shows exactly this code
    out = io.StringIO()
    ns: dict = {}
    with contextlib.redirect_stdout(out):
        exec(code, ns)  # noqa: S102 - our own generated snippet
    printed = out.getvalue()
    for var, panel, label, func, _ in calls:
        got, shown = ns[var], board.results[panel.name][label]
        assert isinstance(got, ExperimentResult) and got.function == shown.function
        assert got.parameters == shown.parameters and got.seed == shown.seed
        assert got.summary().splitlines()[0] in printed
        if func.__name__ in WALL_CLOCK:
            continue
        assert got.same_numbers(shown), f"{var}: the snippet's numbers differ from the dashboard's"
    return ns


def check_dask_equals_serial(func, kwargs, client) -> ExperimentResult:
    """``func(**kwargs)`` on the Dask cluster of ``client`` (joblib's dask backend) equals the serial run."""
    import joblib

    serial = func(**kwargs, n_jobs=None)
    with joblib.parallel_config(backend="dask"):
        on_dask = func(**kwargs, n_jobs=-1)
    assert on_dask.same_numbers(serial)
    assert np.array_equal(on_dask.values, serial.values, equal_nan=True)
    return serial


def measured_ys(fig, name_start: str) -> list[np.ndarray]:
    """y values of the measured traces whose legend name starts with ``name_start``."""
    return [np.asarray(t.y, dtype=float) for t in fig.data if t.name and t.name.startswith(name_start)]
