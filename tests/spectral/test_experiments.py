"""Paper 1's experiments: validation, independence of streams, the dashboard's snippet, Dask = serial."""

import numpy as np
import pytest

from dpexplore.spectral import experiments as X
from tests.experiment_checks import check_dask_equals_serial, check_snippet_gives_the_dashboards_numbers

SMALL = dict(n=100, k=2, p=0.5, q=0.05)


def test_misclassification_result_and_mechanism_independence():
    r = X.misclassification_vs_epsilon(**SMALL, epsilons=[1.0, 8.0], trials=3, rng=4)
    assert r.series == X.MECHANISM_ORDER and r.values.shape == (3, 2, 3) and r.seed == 4
    assert np.all((r.values >= 0) & (r.values <= 1)) and np.all((r.lower >= 0) & (r.upper <= 1))
    assert r.parameters["accountant"] == "none"
    assert r.function == "dpexplore.spectral.experiments.misclassification_vs_epsilon"
    # a mechanism's numbers do not depend on which others are measured (own child stream, same graph)
    only = X.misclassification_vs_epsilon(**SMALL, epsilons=[1.0, 8.0], mechanisms=["noisy_power"], trials=3, rng=4)
    assert np.array_equal(only.trial_values("noisy_power"), r.trial_values("noisy_power"))
    # at ε = 8 on a well separated SBM every private method clusters almost perfectly (≤ 20% wrong)
    assert np.all(r.mean[:, 1] < 0.2)


def test_bad_arguments_name_the_parameter():
    with pytest.raises(ValueError, match=r"^q must be < p"):
        X.misclassification_vs_epsilon(100, 2, 0.1, 0.2, trials=1)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 4 and <= 10000; got 20000$"):
        X.misclassification_vs_epsilon(20000, 2, 0.3, 0.1, trials=1)
    with pytest.raises(ValueError, match=r"^trials must be an integer >= 1 and <= 10000; got 0$"):
        X.misclassification_vs_epsilon(**SMALL, trials=0)
    with pytest.raises(ValueError, match=r"^mechanisms entry must be one of"):
        X.misclassification_vs_epsilon(**SMALL, mechanisms=["laplace"], trials=1)
    with pytest.raises(ValueError, match=r"^accountant must be one of"):
        X.subspace_error_vs_n(2, 0.5, 0.1, epsilon=1.0, accountant="magic", trials=1)
    with pytest.raises(ValueError, match=r"^epsilons\[0\] must be a finite number > 0; got -1"):
        X.misclassification_vs_epsilon(**SMALL, epsilons=[-1], trials=1)


def test_spectrum_and_timings():
    r = X.spectrum(200, 2, 0.5, 0.05, epsilon=4.0, rng=0)
    assert r.trials == 1 and r.extras["k_hat"] == (2,)  # a clear 2-block graph at ε = 4: k̂ = k
    true = r.trial_values("true")[:, 0]
    assert np.all(np.diff(true) <= 1e-9)  # descending eigenvalues
    t = X.run_times(100, 2, 0.5, 0.05, epsilon=1.0, rng=0)
    assert np.all(t.values > 0) and "never cached" in t.extras["note"]


@pytest.mark.slow
def test_dashboard_snippet_gives_its_numbers():
    from dpexplore.ui.spectral import SpectralClusteringDashboard

    d = SpectralClusteringDashboard(query_string="n=120&trials=2&k=2&p=0.4&q=0.05")
    ns = check_snippet_gives_the_dashboards_numbers(d)
    # the figure draws exactly the result's mean
    drawn = [np.asarray(t.y, dtype=float) for t in d.figures["vs_eps"].data
             if t.name and t.name.startswith("Matrix shuffling") and "(measured" in t.name][0]
    assert np.array_equal(drawn, ns["r_vs_eps"].curve("shuffle")[0])


@pytest.mark.slow
def test_sweep_on_a_dask_cluster_equals_serial(dask_client):
    check_dask_equals_serial(X.misclassification_vs_epsilon,
                             dict(**SMALL, epsilons=[1.0, 4.0], mechanisms=["shuffle", "analyze_gauss"], trials=2,
                                  rng=7), dask_client)


@pytest.mark.slow
def test_a_second_kernel_gets_the_default_view_from_the_shared_cache(tmp_path, repo_root):
    import json
    import os
    import subprocess
    import sys

    script = (
        "import json, time\n"
        "from dpexplore.ui.spectral import SpectralClusteringDashboard\n"
        "t = time.perf_counter()\n"
        "d = SpectralClusteringDashboard(query_string='n=120&trials=2&k=2&p=0.4&q=0.05')\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'errors': d.errors,\n"
        "                  'cached': {f'{p}.{l}': r.cached for p, v in d.results.items() for l, r in v.items()},\n"
        "                  'vs_eps': d.results['vs_eps'][''].to_dict()}))\n"
    )
    env = {**os.environ, "PYTHONPATH": repo_root, "DPEXPLORE_CACHE_DIR": str(tmp_path / "cache")}
    first, second = (json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                               check=True, timeout=300).stdout) for _ in range(2))
    assert not first["errors"] and not any(first["cached"].values())
    # every experiment of the view comes from the cache, except the wall-clock timings (never cached)
    assert second["cached"] == {k: k != "amplification.times" for k in first["cached"]}
    assert second["vs_eps"] == first["vs_eps"]
