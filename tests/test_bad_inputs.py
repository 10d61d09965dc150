"""Property-based bad-input suite: every public entry point, every bad value, one kind of answer.

For each (function, valid arguments, parameter) below, hypothesis substitutes bad values for that
one parameter — non-finite, zero, negative, huge, wrong types — and the call must end in a
TypeError or ValueError whose message names the parameter, quickly, with no numpy warning
escaping (pytest turns warnings into errors) and never an unrelated exception or a silent result.
Paper test folders have their own ``test_bad_inputs.py`` that reuse ``BAD`` and
:func:`assert_clear_error` from here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import core
from dpexplore.core import audit

WRONG_TYPES = st.sampled_from(["1", None, [1.0], {"a": 1}, 1j, b"x", object()])
NONFINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.nan, np.float64("inf")])
NEGATIVE = st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False)
BAD = {
    # ε-like: must be a finite number > 0
    "positive": st.one_of(WRONG_TYPES, NONFINITE, NEGATIVE, st.just(0), st.just(0.0), st.just(-0.0)),
    # ε where +inf is a documented limit (the non-private answer)
    "positive_or_inf": st.one_of(WRONG_TYPES, st.sampled_from([math.nan, -math.inf]), NEGATIVE, st.just(0)),
    # δ: in (0, 1)
    "delta": st.one_of(WRONG_TYPES, NONFINITE, NEGATIVE, st.just(0.0), st.floats(min_value=1.0, max_value=1e300)),
    # integers >= 1 (k, iterations, ...): zero, negatives, non-integers
    "count": st.one_of(WRONG_TYPES, NONFINITE, st.integers(max_value=0), st.floats(1.01, 1.99), st.just(2.5)),
}
# integers >= 2 (n, runs, ...): the same, and 1
BAD["count2"] = st.one_of(BAD["count"], st.just(1))

CASES = [
    # (label, function, valid positional args, valid keyword args, parameter name, bad-value kind)
    ("gaussian_sigma.epsilon", core.gaussian_sigma, (), {"epsilon": 1.0, "delta": 1e-5}, "epsilon", "positive"),
    ("gaussian_sigma.delta", core.gaussian_sigma, (), {"epsilon": 1.0, "delta": 1e-5}, "delta", "delta"),
    ("gaussian_sigma.sensitivity", core.gaussian_sigma, (), {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0},
     "sensitivity", "positive"),
    ("gdp_delta.mu", core.gdp_delta, (), {"mu": 1.0, "epsilon": 1.0}, "mu", "positive"),
    ("gdp_epsilon.delta", core.gdp_epsilon, (), {"mu": 1.0, "delta": 1e-5}, "delta", "delta"),
    ("zcdp_to_dp.delta", core.zcdp_to_dp, (), {"rho": 0.5, "delta": 1e-5}, "delta", "delta"),
    ("dp_to_zcdp.epsilon", core.dp_to_zcdp, (), {"epsilon": 1.0, "delta": 1e-5}, "epsilon", "positive"),
    ("randomized_response.epsilon", core.randomized_response, ([0, 1],), {"epsilon": 1.0}, "epsilon",
     "positive_or_inf"),
    ("above_threshold.epsilon", core.above_threshold, ([1.0, 2.0],), {"threshold": 1.0, "epsilon": 1.0},
     "epsilon", "positive"),
    ("permute_and_flip.epsilon", core.permute_and_flip, ([1.0, 2.0],), {"epsilon": 1.0}, "epsilon", "positive"),
    ("permute_and_flip_probabilities.sensitivity", core.permute_and_flip_probabilities, ([1.0, 2.0],),
     {"epsilon": 1.0, "sensitivity": 1.0}, "sensitivity", "positive"),
    ("clone_pair_epsilon.epsilon0", core.clone_pair_epsilon, (), {"epsilon0": 1.0, "n": 100, "delta": 1e-6},
     "epsilon0", "positive"),
    ("clone_pair_epsilon.n", core.clone_pair_epsilon, (), {"epsilon0": 1.0, "n": 100, "delta": 1e-6}, "n", "count2"),
    ("shuffle_amplification_epsilon0.delta", core.shuffle_amplification_epsilon0, (),
     {"epsilon": 1.0, "n": 100, "delta": 1e-6}, "delta", "delta"),
    ("fmt21_closed_form_epsilon.n", core.fmt21_closed_form_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6},
     "n", "count2"),
    ("sweep.trials", core.sweep, (lambda p, g: p, [1.0]), {"trials": 2}, "trials", "count"),
    ("audit.clopper_pearson_upper.trials", audit.clopper_pearson_upper, (), {"successes": 0, "trials": 10,
     "alpha": 0.05}, "trials", "count"),
    ("audit.gaussian_mechanism_scores.sigma", audit.gaussian_mechanism_scores, (),
     {"sigma": 1.0, "sensitivity": 1.0, "runs": 5}, "sigma", "positive"),
]


def assert_clear_error(fn, args, kwargs, param, bad):
    """The call with ``param=bad`` raises TypeError/ValueError whose message names ``param``."""
    with pytest.raises((TypeError, ValueError)) as info:
        fn(*args, **{**kwargs, param: bad})
    assert param in str(info.value), f"message does not name {param!r}: {info.value}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_valid_call_works(case):
    _, fn, args, kwargs, _, _ = case
    fn(*args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=40, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_value_gets_a_clear_error(case, data):
    _, fn, args, kwargs, param, kind = case
    assert_clear_error(fn, args, kwargs, param, data.draw(BAD[kind], label=param))


# -- classes of defect found by the issue-13 probe: every array parameter refuses complex/object/str,
#    every count refuses bool/str/non-integers, every size-like parameter has a cap checked first --------
HUGE = st.sampled_from([10**9, 10**12, 10**18, 2**63, 10**400])
BAD_COUNT_TYPES = st.sampled_from([True, False, np.True_, "3", b"3", 2.7, 1.5, math.nan, math.inf, [2], None])


def array_variants(valid):
    """Same shape and values as a valid array argument, but complex, object or string dtype."""
    arr = np.asarray(valid, dtype=float)
    return st.sampled_from([arr + 1j, arr.astype(complex), arr + 0.5j * arr, arr.astype(object),
                            arr.astype(str), [complex(v) for v in arr.ravel()]])


def assert_refused_fast(fn, args, kwargs, param, bad, *, kind=(TypeError, ValueError), seconds=2.0):
    """``param=bad`` is refused (TypeError/ValueError naming ``param``) at once, no warning, no allocation."""
    import time

    t0 = time.perf_counter()
    with pytest.raises(kind) as info:
        fn(*args, **{**kwargs, param: bad})
    assert param in str(info.value), f"message does not name {param!r}: {info.value}"
    assert time.perf_counter() - t0 < seconds, f"{param}={bad!r} took {time.perf_counter() - t0:.1f} s to refuse"


def assert_size_case_refused(case, data) -> None:
    """A ``(label, fn, args, kwargs, param, maximum)`` size case: the valid call works, and a huge
    value or ``maximum + 1`` is refused at once with a ValueError naming the parameter."""
    _, fn, args, kwargs, param, maximum = case
    fn(*args, **kwargs)
    assert_refused_fast(fn, args, kwargs, param, data.draw(st.one_of(HUGE, st.just(maximum + 1)), label=param),
                        kind=ValueError)


ARRAY_CASES = [
    # (label, function, valid args, valid kwargs, array parameter, its valid value)
    ("permute_and_flip.scores", core.permute_and_flip, (), {"epsilon": 1.0, "rng": 0}, "scores", [1.0, 2.0]),
    ("permute_and_flip_probabilities.scores", core.permute_and_flip_probabilities, (), {"epsilon": 1.0}, "scores",
     [1.0, 2.0]),
    ("gdp_tradeoff.alpha", core.gdp_tradeoff, (1.0,), {}, "alpha", [0.1, 0.5]),
    ("hockey_stick.p", core.hockey_stick, (), {"q": [0.5, 0.5], "epsilon": 1.0}, "p", [0.5, 0.5]),
    ("exact_privacy_check.q", core.exact_privacy_check, (), {"p": [0.5, 0.5], "epsilon": 1.0}, "q", [0.5, 0.5]),
    ("exact_epsilon.p", core.exact_epsilon, (), {"q": [0.5, 0.5]}, "p", [0.5, 0.5]),
    ("randomized_response.bits", core.randomized_response, (), {"epsilon": 1.0, "rng": 0}, "bits", [0, 1]),
    ("debias_randomized_response.released", core.debias_randomized_response, (), {"epsilon": 1.0}, "released",
     [0.0, 1.0]),
    ("mean_confidence_band.values", core.mean_confidence_band, (), {}, "values", [1.0, 2.0, 3.0]),
]


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_array_case_valid_call_works(case):
    _, fn, args, kwargs, param, valid = case
    fn(*args, **{**kwargs, param: valid})


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
@settings(max_examples=12, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_complex_object_and_string_arrays_are_refused_not_cut_to_their_real_part(case, data):
    # before: permute_and_flip, randomized_response, ... gave a ComplexWarning and then a result
    _, fn, args, kwargs, param, valid = case
    assert_refused_fast(fn, args, kwargs, param, data.draw(array_variants(valid), label=param), kind=TypeError)


COUNT_CASES = [
    # (label, function, valid args, valid kwargs, count parameter, documented maximum)
    ("spawn.count", core.spawn, (0,), {"count": 2}, "count", core.validation.MAX_COUNT),
    ("sweep.trials", core.sweep, (lambda p, g: p, [1.0]), {"trials": 2}, "trials", core.validation.MAX_COUNT),
    ("clone_pair_epsilon.n", core.clone_pair_epsilon, (), {"epsilon0": 1.0, "n": 100, "delta": 1e-6}, "n",
     core.shuffle_amplification.MAX_N),
    ("clone_pair_delta.n", core.clone_pair_delta, (), {"epsilon0": 1.0, "n": 100, "epsilon": 0.5}, "n",
     core.shuffle_amplification.MAX_N),
    ("shuffle_amplification_epsilon0.n", core.shuffle_amplification_epsilon0, (),
     {"epsilon": 1.0, "n": 100, "delta": 1e-6}, "n", core.shuffle_amplification.MAX_N),
]


@pytest.mark.parametrize("case", COUNT_CASES, ids=[c[0] for c in COUNT_CASES])
@settings(max_examples=15, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_counts_refuse_bools_strings_fractions_and_sizes_beyond_their_maximum(case, data):
    # before: spawn(0, 2.7) returned 2 generators, spawn(0, "3") three, spawn(0, True) one, 10**9 hung;
    # clone-pair accounting at n = 10**14 .. 10**18 allocated 0.7 GB .. 72 GB
    _, fn, args, kwargs, param, maximum = case
    bad = data.draw(st.one_of(BAD_COUNT_TYPES, HUGE, st.just(maximum + 1)), label=param)
    assert_refused_fast(fn, args, kwargs, param, bad)


def test_spawn_returns_exactly_count_generators_and_zero_is_allowed():
    assert len(core.spawn(0, 3)) == 3 and core.spawn(0, 0) == [] and len(core.spawn(0, 3.0)) == 3


@pytest.mark.parametrize("bad", ["x", 0, -2, 1.5, True, 10**6, [2]])
def test_sweep_validates_n_jobs_before_importing_joblib(bad):
    # before: n_jobs="x" reached joblib (an ImportError where joblib is missing, else its own ValueError)
    assert_refused_fast(core.sweep, (lambda p, g: p, [1.0]), {"trials": 2}, "n_jobs", bad)


@pytest.mark.parametrize("bad", [math.nan, -1e-12, math.inf, 1.0, "0", None])
def test_exact_privacy_check_refuses_a_tolerance_that_could_hide_a_violation(bad):
    # before: tol=nan was accepted and every check silently said "not ok"
    assert_refused_fast(core.exact_privacy_check, ([0.5, 0.5], [0.5, 0.5]), {"epsilon": 1.0}, "tol", bad)


@pytest.mark.parametrize("bad", [[], np.zeros((0, 3)), 1.0])
def test_mean_confidence_band_refuses_empty_input(bad):
    # before: mean_confidence_band([]) returned (nan, nan, nan)
    assert_refused_fast(core.mean_confidence_band, (), {}, "values", bad, kind=ValueError)


def test_permute_and_flip_law_with_scores_far_apart_has_no_overflow_warning():
    # before: RuntimeWarning "overflow encountered in subtract"; the exact law is (1, 0)
    assert core.permute_and_flip_probabilities([1e308, -1e308], epsilon=1.0).tolist() == [1.0, 0.0]
    assert core.permute_and_flip([1e308, -1e308], epsilon=1.0, rng=0).index == 0
    tiny = core.permute_and_flip_probabilities([1e308, -1e308], epsilon=1e-300, sensitivity=1e300)
    assert np.all(np.isfinite(tiny)) and tiny.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("huge", [10**19, 10**400, -(10**400)])
def test_check_int_keeps_huge_python_ints_away_from_float_and_numpy(huge):
    with pytest.raises(ValueError, match="64-bit"):
        core.validation.check_int(huge, "n")
