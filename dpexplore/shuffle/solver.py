"""How much local ε0 can I afford? The largest ε0 whose shuffled guarantee meets a target (ε, δ).

Every accounting below is non-decreasing in ε0, so a bisection on ε0 finds the answer. The payoff
of a sharper accounting is a larger ε0, hence a less noisy randomizer: for estimating the
fraction π of users with input 1 from the histogram, the variance is 1/(n I_π(ε0)) to first
order (Cramér–Rao with the fixed-composition Fisher constant; exact for the debiased binary-RR
estimator, whose variance is e^{ε0}/(n(e^{ε0} − 1)²) = 1/(nχ²)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize

from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int

from . import asymptotics as A
from . import bounds as B
from .constants import fisher_constant
from .exact import GRID_CELL_LIMIT, exact_delta, exact_epsilon
from .randomizers import k_rr

__all__ = ["ACCOUNTINGS", "AffordableEpsilon0", "shuffled_epsilon", "affordable_epsilon0", "frequency_variance"]

#: accounting name -> (label, kind)
ACCOUNTINGS = {
    "exact": ("exact (this data-set pair, k = 0)", "exact"),
    "gdp": ("GDP μ = √(χ²/n)", "approximation"),
    "chernoff": ("Chernoff", "bound"),
    "fmt21_numerical": ("FMT21 clones, numerical", "bound"),
    "fmt23_numerical": ("FMT23 clones, numerical", "bound"),
    "fmt21_closed_form": ("FMT21 closed form", "bound"),
    "blanket": ("privacy blanket (BBGN19)", "bound"),
}


def shuffled_epsilon(epsilon0: float, n: int, delta: float, *, accounting: str, k: int = 2) -> float:
    """ε of n shuffled k-RR reports (k = 2: binary RR) at δ under one accounting.

    ``"exact"`` and ``"chernoff"``/``"gdp"`` are for the canonical pair of k-RR (the exact k-RR
    curve needs the trinomial grid, so k > 2 requires (n + 1)² ≤ 4·10⁶; NaN otherwise). The
    FMT and blanket bounds hold for every data set. NaN means "this accounting says nothing here".

    Examples
    --------
    >>> e = {a: shuffled_epsilon(4.0, 100_000, 1e-6, accounting=a) for a in ("exact", "fmt21_closed_form")}
    >>> round(e["exact"], 4), round(e["fmt21_closed_form"], 4)
    (0.0847, 0.5378)
    """
    accounting = check_choice(accounting, "accounting", tuple(ACCOUNTINGS))
    k = check_int(k, "k", low=2)
    R = k_rr(epsilon0, k)
    if accounting == "exact":
        if k > 2 and (n + 1) ** 2 > GRID_CELL_LIMIT:
            return math.nan
        return exact_epsilon(R, n, delta)
    if accounting == "gdp":
        return A.gdp_epsilon_at(A.gdp_mu(R, n), delta)
    if accounting == "chernoff":
        return A.chernoff_epsilon(R, n, delta)
    if accounting == "blanket":
        return B.blanket_epsilon(epsilon0, n, delta, k=k)
    if accounting == "fmt21_closed_form":
        return B.fmt21_epsilon(epsilon0, n, delta)
    return B.fmt_epsilon(epsilon0, n, delta, variant=accounting[:5])


@dataclass(frozen=True)
class AffordableEpsilon0:
    """Result of :func:`affordable_epsilon0`.

    Attributes
    ----------
    accounting : str
    epsilon0 : float
        Largest local ε0 meeting the target (NaN if even tiny ε0 fails under this accounting).
    epsilon : float
        The shuffled ε that accounting gives at that ε0 (≤ the target).
    variance : float
        Frequency-estimation variance 1/(n I(ε0)) at that ε0.
    note : str
        Why an entry is NaN, or which cap was hit.
    """

    accounting: str
    epsilon0: float
    epsilon: float
    variance: float
    note: str = ""


def frequency_variance(epsilon0: float, n: int, *, k: int = 2) -> float:
    """First-order variance 1/(n I(ε0)) of estimating the fraction of 1-inputs (k-RR, π = 0).

    Examples
    --------
    >>> round(frequency_variance(1.0, 1000), 7)  # e/(n (e − 1)²)
    0.0009207
    """
    n = check_int(n, "n", low=1)
    return 1.0 / (n * fisher_constant(k_rr(epsilon0, k), 0.0))


def _delta_at(epsilon0: float, n: int, epsilon: float, accounting: str, k: int) -> float:
    """δ that an accounting certifies (or approximates) at ε for n shuffled k-RR(ε0) reports."""
    R = k_rr(epsilon0, k)
    if accounting == "exact":
        return float(exact_delta(R, n, epsilon))
    if accounting == "gdp":
        return A.gdp_delta_curve(A.gdp_mu(R, n), epsilon)
    if accounting == "chernoff":
        return float(A.chernoff_delta(R, n, epsilon))
    return float(B.fmt_delta(epsilon0, n, epsilon, variant=accounting[:5]))


def affordable_epsilon0(epsilon: float, delta: float, n: int, *, accounting: str, k: int = 2,
                        epsilon0_max: float = 12.0, tol: float = 1e-4) -> AffordableEpsilon0:
    """The largest ε0 ≤ ``epsilon0_max`` whose shuffled ε at δ is ≤ ``epsilon``.

    Each accounting is monotone in ε0. For the curve-based accountings (exact, GDP, Chernoff,
    FMT clone pairs) "ε(δ) ≤ target" is checked as "δ(target) ≤ δ" (δ(ε) is non-increasing), so
    one root search on log δ_target(ε0) = log δ suffices; the closed forms are inverted by
    bisection.

    Examples
    --------
    >>> ex = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="exact")
    >>> cf = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="fmt21_closed_form")
    >>> ex.epsilon0 > cf.epsilon0 and ex.variance < cf.variance
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", low=2)
    accounting = check_choice(accounting, "accounting", tuple(ACCOUNTINGS))
    k = check_int(k, "k", low=2)
    hi = check_epsilon(epsilon0_max, "epsilon0_max")
    lo = 1e-3
    if accounting == "exact" and k > 2 and (n + 1) ** 2 > GRID_CELL_LIMIT:
        return AffordableEpsilon0(accounting, math.nan, math.nan, math.nan, "exact k-RR curve needs (n + 1)² ≤ 4e6")
    if accounting == "fmt23_numerical" and k > 2:
        return AffordableEpsilon0(accounting, math.nan, math.nan, math.nan, "FMT23 pair is for binary RR")

    if accounting in ("fmt21_closed_form", "blanket"):
        def g(e0: float) -> float:  # > 0: fails the target
            val = shuffled_epsilon(e0, n, delta, accounting=accounting, k=k)
            return 1.0 if math.isnan(val) or val > eps else -1.0
    else:
        log_d = math.log(delta)

        def g(e0: float) -> float:
            return math.log(max(_delta_at(e0, n, eps, accounting, k), 1e-300)) - log_d

    if g(hi) <= 0:
        e0, note = hi, f"cap ε0_max = {hi:g} reached"
    elif g(lo) > 0:
        why = "no ε0 ≥ 0.001 meets the target"
        if accounting == "blanket":
            why = "blanket bound is stated only for ε ≤ 1"
        return AffordableEpsilon0(accounting, math.nan, math.nan, math.nan, why)
    elif accounting in ("fmt21_closed_form", "blanket"):
        while hi - lo > tol * max(1.0, lo):
            mid = 0.5 * (lo + hi)
            if g(mid) <= 0:
                lo = mid
            else:
                hi = mid
        e0, note = lo, ""
    else:
        e0 = float(optimize.brentq(g, lo, hi, xtol=tol * 0.5, rtol=tol * 0.5))
        while g(e0) > 0:  # step back onto the feasible side of the root
            e0 -= tol * max(1.0, e0) * 0.5
        note = ""
    return AffordableEpsilon0(accounting, e0, shuffled_epsilon(e0, n, delta, accounting=accounting, k=k),
                              frequency_variance(e0, n, k=k), note)
