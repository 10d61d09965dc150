"""Paper 2's experiments: validation, the dashboard's snippet, Dask = serial."""

import numpy as np
import pytest

from dpexplore.pca import experiments as X
from tests.experiment_checks import check_dask_equals_serial, check_snippet_gives_the_dashboards_numbers, measured_ys


def test_error_vs_epsilon_shapes_range_and_method_independence():
    r = X.error_vs_epsilon(300, 20, kappa=0.8, coherence=0.1, epsilons=[1.0, 100.0], trials=2, rng=1)
    assert r.series == X.METHODS and r.values.shape == (4, 2, 2)
    assert np.all((r.values >= 0) & (r.values <= 1)) and np.all((r.lower >= 0) & (r.upper <= 1))
    assert len(r.extras["sigma1"]) == 2 and r.parameters["coherence"] == 0.1
    only = X.error_vs_epsilon(300, 20, kappa=0.8, coherence=0.1, epsilons=[1.0, 100.0], methods=["gauss"], trials=2,
                              rng=1)
    assert np.array_equal(only.trial_values("gauss"), r.trial_values("gauss"))
    # the non-private power iteration ignores ε: equal at both grid points of a trial
    assert np.array_equal(r.trial_values("nonprivate")[0], r.trial_values("nonprivate")[1])
    # coherence below 1/√n is raised to it (as the dashboard does)
    low = X.error_vs_epsilon(100, 20, kappa=0.8, coherence=0.01, epsilons=[1.0], methods=["gauss"], trials=1, rng=0)
    assert low.parameters["coherence"] == 0.1


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"^d must be an integer >= 2 and <= 4000; got 5000$"):
        X.error_vs_epsilon(10, 5000, kappa=0.5, coherence=0.1, trials=1)
    with pytest.raises(ValueError, match=r"^n\*d must be <= 50,000,000"):
        X.error_vs_epsilon(100_000, 1000, kappa=0.5, coherence=0.1, trials=1)
    with pytest.raises(ValueError, match=r"^kappa must be a finite number > 0 and <= 1; got 2"):
        X.error_vs_n_iid(10, kappa=2, epsilon=1.0, trials=1)
    with pytest.raises(ValueError, match=r"^methods entry must be one of"):
        X.error_vs_coherence(100, 10, kappa=0.5, epsilon=1.0, methods=["svd"], trials=1)


def test_thresholds_per_iteration():
    r = X.thresholds_per_iteration(500, 30, kappa=0.8, coherence=0.05, epsilon=10.0, trials=2, rng=0)
    th, mx, rows = (r.trial_values(s) for s in r.series)
    assert th.shape[0] == len(r.grid) and np.all(th > 0) and np.all(rows >= 0)
    assert len(r.extras["m0"]) == 2


@pytest.mark.slow
def test_dashboard_snippet_gives_its_numbers():
    from dpexplore.ui.pca import PrivatePCADashboard

    b = PrivatePCADashboard(query_string="n=200&d=30&trials=2&epsilon=10")
    ns = check_snippet_gives_the_dashboards_numbers(b)
    drawn = measured_ys(b.figures["vs_eps"], "adaptive power (Alg. 1) (measured")[0]
    assert np.array_equal(drawn, ns["r_vs_eps"].curve("adaptive")[0])


@pytest.mark.slow
def test_sweep_on_a_dask_cluster_equals_serial(dask_client):
    check_dask_equals_serial(X.error_vs_coherence, dict(n=200, d=20, kappa=0.8, epsilon=10.0, coherences=[0.1, 0.5],
                                                        trials=2, rng=3), dask_client)
    check_dask_equals_serial(X.error_vs_epsilon, dict(n=200, d=20, kappa=0.8, coherence=0.1, epsilons=[1.0, 10.0],
                                                      trials=2, rng=3), dask_client)
