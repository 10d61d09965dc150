"""Exact audit of the SVT threshold choice of Algorithm 1 (and the SVT mistakes catalogued by Lyu, Su & Li
2017): the choice's output is an index on a finite grid whose law is a one-dimensional integral, so its ε is
computed exactly (:func:`threshold_choice_law`, :func:`audit_threshold_choice`). See :mod:`dpexplore.pca.audit`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpexplore.core.audit import ExactAudit, exact_audit
from dpexplore.core.privacy_curves import hockey_stick
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.sparse_vector import AboveThresholdResult
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_real, check_vector

from .audit_pairs import _broken
from .mechanisms import _adaptive_run, _check_grid, adaptive_power_iteration, choose_threshold, threshold_grid

__all__ = [
    "SVT_VARIANTS",
    "broken_choose_threshold",
    "broken_svt_adaptive_power_iteration",
    "threshold_choice_law",
    "ThresholdChoiceAudit",
    "audit_threshold_choice",
]


# ---------------------------------------------------------------------------------------------
# exact audit of the SVT threshold choice
# ---------------------------------------------------------------------------------------------
# Noise scales of the SVT variants, in units of 1/ε: (threshold noise ρ, query noise ν). "correct" is
# AboveThreshold as :func:`~.mechanisms.choose_threshold` runs it (Dwork & Roth, Alg. 1 of §3.6; Lyu, Su & Li
# 2017, Alg. 1 with c = 1): ρ ~ Lap(2/ε), ν_j ~ Lap(4/ε). The others are SVT mistakes catalogued by Lyu, Su & Li.
_SVT_VARIANTS = {
    "correct": (2.0, 4.0),
    "no-query-noise": (2.0, 0.0),  # Lyu et al. Alg. 5 (Stoddard et al. 2014): ν_j = 0. Not ε-DP for any ε.
    "query-noise-halved": (2.0, 2.0),  # the factor 2 of ν = Lap(2cΔ/ε₂) dropped (as in Lyu et al. Alg. 3/4/6)
}


SVT_VARIANTS = tuple(_SVT_VARIANTS)


def broken_choose_threshold(scores, grid, m0: int, epsilon: float, *, rng: RNGLike = None):
    """BROKEN on purpose: :func:`~.mechanisms.choose_threshold` with **no noise on the counts**.

    The SVT mistake of Stoddard et al. (2014), Algorithm 5 in Lyu, Su & Li (2017): the threshold is
    noised (ρ ~ Lap(2/ε), as in the correct code) but the queries q_j = #{i : s_i > θ^(j)} are compared
    with it as they are (ν_j = 0). It is tempting exactly in Algorithm 1's use — the counts are integers
    that one row moves by at most 1, and "the threshold is already noisy". It stops at the first j with
    q_j ≤ m0 + ½ − ρ, so it can **never** stop at a grid value whose cell (θ^(j−1), θ^(j)] holds no row
    (q_j = q_{j−1}), while one row added in that cell makes the stop possible: **true ε = ∞** (it is
    (ε, δ)-DP only with δ ≥ P(stop there), 1.4e-3 per step at the dashboard defaults — see
    :func:`audit_threshold_choice`). Returns a :class:`~.mechanisms.ThresholdChoice`; teaching audits only.

    Examples
    --------
    >>> grid = threshold_grid(0.125, 1.0, 2.0)
    >>> broken_choose_threshold(np.array([0.1, 0.2, 0.3, 0.9]), grid, 1, 1e9, rng=0)
    ThresholdChoice(index=2, theta=0.5, queries_answered=3)
    """
    return choose_threshold(scores, grid, m0, epsilon, rng=rng, _above_threshold=_above_threshold_without_query_noise)


def _above_threshold_without_query_noise(queries, threshold: float, epsilon: float, *, sensitivity: float,
                                         rng: RNGLike) -> AboveThresholdResult:
    """:func:`~dpexplore.core.above_threshold` with THE BUG: the threshold noised, the queries not (ν_i = 0)."""
    eps = check_epsilon(epsilon)
    noisy_threshold = threshold + as_generator(rng).laplace(scale=2.0 * sensitivity / eps)  # as AboveThreshold
    count = 0
    for i, q in enumerate(queries):
        count += 1
        if q >= noisy_threshold:  # THE BUG: no ν_i ~ Lap(4Δ/ε) added to q
            return AboveThresholdResult(i, count, float(noisy_threshold), eps)
    return AboveThresholdResult(None, count, float(noisy_threshold), eps)


broken_svt_adaptive_power_iteration = _broken(
    adaptive_power_iteration, _adaptive_run, "broken_svt_adaptive_power_iteration",
    """BROKEN on purpose: Algorithm 1 whose threshold choice adds no noise to the counts.

    Step 2b runs :func:`broken_choose_threshold` (Lyu, Su & Li 2017, Alg. 5: ν_j = 0); the Gaussian steps,
    the filter and the accounting are the correct code, and the result *claims* the correct ε. True
    privacy: **ε = ∞** — each threshold choice is not ε-DP for any ε (a stop at a grid value with no row in
    its cell is impossible, and one added row makes it possible; see :func:`audit_threshold_choice`), so
    the run is only (ε', δ')-DP with δ' at least that stop's probability (≈ 1.4e-3 per step at the
    dashboard defaults), far above the claimed δ. Takes the arguments of
    :func:`~.mechanisms.adaptive_power_iteration`. Teaching audits only.

    Examples
    --------
    >>> from dpexplore.pca import adaptive_power_iteration, make_matrix
    >>> A = make_matrix(100, 10, eigengap=0.8, rng=0).A
    >>> bad = broken_svt_adaptive_power_iteration(A, epsilon=1.0, delta=1e-5, rng=0)
    >>> bad.method, bad.epsilon == adaptive_power_iteration(A, epsilon=1.0, delta=1e-5, rng=0).epsilon
    ('BROKEN adaptive (SVT without query noise)', True)
    """, noise_scale=1.0, method="BROKEN adaptive (SVT without query noise)",
    chooser=broken_choose_threshold)


def threshold_choice_law(counts, m0: int, epsilon: float, *, resolution: float = 1e-2,
                         variant: str = "correct") -> np.ndarray:
    """Exact output law of :func:`~.mechanisms.choose_threshold` given the counts q_j = #{i : s_i > θ^(j)}.

    Returns P(index = j) for j = 0..J and, last, P(no grid value passed). The choice stops at j iff
    ν_j ≥ c_j + ρ with c_j = q_j − m0 − ½, ν_j ~ Lap(4/ε), ρ ~ Lap(2/ε), so
    P(j) = ∫ f_ρ(r) Π_{i<j} F_ν(c_i + r) (1 − F_ν(c_j + r)) dr, computed by the trapezoid rule over
    |r| ≤ 40 Laplace scales (the tails beyond carry < e⁻⁴⁰) with step ``resolution`` × scale.

    ``variant`` gives the law of an SVT mistake instead (Lyu, Su & Li 2017): ``"no-query-noise"``
    (:func:`broken_choose_threshold`, ν_j = 0: in closed form, P(j) = F_ρ(−c_j) − F_ρ(−c_{j−1}) since
    the counts do not increase with j) or ``"query-noise-halved"`` (ν_j ~ Lap(2/ε)).

    Examples
    --------
    >>> p = threshold_choice_law([5, 2, 0], 1, 1e3)   # almost noiseless: first count ≤ 1 is index 2
    >>> np.round(p, 6)
    array([0., 0., 1., 0.])
    >>> np.round(threshold_choice_law([5, 5, 0], 1, 1.0, variant="no-query-noise"), 4)  # index 1 impossible
    array([0.0869, 0.    , 0.6769, 0.2362])
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    q = check_vector(counts, "counts")
    if np.any(q < 0) or np.any(q != np.round(q)):
        raise ValueError("counts must be non-negative integers (rows above each grid value); got "
                         + np.array2string(q[:5]))
    m0 = check_int(m0, "m0", low=0)
    eps = check_epsilon(epsilon)
    res = check_real(resolution, "resolution", low=1e-4, high=0.1)
    variant = check_choice(variant, "variant", SVT_VARIANTS)
    b_rho, b_nu = (b / eps for b in _SVT_VARIANTS[variant])
    rho = stats.laplace(scale=b_rho)
    c = q - m0 - 0.5
    if b_nu == 0.0:
        if np.any(np.diff(q) > 0):
            raise ValueError("counts must be non-increasing (rows above increasing thresholds); got "
                             + np.array2string(q[:5]))
        # stop at j iff c_j ≤ −ρ < c_{j−1}: ρ ∈ [−c_{j−1}, −c_j) (c_{−1} = +∞); none iff ρ < −c_J
        edges = np.concatenate([[-np.inf], -c])
        upper = np.concatenate([rho.sf(edges[:-1]) - rho.sf(edges[1:]), [rho.sf(-c[-1])]])
        lower = np.concatenate([rho.cdf(edges[1:]) - rho.cdf(edges[:-1]), [rho.sf(-c[-1])]])
        law = np.where(np.concatenate([edges[:-1], [0.0]]) >= 0, upper, lower)  # the accurate tail of each
        law = np.maximum(law, 0.0)
        return law / law.sum()
    lim = 40 * b_rho
    r = np.linspace(-lim, lim, int(2 * lim / (res * b_rho)) + 1)
    arg = c[:, None] + r[None, :]
    half_tail = 0.5 * np.exp(-np.abs(arg) / b_nu)  # Laplace(b_nu): cdf = tail below 0, sf = tail above 0
    cdf = np.where(arg < 0, half_tail, 1.0 - half_tail)
    below = np.vstack([np.ones_like(r), np.cumprod(cdf, axis=0)])
    # sf, not 1 − cdf: keeps tiny stop probabilities accurate
    stop = np.vstack([np.where(arg > 0, half_tail, 1.0 - half_tail), np.ones_like(r)])
    law = np.trapezoid(rho.pdf(r)[None, :] * below * stop, r, axis=1)
    law = np.maximum(law, 0.0)
    return law / law.sum()


@dataclass(frozen=True)
class ThresholdChoiceAudit:
    """Result of :func:`audit_threshold_choice`.

    Attributes
    ----------
    exact : ExactAudit
        The exact audit (δ = 0) of the worst pair; ``exact.epsilon`` may be ``inf``.
    k : int
        The worst pair: the added row lies above the first k grid values (k = J + 1: above all of them).
    variant : str
        Which SVT code was audited (``"correct"`` or one of the mistakes, see :data:`SVT_VARIANTS`).
    epsilon_by_k : ndarray, shape (J + 2,)
        Exact ε (δ = 0) of the pair for every k.
    delta_at_claim : float
        The smallest δ for which the worst pair is (claimed ε, δ)-DP (0 when the claim holds).
    impossible_index : int or None
        An output index that has probability 0 on one input of the worst pair and > 0 on the other
        (the reason for ε = ∞), else None; J + 1 stands for "no grid value passed".
    """

    exact: ExactAudit
    k: int
    variant: str
    epsilon_by_k: np.ndarray
    delta_at_claim: float
    impossible_index: int | None

    @property
    def epsilon(self) -> float:
        return self.exact.epsilon

    @property
    def violation(self) -> bool:
        return self.exact.violation


def audit_threshold_choice(
    scores,
    grid=None,
    *,
    m0: int,
    epsilon: float,
    broken: bool | str = False,
) -> ThresholdChoiceAudit:
    """Exact audit of the SVT threshold choice (Algorithm 1, step 2b) on its worst neighbour.

    Neighbours: the scores s (one per row) and s plus one row whose score lies above the first k grid
    values, for every k = 0..J+1 (these are all the ways one added row can change the counts; under
    replace the counts move on a prefix too). The exact ε (δ = 0) of each pair follows from
    :func:`threshold_choice_law`; the worst k is returned, with every k's ε.

    ``broken``: ``True`` or ``"no-query-noise"`` audits :func:`broken_choose_threshold` (no Laplace noise
    on the counts, Lyu, Su & Li 2017, Alg. 5): the worst pair puts the row in an empty cell of the grid
    and the exact ε is **∞** — the stop at that cell is impossible without the row. At the dashboard
    defaults (n = 1000, d = 200, κ = 0.8, Υ = 10^-1.5, ε = 10: ε_svt = 0.278, m0 = 28) the scores at
    x_t = v1 leave 18 of the 21 cells empty; the worst pair (a row in the empty cell (θ^(16), θ^(17)])
    needs δ ≥ 1.4e-3 to meet the claimed ε_svt (1.5e-4 at ε = 1, 1.7e-2 at ε = 100).
    ``"query-noise-halved"`` (ν_j ~ Lap(2/ε): the factor 2 of Lap(2cΔ/ε₂) dropped, the mistake of Lyu et
    al.'s Alg. 3, 4 and 6) is **not** a violation here: the counts are *monotone* (one added row raises a
    prefix of them), and for monotone queries with c = 1 ν ~ Lap(cΔ/ε₂) suffices (Lyu et al., §4), so
    that variant is still ε-DP; the exact audit confirms it (exact ε = 0.96 ε at those defaults,
    0.92–0.98 ε for total ε = 0.3 … 100). For the same reason the correct code has slack: exact ε ≈ 0.7 ε
    (0.68–0.74 ε).

    Returns
    -------
    ThresholdChoiceAudit
        ``.exact`` (an :class:`~dpexplore.core.audit.ExactAudit`, claimed ε = ``epsilon``), ``.k``, ….

    Examples
    --------
    >>> ok = audit_threshold_choice([0.1, 0.2, 0.3, 0.9], [0.125, 0.25, 0.5, 1.0], m0=1, epsilon=1.0)
    >>> ok.epsilon <= 1.0, ok.violation
    (True, False)
    >>> bad = audit_threshold_choice([0.1, 0.2, 0.3], [0.125, 0.25, 0.5, 1.0], m0=1, epsilon=1.0, broken=True)
    >>> bad.epsilon, bad.violation, bad.k   # a row in the empty cell (0.5, 1]: stopping at θ = 1 becomes possible
    (inf, True, 3)
    """
    grid = threshold_grid() if grid is None else _check_grid(grid)
    s = np.sort(check_vector(scores, "scores", min_size=0))
    if s.size and s[0] < 0:
        raise ValueError(f"scores must be >= 0 (they are norms); got {s[0]:g}")
    eps = check_epsilon(epsilon)
    m0 = check_int(m0, "m0", low=0)
    if isinstance(broken, (bool, np.bool_)):
        variant = "no-query-noise" if broken else "correct"
    else:
        variant = check_choice(broken, "broken", SVT_VARIANTS)
    counts = s.size - np.searchsorted(s, grid, side="right")
    p = threshold_choice_law(counts, m0, eps, variant=variant)
    audits, deltas = [], []
    for k in range(grid.size + 1):
        q = threshold_choice_law(counts + (np.arange(grid.size) < k), m0, eps, variant=variant)
        audits.append((exact_audit(p, q, delta=0.0, claimed_epsilon=eps, grid=8), q))
        deltas.append(max(hockey_stick(p, q, eps), hockey_stick(q, p, eps)))  # δ the pair needs at the claim
    by_k = np.array([a.epsilon for a, _ in audits])
    # worst pair: the largest ε; among pairs with the same ε (e.g. several ∞), the one needing the largest δ
    k = max(range(by_k.size), key=lambda i: (by_k[i], deltas[i]))
    best, q = audits[k]
    impossible = np.flatnonzero((p > 0) != (q > 0))
    return ThresholdChoiceAudit(best, k, variant, by_k, float(deltas[k]),
                                int(impossible[0]) if impossible.size else None)
