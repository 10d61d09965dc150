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
training run) is :func:`one_run_audit`: m gradient canaries (one coordinate each), every one included
with probability 1/2 in a *single* training run; the auditor guesses "in" for the k₊ canaries with the largest
scores, and the number of correct guesses gives ε̂ by their Theorem (:func:`one_run_p_value`).
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

__all__ = ["AUDIT_VARIANTS", "AUDIT_N", "CANARY_SCALE", "MAX_AUDIT_RUNS", "MAX_AUDIT_STEPS", "MAX_CANARIES",
           "DPSGDAudit", "OneRunAudit", "audit_dpsgd", "one_run_audit", "one_run_epsilon_lower", "one_run_p_value"]

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


#: public maximum number of canaries of the one-run audit
MAX_CANARIES = 10_000


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """The p-value of Steinke, Nasr & Jagielski (2023) (their main theorem, Theorem 3.1 for δ = 0, with the δ
    term as their paper's p-value code computes it):
    the probability of at least v correct guesses out of r, when m canaries are each included independently
    with probability 1/2 and the mechanism is (ε, δ)-DP with respect to each canary:

        P[W ≥ v] ≤ P[B ≥ v] + 2mδ · max_{1≤i≤v} P[v − i ≤ B < v] / i,   B ~ Binomial(r, e^ε/(1 + e^ε)).

    Examples
    --------
    >>> round(one_run_p_value(100, 10, 10, 0.0, 0.0), 6)  # ε = 0: a fair coin for each guess
    0.000977
    """
    from scipy import stats

    m = check_int(m, "m", low=1, high=MAX_CANARIES)
    r = check_int(r, "r", low=0, high=m)
    v = check_int(v, "v", low=0, high=r)
    eps = check_real(epsilon, "epsilon", low=0.0)
    delta = check_delta(delta, allow_zero=True)
    if v == 0:
        return 1.0
    p = 1.0 / (1.0 + math.exp(-eps))
    beta = float(stats.binom.sf(v - 1, r, p))
    pmf = stats.binom.pmf(np.arange(v - 1, -1, -1), r, p)  # P[B = v − i], i = 1 … v
    alpha = float(np.max(np.cumsum(pmf) / np.arange(1, v + 1)))
    return min(1.0, beta + 2.0 * m * delta * alpha)


def one_run_epsilon_lower(m: int, r: int, v: int, *, delta: float, confidence: float = 0.95) -> float:
    """ε̂: the largest ε whose (ε, δ) claim the observed v correct guesses of r reject at this confidence
    (p-value :func:`one_run_p_value` < 1 − confidence); 0 when even ε = 0 is not rejected. Bisection to 1e-6.

    Examples
    --------
    >>> round(one_run_epsilon_lower(1000, 250, 250, delta=0.0), 2)  # 250 of 250 right: e^ε/(1+e^ε) ≥ 0.05^(1/250)
    4.42
    """
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    level = 1.0 - conf
    if one_run_p_value(m, r, v, 0.0, delta) >= level:
        return 0.0
    lo, hi = 0.0, 1.0
    while one_run_p_value(m, r, v, hi, delta) < level:
        lo, hi = hi, 2.0 * hi
        if hi > 200:
            return lo
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        if one_run_p_value(m, r, v, mid, delta) < level:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True)
class OneRunAudit:
    """Result of :func:`one_run_audit`: ε̂ from one training run, beside the claim.

    Attributes
    ----------
    epsilon_lower : float
        ε̂, a lower bound on ε (with respect to adding/removing one canary) at ``confidence``.
    claimed_epsilon, delta, confidence : float
    canaries, guesses, correct : int
        m, r = k₊ + k₋ and v.
    variant : str
    """

    epsilon_lower: float
    claimed_epsilon: float
    delta: float
    confidence: float
    canaries: int
    guesses: int
    correct: int
    variant: str

    @property
    def violation(self) -> bool:
        return bool(self.epsilon_lower > self.claimed_epsilon)


def one_run_audit(variant: str = "honest", *, canaries: int = 1000, k_plus: int = 250, k_minus: int = 0,
                  sampling_rate: float = 0.1, noise_multiplier: float = 1.0, clip_norm: float = 4.0, steps: int = 20,
                  delta: float = 1e-5, confidence: float = 0.95, rng: RNGLike = None) -> OneRunAudit:
    """The one-run audit (Steinke, Nasr & Jagielski 2023) of DP-SGD with white-box gradient canaries.

    ``canaries`` examples, canary i with gradient G·e_i (G = :data:`CANARY_SCALE`·C, coordinate i used by no
    one else), each included independently with probability 1/2, beside :data:`AUDIT_N` − 1 ordinary
    examples; ONE run of ``steps`` steps through :func:`dpexplore.ml.mechanisms.noisy_clipped_sum`. Canary i's
    score is its coordinate's largest step max_t x_t,i / C. The auditor guesses "in" for the ``k_plus``
    highest scores and "out" for the ``k_minus`` lowest (fixed in advance: choosing them after looking would
    void the bound) and ε̂ follows from the number of correct guesses (:func:`one_run_epsilon_lower`). The
    claim is the Poisson/add-remove PLD ε; variants as in :func:`audit_dpsgd` (``"no_clip"``,
    ``"noise_unscaled"``; the fixed-batch ones need substitution pairs and are not offered here).

    Examples
    --------
    >>> a = one_run_audit("no_clip", rng=0)
    >>> a.violation, a.correct == a.guesses
    (True, True)
    """
    variant = check_choice(variant, "variant", ("honest", "no_clip", "noise_unscaled"))
    m = check_int(canaries, "canaries", low=2, high=MAX_CANARIES)
    kp = check_int(k_plus, "k_plus", low=0, high=m)
    km = check_int(k_minus, "k_minus", low=0, high=m - kp)
    if kp + km == 0:
        raise ValueError("k_plus + k_minus must be >= 1 (the auditor must guess at least once)")
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    sigma = check_real(noise_multiplier, "noise_multiplier", low=0.05, high=100.0)
    clip = check_real(clip_norm, "clip_norm", low=1e-3, high=1e3)
    steps = check_int(steps, "steps", low=1, high=MAX_AUDIT_STEPS)
    delta = check_delta(delta)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    g_data, g_in, g_batch, g_noise = as_generator(rng).spawn(4)
    others = g_data.normal(0.0, 1.0, (AUDIT_N - 1, AUDIT_DIM - 1))
    others *= (clip * g_data.uniform(0.1, 3.0, AUDIT_N - 1) / np.linalg.norm(others, axis=1))[:, None]
    inside = g_in.random(m) < 0.5
    n, dim = m + AUDIT_N - 1, m + AUDIT_DIM - 1
    grads = np.zeros((n, dim))
    grads[np.arange(m), np.arange(m)] = CANARY_SCALE * clip
    grads[m:, m:] = others
    present = np.concatenate([inside, np.ones(AUDIT_N - 1, dtype=bool)])
    mech = variant if variant != "honest" else "honest"
    score = np.full(m, -np.inf)
    for _ in range(steps):
        mask = (g_batch.random(n) < q) & present
        total, _ = noisy_clipped_sum(grads * mask[:, None], clip_norm=clip, noise_multiplier=sigma, rng=g_noise,
                                     variant=mech)
        score = np.maximum(score, total[:m] / clip)
    order = np.argsort(-score, kind="stable")
    correct = int(inside[order[:kp]].sum() + (~inside[order[m - km:]]).sum() if km else inside[order[:kp]].sum())
    eps_hat = one_run_epsilon_lower(m, kp + km, correct, delta=delta, confidence=conf)
    claimed = dpsgd_epsilon(sampling_rate=q, noise_multiplier=sigma, steps=steps, delta=delta)
    return OneRunAudit(float(eps_hat), float(claimed), delta, conf, m, kp + km, correct, variant)
