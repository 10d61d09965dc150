"""Exact privacy of mechanisms with small output spaces.

For two output distributions P and Q of a mechanism on neighbouring inputs, the tightest δ at a
given ε is the *hockey-stick divergence*

    δ(ε) = H_{e^ε}(P ‖ Q) = Σ_y (P(y) − e^ε Q(y))_+,

and the mechanism is (ε, δ)-DP on that pair iff max(H(P‖Q), H(Q‖P)) ≤ δ. These functions make
privacy *checks* exact wherever the output law can be written down (randomized response,
permute-and-flip, shuffled histograms, short Markov trajectories).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .validation import check_array, check_delta, check_real

__all__ = ["hockey_stick", "exact_epsilon", "PrivacyCheck", "exact_privacy_check"]


def _pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    pa = check_array(p, "p", finite=False)
    qa = check_array(q, "q", finite=False)
    if pa.shape != qa.shape:
        raise ValueError(f"p and q must have the same shape; got {pa.shape} and {qa.shape}")
    for name, arr in (("p", pa), ("q", qa)):
        if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must be a non-empty array of finite probabilities >= 0")
        s = float(arr.sum())
        if abs(s - 1.0) > 1e-6:
            raise ValueError(f"{name} must sum to 1 (a probability distribution); got sum {s:.10g}")
    return pa.ravel(), qa.ravel()


def hockey_stick(p, q, epsilon: float) -> float:
    """δ between two discrete distributions at ε: Σ_y (p(y) − e^ε q(y))_+.

    Parameters
    ----------
    p, q : array_like
        Probability vectors over the same outputs (any shape, same shape).
    epsilon : float
        ε ≥ 0 (``numpy.inf`` gives the mass of p where q is 0).

    Returns
    -------
    float

    Examples
    --------
    >>> import math
    >>> hockey_stick([0.75, 0.25], [0.25, 0.75], math.log(3))
    0.0
    >>> round(hockey_stick([0.75, 0.25], [0.25, 0.75], 0.0), 6)
    0.5
    """
    pa, qa = _pair(p, q)
    eps = check_real(epsilon, "epsilon", low=0.0, allow_inf=True)
    if math.isinf(eps):
        return float(pa[qa == 0].sum())
    # in log space, so that e^ε never overflows: the positive terms are where log p − log q > ε,
    # and there e^ε q = exp(ε + log q) < p.
    with np.errstate(divide="ignore"):
        lp, lq = np.log(pa), np.log(qa)
    with np.errstate(invalid="ignore"):  # -inf - -inf where p = q = 0: not a positive term
        pos = (pa > 0) & ((lp - lq) > eps)
    return float(np.sum(pa[pos] - np.exp(eps + lq[pos])))


def exact_epsilon(p, q, delta: float = 0.0) -> float:
    """The smallest ε with max(H_{e^ε}(p‖q), H_{e^ε}(q‖p)) ≤ δ (two-sided).

    For δ = 0 this is the largest absolute log-likelihood ratio (``inf`` if the supports differ).

    Examples
    --------
    >>> import math
    >>> round(exact_epsilon([0.75, 0.25], [0.25, 0.75]), 6) == round(math.log(3), 6)
    True
    """
    pa, qa = _pair(p, q)
    delta = check_delta(delta, allow_zero=True)
    both = (pa > 0) & (qa > 0)
    if np.any((pa > 0) != (qa > 0)):
        one_sided = max(float(pa[qa == 0].sum()), float(qa[pa == 0].sum()))
        if one_sided > delta:
            return math.inf
    ratios = np.abs(np.log(pa[both]) - np.log(qa[both]))
    eps_max = float(ratios.max()) if ratios.size else 0.0
    if delta == 0.0:
        return eps_max

    def worst(e: float) -> float:
        return max(hockey_stick(pa, qa, e), hockey_stick(qa, pa, e))

    if worst(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, eps_max
    for _ in range(200):  # bisection: worst() is non-increasing in ε
        mid = 0.5 * (lo + hi)
        if worst(mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return hi


@dataclass(frozen=True)
class PrivacyCheck:
    """Outcome of :func:`exact_privacy_check`.

    Attributes
    ----------
    ok : bool
        Whether (ε, δ)-DP holds on this pair (up to ``tol``).
    delta_at_epsilon : float
        max(H(p‖q), H(q‖p)) at the claimed ε.
    epsilon_needed : float
        The smallest ε that would satisfy the claimed δ on this pair.
    """

    ok: bool
    delta_at_epsilon: float
    epsilon_needed: float


def exact_privacy_check(p, q, epsilon: float, delta: float = 0.0, *, tol: float = 1e-12) -> PrivacyCheck:
    """Check (ε, δ)-DP exactly on one pair of output distributions.

    ``tol`` is the rounding allowance on δ, a finite number in [0, 1e-3]: NaN (which would
    make every comparison false) and allowances that could hide a real violation are refused.

    Examples
    --------
    >>> import math
    >>> exact_privacy_check([0.75, 0.25], [0.25, 0.75], math.log(3)).ok
    True
    >>> exact_privacy_check([0.75, 0.25], [0.25, 0.75], 1.0).ok
    False
    """
    tol = check_real(tol, "tol", low=0.0, high=1e-3)
    pa, qa = _pair(p, q)
    eps = check_real(epsilon, "epsilon", low=0.0, allow_inf=True)
    delta = check_delta(delta, allow_zero=True)
    d = max(hockey_stick(pa, qa, eps), hockey_stick(qa, pa, eps))
    return PrivacyCheck(ok=d <= delta + tol, delta_at_epsilon=d, epsilon_needed=exact_epsilon(pa, qa, delta))
