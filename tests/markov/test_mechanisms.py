"""Mechanism 1 and the baseline: exact laws vs sampling, exact DP checks, limits, validation."""

import itertools
import math

import numpy as np
import pytest

from dpexplore.core import exact_privacy_check, permute_and_flip_probabilities
from dpexplore.markov import (
    OnlineBaseline,
    OnlinePermuteAndFlip,
    baseline_kernel,
    baseline_trajectory,
    city_grid,
    credit_migration,
    distances,
    mechanism_kernel,
    private_trajectory,
    sample_trajectories,
    simulate,
    word_distribution,
)

SMALL = np.array([[0.7, 0.3, 0.0], [0.2, 0.5, 0.3], [0.1, 0.05, 0.85]])  # a zero: feasible sets matter


def _z5(freq, p, m):
    return np.all(np.abs(freq - p) <= 5 * np.sqrt(np.maximum(p * (1 - p), 1e-12) / m) + 1e-12)


def test_kernel_is_permute_and_flip_exact_law_on_the_feasible_set():
    d = distances(SMALL)
    K = mechanism_kernel(SMALL, epsilon=2.0, rho=1.5)
    M = K.dense()
    for a, s in itertools.product(range(3), range(3)):
        feas = np.flatnonzero(SMALL[a] > 0)
        expected = permute_and_flip_probabilities(-d[feas, s], 2.0, sensitivity=1.5)  # acceptance exp(ε/(2ρ)·Δu)
        assert M[a, s, feas] == pytest.approx(expected, abs=1e-13)
        assert M[a, s][SMALL[a] == 0].sum() == 0  # never leaves the feasible set
    assert K.epsilon == 2.0


@pytest.mark.parametrize("cls", ["pf", "baseline"])
def test_online_sampler_matches_exact_step_law(cls):
    # the online mechanism samples through the exponential-noise identity (permute-and-flip) or
    # directly (baseline); its frequencies must match the exact step law (z = 5 binomial bounds)
    if cls == "pf":
        mech = OnlinePermuteAndFlip(SMALL, epsilon=1.0, rho=1.0, rng=7)
        kernel = mechanism_kernel(SMALL, epsilon=1.0, rho=1.0).dense()
    else:
        mech = OnlineBaseline(SMALL, epsilon=1.0, rng=7)
        kernel = baseline_kernel(SMALL, epsilon=1.0).dense()
    m = 6000
    for a, s in [(0, 2), (1, 1), (2, 1)]:
        counts = np.zeros(3)
        for _ in range(m):
            mech.previous = a
            counts[mech.step(s)] += 1
        assert _z5(counts / m, kernel[a, s], m), (a, s, counts / m, kernel[a, s])


def test_vectorised_sampler_matches_exact_step_law():
    K = mechanism_kernel(SMALL, epsilon=1.0, rho=0.7)
    m = 20000
    traj = np.tile([2, 0], (m, 1))
    out, logp = sample_trajectories(K, traj, rng=3)
    freq0 = np.bincount(out[:, 0], minlength=3) / m
    assert _z5(freq0, K.first[2], m)
    M = K.dense()
    for a in range(3):
        sel = out[:, 0] == a
        if sel.sum() > 500:
            freq = np.bincount(out[sel, 1], minlength=3) / sel.sum()
            assert _z5(freq, M[a, 0], int(sel.sum()))
    assert np.allclose(logp[:, 1], np.log(M[out[:, 0], 0, out[:, 1]]))


def _all_trajectories(n, T):
    return [np.array(t) for t in itertools.product(range(n), repeat=T)]


@pytest.mark.parametrize("rho", [3.0, 8.0])  # d ranges over 2.8 ... 4.7: one or two changed states
def test_exact_dp_on_rho_adjacent_pairs(rho):
    # Definition 4: s ~ s~ iff sum_t d(s_t, s~_t) <= rho. The output-word law ratio must stay <= e^eps.
    eps = 1.0
    d = distances(SMALL)
    K = mechanism_kernel(SMALL, epsilon=eps, rho=rho)
    trajs = _all_trajectories(3, 3)  # every input, feasible for the chain or not
    laws = [word_distribution(K, t).ravel() for t in trajs]
    worst, pairs = 0.0, 0
    for i, j in itertools.combinations(range(len(trajs)), 2):
        dist = d[trajs[i], trajs[j]].sum()
        if dist <= rho:
            pairs += 1
            check = exact_privacy_check(laws[i], laws[j], eps)
            assert check.ok, (trajs[i], trajs[j], check)
            worst = max(worst, check.epsilon_needed)
    assert pairs > 10
    assert worst > 0.25 * eps  # the check is not vacuous: neighbours are distinguishable
    # coefficient 1 (acceptance exp(ε/ρ Δu)) is only proven 2ε-DP; the bound 2ε must hold
    K1 = mechanism_kernel(SMALL, epsilon=eps, rho=rho, coefficient=1.0)
    assert K1.epsilon == 2 * eps
    for i, j in [(0, 1), (0, 3), (4, 13)]:
        if d[trajs[i], trajs[j]].sum() <= rho:
            p, q = word_distribution(K1, trajs[i]).ravel(), word_distribution(K1, trajs[j]).ravel()
            assert exact_privacy_check(p, q, 2 * eps).ok


def test_baseline_is_eps_dp_per_changed_state():
    eps = 0.8
    K = baseline_kernel(SMALL, epsilon=eps)
    trajs = _all_trajectories(3, 3)
    laws = {tuple(t): word_distribution(K, t).ravel() for t in trajs}
    for t1, t2 in itertools.combinations(trajs, 2):
        ham = int((t1 != t2).sum())
        check = exact_privacy_check(laws[tuple(t1)], laws[tuple(t2)], eps * ham)
        assert check.ok
        if ham == 1:
            assert check.epsilon_needed <= eps + 1e-12


@pytest.mark.parametrize("chain", [credit_migration(), city_grid(4)], ids=["credit", "grid"])
def test_huge_epsilon_releases_the_sensitive_trajectory(chain):
    s = simulate(chain, 60, rng=5)
    assert np.array_equal(private_trajectory(chain, s, epsilon=500.0, rho=1.0, rng=1).states, s)
    assert np.array_equal(baseline_trajectory(chain, s, epsilon=500.0, rng=1).states, s)


def test_outputs_are_feasible_words_and_results_are_consistent():
    chain = city_grid(4)
    s = simulate(chain, 200, rng=0)
    for r in (private_trajectory(chain, s, epsilon=0.3, rho=3.0, rng=2), baseline_trajectory(chain, s, epsilon=0.3,
                                                                                           rng=2)):
        assert r.states.dtype.kind == "i" and r.states.shape == (200,)
        assert np.all(chain.P[r.states[:-1], r.states[1:]] > 0)
        assert r.errors == pytest.approx(distances(chain)[r.states, s])
        assert r.empirical_entropy == pytest.approx(-r.step_log_probs.mean())
        assert np.all(r.step_log_probs <= 0)
    # the same seed gives the same release; the step log-probabilities are the exact kernel's
    r1 = private_trajectory(chain, s, epsilon=1.0, rho=2.0, rng=4)
    r2 = private_trajectory(chain, s, epsilon=1.0, rho=2.0, rng=4)
    assert np.array_equal(r1.states, r2.states)
    M = mechanism_kernel(chain, epsilon=1.0, rho=2.0).dense()
    assert np.exp(r1.step_log_probs[1:]) == pytest.approx(M[r1.states[:-1], s[1:], r1.states[1:]], rel=1e-9)


def test_plain_arrays_accepted_and_validation():
    P = [[0.5, 0.5], [0.5, 0.5]]
    assert private_trajectory(P, [0, 1, 1], epsilon=1.0, rho=1.0, rng=0).states.shape == (3,)
    with pytest.raises(ValueError, match=r"^epsilon must be a finite number > 0; got -1.0$"):
        private_trajectory(P, [0, 1], epsilon=-1.0, rho=1.0)
    with pytest.raises(ValueError, match=r"^rho must be a finite number > 0; got 0$"):
        private_trajectory(P, [0, 1], epsilon=1.0, rho=0)
    with pytest.raises(ValueError, match=r"state indices in \[0, 1\]; got 2"):
        baseline_trajectory(P, [0, 2], epsilon=1.0)
    with pytest.raises(TypeError, match=r"integer state indices"):
        baseline_trajectory(P, ["a"], epsilon=1.0)
    with pytest.raises(ValueError, match=r"must be irreducible"):
        private_trajectory([[1.0, 0.0], [0.5, 0.5]], [0, 1], epsilon=1.0, rho=1.0)


def test_small_rho_concentrates_large_rho_spreads():
    chain = credit_migration()
    s = simulate(chain, 300, rng=1)
    tight = private_trajectory(chain, s, epsilon=3.0, rho=0.3, rng=1)
    loose = private_trajectory(chain, s, epsilon=3.0, rho=30.0, rng=1)
    assert tight.errors.mean() < 0.05 and loose.errors.mean() > 1.0
    assert math.isclose(tight.epsilon, loose.epsilon)  # same ε, different adjacency radius
