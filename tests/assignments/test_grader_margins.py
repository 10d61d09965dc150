"""The find-the-bug graders' margins, recomputed without otter at ten seeds: the audit the hidden test runs never
refutes a correct fix and always refutes the bug and a half fix (assignments/README.md quotes these ranges)."""

import math

import numpy as np
import pytest

from dpexplore.core import as_generator, flip_probability
from dpexplore.core.audit import audit_from_scores, audit_mechanism

pytestmark = pytest.mark.slow
SEEDS = range(10)


def _rr(p_random):
    def release(bit, epsilon, rng):
        rng = as_generator(rng)
        if rng.random() < p_random(epsilon):
            return int(rng.random() < 0.5)
        return int(bit)
    return release


def _rr_flip(bit, epsilon, rng):
    return 1 - int(bit) if rng.random() < flip_probability(epsilon) else int(bit)


RR = {  # name: (function, a violation expected)
    "fixed: random answer with prob 2 mu": (_rr(lambda e: 2 / (1 + math.exp(e))), False),
    "fixed: flip with prob mu": (_rr_flip, False),
    "bug: random answer with prob mu": (_rr(lambda e: 1 / (1 + math.exp(e))), True),
    "half fix: random answer with prob 1.5 mu": (_rr(lambda e: 1.5 / (1 + math.exp(e))), True),
}


@pytest.mark.parametrize("name", RR)
def test_intro_q6_audit_separates_fixes_from_leaks(name):
    f, leaks = RR[name]
    eps_hat = []
    for seed in SEEDS:  # the grader's settings (assignments/intro/intro.ipynb, q6), its seed 45 among others
        res = audit_mechanism(lambda b, g: f(b, 1.0, g), 0, 1, score=float, runs=10_000, confidence=0.999,
                              claimed_epsilon=1.0, rng=45 if seed == 0 else seed)
        eps_hat.append(res.epsilon_lower)
        assert res.violation is leaks, (name, seed, res.epsilon_lower)
    # margins quoted in assignments/README.md: correct fixes <= 0.97, the half fix >= 1.2, the bug >= 1.65
    assert max(eps_hat) <= 0.97 if not leaks else min(eps_hat) >= (1.65 if "bug" in name else 1.2), eps_hat


def _mean(scale_factor, clip=True):
    def release(x, lower, upper, epsilon, rng):
        rng = as_generator(rng)
        x = np.asarray(x, dtype=float)
        if clip:
            x = np.clip(x, lower, upper)
        return float(x.mean() + rng.laplace(0.0, scale_factor * (upper - lower) / (x.size * epsilon)))
    return release


MEAN = {
    "fixed: clipped": (_mean(1.0), False),
    "bug: not clipped": (_mean(1.0, clip=False), True),
    "half fix: clipped, half the noise": (_mean(0.5), True),
}


@pytest.mark.parametrize("name", MEAN)
def test_statistics_q3_audit_separates_fixes_from_leaks(name):
    f, leaks = MEAN[name]
    x0 = np.r_[np.zeros(25), np.full(25, 5.0)]
    x1 = x0.copy()
    x1[0] = 1000.0
    eps_hat = []
    for seed in SEEDS:  # the grader's _audit (assignments/statistics/statistics.ipynb, q3), its seed 45 among others
        g0, g1 = np.random.default_rng(45 if seed == 0 else seed).spawn(2)
        s0 = [f(x0, 0.0, 10.0, 1.0, g0) for _ in range(20_000)]
        s1 = [f(x1, 0.0, 10.0, 1.0, g1) for _ in range(20_000)]
        res = audit_from_scores(s0, s1, confidence=0.999, claimed_epsilon=1.0, threshold="tail")
        eps_hat.append(res.epsilon_lower)
        assert res.violation is leaks, (name, seed, res.epsilon_lower)
    # margins quoted in assignments/README.md: the correct fix <= 0.95, the half fix >= 1.7, the bug >= 7
    assert max(eps_hat) <= 0.95 if not leaks else min(eps_hat) >= (7.0 if "bug" in name else 1.7), eps_hat


def _em(divisor):
    def release(scores, epsilon, sensitivity, rng):
        q = np.asarray(scores, dtype=float)
        w = np.exp(epsilon * (q - q.max()) / (divisor * sensitivity))
        return int(as_generator(rng).choice(q.size, p=w / w.sum()))
    return release


def _gumbel_max(scores, epsilon, sensitivity, rng):
    q = np.asarray(scores, dtype=float)
    return int(np.argmax(q + as_generator(rng).gumbel(0.0, 2 * sensitivity / epsilon, q.size)))


SELECTION = {  # name: (function, a violation expected, the range of eps_hat quoted in assignments/README.md)
    "fixed: weights exp(eps q / 2 Delta)": (_em(2.0), False, (0.0, 0.8)),
    "fixed: report noisy max with Gumbel noise (the same law)": (_gumbel_max, False, (0.0, 0.8)),
    "bug: weights exp(eps q / Delta)": (_em(1.0), True, (1.3, np.inf)),
    # true eps 4/3, but this pair and test see less than 1: the grader's known blind spot, quoted in the README
    "small leak: weights exp(eps q / 1.5 Delta)": (_em(1.5), False, (0.0, 1.0)),
}


@pytest.mark.parametrize("name", SELECTION)
def test_selection_q3_audit_separates_fixes_from_leaks(name):
    from dpexplore.selection.audit import selection_pair
    f, leaks, (low, high) = SELECTION[name]
    q0, q1 = selection_pair(10)
    eps_hat = []
    for seed in SEEDS:  # the grader's _audit (assignments/selection/selection.ipynb, q3), its seed 45 among others
        g0, g1 = np.random.default_rng(45 if seed == 0 else seed).spawn(2)
        s0 = np.array([f(q0, 1.0, 1.0, g0) == 0 for _ in range(20_000)], dtype=float)
        s1 = np.array([f(q1, 1.0, 1.0, g1) == 0 for _ in range(20_000)], dtype=float)
        res = audit_from_scores(s0, s1, confidence=0.999, claimed_epsilon=1.0)
        eps_hat.append(res.epsilon_lower)
        assert res.violation is leaks, (name, seed, res.epsilon_lower)
    assert low <= min(eps_hat) and max(eps_hat) <= high, eps_hat


def _counts(scale):  # the m Laplace subset counts with noise scale(m)/eps
    def release(secret, queries, epsilon, rng):
        a = np.asarray(queries, dtype=float)
        m = a.shape[0]
        return a @ np.asarray(secret, dtype=float) + as_generator(rng).laplace(0.0, scale(m) / epsilon, m)
    return release


ATTACKS = {  # name: (function, a violation expected, the range of eps_hat quoted in assignments/README.md)
    "fixed: scale m/eps": (_counts(lambda m: m), False, (0.0, 0.9)),
    "bug: scale 1/eps per count (true eps = 4 on the pair)": (_counts(lambda m: 1.0), True, (2.9, np.inf)),
    "half fix: scale sqrt(m)/eps (true eps = 2 on the pair)": (_counts(math.sqrt), True, (1.45, np.inf)),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_attacks_q4_audit_separates_fixes_from_leaks(name):
    f, leaks, (low, high) = ATTACKS[name]
    a = np.array([[1, 1, 0, 1, 0, 0, 1, 0, 1, 0], [1, 0, 1, 1, 0, 1, 0, 0, 0, 1],
                  [1, 0, 0, 0, 1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 0, 0, 1, 1, 1]])
    x0 = np.array([0, 1, 0, 1, 1, 0, 0, 1, 1, 0])
    x1 = x0.copy()
    x1[0] = 1
    a0, a1 = a @ x0, a @ x1
    eps_hat = []
    for seed in SEEDS:  # the grader's _audit (assignments/attacks/attacks.ipynb, q4), its seed 45 among others
        g0, g1 = np.random.default_rng(45 if seed == 0 else seed).spawn(2)
        y0 = np.array([f(x0, a, 1.0, g0) for _ in range(20_000)])
        y1 = np.array([f(x1, a, 1.0, g1) for _ in range(20_000)])
        s0 = np.sum(np.abs(y0 - a0) - np.abs(y0 - a1), axis=1)
        s1 = np.sum(np.abs(y1 - a0) - np.abs(y1 - a1), axis=1)
        res = audit_from_scores(s0, s1, confidence=0.999, claimed_epsilon=1.0, threshold="tail")
        eps_hat.append(res.epsilon_lower)
        assert res.violation is leaks, (name, seed, res.epsilon_lower)
    print(name, np.round(eps_hat, 2))
    assert low <= min(eps_hat) and max(eps_hat) <= high, eps_hat
