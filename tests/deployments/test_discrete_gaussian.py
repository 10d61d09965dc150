"""The discrete Gaussian sampler against its pmf, and the ρ-zCDP → (ε, δ) conversions."""

import math

import numpy as np
import pytest
from scipy import special, stats

from dpexplore.core.discrete_gaussian import (
    MAX_SAMPLES,
    discrete_gaussian,
    discrete_gaussian_pmf,
    discrete_gaussian_rho,
    discrete_gaussian_variance,
    zcdp_delta,
    zcdp_epsilon,
)
from dpexplore.core.gaussian import zcdp_to_dp

N = 20_000


@pytest.mark.parametrize("sigma2", [0.3, 2.0, 10.0, 50.0])
@pytest.mark.parametrize("seed", range(3))
def test_sampler_law_matches_pmf_chi_square(sigma2, seed):
    """Chi-square goodness of fit of N = 20 000 draws to the exact pmf (cells with expected count ≥ 5,
    tails merged); fixed seeds, level 10⁻⁴ (12 tests: a false alarm has probability ≤ 1.2·10⁻³)."""
    x = discrete_gaussian(sigma2, size=N, rng=seed)
    half = int(math.ceil(12 * math.sqrt(sigma2) + 12))
    support = np.arange(-half, half + 1)
    p = discrete_gaussian_pmf(support, sigma2)
    keep = N * p >= 5
    lo, hi = support[keep][0], support[keep][-1]
    cells = np.arange(lo, hi + 1)
    obs = np.array([np.sum(x < lo)] + [np.sum(x == c) for c in cells] + [np.sum(x > hi)])
    exp = N * np.concatenate([[p[support < lo].sum()], discrete_gaussian_pmf(cells, sigma2), [p[support > hi].sum()]])
    mask = exp > 0
    chi2 = float(((obs[mask] - exp[mask]) ** 2 / exp[mask]).sum())
    assert stats.chi2.sf(chi2, mask.sum() - 1) > 1e-4
    assert x.dtype == np.int64 and obs.sum() == N


@pytest.mark.parametrize("sigma2", [0.5, 4.0, 100.0])
def test_sampler_mean_and_variance(sigma2):
    """Mean 0 and variance = the exact variance, within 5 standard errors of N = 50 000 draws."""
    x = discrete_gaussian(sigma2, size=50_000, rng=7).astype(float)
    v = discrete_gaussian_variance(sigma2)
    assert abs(x.mean()) < 5 * math.sqrt(v / x.size)
    # Var of the sample variance ≈ (μ4 − v²)/n; for a near-Gaussian μ4 ≈ 3v²
    assert abs(x.var() - v) < 5 * math.sqrt(2.0 * v * v / x.size) + 1e-9


def test_pmf_sums_to_one_and_variance_below_sigma2():
    for s2 in (0.1, 1.0, 7.5, 1e4):
        half = int(math.ceil(12 * math.sqrt(s2) + 12))
        assert abs(discrete_gaussian_pmf(np.arange(-half, half + 1), s2).sum() - 1) < 1e-12
        assert discrete_gaussian_variance(s2) <= s2 + 1e-12
    assert abs(discrete_gaussian_variance(100.0) - 100.0) < 1e-9  # σ large: the variance is σ² to float
    assert discrete_gaussian_rho(8.0, 2.0) == 0.25


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="sigma2 must be a finite number > 0"):
        discrete_gaussian(0.0)
    with pytest.raises(ValueError, match="size"):
        discrete_gaussian(1.0, size=MAX_SAMPLES + 1)
    with pytest.raises(TypeError, match="sigma2"):
        discrete_gaussian("1")
    with pytest.raises(ValueError, match="rho"):
        zcdp_epsilon(-1.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        zcdp_epsilon(1.0, 0.0)


RHOS = [1e-4, 0.01, 0.07, 0.1, 0.5, 1.0, 2.56, 10.0]
DELTAS = [1e-3, 1e-5, 1e-10]


@pytest.mark.parametrize("rho", RHOS)
@pytest.mark.parametrize("delta", DELTAS)
def test_tight_conversion_never_above_simple_and_inverts_delta(rho, delta):
    eps = zcdp_epsilon(rho, delta)
    assert 0 <= eps <= zcdp_to_dp(rho, delta)
    assert zcdp_delta(rho, eps) <= delta * (1 + 1e-6)
    if eps > 1e-6:
        assert zcdp_delta(rho, eps - 1e-4) > delta  # and it is the smallest such ε (to 10⁻⁴)


@pytest.mark.parametrize("rho", [0.01, 0.5, 2.56])
@pytest.mark.parametrize("eps", [0.5, 2.0, 10.0])
def test_tight_delta_equals_a_dense_grid_minimum(rho, eps):
    """Numeric evaluation: the infimum over α of CKS Cor. 13, on 200 001 points of log(α − 1)."""
    u = np.linspace(-20, 20, 200_001)
    a = 1 + np.exp(u)
    log_d = (a - 1) * (a * rho - eps) - np.log(a - 1) + a * np.log1p(-1 / a)
    grid = min(1.0, float(np.exp(log_d.min())))
    got = zcdp_delta(rho, eps)
    assert got <= grid * (1 + 1e-6) + 1e-300
    assert got >= grid * (1 - 1e-3)


@pytest.mark.parametrize("rho", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_conversion_is_valid_for_the_gaussian_and_discrete_gaussian(rho, eps):
    """Both mechanisms are exactly ρ-zCDP (Δ = 1): their exact δ(ε) is at most the conversion's δ."""
    mu = math.sqrt(2 * rho)
    gauss = special.ndtr(-eps / mu + mu / 2) - math.exp(eps) * special.ndtr(-eps / mu - mu / 2)
    s2 = 1 / (2 * rho)
    half = int(math.ceil(12 * math.sqrt(s2) + 14))
    x = np.arange(-half, half + 1)
    disc = float(np.maximum(discrete_gaussian_pmf(x, s2) - math.exp(eps) * discrete_gaussian_pmf(x - 1, s2), 0).sum())
    bound = zcdp_delta(rho, eps)
    assert gauss <= bound + 1e-15
    assert disc <= bound + 1e-15


def test_census_figures_are_reproduced():
    """The Bureau's ε for its ρ at δ = 10⁻¹⁰ (persons ρ = 2.56 → ε = 17.14, units ρ = 0.07 → ε = 2.47,
    Abowd et al. 2022), given that ρ is printed to two decimals: the conversion of ρ ± 0.005 brackets ε."""
    assert zcdp_epsilon(2.555, 1e-10) <= 17.14 <= zcdp_epsilon(2.565, 1e-10)
    assert zcdp_epsilon(0.065, 1e-10) <= 2.47 <= zcdp_epsilon(0.075, 1e-10)
