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
    audit_from_scores,
    audit_mechanism,
    broken_gaussian_sigma,
    broken_permute_and_flip,
    broken_randomized_response,
    clopper_pearson_upper,
    epsilon_lower_bound,
    exact_audit,
    gaussian_mechanism_scores,
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
    with pytest.raises(ValueError, match=r"^runs must be an integer >= 20; got 5$"):
        audit_mechanism(rr_mech, 0, 1, score=float, runs=5)
    with pytest.raises(ValueError, match=r"same size >= 20"):
        audit_from_scores([0.0] * 30, [0.0] * 20)
    with pytest.raises(TypeError, match=r"callables"):
        audit_mechanism(rr_mech, 0, 1, score=None)
