"""Audits of private selection and of the sparse vector technique: claimed vs exact vs measured ε.

Selection (:func:`audit_selection`): the pair "every score 0" / "candidate 0 gains Δ, every other loses Δ"
(one person's change moves each score by at most Δ). Its exact ε is the largest log-ratio of the two exact
output laws (:func:`dpexplore.core.audit.exact_audit`); the measured ε̂ comes from runs of the mechanism
scored by the exact log-likelihood ratio. The broken variant is :func:`dpexplore.core.audit.broken_permute_and_flip`
(the factor 2 dropped: it runs at 2ε while claiming ε).

SVT (:func:`audit_svt`), three numbers per variant:

* **exact ε** — the worst case over all neighbouring query vectors (each answer moves by ≤ Δ) and any
  number of queries: ε for the honest versions (Lyu, Su & Li 2017, Theorem 2; Dwork & Roth 2014,
  Theorem 3.24/3.25), (1 + c)ε/2 for ``"noise-independent-of-c"`` (Lyu et al.'s bound ε1 + 2cΔ/b_ν), ∞ for
  the other broken ones. Each upper bound is the cited theorem; that it is reached is ours: the pair family
  of :func:`svt_worst_pair` approaches it (``pair_epsilon``), and for the ∞ cases an output that has
  probability 0 on one side (no query noise, shared query noise) or a loss (k+1)Δ/b_ν that grows without
  bound in the number k of ⊥ answers before the released value (noisy value).
* **pair ε** — the privacy loss computed (quadrature in log space) on the worst-case pair family at a large
  gap: a lower bound on the exact ε, equal to it up to e^(−gap·κ) (see :func:`svt_worst_pair`).
* **measured ε̂** — a 95 %-confidence lower bound from runs on a moderate pair (:func:`svt_audit_pair`),
  scored by the exact log-likelihood ratio of the answer pattern.

Examples
--------
>>> a = audit_svt("no-query-noise", epsilon=1.0, runs=4000, rng=0)
>>> a.exact_epsilon, a.violation
(inf, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.audit import (
    PairAuditMixin,
    StatisticalAudit,
    audit_from_scores,
    exact_audit,
)
from dpexplore.core.permute_and_flip import permute_and_flip_probabilities as _core_pf_law
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_positive, check_real

from .mechanisms import MAX_CANDIDATES_EXACT, noise_scale, select_many, selection_probabilities
from .svt import (
    SVT_VARIANTS,
    SVTSpec,
    pattern_code,
    sample_patterns,
    svt_log_probability,
    svt_log_value_density,
    svt_pattern_log_probabilities,
    svt_patterns,
    svt_spec,
)

__all__ = [
    "AUDITED_SELECTORS",
    "MAX_AUDIT_RUNS",
    "SVTAudit",
    "SelectionAudit",
    "WorstPair",
    "audit_selection",
    "audit_svt",
    "selection_pair",
    "svt_audit_pair",
    "svt_exact_epsilon",
    "svt_pair_epsilon",
    "svt_pair_loss",
    "svt_worst_pair",
]

#: the most runs per input of an audit here
MAX_AUDIT_RUNS = 1_000_000
#: the mechanisms :func:`audit_selection` audits ("pf-broken": the factor 2 dropped)
AUDITED_SELECTORS = ("em", "rnm", "pf", "pf-broken")


# -- selection ------------------------------------------------------------------------------------------------
def selection_pair(k: int, sensitivity: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The audited pair of score vectors: all 0, and (Δ, −Δ, …, −Δ).

    Examples
    --------
    >>> selection_pair(3)
    (array([0., 0., 0.]), array([ 1., -1., -1.]))
    """
    k = check_int(k, "k", low=2, high=MAX_CANDIDATES_EXACT)
    d = check_positive(sensitivity, "sensitivity")
    q1 = np.full(k, -d)
    q1[0] = d
    return np.zeros(k), q1


def _selector_law(mech: str, q: np.ndarray, eps: float, d: float) -> np.ndarray:
    if mech == "pf-broken":
        return _core_pf_law(q, 2.0 * eps, sensitivity=d)
    return selection_probabilities(mech, q, epsilon=eps, sensitivity=d)


def _selector_sample(mech: str, q: np.ndarray, eps: float, d: float, runs: int, g: np.random.Generator):
    """``runs`` runs of the mechanism on q, drawn at once (:func:`~.mechanisms.select_many`)."""
    if mech == "em":
        p = _selector_law("em", q, eps, d)
        return g.choice(q.size, size=runs, p=p)
    if mech == "rnm":
        return np.argmax(q + g.laplace(0.0, noise_scale(eps, d), (runs, q.size)), axis=1)
    if mech == "pf":
        return select_many("pf", q, epsilon=eps, sensitivity=d, runs=runs, rng=g)
    # the bug of dpexplore.core.audit.broken_permute_and_flip: permute-and-flip run at 2ε (the factor 2 dropped)
    return select_many("pf", q, epsilon=2.0 * eps, sensitivity=d, runs=runs, rng=g)


@dataclass(frozen=True)
class SelectionAudit(PairAuditMixin):
    """One selection mechanism audited on :func:`selection_pair`.

    Attributes
    ----------
    mechanism : str
    claimed_epsilon : float
    exact_epsilon : float
        The exact ε of this pair (from the two exact laws): a lower bound on the mechanism's worst case.
    statistical : StatisticalAudit
    broken : bool
    law0, law1 : ndarray
        The exact output laws on the two inputs.
    """

    mechanism: str
    claimed_epsilon: float
    exact_epsilon: float
    statistical: StatisticalAudit | None
    broken: bool
    law0: np.ndarray
    law1: np.ndarray


def audit_selection(mechanism: str, *, epsilon: float, k: int = 10, sensitivity: float = 1.0, runs: int = 20_000,
                    rng: RNGLike = None) -> SelectionAudit:
    """Claimed vs exact-on-the-pair vs measured ε of a selection mechanism (see the module docstring).

    Examples
    --------
    >>> a = audit_selection("pf-broken", epsilon=1.0, runs=2000, rng=0)
    >>> a.exact_epsilon > 1.0, a.violation
    (True, True)
    """
    mech = check_choice(mechanism, "mechanism", AUDITED_SELECTORS)
    eps = check_epsilon(epsilon)
    d = check_positive(sensitivity, "sensitivity")
    runs = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS)
    q0, q1 = selection_pair(k, d)
    p0, p1 = _selector_law(mech, q0, eps, d), _selector_law(mech, q1, eps, d)
    exact = exact_audit(p0, p1, claimed_epsilon=eps).epsilon
    llr = np.log(p1) - np.log(p0)
    g0, g1 = as_generator(rng).spawn(2)
    s0 = llr[_selector_sample(mech, q0, eps, d, runs, g0)]
    s1 = llr[_selector_sample(mech, q1, eps, d, runs, g1)]
    stat = audit_from_scores(s0, s1, claimed_epsilon=eps)
    return SelectionAudit(mech, eps, float(exact), stat, mech == "pf-broken", p0, p1)


# -- the sparse vector technique ------------------------------------------------------------------------------
def svt_exact_epsilon(variant: str, *, epsilon: float, c: int = 1, split: float = 0.5) -> float:
    """The worst-case ε of a variant over all neighbouring query vectors and any number of queries.

    Honest: ε (the cited theorems). ``"noise-independent-of-c"``: (1 + c)ε/2 (Lyu et al.'s bound
    ε1 + 2cΔ/b_ν with b_ν = 4Δ/ε; reached by :func:`svt_worst_pair`). The other broken variants: ∞.

    Examples
    --------
    >>> svt_exact_epsilon("lyu", epsilon=1.0, c=3), svt_exact_epsilon("noise-independent-of-c", epsilon=1.0, c=3)
    (1.0, 2.0)
    """
    s = svt_spec(variant, epsilon=epsilon, c=c, split=split)
    if s.variant in ("dwork-roth", "lyu"):
        return s.claimed_epsilon
    if s.variant == "noise-independent-of-c":
        return s.epsilon_threshold + 2.0 * s.c * s.sensitivity / s.query_scale
    return math.inf


@dataclass(frozen=True)
class WorstPair:
    """A neighbouring pair of query-answer vectors and the output whose privacy loss is largest on it.

    Attributes
    ----------
    queries, neighbour : ndarray
        q and q' (|q_i − q'_i| ≤ Δ for every i).
    threshold : float
    answers : tuple of bool
        The output pattern.
    value : float or None
        The released noisy value (``"noisy-value"`` only).
    description : str
    """

    queries: np.ndarray
    neighbour: np.ndarray
    threshold: float
    answers: tuple
    value: float | None
    description: str


def svt_worst_pair(spec: SVTSpec, *, gap: float = 60.0, below: int | None = None) -> WorstPair:
    """The worst-case pair family of a variant, at distance ``gap`` (in units of Δ·max noise scale / Δ) from T.

    Binary variants: ``below`` queries far above T (q_i = T + G, q'_i = T + G + Δ) answered ⊥, then c queries
    far below (T − G, T − G − Δ) answered ⊤ (Dwork & Roth's re-drawn threshold: ⊥^k ⊤ repeated c times).
    On q' the ⊥ queries rose by Δ and the ⊤ ones fell by Δ; shifting the threshold noise by Δ turns one law
    into the other except for the factor e^(Δ/b_ρ) of ρ's density and e^(2Δ/b_ν) per ⊤, both attained where the
    integrand's mass sits once k > c + b_ν/b_ρ and G → ∞ (the default ``below`` is 2(c + b_ν/b_ρ) + 1).
    No query noise / shared query noise: (T − Δ/2, T + Δ/2) vs (T + Δ/2, T − Δ/2) and (T, T) vs (T, T + Δ),
    whose output ⊥⊤ has probability 0 on one side. Noisy value: k = ``below`` queries at T (q) and T + Δ (q'),
    the last one ⊤ with released value T − G: the loss tends to (k + 1)Δ/b_ν as G → ∞.

    Examples
    --------
    >>> p = svt_worst_pair(svt_spec("lyu", epsilon=1.0))
    >>> p.answers[-1], len(p.answers)
    (True, 8)
    """
    d, thr = spec.sensitivity, 0.0
    gap = check_real(gap, "gap", low=0.0, low_open=True, high=1e6)
    big = gap * max(spec.threshold_scale, spec.query_scale)
    if spec.variant == "no-query-noise":
        return WorstPair(np.array([thr - d / 2, thr + d / 2]), np.array([thr + d / 2, thr - d / 2]), thr,
                         (False, True), None, "output ⊥⊤: possible on q, impossible on q'")
    if spec.variant == "shared-query-noise":
        return WorstPair(np.array([thr, thr]), np.array([thr, thr + d]), thr, (False, True), None,
                         "output ⊥⊤: impossible on q (equal answers share one noise), possible on q'")
    ratio = spec.query_scale / spec.threshold_scale
    if spec.variant == "noisy-value":
        k = 5 if below is None else check_int(below, "below", low=0, high=60)
        return WorstPair(np.full(k + 1, thr), np.full(k + 1, thr + d), thr, (False,) * k + (True,), thr - big,
                         f"{k} ⊥ then ⊤ with released value T − {big:g}; q' = q + Δ")
    per_round = 1 if spec.redraw_threshold else spec.c
    rounds = spec.c if spec.redraw_threshold else 1
    k = int(2 * math.ceil(per_round + ratio) + 1) if below is None else check_int(below, "below", low=0, high=60)
    q, qp, ans = [], [], []
    for _ in range(rounds):
        q += [thr + big] * k + [thr - big] * per_round
        qp += [thr + big + d] * k + [thr - big - d] * per_round
        ans += [False] * k + [True] * per_round
    if len(q) > 60:
        raise ValueError(f"the worst pair would have {len(q)} > 60 queries: use a smaller c or below")
    return WorstPair(np.array(q), np.array(qp), thr, tuple(ans), None,
                     f"{k} queries far above T answered ⊥, then {per_round} far below answered ⊤"
                     + (f", {rounds} times" if rounds > 1 else "") + "; q' moves each by Δ the other way")


def svt_pair_loss(spec: SVTSpec, pair: WorstPair) -> float:
    """The privacy loss ln P(answers | q) / P(answers | q') of the pair's output (∞ when impossible on q').

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=1.0)
    >>> round(svt_pair_loss(s, svt_worst_pair(s)), 9)
    1.0
    """
    a = svt_log_probability(spec, pair.queries, pair.threshold, pair.answers, value=pair.value)
    b = svt_log_probability(spec, pair.neighbour, pair.threshold, pair.answers, value=pair.value)
    if a == -math.inf and b == -math.inf:
        return 0.0
    return abs(a - b) if math.isfinite(a) and math.isfinite(b) else math.inf


def svt_pair_epsilon(spec: SVTSpec, queries, neighbour, threshold: float) -> float:
    """The exact ε of one pair for a binary-output variant: max over every output pattern of |ln P/P'|.

    Examples
    --------
    >>> s = svt_spec("lyu", epsilon=1.0)
    >>> svt_pair_epsilon(s, [0.0, 0.0], [0.0, 0.0], 0.0)
    0.0
    """
    if spec.releases_value:
        raise ValueError("svt_pair_epsilon is for the binary-output variants; use svt_pair_loss for 'noisy-value'")
    q = np.asarray(queries, dtype=float)
    worst = 0.0
    pats = svt_patterns(q.size, spec.c)
    lp0 = svt_pattern_log_probabilities(spec, q, threshold, pats)
    lp1 = svt_pattern_log_probabilities(spec, neighbour, threshold, pats)
    for a, b in zip(lp0.tolist(), lp1.tolist()):
        if a == -math.inf and b == -math.inf:
            continue
        worst = max(worst, abs(a - b) if math.isfinite(a) and math.isfinite(b) else math.inf)
    return worst


def svt_audit_pair(spec: SVTSpec) -> WorstPair:
    """The moderate pair the *statistical* audit samples (outputs of non-negligible probability).

    Binary variants with noise: the worst-case family at gap 1.5 (answers within a few noise scales of T).
    The ∞ cases: their worst pair (the impossible output has probability ≈ 0.1–0.2 on the other side).
    Noisy value: 11 queries at T vs T + Δ (the first released value is part of the score).

    Examples
    --------
    >>> svt_audit_pair(svt_spec("no-query-noise", epsilon=1.0)).answers
    (False, True)
    """
    if spec.variant in ("no-query-noise", "shared-query-noise"):
        return svt_worst_pair(spec)
    if spec.variant == "noisy-value":
        return svt_worst_pair(spec, gap=1.0, below=10)
    return svt_worst_pair(spec, gap=1.5, below=2 if not spec.redraw_threshold else 1)


@dataclass(frozen=True)
class SVTAudit(PairAuditMixin):
    """One SVT variant: claimed, exact (worst case), pair and measured ε.

    Attributes
    ----------
    variant, title : str
    claimed_epsilon : float
    exact_epsilon : float
        Worst case over all neighbouring inputs (see :func:`svt_exact_epsilon`).
    pair_epsilon : float
        The loss on the worst-case pair family (a lower bound on ``exact_epsilon``).
    pair : WorstPair
    statistical : StatisticalAudit
        ε̂ on :func:`svt_audit_pair` (95 % confidence lower bound).
    broken : bool
    c : int
    """

    variant: str
    title: str
    claimed_epsilon: float
    exact_epsilon: float
    pair_epsilon: float
    pair: WorstPair
    statistical: StatisticalAudit | None
    broken: bool
    c: int


def _noisy_value_score(spec, pair, tables, codes, values):
    """The exact llr of each sampled run of ``"noisy-value"``: from the first ⊤'s position (base-3 digit 2) and its
    released value, the marginal law of svt_log_probability(value=), interpolated in ``tables``."""
    k = len(pair.answers)
    vgrid, by_first, llr_none = tables
    digits = (codes[:, None] // 3 ** np.arange(k)[None, :]) % 3
    first = np.where((digits == 2).any(axis=1), np.argmax(digits == 2, axis=1) + 1, 0)
    out = np.full(codes.size, llr_none)
    for j, tab in enumerate(by_first, start=1):
        hit = first == j
        out[hit] = np.interp(values[hit], vgrid, tab)
    return out


def _frozen(*arrays: np.ndarray) -> None:
    for a in arrays:
        a.setflags(write=False)


@functools.lru_cache(maxsize=64)
def _svt_exact_parts(variant: str, epsilon: float, c: int, gap: float):
    """Everything of :func:`audit_svt` that does not depend on the runs: the spec, the worst pair and its loss, the
    audited pair, and the exact score table (each pattern's log-likelihood ratio; for ``"noisy-value"`` the ratio
    as a function of the released value for each position of the first ⊤). A pure function of its arguments
    (validated by the caller), cached: a new seed, or a return to earlier settings, reuses it."""
    spec = svt_spec(variant, epsilon=epsilon, c=c)
    worst = svt_worst_pair(spec, gap=gap)
    pair_eps = svt_pair_loss(spec, worst)
    ap = svt_audit_pair(spec)
    _frozen(worst.queries, worst.neighbour, ap.queries, ap.neighbour)
    if spec.releases_value:
        k = len(ap.answers)
        vgrid = ap.threshold + np.linspace(-10.0, 5.0, 16) * spec.query_scale
        by_first = []
        for j in range(1, k + 1):  # pattern ⊥^(j−1) ⊤ at query j, log-likelihood ratio q'/q as a function of v
            ans = (False,) * (j - 1) + (True,)
            by_first.append(svt_log_value_density(spec, ap.neighbour, ap.threshold, ans, vgrid)
                            - svt_log_value_density(spec, ap.queries, ap.threshold, ans, vgrid))
        none = (False,) * k
        llr_none = (svt_log_probability(spec, ap.neighbour, ap.threshold, none)
                    - svt_log_probability(spec, ap.queries, ap.threshold, none))
        _frozen(vgrid, *by_first)
        return spec, worst, pair_eps, ap, (vgrid, tuple(by_first), llr_none)
    pats = svt_patterns(ap.queries.size, spec.c)
    lp0 = svt_pattern_log_probabilities(spec, ap.queries, ap.threshold, pats)
    lp1 = svt_pattern_log_probabilities(spec, ap.neighbour, ap.threshold, pats)
    with np.errstate(invalid="ignore"):
        llr = np.clip(np.nan_to_num(lp1 - lp0, nan=0.0, posinf=50.0, neginf=-50.0), -50.0, 50.0)
    codes = np.array([pattern_code(a) for a in pats])
    order = np.argsort(codes)
    codes, llr = codes[order], llr[order]  # sorted by code, for the look-up of the sampled patterns
    _frozen(codes, llr)
    return spec, worst, pair_eps, ap, (codes, llr)


def audit_svt(variant: str, *, epsilon: float, c: int = 1, runs: int = 20_000, gap: float = 60.0,
              rng: RNGLike = None) -> SVTAudit:
    """Claimed vs exact vs pair vs measured ε of one SVT variant (sensitivity 1; see the module docstring).

    Examples
    --------
    >>> a = audit_svt("lyu", epsilon=1.0, runs=2000, rng=0)
    >>> round(a.pair_epsilon, 9), a.violation
    (1.0, False)
    """
    spec = svt_spec(variant, epsilon=epsilon, c=c)
    runs = check_int(runs, "runs", low=20, high=MAX_AUDIT_RUNS)
    gap = check_real(gap, "gap", low=0.0, low_open=True, high=1e6)
    spec, worst, pair_eps, ap, table = _svt_exact_parts(spec.variant, spec.claimed_epsilon, spec.c, gap)
    g0, g1 = as_generator(rng).spawn(2)
    c0, v0 = sample_patterns(spec, ap.queries, ap.threshold, runs, rng=g0)
    c1, v1 = sample_patterns(spec, ap.neighbour, ap.threshold, runs, rng=g1)
    if spec.releases_value:
        s0, s1 = (_noisy_value_score(spec, ap, table, cc, vv) for cc, vv in ((c0, v0), (c1, v1)))
    else:
        codes, llr = table
        # each sampled pattern's llr: look its code up among the patterns' (every output is one of them)
        at0, at1 = (np.minimum(np.searchsorted(codes, cc), codes.size - 1) for cc in (c0, c1))
        if not (np.array_equal(codes[at0], c0) and np.array_equal(codes[at1], c1)):  # pragma: no cover - a bug
            raise RuntimeError("sample_patterns returned a pattern svt_patterns does not list")
        s0, s1 = llr[at0], llr[at1]
    stat = audit_from_scores(s0, s1, claimed_epsilon=spec.claimed_epsilon, threshold="tail")
    return SVTAudit(spec.variant, spec.title, spec.claimed_epsilon,
                    svt_exact_epsilon(variant, epsilon=epsilon, c=c), pair_eps, worst, stat, spec.broken, spec.c)


assert set(SVT_VARIANTS) >= {"lyu", "dwork-roth"}
