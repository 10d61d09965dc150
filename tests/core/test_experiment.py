import numpy as np
import pytest

from dpexplore.core import mean_confidence_band, sweep


def noisy(param, rng):
    return param + rng.normal()


def test_reproducible_and_independent_streams():
    a = sweep(noisy, [0.0, 1.0], trials=20, rng=5)
    b = sweep(noisy, [0.0, 1.0], trials=20, rng=5)
    assert np.array_equal(a.values, b.values)
    assert a.values.shape == (2, 20) and a.trials == 20
    # the same grid value in two positions draws different noise (independent streams)
    c = sweep(noisy, [0.0, 0.0], trials=20, rng=5)
    assert not np.allclose(c.values[0], c.values[1])


def test_parallel_equals_serial():
    a = sweep(noisy, [0.0, 1.0, 2.0], trials=8, rng=1)
    b = sweep(noisy, [0.0, 1.0, 2.0], trials=8, rng=1, n_jobs=2)
    assert np.array_equal(a.values, b.values)


def test_band_coverage():
    # 95% t-intervals for the mean of N(0,1) samples: the cover rate over 400 sweeps is ~0.95;
    # with 400 Bernoulli(0.95) draws, a z = 5 interval is 0.95 ± 0.055.
    res = sweep(noisy, [0.0] * 400, trials=10, rng=2)
    cover = np.mean((res.lower <= 0.0) & (0.0 <= res.upper))
    assert abs(cover - 0.95) < 5 * np.sqrt(0.95 * 0.05 / 400)


def test_vector_outputs_and_nan_trials():
    res = sweep(lambda p, g: [p, 2 * p], [1.0, 2.0], trials=3, rng=0)
    assert res.mean.shape == (2, 2) and np.allclose(res.mean[:, 1], [2.0, 4.0])
    m, lo, hi = mean_confidence_band([[1.0, np.nan], [3.0, np.nan]], axis=0)
    assert m[0] == 2.0 and np.isnan(m[1])


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^trials must be an integer >= 1 and <= 1000000; got 0$"):
        sweep(noisy, [0.0], trials=0)
    with pytest.raises(ValueError, match=r"^grid must contain at least one"):
        sweep(noisy, [], trials=1)
    with pytest.raises(TypeError, match=r"^func must be callable"):
        sweep(3, [0.0], trials=1)


# -- experiment results, bands, the cache ------------------------------------------------------------
import json  # noqa: E402

from scipy import stats  # noqa: E402

import dpexplore  # noqa: E402
import dpexplore.core.experiment as experiment_module  # noqa: E402
from dpexplore.core import (  # noqa: E402
    ExperimentResult,
    experiment_progress,
    proportion_band,
    run_experiment,
    using_cache,
)
from dpexplore.core.experiment import check_grid, check_series, resolve_seed  # noqa: E402


def two_series(x, rng):
    """One trial of a two-series experiment: a fraction in [0, 1] and a Gaussian."""
    return [rng.binomial(20, min(x, 1.0)) / 20, x + rng.normal()]


def demo(x_grid=(0.1, 0.5), trials=6, rng=3, **kw):
    return run_experiment("tests.demo", {"x": list(x_grid), "trials": trials}, two_series, axis="x",
                          grid=list(x_grid), series=["fraction", "gauss"], trials=trials, rng=rng, **kw)


def test_result_shapes_seed_version_and_band_range():
    r = demo(value_range=(0, 1))
    assert r.values.shape == (2, 2, 6) and r.mean.shape == (2, 2) and r.trials == 6
    assert r.seed == 3 and r.version == dpexplore.__version__ and r.function == "tests.demo"
    assert r.grid == (0.1, 0.5) and r.series == ("fraction", "gauss")
    assert np.all(r.lower >= 0) and np.all(r.upper <= 1)
    # the band is the t-band of sweep intersected with the range: same mean, clipped bounds
    m, lo, hi = mean_confidence_band(r.values, axis=-1)
    assert np.array_equal(r.mean, m) and np.array_equal(r.lower, np.clip(lo, 0, 1))
    assert not r.values.flags.writeable
    # same numbers as the plain sweep of the same trial function and seed
    s = sweep(two_series, [0.1, 0.5], trials=6, rng=3)
    assert np.array_equal(np.moveaxis(s.values, 2, 0), r.values)
    mean, lo, hi = r.curve("gauss")
    assert np.array_equal(mean, r.mean[1]) and r.trial_values("fraction").shape == (2, 6)
    with pytest.raises(KeyError, match="no series 'x'"):
        r.curve("x")


def test_seed_resolution():
    assert resolve_seed(5) == 5
    a, b = resolve_seed(None), resolve_seed(None)
    assert a != b  # fresh entropy, recorded
    g = np.random.default_rng(1)
    s = resolve_seed(g)
    assert s == int(np.random.default_rng(1).integers(0, 2**63 - 1))
    # the recorded seed recomputes the numbers, whatever rng was given
    r = demo(rng=np.random.default_rng(1))
    assert np.array_equal(demo(rng=r.seed).values, r.values)
    with pytest.raises(ValueError, match="integer seed >= 0; got -1"):
        resolve_seed(-1)


def test_dict_and_csv_round_trip(tmp_path):
    r = demo(value_range=(0, 1), extras=lambda: {"k_hat": 3, "note": "x"})
    vals = np.array(r.values)
    vals[0, 1, 2] = np.nan
    r = ExperimentResult.from_values(function=r.function, parameters=r.parameters, seed=r.seed, axis="n",
                                     grid=[100, 200], series=r.series, values=vals, value_range=(0, 1),
                                     extras=r.extras)
    d = r.to_dict()
    json.dumps(d)  # JSON-able
    back = ExperimentResult.from_dict(json.loads(json.dumps(d)))
    assert back.same_numbers(r) and back.grid == (100, 200) and isinstance(back.grid[0], int)
    path = tmp_path / "r.csv"
    text = r.to_csv(path)
    # each header line is one CSV cell (quoted when it holds a comma or a quote): a spreadsheet shows it in A1..A11
    assert text.startswith('"# function: ""tests.demo"""\n') and "\n# seed: 3\n" in text and '"# version:' in text
    for src in (path, str(path), text, open(path)):
        got = ExperimentResult.from_csv(src)
        assert got.same_numbers(r)
        assert np.array_equal(got.values, r.values, equal_nan=True)
        assert np.array_equal(got.lower, r.lower, equal_nan=True)
        assert got.extras == {"k_hat": 3, "note": "x"}
    with pytest.raises(ValueError, match="not an experiment result CSV"):
        ExperimentResult.from_csv("a,b\n1,2\n")
    with pytest.raises(ValueError, match="missing key"):
        ExperimentResult.from_dict({"function": "f"})


def test_bad_result_inputs():
    with pytest.raises(ValueError, match=r"values must have shape \(len\(series\), len\(grid\), trials\)"):
        ExperimentResult.from_values(function="f", parameters={}, seed=0, axis="x", grid=[1], series=["a", "b"],
                                     values=[[[1.0]]])
    with pytest.raises(ValueError, match="band must be one of"):
        ExperimentResult.from_values(function="f", parameters={}, seed=0, axis="x", grid=[1], series=["a"],
                                     values=[[[1.0]]], band="bootstrap")
    with pytest.raises(ValueError, match="every trial's value must be 0 or 1"):
        ExperimentResult.from_values(function="f", parameters={}, seed=0, axis="x", grid=[1], series=["a"],
                                     values=[[[0.5]]], band="wilson")
    with pytest.raises(TypeError, match="experiment parameters must be"):
        run_experiment("f", {"a": object()}, two_series, axis="x", grid=[0.1], series=["a", "b"], trials=1)
    with pytest.raises(ValueError, match="trial must return 3 value"):
        run_experiment("f", {}, two_series, axis="x", grid=[0.1], series=["a", "b", "c"], trials=1, rng=0)
    with pytest.raises(ValueError, match=r"^epsilons\[1\] must be a finite number > 0; got -1"):
        check_grid([1, -1], "epsilons", low=0, low_open=True)
    with pytest.raises(ValueError, match=r"^mechanisms entry must be one of \['a', 'b'\]; got 'z'"):
        check_series(["a", "z"], "mechanisms", ("a", "b"))


def test_clopper_pearson_covers_exactly_and_wilson_stays_in_range():
    # Exact coverage: sum over every outcome x of Binomial(n, p) of P(x) · [p ∈ CI(x)]. Clopper–Pearson's
    # guarantee is coverage ≥ 95% at every p (a theorem, no sampling); Wilson's is only approximate.
    for n in (3, 10, 40):
        x = np.arange(n + 1)
        _, lo_cp, hi_cp = proportion_band(x, n, method="clopper-pearson")
        _, lo_w, hi_w = proportion_band(x, n, method="wilson")
        assert np.all((lo_w >= 0) & (hi_w <= 1) & (lo_w <= x / n) & (x / n <= hi_w))
        for p in np.linspace(0.01, 0.99, 49):
            pmf = stats.binom.pmf(x, n, p)
            assert pmf[(lo_cp <= p) & (p <= hi_cp)].sum() >= 0.95 - 1e-12
    # 0 of 3 trials: the t-band collapses to [0, 0]; the proportion bands do not
    r = ExperimentResult.from_values(function="f", parameters={}, seed=0, axis="x", grid=[1], series=["a"],
                                     values=[[[0.0, 0.0, 0.0]]], band="wilson")
    assert r.lower[0, 0] == 0.0 and 0.4 < r.upper[0, 0] < 0.6


def test_parallel_and_progress_give_the_same_numbers():
    seen = []
    with experiment_progress(lambda done, total: seen.append((done, total))):
        a = demo()
        b = demo(n_jobs=2)
    assert np.array_equal(a.values, b.values)
    assert seen[:12] == [(i, 12) for i in range(1, 13)] and seen[12:] == [(i, 12) for i in range(1, 13)]


def test_dask_local_cluster_same_numbers():
    distributed = pytest.importorskip("distributed")
    import joblib

    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cl, \
            distributed.Client(cl), joblib.parallel_config(backend="dask"):
        on_dask = demo(n_jobs=-1)
    assert np.array_equal(on_dask.values, demo().values)


def test_cache_hit_and_version_invalidation(tmp_path, monkeypatch):
    calls = []

    def counted(x, rng):
        calls.append(x)
        return two_series(x, rng)

    def run(**kw):
        return run_experiment("tests.counted", {"x": 1}, counted, axis="x", grid=[0.2, 0.4], series=["f", "g"],
                              trials=3, rng=0, **kw)

    with using_cache(None):
        run()
        run()
    assert len(calls) == 12  # off: recomputed
    with using_cache(tmp_path) as cache:
        first = run()
        second = run()
        assert len(calls) == 18 and not first.cached and second.cached
        assert second.same_numbers(first) and cache.hits == 1 and cache.writes == 1
        run(cache=False)  # e.g. wall-clock panels
        assert len(calls) == 24
        monkeypatch.setattr(experiment_module, "__version__", "99.0")  # the version the cache keys use
        third = run()
        assert len(calls) == 30 and not third.cached and third.version == "99.0"
        # a damaged entry is recomputed and overwritten, never an error
        for f in tmp_path.glob("*.json"):
            f.write_text("{not json")
        assert not run().cached and run().cached
    # environment variable: every process that inherits it shares the directory
    monkeypatch.setenv("DPEXPLORE_CACHE_DIR", str(tmp_path))
    assert run().cached


# -- maxima on every route (issue 30 item 4) ------------------------------------------------------------
def test_run_experiment_caps_grid_times_trials_on_both_routes():
    from dpexplore.core.experiment import MAX_RESULT_VALUES, MAX_RUNS, check_runs

    calls = []

    def never(*args):
        calls.append(args)
        return [0.0]

    for per in ("point", "trial"):
        with pytest.raises(ValueError, match=r"grid size × trials must be <= 1,000,000 runs; got 1001 × 1000"):
            run_experiment("f", {}, never, axis="x", grid=list(range(1001)), series=["s"], trials=1000, per=per,
                           rng=0)
        with pytest.raises(ValueError, match=r"trials must be an integer >= 1 and <= 1000000"):
            run_experiment("f", {}, never, axis="x", grid=[1], series=["s"], trials=10**7, per=per, rng=0)
        with pytest.raises(ValueError, match=r"len\(series\)\*len\(grid\)\*trials must be <= 4,000,000"):
            run_experiment("f", {}, never, axis="x", grid=list(range(1000)), series=list("abcde"), trials=1000,
                           per=per, rng=0)
    assert calls == [] and MAX_RUNS == 1_000_000 and MAX_RESULT_VALUES == 4_000_000
    assert check_runs(10, 5) == 5


@pytest.mark.parametrize("call", [
    "spectral.misclassification_vs_epsilon(100, 2, 0.5, 0.05, epsilons=[float(e) for e in range(1, 41)], "
    "trials=5000, rng=0)",
    "spectral.subspace_error_vs_n(k=2, p=0.5, q=0.05, epsilon=1.0, ns=list(range(10, 60)), trials=5000, rng=0)",
    "spectral.spectrum(100, 6, 0.5, 0.05, epsilon=1.0, trials=10000, rng=0)",
    "pca.error_vs_epsilon(100, 10, kappa=0.5, coherence=0.5, epsilons=[float(e) for e in range(1, 41)], "
    "trials=5000, rng=0)",
    "pca.thresholds_per_iteration(200, 50, kappa=0.5, coherence=0.5, epsilon=1.0, trials=10000, rng=0)",
    "markov.large_error_probability('credit', epsilon=1.0, rho=1.0, v_grid=[i / 10 for i in range(1000)], "
    "trials=1000, rng=0)",
    "markov.entropy_vs_length('credit', epsilon=1.0, rho=1.0, T=1000, trials=10000, rng=0)",
    "markov.large_error_probability('credit', epsilon=1.0, rho=1.0, T=100000, trials=1000, rng=0)",
    "erm.risk_vs_radius(200, 3, epsilon=1.0, delta=1e-5, radii=[float(r) for r in range(1, 41)], trials=1000, rng=0)",
])
def test_every_experiment_caps_its_runs_before_working(call):
    import importlib
    import time

    paper = call.split(".")[0]
    mod = importlib.import_module(f"dpexplore.{paper}.experiments")
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"must be <= [\d,]+ (runs|simulated steps)"):
        eval(call.split(".", 1)[1], vars(mod))  # noqa: S307 - the test's own literal calls
    assert time.perf_counter() - t0 < 5  # refused up front, not after running
    assert mod.MAX_RUNS <= 100_000


def test_bands_equal_the_scipy_stats_quantiles():
    """The bands use scipy.special (stdtrit, ndtri, betaincinv) so a kernel need not import scipy.stats;
    they equal the scipy.stats quantiles exactly (the same special functions underneath)."""
    rng = np.random.default_rng(27)
    for conf in (0.5, 0.9, 0.95, 0.999):
        for n in (2, 3, 7, 50, 1000):
            values = rng.normal(size=(4, n))
            m, lo, hi = mean_confidence_band(values, conf, axis=1)
            sd = values.std(axis=1, ddof=1)
            half = stats.t.ppf(0.5 + conf / 2, n - 1) * sd / np.sqrt(n)
            np.testing.assert_allclose(hi - m, half, rtol=1e-12, atol=0)
        trials = np.array([1, 5, 10, 40, 400])
        succ = np.minimum(rng.integers(0, 400, size=5), trials)
        succ[0] = 0
        succ[1] = 5
        alpha = 1 - conf
        _, lo, hi = proportion_band(succ, trials, conf, method="clopper-pearson")
        ref_lo = np.where(succ > 0, stats.beta.ppf(alpha / 2, np.maximum(succ, 1e-300), trials - succ + 1), 0.0)
        ref_hi = np.where(succ < trials, stats.beta.ppf(1 - alpha / 2, succ + 1,
                                                         np.maximum(trials - succ, 1e-300)), 1.0)
        np.testing.assert_array_equal(lo, ref_lo)
        np.testing.assert_array_equal(hi, ref_hi)
        z = stats.norm.ppf(1 - alpha / 2)
        _, lo, hi = proportion_band(succ, trials, conf, method="wilson")
        p = succ / trials
        centre = (p + z**2 / (2 * trials)) / (1 + z**2 / trials)
        half = z * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / (1 + z**2 / trials)
        inner = (succ > 0) & (succ < trials)
        np.testing.assert_array_equal(lo[inner], np.clip(centre - half, 0, 1)[inner])
        np.testing.assert_array_equal(hi[inner], np.clip(centre + half, 0, 1)[inner])


@pytest.mark.parametrize("function, kind", [(123, TypeError), (None, TypeError), (object(), TypeError),
                                            ("", ValueError)])
def test_run_experiment_names_a_bad_function_argument(function, kind):
    """Issue 39: run_experiment(function=123) raised AttributeError ('int' has no __module__)."""
    from dpexplore.core.experiment import run_experiment

    with pytest.raises(kind, match="function must be"):
        run_experiment(function, {}, lambda x, g: [x], axis="x", grid=[0.0], series=["s"], trials=2, rng=0,
                       cache=False)


@pytest.mark.parametrize("header", [
    '# parameters: {"mu": 1.0, "mu": 2.0}',  # a repeated key: Python's json keeps the last one silently
    '"# parameters: {""mu"": 1.0}',  # an unclosed quote: the csv module read the rest of the line as the cell
])
def test_from_csv_refuses_a_broken_parameters_header(header):
    from dpexplore.core.experiment import ExperimentResult, run_experiment

    r = run_experiment("demo", {"mu": 1.0}, lambda x, g: [x + g.normal()], axis="x", grid=[0.0, 1.0],
                       series=["noisy"], trials=2, rng=0, cache=False)
    lines = r.to_csv().splitlines()
    assert lines[1].startswith('"# parameters:')
    with pytest.raises(ValueError, match="line 2"):
        ExperimentResult.from_csv("\n".join([lines[0], header, *lines[2:]]) + "\n")
