"""What ε means to an attacker: trade-off curves, the best advantage, posteriors and the privacy loss.

An attacker sees one output of a mechanism run on one of two neighbouring data sets, A or B, and must
say which. Which pairs are neighbours is part of every privacy claim, and the bounds below hold for
the relation the mechanism's ε is stated for:

* **replacement** ("bounded" DP): B = A with one person's record changed. The intro pages use it
  (B = A with *your* answer changed from "no" to "yes"), so their attacker guesses *your answer*;
* **add/remove** ("unbounded" DP): B = A plus one person. Then the same guess is **membership
  inference** ("is this person in the data set?").

Any decision rule is a hypothesis test with a type-I error α (says "B" when it was A: a false alarm)
and a type-II error β (says "A" when it was B: a miss).

* (ε, δ)-DP holds exactly when every test has β ≥ f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))
  (Kairouz, Oh & Viswanath 2015; Dong, Roth & Su 2022, Prop. 2.5): :func:`dp_tradeoff`.
* μ-GDP holds exactly when β ≥ Φ(Φ⁻¹(1 − α) − μ): :func:`gdp_tradeoff` (from :mod:`dpexplore.core.gaussian`).
* The best **advantage** TPR − FPR = 1 − α − β of any test, i.e. how much better than a coin the
  attacker can do with a 50/50 prior (success probability (1 + advantage)/2 = (e^ε + δ)/(e^ε + 1)):
  at most (e^ε − 1 + 2δ)/(e^ε + 1) under (ε, δ)-DP (:func:`advantage_bound`), 2Φ(μ/2) − 1 under μ-GDP
  (:func:`gdp_advantage`).
* The **posterior**: an attacker who believed "B" with probability ``prior`` believes it, after one
  output of an ε-DP mechanism, with probability at most prior·e^ε / (prior·e^ε + 1 − prior) (the odds
  grow by at most e^ε): :func:`posterior_bound`. DP bounds how much *more* the attacker believes
  after the output than before, not what the attacker can know from other sources.

What δ is. (ε, δ)-DP says P(M(A) ∈ S) − e^ε·P(M(B) ∈ S) ≤ δ for every set S of outputs: δ bounds an
**excess mass**, not how often the privacy loss L = ln(p_A(Y)/p_B(Y)) exceeds ε. Those outputs can be
far more likely than δ (the Gaussian mechanism calibrated to ε = 1, δ = 10⁻⁵: P(L > ε) = 1.6·10⁻⁴ = 16δ;
at ε = 0.1, 111δ). What δ does give is a tail bound at every ε' > ε (:func:`loss_tail_bound`):
P(L > ε') ≤ δ/(1 − e^{ε − ε'}). Where the mechanism's loss law is known (:class:`LossLaw`: Gaussian,
Laplace, randomized response) :func:`attacker_view` reports the exact P(L > ε) and the posterior that
holds except with probability δ.

Examples
--------
>>> round(advantage_bound(1.0, 0.0), 4)
0.4621
>>> round(posterior_bound(0.5, 1.0), 4)
0.7311
>>> round(loss_law("gaussian", epsilon=1.0, delta=1e-5).survival(1.0) / 1e-5, 1)
16.1
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .gaussian import gaussian_sigma, gdp_tradeoff
from .validation import check_array, check_choice, check_real

__all__ = [
    "LOSS_LAWS",
    "AttackerView",
    "LossLaw",
    "advantage_bound",
    "attacker_view",
    "attacker_success_bound",
    "dp_tradeoff",
    "gdp_advantage",
    "gdp_tradeoff",
    "loss_law",
    "loss_tail_bound",
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
    """The best probability of guessing A or B right with a 50/50 prior: at most (1 + advantage)/2 =
    (e^ε + δ)/(e^ε + 1), capped at 1.

    Examples
    --------
    >>> round(attacker_success_bound(math.log(3)), 6)
    0.75
    >>> round(attacker_success_bound(0.0, 0.3), 6)  # (e^0 + 0.3)/(e^0 + 1)
    0.65
    """
    return 0.5 * (1.0 + advantage_bound(epsilon, delta))


def posterior_bound(prior: float, epsilon: float, delta: float = 0.0, *, alpha: float | None = None) -> float:
    """How sure the attacker can become that the data set is B, from a prior belief ``prior``.

    Parameters
    ----------
    prior : float
        The attacker's belief in "B" before the output, in (0, 1) (e.g. 1/2, or 1/100: "one person in
        a hundred answers yes" under replacement neighbours, "one in a hundred is in the data set"
        under add/remove neighbours).
    epsilon : float
        ε ≥ 0.
    delta : float
        δ in [0, 1).
    alpha : float, optional
        The false-alarm rate of the attacker's alarm ("B!") on data set A, in (0, 1]. Without it the
        bound is over every output: prior·e^ε/(prior·e^ε + 1 − prior) for δ = 0, and 1 for δ > 0 (δ
        allows outputs that reveal everything; :func:`attacker_view` says how likely they are).

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


def loss_tail_bound(epsilon: float, delta: float, epsilon_prime) -> float | np.ndarray:
    """What (ε, δ)-DP alone says about the privacy loss: P(L > ε') ≤ δ/(1 − e^{ε − ε'}) for ε' > ε.

    L = ln(p_A(Y)/p_B(Y)) with Y drawn from the mechanism on A (either order of a neighbouring pair).

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 of the claim.
    delta : float
        δ in [0, 1) of the claim.
    epsilon_prime : float or array_like
        Loss levels ε' (values ≤ ε give the trivial bound 1).

    Returns
    -------
    float or ndarray
        min(1, δ/(1 − e^{ε − ε'})) (1 where ε' ≤ ε), same shape as ``epsilon_prime``.

    Notes
    -----
    (ε, δ)-DP holds exactly when δ ≥ E[(1 − e^{ε − L})₊] (the hockey-stick divergence written with the
    loss; Balle, Barthe & Gaboardi 2018). On the event L > ε' the integrand is at least 1 − e^{ε − ε'},
    so δ ≥ P(L > ε')·(1 − e^{ε − ε'}). δ itself is *not* P(L > ε): that probability can be many times
    δ (the Gaussian mechanism at ε = 1, δ = 10⁻⁵: 16δ), because an output with a loss a little above ε
    adds only a little to the excess mass P(S) − e^ε·Q(S) that δ bounds.

    References
    ----------
    Balle, Barthe, Gaboardi (2018). *Privacy amplification by subsampling*. NeurIPS (Thm. 1, the
    hockey-stick form of (ε, δ)-DP). Kasiviswanathan, Smith (2014). *On the "semantics" of
    differential privacy*. J. Priv. Confidentiality (the same style of argument).

    Examples
    --------
    >>> float(loss_tail_bound(1.0, 1e-5, 1.0 + math.log(2)))  # 2δ at ε' = ε + ln 2
    2e-05
    >>> float(loss_tail_bound(1.0, 1e-5, 0.5))
    1.0
    """
    eps, d = _check_eps(epsilon), _check_delta(delta)
    t = np.asarray(check_array(epsilon_prime, "epsilon_prime", finite=False), dtype=float)
    if np.any(np.isnan(t)):
        raise ValueError("epsilon_prime must be a number (or array of numbers), not NaN")
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        gap = -np.expm1(np.minimum(eps - t, 0.0))  # 1 − e^{ε − ε'} in [0, 1)
        out = np.where(t > eps, np.minimum(1.0, d / gap), 1.0)
    out = np.where(np.isinf(t) & (t > 0), 0.0 if d < 1 else 1.0, out)
    return float(out) if out.ndim == 0 else out


#: the mechanisms whose privacy-loss law :func:`loss_law` knows
LOSS_LAWS = ("gaussian", "laplace", "rr")


@dataclass(frozen=True)
class LossLaw:
    """The law of the privacy loss L = ln(p_B(Y)/p_A(Y)), Y drawn from the mechanism on B, of a symmetric pair.

    For the pairs here (a shift by the sensitivity Δ under Gaussian or Laplace noise; one
    randomized-response answer) the law is the same in both directions, so it is also the law of
    ln(p_A(Y)/p_B(Y)) with Y drawn on A.

    Attributes
    ----------
    mechanism : {"gaussian", "laplace", "rr"}
    parameter : float
        μ = Δ/σ (Gaussian: L ~ N(μ²/2, μ²)); ε (Laplace with scale Δ/ε: L = ε with probability 1/2,
        −ε with probability e^{−ε}/2, a density ¼e^{−(ε−l)/2} on (−ε, ε)); ε (randomized response with
        flip probability 1/(e^ε + 1): L = ±ε).
    """

    mechanism: str
    parameter: float

    def survival(self, t):
        """P(L > t) (exact), same shape as ``t``.

        Examples
        --------
        >>> round(LossLaw("laplace", 1.0).survival(0.999), 4), LossLaw("laplace", 1.0).survival(1.0)
        (0.5002, 0.0)
        """
        from scipy import special as sp

        x = np.asarray(t, dtype=float)
        a = self.parameter
        if self.mechanism == "gaussian":
            out = sp.ndtr(-(x - a * a / 2.0) / a) if a > 0 else np.where(x < 0, 1.0, 0.0)
        elif self.mechanism == "laplace":
            tt = np.clip(x, -a, a)
            out = np.where(x < -a, 1.0, np.where(x < a, 1.0 - 0.5 * np.exp(-(a - tt) / 2.0), 0.0))
        else:
            keep = 1.0 - 1.0 / (math.exp(min(a, _EXP_MAX)) + 1.0)  # P(L = +ε)
            out = np.where(x < -a, 1.0, np.where(x < a, keep, 0.0))
        return float(out) if np.ndim(out) == 0 else np.asarray(out)

    def quantile(self, probability: float) -> float:
        """The smallest t with P(L > t) ≤ ``probability``: the loss exceeded with probability at most that.

        Examples
        --------
        >>> LossLaw("laplace", 1.0).quantile(1e-5), LossLaw("rr", 2.0).quantile(0.0)
        (1.0, 2.0)
        """
        from scipy import special as sp

        q = check_real(probability, "probability", low=0.0, high=1.0)
        a = self.parameter
        if self.mechanism == "gaussian":
            if q <= 0.0:
                return math.inf if a > 0 else 0.0
            return a * a / 2.0 + a * float(sp.ndtri(1.0 - q)) if a > 0 else 0.0
        top = 0.5 if self.mechanism == "laplace" else 1.0 - 1.0 / (math.exp(min(a, _EXP_MAX)) + 1.0)
        if q < top:
            return a  # the atom at +ε has probability `top`
        if self.mechanism == "laplace":  # 1 − ½e^{−(ε − t)/2} = q on [−ε, ε)
            return max(-a, a + 2.0 * math.log(2.0 * (1.0 - q))) if q < 1.0 else -a
        return -a


def loss_law(mechanism: str, *, epsilon: float, delta: float = 0.0) -> LossLaw:
    """The privacy-loss law of a mechanism calibrated to ε (δ: the analytic Gaussian at (ε, δ)).

    ``"gaussian"``: σ = :func:`~dpexplore.core.gaussian.gaussian_sigma` (ε, δ, 1), μ = 1/σ (needs δ > 0);
    ``"laplace"``: scale Δ/ε; ``"rr"``: one answer flipped with probability 1/(e^ε + 1).

    Examples
    --------
    >>> law = loss_law("gaussian", epsilon=0.1, delta=1e-5)
    >>> round(law.survival(0.1) / 1e-5)  # P(L > ε) is 111 δ
    111
    >>> loss_law("rr", epsilon=1.0).survival(1.0)
    0.0
    """
    mech = check_choice(mechanism, "mechanism", LOSS_LAWS)
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True)
    d = _check_delta(delta)
    if mech == "gaussian":
        if d <= 0.0:
            raise ValueError(f"delta must be > 0 for the Gaussian mechanism's loss law; got {d!r}")
        return LossLaw("gaussian", 1.0 / gaussian_sigma(eps, d, 1.0))
    return LossLaw(mech, eps)


@dataclass(frozen=True)
class AttackerView:
    """An ε (at δ) in the attacker's terms: see :func:`attacker_view`.

    ``posterior_half`` / ``posterior_hundredth``: from ε alone (odds × e^ε), from priors 1/2 and 1/100;
    they hold on every output only when δ = 0 or the loss never exceeds ε. ``loss_above_epsilon``:
    the exact P(L > ε) (None without a loss law). ``tail_epsilon``, ``tail_probability`` and
    ``tail_posterior_half`` / ``tail_posterior_hundredth``: the posteriors with e^{tail_epsilon} in
    place of e^ε, which hold except on outputs of total probability at most ``tail_probability``
    (with a loss law: the loss's upper δ-quantile, exceeded with probability ≤ δ; without: ε + ln 2,
    exceeded with probability ≤ 2δ by :func:`loss_tail_bound`).
    """

    epsilon: float
    delta: float
    advantage: float
    success: float
    posterior_half: float
    posterior_hundredth: float
    loss: str | None = None
    loss_above_epsilon: float | None = None
    tail_epsilon: float = math.nan
    tail_probability: float = 0.0
    tail_posterior_half: float = math.nan
    tail_posterior_hundredth: float = math.nan

    def sentence(self) -> str:
        """Plain words, every number a bound: "advantage at most 0.46 (right at most 73% of the time …)"."""
        def pct(x: float) -> str:
            return "100%" if x >= 0.9995 else (f"{100 * x:.2g}%" if x < 0.1 else f"{100 * x:.0f}%")

        out = (f"advantage at most {self.advantage:.2f} (right at most {pct(self.success)} of the time with a 50/50 "
               f"prior); belief 1 in 2 → at most {pct(self.posterior_half)}, 1 in 100 → at most "
               f"{pct(self.posterior_hundredth)}")
        if self.delta > 0 or (self.loss_above_epsilon or 0.0) > 0:
            if self.loss_above_epsilon is not None:
                out += (f" except on outputs with loss above ε (probability {self.loss_above_epsilon:.2g}, "
                        f"δ = {self.delta:.2g})")
            else:
                out += " except where the loss exceeds ε (δ does not say how often)"
            if self.tail_probability > 0 and math.isfinite(self.tail_epsilon):
                out += (f"; with probability ≥ 1 − {self.tail_probability:.2g}: 1 in 2 → at most "
                        f"{pct(self.tail_posterior_half)}, 1 in 100 → at most {pct(self.tail_posterior_hundredth)}")
        return out


def attacker_view(epsilon: float, delta: float = 0.0, *, mechanism: str | LossLaw | None = None) -> AttackerView:
    """What an ε (at δ) allows an attacker: the best advantage, the best 50/50 success rate, and the
    posterior reachable from priors 1/2 and 1/100 — from ε alone, and the one that holds except with
    probability δ (exactly, where the mechanism's loss law is known).

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 (``inf``: a claim refuted without limit: advantage 1 and posteriors 1).
    delta : float
        δ in [0, 1).
    mechanism : {"gaussian", "laplace", "rr"} or LossLaw, optional
        The mechanism (calibrated to (ε, δ) by :func:`loss_law`) or its loss law. With it, the view
        has the exact P(L > ε) and the posterior at the loss's upper δ-quantile; without it (δ > 0),
        only what (ε, δ) guarantees: the posterior at ε + ln 2, failing with probability ≤ 2δ.

    Notes
    -----
    The ε-only posteriors p·e^ε/(p·e^ε + 1 − p) hold on every output when δ = 0. When δ > 0 they hold
    except on outputs whose privacy loss exceeds ε; δ is not the probability of those outputs (it
    bounds the excess mass P(S) − e^ε·Q(S)), which is why this function reports that probability
    where it is known and a tail bound (:func:`loss_tail_bound`) where it is not.

    Examples
    --------
    >>> v = attacker_view(1.0, 1e-5)
    >>> round(v.advantage, 3), round(v.posterior_half, 3), round(v.posterior_hundredth, 4)
    (0.462, 0.731, 0.0267)
    >>> round(v.tail_epsilon - 1.0, 4), v.tail_probability   # ε + ln 2, with probability ≤ 2δ
    (0.6931, 2e-05)
    >>> g = attacker_view(1.0, 1e-5, mechanism="gaussian")
    >>> round(g.loss_above_epsilon / 1e-5, 1), round(g.tail_epsilon, 3), round(g.tail_posterior_hundredth, 4)
    (16.1, 1.179, 0.0318)
    >>> attacker_view(math.inf).posterior_hundredth
    1.0
    """
    eps = check_real(epsilon, "epsilon", low=0.0, allow_inf=True)
    d = _check_delta(delta)
    if math.isinf(eps):
        return AttackerView(eps, d, 1.0, 1.0, 1.0, 1.0, None, None, math.inf, 0.0, 1.0, 1.0)
    adv = advantage_bound(eps, d)
    law = None
    if isinstance(mechanism, LossLaw):
        law = mechanism
    elif mechanism is not None and eps > 0:
        law = loss_law(mechanism, epsilon=eps, delta=d)
    if law is not None:
        above = float(law.survival(eps))
        tail_eps = law.quantile(d)
        tail_p = float(law.survival(tail_eps))
    elif d > 0:
        above, tail_eps, tail_p = None, eps + math.log(2.0), float(loss_tail_bound(eps, d, eps + math.log(2.0)))
    else:
        above, tail_eps, tail_p = None, eps, 0.0

    def post(prior: float, e: float) -> float:
        return 1.0 if not math.isfinite(e) else posterior_bound(prior, max(e, 0.0))

    return AttackerView(eps, d, adv, 0.5 * (1 + adv), posterior_bound(0.5, eps), posterior_bound(0.01, eps),
                        None if law is None else law.mechanism, above, tail_eps, tail_p,
                        post(0.5, tail_eps), post(0.01, tail_eps))
