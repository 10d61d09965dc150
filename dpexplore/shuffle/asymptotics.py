"""Asymptotics of the shuffled histogram: JSD, Gaussian DP, multi-message, Chernoff, Poisson.

Paper 4 (Shvets 2026), Sections 4–7:

* JSD(T_{n,k} ‖ T_{n,k+1}) = I_π/(8n) + O(n⁻²); canonical two-term expansion
  χ²/(8n) + n⁻²[(7/64)(χ²)² − μ3/16] (Thm on the JSD expansion).
* GDP equivalence: the pair is asymptotically a Gaussian shift with μ_n = √(I_π/n); trade-off
  curves converge at rate O(n^{−1/2}). **An approximation, not a certified bound at finite n.**
* Unbundled m messages: μ_unb = √(m I_π/n); bundled: μ_bun = √(((1 + χ²)^m − 1)/n).
* Chernoff upper bounds on δ(ε) for the canonical pair (certified, any alphabet).
* Boundary regime: with a_n = e^{ε0}/n not small, binary-RR counts are Poisson:
  T_{n,0} → Poi(λ), T_{n,1} → 1 + Poi(λ), λ = n/(e^{ε0} + 1) ≈ 1/a_n; the reverse direction has
  a δ floor e^{−λ} at every ε (the output "0 ones" is impossible under T_{n,1} in the limit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from dpexplore.core.gaussian import gdp_delta, gdp_epsilon, gdp_tradeoff
from dpexplore.core.validation import check_choice, check_delta, check_int, check_positive

from ._validate import MAX_N_FORMULA, check_real_array
from .constants import _check_randomizer, chi_square, fisher_constant, mu3
from .exact import MAX_MESSAGES
from .randomizers import Randomizer

__all__ = [
    "gdp_mu",
    "gdp_mu_multi",
    "gdp_epsilon_multi",
    "CappedEpsilon",
    "gdp_delta_curve",
    "gdp_epsilon_at",
    "tradeoff_gdp",
    "jsd_asymptotic",
    "jsd_two_term",
    "chernoff_delta",
    "chernoff_epsilon",
    "poisson_lambda",
    "poisson_delta",
]


def _pi(n: int, k: int) -> float:
    return k / n


def gdp_mu(randomizer: Randomizer, n: int, k: int = 0) -> float:
    """Asymptotic GDP parameter μ_n = √(I_π/n), π = k/n (paper, GDP equivalence theorem).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(gdp_mu(binary_rr(1.0), 1000), 6)
    0.032957
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    k = check_int(k, "k", low=0, high=n - 1)
    return math.sqrt(fisher_constant(R, _pi(n, k)) / n)


def gdp_mu_multi(randomizer: Randomizer, n: int, m: int, *, bundled: bool = False, k: int = 0) -> float:
    """GDP μ with m messages per user: unbundled √(m I_π/n), bundled √(((1 + χ²)^m − 1)/n).

    Unbundled: each message is shuffled on its own (nm messages). Bundled: the m messages
    travel together, i.e. one randomizer with the product alphabet, whose χ² is (1 + χ²)^m − 1.
    The bundled formula is the canonical (k = 0) one: for k > 0 this returns NaN (condition not
    covered by the paper's formula). m ≤ ``MAX_MESSAGES`` (10 000); a bundled μ beyond float range
    is ``inf`` (the ε it implies is capped at m·ε0 by :func:`gdp_epsilon_multi`).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> R = binary_rr(1.0)
    >>> gdp_mu_multi(R, 1000, 3) < gdp_mu_multi(R, 1000, 3, bundled=True)
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    m = check_int(m, "m", low=1, high=MAX_MESSAGES)
    k = check_int(k, "k", low=0, high=n - 1)
    if bundled:
        if k != 0:
            return math.nan
        log_mu2 = m * math.log1p(chi_square(R))  # log((1 + χ²)^m) — may exceed float range
        if log_mu2 > 700.0:
            return math.inf
        return math.sqrt(math.expm1(log_mu2) / n)
    return math.sqrt(m * fisher_constant(R, _pi(n, k)) / n)


@dataclass(frozen=True)
class CappedEpsilon:
    """An ε with the trivial bound applied: ``epsilon = min(uncapped, cap)``; ``capped`` says it binds."""

    epsilon: float
    uncapped: float
    cap: float
    capped: bool


def gdp_epsilon_multi(randomizer: Randomizer, n: int, m: int, delta: float, *, bundled: bool = False) -> CappedEpsilon:
    """GDP ε(δ) of m messages per user, capped at the trivial bound m·ε0 (m reports are m·ε0-LDP).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> r = gdp_epsilon_multi(binary_rr(4.0), 100_000, 10, 1e-6, bundled=True)
    >>> r.epsilon, r.capped
    (40.0, True)
    """
    R = _check_randomizer(randomizer)
    delta = check_delta(delta)
    mu = gdp_mu_multi(R, n, m, bundled=bundled)
    cap = m * R.local_epsilon
    raw = math.inf if not math.isfinite(mu) else gdp_epsilon_at(mu, delta)
    return CappedEpsilon(min(raw, cap), raw, cap, raw > cap)


def gdp_delta_curve(mu: float, epsilon) -> np.ndarray | float:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) of μ-GDP, vectorised (Dong, Roth & Su 2022).

    Examples
    --------
    >>> [round(gdp_delta_curve(m, e), 6) for m, e in [(1, 0), (1, 1), (0.5, 0.5)]]
    [0.382925, 0.126937, 0.05244]
    """
    mu = check_positive(mu, "mu")
    eps = check_real_array(epsilon, "epsilon")
    out = np.array([gdp_delta(mu, float(e)) for e in eps.ravel()]).reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


_MU_SATURATE = 1e150  # μ above which μ² overflows float64: the GDP ε is +inf


def gdp_epsilon_at(mu: float, delta: float) -> float:
    """Smallest ε with μ-GDP δ(ε) ≤ δ (``dpexplore.core.gdp_epsilon``), uncapped.

    A GDP ε is not capped here (μ alone does not know ε0): use :func:`gdp_epsilon_multi` or
    :func:`dpexplore.shuffle.shuffled_epsilon_capped`, which apply the trivial bound.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(gdp_epsilon_at(gdp_mu(binary_rr(1.0), 1000), 1e-6), 4)
    0.1212
    """
    m = check_positive(mu, "mu")
    check_delta(delta)
    if m > _MU_SATURATE:
        return math.inf  # ε ≥ μ²/2 − μ·Φ⁻¹(1 − δ) > 10²⁹⁹: saturates (no float64 ε is meaningful)
    return gdp_epsilon(mu, delta)


def tradeoff_gdp(mu: float, alpha):
    """Gaussian trade-off T_μ(α) = Φ(Φ⁻¹(1 − α) − μ).

    Examples
    --------
    >>> round(float(tradeoff_gdp(1.0, 0.05)), 4)
    0.7405
    """
    mu = check_positive(mu, "mu")
    a = check_real_array(alpha, "alpha", high=1.0)
    out = gdp_tradeoff(mu, a)
    return float(out) if np.ndim(out) == 0 else out


def jsd_asymptotic(randomizer: Randomizer, n: int, k: int = 0) -> float:
    """Leading JSD term I_π/(8n) (paper, JSD theorem; natural log).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> f"{jsd_asymptotic(binary_rr(1.0), 100):.6e}"
    '1.357702e-03'
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    k = check_int(k, "k", low=0, high=n - 1)
    return fisher_constant(R, _pi(n, k)) / (8.0 * n)


def jsd_two_term(randomizer: Randomizer, n: int) -> float:
    """Canonical (k = 0) two-term JSD expansion χ²/(8n) + n⁻²[(7/64)(χ²)² − μ3/16].

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> f"{jsd_two_term(binary_rr(1.0), 100):.4e}"
    '1.3632e-03'
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    c2, m3 = chi_square(R), mu3(R)
    val = c2 / (8.0 * n) + (7.0 / 64.0 * c2 * c2 - m3 / 16.0) / (n * n)
    if not math.isfinite(val):  # ε0 ≳ 236: (χ²)² or μ3 overflow float64 and the two terms are inf − inf
        raise ValueError(f"randomizer: the two-term JSD expansion overflows float64 for {R.name} (χ² = {c2:.3g}, "
                         f"μ3 = {m3:.3g}); it is meaningful only where n ≫ χ² — use a smaller epsilon0")
    return val


# -- Chernoff bounds ---------------------------------------------------------------------------
def _log_mgf(xi: np.ndarray, w0: np.ndarray, t) -> np.ndarray:
    """log M(t) = log E_{W0} e^{t ξ}, vectorised over t (numerically stable log-sum-exp)."""
    a = np.multiply.outer(np.asarray(t, dtype=float), xi)
    mx = a.max(axis=-1, keepdims=True)
    return (mx[..., 0] + np.log(np.sum(w0 * np.exp(a - mx), axis=-1)))


def _chernoff_log(R: Randomizer, n: int, eps: float, direction: str) -> float:
    """log of inf_λ of the Chernoff bound (canonical pair), λ = e^s searched on a log scale.

    The objective is convex in λ, hence unimodal in s: a 241-point grid locates the minimum and a
    bounded Brent search refines it between the neighbouring grid points.
    """
    eps = min(eps, 700.0)  # δ(ε) ≤ e^{−700}·… beyond: the bound saturates at its ε = 700 value
    if direction == "forward":
        c, sign, pre = math.expm1(eps), 1.0, 0.0
    else:
        c, sign, pre = -math.expm1(-eps), -1.0, eps
    if c <= 0:
        return 0.0  # ε = 0: the bound is ≥ 1 anyway
    Rg = R.grouped()
    xi, w0 = Rg.xi, Rg.W0

    def g(s):
        lam = np.exp(s)
        with np.errstate(over="ignore", invalid="ignore"):  # huge λ: the objective is +inf or nan, never the min
            v = pre - lam * c - 1.0 + n * _log_mgf(xi, w0, sign * lam / n) - s
        return np.where(np.isnan(v), np.inf, v)

    hi = math.log(1e3 * n * (1.0 + 1.0 / c))
    grid = np.linspace(-30.0, hi, 241)
    vals = g(grid)
    i = int(np.argmin(vals))
    best = float(vals[i])
    lo_s, hi_s = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = optimize.minimize_scalar(lambda s: float(g(s)), bounds=(lo_s, hi_s), method="bounded",
                                   options={"xatol": 1e-10})
    return min(best, float(res.fun), 0.0)


def chernoff_delta(randomizer: Randomizer, n: int, epsilon, direction: str = "max"):
    """Chernoff upper bound on the exact δ(ε) of the canonical pair (T_{n,0}, T_{n,1}) only (not the worst case).

    With M(λ) = E_{W_0} e^{λξ}:
    forward δ(ε) ≤ inf_λ exp(−λ(e^ε − 1) − 1) M(λ/n)ⁿ/λ,
    reverse δ(ε) ≤ inf_λ e^ε exp(−λ(1 − e^{−ε}) − 1) M(−λ/n)ⁿ/λ
    (from (x)_+ ≤ e^{λx−1}/λ). A certified bound for every n and any finite alphabet.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr, exact_delta
    >>> R = binary_rr(1.0)
    >>> bool(chernoff_delta(R, 1000, 0.2) >= exact_delta(R, 1000, 0.2, k=0))  # the canonical pair
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    direction = check_choice(direction, "direction", ("max", "forward", "reverse"))
    eps = check_real_array(epsilon, "epsilon")
    dirs = ("forward", "reverse") if direction == "max" else (direction,)
    out = np.array([max(math.exp(_chernoff_log(R, n, float(e), d)) for d in dirs) for e in eps.ravel()])
    out = out.reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


def chernoff_epsilon(randomizer: Randomizer, n: int, delta: float, direction: str = "max") -> float:
    """Smallest ε whose Chernoff bound is ≤ δ (an upper bound on the exact ε(δ)).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr, exact_epsilon
    >>> R = binary_rr(1.0)
    >>> chernoff_epsilon(R, 1000, 1e-6) >= exact_epsilon(R, 1000, 1e-6, k=0)
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    delta = check_delta(delta)
    direction = check_choice(direction, "direction", ("max", "forward", "reverse"))
    dirs = ("forward", "reverse") if direction == "max" else (direction,)
    target = math.log(delta)
    out = 0.0
    for d in dirs:
        f = lambda e, d=d: _chernoff_log(R, n, e, d) - target  # noqa: E731
        if f(0.0) <= 0:
            continue
        hi = 1.0
        while f(hi) > 0 and hi < 1e3:
            hi *= 2.0
        if f(hi) > 0:
            return math.inf
        out = max(out, float(optimize.brentq(f, 0.0, hi, xtol=1e-10, rtol=1e-10)))
    return out


# -- Poisson boundary regime ---------------------------------------------------------------
def poisson_lambda(epsilon0: float, n: int) -> float:
    """λ = n/(e^{ε0} + 1): the mean number of "1" reports under T_{n,0} for binary RR (≈ 1/a_n).

    The spec writes the regime as e^{ε0} = n/c²; then λ = n e^{−ε0} = c² = 1/a_n.

    Examples
    --------
    >>> round(poisson_lambda(math.log(1000.0), 1000), 4)
    0.999
    """
    e0 = check_positive(epsilon0, "epsilon0")
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    return n / (math.exp(min(e0, 700.0)) + 1.0)


def poisson_delta(lam: float, epsilon, direction: str = "max"):
    """δ(ε) of the Poisson limit pair P = 1 + Poi(λ), Q = Poi(λ) (paper Part II, boundary regime).

    forward: Σ_x (Poi(x − 1; λ) − e^ε Poi(x; λ))_+ (ratio x/λ); reverse: Σ_x (Poi(x; λ) − e^ε
    Poi(x − 1; λ))_+ ≥ e^{−λ} for every ε (the floor).

    Examples
    --------
    >>> round(poisson_delta(2.0, 50.0, "reverse"), 6) == round(math.exp(-2.0), 6)
    True
    """
    lam = check_positive(lam, "lam")
    if lam > MAX_N_FORMULA:  # λ is a mean count of reports: never above the users' public maximum
        raise ValueError(f"lam must be a finite number > 0 and <= {MAX_N_FORMULA:.0e}; got {lam!r}")
    direction = check_choice(direction, "direction", ("max", "forward", "reverse"))
    eps = check_real_array(epsilon, "epsilon")
    out = []
    for e in eps.ravel():
        ee = math.exp(min(float(e), 700.0))
        vals = []
        if direction in ("forward", "max"):
            x0 = math.floor(lam * ee) + 1.0 if lam * ee < 2.0**62 else math.inf  # first x with x/λ > e^ε
            if math.isinf(x0):  # beyond λ + 10¹⁰ sd: the tail is 0 in float64 (saturates)
                vals.append(0.0)
            else:
                d = stats.poisson.sf(x0 - 2, lam) - ee * stats.poisson.sf(x0 - 1, lam)
                vals.append(max(float(d), 0.0))
        if direction in ("reverse", "max"):
            x1 = math.ceil(lam / ee) - 1  # last x with x/λ < e^{−ε}
            d = stats.poisson.cdf(x1, lam) - ee * stats.poisson.cdf(x1 - 1, lam)
            vals.append(max(float(d), 0.0))
        out.append(max(vals))
    arr = np.array(out).reshape(eps.shape)
    return float(arr) if arr.ndim == 0 else arr


