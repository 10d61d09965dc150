"""Exact laws and curves: spec reference values, identities, brute-force enumeration, large n."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core import hockey_stick
from dpexplore.shuffle import (
    binary_rr,
    exact_delta,
    exact_epsilon,
    exact_tradeoff,
    gdp_epsilon_at,
    gdp_mu,
    histogram_law,
    jsd_exact,
    k_rr,
    likelihood_ratio,
    randomizer,
    shuffled_pair,
)

CUSTOM = randomizer([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
TWO_GROUPS = randomizer([0.5, 0.25, 0.25], [0.25, 0.375, 0.375])  # 3 outputs, 2 ratio groups


@pytest.mark.parametrize(
    "e0, n, ref, ref_gdp",
    [(1.0, 1000, 0.1266, 0.1212), (2.0, 10_000, 0.0870, 0.0844), (4.0, 100_000, 0.0847, 0.0822),
     (4.0, 1000, 1.69, 0.97)],
)
def test_exact_epsilon_reference_values(e0, n, ref, ref_gdp):
    R = binary_rr(e0)
    digits = len(str(ref).split(".")[1])
    assert round(exact_epsilon(R, n, 1e-6, k=0), digits) == ref
    assert round(gdp_epsilon_at(gdp_mu(R, n), 1e-6), len(str(ref_gdp).split(".")[1])) == ref_gdp


def test_jsd_reference_value():
    assert f"{jsd_exact(binary_rr(1.0), 100):.6e}" == "1.363200e-03"


def _brute_force_law(R, n, k):
    """Law of the histogram by enumerating all K^n output vectors of users with inputs (1,…,1,0,…,0)."""
    K = R.K
    law = {}
    W = [R.W1] * k + [R.W0] * (n - k)
    for ys in itertools.product(range(K), repeat=n):
        p = math.prod(W[i][y] for i, y in enumerate(ys))
        h = tuple(np.bincount(ys, minlength=K))
        law[h] = law.get(h, 0.0) + p
    return law


@pytest.mark.parametrize("R, n, k", [(CUSTOM, 4, 0), (CUSTOM, 4, 2), (k_rr(1.0, 3), 5, 1), (binary_rr(0.7), 6, 3)])
def test_histogram_law_matches_brute_force_enumeration(R, n, k):
    brute = _brute_force_law(R, n, k)
    counts, pmf = histogram_law(R, n, k=k)
    assert len(brute) == len(pmf)
    for c, p in zip(counts, pmf):
        assert p == pytest.approx(brute[tuple(c)], rel=1e-12, abs=1e-16)


@pytest.mark.parametrize("R, n, k", [(CUSTOM, 4, 0), (CUSTOM, 5, 2), (k_rr(1.2, 4), 4, 1), (binary_rr(2.0), 6, 0),
                                     (binary_rr(2.0), 6, 4), (TWO_GROUPS, 5, 1)])
def test_exact_delta_matches_brute_force_hockey_stick(R, n, k):
    q = _brute_force_law(R, n, k)
    p = _brute_force_law(R, n, k + 1)
    keys = sorted(set(q) | set(p))
    P = np.array([p.get(h, 0.0) for h in keys])
    Q = np.array([q.get(h, 0.0) for h in keys])
    for eps in (0.0, 0.1, 0.5, 1.0, 2.5):
        fwd = exact_delta(R, n, eps, k=k, direction="forward")
        rev = exact_delta(R, n, eps, k=k, direction="reverse")
        assert fwd == pytest.approx(hockey_stick(P, Q, eps), abs=1e-13)
        assert rev == pytest.approx(hockey_stick(Q, P, eps), abs=1e-13)
        assert exact_delta(R, n, eps, k=k) == pytest.approx(max(fwd, rev), abs=1e-15)


@pytest.mark.parametrize("R, n", [(CUSTOM, 6), (k_rr(1.0, 4), 5), (binary_rr(1.5), 9)])
def test_canonical_likelihood_ratio_is_one_plus_mean_score(R, n):
    counts, q = histogram_law(R, n, k=0)
    _, p = histogram_law(R, n, k=1)
    L = likelihood_ratio(R, n, counts)
    np.testing.assert_allclose(p / q, L, rtol=1e-11)  # L = dT_{n,1}/dT_{n,0}
    U = counts @ R.xi / n  # U_n: mean score increment
    np.testing.assert_allclose(L, 1.0 + U, rtol=1e-13)


@pytest.mark.parametrize("R, n, k", [(CUSTOM, 6, 2), (k_rr(1.0, 3), 5, 3), (binary_rr(1.5), 8, 5)])
def test_general_k_likelihood_ratio_conditional_expectation(R, n, k):
    counts, q = histogram_law(R, n, k=k)
    _, p = histogram_law(R, n, k=k + 1)
    np.testing.assert_allclose(likelihood_ratio(R, n, counts, k=k), p / q, rtol=1e-10)


def test_grouping_sufficient_statistic_two_groups_equals_binary():
    # TWO_GROUPS merged: W0 = (0.5, 0.5), W1 = (0.25, 0.75): same pair as that binary randomizer
    B = randomizer([0.5, 0.5], [0.25, 0.75])
    for k in (0, 3):
        assert exact_epsilon(TWO_GROUPS, 500, 1e-6, k=k) == pytest.approx(exact_epsilon(B, 500, 1e-6, k=k), rel=1e-12)


def test_trinomial_k_rr_matches_ungrouped_enumeration():
    R = k_rr(1.0, 5)  # 5 outputs, 3 ratio groups
    n = 6
    counts, q = histogram_law(R, n, k=0)
    p = q * likelihood_ratio(R, n, counts)
    # two routes summing q.size terms in [0, 1] (and p = q·L with L from another formula): the sums
    # differ by at most ~4·N·eps, N = q.size (was abs=1e-14, about N·eps·2 for N = 28: borderline)
    assert exact_delta(R, n, 0.3, k=0) == pytest.approx(max(hockey_stick(p, q, 0.3), hockey_stick(q, p, 0.3)),
                                                         abs=4 * q.size * np.finfo(float).eps)


@pytest.mark.parametrize("n", [10, 1000, 10**6, 10**7])
def test_binary_pmfs_sum_to_one_and_large_n_works(n):
    pair = shuffled_pair(binary_rr(1.0), n)
    assert np.exp(pair.logp).sum() + pair.lost_p == pytest.approx(1.0, abs=1e-12)
    assert np.exp(pair.logq).sum() + pair.lost_q == pytest.approx(1.0, abs=1e-12)
    assert pair.lost_p < 1e-30 and pair.lost_q < 1e-30
    e = pair.epsilon(1e-6)
    g = gdp_epsilon_at(gdp_mu(binary_rr(1.0), n), 1e-6)
    assert 0 < e < 1.0
    if n >= 1000:  # Gaussian regime: exact and GDP agree to O(n^{-1/2}) relative
        assert abs(e - g) / g < 3.0 / math.sqrt(n) * 10


def test_general_k_and_large_k_convolution():
    R = binary_rr(1.0)
    e0 = exact_epsilon(R, 10**5, 1e-6, k=0)
    e_half = exact_epsilon(R, 10**5, 1e-6, k=50_000)
    assert e_half <= e0 + 1e-9  # the canonical pair is the worst case for binary RR
    g = gdp_epsilon_at(gdp_mu(R, 10**5, k=50_000), 1e-6)
    assert abs(e_half - g) / g < 0.05
    pair = shuffled_pair(R, 10**5, k=50_000)
    assert np.exp(pair.logq).sum() == pytest.approx(1.0, abs=1e-12)


def test_multi_message_matches_spec_binomial_formula():
    # unbundled binary RR: T_0 = Bin(nm, q), T_1 = Bin((n − 1)m, q) ⊛ Bin(m, 1 − q)
    e0, n, m = 1.0, 30, 3
    qf = 1 / (1 + math.exp(e0))
    T0 = stats.binom.pmf(np.arange(n * m + 1), n * m, qf)
    T1 = np.convolve(stats.binom.pmf(np.arange((n - 1) * m + 1), (n - 1) * m, qf),
                     stats.binom.pmf(np.arange(m + 1), m, 1 - qf))
    for eps in (0.2, 0.6):
        ref = max(hockey_stick(T1, T0, eps), hockey_stick(T0, T1, eps))
        assert exact_delta(binary_rr(e0), n, eps, messages=m, k=0) == pytest.approx(ref, rel=1e-10, abs=1e-15)
    assert exact_epsilon(binary_rr(e0), n, 1e-6, messages=1, k=0) == exact_epsilon(binary_rr(e0), n, 1e-6, k=0)
    with pytest.raises(ValueError, match=r"messages must be 1 for randomizers with more than two"):
        exact_delta(CUSTOM, 5, 0.1, messages=2, k=0)


def test_limits_and_monotonicity():
    R = binary_rr(1.0)
    assert exact_delta(R, 1000, 1.0 + 1e-9, k=0) <= 1e-30  # beyond the local ε0 the ratio never exceeds e^ε
    assert exact_delta(R, 1, 0.5, k=0) == pytest.approx(hockey_stick(R.W1, R.W0, 0.5))  # n = 1: no shuffling
    eps = [exact_epsilon(R, n, 1e-6, k=0) for n in (100, 1000, 10_000)]
    assert eps[0] > eps[1] > eps[2]
    d = exact_delta(R, 1000, np.linspace(0, 0.5, 11), k=0)
    assert np.all(np.diff(d) <= 0)
    assert exact_epsilon(R, 1000, 0.9, k=0) == 0.0  # δ(0) = TV < 0.9
    with pytest.raises(ValueError, match=r"^k must be an integer >= 0 and <= 99; got 100$"):
        exact_delta(R, 100, 0.1, k=100)
    with pytest.raises(ValueError, match=r"n must be small enough for an exact multinomial grid"):
        exact_delta(k_rr(1.0, 4), 10**5, 0.1, k=0)


def test_tradeoff_is_dual_to_the_privacy_curve():
    # δ_→(ε) = sup_α [1 − β(α) − e^ε α] (Dong–Roth–Su, Prop 2.12), checked on a fine α grid
    R, n = binary_rr(2.0), 200
    alpha = np.linspace(0, 1, 200_001)
    beta = exact_tradeoff(R, n, alpha)
    assert beta[0] <= 1.0 and beta[-1] == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.diff(beta) <= 1e-12) and np.all(beta <= 1 - alpha + 1e-12)
    for eps in (0.1, 0.4):
        assert np.max(1 - beta - math.exp(eps) * alpha) == pytest.approx(
            exact_delta(R, n, eps, direction="forward", k=0), abs=2e-5)


def test_tilted_fft_convolution_matches_direct_in_the_tails(monkeypatch):
    from dpexplore.shuffle import exact as E

    args = (200_000, 0.27, 200_000, 0.73)
    monkeypatch.setattr(E, "_DIRECT_LIMIT", 10**12)
    lo_d, direct, _ = E._conv_binom(*args)
    monkeypatch.setattr(E, "_DIRECT_LIMIT", 0)
    lo_f, fft, _ = E._conv_binom(*args)
    assert lo_d == lo_f and np.all(np.isfinite(fft))
    assert np.max(np.abs(direct - fft)) < 1e-8  # relative accuracy, down to ~1e-40 of the peak
    assert direct.min() < -80  # the window really reaches far tails
