"""Private top singular vector: adaptive power iteration (Algorithm 1) and its baselines.

**Privacy model.** Rows of A ∈ R^{n×d} are individuals. Neighbouring matrices differ in **one row**:
``neighbours="add-remove"`` (default: one row added or removed) or ``"replace"`` (one row replaced).
Every mechanism here is (ε, δ)-DP under the chosen notion; the result records what was spent.

* :func:`adaptive_power_iteration` — Nguyen, Ene & Nguyen (2026), Algorithm 1 [reconstruction of the
  details]: each iteration picks a threshold θ_t privately with AboveThreshold, drops the rows whose
  contribution ‖a‖·|⟨a, x_t⟩| exceeds θ_t, and adds Gaussian noise scaled by θ_t. No row-norm bound
  is needed.
* :func:`noisy_power_iteration` — the worst case (Hardt & Price style, row model): rows clipped to
  norm 1, θ_t ≡ 1, no SVT. The ablation that isolates the adaptive filter.
* :func:`analyze_gauss` — Dwork, Talwar, Thakurta & Zhang (2014): AᵀA + symmetric Gaussian noise.
* :func:`power_iteration` — non-private (the floor).

Accounting (all iterative methods): zero-concentrated DP (Bun & Steinke 2016). The target (ε, δ) is
turned into ρ = ``dp_to_zcdp(ε, δ)``; each of the T iterations gets ρ/T, split between the SVT step
(ε_svt-DP, hence ε_svt²/2-zCDP, Prop. 1.4) and the Gaussian step (Δ²/(2σ²)-zCDP, Prop. 1.6); zCDP
composes additively and ``zcdp_to_dp(ρ, δ)`` = ε converts back (Prop. 1.3). The paper writes the
noise as θ_t √(2 log(2/δ))/ε · g_t; the zCDP calibration here is the same shape with a tighter constant.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

from dpexplore.core.gaussian import dp_to_zcdp, gaussian_sigma, zcdp_to_dp
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.sparse_vector import above_threshold
from dpexplore.core.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_matrix,
    check_positive,
    check_real,
    check_vector,
)

from .data import _check_data
from .metrics import sin2

__all__ = [
    "PCAResult",
    "ThresholdChoice",
    "adaptive_calibration",
    "adaptive_power_iteration",
    "analyze_gauss",
    "analyze_gauss_calibration",
    "choose_threshold",
    "clip_rows",
    "default_iterations",
    "default_m0",
    "filtered_update",
    "noisy_power_iteration",
    "power_iteration",
    "row_scores",
    "threshold_grid",
    "worst_case_calibration",
    "zcdp_budget",
    "MAX_GRID",
    "MAX_GAUSS_D",
    "MAX_GAUSS_EPSILON",
    "MAX_ITERATIONS",
]

_NEIGHBOURS = ("add-remove", "replace")
_MAX_GRID = 10_000  # threshold-grid values (AboveThreshold examines them one by one)
_MAX_GAUSS_D = 4_000  # Analyze Gauss forms a d×d matrix
_MAX_GAUSS_EPSILON = 1e15  # beyond this the analytic Gaussian σ is not representable (core calibration fails)
_MAX_ITERATIONS = 10_000  # power-iteration steps t of every mechanism
#: Public names of the caps above: threshold-grid size, Analyze Gauss's d, its ε, iterations t.
MAX_GRID, MAX_GAUSS_D, MAX_GAUSS_EPSILON, MAX_ITERATIONS = _MAX_GRID, _MAX_GAUSS_D, _MAX_GAUSS_EPSILON, _MAX_ITERATIONS


@dataclass(frozen=True)
class PCAResult:
    """Output of the PCA mechanisms.

    Attributes
    ----------
    vector : ndarray, shape (d,)
        Unit vector estimating v1.
    method : str
    epsilon, delta : float
        Total privacy spent (``inf`` and 0 for the non-private method).
    neighbours : str
        ``"add-remove"`` or ``"replace"`` (``"none"`` for the non-private method).
    iterations : int
        T (0 for Analyze Gauss).
    rho : float
        Total zCDP ρ (NaN where the method is accounted directly in (ε, δ)).
    rho_svt_step, epsilon_svt_step : float
        Per-iteration budget of the SVT threshold choice (0 where there is none).
    rho_gauss_step : float
        Per-iteration zCDP budget of the Gaussian step.
    noise_multiplier : float
        σ_t/θ_t: the noise standard deviation per unit of threshold (per unit of sensitivity for
        Analyze Gauss, where it is the σ of each matrix entry).
    m0 : int
        SVT count target (adaptive only; −1 otherwise).
    thresholds : ndarray, shape (T,)
        θ_t per iteration (1 for the worst case; empty otherwise).
    rows_filtered : ndarray, shape (T,)
        How many rows had score > θ_t (dropped for that iteration).
    max_scores : ndarray, shape (T,)
        The largest score max_i ‖a_i‖·|⟨a_i, x_t⟩| — a **non-private** diagnostic for teaching displays.
    sin2_path : ndarray, shape (T,)
        sin²(v1, x_{t+1}) after each iteration when ``v1`` was given (else empty).
    """

    vector: np.ndarray
    method: str
    epsilon: float
    delta: float
    neighbours: str
    iterations: int
    rho: float = float("nan")
    rho_svt_step: float = 0.0
    epsilon_svt_step: float = 0.0
    rho_gauss_step: float = 0.0
    noise_multiplier: float = 0.0
    m0: int = -1
    thresholds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rows_filtered: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    max_scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sin2_path: np.ndarray = field(default_factory=lambda: np.zeros(0))


# ---------------------------------------------------------------------------------------------
# small public helpers (each one testable on its own)
# ---------------------------------------------------------------------------------------------
def default_iterations(d: int, eigengap: float = 0.5) -> int:
    """T = ⌈1.5·ln(d)/κ⌉ clipped to [3, 60] (the paper's T ≈ C log(d)/κ with C = 1.5 [reconstruction]).

    κ is treated as public knowledge about the data (as in the paper's analysis). Without it the
    mechanisms use κ = 0.5. C = 1.5 rather than 1 lets a run recover from an unlucky start (x_0 nearly
    orthogonal to v1) at the price of splitting the budget over more iterations.

    Examples
    --------
    >>> default_iterations(200, 0.9), default_iterations(200, 0.5)
    (9, 16)
    """
    d = check_int(d, "d", low=1)  # O(1): only log(d) enters
    kappa = check_real(eigengap, "eigengap", low=0.0, high=1.0, low_open=True)
    return int(min(60, max(3, math.ceil(1.5 * math.log(max(d, 2)) / kappa))))


def threshold_grid(low: float = 2.0**-10, high: float = 1.0, ratio: float = 2.0**0.5) -> np.ndarray:
    """The public geometric grid θ^(0) < … < θ^(J) (Algorithm 1, step 2b), ending at ``high``.

    Public: it depends on no data. The default ends at 1, the largest contribution a row of norm ≤ 1
    can make; pass a larger ``high`` for data with larger rows.

    Examples
    --------
    >>> threshold_grid(0.25, 1.0, 2.0)
    array([0.25, 0.5 , 1.  ])
    """
    low = check_positive(low, "low")
    high = check_real(high, "high", low=low)
    ratio = check_real(ratio, "ratio", low=1.0, low_open=True)
    size = math.log(high / low) / math.log(ratio) + 1e-9
    if not size < _MAX_GRID:
        raise ValueError(f"ratio must be large enough that the grid from low={low:g} to high={high:g} has at most "
                         f"{_MAX_GRID} values (log(high/low)/log(ratio) < {_MAX_GRID}); got ratio={ratio!r}")
    j = int(math.floor(size))
    return high / ratio ** np.arange(j, -1, -1)


def _check_A_x(A, x) -> tuple[np.ndarray, np.ndarray]:
    A = _check_data(A, "A")
    x = check_vector(x, "x")
    if x.size != A.shape[1]:
        raise ValueError(f"x must have d = {A.shape[1]} entries (one per column of A); got {x.size}")
    return A, x


def row_scores(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """s_i = ‖a_i‖₂ · |⟨a_i, x⟩|: the norm of row i's contribution a_i a_iᵀ x to AᵀA x (step 2a).

    Examples
    --------
    >>> row_scores(np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([1.0, 0.0]))
    array([15.,  1.])
    """
    A, x = _check_A_x(A, x)
    return np.linalg.norm(A, axis=1) * np.abs(A @ x)


def filtered_update(A: np.ndarray, x: np.ndarray, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """The deterministic part of step 2c–2d: y = A_θᵀ A_θ x over the rows with score ≤ θ.

    Sensitivity: a row is kept only if ‖a aᵀx‖ = ‖a‖·|⟨a, x⟩| ≤ θ, and whether it is kept depends on that
    row alone. Adding or removing one row therefore moves y by at most θ; replacing one row by at
    most 2θ. (Checked directly on neighbouring matrices in ``tests/pca``.)

    Returns
    -------
    y : ndarray, shape (d,)
    kept : ndarray of bool, shape (n,)

    Examples
    --------
    >>> y, kept = filtered_update(np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([1.0, 0.0]), 2.0)
    >>> y, kept
    (array([1., 0.]), array([False,  True]))
    """
    A, x = _check_A_x(A, x)
    theta = check_real(theta, "theta", low=0.0, allow_inf=True)  # inf: no filter
    z = A @ x
    kept = np.linalg.norm(A, axis=1) * np.abs(z) <= theta
    return A.T @ np.where(kept, z, 0.0), kept


def _check_grid(grid) -> np.ndarray:
    grid = check_vector(grid, "grid")
    if grid.size > _MAX_GRID or np.any(grid <= 0) or np.any(np.diff(grid) <= 0):
        raise ValueError(f"grid must be strictly increasing positive thresholds (at most {_MAX_GRID}); got "
                         + np.array2string(grid[:5]) + ("…" if grid.size > 5 else ""))
    return grid


@dataclass(frozen=True)
class ThresholdChoice:
    """Output of :func:`choose_threshold`: the grid index j (None: no grid value passed), θ = θ^(j)
    (the top of the grid when j is None) and the number of queries AboveThreshold examined."""

    index: int | None
    theta: float
    queries_answered: int


def choose_threshold(
    scores: np.ndarray,
    grid: np.ndarray,
    m0: int,
    epsilon: float,
    *,
    rng: RNGLike = None,
    _above_threshold=above_threshold,
) -> ThresholdChoice:
    """Private threshold choice by the sparse vector technique (Algorithm 1, step 2b).

    Queries q_j = #{i : s_i > θ^(j)} (sensitivity 1 under add/remove *and* replace: one row changes
    each count by at most 1) for j = 0, 1, …; stop at the first j whose noisy count is ≤ m0.

    This is AboveThreshold (Dwork & Roth, Alg. 1 of §3.6) on the **negated** queries −q_j with public
    threshold T = −(m0 + ½): it reports the first j with −q_j + ν_j ≥ T + ρ, i.e. q_j − ν_j ≤ m0 + ½ − ρ
    (ν_j ~ Lap(4/ε), ρ ~ Lap(2/ε), both symmetric). The ½ puts the public threshold between integer
    counts, so that with ε → ∞ the choice is exactly "the smallest θ^(j) with q_j ≤ m0". ε-DP for any
    number of queries. If no query passes, θ = θ^(J) (the top of the grid; the choice is still a function
    of the SVT output only).

    Examples
    --------
    >>> grid = threshold_grid(0.125, 1.0, 2.0)            # 0.125, 0.25, 0.5, 1
    >>> scores = np.array([0.1, 0.2, 0.3, 0.9])           # counts above: 3, 2, 1, 0
    >>> choose_threshold(scores, grid, 1, 1e9, rng=0)     # smallest θ with at most 1 row above
    ThresholdChoice(index=2, theta=0.5, queries_answered=3)
    """
    m0 = check_int(m0, "m0", low=0)
    grid = _check_grid(grid)
    s = np.sort(check_vector(scores, "scores", min_size=0))
    if np.any(s < 0):
        raise ValueError(f"scores must be >= 0 (they are norms); got {s[0]:g}")
    counts = s.size - np.searchsorted(s, grid, side="right")  # q_j for every grid value at once

    def negated_counts() -> Iterator[float]:
        for q in counts:  # AboveThreshold draws noise only for the queries it examines
            yield -float(q)

    # _above_threshold ≠ above_threshold only in pca.audit's broken_choose_threshold (no query noise)
    res = _above_threshold(negated_counts(), -(m0 + 0.5), epsilon, sensitivity=1.0, rng=rng)
    if res.index is None:
        return ThresholdChoice(None, float(grid[-1]), res.queries_answered)
    return ThresholdChoice(res.index, float(grid[res.index]), res.queries_answered)


def default_m0(epsilon_svt: float) -> int:
    """SVT count target m0 = ⌊8/ε_svt⌋ = two Laplace scales of the query noise (4/ε_svt) [reconstruction].

    About m0 rows are dropped per iteration; a target two noise scales above 0 keeps a noisy "≤ m0"
    from stopping at a grid value where far more rows lie above it. m0 depends on the privacy
    parameters only (not on n, which is itself private under add/remove), and m0 → 0 as ε → ∞.

    Examples
    --------
    >>> default_m0(0.5), default_m0(1e9)
    (16, 0)
    """
    eps = check_epsilon(epsilon_svt, "epsilon_svt")
    m0 = 8.0 / eps
    if not m0 < 2**53:
        raise ValueError(f"epsilon_svt must be a finite number >= {8.0 / 2**53:.3g} (so that m0 = 8/epsilon_svt is a "
                         f"representable count); got {epsilon_svt!r}")
    return int(math.floor(m0))


def zcdp_budget(epsilon: float, delta: float, iterations: int, svt_share: float) -> dict[str, float]:
    """Per-iteration split of a target (ε, δ) in zCDP (see the module docstring).

    ρ = dp_to_zcdp(ε, δ); each iteration gets ρ/T, a share ``svt_share`` to SVT (ε_svt = √(2ρ_svt)) and
    the rest to the Gaussian step. ``zcdp_to_dp(T (ε_svt²/2 + ρ_gauss), δ)`` equals ε.

    Examples
    --------
    >>> b = zcdp_budget(1.0, 1e-5, 10, 0.5)
    >>> round(zcdp_to_dp(10 * (b["epsilon_svt_step"] ** 2 / 2 + b["rho_gauss_step"]), 1e-5), 10)
    1.0
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    t = check_int(iterations, "iterations", low=1)
    share = check_real(svt_share, "svt_share", low=0.0, high=1.0, high_open=True)
    rho = dp_to_zcdp(eps, delta)
    if not rho / t > 0:
        raise ValueError(f"epsilon is too small for delta={delta:g} and {t} iteration(s): the zCDP budget per "
                         f"iteration rounds to 0 (epsilon must be a finite number > 0 with a representable rho); "
                         f"got epsilon={epsilon!r}")
    rho_svt = share * rho / t
    return {"rho": rho, "rho_svt_step": rho_svt, "epsilon_svt_step": math.sqrt(2.0 * rho_svt),
            "rho_gauss_step": (1.0 - share) * rho / t}


def clip_rows(A: np.ndarray, clip_norm: float = 1.0) -> np.ndarray:
    """Scale every row with ‖a‖ > ``clip_norm`` down to norm ``clip_norm`` (direction kept).

    Examples
    --------
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]))
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    c = check_positive(clip_norm, "clip_norm")
    A = _check_data(A, "A")
    norms = np.linalg.norm(A, axis=1)
    with np.errstate(divide="ignore"):  # zero rows: factor 1 (they are not scaled)
        factor = np.where(norms > c, c / np.where(norms > 0, norms, 1.0), 1.0)
    return A * factor[:, None]


def _unit(v: np.ndarray) -> np.ndarray:
    nrm = float(np.linalg.norm(v))
    return v / nrm if nrm > 0 else v


def _check_common(A, iterations, v1, default_t):
    A = _check_data(A, "A")
    t = default_t if iterations is None else check_int(iterations, "iterations", low=1, high=_MAX_ITERATIONS)
    if v1 is not None:
        v1 = check_vector(v1, "v1")
        if v1.size != A.shape[1]:
            raise ValueError(f"v1 must have d = {A.shape[1]} entries (one per column of A); got {v1.size}")
        if not np.linalg.norm(v1) > 0:
            raise ValueError("v1 must be a non-zero vector (the true direction); got the zero vector")
    return A, t, v1


# ---------------------------------------------------------------------------------------------
# mechanisms
# ---------------------------------------------------------------------------------------------
def adaptive_power_iteration(
    A: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    iterations: int | None = None,
    rng: RNGLike = None,
    grid: np.ndarray | None = None,
    m0: int | None = None,
    svt_share: float = 0.25,
    neighbours: str = "add-remove",
    v1: np.ndarray | None = None,
) -> PCAResult:
    """Adaptive private power iteration (Nguyen, Ene & Nguyen 2026, Algorithm 1) [reconstruction].

    1. x_0 uniform on the unit sphere.
    2. For t = 0, …, T − 1:

       a. scores s_i = ‖a_i‖·|⟨a_i, x_t⟩|;
       b. θ_t by AboveThreshold over the public grid (:func:`choose_threshold`);
       c. keep rows with s_i ≤ θ_t (this iteration only);
       d. y = A_tᵀA_t x_t + θ_t·c·g_t, g_t ~ N(0, I_d), c = (1 or 2)/√(2ρ_gauss) (sensitivity θ_t under
          add/remove, 2θ_t under replace);
       e. x_{t+1} = y/‖y‖.
    3. Privacy: T × (SVT + Gaussian) composed in zCDP (:func:`zcdp_budget`).

    Parameters
    ----------
    A : ndarray, shape (n, d)
        The private data, rows = individuals. No norm bound is needed.
    epsilon, delta : float
        Total privacy target (ε > 0, 0 < δ < 1).
    iterations : int, optional
        T (default :func:`default_iterations` ``(d)``, i.e. κ = 0.5 assumed).
    rng : Generator, int or None
    grid : ndarray, optional
        Public increasing thresholds (default :func:`threshold_grid` ``()``: 2^-10 … 1, ratio √2).
    m0 : int, optional
        SVT count target (default :func:`default_m0` ``(ε_svt)``).
    svt_share : float
        Share of each iteration's ρ spent on the threshold choice (default 0.25).
    neighbours : {"add-remove", "replace"}
    v1 : ndarray, shape (d,), optional
        The truth, only to record ``sin2_path`` (not used by the algorithm).

    Returns
    -------
    PCAResult

    References
    ----------
    Nguyen, Ene, Nguyen (2026). *Adaptive Power Iteration Method for Differentially Private PCA*.
    arXiv:2602.11454. Dwork & Roth (2014), §3.6. Bun & Steinke (2016).

    Examples
    --------
    >>> from dpexplore.pca import make_matrix, sin2
    >>> data = make_matrix(400, 50, eigengap=0.9, rng=0)
    >>> res = adaptive_power_iteration(data.A, epsilon=1e6, delta=1e-5, rng=0)
    >>> bool(sin2(data.v1, res.vector) < 1e-6), round(res.epsilon, 6)
    (True, 1000000.0)
    """
    return _adaptive_run(A, epsilon, delta, iterations, rng, grid, m0, svt_share, neighbours, v1, noise_scale=1.0,
                         method="adaptive")


def adaptive_calibration(epsilon: float, delta: float, iterations: int, svt_share: float = 0.25,
                         neighbours: str = "add-remove") -> tuple[dict[str, float], float]:
    """Accounting of :func:`adaptive_power_iteration`: the zCDP split and the noise multiplier σ_t/θ_t.

    Returns ``(budget, multiplier)`` with ``budget`` from :func:`zcdp_budget` and multiplier
    = (1 or 2)/√(2ρ_gauss) (sensitivity θ_t under add/remove, 2θ_t under replace), so each Gaussian
    step is exactly the Gaussian mechanism with μ = √(2ρ_gauss) (μ-GDP). Used by the mechanism and by
    the audits in :mod:`dpexplore.pca.audit` (one calibration, audited where it is used).

    Examples
    --------
    >>> budget, mult = adaptive_calibration(1.0, 1e-5, 10)
    >>> round(1 / mult, 6) == round(math.sqrt(2 * budget["rho_gauss_step"]), 6)
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    t = check_int(iterations, "iterations", low=1, high=_MAX_ITERATIONS)
    neighbours = check_choice(neighbours, "neighbours", _NEIGHBOURS)
    budget = zcdp_budget(eps, delta, t, svt_share)
    if budget["rho_svt_step"] <= 0:
        raise ValueError(f"svt_share must be > 0 and < 1 for the adaptive method; got {svt_share!r}")
    sens_factor = 1.0 if neighbours == "add-remove" else 2.0
    return budget, sens_factor / math.sqrt(2.0 * budget["rho_gauss_step"])


def _adaptive_run(A, epsilon, delta, iterations, rng, grid, m0, svt_share, neighbours, v1, *, noise_scale: float,
                  method: str, chooser=None) -> PCAResult:
    """Algorithm 1; ``noise_scale`` ≠ 1 and ``chooser`` ≠ :func:`choose_threshold` only for the deliberately
    broken teaching variants (pca.audit)."""
    chooser = choose_threshold if chooser is None else chooser
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    neighbours = check_choice(neighbours, "neighbours", _NEIGHBOURS)
    A, t_total, v1 = _check_common(A, iterations, v1, None)
    n, d = A.shape
    if t_total is None:
        t_total = default_iterations(d)
    grid = threshold_grid() if grid is None else _check_grid(grid)
    budget, multiplier = adaptive_calibration(eps, delta, t_total, svt_share, neighbours)
    if m0 is None:
        if not 8.0 / budget["epsilon_svt_step"] < 2**53:
            raise ValueError(f"epsilon is too small: the SVT count target m0 = 8/epsilon_svt is not representable; "
                             f"epsilon must be a finite number > 0 giving epsilon_svt >= 1e-15; got {epsilon!r}")
        m0 = default_m0(budget["epsilon_svt_step"])
    else:
        m0 = check_int(m0, "m0", low=0)
    multiplier *= noise_scale  # 1 except in broken_adaptive_power_iteration
    gen = as_generator(rng)

    x = _unit(gen.standard_normal(d))  # step 1
    norms = np.linalg.norm(A, axis=1)
    thetas = np.empty(t_total)
    filtered = np.empty(t_total, dtype=int)
    max_scores = np.empty(t_total)
    path = np.empty(t_total if v1 is not None else 0)
    for t in range(t_total):
        z = A @ x
        scores = norms * np.abs(z)  # step 2a
        choice = chooser(scores, grid, m0, budget["epsilon_svt_step"], rng=gen)  # step 2b
        kept = scores <= choice.theta  # step 2c
        y = A.T @ np.where(kept, z, 0.0)
        y = y + choice.theta * multiplier * gen.standard_normal(d)  # step 2d
        x = _unit(y)  # step 2e
        thetas[t], filtered[t], max_scores[t] = choice.theta, int(n - kept.sum()), float(scores.max(initial=0.0))
        if v1 is not None:
            path[t] = sin2(v1, x)
    spent = zcdp_to_dp(t_total * (budget["epsilon_svt_step"] ** 2 / 2.0 + budget["rho_gauss_step"]), delta)
    return PCAResult(vector=x, method=method, epsilon=spent, delta=delta, neighbours=neighbours,
                     iterations=t_total, rho=budget["rho"], rho_svt_step=budget["rho_svt_step"],
                     epsilon_svt_step=budget["epsilon_svt_step"], rho_gauss_step=budget["rho_gauss_step"],
                     noise_multiplier=multiplier, m0=m0, thresholds=thetas, rows_filtered=filtered,
                     max_scores=max_scores, sin2_path=path)


def noisy_power_iteration(
    A: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    iterations: int | None = None,
    rng: RNGLike = None,
    clip_norm: float = 1.0,
    neighbours: str = "add-remove",
    v1: np.ndarray | None = None,
) -> PCAResult:
    """Worst-case noisy power iteration (row model): clip rows to norm 1, θ_t ≡ 1, no SVT.

    x_{t+1} ∝ Ā ᵀĀ x_t + c·g_t with Ā the clipped rows; one clipped row moves ĀᵀĀx by at most
    clip_norm² (add/remove; twice that under replace), so c = clip_norm²·(1 or 2)/√(2ρ/T) and T
    Gaussian steps compose to ρ = dp_to_zcdp(ε, δ). The ablation of Algorithm 1 without the filter.

    Examples
    --------
    >>> from dpexplore.pca import make_matrix, sin2
    >>> data = make_matrix(400, 50, eigengap=0.9, rng=0)
    >>> res = noisy_power_iteration(data.A, epsilon=1e6, delta=1e-5, rng=0)
    >>> bool(sin2(data.v1, res.vector) < 1e-6), res.thresholds[:2]
    (True, array([1., 1.]))
    """
    return _worst_run(A, epsilon, delta, iterations, rng, clip_norm, neighbours, v1, noise_scale=1.0,
                      method="worst-case power")


def worst_case_calibration(epsilon: float, delta: float, iterations: int, clip_norm: float = 1.0,
                           neighbours: str = "add-remove") -> tuple[dict[str, float], float]:
    """Accounting of :func:`noisy_power_iteration`: ``(budget, sigma)``, σ = Δ/√(2ρ/T) with Δ = clip_norm²
    (add/remove) or 2·clip_norm² (replace). Each step is the Gaussian mechanism with μ = Δ/σ.

    Examples
    --------
    >>> budget, sigma = worst_case_calibration(1.0, 1e-5, 10)
    >>> round(1 / sigma ** 2 / 2, 12) == round(budget["rho_gauss_step"], 12)
    True
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    t = check_int(iterations, "iterations", low=1, high=_MAX_ITERATIONS)
    neighbours = check_choice(neighbours, "neighbours", _NEIGHBOURS)
    c = check_positive(clip_norm, "clip_norm")
    budget = zcdp_budget(eps, delta, t, 0.0)
    sens = c * c * (1.0 if neighbours == "add-remove" else 2.0)
    return budget, sens / math.sqrt(2.0 * budget["rho_gauss_step"])


def _worst_run(A, epsilon, delta, iterations, rng, clip_norm, neighbours, v1, *, noise_scale: float,
               method: str) -> PCAResult:
    A, t_total, v1 = _check_common(A, iterations, v1, None)
    d = A.shape[1]
    if t_total is None:
        t_total = default_iterations(d)
    budget, sigma = worst_case_calibration(epsilon, delta, t_total, clip_norm, neighbours)
    c = float(clip_norm)
    sigma *= noise_scale  # 1 except in broken_noisy_power_iteration
    Ac = clip_rows(A, c)
    gen = as_generator(rng)
    x = _unit(gen.standard_normal(d))
    norms = np.linalg.norm(Ac, axis=1)
    max_scores = np.empty(t_total)
    path = np.empty(t_total if v1 is not None else 0)
    for t in range(t_total):
        z = Ac @ x
        max_scores[t] = float((norms * np.abs(z)).max(initial=0.0))
        x = _unit(Ac.T @ z + sigma * gen.standard_normal(d))
        if v1 is not None:
            path[t] = sin2(v1, x)
    spent = zcdp_to_dp(t_total * budget["rho_gauss_step"], float(delta))
    return PCAResult(vector=x, method=method, epsilon=spent, delta=float(delta), neighbours=neighbours,
                     iterations=t_total, rho=budget["rho"], rho_gauss_step=budget["rho_gauss_step"],
                     noise_multiplier=sigma / (c * c), thresholds=np.full(t_total, c * c),
                     rows_filtered=np.zeros(t_total, dtype=int), max_scores=max_scores, sin2_path=path)


def analyze_gauss(
    A: np.ndarray,
    *,
    epsilon: float,
    delta: float,
    iterations: int | None = None,
    rng: RNGLike = None,
    clip_norm: float = 1.0,
    neighbours: str = "add-remove",
) -> PCAResult:
    """Analyze Gauss (Dwork, Talwar, Thakurta & Zhang 2014): top eigenvector of ĀᵀĀ + E.

    Ā: rows clipped to norm ``clip_norm``; E symmetric with i.i.d. N(0, σ²) upper triangle (diagonal
    included). One row changes ĀᵀĀ by a aᵀ, whose upper triangle has ℓ2 norm ≤ ‖a‖² ≤ clip_norm²
    (add/remove) or ≤ √2·clip_norm² (replace: ‖aaᵀ − bbᵀ‖_F² ≤ ‖a‖⁴ + ‖b‖⁴); σ is the analytic
    Gaussian calibration (:func:`dpexplore.core.gaussian_sigma`) of that sensitivity, one release, so
    the spent (ε, δ) is exactly the target. ``iterations`` is accepted for a uniform interface and
    ignored (the eigenvector is computed exactly, post-processing).

    Examples
    --------
    >>> from dpexplore.pca import make_matrix, sin2
    >>> data = make_matrix(400, 50, eigengap=0.9, rng=0)
    >>> res = analyze_gauss(data.A, epsilon=1e6, delta=1e-5, rng=0)
    >>> bool(sin2(data.v1, res.vector) < 1e-6)
    True
    """
    return _gauss_run(A, epsilon, delta, iterations, rng, clip_norm, neighbours, noise_scale=1.0,
                      method="Analyze Gauss")


def analyze_gauss_calibration(epsilon: float, delta: float, clip_norm: float = 1.0,
                              neighbours: str = "add-remove") -> tuple[float, float]:
    """Accounting of :func:`analyze_gauss`: ``(sensitivity, sigma)``, Δ = clip_norm² (add/remove) or
    √2·clip_norm² (replace), σ the analytic Gaussian calibration of Δ at (ε, δ) (exact: the mechanism is
    μ-GDP with μ = Δ/σ and its privacy curve passes through (ε, δ)). ε ≤ 1e15.

    Examples
    --------
    >>> sens, sigma = analyze_gauss_calibration(1.0, 1e-5)
    >>> from dpexplore.core import gdp_epsilon
    >>> round(gdp_epsilon(sens / sigma, 1e-5), 6)
    1.0
    """
    eps = check_real(epsilon, "epsilon", low=0.0, high=_MAX_GAUSS_EPSILON, low_open=True)
    delta = check_delta(delta)
    neighbours = check_choice(neighbours, "neighbours", _NEIGHBOURS)
    c = check_positive(clip_norm, "clip_norm")
    sens = c * c * (1.0 if neighbours == "add-remove" else math.sqrt(2.0))
    return sens, gaussian_sigma(eps, delta, sens)


def _gauss_run(A, epsilon, delta, iterations, rng, clip_norm, neighbours, *, noise_scale: float,
               method: str) -> PCAResult:
    sens, sigma = analyze_gauss_calibration(epsilon, delta, clip_norm, neighbours)
    A = _check_data(A, "A")
    if iterations is not None:
        check_int(iterations, "iterations", low=1, high=_MAX_ITERATIONS)
    d = A.shape[1]
    if d > _MAX_GAUSS_D:
        raise ValueError(f"A must have at most {_MAX_GAUSS_D} columns for Analyze Gauss (it forms a d×d matrix); "
                         f"got d = {d}")
    c = float(clip_norm)
    sigma *= noise_scale  # 1 except in broken_analyze_gauss
    Ac = clip_rows(A, c)
    gen = as_generator(rng)
    noise = np.triu(gen.standard_normal((d, d)) * sigma)
    C = Ac.T @ Ac + noise + np.triu(noise, 1).T
    _, vec = linalg.eigh(C, subset_by_index=[d - 1, d - 1])
    return PCAResult(vector=_unit(vec[:, 0]), method=method, epsilon=float(epsilon), delta=float(delta),
                     neighbours=neighbours, iterations=0, noise_multiplier=sigma / (c * c))


def power_iteration(
    A: np.ndarray,
    *,
    iterations: int | None = None,
    rng: RNGLike = None,
    tol: float = 1e-24,
    v1: np.ndarray | None = None,
) -> PCAResult:
    """Non-private power iteration x_{t+1} = AᵀA x_t/‖AᵀA x_t‖ from a random unit x_0 (the floor).

    Default: up to 1000 iterations, stopping when sin²(x_t, x_{t+1}) < ``tol``.

    Examples
    --------
    >>> res = power_iteration(np.diag([2.0, 1.0, 0.5]), rng=0)
    >>> np.round(np.abs(res.vector), 6)
    array([1., 0., 0.])
    """
    A = check_matrix(A, "A")  # any finite magnitude: rescaled below
    _, t_total, v1 = _check_common(np.zeros((1, A.shape[1])), iterations, v1, None)
    tol = check_positive(tol, "tol", allow_zero=True)
    fixed = t_total is not None
    t_max = t_total if fixed else 1000
    gen = as_generator(rng)
    top = float(np.max(np.abs(A), initial=0.0))
    if top > 0 and not 1e-50 < top < 1e50:
        A = A / top  # the direction is scale-invariant; this keeps AᵀAx clear of overflow and underflow
    x = _unit(gen.standard_normal(A.shape[1]))
    path = []
    done = 0
    for _ in range(t_max):
        new = _unit(A.T @ (A @ x))
        done += 1
        if not np.any(new):
            # AᵀAx = 0: for A = 0 every unit vector is a top singular vector (keep x); otherwise x hit the
            # null space (probability 0 for a random start) and a fresh start is drawn.
            if top == 0:
                new = x
            else:
                new = _unit(gen.standard_normal(A.shape[1]))
        step = sin2(x, new)
        x = new
        if v1 is not None:
            path.append(sin2(v1, x))
        if not fixed and step < tol:
            break
    return PCAResult(vector=x, method="non-private", epsilon=math.inf, delta=0.0, neighbours="none",
                     iterations=done, sin2_path=np.asarray(path))
