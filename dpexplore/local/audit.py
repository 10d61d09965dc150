"""Audits of the frequency oracles: claimed ε, exact ε from the output law, and the measured ε̂.

The neighbouring pair of the local model is one person's value: 0 vs 1 (every pair of values is alike for
these symmetric oracles; for Hadamard response rows 1 and 2 of H_K, also alike). The exact ε is
:func:`dpexplore.local.theory.exact_epsilon`; the measured ε̂ is :func:`dpexplore.core.audit.sampled_audit`
on the exact log-likelihood ratio of one report (the most powerful score for this pair), with the
threshold chosen on half the runs and evaluated on the other half. For SUE/OUE and OLH only bits 0 and 1
(OLH: H(0), H(1)) enter the ratio — the other bits have the same law under both inputs — so the audit
simulates the oracle at k = 2.

Broken variant (teaching only): :func:`broken_oue`, an OUE whose 0-bits flip with q = 1/(e^(2ε) + 1),
the probability for 2ε, while it claims ε: its exact ε is 2ε (the ratio (1 − q)/q of the two changed
bits), and the audit refutes the claim.

Examples
--------
>>> a = audit_oracle("krr", k=4, epsilon=1.0, runs=4000, rng=0)
>>> round(a.exact_epsilon, 9), a.violation
(1.0, False)
>>> audit_oracle("oue", k=4, epsilon=1.0, broken=True, runs=40000, rng=0).violation
True
"""

from __future__ import annotations

import math

import numpy as np

from dpexplore.core.audit import PairAudit, sampled_audit
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_bool, check_choice, check_int, check_real

from .mechanisms import MAX_K, ORACLE_NAMES, ORACLES, LocalResult, _eps, oracle_probabilities, randomize
from .theory import channel, exact_epsilon, product_epsilon, unary_bit_probabilities

__all__ = ["MAX_AUDIT_RUNS", "audit_oracle", "broken_oue", "broken_oue_q"]

#: the most runs per input of :func:`audit_oracle`
MAX_AUDIT_RUNS = 2_000_000


def broken_oue_q(epsilon: float) -> float:
    """The broken OUE's 0-bit flip probability q = 1/(e^(2ε) + 1) (correct: 1/(e^ε + 1)).

    Examples
    --------
    >>> round(broken_oue_q(math.log(3) / 2), 12)
    0.25
    """
    eps = _eps(epsilon)
    return 1.0 / (math.exp(2 * eps) + 1.0)


def broken_oue(values, *, k: int, epsilon: float, rng: RNGLike = None) -> LocalResult:
    """BROKEN on purpose: OUE with q computed for 2ε (:func:`broken_oue_q`) that claims ``epsilon``.

    Its exact ε is 2ε. Its reports debias with the q it used, so its estimates stay unbiased — the bug is
    invisible in accuracy and visible only to an audit. Teaching only.

    Examples
    --------
    >>> r = broken_oue([0, 1], k=2, epsilon=1.0, rng=0)
    >>> r.epsilon, round(r.q, 4)
    (1.0, 0.1192)
    """
    return randomize(values, oracle="oue", k=k, epsilon=epsilon, rng=rng,
                     _probabilities=(0.5, broken_oue_q(epsilon)))


def _llr_unary(bits: np.ndarray, p: float, q: float) -> np.ndarray:
    """log P(bits | 1)/P(bits | 0) for bits 0 and 1 of a unary encoding (p on the own bit, q elsewhere)."""
    a = np.log(p / q) * bits[:, 1] + np.log((1 - p) / (1 - q)) * (1 - bits[:, 1])
    b = np.log(q / p) * bits[:, 0] + np.log((1 - q) / (1 - p)) * (1 - bits[:, 0])
    return a + b


def audit_oracle(oracle: str, *, k: int, epsilon: float, broken: bool = False, runs: int = 20_000,
                 confidence: float = 0.95, rng: RNGLike = None, progress=None) -> PairAudit:
    """Audit one report of ``oracle`` on the pair "this person's value is 0" vs "is 1".

    Parameters
    ----------
    oracle : {"krr", "sue", "oue", "olh", "hr"}
    k : int
        The alphabet (2 ≤ k ≤ :data:`~dpexplore.local.MAX_K`).
    epsilon : float
        The claim.
    broken : bool
        Audit :func:`broken_oue` instead (``oracle`` must be ``"oue"``).
    runs : int
        Reports per input (20 ≤ runs ≤ :data:`MAX_AUDIT_RUNS`).
    confidence, rng, progress
        As in :func:`dpexplore.core.audit.sampled_audit`.

    Returns
    -------
    PairAudit
        ``exact_epsilon`` from the output law; ``statistical.epsilon_lower`` the measured ε̂.
    """
    oracle = check_choice(oracle, "oracle", ORACLES)
    k = check_int(k, "k", low=2, high=MAX_K)
    eps = _eps(epsilon)
    broken = check_bool(broken, "broken")
    runs = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    if broken and oracle != "oue":
        raise ValueError(f"broken=True needs oracle='oue' (the broken variant is an OUE); got oracle={oracle!r}")
    g0, g1 = as_generator(rng).spawn(2)
    if broken:
        p, q = 0.5, broken_oue_q(eps)
        exact = product_epsilon(unary_bit_probabilities("oue", k=min(k, 64), epsilon=eps, q=q))
    else:
        p, q = oracle_probabilities(oracle, k=k, epsilon=eps)
        exact = exact_epsilon(oracle, k=k, epsilon=eps)

    if oracle in ("sue", "oue"):
        def draw(v, g, m):
            r = randomize(np.full(m, v), oracle="oue", k=2, epsilon=eps, rng=g, _probabilities=(p, q))
            return _llr_unary(r.reports, p, q)
    elif oracle == "olh":
        def draw(v, g, m):
            r = randomize(np.full(m, v), oracle="olh", k=2, epsilon=eps, rng=g)
            gsz = r.g
            w_same, w_diff = math.exp(eps) / (math.exp(eps) + gsz - 1), 1.0 / (math.exp(eps) + gsz - 1)
            h0, h1 = r.hashes[:, 0], r.hashes[:, 1]
            l1 = np.where(r.reports == h1, w_same, w_diff)
            l0 = np.where(r.reports == h0, w_same, w_diff)
            return np.log(l1 / l0)
    else:
        w = channel(oracle, k=k, epsilon=eps)
        llr = np.log(w[1] / w[0])

        def draw(v, g, m):
            return llr[randomize(np.full(m, v), oracle=oracle, k=k, epsilon=eps, rng=g).reports]

    def sample(m):
        return draw(0, g0, m), draw(1, g1, m)

    stat = sampled_audit(sample, runs, confidence=conf, claimed_epsilon=eps, chunk=max(1000, min(runs // 10, 50_000)),
                         progress=progress, threshold="tail")
    name = ("BROKEN OUE (q computed for 2ε)" if broken else ORACLE_NAMES[oracle]) + f", k = {k}"
    return PairAudit(name, "one person's value 0 vs 1 (the reports of everyone else do not depend on it)",
                     eps, 0.0, float(exact), stat, broken)
