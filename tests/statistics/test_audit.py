"""The statistics audits: exact ε on worst-case pairs, ε̂ never above the truth, broken variants refuted."""

import math

import numpy as np
import pytest

from dpexplore.statistics.audit import audit_statistic, quantile_exact_epsilon
from dpexplore.statistics.mechanisms import quantile_law

SEEDS = range(10)


@pytest.mark.parametrize("stat,broken", [("mean", "data_bounds"), ("histogram", "data_bins")])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_broken_variants_refuted_at_seeds_0_to_9(stat, broken, eps):
    for seed in SEEDS:
        a = audit_statistic(stat, epsilon=eps, broken=broken, runs=20_000, rng=seed)
        assert a.broken and math.isinf(a.exact_epsilon)
        assert a.violation and a.epsilon_lower > eps, (seed, a.epsilon_lower)


@pytest.mark.parametrize("stat,noise", [("count", "laplace"), ("count", "geometric"), ("count", "gaussian"),
                                        ("histogram", "laplace"), ("mean", "laplace"), ("mean", "gaussian"),
                                        ("quantile", "laplace")])
def test_correct_mechanisms_not_refuted(stat, noise):
    for seed in range(3):
        a = audit_statistic(stat, epsilon=1.0, noise=noise, runs=20_000, rng=seed)
        assert not a.violation and a.exact_epsilon <= 1.0 + 1e-9
        assert a.epsilon_lower <= a.exact_epsilon + 1e-9  # ε̂ is a lower bound on the pair's true ε


def test_additive_exact_epsilon_is_the_claim():
    for noise in ("laplace", "geometric"):
        assert audit_statistic("count", epsilon=0.7, noise=noise, rows_per_person=3, runs=200, rng=0
                               ).exact_epsilon == pytest.approx(0.7)
    assert audit_statistic("mean", epsilon=0.7, noise="gaussian", delta=1e-5, runs=200, rng=0
                           ).exact_epsilon == pytest.approx(0.7, rel=1e-6)


def test_laplace_audit_is_tight():
    """The output is the optimal score for a Laplace shift: ε̂ comes close to the exact ε."""
    a = audit_statistic("count", epsilon=1.0, runs=40_000, rng=0)
    assert 0.8 < a.epsilon_lower <= 1.0


@pytest.mark.parametrize("eps,q,c", [(0.5, 0.5, 1), (1.0, 0.1, 1), (2.0, 0.9, 2), (4.0, 0.5, 1)])
def test_quantile_exact_epsilon_never_above_claim(eps, q, c):
    e, at = quantile_exact_epsilon(q, epsilon=eps, n=30, rows_per_person=c)
    assert 0 < e <= eps + 1e-9


def test_quantile_exact_epsilon_by_brute_force():
    """The piecewise-constant ratio's maximum equals a dense evaluation of both densities."""
    x = np.array([0.1, 0.4, 0.45, 0.8])
    za, pa = quantile_law(x, 0.5, lower=0, upper=1, epsilon=1.0)
    zb, pb = quantile_law(np.append(x, 0.6), 0.5, lower=0, upper=1, epsilon=1.0)
    y = np.linspace(0.0005, 0.9995, 20_000)

    def dens(z, p, y):
        i = np.clip(np.searchsorted(z, y, side="right") - 1, 0, p.size - 1)
        return p[i] / (z[i + 1] - z[i])

    from dpexplore.statistics.audit import _pair_epsilon

    brute = np.max(np.abs(np.log(dens(za, pa, y)) - np.log(dens(zb, pb, y))))
    assert _pair_epsilon(za, pa, zb, pb) == pytest.approx(brute, rel=1e-9)


def test_audit_bad_inputs():
    with pytest.raises(ValueError, match="broken must be None or 'data_bins'"):
        audit_statistic("histogram", epsilon=1.0, broken="data_bounds")
    with pytest.raises(ValueError, match="broken must be None for statistic='count'"):
        audit_statistic("count", epsilon=1.0, broken="data_bins")
    with pytest.raises(ValueError, match="statistic must be one of"):
        audit_statistic("median", epsilon=1.0)
