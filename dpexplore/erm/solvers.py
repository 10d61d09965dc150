"""Solvers for ``min_{θ ∈ C} Σ_i ℓ_i(θ) + ½θᵀAθ + cᵀθ + λ‖θ‖₁`` with C = {‖θ‖_∞ ≤ κ}.

This covers every problem of paper 5: the non-private LASSO (A = 0, c = 0), QOP
(A = σ²W, c = −σ²Wθ̃) and LOP (A = ΔI, c = b), with per-example least-squares losses, optionally
with gradients clipped to norm ζ (clipped LOP: residuals clipped to ±ζ/‖x_i‖, i.e. the Huber loss,
whose gradient is the clipped one).

* :func:`stochastic_tos` — stochastic three-operator splitting (Davis–Yin type) with the
  reference code's steps and schedule (StoTOS) [reference code].
* :func:`davis_yin` — the deterministic (full-gradient) Davis–Yin splitting.
* :func:`reference_solve` — scipy's L-BFGS-B on the split θ = u − v (u, v ∈ [0, κ]), used to
  check the other two on small problems.

The two splitting solvers run a *batch* of B independent problems at once (same data, different
perturbations / radii / clip norms): one Python loop over iterations, numpy over the batch. This is
what makes a dashboard's κ sweep × trials × mechanisms one vectorised call.

Batch convention: ``radius``, ``step``, ``clip`` are scalars or arrays of shape (B,); ``quad`` is
None, a scalar, (B,) (multiples of the identity), (d, d) or (B, d, d); ``lin`` is None, (d,) or
(B, d). If nothing has a batch axis the result is for one problem (θ of shape (d,)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dpexplore.core import RNGLike, as_generator
from dpexplore.core.validation import check_cells, check_int, check_positive, check_real

from .problems import check_problem

__all__ = ["SolverResult", "stochastic_tos", "davis_yin", "reference_solve", "perturbed_objective",
           "prox_gradient_certificate", "RELAXATION_EXPONENT", "MAX_ITERATIONS", "MAX_INDEX_CELLS"]

#: Largest ``iterations`` (:func:`stochastic_tos`) and ``max_iter`` (:func:`davis_yin`, the mechanisms).
MAX_ITERATIONS = 1_000_000
#: Largest iterations·B of :func:`stochastic_tos` (its (K, B) table of sampled example indices).
MAX_INDEX_CELLS = 50_000_000

#: StoTOS relaxation λ_k = (k + 1)^(−(1/2 + 0.002)) [reference code]
RELAXATION_EXPONENT = 0.5 + 0.002


@dataclass(frozen=True)
class SolverResult:
    """Output of a solver.

    Attributes
    ----------
    theta : ndarray, shape (d,) or (B, d)
    iterations : int
    residual : ndarray or float
        Fixed-point residual ‖z − θ‖ at the last iteration (deterministic solver) or NaN.
    """

    theta: np.ndarray
    iterations: int
    residual: np.ndarray | float


def _as_float_array(value, name: str) -> np.ndarray:
    """``np.asarray(value, float)`` with an error that names the parameter (strings, dicts, None, complex)."""
    if isinstance(value, (str, bytes, dict)) or value is None or np.iscomplexobj(value):
        raise TypeError(f"{name} must be a number or an array of numbers; got {value!r}")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers; got {value!r}") from exc


def _batch(X, *, radius, step, quad, lin, clip):
    d = X.shape[1]
    sizes = set()
    r = _as_float_array(radius, "radius")
    st = None if step is None else _as_float_array(step, "step")
    cl = _as_float_array(np.inf if clip is None else clip, "clip")
    q = None if quad is None else _as_float_array(quad, "quad")
    c = None if lin is None else _as_float_array(lin, "lin")
    for arr, nm in ((r, "radius"), (st, "step"), (cl, "clip")):
        if arr is None:
            continue
        if arr.ndim > 1:
            raise ValueError(f"{nm} must be a number or a 1-d array (one per run); got shape {arr.shape}")
        if arr.ndim == 1:
            sizes.add(arr.shape[0])
        if np.any(np.isnan(arr)) or np.any(arr <= 0):
            raise ValueError(f"{nm} must be > 0; got {arr!r}")
        if nm == "step" and not np.all(np.isfinite(arr)):  # radius/clip = inf mean "no box"/"no clipping"
            raise ValueError(f"step must be finite and > 0; got {arr!r}")
    qkind = "none"
    if q is not None:
        if q.ndim in (0, 1):
            qkind = "scalar"
            if q.ndim == 1:
                sizes.add(q.shape[0])
        elif q.ndim == 2 and q.shape == (d, d):
            qkind = "matrix"
        elif q.ndim == 3 and q.shape[1:] == (d, d):
            qkind = "matrix"
            sizes.add(q.shape[0])
        else:
            raise ValueError(f"quad must be a number, (B,), ({d}, {d}) or (B, {d}, {d}); got shape {q.shape}")
        if not np.all(np.isfinite(q)):
            raise ValueError("quad must contain only finite numbers")
    if c is not None:
        if c.shape[-1] != d or c.ndim not in (1, 2):
            raise ValueError(f"lin must have shape ({d},) or (B, {d}); got shape {c.shape}")
        if c.ndim == 2:
            sizes.add(c.shape[0])
        if not np.all(np.isfinite(c)):
            raise ValueError("lin must contain only finite numbers")
    if len(sizes) > 1:
        raise ValueError(f"batched arguments disagree on the number of runs: {sorted(sizes)}")
    batched = bool(sizes)
    B = sizes.pop() if sizes else 1
    r = np.broadcast_to(r, (B,)).copy()
    st = None if st is None else np.broadcast_to(st, (B,)).copy()
    cl = np.broadcast_to(cl, (B,)).copy()
    if qkind == "scalar":
        q = np.broadcast_to(q, (B,)).copy()
    elif qkind == "matrix":
        q = np.broadcast_to(q, (B, d, d))
    c = np.zeros((B, d)) if c is None else np.broadcast_to(c, (B, d))
    return B, batched, r, st, cl, qkind, q, c


def _pert_grad(theta, qkind, q, c):
    if qkind == "scalar":
        return q[:, None] * theta + c
    if qkind == "matrix":
        return (q @ theta[:, :, None])[:, :, 0] + c
    return c


def _quad_lmax(qkind, q, B):
    if qkind == "scalar":
        return np.abs(q)
    if qkind == "matrix":
        return np.linalg.eigvalsh(0.5 * (q + np.swapaxes(q, 1, 2)))[:, -1]
    return np.zeros(B)


def _soft(x, t):
    return np.sign(x) * np.maximum(np.abs(x) - t, 0.0)


def stochastic_tos(
    X, y, *, lam: float, radius, step, iterations: int = 1000, quad=None, lin=None, clip=None,
    rng: RNGLike = None,
) -> SolverResult:
    """Stochastic three-operator splitting (Davis–Yin type), as in the reference code [reference code].

    From x = 0, for k = 0..K−1: θ = prox_{ωg}(x) (soft-threshold, g = λ‖·‖₁); draw i uniformly;
    v = n∇f_i(θ) where ∇f_i carries 1/n of the perturbation's gradient (so v = n∇ℓ_i(θ) + Aθ + c);
    z = Π_C(2θ − x − ωv); x ← x + λ_k(z − θ) with λ_k = (k+1)^(−(1/2 + 0.002)). Returns the last θ.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    y : ndarray, shape (n,)
    lam : float
        ℓ1 weight λ ≥ 0.
    radius : float or ndarray (B,)
        Box radius κ.
    step : float or ndarray (B,)
        Step ω (the spec: 1/(nL + σ²λ_max(W)) for QOP, 1/(nL + Δ) for LOP).
    iterations : int
        K, in [1, ``MAX_ITERATIONS`` = 10⁶]; K·B ≤ ``MAX_INDEX_CELLS`` = 5·10⁷.
    quad, lin : see the module docstring
        Perturbation ½θᵀAθ + cᵀθ.
    clip : float or ndarray (B,), optional
        Clip every per-example gradient to norm ζ (rescaled to ζ, not to 1).
    rng : Generator, int or None
        Draws the example indices.

    Returns
    -------
    SolverResult

    Examples
    --------
    >>> X = np.eye(2); y = np.array([1.0, -1.0])
    >>> res = stochastic_tos(X, y, lam=0.0, radius=10.0, step=0.5, iterations=3000, rng=0)
    >>> bool(np.allclose(res.theta, [1.0, -1.0], atol=1e-2))
    True
    """
    X, y = check_problem(X, y)
    lam = check_real(lam, "lam", low=0.0)
    K = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    if step is None:
        raise ValueError("step must be given for the stochastic solver (the spec's 1/(nL + ...))")
    B, batched, kappa, omega, zeta, qkind, q, c = _batch(X, radius=radius, step=step, quad=quad, lin=lin, clip=clip)
    check_cells(MAX_INDEX_CELLS, iterations=K, batch=B)  # before the (K, B) index table
    gen = as_generator(rng)
    n, d = X.shape
    row_norm = np.linalg.norm(X, axis=1)
    idx = gen.integers(n, size=(K, B))
    relax = (np.arange(1, K + 1, dtype=float)) ** (-RELAXATION_EXPONENT)
    x = np.zeros((B, d))
    theta = x
    thr = (omega * lam)[:, None]
    om = omega[:, None]
    kap = kappa[:, None]
    clip_on = np.isfinite(zeta).any()
    for k in range(K):
        theta = _soft(x, thr)
        i = idx[k]
        xi = X[i]
        r = np.einsum("bd,bd->b", xi, theta) - y[i]
        if clip_on:  # rescale the gradient r·x_i to norm ζ: clip r to ±ζ/‖x_i‖
            lim = zeta / np.maximum(row_norm[i], 1e-300)
            r = np.clip(r, -lim, lim)
        v = n * r[:, None] * xi + _pert_grad(theta, qkind, q, c)
        z = np.clip(2 * theta - x - om * v, -kap, kap)
        x = x + relax[k] * (z - theta)
    return SolverResult(theta=theta if batched else theta[0], iterations=K, residual=np.nan)


def davis_yin(
    X, y, *, lam: float, radius, quad=None, lin=None, clip=None, step=None, max_iter: int = 20000,
    tol: float = 1e-10,
) -> SolverResult:
    """Deterministic Davis–Yin three-operator splitting (full gradients, relaxation 1).

    Same problem and batch convention as :func:`stochastic_tos`; the step defaults to
    ω = 1/L_f with L_f = ‖X‖₂² + λ_max(A) (the Lipschitz constant of the smooth part's gradient),
    which guarantees convergence (any ω < 2/L_f does). Stops when every run's fixed-point residual
    ‖z − θ‖ ≤ tol·(1 + ‖θ‖) or after ``max_iter`` iterations. Returns z (feasible: in the box).

    Examples
    --------
    >>> X = np.eye(2); y = np.array([3.0, -0.5])
    >>> davis_yin(X, y, lam=1.0, radius=1.0).theta.round(6).tolist()  # soft-threshold, then clip
    [1.0, 0.0]
    """
    X, y = check_problem(X, y)
    lam = check_real(lam, "lam", low=0.0)
    K = check_int(max_iter, "max_iter", low=1, high=MAX_ITERATIONS)
    tol = check_positive(tol, "tol")
    B, batched, kappa, omega, zeta, qkind, q, c = _batch(X, radius=radius, step=step, quad=quad, lin=lin, clip=clip)
    n, d = X.shape
    if omega is None:
        omega = 1.0 / (np.linalg.norm(X, 2) ** 2 + _quad_lmax(qkind, q, B))
    row_norm = np.maximum(np.linalg.norm(X, axis=1), 1e-300)
    clip_on = np.isfinite(zeta).any()
    x = np.zeros((B, d))
    thr, om, kap = (omega * lam)[:, None], omega[:, None], kappa[:, None]
    res = np.full(B, np.inf)
    z = x
    k = 0
    for k in range(1, K + 1):  # noqa: B007 (k is reported after the loop)
        theta = _soft(x, thr)
        r = theta @ X.T - y  # (B, n)
        if clip_on:
            lim = zeta[:, None] / row_norm[None, :]
            r = np.clip(r, -lim, lim)
        v = r @ X + _pert_grad(theta, qkind, q, c)
        z = np.clip(2 * theta - x - om * v, -kap, kap)
        diff = z - theta
        x = x + diff
        res = np.linalg.norm(diff, axis=1)
        if np.all(res <= tol * (1 + np.linalg.norm(theta, axis=1))):
            break
    return SolverResult(theta=z if batched else z[0], iterations=k, residual=res if batched else float(res[0]))


def prox_gradient_certificate(
    X, y, theta, *, lam: float, radius, quad, lin=None, smoothness, strong_convexity,
) -> tuple[np.ndarray, np.ndarray | float]:
    """One proximal-gradient step from θ and a proven bound on the suboptimality of the point it reaches.

    For F = f + g with f(θ) = Σ½(x_iᵀθ − y_i)² + ½θᵀAθ + cᵀθ (L_f-smooth, μ-strongly convex) and
    g = λ‖θ‖₁ + the box ‖θ‖_∞ ≤ κ, the step θ⁺ = prox_{g/L_f}(θ − ∇f(θ)/L_f) (soft-threshold, then
    clip) with gradient mapping G = L_f(θ − θ⁺) satisfies, for every z,
    F(z) ≥ F(θ⁺) + ‖G‖²/(2L_f) + Gᵀ(z − θ) + (μ/2)‖z − θ‖²; minimising over z gives

        F(θ⁺) − min F ≤ ‖G‖² (1/(2μ) − 1/(2L_f)) ≤ ‖G‖²/(2μ).

    This is what lets :func:`~dpexplore.erm.qop_inexact` *check* the declared solver accuracy τ
    instead of assuming it: release θ⁺, whose suboptimality the bound certifies. The bound holds
    in exact arithmetic; floating-point rounding adds about machine-ε·|F|.

    Parameters
    ----------
    X, y : the problem (rows as used by the solver)
    theta : ndarray (d,) or (B, d)
        The solver's output.
    lam : float
        ℓ1 weight λ ≥ 0.
    radius : float or ndarray (B,)
        Box radius κ.
    quad, lin : as in :func:`davis_yin` (A and c)
    smoothness : float or ndarray (B,)
        Any L_f ≥ λ_max(XᵀX + A), e.g. the public n·L + σ²λ_max(W).
    strong_convexity : float or ndarray (B,)
        Any μ with 0 < μ ≤ λ_min(XᵀX + A), e.g. σ²λ_min(W).

    Returns
    -------
    theta_plus : ndarray, the shape of ``theta``
    bound : float or ndarray (B,)
        The certified F(θ⁺) − min F.

    Examples
    --------
    >>> X = np.eye(2); y = np.array([3.0, -0.5])
    >>> tp, b = prox_gradient_certificate(X, y, [0.9, 0.0], lam=1.0, radius=1.0, quad=np.zeros((2, 2)),
    ...                                   smoothness=1.0, strong_convexity=1.0)
    >>> tp.tolist(), b  # θ⁺ is the minimiser (1, 0); G = θ − θ⁺ = (−0.1, 0): bound 0.1²·(½ − ½) = 0
    ([1.0, 0.0], 0.0)
    """
    X, y = check_problem(X, y)
    lam = check_real(lam, "lam", low=0.0)
    th = np.asarray(theta, dtype=float)
    single = th.ndim == 1
    B, _, kappa, _, _, qkind, q, c = _batch(X, radius=radius, step=None, quad=quad, lin=lin, clip=None)
    th = np.broadcast_to(th, (B, X.shape[1])) if single else th
    Lf = np.broadcast_to(np.asarray(smoothness, dtype=float), (B,))
    mu = np.broadcast_to(np.asarray(strong_convexity, dtype=float), (B,))
    if np.any(~np.isfinite(Lf)) or np.any(Lf <= 0) or np.any(~np.isfinite(mu)) or np.any(mu <= 0) or np.any(mu > Lf):
        raise ValueError("smoothness and strong_convexity must be finite with 0 < strong_convexity <= smoothness")
    grad = (th @ X.T - y) @ X + _pert_grad(th, qkind, q, c)
    t = (1.0 / Lf)[:, None]
    th_plus = np.clip(_soft(th - t * grad, t * lam), -kappa[:, None], kappa[:, None])
    G2 = np.sum(((th - th_plus) * Lf[:, None]) ** 2, axis=1)
    bound = G2 * (0.5 / mu - 0.5 / Lf)
    if single:
        return th_plus[0], float(bound[0])
    return th_plus, bound


def perturbed_objective(X, y, theta, *, lam: float, quad=None, lin=None, clip=None) -> float:
    """Value of Σ_i ℓ_i(θ) + ½θᵀAθ + cᵀθ + λ‖θ‖₁ for one problem (ℓ_i Huberised at ζ/‖x_i‖ if clipped).

    Examples
    --------
    >>> perturbed_objective(np.eye(1), np.zeros(1), np.ones(1), lam=1.0, quad=2.0, lin=[1.0])
    3.5
    """
    X, y = check_problem(X, y)
    th = np.asarray(theta, dtype=float)
    r = X @ th - y
    if clip is None or not np.isfinite(clip):
        loss = 0.5 * float(r @ r)
    else:
        t = clip / np.maximum(np.linalg.norm(X, axis=1), 1e-300)
        a = np.abs(r)
        loss = float(np.sum(np.where(a <= t, 0.5 * r * r, t * a - 0.5 * t * t)))
    val = loss + lam * float(np.abs(th).sum())
    if quad is not None:
        qa = np.asarray(quad, dtype=float)
        val += 0.5 * float(th @ (qa @ th if qa.ndim == 2 else qa * th))
    if lin is not None:
        val += float(np.asarray(lin, dtype=float) @ th)
    return val


def reference_solve(X, y, *, lam: float, radius: float, quad=None, lin=None, clip=None) -> SolverResult:
    """Reference solution by scipy's L-BFGS-B (one problem; for checks on small problems).

    Writes θ = u − v with u, v ∈ [0, κ]^d, so λ‖θ‖₁ becomes the smooth λΣ(u + v) (at the optimum
    u_i v_i = 0 when λ > 0) and the box becomes simple bounds.

    Examples
    --------
    >>> X = np.eye(2); y = np.array([3.0, -0.5])
    >>> reference_solve(X, y, lam=1.0, radius=1.0).theta.round(6).tolist()
    [1.0, 0.0]
    """
    X, y = check_problem(X, y)
    lam = check_real(lam, "lam", low=0.0)
    kappa = check_positive(radius, "radius")
    d = X.shape[1]
    qa = None if quad is None else np.asarray(quad, dtype=float)
    ca = np.zeros(d) if lin is None else np.asarray(lin, dtype=float)
    row_norm = np.maximum(np.linalg.norm(X, axis=1), 1e-300)

    def fg(w):
        th = w[:d] - w[d:]
        r = X @ th - y
        if clip is None or not np.isfinite(clip):
            loss, gr = 0.5 * r @ r, r
        else:
            t = clip / row_norm
            a = np.abs(r)
            loss = np.sum(np.where(a <= t, 0.5 * r * r, t * a - 0.5 * t * t))
            gr = np.clip(r, -t, t)
        g = X.T @ gr + ca
        val = loss + ca @ th
        if qa is not None:
            qt = qa @ th if qa.ndim == 2 else qa * th
            val += 0.5 * th @ qt
            g = g + qt
        val += lam * w.sum()
        return val, np.concatenate([g + lam, -g + lam])

    res = optimize.minimize(fg, np.zeros(2 * d), jac=True, method="L-BFGS-B", bounds=[(0.0, kappa)] * (2 * d),
                            options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-12, "maxcor": 30})
    return SolverResult(theta=res.x[:d] - res.x[d:], iterations=int(res.nit), residual=np.nan)
