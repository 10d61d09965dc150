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


def _ml_grader_audit():
    """The ml grader's ``_audit`` (with its ``_pair``), taken from the master notebook's check-yourself cell, so this
    test runs the very audit the hidden test runs."""
    import json
    from pathlib import Path

    from dpexplore.core.gaussian import gaussian_sigma

    nb = json.loads((Path(__file__).resolve().parents[2] / "assignments" / "ml" / "ml.ipynb").read_text())
    cell = [c for c in nb["cells"] if c["cell_type"] == "code" and "def noisy_mean_gradient(" in "".join(c["source"])]
    assert len(cell) == 1
    code = "".join(cell[0]["source"]).split("\n\n\ndef noisy_mean_gradient(")[0]
    ns = {"np": np, "gaussian_sigma": gaussian_sigma, "audit_from_scores": audit_from_scores}
    exec(compile(code, "ml.ipynb", "exec"), ns)
    return ns["_audit"]


def _ml_step(noise, clip="example"):
    """A noisy average gradient: each example clipped to C ("example"), the average clipped to C ("average", the
    bug) or to C/B ("average/B"); noise(sigma, C, B) is the noise sd added to the sum, which is then divided by B
    (for the average clips the sd is divided by B as well)."""
    def step(grads, clip_norm, sigma, batch_size, rng):
        g = np.asarray(grads, dtype=float)
        sd = noise(sigma, clip_norm, batch_size)
        if clip == "example":
            s = np.minimum(1.0, clip_norm / np.maximum(np.linalg.norm(g, axis=1), 1e-300))
            return ((g * s[:, None]).sum(axis=0) + rng.normal(0.0, sd, g.shape[1])) / batch_size
        m = g.sum(axis=0) / batch_size
        c = clip_norm if clip == "average" else clip_norm / batch_size
        m = m * min(1.0, c / max(np.linalg.norm(m), 1e-300))
        return m + rng.normal(0.0, sd / batch_size, m.shape)
    return step


def _ml_library(grads, clip_norm, sigma, batch_size, rng):
    from dpexplore.ml.mechanisms import noisy_clipped_sum
    total, _ = noisy_clipped_sum(np.asarray(grads, dtype=float), clip_norm=clip_norm, noise_multiplier=sigma, rng=rng)
    return total / batch_size


ML = {  # name: (function, a violation expected, the range of eps_hat quoted in assignments/README.md)
    "fixed: each example clipped, noise sigma*C on the sum": (_ml_step(lambda s, c, b: s * c), False, (0.0, 0.35)),
    "fixed: dpexplore.ml.mechanisms.noisy_clipped_sum / B": (_ml_library, False, (0.0, 0.35)),
    "bug: the average clipped to C, noise sigma*C/B on it": (_ml_step(lambda s, c, b: s * c, "average"), True,
                                                             (4.3, np.inf)),
    "half fix: each example clipped, noise sigma*C/B on the sum": (_ml_step(lambda s, c, b: s * c / b), True,
                                                                   (4.3, np.inf)),
    "half fix: noise sigma, not sigma*C (C = 4)": (_ml_step(lambda s, c, b: s), True, (1.4, np.inf)),
    # true sensitivity 2C/B, twice the claim's: a factor-2 leak of a Gaussian this audit cannot see (README)
    "small leak: the average clipped to C/B": (_ml_step(lambda s, c, b: s * c, "average/B"), False, (0.0, 0.35)),
}


@pytest.mark.parametrize("name", ML)
def test_ml_q3_audit_separates_fixes_from_leaks(name):
    f, leaks, (low, high) = ML[name]
    audit = _ml_grader_audit()
    eps_hat = []
    for seed in SEEDS:  # the grader's _audit (assignments/ml/ml.ipynb, q3), its seed 45 among others
        _, res = audit(f, seed=45 if seed == 0 else seed)
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
