"""The "play the attacker" game: the best guesser never beats the bound beyond its interval; a broken
mechanism does; the game's bookkeeping."""

import math

import pytest
from scipy import stats

from dpexplore.basics.game import AttackerGame, clopper_pearson_interval, likelihood_ratio_guess, play_optimal
from dpexplore.core import attacker_success_bound

SEEDS = range(20)
# 20 seeds checked at once: each interval at level 1 − 0.05/20 (Bonferroni), so that the test as a whole
# fails with probability ≤ 5% even for randomized response, whose best guess sits exactly on the bound.
LEVEL = 1 - 0.05 / len(SEEDS)


@pytest.mark.parametrize("mech", ["laplace", "gaussian", "rr"])
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_optimal_attacker_never_exceeds_the_bound_beyond_its_interval(mech, eps):
    for seed in SEEDS:
        s = play_optimal(mech, epsilon=eps, rounds=2000, confidence=LEVEL, rng=seed)
        assert s.lower <= s.bound, (mech, eps, seed, s)


@pytest.mark.parametrize("mech", ["laplace", "rr"])
def test_the_test_can_fail_a_broken_mechanism_beats_the_bound(mech):
    s = play_optimal(mech, epsilon=1.0, rounds=20_000, broken=True, confidence=LEVEL, rng=0)
    assert s.beats_bound and s.lower > s.bound, s


def test_broken_gaussian_beats_its_gdp_bound_but_not_the_loose_dp_bound():
    """One guess cannot refute a Gaussian's (ε, δ) claim with σ halved (the (ε, δ) bound on one guess is loose
    for Gaussian noise), but it does refute the μ-GDP claim μ = Δ/σ the analytic σ makes."""
    from dpexplore.core import gaussian_sigma, gdp_advantage

    s = play_optimal("gaussian", epsilon=1.0, rounds=20_000, broken=True, confidence=LEVEL, rng=0)
    assert not s.beats_bound
    assert s.lower > (1 + gdp_advantage(1 / gaussian_sigma(1.0, 1e-5))) / 2
    honest = play_optimal("gaussian", epsilon=1.0, rounds=20_000, confidence=LEVEL, rng=0)
    assert honest.lower <= (1 + gdp_advantage(1 / gaussian_sigma(1.0, 1e-5))) / 2


def test_clopper_pearson_matches_scipy():
    for k, n in ((0, 10), (3, 10), (10, 10), (700, 1000)):
        lo, hi = clopper_pearson_interval(k, n)
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_game_bookkeeping():
    g = AttackerGame("laplace", epsilon=1.0, rounds=4, rng=0)
    outs = []
    for _ in range(4):
        outs.append(g.output())
        g.guess("B" if likelihood_ratio_guess("laplace", [outs[-1]])[0] else "A")
    assert g.finished and g.score().rounds == 4
    assert g.score().bound == pytest.approx(attacker_success_bound(1.0))
    with pytest.raises(ValueError, match="the game is over"):
        g.guess("A")
    with pytest.raises(ValueError, match="the game is over"):
        g.output()
    with pytest.raises(ValueError, match="choice must be one of"):
        AttackerGame("rr", epsilon=1.0, rounds=2, rng=0).guess("C")
    with pytest.raises(ValueError, match="rounds must be an integer"):
        AttackerGame("rr", epsilon=1.0, rounds=0)


def test_same_seed_same_game():
    a = AttackerGame("gaussian", epsilon=1.0, rounds=5, rng=3)
    b = AttackerGame("gaussian", epsilon=1.0, rounds=5, rng=3)
    assert a.output() == b.output()


def test_bound_is_the_posterior_of_a_fair_coin():
    # success with a 50/50 prior = the posterior bound at prior 1/2 (pure ε)
    from dpexplore.core import posterior_bound

    assert attacker_success_bound(1.0) == pytest.approx(posterior_bound(0.5, 1.0))
    assert attacker_success_bound(1.0) == pytest.approx(math.e / (math.e + 1))
