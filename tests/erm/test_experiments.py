"""Paper 5's experiments: validation, the dashboard's snippet, Dask = serial."""

import numpy as np
import pytest

from dpexplore.erm import experiments as X
from tests.experiment_checks import check_dask_equals_serial, check_snippet_gives_the_dashboards_numbers

SMALL = dict(n=60, d=8, epsilon=0.5, delta=0.01, iterations=200)


def test_risk_vs_radius_result():
    r = X.risk_vs_radius(**SMALL, radii=[0.1, 100.0], trials=2, rng=0)
    assert r.values.shape == (4, 2, 2) and np.all(r.values >= 0) and np.all(r.lower >= 0)
    assert len(r.extras["nonprivate_risk"]) == 2 and r.extras["anchor_risk"] > 0
    # LOP's noise is calibrated to the largest gradient over the box: its risk grows with κ (≈ κ² once the noise
    # pins θ to the box corners), while QOP's noiseless θ̂ tracks the anchor's own risk
    assert r.curve("LOP")[0][1] > 1000 * r.curve("LOP")[0][0]
    assert abs(r.curve("QOP θ̂ (no output noise)")[0][1] - r.extras["anchor_risk"]) < 0.5 * r.extras["anchor_risk"]
    # the private QOP pays for η with output noise: never better than its own noiseless θ̂ on average here
    assert np.all(r.curve("QOP")[0] >= r.curve("QOP θ̂ (no output noise)")[0])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"^d must be an integer >= 1 and <= 1000; got 5000$"):
        X.risk_vs_radius(60, 5000, epsilon=0.5, delta=0.01, trials=1)
    with pytest.raises(ValueError, match=r"^n\*d must be <= 10,000,000 \(memory\); got n = 100000, d = 1000$"):
        X.risk_vs_radius(100_000, 1000, epsilon=0.5, delta=0.01, trials=1)
    with pytest.raises(ValueError, match=r"^smoothness must be one of"):
        X.risk_vs_radius(**{**SMALL, "iterations": 10}, smoothness="loose", trials=1)
    with pytest.raises(ValueError, match=r"^radii\[0\] must be a finite number > 0; got 0"):
        X.risk_vs_radius(**SMALL, radii=[0], trials=1)
    with pytest.raises(ValueError, match=r"^trials must be an integer >= 1 and <= 1000; got 5000$"):
        X.risk_vs_anchor_error(60, 8, kappa=1.0, epsilon=0.5, delta=0.01, trials=5000)


@pytest.mark.slow
def test_dashboard_snippet_gives_its_numbers():
    from dpexplore.ui.erm import QuadraticPerturbationDashboard

    b = QuadraticPerturbationDashboard(query_string="n=80&d=10&trials=2&iterations=200")
    ns = check_snippet_gives_the_dashboards_numbers(b)
    assert {"r_risk", "r_advantage_at_kappa", "r_advantage_eta", "r_advantage_weight"} <= set(ns)


@pytest.mark.slow
def test_sweep_on_a_dask_cluster_equals_serial(dask_client):
    check_dask_equals_serial(X.risk_vs_radius, dict(**SMALL, radii=[1.0, 10.0], trials=2, rng=2), dask_client)
