import math

import numpy as np
import pytest

from dpexplore.core import debias_randomized_response, exact_privacy_check, flip_probability, randomized_response


def z5_half_width(p, n):
    """z = 5 half-width of a binomial proportion's sampling error."""
    return 5 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_flip_frequency(eps):
    n = 200_000
    bits = np.zeros(n, dtype=int)
    bits[: n // 2] = 1
    res = randomized_response(bits, eps, rng=11)
    mu = 1 / (math.exp(eps) + 1)
    assert res.flip_probability == pytest.approx(mu)
    assert res.epsilon == eps and res.delta == 0.0
    observed = np.mean(res.bits != bits)
    assert abs(observed - mu) < z5_half_width(mu, n)


def test_exact_epsilon_dp_on_neighbouring_bits():
    for eps in (0.2, 1.0, 4.0):
        mu = flip_probability(eps)
        law0, law1 = [1 - mu, mu], [mu, 1 - mu]  # output law on input 0 and on input 1
        check = exact_privacy_check(law0, law1, eps)
        assert check.ok and check.epsilon_needed == pytest.approx(eps)
        assert not exact_privacy_check(law0, law1, 0.99 * eps).ok


def test_empirical_ratio_within_e_eps():
    eps, n = 1.0, 100_000
    out0 = randomized_response(np.zeros(n, dtype=int), eps, rng=1).bits
    out1 = randomized_response(np.ones(n, dtype=int), eps, rng=2).bits
    p0, p1 = out0.mean(), out1.mean()  # P(output 1 | input 0), P(output 1 | input 1)
    tol = z5_half_width(0.5, n)
    assert (p1 - tol) / (p0 + tol) <= math.exp(eps) <= (p1 + tol) / (p0 - tol)


def test_debiasing_is_unbiased():
    eps, n = 0.5, 400_000
    rng = np.random.default_rng(3)
    bits = (rng.random(n) < 0.3).astype(int)
    released = randomized_response(bits, eps, rng=4).bits
    est = debias_randomized_response(released.mean(), eps)
    mu = flip_probability(eps)
    sd = math.sqrt(0.5 * 0.5 / n) / (1 - 2 * mu)  # conservative sd of the debiased mean
    assert abs(est - bits.mean()) < 5 * sd


def test_limit_infinite_epsilon_is_identity():
    bits = np.array([0, 1, 1, 0, 1])
    assert np.array_equal(randomized_response(bits, np.inf, rng=0).bits, bits)


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^bits must be an array of 0/1 values; got other values, e.g. 2$"):
        randomized_response([0, 2], 1.0)
    with pytest.raises(TypeError, match=r"^bits must be an array of 0/1 values"):
        randomized_response("0101", 1.0)
    with pytest.raises(ValueError, match=r"^epsilon must be a number > 0; got 0$"):
        randomized_response([0, 1], 0)
