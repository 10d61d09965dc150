"""Issue 28 (binary): the faster branch and bound stays certified — its new code paths against brute force.

The paths: the block pairs' laws on narrow windows (``exact._conv_binoms_fast``: anchored pmf recurrences,
one tilted FFT product per tilt, dropped cells' mass bounded and added), the closed-form ε of a pair
(``ShuffledPair.epsilon``, no root search), the coins' quantile without ``binom.ppf`` and the width rule.
At n ≤ 2000 the laws are short enough for direct convolution, so the tilted FFT is forced
(``_FAST_DIRECT_LIMIT = 0``) and the windows narrowed until lost mass matters.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from dpexplore.shuffle import binary_rr, randomizer, shuffled_pair, worst_case_epsilon
from dpexplore.shuffle import bnb as BNB
from dpexplore.shuffle import exact as EXACT

SKEW2 = randomizer([0.7, 0.3], [0.2, 0.8])  # binary, not symmetric under swapping the inputs


@pytest.fixture
def fft_always(monkeypatch):
    monkeypatch.setattr(EXACT, "_FAST_DIRECT_LIMIT", 0)  # every merge of two parts through the tilted FFT


def _pairs_delta(R, n, eps, ks):
    return np.max([shuffled_pair(R, n, k=k, cache=False).delta(eps) for k in ks], axis=0)


@pytest.mark.parametrize("R", [binary_rr(1.0), binary_rr(4.0), SKEW2], ids=lambda R: R.name)
def test_fast_block_pairs_bound_every_pair_of_their_block(R, fft_always):
    # narrow windows (lost mass up to ~1e-4 at width 4) and the FFT path: the bound still holds at every ε
    n, t = 2000, 1e-12
    eps = np.linspace(0.0, R.local_epsilon, 61)
    for (a, b), width in [((0, 40), 4.0), ((300, 520), 9.7), ((900, 1199), 2.0), ((16, 17), 2.5), ((600, 601), 1.5)]:
        pair, slack = BNB._block_pair(R, n, a, b, t, width)
        assert "block bound" in pair.method
        bound = pair.delta(eps) + slack
        truth = _pairs_delta(R, n, eps, range(a, b + 1))
        big = truth > 1e-30
        assert np.all(bound[big] >= truth[big] * (1 - 1e-12)), (a, b, width)
        assert np.any(bound[1:-1] < 1.0)


def test_fast_laws_equal_the_standard_ones_on_standard_windows(fft_always):
    # width 14 = the standard windows: the tilted FFT product equals the direct convolution cell by cell
    R, n = binary_rr(2.0), 2000
    for a, b in [(0, 30), (400, 700), (990, 999)]:
        fast, _ = BNB._block_pair(R, n, a, b, 1e-12, 14.0)
        std, _ = BNB._block_pair(R, n, a, b, 1e-12)
        common, i_f, i_s = np.intersect1d(fast.counts, std.counts, return_indices=True)
        keep = std.logp[i_s] > std.logp.max() - 60.0
        assert np.sum(keep) == np.sum(std.logp > std.logp.max() - 60.0)  # no cell that matters dropped
        assert np.allclose(fast.logp[i_f][keep], std.logp[i_s][keep], rtol=0, atol=1e-10)
        assert np.allclose(fast.logq[i_f][keep], std.logq[i_s][keep], rtol=0, atol=1e-10)


@pytest.mark.parametrize("R, n", [(binary_rr(1.0), 2000), (binary_rr(4.0), 1200), (SKEW2, 900)],
                         ids=lambda x: getattr(x, "name", str(x)))
def test_fast_branch_and_bound_brackets_the_exhaustive_worst_case(R, n, fft_always):
    delta = 1e-6
    ex = worst_case_epsilon(R, n, delta, exhaustive_max_n=n)  # every pair k, standard path
    assert ex.exhaustive
    for rtol in (1e-3, 1e-6):
        w = worst_case_epsilon(R, n, delta, rtol=rtol)
        assert w.certified_exact and "branch and bound" in w.method
        assert w.lower <= ex.epsilon * (1 + 1e-12) and ex.epsilon <= w.epsilon * (1 + 1e-12)
        assert w.epsilon <= w.lower * (1 + rtol)


def _brentq_epsilon(pr, delta, direction):
    f = lambda e: pr.delta(e, direction) - delta  # noqa: E731  (the root search the closed form replaced)
    if f(0.0) <= 0:
        return 0.0
    fin = pr._s["lr"][np.isfinite(pr._s["lr"])]
    hi = float(np.max(np.abs(fin))) + 1e-9
    return math.inf if f(hi) > 0 else float(optimize.brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-13))


def test_closed_form_epsilon_is_the_smallest_feasible_one():
    pairs = [shuffled_pair(binary_rr(1.0), 300, k=k, cache=False) for k in (0, 7)]
    pairs += [shuffled_pair(SKEW2, 50, k=3, cache=False), shuffled_pair(binary_rr(2.0), 200, messages=3, cache=False)]
    pairs += [BNB._block_pair(binary_rr(3.0), 2000, 100, 400, 1e-12, 3.0)[0]]  # lost mass ≈ 1e-3: matters
    assert pairs[-1].lost_p > 1e-6
    for pr in pairs:
        for d in (1e-9, 1e-6, 1e-3, 0.05, 0.4):
            for direction in ("forward", "reverse"):
                e = pr.epsilon(d, direction)
                ref = _brentq_epsilon(pr, d, direction)
                assert e == pytest.approx(ref, rel=1e-9, abs=1e-12)
                if math.isfinite(e):
                    assert pr.delta(e, direction) <= d * (1 + 1e-9) + 1e-15
                if 0 < e < math.inf:
                    assert pr.delta(e * (1 - 1e-6), direction) > d


def test_coin_quantile_is_binom_ppf():
    rng = np.random.default_rng(5)
    for _ in range(400):
        N, g, t = int(10 ** rng.uniform(0, 6)), rng.uniform(0.01, 0.99), 10 ** rng.uniform(-30, -2)
        m0 = BNB._coin_quantile(t, N, g)
        assert m0 == int(stats.binom.ppf(t, N, g))
        assert stats.binom.cdf(m0 - 1, N, g) <= t  # what the block bound needs: P(M < m0) ≤ t
