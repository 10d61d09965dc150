"""Published comparison bounds for shuffled ε0-LDP reports — worst case over data sets.

* Feldman, McMillan & Talwar 2021 (FOCS, "Hiding among the clones"): closed form (Thm 3.1) and
  the numerical clone-pair bound; Feldman, McMillan & Talwar 2023 (SODA, "Stronger privacy
  amplification by shuffling ...") clone pair for randomized response. These live in
  :mod:`dpexplore.core.shuffle_amplification`; this module re-exports them under paper 4's names.
* Balle, Bell, Gascón & Nissim 2019 (CRYPTO, "The privacy blanket of the shuffle model") for
  k-ary randomized response: the closed form ε = √(14 log(2/δ)(e^{ε0} + k − 1)/(n − 1)), stated
  for ε ≤ 1, and the paper's numerical bound from Bennett's inequality (:func:`blanket_delta`).
* Wang et al. 2023 (variation-ratio reduction): :func:`variation_ratio_delta` — evaluated and
  compared, but for k ≥ 3 it is *not* a valid worst-case bound (see its docstring).

Unlike :mod:`.exact`, which is exact for one randomizer and one neighbouring pair, these hold for
every ε0-LDP randomizer and every pair of neighbouring data sets.
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.shuffle_amplification import clone_pair_delta, clone_pair_epsilon, fmt21_closed_form_epsilon
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int

from ._validate import check_real_array
from .clones import _clone_mixture_epsilon, _dominating_delta, dominating_pair_epsilon
from .pairs import _third_symbol_delta
from .randomizers import binary_rr, k_rr

__all__ = ["fmt21_epsilon", "fmt_epsilon", "fmt_epsilon_bracket", "fmt_delta", "blanket_epsilon", "blanket_delta",
           "variation_ratio_delta", "variation_ratio_epsilon"]



def _check_epsilon0_exp(epsilon0) -> float:
    """ε0 for the bounds that evaluate e^{ε0} in float64: a finite number in (0, 700]."""
    e0 = check_epsilon(epsilon0, "epsilon0")
    if e0 > 700:
        raise ValueError(f"epsilon0 must be a finite number > 0 and <= 700; got {epsilon0!r}")
    return e0

def fmt21_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """FMT 2021 closed-form ε (Thm 3.1; ``dpexplore.core.fmt21_closed_form_epsilon``).

    Returns ε0 where the theorem's condition ε0 ≤ log(n/(16 log(4/δ))) fails.

    Examples
    --------
    >>> round(fmt21_epsilon(4.0, 100_000, 1e-6), 4)
    0.5378
    """
    return fmt21_closed_form_epsilon(epsilon0, n, delta)


def fmt_epsilon(epsilon0: float, n: int, delta: float, *, variant: str = "fmt21") -> float:
    """Numerical clone-pair ε(δ): ``variant="fmt21"`` (clones w.p. e^{−ε0}) or ``"fmt23"`` (2/(e^{ε0}+1)).

    Examples
    --------
    >>> round(fmt_epsilon(4.0, 100_000, 1e-6), 2)
    0.17
    """
    return clone_pair_epsilon(epsilon0, n, delta, variant=variant)


def fmt_epsilon_bracket(epsilon0: float, n: int, delta: float, *, variant: str = "fmt21") -> tuple[float, float]:
    """(lower, upper) of the FMT numerical clone-pair ε(δ): an error bar for its numerical evaluation.

    The clone pair's δ_C(ε) is non-increasing in the clone count C (adding a clone is
    post-processing), so summing δ over blocks of C at each block's first / next block's first C
    brackets E_C δ_C (the block method of :mod:`dpexplore.shuffle.worst`); the binomial mass of C
    outside mean ± 12 sd is added to the upper end. ``upper`` is a certified value of the bound;
    ``fmt_epsilon`` (per-C exact sum, ±10 sd) lies in between up to its root-finding tolerance.

    Examples
    --------
    >>> lo, up = fmt_epsilon_bracket(4.0, 100_000, 1e-6)
    >>> lo <= round(fmt_epsilon(4.0, 100_000, 1e-6), 4) <= up + 1e-4 and up - lo < 1e-3
    True
    """
    e0 = _check_epsilon0_exp(epsilon0)
    n = check_int(n, "n", low=2, high=10**9)
    delta = check_delta(delta)
    variant = check_choice(variant, "variant", ("fmt21", "fmt23"))
    r = math.exp(-e0) if variant == "fmt21" else 2.0 / (math.exp(e0) + 1.0)
    alpha = 1.0 / (1.0 + math.exp(-e0))
    beta = 1.0 - alpha if e0 < 30 else 1.0 / (1.0 + math.exp(e0))  # 1 − α, not rounded to 0 at large ε0
    up, lo = _clone_mixture_epsilon(alpha, beta, r, n - 1, delta)
    return lo, up


def fmt_delta(epsilon0: float, n: int, epsilon, *, variant: str = "fmt21"):
    """Numerical clone-pair δ(ε), vectorised over ε.

    Examples
    --------
    >>> d = fmt_delta(2.0, 10_000, [0.1, 0.3])
    >>> bool(d[0] > d[1])
    True
    """
    variant = check_choice(variant, "variant", ("fmt21", "fmt23"))
    eps = check_real_array(epsilon, "epsilon")
    out = np.array([clone_pair_delta(epsilon0, n, float(e), variant=variant) for e in eps.ravel()]).reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


def _h_lower(u: np.ndarray) -> np.ndarray:
    """h(u) = (1 + u) log(1 + u) − u (Bennett's function), never rounded *up*.

    For u < 1e-3 the alternating series u²/2 − u³/6 + u⁴/12 − u⁵/20 (a lower value: it stops after
    a negative term of a decreasing alternating series) replaces the cancelling closed form.
    """
    u = np.asarray(u, dtype=float)
    small = u < 1e-3
    us = np.where(small, u, 0.0)
    series = us * us * (0.5 - us / 6.0 + us * us / 12.0 - us ** 3 / 20.0)
    ub = np.where(small, 1.0, u)
    closed = (1.0 + ub) * np.log1p(ub) - ub
    return np.where(small, series, closed)


def _blanket_bennett_delta(e0: float, n: int, k: int, eps: np.ndarray) -> np.ndarray:
    """BBGN19's Bennett bound δ(ε) for k-RR(ε0), vectorised over ε (see :func:`blanket_delta`)."""
    eps = np.asarray(eps, dtype=float)
    p = math.exp(min(e0, 700.0))
    d = p + k - 1.0
    gam = k / d
    t = np.exp(np.minimum(eps, e0))
    a = t - 1.0  # −E_ω[L]
    b = k * (p - t) / d  # max_w L(w), attained at w = x1 (> 0 for ε < ε0)
    # E_ω[L²] = (k/d²)((p − t)² + (1 − tp)² + (k − 2)(1 − t)²), written so that nothing overflows at ε0 = 700
    if p < 1e100:  # E_ω[L²]
        s2 = k / d ** 2 * ((p - t) ** 2 + (1.0 - t * p) ** 2 + (k - 2.0) * (1.0 - t) ** 2)
    else:  # the same, written so that d² and tp do not overflow; ε near ε0 ≳ 350: beyond float64, δ ≤ 1 there
        with np.errstate(over="ignore"):
            s2 = k * (((p - t) / d) ** 2 + (1.0 / d - t * (p / d)) ** 2 + (k - 2.0) * ((1.0 - t) / d) ** 2)
    out = np.ones(eps.shape)
    ok = (eps > 0) & (eps < e0) & (b > 0) & np.isfinite(s2)
    bb, aa, ss = np.where(ok, b, 1.0), np.where(ok, a, 1.0), np.where(ok, s2, 1.0)
    beta = aa * bb / ss
    c = ss / bb ** 2 * _h_lower(beta)  # per-report exponent α·h(β)
    lead = bb / np.log1p(beta)  # ∫_0^∞ e^{−s log(1+β)/b} ds
    # E_{M ~ Bin(n, γ)}[e^{−cM}; M ≥ 1] = (1 − γ(1 − e^{−c}))^n − (1 − γ)^n, in logs
    log1 = n * np.log1p(-gam * (-np.expm1(-c)))
    log0 = n * math.log1p(-gam)
    with np.errstate(over="ignore"):
        expec = np.exp(log1) * -np.expm1(np.minimum(log0 - log1, 0.0))
        val = lead * expec / (gam * n)
    out = np.where(ok, np.minimum(val, 1.0), out)
    return np.where(eps >= e0, 0.0, out)


def blanket_delta(epsilon0: float, n: int, epsilon, *, k: int = 2):
    """Privacy-blanket δ(ε) for k-RR from Bennett's inequality (Balle, Bell, Gascón & Nissim 2019).

    The paper's Theorem 3.1 with its Bennett-inequality bound (the numerical "Bennett" curve of
    their Section 5; the reference code ``BennettExact`` + ``RRMechanism`` of
    github.com/BorjaBalle/amplification-by-shuffling computes the same quantity, by summing over M
    where we use the closed form of the binomial expectation). For k-RR the blanket is uniform on
    the k symbols with weight γ = k/(e^{ε0} + k − 1), and with M ~ Bin(n, γ)

        δ(ε) ≤ (1/(γ n)) E_M[ E(Σ_{i ≤ M} L_i)_+ ],   L(w) = (μ_{x1}(w) − e^ε μ_{x1'}(w))/ω(w),

    valid for every data set (the non-blanket reports of the other users are given to the
    adversary: post-processing). Bennett's inequality (X ≤ b, E X² ≤ σ²; Boucheron, Lugosi &
    Massart, Thm 2.9) and convexity of h(u) = (1 + u) log(1 + u) − u give
    E(Σ_{i ≤ M} L_i)_+ ≤ (b / log(1 + β)) e^{−M (σ²/b²) h(β)}, β = (e^ε − 1) b / σ², with
    b = max L = k(e^{ε0} − e^ε)/d and σ² = E_ω L² (k-RR, exact), d = e^{ε0} + k − 1. So

        δ(ε) ≤ b/(γ n log(1 + β)) · [(1 − γ(1 − e^{−(σ²/b²) h(β)}))ⁿ − (1 − γ)ⁿ].

    0 for ε ≥ ε0 (the trivial bound), capped at 1. Note that the bound does not tend to 0 as
    ε → ε0, so at small n it can stay above δ for every ε < ε0 (then
    :func:`blanket_epsilon` returns ε0).

    Examples
    --------
    >>> d = blanket_delta(1.0, 100_000, [0.02, 0.05])
    >>> bool(d[0] > d[1])
    True
    """
    e0 = _check_epsilon0_exp(epsilon0)
    n = check_int(n, "n", low=2, high=10**15)
    k = check_int(k, "k", low=2, high=10_000)
    eps = check_real_array(epsilon, "epsilon")
    out = _blanket_bennett_delta(e0, n, k, eps)
    return float(out) if out.ndim == 0 else out


def _smallest_feasible_epsilon(delta_fn, e0: float, delta: float, grid: int = 400) -> float:
    """Smallest ε on a grid (then refined) with ``delta_fn(ε) <= delta``; ε0 if none below ε0.

    Works for bounds that need not be monotone in ε: the grid locates the first feasible point,
    brentq refines between it and the previous (infeasible) point, and the returned value is
    checked feasible (any feasible ε is a certified ε for a valid δ(ε) bound).
    """
    xs = e0 * np.concatenate([np.geomspace(1e-6, 1.0, grid, endpoint=False), [1.0]])
    ds = np.asarray(delta_fn(xs), dtype=float)
    idx = np.nonzero(ds <= delta)[0]
    if idx.size == 0 or idx[0] == xs.size - 1:
        return e0
    j = int(idx[0])
    if j == 0:
        return float(xs[0])
    lo, hi = float(xs[j - 1]), float(xs[j])
    f = lambda e: math.log(max(float(delta_fn(np.array([e]))[0]), 1e-300)) - math.log(delta)  # noqa: E731
    from scipy import optimize

    root = float(optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-9))
    while f(root) > 0 and root < hi:
        root = min(hi, root + 1e-9 * max(1e-6, root))
    return root


def blanket_epsilon(epsilon0: float, n: int, delta: float, *, k: int = 2, method: str = "closed_form") -> float:
    """Privacy-blanket bound for k-RR (Balle, Bell, Gascón, Nissim 2019), capped at ε0.

    * ``"closed_form"``: ε = √(14 log(2/δ)(e^{ε0} + k − 1)/(n − 1)) (Cor. 5.3.1 form), stated for
      ε ≤ 1. Where the formula exceeds 1 the theorem says nothing and the trivial bound ε0 is
      returned (the histogram is post-processing of ε0-LDP reports); also capped at ε0.
    * ``"bennett"``: the paper's numerical bound, the smallest ε with :func:`blanket_delta` ≤ δ
      (Bennett's inequality on the blanket's privacy-amplification variable). Valid for every ε
      (no ε ≤ 1 condition); ε0 where it never reaches δ.
    * ``"exact_blanket"``: the blanket decomposition W_x = (1 − γ)·δ_x + γ·Uniform(k),
      γ = k/(e^{ε0} + k − 1), evaluated *exactly* by the joint-convexity argument instead of
      bounded with Bennett's inequality: the blanket reports that land on the target's two symbols
      are the clones of :func:`dpexplore.shuffle.dominating_pair_epsilon`, so this is that
      certified value. For k = 2 it is the exact value of the expectation that the Bennett
      bound bounds, so it is ≤ ``"bennett"``; for k ≥ 3 it also tells the adversary how many
      blanket reports fell on the target's two symbols, and ``"bennett"`` can be smaller (4-RR,
      ε0 = 1, n = 10⁵, δ = 10⁻⁶: 0.0119 vs 0.0151). Both are valid for every data set.

    Examples
    --------
    >>> round(blanket_epsilon(1.0, 100_000, 1e-6), 4)
    0.0869
    >>> blanket_epsilon(8.0, 1000, 1e-6)  # formula > 1: the trivial bound
    8.0
    >>> b = blanket_epsilon(1.0, 100_000, 1e-6, method="bennett")
    >>> blanket_epsilon(1.0, 100_000, 1e-6, method="exact_blanket") < b < 0.0869  # binary RR
    True
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2, high=10**9)
    delta = check_delta(delta)
    k = check_int(k, "k", low=2, high=10_000)
    method = check_choice(method, "method", ("closed_form", "bennett", "exact_blanket"))
    if method == "exact_blanket":
        return min(dominating_pair_epsilon(k_rr(e0, k), n, delta)[0], e0)
    if method == "bennett":
        e0 = _check_epsilon0_exp(epsilon0)
        return min(_smallest_feasible_epsilon(lambda x: _blanket_bennett_delta(e0, n, k, x), e0, delta), e0)
    eps = math.sqrt(14.0 * math.log(2.0 / delta) * (math.exp(min(e0, 700.0)) + k - 1) / (n - 1))
    return min(eps, e0) if eps <= 1.0 else e0


def variation_ratio_delta(epsilon0: float, n: int, epsilon, *, k: int = 2):
    """δ(ε) of Wang et al.'s variation-ratio pair for k-RR — a published bound, NOT certified for k ≥ 3.

    Shaowei Wang et al. 2023, "Privacy amplification via shuffling: unified, simplified, and
    tightened" (VLDB 2024; code github.com/wangsw/PrivacyAmplification, ``Delta`` with the
    parameters of ``computeUBParameters('krr')``: p = q = e^{ε0}, β = (e^{ε0} − 1)/(e^{ε0} + k − 1),
    α = β/(p − 1) = 1/d, r0 = r1 = αp/q = 1/d, d = e^{ε0} + k − 1). Their pair: C ~ Bin(n − 1, 2/d)
    clones split evenly between the target's two symbols, the target reports (p, 1, k − 2)/d on
    (x1, x1', "other") under x1 and (1, p, k − 2)/d under x1', and the adversary sees the counts on
    x1 and x1' only.

    * k = 2: this is the FMT23 clone pair (our dominating pair), valid for every data set.
    * k ≥ 3: it is *exactly* the third-symbol pair (all other users at a third symbol) with the
      outputs other than x1, x1' merged (:func:`dpexplore.shuffle.worst.third_symbol_epsilon`) — a
      post-processing of one actual neighbouring pair, hence a **lower** bound on the worst case,
      and it is *below* the worst case over data sets at small n: brute force over every data set
      gives 3-RR, ε0 = 2, n = 6, δ = 10⁻²: 1.957 (others at x1', the canonical pair) vs 1.772 here;
      4-RR, n = 6: 1.920 vs 1.650 (tests/shuffle/test_blanket_vr.py). So dpexplore does not use it
      in the certified worst case; it is shown as Wang et al.'s published value.

    Evaluated in O(√n) per ε (binomial tails per clone total; totals beyond ±9 sd dropped, which
    only lowers the value by < 1e-18).

    Examples
    --------
    >>> d = variation_ratio_delta(2.0, 10_000, [0.05, 0.1])
    >>> bool(d[0] > d[1])
    True
    """
    e0 = _check_epsilon0_exp(epsilon0)
    n = check_int(n, "n", low=2, high=10**9)
    k = check_int(k, "k", low=2, high=10_000)
    eps = check_real_array(epsilon, "epsilon")
    p = math.exp(e0)
    if k == 2:
        R = binary_rr(e0)
        vals = [_dominating_delta(p / (p + 1), 1 / (p + 1), 2 / (p + 1), n - 1, float(e), need="upper")[0]
                for e in eps.ravel()]
    else:
        R = k_rr(e0, k)
        vals = [_third_symbol_delta(R, n, float(e)) for e in eps.ravel()]
    out = np.where(eps.ravel() >= e0, 0.0, np.minimum(vals, 1.0)).reshape(eps.shape)
    return float(out) if out.ndim == 0 else out


def variation_ratio_epsilon(epsilon0: float, n: int, delta: float, *, k: int = 2) -> float:
    """ε(δ) of Wang et al.'s variation-ratio pair (see :func:`variation_ratio_delta`; not certified for k ≥ 3).

    The smallest ε (to a relative 1e-6, on the feasible side) with the pair's δ(ε) ≤ δ; the
    pair's δ(ε) is a hockey-stick divergence, hence non-increasing in ε.

    Examples
    --------
    >>> round(variation_ratio_epsilon(2.0, 1000, 1e-6, k=3), 3)  # = the third-symbol pair (k = 3)
    0.372
    """
    from scipy import optimize

    e0 = check_epsilon(epsilon0, "epsilon0")
    delta = check_delta(delta)
    f = lambda e: math.log(max(float(variation_ratio_delta(e0, n, e, k=k)), 1e-300)) - math.log(delta)  # noqa: E731
    if f(0.0) <= 0:
        return 0.0
    top = e0 * (1 - 1e-12)
    if f(top) > 0:
        return e0
    root = float(optimize.brentq(f, 0.0, top, xtol=1e-10, rtol=1e-7))
    step = 1e-7 * max(1e-3, root)
    while f(root) > 0:  # steps double: a flat δ(ε) cannot make this crawl
        root, step = min(e0, root + step), 2.0 * step
    return root
