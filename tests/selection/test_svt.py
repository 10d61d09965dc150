"""The sparse vector technique: exact pattern laws against sampling; the honest versions' worst-pair ε equals the
claim; every broken variant's privacy loss exceeds its claim by a derived margin; the audits agree."""

import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.selection import audit as A
from dpexplore.selection import svt as S

Q = [0.3, 1.0, -0.5, 2.0]
TOL = 1e-9  # quadrature in log space: 48-node Gauss–Legendre on pieces ≤ half a noise scale of an analytic
#             integrand (error far below 1e-12 relative); the rest is double rounding of sums of ≤ 10⁵ terms


def law(spec, q, thr, m=None):
    pats = S.svt_patterns(len(q) if m is None else m, spec.c)
    return pats, np.array([math.exp(S.svt_log_probability(spec, q, thr, a)) for a in pats])


def chi2_stat(counts, p):
    keep = p * counts.sum() >= 5  # pool the cells with expected count < 5 into one
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(p[keep], p[~keep].sum()) * counts.sum()
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(np.sum((obs - exp) ** 2 / exp)), obs.size - 1


@pytest.mark.parametrize("variant", [v for v in S.SVT_VARIANTS if v != "noisy-value"])
@pytest.mark.parametrize("c", [1, 2])
def test_exact_pattern_law_sums_to_one_and_matches_sampling(variant, c):
    spec = S.svt_spec(variant, epsilon=1.0, c=c)
    pats, p = law(spec, Q, 0.5)
    assert abs(p.sum() - 1) < 1e-9
    codes, _ = S.sample_patterns(spec, Q, 0.5, 20_000, rng=5)
    counts = np.array([np.sum(codes == S.pattern_code(a)) for a in pats])
    assert counts.sum() == 20_000
    stat, df = chi2_stat(counts, p)
    assert stat < stats.chi2.ppf(1 - 1e-3, df), (variant, c, stat)  # χ² test at level 1e-3, fixed seed


@pytest.mark.parametrize("split", [None, 0.3])
def test_sparse_vector_itself_follows_the_exact_law(split):
    """sparse_vector (Dwork & Roth: core AboveThreshold per positive; Lyu et al. Alg. 1 with a split) run 3000 times."""
    spec = S.svt_spec("dwork-roth", epsilon=1.0, c=2) if split is None else S.svt_spec("lyu", epsilon=1.0, c=2,
                                                                                        split=split)
    pats, p = law(spec, Q, 0.5)
    g = np.random.default_rng(9)
    seen = [S.sparse_vector(Q, 0.5, epsilon=1.0, c=2, split=split, rng=g).answers for _ in range(3000)]
    counts = np.array([sum(s == a for s in seen) for a in pats])
    stat, df = chi2_stat(counts, p)
    assert stat < stats.chi2.ppf(1 - 1e-3, df)


def test_cost_depends_on_c_not_on_the_number_of_queries():
    short = S.sparse_vector(np.zeros(5), 100.0, epsilon=1.0, c=2, rng=0)
    long = S.sparse_vector(np.zeros(5000), 100.0, epsilon=1.0, c=2, rng=0)
    assert short.epsilon == long.epsilon == 1.0 and long.queries_answered > short.queries_answered
    assert S.svt_spec("lyu", epsilon=1.0, c=4).query_scale == 4 * S.svt_spec("lyu", epsilon=1.0, c=1).query_scale
    # the exact ε of random neighbouring pairs of 5 queries: never above the claim
    g = np.random.default_rng(2)
    for variant, c in (("lyu", 1), ("lyu", 2), ("dwork-roth", 2)):
        spec = S.svt_spec(variant, epsilon=1.0, c=c)
        for _ in range(2):
            q = g.uniform(-3, 3, 5)
            e = A.svt_pair_epsilon(spec, q, q + g.uniform(-1, 1, 5), 0.0)
            assert e <= 1.0 + TOL


@pytest.mark.parametrize(("variant", "c"), [("lyu", 1), ("lyu", 2), ("lyu", 3), ("dwork-roth", 1),
                                            ("dwork-roth", 2)])
def test_honest_svt_exact_epsilon_on_its_worst_pair_equals_the_claim(variant, c):
    spec = S.svt_spec(variant, epsilon=1.0, c=c)
    pair = A.svt_worst_pair(spec)
    assert abs(A.svt_pair_loss(spec, pair) - 1.0) <= TOL
    assert A.svt_exact_epsilon(variant, epsilon=1.0, c=c) == 1.0


def test_honest_worst_pair_every_output_within_the_claim():
    spec = S.svt_spec("lyu", epsilon=1.0, c=1)
    pair = A.svt_worst_pair(spec)  # 7 ⊥ then ⊤: 9 patterns
    e = A.svt_pair_epsilon(spec, pair.queries, pair.neighbour, pair.threshold)
    assert abs(e - 1.0) <= TOL


@pytest.mark.parametrize("c", [2, 3, 4])
def test_noise_independent_of_c_exceeds_its_claim(c):
    """Lyu et al.'s bound ε/2 + cε/2 is reached on the worst pair: the margin over the claim is (c − 1)ε/2."""
    eps = 1.0
    spec = S.svt_spec("noise-independent-of-c", epsilon=eps, c=c)
    loss = A.svt_pair_loss(spec, A.svt_worst_pair(spec))
    margin = (c - 1) * eps / 2
    assert loss >= eps + margin - TOL
    assert loss <= (1 + c) * eps / 2 + TOL  # and never above the upper bound
    assert A.svt_exact_epsilon("noise-independent-of-c", epsilon=eps, c=c) == pytest.approx((1 + c) * eps / 2)


@pytest.mark.parametrize("variant", ["no-query-noise", "shared-query-noise"])
def test_infinite_variants_have_an_output_impossible_on_one_side(variant):
    spec = S.svt_spec(variant, epsilon=1.0)
    pair = A.svt_worst_pair(spec)
    a = S.svt_log_probability(spec, pair.queries, pair.threshold, pair.answers)
    b = S.svt_log_probability(spec, pair.neighbour, pair.threshold, pair.answers)
    assert {math.isinf(a), math.isinf(b)} == {True, False}
    assert A.svt_pair_loss(spec, pair) == math.inf
    # and sampling agrees: the impossible output never occurs on its side in 20 000 runs
    zero = pair.neighbour if math.isinf(b) else pair.queries
    codes, _ = S.sample_patterns(spec, zero, pair.threshold, 20_000, rng=1)
    assert not np.any(codes == S.pattern_code(pair.answers))


@pytest.mark.parametrize("below", [2, 5, 10])
def test_noisy_value_loss_grows_with_the_number_of_queries(below):
    """Loss (k + 1)Δ/b_ν = (k + 1)ε/2 (c = 1) on k ⊥ then a released value far below T: margin (k − 1)ε/2."""
    spec = S.svt_spec("noisy-value", epsilon=1.0)
    loss = A.svt_pair_loss(spec, A.svt_worst_pair(spec, below=below))
    assert abs(loss - (below + 1) / 2) <= 1e-6
    assert loss >= 1.0 + (below - 1) / 2 - 1e-6


@pytest.mark.parametrize("variant", S.SVT_VARIANTS)
def test_audit_refutes_every_broken_variant_and_no_honest_one(variant):
    c = 1 if variant == "noisy-value" else 2  # its loss per query is ε/(2c): at c = 1 the measurement refutes it
    a = A.audit_svt(variant, epsilon=1.0, c=c, runs=20_000, rng=0)
    assert a.violation == (variant in S.BROKEN_VARIANTS)
    assert a.pair_epsilon <= a.exact_epsilon + TOL
    if variant in S.HONEST_VARIANTS:
        assert a.epsilon_lower <= 1.0
    if variant in ("no-query-noise", "shared-query-noise", "noisy-value"):
        assert a.epsilon_lower > 1.0  # refuted by the measurement too (95 % lower bound above the claim)


def test_bad_inputs():
    with pytest.raises(ValueError, match="c must"):
        S.sparse_vector([1.0], 0.0, epsilon=1.0, c=0)
    with pytest.raises(ValueError, match="split"):
        S.sparse_vector([1.0], 0.0, epsilon=1.0, split=1.0)
    with pytest.raises(ValueError, match="variant"):
        S.svt_spec("magic", epsilon=1.0)
    with pytest.raises(TypeError, match="queries"):
        S.sparse_vector("abc", 0.0, epsilon=1.0)
    with pytest.raises(ValueError, match="threshold"):
        S.sparse_vector([1.0], math.nan, epsilon=1.0)
    with pytest.raises(ValueError, match="pattern"):
        S.svt_log_probability(S.svt_spec("lyu", epsilon=1.0), [0.0, 0.0], 0.0, (False,))
    with pytest.raises(ValueError, match="at most"):
        S.sample_patterns(S.svt_spec("lyu", epsilon=1.0), np.zeros(S.MAX_QUERIES_EXACT + 1), 0.0, 10)
    assert S.MAX_QUERIES >= S.MAX_QUERIES_EXACT and S.MAX_POSITIVES >= 1


@pytest.mark.parametrize("c", [1, 2, 3])
@pytest.mark.parametrize("variant", [v for v in S.SVT_VARIANTS if v != "noisy-value"])
def test_all_patterns_at_once_equal_one_at_a_time(variant, c):
    """svt_pattern_log_probabilities (the audit's table) equals svt_log_probability pattern by pattern."""
    spec = S.svt_spec(variant, epsilon=0.8, c=c)
    for q in (np.array(Q), np.random.default_rng(c).normal(0.0, 3.0, 6), A.svt_audit_pair(spec).neighbour):
        pats = S.svt_patterns(q.size, c)
        many = S.svt_pattern_log_probabilities(spec, q, 0.25, pats)
        one = np.array([S.svt_log_probability(spec, q, 0.25, a) for a in pats])
        assert np.array_equal(np.isfinite(many), np.isfinite(one))
        fin = np.isfinite(one)
        assert np.allclose(many[fin], one[fin], rtol=TOL, atol=TOL), (variant, c)
    with pytest.raises(ValueError, match="pattern"):
        S.svt_pattern_log_probabilities(spec, Q, 0.0, [(True,) * (c + 1)])


def test_value_densities_at_once_equal_one_at_a_time():
    spec = S.svt_spec("noisy-value", epsilon=1.3, c=2)
    pair = A.svt_audit_pair(spec)
    v = np.linspace(-30.0, 10.0, 9)
    for j in (1, 4, len(pair.answers)):
        ans = (False,) * (j - 1) + (True,)
        many = S.svt_log_value_density(spec, pair.neighbour, pair.threshold, ans, v)
        one = [S.svt_log_probability(spec, pair.neighbour, pair.threshold, ans, value=x) for x in v]
        assert np.allclose(many, one, rtol=TOL, atol=TOL)
    with pytest.raises(ValueError, match="noisy-value"):
        S.svt_log_value_density(S.svt_spec("lyu", epsilon=1.0), [0.0], 0.0, (True,), [0.0])


def test_audit_svt_reuses_its_exact_parts_and_is_reproducible():
    a = A.audit_svt("lyu", epsilon=0.9, c=2, runs=2000, rng=11)
    b = A.audit_svt("lyu", epsilon=0.9, c=2, runs=2000, rng=11)
    assert a.epsilon_lower == b.epsilon_lower and a.pair_epsilon == b.pair_epsilon
    assert a.pair.queries is b.pair.queries  # the cached worst pair, read-only
    with pytest.raises(ValueError):
        a.pair.queries[0] = 1.0
