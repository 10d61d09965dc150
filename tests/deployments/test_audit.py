"""The TopDown audit: the honest measurements never exceed their claim, the broken 'block invariant' is refuted."""

import math

import pytest

from dpexplore.core.discrete_gaussian import zcdp_epsilon
from dpexplore.deployments.audit import audit_topdown, exact_pair_epsilon


@pytest.mark.parametrize("rho", [0.05, 0.1, 0.5, 2.0])
@pytest.mark.parametrize("share", [0.1, 0.5, 0.9])
def test_exact_pair_epsilon_is_at_most_the_claim(rho, share):
    """The pair's law is exactly ρ-zCDP (two discrete Gaussians, ρ_county + ρ_block = ρ): its exact ε at δ is at
    most the tight conversion's, and not far below it (the conversion is close to tight for Gaussians)."""
    exact = exact_pair_epsilon(rho, share, 1e-10)
    claim = zcdp_epsilon(rho, 1e-10)
    assert exact <= claim and exact >= 0.9 * claim


@pytest.mark.parametrize("seed", range(3))
def test_honest_audit_is_not_refuted_and_broken_is(seed):
    ok = audit_topdown(rho=0.5, runs=20_000, rng=seed)
    assert not ok.violation and ok.epsilon_lower <= ok.claimed_epsilon
    bad = audit_topdown(rho=0.5, broken=True, runs=20_000, rng=seed)
    assert bad.violation and math.isinf(bad.exact_epsilon)
    assert bad.epsilon_lower > bad.claimed_epsilon  # refuted by the measurement too, not only by the exact ε


def test_bad_inputs():
    with pytest.raises(ValueError, match="runs must be an integer >= 20"):
        audit_topdown(rho=0.5, runs=5)
    with pytest.raises(ValueError, match="block_share"):
        exact_pair_epsilon(0.5, 0.99)
