import itertools
import math

import numpy as np
import pytest

from dpexplore.core import exact_privacy_check, permute_and_flip, permute_and_flip_probabilities


def brute_force_law(scores, eps, sens=1.0):
    """Enumerate all K! visiting orders of McKenna & Sheldon's Algorithm 1."""
    s = np.asarray(scores, dtype=float)
    p = np.exp(eps * (s - s.max()) / (2 * sens))
    law = np.zeros(len(s))
    perms = list(itertools.permutations(range(len(s))))
    for order in perms:
        reject = 1.0
        for r in order:
            law[r] += reject * p[r] / len(perms)
            reject *= 1 - p[r]
    return law


@pytest.mark.parametrize("scores", [[0.0, -1.0, -2.0, -3.0], [1.0, 1.0, 0.0], [5.0, -2.0, 4.5, 0.0, 1.0, 3.0]])
@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_exact_law_equals_brute_force(scores, eps):
    assert np.allclose(permute_and_flip_probabilities(scores, eps), brute_force_law(scores, eps), atol=1e-12)


def test_sampled_frequencies_match_exact_law():
    scores, eps, runs = [0.0, -1.0, -2.0, -4.0, 0.5], 1.0, 60_000
    law = permute_and_flip_probabilities(scores, eps)
    rng = np.random.default_rng(42)
    counts = np.bincount([permute_and_flip(scores, eps, rng=rng).index for _ in range(runs)], minlength=5)
    tol = 5 * np.sqrt(law * (1 - law) / runs)
    assert np.all(np.abs(counts / runs - law) <= tol)


def test_exponential_noise_identity():
    # Ding et al. (2021): permute-and-flip = argmax(q + Exponential(2Δ/ε)) in law.
    scores, eps, runs = np.array([0.0, -1.0, -3.0, 1.0]), 2.0, 200_000
    rng = np.random.default_rng(1)
    noisy = scores + rng.exponential(scale=2 / eps, size=(runs, scores.size))
    freq = np.bincount(noisy.argmax(axis=1), minlength=scores.size) / runs
    law = permute_and_flip_probabilities(scores, eps)
    assert np.all(np.abs(freq - law) <= 5 * np.sqrt(law * (1 - law) / runs))


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_exact_dp_on_neighbouring_scores(eps):
    base = np.array([0.0, -1.0, -2.5, 0.5, -0.3])
    rng = np.random.default_rng(0)
    for _ in range(50):
        shift = rng.uniform(-1, 1, size=base.size)  # sensitivity 1: every score moves by ≤ 1
        p = permute_and_flip_probabilities(base, eps)
        q = permute_and_flip_probabilities(base + shift, eps)
        assert exact_privacy_check(p, q, eps, tol=1e-12).ok


def test_large_epsilon_gives_argmax_and_excluded_candidates():
    assert permute_and_flip([0.0, 2.0, 1.0], 1e6, rng=0).index == 1
    law = permute_and_flip_probabilities([0.0, -np.inf, 0.0], 1.0)
    assert law[1] == 0.0 and law[0] == pytest.approx(0.5)


def test_batch_law_and_large_k():
    rng = np.random.default_rng(3)
    batch = rng.normal(size=(4, 300))
    laws = permute_and_flip_probabilities(batch, 1.0)
    assert laws.shape == (4, 300) and np.allclose(laws.sum(axis=1), 1.0)
    assert np.allclose(laws[2], permute_and_flip_probabilities(batch[2], 1.0))
    # PF never does worse than the exponential mechanism's expected score (McKenna & Sheldon, Thm 2)
    em = np.exp(batch[0] / 2) / np.exp(batch[0] / 2).sum()
    assert laws[0] @ batch[0] >= em @ batch[0] - 1e-12


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^scores must be finite \(or -inf to exclude a candidate\)"):
        permute_and_flip([0.0, math.nan], 1.0)
    with pytest.raises(ValueError, match=r"^scores must be a non-empty 1-d array"):
        permute_and_flip([], 1.0)
    with pytest.raises(ValueError, match=r"at least one finite entry per row"):
        permute_and_flip_probabilities([-np.inf, -np.inf], 1.0)
    with pytest.raises(ValueError, match=r"^sensitivity must be a finite number > 0; got -1$"):
        permute_and_flip([0.0], 1.0, sensitivity=-1)
