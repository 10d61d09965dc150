"""What ε means to an attacker: trade-off curves, membership-inference advantage and posteriors.

An attacker sees one output of a mechanism run on one of two neighbouring data sets, A or B (B = A
plus one person), and must say which. Any decision rule is a hypothesis test with a type-I error α
(says "B" when it was A: a false alarm) and a type-II error β (says "A" when it was B: a miss).

* (ε, δ)-DP holds exactly when every test has β ≥ f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))
  (Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, Prop. 2.5): :func:`dp_tradeoff`.
* μ-GDP holds exactly when β ≥ Φ(Φ⁻¹(1 − α) − μ): :func:`gdp_tradeoff` (from :mod:`dpexplore.core.gaussian`).
* The best **advantage** TPR − FPR = 1 − α − β of any test, i.e. how much better than a coin the
  attacker can do with a 50/50 prior (success probability (1 + advantage)/2):
  (e^ε − 1 + 2δ)/(e^ε + 1) under (ε, δ)-DP (:func:`advantage_bound`), 2Φ(μ/2) − 1 under μ-GDP
  (:func:`gdp_advantage`).
* The **posterior**: an attacker who believed "B" with probability ``prior`` believes it, after one
  output of an ε-DP mechanism, with probability at most prior·e^ε / (prior·e^ε + 1 − prior) (the odds
  grow by at most e^ε): :func:`posterior_bound`.

Examples
--------
>>> round(advantage_bound(1.0, 0.0), 4)
0.4621
>>> round(posterior_bound(0.5, 1.0), 4)
0.7311
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .gaussian import gdp_tradeoff
from .validation import check_array, check_real

__all__ = [
    "AttackerView",
    "advantage_bound",
    "attacker_view",
    "attacker_success_bound",
    "dp_tradeoff",
    "gdp_advantage",
    "gdp_tradeoff",
    "posterior_bound",
]

#: ε above this is treated as e^ε = inf-safe (exp overflows past ~709)
_EXP_MAX = 700.0


def _check_eps(epsilon) -> float:
    return check_real(epsilon, "epsilon", low=0.0)


def _check_delta(delta) -> float:
    return check_real(delta, "delta", low=0.0, high=1.0, high_open=True)


def _check_alpha(alpha) -> np.ndarray:
    a = check_array(alpha, "alpha", finite=False)
    if np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        bad = float(a[~np.isfinite(a) | (a < 0) | (a > 1)].flat[0])
        raise ValueError(f"alpha must be a number (or array of numbers) in [0, 1]; got {bad!r}")
    return a


def dp_tradeoff(epsilon: float, delta: float, alpha):
    """Trade-off curve of (ε, δ)-DP: the smallest miss rate β of any test with false-alarm rate α.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0.
    delta : float
        δ in [0, 1).
    alpha : float or array_like
        Type-I error(s) α in [0, 1].

    Returns
    -------
    float or ndarray
        f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)), same shape as ``alpha``.

    Raises
    ------
    ValueError
        ε < 0, δ outside [0, 1), α outside [0, 1] (the message names the parameter).

    Notes
    -----
    Exact: randomized response with flip probability 1/(e^ε + 1), mixed with a δ chance of
    revealing the data, attains every point of the curve.

    References
    ----------
    Kairouz, Oh, Viswanath (2015). *The composition theorem for differential privacy*. ICML.
    Dong, Roth, Su (2022). *Gaussian differential privacy*. JRSS B, Prop. 2.5.

    Examples
    --------
    >>> float(dp_tradeoff(0.0, 0.0, 0.3))
    0.7
    >>> round(float(dp_tradeoff(1.0, 0.0, 0.1)), 4)
    0.7282
    """
    eps, delta, a = _check_eps(epsilon), _check_delta(delta), _check_alpha(alpha)
    e = math.exp(min(eps, _EXP_MAX))
    out = np.maximum.reduce([np.zeros_like(a), 1.0 - delta - e * a, (1.0 - delta - a) / e])
    return float(out) if out.ndim == 0 else out


def advantage_bound(epsilon: float, delta: float = 0.0) -> float:
    """The best membership-inference advantage TPR − FPR under (ε, δ)-DP: (e^ε − 1 + 2δ)/(e^ε + 1).

    With a 50/50 prior the attacker guesses right with probability at most (1 + advantage)/2.

    Raises
    ------
    ValueError
        ε < 0 or δ outside [0, 1).

    Notes
    -----
    Exact (the largest 1 − α − f_{ε,δ}(α), reached at α = (1 − δ)/(e^ε + 1)); attained by
    randomized response for δ = 0.

    References
    ----------
    Yeom, Giacomelli, Fredrikson, Jha (2018). *Privacy risk in machine learning*. CSF (δ = 0);
    Humphries et al. (2023), Thm 1 (with δ).

    Examples
    --------
    >>> advantage_bound(0.0, 0.0)
    0.0
    >>> round(advantage_bound(math.log(3), 0.0), 6)
    0.5
    """
    eps, delta = _check_eps(epsilon), _check_delta(delta)
    if eps > _EXP_MAX:
        return 1.0
    e = math.exp(eps)
    return min(1.0, (e - 1.0 + 2.0 * delta) / (e + 1.0))


def gdp_advantage(mu: float) -> float:
    """The best membership-inference advantage under μ-GDP: 2Φ(μ/2) − 1 (exact).

    Examples
    --------
    >>> gdp_advantage(0.0)
    0.0
    >>> round(gdp_advantage(1.0), 4)
    0.3829
    """
    mu = check_real(mu, "mu", low=0.0)
    return float(2.0 * special.ndtr(mu / 2.0) - 1.0)


def attacker_success_bound(epsilon: float, delta: float = 0.0) -> float:
    """The best probability of guessing A or B right with a 50/50 prior: (1 + advantage)/2 = (e^ε + 2δ)/(e^ε + 1)
    capped at 1.

    Examples
    --------
    >>> round(attacker_success_bound(math.log(3)), 6)
    0.75
    """
    return 0.5 * (1.0 + advantage_bound(epsilon, delta))


def posterior_bound(prior: float, epsilon: float, delta: float = 0.0, *, alpha: float | None = None) -> float:
    """How sure the attacker can become that the data set is B, from a prior belief ``prior``.

    Parameters
    ----------
    prior : float
        The attacker's belief before the output, in (0, 1) (e.g. 1/2, or 1/100 for "one person in a
        hundred is in the data set").
    epsilon : float
        ε ≥ 0.
    delta : float
        δ in [0, 1).
    alpha : float, optional
        The false-alarm rate of the attacker's alarm ("B!") on data set A, in (0, 1]. Without it the
        bound is over every output: prior·e^ε/(prior·e^ε + 1 − prior) for δ = 0, and 1 for δ > 0 (an
        output that occurs with probability below δ can reveal everything).

    Returns
    -------
    float
        The largest posterior P(B | output) (``alpha=None``) or P(B | alarm) with
        TPR ≤ 1 − f_{ε,δ}(α): prior·TPR/(prior·TPR + (1 − prior)·α).

    Raises
    ------
    ValueError
        prior outside (0, 1), ε < 0, δ outside [0, 1), α outside (0, 1].

    Examples
    --------
    >>> round(posterior_bound(0.5, math.log(3)), 6)
    0.75
    >>> round(posterior_bound(0.01, 1.0), 4)
    0.0267
    >>> posterior_bound(0.5, 1.0, 1e-5)
    1.0
    >>> round(posterior_bound(0.5, 1.0, 1e-5, alpha=0.1), 4)
    0.7311
    """
    p = check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True)
    eps, delta = _check_eps(epsilon), _check_delta(delta)
    if alpha is None:
        if delta > 0:
            return 1.0
        if eps > _EXP_MAX:
            return 1.0
        odds = p / (1.0 - p) * math.exp(eps)
        return odds / (1.0 + odds)
    a = check_real(alpha, "alpha", low=0.0, high=1.0, low_open=True)
    tpr = 1.0 - float(dp_tradeoff(eps, delta, a))
    return p * tpr / (p * tpr + (1.0 - p) * a)


@dataclass(frozen=True)
class AttackerView:
    """An ε (at δ) in the attacker's terms: see :func:`attacker_view`."""

    epsilon: float
    delta: float
    advantage: float
    success: float
    posterior_half: float
    posterior_hundredth: float

    def sentence(self) -> str:
        """Plain words: "best advantage 0.46 (right 73% of the time); 1 in 2 → 73%, 1 in 100 → 2.7%"."""
        def pct(x: float) -> str:
            return "100%" if x >= 0.9995 else (f"{100 * x:.2g}%" if x < 0.1 else f"{100 * x:.0f}%")

        return (f"best advantage {self.advantage:.2f} (right {pct(self.success)} of the time with a 50/50 prior); "
                f"belief 1 in 2 → at most {pct(self.posterior_half)}, 1 in 100 → at most "
                f"{pct(self.posterior_hundredth)}")


def attacker_view(epsilon: float, delta: float = 0.0) -> AttackerView:
    """What an ε (at δ) allows an attacker: the best advantage, the best 50/50 success rate, and the
    posterior reachable from priors 1/2 and 1/100 (from ε alone: δ is the small chance this fails).

    ``epsilon = inf`` (a claim refuted without limit) gives advantage 1 and posteriors 1.

    Examples
    --------
    >>> v = attacker_view(1.0, 1e-5)
    >>> round(v.advantage, 3), round(v.posterior_half, 3), round(v.posterior_hundredth, 4)
    (0.462, 0.731, 0.0267)
    >>> attacker_view(math.inf).posterior_hundredth
    1.0
    """
    eps = check_real(epsilon, "epsilon", low=0.0, allow_inf=True)
    d = _check_delta(delta)
    if math.isinf(eps):
        return AttackerView(eps, d, 1.0, 1.0, 1.0, 1.0)
    adv = advantage_bound(eps, d)
    return AttackerView(eps, d, adv, 0.5 * (1 + adv), posterior_bound(0.5, eps), posterior_bound(0.01, eps))
