"""Theory for private spectral clustering: SBM quantities, Davis–Kahan + Procrustes + margin bounds,
expected noise norms and the three rates (Koskela, Seif, Poor & Goldsmith, arXiv:2510.07136).

Every function returns a :class:`TheoryValue` (value, ``valid`` flag and a reason) so that a dashboard
can leave a gap where a theorem's conditions fail instead of drawing a meaningless line.

Unified bound (spec "Theory to plot"):

* Davis–Kahan (Yu, Wang & Samworth 2015): ‖sin Θ(Û, U)‖_F ≤ 2 min(√k ‖E‖_op, ‖E‖_F)/Δ_k, with
  Δ_k = λ_k − λ_{k+1} of the reference matrix (E[A] for an SBM);
* Procrustes: min_O ‖ÛO − U‖_F ≤ √2 ‖sin Θ‖_F;
* margin: a row whose embedding moved by less than Δ*/2 − r* stays nearest its own true centroid, so
  #misclassified ≤ ‖ÛO − U‖_F²/(Δ*/2 − r*)² (for nearest-true-centroid assignment; an exact k-means
  solution adds a constant factor, Lei & Rinaldo 2015, not included here).

Together: fraction ≤ 8 min(k‖E‖²_op, ‖E‖²_F)/(n Δ_k² (Δ*/2 − r*)²).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_matrix,
    check_positive,
    check_probability,
    check_real,
)
from .accounting import analyze_gauss_sigma, noisy_power_sigma, rr_noise_variance
from .data import block_sizes
from .metrics import _labels

__all__ = [
    "TheoryValue",
    "SBMQuantities",
    "sbm_quantities",
    "margin_quantities",
    "mechanism_noise_variance",
    "expected_noise_norm",
    "davis_kahan_bound",
    "misclassification_bound",
    "rate",
]


@dataclass(frozen=True)
class TheoryValue:
    """A theoretical quantity with its validity: ``value`` is NaN when ``valid`` is False."""

    value: float
    valid: bool
    reason: str = ""

    def __float__(self) -> float:
        return float(self.value)


def _bad(reason: str) -> TheoryValue:
    return TheoryValue(math.nan, False, reason)


@dataclass(frozen=True)
class SBMQuantities:
    """Population quantities of a k-block SBM.

    Attributes
    ----------
    eigenvalues : ndarray, shape (k + 1,)
        λ_1 ≥ … ≥ λ_{k+1} of E[A] = Z B Zᵀ − p I.
    eigengap : float
        Δ_k = λ_k − λ_{k+1} (n(p − q)/k for balanced blocks).
    delta_star : float
        Δ* = min distance between the rows of U (top-k eigenvectors of E[A]) of two different blocks:
        √(1/n_a + 1/n_b) minimised over block pairs (U's rows are constant on blocks).
    r_star : float
        r* = max distance of a row of U from its block centroid (0 for an exact SBM).
    max_row_norm : float
        max_i ‖U_i‖ = 1/√(min block size) (coherence; sets the noisy power method's sensitivity).
    """

    eigenvalues: np.ndarray
    eigengap: float
    delta_star: float
    r_star: float
    max_row_norm: float


def sbm_quantities(n: int, k: int, p: float, q: float) -> SBMQuantities:
    """Δ_k, Δ*, r* and the top eigenvalues of a balanced SBM's expected adjacency.

    Notes
    -----
    E[A] + pI = Z B Zᵀ has the non-zero eigenvalues of D^{1/2} B D^{1/2} (D = block sizes). For
    balanced blocks: n(p + (k − 1)q)/k once and n(p − q)/k (k − 1 times). The top-k eigenvectors span
    the block indicators whenever those k eigenvalues are positive (p > q ≥ 0); then U's rows equal
    the block's vector exactly, so r* = 0 and Δ* = min_{a≠b} √(1/n_a + 1/n_b).

    Examples
    --------
    >>> s = sbm_quantities(1000, 3, 0.3, 0.05)
    >>> round(s.eigengap, 3), round(s.delta_star, 4), s.r_star
    (83.25, 0.0774, 0.0)
    """
    n = check_int(n, "n", low=2)
    k = check_int(k, "k", low=1, high=n)
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    sizes = block_sizes(n, k).astype(float)
    b = np.full((k, k), q)
    np.fill_diagonal(b, p)
    root = np.sqrt(sizes)
    vals = np.sort(np.linalg.eigvalsh(root[:, None] * b * root[None, :]))[::-1]
    all_vals = np.concatenate([vals, [0.0]]) - p  # the remaining n − k eigenvalues are 0 − p
    gap = float(all_vals[k - 1] - all_vals[k])
    if k > 1:
        inv = 1.0 / sizes
        pair = inv[:, None] + inv[None, :]
        np.fill_diagonal(pair, np.inf)
        delta_star = float(np.sqrt(pair.min()))
    else:
        delta_star = math.inf
    return SBMQuantities(eigenvalues=all_vals[: k + 1], eigengap=gap, delta_star=delta_star, r_star=0.0,
                         max_row_norm=float(1.0 / np.sqrt(sizes.min())))


def margin_quantities(u, labels) -> tuple[float, float]:
    """(Δ*, r*) of an embedding U (n×k) and true labels: centroid separation and within-block radius.

    Examples
    --------
    >>> u = np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]])
    >>> margin_quantities(u, [0, 0, 1, 1])
    (1.4142135623730951, 0.0)
    """
    u = check_matrix(u, "u")
    if labels is None or isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a 1-d array of labels; got {type(labels).__name__}")
    z = _labels(labels, "labels")
    if z.size != u.shape[0]:
        raise ValueError(f"labels must have one label per row of u ({u.shape[0]}); got {z.size}")
    z = np.unique(z, return_inverse=True)[1]
    cents = np.stack([u[z == a].mean(0) for a in range(z.max() + 1)])
    diff = np.sqrt(((cents[:, None, :] - cents[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(diff, np.inf)
    r = float(np.sqrt(((u - cents[z]) ** 2).sum(1)).max())
    return float(diff.min()), r


def mechanism_noise_variance(mechanism: str, *, epsilon: float, delta: float, n: int,
                             epsilon0: float | None = None) -> float:
    """Per-entry variance of the privacy noise of a matrix release.

    ``"shuffle"``: e^{ε0}/(e^{ε0} − 1)² (``epsilon0`` must be given: it comes from the accountant);
    ``"analyze_gauss"``: σ² from the analytic Gaussian mechanism.

    Examples
    --------
    >>> round(mechanism_noise_variance("shuffle", epsilon=1, delta=1e-6, n=1000, epsilon0=2.7242), 4)
    0.0751
    """
    mechanism = check_choice(mechanism, "mechanism", ("shuffle", "analyze_gauss"))
    if mechanism == "shuffle":
        if epsilon0 is None:
            raise TypeError("mechanism_noise_variance('shuffle', ...) needs epsilon0 (from shuffle_epsilon0)")
        return rr_noise_variance(epsilon0)
    return analyze_gauss_sigma(epsilon, delta) ** 2


def expected_noise_norm(n: int, variance: float) -> float:
    """‖E‖_op ≈ 2√(n v) for a symmetric n×n matrix with independent centred entries of variance v
    [approximation: the semicircle edge, accurate for large n].

    Examples
    --------
    >>> expected_noise_norm(100, 1.0)
    20.0
    """
    n = check_int(n, "n", low=1)
    v = check_positive(variance, "variance", allow_zero=True)
    return 2.0 * math.sqrt(n * v)


def davis_kahan_bound(noise_op: float, *, eigengap: float, k: int, noise_fro: float | None = None) -> TheoryValue:
    """‖sin Θ(Û, U)‖_F ≤ 2 min(√k ‖E‖_op, ‖E‖_F)/Δ_k (Yu, Wang & Samworth 2015, Thm 2).

    Invalid (NaN) when Δ_k ≤ 0. Capped at √k (the largest possible value); ``reason`` says when the
    cap is hit (the bound is then vacuous).

    Examples
    --------
    >>> davis_kahan_bound(10.0, eigengap=80.0, k=3).value == 2 * math.sqrt(3) * 10 / 80
    True
    >>> davis_kahan_bound(10.0, eigengap=0.0, k=3).reason
    'eigengap must be > 0 (Davis–Kahan needs separated eigenvalues)'
    """
    e_op = check_positive(noise_op, "noise_op", allow_zero=True)
    k = check_int(k, "k", low=1)
    eigengap = check_real(eigengap, "eigengap")
    if noise_fro is not None:
        noise_fro = check_positive(noise_fro, "noise_fro", allow_zero=True)
    if not eigengap > 0:
        return _bad("eigengap must be > 0 (Davis–Kahan needs separated eigenvalues)")
    num = math.sqrt(k) * e_op if noise_fro is None else min(math.sqrt(k) * e_op, float(noise_fro))
    with np.errstate(over="ignore"):
        val = float(np.float64(2.0 * num) / eigengap)  # may be inf for a vanishing gap: then vacuous
    if val >= math.sqrt(k):
        return TheoryValue(math.sqrt(k), True, "vacuous: the bound exceeds sqrt(k), the largest possible value")
    return TheoryValue(val, True)


def misclassification_bound(noise_op: float, *, n: int, k: int, eigengap: float, delta_star: float,
                            r_star: float = 0.0, noise_fro: float | None = None) -> TheoryValue:
    """Misclassified fraction ≤ 2 (DK bound)² / (n (Δ*/2 − r*)²)  [bound, constants explicit].

    Davis–Kahan + Procrustes (√2) + margin. It is for nearest-true-centroid assignment; exact k-means
    adds a constant factor (Lei & Rinaldo 2015) not included. Invalid when Δ_k ≤ 0 or Δ*/2 ≤ r*.
    Values above 1 are returned with ``reason = "vacuous ..."``.

    Examples
    --------
    >>> s = sbm_quantities(1000, 3, 0.3, 0.05)
    >>> b = misclassification_bound(10.0, n=1000, k=3, eigengap=s.eigengap, delta_star=s.delta_star)
    >>> round(b.value, 4)
    0.231
    """
    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=1)
    e_op = check_positive(noise_op, "noise_op", allow_zero=True)
    eigengap = check_real(eigengap, "eigengap")
    delta_star = check_real(delta_star, "delta_star", low=0.0, allow_inf=True)
    r_star = check_positive(r_star, "r_star", allow_zero=True)
    if noise_fro is not None:
        noise_fro = check_positive(noise_fro, "noise_fro", allow_zero=True)
    margin = delta_star / 2.0 - r_star
    if not margin > 0:
        return _bad("the margin delta_star/2 - r_star must be > 0 (clusters overlap in the embedding)")
    if not eigengap > 0:
        return _bad("eigengap must be > 0 (Davis–Kahan needs separated eigenvalues)")
    num = math.sqrt(k) * e_op if noise_fro is None else min(math.sqrt(k) * e_op, float(noise_fro))
    with np.errstate(over="ignore", invalid="ignore"):  # a vanishing gap gives inf: reported as vacuous
        sin_theta = np.float64(2.0 * num) / eigengap  # uncapped: the margin argument needs the raw bound
        frac = float(2.0 * sin_theta**2 / (n * margin**2))
    if math.isnan(frac):  # 0 · inf: no noise and an infinite margin
        frac = 0.0
    return TheoryValue(frac, True, "vacuous: above 1" if frac > 1 else "")


def rate(mechanism: str, *, n: int, k: int, eigengap: float, epsilon: float, delta: float,
         iterations: int = 10, max_row_norm: float | None = None, constant: float = 1.0,
         epsilon0: float | None = None) -> TheoryValue:
    """Leading-order misclassification rate of each mechanism with a STATED constant [rate].

    [reconstruction] The paper states Õ-rates (shuffle Õ(k/(n(e^ε − 1)²Δ_k²)), noisy power
    Õ(k³/(ε²Δ_k³)), Analyze Gauss Õ(k/(ε²Δ_k²)) in its normalisation). Here they are written out from
    the unified bound with Δ*² = 2k/n (balanced blocks, r* = 0) and the leading-order noise norms,
    dropping the graph's own sampling noise, all remaining constants folded into ``constant``:

    rate = C · k ‖E‖²/(n Δ_k² (Δ*/2)²), with

    * Analyze Gauss: ‖E‖² = 4nσ², σ the analytic Gaussian σ(ε, δ);
    * shuffle, ``epsilon0=None``: ‖N‖² = 4n/e^{ε0} with the asymptotic FMT closed-form
      e^{ε0} = n(e^ε − 1)²/(64 log(4/δ)), which gives the paper's 1/(n(e^ε − 1)²) factor (an
      *amplified* accounting, refuted by the two-hub audit); NaN where that e^{ε0} ≤ e^ε (n too small);
    * shuffle with ``epsilon0`` given: the rate of the accountant that chose that ε0,
      ‖N‖² = 4n·e^{ε0}/(e^{ε0} − 1)² (the debiased randomized-response variance) — with the sound
      accountant (ε0 = ε) it does not shrink with n;
    * noisy power: ‖G‖ = σ_np Δ (√n + √k), Δ = √2 · max row norm of U, σ_np = √(L/(2ρ)).

    The curves show shapes (slopes in n and ε); with ``constant = 1`` they are not bounds.

    Examples
    --------
    >>> a = rate("analyze_gauss", n=1000, k=3, eigengap=83.25, epsilon=1.0, delta=1e-6).value
    >>> s = rate("shuffle", n=1000, k=3, eigengap=83.25, epsilon=1.0, delta=1e-6).value
    >>> s < a
    True
    >>> sound = rate("shuffle", n=1000, k=3, eigengap=83.25, epsilon=1.0, delta=1e-6, epsilon0=1.0).value
    >>> s < sound < a  # the sound accountant's rate: no 1/n gain
    True
    """
    mechanism = check_choice(mechanism, "mechanism", ("shuffle", "analyze_gauss", "noisy_power"))
    n = check_int(n, "n", low=2)
    k = check_int(k, "k", low=1)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    c = check_positive(constant, "constant")
    eigengap = check_real(eigengap, "eigengap")
    L = check_int(iterations, "iterations", low=1)
    if max_row_norm is not None:
        max_row_norm = check_real(max_row_norm, "max_row_norm", low=0.0, high=1.0, low_open=True)
    if not eigengap > 0:
        return _bad("eigengap must be > 0")
    if mechanism == "analyze_gauss":
        norm2 = 4.0 * n * analyze_gauss_sigma(eps, delta) ** 2
    elif mechanism == "shuffle" and epsilon0 is not None:
        norm2 = 4.0 * n * rr_noise_variance(check_epsilon(epsilon0, "epsilon0"))
    elif mechanism == "shuffle":
        e_e0 = n * math.expm1(eps) ** 2 / (64.0 * math.log(4.0 / delta))
        if e_e0 <= math.exp(eps):
            return _bad("n too small: the asymptotic amplification e^eps0 = n(e^eps - 1)^2/(64 log(4/delta)) "
                        "is below e^eps")
        norm2 = 4.0 * n / e_e0
    else:
        row = max_row_norm if max_row_norm is not None else math.sqrt(k / n)
        sens = math.sqrt(2.0) * row
        norm2 = (noisy_power_sigma(eps, delta, L) * sens * (math.sqrt(n) + math.sqrt(k))) ** 2
    margin2 = (2.0 * k / n) / 4.0  # (Δ*/2)² for balanced blocks
    with np.errstate(over="ignore"):
        val = float(np.float64(c * k * norm2) / (n * np.float64(eigengap) ** 2 * margin2))
    return TheoryValue(val, True, "vacuous: above 1" if val > 1 else "")
