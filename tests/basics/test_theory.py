"""dpexplore.basics: mechanisms and closed forms against sampling and against each other."""

import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.basics import release_count, rr_count_sd, rr_survey
from dpexplore.basics import theory as T
from dpexplore.core import gaussian_sigma, gdp_epsilon
from dpexplore.core.privacy_curves import exact_epsilon

MECHS = ("laplace", "gaussian", "rr")


@pytest.mark.parametrize("mech", MECHS)
def test_release_count_noise_sd_matches_sampling(mech):
    runs = 4000
    vals = np.array([release_count(30, 100, mechanism=mech, epsilon=1.0, sensitivity=2.0, rng=s).value
                     for s in range(runs)])
    sd = T.noise_sd(mech, epsilon=1.0, sensitivity=2.0, n=100)
    assert abs(vals.mean() - 30) < 5 * sd / math.sqrt(runs)  # unbiased (randomized response: debiased)
    # sample sd within 5 standard errors (se of a sd ≈ sd·√((κ − 1)/(4·runs)), κ ≤ 6 for these laws)
    assert abs(vals.std() - sd) < 5 * sd * math.sqrt(5 / (4 * runs))


def test_rr_count_sd_closed_form():
    mu = 1 / (math.e + 1)
    assert rr_count_sd(400, 1.0) == pytest.approx(math.sqrt(400 * mu * (1 - mu)) / (1 - 2 * mu))


@pytest.mark.parametrize("mech", MECHS)
def test_output_laws_are_normalised_and_their_ratio_is_the_claimed_epsilon(mech):
    eps, n = 1.0, 50
    if mech == "rr":
        x = np.arange(n + 1)
        pa, pb = T.output_law(mech, x, count=15, n=n, epsilon=eps)
        assert pa.sum() == pytest.approx(1) and pb.sum() == pytest.approx(1)
        assert exact_epsilon(pa, pb) == pytest.approx(eps, abs=1e-9)  # the count is as private as one answer
        return
    x = np.linspace(-60, 80, 200_001)
    pa, pb = T.output_law(mech, x, count=10, n=n, epsilon=eps, sensitivity=2.0)
    dx = x[1] - x[0]
    assert pa.sum() * dx == pytest.approx(1, abs=1e-4)
    if mech == "laplace":
        assert np.max(np.abs(np.log(pa / pb))) == pytest.approx(eps, abs=1e-9)


@pytest.mark.parametrize("mech", MECHS)
def test_privacy_loss_survival_matches_sampling_and_bounds(mech):
    from dpexplore.basics.experiments import privacy_loss_tail

    runs = 40_000
    r = privacy_loss_tail(mech, epsilon=1.0, n=100, runs=runs, rng=5)
    t = np.asarray(r.grid)
    exact = T.privacy_loss_survival(mech, t, epsilon=1.0, count=30, n=100)
    measured = r.values[0, :, 0]
    tol = 5 * np.sqrt(np.maximum(exact * (1 - exact), 1 / runs) / runs)
    assert np.all(np.abs(measured - exact) <= tol), np.max(np.abs(measured - exact) - tol)
    if mech != "gaussian":  # ε-DP: the loss never exceeds ε
        assert np.all(measured[t >= 1.0] == 0)
    else:  # the Gaussian's δ(ε) is E[(1 − e^{ε − L})+]: its tail above ε is where δ comes from
        assert float(T.privacy_loss_survival("gaussian", 1.0, epsilon=1.0)) > 1e-5


def test_gaussian_loss_tail_and_delta_are_consistent():
    """δ(ε) = P(L > ε) − e^ε P(L' < −ε) ≤ P(L > ε) for the Gaussian's privacy loss."""
    mu = 1 / gaussian_sigma(1.0, 1e-5)
    tail = float(T.privacy_loss_survival("gaussian", 1.0, epsilon=1.0, delta=1e-5))
    assert tail == pytest.approx(stats.norm.sf(1.0, mu * mu / 2, mu))
    assert tail >= 1e-5


@pytest.mark.parametrize("mech", MECHS)
def test_lr_attacker_success_matches_play_and_is_below_the_bound(mech):
    from dpexplore.basics.game import play_optimal
    from dpexplore.core import attacker_success_bound

    exact = T.lr_attacker_success(mech, epsilon=1.0)
    s = play_optimal(mech, epsilon=1.0, rounds=40_000, rng=9)
    assert abs(s.rate - exact) < 5 * math.sqrt(exact * (1 - exact) / 40_000)
    assert exact <= attacker_success_bound(1.0, 1e-5 if mech == "gaussian" else 0.0) + 1e-12
    # the mechanism's own trade-off curve lies above the DP curve
    from dpexplore.core import dp_tradeoff

    a = np.linspace(0, 1, 401)
    assert np.all(T.mechanism_tradeoff(mech, a, epsilon=1.0) >= dp_tradeoff(1.0, 1e-5 if mech == "gaussian" else 0,
                                                                             a) - 1e-12)


def test_expected_abs_error_closed_forms():
    assert T.expected_abs_error("laplace", epsilon=0.5, sensitivity=3) == (6.0, "exact")
    s = gaussian_sigma(1.0, 1e-5, 2.0)
    assert T.expected_abs_error("gaussian", epsilon=1.0, delta=1e-5, sensitivity=2.0)[0] == pytest.approx(
        s * math.sqrt(2 / math.pi))
    assert T.expected_abs_error("rr", epsilon=1.0, n=100)[1] == "approximation"


def test_rr_survey_interval_covers_at_its_level():
    bits = np.array([1] * 300 + [0] * 700)
    cover = [rr_survey(bits, epsilon=1.0, rng=s) for s in range(400)]
    rate = np.mean([c.lower <= 0.3 <= c.upper for c in cover])
    assert abs(rate - 0.95) < 5 * math.sqrt(0.95 * 0.05 / 400)
    assert abs(np.mean([c.estimate for c in cover]) - 0.3) < 0.01


def test_composition_accountants_are_ordered_and_exact_is_the_gdp_value():
    for k in (1, 5, 50):
        e = {a: T.composed_epsilon("gaussian", a, epsilon=1.0, delta=1e-5, k=k) for a in T.ACCOUNTANTS}
        exact = gdp_epsilon(math.sqrt(k) / gaussian_sigma(1.0, 1e-5), 1e-5)
        assert e["exact"] == pytest.approx(exact)
        for a in ("basic", "advanced", "zcdp", "rdp", "pld"):
            assert e[a] >= exact - 1e-3 * exact, (k, a, e)  # PLD's grid: within its discretisation
        assert e["pld"] <= e["rdp"] + 1e-9 and e["pld"] <= e["basic"] + 1e-9
    assert T.composed_epsilon("gaussian", "exact", epsilon=1.0, delta=1e-5, k=1) == pytest.approx(1.0)
    lap = {a: T.composed_epsilon("laplace", a, epsilon=1.0, delta=1e-5, k=10) for a in T.ACCOUNTANTS}
    assert lap["basic"] == 10.0 and math.isnan(lap["exact"]) and lap["pld"] <= 10.0 + 1e-6
    assert T.advanced_composition(0.1, 100, 1e-5) < 100 * 0.1  # advanced beats basic at small ε, large k


def test_split_noise_is_consistent_with_composed_epsilon():
    """The per-answer noise basic/zCDP/exact certify spends exactly the total budget (round trip)."""
    for k in (1, 10, 50):
        s = T.split_noise_sd("gaussian", "exact", total_epsilon=1.0, delta=1e-5, k=k)
        assert gdp_epsilon(math.sqrt(k) / s, 1e-5) == pytest.approx(1.0, rel=1e-6)
        sb = T.split_noise_sd("gaussian", "basic", total_epsilon=1.0, delta=1e-5, k=k)
        assert sb >= s - 1e-9
        assert T.split_noise_sd("laplace", "basic", total_epsilon=1.0, delta=1e-5, k=k) == pytest.approx(
            math.sqrt(2) * k)


@pytest.mark.parametrize("call,match", [
    (lambda: release_count(30, 100, mechanism="laplace", epsilon=-1), "epsilon must be a finite number > 0"),
    (lambda: release_count(101, 100, mechanism="laplace", epsilon=1), "count must be an integer"),
    (lambda: release_count(3, 10, mechanism="cauchy", epsilon=1), "mechanism must be one of"),
    (lambda: release_count(3, 10**7, mechanism="rr", epsilon=1), "n must be an integer"),
    (lambda: T.composed_epsilon("gaussian", "pld", epsilon=1, delta=1e-5, k=10**6), "k must be an integer"),
    (lambda: T.output_law("gaussian", [0.0], count=1, n=10, epsilon=1, delta=1.0), "delta must be"),
    (lambda: rr_survey([0, 2], epsilon=1), "bits must be an array of 0/1 values"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
