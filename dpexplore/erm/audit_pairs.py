"""The ERM audits' neighbouring pairs (d = 1), the exact ε of each pair, and the broken (teaching-only) variants.

See :mod:`dpexplore.erm.audit` for why these pairs are the hardest known (LOP: a tiny feature with a huge label
moves the linear term by 2ζ; QOP: one example of curvature L shifts W ~ χ²_m by L/σ², the λ_min(W) argument of
the calibration; QOP with an inexact anchor: disjoint supports, or the non-degenerate scale pair) and for what
the broken variants get wrong. The pairs and their exact ε are deterministic functions of public inputs; the
audit runners that sample the mechanisms on them are in :mod:`dpexplore.erm.audit`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special

from dpexplore.core import RNGLike
from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.core.privacy_curves import exact_epsilon
from dpexplore.core.validation import check_choice, check_delta, check_int, check_positive, check_real

from .calibration import qop_output_sigma, qop_sigma2
from .mechanisms import ERMResult, lop

__all__ = [
    "QOP_BUGS",
    "QOP_INEXACT_BUGS",
    "lop_worst_case_pair",
    "qop_worst_case_pair",
    "qop_anchor_pair",
    "qop_anchor_scale_pair",
    "broken_lop",
    "broken_qop_sigma2",
    "broken_qop_output_sigma",
    "lop_pair_exact_epsilon",
    "qop_pair_exact_epsilon",
    "qop_inexact_pair_exact_epsilon",
    "qop_anchor_scale_pair_exact_epsilon",
]

#: QOP calibration bugs of :func:`broken_qop_sigma2` (refuted by :func:`audit_qop` at 100 000 runs)
QOP_BUGS = ("sigma_for_sigma2",)
#: output-noise bugs of :func:`broken_qop_output_sigma` (refuted by :func:`audit_qop_inexact` at 100 000 runs)
QOP_INEXACT_BUGS = ("anchor_term_dropped",)
_SAFE = 1.0 - 1e-9  # build the LOP example just inside the gradient bound, so rounding never exceeds it


# ---------------------------------------------------------------------------------------------
# worst-case pairs (d = 1)
# ---------------------------------------------------------------------------------------------
def lop_worst_case_pair(*, grad_bound: float = 1.0, radius: float = 100.0, n: int = 5, x_small: float = 0.01):
    """Neighbouring data sets (replace one example) attaining LOP's gradient-difference bound 2ζ.

    Every example has feature ``x_small``; the n − 1 untouched ones have label 0, the changed one
    has label +y (D0) or −y (D1) with ``x_small·(x_small·κ + y) = ζ`` (its gradient bound over the
    box is ζ, attained at the corner). Its gradient x(xθ ∓ y) is ≈ ∓ζ on the whole box, so the
    linear term moves by 2·x·y ≈ 2ζ (module docstring). All gradients respect ζ.

    Returns
    -------
    X0, y0, X1, y1 : ndarrays (n, 1), (n,)
    shift : float
        The linear-term difference 2·x·y.

    Examples
    --------
    >>> from dpexplore.erm import gradient_bound
    >>> X0, y0, X1, y1, shift = lop_worst_case_pair(grad_bound=1.0, radius=100.0)
    >>> round(shift, 4), gradient_bound(X0, y0, 100.0) <= 1.0, gradient_bound(X1, y1, 100.0) <= 1.0
    (1.98, True, True)
    """
    zeta = check_positive(grad_bound, "grad_bound")
    kappa = check_positive(radius, "radius")
    n = check_int(n, "n", low=1, high=10_000)
    x = check_positive(x_small, "x_small")
    y = zeta * _SAFE / x - x * kappa
    if not y > 0:
        raise ValueError(f"x_small must satisfy x_small^2 * radius < grad_bound; got x_small={x!r}, "
                         f"radius={kappa!r}, grad_bound={zeta!r}")
    X = np.full((n, 1), x)
    y0 = np.zeros(n)
    y1 = np.zeros(n)
    y0[-1], y1[-1] = y, -y
    return X, y0, X.copy(), y1, 2.0 * x * y


def qop_worst_case_pair(*, smoothness: float = 1.0, n: int = 5, theta_star: float = 1.0):
    """Neighbouring interpolating data sets with the largest curvature change (QOP, exact anchor).

    The n − 1 untouched examples are (√L, √L·θ*); the changed one is (0, 0) in D0 and (√L, √L·θ*)
    in D1: both data sets are interpolated by θ*, every row has x² ≤ L, and the curvature
    S = Σx_i² grows by L — the largest change one replacement can make (module docstring).

    Returns
    -------
    X0, y0, X1, y1 : ndarrays (n, 1), (n,)

    Examples
    --------
    >>> X0, y0, X1, y1 = qop_worst_case_pair(smoothness=4.0, n=3)
    >>> float((X1 ** 2).sum() - (X0 ** 2).sum()), bool(np.allclose(X0[:, 0] * 1.0, y0))
    (4.0, True)
    """
    L = check_positive(smoothness, "smoothness")
    n = check_int(n, "n", low=2, high=10_000)
    ts = check_real(theta_star, "theta_star")
    r = math.sqrt(L)
    X1 = np.full((n, 1), r)
    X0 = X1.copy()
    X0[-1, 0] = 0.0
    return X0, X0[:, 0] * ts, X1, X1[:, 0] * ts


def qop_anchor_pair(*, smoothness: float = 1.0, n: int = 5, theta_star: float = 1.0):
    """A pair refuting the *exact-solve* QOP claim when the anchor is not exact.

    Every untouched example is (0, 0); the changed one is (0, 0) in D0 and (√L, √L·θ*) in D1
    (both interpolated by θ*). With λ = 0 and θ̃ ≠ θ*, QOP returns θ̃ exactly on D0 and
    θ̃ + L(θ* − θ̃)/(L + σ²W) ≠ θ̃ on D1 (module docstring).

    Examples
    --------
    >>> X0, y0, X1, y1 = qop_anchor_pair(n=3)
    >>> X0.ravel().tolist(), X1.ravel().tolist()
    ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    """
    L = check_positive(smoothness, "smoothness")
    n = check_int(n, "n", low=1, high=10_000)
    ts = check_real(theta_star, "theta_star")
    X0 = np.zeros((n, 1))
    X1 = X0.copy()
    X1[-1, 0] = math.sqrt(L)
    return X0, np.zeros(n), X1, X1[:, 0] * ts


# ---------------------------------------------------------------------------------------------
# broken variants
# ---------------------------------------------------------------------------------------------
def broken_lop(
    X, y, *, epsilon: float, delta: float, lam: float, radius: float, feature_bound: float = 1.0,
    label_bound: float | None = None,
    rng: RNGLike = None, smoothness: float | None = None, iterations: int = 1000, solver: str = "deterministic",
) -> ERMResult:
    """BROKEN on purpose: LOP with the noise scale σ_b **halved**, still claiming (ε, δ).

    Everything else as :func:`~dpexplore.erm.lop` (public ``feature_bound``/``label_bound``, ζ from
    :func:`~dpexplore.erm.box_gradient_bound`). On the worst pair the linear-term noise is the
    Gaussian mechanism with μ = 2ζ/(σ_b/2), so its true ε at δ is ``gdp_epsilon(4ζ/σ_b, δ)``
    (about 2.7 for a claim of 2 at δ = 0.01; :func:`lop_pair_exact_epsilon`). Teaching only.

    Examples
    --------
    >>> from dpexplore.erm import lop
    >>> X0, y0, _, _, _ = lop_worst_case_pair()  # public bounds of the pair: ξ = 0.01, B = |y| of the changed row
    >>> kw = dict(epsilon=1.0, delta=1e-3, lam=0.0, radius=100.0, feature_bound=0.01, label_bound=float(abs(y0).max()))
    >>> r = broken_lop(X0, y0, rng=0, **kw)
    >>> r.mechanism, r.epsilon, r.diagnostics["noise_sigma"] == lop(X0, y0, rng=0, **kw).diagnostics["noise_sigma"] / 2
    ('BROKEN LOP (noise halved)', 1.0, True)
    """
    res = lop(X, y, epsilon=epsilon, delta=delta, lam=lam, radius=radius, feature_bound=feature_bound,
              label_bound=label_bound, rng=rng, smoothness=smoothness, iterations=iterations, solver=solver,
              _noise_scale=0.5)  # the bug: σ_b halved, everything else lop's own code
    return dataclasses.replace(res, mechanism="BROKEN LOP (noise halved)",
                               diagnostics={**res.diagnostics, "broken": True})


def broken_qop_sigma2(
    epsilon1: float, delta1: float, delta3: float, *, L: float, d: int, m: float, rho: float = 1.0,
    alpha1: str = "reference", bug: str = "sigma_for_sigma2",
) -> float:
    """BROKEN on purpose: a QOP weight σ² that is too small, for teaching audits.

    Returns the weight a buggy implementation puts in front of (1/2)(θ − θ̃)ᵀW(θ − θ̃) while still
    claiming (ε1, δ1 + δ3):

    * ``bug="sigma_for_sigma2"`` (default): the **standard deviation σ = √σ² used where the variance
      σ² belongs** — the perturbation coded as (σ/2)(θ − θ̃)ᵀW(θ − θ̃), the σ-versus-σ² mix-up that
      Gaussian-noise code is known for. σ² is hundreds to thousands of times L, so the weight shrinks
      by the factor √σ² (≈ 32 at ε = 2, δ = 0.01, L = 1, d = 1, m = 2). **True ε** on
      :func:`qop_worst_case_pair` with m = 2: ``inf`` as soon as the mass 1 − exp(−L/(2√σ²)) of the
      region that only D0 can produce exceeds δ — at ε = 2, δ = 0.01 that mass is 1.57% (> 1%), so
      the pair is not (ε, δ)-DP for any ε (:func:`qop_pair_exact_epsilon` with c = L/√σ²), and
      :func:`audit_qop` refutes it at 100 000 runs. It is still (0, δ)-DP on that pair when the mass is
      ≤ δ (e.g. ε = 0.5, δ = 0.01: 0.79%): the bug is then not refutable there.

    Examples
    --------
    >>> import math
    >>> good = qop_sigma2(2.0, 5e-3, 5e-3, L=1.0, d=1, m=2)
    >>> broken_qop_sigma2(2.0, 5e-3, 5e-3, L=1.0, d=1, m=2) == math.sqrt(good)
    True
    """
    check_choice(bug, "bug", QOP_BUGS)  # the one bug: σ where σ² belongs
    return math.sqrt(qop_sigma2(epsilon1, delta1, delta3, L=L, d=d, m=m, rho=rho, alpha1=alpha1))


def broken_qop_output_sigma(
    tau: float, eta: float, *, epsilon2: float, delta2: float, alpha: float, sigma2: float, beta: float,
    calibration: str = "analytic", bug: str = "anchor_term_dropped",
) -> float:
    """BROKEN on purpose: :func:`~dpexplore.erm.qop_output_sigma` with the anchor term βη/α **dropped**.

    The output noise of :func:`~dpexplore.erm.qop_inexact` must cover a sensitivity
    2(√(2τ/(ασ²)) + βη/α): the first term pays for the solver's inaccuracy τ, the second for the
    anchor's η. The bug keeps only the solver term — the noise an implementation gives when it treats
    the anchor as exact (equivalently: a caller who does not declare η) — while still claiming
    (ε1 + ε2, δ1 + δ2 + δ3 + δ4). **True ε** on :func:`qop_anchor_pair` (d = 1, m = 2, λ = 0): the
    solution moves by Lη/(L + σ²W) ≤ η between the two data sets and the noise is only σ̃_τ, so the
    pair's ε is ≈ 10⁴ at the audit's defaults (ε = 2, δ = 0.01, η = 0.1, τ = 10⁻¹²;
    :func:`qop_inexact_pair_exact_epsilon`), and ``inf`` for τ = 0 (no noise at all). It hides when
    the declared τ is large: the τ-noise alone then covers the anchor's move (e.g. τ = 10⁻⁶ at η = 0.1).
    Teaching only.

    Examples
    --------
    >>> kw = dict(epsilon2=0.4, delta2=2e-3, alpha=4e-3, sigma2=3e3, beta=40.0)
    >>> broken_qop_output_sigma(1e-12, 0.1, **kw) == qop_output_sigma(1e-12, 0.0, calibration="analytic", **kw)
    True
    >>> broken_qop_output_sigma(1e-12, 0.1, **kw) < qop_output_sigma(1e-12, 0.1, calibration="analytic", **kw) / 1e4
    True
    """
    check_choice(bug, "bug", QOP_INEXACT_BUGS)
    check_positive(eta, "eta", allow_zero=True)
    # the bug: η's term βη/α of the sensitivity is left out, only the solver term √(2τ/(ασ²)) is paid for
    return qop_output_sigma(tau, 0.0, epsilon2=epsilon2, delta2=delta2, alpha=alpha, sigma2=sigma2, beta=beta,
                            calibration=calibration)


# ---------------------------------------------------------------------------------------------
# exact ε of the d = 1 pairs
# ---------------------------------------------------------------------------------------------
def lop_pair_exact_epsilon(shift: float, noise_sigma: float, delta: float) -> float:
    """Exact ε at δ of LOP's d = 1 worst pair (unclipped law): ``gdp_epsilon(shift/σ_b, δ)``.

    In d = 1 with λ = 0 the output is clip((S_xy − b)/(S + Δ), ±κ), b ~ N(0, σ_b²): the two laws
    are Gaussians with equal variance, means ``shift/(S + Δ)`` apart. Clipping is post-processing
    and only lowers ε; :func:`audit_lop` reports its probability mass (negligible for the default
    pair).

    Examples
    --------
    >>> from dpexplore.erm import lop_noise_scale
    >>> round(lop_pair_exact_epsilon(2.0, lop_noise_scale(2.0, 0.01, 1.0), 0.01), 3)
    1.078
    """
    shift = check_positive(shift, "shift")
    sig = check_positive(noise_sigma, "noise_sigma")
    return gdp_epsilon(shift / sig, check_delta(delta))


def qop_pair_exact_epsilon(c: float, m: int, delta: float, *, bins: int = 4000) -> float:
    """Exact ε at δ of the laws χ²_m and χ²_m + c (QOP's d = 1 worst pair, c = L/σ²).

    The output is a monotone function of W = σ⁻²(S + σ²W − S) (module docstring), so the pair's
    privacy is that of W versus W + c. Computed on ``bins`` cells with exact CDF masses
    (log-spaced near 0, where the likelihood ratio is extreme): binning is post-processing, so this
    is a lower bound on the exact ε that converges as ``bins`` grows (exact for m = 2, whose ratio
    is piecewise constant). ``inf`` when the mass below c exceeds δ.

    Examples
    --------
    >>> qop_pair_exact_epsilon(0.01, 2, 0.01), qop_pair_exact_epsilon(0.1, 2, 0.01)  # m = 2: 0 or ∞
    (0.0, inf)
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    c = check_positive(c, "c")
    m = check_int(m, "m", low=1, high=100_000)
    delta = check_delta(delta)
    bins = check_int(bins, "bins", low=10, high=1_000_000)
    top = float(stats.chi2.isf(1e-17, m)) + c
    lo = min(c, top) * 1e-6
    edges = np.concatenate([[0.0], np.geomspace(lo, top, bins), [np.inf]])
    edges = np.unique(np.concatenate([edges, [c]]))
    p0 = np.diff(stats.chi2.cdf(edges, m))
    p1 = np.diff(stats.chi2.cdf(np.maximum(edges - c, 0.0), m))
    p0, p1 = np.clip(p0, 0.0, None), np.clip(p1, 0.0, None)
    return float(exact_epsilon(p0 / p0.sum(), p1 / p1.sum(), delta))


def _chi2_nodes(m: int, nodes: int):
    """Quadrature nodes w_k and weights for W ~ χ²_m: equal-width cells in u = F(w), refined near u = 0."""
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    fine = nodes // 2
    edges = np.unique(np.concatenate([[0.0], np.geomspace(1e-12, 1e-2, fine), np.linspace(1e-2, 1.0, nodes - fine)]))
    mid = 0.5 * (edges[:-1] + edges[1:])
    return stats.chi2.ppf(mid, m), np.diff(edges)


def qop_inexact_pair_exact_epsilon(
    *, eta: float, smoothness: float, sigma2: float, m: int, output_sigma: float, delta: float, nodes: int = 2000,
    grid: int = 1500,
) -> float:
    """ε at δ of :func:`~dpexplore.erm.qop_inexact` on :func:`qop_anchor_pair` (d = 1, λ = 0), by quadrature.

    On D0 (all rows zero) the solve returns θ̃, so the release is N(θ̃, σ̃²); on D1 it returns
    θ̃ + s(W), s(W) = Lη/(L + σ²W), so the release is the mixture over W ~ χ²_m of N(θ̃ + s(W), σ̃²).
    Every s ≥ 0, so the likelihood ratio is increasing in the output and the optimal sets of the
    hockey-stick divergence are half-lines: ε(δ) = max over t of ln((P1(T > t) − δ)/P0(T > t)) and of
    ln((P0(T < t) − δ)/P1(T < t)). P0 is the normal tail (in logs, so ε of 10⁴ stays finite); P1 is
    integrated over W on ``nodes`` cells (refined near W = 0, where s is largest), the max is taken
    on ``grid`` thresholds — numerical, converging in both. ``inf`` when σ̃ = 0 (disjoint supports).
    The pair is also (gdp_epsilon(η/σ̃, δ), δ)-DP (joint convexity: every W gives a Gaussian pair with
    shift ≤ η), an upper bound :func:`audit_qop_inexact` reports as ``details["epsilon_upper"]``.

    Examples
    --------
    >>> qop_inexact_pair_exact_epsilon(eta=0.1, smoothness=1.0, sigma2=3e3, m=2, output_sigma=1.0, delta=0.01)
    0.0
    >>> e = qop_inexact_pair_exact_epsilon(eta=1.0, smoothness=1.0, sigma2=1.0, m=2, output_sigma=0.1, delta=0.01)
    >>> bool(5 < e < gdp_epsilon(10.0, 0.01))
    True
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    eta = check_positive(eta, "eta")
    L = check_positive(smoothness, "smoothness")
    s2 = check_positive(sigma2, "sigma2")
    m = check_int(m, "m", low=1, high=100_000)
    sig = check_positive(output_sigma, "output_sigma", allow_zero=True)
    dl = check_delta(delta)
    nodes = check_int(nodes, "nodes", low=10, high=100_000)
    grid = check_int(grid, "grid", low=10, high=100_000)
    if sig == 0.0:
        return math.inf
    w, wt = _chi2_nodes(m, nodes)
    shift = L * eta / (L + s2 * w) / sig  # s(W) in units of σ̃, largest near W = 0
    top = float(shift.max())
    t = np.unique(np.concatenate([np.linspace(-40.0, 40.0, grid), np.geomspace(1.0, top + 40.0, grid)]))
    lw = np.log(wt)
    log_p1_up = special.logsumexp(lw[None, :] + stats.norm.logsf(t[:, None] - shift[None, :]), axis=1)
    log_p1_lo = special.logsumexp(lw[None, :] + stats.norm.logcdf(t[:, None] - shift[None, :]), axis=1)
    best = 0.0
    for log_a, log_b in ((log_p1_up, stats.norm.logsf(t)), (stats.norm.logcdf(t), log_p1_lo)):
        a = np.exp(log_a)
        ok = a > dl
        if np.any(ok):
            best = max(best, float(np.max(np.log(a[ok] - dl) - log_b[ok])))
    return best


# ---------------------------------------------------------------------------------------------
# a non-degenerate pair for exact-solve QOP with an inexact anchor (added for issue 15)
# ---------------------------------------------------------------------------------------------
def qop_anchor_scale_pair(*, smoothness: float = 1.0, theta_star: float = 1.0):
    """A **non-degenerate** pair against exact-solve QOP with an inexact anchor: n = 2, d = 1, λ = 0.

    D0 = {(√L, √L θ*), (0, 0)} and D1 = {(√L, √L θ*), (√L, √L θ*)} (replace the second example; both
    data sets are interpolated by θ*). With S = Σx_i² (L on D0, 2L on D1) the exact solve is
    θ = θ̃ + S(θ* − θ̃)/(S + σ²W), so u = (θ − θ̃)/(θ* − θ̃) = 1/(1 + σ²W/S) is a decreasing function
    of V = W/S: the outputs on D0 and D1 are the same function of W/L and of W/(2L). Unlike
    :func:`qop_anchor_pair` (the output is θ̃ exactly on D0: disjoint supports, ε = ∞), here both
    outputs have the same support, and the pair's exact ε is finite — and, the laws being a scale
    family, **independent of σ² and of the anchor error** (:func:`qop_anchor_scale_pair_exact_epsilon`).

    Examples
    --------
    >>> X0, y0, X1, y1 = qop_anchor_scale_pair()
    >>> X0.ravel().tolist(), X1.ravel().tolist(), y1.tolist()
    ([1.0, 0.0], [1.0, 1.0], [1.0, 1.0])
    """
    L = check_positive(smoothness, "smoothness")
    ts = check_real(theta_star, "theta_star")
    X0 = np.array([[math.sqrt(L)], [0.0]])
    X1 = np.array([[math.sqrt(L)], [math.sqrt(L)]])
    return X0, X0[:, 0] * ts, X1, X1[:, 0] * ts


def qop_anchor_scale_pair_exact_epsilon(m: int, delta: float) -> float:
    """Exact ε of exact-solve QOP (any σ², any anchor θ̃ ≠ θ*) on :func:`qop_anchor_scale_pair`.

    The release is a monotone function of V, with V ~ χ²_m on D0 and V ~ χ²_m/2 on D1. Their
    likelihood ratio p0/p1 = 2^{−m/2} e^{v/2} is monotone in v, so both hockey-stick divergences are
    explicit (S, F: the χ²_m survival and distribution functions):

    * H_{e^ε}(D0‖D1) = S(t) − e^ε S(2t), t = 2(ε + (m/2) ln 2);
    * H_{e^ε}(D1‖D0) = F(2t′) − e^ε F(t′), t′ = 2((m/2) ln 2 − ε) (0 when t′ ≤ 0),

    and the exact ε is the smallest ε with both ≤ δ. For m = 2 the first is e^{−ε}/4, so
    ε = ln(1/(4δ)) = ln 25 ≈ 3.22 at δ = 0.01 (the dashboard's audit claims 2).

    Examples
    --------
    >>> round(qop_anchor_scale_pair_exact_epsilon(2, 0.01), 4), round(math.log(25), 4)
    (3.2189, 3.2189)
    """
    from scipy import (
        optimize,
        stats,  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    )

    m = check_int(m, "m", low=1, high=10_000)
    dl = check_delta(delta)
    half = 0.5 * m * math.log(2.0)

    def excess(eps):
        t = 2.0 * (eps + half)
        h0 = stats.chi2.sf(t, m) - math.exp(eps) * stats.chi2.sf(2.0 * t, m)
        tp = 2.0 * (half - eps)
        h1 = stats.chi2.cdf(2.0 * tp, m) - math.exp(eps) * stats.chi2.cdf(tp, m) if tp > 0 else 0.0
        return max(h0, h1) - dl

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2.0
        if hi > 1e4:
            return math.inf
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-12))
