"""Bad inputs for core.risk, the Laplace/Gaussian mechanisms and every public function of dpexplore.basics:
a TypeError or ValueError naming the parameter, quickly, never another exception, a warning or a silent NaN;
every size-like parameter refused above its public maximum before anything is allocated."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import core
from dpexplore.basics import MAX_PEOPLE, release_count, rr_survey
from dpexplore.basics import experiments as X
from dpexplore.basics import theory as T
from dpexplore.basics.game import MAX_ROUNDS, AttackerGame, play_optimal
from tests.test_bad_inputs import BAD, HUGE, NEGATIVE, NONFINITE, WRONG_TYPES, assert_clear_error, assert_refused_fast

# ε ≥ 0 where ε = 0 means "no information" (risk functions); δ in [0, 1) there
NONNEG = st.one_of(WRONG_TYPES, NONFINITE, NEGATIVE)
DELTA0 = st.one_of(WRONG_TYPES, NONFINITE, NEGATIVE, st.floats(min_value=1.0, max_value=1e300))
PROB_OPEN = BAD["delta"]  # (0, 1): prior
CHOICE = st.one_of(st.sampled_from([None, 1, b"laplace", ["rr"]]), st.sampled_from(["cauchy", "", "LAPLACE"]))
# α in [0, 1], a number or an array of them ([1.0] is valid)
ALPHA = st.one_of(st.sampled_from(["1", None, {"a": 1}, 1j, b"x", object()]), NONFINITE, NEGATIVE,
                  st.floats(min_value=1.0001, max_value=1e300))
KINDS = {**BAD, "nonneg": NONNEG, "delta0": DELTA0, "prob_open": PROB_OPEN, "choice": CHOICE, "alpha": ALPHA}

CASES = [
    ("dp_tradeoff.epsilon", core.dp_tradeoff, (), {"epsilon": 1.0, "delta": 0.0, "alpha": 0.5}, "epsilon", "nonneg"),
    ("dp_tradeoff.delta", core.dp_tradeoff, (), {"epsilon": 1.0, "delta": 0.0, "alpha": 0.5}, "delta", "delta0"),
    ("dp_tradeoff.alpha", core.dp_tradeoff, (), {"epsilon": 1.0, "delta": 0.0, "alpha": 0.5}, "alpha", "alpha"),
    ("advantage_bound.epsilon", core.advantage_bound, (), {"epsilon": 1.0, "delta": 0.0}, "epsilon", "nonneg"),
    ("advantage_bound.delta", core.advantage_bound, (), {"epsilon": 1.0, "delta": 0.0}, "delta", "delta0"),
    ("gdp_advantage.mu", core.gdp_advantage, (), {"mu": 1.0}, "mu", "nonneg"),
    ("posterior_bound.prior", core.posterior_bound, (), {"prior": 0.5, "epsilon": 1.0}, "prior", "prob_open"),
    ("posterior_bound.epsilon", core.posterior_bound, (), {"prior": 0.5, "epsilon": 1.0}, "epsilon", "nonneg"),
    ("posterior_bound.delta", core.posterior_bound, (), {"prior": 0.5, "epsilon": 1.0, "delta": 0.0}, "delta",
     "delta0"),
    ("laplace_mechanism.epsilon", core.laplace_mechanism, (1.0,), {"sensitivity": 1.0, "epsilon": 1.0}, "epsilon",
     "positive"),
    ("laplace_mechanism.sensitivity", core.laplace_mechanism, (1.0,), {"sensitivity": 1.0, "epsilon": 1.0},
     "sensitivity", "positive"),
    ("gaussian_mechanism.delta", core.gaussian_mechanism, (1.0,), {"sensitivity": 1.0, "epsilon": 1.0,
                                                                   "delta": 1e-5}, "delta", "delta"),
    ("release_count.mechanism", release_count, (3, 10), {"mechanism": "laplace", "epsilon": 1.0}, "mechanism",
     "choice"),
    ("release_count.epsilon", release_count, (3, 10), {"mechanism": "rr", "epsilon": 1.0}, "epsilon", "positive"),
    ("rr_survey.epsilon", rr_survey, ([0, 1],), {"epsilon": 1.0}, "epsilon", "positive"),
    ("composed_epsilon.k", T.composed_epsilon, ("gaussian", "zcdp"), {"epsilon": 1.0, "delta": 1e-5, "k": 2}, "k",
     "count"),
    ("split_noise_sd.total_epsilon", T.split_noise_sd, ("gaussian", "zcdp"),
     {"total_epsilon": 1.0, "delta": 1e-5, "k": 2}, "total_epsilon", "positive"),
    ("play_optimal.rounds", play_optimal, ("rr",), {"epsilon": 1.0, "rounds": 10}, "rounds", "count"),
    ("attacker_success.rounds", X.attacker_success, ("rr",), {"epsilons": [1.0], "rounds": 10, "trials": 1},
     "rounds", "count"),
    ("error_vs_epsilon.trials", X.error_vs_epsilon, (10,), {"epsilons": [1.0], "trials": 2}, "trials", "count"),
    ("release_histogram.epsilon", X.release_histogram, ("gaussian",), {"epsilon": 1.0, "runs": 100}, "epsilon",
     "positive"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_valid_call_works(case):
    _, fn, args, kwargs, _, _ = case
    fn(*args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_value_gets_a_clear_error(case, data):
    _, fn, args, kwargs, param, kind = case
    assert_clear_error(fn, args, kwargs, param, data.draw(KINDS[kind], label=param))


SIZE_CASES = [
    ("release_count.n", release_count, (3,), {"mechanism": "rr", "epsilon": 1.0, "n": 10}, "n", MAX_PEOPLE),
    ("error_vs_epsilon.trials", X.error_vs_epsilon, (10,), {"epsilons": [1.0], "trials": 2}, "trials",
     X.MAX_TRIALS),
    ("release_histogram.runs", X.release_histogram, ("laplace",), {"epsilon": 1.0, "runs": 100}, "runs",
     X.MAX_RUNS),
    ("privacy_loss_tail.n", X.privacy_loss_tail, ("rr",), {"epsilon": 1.0, "runs": 100, "n": 10}, "n", MAX_PEOPLE),
    ("composition_audit.runs", X.composition_audit, ("laplace",), {"epsilon": 1.0, "ks": [1], "runs": 100}, "runs",
     X.MAX_RUNS),
    ("composed_epsilon.k", T.composed_epsilon, ("laplace", "basic"), {"epsilon": 1.0, "delta": 1e-5, "k": 2}, "k",
     T.MAX_RELEASES),
    ("play_optimal.rounds", play_optimal, ("laplace",), {"epsilon": 1.0, "rounds": 10}, "rounds", MAX_ROUNDS),
    ("AttackerGame.rounds", AttackerGame, ("laplace",), {"epsilon": 1.0, "rounds": 10}, "rounds", MAX_ROUNDS),
]


@pytest.mark.parametrize("case", SIZE_CASES, ids=[c[0] for c in SIZE_CASES])
@settings(max_examples=8, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_sizes_beyond_their_public_maximum_are_refused_at_once(case, data):
    _, fn, args, kwargs, param, maximum = case
    fn(*args, **kwargs)
    assert_refused_fast(fn, args, kwargs, param, data.draw(st.one_of(HUGE, st.just(maximum + 1)), label=param),
                        kind=ValueError)


def test_composition_audit_caps_its_total_work():
    assert_refused_fast(X.composition_audit, ("laplace",), {"epsilon": 1.0, "runs": 1_000_000}, "ks", [1000],
                        kind=ValueError)
