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

import inspect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from dpexplore.core.audit import (
    ExactAudit,
    PairAudit,
    check_audit_args,
    exact_audit,
    sampled_audit,
)
from dpexplore.core.gaussian import gdp_epsilon, zcdp_to_dp
from dpexplore.core.privacy_curves import hockey_stick
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.sparse_vector import AboveThresholdResult
from dpexplore.core.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_real,
    check_vector,
)

from .data import MAX_D, _check_data, top_singular
from .mechanisms import (
    _NEIGHBOURS,
    PCAResult,
    _adaptive_run,
    _check_grid,
    _gauss_run,
    _worst_run,
    adaptive_calibration,
    adaptive_power_iteration,
    analyze_gauss,
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

_REPLACE_COS = 0.05  # c in the replace pair r(c x ± s w): small, so the difference 2θ√(1 − c²) is ≈ 2θ
_SAFE = 1.0 - 1e-9  # rows are built with score θ·_SAFE so rounding never pushes them above θ (filtered out)
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
# worst-case neighbours
# ---------------------------------------------------------------------------------------------
def worst_case_row(x: np.ndarray, theta: float) -> np.ndarray:
    """The row a = √θ·x/‖x‖: score ‖a‖·|⟨a, x⟩| = θ (kept by the filter) and contribution a aᵀx = θ·x/‖x‖.

    Its contribution has the largest norm any kept row can have (θ), so adding it attains the
    add/remove sensitivity of a power step (see the module docstring). Built at θ(1 − 1e-9) so that
    rounding never lifts its score above θ.

    Examples
    --------
    >>> a = worst_case_row(np.array([0.6, 0.8]), 0.25)
    >>> np.round(a, 6), round(float(row_scores(a[None, :], np.array([0.6, 0.8]))[0]), 6)
    (array([0.3, 0.4]), 0.25)
    """
    x = check_vector(x, "x")
    nx = float(np.linalg.norm(x))
    if nx == 0.0:
        raise ValueError("x must be a non-zero vector (the current iterate); got the zero vector")
    theta = check_positive(theta, "theta")
    return math.sqrt(theta * _SAFE) * x / nx


def _orthogonal_unit(x: np.ndarray) -> np.ndarray:
    e = np.zeros_like(x)
    e[int(np.argmin(np.abs(x)))] = 1.0
    w = e - (e @ x) * x
    return w / np.linalg.norm(w)


def worst_case_pair_power_step(A: np.ndarray, x: np.ndarray, theta: float, neighbours: str = "add-remove", *,
                               clip_norm: float | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """Neighbouring matrices (A0, A1) that move one power step y = A_θᵀA_θx the most, and a description.

    add-remove: A0 = A, A1 = A plus :func:`worst_case_row` (shift θ). replace, unbounded rows (the
    adaptive method): A0 = A plus r(c x + s w), A1 = A plus r(c x − s w) with w ⊥ x, c = 0.05,
    s = √(1 − c²), r² = θ/c (both scores θ): the contributions differ by 2θs ≈ 2θ, the replace
    sensitivity. replace with rows bounded by ``clip_norm`` (worst-case method, θ = clip_norm²): the
    contributions (a·x)a of rows ‖a‖ ≤ c fill the ball of radius c²/2 around (c²/2)x, whose diameter is
    c², reached by the rows c(x ± w)/√2 — so under replace that method's step moves by c², not the 2c²
    its calibration assumes (conservative: the audit then shows exact ε below the claim). d ≥ 2 for replace.

    Examples
    --------
    >>> A = np.eye(3)
    >>> A0, A1, _ = worst_case_pair_power_step(A, np.array([1.0, 0.0, 0.0]), 0.5)
    >>> A0.shape, A1.shape
    ((3, 3), (4, 3))
    """
    A = _check_data(A, "A")
    x = check_vector(x, "x")
    if x.size != A.shape[1]:
        raise ValueError(f"x must have d = {A.shape[1]} entries (one per column of A); got {x.size}")
    theta = check_positive(theta, "theta")
    neighbours = check_choice(neighbours, "neighbours", _NEIGHBOURS)
    if neighbours == "add-remove":
        a = worst_case_row(x, theta)
        return A, np.vstack([A, a]), (f"A and A plus one row √θ·x_t (score exactly θ_t = {theta:.3g}, aligned with "
                                      "the iterate: it moves the step by θ_t, the most the filter allows)")
    if A.shape[1] < 2:
        raise ValueError(f"A must have at least 2 columns for the replace pair; got shape {A.shape}")
    xu = x / np.linalg.norm(x)
    w = _orthogonal_unit(xu)
    if clip_norm is not None:
        cn = check_positive(clip_norm, "clip_norm")
        b0, b1 = cn * _SAFE * (xu + w) / math.sqrt(2.0), cn * _SAFE * (xu - w) / math.sqrt(2.0)
        return (np.vstack([A, b0]), np.vstack([A, b1]),
                f"A plus one row, replaced: rows {cn:g}·(x_t ± w)/√2 with w ⊥ x_t (contributions differ by "
                f"{cn * cn:g}, the diameter of the set of possible contributions)")
    c = _REPLACE_COS
    s = math.sqrt(1.0 - c * c)
    r = math.sqrt(theta * _SAFE / c)
    b0, b1 = r * (c * xu + s * w), r * (c * xu - s * w)
    return (np.vstack([A, b0]), np.vstack([A, b1]),
            f"A plus one row, replaced: two rows of score θ_t = {theta:.3g} nearly orthogonal to x_t whose "
            f"contributions differ by {2 * s:.4f}·θ_t")


def worst_case_row_analyze_gauss(d: int, clip_norm: float = 1.0, k: int = 0) -> np.ndarray:
    """The row c·e_k: it changes ĀᵀĀ by c² in entry (k, k) only.

    Why it is the worst case: a row a changes the released upper triangle by triu(a aᵀ), whose ℓ2 norm²
    is (‖a‖⁴ + Σ a_i⁴)/2 ≤ ‖a‖⁴, with equality exactly when a is an axis vector. So c·e_k attains the
    sensitivity c² (a row along a diagonal direction only reaches ≈ c²/√2).

    Examples
    --------
    >>> worst_case_row_analyze_gauss(3, 1.0, k=1)
    array([0., 1., 0.])
    """
    d = check_int(d, "d", low=1, high=MAX_D)
    c = check_positive(clip_norm, "clip_norm")
    k = check_int(k, "k", low=0, high=d - 1)
    row = np.zeros(d)
    row[k] = c
    return row


# ---------------------------------------------------------------------------------------------
# deliberately broken variants (teaching only)
# ---------------------------------------------------------------------------------------------
def _broken(mechanism: Callable[..., PCAResult], run: Callable[..., PCAResult], name: str, doc: str,
            **broken_step) -> Callable[..., PCAResult]:
    """A broken variant: ``mechanism``'s own signature (so it takes exactly the mechanism's arguments) and
    the mechanism's code ``run`` (``_adaptive_run``, ``_worst_run``, ``_gauss_run``, whose parameters are
    named as the mechanism's), with the one broken step injected (``noise_scale``, ``chooser``)."""
    signature = inspect.signature(mechanism)

    def broken(*args, **kwargs) -> PCAResult:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return run(**bound.arguments, **broken_step)

    broken.__name__ = broken.__qualname__ = name
    broken.__doc__, broken.__signature__ = doc, signature  # type: ignore[attr-defined]
    return broken


broken_adaptive_power_iteration = _broken(
    adaptive_power_iteration, _adaptive_run, "broken_adaptive_power_iteration",
    """BROKEN on purpose: Algorithm 1 with the Gaussian noise σ_t = θ_t·c/2 (half the calibrated value).

    The bug of a sensitivity factor applied on the wrong side (e.g. the replace factor 2 dividing
    instead of multiplying). Everything else — SVT, filter, accounting — is the correct code, and the
    result *claims* the correct ε. True privacy: each Gaussian step is 2μ-GDP instead of μ-GDP
    (4ρ_gauss-zCDP), so the run is really zcdp_to_dp(T(ε_svt²/2 + 4ρ_gauss), δ)-DP. Takes the arguments
    of :func:`~.mechanisms.adaptive_power_iteration`. Teaching audits only.

    Examples
    --------
    >>> from dpexplore.pca import adaptive_power_iteration, make_matrix
    >>> A = make_matrix(100, 10, eigengap=0.8, rng=0).A
    >>> ok = adaptive_power_iteration(A, epsilon=1.0, delta=1e-5, rng=0)
    >>> bad = broken_adaptive_power_iteration(A, epsilon=1.0, delta=1e-5, rng=0)
    >>> bad.epsilon == ok.epsilon, bad.noise_multiplier / ok.noise_multiplier, bad.method
    (True, 0.5, 'BROKEN adaptive (noise halved)')
    """, noise_scale=0.5, method="BROKEN adaptive (noise halved)")

broken_noisy_power_iteration = _broken(
    noisy_power_iteration, _worst_run, "broken_noisy_power_iteration",
    """BROKEN on purpose: worst-case noisy power iteration with σ halved, claiming the correct ε.

    True privacy: each step 4ρ_step-zCDP, the run zcdp_to_dp(4ρ, δ)-DP. Takes the arguments of
    :func:`~.mechanisms.noisy_power_iteration`. Teaching audits only.

    Examples
    --------
    >>> A = np.eye(4)
    >>> broken_noisy_power_iteration(A, epsilon=1.0, delta=1e-5, rng=0).method
    'BROKEN worst-case power (noise halved)'
    """, noise_scale=0.5, method="BROKEN worst-case power (noise halved)")

broken_analyze_gauss = _broken(
    analyze_gauss, _gauss_run, "broken_analyze_gauss",
    """BROKEN on purpose: Analyze Gauss with σ halved, claiming the correct (ε, δ).

    True privacy: 2μ-GDP where the claim is μ-GDP (μ = Δ/σ), i.e. ε_true = gdp_epsilon(2μ, δ). Takes the
    arguments of :func:`~.mechanisms.analyze_gauss`. Teaching audits only.

    Examples
    --------
    >>> broken_analyze_gauss(np.eye(3), epsilon=1.0, delta=1e-5, rng=0).epsilon
    1.0
    """, noise_scale=0.5, method="BROKEN Analyze Gauss (noise halved)")


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
