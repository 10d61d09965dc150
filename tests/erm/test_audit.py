"""Audits of the private ERM mechanisms (dpexplore.erm.audit): claims hold, broken variants are caught.

Correct mechanisms: the exact ε of the worst pair and the statistical lower bound ε̂ (confidence 0.99,
several seeds) stay below the claim, and ε̂ below the pair's exact ε. Broken LOP and the broken QOP of
the dashboard (σ used for σ²): caught at the default run count of the dashboard (100 000 runs per
input). The two other QOP bugs (σ² halved, α at 10·δ3) are *not* catchable on the worst pair we know —
their exact ε there is below the claim — which the tests state as a measured fact.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core import gdp_epsilon
from dpexplore.erm import audit as A
from dpexplore.erm import gradient_bound, lop_noise_scale, qop_sigma2

DEFAULT_RUNS = 100_000  # QuadraticPerturbationDashboard.audit_runs[0]


@pytest.mark.parametrize("clipped", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lop_audit_stays_below_claim_and_exact(clipped, seed):
    a = A.audit_lop(epsilon=2.0, delta=0.01, clipped=clipped, runs=20_000, confidence=0.99, rng=seed)
    assert a.exact_epsilon < a.claimed_epsilon
    assert not a.violation
    assert a.epsilon_lower <= a.exact_epsilon  # a valid lower bound of the pair's ε (1% failure chance)
    assert a.epsilon_lower > 0.4  # non-vacuous: the audit sees the correct mechanism's leakage


@pytest.mark.slow
@pytest.mark.parametrize("clipped", [False, True])
def test_broken_lop_is_caught_at_the_default_run_count(clipped):
    a = A.audit_lop(epsilon=2.0, delta=0.01, clipped=clipped, broken=True, runs=DEFAULT_RUNS, rng=7)
    assert a.exact_epsilon > 2.5 and a.violation and a.statistical.violation
    assert a.epsilon_lower > a.claimed_epsilon


@pytest.mark.parametrize("eps", [0.25, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.05])
def test_lop_exact_epsilon_of_the_worst_pair_respects_the_claim(eps, delta):
    sig = lop_noise_scale(eps, delta, 1.0)
    assert A.lop_pair_exact_epsilon(2.0, sig, delta) <= eps
    # the exact value is the Gaussian mechanism's: μ = 2ζ/σ_b
    assert A.lop_pair_exact_epsilon(2.0, sig, delta) == pytest.approx(gdp_epsilon(2.0 / sig, delta))


def test_broken_lop_exceeds_its_claim_exactly_only_at_larger_epsilon():
    # KST's calibration has slack: halving σ_b at (0.5, 0.01) is still (0.5, 0.01)-DP on the worst pair
    assert A.lop_pair_exact_epsilon(2.0, lop_noise_scale(0.5, 0.01, 1.0) / 2, 0.01) < 0.5
    assert A.lop_pair_exact_epsilon(2.0, lop_noise_scale(2.0, 0.01, 1.0) / 2, 0.01) > 2.5


def test_lop_worst_pair_respects_the_public_bounds_and_attains_2zeta():
    X0, y0, X1, y1, shift = A.lop_worst_case_pair(grad_bound=3.0, radius=50.0, n=4, x_small=0.01)
    for X, y in ((X0, y0), (X1, y1)):
        assert gradient_bound(X, y, 50.0) <= 3.0
    assert np.array_equal(X0, X1) and np.sum(y0 != y1) == 1  # replace one example
    assert shift == pytest.approx(2 * (3.0 - 0.01**2 * 50.0), rel=1e-8)  # 2(ζ − x²κ) → 2ζ as x → 0
    with pytest.raises(ValueError, match="x_small"):
        A.lop_worst_case_pair(grad_bound=1.0, radius=1e6, x_small=0.01)


def test_broken_lop_release_halves_the_noise():
    X0, y0, _, _, _ = A.lop_worst_case_pair()
    # the pair's public bounds: ξ = x_small = 0.01, B = |y| of the changed row, so ζ = ξ(κξ + B) = 1 (to 1e-9)
    r = A.broken_lop(X0, y0, epsilon=1.0, delta=1e-3, lam=0.0, radius=100.0, smoothness=1.0, feature_bound=0.01,
                     label_bound=float(np.abs(y0).max()), rng=0)
    assert r.diagnostics["grad_bound"] == pytest.approx(1.0, rel=1e-8)
    assert r.diagnostics["noise_sigma"] == pytest.approx(lop_noise_scale(1.0, 1e-3, 1.0) / 2, rel=1e-8)
    assert r.mechanism.startswith("BROKEN") and r.epsilon == 1.0


def test_qop_pair_exact_epsilon_matches_the_m2_closed_form():
    # m = 2: χ²_2 is Exp(1/2); the likelihood ratio is e^{c/2} above c and 0 below, so the pair is
    # (0, δ)-DP when P(W < c) = 1 − e^{−c/2} ≤ δ and not DP at all otherwise.
    for c, delta in ((0.01, 0.01), (0.03, 0.01), (1e-4, 1e-4), (3e-4, 1e-4)):
        expected = 0.0 if 1 - math.exp(-c / 2) <= delta else math.inf
        assert A.qop_pair_exact_epsilon(c, 2, delta) == expected


def test_qop_pair_exact_epsilon_converges_in_bins_for_larger_m():
    a = A.qop_pair_exact_epsilon(0.5, 8, 1e-3, bins=2000)
    b = A.qop_pair_exact_epsilon(0.5, 8, 1e-3, bins=16000)
    assert 0 < a <= b * (1 + 1e-9) + 1e-12 and b - a < 0.02


@pytest.mark.parametrize("m", [2, 4, 8])
@pytest.mark.parametrize("eps,delta", [(0.5, 0.01), (2.0, 1e-3), (4.0, 1e-5)])
def test_qop_exact_epsilon_of_the_worst_pair_is_far_below_the_claim(m, eps, delta):
    s2 = qop_sigma2(eps, delta / 2, delta / 2, L=1.0, d=1, m=m)
    assert A.qop_pair_exact_epsilon(1.0 / s2, m, delta) <= eps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_qop_statistical_audit_stays_below_claim(seed):
    a = A.audit_qop(epsilon=2.0, delta=0.01, runs=20_000, confidence=0.99, rng=seed)
    assert not a.violation and a.epsilon_lower <= a.claimed_epsilon


def test_a_factor_two_qop_bug_would_hide_in_the_calibrations_slack():
    """Why σ² halved is not shipped as a broken variant: on the worst pair it is still within the claim."""
    for m in (2, 4, 8):
        s2_half = qop_sigma2(2.0, 0.005, 0.005, L=1.0, d=1, m=m) / 2
        assert A.qop_pair_exact_epsilon(1.0 / s2_half, m, 0.01) < 2.0


def test_the_dashboards_broken_qop_is_sigma_used_for_sigma2():
    assert A.QOP_BUGS[0] == "sigma_for_sigma2"
    good = qop_sigma2(2.0, 0.005, 0.005, L=1.0, d=1, m=2)
    assert A.broken_qop_sigma2(2.0, 0.005, 0.005, L=1.0, d=1, m=2) == pytest.approx(math.sqrt(good))
    a = A.audit_qop(epsilon=2.0, delta=0.01, broken=True, runs=200, rng=0)
    assert a.mechanism.startswith("BROKEN (σ used for σ²)") and a.details["sigma2"] == pytest.approx(math.sqrt(good))


def test_broken_qop_true_epsilon_on_the_worst_pair():
    """The σ-for-σ² bug's exact ε on the m = 2 pair: ∞ exactly when the D0-only mass 1 − e^{−c/2} exceeds δ."""
    for eps, delta in ((2.0, 0.01), (1.0, 0.01), (0.5, 0.01), (2.0, 0.05), (4.0, 1e-3)):
        c = 1.0 / A.broken_qop_sigma2(eps, delta / 2, delta / 2, L=1.0, d=1, m=2)
        mass = -math.expm1(-c / 2)
        expected = math.inf if mass > delta else 0.0
        assert A.qop_pair_exact_epsilon(c, 2, delta) == expected
    # at the dashboard's defaults (claimed ε = 2, δ = 0.01) the pair is not DP at all
    c = 1.0 / A.broken_qop_sigma2(2.0, 0.005, 0.005, L=1.0, d=1, m=2)
    assert -math.expm1(-c / 2) > 0.015 and math.isinf(A.qop_pair_exact_epsilon(c, 2, 0.01))
    # the correct calibration keeps that mass below δ (exact ε 0 at δ = 0.01)
    c_good = 1.0 / qop_sigma2(2.0, 0.005, 0.005, L=1.0, d=1, m=2)
    assert -math.expm1(-c_good / 2) < 0.001 and A.qop_pair_exact_epsilon(c_good, 2, 0.01) == 0.0


@pytest.mark.parametrize("seed", [7, 0, 1, 2])
def test_broken_qop_is_caught_at_the_default_run_count(seed):
    a = A.audit_qop(epsilon=2.0, delta=0.01, broken=True, runs=DEFAULT_RUNS, rng=seed)
    st = a.statistical
    assert math.isinf(a.exact_epsilon) and a.violation and st.violation and a.epsilon_lower > a.claimed_epsilon
    # the test is the likelihood-ratio test: it flags D0's exclusive region and never misses on D1
    assert st.false_negative_rate == 0
    p = a.details["exclusive_mass"]
    half = DEFAULT_RUNS // 2
    assert abs((1 - st.false_positive_rate) - p) < 5 * math.sqrt(p * (1 - p) / half)  # z = 5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_correct_qop_is_not_refuted_at_the_default_run_count(seed):
    a = A.audit_qop(epsilon=2.0, delta=0.01, runs=DEFAULT_RUNS, rng=seed)
    assert a.exact_epsilon == 0.0 and not a.violation and a.epsilon_lower <= a.claimed_epsilon
    p = a.details["exclusive_mass"]  # the same D0-only region exists, with mass below δ
    half = DEFAULT_RUNS // 2
    assert abs((1 - a.statistical.false_positive_rate) - p) < 5 * math.sqrt(p * (1 - p) / half) + 1 / half


@pytest.mark.parametrize("seed", [0, 1])
def test_broken_qop_within_its_claim_on_the_pair_is_not_refuted(seed):
    """Validity of the lower bound: at ε = 0.5, δ = 0.01 the bug's D0-only mass (0.79%) is below δ, exact ε = 0."""
    a = A.audit_qop(epsilon=0.5, delta=0.01, broken=True, runs=DEFAULT_RUNS, rng=seed)
    assert a.exact_epsilon == 0.0 and a.details["exclusive_mass"] < 0.01 and not a.violation


def test_qop_with_an_inexact_anchor_is_refuted():
    """The exact-solve claim does not cover an anchor with error η: disjoint supports, ε = ∞."""
    a = A.audit_qop(epsilon=2.0, delta=0.01, anchor_error=0.1, runs=2000, rng=0)
    assert math.isinf(a.exact_epsilon) and a.statistical.violation and a.epsilon_lower > 5
    assert a.statistical.false_positive_rate == 0 and a.statistical.false_negative_rate == 0


def test_qop_worst_pair_is_interpolating_and_changes_curvature_by_L():
    X0, y0, X1, y1 = A.qop_worst_case_pair(smoothness=2.0, n=4, theta_star=-1.5)
    for X, y in ((X0, y0), (X1, y1)):
        assert np.allclose(X[:, 0] * -1.5, y) and np.max(X**2) <= 2.0 + 1e-12
    assert (X1**2).sum() - (X0**2).sum() == pytest.approx(2.0)
    assert np.sum(np.any(X0 != X1, axis=1)) == 1


def test_qop_audit_scores_follow_the_exact_law():
    """The batched solver's θ on D1 has the law θ* − λ/(S1 + σ²W): compare with χ²_2 (KS test)."""
    a = A.audit_qop(epsilon=2.0, delta=0.01, runs=200, rng=0)
    s2 = a.details["sigma2"]
    X0, y0, X1, y1 = A.qop_worst_case_pair(smoothness=1.0, n=5)
    g = np.random.default_rng(5)
    W = A._wishart(1, 2, 4000, g)
    th = A._qop_solve(X1, y1, 1.0, s2, W, 1.0, 10.0)
    w = (1.0 / (1.0 - th) - 5.0) / s2  # invert θ = 1 − 1/(5 + σ²W)
    assert stats.kstest(w, stats.chi2(2).cdf).pvalue > 1e-4


def test_audit_can_be_cancelled_and_reports_progress():
    seen = []

    def progress(done, total):
        seen.append(done)
        return done < 200

    a = A.audit_lop(epsilon=1.0, delta=0.01, runs=1000, chunk=200, rng=0, progress=progress)
    assert a.statistical.cancelled and math.isnan(a.epsilon_lower) and seen == [200]


def test_audit_erm_dispatches_every_mechanism():
    for mech in A.AUDIT_MECHANISMS:
        a = A.audit_erm(mech, epsilon=2.0, delta=0.01, runs=200, rng=0)
        assert a.claimed_epsilon == 2.0 and a.delta == 0.01
    with pytest.raises(ValueError, match="mechanism"):
        A.audit_erm("DP-SGD", epsilon=1.0, delta=0.01)


# -- qop_inexact (inexact anchor + Gaussian output noise) on the anchor pair --------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_correct_qop_inexact_is_not_refuted_at_the_default_run_count(seed):
    a = A.audit_qop_inexact(epsilon=2.0, delta=0.01, runs=DEFAULT_RUNS, rng=seed)
    assert not a.violation and a.epsilon_lower <= a.claimed_epsilon
    # the pair is provably (gdp_epsilon(η/σ̃, δ), δ)-DP, far below the claim: the calibration's slack
    assert a.exact_epsilon <= a.details["epsilon_upper"] + 1e-9 and a.details["epsilon_upper"] < 0.01


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_broken_qop_inexact_is_caught_at_the_default_run_count(seed):
    a = A.audit_qop_inexact(epsilon=2.0, delta=0.01, broken=True, runs=DEFAULT_RUNS, rng=seed)
    assert a.mechanism.startswith("BROKEN (anchor term") and a.violation and a.statistical.violation
    assert a.epsilon_lower > a.claimed_epsilon and a.exact_epsilon > 100 * a.claimed_epsilon
    assert a.details["output_sigma"] < 1e-6 * a.details["correct_output_sigma"]


def test_broken_qop_inexact_hides_behind_a_large_declared_tau():
    """With τ = 10⁻⁶ the solver-noise alone covers the anchor's move at η = 0.1: not refutable on this pair."""
    a = A.audit_qop_inexact(epsilon=2.0, delta=0.01, broken=True, tau=1e-6, runs=2000, rng=0)
    assert a.exact_epsilon <= a.claimed_epsilon and not a.violation


def test_qop_inexact_pair_exact_epsilon_limits():
    # σ² → 0: every W moves the solution by ≈ η, the pair is the Gaussian mechanism with μ = η/σ̃
    e = A.qop_inexact_pair_exact_epsilon(eta=1.0, smoothness=1.0, sigma2=1e-9, m=2, output_sigma=0.5, delta=0.01)
    assert e == pytest.approx(gdp_epsilon(2.0, 0.01), rel=1e-3)
    # a mixture of smaller shifts is never worse than the largest one (joint convexity), and no noise is ∞
    e = A.qop_inexact_pair_exact_epsilon(eta=1.0, smoothness=1.0, sigma2=1.0, m=2, output_sigma=0.2, delta=0.01)
    assert 0 < e <= gdp_epsilon(5.0, 0.01)
    assert math.isinf(A.qop_inexact_pair_exact_epsilon(eta=0.1, smoothness=1.0, sigma2=1.0, m=2, output_sigma=0.0,
                                                       delta=0.01))


def test_qop_inexact_audit_uses_the_mechanisms_calibration_and_a_true_tau():
    """σ̃ and σ² are qop_inexact's own; the declared τ = 1e-12 holds for the batched solver (closed form in d = 1)."""
    from dpexplore.erm import qop_inexact

    a = A.audit_qop_inexact(epsilon=2.0, delta=0.01, runs=200, rng=0)
    X0, y0, X1, y1 = A.qop_anchor_pair()
    r = qop_inexact(X1, y1, epsilon=2.0, delta=0.01, lam=0.0, radius=10.0, anchor=[0.9], tau=1e-12, eta=0.1,
                    feature_bound=1.0, m=2, rng=0)
    assert r.diagnostics["output_sigma"] == a.details["output_sigma"] and r.diagnostics["sigma2"] == a.details["sigma2"]
    s2 = a.details["sigma2"]
    W = A._wishart(1, 2, 5000, np.random.default_rng(1))
    th = A._qop_solve(X1, y1, 0.9, s2, W, 0.0, 10.0)
    w = W[:, 0, 0]
    exact = 0.9 + 0.1 / (1.0 + s2 * w)  # θ̃ + Lη/(L + σ²W)
    subopt = 0.5 * (1.0 + s2 * w) * (th - exact) ** 2  # J(θ̂) − J(θ*) of the 1-d quadratic
    assert np.max(subopt) <= 1e-12


def test_nondegenerate_anchor_pair_exact_epsilon_closed_form_and_numerical():
    """Exact-solve QOP with an inexact anchor on a pair with equal supports: ε = ln(1/(4δ)) for m = 2."""
    from scipy import integrate, optimize, stats

    for dl in (0.01, 1e-3):
        assert A.qop_anchor_scale_pair_exact_epsilon(2, dl) == pytest.approx(math.log(1 / (4 * dl)), abs=1e-9)
    # m = 4: against direct numerical integration of the two hockey-stick divergences (χ²_4 vs χ²_4 / 2)
    m, dl = 4, 0.01

    def hockey(eps):
        def h(p, q):
            return integrate.quad(lambda v: max(p(v) - math.exp(eps) * q(v), 0.0), 0, 400, limit=400, points=[1, 10])[0]
        p0 = lambda v: stats.chi2.pdf(v, m)  # noqa: E731
        p1 = lambda v: 2 * stats.chi2.pdf(2 * v, m)  # noqa: E731
        return max(h(p0, p1), h(p1, p0)) - dl

    assert A.qop_anchor_scale_pair_exact_epsilon(m, dl) == pytest.approx(optimize.brentq(hockey, 0.1, 10), abs=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nondegenerate_anchor_pair_refutes_exact_solve_qop_with_an_inexact_anchor(seed):
    # measured for seeds 0, 1, 2 at 100 000 runs: ε̂ = 2.10, 2.66, 2.61 (claim 2, exact 3.22): a measured
    # leak above the claim, not the run-count ceiling of the degenerate pair (≈ 9.5)
    a = A.audit_qop_anchor_scale_pair(epsilon=2.0, delta=0.01, runs=100_000, rng=seed)
    assert a.exact_epsilon == pytest.approx(math.log(25), abs=1e-8)
    assert a.claimed_epsilon < a.statistical.epsilon_lower <= a.exact_epsilon
