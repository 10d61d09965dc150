"""Bad inputs for every public function of dpexplore.erm (hypothesis), and numerical edge cases.

Every bad value ends in a TypeError or ValueError naming the parameter, quickly, with no numpy
warning escaping (pytest turns warnings into errors).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import erm as E
from dpexplore.erm import audit as A
from tests.test_bad_inputs import BAD, NONFINITE, WRONG_TYPES, assert_clear_error

X, Y, T = E.interpolation_data(12, 3, xi=1.0, rng=0)
ANCHOR = T + 0.01
BAD_MATRIX = st.one_of(WRONG_TYPES, st.sampled_from([
    [], [[]], [1.0, 2.0], [[[1.0]]], [[math.nan, 1.0, 0.0]] * 12, [[math.inf, 0.0, 0.0]] * 12, "1 2 3",
    np.ones((5, 3)),  # wrong number of rows for y
]))
NEGATIVE_OR_ZERO = st.one_of(st.just(0.0), st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
BAD_VECTOR = st.one_of(WRONG_TYPES, st.sampled_from([
    [], [math.nan, 0.0, 0.0], [math.inf, 0.0, 0.0], [0.0, 0.0], [[0.0, 0.0, 0.0]], np.ones(7), "abc",
]))
BAD_ANY_VECTOR = st.one_of(st.sampled_from(["1", None, {"a": 1}, 1j, b"x", object()]), st.sampled_from([
    [], [math.nan, 0.0], [math.inf], [[0.0, 0.0, 0.0]], "abc"]))  # bad whatever the length
BAD_LABELS = st.one_of(WRONG_TYPES, st.sampled_from([[], np.ones(5), [math.nan] * 12, np.full(12, np.inf)]))
BAD_CHOICE = st.one_of(WRONG_TYPES, st.text(max_size=6).filter(
    lambda t: t not in ("reference", "consistent", "stochastic", "deterministic", "analytic", "paper")))
BAD_SHARE = st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=0.0), st.floats(min_value=1.0, max_value=1e300))
BAD_NONNEG = st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False))
BAD_OPTIONAL = st.one_of(st.sampled_from(["1", [1.0], {"a": 1}, 1j, b"x", object()]), NONFINITE, NEGATIVE_OR_ZERO)
BAD_REAL = st.one_of(st.sampled_from(["1", None, [1.0], {"a": 1}, 1j, b"x", object()]), NONFINITE)
BAD_MATRIX_ALONE = st.one_of(WRONG_TYPES, st.sampled_from([[], [[]], [1.0, 2.0], [[[1.0]]], [[math.nan, 1.0]], "1 2"]))
BAD_SCALAR_POS = st.one_of(st.sampled_from(["1", None, {"a": 1}, 1j, b"x", object()]), NONFINITE, NEGATIVE_OR_ZERO)
BAD_THETA = st.sampled_from([[], [math.nan, 0.0, 0.0], [math.inf, 0.0, 0.0], [0.0, 0.0], np.ones(7), "abc", None,
                             {"a": 1}, 1j, [[[0.0, 0.0, 0.0]]]])
KINDS = {**BAD, "matrix": BAD_MATRIX, "vector": BAD_VECTOR, "labels": BAD_LABELS, "choice": BAD_CHOICE,
         "any_vector": BAD_ANY_VECTOR,
         "optional": BAD_OPTIONAL, "scalar_positive": BAD_SCALAR_POS,
         "radius": BAD_SCALAR_POS.filter(lambda v: not (isinstance(v, float) and v == math.inf)),  # inf: no box
         "theta": BAD_THETA,
         "count_not_none": st.one_of(st.sampled_from(["1", [1.0], 1j]), NONFINITE, st.integers(max_value=2),
                                     st.just(2.5)),
         "real": BAD_REAL, "matrix_alone": BAD_MATRIX_ALONE,
         "share": BAD_SHARE, "nonneg": BAD_NONNEG}

QOP = dict(epsilon=1.0, delta=1e-3, lam=0.1, radius=5.0, anchor=ANCHOR, iterations=50, feature_bound=1.0, rng=0)
QIN = dict(epsilon=1.0, delta=1e-3, lam=0.1, radius=5.0, anchor=ANCHOR, tau=1e-6, eta=1e-2, max_iter=2000,
           feature_bound=1.0, rng=0)
LOP = dict(epsilon=1.0, delta=1e-3, lam=0.1, radius=5.0, iterations=50, feature_bound=1.0, label_bound=5.0, rng=0)
LOPC = {k: v for k, v in LOP.items() if k != "label_bound"}  # clipped LOP needs no label bound
CMP = dict(radii=[0.1, 1.0], epsilon=1.0, delta=1e-2, lam=0.1, anchor=ANCHOR, clip=10.0, trials=1, iterations=30,
           rng=0, nonprivate=False, feature_bound=1.0, label_bound=5.0)
SWP = dict(radius=1.0, anchors=[ANCHOR], weight_scales=[1.0], epsilon=1.0, delta=1e-2, lam=0.1, trials=1,
           iterations=30, feature_bound=1.0, rng=0)
ISW = dict(radii=[1.0], anchors=[ANCHOR], anchor_errors=[0.01], epsilon=1.0, delta=1e-2, lam=0.1, trials=1,
           max_iter=5000, feature_bound=1.0, rng=0)
CAL = dict(L=1.0, d=3, m=6)
CONSTS = dict(L=1.0, n=10, d=4, D=1.0)
AUD = dict(epsilon=2.0, delta=0.01, runs=100, rng=0)
QIP = dict(eta=0.1, smoothness=1.0, sigma2=3e3, m=2, output_sigma=1.0, delta=0.01, nodes=50, grid=50)

CASES = [
    # problems
    ("interpolation_data.n", E.interpolation_data, (), {"n": 5, "d": 2, "xi": 1.0}, "n", "count"),
    ("interpolation_data.xi", E.interpolation_data, (), {"n": 5, "d": 2, "xi": 1.0}, "xi", "positive"),
    ("noisy_anchor.eta", E.noisy_anchor, (T,), {"eta": 0.1}, "eta", "nonneg"),
    ("noisy_anchor.theta_true", E.noisy_anchor, (), {"theta_true": T, "eta": 0.1}, "theta_true", "any_vector"),
    ("empirical_risk.X", E.empirical_risk, (), {"X": X, "y": Y, "theta": T}, "X", "matrix"),
    ("empirical_risk.y", E.empirical_risk, (), {"X": X, "y": Y, "theta": T}, "y", "labels"),
    ("empirical_risk.theta", E.empirical_risk, (), {"X": X, "y": Y, "theta": T}, "theta", "theta"),
    ("objective.lam", E.objective, (X, Y, T), {"lam": 0.1}, "lam", "nonneg"),
    ("gradient_bound.radius", E.gradient_bound, (X, Y), {"radius": 1.0}, "radius", "positive"),
    ("smoothness_constant.X", E.smoothness_constant, (), {"X": X}, "X", "matrix_alone"),
    ("clip_examples.feature_bound", E.clip_examples, (X, Y), {"feature_bound": 1.0}, "feature_bound", "positive"),
    ("clip_examples.X", E.clip_examples, (), {"X": X, "y": Y, "feature_bound": 1.0}, "X", "matrix"),
    *[(f"box_gradient_bound.{k}", E.box_gradient_bound, (), {"feature_bound": 1.0, "label_bound": 2.0, "radius": 1.0,
                                                              "d": 3}, k, kind) for k, kind in (
        ("feature_bound", "positive"), ("label_bound", "positive"), ("radius", "positive"), ("d", "count"))],
    ("interpolation_label_bound.xi", E.interpolation_label_bound, (), {"xi": 1.0}, "xi", "positive"),
    # solvers
    ("stochastic_tos.step", E.stochastic_tos, (X, Y), {"lam": 0.1, "radius": 1.0, "step": 0.1, "iterations": 5},
     "step", "scalar_positive"),
    ("stochastic_tos.radius", E.stochastic_tos, (X, Y), {"lam": 0.1, "radius": 1.0, "step": 0.1, "iterations": 5},
     "radius", "radius"),
    ("stochastic_tos.iterations", E.stochastic_tos, (X, Y), {"lam": 0.1, "radius": 1.0, "step": 0.1,
                                                             "iterations": 5}, "iterations", "count"),
    ("stochastic_tos.lam", E.stochastic_tos, (X, Y), {"lam": 0.1, "radius": 1.0, "step": 0.1, "iterations": 5},
     "lam", "nonneg"),
    ("davis_yin.tol", E.davis_yin, (X, Y), {"lam": 0.1, "radius": 1.0, "tol": 1e-8}, "tol", "positive"),
    ("davis_yin.max_iter", E.davis_yin, (X, Y), {"lam": 0.1, "radius": 1.0, "max_iter": 5}, "max_iter", "count"),
    ("reference_solve.radius", E.reference_solve, (X, Y), {"lam": 0.1, "radius": 1.0}, "radius", "positive"),
    # mechanisms
    *[(f"qop.{k}", E.qop, (X, Y), QOP, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("lam", "nonneg"), ("radius", "positive"), ("anchor", "vector"),
        ("delta3_share", "share"), ("iterations", "count"), ("alpha1", "choice"), ("solver", "choice"),
        ("smoothness", "optional"), ("rho", "positive"), ("m", "count_not_none"), ("feature_bound", "positive"))],
    *[(f"qop_inexact.{k}", E.qop_inexact, (X, Y), QIN, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("tau", "nonneg"), ("eta", "nonneg"), ("anchor", "vector"),
        ("epsilon1_share", "share"), ("calibration", "choice"), ("max_iter", "count"), ("feature_bound", "positive"),
        ("smoothness", "optional"))],
    *[(f"lop.{k}", E.lop, (X, Y), LOP, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("radius", "positive"), ("feature_bound", "positive"),
        ("label_bound", "optional"), ("smoothness", "optional"), ("iterations", "count"), ("solver", "choice"))],
    ("lop_clipped.clip", E.lop_clipped, (X, Y), {**LOPC, "clip": 1.0}, "clip", "positive"),
    ("lop_clipped.feature_bound", E.lop_clipped, (X, Y), {**LOPC, "clip": 1.0}, "feature_bound", "positive"),
    ("qop.X", E.qop, (), {**QOP, "X": X, "y": Y}, "X", "matrix"),
    ("lop.y", E.lop, (), {**LOP, "X": X, "y": Y}, "y", "labels"),
    *[(f"compare_mechanisms.{k}", E.compare_mechanisms, (X, Y), CMP, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("trials", "count"), ("clip", "positive"),
        ("weight_scale", "positive"), ("anchor", "vector"), ("feature_bound", "positive"),
        ("label_bound", "optional"))],
    *[(f"qop_risk_sweep.{k}", E.qop_risk_sweep, (X, Y), SWP, k, kind) for k, kind in (
        ("epsilon", "positive"), ("radius", "positive"), ("trials", "count"), ("delta", "delta"),
        ("feature_bound", "positive"))],
    *[(f"qop_inexact_risk_sweep.{k}", E.qop_inexact_risk_sweep, (X, Y), ISW, k, kind) for k, kind in (
        ("feature_bound", "positive"), ("epsilon", "positive"))],
    # calibration
    ("wishart_alpha.delta3", E.wishart_alpha, (), {"delta3": 1e-3, "d": 3, "m": 6}, "delta3", "delta"),
    ("wishart_alpha.d", E.wishart_alpha, (), {"delta3": 1e-3, "d": 3, "m": 6}, "d", "count"),
    ("wishart_alpha1.delta1", E.wishart_alpha1, (), {"delta1": 1e-3, "delta3": 1e-3, "d": 3, "m": 6}, "delta1",
     "delta"),
    ("wishart_log_Dm.m", E.wishart_log_Dm, (), {"d": 3, "m": 6}, "m", "positive"),
    ("qop_sigma2.epsilon1", E.qop_sigma2, (), {"epsilon1": 1.0, "delta1": 1e-3, "delta3": 1e-3, **CAL}, "epsilon1",
     "positive"),
    ("qop_sigma2.L", E.qop_sigma2, (), {"epsilon1": 1.0, "delta1": 1e-3, "delta3": 1e-3, **CAL}, "L", "positive"),
    ("qop_beta.delta4", E.qop_beta, (), {"delta3": 1e-3, "delta4": 1e-3, "d": 3, "m": 6}, "delta4", "delta"),
    ("qop_output_sigma.sigma2", E.qop_output_sigma, (1e-3, 1e-3),
     {"epsilon2": 0.5, "delta2": 1e-3, "alpha": 1.0, "sigma2": 1.0, "beta": 1.0}, "sigma2", "positive"),
    ("qop_output_sigma.tau", E.qop_output_sigma, (),
     {"tau": 1e-3, "eta": 0.0, "epsilon2": 0.5, "delta2": 1e-3, "alpha": 1.0, "sigma2": 1.0, "beta": 1.0}, "tau",
     "nonneg"),
    ("lop_noise_scale.grad_bound", E.lop_noise_scale, (), {"epsilon": 1.0, "delta": 1e-3, "grad_bound": 1.0},
     "grad_bound", "positive"),
    ("lop_regularization.L", E.lop_regularization, (), {"epsilon": 1.0, "L": 1.0}, "L", "positive"),
    ("lop_regularization.epsilon", E.lop_regularization, (), {"epsilon": 1.0, "L": 1.0}, "epsilon", "positive"),
    # theory
    ("qop_exact_bound.D", E.qop_exact_bound, (1.0, 1e-3, 1e-3), {"L": 1.0, "d": 4, "m": 8, "D": 1.0}, "D", "nonneg"),
    ("qop_utility_bound.epsilon", E.qop_utility_bound, (), {"epsilon": 1.0, "delta": 1e-3, **CONSTS}, "epsilon",
     "positive"),
    ("qop_utility_bound.delta", E.qop_utility_bound, (), {"epsilon": 1.0, "delta": 1e-3, **CONSTS}, "delta", "delta"),
    ("optimize_qop_exact_bound.n", E.optimize_qop_exact_bound, (), {"epsilon": 1.0, "delta": 1e-3, **CONSTS}, "n",
     "count"),
    # audit
    *[(f"audit_lop.{k}", A.audit_lop, (), AUD, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("runs", "count2"), ("grad_bound", "positive"),
        ("smoothness", "positive"), ("radius", "positive"), ("confidence", "share"))],
    *[(f"audit_qop.{k}", A.audit_qop, (), AUD, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("runs", "count2"), ("anchor_error", "nonneg"), ("m", "count"),
        ("lam", "nonneg"), ("delta3_share", "share"))],
    *[(f"audit_qop_inexact.{k}", A.audit_qop_inexact, (), AUD, k, kind) for k, kind in (
        ("epsilon", "positive"), ("delta", "delta"), ("runs", "count2"), ("anchor_error", "positive"),
        ("tau", "nonneg"), ("m", "count"), ("epsilon1_share", "share"))],
    *[(f"qop_inexact_pair_exact_epsilon.{k}", A.qop_inexact_pair_exact_epsilon, (), QIP, k, kind) for k, kind in (
        ("eta", "positive"), ("sigma2", "positive"), ("output_sigma", "nonneg"), ("delta", "delta"))],
    ("broken_qop_output_sigma.bug", A.broken_qop_output_sigma, (1e-12, 0.1),
     {"epsilon2": 0.4, "delta2": 2e-3, "alpha": 4e-3, "sigma2": 3e3, "beta": 40.0}, "bug", "choice"),
    ("audit_erm.mechanism", A.audit_erm, (), {"mechanism": "LOP", **AUD}, "mechanism", "choice"),
    ("lop_worst_case_pair.grad_bound", A.lop_worst_case_pair, (), {"grad_bound": 1.0}, "grad_bound", "positive"),
    ("lop_worst_case_pair.x_small", A.lop_worst_case_pair, (), {"x_small": 0.01}, "x_small", "positive"),
    ("qop_worst_case_pair.smoothness", A.qop_worst_case_pair, (), {"smoothness": 1.0}, "smoothness", "positive"),
    ("qop_worst_case_pair.n", A.qop_worst_case_pair, (), {"n": 3}, "n", "count2"),
    ("qop_anchor_pair.theta_star", A.qop_anchor_pair, (), {"theta_star": 1.0}, "theta_star", "real"),
    ("qop_pair_exact_epsilon.c", A.qop_pair_exact_epsilon, (), {"c": 0.01, "m": 2, "delta": 0.01}, "c", "positive"),
    ("qop_pair_exact_epsilon.delta", A.qop_pair_exact_epsilon, (), {"c": 0.01, "m": 2, "delta": 0.01}, "delta",
     "delta"),
    ("lop_pair_exact_epsilon.noise_sigma", A.lop_pair_exact_epsilon, (), {"shift": 2.0, "noise_sigma": 3.0,
                                                                          "delta": 0.01}, "noise_sigma", "positive"),
    ("broken_qop_sigma2.bug", A.broken_qop_sigma2, (1.0, 5e-3, 5e-3), {"L": 1.0, "d": 1, "m": 2}, "bug", "choice"),
    ("broken_lop.epsilon", A.broken_lop, (X, Y), {**LOP, "smoothness": 1.0}, "epsilon", "positive"),
    ("broken_lop.label_bound", A.broken_lop, (X, Y), LOP, "label_bound", "optional"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_valid_call_works(case):
    _, fn, args, kwargs, _, _ = case
    fn(*args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=15, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_value_gets_a_clear_error(case, data):
    _, fn, args, kwargs, param, kind = case
    assert_clear_error(fn, args, kwargs, param, data.draw(KINDS[kind], label=param))


# -- numerical edge cases: results stay finite and honest, or a clear error ---------------------------------------
def test_tiny_delta_and_extreme_epsilon_calibrations_stay_finite_or_say_so():
    for eps in (1e-6, 1e-3, 50.0, 1e4):
        for dl in (1e-300, 1e-12, 0.5):
            s = E.lop_noise_scale(eps, dl, 1.0)
            assert math.isfinite(s) and s > 0
            s2 = E.qop_sigma2(eps, dl / 2, dl / 2, L=1.0, d=3, m=6)
            assert math.isnan(s2) or (math.isfinite(s2) and s2 > 0)  # NaN is the documented "undefined"
    # huge ε: LOP's noise vanishes like 1/√ε, QOP's weight tends to its ε-free floor 2L/α1
    assert E.lop_noise_scale(1e8, 1e-5, 1.0) < 1e-3
    s_big = E.qop_sigma2(1e8, 5e-3, 5e-3, L=1.0, d=1, m=2)
    assert s_big == pytest.approx(2.0 / E.wishart_alpha1(5e-3, 5e-3, 1, 2), rel=1e-6)


def test_mechanisms_raise_when_the_qop_calibration_is_undefined():
    with pytest.raises(ValueError, match="increase m|delta"):
        E.qop(X, Y, epsilon=1.0, delta=1e-300, lam=0.1, radius=5.0, anchor=ANCHOR, m=3, iterations=5, feature_bound=1.0,
              rng=0)


def test_huge_and_degenerate_problems_stay_finite():
    Xz = np.zeros((6, 2))  # all-zero features: fine, the constants come from the public bounds
    z = E.lop(Xz, np.zeros(6), epsilon=1.0, delta=1e-3, lam=0.1, radius=1.0, iterations=5, rng=0, feature_bound=1.0,
              label_bound=1.0)
    assert z.diagnostics["L"] == 1.0 and np.all(np.isfinite(z.theta))
    pb = dict(feature_bound=1.0, label_bound=5.0)
    r = E.lop(X, Y, epsilon=1e-6, delta=1e-3, lam=0.1, radius=1e6, iterations=20, rng=0, **pb)  # saturates the box
    assert np.all(np.isfinite(r.theta)) and np.all(np.abs(r.theta) <= 1e6)
    q = E.qop(X, Y, epsilon=50.0, delta=0.5, lam=0.0, radius=1e3, anchor=ANCHOR, iterations=20, rng=0,
              feature_bound=1.0)
    assert np.all(np.isfinite(q.theta))
    Xb, Yb, _ = E.interpolation_data(20000, 2, xi=1.0, rng=1)  # huge n
    r = E.lop(Xb, Yb, epsilon=1.0, delta=1e-3, lam=0.0, radius=10.0, iterations=20, rng=0, **pb)
    assert np.all(np.isfinite(r.theta))


def test_audits_at_extreme_budgets_stay_honest():
    a = A.audit_lop(epsilon=1e-3, delta=1e-10, runs=200, rng=0)
    assert 0 <= a.epsilon_lower <= a.claimed_epsilon + 0.5 and a.exact_epsilon <= a.claimed_epsilon
    b = A.audit_qop(epsilon=50.0, delta=0.2, runs=200, rng=0)
    assert math.isfinite(b.exact_epsilon) and b.exact_epsilon <= 50.0


# -- issue 13: size caps before allocation, overflow named by the user's parameter, complex refused -------
from dpexplore.erm import calibration as _CA  # noqa: E402
from dpexplore.erm import problems as _PR  # noqa: E402
from dpexplore.erm import solvers as _SO  # noqa: E402
from tests.test_bad_inputs import array_variants, assert_refused_fast, assert_size_case_refused  # noqa: E402

_QOP = {"epsilon": 1.0, "delta": 1e-3, "lam": 0.1, "radius": 1.0, "anchor": ANCHOR, "feature_bound": 1.0, "rng": 0}
ERM_SIZE_CASES = [
    ("interpolation_data.n", E.interpolation_data, (), {"n": 5, "d": 2, "xi": 1.0}, "n", _PR.MAX_N),
    ("interpolation_data.d", E.interpolation_data, (), {"n": 5, "d": 2, "xi": 1.0}, "d", _PR.MAX_D),
    ("stochastic_tos.iterations", E.stochastic_tos, (X, Y), {"lam": 0.1, "radius": 1.0, "step": 0.1,
                                                              "iterations": 5}, "iterations", _SO.MAX_ITERATIONS),
    ("davis_yin.max_iter", E.davis_yin, (X, Y), {"lam": 0.1, "radius": 1.0, "max_iter": 5}, "max_iter",
     _SO.MAX_ITERATIONS),
    ("qop.m", E.qop, (X, Y), {**_QOP, "m": 6}, "m", _CA.MAX_M),
    ("qop.iterations", E.qop, (X, Y), {**_QOP, "iterations": 5}, "iterations", _SO.MAX_ITERATIONS),
    ("box_gradient_bound.d", E.box_gradient_bound, (), {"feature_bound": 1.0, "label_bound": 1.0, "radius": 1.0,
                                                         "d": 3}, "d", _PR.MAX_D),
    ("wishart_lambda_min_cdf_bound.d", E.wishart_lambda_min_cdf_bound, (0.5,), {"d": 2, "m": 4}, "d", _PR.MAX_D),
    ("wishart_alpha.m", E.wishart_alpha, (0.1,), {"d": 2, "m": 4}, "m", _CA.MAX_M),
]


@pytest.mark.parametrize("case", ERM_SIZE_CASES, ids=[c[0] for c in ERM_SIZE_CASES])
@settings(max_examples=8, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_size_parameters_have_a_maximum_checked_before_allocation(case, data):
    # before: interpolation_data(10**9, 2) asked for 14.9 GiB, stochastic_tos(iterations=10**9) for 7.45 GiB,
    # wishart_lambda_min_cdf_bound(d=10**9) overflowed with a RuntimeWarning
    assert_size_case_refused(case, data)


@pytest.mark.parametrize("param", ["feature_bound", "label_bound", "radius"])
def test_box_gradient_bound_refuses_bounds_whose_product_overflows(param):
    # before: RuntimeWarning "overflow encountered in scalar multiply"
    kw = {"feature_bound": 1.0, "label_bound": 1.0, "radius": 1.0, "d": 3}
    assert_refused_fast(E.box_gradient_bound, (), kw, param, 1e308, kind=ValueError)
    assert math.isfinite(E.box_gradient_bound(**{**kw, param: _PR.MAX_SCALE, "d": _PR.MAX_D}))


def test_lop_errors_name_the_users_parameter_not_a_derived_one():
    kw = {"epsilon": 1.0, "delta": 1e-3, "lam": 0.1, "radius": 1.0, "feature_bound": 1.0, "rng": 0}
    # before: "lin must contain only finite numbers" (the noise vector overflowed)
    assert_refused_fast(E.lop, (X, Y), kw, "epsilon", 1e308, kind=ValueError)
    with pytest.raises(ValueError, match="^epsilon must be large enough"):
        E.lop(X, Y, **{**kw, "epsilon": 1e-300, "radius": 1e10})  # σ_b ≈ ζ·4/ε > 1.8e308
    # before: RuntimeWarning "overflow encountered in multiply" (row norms of X)
    assert_refused_fast(E.lop, (), {**kw, "y": Y}, "X", np.full(X.shape, 1e308), kind=ValueError)


@settings(max_examples=10, deadline=3000)
@given(bad=array_variants(X))
def test_complex_design_matrices_are_refused(bad):
    assert_refused_fast(E.empirical_risk, (), {"y": Y, "theta": T}, "X", bad, kind=TypeError)


@settings(max_examples=10, deadline=3000)
@given(bad=array_variants([0.1, 0.5]))
def test_complex_thresholds_and_curves_are_refused(bad):
    assert_refused_fast(E.wishart_lambda_min_cdf_bound, (), {"d": 2, "m": 4}, "x", bad, kind=TypeError)
    assert_refused_fast(E.lop_noise_vs_radius, (), {"epsilon": 1.0, "delta": 1e-3, "xi": 1.0, "d": 3,
                                                    "label_bound": 5.0}, "radii", bad, kind=TypeError)
