import math

import numpy as np
import pytest

from dpexplore.core import (
    flip_probability,
    gaussian_sigma,
    gdp_epsilon,
    permute_and_flip_probabilities,
    randomized_response,
)
from dpexplore.core.audit import (
    PairAudit,
    StatisticalAudit,
    audit_from_scores,
    audit_mechanism,
    broken_gaussian_sigma,
    broken_permute_and_flip,
    broken_randomized_response,
    check_audit_args,
    clopper_pearson_upper,
    epsilon_lower_bound,
    exact_audit,
    exact_audit_result,
    gaussian_mechanism_scores,
    sampled_audit,
)

SEEDS = range(5)


def rr_law(flip):
    return [1 - flip, flip], [flip, 1 - flip]


def test_clopper_pearson_known_values():
    # k = 0: the upper bound solves (1 - p)^n = alpha
    assert clopper_pearson_upper(0, 500, 0.05) == pytest.approx(1 - 0.05 ** (1 / 500))
    assert clopper_pearson_upper(500, 500, 0.05) == 1.0
    assert clopper_pearson_upper(10, 100, 0.05) > 0.1


def test_lower_bound_is_below_the_point_estimate_and_zero_without_signal():
    assert epsilon_lower_bound(100, 100, 1000) < math.log(0.9 / 0.1)
    assert epsilon_lower_bound(500, 500, 1000) == 0.0


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_exact_audit_randomized_response_and_its_broken_variant(eps):
    ok = exact_audit(*rr_law(flip_probability(eps)), claimed_epsilon=eps)
    assert ok.epsilon == pytest.approx(eps) and not ok.violation
    broken = exact_audit(*rr_law(broken_randomized_response([0], eps, rng=0).flip_probability), claimed_epsilon=eps)
    assert broken.epsilon == pytest.approx(2 * eps) and broken.violation


def test_exact_audit_permute_and_flip_and_broken_variant():
    eps = 1.0
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(100):
        q = rng.normal(size=5)
        q2 = q + rng.uniform(-1, 1, size=5)  # neighbouring scores (sensitivity 1)
        a = exact_audit(permute_and_flip_probabilities(q, eps), permute_and_flip_probabilities(q2, eps),
                        claimed_epsilon=eps)
        assert not a.violation
        worst = max(worst, a.epsilon)
    assert worst > 0.5 * eps  # the pairs were not trivially easy
    # the broken variant (factor 2 dropped) is caught exactly on a neighbouring pair
    q, q2 = np.array([0.0, 0.0]), np.array([1.0, -1.0])  # PF at ε is exactly ε-tight on this pair
    broken = exact_audit(permute_and_flip_probabilities(q, 2 * eps), permute_and_flip_probabilities(q2, 2 * eps),
                         claimed_epsilon=eps)
    assert broken.violation and broken.epsilon > 1.5 * eps
    assert broken_permute_and_flip([0.0, 1.0], 1.0, rng=0).epsilon == 1.0


def rr_mech(bit, g):
    return int(randomized_response([bit], 1.0, rng=g).bits[0])


def broken_rr_mech(bit, g):
    return int(broken_randomized_response([bit], 1.0, rng=g).bits[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_statistical_audit_never_exceeds_claim_for_correct_rr(seed):
    res = audit_mechanism(rr_mech, 0, 1, score=float, claimed_epsilon=1.0, confidence=0.99, rng=seed)
    assert res.epsilon_lower <= 1.0 and not res.violation
    assert res.epsilon_lower > 0.6  # and it is not vacuous: the default run count measures something


@pytest.mark.parametrize("seed", SEEDS)
def test_statistical_audit_catches_broken_rr_at_default_runs(seed):
    res = audit_mechanism(broken_rr_mech, 0, 1, score=float, claimed_epsilon=1.0, confidence=0.99, rng=seed)
    assert res.violation and res.epsilon_lower > 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_audit_correct_and_broken(seed):
    eps, delta, runs = 1.0, 1e-3, 200_000
    sigma = gaussian_sigma(eps, delta)
    ok = audit_from_scores(*gaussian_mechanism_scores(sigma, 1.0, runs, rng=seed), delta=delta,
                           claimed_epsilon=eps, confidence=0.99)
    assert not ok.violation
    bad_sigma = broken_gaussian_sigma(eps, delta)
    assert gdp_epsilon(1 / bad_sigma, delta) > 2 * eps  # the truth the audit is chasing
    bad = audit_from_scores(*gaussian_mechanism_scores(bad_sigma, 1.0, runs, rng=seed), delta=delta,
                            claimed_epsilon=eps, confidence=0.99)
    assert bad.violation


def test_progress_and_cancel():
    calls = []

    def progress(done, total):
        calls.append(done)
        return done < 100

    res = audit_mechanism(rr_mech, 0, 1, score=float, runs=400, chunk=50, progress=progress, rng=0)
    assert res.cancelled and math.isnan(res.epsilon_lower) and calls == [50, 100]


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^runs must be an integer >= 20 and <= 10000000; got 5$"):
        audit_mechanism(rr_mech, 0, 1, score=float, runs=5)
    with pytest.raises(ValueError, match=r"same size >= 20"):
        audit_from_scores([0.0] * 30, [0.0] * 20)
    with pytest.raises(TypeError, match=r"callables"):
        audit_mechanism(rr_mech, 0, 1, score=None)


# -- the shared machinery every paper's audit uses ----------------------------------------------------
def _gauss_pair(mu, seed):
    g0, g1 = np.random.default_rng(seed).spawn(2)
    return lambda m: (g0.normal(0.0, 1.0, m), g1.normal(mu, 1.0, m))


@pytest.mark.parametrize("chunk", [None, 7, 1000, 5000])
def test_sampled_audit_numbers_do_not_depend_on_chunking(chunk):
    """Each input draws from its own stream, so chunking changes nothing: same scores as one bulk draw."""
    ref = audit_from_scores(*_gauss_pair(2.0, 3)(5000), delta=1e-3, claimed_epsilon=1.0)
    res = sampled_audit(_gauss_pair(2.0, 3), 5000, delta=1e-3, claimed_epsilon=1.0, chunk=chunk)
    assert (res.epsilon_lower, res.threshold, res.false_positive_rate, res.false_negative_rate, res.runs) == (
        ref.epsilon_lower, ref.threshold, ref.false_positive_rate, ref.false_negative_rate, 5000)
    assert res.violation and not res.cancelled


def test_sampled_audit_drops_the_surplus_of_a_bulk_sampler():
    calls = []

    def bulk(want):  # always 1000 runs per call, whatever is asked (like one released graph of many pairs)
        calls.append(want)
        return np.arange(1000.0), np.arange(1000.0) + 500.0

    res = sampled_audit(bulk, 2500)
    ref = audit_from_scores(np.tile(np.arange(1000.0), 3)[:2500], np.tile(np.arange(1000.0) + 500.0, 3)[:2500])
    assert calls == [2500, 1500, 500] and res.runs == 2500
    assert (res.epsilon_lower, res.threshold) == (ref.epsilon_lower, ref.threshold)


def test_sampled_audit_cancel_reports_the_runs_made():
    seen = []

    def progress(done, total):
        seen.append((done, total))
        return done < 200

    res = sampled_audit(_gauss_pair(1.0, 0), 1000, chunk=100, claimed_epsilon=0.5, progress=progress)
    assert res.cancelled and res.runs == 200 and seen == [(100, 1000), (200, 1000)]
    assert math.isnan(res.epsilon_lower) and not res.violation and res.claimed_epsilon == 0.5


def test_sampled_audit_rejects_an_empty_sample():
    with pytest.raises(ValueError, match="at least one score"):
        sampled_audit(lambda m: ([], []), 100)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rule", ["plug-in", "tail"])
def test_both_threshold_rules_give_lower_bounds(seed, rule):
    """ε̂ ≤ the exact ε of the Gaussian pair (μ = 2: gdp_epsilon(2, δ) ≈ 7.58 at δ = 1e-3); at 99.9% confidence
    per audit the ten audits all hold with probability ≥ 99%."""
    res = sampled_audit(_gauss_pair(2.0, seed), 40_000, delta=1e-3, confidence=0.999, threshold=rule)
    assert 2.0 < res.epsilon_lower <= gdp_epsilon(2.0, 1e-3)


def test_check_audit_args_names_the_parameter():
    assert check_audit_args(20, 0.5) == (20, 0.5, None)
    with pytest.raises(TypeError, match="chunk"):  # an audit that takes a chunk never runs unchunked
        check_audit_args(100, 0.95, chunk=None)
    with pytest.raises(ValueError, match=r"^runs must be an integer >= 20 and <= 100; got 101$"):
        check_audit_args(101, 0.95, max_runs=100)
    with pytest.raises(ValueError, match="confidence"):
        check_audit_args(100, 1.0)
    with pytest.raises(ValueError, match="chunk"):
        check_audit_args(100, 0.95, chunk=0)
    with pytest.raises(TypeError, match="progress must be a callable"):
        check_audit_args(100, 0.95, progress=3)
    with pytest.raises(ValueError, match="threshold"):
        audit_from_scores([0.0] * 20, [1.0] * 20, threshold="best")


def test_exact_audit_result_grid_and_violation_rule():
    inf = exact_audit_result(math.inf, lambda e: 0.5, delta=0.0, claimed_epsilon=1.0, grid=4)
    assert inf.violation and inf.epsilons.tolist() == [0.0, 0.5, 1.0, 1.5] and inf.deltas.tolist() == [0.5] * 4
    assert not exact_audit_result(1.0 + 1e-12, lambda e: 0.0, delta=0.0, claimed_epsilon=1.0).violation  # rounding
    assert exact_audit_result(1.0 + 1e-6, lambda e: 0.0, delta=0.0, claimed_epsilon=1.0).violation
    assert not exact_audit_result(5.0, lambda e: 0.0, delta=0.0).violation  # no claim, no violation
    mu = 1 / (math.e + 1)  # agrees with exact_audit on randomized response
    ex = exact_audit([1 - mu, mu], [mu, 1 - mu], claimed_epsilon=1.0, grid=5)
    assert ex.epsilons.tolist() == pytest.approx(np.linspace(0, 1.5, 5).tolist())


def test_pair_audit_violation_rules():
    def stat(lower):
        return StatisticalAudit(lower, 0.95, 100, 0.0, 0.1, 0.1, 1.0, lower > 1.0, False)

    assert PairAudit("m", "p", 1.0, 0.0, math.inf, stat(0.0), False).violation  # disjoint supports
    assert not PairAudit("m", "p", 1.0, 0.0, math.nan, stat(0.9), False).violation  # law not computable
    assert PairAudit("m", "p", 1.0, 0.0, math.nan, stat(1.2), False).violation  # ε̂ above the claim
    cancelled = StatisticalAudit(math.nan, 0.95, 10, math.nan, math.nan, math.nan, 1.0, False, 0.0, cancelled=True)
    a = PairAudit("m", "p", 1.0, 0.0, 0.5, cancelled, False)
    assert a.cancelled and not a.violation and math.isnan(a.epsilon_lower)
    assert PairAudit("m", "p", 1.0, 0.0, 1.0 + 1e-12, None, False).epsilon_lower is None
    assert not PairAudit("m", "p", 1.0, 0.0, 1.0 + 1e-12, None, False).violation
