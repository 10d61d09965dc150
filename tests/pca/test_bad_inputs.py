"""Bad inputs for every public function of dpexplore.pca (and .audit): a TypeError or ValueError naming the
parameter, quickly, never another exception, a warning, a hang or a silent NaN; plus numerical edge cases
(tiny δ, ε near 0 and huge, huge n, near-degenerate eigengap, extreme magnitudes) that must stay finite."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import pca
from dpexplore.pca import audit
from tests.test_bad_inputs import BAD, NONFINITE, WRONG_TYPES, assert_clear_error

A0 = np.random.default_rng(0).normal(size=(30, 5)) * 0.3
X0 = np.ones(5) / math.sqrt(5)
WRONG = st.sampled_from(["1", {"a": 1}, 1j, b"x", object()])  # wrong types where None means "default"

BAD_MATRIX = st.one_of(
    WRONG_TYPES,
    st.sampled_from([
        np.ones(5), np.ones((2, 3, 4)), np.zeros((0, 5)), np.zeros((5, 0)), np.array([[1.0, np.nan]]),
        np.array([[np.inf, 1.0]]), np.array([[1 + 1j, 2.0]]), np.array([["a", "b"]]), [[1.0, 2.0], [3.0]],
        np.array([[1e200, 0.0], [0.0, 1.0]]), np.array([[1.0, -1e150]]), 5.0,
    ]),
)
BAD_VECTOR5 = st.one_of(  # for a vector that must have d = 5 entries
    WRONG,
    st.sampled_from([np.ones(4), np.ones(6), np.ones((5, 1)), np.array([1.0, np.nan, 0, 0, 0]),
                     np.array([np.inf, 0, 0, 0, 0.0]), np.zeros(0), np.array(["a"] * 5)]),
)
BAD_ITER = st.one_of(WRONG, NONFINITE, st.integers(max_value=0), st.integers(min_value=10_001),
                     st.just(2.5), st.just(True))
BAD_NONNEG_INT = st.one_of(WRONG, NONFINITE, st.integers(max_value=-1), st.just(1.5), st.just(False))
BAD_SHARE = st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False),
                      st.floats(min_value=1.0, max_value=1e300))
BAD_CHOICE = st.one_of(st.sampled_from([None, 1, b"add-remove", ["replace"]]), st.sampled_from(["swap", "", "ADD"]))
BAD_GAP = st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=0.0, allow_nan=False, allow_infinity=False),
                    st.floats(min_value=1.0 + 1e-9, max_value=1e300))
BAD_GRID = st.one_of(WRONG, st.sampled_from([np.array([0.5, 0.1]), np.array([0.0, 1.0]), np.array([-1.0, 1.0]),
                                                   np.array([1.0, 1.0]), np.array([np.nan, 1.0]), np.zeros(0),
                                                   np.ones((2, 2)), np.geomspace(1e-3, 1, 20_000)]))
BAD_SCORES = st.one_of(WRONG, st.sampled_from([np.array([-1.0, 0.5]), np.array([np.nan]), np.ones((2, 2))]))
BAD_COUNTS = st.one_of(WRONG, st.sampled_from([np.array([-1.0, 0.0]), np.array([1.5]), np.array([np.inf]),
                                                     np.zeros(0)]))
BAD_RUNS = st.one_of(WRONG_TYPES, NONFINITE, st.integers(max_value=19), st.integers(min_value=2_000_001),
                     st.just(100.5))
BAD_PROB_OPEN = st.one_of(WRONG_TYPES, NONFINITE, st.just(0.0), st.just(1.0), st.just(-0.5), st.just(2.0))
BAD_KIND = {**BAD, "matrix": BAD_MATRIX, "vector5": BAD_VECTOR5, "iterations": BAD_ITER, "nonneg_int": BAD_NONNEG_INT,
            "share": BAD_SHARE, "choice": BAD_CHOICE, "gap": BAD_GAP, "grid": BAD_GRID, "scores": BAD_SCORES,
            "counts": BAD_COUNTS, "runs": BAD_RUNS, "open01": BAD_PROB_OPEN,
            "coherence": st.one_of(WRONG, NONFINITE, st.sampled_from([0.0, -0.5, 1.0 + 1e-9, 0.1, 1e300])),
            "d": st.one_of(WRONG_TYPES, NONFINITE, st.integers(max_value=0), st.just(2.5)),
            "theta": st.one_of(WRONG, st.sampled_from([math.nan, -math.inf, math.inf, 0.0, -1.0])),
            "theta_inf_ok": st.one_of(WRONG_TYPES, st.sampled_from([math.nan, -math.inf, -1.0, -1e-300])),
            "any_vector": st.one_of(WRONG, st.sampled_from([np.zeros(3), np.array([np.nan, 1.0]), np.ones((2, 2)),
                                                             np.zeros(0)])),
            "nonneg": st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=-1e-300, allow_nan=False,
                                                                  allow_infinity=False))}

MECH = {"epsilon": 1.0, "delta": 1e-5, "iterations": 3, "rng": 0}
AUD = {"epsilon": 5.0, "delta": 1e-5, "iterations": 3, "runs": 40, "rng": 0}


def _cases():
    c = []
    for f in (pca.adaptive_power_iteration, pca.noisy_power_iteration, pca.analyze_gauss,
              audit.broken_adaptive_power_iteration, audit.broken_noisy_power_iteration, audit.broken_analyze_gauss,
              audit.broken_svt_adaptive_power_iteration):
        n = f.__name__
        c += [(f"{n}.A", f, (A0,), MECH, "A", "matrix"), (f"{n}.epsilon", f, (A0,), MECH, "epsilon", "positive"),
              (f"{n}.delta", f, (A0,), MECH, "delta", "delta"),
              (f"{n}.iterations", f, (A0,), MECH, "iterations", "iterations"),
              (f"{n}.neighbours", f, (A0,), MECH, "neighbours", "choice")]
        if "adaptive" in n:
            c += [(f"{n}.grid", f, (A0,), MECH, "grid", "grid"), (f"{n}.m0", f, (A0,), MECH, "m0", "nonneg_int"),
                  (f"{n}.svt_share", f, (A0,), MECH, "svt_share", "share"),
                  (f"{n}.v1", f, (A0,), MECH, "v1", "vector5")]
        else:
            c += [(f"{n}.clip_norm", f, (A0,), MECH, "clip_norm", "positive")]
    pi = pca.power_iteration
    c += [("power_iteration.A", pi, (A0[:, :4] * 0 + np.eye(30, 4),), {}, "A", "matrix"),
          ("power_iteration.iterations", pi, (A0,), {}, "iterations", "iterations"),
          ("power_iteration.tol", pi, (A0,), {}, "tol", "nonneg"),
          ("power_iteration.v1", pi, (A0,), {"iterations": 2}, "v1", "vector5")]
    c += [("default_iterations.d", pca.default_iterations, (), {"d": 10}, "d", "d"),
          ("default_iterations.eigengap", pca.default_iterations, (), {"d": 10, "eigengap": 0.5}, "eigengap", "gap"),
          ("threshold_grid.low", pca.threshold_grid, (), {"low": 0.1}, "low", "positive"),
          ("threshold_grid.ratio", pca.threshold_grid, (), {"ratio": 2.0},
           "ratio", "positive"),
          ("row_scores.A", pca.row_scores, (), {"A": A0, "x": X0}, "A", "matrix"),
          ("row_scores.x", pca.row_scores, (), {"A": A0, "x": X0}, "x", "vector5"),
          ("filtered_update.x", pca.filtered_update, (), {"A": A0, "x": X0, "theta": 0.1}, "x", "vector5"),
          ("filtered_update.theta", pca.filtered_update, (), {"A": A0, "x": X0, "theta": 0.1}, "theta", "theta_inf_ok"),
          ("choose_threshold.scores", pca.choose_threshold, (), {"scores": [0.1, 0.2], "grid": [0.5, 1.0], "m0": 1,
                                                                  "epsilon": 1.0}, "scores", "scores"),
          ("choose_threshold.grid", pca.choose_threshold, (), {"scores": [0.1, 0.2], "grid": [0.5, 1.0], "m0": 1,
                                                                "epsilon": 1.0}, "grid", "grid"),
          ("choose_threshold.m0", pca.choose_threshold, (), {"scores": [0.1], "grid": [0.5, 1.0], "m0": 1,
                                                              "epsilon": 1.0}, "m0", "nonneg_int"),
          ("choose_threshold.epsilon", pca.choose_threshold, (), {"scores": [0.1], "grid": [0.5, 1.0], "m0": 1,
                                                                   "epsilon": 1.0}, "epsilon", "positive"),
          ("default_m0.epsilon_svt", pca.default_m0, (), {"epsilon_svt": 1.0}, "epsilon_svt", "positive"),
          ("zcdp_budget.epsilon", pca.zcdp_budget, (), {"epsilon": 1.0, "delta": 1e-5, "iterations": 3,
                                                         "svt_share": 0.2}, "epsilon", "positive"),
          ("zcdp_budget.svt_share", pca.zcdp_budget, (), {"epsilon": 1.0, "delta": 1e-5, "iterations": 3,
                                                           "svt_share": 0.2}, "svt_share", "share"),
          ("clip_rows.A", pca.clip_rows, (), {"A": A0}, "A", "matrix"),
          ("clip_rows.clip_norm", pca.clip_rows, (), {"A": A0, "clip_norm": 1.0}, "clip_norm", "positive"),
          ("adaptive_calibration.iterations", pca.adaptive_calibration, (1.0, 1e-5), {"iterations": 3},
           "iterations", "iterations"),
          ("adaptive_calibration.svt_share", pca.adaptive_calibration, (1.0, 1e-5, 3), {"svt_share": 0.2},
           "svt_share", "share"),
          ("worst_case_calibration.clip_norm", pca.worst_case_calibration, (1.0, 1e-5, 3), {"clip_norm": 1.0},
           "clip_norm", "positive"),
          ("analyze_gauss_calibration.epsilon", pca.analyze_gauss_calibration, (), {"epsilon": 1.0, "delta": 1e-5},
           "epsilon", "positive"),
          ("make_matrix.n", pca.make_matrix, (), {"n": 20, "d": 4, "eigengap": 0.5}, "n", "count2"),
          ("make_matrix.d", pca.make_matrix, (), {"n": 20, "d": 4, "eigengap": 0.5}, "d", "count2"),
          ("make_matrix.eigengap", pca.make_matrix, (), {"n": 20, "d": 4, "eigengap": 0.5}, "eigengap", "gap"),
          ("make_matrix.coherence", pca.make_matrix, (), {"n": 20, "d": 4, "eigengap": 0.5, "coherence": 0.5},
           "coherence", "coherence"),
          ("spiked_gaussian.eigengap", pca.spiked_gaussian, (), {"n": 20, "d": 4, "eigengap": 0.5}, "eigengap", "gap"),
          ("spiked_gaussian.trace", pca.spiked_gaussian, (), {"n": 20, "d": 4, "eigengap": 0.5, "trace": 1.0},
           "trace", "positive"),
          ("coherence.A", pca.coherence, (), {"A": A0}, "A", "matrix"),
          ("coherence.v1", pca.coherence, (), {"A": A0, "v1": X0}, "v1", "vector5"),
          ("top_singular.A", pca.top_singular, (), {"A": A0}, "A", "matrix"),
          ("sin2.x", pca.sin2, (), {"v": X0, "x": X0}, "x", "vector5"),
          ("theorem_1_1.epsilon", pca.theorem_1_1, (1000, 50, 0.5, 0.1), {"epsilon": 1.0, "delta": 1e-5,
                                                                           "sigma1": 1.0}, "epsilon", "positive"),
          ("theorem_1_1.sigma1", pca.theorem_1_1, (1000, 50, 0.5, 0.1), {"epsilon": 1.0, "delta": 1e-5,
                                                                          "sigma1": 1.0}, "sigma1", "positive"),
          ("theorem_1_2.delta", pca.theorem_1_2, (1000, 50, 0.5), {"epsilon": 1.0, "delta": 1e-5, "sigma1": 0.5},
           "delta", "delta"),
          ("theorem_1_2.eigengap", pca.theorem_1_2, (), {"n": 1000, "d": 50, "eigengap": 0.5, "epsilon": 1.0,
                                                          "delta": 1e-5, "sigma1": 0.5}, "eigengap", "gap"),
          ("dttz14_bound.sigma1", pca.dttz14_bound, (50, 1.0, 1e-5), {"sigma1": 5.0, "sigma2": 1.0}, "sigma1",
           "positive"),
          ("dttz14_bound.neighbours", pca.dttz14_bound, (50, 1.0, 1e-5, 5.0, 1.0), {"neighbours": "add-remove"},
           "neighbours", "choice")]
    for f in (audit.audit_power_step, audit.audit_analyze_gauss):
        n = f.__name__
        kw = dict(AUD) if f is audit.audit_power_step else {k: v for k, v in AUD.items() if k != "iterations"}
        c += [(f"{n}.A", f, (A0,), kw, "A", "matrix"), (f"{n}.epsilon", f, (A0,), kw, "epsilon", "positive"),
              (f"{n}.delta", f, (A0,), kw, "delta", "delta"), (f"{n}.runs", f, (A0,), kw, "runs", "runs"),
              (f"{n}.audit_delta", f, (A0,), kw, "audit_delta", "delta"),
              (f"{n}.confidence", f, (A0,), kw, "confidence", "open01"),
              (f"{n}.neighbours", f, (A0,), kw, "neighbours", "choice")]
    f = audit.audit_composition
    c += [("audit_composition.A", f, (A0,), AUD, "A", "matrix"),
          ("audit_composition.epsilon", f, (A0,), AUD, "epsilon", "positive"),
          ("audit_composition.delta", f, (A0,), AUD, "delta", "delta"),
          ("audit_composition.runs", f, (A0,), AUD, "runs", "runs"),
          ("audit_composition.audit_delta", f, (A0,), AUD, "audit_delta", "delta"),
          ("audit_composition.confidence", f, (A0,), AUD, "confidence", "open01"),
          ("audit_composition.method", f, (A0,), AUD, "method", "choice"),
          ("audit_composition.iterations", f, (A0,), AUD, "iterations", "iterations")]
    bct = {"scores": [0.1, 0.2], "grid": [0.5, 1.0], "m0": 1, "epsilon": 1.0}
    c += [(f"broken_choose_threshold.{k}", audit.broken_choose_threshold, (), bct, k, kind)
          for k, kind in (("scores", "scores"), ("grid", "grid"), ("m0", "nonneg_int"), ("epsilon", "positive"))]
    c += [("audit_power_step.method", audit.audit_power_step, (A0,), AUD, "method", "choice"),
          ("audit_power_step.x", audit.audit_power_step, (A0,), AUD, "x", "vector5"),
          ("audit_power_step.theta", audit.audit_power_step, (A0,), AUD, "theta", "theta"),
          ("audit_power_step.iterations", audit.audit_power_step, (A0,), AUD, "iterations", "iterations"),
          ("threshold_choice_law.counts", audit.threshold_choice_law, (), {"counts": [3, 1, 0], "m0": 1,
                                                                           "epsilon": 1.0}, "counts", "counts"),
          ("threshold_choice_law.epsilon", audit.threshold_choice_law, (), {"counts": [3, 1, 0], "m0": 1,
                                                                            "epsilon": 1.0}, "epsilon", "positive"),
          ("audit_threshold_choice.scores", audit.audit_threshold_choice, (), {"scores": [0.1, 0.6], "m0": 1,
                                                                              "epsilon": 1.0, "grid": [0.5, 1.0]},
           "scores", "scores"),
          ("audit_threshold_choice.m0", audit.audit_threshold_choice, (), {"scores": [0.1, 0.6], "m0": 1,
                                                                          "epsilon": 1.0, "grid": [0.5, 1.0]},
           "m0", "nonneg_int"),
          ("threshold_choice_law.variant", audit.threshold_choice_law, (), {"counts": [3, 1, 0], "m0": 1,
                                                                            "epsilon": 1.0}, "variant", "choice"),
          ("audit_threshold_choice.broken", audit.audit_threshold_choice, (), {"scores": [0.1, 0.6], "m0": 1,
                                                                              "epsilon": 1.0, "grid": [0.5, 1.0]},
           "broken", "choice"),
          ("worst_case_row.theta", audit.worst_case_row, (), {"x": X0, "theta": 0.5}, "theta", "positive"),
          ("worst_case_row.x", audit.worst_case_row, (), {"x": X0, "theta": 0.5}, "x", "any_vector"),
          ("worst_case_pair_power_step.x", audit.worst_case_pair_power_step, (), {"A": A0, "x": X0, "theta": 0.5},
           "x", "vector5"),
          ("worst_case_pair_power_step.neighbours", audit.worst_case_pair_power_step, (),
           {"A": A0, "x": X0, "theta": 0.5}, "neighbours", "choice"),
          ("worst_case_row_analyze_gauss.k", audit.worst_case_row_analyze_gauss, (), {"d": 5, "k": 0}, "k",
           "nonneg_int"),
          ("worst_case_row_analyze_gauss.clip_norm", audit.worst_case_row_analyze_gauss, (), {"d": 5, "clip_norm": 1.0},
           "clip_norm", "positive")]
    return c


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_valid_call_works(case):
    _, fn, args, kwargs, _, _ = case
    fn(*args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=15, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_value_gets_a_clear_error(case, data):
    _, fn, args, kwargs, param, kind = case
    assert_clear_error(fn, args, kwargs, param, data.draw(BAD_KIND[kind], label=param))


def test_public_api_is_covered():
    """Every public callable of dpexplore.pca and dpexplore.pca.audit appears in CASES (or is a dataclass)."""
    covered = {c[1].__name__ for c in CASES}
    for mod in (pca, audit):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if callable(obj) and not isinstance(obj, type):
                assert name in covered, name


def test_mismatched_shapes_and_degenerate_inputs():
    with pytest.raises(ValueError, match="v1 must have d = 5"):
        pca.adaptive_power_iteration(A0, epsilon=1.0, delta=1e-5, v1=np.ones(3))
    with pytest.raises(ValueError, match="v1 must be a non-zero"):
        pca.noisy_power_iteration(A0, epsilon=1.0, delta=1e-5, v1=np.zeros(5))
    with pytest.raises(ValueError, match="x must have d = 5"):
        pca.filtered_update(A0, np.ones(4), 0.5)
    with pytest.raises(ValueError, match="v and x must have the same length"):
        pca.sin2(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="coherence must be a number in"):
        pca.make_matrix(100, 5, eigengap=0.5, coherence=0.01)
    with pytest.raises(ValueError, match="n\\*d must be <="):
        pca.make_matrix(10**7, 100, eigengap=0.5)
    with pytest.raises(ValueError, match="A must have at most 4000 columns"):
        pca.analyze_gauss(np.zeros((2, 5000)), epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="theta must be None"):
        audit.audit_power_step(A0, method="worst-case", epsilon=1.0, delta=1e-5, theta=0.5, runs=40)
    with pytest.raises(TypeError, match="progress"):
        audit.audit_power_step(A0, epsilon=1.0, delta=1e-5, runs=40, progress=3)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0 and <= 1e\\+15"):
        pca.analyze_gauss(A0, epsilon=1e20, delta=1e-5)
    with pytest.raises(ValueError, match="epsilon is too small"):
        pca.adaptive_power_iteration(A0, epsilon=1e-300, delta=1e-5)


# ---------------------------------------------------------------- numerical edge cases stay finite and honest
def _finite_unit(res):
    v = res.vector
    return bool(np.all(np.isfinite(v))) and abs(float(np.linalg.norm(v)) - 1.0) < 1e-9


@pytest.mark.parametrize("f", [pca.adaptive_power_iteration, pca.noisy_power_iteration, pca.analyze_gauss])
@pytest.mark.parametrize("eps,delta", [(1e-12, 1e-5), (1e-6, 1e-300), (1e12, 1e-5), (50.0, 1e-300), (1.0, 0.999)])
def test_extreme_privacy_parameters_give_finite_unit_vectors(f, eps, delta):
    res = f(A0, epsilon=eps, delta=delta, iterations=3, rng=0)
    assert _finite_unit(res) and math.isfinite(res.epsilon) and res.epsilon == pytest.approx(eps, rel=1e-6)


@pytest.mark.parametrize("scale", [0.0, 1e-150, 1e-30, 1e30, 1e99])
def test_extreme_magnitudes_and_the_zero_matrix(scale):
    A = np.random.default_rng(1).normal(size=(40, 6)) * scale
    for f in (pca.adaptive_power_iteration, pca.noisy_power_iteration, pca.analyze_gauss):
        assert _finite_unit(f(A, epsilon=1.0, delta=1e-5, iterations=3, rng=0))
    res = pca.power_iteration(A, rng=0)
    assert _finite_unit(res)
    if scale > 0:  # the direction does not depend on the scale
        ref = pca.power_iteration(A / scale, rng=0).vector
        assert pca.sin2(ref, res.vector) < 1e-12
    assert pca.row_scores(A, np.ones(6) / math.sqrt(6)).max() < math.inf


def test_huge_n_and_near_degenerate_eigengap():
    A = np.random.default_rng(2).normal(size=(200_000, 3)) * 0.01
    res = pca.adaptive_power_iteration(A, epsilon=1.0, delta=1e-5, iterations=3, rng=0)
    assert _finite_unit(res) and np.all(res.rows_filtered <= A.shape[0])
    data = pca.make_matrix(200, 10, eigengap=1e-12, rng=0)
    assert math.isfinite(data.sigma1) and data.eigengap == pytest.approx(1e-12, rel=1e-3)
    assert pca.default_iterations(10, 1e-12) == 60  # capped, not inf
    t = pca.theorem_1_1(200, 10, 1e-12, data.coherence, 1.0, 1e-5, data.sigma1)
    assert math.isfinite(t.value) or t.reason  # finite, or NaN with a reason
    b = pca.dttz14_bound(10, 1.0, 1e-5, 1.0, 1.0)
    assert math.isnan(b.value) and "no eigengap" in b.reason
    tiny = pca.theorem_1_2(10**9, 10, 0.5, 1e-300, 1e-5, 0.5)  # ε ≈ 0: the condition fails, NaN with a reason
    assert math.isfinite(tiny.value) or tiny.reason


# -- issue 13: size caps before allocation, complex input refused ----------------------------------------
from dpexplore.pca import data as _DA  # noqa: E402
from dpexplore.pca import mechanisms as _ME  # noqa: E402
from tests.test_bad_inputs import HUGE, array_variants, assert_refused_fast  # noqa: E402


@settings(max_examples=8, deadline=3000)
@given(bad=st.one_of(HUGE, st.just(_DA.MAX_D + 1)))
def test_make_matrix_caps_d_before_forming_the_gram_matrix(bad):
    # before: make_matrix(2, 2 * 10**7) passed the n*d check and formed a 2e7 x 2e7 Gram matrix
    assert_refused_fast(pca.make_matrix, (), {"n": 2, "eigengap": 0.5, "rng": 0}, "d", bad, kind=ValueError)


@settings(max_examples=8, deadline=3000)
@given(bad=st.one_of(HUGE, st.just(_ME.MAX_ITERATIONS + 1)))
def test_iterations_have_a_public_maximum(bad):
    assert_refused_fast(pca.power_iteration, (A0,), {"rng": 0}, "iterations", bad, kind=ValueError)


@settings(max_examples=10, deadline=3000)
@given(bad=array_variants(A0))
def test_complex_data_matrices_are_refused(bad):
    assert_refused_fast(pca.power_iteration, (), {"iterations": 3, "rng": 0}, "A", bad, kind=TypeError)
    assert_refused_fast(pca.coherence, (), {}, "A", bad, kind=TypeError)
