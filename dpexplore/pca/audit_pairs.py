"""The PCA audits' worst-case neighbours and broken (teaching-only) variants of the Gaussian steps.

See :mod:`dpexplore.pca.audit` for what is audited and why these pairs are the hardest: for a power step with
threshold θ and iterate x, the row a = √θ·x has score exactly θ and pushes the sum by θ·x, the largest move the
filter allows. The ``broken_*`` variants run the mechanism's own code with the Gaussian noise halved while the
result still reports the correct mechanism's ε.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable

import numpy as np

from dpexplore.core.validation import check_choice, check_int, check_positive, check_vector

from .data import MAX_D, _check_data
from .mechanisms import (
    _NEIGHBOURS,
    PCAResult,
    _adaptive_run,
    _gauss_run,
    _worst_run,
    adaptive_power_iteration,
    analyze_gauss,
    noisy_power_iteration,
)

__all__ = [
    "worst_case_row",
    "worst_case_pair_power_step",
    "worst_case_row_analyze_gauss",
    "broken_adaptive_power_iteration",
    "broken_noisy_power_iteration",
    "broken_analyze_gauss",
]


_REPLACE_COS = 0.05  # c in the replace pair r(c x ± s w): small, so the difference 2θ√(1 − c²) is ≈ 2θ


_SAFE = 1.0 - 1e-9  # rows are built with score θ·_SAFE so rounding never pushes them above θ (filtered out)


# ---------------------------------------------------------------------------------------------
# worst-case neighbours
# ---------------------------------------------------------------------------------------------
def worst_case_row(x: np.ndarray, theta: float) -> np.ndarray:
    """The row a = √θ·x/‖x‖: score ‖a‖·|⟨a, x⟩| = θ (kept by the filter) and contribution a aᵀx = θ·x/‖x‖.

    Its contribution has the largest norm any kept row can have (θ), so adding it attains the
    add/remove sensitivity of a power step (see :mod:`dpexplore.pca.audit`). Built at θ(1 − 1e-9) so that
    rounding never lifts its score above θ.

    Examples
    --------
    >>> from dpexplore.pca import row_scores
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
