"""Exact pair-chain analysis vs simulation, and the paper-shape check on the credit chain."""

import numpy as np
import pytest

from dpexplore.markov import (
    analyze,
    baseline_kernel,
    city_grid,
    credit_migration,
    distances,
    empirical_tail,
    mechanism_kernel,
    pair_chain,
    running_entropy,
    sample_trajectories,
    simulate,
    time_profile,
    typical_fraction,
    word_entropy,
)

SMALL = np.array([[0.6, 0.4, 0.0], [0.1, 0.5, 0.4], [0.3, 0.0, 0.7]])


def test_pair_stationary_law_matches_a_long_simulation():
    d = distances(SMALL)
    K = mechanism_kernel(SMALL, epsilon=1.0, rho=2.0, d=d)
    res = analyze(SMALL, K, d)
    pi = res.stationary
    assert pi.sum() == pytest.approx(1) and np.allclose(pi.sum(axis=1), [0.25, 0.35, 0.40], atol=0.2)
    Kp = pair_chain(SMALL, K)
    # π solves a linear system by a backward-stable sparse LU: its residual ‖πK − π‖∞ is at most
    # c·N·eps·‖K‖∞‖π‖₁ with ‖K‖∞ = 1 (stochastic) and ‖π‖₁ = 1; c = 64 covers the growth factor
    # (was atol=1e-14, about 45 ulps, which one machine's LU happened to meet)
    assert np.allclose(pi.ravel() @ Kp, pi.ravel(), rtol=0, atol=64 * pi.size * np.finfo(float).eps)
    # 20000 independent runs of 80 steps: the final pair is (numerically) a draw from pi, so the
    # counts are multinomial and z = 5 binomial bounds apply cell by cell
    prof = time_profile(SMALL, K, d, 80, v=[0.0])
    assert prof.mean_error[-1] == pytest.approx(res.mean_error, rel=1e-10)
    m = 20000
    s = simulate(SMALL, 80, size=m, rng=11)
    out, _ = sample_trajectories(K, s, rng=12)
    counts = np.zeros((3, 3))
    np.add.at(counts, (s[:, -1], out[:, -1]), 1)
    freq = counts / m
    assert np.all(np.abs(freq - pi) <= 5 * np.sqrt(pi * (1 - pi) / m) + 1e-12), (freq, pi)


def test_time_profile_matches_simulated_time_averages():
    chain = city_grid(3)
    d = distances(chain)
    K = baseline_kernel(chain, epsilon=1.0)
    T, m = 30, 4000
    prof = time_profile(chain, K, d, T, v=[2.0, 6.0])
    s = simulate(chain, T, size=m, rng=5)
    out, logp = sample_trajectories(K, s, rng=6)
    errs = d[out, s]
    for t in (0, 5, T - 1):
        for k, v in enumerate((2.0, 6.0)):
            p = prof.tail[t, k]
            assert abs((errs[:, t] >= v).mean() - p) <= 5 * np.sqrt(p * (1 - p) / m) + 1e-12
    # expected running entropy: the mean of Ĥ_T over m independent runs (CLT, z = 5 on the sample sd)
    H = running_entropy(logp)[:, -1]
    assert abs(H.mean() - prof.expected_running_entropy[-1]) <= 5 * H.std() / np.sqrt(m)
    tails = empirical_tail(errs, [2.0, 6.0]).mean(axis=0)
    assert tails == pytest.approx(prof.mean_tail, abs=5 * np.sqrt(0.25 / (m * 3)))


def test_credit_chain_paper_shape_at_eps_3():
    # The expected shape (a reconstruction check): the mechanism's exact large-error tail is orders of
    # magnitude below the baseline's and its entropy rate a fraction of the baseline's; both grow with rho.
    c = credit_migration()
    d = distances(c)
    base = analyze(c, baseline_kernel(c, epsilon=3.0), d)
    tails, ents = [], []
    for rho in (1.0, 2.0, 5.0):
        mech = analyze(c, mechanism_kernel(c, epsilon=3.0, rho=rho, d=d), d)
        tails.append(float(mech.tail(15.0)))
        ents.append(mech.entropy_rate)
    assert tails[1] < 1e-3 * base.tail(15.0)  # rho = 2: >= 3 orders of magnitude
    assert ents[1] < 0.3 * base.entropy_rate
    assert tails[0] < tails[1] < tails[2] and ents[0] < ents[1] < ents[2]
    # the mechanism's private words stay near the chain's entropy rate (typical); the baseline's do not
    assert abs(base.word_entropy_rate - base.chain_entropy_rate) > 1.0


def test_drift_is_negative_for_large_errors():
    chain = city_grid(5)
    d = distances(chain)
    mech = analyze(chain, mechanism_kernel(chain, epsilon=3.0, rho=2.0, d=d), d)
    big = mech.errors >= 8.0
    assert big.any() and np.all(mech.drift[big] < 0)
    base = analyze(chain, baseline_kernel(chain, epsilon=3.0), d)
    assert base.mean_error > 5 * mech.mean_error  # the baseline wanders off on sparse grids


def test_limits_huge_epsilon_and_tiny_rho():
    c = credit_migration()
    d = distances(c)
    exact = analyze(c, mechanism_kernel(c, epsilon=3.0, rho=1e-3, d=d), d)
    assert exact.mean_error < 1e-12 and exact.entropy_rate < 1e-12
    assert exact.word_entropy_rate == pytest.approx(exact.chain_entropy_rate, abs=1e-9)
    base = analyze(c, baseline_kernel(c, epsilon=200.0), d)  # credit rows are dense: s_t is always feasible
    assert base.mean_error < 1e-12


def test_word_entropy_and_typical_set():
    c = credit_migration()
    s = simulate(c, 3000, size=10, rng=3)
    assert typical_fraction(c, s, eta=0.15) == 1.0  # Shannon-McMillan-Breiman for the chain's own words
    d = distances(c)
    out, _ = sample_trajectories(baseline_kernel(c, epsilon=3.0), s, rng=1)
    assert typical_fraction(c, out, eta=0.15) == 0.0  # the baseline's words are atypical
    out_m, _ = sample_trajectories(mechanism_kernel(c, epsilon=3.0, rho=1.0, d=d), s, rng=1)
    assert typical_fraction(c, out_m, eta=0.15) == 1.0
    with pytest.raises(ValueError, match="probability 0"):
        word_entropy([[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]], [[0, 2]])
