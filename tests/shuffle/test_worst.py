"""Worst case over neighbouring data sets: brute force over every data set at small n."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpexplore.core.privacy_curves import exact_epsilon as pq_epsilon
from dpexplore.core.privacy_curves import hockey_stick
from dpexplore.shuffle import (
    binary_rr,
    dominating_pair_delta,
    dominating_pair_epsilon,
    exact_delta,
    exact_epsilon,
    k_rr,
    pure_pair,
    randomizer,
    shuffled_pair,
    worst_case_delta,
    worst_case_epsilon,
)
from dpexplore.shuffle import worst as WORST


def _law(inputs, W, n):
    """Histogram law of independent reports (row W[x] for input x), dense over {0..n}^K — written
    independently of dpexplore.shuffle.worst (index arithmetic on a flat array)."""
    K = W.shape[1]
    shape = (n + 1,) * K
    strides = [int(np.prod(shape[j + 1:])) for j in range(K)]
    L = np.zeros(int(np.prod(shape)))
    L[0] = 1.0
    for x in inputs:
        new = np.zeros_like(L)
        idx = np.nonzero(L)[0]
        for y in range(K):
            new[idx + strides[y]] += W[x, y] * L[idx]
        L = new
    return L


def _krr_W(e0, k):
    d = math.exp(e0) + k - 1
    W = np.full((k, k), 1.0 / d)
    np.fill_diagonal(W, math.exp(e0) / d)
    return W


def _brute_force(e0, k, n, delta):
    """max ε over EVERY data set in {0..k−1}^n and every replacement of one user's input
    (data sets with the same multiset of inputs have the same histogram law; no other symmetry used)."""
    W = _krr_W(e0, k)
    best = 0.0
    seen = set()
    for data in itertools.product(range(k), repeat=n):
        for i in range(n):
            for b in range(k):
                if b == data[i]:
                    continue
                d2 = list(data)
                d2[i] = b
                key = (tuple(sorted(data)), tuple(sorted(d2)))
                if key in seen:
                    continue
                seen.add(key)
                P, Q = _law(d2, W, n), _law(data, W, n)
                best = max(best, pq_epsilon(P, Q, delta))
    return best


@pytest.mark.parametrize("e0,k,n,delta", [
    (2.0, 2, 9, 1e-2), (1.0, 2, 9, 0.05), (4.0, 2, 8, 1e-3),
    (2.0, 3, 6, 1e-2), (1.0, 3, 6, 0.05),
    (2.0, 4, 5, 1e-2), (1.0, 4, 5, 0.05),
])
def test_worst_case_equals_brute_force_over_all_data_sets(e0, k, n, delta):
    R = binary_rr(e0) if k == 2 else k_rr(e0, k)
    w = worst_case_epsilon(R, n, delta)
    bf = _brute_force(e0, k, n, delta)
    assert w.exhaustive and w.epsilon == pytest.approx(bf, rel=1e-9, abs=1e-11)
    assert exact_epsilon(R, n, delta) == w.epsilon
    # the dominating pair is a certified bound over every data set
    assert dominating_pair_epsilon(R, n, delta)[0] >= bf - 1e-9


def test_third_symbol_is_worse_than_the_canonical_pair_for_k_rr():
    # issue 14: 3-RR, n = 1000, ε0 = 2, δ = 1e-6 — the canonical pair says 0.3000, the third-symbol pair 0.3720
    R = k_rr(2.0, 3)
    canon = exact_epsilon(R, 1000, 1e-6, k=0)
    third = pure_pair(R, 1000, others=2).epsilon(1e-6)
    assert round(canon, 4) == 0.3 and round(third, 4) == 0.372
    w = worst_case_epsilon(R, 1000, 1e-6)
    assert w.lower >= third - 1e-12 and w.epsilon >= third and "third" in w.pair
    assert exact_epsilon(R, 1000, 1e-6) >= third  # failed before: exact_epsilon returned the canonical 0.3000


@pytest.mark.parametrize("e0,k,n", [(2.0, 3, 6), (1.0, 4, 5), (3.0, 3, 5)])
def test_pure_pair_matches_the_dense_law(e0, k, n):
    W = _krr_W(e0, k)
    P, Q = _law([2] * (n - 1) + [1], W, n), _law([2] * (n - 1) + [0], W, n)
    pair = pure_pair(k_rr(e0, k), n, others=2)
    for eps in (0.0, 0.3, 1.0):
        assert pair.delta(eps, "forward") == pytest.approx(hockey_stick(P, Q, eps), abs=1e-12)
        assert pair.delta(eps, "reverse") == pytest.approx(hockey_stick(Q, P, eps), abs=1e-12)


def test_binary_rr_k0_is_not_the_worst_pair_and_the_worst_case_covers_it():
    R = binary_rr(2.0)
    e0, e3 = (exact_epsilon(R, 10_000, 1e-6, k=k) for k in (0, 3))
    assert e3 > e0  # issue 14, item 2
    w = worst_case_epsilon(R, 10_000, 1e-6)
    assert w.lower >= e3 and w.epsilon >= w.lower and not w.exhaustive
    # exhaustive range: the maximum over k is attained at some k > 0 here
    w = worst_case_epsilon(R, 600, 1e-6)
    assert w.exhaustive and w.pair != "k = 0 of the other users hold 1"
    assert w.epsilon >= exact_epsilon(R, 600, 1e-6, k=0)


@pytest.mark.parametrize("R,n", [(binary_rr(1.0), 400), (binary_rr(4.0), 300), (k_rr(2.0, 3), 300)])
def test_dominating_pair_bounds_every_exact_pair_and_brackets_itself(R, n):
    eps = np.array([0.05, 0.2, 0.5, 1.0])
    up = dominating_pair_delta(R, n, eps)
    lo = dominating_pair_delta(R, n, eps, bound="lower")
    assert np.all(lo <= up + 1e-15)
    pairs = [exact_delta(R, n, eps, k=k) for k in ((0, 1, 5, n // 2) if R.inputs == 2 else (0, 1, 5))]
    if R.inputs >= 3:
        pairs.append(pure_pair(R, n, others=2).delta(eps))
    for d in pairs:
        assert np.all(d <= up + 1e-12)
    wu, wl, ex = worst_case_delta(R, n, eps)
    assert np.all(wl <= wu) and np.all(wu <= np.maximum(up, 0) + 1e-15)


def test_dominating_pair_blocks_converge_at_large_n():
    up, lo = dominating_pair_epsilon(binary_rr(1.0), 10**7, 1e-6)
    assert lo <= up and (up - lo) / up < 1e-3  # block discretisation: a tight bracket


def test_worst_case_is_capped_by_the_local_epsilon():
    w = worst_case_epsilon(binary_rr(1.0), 3, 1e-9)
    assert w.epsilon <= 1.0 + 1e-12


def test_profile_export_round_trips_and_brackets():
    import csv
    import io
    import json

    from dpexplore.shuffle import privacy_profile

    prof = privacy_profile(k_rr(2.0, 3), 400, epsilons=[0.1, 0.5], deltas=[1e-6, 1e-3])
    rows = list(csv.reader(io.StringIO(prof.to_csv())))
    assert rows[1] == ["kind", "x", "upper", "lower"] and len(rows) == 2 + 2 + 2
    assert float(rows[2][2]) == prof.delta_upper[0]
    d = json.loads(prof.to_json())
    assert d["epsilon_of_delta"]["epsilon_upper"] == prof.epsilon_upper.tolist()
    assert np.all(prof.delta_lower <= prof.delta_upper) and np.all(prof.epsilon_lower <= prof.epsilon_upper)
    # the lower end is attained by the third-symbol pair
    assert prof.epsilon_lower[0] == pytest.approx(pure_pair(k_rr(2.0, 3), 400, others=2).epsilon(1e-6), rel=1e-12)


def test_composition_by_dp_accounting_is_between_one_round_and_the_trivial_sum():
    from dpexplore.shuffle import compose_rounds

    R = binary_rr(2.0)
    one = compose_rounds(R, 2000, 1, 1e-6)
    up, lo = dominating_pair_epsilon(R, 2000, 1e-6)
    # PLD of the same dominating pair (binary RR: FMT23's clone pair), losses rounded up by ≤ Δ
    assert lo - 1e-9 <= one.epsilon <= up + 2 * one.discretization
    ten = compose_rounds(R, 2000, 10, 1e-6)
    assert one.epsilon < ten.epsilon < 10 * one.epsilon and not ten.capped
    # the composed curve is certified: at least the largest single pair, composed (here: ≥ one round)
    assert ten.epsilon >= worst_case_epsilon(R, 2000, 1e-6).lower


def test_composition_for_large_k_uses_the_exact_blanket():
    from dpexplore.shuffle import compose_rounds

    R = k_rr(1.0, 16)
    c = compose_rounds(R, 20_000, 5, 1e-6)
    assert "blanket" in c.method
    w = worst_case_epsilon(R, 20_000, 1e-6)
    assert w.lower <= c.epsilon_one_round  # every round's pairs are dominated: never below a real pair
    assert c.epsilon_one_round < dominating_pair_epsilon(R, 20_000, 1e-6)[1]  # below the k-RR clone pair
    assert c.epsilon_one_round <= w.epsilon * 1.01  # as tight as the single round's certified value


def test_size_caps_raise_before_allocation():
    from dpexplore.shuffle import compose_rounds, gdp_epsilon_multi, gdp_mu_multi

    with pytest.raises(ValueError, match=r"^k must be an integer >= 2 and <= 10000; got 1000000000$"):
        k_rr(1.0, 10**9)
    with pytest.raises(ValueError, match=r"m must be an integer >= 1 and <= 10000; got 1000000000"):
        gdp_mu_multi(binary_rr(1.0), 1000, 10**9, bundled=True)
    with pytest.raises(ValueError, match=r"rounds must be an integer >= 1 and <= 10000"):
        compose_rounds(binary_rr(1.0), 100, 10**9, 1e-6)
    with pytest.raises(ValueError, match=r"n must be an integer >= 2 and <= 10000000"):
        compose_rounds(binary_rr(1.0), 10**8, 2, 1e-6)
    r = gdp_epsilon_multi(binary_rr(4.0), 100_000, 10, 1e-6, bundled=True)  # was 9.8e11
    assert r.epsilon == 40.0 and r.capped and r.uncapped > 40
    assert gdp_mu_multi(binary_rr(4.0), 1000, 10_000, bundled=True) == math.inf  # no OverflowError


def test_third_symbol_pair_at_any_n_matches_the_grid_and_is_a_lower_end():
    from dpexplore.shuffle.worst import third_symbol_epsilon

    R3 = k_rr(2.0, 3)
    assert third_symbol_epsilon(R3, 1000, 1e-6) == pytest.approx(pure_pair(R3, 1000, others=2).epsilon(1e-6),
                                                                  rel=2e-6)
    R4 = k_rr(1.0, 4)  # outputs ≠ 0, 1 merged: post-processing, so ≤ the pair's ε
    assert third_symbol_epsilon(R4, 150, 1e-3) <= pure_pair(R4, 150, others=2).epsilon(1e-3)
    w = worst_case_epsilon(k_rr(2.0, 3), 10**6, 1e-6)
    assert 0 < w.lower <= w.epsilon and "third-symbol" in w.pair


def test_fmt21_pair_takes_over_where_it_is_tighter():
    from dpexplore.shuffle import blanket_epsilon, fmt_epsilon

    R = k_rr(0.1, 3)
    # rtol = 1e-9 cannot close the blanket bracket: the full set of certified bounds is computed
    w = worst_case_epsilon(R, 10**5, 1e-6, rtol=1e-9)
    assert w.dominating_upper > fmt_epsilon(0.1, 10**5, 1e-6)  # the k-RR clone pair alone is looser here
    assert blanket_epsilon(0.1, 10**5, 1e-6, k=3, method="bennett") > fmt_epsilon(0.1, 10**5, 1e-6)
    assert w.epsilon <= fmt_epsilon(0.1, 10**5, 1e-6) * (1 + 1e-4)
    # the default: the exact blanket meets the third-symbol pair, well below FMT21
    d = worst_case_epsilon(R, 10**5, 1e-6)
    assert d.certified_exact and d.lower <= w.epsilon and d.epsilon <= w.epsilon * (1 + 1e-3)
    assert d.epsilon < 0.8 * fmt_epsilon(0.1, 10**5, 1e-6)
    # 16-RR, ε0 = 0.5: FMT21 beats the k-RR clone pair; the Bennett bound beats both, the exact blanket all
    R = k_rr(0.5, 16)
    w = worst_case_epsilon(R, 10**5, 1e-6, rtol=1e-9)
    assert w.dominating_upper > fmt_epsilon(0.5, 10**5, 1e-6)
    assert w.epsilon < 0.5 * fmt_epsilon(0.5, 10**5, 1e-6) and "blanket" in w.method and w.lower <= w.epsilon
    assert w.epsilon <= blanket_epsilon(0.5, 10**5, 1e-6, k=16, method="bennett")


def test_exhaustive_range_can_be_extended_and_is_inside_the_bracket():
    R = binary_rr(4.0)
    br = worst_case_epsilon(R, 1200, 1e-6)  # default: not exhaustive at n = 1200
    ex = worst_case_epsilon(R, 1200, 1e-6, exhaustive_max_n=1200)
    assert not br.exhaustive and ex.exhaustive
    assert br.lower <= ex.epsilon + 1e-12 <= br.epsilon + 1e-12


# -- binary inputs: the certified branch and bound over k ----------------------------------------
SKEW2 = randomizer([0.7, 0.3], [0.2, 0.8])  # binary, not symmetric under swapping the inputs


def _all_pairs_delta(R, n, eps, ks):
    return np.max([shuffled_pair(R, n, k=k, cache=False).delta(eps) for k in ks], axis=0)


@pytest.mark.parametrize("R", [binary_rr(0.5), binary_rr(2.0), binary_rr(6.0), SKEW2])
def test_block_pair_bounds_every_pair_in_its_block(R):
    # the theorem behind the branch and bound: one pair (common users + coins) bounds δ_k(ε) for every
    # k in the block, at every ε, both directions; checked against every pair of the block
    n, eps, t = 80, np.linspace(0.0, R.local_epsilon, 41), 1e-12
    for a, b in [(0, 5), (3, 40), (20, 79 if R is SKEW2 else 39), (10, 11)]:
        pair, slack = WORST._block_pair(R, n, a, b, t)
        bound = pair.delta(eps) + slack
        truth = _all_pairs_delta(R, n, eps, range(a, b + 1))
        # (δ values below ≈ 1e-40 are the windows' lost-mass terms, not the profile: compared above 1e-30)
        big = truth > 1e-30
        assert np.all(bound[big] >= truth[big] * (1 - 1e-12))
        assert np.any(bound[1:-1] < 1.0)  # not a vacuous bound


@pytest.mark.parametrize("R, n", [(binary_rr(1.0), 700), (binary_rr(2.0), 1500), (binary_rr(4.0), 900),
                                  (SKEW2, 650)])
def test_branch_and_bound_equals_brute_force_over_all_data_sets(R, n):
    delta = 1e-6
    ex = worst_case_epsilon(R, n, delta, exhaustive_max_n=n)  # every pair k evaluated
    assert ex.exhaustive
    tight = worst_case_epsilon(R, n, delta, rtol=1e-9)  # branch and bound (n > the exhaustive default)
    assert not tight.exhaustive and tight.certified_exact and "branch and bound" in tight.method
    assert tight.lower == pytest.approx(ex.epsilon, rel=1e-12)
    assert ex.epsilon <= tight.epsilon * (1 + 1e-12) and tight.epsilon <= tight.lower * (1 + 1e-9)
    assert tight.pair_k == ex.pair_k or shuffled_pair(R, n, k=tight.pair_k).epsilon(delta) == pytest.approx(
        ex.epsilon, rel=1e-12)
    loose = worst_case_epsilon(R, n, delta)  # default width 1e-3
    assert loose.lower <= ex.epsilon * (1 + 1e-12) <= loose.epsilon * (1 + 1e-12)
    assert loose.epsilon <= loose.lower * (1 + 1e-3) and loose.pairs_evaluated < n // 2


def test_branch_and_bound_delta_curve_brackets_every_pair():
    R, n = binary_rr(2.0), 700
    eps = np.linspace(0.0, 0.6, 31)
    up, lo, ex = worst_case_delta(R, n, eps)
    truth = _all_pairs_delta(R, n, eps, range(0, (n - 1) // 2 + 1))
    assert not ex
    assert np.all(up >= truth * (1 - 1e-12)) and np.all(lo <= truth * (1 + 1e-12))
    assert np.all(up <= lo * (1 + 1e-3) + 1e-18)


def test_binary_worst_case_is_not_the_canonical_pair_at_large_n():
    # ε0 = 8, n = 10⁶: the canonical pair k = 0 is below the certified worst case's lower end
    R = binary_rr(8.0)
    w = worst_case_epsilon(R, 10**6, 1e-6)
    k0 = shuffled_pair(R, 10**6, k=0).epsilon(1e-6)
    assert w.certified_exact and w.pair_k > 0 and w.lower > k0
    assert w.epsilon <= w.lower * (1 + 1e-3)


def test_branch_and_bound_out_of_budget_stays_certified():
    R, n, delta = binary_rr(1.0), 700, 1e-6
    ex = worst_case_epsilon(R, n, delta, exhaustive_max_n=n)
    cut = worst_case_epsilon(R, n, delta, max_pairs=32)  # the ends only; the rest in one block bound
    assert cut.pairs_evaluated <= 34 and not cut.certified_exact
    assert cut.lower <= ex.epsilon * (1 + 1e-12) <= cut.epsilon * (1 + 1e-12)
    up, lo, _ = worst_case_delta(R, n, [0.05, 0.1, 0.2], max_pairs=32)
    truth = _all_pairs_delta(R, n, np.array([0.05, 0.1, 0.2]), range(0, (n - 1) // 2 + 1))
    assert np.all(up >= truth * (1 - 1e-12)) and np.all(lo <= truth * (1 + 1e-12))


@pytest.mark.parametrize("kw, msg", [({"rtol": 0.0}, "rtol"), ({"rtol": 0.9}, "rtol"), ({"max_pairs": 10}, "max_pairs"),
                                     ({"max_pairs": 10**9}, "max_pairs"), ({"rtol": float("nan")}, "rtol")])
def test_branch_and_bound_parameters_are_checked(kw, msg):
    with pytest.raises(ValueError, match=msg):
        worst_case_epsilon(binary_rr(1.0), 1000, 1e-6, **kw)
