"""Bad inputs for every public function of dpexplore.shuffle (issue 9).

Each case substitutes hypothesis-drawn bad values for one parameter; the call must end in a
TypeError/ValueError naming the parameter (``assert_clear_error`` from tests/test_bad_inputs.py),
quickly, with no numpy warning (pytest runs with filterwarnings=error). Numerical edge cases
(tiny δ, huge n, ε near 0 and huge) are checked to stay finite and honest below.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import shuffle as S
from dpexplore.shuffle import audit as SA
from tests.test_bad_inputs import BAD, WRONG_TYPES, assert_clear_error

R2 = S.binary_rr(1.0)
R4 = S.k_rr(1.0, 4)
NONFIN = st.sampled_from([math.nan, math.inf, -math.inf])
# wrong types for array-valued parameters ([1.0] is a valid array there)
WRONG_ARR = st.sampled_from(["1", None, {"a": 1}, 1j, b"x", object(), [[1.0], [1.0, 2.0]]])
KINDS = {
    **BAD,
    # n where n = 1 is allowed (k = 0 pair): zero, negative, non-integers, wrong types, absurdly huge
    "n1": st.one_of(WRONG_TYPES, NONFIN, st.integers(max_value=0), st.just(2.5), st.floats(1.01, 1.99)),
    "n_huge": st.sampled_from([10**12, 10**15, 2**63]),
    "randomizer": st.one_of(WRONG_TYPES, st.just(1.0), st.just(np.array([0.5, 0.5]))),
    "prob": st.one_of(WRONG_TYPES, NONFIN, st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False),
                      st.floats(min_value=1.0 + 1e-9, max_value=1e300)),
    "eps_nonneg": st.one_of(WRONG_ARR, NONFIN, st.floats(max_value=-1e-9, allow_nan=False, allow_infinity=False)),
    "alpha": st.one_of(WRONG_ARR, NONFIN, st.just(-0.1), st.just(1.5)),
    "pvec": st.one_of(WRONG_ARR, st.just([]), st.just([1.0]), st.just([0.5, 0.5, 0.0]), st.just([0.7, 0.7]),
                      st.just([np.nan, 1.0]), st.just([-0.5, 1.5]), st.just([[0.5, 0.5]]), st.just([0.2, 0.8, 0.0])),
    "counts": st.one_of(WRONG_TYPES, st.just([[1, 1]]), st.just([[4, 0, 0]]), st.just([[-1, 5]]),
                        st.just([[np.nan, 4]]), st.just([4, 0])),
    "bits": st.one_of(WRONG_ARR, st.just([]), st.just([0.5, 1]), st.just([2, 0]), st.just([[0, 1]]),
                      st.just([np.nan, 1]), st.just(np.array([-1, 0]))),
    "choice": st.one_of(WRONG_TYPES, st.just("nonsense"), st.just("")),
    "big_eps0": st.sampled_from([701.0, 1e6, 1e300]),
}

CASES = [
    ("binary_rr.epsilon0", S.binary_rr, (), {"epsilon0": 1.0}, "epsilon0", "positive"),
    ("binary_rr.epsilon0.huge", S.binary_rr, (), {"epsilon0": 1.0}, "epsilon0", "big_eps0"),
    ("k_rr.epsilon0", S.k_rr, (), {"epsilon0": 1.0, "k": 3}, "epsilon0", "positive"),
    ("k_rr.k", S.k_rr, (), {"epsilon0": 1.0, "k": 3}, "k", "count2"),
    ("randomizer.W0", S.randomizer, (), {"W0": [0.5, 0.5], "W1": [0.2, 0.8]}, "W0", "pvec"),
    ("randomizer.W1", S.randomizer, (), {"W0": [0.5, 0.5], "W1": [0.2, 0.8]}, "W1", "pvec"),
    ("sigma_b.randomizer", S.sigma_b, (), {"randomizer": R2, "b": 0}, "randomizer", "randomizer"),
    ("sigma_b.b", S.sigma_b, (), {"randomizer": R2, "b": 0}, "b", "alpha"),
    ("sigma_pi.pi", S.sigma_pi, (), {"randomizer": R2, "pi": 0.1}, "pi", "prob"),
    ("sigma_mix.pi", S.sigma_mix, (), {"randomizer": R2, "pi": 0.1}, "pi", "prob"),
    ("fisher_constant.pi", S.fisher_constant, (), {"randomizer": R4, "pi": 0.1}, "pi", "prob"),
    ("fisher_constant.randomizer", S.fisher_constant, (), {"randomizer": R4}, "randomizer", "randomizer"),
    ("mixture_constant.pi", S.mixture_constant, (), {"randomizer": R4, "pi": 0.1}, "pi", "prob"),
    ("mixture_constant_closed_form.pi", S.mixture_constant_closed_form, (), {"randomizer": R4, "pi": 0.1}, "pi",
     "prob"),
    ("chi_square.randomizer", S.chi_square, (), {"randomizer": R2}, "randomizer", "randomizer"),
    ("mu3.randomizer", S.mu3, (), {"randomizer": R2}, "randomizer", "randomizer"),
    ("shuffled_pair.n", S.shuffled_pair, (R2,), {"n": 100}, "n", "n1"),
    ("shuffled_pair.n.huge", S.shuffled_pair, (R2,), {"n": 100}, "n", "n_huge"),
    ("shuffled_pair.k", S.shuffled_pair, (R2,), {"n": 100, "k": 3}, "k", "eps_nonneg"),
    ("shuffled_pair.messages", S.shuffled_pair, (R2,), {"n": 100, "messages": 2}, "messages", "n1"),
    ("shuffled_pair.randomizer", S.shuffled_pair, (), {"randomizer": R2, "n": 100}, "randomizer", "randomizer"),
    ("exact_delta.epsilon", S.exact_delta, (R2, 100), {"epsilon": 0.5}, "epsilon", "eps_nonneg"),
    ("exact_delta.direction", S.exact_delta, (R2, 100), {"epsilon": 0.5, "direction": "max"}, "direction", "choice"),
    ("exact_epsilon.delta", S.exact_epsilon, (R2, 100), {"delta": 1e-6}, "delta", "delta"),
    ("jsd_exact.n", S.jsd_exact, (R2,), {"n": 100}, "n", "n1"),
    ("exact_tradeoff.alpha", S.exact_tradeoff, (R2, 100), {"alpha": 0.1}, "alpha", "alpha"),
    ("histogram_law.n", S.histogram_law, (R4,), {"n": 5}, "n", "n1"),
    ("histogram_law.n.huge", S.histogram_law, (R4,), {"n": 5}, "n", "n_huge"),
    ("likelihood_ratio.counts", S.likelihood_ratio, (R2, 4), {"counts": [[2, 2]]}, "counts", "counts"),
    ("gdp_mu.n", S.gdp_mu, (R2,), {"n": 100}, "n", "n1"),
    ("gdp_mu.k", S.gdp_mu, (R2,), {"n": 100, "k": 1}, "k", "eps_nonneg"),
    ("gdp_mu_multi.m", S.gdp_mu_multi, (R2, 100), {"m": 2}, "m", "n1"),
    ("gdp_delta_curve.mu", S.gdp_delta_curve, (), {"mu": 1.0, "epsilon": 0.5}, "mu", "positive"),
    ("gdp_delta_curve.epsilon", S.gdp_delta_curve, (), {"mu": 1.0, "epsilon": 0.5}, "epsilon", "eps_nonneg"),
    ("gdp_epsilon_at.delta", S.gdp_epsilon_at, (), {"mu": 1.0, "delta": 1e-6}, "delta", "delta"),
    ("gdp_epsilon_at.mu", S.gdp_epsilon_at, (), {"mu": 1.0, "delta": 1e-6}, "mu", "positive"),
    ("tradeoff_gdp.alpha", S.tradeoff_gdp, (), {"mu": 1.0, "alpha": 0.1}, "alpha", "alpha"),
    ("tradeoff_gdp.mu", S.tradeoff_gdp, (), {"mu": 1.0, "alpha": 0.1}, "mu", "positive"),
    ("jsd_asymptotic.n", S.jsd_asymptotic, (R2,), {"n": 100}, "n", "n1"),
    ("jsd_two_term.n", S.jsd_two_term, (R2,), {"n": 100}, "n", "n1"),
    ("chernoff_delta.epsilon", S.chernoff_delta, (R2, 100), {"epsilon": 0.5}, "epsilon", "eps_nonneg"),
    ("chernoff_delta.n", S.chernoff_delta, (R2,), {"n": 100, "epsilon": 0.5}, "n", "n1"),
    ("chernoff_epsilon.delta", S.chernoff_epsilon, (R2, 100), {"delta": 1e-6}, "delta", "delta"),
    ("chernoff_epsilon.direction", S.chernoff_epsilon, (R2, 100), {"delta": 1e-6, "direction": "max"}, "direction",
     "choice"),
    ("poisson_lambda.epsilon0", S.poisson_lambda, (), {"epsilon0": 1.0, "n": 100}, "epsilon0", "positive"),
    ("poisson_lambda.n", S.poisson_lambda, (), {"epsilon0": 1.0, "n": 100}, "n", "n1"),
    ("poisson_delta.lam", S.poisson_delta, (), {"lam": 1.0, "epsilon": 0.5}, "lam", "positive"),
    ("poisson_delta.epsilon", S.poisson_delta, (), {"lam": 1.0, "epsilon": 0.5}, "epsilon", "eps_nonneg"),
    ("fmt21_epsilon.delta", S.fmt21_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6}, "delta", "delta"),
    ("fmt21_epsilon.epsilon0", S.fmt21_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6}, "epsilon0",
     "positive"),
    ("fmt_epsilon.n", S.fmt_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6}, "n", "count2"),
    ("fmt_epsilon.variant", S.fmt_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6}, "variant", "choice"),
    ("fmt_delta.epsilon0", S.fmt_delta, (), {"epsilon0": 1.0, "n": 1000, "epsilon": 0.5}, "epsilon0", "positive"),
    ("blanket_epsilon.epsilon0", S.blanket_epsilon, (), {"epsilon0": 1.0, "n": 10**5, "delta": 1e-6}, "epsilon0",
     "positive"),
    ("blanket_epsilon.n", S.blanket_epsilon, (), {"epsilon0": 1.0, "n": 10**5, "delta": 1e-6}, "n", "count2"),
    ("shuffled_epsilon.epsilon0", S.shuffled_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6,
     "accounting": "exact"}, "epsilon0", "positive"),
    ("shuffled_epsilon.n", S.shuffled_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6,
     "accounting": "exact"}, "n", "count"),
    ("shuffled_epsilon.delta", S.shuffled_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6,
     "accounting": "gdp"}, "delta", "delta"),
    ("shuffled_epsilon.accounting", S.shuffled_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6,
     "accounting": "exact"}, "accounting", "choice"),
    ("affordable_epsilon0.epsilon", S.affordable_epsilon0, (), {"epsilon": 0.5, "delta": 1e-6, "n": 1000,
     "accounting": "gdp"}, "epsilon", "positive"),
    ("affordable_epsilon0.n", S.affordable_epsilon0, (), {"epsilon": 0.5, "delta": 1e-6, "n": 1000,
     "accounting": "gdp"}, "n", "count2"),
    ("frequency_variance.epsilon0", S.frequency_variance, (), {"epsilon0": 1.0, "n": 1000}, "epsilon0", "positive"),
    ("frequency_variance.n", S.frequency_variance, (), {"epsilon0": 1.0, "n": 1000}, "n", "n1"),
    # worst case, profiles, composition, solver, caps (issues 13/14): sizes have public maxima
    ("worst_case_epsilon.n", S.worst_case_epsilon, (R2,), {"n": 100, "delta": 1e-6}, "n", "n_huge"),
    ("worst_case_epsilon.delta", S.worst_case_epsilon, (R2,), {"n": 100, "delta": 1e-6}, "delta", "delta"),
    ("worst_case_epsilon.randomizer", S.worst_case_epsilon, (), {"randomizer": R2, "n": 100, "delta": 1e-6},
     "randomizer", "randomizer"),
    ("worst_case_delta.epsilon", S.worst_case_delta, (R4, 50), {"epsilon": 0.1}, "epsilon", "eps_nonneg"),
    ("dominating_pair_delta.n", S.dominating_pair_delta, (R4,), {"n": 100, "epsilon": 0.1}, "n", "n_huge"),
    ("dominating_pair_delta.bound", S.dominating_pair_delta, (R4, 100, 0.1), {"bound": "upper"}, "bound", "choice"),
    ("blanket_pair_delta.n", S.blanket_pair_delta, (R4,), {"n": 100, "epsilon": 0.1}, "n", "n_huge"),
    ("blanket_pair_delta.epsilon", S.blanket_pair_delta, (R4, 100), {"epsilon": 0.1}, "epsilon", "eps_nonneg"),
    ("blanket_pair_delta.bound", S.blanket_pair_delta, (R4, 100, 0.1), {"bound": "upper"}, "bound", "choice"),
    ("blanket_pair_delta.blocks", S.blanket_pair_delta, (R4, 100, 0.1), {"blocks": 8}, "blocks", "count"),
    ("blanket_pair_delta.blocks.huge", S.blanket_pair_delta, (R4, 100, 0.1), {"blocks": 8}, "blocks", "n_huge"),
    ("pure_pair.others", S.pure_pair, (R4, 20), {"others": 2}, "others", "n_huge"),
    ("privacy_profile.n", S.privacy_profile, (R2,), {"n": 100, "deltas": [1e-6]}, "n", "n_huge"),
    ("compose_rounds.rounds", S.compose_rounds, (R2, 100), {"rounds": 2, "delta": 1e-6}, "rounds", "n_huge"),
    ("compose_rounds.n", S.compose_rounds, (R2,), {"n": 100, "rounds": 2, "delta": 1e-6}, "n", "n_huge"),
    ("compose_rounds.delta", S.compose_rounds, (R2, 100, 2), {"delta": 1e-6}, "delta", "delta"),
    ("smallest_n.n_max", S.smallest_n, (0.5, 1e-6, 1.0), {"accounting": "gdp", "n_max": 10**6}, "n_max", "n_huge"),
    ("smallest_n.epsilon0", S.smallest_n, (0.5, 1e-6), {"epsilon0": 1.0, "accounting": "gdp"}, "epsilon0",
     "positive"),
    ("gdp_epsilon_multi.m", S.gdp_epsilon_multi, (R2, 1000), {"m": 3, "delta": 1e-6, "bundled": True}, "m",
     "n_huge"),
    ("gdp_mu_multi.m", S.gdp_mu_multi, (R2, 1000), {"m": 3, "bundled": True}, "m", "n_huge"),
    ("fmt_epsilon_bracket.n", S.fmt_epsilon_bracket, (1.0,), {"n": 1000, "delta": 1e-6}, "n", "n_huge"),
    ("blanket_epsilon.method", S.blanket_epsilon, (1.0, 1000, 1e-6), {"method": "closed_form"}, "method", "choice"),
    ("k_rr.k.huge", S.k_rr, (), {"epsilon0": 1.0, "k": 3}, "k", "n_huge"),
    # audit module
    ("audit.worst_case_datasets.n", SA.worst_case_datasets, (), {"n": 10}, "n", "n1"),
    ("audit.shuffled_histogram.epsilon0", SA.shuffled_histogram, ([0, 1, 0],), {"epsilon0": 1.0}, "epsilon0",
     "positive"),
    ("audit.shuffled_histogram.data", SA.shuffled_histogram, (), {"data": [0, 1], "epsilon0": 1.0}, "data", "bits"),
    ("audit.broken_shuffled_histogram.epsilon0", SA.broken_shuffled_histogram, ([0, 1],), {"epsilon0": 1.0},
     "epsilon0", "positive"),
    ("audit.broken_mixture_epsilon.n", SA.broken_mixture_epsilon, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6},
     "n", "n1"),
    ("audit.exact_shuffle_audit.epsilon0", SA.exact_shuffle_audit, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6},
     "epsilon0", "positive"),
    ("audit.exact_shuffle_audit.delta", SA.exact_shuffle_audit, (), {"epsilon0": 1.0, "n": 1000, "delta": 1e-6},
     "delta", "delta"),
    ("audit.exact_shuffle_audit.accounting", SA.exact_shuffle_audit, (), {"epsilon0": 1.0, "n": 1000,
     "delta": 1e-6, "accounting": "fmt23_numerical"}, "accounting", "choice"),
    ("audit.exact_shuffle_audit.variant", SA.exact_shuffle_audit, (), {"epsilon0": 1.0, "n": 1000,
     "delta": 1e-6, "variant": "correct"}, "variant", "choice"),
    ("audit.statistical_shuffle_audit.runs", SA.statistical_shuffle_audit, (), {"epsilon0": 1.0, "n": 100,
     "delta": 1e-6, "runs": 100}, "runs", "count2"),
    ("audit.statistical_shuffle_audit.n", SA.statistical_shuffle_audit, (), {"epsilon0": 1.0, "n": 100,
     "delta": 1e-6, "runs": 100}, "n", "n1"),
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
