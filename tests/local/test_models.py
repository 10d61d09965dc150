"""Local vs shuffle vs central: the shuffled accounting is paper 4's certified worst case, never below the
exact ε of a shuffled single round's worst pair; the panels' measured errors match the closed forms."""

import math

import numpy as np
import pytest

from dpexplore.local.audit import audit_oracle
from dpexplore.local.data import true_counts
from dpexplore.local.experiments import expected_mse, model_mse_vs_epsilon, oracle_mse_vs_epsilon, page_data
from dpexplore.local.models import central_count_variance, shuffle_central_epsilon, shuffle_epsilon0
from dpexplore.shuffle import k_rr, shuffled_epsilon, worst_case_epsilon

N, DELTA = 1000, 1e-6


@pytest.mark.parametrize("k", [2, 8])
@pytest.mark.parametrize("e0", [1.0, 3.0, 5.0])
def test_shuffle_curve_is_certified_and_never_below_the_exact_pairs(k, e0):
    eps = shuffle_central_epsilon(e0, n=N, k=k, delta=DELTA)
    w = worst_case_epsilon(k_rr(e0, k), N, DELTA)  # w.lower: exact ε of the worst pair evaluated
    assert w.lower <= eps + 1e-12 and eps <= e0 + 1e-12
    assert eps == shuffled_epsilon(e0, N, DELTA, accounting="exact", k=k)


@pytest.mark.parametrize("k", [2, 8])
@pytest.mark.parametrize("eps", [0.2, 1.0, 4.0])
def test_shuffle_epsilon0_meets_the_target(k, eps):
    e0 = shuffle_epsilon0(eps, n=N, k=k, delta=DELTA)
    assert e0 >= eps
    assert shuffle_central_epsilon(e0, n=N, k=k, delta=DELTA) <= eps * (1 + 1e-9)


def test_binary_case_agrees_with_paper_4():
    # k = 2 is binary RR: our ε_central is the value dpexplore.shuffle certifies, never below it
    for e0 in (0.5, 2.0, 4.0):
        assert shuffle_central_epsilon(e0, n=N, k=2, delta=DELTA) >= shuffled_epsilon(
            e0, N, DELTA, accounting="exact", k=2) - 1e-15


def test_central_variance():
    assert central_count_variance(0.5) == pytest.approx(2 * (2 / 0.5) ** 2)


def test_model_panel_matches_closed_forms():
    v, k = page_data()
    c = true_counts(v, k)
    r = model_mse_vs_epsilon(epsilons=[0.5, 2.0], trials=300, rng=0)
    for j, e in enumerate(r.grid):
        for i, name in enumerate(r.series):
            want = expected_mse(name, counts=c, epsilon=e, delta=1e-6)
            # mean of 300 trials of a mean over k squared errors: relative sd ≲ √(2/300); 5 of them
            assert abs(r.mean[i, j] / want - 1) < 5 * math.sqrt(2 / 300), (name, e, r.mean[i, j], want)
    # at the same ε: central < shuffled < local (the ordering the page states)
    for j in range(len(r.grid)):
        m = dict(zip(r.series, r.mean[:, j]))
        assert m["central Laplace"] < m["shuffled k-RR"] < m["local k-RR"]


def test_oracle_panel_shapes_and_validation():
    r = oracle_mse_vs_epsilon(k=4, n=300, epsilons=[1.0, 2.0], trials=3, rng=0)
    assert r.values.shape == (5, 2, 3)
    with pytest.raises(ValueError, match="oracles must be one of"):
        oracle_mse_vs_epsilon(oracles=["xx"], trials=1)
    with pytest.raises(ValueError, match="trials must be"):
        model_mse_vs_epsilon(trials=0)


@pytest.mark.parametrize("oracle", ["krr", "sue", "oue", "olh", "hr"])
def test_correct_oracles_not_refuted(oracle):
    for seed in range(3):
        a = audit_oracle(oracle, k=8, epsilon=1.0, runs=20_000, rng=seed)
        assert not a.violation and a.exact_epsilon == pytest.approx(1.0)
        assert a.epsilon_lower <= a.exact_epsilon + 1e-9


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_broken_oue_refuted_at_seeds_0_to_9(eps):
    for seed in range(10):
        a = audit_oracle("oue", k=8, epsilon=eps, broken=True, runs=20_000, rng=seed)
        assert a.broken and a.exact_epsilon == pytest.approx(2 * eps)
        assert a.violation and a.epsilon_lower > eps, (seed, a.epsilon_lower)


def test_audit_bad_inputs():
    with pytest.raises(ValueError, match="broken=True needs oracle='oue'"):
        audit_oracle("krr", k=4, epsilon=1.0, broken=True)
    with pytest.raises(ValueError, match="runs must be"):
        audit_oracle("krr", k=4, epsilon=1.0, runs=5)
    assert np.isfinite(audit_oracle("hr", k=3, epsilon=0.5, runs=200, rng=0).epsilon_lower)
