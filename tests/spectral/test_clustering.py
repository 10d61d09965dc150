"""Clustering, misclassification, k-means and the spectral-gap estimate of k."""

import itertools
import math

import numpy as np
import pytest

from dpexplore.spectral import (
    estimate_k,
    kmeans,
    misclassification_rate,
    private_spectral_clustering,
    sbm,
    spectral_clustering,
)


def test_misclassification_zero_up_to_permutation():
    z = np.repeat(np.arange(4), 5)
    for perm in itertools.permutations(range(4)):
        assert misclassification_rate(z, np.array(perm)[z]) == 0.0
    assert misclassification_rate(["a", "a", "b"], [7, 7, 3]) == 0.0


def test_misclassification_values_and_chance_level():
    assert misclassification_rate([0, 0, 1, 1], [0, 1, 1, 1]) == 0.25
    assert misclassification_rate([0, 0, 0, 0], [0, 1, 2, 3]) == 0.75  # unmatched clusters count as wrong
    k, n = 3, 30000
    rng = np.random.default_rng(0)
    rate = misclassification_rate(rng.integers(0, k, n), rng.integers(0, k, n))
    # best matching of random labels: slightly below 1 − 1/k, never above it by more than sampling noise
    assert 1 - 1 / k - 0.02 < rate < 1 - 1 / k + 5 * math.sqrt(1 / n)
    with pytest.raises(ValueError, match="same length"):
        misclassification_rate([0, 1], [0, 1, 1])


def test_kmeans_blobs_and_determinism():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [10, 0], [0, 10]])
    z = np.repeat(np.arange(3), 50)
    x = centers[z] + rng.normal(size=(150, 2))
    res = kmeans(x, 3, rng=1)
    assert misclassification_rate(z, res.labels) == 0.0
    assert np.array_equal(res.labels, kmeans(x, 3, rng=1).labels)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1 and <= 150; got 151$"):
        kmeans(x, 151)


@pytest.mark.parametrize("mechanism,epsilon", [("shuffle", 1e3), ("analyze_gauss", 1e5), ("noisy_power", 1e8)])
def test_huge_epsilon_gives_the_non_private_answer(mechanism, epsilon):
    A, z = sbm(240, 3, 0.25, 0.08, rng=2)
    base = spectral_clustering(A, 3, rng=0).labels
    res = private_spectral_clustering(A, 3, mechanism=mechanism, epsilon=epsilon, delta=1e-5, iterations=40, rng=0)
    assert res.labels.shape == (240,) and res.mechanism == mechanism
    assert misclassification_rate(base, res.labels) == 0.0
    assert res.epsilon <= epsilon * (1 + 1e-9) and res.delta == 1e-5


def test_shuffle_labels_are_in_original_vertex_order():
    A, z = sbm(300, 3, 0.4, 0.02, rng=0)
    res = private_spectral_clustering(A, 3, mechanism="shuffle", epsilon=3.0, delta=1e-5, rng=0)
    perm = res.diagnostics["permutation"]
    assert not np.array_equal(perm, np.arange(300))
    assert misclassification_rate(z, res.labels) == 0.0  # would be ≈ chance if the permutation were not undone


def test_private_clustering_validation():
    A, _ = sbm(50, 2, 0.5, 0.1, rng=0)
    with pytest.raises(ValueError, match=r"^mechanism must be one of \['shuffle', 'analyze_gauss', 'noisy_power'"):
        private_spectral_clustering(A, 2, mechanism="laplace", epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match=r"^epsilon must be a finite number > 0; got -1"):
        private_spectral_clustering(A, 2, mechanism="shuffle", epsilon=-1, delta=1e-5)
    with pytest.raises(ValueError, match=r"^adjacency must be symmetric"):
        private_spectral_clustering(np.triu(np.ones((4, 4)), 1), 2, mechanism="shuffle", epsilon=1.0, delta=1e-5)


def test_paper_shape_shuffle_beats_analyze_gauss_at_eps_1():
    """Spec 'numbers to reproduce': SBM(1000, 3, 0.3, 0.05), δ = 1/n², ε = 1, several seeds."""
    n = 1000
    for seed in range(3):
        A, z = sbm(n, 3, 0.3, 0.05, rng=seed)
        shuf = private_spectral_clustering(A, 3, mechanism="shuffle", epsilon=1.0, delta=n**-2, rng=10 + seed)
        gauss = private_spectral_clustering(A, 3, mechanism="analyze_gauss", epsilon=1.0, delta=n**-2, rng=10 + seed)
        e_s, e_g = misclassification_rate(z, shuf.labels), misclassification_rate(z, gauss.labels)
        assert e_s <= 0.05 and e_g >= 0.4, (seed, e_s, e_g)


@pytest.mark.parametrize("n,k,p,q", [(600, 3, 0.3, 0.05), (1000, 10, 0.5, 0.05)])
def test_estimate_k_recovers_true_k(n, k, p, q):
    for seed in range(2):
        A, _ = sbm(n, k, p, q, rng=seed)
        est = estimate_k(A, epsilon=2.0, delta=n**-2, k_max=15, rng=seed)
        assert est.k == k, (seed, est.eigenvalues)
        assert np.all(np.diff(est.eigenvalues) <= 1e-9) and est.eigenvalues.size == 16
        bulk = estimate_k(A, epsilon=2.0, delta=n**-2, k_max=15, method="bulk", rng=seed)
        assert bulk.k == k
