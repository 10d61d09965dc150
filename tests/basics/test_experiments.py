"""The intro track's experiments: registered for the CLI, Dask = serial, snippets reproduce the dashboards."""

import subprocess
import sys

import numpy as np
import pytest

from dpexplore.basics import experiments as X
from dpexplore.basics import theory as T
from dpexplore.experiments import list_experiments, main, resolve
from tests.experiment_checks import check_dask_equals_serial, check_snippet_gives_the_dashboards_numbers

NAMES = ["attacker_success", "composition_audit", "error_vs_epsilon", "privacy_loss_tail", "release_histogram",
         "rr_estimate_vs_n"]


def test_every_experiment_is_registered():
    listed = list_experiments()
    for name in NAMES:
        assert f"basics.{name}" in listed
        assert resolve(f"basics.{name}") is getattr(X, name)


def test_cli_runs_a_basics_experiment(tmp_path, capsys):
    out = tmp_path / "err.csv"
    assert main(["basics.error_vs_epsilon", "--n", "100", "--epsilons", "0.5,2", "--trials", "5", "--seed", "1",
                 "--out", str(out), "--no-progress"]) == 0
    from dpexplore.core import ExperimentResult

    back = ExperimentResult.from_csv(out)
    assert back.same_numbers(X.error_vs_epsilon(100, epsilons=[0.5, 2.0], trials=5, rng=1))
    assert main(["basics.error_vs_epsilon", "--n", "-3", "--no-progress"]) == 2
    assert "n must be an integer" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_subprocess(repo_root):
    env = {"PYTHONPATH": repo_root, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "dpexplore.experiments", "basics.attacker_success", "--mechanism",
                           "rr", "--epsilons", "1", "--rounds", "100", "--trials", "2", "--seed", "0",
                           "--no-progress"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "attacker_success" in proc.stdout


@pytest.mark.slow
def test_sweep_on_a_dask_cluster_equals_serial(dask_client):
    check_dask_equals_serial(X.error_vs_epsilon, dict(n=100, epsilons=[0.5, 2.0], trials=3, rng=2), dask_client)
    check_dask_equals_serial(X.attacker_success, dict(mechanism="laplace", epsilons=[1.0], rounds=50, trials=3,
                                                      rng=2), dask_client)
    check_dask_equals_serial(X.composition_audit, dict(mechanism="gaussian", epsilon=1.0, ks=[1, 5], runs=400,
                                                       rng=2), dask_client)


def test_release_histogram_matches_the_exact_law():
    for mech in ("laplace", "gaussian", "rr"):
        runs = 50_000
        r = X.release_histogram(mech, epsilon=1.0, n=100, runs=runs, rng=4)
        x = np.asarray(r.grid)
        pa, pb = T.output_law(mech, x if mech != "rr" else np.round(x), count=X.true_count(100), n=100,
                              epsilon=1.0)
        if mech == "rr":  # bins of one count each at n = 100
            assert np.allclose(np.diff(x), 1.0)
        width = float(np.diff(x).mean())
        for k, exact in enumerate((pa, pb)):
            got = r.values[k, :, 0]
            # per-bin counts: binomial(runs, p·width); 5 sigma, plus the curvature within a bin (Laplace peak)
            p = exact * (width if mech != "rr" else 1.0)
            tol = 5 * np.sqrt(p * (1 - p) / runs) / (width if mech != "rr" else 1.0) + 0.02 * exact.max()
            assert np.all(np.abs(got - exact) <= tol), (mech, k, np.max(np.abs(got - exact) - tol))


def test_error_vs_epsilon_matches_its_closed_forms():
    r = X.error_vs_epsilon(200, epsilons=[0.5, 2.0], trials=2000, rng=6)
    for k, mech in enumerate(r.series):
        for j, e in enumerate(r.grid):
            want, _ = T.expected_abs_error(mech, epsilon=e, n=200)
            sd = float(np.std(r.values[k, j]))
            assert abs(r.mean[k, j] - want) < 5 * sd / np.sqrt(2000) + (0.02 * want if mech == "rr" else 0), \
                (mech, e)


def test_composition_audit_stays_below_the_truth_and_its_ceiling():
    r = X.composition_audit("gaussian", epsilon=1.0, ks=[1, 10, 100], runs=20_000, rng=0)
    for j, k in enumerate(r.grid):
        assert r.values[0, j, 0] <= T.composed_epsilon("gaussian", "exact", epsilon=1.0, delta=1e-5, k=int(k))
    # a 20 000-run audit cannot certify more than ln(10 000 / 3.69) ≈ 7.9 (the guide says "about 8")
    from dpexplore.core.audit import clopper_pearson_upper

    ceiling = np.log(1 / clopper_pearson_upper(0, 10_000, 0.025))
    assert 7.8 < ceiling < 8.0
    lap = X.composition_audit("laplace", epsilon=1.0, ks=[100], runs=20_000, rng=0)
    assert lap.values[0, 0, 0] <= ceiling + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("cls", ["basics.CountingQueryDashboard", "attacker.AttackerDashboard",
                                 "composition.CompositionDashboard"])
def test_dashboard_snippet_gives_its_numbers(cls):
    import importlib

    mod, name = cls.split(".")
    board = getattr(importlib.import_module(f"dpexplore.ui.{mod}"), name)(query_string="", render=False,
                                                                          background=False)
    check_snippet_gives_the_dashboards_numbers(board)
    ns: dict = {}
    exec(board.reproduce(board.params()), ns)  # noqa: S102 - the non-experiment part of the snippet runs too
