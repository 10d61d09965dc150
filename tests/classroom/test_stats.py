"""Statistics of the class poll: the interval covers the truth at its stated rate (exact law and
simulated classes with fixed seeds), the estimate is unbiased, deniability is e^ε exactly."""

import math

import numpy as np
import pytest

from dpexplore.classroom import (
    deniability,
    estimate_fraction,
    exact_coverage,
    interval_halfwidth,
    simulate_class,
    simulated_coverage,
    stats,
)
from dpexplore.core import debias_randomized_response, flip_probability

GRID = [(n, pi, eps) for n in (10, 30, 100) for pi in (0.0, 0.15, 0.5, 0.8) for eps in (0.5, 1.0, 3.0)]


@pytest.mark.parametrize("model", ["population", "fixed_class"])
@pytest.mark.parametrize("n,pi,eps", GRID)
def test_exact_coverage_is_at_least_the_stated_rate(n, pi, eps, model):
    # population model: Clopper–Pearson's guarantee, carried through the monotone map (module docstring);
    # fixed class: a Poisson-binomial count, checked here from its exact law
    assert exact_coverage(pi, n, epsilon=eps, model=model) >= 0.95 - 1e-12


@pytest.mark.parametrize("model", ["population", "fixed_class"])
@pytest.mark.parametrize("n,pi,eps", [(20, 0.3, 1.0), (40, 0.1, 0.5), (25, 0.6, 2.0), (100, 0.5, 1.0)])
def test_simulated_classes_cover_the_truth_at_the_stated_rate(n, pi, eps, model):
    """Many simulated classes of known truth (fixed seed): the covering count agrees with the exact
    coverage within 4 binomial standard deviations of the count, and is not below the 95% rate by more
    than that sampling error."""
    classes = 4000
    seed = 1000 * n + int(100 * pi) + int(10 * eps) + (model == "fixed_class")
    covered, total = simulated_coverage(pi, n, epsilon=eps, classes=classes, model=model, rng=seed)
    c = exact_coverage(pi, n, epsilon=eps, model=model)
    sd = math.sqrt(classes * c * (1 - c))
    assert abs(covered - classes * c) <= 4 * sd + 1, (covered, classes * c, sd)
    assert covered >= classes * 0.95 - 4 * math.sqrt(classes * 0.95 * 0.05)


def test_the_coverage_check_catches_a_wrong_interval():
    """Negative control: using the raw fraction's interval as if it were the true fraction's (forgetting
    to debias) covers far less than 95% — the comparison above would fail for it."""
    from dpexplore.core.experiment import proportion_band

    n, pi, eps, classes = 100, 0.1, 1.0, 4000
    _, reported = simulate_class(pi, n, epsilon=eps, classes=classes, rng=5)
    _, lo, hi = proportion_band(reported, np.full(classes, n), 0.95, method="clopper-pearson")
    assert ((lo <= pi) & (pi <= hi)).mean() < 0.5


def test_estimate_is_unbiased():
    n, pi, eps, classes = 50, 0.3, 1.0, 20000
    _, reported = simulate_class(pi, n, epsilon=eps, classes=classes, rng=11)
    est = debias_randomized_response(reported / n, eps)
    for k in reported[:20]:  # the page's estimate is this same map
        assert estimate_fraction(int(k), n, epsilon=eps).estimate == pytest.approx(
            debias_randomized_response(k / n, eps), abs=1e-12)
    mu = flip_probability(eps)
    p = mu + (1 - 2 * mu) * pi
    se = math.sqrt(p * (1 - p) / n) / (1 - 2 * mu) / math.sqrt(classes)  # exact sd of the mean of estimates
    assert abs(est.mean() - pi) <= 4 * se


def test_interval_is_the_mapped_clopper_pearson_interval():
    r = estimate_fraction(14, 30, epsilon=1.0)
    mu = flip_probability(1.0)
    assert r.low == pytest.approx(max(0.0, (r.raw_low - mu) / (1 - 2 * mu)), abs=1e-12)
    assert r.high == pytest.approx(min(1.0, (r.raw_high - mu) / (1 - 2 * mu)), abs=1e-12)
    assert 0 <= r.low <= r.estimate_clipped <= r.high <= 1
    empty = estimate_fraction(0, 0, epsilon=1.0)
    assert (empty.low, empty.high) == (0.0, 1.0) and math.isnan(empty.estimate)
    for k in (0, 30):  # extreme counts stay in [0, 1]
        e = estimate_fraction(k, 30, epsilon=0.5)
        assert 0.0 <= e.low <= e.high <= 1.0


def test_large_epsilon_is_the_non_private_interval():
    from dpexplore.core.experiment import proportion_band

    r = estimate_fraction(7, 20, epsilon=40.0)
    _, lo, hi = proportion_band(7, 20, 0.95, method="clopper-pearson")
    assert r.low == pytest.approx(float(lo), abs=1e-9) and r.high == pytest.approx(float(hi), abs=1e-9)


def test_interval_shrinks_with_more_students_and_larger_epsilon():
    ns = [10, 30, 100, 300, 1000]
    w1 = interval_halfwidth(ns, epsilon=1.0)
    w2 = interval_halfwidth(ns, epsilon=2.0)
    assert np.all(np.diff(w1) < 0) and np.all(w2 < w1)


def test_deniability_is_exactly_e_to_the_epsilon():
    for eps in (0.1, 1.0, math.log(3), 4.0):
        d = deniability(eps)
        assert d.likelihood_ratio == pytest.approx(math.exp(eps), rel=1e-12)
        mu = flip_probability(eps)
        assert d.posterior_same == pytest.approx(1 - mu, rel=1e-12)
        assert d.posterior_yes_given_yes == pytest.approx(1 - mu, rel=1e-12)  # 50/50 prior
        # posterior odds / prior odds = e^eps for any prior
        d2 = deniability(eps, prior=0.2)
        post = d2.posterior_yes_given_yes
        assert (post / (1 - post)) / (0.2 / 0.8) == pytest.approx(math.exp(eps), rel=1e-9)


def test_simulated_reports_follow_their_exact_law():
    """Reports of a population class are Binomial(n, μ + (1 − 2μ)π): mean within 4 sd over many classes."""
    n, pi, eps, classes = 30, 0.4, 1.0, 5000
    _, reported = simulate_class(pi, n, epsilon=eps, classes=classes, rng=3)
    mu = flip_probability(eps)
    p = mu + (1 - 2 * mu) * pi
    assert abs(reported.mean() - n * p) <= 4 * math.sqrt(n * p * (1 - p) / classes)


def test_bad_inputs():
    with pytest.raises(ValueError, match="yes must be"):
        estimate_fraction(5, 3, epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon must be"):
        estimate_fraction(1, 3, epsilon=0)
    with pytest.raises(ValueError, match="n \\* classes must be <= 10000000"):
        simulate_class(0.5, 100_000, epsilon=1.0, classes=1000)
    with pytest.raises(ValueError, match="model must be"):
        exact_coverage(0.5, 10, epsilon=1.0, model="other")
    with pytest.raises(ValueError, match="at most 10000 entries"):
        interval_halfwidth(np.arange(1, 20_000), epsilon=1.0)


# -- issue 30.6: an ε a student cannot be told anything meaningful about, array-shaped counts ---------------
@pytest.mark.parametrize("eps", [700.0, 800.0, 1e6])
def test_an_epsilon_without_randomization_is_refused_and_says_so(eps):
    """Before: deniability(800) reported a likelihood ratio of e^700 (capped silently) and a flip probability
    of 1e-304; estimate_fraction answered as if the reports were randomized."""
    for f in (lambda: stats.deniability(eps), lambda: stats.estimate_fraction(3, 10, epsilon=eps),
              lambda: stats.interval_halfwidth([10], epsilon=eps), lambda: stats.exact_coverage(0.3, 10, epsilon=eps),
              lambda: stats.simulate_class(0.3, 10, epsilon=eps)):
        with pytest.raises(ValueError, match=r"epsilon must be in \[1e-06, 690.8\].*below 1e-300, which is no "
                                             r"randomization at all; got"):
            f()


@pytest.mark.parametrize("eps", [1e-300, 1e-17, 1e-7])
def test_an_epsilon_of_pure_coin_flips_is_refused(eps):
    """Before: estimate_fraction(3, 10, epsilon=1e-17) gave an estimate of -inf and a RuntimeWarning."""
    with pytest.raises(ValueError, match=r"epsilon must be in \[1e-06, 690.8\].*fair coin"):
        stats.estimate_fraction(3, 10, epsilon=eps)


def test_the_meaningful_range_ends_where_the_flip_probability_does():
    assert flip_probability(stats.MAX_MEANINGFUL_EPSILON) >= 1e-300 * (1 - 1e-12)
    assert flip_probability(stats.MAX_MEANINGFUL_EPSILON + 0.01) < 1e-300
    d = stats.deniability(690.0)
    assert d.likelihood_ratio == pytest.approx(math.exp(690.0), rel=1e-12)  # exact, not capped


@pytest.mark.parametrize("n, err, msg", [
    ([[10, 20]], TypeError, r"1-D sequence of class sizes; got an array of shape \(1, 2\)"),
    ([10.5], ValueError, r"n\[0\] must be an integer >= 1 and <= 10000000; got 10.5"),
    (["a"], TypeError, "integer class sizes; got dtype <U1"),
    (True, TypeError, "of type bool"),
    ([10, 0], ValueError, r"n\[1\] must be an integer >= 1"),
    ([[1, 2], [3]], TypeError, "ragged"),
])
def test_interval_halfwidth_class_sizes_are_checked_and_named(n, err, msg):
    """Before: 10.5 was silently read as 10, True as 1, and 2-D input failed inside int()."""
    with pytest.raises(err, match=msg):
        stats.interval_halfwidth(n, epsilon=1.0)


def test_array_shaped_counts_name_the_parameter():
    with pytest.raises(TypeError, match=r"yes must be an integer .*array of shape \(2,\)"):
        stats.estimate_fraction(np.array([3, 4]), 10, epsilon=1.0)
    with pytest.raises(TypeError, match=r"n must be an integer .*array of shape \(1,\)"):
        stats.estimate_fraction(3, np.array([10]), epsilon=1.0)
