"""−log P distances: Proposition 1 by brute force, metric properties, most likely paths."""

import itertools

import numpy as np
import pytest

from dpexplore.markov import (
    brute_force_most_likely,
    city_grid,
    credit_migration,
    distances,
    most_likely_path,
    path_probability,
    shortest_path_lengths,
)


def _random_chain(n, density, seed):
    gen = np.random.default_rng(seed)
    P = gen.random((n, n)) * (gen.random((n, n)) < density)
    P[np.arange(n), (np.arange(n) + 1) % n] += 0.1  # a ring keeps it irreducible
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(6))
def test_proposition_1_shortest_path_is_most_likely_path(seed):
    P = _random_chain(6, 0.4, seed)
    G = shortest_path_lengths(P)
    for i, j in itertools.permutations(range(6), 2):
        best = brute_force_most_likely(P, i, j)  # enumerates every simple path
        assert np.exp(-G[i, j]) == pytest.approx(best, rel=1e-12)
        path, prob = most_likely_path(P, i, j)
        assert path[0] == i and path[-1] == j and path_probability(P, path) == pytest.approx(best, rel=1e-12)


def test_symmetric_distance_is_a_metric():
    for chain in (credit_migration(), city_grid(3), _random_chain(8, 0.3, 9)):
        for mode in ("sum", "max"):
            d = distances(chain, symmetrize=mode)
            assert np.all(np.diag(d) == 0) and np.allclose(d, d.T) and np.all(d[~np.eye(len(d), dtype=bool)] > 0)
            # triangle inequality d(i, k) <= d(i, j) + d(j, k) for all triples
            assert np.all(d[:, None, :] <= d[:, :, None] + d[None, :, :] + 1e-9)


def test_distance_values_and_zero_weight_edges():
    P = np.array([[0.0, 1.0], [0.25, 0.75]])  # a probability-1 edge has weight 0 and must be kept
    d = distances(P)
    assert d[0, 1] == pytest.approx(-np.log(0.25))
    assert distances(P, symmetrize="max")[0, 1] == pytest.approx(-np.log(0.25))
    with pytest.raises(ValueError, match=r"symmetrize must be one of \['sum', 'max'\]; got 'min'"):
        distances(P, symmetrize="min")
