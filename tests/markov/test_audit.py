"""Audits of Mechanism 1 and the baseline: exact losses, worst pairs, statistical bounds, broken variants."""

import itertools
import math

import numpy as np
import pytest

from dpexplore.core.privacy_curves import exact_epsilon
from dpexplore.markov import (
    baseline_kernel,
    city_grid,
    credit_migration,
    distances,
    mechanism_kernel,
    web_browsing,
    word_distribution,
)
from dpexplore.markov.audit import (
    TrajectoryPair,
    audit_markov,
    broken_baseline_kernel,
    broken_mechanism_kernel,
    exact_pair_audit,
    log_step_law,
    long_pair,
    privacy_loss,
    statistical_pair_audit,
    step_kernel,
    trajectory_distance,
    worst_pair,
)

SMALL = np.array([[0.7, 0.3, 0.0], [0.2, 0.5, 0.3], [0.1, 0.05, 0.85]])
SEEDS = range(3)
DEFAULT_RUNS = 20000  # audit_markov's and the dashboard's default
# (chain, ε, ρ): settings where ρ-adjacent pairs exist (checked below)
SETTINGS = {
    "small": (SMALL, 1.0, 3.0),
    "credit": (credit_migration(), 3.0, 12.0),
    "grid": (city_grid(3), 3.0, 5.0),
    "web": (web_browsing(20, rng=0), 3.0, 2.0),
}


def _kernel_for(mech, chain, eps, rho):
    return {"mechanism1": lambda: mechanism_kernel(chain, epsilon=eps, rho=rho),
            "baseline": lambda: baseline_kernel(chain, epsilon=eps),
            "broken_mechanism1": lambda: broken_mechanism_kernel(chain, epsilon=eps, rho=rho),
            "broken_baseline": lambda: broken_baseline_kernel(chain, epsilon=eps)}[mech]()


@pytest.mark.parametrize("mech", ["mechanism1", "baseline", "broken_mechanism1", "broken_baseline"])
def test_log_law_is_the_shipped_kernel(mech):
    chain, eps, rho = SETTINGS["grid"]
    law = log_step_law(chain, mech, epsilon=eps, rho=rho)
    K = _kernel_for(mech, chain, eps, rho)
    assert np.exp(law.first) == pytest.approx(K.first, abs=1e-12)
    assert np.exp(law.step) == pytest.approx(K.dense(), abs=1e-12)
    assert step_kernel(law).dense() == pytest.approx(K.dense(), abs=1e-12)
    assert K.epsilon == eps  # every variant claims ε


def test_dynamic_programme_equals_enumerated_word_law():
    # privacy_loss (max-sum over words, log space) vs the package's linear word law + core exact_epsilon
    rng = np.random.default_rng(1)
    for mech in ("mechanism1", "baseline", "broken_mechanism1", "broken_baseline"):
        law = log_step_law(SMALL, mech, epsilon=1.3, rho=2.0)
        K = _kernel_for(mech, SMALL, 1.3, 2.0)
        for _ in range(10):
            T = int(rng.integers(1, 5))
            s, s2 = rng.integers(0, 3, T), rng.integers(0, 3, T)
            p, q = word_distribution(K, s).ravel(), word_distribution(K, s2).ravel()
            assert privacy_loss(law, s, s2) == pytest.approx(exact_epsilon(p, q), rel=1e-9, abs=1e-12)


def test_worst_pair_is_the_brute_force_maximum_over_all_rho_adjacent_pairs():
    chain, eps, rho = SETTINGS["small"]
    d = distances(chain)
    law = log_step_law(chain, "mechanism1", epsilon=eps, rho=rho)
    K = mechanism_kernel(chain, epsilon=eps, rho=rho)
    brute = 0.0
    for T in (1, 2):
        for s in itertools.product(range(3), repeat=T):
            for s2 in itertools.product(range(3), repeat=T):
                if 0 < trajectory_distance(d, s, s2) <= rho:
                    brute = max(brute, exact_epsilon(word_distribution(K, s).ravel(), word_distribution(K, s2).ravel()))
    pair = worst_pair(law, d, max_length=2)
    assert pair.exhaustive and pair.distance <= rho and pair.hamming >= 1
    assert pair.epsilon >= brute - 1e-12  # also searches mid-trajectory windows
    start_only = max(privacy_loss(law, s, s2) for T in (1, 2) for s in itertools.product(range(3), repeat=T)
                     for s2 in itertools.product(range(3), repeat=T) if 0 < trajectory_distance(d, s, s2) <= rho)
    assert start_only == pytest.approx(brute, rel=1e-9)


@pytest.mark.parametrize("name", list(SETTINGS))
@pytest.mark.parametrize("mech", ["mechanism1", "baseline"])
def test_exact_audit_does_not_exceed_the_claim(name, mech):
    chain, eps, rho = SETTINGS[name]
    law = log_step_law(chain, mech, epsilon=eps, rho=rho)
    pair = worst_pair(law, distances(chain), max_length=2)
    assert "ρ-adjacent" in pair.claim or "one state" in pair.claim  # the DP claim, not the scaled fallback
    audit = exact_pair_audit(law, pair)
    assert audit.epsilon == pytest.approx(pair.epsilon, rel=1e-9)  # enumeration agrees with the DP
    assert not audit.violation and audit.epsilon <= eps * (1 + 1e-9)
    assert audit.deltas[0] > 0 and audit.deltas[-1] == 0.0  # δ(0) > 0, δ(ε) = 0 beyond the exact ε
    if mech == "baseline":  # k-ary randomized response on all states at t = 0: exactly ε
        assert audit.epsilon == pytest.approx(eps, rel=1e-9)


def test_mechanism1_audit_is_nearly_tight_somewhere():
    # non-vacuous: on the 3x3 grid the worst rho-adjacent pair spends almost all of ε
    chain, eps, rho = SETTINGS["grid"]
    pair = worst_pair(log_step_law(chain, "mechanism1", epsilon=eps, rho=rho), distances(chain))
    assert pair.epsilon > 0.9 * eps


def test_two_candidate_closed_forms():
    # two states, both feasible: Mechanism 1 loss log(2 e^{εD/(cρ)} − 1); broken baseline log(e^{2ε} + 2e^ε)
    P = [[0.5, 0.5], [0.25, 0.75]]
    D = distances(P)[0, 1]
    for mech, c in (("mechanism1", 2.0), ("broken_mechanism1", 1.0)):
        law = log_step_law(P, mech, epsilon=2.0, rho=D)
        assert privacy_loss(law, [0], [1]) == pytest.approx(math.log(2 * math.exp(2.0 / c) - 1), rel=1e-12)
    law = log_step_law(P, "broken_baseline", epsilon=2.0)
    assert privacy_loss(law, [0], [1]) == pytest.approx(math.log(math.exp(4.0) + 2 * math.exp(2.0)), rel=1e-12)


def test_long_pair_has_the_short_pairs_distance_and_exact_loss():
    chain, eps, rho = SETTINGS["grid"]
    d = distances(chain)
    law = log_step_law(chain, "mechanism1", epsilon=eps, rho=rho)
    pair = worst_pair(law, d)
    s, s2 = long_pair(chain, pair, 60, rng=0)
    assert s.size == 60 and trajectory_distance(d, s, s2) == pytest.approx(pair.distance)
    assert privacy_loss(law, s, s2) == pytest.approx(pair.epsilon, rel=1e-9)
    assert np.all(chain.P[s[:-1], s[1:]][: max(0, np.flatnonzero(s != s2)[0] - 1)] > 0)  # the prefix is a chain path


@pytest.mark.parametrize("name,mech", [("credit", "mechanism1"), ("grid", "mechanism1"), ("web", "mechanism1"),
                                       ("credit", "baseline"), ("grid", "baseline")])
def test_statistical_lower_bound_below_the_claim_over_seeds(name, mech):
    chain, eps, rho = SETTINGS[name]
    for seed in SEEDS:
        res = audit_markov(chain, mech, epsilon=eps, rho=rho, length=40, runs=DEFAULT_RUNS, confidence=0.99,
                           max_length=2, rng=seed)
        assert not res.violation
        assert res.statistical.epsilon_lower <= res.exact.epsilon + 1e-9 <= eps + 1e-9
        assert res.long_epsilon == pytest.approx(res.exact.epsilon, rel=1e-9)
    assert res.statistical.epsilon_lower > 0.5 * eps  # non-vacuous: the measured bound is well above 0


@pytest.mark.parametrize("name,mech", [("grid", "broken_mechanism1"), ("web", "broken_mechanism1"),
                                       ("credit", "broken_baseline"), ("grid", "broken_baseline")])
def test_broken_variants_are_caught_exactly_and_statistically(name, mech):
    chain, eps, rho = SETTINGS[name]
    for seed in SEEDS:
        res = audit_markov(chain, mech, epsilon=eps, rho=rho, length=40, runs=DEFAULT_RUNS, confidence=0.95,
                           max_length=2, rng=seed)
        assert res.claimed_epsilon == eps
        assert res.exact.violation and res.exact.epsilon > eps
        assert res.statistical.violation and res.statistical.epsilon_lower > eps


def test_fallback_to_distance_scaled_claim_when_no_pair_is_rho_adjacent():
    c = credit_migration()
    d = distances(c)
    law = log_step_law(c, "mechanism1", epsilon=3.0, rho=2.0, d=d)  # ρ = 2 < every distance (≥ 5.1)
    pair = worst_pair(law, d)
    assert "trivially" in pair.claim and pair.hamming == 1
    assert pair.claimed_epsilon == pytest.approx(3.0 * pair.distance / 2.0)
    assert pair.epsilon <= pair.claimed_epsilon and not pair.violation
    bad = worst_pair(log_step_law(c, "broken_mechanism1", epsilon=3.0, rho=2.0, d=d), d)
    assert bad.violation


def test_statistical_audit_cancels():
    chain, eps, rho = SETTINGS["small"]
    law = log_step_law(chain, "baseline", epsilon=eps)
    calls = []

    def progress(done, total):
        calls.append(done)
        return False

    res = statistical_pair_audit(baseline_kernel(chain, epsilon=eps), law, [0, 1, 2], [0, 2, 2], runs=10000,
                                 chunk=1000, rng=0, progress=progress)
    assert res.cancelled and calls == [1000] and math.isnan(res.epsilon_lower)


def test_exact_pair_audit_of_a_hand_made_mid_trajectory_pair():
    law = log_step_law(SMALL, "baseline", epsilon=1.0)
    pair = TrajectoryPair(np.array([0]), np.array([1]), math.nan, 1, "any", None, 0.0, 1.0, "", 1, True)
    audit = exact_pair_audit(law, pair)  # searches the previous private state itself
    assert audit.epsilon == pytest.approx(privacy_loss(law, [0], [1], context="any"))


def test_dashboard_audit_panel_reports_and_catches_the_broken_variant():
    from dpexplore.ui.markov import MarkovTrajectoryDashboard

    d = MarkovTrajectoryDashboard(query_string="T=30&trials=2&chain=web&rho=2")
    panel = d.audit_panel
    assert panel is not None and panel.runs.value == DEFAULT_RUNS
    for which in ("mechanism1", "baseline"):
        d.widgets["audit"].value = which
        panel.broken.value = False
        panel.start(wait=True)
        good = panel.report
        assert not good.violation and good.exact_epsilon <= good.claimed_epsilon + 1e-9
        assert good.epsilon_lower is not None and 0 < good.epsilon_lower <= good.exact_epsilon
        assert "Consistent with the claim" in panel.result.value
        panel.broken.value = True
        panel.start(wait=True)
        bad = panel.report
        assert bad.violation and bad.exact_epsilon > bad.claimed_epsilon and "BROKEN" in bad.mechanism
        assert "Claim refuted" in panel.result.value
