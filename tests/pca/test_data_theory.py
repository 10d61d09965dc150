"""Data generators (exact eigengap, v1 and coherence), the coherence measure and the theory functions."""

import math

import numpy as np
import pytest

from dpexplore.pca import (
    coherence,
    dttz14_bound,
    make_matrix,
    sin2,
    spiked_gaussian,
    theorem_1_1,
    theorem_1_2,
    top_singular,
)


@pytest.mark.parametrize("n,d,kappa,ups", [(300, 40, 0.6, None), (300, 40, 0.3, 0.2), (50, 80, 0.9, 0.5)])
def test_make_matrix_has_the_requested_spectrum_and_coherence(n, d, kappa, ups):
    data = make_matrix(n, d, eigengap=kappa, coherence=ups, rng=1)
    v, s1, s2 = top_singular(data.A)
    # sin2 = 1 − ⟨v, x⟩²/(‖v‖²‖x‖²) is formed from three length-d dot products (relative error
    # ≤ d·eps/2 each), a square and a division: the computed value is within (2d + 2)·eps of the true
    # one. The true sin² of the eigensolver's v is O((eps/κ)²), far below that, so 4·d·eps is
    # the resolution of this check (it was 1e-20, below one ulp of 1: 2.2e-16 failed on another CPU).
    assert sin2(v, data.v1) <= 4 * d * np.finfo(float).eps
    assert s1 == pytest.approx(data.sigma1, rel=1e-10) and s2 == pytest.approx(data.sigma2, rel=1e-10)
    assert (s1**2 - s2**2) / s1**2 == pytest.approx(kappa, rel=1e-9)
    target = 1 / math.sqrt(n) if ups is None else ups
    s = round(1 / target**2)
    assert coherence(data.A) == pytest.approx(1 / math.sqrt(s), rel=1e-9) == pytest.approx(data.coherence)
    assert np.max(np.linalg.norm(data.A, axis=1)) == pytest.approx(1.0)


def test_coherence_slider_spans_incoherent_to_coherent():
    lo = make_matrix(400, 30, eigengap=0.8, coherence=0.05, rng=0)  # 1/sqrt(400) = 0.05: fully spread
    hi = make_matrix(400, 30, eigengap=0.8, coherence=1.0, rng=0)  # one row carries v1
    assert lo.coherence == pytest.approx(0.05) and hi.coherence == pytest.approx(1.0)
    proj = np.abs(hi.A @ hi.v1)
    assert np.count_nonzero(proj > 1e-9) == 1


def test_coherence_on_any_matrix_and_validation():
    A = np.random.default_rng(0).normal(size=(100, 5))
    u = A @ top_singular(A)[0]
    assert coherence(A) == pytest.approx(np.max(np.abs(u)) / np.linalg.norm(u))
    msg = r"coherence must be a number in \[1/sqrt\(n\), 1\] = \[0\.1, 1\] for n=100; got 0\.05"
    with pytest.raises(ValueError, match=msg):
        make_matrix(100, 5, eigengap=0.5, coherence=0.05)
    with pytest.raises(ValueError, match=r"eigengap must be a finite number > 0 and <= 1; got 1\.5"):
        make_matrix(100, 5, eigengap=1.5)
    with pytest.raises(TypeError, match=r"A must be a 2-d array of numbers"):
        coherence("abc")


def test_spiked_gaussian_covariance():
    n, d, kappa = 20000, 6, 0.5
    data = spiked_gaussian(n, d, eigengap=kappa, rng=3)
    lam1, lam2 = data.sigma1**2, data.sigma2**2
    assert lam1 + (d - 1) * lam2 == pytest.approx(1.0) and lam2 == pytest.approx((1 - kappa) * lam1)
    cov = data.A.T @ data.A / n
    truth = lam2 * np.eye(d) + (lam1 - lam2) * np.outer(data.v1, data.v1)
    # entrywise sd of a sample covariance of Gaussians is <= (Σ_ii Σ_jj + Σ_ij²)^½/√n <= √2 λ1/√n; z = 5
    assert np.max(np.abs(cov - truth)) < 5 * math.sqrt(2) * lam1 / math.sqrt(n)


def test_theorem_1_1_scaling_and_conditions():
    a = theorem_1_1(2000, 200, 0.8, 2000**-0.5, 1.0, 1e-5, 5.0)
    b = theorem_1_1(2000, 200, 0.8, 2000**-0.5, 2.0, 1e-5, 5.0)
    # ε² enters as 2ρ(ε, δ), the zCDP budget the mechanism spends (noise ∝ 1/√(2ρ)), not ε²/(2 ln(2/δ))
    from dpexplore.core.gaussian import dp_to_zcdp

    assert a.ok and a.kind == "rate"
    assert a.value / b.value == pytest.approx(dp_to_zcdp(2.0, 1e-5) / dp_to_zcdp(1.0, 1e-5), rel=1e-12)
    for e in (0.3, 1.0, 10.0, 100.0):
        t = theorem_1_1(2000, 200, 0.8, 2000**-0.5, e, 1e-5, 5.0)
        assert t.value * 2 * dp_to_zcdp(e, 1e-5) == pytest.approx(a.value * 2 * dp_to_zcdp(1.0, 1e-5), rel=1e-12)
    # so at large ε it falls like ε^-1.4 to ε^-1 (the measured error: ≈ ε⁻¹·¹), not like ε⁻² (the classic scale)
    hi = [theorem_1_1(2000, 200, 0.8, 2000**-0.5, e, 1e-5, 5.0).value for e in (50.0, 100.0)]
    assert -1.5 < math.log(hi[1] / hi[0]) / math.log(2) < -1.0
    # coherence enters as Υ²
    c = theorem_1_1(2000, 200, 0.8, 4 * 2000**-0.5, 1.0, 1e-5, 5.0)
    assert c.value / a.value == pytest.approx(16.0)
    bad = theorem_1_1(100, 20, 0.5, 0.01, 1.0, 1e-5, 1.0)
    assert math.isnan(bad.value) and "coherence must lie in" in bad.reason


def test_theorem_1_2_slopes_and_sample_complexity():
    # privacy-dominated regime (small ε): local log-log slope in n close to −2
    vals = [theorem_1_2(n, 50, 0.9, 0.05, 1e-5, 0.4).value for n in (10**4, 2 * 10**4)]
    slope = math.log(vals[1] / vals[0]) / math.log(2)
    assert -2.0 <= slope < -1.9
    # non-private regime (huge ε): slope close to −1
    vals = [theorem_1_2(n, 50, 0.9, 1e6, 1e-5, 0.4).value for n in (10**4, 2 * 10**4)]
    assert -1.05 < math.log(vals[1] / vals[0]) / math.log(2) <= -1.0
    below = theorem_1_2(40, 50, 0.9, 1.0, 1e-5, 0.5)
    assert math.isnan(below.value) and "sample-complexity condition" in below.reason


def test_dttz14_bound_formula_and_vacuous_case():
    from dpexplore.core import gaussian_sigma

    b = dttz14_bound(100, 5.0, 1e-5, 10.0, 3.0)
    sigma = gaussian_sigma(5.0, 1e-5, 1.0)
    assert b.value == pytest.approx((4 * sigma * 10 / (100 - 9)) ** 2)
    vac = dttz14_bound(100, 0.1, 1e-5, 2.0, 1.0)
    assert math.isnan(vac.value) and vac.reason.startswith("vacuous")
    assert math.isnan(dttz14_bound(10, 1.0, 1e-5, 1.0, 1.0).value)
