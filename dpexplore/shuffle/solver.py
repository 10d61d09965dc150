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
from ._validate import MAX_N_FORMULA
from .constants import fisher_constant
from .randomizers import MAX_ALPHABET, k_rr
from .worst import EXHAUSTIVE_BINARY_MAX_N, worst_case_delta, worst_case_epsilon

__all__ = ["ACCOUNTINGS", "AffordableEpsilon0", "shuffled_epsilon", "shuffled_epsilon_capped", "affordable_epsilon0",
           "frequency_variance", "smallest_n"]

#: accounting name -> (label, kind)
ACCOUNTINGS = {
    "exact": ("exact worst case over data sets (certified upper end)", "exact"),
    "gdp": ("GDP μ = √(χ²/n)", "approximation"),
    "chernoff": ("Chernoff", "bound"),
    "fmt21_numerical": ("FMT21 clones, numerical", "bound"),
    "fmt23_numerical": ("FMT23 clones, numerical", "bound"),
    "fmt21_closed_form": ("FMT21 closed form", "bound"),
    "blanket": ("privacy blanket (BBGN19 closed form)", "bound"),
    "blanket_bennett": ("privacy blanket (BBGN19 Bennett numerical)", "bound"),
}


def shuffled_epsilon(epsilon0: float, n: int, delta: float, *, accounting: str, k: int = 2) -> float:
    """ε of n shuffled k-RR reports (k = 2: binary RR) at δ under one accounting.

    ``"exact"`` is the worst case over all neighbouring data sets
    (:func:`dpexplore.shuffle.worst_case_epsilon`: exhaustive where affordable, the certified
    branch-and-bound upper end for binary RR up to n = 10⁷ — at most 0.1% above the worst case —
    else the smallest certified bound). ``"chernoff"``/``"gdp"`` are for the canonical pair (an
    approximation / a bound for that pair only). The FMT and blanket bounds hold for every data
    set. Every accounting is capped at the trivial bound ε0 (the histogram is post-processing of ε0-LDP reports); see
    :func:`shuffled_epsilon_capped` for a flag saying where the cap binds. NaN means "this
    accounting says nothing here".

    Examples
    --------
    >>> e = {a: shuffled_epsilon(4.0, 100_000, 1e-6, accounting=a) for a in ("exact", "fmt21_closed_form")}
    >>> 0.0847 <= e["exact"] < e["fmt21_closed_form"]
    True
    """
    return shuffled_epsilon_capped(epsilon0, n, delta, accounting=accounting, k=k)[0]


def shuffled_epsilon_capped(epsilon0: float, n: int, delta: float, *, accounting: str,
                            k: int = 2) -> tuple[float, bool]:
    """(ε, capped): :func:`shuffled_epsilon` and whether the trivial bound ε ≤ ε0 binds.

    Examples
    --------
    >>> shuffled_epsilon_capped(8.0, 1000, 1e-6, accounting="gdp")
    (8.0, True)
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    val = _shuffled_epsilon_raw(e0, n, delta, accounting=accounting, k=k)
    if math.isnan(val):
        return val, False
    return (e0, True) if val >= e0 else (val, False)


def _shuffled_epsilon_raw(epsilon0: float, n: int, delta: float, *, accounting: str, k: int = 2) -> float:
    accounting = check_choice(accounting, "accounting", tuple(ACCOUNTINGS))
    k = check_int(k, "k", low=2, high=MAX_ALPHABET)
    R = k_rr(epsilon0, k)
    if accounting == "exact":
        return worst_case_epsilon(R, n, delta, lower=False).epsilon
    if accounting == "gdp":
        return A.gdp_epsilon_at(A.gdp_mu(R, n), delta)
    if accounting == "chernoff":
        return A.chernoff_epsilon(R, n, delta)
    if accounting == "blanket":
        return B.blanket_epsilon(epsilon0, n, delta, k=k)
    if accounting == "blanket_bennett":
        return B.blanket_epsilon(epsilon0, n, delta, k=k, method="bennett")
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
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    return 1.0 / (n * fisher_constant(k_rr(epsilon0, k), 0.0))


def _delta_at(epsilon0: float, n: int, epsilon: float, accounting: str, k: int) -> float:
    """δ that an accounting certifies (or approximates) at ε for n shuffled k-RR(ε0) reports."""
    R = k_rr(epsilon0, k)
    if accounting == "exact":
        return float(worst_case_delta(R, n, epsilon, lower=False)[0][0])
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
    one root search on log δ_target(ε0) = log δ suffices; the closed forms and the blanket
    Bennett bound (whose ε is a grid-located root) are inverted by bisection.

    Examples
    --------
    >>> ex = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="exact")
    >>> cf = affordable_epsilon0(0.5, 1e-6, 10_000, accounting="fmt21_closed_form")
    >>> ex.epsilon0 > cf.epsilon0 and ex.variance < cf.variance
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n, "n", low=2, high=MAX_N_FORMULA)
    accounting = check_choice(accounting, "accounting", tuple(ACCOUNTINGS))
    k = check_int(k, "k", low=2, high=MAX_ALPHABET)
    hi = check_epsilon(epsilon0_max, "epsilon0_max")
    lo = 1e-3
    if accounting == "fmt23_numerical" and k > 2:
        return AffordableEpsilon0(accounting, math.nan, math.nan, math.nan, "FMT23 pair is for binary RR")

    if accounting in ("fmt21_closed_form", "blanket", "blanket_bennett"):
        def g(e0: float) -> float:  # > 0: fails the target
            val = shuffled_epsilon(e0, n, delta, accounting=accounting, k=k)
            return 1.0 if math.isnan(val) or val > eps else -1.0
    else:
        log_d = math.log(delta)

        def g(e0: float) -> float:
            return math.log(max(_delta_at(e0, n, eps, accounting, k), 1e-300)) - log_d

    if eps >= hi:  # the trivial bound ε ≤ ε0 already meets the target at the cap
        e0, note = hi, f"cap ε0_max = {hi:g} reached (trivial bound ε ≤ ε0 binds)"
    elif g(hi) <= 0:
        e0, note = hi, f"cap ε0_max = {hi:g} reached"
    elif g(lo) > 0:
        why = "no ε0 ≥ 0.001 meets the target"
        if accounting == "blanket":
            why = "blanket bound is stated only for ε ≤ 1"
        return AffordableEpsilon0(accounting, math.nan, math.nan, math.nan, why)
    elif accounting in ("fmt21_closed_form", "blanket", "blanket_bennett"):
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
        # "exact": δ(target) and ε(δ) are two certified brackets (branch and bound, width ≤ rtol); the
        # reported ε must meet the target too
        while accounting == "exact" and e0 > lo and shuffled_epsilon(e0, n, delta, accounting=accounting, k=k) > eps:
            e0 -= tol * max(1.0, e0) * 0.5
        note = ""
    val, capped = shuffled_epsilon_capped(e0, n, delta, accounting=accounting, k=k)
    if capped:
        note = (note + "; " if note else "") + "trivial bound ε ≤ ε0 binds"
    return AffordableEpsilon0(accounting, e0, val, frequency_variance(e0, n, k=k), note)


@dataclass(frozen=True)
class SmallestN:
    """Result of :func:`smallest_n`: the fewest users meeting (ε, δ) at ε0 under one accounting."""

    accounting: str
    n: int
    epsilon: float
    note: str = ""


#: public maximum of the n searched by :func:`smallest_n`
SMALLEST_N_MAX = 10**9


def smallest_n(epsilon: float, delta: float, epsilon0: float, *, accounting: str = "exact", k: int = 2,
               n_max: int = 10**8) -> SmallestN:
    """The smallest n ≤ ``n_max`` with shuffled ε(δ) ≤ ``epsilon`` for n users of k-RR(ε0).

    Every accounting here is non-increasing in n (more users: more blanket; the worst case over
    data sets of n + 1 users is at most that of n, since an extra user's report is
    post-processing), so a bisection on n finds it. n = −1 (and a note) when even ``n_max`` fails.

    Examples
    --------
    >>> r = smallest_n(0.5, 1e-6, 2.0, n_max=10**6)  # worst case over data sets (certified)
    >>> r.epsilon <= 0.5 and shuffled_epsilon(2.0, r.n - 1, 1e-6, accounting="exact") > 0.5
    True

    For ``"exact"`` the certified value is the exhaustive worst case up to n = 600 (binary RR)
    and the branch-and-bound upper end above (≤ 0.1% larger): the search is redone below 600 when
    n = 600 already meets the target, so the answer is the smallest n for the certified value
    (the true smallest n can be smaller where the bracket's 0.1% matters).
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    e0 = check_epsilon(epsilon0, "epsilon0")
    accounting = check_choice(accounting, "accounting", tuple(ACCOUNTINGS))
    k = check_int(k, "k", low=2, high=MAX_ALPHABET)
    n_max = check_int(n_max, "n_max", low=2, high=SMALLEST_N_MAX)

    def ok(n: int) -> bool:
        v = shuffled_epsilon(e0, n, delta, accounting=accounting, k=k)
        return math.isfinite(v) and v <= eps

    if eps >= e0:
        return SmallestN(accounting, 2, e0, "trivial bound ε ≤ ε0 meets the target")
    if not ok(n_max):
        return SmallestN(accounting, -1, math.nan, f"not reached by n_max = {n_max}")
    lo, hi = 2, n_max  # ok(hi)
    if ok(lo):
        hi = lo
    def bisect(lo: int, hi: int) -> int:
        while hi - lo > 1:
            mid = (lo + hi) // 2 if hi - lo < 64 else int(math.sqrt(lo * hi))
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi

    hi = bisect(lo, hi)
    cut = EXHAUSTIVE_BINARY_MAX_N
    if accounting == "exact" and hi > cut >= 2 and not ok(2) and ok(cut):  # the exhaustive region is monotone
        hi = bisect(2, cut)
    return SmallestN(accounting, hi, shuffled_epsilon(e0, hi, delta, accounting=accounting, k=k))
