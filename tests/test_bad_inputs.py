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
