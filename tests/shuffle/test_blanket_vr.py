"""Privacy blanket Bennett bound (BBGN19) and Wang et al.'s variation-ratio pair, against worst cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.shuffle import (
    ACCOUNTINGS,
    affordable_epsilon0,
    binary_rr,
    blanket_delta,
    blanket_epsilon,
    dominating_pair_delta,
    dominating_pair_epsilon,
    k_rr,
    variation_ratio_delta,
    variation_ratio_epsilon,
    worst_case_delta,
    worst_case_epsilon,
)
from dpexplore.shuffle.bounds import fmt_epsilon_bracket
from dpexplore.shuffle.worst import third_symbol_epsilon


def _krr_W(e0, k):
    d = math.exp(e0) + k - 1
    W = np.full((k, k), 1.0 / d)
    np.fill_diagonal(W, math.exp(e0) / d)
    return W


def _bennett_by_sum(e0, n, k, eps):
    """BBGN19 Thm 3.1 + Bennett, written from the blanket decomposition directly: L(w) computed from
    the k-RR matrix and the blanket ω = Uniform(k), E L² and max L by summation, E over M summed."""
    W = _krr_W(e0, k)
    gam = k * W[1, 0]  # blanket weight: k × the off-diagonal mass
    omega = np.full(k, 1.0 / k)
    L = (W[0] - math.exp(eps) * W[1]) / omega  # target x1 = 0 vs x1' = 1
    a = -float(np.dot(omega, L))
    b = float(L.max())
    s2 = float(np.dot(omega, L ** 2))
    beta = a * b / s2
    h = (1 + beta) * math.log1p(beta) - beta
    m = np.arange(1, n + 1)
    e_term = np.sum(stats.binom.pmf(m, n, gam) * np.exp(-m * s2 / b ** 2 * h)) * b / math.log1p(beta)
    return float(e_term / (gam * n))


@pytest.mark.parametrize("e0,n,k,eps", [(1.0, 10_000, 2, 0.05), (4.0, 10_000, 2, 0.5), (2.0, 5000, 3, 0.2),
                                        (0.5, 2000, 16, 0.05), (1.0, 10_000, 4, 0.1)])
def test_bennett_matches_direct_summation(e0, n, k, eps):
    ref = _bennett_by_sum(e0, n, k, eps)
    got = blanket_delta(e0, n, eps, k=k)
    assert got == pytest.approx(ref, rel=1e-9) or (ref >= 1.0 and got == 1.0)


@pytest.mark.parametrize("e0,n,delta", [(1.0, 100, 1e-3), (2.0, 300, 1e-4), (4.0, 600, 1e-6), (0.5, 50, 1e-2),
                                        (8.0, 500, 1e-6), (2.0, 9, 1e-2)])
def test_bennett_above_exhaustive_worst_case_binary(e0, n, delta):
    w = worst_case_epsilon(binary_rr(e0), n, delta)
    assert w.exhaustive
    b = blanket_epsilon(e0, n, delta, method="bennett")
    assert b >= w.epsilon
    eps = np.linspace(0.0, e0, 41)
    up, _, ex = worst_case_delta(binary_rr(e0), n, eps)
    assert ex and np.all(blanket_delta(e0, n, eps) >= up)


@pytest.mark.parametrize("e0,k,n,delta", [(2.0, 3, 6, 1e-2), (1.0, 3, 10, 0.05), (2.0, 4, 5, 1e-2),
                                          (1.0, 4, 6, 0.05)])
def test_bennett_above_exhaustive_worst_case_krr(e0, k, n, delta):
    w = worst_case_epsilon(k_rr(e0, k), n, delta)
    assert w.exhaustive
    assert blanket_epsilon(e0, n, delta, k=k, method="bennett") >= w.epsilon


def test_bennett_between_exact_blanket_and_closed_form():
    for e0 in (0.5, 1.0, 2.0, 4.0):
        for n in (10**4, 10**5, 10**6):
            for k in (2, 3, 8):
                cf = math.sqrt(14 * math.log(2e6) * (math.exp(e0) + k - 1) / (n - 1))
                b = blanket_epsilon(e0, n, 1e-6, k=k, method="bennett")
                if cf <= 1.0:  # where the closed form applies
                    assert b <= min(cf, e0)
                if k == 2:  # the dominating pair is the exact value of the expectation Bennett bounds
                    assert b >= dominating_pair_epsilon(binary_rr(e0), n, 1e-6)[0]
    eps = np.linspace(0.01, 1.9, 30)
    # the lower end of the dominating pair's block bracket (its upper end adds the ±12 sd tail mass)
    assert np.all(blanket_delta(2.0, 10**4, eps) >= dominating_pair_delta(binary_rr(2.0), 10**4, eps, bound="lower"))


def test_bennett_never_reaches_small_delta_at_tiny_n_returns_eps0():
    assert blanket_epsilon(4.0, 10, 1e-9, method="bennett") == 4.0
    assert blanket_delta(1.0, 100, [1.0, 2.0]).tolist() == [0.0, 0.0]


def test_certified_worst_case_krr_is_the_exact_blanket_and_below_bennett():
    R = k_rr(1.0, 4)
    w = worst_case_epsilon(R, 100_000, 1e-6)
    b = blanket_epsilon(1.0, 100_000, 1e-6, k=4, method="bennett")
    assert w.method == "exact privacy blanket (certified bracket)" and w.certified_exact
    # the exact blanket is the quantity Bennett's inequality bounds: never above it, here 17% below
    assert w.epsilon <= b and w.epsilon < dominating_pair_epsilon(R, 100_000, 1e-6)[0]
    assert w.lower <= w.epsilon <= w.lower * (1 + w.rtol)
    eps = np.array([0.005, 0.012, 0.03])
    up, lo, _ = worst_case_delta(R, 100_000, eps, lower=False)
    assert np.all(up <= blanket_delta(1.0, 100_000, eps, k=4) * (1 + 1e-12))


def test_solver_lists_bennett_and_meets_target():
    assert "blanket_bennett" in ACCOUNTINGS and "Bennett" in ACCOUNTINGS["blanket_bennett"][0]
    r = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="blanket_bennett", tol=1e-3)
    assert r.epsilon <= 0.5 and math.isfinite(r.epsilon0)
    cf = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="blanket", tol=1e-3)
    assert not math.isfinite(cf.epsilon0) or r.epsilon0 >= cf.epsilon0


# -- Wang et al. variation ratio ---------------------------------------------------------------
def _vr_dense_delta(e0, k, n, eps):
    """Wang et al.'s variation-ratio pair summed over every cell (a, b) = (#x1, #x1'): C ~ Bin(n − 1, 2/d)
    clones, each x1 or x1' w.p. ½; the target reports (p, 1, k − 2)/d on (x1, x1', other), Q swaps."""
    p = math.exp(e0)
    d = p + k - 1
    P = np.zeros((n + 1, n + 1))
    Q = np.zeros((n + 1, n + 1))
    for c in range(n):
        a = np.arange(c + 1)
        wa = stats.binom.pmf(c, n - 1, 2 / d) * stats.binom.pmf(a, c, 0.5)
        for dz0, dz1, pz, qz in ((1, 0, p / d, 1 / d), (0, 1, 1 / d, p / d), (0, 0, (k - 2) / d, (k - 2) / d)):
            P[a + dz0, c - a + dz1] += pz * wa
            Q[a + dz0, c - a + dz1] += qz * wa
    g = math.exp(eps)
    return max(np.maximum(P - g * Q, 0).sum(), np.maximum(Q - g * P, 0).sum())


@pytest.mark.parametrize("e0,k,n", [(2.0, 3, 60), (1.0, 4, 50), (2.0, 2, 80), (4.0, 8, 40)])
def test_variation_ratio_matches_dense_evaluation(e0, k, n):
    for eps in (0.1, 0.5, 1.0):
        ref = _vr_dense_delta(e0, k, n, eps)
        assert variation_ratio_delta(e0, n, eps, k=k) == pytest.approx(ref, rel=1e-8, abs=1e-15)


def test_variation_ratio_binary_is_fmt23_and_above_exhaustive():
    lo, up = fmt_epsilon_bracket(4.0, 100_000, 1e-6, variant="fmt23")
    assert variation_ratio_epsilon(4.0, 100_000, 1e-6) == pytest.approx(up, rel=1e-5)
    for e0, n, delta in [(1.0, 100, 1e-3), (2.0, 300, 1e-4), (4.0, 600, 1e-6), (2.0, 9, 1e-2)]:
        assert variation_ratio_epsilon(e0, n, delta) >= worst_case_epsilon(binary_rr(e0), n, delta).epsilon


@pytest.mark.parametrize("e0,k,n,delta", [(2.0, 3, 6, 1e-2), (2.0, 4, 6, 1e-2), (2.0, 3, 10, 1e-3)])
def test_variation_ratio_below_worst_case_for_krr_at_small_n(e0, k, n, delta):
    """Wang et al.'s k-RR (k ≥ 3) value is below the exhaustive worst case: not a certified bound."""
    R = k_rr(e0, k)
    w = worst_case_epsilon(R, n, delta)
    vr = variation_ratio_epsilon(e0, n, delta, k=k)
    assert w.exhaustive and vr < w.epsilon - 0.05
    assert vr == pytest.approx(third_symbol_epsilon(R, n, delta), rel=1e-5)  # the merged third-symbol pair


@pytest.mark.parametrize("fn,args,kw,name", [
    (blanket_delta, (-1.0, 1000, 0.1), {}, "epsilon0"),
    (blanket_delta, (1.0, 1, 0.1), {}, "n"),
    (blanket_delta, (1.0, 1000, -0.1), {}, "epsilon"),
    (blanket_delta, (1.0, 1000, 0.1), {"k": 1}, "k"),
    (blanket_delta, (800.0, 1000, 0.1), {}, "epsilon0"),
    (blanket_epsilon, (1.0, 1000, 1e-6), {"method": "hoeffding"}, "method"),
    (variation_ratio_delta, (1.0, 1000, 0.1), {"k": 0}, "k"),
    (variation_ratio_delta, (1.0, 10**10, 0.1), {}, "n"),
    (variation_ratio_epsilon, (1.0, 1000, 2.0), {}, "delta"),
])
def test_bad_inputs_name_the_parameter(fn, args, kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        fn(*args, **kw)


@pytest.mark.parametrize("e0,k", [(1.0, 3), (2.0, 3), (4.0, 3), (1.0, 4), (4.0, 8)])
def test_bennett_above_named_exact_pairs_at_moderate_n(e0, k):
    """Beyond brute force: the canonical and third-symbol pairs are actual pairs, so a bound must be above them."""
    from dpexplore.shuffle.exact import shuffled_pair

    R = k_rr(e0, k)
    for n, delta in ((200, 1e-4), (1000, 1e-6)):
        b = blanket_epsilon(e0, n, delta, k=k, method="bennett")
        assert b >= shuffled_pair(R, n).epsilon(delta)
        assert b >= third_symbol_epsilon(R, n, delta)
