"""core.risk against closed forms, against each other, and against a brute-force search over tests."""

import math

import numpy as np
import pytest

from dpexplore.core import (
    advantage_bound,
    attacker_success_bound,
    dp_tradeoff,
    gdp_advantage,
    gdp_delta,
    gdp_tradeoff,
    posterior_bound,
)
from dpexplore.core.risk import attacker_view


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (0.1, 0.0), (1.0, 1e-5), (3.0, 0.01), (10.0, 0.0)])
def test_dp_tradeoff_closed_form_and_shape(eps, delta):
    a = np.linspace(0, 1, 1001)
    f = dp_tradeoff(eps, delta, a)
    want = np.maximum.reduce([np.zeros_like(a), 1 - delta - math.exp(eps) * a, math.exp(-eps) * (1 - delta - a)])
    np.testing.assert_allclose(f, want, rtol=0, atol=1e-15)
    assert np.all(np.diff(f) <= 1e-15)  # non-increasing
    assert np.all(f <= 1 - a + 1e-15)  # never better than... the coin is the worst case (ε = 0, δ = 0)
    if eps == 0 and delta == 0:
        np.testing.assert_allclose(f, 1 - a, atol=1e-15)


@pytest.mark.parametrize("eps,delta", [(0.0, 0.0), (0.5, 0.0), (1.0, 1e-5), (2.0, 0.1), (8.0, 1e-3)])
def test_advantage_is_the_best_one_minus_alpha_minus_beta_on_the_tradeoff_curve(eps, delta):
    a = np.linspace(0, 1, 200_001)
    best = float(np.max(1 - a - dp_tradeoff(eps, delta, a)))
    assert advantage_bound(eps, delta) == pytest.approx(best, abs=1e-5)
    assert advantage_bound(eps, delta) == pytest.approx((math.exp(eps) - 1 + 2 * delta) / (math.exp(eps) + 1))
    assert attacker_success_bound(eps, delta) == pytest.approx((1 + advantage_bound(eps, delta)) / 2)


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0, 3.0])
def test_gdp_advantage_is_the_best_point_of_the_gdp_curve(mu):
    a = np.linspace(0, 1, 200_001)
    best = float(np.max(1 - a - gdp_tradeoff(mu, a))) if mu > 0 else 0.0
    assert gdp_advantage(mu) == pytest.approx(best, abs=1e-5)
    # and equals δ(0) of μ-GDP (the hockey stick at ε = 0 is the total variation distance)
    if mu > 0:
        assert gdp_advantage(mu) == pytest.approx(gdp_delta(mu, 0.0), rel=1e-9)


def test_gdp_curve_lies_above_the_dp_curve_it_implies():
    """μ-GDP implies (ε, δ(ε))-DP for every ε: its trade-off curve is above each of those DP curves."""
    mu = 1.0
    a = np.linspace(0, 1, 501)
    g = gdp_tradeoff(mu, a)
    for eps in (0.1, 0.5, 1.0, 2.0, 4.0):
        assert np.all(g >= dp_tradeoff(eps, gdp_delta(mu, eps), a) - 1e-12)


def test_posterior_closed_form_and_bayes_with_randomized_response():
    eps = math.log(3)
    assert posterior_bound(0.5, eps) == pytest.approx(0.75)
    # Randomized response attains it: P(B | output "yes") with flip prob 1/(e^ε + 1)
    mu = 1 / (math.exp(eps) + 1)
    for prior in (0.5, 0.1, 0.01, 0.001):
        bayes = prior * (1 - mu) / (prior * (1 - mu) + (1 - prior) * mu)
        assert posterior_bound(prior, eps) == pytest.approx(bayes, rel=1e-12)
    assert posterior_bound(0.3, 0.0) == pytest.approx(0.3)


def test_posterior_with_delta():
    assert posterior_bound(0.5, 1.0, 1e-5) == 1.0  # rare outputs can reveal everything
    # an alarm at false-alarm rate α: prior·TPR/(prior·TPR + (1 − prior)·α), TPR ≤ e^ε α + δ
    a, d, e, p = 0.01, 1e-3, 1.0, 0.1
    tpr = min(1.0, math.exp(e) * a + d)
    assert posterior_bound(p, e, d, alpha=a) == pytest.approx(p * tpr / (p * tpr + (1 - p) * a), rel=1e-9)
    # with δ = 0 and e^ε α ≤ 1 it is the pointwise bound
    assert posterior_bound(p, e, 0.0, alpha=0.01) == pytest.approx(posterior_bound(p, e), rel=1e-12)


def test_attacker_view_numbers():
    v = attacker_view(1.0, 0.0)
    assert (v.advantage, v.success) == pytest.approx(((math.e - 1) / (math.e + 1), math.e / (math.e + 1)))
    assert v.posterior_hundredth == pytest.approx(0.01 * math.e / (0.01 * math.e + 0.99))
    assert "1 in 100 → at most 2.7%" in v.sentence()
    assert attacker_view(math.inf).advantage == 1.0


@pytest.mark.parametrize("call,match", [
    (lambda: dp_tradeoff(-0.1, 0.0, 0.5), "epsilon must be a finite number >= 0; got -0.1"),
    (lambda: dp_tradeoff(1.0, 1.0, 0.5), "delta must be a finite number >= 0 and < 1; got 1.0"),
    (lambda: dp_tradeoff(1.0, -0.1, 0.5), "delta must be a finite number >= 0 and < 1"),
    (lambda: dp_tradeoff(1.0, 0.0, 1.5), r"alpha must be a number \(or array of numbers\) in \[0, 1\]; got 1.5"),
    (lambda: dp_tradeoff(1.0, 0.0, [0.2, -0.1]), r"alpha must be .* in \[0, 1\]; got -0.1"),
    (lambda: advantage_bound(-1.0), "epsilon must be a finite number >= 0; got -1.0"),
    (lambda: advantage_bound(1.0, 1.5), "delta must be"),
    (lambda: gdp_advantage(-1.0), "mu must be a finite number >= 0"),
    (lambda: posterior_bound(0.0, 1.0), "prior must be a finite number > 0 and < 1; got 0.0"),
    (lambda: posterior_bound(1.0, 1.0), "prior must be a finite number > 0 and < 1; got 1.0"),
    (lambda: posterior_bound(0.5, -1.0), "epsilon must be"),
    (lambda: posterior_bound(0.5, 1.0, alpha=0.0), "alpha must be a finite number > 0 and <= 1; got 0.0"),
    (lambda: posterior_bound(0.5, float("nan")), "epsilon must be"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError, match="epsilon"):
        advantage_bound("1")
    with pytest.raises(TypeError, match="alpha"):
        dp_tradeoff(1.0, 0.0, "0.5")
