"""The TopDown mini-lab: invariants preserved exactly, the post-processing's bias has the page's sign and size."""

import numpy as np
import pytest

from dpexplore.deployments import fit_to_total, topdown, toy_geography
from dpexplore.deployments.experiments import PAGE_BIAS, bias_by_block_size, error_by_level
from dpexplore.deployments.theory import clipping_bias_reference, raw_rmse


def test_geography_is_deterministic_and_skewed():
    a, b = toy_geography(), toy_geography()
    assert np.array_equal(a.blocks, b.blocks) and a.blocks.shape == (4, 5, 10)
    assert (a.blocks <= 2).mean() > 0.1 and a.blocks.max() > 100  # many tiny blocks, a few big ones
    assert not np.array_equal(toy_geography(seed=1).blocks, a.blocks)


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("rho", [0.01, 0.1, 1.0])
def test_invariants_and_consistency_hold_exactly(seed, rho):
    g = toy_geography()
    r = topdown(g, rho=rho, block_share=0.3, rng=seed)
    assert r.blocks.dtype.kind == "i" and r.counties.dtype.kind == "i"
    assert (r.blocks >= 0).all() and (r.counties >= 0).all()
    assert np.array_equal(r.counties.sum(axis=1), g.states)       # state totals: invariant
    assert int(r.counties.sum()) == g.nation                      # nation total: invariant
    assert np.array_equal(r.blocks.sum(axis=2), r.counties)        # blocks add up to their county
    assert r.rho == pytest.approx(rho) and r.rho_block == pytest.approx(0.3 * rho)


def test_fit_to_total_properties():
    gen = np.random.default_rng(0)
    for _ in range(300):
        n = int(gen.integers(1, 30))
        y = gen.normal(0, 10, n) + gen.integers(-5, 50, n)
        t = int(gen.integers(0, 400))
        x = fit_to_total(y, t)
        assert x.sum() == t and (x >= 0).all() and x.dtype.kind == "i"
    v = np.array([3, 0, 7, 1])
    assert np.array_equal(fit_to_total(v, 11), v)  # already feasible: unchanged
    with pytest.raises(ValueError, match="total must be an integer >= 0"):
        fit_to_total([1.0], -1)
    with pytest.raises(ValueError, match="finite"):
        fit_to_total([np.nan], 1)


def test_bad_parameters_name_the_range():
    g = toy_geography()
    with pytest.raises(ValueError, match="block_share must be a finite number >= 0.05 and <= 0.95"):
        topdown(g, rho=1.0, block_share=1.0)
    with pytest.raises(ValueError, match="rho must be"):
        topdown(g, rho=0.0)
    with pytest.raises(TypeError, match="geography must be a Geography"):
        topdown(g.blocks, rho=1.0)
    with pytest.raises(ValueError, match="n_states\\*n_counties\\*n_blocks"):
        toy_geography(64, 64, 64)


def test_bias_sign_and_size_over_ten_seeds():
    """The page's sentence (experiments.PAGE_BIAS, drawn by ui.deployments): each range, rounded to 0.1,
    holds at seeds 0–9."""
    pb = PAGE_BIAS
    zero, small, big = [], [], []
    for seed in range(10):
        r = bias_by_block_size(rho=pb["rho"], block_share=pb["block_share"], trials=pb["trials"], rng=seed)
        m = np.nanmean(r.values, axis=2)
        zero.append(m[0, 0])
        small.append(m[0, 1])
        big.append(np.nanmean(m[0, 4:]))
        # the raw measurement is unbiased: every bin within 5 standard errors of 0
        raw = r.values[1]
        se = np.nanstd(raw, axis=1, ddof=1) / np.sqrt(raw.shape[1])
        assert (np.abs(np.nanmean(raw, axis=1)) <= 5 * se + 1e-12).all()
    for values, key in ((zero, "empty"), (small, "one_or_two"), (big, "eleven_plus")):
        lo, hi = pb[key]
        assert lo <= round(min(values), 1) and round(max(values), 1) <= hi, (key, values)
    assert min(zero) > 0 and min(small) > 0 and max(big) < 0  # the sign: small up, large down
    # the clipping-alone reference (ρ_block = 0.05) is above what the fit to the county total leaves
    assert max(zero) < clipping_bias_reference(0.05)


def test_error_by_level_invariants_zero_and_raw_matches_theory():
    r = error_by_level(rho=0.1, trials=60, rng=0)
    m = r.values.mean(axis=2)
    assert m[0, 0] == 0 and m[0, 1] == 0  # the released nation and states are exact
    # raw county / block RMSE: exact √Var N_Z at ρ_level = 0.05; mean of 60 trials within 10 %
    assert m[1, 2] == pytest.approx(raw_rmse(0.05), rel=0.1)
    assert m[1, 3] == pytest.approx(raw_rmse(0.05), rel=0.05)
