"""Published comparison bounds for shuffled ε0-LDP reports — worst case over data sets.

* Feldman, McMillan & Talwar 2021 (FOCS, "Hiding among the clones"): closed form (Thm 3.1) and
  the numerical clone-pair bound; Feldman, McMillan & Talwar 2023 (SODA, "Stronger privacy
  amplification by shuffling ...") clone pair for randomized response. These live in
  :mod:`dpexplore.core.shuffle_amplification`; this module re-exports them under paper 4's names.
* Balle, Bell, Gascón & Nissim 2019 (CRYPTO, "The privacy blanket of the shuffle model") for
  k-ary randomized response: ε = √(14 log(2/δ)(e^{ε0} + k − 1)/(n − 1)), stated for ε ≤ 1.

Unlike :mod:`.exact`, which is exact for one randomizer and one neighbouring pair, these hold for
every ε0-LDP randomizer and every pair of neighbouring data sets.
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.shuffle_amplification import clone_pair_delta, clone_pair_epsilon, fmt21_closed_form_epsilon
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int

from ._validate import check_real_array

__all__ = ["fmt21_epsilon", "fmt_epsilon", "fmt_epsilon_bracket", "fmt_delta", "blanket_epsilon"]


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
    from .worst import _clone_mixture_epsilon

    e0 = check_epsilon(epsilon0, "epsilon0")
    if e0 > 700:
        raise ValueError(f"epsilon0 must be a finite number > 0 and <= 700; got {epsilon0!r}")
    n = check_int(n, "n", low=2, high=10**9)
    delta = check_delta(delta)
    variant = check_choice(variant, "variant", ("fmt21", "fmt23"))
    r = math.exp(-e0) if variant == "fmt21" else 2.0 / (math.exp(e0) + 1.0)
    alpha = 1.0 / (1.0 + math.exp(-e0))
    up, lo = _clone_mixture_epsilon(alpha, 1.0 - alpha, r, n - 1, delta)
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


def blanket_epsilon(epsilon0: float, n: int, delta: float, *, k: int = 2, method: str = "closed_form") -> float:
    """Privacy-blanket bound for k-RR (Balle, Bell, Gascón, Nissim 2019), capped at ε0.

    * ``"closed_form"``: ε = √(14 log(2/δ)(e^{ε0} + k − 1)/(n − 1)) (Cor. 5.3.1 form), stated for
      ε ≤ 1. Where the formula exceeds 1 the theorem says nothing and the trivial bound ε0 is
      returned (the histogram is post-processing of ε0-LDP reports); also capped at ε0.
    * ``"exact_blanket"``: the blanket decomposition W_x = (1 − γ)·δ_x + γ·Uniform(k),
      γ = k/(e^{ε0} + k − 1), evaluated *exactly* by the joint-convexity argument instead of
      bounded with Bennett's inequality: the blanket reports that land on the target's two symbols
      are the clones of :func:`dpexplore.shuffle.dominating_pair_epsilon`, so this is that
      certified value (≤ the paper's Bennett-type numerical bound, which upper-bounds the same
      expectation). We did not implement the Bennett inequality itself.

    Examples
    --------
    >>> round(blanket_epsilon(1.0, 100_000, 1e-6), 4)
    0.0869
    >>> blanket_epsilon(8.0, 1000, 1e-6)  # formula > 1: the trivial bound
    8.0
    >>> blanket_epsilon(1.0, 100_000, 1e-6, method="exact_blanket") < 0.0869
    True
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    n = check_int(n, "n", low=2, high=10**9)
    delta = check_delta(delta)
    k = check_int(k, "k", low=2, high=10_000)
    method = check_choice(method, "method", ("closed_form", "exact_blanket"))
    if method == "exact_blanket":
        from .randomizers import k_rr
        from .worst import dominating_pair_epsilon

        return min(dominating_pair_epsilon(k_rr(e0, k), n, delta)[0], e0)
    eps = math.sqrt(14.0 * math.log(2.0 / delta) * (math.exp(min(e0, 700.0)) + k - 1) / (n - 1))
    return min(eps, e0) if eps <= 1.0 else e0
