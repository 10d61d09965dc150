"""Dashboard.experiment: the panel's call is memoised, recorded per panel, and becomes the snippet."""

import contextlib
import html
import io

import plotly.graph_objects as go

from dpexplore.core import ExperimentResult, run_experiment
from dpexplore.ui import Control, Dashboard, Panel

CALLS = []


def toy_trial(x, rng):
    return [x + rng.normal()]


def toy_experiment(*, mu: float, trials: int, rng=None) -> ExperimentResult:
    CALLS.append(mu)
    return run_experiment(toy_experiment, {"mu": mu, "trials": trials}, toy_trial, axis="x", grid=[mu, 2 * mu],
                          series=["y"], trials=trials, rng=rng)


toy_experiment.__module__ = __name__


class ExpDashboard(Dashboard):
    controls = [Control("mu", "μ", "float", 1.0, 0.0, 5.0), Control("seed", "seed", "int", 0, 0, 9),
                Control("mode", "mode", "choice", "a", options=("a", "b"))]
    panels = [Panel("one", "1. One", depends_on=("mu", "seed")), Panel("two", "2. Two", depends_on=("mode",))]

    def figure(self, panel, p):
        if panel == "one":
            r = self.experiment("one", "", toy_experiment, mu=p["mu"], trials=3, rng=p["seed"])
            return go.Figure(go.Scatter(x=list(r.grid), y=r.mean[0]))
        return go.Figure()


def test_experiment_calls_become_the_snippet_and_are_memoised():
    CALLS.clear()
    d = ExpDashboard()
    assert CALLS == [1.0] and list(d.results) == ["one"]
    code = d.experiment_code()
    assert f"from {__name__} import toy_experiment" in code
    assert "r_one = toy_experiment(mu=1.0, trials=3, rng=0)\nprint(r_one.summary())" in code
    assert code in html.unescape(d._snippet.value)
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(code, ns)  # noqa: S102
    assert ns["r_one"].same_numbers(d.results["one"][""]) and "toy_experiment (seed 0" in out.getvalue()
    assert list(d.figures["one"].data[0].y) == list(d.results["one"][""].mean[0])
    d.widgets["mode"].value = "b"  # panel two only: panel one's call stays recorded, nothing recomputed
    assert CALLS == [1.0, 1.0] and "r_one = toy_experiment(mu=1.0" in d._snippet.value  # 2nd: the exec above
    d.widgets["mu"].value = 2.0
    assert CALLS[-1] == 2.0 and "mu=2.0" in d.experiment_code() and "mu=1.0" not in d.experiment_code()
    d.widgets["mu"].value = 1.0  # back: from the dashboard's memo
    assert CALLS[-1] == 2.0
