"""Randomizers and constants: validation, reference χ² values, I_π, the mixture relation, Cov N."""

import math

import numpy as np
import pytest

from dpexplore.shuffle import (
    binary_rr,
    chi_square,
    fisher_constant,
    histogram_law,
    k_rr,
    mixture_constant,
    mixture_constant_closed_form,
    mu3,
    randomizer,
    sigma_pi,
)

CUSTOM = randomizer([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
SKEW = randomizer([0.6, 0.25, 0.1, 0.05], [0.1, 0.2, 0.3, 0.4])


def test_randomizer_validation_messages():
    with pytest.raises(ValueError, match=r"^W0 must have full support \(every entry > 0\); got a zero at index 0$"):
        randomizer([0.0, 1.0], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"W1 must be a probability vector .* got sum 0.9"):
        randomizer([0.5, 0.5], [0.5, 0.4])
    with pytest.raises(ValueError, match=r"^W0 and W1 must have the same length; got 2 and 3$"):
        randomizer([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"W0 and W1 must differ"):
        randomizer([0.5, 0.5], [0.5, 0.5])
    with pytest.raises(TypeError, match=r"W0 must be a 1-d array of numbers"):
        randomizer("ab", [0.5, 0.5])
    with pytest.raises(ValueError, match=r"^epsilon0 must be a finite number > 0; got -1$"):
        binary_rr(-1)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 2 and <= 10000; got 1$"):
        k_rr(1.0, 1)
    with pytest.raises(TypeError, match=r"randomizer must be a Randomizer"):
        fisher_constant([0.5, 0.5], 0.0)


def test_randomizer_attributes_and_grouping():
    R = binary_rr(1.0)
    assert R.W0.shape == R.W1.shape == (2,) and not R.W0.flags.writeable
    # the same probabilities by different formulas (e/(1+e) vs 1 − 1/(1+e); (1 − e/d) vs 1/(1+e)): the
    # subtraction 1 − x with x ≈ e/(1+e) amplifies one rounding by x/(1 − x) = e, so a few ulps apart;
    # 8·eps bounds it (rtol=1e-15 was ~4.5 ulps: one CPU's libm exp/rounding away from failing)
    np.testing.assert_allclose(R.W0, [math.e / (1 + math.e), 1 / (1 + math.e)], rtol=8 * np.finfo(float).eps)
    np.testing.assert_allclose(k_rr(1.0, 2).W1, R.W1, rtol=8 * np.finfo(float).eps)
    assert R.local_epsilon == pytest.approx(1.0, rel=1e-14)
    assert k_rr(2.0, 5).local_epsilon == pytest.approx(2.0, rel=1e-14)
    G = k_rr(1.0, 6).grouped()  # symbol 0, symbol 1, the rest: a trinomial
    assert G.K == 3 and G.W0.sum() == pytest.approx(1.0) and G.ratio[1] == pytest.approx(1.0)


@pytest.mark.parametrize("e0, ref", [(1.0, 1.0862), (2.0, 5.5244), (4.0, 52.617)])
def test_chi_square_reference_values(e0, ref):
    c = chi_square(binary_rr(e0))
    # to the digits given: within one unit of the last digit (the spec's 52.617 is 52.61647 double-rounded
    # via 52.6165; all three values agree with the closed form to 1e-12)
    unit = 10.0 ** -len(str(ref).split(".")[1])
    assert abs(c - ref) < unit
    assert c == pytest.approx((math.exp(e0) - 1) ** 2 / math.exp(e0), rel=1e-12)


@pytest.mark.parametrize("k", [3, 5, 10])
@pytest.mark.parametrize("e0", [0.5, 2.0])
def test_k_rr_chi_square_closed_form(e0, k):
    ee = math.exp(e0)
    assert chi_square(k_rr(e0, k)) == pytest.approx((ee - 1) ** 2 * (1 + 1 / ee) / (ee + k - 1), rel=1e-12)


@pytest.mark.parametrize("pi", [0.0, 0.1, 0.5, 0.9])
def test_fisher_constant_binary_rr_is_chi_square_for_every_pi(pi):
    R = binary_rr(2.0)
    assert fisher_constant(R, pi) == pytest.approx(chi_square(R), rel=1e-10)


@pytest.mark.parametrize("R", [CUSTOM, SKEW, k_rr(1.5, 4)], ids=["custom3", "skew4", "4rr"])
def test_fisher_at_zero_is_chi_square_and_mixture_relation(R):
    assert fisher_constant(R, 0.0) == pytest.approx(chi_square(R), rel=1e-10)
    for pi in (0.1, 0.3, 0.5):
        ip, imix = fisher_constant(R, pi), mixture_constant(R, pi)
        assert imix < ip  # the mixture proxy under-states the information (optimistic privacy)
        assert imix == pytest.approx(ip / (1 + pi * (1 - pi) * ip), rel=1e-9)  # Sherman–Morrison
        assert mixture_constant_closed_form(R, pi) == pytest.approx(imix, rel=1e-9)
    assert mixture_constant(R, 0.0) == pytest.approx(fisher_constant(R, 0.0), rel=1e-10)


def test_mu3_binary_rr_closed_form():
    # ξ = (e^{−ε0} − 1, e^{ε0} − 1) with weights (p, 1 − p)
    e0 = 1.3
    ee, p = math.exp(e0), math.exp(e0) / (1 + math.exp(e0))
    assert mu3(binary_rr(e0)) == pytest.approx(p * (1 / ee - 1) ** 3 + (1 - p) * (ee - 1) ** 3, rel=1e-12)


@pytest.mark.parametrize("R, n, k", [(CUSTOM, 7, 0), (CUSTOM, 7, 3), (SKEW, 5, 2), (k_rr(1.0, 3), 9, 9)])
def test_histogram_law_sums_to_one_and_cov_is_n_sigma_pi(R, n, k):
    counts, pmf = histogram_law(R, n, k=k)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-13)
    assert np.all(counts.sum(axis=1) == n)
    mean = pmf @ counts
    np.testing.assert_allclose(mean, (n - k) * R.W0 + k * R.W1, atol=1e-12)
    cov = (counts - mean).T @ ((counts - mean) * pmf[:, None])
    np.testing.assert_allclose(cov, n * sigma_pi(R, k / n), atol=1e-11)
    # the mixture covariance is NOT the histogram's covariance when 0 < k < n
    if 0 < k < n:
        w = (1 - k / n) * R.W0 + k / n * R.W1
        assert np.abs(cov - n * (np.diag(w) - np.outer(w, w))).max() > 1e-3
