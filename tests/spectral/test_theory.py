"""Theory: SBM quantities, Davis–Kahan / Procrustes / margin bounds, noise norms and rates."""

import math

import numpy as np
import pytest

from dpexplore.spectral import (
    analyze_gauss,
    davis_kahan_bound,
    expected_noise_norm,
    margin_quantities,
    misclassification_bound,
    procrustes_error,
    rate,
    sbm,
    sbm_quantities,
    sin_theta_distance,
)
from dpexplore.spectral.data import block_sizes


def _expected_adjacency(n, k, p, q):
    z = np.repeat(np.arange(k), block_sizes(n, k))
    ea = np.where(z[:, None] == z[None, :], p, q)
    np.fill_diagonal(ea, 0.0)
    return ea, z


@pytest.mark.parametrize("n,k", [(60, 3), (61, 4)])
def test_sbm_quantities_match_dense_eigendecomposition(n, k):
    p, q = 0.4, 0.1
    ea, z = _expected_adjacency(n, k, p, q)
    vals, vecs = np.linalg.eigh(ea)
    vals, vecs = vals[::-1], vecs[:, ::-1]
    s = sbm_quantities(n, k, p, q)
    assert np.allclose(s.eigenvalues, vals[: k + 1], atol=1e-10)
    assert s.eigengap == pytest.approx(vals[k - 1] - vals[k])
    d_star, r_star = margin_quantities(vecs[:, :k], z)
    assert d_star == pytest.approx(s.delta_star) and r_star < 1e-10
    assert s.max_row_norm == pytest.approx(np.sqrt((vecs[:, :k] ** 2).sum(1)).max())


def test_davis_kahan_and_procrustes_hold_on_a_draw():
    n, k, p, q = 200, 3, 0.35, 0.05
    ea, z = _expected_adjacency(n, k, p, q)
    _, u = np.linalg.eigh(ea)
    u = u[:, ::-1][:, :k]
    A, _ = sbm(n, k, p, q, rng=0)
    s = sbm_quantities(n, k, p, q)
    for eps in (1.0, 4.0, 30.0):
        m = analyze_gauss(A, epsilon=eps, delta=1e-5, rng=1).matrix
        e = m - ea
        e_op, e_f = np.linalg.norm(e, 2), np.linalg.norm(e)
        _, uh = np.linalg.eigh(m)
        uh = uh[:, ::-1][:, :k]
        dk = davis_kahan_bound(e_op, eigengap=s.eigengap, k=k, noise_fro=e_f)
        st = sin_theta_distance(uh, u)
        assert st <= dk.value + 1e-12
        assert procrustes_error(uh, u) <= math.sqrt(2) * st + 1e-12
        # margin: rows moved by more than Δ*/2 after alignment are at most ‖ÛO − U‖²/(Δ*/2)²
        w, _, vt = np.linalg.svd(uh.T @ u)
        moved = np.sqrt(((uh @ w @ vt - u) ** 2).sum(1))
        bound = misclassification_bound(e_op, n=n, k=k, eigengap=s.eigengap, delta_star=s.delta_star,
                                        noise_fro=e_f)
        assert np.mean(moved >= s.delta_star / 2) <= bound.value + 1e-12


def test_theory_reports_failed_conditions():
    b = davis_kahan_bound(1.0, eigengap=0.0, k=2)
    assert math.isnan(b.value) and not b.valid and "eigengap" in b.reason
    m = misclassification_bound(1.0, n=100, k=2, eigengap=10.0, delta_star=0.1, r_star=0.2)
    assert math.isnan(m.value) and "margin" in m.reason
    v = davis_kahan_bound(100.0, eigengap=1.0, k=4)
    assert v.value == 2.0 and v.reason.startswith("vacuous")
    r = rate("shuffle", n=100, k=3, eigengap=10.0, epsilon=0.5, delta=1e-4)
    assert math.isnan(r.value) and "n too small" in r.reason


def test_expected_noise_norm_close_to_actual():
    n = 400
    A, _ = sbm(n, 2, 0.5, 0.1, rng=0)
    r = analyze_gauss(A, epsilon=1.0, delta=1e-5, rng=0)
    actual = np.linalg.norm(r.matrix - A.toarray(), 2)
    approx = expected_noise_norm(n, r.sigma**2)
    assert abs(actual / approx - 1) < 0.1  # semicircle edge; finite-n fluctuations are O(n^-2/3)


def test_rates_shuffle_decays_one_power_of_n_faster():
    k, p, q, eps, delta = 3, 0.3, 0.05, 1.0, 1e-8

    def slope(mech):
        n1, n2 = 10_000, 20_000
        r1 = rate(mech, n=n1, k=k, eigengap=sbm_quantities(n1, k, p, q).eigengap, epsilon=eps, delta=delta).value
        r2 = rate(mech, n=n2, k=k, eigengap=sbm_quantities(n2, k, p, q).eigengap, epsilon=eps, delta=delta).value
        return math.log(r2 / r1) / math.log(n2 / n1)

    assert slope("analyze_gauss") == pytest.approx(-1.0, abs=0.01)
    assert slope("shuffle") == pytest.approx(-2.0, abs=0.01)
