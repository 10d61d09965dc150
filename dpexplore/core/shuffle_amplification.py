"""Privacy amplification by shuffling: Feldman–McMillan–Talwar accountants.

n users each send one ε0-LDP report; a trusted shuffler releases them in random order. The
"clone" reduction of Feldman, McMillan & Talwar (FOCS 2021) bounds the shuffled output's privacy
by a two-point experiment: C ~ Bin(n − 1, r) other users are "clones" of the target, A ~ Bin(C, ½)
of them answer like input 1, and the observer sees a ∈ {0, …, C + 1}:

    P(a | C) = α Bin(a − 1; C, ½) + (1 − α) Bin(a; C, ½)
    Q(a | C) = (1 − α) Bin(a − 1; C, ½) + α Bin(a; C, ½),       α = e^{ε0}/(e^{ε0} + 1).

r = e^{−ε0} in FMT 2021 ("Hiding among the clones") and r = 2/(e^{ε0} + 1) in FMT 2023
("Stronger privacy amplification by shuffling for Rényi and approximate DP", for randomized
response). δ(ε) = E_C Σ_a (P − e^ε Q)_+ is computed here *exactly* per C: P/Q is increasing in a,
so the positive part is one binomial tail (``scipy.stats.binom.sf``) — O(1) per C. The C-range is
truncated to mean ± 10 standard deviations, and the binomial mass outside it is added to δ, so
the numbers stay upper bounds.

The numerical accountants take n ≤ ``MAX_N`` = 10⁸: their cost grows like the C-range,
about 20·√(n r (1 − r)) binomial tails per evaluation (at n = 10⁸, ~10⁵ values and up to ~10 s
for an ε search; at 10¹⁰ it was ~9 minutes, at 10¹⁴ 0.7 GB, at 10¹⁸ 72 GB). The closed form
(:func:`fmt21_closed_form_epsilon`) costs O(1) and takes any n ≥ 2.

These bounds hold for every data set (worst case); paper 4's exact analyses for a given
randomizer and data set are tighter.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .validation import check_choice, check_delta, check_epsilon, check_int, check_real

__all__ = [
    "ACCOUNTANTS",
    "MAX_N",
    "fmt21_closed_form_epsilon",
    "clone_pair_delta",
    "clone_pair_epsilon",
    "shuffle_amplification_epsilon",
    "shuffle_amplification_epsilon0",
]

ACCOUNTANTS = ("fmt21_numerical", "fmt23_numerical", "fmt21_closed_form")
#: Largest n of the numerical clone-pair accountants (``clone_pair_delta``, ``clone_pair_epsilon``
#: and the ``fmt2x_numerical`` accountants); see the module docstring for the cost.
MAX_N = 10**8


def fmt21_closed_form_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """Feldman–McMillan–Talwar 2021 closed-form amplification bound (Thm 3.1).

    With a = 8√(e^{ε0} log(4/δ)/n), c = 8 e^{ε0}/n and ε' = log(1 + a + c),

        ε = log(1 + (1 − e^{−ε0})/(1 + e^{−ε0−ε'}) · (a + c)),

    the form of the authors' public analysis code (its reference value at n = 10⁵, ε0 = 4,
    δ = 10⁻⁶ is 0.5378; the slightly smaller (e^{ε0} − 1)/(e^{ε0} + 1) factor of the theorem's
    statement gives 0.5346). Valid when ε0 ≤ log(n/(16 log(4/δ))). Outside that range the theorem says nothing and this
    function returns ε0 itself (shuffling never hurts: the output is post-processing of ε0-LDP
    reports). The result is also capped at ε0.

    Examples
    --------
    >>> round(fmt21_closed_form_epsilon(4.0, 100_000, 1e-6), 4)
    0.5378
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2)
    delta = check_delta(delta)
    if e0 > math.log(n / (16.0 * math.log(4.0 / delta))):
        return e0
    a = 8.0 * math.sqrt(math.exp(e0) * math.log(4.0 / delta) / n)
    c = 8.0 * math.exp(e0) / n
    e_prime = math.log1p(a + c)
    eps = math.log1p((1.0 - math.exp(-e0)) / (1.0 + math.exp(-e0 - e_prime)) * (a + c))
    return min(eps, e0)


def _clone_prob(e0: float, variant: str) -> float:
    return math.exp(-e0) if variant == "fmt21" else 2.0 / (math.exp(e0) + 1.0)


def _clone_delta(e0: float, n: int, eps: float, variant: str) -> float:
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    if eps >= e0:
        return 0.0
    r = _clone_prob(e0, variant)
    alpha = 1.0 / (1.0 + math.exp(-e0))
    ee = math.exp(eps)
    # C ~ Bin(n − 1, r): keep mean ± 10 sd (+10); the mass left out is added to δ (still a bound)
    mean = (n - 1) * r
    sd = math.sqrt(mean * (1.0 - r))
    if mean < 1e-100:  # ε0 ≳ 230: Boost's binomial overflows; C = 0 w.p. ≥ 1 − (n − 1)r, the rest is added
        c, weight, tail = np.zeros(1, dtype=np.int64), np.ones(1), min(1.0, mean)
    else:
        lo = max(0, int(math.floor(mean - 10.0 * sd - 10.0)))
        hi = min(n - 1, int(math.ceil(mean + 10.0 * sd + 10.0)))
        c = np.arange(lo, hi + 1)
        weight = stats.binom.pmf(c, n - 1, r)
        tail = float(stats.binom.cdf(lo - 1, n - 1, r) + stats.binom.sf(hi, n - 1, r))
    # P(a)/Q(a) > e^ε  <=>  x = a/(C − a + 1) > x*  (α > ½, ε < ε0)
    x_star = (ee * alpha - (1.0 - alpha)) / (alpha - ee * (1.0 - alpha))
    a_min = np.floor(x_star * (c + 1) / (1.0 + x_star)).astype(np.int64) + 1

    def surv(t):  # P(Bin(C, 1/2) >= t)
        return stats.binom.sf(t - 1, c, 0.5)

    p_tail = alpha * surv(a_min - 1) + (1 - alpha) * surv(a_min)
    q_tail = (1 - alpha) * surv(a_min - 1) + alpha * surv(a_min)
    per_c = np.maximum(p_tail - ee * q_tail, 0.0)
    return float(min(1.0, np.dot(weight, per_c) + tail))


def clone_pair_delta(epsilon0: float, n: int, epsilon: float, *, variant: str = "fmt21") -> float:
    """δ(ε) of the FMT clone pair (numerical bound; symmetric, so one direction suffices).

    Parameters
    ----------
    epsilon0 : float
        Local randomizer's ε0 > 0.
    n : int
        Number of users, in [2, ``MAX_N`` = 10⁸].
    epsilon : float
        ε ≥ 0 of the shuffled output.
    variant : {"fmt21", "fmt23"}
        Clone probability e^{−ε0} (2021) or 2/(e^{ε0} + 1) (2023, randomized response).

    Examples
    --------
    >>> clone_pair_delta(4.0, 100_000, 0.17) < 1e-6 < clone_pair_delta(4.0, 100_000, 0.16)
    True
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2, high=MAX_N)
    eps = check_real(epsilon, "epsilon", low=0.0)
    variant = check_choice(variant, "variant", ("fmt21", "fmt23"))
    return _clone_delta(e0, n, eps, variant)


def clone_pair_epsilon(epsilon0: float, n: int, delta: float, *, variant: str = "fmt21") -> float:
    """Smallest ε with ``clone_pair_delta(epsilon0, n, ε) <= delta`` (at most ε0).

    Examples
    --------
    >>> round(clone_pair_epsilon(4.0, 100_000, 1e-6), 2)
    0.17
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2, high=MAX_N)
    delta = check_delta(delta)
    variant = check_choice(variant, "variant", ("fmt21", "fmt23"))
    if _clone_delta(e0, n, 0.0, variant) <= delta:
        return 0.0
    from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
    return float(optimize.brentq(lambda e: _clone_delta(e0, n, e, variant) - delta, 0.0, e0, xtol=1e-10))


def shuffle_amplification_epsilon(
    epsilon0: float, n: int, delta: float, *, accountant: str = "fmt21_numerical"
) -> float:
    """ε of n shuffled ε0-LDP reports at the given δ, under a chosen accountant.

    Parameters
    ----------
    accountant : {"fmt21_numerical", "fmt23_numerical", "fmt21_closed_form"}
        The numerical accountants take n ≤ ``MAX_N`` = 10⁸; the closed form any n ≥ 2.

    Examples
    --------
    >>> e1 = shuffle_amplification_epsilon(4.0, 100_000, 1e-6, accountant="fmt21_numerical")
    >>> e2 = shuffle_amplification_epsilon(4.0, 100_000, 1e-6, accountant="fmt21_closed_form")
    >>> e1 < e2 < 4.0
    True
    """
    accountant = check_choice(accountant, "accountant", ACCOUNTANTS)
    if accountant == "fmt21_closed_form":
        return fmt21_closed_form_epsilon(epsilon0, n, delta)
    return clone_pair_epsilon(epsilon0, n, delta, variant=accountant[:5])


def shuffle_amplification_epsilon0(
    epsilon: float,
    n: int,
    delta: float,
    *,
    accountant: str | Callable[[float, int, float], float] = "fmt21_numerical",
    epsilon0_max: float = 30.0,
) -> float:
    """The largest ε0 whose shuffled guarantee is at most ``epsilon`` at ``delta``.

    Every accountant here is non-decreasing in ε0. For the numerical clone-pair accountants the
    inverse is a single root search in ε0 of ``clone_pair_delta(ε0, n, ε) = δ`` (δ(ε) grows with ε0),
    about ten times fewer evaluations than bisecting over the forward map; the closed form is
    bisected. Shuffling never makes things worse, so the answer is at least ``epsilon``.
    ``accountant`` may also be a callable ``accountant(epsilon0, n, delta) -> epsilon`` (non-decreasing
    in ε0), inverted by bisection on (0, ε0_max].

    Examples
    --------
    >>> e0 = shuffle_amplification_epsilon0(1.0, 1000, 1e-6)
    >>> e0 > 1.0 and shuffle_amplification_epsilon(e0, 1000, 1e-6) <= 1.0 + 1e-6
    True
    """
    eps = check_epsilon(epsilon)
    n = check_int(n, "n", low=2)
    delta = check_delta(delta)
    if not callable(accountant):
        accountant = check_choice(accountant, "accountant", ACCOUNTANTS)
        if accountant != "fmt21_closed_form":
            n = check_int(n, "n", low=2, high=MAX_N)
    hi_cap = check_epsilon(epsilon0_max, "epsilon0_max")

    if isinstance(accountant, str) and accountant != "fmt21_closed_form":
        variant = accountant[:5]

        def g(e0: float) -> float:
            return _clone_delta(e0, n, eps, variant) - delta

        if g(hi_cap) <= 0:
            return hi_cap
        if hi_cap <= eps:
            return hi_cap
        # g(ε) = −δ < 0 (ε0 = ε always meets the target) and g(ε0_max) > 0: one root in between
        from scipy import optimize  # on use: importing this module does not load it (test_packaging.py)
        root = optimize.brentq(g, eps, hi_cap, xtol=1e-8)
        while g(root) > 0 and root > eps:  # stay on the feasible side of the root
            root = max(eps, root - 2e-8)
        return float(root)

    if callable(accountant):
        def f(e0: float) -> float:
            return float(accountant(e0, n, delta)) - eps

        lo = 1e-9
    else:
        def f(e0: float) -> float:
            return shuffle_amplification_epsilon(e0, n, delta, accountant=accountant) - eps

        lo = min(eps, hi_cap)  # ε0 = ε always meets the target (the closed form is capped at ε0)
    if f(hi_cap) <= 0:
        return hi_cap
    if f(lo) > 0:
        raise ValueError(f"accountant gives epsilon > {eps:g} even for epsilon0 = {lo:g}: no epsilon0 fits")
    for _ in range(100):
        mid = 0.5 * (lo + hi_cap)
        if f(mid) <= 0:
            lo = mid
        else:
            hi_cap = mid
        if hi_cap - lo < 1e-9:
            break
    return lo
