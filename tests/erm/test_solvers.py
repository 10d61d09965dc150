"""Solvers: deterministic Davis–Yin vs scipy, StoTOS convergence where it holds, batching, validation."""

import numpy as np
import pytest

from dpexplore.erm import (
    davis_yin,
    interpolation_data,
    perturbed_objective,
    reference_solve,
    smoothness_constant,
    stochastic_tos,
)


def small_problem(seed, n=25, d=6):
    X, y, t = interpolation_data(n, d, xi=2.0, rng=seed)
    rng = np.random.default_rng(seed + 100)
    G = rng.standard_normal((d, 2 * d))
    return X, y, t, 0.3 * G @ G.T, 3.0 * rng.standard_normal(d)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("clip", [None, 2.0])
def test_davis_yin_matches_scipy(seed, clip):
    X, y, _, A, c = small_problem(seed)
    kw = dict(lam=0.7, radius=0.8, quad=A, lin=c, clip=clip)
    ref = reference_solve(X, y, **kw)
    dy = davis_yin(X, y, **kw, tol=1e-12)
    f = lambda th: perturbed_objective(X, y, th, lam=0.7, quad=A, lin=c, clip=clip)  # noqa: E731
    assert f(dy.theta) <= f(ref.theta) + 1e-9 * (1 + abs(f(ref.theta)))
    assert np.max(np.abs(dy.theta - ref.theta)) < 1e-5
    assert np.all(np.abs(dy.theta) <= 0.8 + 1e-12)


def test_davis_yin_nonprivate_lasso_and_box_kkt():
    X, y, _, _, _ = small_problem(3)
    th = davis_yin(X, y, lam=0.5, radius=0.4, tol=1e-13).theta
    g = X.T @ (X @ th - y)
    inside = np.abs(th) < 0.4 - 1e-8
    nz = inside & (np.abs(th) > 1e-8)
    # KKT: interior non-zero coordinates have gradient −λ sign(θ); interior zeros |g| ≤ λ
    assert np.allclose(g[nz], -0.5 * np.sign(th[nz]), atol=1e-6)
    assert np.all(np.abs(g[inside & ~nz]) <= 0.5 + 1e-6)


def test_stochastic_converges_on_interpolating_problem():
    # λ = 0, inactive box: every per-example gradient vanishes at θ_true, so StoTOS converges to it
    X, y, t = interpolation_data(40, 8, xi=2.0, rng=4)
    step = 1 / (40 * smoothness_constant(X))
    errs = [np.max(np.abs(stochastic_tos(X, y, lam=0.0, radius=100.0, step=step, iterations=K, rng=0).theta - t))
            for K in (100, 1000, 10000)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-2


def test_stochastic_noise_floor_shrinks_without_active_constraints():
    # with a perturbation the per-example gradients do not vanish at the optimum: StoTOS has a noise
    # floor that shrinks with K (relaxation λ_k → 0) when the box is inactive
    X, y, _, _, c = small_problem(5)
    A = 20 * np.eye(6)
    ref = reference_solve(X, y, lam=0.0, radius=100.0, quad=A, lin=c).theta
    step = 1 / (25 * smoothness_constant(X) + 20)
    kw = dict(lam=0.0, radius=np.full(6, 100.0), step=step, quad=A, lin=c)  # 6 independent runs, batched

    def err(K):
        return np.mean(np.max(np.abs(stochastic_tos(X, y, iterations=K, rng=K, **kw).theta - ref), axis=1))

    e1, e2 = err(300), err(20000)
    assert e2 < 0.6 * e1


def test_batched_equals_individual_deterministic():
    X, y, _, A, c = small_problem(6)
    radii = np.array([0.1, 0.5, 3.0])
    B = davis_yin(X, y, lam=0.3, radius=radii, quad=np.stack([A] * 3), lin=np.stack([c, -c, 2 * c]), tol=1e-12)
    for k, (r, cc) in enumerate(zip(radii, (c, -c, 2 * c))):
        one = davis_yin(X, y, lam=0.3, radius=r, quad=A, lin=cc, tol=1e-12)
        assert np.allclose(B.theta[k], one.theta, atol=1e-8)


def test_stochastic_batch_shape_and_reproducible():
    X, y, _, A, c = small_problem(7)
    r1 = stochastic_tos(X, y, lam=0.1, radius=[1.0, 2.0], step=1e-3, quad=1.0, lin=c, iterations=50, rng=3)
    r2 = stochastic_tos(X, y, lam=0.1, radius=[1.0, 2.0], step=1e-3, quad=1.0, lin=c, iterations=50, rng=3)
    assert r1.theta.shape == (2, 6) and np.array_equal(r1.theta, r2.theta)


def test_batch_validation():
    X, y, _, A, c = small_problem(8)
    with pytest.raises(ValueError, match=r"disagree on the number of runs: \[2, 3\]"):
        davis_yin(X, y, lam=0.1, radius=[1.0, 2.0], lin=np.zeros((3, 6)))
    with pytest.raises(ValueError, match=r"radius must be > 0"):
        davis_yin(X, y, lam=0.1, radius=-1.0)
    with pytest.raises(ValueError, match=r"quad must be a number"):
        davis_yin(X, y, lam=0.1, radius=1.0, quad=np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"y must have one entry per row of X"):
        davis_yin(X, y[:-1], lam=0.1, radius=1.0)
