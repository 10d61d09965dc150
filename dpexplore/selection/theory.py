"""Utility theory of private selection: the exponential mechanism's tail bound, exact expected losses, and
permute-and-flip's advantage (McKenna & Sheldon 2020).

* :func:`em_loss_bound` — Dwork & Roth (2014), Theorem 3.11: with probability at least 1 − e^(−t) the
  exponential mechanism's output scores at least OPT − (2Δ/ε)(ln(|R| / |R_OPT|) + t). A bound ("at most"),
  not an outcome.
* :func:`em_expected_loss_bound` — integrating that tail: E[OPT − q_out] ≤ (2Δ/ε)(ln(|R|/|R_OPT|) + 1).
* :func:`expected_loss` — the *exact* expected loss E[OPT − q_out] of any mechanism from its exact law.
* :func:`pf_advantage` — EM's exact expected loss minus permute-and-flip's: never negative (McKenna &
  Sheldon 2020, Theorem 2: permute-and-flip's expected error is never larger than the exponential
  mechanism's at the same ε, on every score vector).

Examples
--------
>>> round(em_loss_bound(10, epsilon=1.0, t=1.0), 4)
6.6052
>>> pf_advantage([0.0, 0.0, 5.0], epsilon=1.0) >= 0
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.validation import check_bool, check_epsilon, check_int, check_positive, check_real

from .mechanisms import (
    MAX_CANDIDATES,
    check_scores,
    exponential_mechanism_probabilities,
    noise_scale,
    permute_and_flip_probabilities,
    selection_probabilities,
)

__all__ = [
    "em_expected_loss_bound",
    "em_loss_bound",
    "em_tail_probability_bound",
    "expected_loss",
    "loss_law",
    "pf_advantage",
    "selection_expected_loss",
]


def _count_args(n_candidates, n_optimal) -> tuple[int, int]:
    k = check_int(n_candidates, "n_candidates", low=1, high=MAX_CANDIDATES)
    k_opt = check_int(n_optimal, "n_optimal", low=1, high=k)
    return k, k_opt


def em_loss_bound(n_candidates: int, *, epsilon: float, t: float, sensitivity: float = 1.0, n_optimal: int = 1,
                  monotone: bool = False) -> float:
    """The loss the exponential mechanism exceeds with probability at most e^(−t): (2Δ/ε)(ln(|R|/|R_OPT|) + t).

    Dwork & Roth (2014), Theorem 3.11 (with Δ/ε instead of 2Δ/ε for monotone scores). ``n_optimal`` is
    |R_OPT|, the number of candidates that attain OPT (1 is the safe choice).

    Examples
    --------
    >>> round(em_loss_bound(2, epsilon=2.0, t=0.0), 6) == round(math.log(2), 6)
    True
    """
    k, k_opt = _count_args(n_candidates, n_optimal)
    t = check_real(t, "t", low=0.0)
    return noise_scale(epsilon, sensitivity, monotone=check_bool(monotone, "monotone")) * (math.log(k / k_opt) + t)


def em_tail_probability_bound(loss: float, n_candidates: int, *, epsilon: float, sensitivity: float = 1.0,
                              n_optimal: int = 1, monotone: bool = False) -> float:
    """Theorem 3.11 read the other way: P(OPT − q_out ≥ loss) ≤ min(1, (|R|/|R_OPT|)·exp(−ε·loss/(2Δ))).

    Examples
    --------
    >>> em_tail_probability_bound(0.0, 5, epsilon=1.0)
    1.0
    """
    k, k_opt = _count_args(n_candidates, n_optimal)
    loss = check_real(loss, "loss", low=0.0)
    b = noise_scale(epsilon, sensitivity, monotone=check_bool(monotone, "monotone"))
    return float(min(1.0, (k / k_opt) * math.exp(-loss / b)))


def em_expected_loss_bound(n_candidates: int, *, epsilon: float, sensitivity: float = 1.0, n_optimal: int = 1,
                           monotone: bool = False) -> float:
    """E[OPT − q_out] ≤ (2Δ/ε)(ln(|R|/|R_OPT|) + 1) for the exponential mechanism.

    From Theorem 3.11: E[L] = ∫₀^∞ P(L > s) ds ≤ b ln(|R|/|R_OPT|) + ∫₀^∞ b e^(−t) dt, b = 2Δ/ε.

    Examples
    --------
    >>> em_expected_loss_bound(1, epsilon=2.0)
    1.0
    """
    return em_loss_bound(n_candidates, epsilon=epsilon, t=1.0, sensitivity=sensitivity, n_optimal=n_optimal,
                         monotone=monotone)


def expected_loss(probabilities, scores) -> float:
    """The exact expected loss Σ_r P(r)(OPT − q_r) of a mechanism with output law ``probabilities``.

    Examples
    --------
    >>> expected_loss([0.5, 0.5], [0.0, 2.0])
    1.0
    """
    q = check_scores(scores)
    p = check_scores(probabilities, "probabilities")
    if p.size != q.size:
        raise ValueError(f"probabilities must have one entry per score ({q.size}); got {p.size}")
    if np.any(p < 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"probabilities must be >= 0 and sum to 1; got sum {p.sum():.12g}")
    return float(np.dot(p, q.max() - q))


def loss_law(probabilities, scores) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of the loss OPT − q_out: (distinct losses ascending, their probabilities).

    Examples
    --------
    >>> loss_law([0.25, 0.25, 0.5], [0.0, 0.0, 1.0])
    (array([0., 1.]), array([0.5, 0.5]))
    """
    q = check_scores(scores)
    p = np.asarray(probabilities, dtype=float)
    losses, inv = np.unique(q.max() - q, return_inverse=True)
    return losses, np.bincount(inv, weights=p, minlength=losses.size)


def selection_expected_loss(mechanism: str, scores, *, epsilon: float, sensitivity: float = 1.0,
                            monotone: bool = False) -> float:
    """The exact expected loss of a mechanism by name (``"em"``, ``"rnm"``, ``"pf"``, …).

    Examples
    --------
    >>> selection_expected_loss("em", [0.0, 0.0], epsilon=1.0)
    0.0
    """
    p = selection_probabilities(mechanism, scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    return expected_loss(p, scores)


def pf_advantage(scores, *, epsilon: float, sensitivity: float = 1.0, monotone: bool = False) -> float:
    """EM's exact expected loss minus permute-and-flip's (≥ 0: McKenna & Sheldon 2020, Theorem 2).

    Examples
    --------
    >>> round(pf_advantage([0.0, 1.0], epsilon=1.0), 4)
    0.0743
    """
    check_epsilon(epsilon)
    check_positive(sensitivity, "sensitivity")
    em = exponential_mechanism_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    pf = permute_and_flip_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)
    return expected_loss(em, scores) - expected_loss(pf, scores)
