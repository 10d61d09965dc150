"""Theory curves for private PCA: Theorem 1.1, Theorem 1.2 (Nguyen, Ene & Nguyen 2026) and DTTZ14.

The paper's theorems are Õ(·) statements: they hide constants and log factors. Here they are drawn
as **rates with a stated constant**: ``constant`` (default 1) times the displayed expression, where
every ε² in a denominator is replaced by **2ρ(ε, δ)**, ρ = ``dp_to_zcdp(ε, δ)`` — the zCDP budget the
mechanisms actually spend (:func:`dpexplore.pca.zcdp_budget`; their Gaussian steps have noise ∝ 1/√(2ρ)),
and all other log factors are dropped. For small ε, 2ρ ≈ ε²/(2 ln(1/δ)), the classic scale
√(2 ln(2/δ))/ε up to the log's argument; for large ε, ρ grows about linearly in ε (ε = ρ + 2√(ρ ln(1/δ))),
so the rates fall about like ε⁻¹ (ε^−1.4 between ε = 50 and 100), not ε⁻². (An earlier version
used ε²/(2 ln(2/δ)) at every ε: the classic Gaussian scale, valid only for ε < 1, which put the
Thm 1.1 curve 13–132× below the measured error.) They are never fitted to measurements. Each function returns a
:class:`TheoryValue` whose ``value`` is NaN, with a ``reason``, where the theorem's conditions fail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpexplore.core.gaussian import dp_to_zcdp, gaussian_sigma
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int, check_positive, check_real

__all__ = ["TheoryValue", "theorem_1_1", "theorem_1_2", "dttz14_bound"]


@dataclass(frozen=True)
class TheoryValue:
    """A theory value for sin²(v1, x): ``value`` (NaN where conditions fail), ``reason`` (why, else ""),
    ``kind`` ("rate" or "bound", for :func:`dpexplore.ui.figures.add_theory`) and ``note`` (constants)."""

    value: float
    reason: str
    kind: str
    note: str

    @property
    def ok(self) -> bool:
        return math.isfinite(self.value)


def _privacy_scale(epsilon: float, delta: float) -> float:
    """2ρ(ε, δ): what replaces ε² in the rates (the mechanisms' zCDP budget; module docstring)."""
    return 2.0 * dp_to_zcdp(epsilon, delta)


def theorem_1_1(
    n: int,
    d: int,
    eigengap: float,
    coherence: float,
    epsilon: float,
    delta: float,
    sigma1: float,
    *,
    constant: float = 1.0,
) -> TheoryValue:
    """Theorem 1.1 (deterministic input with coherence Υ and eigengap κ), as a rate.

    sin²(v1, x) = Õ( (min{4n/σ1², d}·Υ² + σ1²Υ²/κ + d·σ1²Υ²·κ) / (ε²(σ1² − σ2²)²) ),
    with σ1² − σ2² = κσ1², drawn as ``constant`` × that with ε² → 2ρ(ε, δ) (module docstring).

    Conditions checked: n ≥ 1, d ≥ 2, κ ∈ (0, 1], Υ ∈ [1/√n, 1] (a unit vector in R^n has max entry
    ≥ 1/√n), σ1 > 0. The theorem also asks for a "large enough" eigengap whose exact form is not
    reproduced here [reconstruction].

    Examples
    --------
    >>> t = theorem_1_1(2000, 200, 0.9, 2000**-0.5, 1.0, 1e-5, 3.0)
    >>> t.kind, t.ok
    ('rate', True)
    >>> theorem_1_1(100, 20, 0.5, 0.01, 1.0, 1e-5, 1.0).reason
    'coherence must lie in [1/sqrt(n), 1] = [0.1, 1]; got 0.01'
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=2)
    kappa = check_real(eigengap, "eigengap", low=0.0, high=1.0, low_open=True)
    ups = check_positive(coherence, "coherence")
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    s1 = check_positive(sigma1, "sigma1")
    c = check_positive(constant, "constant")
    note = f"Thm 1.1, constant {c:g}, ε²→2ρ(ε,δ) (the mechanism's zCDP budget)"
    if ups < 1.0 / math.sqrt(n) * (1 - 1e-9) or ups > 1.0:
        return TheoryValue(float("nan"), f"coherence must lie in [1/sqrt(n), 1] = [{1 / math.sqrt(n):.3g}, 1]; "
                           f"got {ups:g}", "rate", note)
    s1sq = s1 * s1
    gap = kappa * s1sq
    num = min(4.0 * n / s1sq, d) * ups**2 + s1sq * ups**2 / kappa + d * s1sq * ups**2 * kappa
    return TheoryValue(c * num / (_privacy_scale(eps, delta) * gap**2), "", "rate", note)


def theorem_1_2(
    n: int,
    d: int,
    eigengap: float,
    epsilon: float,
    delta: float,
    sigma1: float,
    *,
    constant: float = 1.0,
) -> TheoryValue:
    """Theorem 1.2 (rows i.i.d. N(0, Σ²), tr Σ² ≈ 1), as a rate.

    sin²(v1, x) = Õ( d/(ε²n²σ1²κ²) + 1/(ε²n²σ1²κ³) + 1/(nσ1²κ²) + 1/(n²σ1⁴κ²) ),
    drawn as ``constant`` × that with ε² → 2ρ(ε, δ) (module docstring). The first two terms are the price of privacy
    (slope −2 in n), the last two the statistical error (slope −1, then −2).

    Condition: the sample complexity n ≥ d + 1/(εσ1²κ) (the Ω̃ drawn with constant 1); below it the
    value is NaN with the reason.

    Examples
    --------
    >>> theorem_1_2(1000, 50, 0.9, 1.0, 1e-5, 0.5).ok
    True
    >>> theorem_1_2(40, 50, 0.9, 1.0, 1e-5, 0.5).reason
    'sample-complexity condition n >= d + 1/(eps sigma1^2 kappa) = 54.4 fails (n = 40)'
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=2)
    kappa = check_real(eigengap, "eigengap", low=0.0, high=1.0, low_open=True)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    s1 = check_positive(sigma1, "sigma1")
    c = check_positive(constant, "constant")
    note = f"Thm 1.2, constant {c:g}, ε²→2ρ(ε,δ) (the mechanism's zCDP budget)"
    s1sq = s1 * s1
    need = d + 1.0 / (eps * s1sq * kappa)
    if n < need:
        return TheoryValue(float("nan"), f"sample-complexity condition n >= d + 1/(eps sigma1^2 kappa) = {need:.3g} "
                           f"fails (n = {n})", "rate", note)
    e2 = _privacy_scale(eps, delta)
    val = (d / (e2 * n**2 * s1sq * kappa**2) + 1.0 / (e2 * n**2 * s1sq * kappa**3)
           + 1.0 / (n * s1sq * kappa**2) + 1.0 / (n**2 * s1sq**2 * kappa**2))
    return TheoryValue(c * val, "", "rate", note)


def dttz14_bound(
    d: int,
    epsilon: float,
    delta: float,
    sigma1: float,
    sigma2: float,
    *,
    neighbours: str = "add-remove",
) -> TheoryValue:
    """Analyze Gauss (DTTZ14) via Davis–Kahan: sin ≤ 2‖E‖_op/(σ1² − σ2²), ‖E‖_op ≈ 2σ√d.

    σ is the exact analytic-Gaussian σ that :func:`dpexplore.pca.analyze_gauss` uses (rows of norm
    ≤ 1); ‖E‖_op ≈ 2σ√d is the Wigner-matrix norm (high probability, to leading order). Returns
    sin² ≤ (4σ√d/(σ1² − σ2²))², NaN with a reason when that is ≥ 1 (vacuous) or σ1 ≤ σ2.

    Examples
    --------
    >>> b = dttz14_bound(50, 10.0, 1e-5, 20.0, 5.0)
    >>> b.kind, round(b.value, 4)
    ('bound', 0.0014)
    """
    d = check_int(d, "d", low=1)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    s1 = check_positive(sigma1, "sigma1")
    s2 = check_positive(sigma2, "sigma2", allow_zero=True)
    neighbours = check_choice(neighbours, "neighbours", ("add-remove", "replace"))
    note = "Davis–Kahan with ‖E‖≈2σ√d"
    if s1 <= s2:
        return TheoryValue(float("nan"), "no eigengap (sigma1 <= sigma2)", "bound", note)
    sigma = gaussian_sigma(eps, delta, 1.0 if neighbours == "add-remove" else math.sqrt(2.0))
    val = (4.0 * sigma * math.sqrt(d) / (s1 * s1 - s2 * s2)) ** 2
    if val >= 1.0:
        return TheoryValue(float("nan"), f"vacuous: the bound {val:.3g} is >= 1", "bound", note)
    return TheoryValue(val, "", "bound", note)
