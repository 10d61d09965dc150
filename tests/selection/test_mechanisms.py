"""Selection mechanisms: exact output laws against closed forms, independent quadrature and sampling; privacy on
neighbouring score vectors; limits."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpexplore.core.permute_and_flip import permute_and_flip_probabilities as core_pf_law
from dpexplore.selection import mechanisms as M

SCORES = np.array([3.0, 1.0, 0.0, 2.5, -1.0])


def chi2_ok(counts, p, alpha=1e-3):
    """Pearson's χ² test at level α (fixed seed): the statistic is below the χ²(K−1) (1 − α) quantile.

    Expected counts are ≥ 5 in every cell at the sizes used here (the χ² approximation's usual condition)."""
    n = counts.sum()
    assert np.all(n * p >= 5)
    stat = float(np.sum((counts - n * p) ** 2 / (n * p)))
    return stat < stats.chi2.ppf(1 - alpha, p.size - 1), stat


def test_em_law_is_the_softmax():
    p = M.exponential_mechanism_probabilities(SCORES, epsilon=1.0, sensitivity=1.0)
    w = np.exp(SCORES / 2.0)
    assert np.allclose(p, w / w.sum(), rtol=1e-13)
    # monotone scores: the factor 2 is dropped, i.e. the law at 2ε
    pm = M.exponential_mechanism_probabilities(SCORES, epsilon=1.0, monotone=True)
    assert np.allclose(pm, M.exponential_mechanism_probabilities(SCORES, epsilon=2.0), rtol=1e-13)


def test_gumbel_rnm_is_em_and_exponential_rnm_is_pf():
    for eps in (0.3, 1.0, 4.0):
        assert np.array_equal(M.report_noisy_max_probabilities(SCORES, epsilon=eps, noise="gumbel"),
                              M.exponential_mechanism_probabilities(SCORES, epsilon=eps))
        assert np.allclose(M.report_noisy_max_probabilities(SCORES, epsilon=eps, noise="exponential"),
                           core_pf_law(SCORES, eps), rtol=1e-13)


def test_laplace_rnm_law_matches_independent_quadrature():
    b = M.noise_scale(1.0, 1.0)
    q = SCORES

    def prob(r):
        def f(x):
            def cdf(y):
                return 0.5 * math.exp(y / b) if y < 0 else 1 - 0.5 * math.exp(-y / b)
            out = math.exp(-abs(x - q[r]) / b) / (2 * b)
            for s in range(q.size):
                if s != r:
                    out *= cdf(x - q[s])
            return out
        pts = sorted(set(q.tolist()))
        parts = [integrate.quad(f, -np.inf, pts[0], epsabs=1e-14, epsrel=1e-12)[0],
                 integrate.quad(f, pts[-1], np.inf, epsabs=1e-14, epsrel=1e-12)[0]]
        parts += [integrate.quad(f, a, c, epsabs=1e-14, epsrel=1e-12)[0] for a, c in zip(pts[:-1], pts[1:])]
        return sum(parts)

    expected = np.array([prob(r) for r in range(q.size)])
    assert abs(expected.sum() - 1) < 1e-9
    got = M.report_noisy_max_probabilities(q, epsilon=1.0)
    assert np.allclose(got, expected, atol=1e-9)


def test_laplace_rnm_law_symmetry_and_limits():
    assert np.allclose(M.report_noisy_max_probabilities([2.0] * 4, epsilon=1.0), 0.25, atol=1e-12)
    assert M.report_noisy_max_probabilities([5.0], epsilon=1.0).tolist() == [1.0]
    # ε → ∞: the true argmax; ε → 0: uniform
    assert M.report_noisy_max_probabilities(SCORES, epsilon=1e4)[0] > 1 - 1e-12
    assert np.allclose(M.report_noisy_max_probabilities(SCORES, epsilon=1e-6), 0.2, atol=1e-5)
    # far-apart scores (many pieces) still sum to one and put the mass on the top
    p = M.report_noisy_max_probabilities([0.0, 100.0, 1.0], epsilon=1.0)
    assert p[1] > 1 - 1e-12


@pytest.mark.parametrize("mech", M.SELECTORS)
def test_sampled_frequencies_match_the_exact_law(mech):
    q = np.array([2.0, 1.0, 0.0, 1.5])
    p = M.selection_probabilities(mech, q, epsilon=1.0)
    g = np.random.default_rng(12)
    n = 3000
    idx = [M.select(mech, q, epsilon=1.0, rng=g).index for _ in range(n)]
    ok, stat = chi2_ok(np.bincount(idx, minlength=q.size), p)
    assert ok, (mech, stat)


@pytest.mark.parametrize("mech", M.SELECTORS)
def test_exact_laws_are_epsilon_dp_on_random_neighbours(mech):
    """Every output's probability ratio on neighbouring score vectors (each score moved by ≤ Δ) is ≤ e^ε."""
    g = np.random.default_rng(3)
    eps, d = 0.7, 1.5
    worst = 0.0
    for _ in range(40):
        q = g.uniform(0, 6, 5)
        q2 = q + g.uniform(-d, d, 5)
        a = M.selection_probabilities(mech, q, epsilon=eps, sensitivity=d)
        b = M.selection_probabilities(mech, q2, epsilon=eps, sensitivity=d)
        worst = max(worst, float(np.max(np.abs(np.log(a) - np.log(b)))))
    assert worst <= eps + 1e-9


def test_epsilon_to_infinity_selects_the_argmax():
    for mech in M.SELECTORS:
        assert M.select(mech, SCORES, epsilon=1e6, rng=0).index == 0


def test_results_carry_the_epsilon_spent():
    r = M.report_noisy_max(SCORES, epsilon=0.5, sensitivity=2.0, noise="exponential", rng=1)
    assert (r.epsilon, r.sensitivity, r.delta) == (0.5, 2.0, 0.0)
    assert "exponential" in r.mechanism


@pytest.mark.parametrize(("call", "exc", "words"), [
    (lambda: M.exponential_mechanism([], epsilon=1.0), ValueError, "scores"),
    (lambda: M.exponential_mechanism([1.0, np.nan], epsilon=1.0), ValueError, "finite"),
    (lambda: M.exponential_mechanism([[1.0, 2.0]], epsilon=1.0), ValueError, "scores"),
    (lambda: M.exponential_mechanism("ab", epsilon=1.0), TypeError, "scores"),
    (lambda: M.exponential_mechanism([1.0], epsilon=0.0), ValueError, "epsilon"),
    (lambda: M.report_noisy_max([1.0], epsilon=1.0, noise="cauchy"), ValueError, "noise"),
    (lambda: M.permute_and_flip([1.0], epsilon=1.0, sensitivity=0), ValueError, "sensitivity"),
    (lambda: M.report_noisy_max_probabilities(np.zeros(M.MAX_CANDIDATES_EXACT + 1), epsilon=1.0), ValueError,
     str(M.MAX_CANDIDATES_EXACT)),
    (lambda: M.exponential_mechanism(np.zeros(M.MAX_CANDIDATES + 1), epsilon=1.0), ValueError, "at most"),
    (lambda: M.exponential_mechanism([1.0], epsilon=1.0, rng=-1), ValueError, "rng"),
    (lambda: M.select("best", [1.0], epsilon=1.0), ValueError, "mechanism"),
    (lambda: M.exponential_mechanism([1e308, -1e308], epsilon=1.0), ValueError, "scores must lie"),
])
def test_bad_inputs_get_clear_errors(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


def test_public_maxima():
    assert M.MAX_CANDIDATES >= M.MAX_CANDIDATES_EXACT >= 50
    assert math.isfinite(M.MAX_CANDIDATES)


@pytest.mark.parametrize("mech", ["em", "rnm", "pf"])
def test_monotone_variants_are_epsilon_dp_on_monotone_neighbours(mech):
    """monotone=True drops the factor 2; on neighbours where every score moves the same way (by 0 or Δ) the exact
    laws' log-ratios stay ≤ ε (the search reaches ε itself: the bound is tight)."""
    import itertools

    g = np.random.default_rng(1)
    worst = 0.0
    for _ in range(60):
        q = g.choice([0.0, 0.5, 1.0, 2.0, 5.0, -3.0], 3)
        for shift in itertools.product([0.0, 1.0], repeat=3):
            a = M.selection_probabilities(mech, q, epsilon=1.0, monotone=True)
            b = M.selection_probabilities(mech, q + np.array(shift), epsilon=1.0, monotone=True)
            worst = max(worst, float(np.max(np.abs(np.log(a) - np.log(b)))))
    assert 0.9 < worst <= 1.0 + 1e-9


@pytest.mark.parametrize("monotone", [False, True])
@pytest.mark.parametrize("mech", M.SELECTORS)
def test_select_many_draws_the_exact_law(mech, monotone):
    """The vectorised runs (the panels' and audits' sampler) follow the mechanism's exact law: χ² at α = 10⁻³ on
    20 000 runs, at two ε drawn in one call (fixed seed)."""
    q = np.array([2.0, 1.0, 0.0, 1.5, -0.5])
    idx = M.select_many(mech, q, epsilon=[0.7, 2.0], sensitivity=1.5, monotone=monotone, runs=20_000, rng=5)
    assert idx.shape == (2, 20_000)
    for row, eps in zip(idx, (0.7, 2.0)):
        p = M.selection_probabilities(mech, q, epsilon=eps, sensitivity=1.5, monotone=monotone)
        ok, stat = chi2_ok(np.bincount(row, minlength=q.size), p)
        assert ok, (mech, monotone, eps, stat)


def test_select_many_at_twice_epsilon_is_the_broken_permute_and_flip_law():
    """The audit's broken variant (permute-and-flip with the factor 2 dropped) drawn as permute-and-flip at 2ε."""
    from dpexplore.core.audit import broken_permute_and_flip

    q = np.array([1.0, -1.0, -1.0, -1.0])
    g = np.random.default_rng(3)
    one_by_one = np.bincount([broken_permute_and_flip(q, 1.0, rng=g).index for _ in range(4000)], minlength=4)
    ok, stat = chi2_ok(one_by_one, core_pf_law(q, 2.0))
    assert ok, stat
    ok, stat = chi2_ok(np.bincount(M.select_many("pf", q, epsilon=2.0, runs=20_000, rng=4), minlength=4),
                       core_pf_law(q, 2.0))
    assert ok, stat


def test_select_many_inputs_and_limits():
    assert M.select_many("em", [0.0, 100.0], epsilon=1.0, runs=3, rng=0).tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="mechanism"):
        M.select_many("nope", [0.0, 1.0], epsilon=1.0)
    with pytest.raises(ValueError, match="runs"):
        M.select_many("pf", [0.0, 1.0], epsilon=1.0, runs=0)
    with pytest.raises(ValueError, match="MAX_DRAW_VALUES|<= 20,000,000"):
        M.select_many("pf", np.zeros(100), epsilon=[1.0, 2.0], runs=M.MAX_DRAW_VALUES // 100)
    with pytest.raises(ValueError, match="epsilon"):
        M.select_many("pf", [0.0, 1.0], epsilon=[])
    with pytest.raises(ValueError, match="epsilon"):
        M.select_many("pf", [0.0, 1.0], epsilon=-1.0)
