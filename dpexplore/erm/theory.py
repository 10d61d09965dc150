"""Utility bounds of QOP (exact and inexact solves), their optimisation over m and the budget
split, and LOP's noise scale as a function of the box radius κ.

All bounds are on the **expected excess empirical risk** and come with explicit constants
(Cortild & Cartis 2026 and the authors' reference code, notebook F1):

* exact solve:   ``(σ²/2) · m · D²``,
* inexact solve: ``n d L σ̃²/2 + G √d σ̃ + τ + σ² m (D² + η²)``,

where **D = ‖θ_np − θ*‖ is the distance from the unperturbed solution** θ_np = argmin_C J(·; D) (no
quadratic) to the common minimiser θ* — as in the authors' reference code and the derivation — and
η ≥ ‖θ̃ − θ*‖ is the anchor accuracy (the same η that :func:`~dpexplore.erm.qop_inexact` declares).
D is *not* the anchor's distance ‖θ̃ − θ*‖: under that reading the exact bound would be 0 with an
exact anchor, and the inexact bound would count the anchor error twice (in D² and in η²).

Neither depends on the diameter of the constraint set — that is the paper's point. Functions
return NaN where the calibration is undefined (e.g. δ3 too large for the λ_min quantile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_real,
)

from .calibration import ALPHA1_VARIANTS, _beta, _output_sigma_paper, _sigma2, _sigma2_terms

__all__ = [
    "BoundOptimum",
    "qop_exact_bound",
    "qop_inexact_bound",
    "optimize_qop_exact_bound",
    "optimize_qop_inexact_bound",
    "qop_utility_bound",
    "qop_utility_bound_curve",
    "qop_inexact_utility_bound",
    "lop_noise_vs_radius",
    "REFERENCE_TABLE",
    "REFERENCE_CONSTANTS",
    "MAX_CURVE_POINTS",
]

#: Largest number of ε values (``qop_utility_bound_curve``) or radii (``lop_noise_vs_radius``) of one curve.
MAX_CURVE_POINTS = 100_000

#: the paper's reference utility-bound values (exact solve, reference α1), keyed by (ε, δ)
REFERENCE_TABLE = {
    (1, 1e-5): 836.7, (1, 1e-4): 758.7, (1, 1e-3): 678.0, (1, 1e-2): 593.1,
    (2, 1e-5): 432.6, (2, 1e-4): 393.9, (2, 1e-3): 354.0, (2, 1e-2): 312.3,
    (3, 1e-5): 294.7, (3, 1e-4): 269.1, (3, 1e-3): 242.6, (3, 1e-2): 215.1,
    (4, 1e-5): 224.9, (4, 1e-4): 205.7, (4, 1e-3): 185.9, (4, 1e-2): 165.4,
}
#: constants of that table (reference notebook F1); τ = η = 0.001 for its inexact curves
REFERENCE_CONSTANTS = {"L": 1.0, "n": 10, "d": 12, "D": 1.0, "rho": 1.0, "G": 1.0, "tau": 1e-3, "eta": 1e-3}


@dataclass(frozen=True)
class BoundOptimum:
    """The minimised bound and where the minimum sits.

    Attributes
    ----------
    value : float
        Minimised bound (NaN if no feasible point was found).
    m : float
        Optimal Wishart degrees of freedom (continuous).
    epsilon1, epsilon2 : float
        ε split (ε2 = 0 for the exact solve).
    delta1, delta2, delta3, delta4 : float
        δ split (δ2 = δ4 = 0 for the exact solve).
    sigma2 : float
        Weight of the quadratic at the optimum.
    """

    value: float
    m: float
    epsilon1: float
    epsilon2: float
    delta1: float
    delta2: float
    delta3: float
    delta4: float
    sigma2: float


def _check_consts(L, n, d, D, rho, G):
    return (check_positive(L, "L"), check_int(n, "n", low=1), check_int(d, "d", low=1),
            check_positive(D, "D", allow_zero=True), check_positive(rho, "rho"),
            check_positive(G, "G", allow_zero=True))


def qop_exact_bound(
    epsilon: float, delta1: float, delta3: float, *, L: float, d: int, m: float, D: float, rho: float = 1.0,
    alpha1: str = "reference",
) -> float:
    """Exact-solve bound ``(σ²/2) m D²`` at one (m, δ1, δ3), D = ‖θ_np − θ*‖ [paper, bound].

    Examples
    --------
    >>> round(qop_exact_bound(1.0, 1e-5 - 8.1e-13, 8.1e-13, L=1, d=12, m=69.2, D=1), 0)
    837.0
    """
    eps = check_epsilon(epsilon)
    delta1 = check_delta(delta1, "delta1")
    delta3 = check_delta(delta3, "delta3")
    L = check_positive(L, "L")
    d = check_int(d, "d", low=1)
    m = check_real(m, "m", low=float(d))
    D = check_positive(D, "D", allow_zero=True)
    rho = check_positive(rho, "rho")
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    s2 = float(_sigma2(eps, delta1, delta3, L, d, m, rho, alpha1)[0])
    return s2 / 2 * m * D * D


def _inexact_vec(eps1, eps2, d1, d2, d3, d4, m, L, n, d, D, rho, G, tau, eta, variant):
    s2, alpha, _ = _sigma2(eps1, d1, d3, L, d, m, rho, variant)
    if tau == 0 and eta == 0:
        st = np.zeros_like(s2)
    else:
        beta = _beta(d3, d4, d, m)
        with np.errstate(invalid="ignore", divide="ignore"):
            st = _output_sigma_paper(tau, eta, eps2, d2, alpha, s2, beta)
    return n * d * L * st**2 / 2 + G * math.sqrt(d) * st + tau + s2 * m * (D**2 + eta**2)


def qop_inexact_bound(
    epsilon1: float, epsilon2: float, delta1: float, delta2: float, delta3: float, delta4: float, *,
    L: float, n: int, d: int, m: float, D: float, rho: float = 1.0, G: float = 1.0, tau: float, eta: float,
    alpha1: str = "reference",
) -> float:
    """Inexact-solve bound ``n d L σ̃²/2 + G √d σ̃ + τ + σ² m (D² + η²)`` [paper + reference code, bound].

    σ̃ uses the paper's classic Gaussian formula (:func:`~dpexplore.erm.calibration.qop_output_sigma`
    with ``calibration="paper"``), as the reference code does.

    Examples
    --------
    >>> b = qop_inexact_bound(0.9, 0.1, 4e-6, 4e-6, 1e-12, 2e-6, L=1, n=10, d=12, m=69, D=1, tau=1e-3, eta=1e-3)
    >>> bool(b > 2 * qop_exact_bound(1.0, 1e-5, 1e-12, L=1, d=12, m=69, D=1))
    True
    """
    e1, e2 = check_epsilon(epsilon1, "epsilon1"), check_epsilon(epsilon2, "epsilon2")
    names = ("delta1", "delta2", "delta3", "delta4")
    ds = [check_delta(v, nm) for v, nm in zip((delta1, delta2, delta3, delta4), names)]
    L, n, d, D, rho, G = _check_consts(L, n, d, D, rho, G)
    m = check_real(m, "m", low=float(d))
    tau = check_positive(tau, "tau", allow_zero=True)
    eta = check_positive(eta, "eta", allow_zero=True)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    return float(_inexact_vec(e1, e2, *ds, m, L, n, d, D, rho, G, tau, eta, alpha1))


def _finite(v):
    return np.where(np.isfinite(v), v, np.inf)


def _balanced_split(terms, lo: float = -60.0, hi: float = 15.0, iters: int = 48):
    """For each point, the u = logit(δ3/(δ1 + δ3)) where σ²'s two terms are equal.

    ``terms(u) -> (A, B)``. A (the ε-term) falls as δ3 grows (α grows); B = 2L/α1 rises (δ1
    shrinks), so min_u max(A, B) sits at their crossing: found by bisection on sign(log A − log B),
    robustly, where a coordinate search stalls in the valley along A = B. NaN terms (α undefined:
    δ3 too large) count as "B dominates".
    """

    def g(u):
        a, b = terms(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log(a) - np.log(b)
        return np.where(np.isfinite(out), out, -np.inf)

    shape = np.shape(terms(np.array(lo))[0])
    a = np.full(shape, lo)
    b = np.full(shape, hi)
    g_lo = g(a)
    for _ in range(iters):
        mid = (a + b) / 2
        pos = g(mid) > 0
        a = np.where(pos, mid, a)
        b = np.where(pos, b, mid)
    u = np.where(g_lo <= 0, lo, (a + b) / 2)
    return u


def _profile_over_m(value_at, ts):
    """Minimise a profile v(t) given on a grid of t (last axis), refined by a parabola through
    the best grid point and its neighbours; returns (t*, index of the best grid point)."""
    V = _finite(value_at(ts))
    i = np.clip(np.argmin(V, axis=-1), 1, len(ts) - 2)
    idx = np.arange(V.shape[0])
    v0, v1, v2 = V[idx, i - 1], V[idx, i], V[idx, i + 1]
    h = ts[1] - ts[0]
    den = v0 - 2 * v1 + v2
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.where(np.isfinite(den) & (den > 0), 0.5 * h * (v0 - v2) / den, 0.0)
    shift = np.clip(np.nan_to_num(shift), -h, h)
    return ts[i] + shift


def _t_grid(d):
    return np.linspace(math.log(1e-2), math.log(400.0 * (d + 1)), 100)


def _optimize_exact_many(eps, delta, L, d, D, rho, variant):
    """Exact-bound optimum for arrays eps, delta (one shape): returns (value, m, δ1, δ3) arrays.

    For each m on a log grid the δ split is set where σ²'s two terms balance (bisection,
    :func:`_balanced_split`), giving a profile over m, minimised on the grid and refined by a
    parabola.
    """
    eps, delta = np.broadcast_arrays(np.atleast_1d(check_array(eps, "epsilon", finite=False)),
                                     np.atleast_1d(check_array(delta, "delta", finite=False)))
    shape = eps.shape
    eps, delta = eps.ravel()[:, None], delta.ravel()[:, None]

    def solve(t):  # t: (P, k) -> bound at the balanced split, and the split
        m = d + 1 + np.exp(t)

        def terms(u):
            return _sigma2_terms(eps, delta * special.expit(-u), delta * special.expit(u), L, d, m, rho, variant)[:2]

        u = _balanced_split(terms)
        a_t, b_t = terms(u)
        return np.maximum(a_t, b_t) / 2 * m * D * D, u

    ts = _t_grid(d)
    t_best = _profile_over_m(lambda tt: solve(np.broadcast_to(tt, (len(eps), len(tt))))[0], ts)
    v, u = solve(t_best[:, None])
    v, u = v[:, 0], u[:, 0]
    v = np.where(np.isfinite(v), v, np.nan)
    m = d + 1 + np.exp(t_best)
    d1, d3 = delta[:, 0] * special.expit(-u), delta[:, 0] * special.expit(u)
    return v.reshape(shape), m.reshape(shape), d1.reshape(shape), d3.reshape(shape)


def optimize_qop_exact_bound(
    epsilon: float, delta: float, *, L: float, n: int, d: int, D: float, rho: float = 1.0, G: float = 1.0,
    alpha1: str = "reference",
) -> BoundOptimum:
    """Minimise the exact-solve bound over m (continuous, m > d + 1) and the split δ = δ1 + δ3.

    The optimum sits at a very uneven split (δ3 ≈ 1e-12 for ε = 1, δ = 1e-5), so δ3 is searched
    on a log scale: for each m (a log grid over m − d − 1, refined by a parabola) the split is
    set where the two terms of σ²'s max balance, found by bisection on logit(δ3/δ). (``n`` and
    ``G`` do not enter the exact bound; they are accepted so that the exact and inexact functions
    share one signature.)

    Examples
    --------
    >>> opt = optimize_qop_exact_bound(1.0, 1e-5, L=1, n=10, d=12, D=1)
    >>> round(opt.value, 0), round(opt.m)
    (837.0, 69)
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    L, n, d, D, rho, G = _check_consts(L, n, d, D, rho, G)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    v, m, d1, d3 = _optimize_exact_many(eps, delta, L, d, D, rho, alpha1)
    if not np.isfinite(v[0]):
        return BoundOptimum(math.nan, math.nan, eps, 0.0, math.nan, 0.0, math.nan, 0.0, math.nan)
    s2 = float(_sigma2(eps, d1[0], d3[0], L, d, m[0], rho, alpha1)[0])
    return BoundOptimum(float(v[0]), float(m[0]), eps, 0.0, float(d1[0]), 0.0, float(d3[0]), 0.0, s2)


def qop_utility_bound_curve(
    epsilons, delta, *, L: float, n: int, d: int, D: float, rho: float = 1.0, G: float = 1.0,
    alpha1: str = "reference", tau: float | None = None, eta: float | None = None,
) -> np.ndarray:
    """The optimised bound at every ε of ``epsilons`` (one vectorised search) [bound].

    Exact-solve bound by default; the inexact-solve bound when ``tau`` and ``eta`` are given.
    ``delta`` is one number or an array of the same length as ``epsilons`` (pairs (ε_i, δ_i)).

    Examples
    --------
    >>> c = qop_utility_bound_curve([1.0, 4.0], 1e-2, L=1, n=10, d=12, D=1)
    >>> [round(float(v), 0) for v in c]
    [593.0, 165.0]
    """
    eps = check_array(epsilons, "epsilons", finite=False, max_size=MAX_CURVE_POINTS)
    if eps.ndim != 1 or eps.size == 0 or np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"epsilons must be a non-empty 1-d array of finite numbers > 0; got {epsilons!r}")
    dl = check_array(delta, "delta", finite=False)
    if dl.ndim == 0:
        dl = np.full(eps.shape, check_delta(float(dl)))
    elif dl.shape != eps.shape or np.any(~(dl > 0)) or np.any(~(dl < 1)):
        raise ValueError(f"delta must be a number in (0, 1) or an array of them shaped like epsilons; got {delta!r}")
    L, n, d, D, rho, G = _check_consts(L, n, d, D, rho, G)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    if tau is None and eta is None:
        return _optimize_exact_many(eps, dl, L, d, D, rho, alpha1)[0]
    tau = check_positive(0.0 if tau is None else tau, "tau", allow_zero=True)
    eta = check_positive(0.0 if eta is None else eta, "eta", allow_zero=True)
    return _optimize_inexact_many(eps, dl, L, n, d, D, rho, G, tau, eta, alpha1)[0]


def qop_utility_bound(
    epsilon: float, delta: float, *, L: float, n: int, d: int, D: float, rho: float = 1.0, G: float = 1.0,
    alpha1: str = "reference",
) -> float:
    """QOP's exact-solve utility bound, minimised over m and the δ split [paper + reference code, bound].

    Parameters
    ----------
    epsilon, delta : float
        Total privacy budget (the exact solve spends (ε, δ1 + δ3)).
    L : float
        Per-example smoothness.
    n, d : int
        Sample size and dimension.
    D : float
        D = ‖θ_np − θ*‖, the distance from the unperturbed (non-private) solution to the common
        minimiser θ* (not the anchor's distance; module docstring).
    rho : float
        Hessian-rank bound.
    G : float
        Subgradient bound of the regulariser (unused by the exact bound).
    alpha1 : {"reference", "consistent"}
        See :func:`dpexplore.erm.calibration.wishart_alpha1`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(qop_utility_bound(4.0, 1e-2, L=1, n=10, d=12, D=1, rho=1, G=1), 0)
    165.0
    """
    return optimize_qop_exact_bound(epsilon, delta, L=L, n=n, d=d, D=D, rho=rho, G=G, alpha1=alpha1).value


#: ε1/ε and the shares δ2/δ, δ4/δ tried by the inexact optimiser (δ1 + δ3 get the rest)
_EPS_FRACS = (0.7, 0.85, 0.95)
_D2_SHARES = (0.15,)
_D4_SHARES = (0.1,)


def _optimize_inexact_many(eps, delta, L, n, d, D, rho, G, tau, eta, variant):
    """Inexact optimum: a small grid over (ε1/ε, δ2/δ, δ4/δ); for each, the (δ1, δ3) split of the
    rest balances σ²'s two terms and m is optimised on a grid (as for the exact bound); the best
    is kept. An upper bound on the true minimum (every point is a valid calibration)."""
    eps = np.atleast_1d(check_array(eps, "epsilon", finite=False))
    delta = np.atleast_1d(check_array(delta, "delta", finite=False))
    P = len(eps)
    fr, s2_, s4_ = (a.ravel() for a in np.meshgrid(_EPS_FRACS, _D2_SHARES, _D4_SHARES, indexing="ij"))
    C = len(fr)
    E, DL = np.repeat(eps, C)[:, None], np.repeat(delta, C)[:, None]
    FR, S2, S4 = np.tile(fr, P)[:, None], np.tile(s2_, P)[:, None], np.tile(s4_, P)[:, None]
    e1, e2, d2, d4 = E * FR, E * (1 - FR), DL * S2, DL * S4
    rest = DL * (1 - S2 - S4)

    def solve(t):
        m = d + 1 + np.exp(t)

        def terms(u):
            return _sigma2_terms(e1, rest * special.expit(-u), rest * special.expit(u), L, d, m, rho, variant)[:2]

        u = _balanced_split(terms, iters=36)
        val = _inexact_vec(e1, e2, rest * special.expit(-u), d2, rest * special.expit(u), d4, m,
                           L, n, d, D, rho, G, tau, eta, variant)
        return val, u

    ts = _t_grid(d)[::3]
    t_best = _profile_over_m(lambda tt: solve(np.broadcast_to(tt, (len(E), len(tt))))[0], ts)
    v, u = solve(t_best[:, None])
    v = _finite(v[:, 0]).reshape(P, C)
    j = np.argmin(v, axis=1)
    k = np.arange(P) * C + j
    best = v[np.arange(P), j]
    best = np.where(np.isfinite(best), best, np.nan)
    m = d + 1 + np.exp(t_best[k])
    uk = u[k, 0]
    d1, d3 = rest[k, 0] * special.expit(-uk), rest[k, 0] * special.expit(uk)
    return best, (e1[k, 0], e2[k, 0], d1, d2[k, 0], d3, d4[k, 0], m)


def optimize_qop_inexact_bound(
    epsilon: float, delta: float, *, L: float, n: int, d: int, D: float, rho: float = 1.0, G: float = 1.0,
    tau: float, eta: float, alpha1: str = "reference",
) -> BoundOptimum:
    """Minimise the inexact-solve bound over m, the ε split and the four-way δ split.

    A small grid over (ε1/ε, δ2/δ, δ4/δ) — each point with a nested golden-section search over
    the δ1/δ3 split (log scale) and m — keeping the best. The value is therefore an upper bound
    on the true minimum (every point it reports is a valid calibration); in the cases compared
    with a 5-d Nelder–Mead search (the reference code's method) it was within a few per cent.

    Examples
    --------
    >>> ex = qop_utility_bound(1.0, 1e-5, L=1, n=10, d=12, D=1)
    >>> inex = optimize_qop_inexact_bound(1.0, 1e-5, L=1, n=10, d=12, D=1, tau=1e-3, eta=1e-3).value
    >>> bool(2 * ex < inex < 4 * ex)
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    L, n, d, D, rho, G = _check_consts(L, n, d, D, rho, G)
    tau = check_positive(tau, "tau", allow_zero=True)
    eta = check_positive(eta, "eta", allow_zero=True)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    v, (e1, e2, d1, d2, d3, d4, m) = _optimize_inexact_many(eps, delta, L, n, d, D, rho, G, tau, eta, alpha1)
    if not np.isfinite(v[0]):
        return BoundOptimum(*([math.nan] * 9))
    s2 = float(_sigma2(e1[0], d1[0], d3[0], L, d, m[0], rho, alpha1)[0])
    return BoundOptimum(float(v[0]), float(m[0]), float(e1[0]), float(e2[0]), float(d1[0]), float(d2[0]),
                        float(d3[0]), float(d4[0]), s2)


def qop_inexact_utility_bound(
    epsilon: float, delta: float, *, L: float, n: int, d: int, D: float, rho: float = 1.0, G: float = 1.0,
    tau: float, eta: float, alpha1: str = "reference",
) -> float:
    """QOP's inexact-solve utility bound, minimised over m and the budget split [bound].

    Examples
    --------
    >>> b = qop_inexact_utility_bound(2.0, 1e-3, L=1, n=10, d=12, D=1, tau=1e-3, eta=1e-3)
    >>> bool(b > 2 * qop_utility_bound(2.0, 1e-3, L=1, n=10, d=12, D=1))
    True
    """
    return optimize_qop_inexact_bound(epsilon, delta, L=L, n=n, d=d, D=D, rho=rho, G=G, tau=tau, eta=eta,
                                      alpha1=alpha1).value


def lop_noise_vs_radius(radii, *, epsilon: float, delta: float, xi: float, d: int, label_bound: float):
    """LOP's noise scale σ_b(κ) = ζ(κ) √(8 ln(2/δ) + 4ε)/ε with ζ(κ) = ξ(ξ κ √d + y_max) [exact formula].

    ``ζ(κ)`` is the largest per-example gradient ‖(xᵀθ − y) x‖ over the box ‖θ‖_∞ ≤ κ for rows of
    norm ξ and labels |y| ≤ y_max (worst case ‖x‖₁ = ξ√d). It grows linearly in κ: this is why
    LOP needs either a small domain or clipping.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> s = lop_noise_vs_radius([1.0, 10.0], epsilon=1.0, delta=1e-5, xi=1.0, d=1, label_bound=0.0)
    >>> round(float(s[1] / s[0]), 6)
    10.0
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    xi = check_positive(xi, "xi")
    d = check_int(d, "d", low=1)
    yb = check_positive(label_bound, "label_bound", allow_zero=True)
    r = check_array(radii, "radii", finite=False, max_size=MAX_CURVE_POINTS)
    if np.any(~np.isfinite(r)) or np.any(r < 0):
        raise ValueError(f"radii must be finite numbers >= 0; got {radii!r}")
    zeta = xi * (xi * r * math.sqrt(d) + yb)
    return zeta * math.sqrt(8 * math.log(2 / delta) + 4 * eps) / eps
