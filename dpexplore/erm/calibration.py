"""Noise calibration of quadratic objective perturbation (QOP) and of its baselines.

Everything here is deterministic: "what does the mechanism cost / how much noise does it need",
separate from the sampling in :mod:`dpexplore.erm.mechanisms`.

Notation (Cortild & Cartis 2026; spec of paper 5). ``γ(a, x) = ∫₀ˣ t^{a−1} e^{−t} dt`` is the
*unregularised* lower incomplete gamma function (``Γ(a)·scipy.special.gammainc(a, x)``) and
``γ⁻¹(y, a)`` its inverse in ``x``; ``s = (m − d + 1)/2`` and

    D_m = d Γ(3/2) Γ((m+1)/2) / (Γ(d/2 + 1) Γ((m − d + 1)/2) Γ((m − d + 2)/2)),

all evaluated in log-gamma so that large ``m`` and ``d`` do not overflow.

Where α comes from (derivation, checked by Monte Carlo in the tests)
---------------------------------------------------------------------
For ``W = G Gᵀ`` with ``G ∈ R^{d×m}`` i.i.d. N(0, 1) (real Wishart, m ≥ d), Edelman's bound on the
density of the smallest eigenvalue reads ``f(λ) ≤ c_{d,m} λ^{s−1} e^{−λ/2}``. Integrating and
substituting ``t = λ/2``,

    P(λ_min(W) < x) ≤ c_{d,m} 2^s γ(s, x/2) = D_m γ(s, x/2),

with equality for d = 1 (then W ~ χ²_m, D_m = 1/Γ(m/2), s = m/2: the exact χ² CDF — an identity
the tests check). Setting the right-hand side to δ3 gives the paper's ``α = 2 γ⁻¹(δ3/D_m, s)``.
The same density bound over an interval gives

    P(α ≤ λ_min < α + α1) ≤ D_m [γ(s, (α + α1)/2) − γ(s, α/2)],

and setting it to ``δ1(1 − δ3)`` gives the **consistent** ``α1 = 2 γ⁻¹(δ1(1−δ3)/D_m + γ(s, α/2), s) − α``.
The authors' reference code instead uses ``α1 = γ⁻¹(δ1(1−δ3)/D_m + γ(s, α), s) − α`` (the
half-scale variable without the factor 2). That value is *smaller* than the consistent one in
every setting we tried (it is the half-length of an interval that starts at 2α), so it gives a
*larger* σ², i.e. more noise and never less privacy. It is the default here because it is what
reproduces the paper's utility table; the consistent variant is offered as ``alpha1="consistent"``
and labelled as not checked against the paper's theorem (its bound is about 57% of the default's).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpexplore.core import gaussian_sigma
from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_real,
)

from .problems import MAX_D

__all__ = [
    "QOP_INEXACT_DEFAULT_TAU",
    "qop_inexact_tau_floor",
    "ALPHA1_VARIANTS",
    "wishart_log_Dm",
    "wishart_lambda_min_cdf_bound",
    "wishart_alpha",
    "wishart_alpha1",
    "qop_sigma2",
    "qop_optimal_delta3_share",
    "qop_beta",
    "qop_output_sigma",
    "lop_regularization",
    "lop_noise_scale",
    "MAX_M",
]

#: Largest Wishart degrees of freedom m (QOP's d×m Gaussian factor; every Wishart function here).
MAX_M = 100_000

#: the two α1 calibrations (see the module docstring)
ALPHA1_VARIANTS = ("reference", "consistent")


# ---------------------------------------------------------------------------------------------
# vectorised kernels (no validation; NaN where a quantity is undefined). Used by the optimiser.
# ---------------------------------------------------------------------------------------------
def _log_Dm(d, m):
    d = np.asarray(d, dtype=float)
    m = np.asarray(m, dtype=float)
    gl = special.gammaln
    return (np.log(d) + gl(1.5) + gl((m + 1) / 2) - gl(d / 2 + 1) - gl((m - d + 1) / 2) - gl((m - d + 2) / 2))


def _inv_lower_gamma_reg(target_reg, s):
    """x with P(s, x) = target_reg (regularised), NaN where target_reg is not in [0, 1)."""
    target_reg = np.asarray(target_reg, dtype=float)
    ok = (target_reg >= 0) & (target_reg < 1)
    with np.errstate(invalid="ignore"):
        out = special.gammaincinv(s, np.where(ok, target_reg, 0.5))
    return np.where(ok, out, np.nan)


def _alpha(delta3, d, m):
    s = (np.asarray(m, dtype=float) - d + 1) / 2
    # γ⁻¹(δ3/D_m, s) = P⁻¹(δ3/(D_m Γ(s)), s), computed as exp(log δ3 − log D_m − log Γ(s))
    target = np.exp(np.log(delta3) - _log_Dm(d, m) - special.gammaln(s))
    return 2.0 * _inv_lower_gamma_reg(target, s)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(32)


def _gamma_increment(s, x0, add):
    """h > 0 with P(s, x0 + h) − P(s, x0) = add (P regularised), accurate even when h ≪ x0.

    ``gammaincinv(s, P(s, x0) + add) − x0`` loses every digit when h/x0 is near machine precision
    (it happens for the reference α1 at d = 100, m = 200: h ≈ 2e-15·x0), and so does any Newton
    iteration on the difference ``P(s, x0 + h) − P(s, x0)``: once h < ulp(x0), ``x0 + h == x0``, the
    difference is 0 and every Newton step adds the tangent step again (an earlier version did that
    16 times: +11% at (d, m) = (100, 200), 17× at (100, 400)).

    Two regimes:

    * h small against x0 (the tangent step h0 = add/p(x0) is < 10⁻⁴·x0): the increment is written
      relative to the density at x0, ``D(h)/p(x0) = ∫₀ʰ exp(g(t)) dt`` with
      ``g(t) = (s − 1)·log1p(t/x0) − t``, which never forms x0 + h; the integral is a 32-point
      Gauss–Legendre rule (g varies by at most (s − 1)·10⁻⁴ + h over [0, h], so the rule is exact to
      rounding), and Newton's method solves ``∫₀ʰ exp(g) = add/p(x0)`` from h0;
    * otherwise: Newton's method on ``P(s, x0 + h) − P(s, x0)`` (relative rounding error
      eps·P(s, x0)/add, harmless here) started from the plain inversion.

    Both functions of h are monotone and convex where the density increases (concave where it
    decreases), so Newton converges monotonically. NaN where P(s, x0) + add ≥ 1.
    Checked against 80-digit arithmetic (mpmath) in tests/erm/test_calibration.py.
    """
    s, x0, add = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (s, x0, add)))
    p0 = special.gammainc(s, x0)
    ok = np.isfinite(x0) & (x0 >= 0) & (p0 + add < 1) & (add > 0)
    s_, x_, a_ = np.where(ok, s, 1.0), np.where(ok, x0, 1.0), np.where(ok, add, 0.1)
    p_ = special.gammainc(s_, x_)

    def log_dens(x):
        with np.errstate(divide="ignore", over="ignore", under="ignore"):
            return (s_ - 1) * np.log(x) - x - special.gammaln(s_)

    with np.errstate(divide="ignore", over="ignore", under="ignore"):
        h_tan = np.exp(np.log(a_) - log_dens(x_))  # add/p(x0), the tangent step
    small = np.isfinite(h_tan) & (h_tan < 1e-4 * x_)

    # regime 1: relative to the density at x0, never forming x0 + h
    h1 = np.where(small, h_tan, 1.0)
    x1 = np.where(small, x_, 1.0)
    s1 = np.where(small, s_, 1.0)  # entries outside regime 1 iterate on a harmless dummy (s = x0 = h = 1)
    for _ in range(50):
        t = 0.5 * h1[..., None] * (_GL_NODES + 1.0)
        g = (s1[..., None] - 1) * np.log1p(t / x1[..., None]) - t
        integral = 0.5 * h1 * (np.exp(g) @ _GL_WEIGHTS)
        g_end = (s1 - 1) * np.log1p(h1 / x1) - h1
        step = (integral - np.where(small, h_tan, 1.0)) / np.exp(g_end)
        new = np.where(h1 - step > 0, h1 - step, h1 / 2)
        done = np.abs(new - h1) <= 4 * np.finfo(float).eps * h1
        h1 = new
        if np.all(done | ~small):
            break

    # regime 2: Newton on the difference of regularised P, from the plain inversion
    h2 = np.maximum(special.gammaincinv(s_, np.minimum(p_ + a_, 1 - 1e-16)) - x_, 1e-300)
    for _ in range(50):
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            step = (special.gammainc(s_, x_ + h2) - p_ - a_) / np.exp(log_dens(x_ + h2))
        step = np.where(np.isfinite(step) & ~small, step, 0.0)
        new = np.where(h2 - step > 0, h2 - step, h2 / 2)
        done = np.abs(new - h2) <= 1e-12 * h2
        h2 = new
        if np.all(done):
            break
    return np.where(ok, np.where(small, h1, h2), np.nan)


def _alpha1(delta1, delta3, d, m, variant, alpha=None):
    s = (np.asarray(m, dtype=float) - d + 1) / 2
    if alpha is None:
        alpha = _alpha(delta3, d, m)
    # δ1(1 − δ3)/D_m in the regularised scale (divided by Γ(s))
    add = np.exp(np.log(delta1) + np.log1p(-np.asarray(delta3, dtype=float)) - _log_Dm(d, m) - special.gammaln(s))
    if variant == "reference":  # authors' code: γ⁻¹(δ1(1−δ3)/D_m + γ(s, α), s) − α
        return _gamma_increment(s, alpha, add)
    # consistent with α's scaling: 2 γ⁻¹(δ1(1−δ3)/D_m + γ(s, α/2), s) − α = 2 h(s, α/2)
    return 2.0 * _gamma_increment(s, alpha / 2, add)


def _sigma2_terms(epsilon1, delta1, delta3, L, d, m, rho, variant):
    """The two terms of σ²'s max (NaN where undefined), α and α1."""
    m = np.asarray(m, dtype=float)
    alpha = _alpha(delta3, d, m)
    alpha1 = _alpha1(delta1, delta3, d, m, variant, alpha)
    ok = np.isfinite(alpha) & np.isfinite(alpha1) & (alpha > 0) & (alpha1 > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # α = 0: NaN (ok); α1 tiny: σ² = inf
        f2 = (m - d + 1) / alpha + 1.0
        a_term = np.where(ok, 2 * L / epsilon1 * (f2 + 2 * (2 * rho + 2) / alpha), np.nan)
        b_term = np.where(ok, 2 * L / alpha1, np.nan)
    return a_term, b_term, alpha, alpha1


def _sigma2(epsilon1, delta1, delta3, L, d, m, rho, variant):
    a_term, b_term, alpha, alpha1 = _sigma2_terms(epsilon1, delta1, delta3, L, d, m, rho, variant)
    return np.maximum(a_term, b_term), alpha, alpha1


def _beta(delta3, delta4, d, m):
    return (np.sqrt(2 * np.log(2 / (delta4 * (1 - delta3)))) + np.sqrt(m) + np.sqrt(d)) ** 2


def _output_sigma_paper(tau, eta, epsilon2, delta2, alpha, sigma2, beta):
    sens = np.sqrt(2 * tau / (alpha * sigma2)) + beta * eta / alpha
    return sens * (2 / epsilon2) * np.sqrt(2 * np.log(1.25 / delta2))


def _check_dm(d, m):
    d = check_int(d, "d", low=1, high=MAX_D)
    m = check_real(m, "m", low=float(d), high=float(MAX_M))
    return d, m


# ---------------------------------------------------------------------------------------------
# public scalar functions
# ---------------------------------------------------------------------------------------------
def wishart_log_Dm(d: int, m: float) -> float:
    """log D_m, the constant of the λ_min tail bound (computed in log-gamma).

    Parameters
    ----------
    d : int
        Dimension (W is d × d).
    m : float
        Degrees of freedom, m ≥ d (real values allowed for the optimiser).

    Returns
    -------
    float

    Examples
    --------
    >>> import math
    >>> round(math.exp(wishart_log_Dm(1, 4)), 6)  # d = 1: D_m = 1/Γ(m/2)
    1.0
    """
    d, m = _check_dm(d, m)
    return float(_log_Dm(d, m))


def wishart_lambda_min_cdf_bound(x, d: int, m: float):
    """Upper bound ``D_m γ(s, x/2)`` on ``P(λ_min(W) < x)`` for W = G Gᵀ, G ∈ R^{d×m} Gaussian.

    Exact (the χ²_m CDF) for d = 1. Values above 1 are returned as they are (the bound is vacuous
    there; it may then be +inf when it exceeds float64). d ≤ ``MAX_D`` (10⁴) and d ≤ m ≤ ``MAX_M``
    (10⁵), as for every Wishart function here. See the module docstring for the derivation.

    Parameters
    ----------
    x : float or array
        Thresholds ≥ 0.
    d : int
    m : float

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from scipy import stats
    >>> b = wishart_lambda_min_cdf_bound(3.0, 1, 5)
    >>> bool(abs(b - stats.chi2.cdf(3.0, 5)) < 1e-12)
    True
    """
    d, m = _check_dm(d, m)
    xs = check_array(x, "x", finite=False)  # complex, str, bool: TypeError naming x
    if np.any(~np.isfinite(xs)) or np.any(xs < 0):
        raise ValueError(f"x must be finite numbers >= 0; got {x!r}")
    s = (m - d + 1) / 2
    with np.errstate(over="ignore", invalid="ignore"):  # a vacuous bound may exceed float64: it is then +inf
        coef = np.exp(_log_Dm(d, m) + special.gammaln(s))
        g = special.gammainc(s, xs / 2)
        out = np.where(g == 0, 0.0, coef * g)
    return float(out) if out.ndim == 0 else out


def wishart_alpha(delta3: float, d: int, m: float) -> float:
    """α = 2 γ⁻¹(δ3/D_m, s): a value with P(λ_min(W) < α) ≤ δ3 [paper + reference code].

    Returns NaN if δ3 ≥ D_m Γ(s) (then the bound gives no finite quantile).

    Examples
    --------
    >>> from scipy import stats
    >>> a = wishart_alpha(0.05, 1, 6)  # d = 1: the exact 5% quantile of χ²_6
    >>> bool(abs(a - stats.chi2.ppf(0.05, 6)) < 1e-9)
    True
    """
    delta3 = check_delta(delta3, "delta3")
    d, m = _check_dm(d, m)
    return float(_alpha(delta3, d, m))


def wishart_alpha1(delta1: float, delta3: float, d: int, m: float, *, variant: str = "reference") -> float:
    """The gap α1 of the QOP calibration, in the reference-code or the consistent variant.

    Parameters
    ----------
    delta1, delta3 : float
        Parts of the privacy budget δ (δ1 for the gap, δ3 for the λ_min quantile α).
    d : int
    m : float
    variant : {"reference", "consistent"}
        ``"reference"`` (default): the authors' code, ``γ⁻¹(δ1(1−δ3)/D_m + γ(s, α), s) − α``; it
        reproduces the paper's table and is the conservative choice (smaller α1, larger σ²).
        ``"consistent"``: ``2γ⁻¹(δ1(1−δ3)/D_m + γ(s, α/2), s) − α``, derived from the same
        λ_min density bound as α (module docstring); tighter, **not checked against the paper's
        theorem**.

    Returns
    -------
    float
        NaN where undefined.

    Examples
    --------
    >>> r = wishart_alpha1(0.005, 0.005, 100, 200)
    >>> c = wishart_alpha1(0.005, 0.005, 100, 200, variant="consistent")
    >>> bool(0 < r < c)
    True
    """
    delta1 = check_delta(delta1, "delta1")
    delta3 = check_delta(delta3, "delta3")
    d, m = _check_dm(d, m)
    variant = check_choice(variant, "alpha1", ALPHA1_VARIANTS)
    return float(_alpha1(delta1, delta3, d, m, variant))


def qop_sigma2(
    epsilon1: float, delta1: float, delta3: float, *, L: float, d: int, m: float, rho: float = 1.0,
    alpha1: str = "reference",
) -> float:
    """Weight σ² of QOP's quadratic for privacy (ε1, δ1 + δ3) [paper + reference code].

    ``σ² = max((2L/ε1)(f2 + 2(2ρ + 2)/α), 2L/α1)`` with ``f2 = (m − d + 1)/α + 1``.

    Parameters
    ----------
    epsilon1 : float
        ε spent by the perturbation.
    delta1, delta3 : float
        δ parts: δ3 for the λ_min quantile α, δ1 for the gap α1.
    L : float
        Smoothness of every per-example loss (a public bound).
    d : int
        Dimension.
    m : float
        Wishart degrees of freedom (m ≥ d).
    rho : float
        Bound on the rank of the per-example Hessians (1 for least squares).
    alpha1 : {"reference", "consistent"}
        See :func:`wishart_alpha1`.

    Returns
    -------
    float
        NaN if α or α1 is undefined for these parameters.

    Examples
    --------
    >>> s_ref = qop_sigma2(0.5, 0.005, 0.005, L=25.0, d=100, m=200)
    >>> s_con = qop_sigma2(0.5, 0.005, 0.005, L=25.0, d=100, m=200, alpha1="consistent")
    >>> bool(s_con <= s_ref)
    True
    """
    epsilon1 = check_epsilon(epsilon1, "epsilon1")
    delta1 = check_delta(delta1, "delta1")
    delta3 = check_delta(delta3, "delta3")
    L = check_positive(L, "L")
    d, m = _check_dm(d, m)
    rho = check_positive(rho, "rho")
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    return float(_sigma2(epsilon1, delta1, delta3, L, d, m, rho, alpha1)[0])


def qop_optimal_delta3_share(
    epsilon1: float, delta: float, *, L: float, d: int, m: float, rho: float = 1.0, alpha1: str = "reference",
) -> float:
    """The share δ3/δ that minimises QOP's σ² for a total δ = δ1 + δ3 [this package; public inputs only].

    The optimum sits at a very uneven split (δ3 ≪ δ1: α only needs a far-out quantile of λ_min, the
    gap α1 needs most of δ), so a linear grid of shares misses it; this searches log10(δ3/δ) on a
    grid of 4000 points in [−300, log10(0.999)] and refines the best cell with a bounded scalar
    minimisation. At the reference experiment's d = 100, m = 200, ε = 0.5, δ = 0.01 it lowers σ²
    by a factor ≈ 10¹² against the even split δ3 = δ/2 (the reference code's choice). Everything is a
    function of public quantities, so using it keeps the mechanism's noise data-independent.

    Returns
    -------
    float
        δ3/δ in (0, 1). Raises ValueError if no share gives a finite σ².

    Examples
    --------
    >>> share = qop_optimal_delta3_share(0.5, 0.01, L=25.0, d=100, m=200)
    >>> -15 < math.log10(share) < -12
    True
    >>> half = qop_sigma2(0.5, 0.005, 0.005, L=25.0, d=100, m=200)
    >>> best = qop_sigma2(0.5, 0.01 * (1 - share), 0.01 * share, L=25.0, d=100, m=200)
    >>> bool(half / best > 1e11)
    True
    """
    from scipy import optimize

    epsilon1 = check_epsilon(epsilon1, "epsilon1")
    delta = check_delta(delta)
    L = check_positive(L, "L")
    d, m = _check_dm(d, m)
    rho = check_positive(rho, "rho")
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)

    def log_s2(u):
        d3 = delta * 10.0 ** np.asarray(u, dtype=float)
        with np.errstate(all="ignore"):
            v = _sigma2(epsilon1, delta - d3, d3, L, d, m, rho, alpha1)[0]
        return np.where(np.isfinite(v) & (v > 0), np.log(np.where(v > 0, v, 1.0)), np.inf)

    grid = np.linspace(-300.0, math.log10(0.999), 4000)
    vals = log_s2(grid)
    i = int(np.argmin(vals))
    if not np.isfinite(vals[i]):
        raise ValueError(f"QOP calibration undefined for every delta split at d={d}, m={m}, delta={delta:g}")
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    r = optimize.minimize_scalar(lambda u: float(log_s2(u)), bounds=(lo, hi), method="bounded",
                                 options={"xatol": 1e-6})
    u = float(r.x) if r.fun <= vals[i] else float(grid[i])
    return float(10.0**u)


def qop_beta(delta3: float, delta4: float, d: int, m: float) -> float:
    """High-probability bound β on λ_max(W): ``(√(2 ln(2/(δ4(1−δ3)))) + √m + √d)²`` [paper].

    Examples
    --------
    >>> round(qop_beta(1e-3, 1e-3, 10, 20), 3)
    133.024
    """
    delta3 = check_delta(delta3, "delta3")
    delta4 = check_delta(delta4, "delta4")
    d, m = _check_dm(d, m)
    return float(_beta(delta3, delta4, d, m))


def qop_output_sigma(
    tau: float, eta: float, *, epsilon2: float, delta2: float, alpha: float, sigma2: float, beta: float,
    calibration: str = "paper",
) -> float:
    """Standard deviation σ̃ of the Gaussian output noise of an inexact QOP solve [paper].

    The released solution moves by at most ``Δ₂ = 2(√(2τ/(ασ²)) + βη/α)`` between neighbouring
    data sets (τ: solver suboptimality, η: anchor accuracy), and a Gaussian mechanism with that
    ℓ2-sensitivity is calibrated to (ε2, δ2).

    Parameters
    ----------
    tau, eta : float
        Solver accuracy τ ≥ 0 and anchor accuracy η ≥ 0.
    epsilon2, delta2 : float
        Budget of the output noise.
    alpha, sigma2, beta : float
        From :func:`wishart_alpha`, :func:`qop_sigma2`, :func:`qop_beta`.
    calibration : {"paper", "analytic"}
        ``"paper"``: the paper's (and reference code's) classic formula
        ``σ̃ = Δ₂ √(2 ln(1.25/δ2))/ε2``, kept so the utility bounds match the paper; note that the
        classic Gaussian bound is only proven for ε2 < 1. ``"analytic"``:
        ``dpexplore.core.gaussian_sigma(ε2, δ2, Δ₂)`` (Balle & Wang 2018), valid for every ε2 and
        never larger.

    Returns
    -------
    float
        0 when τ = η = 0 (an exact solve needs no output noise).

    Examples
    --------
    >>> round(qop_output_sigma(0.0, 0.0, epsilon2=0.5, delta2=1e-3, alpha=1.0, sigma2=1.0, beta=1.0), 3)
    0.0
    >>> round(qop_output_sigma(1e-3, 0.0, epsilon2=0.5, delta2=1e-3, alpha=1.0, sigma2=1.0, beta=1.0), 4)
    0.6756
    """
    tau = check_positive(tau, "tau", allow_zero=True)
    eta = check_positive(eta, "eta", allow_zero=True)
    epsilon2 = check_epsilon(epsilon2, "epsilon2")
    delta2 = check_delta(delta2, "delta2")
    alpha = check_positive(alpha, "alpha")
    sigma2 = check_positive(sigma2, "sigma2")
    beta = check_positive(beta, "beta")
    calibration = check_choice(calibration, "calibration", ("paper", "analytic"))
    half_sens = math.sqrt(2 * tau / (alpha * sigma2)) + beta * eta / alpha
    if half_sens == 0:
        return 0.0
    if calibration == "paper":
        return float(_output_sigma_paper(tau, eta, epsilon2, delta2, alpha, sigma2, beta))
    return gaussian_sigma(epsilon2, delta2, 2.0 * half_sens)


#: τ used by ``tau="auto"`` unless double precision cannot certify it (see :func:`qop_inexact_tau_floor`)
QOP_INEXACT_DEFAULT_TAU = 1e-6


def qop_inexact_tau_floor(*, sigma2: float, alpha: float, beta: float, n: int, L: float, radius: float,
                          d: int) -> float:
    """Rounding floor of the suboptimality that a double-precision solve can certify [this package].

    ``qop_inexact`` checks its declared τ with the certificate ‖G‖²/(2μ) of one prox-gradient step
    (:func:`~dpexplore.erm.solvers.prox_gradient_certificate`), G = L_f(θ − θ⁺). Computing θ⁺ from a
    double-precision θ carries a rounding error of about u(1 + ‖θ‖) (u = 2⁻⁵²), which G multiplies
    by L_f; so no solve can certify less than about

        (L_f · u · (1 + κ√d))² / (2σ²α),   L_f = nL + σ²β,

    with the public bounds ‖θ‖ ≤ κ√d, λ_max(W) ≤ β and λ_min(W) ≥ α. All inputs are public (no
    data), so a τ chosen from this floor keeps the release's noise data-independent. When σ² is
    huge (the α1 term of the calibration can give σ² ≈ 10²⁷) the floor exceeds 10⁻⁶ by orders of
    magnitude, but it is still tiny as a distance: ‖θ̂ − θ*‖ ≤ √(2τ/(ασ²)) = √2·(L_f/(σ²α))·u(1 + κ√d).

    Examples
    --------
    >>> f = qop_inexact_tau_floor(sigma2=1e20, alpha=10.0, beta=800.0, n=300, L=1.0, radius=10.0, d=100)
    >>> f > 1e-6, (2 * f / (10.0 * 1e20)) ** 0.5 < 1e-10  # above 1e-6 as a value, tiny as a distance
    (True, True)
    """
    s2 = check_positive(sigma2, "sigma2")
    a = check_positive(alpha, "alpha")
    b = check_positive(beta, "beta")
    n = check_int(n, "n", low=1)
    L = check_positive(L, "L")
    kappa = check_positive(radius, "radius")
    d = check_int(d, "d", low=1, high=MAX_D)
    u = 2.0**-52
    Lf = n * L + s2 * b
    return float((Lf * u * (1.0 + kappa * math.sqrt(d))) ** 2 / (2.0 * s2 * a))


def lop_regularization(epsilon: float, L: float) -> float:
    """LOP's ridge weight Δ = 2L/ε (Kifer, Smith & Thakurta 2012).

    Examples
    --------
    >>> lop_regularization(0.5, 25.0)
    100.0
    """
    return 2.0 * check_positive(L, "L") / check_epsilon(epsilon)


def lop_noise_scale(epsilon: float, delta: float, grad_bound: float) -> float:
    """LOP's noise scale σ_b = ζ √(8 ln(2/δ) + 4ε)/ε (Kifer, Smith & Thakurta 2012, approximate DP).

    ζ is the per-example gradient bound over the constraint set: for least squares on the box
    ‖θ‖_∞ ≤ κ it grows linearly in κ, so σ_b does too (and LOP's risk like κ²).

    This is KST's own calibration, not a plain Gaussian mechanism, so it does not go through
    ``dpexplore.core.gaussian_sigma``.

    Examples
    --------
    >>> round(lop_noise_scale(1.0, 1e-5, 1.0), 4)
    10.0821
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    zeta = check_positive(grad_bound, "grad_bound")
    return zeta * math.sqrt(8 * math.log(2 / delta) + 4 * eps) / eps
