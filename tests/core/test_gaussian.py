import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core import (
    dp_to_zcdp,
    gaussian_sigma,
    gaussian_zcdp_rho,
    gdp_delta,
    gdp_epsilon,
    gdp_tradeoff,
    zcdp_to_dp,
)


def profile(sigma, eps, sens=1.0):
    """Balle & Wang's exact δ(ε) of the Gaussian mechanism, written independently with scipy.stats."""
    return stats.norm.cdf(sens / (2 * sigma) - eps * sigma / sens) - math.exp(eps) * stats.norm.cdf(
        -sens / (2 * sigma) - eps * sigma / sens
    )


def test_analytic_sigma_known_value():
    # Balle & Wang (2018): ε = 1, δ = 1e-5, Δ = 1 gives σ ≈ 3.73 (the classic formula is invalid there).
    sigma = gaussian_sigma(1.0, 1e-5)
    assert sigma == pytest.approx(3.7306, abs=1e-4)
    assert profile(sigma, 1.0) == pytest.approx(1e-5, rel=1e-8)


@pytest.mark.parametrize(("eps", "delta"), [(0.1, 1e-6), (0.5, 1e-3), (2.0, 1e-9), (8.0, 1e-5), (30.0, 1e-12)])
def test_analytic_sigma_is_tight(eps, delta):
    sigma = gaussian_sigma(eps, delta, sensitivity=2.0)
    assert profile(sigma, eps, 2.0) == pytest.approx(delta, rel=1e-6)
    assert profile(sigma * 0.999, eps, 2.0) > delta  # any smaller σ violates (ε, δ)


def test_classic_sigma_and_its_domain():
    assert gaussian_sigma(0.5, 1e-5, method="classic") == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 0.5)
    assert gaussian_sigma(0.5, 1e-5) < gaussian_sigma(0.5, 1e-5, method="classic")
    with pytest.raises(ValueError, match=r"^epsilon must be < 1 for method='classic'"):
        gaussian_sigma(1.0, 1e-5, method="classic")
    with pytest.raises(ValueError, match=r"^method must be one of \['analytic', 'classic'\]; got 'x'$"):
        gaussian_sigma(1.0, 1e-5, method="x")
    with pytest.raises(ValueError, match=r"^delta must be a finite number > 0 and < 1; got 0$"):
        gaussian_sigma(1.0, 0)


@pytest.mark.parametrize(("mu", "eps", "delta"), [(1.0, 0.0, 0.382925), (1.0, 1.0, 0.126937), (0.5, 0.5, 0.052440)])
def test_gdp_delta_reference_values(mu, eps, delta):
    assert gdp_delta(mu, eps) == pytest.approx(delta, abs=5e-7)


def test_gdp_delta_matches_gaussian_profile_and_tiny_values():
    for mu in (0.1, 1.0, 3.0):
        for eps in (0.0, 0.5, 2.0, 10.0):
            assert gdp_delta(mu, eps) == pytest.approx(profile(1.0 / mu, eps), rel=1e-9, abs=1e-300)
    # far in the tail, where Φ(a) − e^ε Φ(b) cancels catastrophically if computed naively
    # Mills ratio: Φ(b)/Φ(a) ≈ e^{−ε}|a|/|b|, so δ/Φ(a) ≈ 1 − |a|/|b| = 0.5/24.25 ≈ 0.0206 here
    tiny = gdp_delta(0.5, 12.0)
    upper = stats.norm.cdf(-12.0 / 0.5 + 0.25)
    assert upper < 1e-100
    assert tiny / upper == pytest.approx(0.5 / 24.25, rel=0.05)


def test_gdp_epsilon_inverts_delta():
    for mu in (0.2, 1.0, 2.5):
        for delta in (1e-2, 1e-6, 1e-10):
            e = gdp_epsilon(mu, delta)
            assert gdp_delta(mu, e) == pytest.approx(delta, rel=1e-6)
    assert gdp_epsilon(0.01, 0.5) == 0.0


def test_gdp_tradeoff():
    alpha = np.linspace(0, 1, 11)
    beta = gdp_tradeoff(1.0, alpha)
    assert beta[0] == pytest.approx(stats.norm.cdf(np.inf)) and beta[-1] == pytest.approx(0.0)
    assert np.all(np.diff(beta) <= 0)
    # symmetric trade-off: T(T(α)) = α
    assert gdp_tradeoff(1.0, gdp_tradeoff(1.0, 0.3)) == pytest.approx(0.3)
    with pytest.raises(ValueError, match=r"alpha must be"):
        gdp_tradeoff(1.0, 1.5)


def test_zcdp_conversions():
    assert gaussian_zcdp_rho(2.0, 1.0) == 0.125
    assert zcdp_to_dp(0.5, 1e-5) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    for eps in (0.1, 1.0, 5.0):
        assert zcdp_to_dp(dp_to_zcdp(eps, 1e-6), 1e-6) == pytest.approx(eps)
    # composition of T Gaussian steps: ρ adds up, and the exact GDP answer is never worse
    sigma, steps, delta = 5.0, 10, 1e-6
    eps_zcdp = zcdp_to_dp(steps * gaussian_zcdp_rho(sigma), delta)
    eps_gdp = gdp_epsilon(math.sqrt(steps) / sigma, delta)
    assert eps_gdp <= eps_zcdp


def test_huge_epsilon_calibrates_or_says_why():
    # σ ≈ Δ/√(2ε) for huge ε (the privacy loss is concentrated): finite and positive up to 1e200
    for eps in (1e6, 1e20, 1e200):
        s = gaussian_sigma(eps, 1e-5)
        assert 0 < s < 1 and s * math.sqrt(2 * eps) == pytest.approx(1.0, rel=1e-2)
    with pytest.raises(ValueError, match=r"too large to calibrate"):
        gaussian_sigma(1e300, 1e-5)
