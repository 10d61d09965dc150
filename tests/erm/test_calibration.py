"""QOP calibration: the λ_min quantile α (derivation + Monte Carlo), the two α1 variants, σ², β, σ̃, LOP."""

import math

import numpy as np
import pytest
from scipy import special, stats

from dpexplore.core import gaussian_sigma
from dpexplore.erm import (
    lop_noise_scale,
    lop_regularization,
    qop_beta,
    qop_output_sigma,
    qop_sigma2,
    wishart_alpha,
    wishart_alpha1,
    wishart_lambda_min_cdf_bound,
    wishart_log_Dm,
)
from dpexplore.erm.calibration import _gamma_increment

Z = 5.0  # z-score of every Monte-Carlo tolerance


def lambda_min_samples(d, m, N, seed):
    G = np.random.default_rng(seed).standard_normal((N, d, m))
    return np.linalg.eigvalsh(G @ np.swapaxes(G, 1, 2))[:, 0]


def upper(p, N):
    return p + Z * math.sqrt(p * (1 - p) / N) + 1.0 / N


def lower(p, N):
    return p - Z * math.sqrt(p * (1 - p) / N) - 1.0 / N


@pytest.mark.parametrize("m", [1, 4, 9])
def test_d1_bound_is_the_exact_chi2_law(m):
    # d = 1: W = χ²_m and D_m γ(s, x/2) is exactly its CDF; α is the exact δ3-quantile
    x = np.linspace(0.01, 20, 50)
    assert np.allclose(wishart_lambda_min_cdf_bound(x, 1, m), stats.chi2.cdf(x, m), rtol=1e-10, atol=1e-14)
    assert wishart_alpha(0.05, 1, m) == pytest.approx(stats.chi2.ppf(0.05, m), rel=1e-9)
    assert math.exp(wishart_log_Dm(1, m)) == pytest.approx(1 / special.gamma(m / 2), rel=1e-12)


def test_log_Dm_matches_direct_gamma_formula_and_survives_large_m():
    d, m = 7, 20
    g = special.gamma
    direct = d * g(1.5) * g((m + 1) / 2) / (g(d / 2 + 1) * g((m - d + 1) / 2) * g((m - d + 2) / 2))
    assert math.exp(wishart_log_Dm(d, m)) == pytest.approx(direct, rel=1e-12)
    assert math.isfinite(wishart_log_Dm(500, 1000))  # Γ(500) overflows; log-gamma does not


@pytest.mark.parametrize("d,m", [(3, 6), (5, 8), (10, 20)])
def test_monte_carlo_lambda_min_quantile(d, m):
    N = 20000
    lam = lambda_min_samples(d, m, N, seed=d * 100 + m)
    for delta3 in (0.02, 0.1, 0.3):
        alpha = wishart_alpha(delta3, d, m)
        assert np.mean(lam < alpha) <= upper(delta3, N), (d, m, delta3)
    # the tail bound holds along a whole grid of thresholds
    xs = np.quantile(lam, [0.01, 0.05, 0.2, 0.5])
    for x in xs:
        p_hat = np.mean(lam < x)
        assert p_hat <= upper(min(wishart_lambda_min_cdf_bound(x, d, m), 1.0), N)


@pytest.mark.parametrize("d,m", [(3, 6), (5, 8)])
def test_monte_carlo_interval_behind_alpha1(d, m):
    # P(α ≤ λ_min < α + α1) ≤ δ1(1 − δ3) for the consistent α1, hence also for the smaller reference α1
    N = 20000
    lam = lambda_min_samples(d, m, N, seed=7 + d)
    for d1, d3 in ((0.05, 0.05), (0.2, 0.02)):
        alpha = wishart_alpha(d3, d, m)
        a_con = wishart_alpha1(d1, d3, d, m, variant="consistent")
        a_ref = wishart_alpha1(d1, d3, d, m, variant="reference")
        assert 0 < a_ref < a_con
        target = d1 * (1 - d3)
        assert np.mean((lam >= alpha) & (lam < alpha + a_con)) <= upper(target, N)
        assert np.mean((lam >= alpha) & (lam < alpha + a_ref)) <= upper(target, N)


def test_consistent_alpha1_follows_from_the_bound_exactly():
    # D_m[γ(s, (α+α1)/2) − γ(s, α/2)] = δ1(1 − δ3) by construction
    d, m, d1, d3 = 6, 15, 0.01, 0.001
    a = wishart_alpha(d3, d, m)
    a1 = wishart_alpha1(d1, d3, d, m, variant="consistent")
    lhs = wishart_lambda_min_cdf_bound(a + a1, d, m) - wishart_lambda_min_cdf_bound(a, d, m)
    assert lhs == pytest.approx(d1 * (1 - d3), rel=1e-8)


def test_reference_alpha1_smaller_and_sigma2_larger_on_a_grid():
    for d, m in ((5, 10), (12, 40), (100, 200)):
        for d1, d3 in ((1e-3, 1e-3), (5e-3, 5e-3), (1e-6, 1e-12)):
            r = wishart_alpha1(d1, d3, d, m)
            c = wishart_alpha1(d1, d3, d, m, variant="consistent")
            assert 0 < r < c
            assert qop_sigma2(0.5, d1, d3, L=1, d=d, m=m) >= qop_sigma2(0.5, d1, d3, L=1, d=d, m=m, alpha1="consistent")


def test_gamma_increment_accurate_when_tiny():
    # compare the Newton solution with a high-precision quadrature of the density over [x0, x0 + h]
    s, x0, add = 50.5, 10.0, 1e-30
    h = float(_gamma_increment(s, x0, add))
    from scipy import integrate

    dens = lambda t: math.exp((s - 1) * math.log(t) - t - special.gammaln(s))  # noqa: E731
    val = integrate.quad(dens, x0, x0 + h, epsabs=0, epsrel=1e-12)[0]
    assert val == pytest.approx(add, rel=1e-6)
    # and the plain inversion where it is accurate
    h2 = float(_gamma_increment(2.0, 1.0, 0.1))
    assert h2 == pytest.approx(special.gammaincinv(2.0, special.gammainc(2.0, 1.0) + 0.1) - 1.0, rel=1e-9)


def test_sigma2_formula():
    d, m, L, rho, eps, d1, d3 = 12, 30, 2.0, 1.0, 0.7, 1e-4, 1e-6
    a = wishart_alpha(d3, d, m)
    a1 = wishart_alpha1(d1, d3, d, m)
    f2 = (m - d + 1) / a + 1
    want = max(2 * L / eps * (f2 + 2 * (2 * rho + 2) / a), 2 * L / a1)
    assert qop_sigma2(eps, d1, d3, L=L, d=d, m=m, rho=rho) == pytest.approx(want, rel=1e-12)


def test_beta_and_output_sigma_formulas():
    b = qop_beta(1e-3, 2e-3, 10, 25)
    assert b == pytest.approx((math.sqrt(2 * math.log(2 / (2e-3 * (1 - 1e-3)))) + 5 + math.sqrt(10)) ** 2)
    tau, eta, e2, d2, a, s2 = 1e-3, 2e-3, 0.5, 1e-4, 3.0, 40.0
    half = math.sqrt(2 * tau / (a * s2)) + b * eta / a
    paper = qop_output_sigma(tau, eta, epsilon2=e2, delta2=d2, alpha=a, sigma2=s2, beta=b)
    assert paper == pytest.approx(half * 2 / e2 * math.sqrt(2 * math.log(1.25 / d2)), rel=1e-12)
    analytic = qop_output_sigma(tau, eta, epsilon2=e2, delta2=d2, alpha=a, sigma2=s2, beta=b, calibration="analytic")
    assert analytic == pytest.approx(gaussian_sigma(e2, d2, 2 * half), rel=1e-12)
    assert analytic < paper


def test_lop_calibration():
    assert lop_regularization(0.5, 25.0) == 100.0
    assert lop_noise_scale(0.5, 0.01, 3.0) == pytest.approx(3.0 * math.sqrt(8 * math.log(200) + 2) / 0.5)


def test_validation_messages():
    with pytest.raises(ValueError, match=r"^delta3 must be a finite number > 0 and < 1; got 1.5$"):
        wishart_alpha(1.5, 3, 6)
    with pytest.raises(ValueError, match=r"^m must be a finite number >= 5 and <= 100000; got 4$"):
        wishart_alpha(0.1, 5, 4)
    with pytest.raises(ValueError, match=r"alpha1 must be one of \['reference', 'consistent'\]"):
        wishart_alpha1(0.1, 0.1, 3, 6, variant="tight")
    with pytest.raises(TypeError, match=r"epsilon1 must be a finite number > 0"):
        qop_sigma2("1", 0.1, 0.1, L=1, d=3, m=6)


def _alpha1_reference_80_digits(delta1, delta3, d, m):
    """The reference α1 in 80-digit arithmetic: h with γ(s, α + h) − γ(s, α) = δ1(1 − δ3)/D_m.

    mpmath integrates the gamma density over [α, α + h] directly (``gammainc(s, a, b)``), so no
    cancellation; Newton's method in 80 digits. α and log D_m are the package's (tested above).
    """
    import mpmath as mp

    with mp.workdps(80):
        s = mp.mpf(m - d + 1) / 2
        a = mp.mpf(wishart_alpha(delta3, d, m))
        add = mp.mpf(delta1) * (1 - mp.mpf(delta3)) / mp.exp(mp.mpf(wishart_log_Dm(d, m)))

        def dens(x):
            return x ** (s - 1) * mp.exp(-x)

        h = add / dens(a)
        for _ in range(100):
            new = h - (mp.gammainc(s, a, a + h) - add) / dens(a + h)
            if abs(new - h) < mp.mpf(10) ** -30 * h:
                return float(new)
            h = new
    raise AssertionError("80-digit Newton did not converge")


@pytest.mark.parametrize(("d", "m"), [(100, 200), (100, 400), (50, 200), (12, 69), (10, 20)])
def test_reference_alpha1_matches_80_digit_arithmetic_where_alpha1_is_below_ulp_alpha(d, m):
    # (100, 200), (100, 400), (50, 200): α1 < ulp(α), where the old Newton loop added the tangent step
    # 16 times (+11%, 17×, 17×); (12, 69), (10, 20): ordinary regimes. The tolerance is rounding:
    # α and D_m enter as doubles (relative error ~1e-15 each, amplified by the density's slope
    # (s − 1)/α·α ≤ 10²), far below 1e-10.
    d1 = d3 = 0.005
    got = wishart_alpha1(d1, d3, d, m)
    assert got == pytest.approx(_alpha1_reference_80_digits(d1, d3, d, m), rel=1e-10)
    if (d, m) in ((100, 200), (100, 400), (50, 200)):
        alpha = wishart_alpha(d3, d, m)
        assert alpha + got == alpha or got < 1e-12 * alpha  # the regime the issue is about


def test_optimal_delta3_share_beats_every_share_of_a_linear_and_a_log_grid():
    from dpexplore.erm import qop_optimal_delta3_share

    for eps, dl, L, d, m in [(0.5, 0.01, 25.0, 100, 200), (1.0, 1e-5, 1.0, 12, 69), (2.0, 1e-3, 1.0, 5, 10)]:
        share = qop_optimal_delta3_share(eps, dl, L=L, d=d, m=m)
        best = qop_sigma2(eps, dl * (1 - share), dl * share, L=L, d=d, m=m)
        grid = np.concatenate([np.linspace(0.01, 0.99, 99), 10.0 ** np.linspace(-290, -1, 500)])
        others = np.array([qop_sigma2(eps, dl * (1 - g), dl * g, L=L, d=d, m=m) for g in grid])
        assert best <= np.nanmin(others) * (1 + 1e-9)
    # the number: at d = 100, m = 2d the even split pays ≈ 10¹² in σ²
    share = qop_optimal_delta3_share(0.5, 0.01, L=25.0, d=100, m=200)
    ratio = qop_sigma2(0.5, 0.005, 0.005, L=25.0, d=100, m=200) / qop_sigma2(
        0.5, 0.01 * (1 - share), 0.01 * share, L=25.0, d=100, m=200)
    assert 1e11 < ratio < 1e13


def test_qop_and_compare_mechanisms_accept_the_optimal_split():
    from dpexplore.erm import compare_mechanisms, interpolation_data, qop, qop_optimal_delta3_share

    X, y, t = interpolation_data(60, 10, xi=1.0, rng=0)
    share = qop_optimal_delta3_share(1.0, 1e-3, L=1.0, d=10, m=20)
    r = qop(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, anchor=t, delta3_share="optimal", rng=0,
            iterations=50)
    assert r.split["delta3"] == pytest.approx(1e-3 * share) and r.split["delta1"] + r.split["delta3"] == 1e-3
    assert r.diagnostics["sigma2"] < qop(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, anchor=t, rng=0,
                                         iterations=50).diagnostics["sigma2"]
    c = compare_mechanisms(X, y, radii=[1.0], epsilon=1.0, delta=1e-3, lam=0.1, anchor=t, clip=10.0, trials=1,
                           rng=0, iterations=50, delta3_share="optimal", mechanisms=("QOP",), nonprivate=False)
    assert c.info["delta3"] == pytest.approx(1e-3 * share)
    assert c.info["sigma2"] == pytest.approx(r.diagnostics["sigma2"])
    with pytest.raises(ValueError, match="delta3_share must be a number in \\(0, 1\\) or 'optimal'; got 'best'"):
        qop(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, anchor=t, delta3_share="best")


def test_noisy_anchor_eta_is_the_distance_and_scale_the_per_coordinate_sd():
    from dpexplore.erm import noisy_anchor

    t = np.arange(50.0)
    for eta in (1e-3, 0.1, 3.0):
        assert np.linalg.norm(noisy_anchor(t, eta=eta, rng=1) - t) == pytest.approx(eta, rel=1e-12)
    a = noisy_anchor(np.zeros(20_000), scale=0.1, rng=2)
    # sample sd of 20 000 N(0, 0.01) draws: relative standard error 1/√(2·20 000) = 0.5%; 5 s.e.
    assert np.std(a) == pytest.approx(0.1, rel=0.025)
    with pytest.raises(TypeError, match="exactly one of eta"):
        noisy_anchor(t, eta=0.1, scale=0.1)
    with pytest.raises(TypeError, match="exactly one of eta"):
        noisy_anchor(t)
