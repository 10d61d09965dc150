"""Auditing DP-SGD with a gradient canary (white-box, many runs), and three broken variants.

The audit (Nasr, Songi, Thakurta, Papernot & Carlini 2021, "Adversary instantiation"; Nasr et al. 2023,
"Tight auditing of differentially private machine learning") inserts a *gradient canary*: an example whose
gradient is a vector of norm G = :data:`CANARY_SCALE`·C along a coordinate no other example touches. The
auditor sees every step's noisy update (white box) and asks: was the canary in the training set? Each run
trains on D (without the canary) or D' (with it); :func:`dpexplore.ml.mechanisms.noisy_clipped_sum` — the
very code :func:`~dpexplore.ml.mechanisms.dp_sgd` runs — makes every step, for ``runs`` runs at once. The
score is the log-likelihood ratio of the canary coordinate's T observations u_t = x_t/C under the claimed
mechanism (honest: u_t ~ N(0, σ²) without, (1−q)·N(0, σ²) + q·N(1, σ²) with the canary):

    s = Σ_t log(1 − q + q·exp((u_t − 1/2)/σ²)).

:func:`dpexplore.core.audit.sampled_audit` turns the scores into a test (threshold chosen on half the runs,
evaluated on the other half) and the test's error rates into ε̂, a lower bound on the true ε of this pair
that holds with probability ≥ 95 % (Clopper–Pearson; Jagielski, Ullman & Oprea 2020). ε̂ > claimed ε
refutes the claim; ε̂ ≤ claim is consistent with it, not a proof.

Broken variants (each still claims the honest Poisson/add-remove ε of :func:`dpexplore.ml.accounting.dpsgd_epsilon`):

``"no_clip"``
    gradients are not clipped: the canary's full norm G = 10·C goes in, the noise is still σ·C.
``"noise_unscaled"``
    the noise is N(0, σ²) instead of N(0, σ²C²): harmless only when C = 1 (the audit runs at C = 4).
``"fixed_as_poisson"``
    batches of B = q·n examples without replacement, accounted as if Poisson under add/remove. With n
    public, neighbours are substitutions (the canary +G·e₀ replaced by −G·e₀); replacing one example moves
    the clipped sum by 2C, so the true ε is about that of noise σ/2 (Lebeda, Regehr, Kamath & Steinke 2024;
    Chua et al. 2024). The honest accounting for this sampling is ``sampling="fixed"`` (RDP, Wang, Balle &
    Kasiviswanathan 2019), against which the same audit is consistent.

Why the two broken variants are refuted robustly at the defaults (q = 0.1, σ = 1, C = 4, T = 20, δ = 10⁻⁵,
20 000 runs per data set, 10 000 of them evaluating the test): the score is the canary coordinate's largest
step, max_t x_t/C. Without the canary it is the maximum of 20 N(0, s²) draws (s = σ = 1 honest and unclipped,
s = σ/C = 1/4 with unscaled noise); with it, one step in which the canary was sampled adds 10 (no clipping)
or 1 (unscaled noise, where the noise sd is 1/4). A threshold the 10 000 canary-free runs never reach leaves
FP = 0, FP⁺ = 1 − 0.025^(1/10 000) ≈ 3.7·10⁻⁴, while FN ≈ P(canary never sampled) = 0.9²⁰ ≈ 0.12, so
ε̂ ≈ log(0.88/3.7·10⁻⁴) ≈ 7.7 — far above the claimed 3.59. Honest DP-SGD's steps of 1 against noise 1 leave
ε̂ near 1: an audit this size cannot see the δ = 10⁻⁵ tail where the claim's ε lives.

``"fixed_as_poisson"`` is a real underestimate (its honest RDP accounting is ~7× larger at the defaults) but
this audit does *not* refute it at the defaults: its ε̂ stays ≈ 1, below the claim. The gap lives in tails
that 20 000 runs do not reach. The one-run audit of Steinke, Nasr & Jagielski (2023) (k canaries, one
training run) is not implemented here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.audit import PairAudit, sampled_audit
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_delta, check_int, check_probability, check_real

from .accounting import dpsgd_epsilon
from .mechanisms import noisy_clipped_sum

__all__ = ["AUDIT_VARIANTS", "AUDIT_N", "CANARY_SCALE", "MAX_AUDIT_RUNS", "MAX_AUDIT_STEPS", "DPSGDAudit",
           "audit_dpsgd"]

AUDIT_VARIANTS = ("honest", "no_clip", "noise_unscaled", "fixed_as_poisson", "fixed")
#: the audit's data set: the canary and AUDIT_N − 1 other examples (their gradients: AUDIT_DIM − 1 coordinates)
AUDIT_N = 20
AUDIT_DIM = 4
#: the canary's gradient norm in units of C
CANARY_SCALE = 10.0
#: public maxima
MAX_AUDIT_RUNS = 1_000_000
MAX_AUDIT_STEPS = 2_000


@dataclass(frozen=True)
class DPSGDAudit(PairAudit):
    """A :class:`~dpexplore.core.audit.PairAudit` of DP-SGD plus the settings it ran at.

    ``exact_epsilon`` is NaN (the pair's exact ε is not computed); ``claimed_epsilon`` is what the variant
    reports; ``honest_epsilon`` the correct accounting of the mechanism that actually ran (an upper bound;
    ``inf`` where none applies: no clipping).
    """

    honest_epsilon: float = math.nan
    variant: str = "honest"
    sampling_rate: float = 0.0
    noise_multiplier: float = 0.0
    clip_norm: float = 1.0
    steps: int = 0


def _scores(g_batch, g_noise, m, *, canary_sign, others, q, sigma, clip, steps, variant):
    n = others.shape[0] + 1
    grads = np.zeros((m, n, others.shape[1] + 1))
    grads[:, 1:, 1:] = others  # coordinate 0 is the canary's alone
    if canary_sign != 0:
        grads[:, 0, 0] = canary_sign * CANARY_SCALE * clip
    fixed = variant in ("fixed", "fixed_as_poisson")
    batch = max(1, int(round(q * n)))
    mech = variant if variant in ("no_clip", "noise_unscaled") else "honest"
    score = np.full(m, -np.inf)
    for _ in range(steps):
        if fixed:
            take = np.argsort(g_batch.random((m, n)), axis=1)[:, :batch]
            mask = np.zeros((m, n))
            np.put_along_axis(mask, take, 1.0, axis=1)
        else:
            mask = (g_batch.random((m, n)) < q).astype(float)
        total, _ = noisy_clipped_sum(grads * mask[:, :, None], clip_norm=clip, noise_multiplier=sigma, rng=g_noise,
                                     variant=mech)
        score = np.maximum(score, total[:, 0] / clip)
    return score


def audit_dpsgd(variant: str = "honest", *, sampling_rate: float = 0.1, noise_multiplier: float = 1.0,
                clip_norm: float = 4.0, steps: int = 20, delta: float = 1e-5, runs: int = 20_000,
                confidence: float = 0.95, rng: RNGLike = None, progress=None) -> DPSGDAudit:
    """Audit DP-SGD (or a broken variant) with a gradient canary; see the module docstring.

    Parameters
    ----------
    variant : {"honest", "no_clip", "noise_unscaled", "fixed_as_poisson", "fixed"}
        ``"fixed"``: fixed-size batches with their own (substitution, RDP) accounting — honest.
    sampling_rate, noise_multiplier, clip_norm, steps, delta
        The DP-SGD settings (q, σ, C, T, δ); the claim is ε(q, σ, T, δ) by PLD (RDP without replacement
        for ``"fixed"``). The audit's data set has :data:`AUDIT_N` examples, so B = round(q·AUDIT_N).
    runs : int
        Training runs per neighbouring data set.
    confidence : float
    rng : Generator, int or None
    progress : callable, optional
        ``progress(done, runs)``; ``False`` cancels (:func:`dpexplore.core.audit.sampled_audit`).

    Returns
    -------
    DPSGDAudit

    Examples
    --------
    >>> a = audit_dpsgd("honest", runs=4000, rng=0)
    >>> a.violation, round(a.claimed_epsilon, 2)
    (False, 3.59)
    >>> audit_dpsgd("no_clip", runs=4000, rng=0).violation
    True
    """
    variant = check_choice(variant, "variant", AUDIT_VARIANTS)
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.05, high=100.0)
    clip = check_real(clip_norm, "clip_norm", low=1e-3, high=1e3)
    steps = check_int(steps, "steps", low=1, high=MAX_AUDIT_STEPS)
    delta = check_delta(delta)
    runs = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS)
    g = as_generator(rng)
    g_data, g_b0, g_n0, g_b1, g_n1 = g.spawn(5)
    # the other examples' gradients: norms up to 3C, in the coordinates the canary does not use
    others = g_data.normal(0.0, 1.0, (AUDIT_N - 1, AUDIT_DIM - 1))
    others *= (clip * g_data.uniform(0.1, 3.0, AUDIT_N - 1) / np.linalg.norm(others, axis=1))[:, None]
    fixed = variant in ("fixed", "fixed_as_poisson")
    kw = dict(others=others, q=q, sigma=sigma, clip=clip, steps=steps, variant=variant)

    def sample(m: int):
        s0 = _scores(g_b0, g_n0, m, canary_sign=-1 if fixed else 0, **kw)
        s1 = _scores(g_b1, g_n1, m, canary_sign=1, **kw)
        return s0, s1

    poisson = dpsgd_epsilon(sampling_rate=q, noise_multiplier=sigma, steps=steps, delta=delta)
    fixed_eps = (dpsgd_epsilon(sampling_rate=q, noise_multiplier=sigma, steps=steps, delta=delta, accountant="rdp",
                               sampling="fixed", n=AUDIT_N) if fixed else math.nan)
    claimed = fixed_eps if variant == "fixed" else poisson
    honest = {"honest": poisson, "no_clip": math.inf, "fixed": fixed_eps, "fixed_as_poisson": fixed_eps,
              "noise_unscaled": dpsgd_epsilon(sampling_rate=q, noise_multiplier=sigma / clip, steps=steps,
                                              delta=delta) if sigma / clip <= 1e3 else math.inf}[variant]
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    stat = sampled_audit(sample, runs, delta=delta, claimed_epsilon=claimed, confidence=conf,
                         chunk=min(runs, 5000), progress=progress, threshold="tail")
    names = {"honest": "DP-SGD (Poisson sampling, clipping, noise σ·C)",
             "fixed": "DP-SGD with fixed-size batches, accounted for substitution (RDP)",
             "no_clip": "BROKEN DP-SGD: no clipping",
             "noise_unscaled": "BROKEN DP-SGD: noise σ, not σ·C",
             "fixed_as_poisson": "BROKEN accounting: fixed-size batches accounted as Poisson"}
    pair = ("the canary (gradient +G·e₀) replaced by its mirror (−G·e₀), n fixed" if fixed
            else "the data set without / with the canary (gradient G·e₀, G = 10·C)")
    return DPSGDAudit(names[variant], pair, float(claimed), delta, math.nan, stat, variant not in ("honest", "fixed"),
                      float(honest), variant, q, sigma, clip, steps)
