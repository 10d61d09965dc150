"""The private statistics against their closed forms (fixed seeds; tolerances from the sample size).

Tolerances are K = 4 standard errors of the Monte-Carlo mean (a false failure has probability < 1e-4 per
check for a normal mean); the seeds are fixed, so a run is deterministic.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core.gaussian import gaussian_sigma
from dpexplore.core.risk import posterior_bound
from dpexplore.statistics import (
    bound_contributions,
    epsilon_for_accuracy,
    group_privacy,
    private_count,
    private_histogram,
    private_mean,
    private_quantile,
    private_sum,
    quantile_law,
)
from dpexplore.statistics.mechanisms import geometric_noise, noise_sd
from dpexplore.statistics.theory import expected_abs_error, mean_error_terms, postprocessing_bias

K = 4.0
M = 20_000


def _within(sample, expected, k=K):
    se = np.std(sample, ddof=1) / math.sqrt(len(sample))
    assert abs(np.mean(sample) - expected) <= k * se, (np.mean(sample), expected, se)


@pytest.mark.parametrize("noise,delta", [("laplace", 0.0), ("gaussian", 1e-5), ("geometric", 0.0)])
@pytest.mark.parametrize("c", [1, 3])
def test_count_error_law(noise, delta, c):
    g = np.random.default_rng(1)
    x = np.zeros(50)
    errs = np.array([private_count(x, epsilon=0.7, delta=delta, noise=noise, rows_per_person=c, rng=g).value - 50
                     for _ in range(4000)])
    _within(np.abs(errs), expected_abs_error(noise, epsilon=0.7, delta=delta, sensitivity=c))
    _within(errs, 0.0)
    r = private_count(x, epsilon=0.7, delta=delta, noise=noise, rows_per_person=c, rng=0)
    assert r.sensitivity == c and r.epsilon == 0.7 and r.delta == delta
    assert r.noise_sd == pytest.approx(noise_sd(noise, epsilon=0.7, delta=delta, sensitivity=c))


def test_laplace_mean_abs_error_is_delta_over_epsilon():
    assert expected_abs_error("laplace", epsilon=0.25, sensitivity=2.0) == 8.0


def test_geometric_law_exact():
    eps = 0.8
    k = geometric_noise(M, epsilon=eps, rng=0)
    a = math.exp(-eps)
    support = np.arange(-8, 9)
    pmf = (1 - a) / (1 + a) * a ** np.abs(support)
    obs = np.array([np.sum(k == s) for s in support] + [np.sum(np.abs(k) > 8)])
    exp = np.concatenate([pmf, [1 - pmf.sum()]]) * M
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    assert np.var(k) == pytest.approx(noise_sd("geometric", epsilon=eps) ** 2, rel=0.05)


def test_gaussian_mechanism_uses_analytic_sigma():
    r = private_count(np.zeros(3), epsilon=1.0, delta=1e-5, noise="gaussian", rows_per_person=2, rng=0)
    assert r.noise_scale == pytest.approx(gaussian_sigma(1.0, 1e-5, 2.0))


def test_histogram_cells_and_clipping():
    x = np.array([-3.0, 0.1, 0.2, 0.6, 0.9, 7.0])
    g = np.random.default_rng(2)
    raws = np.array([private_histogram(x, bins=2, lower=0, upper=1, epsilon=0.5, rng=g).raw_counts
                     for _ in range(4000)])
    h = private_histogram(x, bins=2, lower=0, upper=1, epsilon=0.5, rng=0)
    assert h.clipped == 2
    for j, true in enumerate([3.0, 3.0]):
        _within(raws[:, j], true)
        _within((raws[:, j] - true) ** 2, 2 * (1 / 0.5) ** 2)  # Laplace variance 2b², b = c/ε
    e = private_histogram(x, bins=[0.0, 0.5, 2.0], epsilon=1.0, rng=0)
    assert e.edges.tolist() == [0.0, 0.5, 2.0]


@pytest.mark.slow
@pytest.mark.parametrize("noise,delta", [("laplace", 0.0), ("gaussian", 1e-3), ("geometric", 0.0)])
@pytest.mark.parametrize("steps", [("nonnegative",), ("round", "nonnegative")])
def test_postprocessing_bias_matches_simulation(noise, delta, steps):
    counts = np.array([0.0, 1.0, 3.0])
    g = np.random.default_rng(3)
    outs = np.array([private_histogram(np.repeat([0.5, 1.5, 2.5], counts.astype(int)), bins=3, lower=0, upper=3,
                                       epsilon=0.6, delta=delta, noise=noise, postprocess=steps, rng=g).counts
                     for _ in range(2500)])
    bias = postprocessing_bias(counts, noise=noise, epsilon=0.6, delta=delta, steps=steps)
    total = sum(bias[s] for s in steps)
    for j in range(3):
        _within(outs[:, j] - counts[j], total[j])
    if "round" in steps:
        assert np.all(bias["round"] == 0)
    assert np.all(bias["nonnegative"] > 0)  # clamping at 0 always biases upwards


def test_normalise_bias_reported_with_its_se():
    b = postprocessing_bias([0.0, 2.0, 20.0], noise="laplace", epsilon=0.5, steps=("nonnegative", "normalise"),
                            draws=2000)
    assert b["normalise"].shape == (3,) and np.all(b["normalise_se"] > 0)
    assert b["normalise"][0] > 4 * b["normalise_se"][0]  # an empty cell gets positive mass on average
    assert abs(b["normalise"].sum()) < 1e-9  # proportions sum to 1: the biases sum to 0


def test_mean_bias_variance_adds_up_to_mse():
    g = np.random.default_rng(4)
    x = g.exponential(10.0, 200)
    lo, hi, eps = 0.0, 15.0, 0.5
    errs = np.array([private_mean(x, lower=lo, upper=hi, epsilon=eps, rng=g).value - x.mean() for _ in range(5000)])
    b2, var = mean_error_terms(x, lower=lo, uppers=[hi], epsilon=eps)
    m = private_mean(x, lower=lo, upper=hi, epsilon=eps, rng=0)
    assert m.clipping_bias ** 2 == pytest.approx(b2[0]) and m.noise_sd ** 2 == pytest.approx(var[0])
    assert b2[0] > 0.5 * var[0]  # both terms matter at this bound: the test checks the split, not one term
    _within(errs ** 2, b2[0] + var[0])
    _within(errs, m.clipping_bias)


def test_mean_noisy_count_and_limits():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    m = private_mean(x, lower=0, upper=10, epsilon=1.0, estimator="noisy_count", rng=0)
    assert 0 <= m.value <= 10 and m.estimator == "noisy_count" and m.epsilon == 1.0
    big = private_mean(x, lower=0, upper=10, epsilon=1e9, rng=0)
    assert big.value == pytest.approx(2.5, abs=1e-6)  # ε → ∞: the non-private mean


def test_sum_sensitivity_and_clipping():
    s = private_sum([-5.0, 1.0, 20.0], lower=-2, upper=10, epsilon=1.0, rows_per_person=2, rng=0)
    assert s.sensitivity == 20.0 and s.clipped == 2 and s.clipping_bias == pytest.approx(3.0 - 10.0)


@pytest.mark.slow
def test_quantile_law_sums_to_one_and_matches_sampling():
    x = np.array([1.0, 2.0, 2.0, 5.0, 7.5, 8.0, 9.0, 12.0])
    z, p = quantile_law(x, 0.5, lower=0, upper=15, epsilon=1.5)
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and p[2] == 0.0  # the zero-width gap between the 2s
    g = np.random.default_rng(5)
    draws = [private_quantile(x, 0.5, lower=0, upper=15, epsilon=1.5, rng=g) for _ in range(3000)]
    obs = np.bincount([d.interval for d in draws], minlength=p.size)
    keep = p > 0
    assert obs[~keep].sum() == 0
    assert stats.chisquare(obs[keep], p[keep] * len(draws)).pvalue > 1e-3
    assert all(z[d.interval] <= d.value <= z[d.interval + 1] for d in draws)  # uniform inside its gap


def test_quantile_large_epsilon_gives_the_true_quantile():
    x = np.arange(1.0, 100.0)
    r = private_quantile(x, 0.25, lower=0, upper=100, epsilon=500.0, rng=0)
    assert abs(r.value - np.quantile(x, 0.25)) <= 1.0


def test_bound_contributions():
    ids = np.array([1] * 10 + [2] * 3 + [3])
    keep = bound_contributions(ids, rows_per_person=2, rng=0)
    assert np.bincount(ids[keep]).tolist() == [0, 2, 2, 1]
    assert bound_contributions(ids, rows_per_person=100, rng=0).tolist() == list(range(14))


def test_group_privacy_closed_form():
    assert group_privacy(0.3, 5) == (pytest.approx(1.5), 0.0)
    e, d = group_privacy(0.5, 4, 1e-7)
    assert e == 2.0 and d == pytest.approx(4 * math.exp(1.5) * 1e-7)
    assert group_privacy(5.0, 10, 0.1)[1] == 1.0  # a probability bound is capped at 1


@pytest.mark.parametrize("stat,kw", [("count", {}), ("histogram", {"rows_per_person": 3}),
                                     ("mean", {"n": 442, "lower": 18, "upper": 80})])
def test_epsilon_for_accuracy_closed_forms(stat, kw):
    h = 2.0
    lap = epsilon_for_accuracy(stat, half_width=h, **kw)
    assert 1 - math.exp(-h / lap.noise_scale) == pytest.approx(0.95)
    assert lap.epsilon == pytest.approx(lap.sensitivity * math.log(20) / h)
    assert lap.posterior == pytest.approx(posterior_bound(0.01, lap.epsilon))
    gau = epsilon_for_accuracy(stat, half_width=h, noise="gaussian", delta=1e-5, **kw)
    assert gaussian_sigma(gau.epsilon, 1e-5, gau.sensitivity) == pytest.approx(gau.noise_scale, rel=1e-6)
    assert 2 * stats.norm.cdf(h / gau.noise_scale) - 1 == pytest.approx(0.95)
    g = np.random.default_rng(6)
    cover = np.abs(g.laplace(0, lap.noise_scale, M)) <= h
    _within(cover.astype(float), 0.95)


def test_epsilon_for_accuracy_geometric():
    p = epsilon_for_accuracy("count", half_width=5, noise="geometric")
    a = math.exp(-p.epsilon)
    k = np.arange(-5, 6)
    assert np.sum((1 - a) / (1 + a) * a ** np.abs(k)) == pytest.approx(0.95, abs=1e-9)


@pytest.mark.parametrize("call,match", [
    (lambda: private_count([1.0], epsilon=0), "epsilon must be"),
    (lambda: private_count([1.0], epsilon=1, noise="cauchy"), "noise must be one of"),
    (lambda: private_count([1.0], epsilon=1, rows_per_person=0), "rows_per_person must be"),
    (lambda: private_count([1.0], epsilon=1, noise="gaussian"), "delta must be"),
    (lambda: private_mean([1.0], lower=5, upper=1, epsilon=1), "upper must be > lower"),
    (lambda: private_mean([], lower=0, upper=1, epsilon=1), "x must have at least 1"),
    (lambda: private_histogram([1.0], bins=3, epsilon=1), "lower and upper"),
    (lambda: private_histogram([1.0], bins=[0, 2, 1], epsilon=1), "strictly increasing"),
    (lambda: private_histogram([1.0], bins=3, lower=0, upper=1, epsilon=1, postprocess=["sort"]), "postprocess"),
    (lambda: private_quantile([1.0], 1.5, lower=0, upper=1, epsilon=1), "q must be"),
    (lambda: epsilon_for_accuracy("mean", half_width=1), "lower and upper"),
    (lambda: epsilon_for_accuracy("count", half_width=-1), "half_width must be"),
])
def test_bad_inputs(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
