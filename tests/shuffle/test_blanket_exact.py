"""The privacy blanket evaluated exactly (k-RR): a certified upper end for every data set (issue 14).

Checked against: an independent dense enumeration of the pair "target + S − 1 uniform reports",
a per-cell incomplete-beta evaluation (no recurrences), brute force over every configuration of
the other users at small n (k = 3, 4), the k-RR clone pair it must not exceed, and the
third-symbol pair it must meet at large n.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

from dpexplore.shuffle import blanket_pair_delta, dominating_pair_delta, k_rr, worst_case_epsilon
from dpexplore.shuffle.worst import (
    _blanket_S_delta,
    _dense_law,
    _krr_configs,
    _krr_matrix,
    third_symbol_epsilon,
)


def _dense_blanket(e0, k, S, gamma):
    """δ of "target 1 vs 0 + (S − 1) reports uniform on k symbols", by enumerating every histogram."""
    d = math.exp(e0) + k - 1
    W = _krr_matrix(k_rr(e0, k))
    U = np.full((k, k), 1.0 / k)
    others = _dense_law([0] * (S - 1), U, S)  # S − 1 uniform reports on the (S + 1)^k grid
    grid = others.reshape((S + 1,) * k)

    def law(b):
        out = np.zeros_like(grid)
        for y in range(k):
            src = tuple(slice(0, S) if j == y else slice(None) for j in range(k))
            dst = tuple(slice(1, S + 1) if j == y else slice(None) for j in range(k))
            out[dst] += W[b, y] * grid[src]
        return out.ravel()

    assert abs(W[1, 1] - math.exp(e0) / d) < 1e-15
    P, Q = law(1), law(0)
    return float(np.maximum(P - gamma * Q, 0.0).sum())


def _per_cell_blanket(e0, k, S, gamma, z=12.0):
    """The same sum with every tail from scipy's incomplete beta (no recurrences, no margins)."""
    d, al, p = math.exp(e0) + k - 1, math.expm1(e0), 2.0 / k
    mean, sd = S * p, math.sqrt(S * p * (1 - p))
    T = np.arange(max(0, math.floor(mean - z * sd)), min(S, math.ceil(mean + z * sd)) + 1, dtype=float)
    a = np.floor((gamma * al * T - S * (1 - gamma)) / (al * (1 + gamma))) + 1.0
    ok = a <= T
    T, a = T[ok], a[ok]
    g = special.betainc(a, T - a + 1.0, 0.5)
    pm = stats.binom.pmf(a - 1.0, T, 0.5)
    row = al * (1 + gamma) * (T - a + 1.0) * pm / 2.0 - (gamma - 1.0) * (S + al * T / 2.0) * g
    return float(np.sum(stats.binom.pmf(T, S, p) * k / (d * S) * np.maximum(row, 0.0)))


@pytest.mark.parametrize("e0,k", [(1.0, 3), (2.0, 3), (0.5, 4), (3.0, 5)])
def test_single_blanket_pair_equals_dense_enumeration(e0, k):
    for S in (1, 2, 3, 7, 12) if k <= 4 else (1, 2, 5, 8):
        for eps in (0.0, 0.1, 0.4, 0.9 * e0):
            g = math.exp(eps)
            ref = _dense_blanket(e0, k, S, g)
            up = float(_blanket_S_delta(e0, k, np.array([float(S)]), g, 1e-22)[0])
            lo = float(_blanket_S_delta(e0, k, np.array([float(S)]), g, 1e-22, upper=False)[0])
            # float arithmetic only: the enumeration sums ≤ (S+1)^k terms of size ≤ 1
            assert lo == pytest.approx(ref, rel=1e-10, abs=1e-15)
            assert up >= ref - 1e-16 and up <= ref * (1 + 1e-8) + 1e-15


@pytest.mark.parametrize("e0,k,S,eps", [(1.0, 3, 6400, 0.038), (1.0, 3, 640_000, 0.00308),
                                        (4.0, 16, 450_000, 0.0304), (0.5, 3, 7_000_000, 0.0005),
                                        (8.0, 16, 2_000, 1.0), (2.0, 4, 100, 0.3)])
def test_recurrences_match_per_cell_incomplete_beta(e0, k, S, eps):
    """The tails along T follow Pascal recurrences restarted every 128 rows; compare with one
    incomplete-beta call per row (rounding of either is ≲ 1e-9 relative at these sizes)."""
    g = math.exp(eps)
    ref = _per_cell_blanket(e0, k, float(S), g)
    lo = float(_blanket_S_delta(e0, k, np.array([float(S)]), g, 1e-22, upper=False)[0])
    up = float(_blanket_S_delta(e0, k, np.array([float(S)]), g, 1e-22)[0])
    assert lo == pytest.approx(ref, rel=1e-9)
    assert up >= ref * (1 - 1e-12) and up <= ref * (1 + 1e-3)


@pytest.mark.parametrize("e0,k,n", [(1.0, 3, 9), (2.0, 3, 8), (0.5, 3, 12), (1.0, 4, 7), (2.0, 4, 6), (1.0, 5, 5)])
def test_blanket_bounds_every_configuration_by_brute_force(e0, k, n):
    """Every configuration of the other n − 1 users (up to symmetry), target 0 vs 1, both directions."""
    R = k_rr(e0, k)
    W = _krr_matrix(R)
    eps = np.array([0.0, 0.1, 0.3, 0.7, 0.95 * e0])
    worst = np.zeros(eps.size)
    for cfg in _krr_configs(n - 1, k):
        others = [s for s, c in enumerate(cfg) for _ in range(c)]
        P, Q = _dense_law(others + [1], W, n), _dense_law(others + [0], W, n)
        for i, e in enumerate(eps):
            g = math.exp(e)
            worst[i] = max(worst[i], np.maximum(P - g * Q, 0).sum(), np.maximum(Q - g * P, 0).sum())
    # blocks ≥ the window: every M on its own, the exact mixture E_M δ_M
    up = blanket_pair_delta(R, n, eps, blocks=4096)
    assert np.all(up >= worst * (1 - 1e-12))
    assert np.all(up <= np.maximum(worst * 1.5, 1e-12))  # and not vacuous here (within 50%)
    # ... and the worst case's certified ε is ≥ the brute-force ε at δ = 1e-3
    from dpexplore.core.privacy_curves import exact_epsilon as pq_epsilon

    best = 0.0
    for cfg in _krr_configs(n - 1, k):
        others = [s for s, c in enumerate(cfg) for _ in range(c)]
        P, Q = _dense_law(others + [1], W, n), _dense_law(others + [0], W, n)
        best = max(best, pq_epsilon(P, Q, 1e-3), pq_epsilon(Q, P, 1e-3))
    w = worst_case_epsilon(R, n, 1e-3, lower=True)
    assert w.lower <= best * (1 + 1e-9) and w.epsilon >= best * (1 - 1e-9)


def test_brute_force_beyond_the_exhaustive_range():
    """3-RR, n = 14: not enumerated by worst_case_epsilon (too many configurations), so it uses the
    blanket; brute force here says the true worst case lies inside its bracket."""
    from dpexplore.core.privacy_curves import exact_epsilon as pq_epsilon

    R, n, delta = k_rr(1.5, 3), 14, 1e-4
    W = _krr_matrix(R)
    best = 0.0
    for cfg in _krr_configs(n - 1, 3):
        others = [s for s, c in enumerate(cfg) for _ in range(c)]
        P, Q = _dense_law(others + [1], W, n), _dense_law(others + [0], W, n)
        best = max(best, pq_epsilon(P, Q, delta), pq_epsilon(Q, P, delta))
    w = worst_case_epsilon(R, n, delta)
    assert not w.exhaustive
    assert w.lower <= best * (1 + 1e-9) <= w.epsilon * (1 + 1e-9)


@pytest.mark.parametrize("k,n", [(3, 300), (3, 20_000), (16, 20_000), (4, 3_000)])
def test_blanket_never_above_the_krr_clone_pair(k, n):
    """The blanket pair is a post-processing of the k-RR clone pair (it is not told how many blanket
    reports landed on the target's two symbols): its δ is ≤ the clone pair's at every ε. Compared:
    the blanket's *lower* end of its block bracket vs the clone pair's certified upper end."""
    R = k_rr(1.0, k)
    eps = np.array([0.01, 0.05, 0.1, 0.3, 0.6])
    bl = blanket_pair_delta(R, n, eps, bound="lower", blocks=256)
    cl = dominating_pair_delta(R, n, eps)
    assert np.all(bl <= cl * (1 + 1e-12) + 1e-300)


@pytest.mark.parametrize("k,e0,n", [(3, 2.0, 100_000), (16, 1.0, 100_000), (4, 4.0, 30_000), (3, 0.5, 10**6)])
def test_bracket_meets_the_third_symbol_pair_at_large_n(k, e0, n):
    R = k_rr(e0, k)
    w = worst_case_epsilon(R, n, 1e-6)
    assert w.method == "exact privacy blanket (certified bracket)" and w.certified_exact
    assert w.lower == third_symbol_epsilon(R, n, 1e-6) or "others at symbol 2" in w.pair
    assert w.lower <= w.epsilon <= w.lower * (1 + 1e-3)
    # the certificate: the exact blanket's upper δ at the reported ε is ≤ δ
    assert blanket_pair_delta(R, n, w.epsilon, blocks=256) <= 1e-6


def test_issue_case_third_symbol_pair_is_inside_the_bracket():
    """Issue 14's example: 3-RR, n = 1000, ε0 = 2, δ = 1e-6 — third-symbol pair 0.3720."""
    w = worst_case_epsilon(k_rr(2.0, 3), 1000, 1e-6)
    assert 0.3719 <= w.lower <= w.epsilon <= w.lower * 1.005


def test_blanket_limits_and_mixture_bracket():
    R = k_rr(2.0, 3)
    # ε ≥ ε0: nothing beyond the local guarantee
    assert blanket_pair_delta(R, 1000, [2.0, 3.0]).tolist() == [0.0, 0.0]
    # ε = 0: total variation, which is ≤ TV of one report (e^ε0 − 1)/d
    d = math.exp(2.0) + 2
    assert 0 < blanket_pair_delta(R, 1000, 0.0) <= (math.exp(2.0) - 1) / d
    # block bracket: lower ≤ upper, tightening with more blocks
    eps = np.linspace(0.02, 0.5, 7)
    for b in (4, 32, 256):
        lo, up = (blanket_pair_delta(R, 5000, eps, bound=x, blocks=b) for x in ("lower", "upper"))
        assert np.all(lo <= up)
    lo8, up8 = (blanket_pair_delta(R, 5000, eps, bound=x, blocks=8) for x in ("lower", "upper"))
    lo256, up256 = (blanket_pair_delta(R, 5000, eps, bound=x, blocks=256) for x in ("lower", "upper"))
    assert np.all(up256 - lo256 <= up8 - lo8)


def test_blanket_rejects_bad_input_clearly():
    from dpexplore.shuffle import randomizer

    with pytest.raises(ValueError, match="blocks"):
        blanket_pair_delta(k_rr(1.0, 3), 100, 0.1, blocks=0)
    with pytest.raises(ValueError, match="bound"):
        blanket_pair_delta(k_rr(1.0, 3), 100, 0.1, bound="middle")
    with pytest.raises(ValueError, match="k-ary randomized response"):
        blanket_pair_delta(randomizer([0.7, 0.3], [0.4, 0.6]), 100, 0.1)
    assert list(itertools.islice(_krr_configs(2, 3), 1))  # the enumeration helper used above works
