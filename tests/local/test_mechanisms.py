"""The frequency oracles against their closed forms: unbiased estimates, Wang et al.'s exact variances over
seeds (tolerances from the number of repetitions), exact ε from the output law, the ε → ∞ limits, bad inputs."""

import itertools
import math

import numpy as np
import pytest

from dpexplore.local import (
    MAX_CELLS,
    MAX_K,
    ORACLES,
    count_variance,
    estimate,
    exact_epsilon,
    oracle_probabilities,
    randomize,
    support_counts,
    top_k,
)
from dpexplore.local.data import true_counts, zipf_answers, zipf_probabilities
from dpexplore.local.metrics import mean_squared_error, top_k_recall
from dpexplore.local.theory import channel, product_epsilon, unary_bit_probabilities

REPS = 600
K = 5
N = 1500


@pytest.fixture(scope="module")
def data():
    v = zipf_answers(N, k=K)
    return v, true_counts(v, K)


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_unbiased_and_variance_matches_closed_form(oracle, eps, data):
    v, c = data
    gen = np.random.default_rng(1000 + ORACLES.index(oracle))
    est = np.array([estimate(randomize(v, oracle=oracle, k=K, epsilon=eps, rng=g)).counts for g in gen.spawn(REPS)])
    var = count_variance(oracle, n=N, k=K, epsilon=eps, count=c)
    # mean: z = 4.5 (a Bonferroni margin over 5 values × 10 cases) standard errors of a mean of REPS draws
    assert np.all(np.abs(est.mean(axis=0) - c) <= 4.5 * np.sqrt(var / REPS)), (est.mean(axis=0), c)
    # sample variance of REPS (near-normal) draws: relative sd ≈ √(2/(REPS − 1)); 4.5 of them
    ratio = est.var(axis=0, ddof=1) / var
    assert np.all(np.abs(ratio - 1) <= 4.5 * math.sqrt(2 / (REPS - 1))), ratio


def test_wang_et_al_approximate_variances():
    n, e = 1000, math.exp(1.3)
    approx = {o: count_variance(o, n=n, k=7, epsilon=1.3, exact=False) for o in ORACLES}
    assert approx["krr"] == pytest.approx(n * (e + 7 - 2) / (e - 1) ** 2)
    assert approx["oue"] == pytest.approx(n * 4 * e / (e - 1) ** 2)
    h = math.sqrt(e)
    assert approx["sue"] == pytest.approx(n * h / (h - 1) ** 2)
    assert approx["hr"] == pytest.approx(n * (e + 1) ** 2 / (e - 1) ** 2)
    g = round(e) + 1  # integer g: n q(1 − q)/(p − q)² at that g, ≥ the real-valued g = e^ε + 1 optimum
    p, q = e / (e + g - 1), 1 / g
    assert approx["olh"] == pytest.approx(n * q * (1 - q) / (p - q) ** 2)
    assert approx["olh"] >= n * 4 * e / (e - 1) ** 2 * (1 - 1e-12)


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("k", [2, 5, 17])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 8.0])
def test_exact_epsilon_equals_claim(oracle, k, eps):
    assert exact_epsilon(oracle, k=k, epsilon=eps) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("oracle", ["sue", "oue"])
def test_unary_exact_epsilon_by_brute_force_over_all_bit_vectors(oracle):
    k, eps = 4, 0.9
    P = unary_bit_probabilities(oracle, k=k, epsilon=eps)
    best = 0.0
    for bits in itertools.product([0, 1], repeat=k):
        b = np.array(bits)
        law = np.prod(np.where(b == 1, P, 1 - P), axis=1)  # P(bits | v) for each v
        best = max(best, float(np.log(law.max() / law.min())))
    assert best == pytest.approx(eps, rel=1e-12) and product_epsilon(P) == pytest.approx(best, rel=1e-12)


def test_channels_are_laws_and_hadamard_sets_are_halves():
    for o in ("krr", "hr", "olh"):
        w = channel(o, k=6, epsilon=1.0)
        assert np.allclose(w.sum(axis=1), 1.0)
    w = channel("hr", k=6, epsilon=1.0)
    big = w > w.min(axis=1, keepdims=True)
    assert np.all(big.sum(axis=1) == w.shape[1] // 2)
    # two values' sets overlap in exactly K/4 columns: P(report ∈ C_v | u ≠ v) = 1/2 = q*
    assert np.all((big[:, None, :] & big[None, :, :]).sum(axis=2)[~np.eye(6, dtype=bool)] == w.shape[1] // 4)


def test_support_probabilities_are_p_and_q():
    gen = np.random.default_rng(5)
    for o in ORACLES:
        p, q = oracle_probabilities(o, k=4, epsilon=1.0)
        r = randomize(np.zeros(40_000, dtype=int), oracle=o, k=4, epsilon=1.0, rng=gen)
        frac = support_counts(r) / r.n
        tol = 4.5 * math.sqrt(0.25 / r.n)
        assert abs(frac[0] - p) < tol and np.all(np.abs(frac[1:] - q) < tol), (o, frac, p, q)


def test_epsilon_to_infinity_limits(data):
    v, c = data
    for o in ("krr", "sue"):  # these become the identity
        assert np.allclose(estimate(randomize(v, oracle=o, k=K, epsilon=30.0, rng=0)).counts, c)
    # OUE and OLH keep the own value's signal with p* → 1/2: Var → n_v; HR keeps q* = 1/2: Var → n − n_v
    for o in ("oue", "olh"):
        assert np.allclose(count_variance(o, n=N, k=K, epsilon=30.0, count=c), c, rtol=1e-6)
    assert np.allclose(count_variance("hr", n=N, k=K, epsilon=30.0, count=c), N - c, rtol=1e-6)


def test_reproducible_with_seed_and_generator():
    a = randomize([0, 1, 2], oracle="olh", k=3, epsilon=1.0, rng=7)
    b = randomize([0, 1, 2], oracle="olh", k=3, epsilon=1.0, rng=np.random.default_rng(7))
    assert np.array_equal(a.reports, b.reports) and np.array_equal(a.hashes, b.hashes)


def test_top_k_and_metrics(data):
    v, c = data
    est = estimate(randomize(v, oracle="krr", k=K, epsilon=30.0, rng=0))
    assert top_k(est, 2).tolist() == [0, 1]  # Zipf: the two most frequent answers
    assert top_k_recall(c, est.counts, 2) == 1.0 and mean_squared_error(c / N, est.frequencies) < 1e-20


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(values=[0, 5], k=5), ValueError, r"values must be integers in \[0, 4\]"),
    (dict(values=[0, 1.5], k=5), ValueError, "values must be integers"),
    (dict(values=["a"], k=5), TypeError, "values"),
    (dict(values=[0], k=1), ValueError, "k must be an integer >= 2"),
    (dict(values=[0], k=MAX_K + 1), ValueError, f"k must be an integer >= 2 and <= {MAX_K}"),
    (dict(values=[0], k=2, epsilon=-1.0), ValueError, "epsilon must be a finite number > 0"),
    (dict(values=[0], k=2, epsilon=31.0), ValueError, r"epsilon must be a finite number in \(0, 30\]"),
    (dict(values=[0], k=2, oracle="rappor"), ValueError, "oracle must be one of"),
    (dict(values=[], k=2), ValueError, "values"),
])
def test_bad_inputs(kwargs, exc, match):
    kw = dict(oracle="krr", epsilon=1.0) | kwargs
    with pytest.raises(exc, match=match):
        randomize(kw.pop("values"), **kw)


def test_unary_size_refused_before_allocation():
    n = MAX_CELLS // 1000 + 1
    with pytest.raises(ValueError, match="n\\*k must be <= "):
        randomize(np.zeros(n, dtype=int), oracle="oue", k=1000, epsilon=1.0)


def test_data():
    assert np.array_equal(zipf_answers(50, k=8), zipf_answers(100, k=8)[:50])
    assert zipf_probabilities(8)[0] > zipf_probabilities(8)[-1]
    with pytest.raises(ValueError, match="n must be"):
        zipf_answers(0, k=8)
