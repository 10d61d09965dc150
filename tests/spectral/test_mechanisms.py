"""Mechanisms and accounting: randomized response, matrix shuffling, Analyze Gauss, noisy power method."""

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpexplore.core import exact_privacy_check, shuffle_amplification_epsilon, shuffle_amplification_epsilon0
from dpexplore.spectral import (
    analyze_gauss,
    analyze_gauss_sigma,
    debias,
    matrix_shuffle,
    noisy_power_method,
    noisy_power_sigma,
    randomized_response_graph,
    rr_noise_variance,
    sbm,
    shuffle_epsilon,
    shuffle_epsilon0,
    sin_theta_distance,
    top_eigenpairs,
)


def test_rr_flip_frequency_and_shape():
    A, _ = sbm(300, 3, 0.3, 0.05, rng=0)
    e0 = 1.0
    res = randomized_response_graph(A, epsilon0=e0, rng=1)
    M = res.matrix
    assert M.dtype == np.int8 and np.array_equal(M, M.T) and not M.diagonal().any()
    iu = np.triu_indices(300, 1)
    flips = int((M[iu] != A.toarray()[iu]).sum())
    m, mu = iu[0].size, 1 / (math.exp(e0) + 1)
    assert res.flip_probability == pytest.approx(mu)
    assert abs(flips - m * mu) < 5 * math.sqrt(m * mu * (1 - mu))


def test_debias_is_unbiased_exactly_and_in_sample():
    mu = 0.2
    # exact: E[debias(out)] over the two-point law of one bit equals the bit
    for x in (0, 1):
        p1 = (1 - mu) if x else mu
        mean = p1 * debias(np.array([[0, 1], [1, 0]]), mu)[0, 1] + (1 - p1) * debias(np.zeros((2, 2)), mu)[0, 1]
        assert mean == pytest.approx(x, abs=1e-12)
        var = p1 * (debias(np.array([[0, 1], [1, 0]]), mu)[0, 1] - x) ** 2 + (1 - p1) * (
            debias(np.zeros((2, 2)), mu)[0, 1] - x) ** 2
        assert var == pytest.approx(rr_noise_variance(math.log((1 - mu) / mu)), rel=1e-12)
    # Monte Carlo: mean of the debiased matrix over T draws is within z = 5 standard errors of A
    A, _ = sbm(60, 2, 0.5, 0.1, rng=0)
    T, e0 = 200, 1.5
    acc = sum(randomized_response_graph(A, epsilon0=e0, rng=s).debiased() for s in range(T)) / T
    iu = np.triu_indices(60, 1)
    err = (acc - A.toarray())[iu]
    assert np.abs(err.mean()) < 5 * math.sqrt(rr_noise_variance(e0) / (T * iu[0].size))
    assert np.abs(err).max() < 5.5 * math.sqrt(rr_noise_variance(e0) / T)


def _graph_law(adj, e0):
    """Exact output law of randomized response on all pairs of a 3-vertex graph (8 outputs)."""
    mu = 1 / (math.exp(e0) + 1)
    pairs = [(0, 1), (0, 2), (1, 2)]
    law = {}
    for bits in itertools.product((0, 1), repeat=3):
        law[bits] = math.prod((1 - mu) if b == adj[i][j] else mu for b, (i, j) in zip(bits, pairs))
    return law


def test_rr_exact_edge_dp_on_neighbours():
    e0 = 0.8
    g = [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    h = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]  # g plus the edge {0, 2}
    pg, ph = _graph_law(g, e0), _graph_law(h, e0)
    keys = sorted(pg)
    p, q = [pg[k] for k in keys], [ph[k] for k in keys]
    assert exact_privacy_check(p, q, e0).ok
    assert not exact_privacy_check(p, q, e0 - 0.01).ok
    assert exact_privacy_check(p, q, e0).epsilon_needed == pytest.approx(e0)


def test_rr_empirical_law_matches_exact():
    e0, T = 0.7, 1500
    g = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    law = _graph_law(g, e0)
    rng = np.random.default_rng(0)
    counts = dict.fromkeys(law, 0)
    for _ in range(T):
        m = randomized_response_graph(g, epsilon0=e0, rng=rng).matrix
        counts[(int(m[0, 1]), int(m[0, 2]), int(m[1, 2]))] += 1
    for key, prob in law.items():
        assert abs(counts[key] - T * prob) < 5 * math.sqrt(T * prob * (1 - prob))


def test_shuffled_rr_on_three_vertices_is_no_worse_than_rr():
    # exact law of P Ã Pᵀ (uniform P) for n = 3: average of the RR law over the 6 relabellings
    e0 = 1.2
    g = [[0, 1, 0], [1, 0, 0], [0, 0, 0]]
    h = [[0, 1, 1], [1, 0, 0], [1, 0, 0]]
    pairs = [(0, 1), (0, 2), (1, 2)]

    def shuffled(adj):
        base = _graph_law(adj, e0)
        out = dict.fromkeys(base, 0.0)
        for perm in itertools.permutations(range(3)):
            for bits, pr in base.items():
                m = np.zeros((3, 3), int)
                for b, (i, j) in zip(bits, pairs):
                    m[i, j] = m[j, i] = b
                s = m[np.ix_(perm, perm)]
                out[tuple(int(s[i, j]) for i, j in pairs)] += pr / 6
        return out

    pg, ph = shuffled(g), shuffled(h)
    keys = sorted(pg)
    eps_shuffled = exact_privacy_check([pg[k] for k in keys], [ph[k] for k in keys], e0).epsilon_needed
    assert eps_shuffled <= e0 + 1e-12


def test_matrix_shuffle_permutation_and_limit():
    A, _ = sbm(80, 2, 0.4, 0.1, rng=0)
    r = matrix_shuffle(A, epsilon0=60.0, delta=1e-4, rng=1)  # μ ≈ e^-60: no flips, only the relabelling
    assert np.array_equal(np.sort(r.permutation), np.arange(80))
    dense = A.toarray()
    assert np.array_equal(r.matrix, dense[np.ix_(r.permutation, r.permutation)])
    assert np.array_equal(r.unshuffle(np.arange(80)[r.permutation]), np.arange(80))
    with pytest.raises(TypeError, match="exactly one of epsilon"):
        matrix_shuffle(A, epsilon=1.0, epsilon0=2.0, delta=1e-4)


def test_matrix_shuffle_spends_what_the_accountant_says():
    A, _ = sbm(200, 2, 0.4, 0.1, rng=0)
    r = matrix_shuffle(A, epsilon=1.0, delta=1e-5, accountant="fmt21_numerical", rng=0)
    assert r.epsilon <= 1.0 + 1e-9 and r.epsilon0 > 1.0 and r.accountant == "fmt21_numerical"
    assert r.epsilon == pytest.approx(shuffle_epsilon(r.epsilon0, 200, 1e-5, accountant="fmt21_numerical"),
                                      abs=1e-12)
    # the default is the sound accounting: no amplification, ε = ε0
    d = matrix_shuffle(A, epsilon=1.0, delta=1e-5, rng=0)
    assert d.accountant == "none" and d.epsilon == d.epsilon0 == 1.0


def test_shuffle_epsilon0_matches_core_inverse():
    for acc in ("fmt21_numerical", "fmt23_numerical", "fmt21_closed_form"):
        mine = shuffle_epsilon0(1.0, 1000, 1e-6, accountant=acc)
        core = shuffle_amplification_epsilon0(1.0, 1000, 1e-6, accountant=acc)
        assert mine == pytest.approx(core, abs=1e-5)
        assert shuffle_amplification_epsilon(mine, 1000, 1e-6, accountant=acc) <= 1.0 + 1e-6


def test_pluggable_accountant_and_errors():
    half = lambda e0, n, d: e0 / 2  # noqa: E731
    assert shuffle_epsilon(3.0, 100, 1e-4, accountant=half) == 1.5
    assert shuffle_epsilon0(1.0, 100, 1e-4, accountant=half) == pytest.approx(2.0, abs=1e-8)
    with pytest.raises(ValueError, match=r"^accountant must be one of \['none', 'fmt21_numerical'"):
        shuffle_epsilon(1.0, 100, 1e-4, accountant="rdp")
    # "none": the sound bound, no amplification (randomized response + post-processing)
    assert shuffle_epsilon(2.5, 10**6, 1e-9, accountant="none") == 2.5
    assert shuffle_epsilon0(0.7, 10**6, 1e-9, accountant="none") == 0.7
    with pytest.raises(ValueError, match=r"^epsilon0 must be a finite number > 0; got 0"):
        shuffle_epsilon(0, 100, 1e-4)


def test_analyze_gauss_noise_variance():
    n = 300
    A, _ = sbm(n, 3, 0.3, 0.05, rng=0)
    r = analyze_gauss(A, epsilon=2.0, delta=1e-5, rng=1)
    assert r.sigma == pytest.approx(analyze_gauss_sigma(2.0, 1e-5))
    assert np.array_equal(r.matrix, r.matrix.T) and not r.matrix.diagonal().any()
    iu = np.triu_indices(n, 1)
    noise = (r.matrix - A.toarray())[iu]
    m = noise.size
    assert abs(noise.mean()) < 5 * r.sigma / math.sqrt(m)
    assert abs(noise.var() / r.sigma**2 - 1) < 5 * math.sqrt(2 / m)


def test_noisy_power_accounting_and_limit():
    A, _ = sbm(200, 3, 0.4, 0.05, rng=0)
    r = noisy_power_method(A, k=3, epsilon=0.7, delta=1e-5, iterations=8, rng=0)
    assert r.epsilon == pytest.approx(0.7, rel=1e-12) and r.sigma == pytest.approx(noisy_power_sigma(0.7, 1e-5, 8))
    assert np.all(r.sensitivities >= math.sqrt(2 * 3 / 200) - 1e-12)  # max row norm >= sqrt(k/n)
    assert np.allclose(r.embedding.T @ r.embedding, np.eye(3), atol=1e-10)
    # huge ε: the noisy power method finds the top-3 eigenspace of A
    big = noisy_power_method(A, k=3, epsilon=1e7, delta=1e-5, iterations=60, rng=0)
    _, u = top_eigenpairs(sp.csr_array(A), 3, rng=0)
    assert sin_theta_distance(big.embedding, u) < 1e-3
