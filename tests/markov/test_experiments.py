"""Paper 3's experiments: shared trajectories, validation, the dashboard's snippet, Dask = serial."""

import numpy as np
import pytest

from dpexplore.markov import analyze, baseline_kernel, distances, mechanism_kernel
from dpexplore.markov import experiments as X
from tests.experiment_checks import check_dask_equals_serial, check_snippet_gives_the_dashboards_numbers

KW = dict(epsilon=3.0, rho=2.0, T=60)


def test_tail_and_entropy_share_trajectories_and_agree_with_the_exact_chain():
    tail = X.large_error_probability("traffic", grid_size=3, **KW, trials=40, rng=5)
    ent = X.entropy_vs_length("traffic", grid_size=3, **KW, trials=40, rng=5)
    s, m, b = X.example_trajectories("traffic", grid_size=3, **KW, rng=5)
    chain = X.chain_from_spec("traffic", 3)
    d = distances(chain)
    # trial 0 of the tail experiment is the example trajectory pair
    v = np.asarray(tail.grid)
    assert np.array_equal(tail.trial_values("mechanism")[:, 0], [(d[m, s] >= x - 1e-9 * max(1, x)).mean() for x in v])
    assert ent.grid[-1] == 60 and ent.series[2] == "sensitive word"
    # P(e >= 0) = 1; the simulated mean tail is near the exact stationary one (±5 s.e. of the 40 trials)
    assert np.all(tail.values[:, 0, :] == 1.0)
    exact = analyze(chain, mechanism_kernel(chain, epsilon=3.0, rho=2.0, d=d), d)
    base = analyze(chain, baseline_kernel(chain, epsilon=3.0), d)
    j = len(v) // 4
    for series, an in (("mechanism", exact), ("baseline", base)):
        vals = tail.trial_values(series)[j]
        se = max(vals.std(ddof=1) / np.sqrt(vals.size), 1 / (40 * 60))
        # the chain starts from its initial law, not the stationary one: allow that transient on top
        assert abs(vals.mean() - an.tail(v[j])) < 5 * se + 0.1


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"^chain must be one of"):
        X.large_error_probability("moon", **KW, trials=1)
    with pytest.raises(ValueError, match=r"^T must be an integer >= 2 and <= 100000; got 1000000$"):
        X.large_error_probability("credit", epsilon=3.0, rho=2.0, T=10**6, trials=1)
    with pytest.raises(ValueError, match=r"^rho must be a finite number > 0; got 0"):
        X.entropy_vs_length("credit", epsilon=3.0, rho=0, trials=1)
    with pytest.raises(TypeError, match=r"^matrix must be the pasted matrix text"):
        X.entropy_vs_length("paste", **KW, trials=1)


def test_dashboard_snippet_gives_its_numbers():
    from dpexplore.ui.markov import MarkovTrajectoryDashboard

    d = MarkovTrajectoryDashboard(query_string="T=30&trials=3&rho=1.5&v=6")
    ns = check_snippet_gives_the_dashboards_numbers(d)
    assert {"r_tail", "r_entropy"} <= set(ns)


@pytest.mark.slow
def test_sweep_on_a_dask_cluster_equals_serial(dask_client):
    check_dask_equals_serial(X.large_error_probability, dict(chain="credit", **KW, trials=3, rng=1), dask_client)
