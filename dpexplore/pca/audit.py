"""Auditing the private PCA mechanisms: worst-case neighbours, broken variants, per-step audits.

**What is audited (read this first).** Auditing a whole T-iteration run black-box is weak: the
released x_T is a unit vector that has forgotten most of what any one step leaked, and the claim
spreads ε over T steps. The audits here therefore audit **one iteration's Gaussian step** against
that step's own claim, which is legitimate and much sharper:

* The privacy proof (zCDP composition, :mod:`.mechanisms`) treats step t as a fresh mechanism whose
  inputs x_t (the previous released iterate) and θ_t (the released SVT output) are public. Step t
  releases y = A_θᵀA_θ x_t + σ_t g with g ~ N(0, I_d) and claims ρ_gauss-zCDP, i.e. it claims to be the
  Gaussian mechanism with μ = Δ_t/σ_t = √(2ρ_gauss) (μ-GDP). The **claimed ε** reported here is that
  claim's tight curve at the audit δ, ``gdp_epsilon(√(2ρ_gauss), δ)`` (the zCDP conversion
  ``zcdp_to_dp(ρ_gauss, δ)``, looser, is reported beside it as ``accountant_epsilon``).
* :func:`audit_power_step` fixes x_t and θ_t, builds the worst-case neighbouring pair, runs the step's
  code (the mechanism's own calibration function and :func:`~.mechanisms.filtered_update`) ``runs``
  times on each input, and scores each output by its projection on the direction the changed row
  pushes — the likelihood ratio of the pair, since the noise is isotropic. The pair's **exact ε** is
  known too: the two output laws are Gaussians at distance Δ (the actual shift, computed on the pair),
  so ε_exact = ``gdp_epsilon(Δ/σ_t, δ)``.
* The SVT half of each adaptive step is audited **exactly** (:func:`audit_threshold_choice`): its output
  is an index on a finite grid whose law is a one-dimensional integral.
* :func:`audit_analyze_gauss` audits DTTZ14's release ĀᵀĀ + E itself (the eigenvector is
  post-processing) on the pair whose row is an axis vector (the worst case, see
  :func:`worst_case_row_analyze_gauss`).

* :func:`audit_composition` audits whole runs black-box (the released x_T only) against the run's total
  claim. Measured: it has almost no power — x_T forgets all but the last few steps — and does not catch
  the σ-halved variant at the dashboard defaults (numbers in its docstring). The composition over T steps
  is therefore checked as arithmetic (``tests/pca/test_mechanisms.py``), not by an audit; the loop glue
  between steps is covered only by that weak end-to-end audit.

**Resolution of the statistical audits.** With m = runs/2 evaluation runs per input, a threshold test
can never show ε̂ above about ln(m/3.7) (the Clopper–Pearson bound on a zero count): 10.2 at the dashboard's
200,000 runs, 11.8 at 10⁶. At the dashboard defaults (ε = 10, δ = 1e-3 for the audit) the per-step claims
are 1.30 (adaptive) and 1.54 (worst case), well inside that range, and ε̂ reaches 0.86–0.88 of them (broken
variants: 2.1–2.2× the claim); Analyze Gauss's single release claims 7.58 and ε̂ reaches 0.66 of it (broken:
1.19×). At ε = 100 the claims (11.8, 14.3, 87.6) are above the ceiling: ε̂ saturates near 10 and only the
exact ε refutes the broken variants.

**Worst-case neighbours** (add/remove; replace as an option): for a power step with threshold θ and
iterate x, a row's contribution a aᵀx has norm ‖a‖·|⟨a, x⟩| ≤ θ if it is kept; the row
a = √θ·x has score exactly θ and pushes the sum by θ·x, the largest move the filter allows (the
sensitivity bound is attained, so no pair is harder for this step). Under replace, two rows
r(c·x ± s·w) (w ⊥ x, c small, score exactly θ) push by θ(c x ± s w): the difference 2θs ≈ 2θ.

**Broken variants** (``broken_*``, teaching only, never a default): the same code with the Gaussian
noise standard deviation halved, while the result still reports the correct mechanism's ε; and
:func:`broken_choose_threshold` / :func:`broken_svt_adaptive_power_iteration`, whose SVT adds no noise to
the counts (Lyu, Su & Li 2017, Alg. 5: true ε = ∞, caught exactly by :func:`audit_threshold_choice`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from dpexplore.core.audit import (
    PairAudit,
    check_audit_args,
    sampled_audit,
)
from dpexplore.core.gaussian import gdp_epsilon, zcdp_to_dp
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import (
    check_choice,
    check_delta,
    check_int,
    check_positive,
    check_vector,
)

from .audit_pairs import (
    _SAFE,
    broken_adaptive_power_iteration,
    broken_analyze_gauss,
    broken_noisy_power_iteration,
    worst_case_pair_power_step,
    worst_case_row,
    worst_case_row_analyze_gauss,
)
from .audit_svt import (
    SVT_VARIANTS,
    ThresholdChoiceAudit,
    audit_threshold_choice,
    broken_choose_threshold,
    broken_svt_adaptive_power_iteration,
    threshold_choice_law,
)
from .data import _check_data, top_singular
from .mechanisms import (
    adaptive_calibration,
    adaptive_power_iteration,
    analyze_gauss_calibration,
    choose_threshold,
    clip_rows,
    default_iterations,
    default_m0,
    filtered_update,
    noisy_power_iteration,
    row_scores,
    threshold_grid,
    worst_case_calibration,
)

__all__ = [
    "PCAAudit",
    "worst_case_row",
    "worst_case_pair_power_step",
    "worst_case_row_analyze_gauss",
    "broken_adaptive_power_iteration",
    "broken_svt_adaptive_power_iteration",
    "broken_noisy_power_iteration",
    "broken_analyze_gauss",
    "audit_power_step",
    "audit_analyze_gauss",
    "audit_composition",
    "threshold_choice_law",
    "audit_threshold_choice",
    "broken_choose_threshold",
    "SVT_VARIANTS",
    "ThresholdChoiceAudit",
]

_MAX_RUNS = 2_000_000


@dataclass(frozen=True)
class PCAAudit(PairAudit):
    """Result of a PCA audit (independent of the dashboard kit): the fields of
    :class:`~dpexplore.core.audit.PairAudit` and two more.

    ``claimed_epsilon`` is the claimed ε of the audited part at ``delta`` (the tight curve of the claimed
    calibration); ``exact_epsilon`` comes from the exact Gaussian law of the audited release.

    Attributes
    ----------
    scope : str
        Which part of the mechanism (e.g. "one Gaussian step (t of T, x_t and θ_t given)").
    accountant_epsilon : float
        The same claim through the zCDP conversion (looser; NaN where not applicable).
    """

    scope: str
    accountant_epsilon: float


# ---------------------------------------------------------------------------------------------
# statistical audits
# ---------------------------------------------------------------------------------------------
def _check_audit_args(runs, audit_delta, confidence, chunk, progress):
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=_MAX_RUNS)
    return runs, check_delta(audit_delta, "audit_delta"), conf, chunk


def audit_power_step(
    A: np.ndarray,
    *,
    method: str = "adaptive",
    epsilon: float,
    delta: float,
    iterations: int | None = None,
    svt_share: float = 0.25,
    clip_norm: float = 1.0,
    neighbours: str = "add-remove",
    x: np.ndarray | None = None,
    theta: float | None = None,
    broken: bool = False,
    runs: int = 20_000,
    audit_delta: float = 1e-3,
    confidence: float = 0.95,
    rng: RNGLike = None,
    progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 5_000,
) -> PCAAudit:
    """Audit one Gaussian step of :func:`adaptive_power_iteration` or :func:`noisy_power_iteration`.

    The step is run with the mechanism's own calibration (:func:`~.mechanisms.adaptive_calibration` /
    :func:`~.mechanisms.worst_case_calibration`, with σ halved when ``broken``, exactly as the
    ``broken_*`` variants do) on the pair of :func:`worst_case_pair_power_step`; outputs are sampled
    in bulk (``chunk`` per call of ``progress``) and scored by their projection on the pair's
    difference of means (the likelihood ratio); :func:`dpexplore.core.audit.audit_from_scores` turns the
    scores into ε̂. See the module docstring for why one step, and what "claimed" means.

    Parameters
    ----------
    A : ndarray, shape (n, d)
        The data (for ``"worst-case"`` it is clipped to ``clip_norm`` as the mechanism does).
    method : {"adaptive", "worst-case"}
    epsilon, delta : float
        The whole run's privacy target (as passed to the mechanism).
    iterations : int, optional
        T (default :func:`~.mechanisms.default_iterations` ``(d)``, as in the mechanism).
    svt_share, clip_norm, neighbours
        As in the mechanisms.
    x : ndarray, optional
        The public iterate x_t (default: the top right singular vector of A — a converged iterate,
        where the filter matters most).
    theta : float, optional
        The released threshold θ_t (adaptive only; default: one run of the mechanism's SVT choice on
        the scores at x). The worst case uses θ = clip_norm².
    broken : bool
        Audit the step of the ``broken_*`` variant instead.
    runs : int
        Releases per input (20 … 2,000,000); half choose the test threshold, half evaluate it.
    audit_delta : float
        δ at which ε is audited (default 1e-3: the step's claim holds for every δ, and a threshold test
        with ~10⁴ runs resolves ε well at 1e-3 but not at 1e-5).
    confidence : float
    rng : Generator, int or None
    progress : callable, optional
        ``progress(done, total)``; return False to cancel (the statistical ε̂ is then NaN).

    Returns
    -------
    PCAAudit

    Examples
    --------
    >>> from dpexplore.pca import make_matrix
    >>> A = make_matrix(300, 20, eigengap=0.8, rng=0).A
    >>> ok = audit_power_step(A, epsilon=10.0, delta=1e-5, runs=4000, rng=0)
    >>> round(ok.exact_epsilon, 6) == round(ok.claimed_epsilon, 6), ok.violation
    (True, False)
    >>> audit_power_step(A, epsilon=10.0, delta=1e-5, runs=4000, rng=0, broken=True).violation
    True
    """
    t0 = time.perf_counter()
    method = check_choice(method, "method", ("adaptive", "worst-case"))
    A = _check_data(A, "A")
    n, d = A.shape
    t_total = default_iterations(d) if iterations is None else check_int(iterations, "iterations", low=1,
                                                                          high=10_000)
    runs, audit_delta, conf, chunk = _check_audit_args(runs, audit_delta, confidence, chunk, progress)
    broken = bool(broken)
    gen = as_generator(rng)
    x = top_singular(A)[0] if x is None else check_vector(x, "x")
    if x.size != d:
        raise ValueError(f"x must have d = {d} entries (one per column of A); got {x.size}")
    if not np.linalg.norm(x) > 0:
        raise ValueError("x must be a non-zero vector (the current iterate); got the zero vector")
    x = x / np.linalg.norm(x)
    if method == "adaptive":
        budget, multiplier = adaptive_calibration(epsilon, delta, t_total, svt_share, neighbours)
        if theta is None:
            m0 = default_m0(budget["epsilon_svt_step"]) if 8.0 / budget["epsilon_svt_step"] < 2**53 else 2**53
            theta = choose_threshold(row_scores(A, x), threshold_grid(), m0, budget["epsilon_svt_step"],
                                     rng=gen).theta
        theta = check_positive(theta, "theta")
        sigma = theta * multiplier * (0.5 if broken else 1.0)
        name = "adaptive power iteration (Alg. 1)"
    else:
        if theta is not None:
            raise ValueError(f"theta must be None for method='worst-case' (θ ≡ clip_norm²); got {theta!r}")
        budget, sigma = worst_case_calibration(epsilon, delta, t_total, clip_norm, neighbours)
        sigma *= 0.5 if broken else 1.0
        theta = float(clip_norm) ** 2
        name = "worst-case noisy power iteration"
    A0, A1, pair = worst_case_pair_power_step(A, x, theta, neighbours,
                                              clip_norm=clip_norm if method == "worst-case" else None)
    if method == "worst-case":
        A0, A1 = clip_rows(A0, clip_norm), clip_rows(A1, clip_norm)
    m0_vec, _ = filtered_update(A0, x, theta)
    m1_vec, _ = filtered_update(A1, x, theta)
    diff = m1_vec - m0_vec
    shift = float(np.linalg.norm(diff))
    if not shift > 0:
        raise ValueError("the neighbouring pair does not change the step (shift 0); choose a larger theta")
    u = diff / shift
    mu_claim = math.sqrt(2.0 * budget["rho_gauss_step"])
    claimed = gdp_epsilon(mu_claim, audit_delta)
    accountant = zcdp_to_dp(budget["rho_gauss_step"], audit_delta)
    exact = gdp_epsilon(shift / sigma, audit_delta)

    mean0, mean1 = float(m0_vec @ u), float(m1_vec @ u)
    g0, g1 = gen.spawn(2)

    def sample(m: int):  # the full d-dimensional noise, projected: the LR score
        return mean0 + sigma * (g0.standard_normal((m, d)) @ u), mean1 + sigma * (g1.standard_normal((m, d)) @ u)

    stat = sampled_audit(sample, runs, delta=audit_delta, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress, threshold="tail", started=t0)
    return PCAAudit(mechanism=("BROKEN (σ halved) " if broken else "") + name,
                    scope=f"one Gaussian step (of T = {t_total}); x_t and θ_t = {theta:.3g} given",
                    neighbours=pair, claimed_epsilon=claimed, accountant_epsilon=accountant, exact_epsilon=exact,
                    delta=audit_delta, statistical=stat, broken=broken)


def audit_analyze_gauss(
    A: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    clip_norm: float = 1.0,
    neighbours: str = "add-remove",
    broken: bool = False,
    runs: int = 20_000,
    audit_delta: float = 1e-3,
    confidence: float = 0.95,
    rng: RNGLike = None,
    progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 50_000,
) -> PCAAudit:
    """Audit Analyze Gauss's release ĀᵀĀ + E on the worst-case pair (:func:`worst_case_row_analyze_gauss`).

    The pair: A and A plus c·e_k (add/remove), or A plus c·e_0 versus A plus c·e_1 (replace), k the
    column with the smallest norm. Its difference of released upper triangles is computed from the
    clipped rows (the mechanism's :func:`~.mechanisms.clip_rows`); the score is the projection of the
    released upper triangle on that difference (the likelihood ratio). The noise of the release is
    i.i.d. N(0, σ²) over the d(d+1)/2 upper-triangle entries, so that projection is N(·, σ²): it is
    sampled directly (a d×d matrix per run would cost O(d²) for one number), with σ from the
    mechanism's own :func:`~.mechanisms.analyze_gauss_calibration` (halved when ``broken``). The
    sampling code of :func:`analyze_gauss` itself is checked against this law in ``tests/pca``.

    Claimed ε: the analytic Gaussian calibration is exact, so the claim at ``audit_delta`` is
    ``gdp_epsilon(Δ/σ, audit_delta)`` (= ε at audit_delta = δ).

    Examples
    --------
    >>> ok = audit_analyze_gauss(np.eye(5), epsilon=2.0, delta=1e-5, runs=4000, rng=0)
    >>> round(ok.exact_epsilon, 6) == round(ok.claimed_epsilon, 6), ok.violation
    (True, False)
    """
    t0 = time.perf_counter()
    A = _check_data(A, "A")
    d = A.shape[1]
    sens, sigma_claim = analyze_gauss_calibration(epsilon, delta, clip_norm, neighbours)
    runs, audit_delta, conf, chunk = _check_audit_args(runs, audit_delta, confidence, chunk, progress)
    broken = bool(broken)
    gen = as_generator(rng)
    sigma = sigma_claim * (0.5 if broken else 1.0)
    c = float(clip_norm)
    k = int(np.argmin(np.linalg.norm(A, axis=0)))
    if neighbours == "add-remove":
        extra0, extra1 = None, clip_rows(worst_case_row_analyze_gauss(d, c, k)[None, :], c)
        pair = f"A and A plus the row {c:g}·e_{k} (changes entry ({k}, {k}) of AᵀA by {c * c:g}: the worst case)"
    else:
        if d < 2:
            raise ValueError(f"A must have at least 2 columns for the replace pair; got shape {A.shape}")
        j = (k + 1) % d
        extra0 = clip_rows(worst_case_row_analyze_gauss(d, c, k)[None, :], c)
        extra1 = clip_rows(worst_case_row_analyze_gauss(d, c, j)[None, :], c)
        pair = f"A plus the row {c:g}·e_{k} versus A plus {c:g}·e_{j} (replace)"
    gram0 = np.zeros((d, d)) if extra0 is None else extra0.T @ extra0
    diff = np.triu(extra1.T @ extra1 - gram0)
    shift = float(np.linalg.norm(diff))
    base = np.triu(clip_rows(A, c).T @ clip_rows(A, c) + gram0)
    u = diff / shift
    mean0 = float(np.sum(base * u))
    claimed = gdp_epsilon(sens / sigma_claim, audit_delta)
    exact = gdp_epsilon(shift / sigma, audit_delta)

    g0, g1 = gen.spawn(2)

    def sample(m: int):  # the projection of the release on the pair's difference: N(mean, σ²)
        return mean0 + sigma * g0.standard_normal(m), (mean0 + shift) + sigma * g1.standard_normal(m)

    stat = sampled_audit(sample, runs, delta=audit_delta, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress, threshold="tail", started=t0)
    return PCAAudit(mechanism=("BROKEN (σ halved) " if broken else "") + "Analyze Gauss (DTTZ14)",
                    scope="the whole release ĀᵀĀ + E (the eigenvector is post-processing)", neighbours=pair,
                    claimed_epsilon=claimed, accountant_epsilon=math.nan, exact_epsilon=exact, delta=audit_delta,
                    statistical=stat, broken=broken)


def audit_composition(
    A: np.ndarray,
    *,
    method: str = "adaptive",
    epsilon: float,
    delta: float,
    iterations: int | None = None,
    clip_norm: float = 1.0,
    broken: bool = False,
    runs: int = 2_000,
    audit_delta: float = 1e-3,
    confidence: float = 0.95,
    rng: RNGLike = None,
    progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 100,
) -> PCAAudit:
    """Black-box audit of the **whole T-step run**: the released x_T only, against the run's total claim.

    Runs the mechanism itself (:func:`~.mechanisms.adaptive_power_iteration` /
    :func:`~.mechanisms.noisy_power_iteration`, or its ``broken_*`` variant with σ halved) ``runs`` times
    on A and on A plus the row a = √θ·(v1 + v2)/√2 (v1, v2 the top two right singular vectors of A; θ the
    most likely SVT threshold at x = v1 for the adaptive method, clip_norm² for the worst case). Its
    score ‖a‖·|⟨a, x⟩| ≤ θ at *every* iterate x (Cauchy–Schwarz), so it is kept whenever θ_t ≥ θ, and at
    x ≈ v1 it pushes the step by θ/2 along v2 — the direction the normalised iterate forgets most slowly.
    The test score is ⟨x_T, v2⟩·sign⟨x_T, v1⟩ (the sign of x_T is arbitrary). The claim is the run's
    accountant, ``zcdp_to_dp(ρ, audit_delta)`` (``claimed_epsilon``; ``accountant_epsilon`` is the same);
    ``exact_epsilon`` is NaN (the law of x_T is not computable).

    **Power (measured; this is why the other audits audit one step).** x_T keeps only the last few steps'
    noise: a push along v2 decays by r = σ2²/σ1² per step, so the x_T-only test sees at most about
    μ_step·½·√((1 + r)/(1 − r)) of the run's √T·μ_step (plus the SVT). At the dashboard defaults (n =
    1000, d = 200, κ = 0.8, Υ = 10^-1.5, ε = 10, T = 10, audit δ = 1e-3, claim 8.10) with 2,000 runs per
    input (40–130 s per audit on a loaded 2-core machine): adaptive ε̂ = 0.13 (correct) and 0.56 (σ halved);
    worst case ε̂ = 0.00 (correct) and 0.73 (σ halved). The broken variants' per-step ε is 2.3× their
    claim, yet the composed audit **cannot** catch them; the per-step audit (:func:`audit_power_step`,
    200,000 runs, 1.5 s) does (adaptive ε̂ = 2.80 > 1.30, worst case ε̂ = 3.23 > 1.54).

    Examples
    --------
    >>> from dpexplore.pca import make_matrix
    >>> A = make_matrix(100, 8, eigengap=0.8, rng=0).A
    >>> res = audit_composition(A, epsilon=5.0, delta=1e-5, iterations=4, runs=40, rng=0)
    >>> res.epsilon_lower <= res.claimed_epsilon, math.isnan(res.exact_epsilon)
    (True, True)
    """
    t0 = time.perf_counter()
    method = check_choice(method, "method", ("adaptive", "worst-case"))
    A = _check_data(A, "A")
    n, d = A.shape
    if d < 2:
        raise ValueError(f"A must have at least 2 columns (the pair pushes along v2); got shape {A.shape}")
    t_total = default_iterations(d) if iterations is None else check_int(iterations, "iterations", low=1,
                                                                          high=10_000)
    runs, audit_delta, conf, chunk = _check_audit_args(runs, audit_delta, confidence, chunk, progress)
    broken = bool(broken)
    gen = as_generator(rng)
    _, V = linalg.eigh(A.T @ A, subset_by_index=[d - 2, d - 1])
    v1, v2 = V[:, 1], V[:, 0]
    if method == "adaptive":
        budget, _ = adaptive_calibration(epsilon, delta, t_total)
        eps_svt = budget["epsilon_svt_step"]
        m0 = default_m0(eps_svt) if 8.0 / eps_svt < 2**53 else 2**53
        grid = threshold_grid()
        counts = n - np.searchsorted(np.sort(row_scores(A, v1)), grid, side="right")
        law = threshold_choice_law(counts, m0, eps_svt)
        theta = float(grid[min(int(np.argmax(law)), grid.size - 1)])
        name = "adaptive power iteration (Alg. 1)"
    else:
        budget, _ = worst_case_calibration(epsilon, delta, t_total, clip_norm)
        theta = float(clip_norm) ** 2
        name = "worst-case noisy power iteration"
    row = math.sqrt(theta * _SAFE) * (v1 + v2) / math.sqrt(2.0)
    A1 = np.vstack([A, row])
    if method == "adaptive":
        mech = broken_adaptive_power_iteration if broken else adaptive_power_iteration
        kw = {}
    else:
        mech = broken_noisy_power_iteration if broken else noisy_power_iteration
        kw = {"clip_norm": clip_norm}
    claimed = zcdp_to_dp(budget["rho"], audit_delta)

    def score(x: np.ndarray) -> float:
        return float(x @ v2) * (1.0 if x @ v1 >= 0 else -1.0)

    g0, g1 = gen.spawn(2)

    def sample(m: int):  # the mechanism itself, one full run per score
        return ([score(mech(A, epsilon=epsilon, delta=delta, iterations=t_total, rng=g0, **kw).vector)
                 for _ in range(m)],
                [score(mech(A1, epsilon=epsilon, delta=delta, iterations=t_total, rng=g1, **kw).vector)
                 for _ in range(m)])

    stat = sampled_audit(sample, runs, delta=audit_delta, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress, threshold="tail", started=t0)
    return PCAAudit(mechanism=("BROKEN (σ halved) " if broken else "") + name,
                    scope=f"the whole run of T = {t_total} steps, released x_T only (black box)",
                    neighbours=f"A and A plus the row √θ·(v1 + v2)/√2, θ = {theta:.3g} (score ≤ θ at every iterate; "
                               "pushes x_t towards v2)",
                    claimed_epsilon=claimed, accountant_epsilon=claimed, exact_epsilon=math.nan, delta=audit_delta,
                    statistical=stat, broken=broken)


