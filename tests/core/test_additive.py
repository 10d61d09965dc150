"""laplace_mechanism and gaussian_mechanism: calibration, sampling laws, frozen results, bad input."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core import gaussian_mechanism, gaussian_sigma, laplace_mechanism, laplace_scale


def test_laplace_result_and_calibration():
    r = laplace_mechanism(5.0, sensitivity=2.0, epsilon=0.5, rng=0)
    assert (r.scale, r.sensitivity, r.epsilon, r.delta) == (4.0, 2.0, 0.5, 0.0)
    assert isinstance(r.value, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 0.0  # type: ignore[misc]
    assert laplace_scale(0.5, 2.0) == 4.0


def test_laplace_noise_follows_laplace_of_scale_delta_over_eps():
    n = 100_000
    r = laplace_mechanism(np.full(n, 10.0), sensitivity=1.0, epsilon=2.0, rng=1)
    noise = r.value - 10.0
    assert stats.kstest(noise, stats.laplace(scale=0.5).cdf).pvalue > 1e-3
    # mean |noise| = b, with a 5-sigma tolerance (sd of |noise| is b)
    assert abs(np.mean(np.abs(noise)) - 0.5) < 5 * 0.5 / math.sqrt(n)


def test_laplace_neighbouring_frequency_ratio_is_at_most_e_eps():
    """diffprivlib-style: on neighbouring counts 0 and 1, output frequencies in wide bins differ by ≤ e^ε."""
    n, eps = 400_000, 1.0
    a = laplace_mechanism(np.zeros(n), sensitivity=1.0, epsilon=eps, rng=2).value
    b = laplace_mechanism(np.ones(n), sensitivity=1.0, epsilon=eps, rng=3).value
    edges = np.linspace(-3, 4, 15)
    ha, _ = np.histogram(a, edges)
    hb, _ = np.histogram(b, edges)
    ok = (ha > 2000) & (hb > 2000)
    ratio = ha[ok] / hb[ok]
    tol = 5 * np.sqrt(1 / ha[ok] + 1 / hb[ok])  # relative sampling error of a ratio of counts
    assert np.all(ratio <= math.exp(eps) * (1 + tol)) and np.all(1 / ratio <= math.exp(eps) * (1 + tol))
    assert ratio.max() > math.exp(eps) * (1 - 0.1)  # and the bound is attained (far left bins)


def test_gaussian_uses_the_analytic_sigma():
    r = gaussian_mechanism([1.0, 2.0, 3.0], sensitivity=2.0, epsilon=1.0, delta=1e-5, rng=0)
    assert r.sigma == gaussian_sigma(1.0, 1e-5, 2.0)
    assert r.value.shape == (3,) and (r.epsilon, r.delta) == (1.0, 1e-5)
    n = 100_000
    noise = gaussian_mechanism(np.zeros(n), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=4).value
    s = gaussian_sigma(1.0, 1e-5)
    assert stats.kstest(noise, stats.norm(scale=s).cdf).pvalue > 1e-3


def test_seeded_and_reproducible():
    assert laplace_mechanism(1.0, sensitivity=1, epsilon=1, rng=7).value == \
        laplace_mechanism(1.0, sensitivity=1, epsilon=1, rng=7).value


@pytest.mark.parametrize("kw,match", [
    (dict(sensitivity=1.0, epsilon=-1.0), "epsilon must be a finite number > 0; got -1.0"),
    (dict(sensitivity=1.0, epsilon=0.0), "epsilon must be a finite number > 0; got 0.0"),
    (dict(sensitivity=0.0, epsilon=1.0), "sensitivity must be a finite number > 0; got 0.0"),
])
def test_laplace_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        laplace_mechanism(1.0, **kw)


def test_gaussian_bad_input_and_value_kinds():
    with pytest.raises(ValueError, match=r"delta must be a finite number > 0 and < 1; got 1.0"):
        gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, delta=1.0)
    with pytest.raises(ValueError, match="delta must be"):
        gaussian_mechanism(1.0, sensitivity=1.0, epsilon=1.0, delta=0.0)
    with pytest.raises(TypeError, match="value"):
        laplace_mechanism("3", sensitivity=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="value"):
        laplace_mechanism([1.0, float("nan")], sensitivity=1.0, epsilon=1.0)
