"""Auditing private ERM: worst-case neighbours, broken variants, exact and statistical audits.

No output density of these mechanisms is tractable in general, so the audits run on a **small
audit problem in dimension d = 1** (a few examples, least squares, λ and the box chosen so the
output law can be written down). There the mechanisms' outputs are monotone functions of one
random scalar (LOP: the linear noise b; QOP: W = GGᵀ ~ χ²_m), which gives both an **exact ε of
the pair** and the likelihood-ratio-optimal score for the **statistical audit** (the projection of
θ_priv on the direction the changed example pushes the solution — in d = 1, θ itself).
The statistical audit runs the package's own calibration and solver (:func:`~.solvers.davis_yin`,
batched over all runs) — the ``solver="deterministic"`` path of :func:`~.mechanisms.lop`,
:func:`~.mechanisms.lop_clipped` and :func:`~.mechanisms.qop`.

Neighbouring data sets: **replace one example** (x_i, y_i) by another, keeping n — the relation
of the Kifer–Smith–Thakurta proof (its sensitivity 2ζ is a replacement's gradient difference) and,
on our reading, of QOP's curvature argument [reconstruction].

Worst-case pairs (why they are the hardest we know)
---------------------------------------------------
* **LOP** (:func:`lop_worst_case_pair`): the privacy proof bounds the change of the perturbed
  gradient by 2ζ (ζ = the per-example gradient bound over the box). A changed example with a tiny
  feature x and a huge label ±y has gradient x(xθ ∓ y) ≈ ∓ζ on the *whole* box (norm exactly ζ at
  the corner), so the replacement moves the linear term by 2x|y| ≈ 2ζ while leaving the curvature
  unchanged: the output is the Gaussian mechanism with sensitivity 2ζ/(S + Δ) and noise σ_b/(S + Δ)
  — the Gaussian half of the proof is attained. (The Jacobian half, ε/2 from Δ = 2L/ε, is not
  exercised by this pair; see "Measured" below.)
* **clipped LOP**: the same pair; clipping makes the gradient ±ζ exactly.
* **QOP, exact anchor** (:func:`qop_worst_case_pair`): in the interpolation regime every loss is
  minimised at θ*, so with θ̃ = θ* the data enter only through the **curvature** S = Σx_i² (and the
  ℓ1 term λ‖θ‖₁ makes the output depend on it: θ = θ* − λ sign(θ*)/(S + σ²W)). Replacing a
  zero-feature example by one with x² = L (the largest curvature change allowed) shifts S + σ²W by
  L, i.e. W by c = L/σ²: the pair's laws are χ²_m and χ²_m + c — the λ_min(W) argument of the
  paper's calibration (P(λ_min < α) ≤ δ3, the gap α1). **Why it is hard, and why m = 2**: for
  m = 2 (the paper's m = 2d at d = 1) the density of W is e^{−w/2}/2, *positive at 0*; shifting it
  by c leaves the interval W < c — outputs θ < θ* − λ/(nL) — reachable on D0 and impossible on D1.
  On that region the privacy loss is infinite, everywhere else it is the constant c/2. So the pair
  is (0, δ)-DP when its mass 1 − e^{−c/2} is ≤ δ and not DP at all otherwise: it turns the lower
  tail of λ_min(W) — exactly what σ² is calibrated against — into a yes/no event that the audit
  counts, and the likelihood-ratio test is the indicator of that region (the score
  :func:`audit_qop` uses). In d ≥ 2 the same support argument holds with (uᵀW⁻¹u)⁻¹ ~ χ²_{m−d+1},
  but the release (d numbers from a d(d+1)/2-dimensional W) smears it, and a larger m makes the
  density vanish at 0 (like w^{m/2−1}): d = 1, m = 2 is the sharpest pair we know.
* **QOP, inexact anchor** (:func:`qop_anchor_pair`): θ̃ ≠ θ*, λ = 0, every untouched example has
  zero features. On D0 the output is θ̃ exactly; on D1 it is θ̃ + L(θ* − θ̃)/(L + σ²W) ≠ θ̃: the two
  output laws have disjoint supports, so :func:`~.mechanisms.qop` (exact solve, calibrated without
  η) is **not** (ε, δ)-DP for any ε when the anchor is not exact: the exact ε of this pair is ∞.
  Attribution: the paper does **not** claim otherwise — its exact-solve guarantee is for τ = η = 0,
  and :func:`~.mechanisms.qop_inexact` (output noise for τ and η) is its answer for an inexact
  anchor — but the paper's **F2 experiment** runs exactly this uncovered setting (exact-solve QOP,
  anchor θ_true + 0.1·N(0, I)). The statistical ε̂ on this pair (≈ 9.5 at 10⁵ runs, claim 2) is the
  audit's **run-count ceiling** — zero errors in 10⁵ runs, the largest ε a 95% Clopper–Pearson
  bound can show at that count — not a measured size of the leak; the exact value, ∞, is the
  result. On the **non-degenerate** pair :func:`qop_anchor_scale_pair` (n = 2, curvature L vs 2L,
  equal supports) the exact ε is finite and independent of σ² and η: ln(1/(4δ)) = 3.22 at δ = 0.01
  for m = 2 (:func:`qop_anchor_scale_pair_exact_epsilon`), and :func:`audit_qop_anchor_scale_pair`
  measures ε̂ = 2.1–2.9 > 2 at 10⁵ runs (seeds 0–9) — a measured leak, not a ceiling.
  :func:`~.mechanisms.qop_inexact` is **not** refuted on the degenerate pair (ε̂ = 0, exact ε
  of the pair 0; its σ̃ is calibrated to the worst-case move 2βη/α).

Broken variants (teaching only, never defaults)
-----------------------------------------------
:func:`broken_lop` (σ_b halved — the "objective perturbation off by a factor of 2" bug class);
:func:`broken_qop_sigma2` with ``bug="sigma_for_sigma2"`` (its default and the dashboard's broken
QOP: the standard deviation σ = √σ² used where the variance σ² belongs, a weight ≈ 32 times too
small at ε = 2, δ = 0.01). They report the correct mechanism's ε. Smaller calibration bugs (σ²
halved, or the λ_min quantile α taken at 10·δ3) were tried and dropped: they hide inside the
calibration's slack (their exact ε on the worst pair we know stays below the claim), so no audit
on that pair can refute them — an audit refutes, it never certifies.

Measured (tests/erm/test_audit.py; ε = 2, δ = 0.01, 100 000 runs per input, 95% confidence)
-----------------------------------------------------------------------------------------
* QOP, exact anchor (m = 2): c = L/σ² ≈ 1.0e-3, D0-only mass 0.05% < δ: exact ε of the pair 0,
  ε̂ = 0. The broken σ-for-σ²: c ≈ 0.032, D0-only mass 1.57% > δ: exact ε ``inf``, ε̂ ≈ 4.0–4.3
  over seeds. The σ-for-σ² bug is refutable on this pair only where its D0-only mass
  1 − exp(−L/(2√σ²)) exceeds δ with a margin: at δ = 0.01, ε̂ ≈ 3.6 at ε = 1.5, ≈ 4.7 at ε = 3;
  at ε = 1 (mass 1.11%) ε̂ ≈ 1.0–1.1, on the edge; at ε = 0.5 (mass 0.79% < δ) the pair is
  (0, δ)-DP and ε̂ = 0.
* σ² halved or α at 10·δ3 (not shipped) leave the D0-only mass below δ: exact ε on the pair ≤ the
  claim, and no run budget refutes them there.
* LOP: the broken variant is refuted at ε ≳ 1.5; at small ε (e.g. 0.5 with δ = 0.01) KST's
  calibration has so much slack that even halved noise is still (ε, δ)-DP on the worst pair (its
  exact ε is reported).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dpexplore.core import RNGLike, as_generator
from dpexplore.core.audit import PairAudit, check_audit_args, sampled_audit
from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.core.validation import (
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive,
    check_probability,
)

from .audit_pairs import (
    QOP_BUGS,
    QOP_INEXACT_BUGS,
    broken_lop,
    broken_qop_output_sigma,
    broken_qop_sigma2,
    lop_pair_exact_epsilon,
    lop_worst_case_pair,
    qop_anchor_pair,
    qop_anchor_scale_pair,
    qop_anchor_scale_pair_exact_epsilon,
    qop_inexact_pair_exact_epsilon,
    qop_pair_exact_epsilon,
    qop_worst_case_pair,
)
from .calibration import ALPHA1_VARIANTS, lop_noise_scale, lop_regularization, qop_sigma2
from .mechanisms.perturbation import _qop_inexact_setup, _wishart
from .solvers import davis_yin

__all__ = [
    "ERMAudit",
    "AUDIT_MECHANISMS",
    "lop_worst_case_pair",
    "qop_worst_case_pair",
    "qop_anchor_pair",
    "broken_lop",
    "broken_qop_sigma2",
    "lop_pair_exact_epsilon",
    "qop_pair_exact_epsilon",
    "audit_lop",
    "audit_qop",
    "broken_qop_output_sigma",
    "qop_inexact_pair_exact_epsilon",
    "audit_qop_inexact",
    "audit_erm",
]

#: mechanisms :func:`audit_erm` knows
AUDIT_MECHANISMS = ("LOP", "clipped LOP", "QOP", "QOP inexact anchor", "qop_inexact")
NEIGHBOURS = "replace one example (x_i, y_i), n fixed"
_MAX_RUNS = 2_000_000


@dataclass(frozen=True)
class ERMAudit(PairAudit):
    """Result of an ERM audit (independent of the dashboard kit): the fields of
    :class:`~dpexplore.core.audit.PairAudit` and ``details``.

    ``claimed_epsilon, delta`` are the mechanism's claim (ε, δ); ``exact_epsilon`` comes from the
    d = 1 output law; the statistical score is θ·direction (larger suggests D1).

    Attributes
    ----------
    details : dict
        Noise scales, pair constants, seconds, ...
    """

    details: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# audit runners
# ---------------------------------------------------------------------------------------------
def _check_bug(broken, bugs: tuple[str, ...]) -> str | bool:
    """``broken`` as False or the name of one of ``bugs`` (True means the first)."""
    if broken is True:
        return bugs[0]
    return broken if broken is False else check_choice(broken, "broken", bugs)


def audit_lop(
    *, epsilon: float, delta: float, clipped: bool = False, broken: bool = False, runs: int = 40_000,
    grad_bound: float = 1.0, smoothness: float = 1.0, radius: float = 100.0, n: int = 5,
    confidence: float = 0.95, rng: RNGLike = None, progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 20_000,
) -> ERMAudit:
    """Audit LOP (or clipped LOP) on :func:`lop_worst_case_pair`: exact ε and a statistical ε̂.

    Each run draws LOP's noise b ~ N(0, σ_b²) (σ_b/2 if ``broken``) with the package's calibration
    (:func:`~dpexplore.erm.lop_regularization`, :func:`~dpexplore.erm.lop_noise_scale`) and solves
    the perturbed problem with the batched deterministic solver (λ = 0); the score is −θ (the
    changed example pushes θ down in D1). Clipped LOP clips every gradient to ζ (the changed
    label is then made huge: its gradient is exactly ∓ζ on the whole box).

    Parameters
    ----------
    epsilon, delta : float
        The claim under audit (the audit tests (ε, δ) at this δ).
    clipped, broken : bool
    runs : int
        Runs per input (half choose the test's threshold, half evaluate it).
    grad_bound, smoothness, radius, n : float, float, float, int
        Public ζ, L, the box radius κ and the data-set size of the audit problem.
    confidence : float
    rng : Generator, int or None
    progress : callable, optional
        ``progress(done, runs)`` after every chunk; return False to cancel.

    Returns
    -------
    ERMAudit

    Examples
    --------
    >>> a = audit_lop(epsilon=2.0, delta=0.01, runs=2000, rng=0)
    >>> round(a.exact_epsilon, 3), a.violation
    (1.064, False)
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    clipped = check_bool(clipped, "clipped")
    broken = check_bool(broken, "broken")
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=_MAX_RUNS)
    gen = as_generator(rng)
    zeta = check_positive(grad_bound, "grad_bound")
    L = check_positive(smoothness, "smoothness")
    X0, y0, X1, y1, shift = lop_worst_case_pair(grad_bound=zeta, radius=radius, n=n)
    kappa = float(radius)
    if clipped:  # the label can be anything: clipping caps the gradient at ζ; make it saturate on the box
        x = X0[-1, 0]
        y0[-1], y1[-1] = 10.0 * (zeta / x + x * kappa), -10.0 * (zeta / x + x * kappa)
        shift = 2.0 * zeta
    Delta = lop_regularization(eps, L)
    sig = lop_noise_scale(eps, dl, zeta) * (0.5 if broken else 1.0)
    nn = X0.shape[0]
    step = 1.0 / (nn * L + Delta)
    clip = zeta if clipped else None

    def sample(B, g=gen):
        out = []
        for X, y in ((X0, y0), (X1, y1)):
            b = sig * g.standard_normal((B, 1))
            th = davis_yin(X, y, lam=0.0, radius=np.full(B, kappa), quad=np.full(B, Delta), lin=b,
                           clip=None if clip is None else np.full(B, clip), step=np.full(B, step),
                           max_iter=5000, tol=1e-12).theta[:, 0]
            out.append(-th)
        return out[0], out[1]

    t0 = time.perf_counter()
    name = ("BROKEN (σ_b halved) " if broken else "") + ("clipped LOP" if clipped else "LOP")
    st = sampled_audit(sample, runs, delta=dl, confidence=conf, claimed_epsilon=eps, chunk=chunk, progress=progress,
                       started=t0)
    a = nn * X0[0, 0] ** 2 + Delta
    clip_mass = 2 * float(stats.norm.sf((kappa - shift / (2 * a)) * a / sig))
    exact = lop_pair_exact_epsilon(shift, sig, dl)
    return ERMAudit(
        mechanism=name, claimed_epsilon=eps, delta=dl, exact_epsilon=exact, statistical=st, broken=broken,
        neighbours=(f"{NEIGHBOURS}: d = 1, n = {nn}, x = {X0[0, 0]:g}; the changed label ±y moves the linear term "
                    f"by {shift:.3g} ≈ 2ζ (ζ = {zeta:g}, κ = {kappa:g}, L = {L:g})"),
        details={"noise_sigma": sig, "Delta": Delta, "shift": shift, "clip_mass": clip_mass,
                 "mu": shift / sig})


def _qop_solve(X, y, anchor, s2, W, lam, kappa):
    B = W.shape[0]
    return davis_yin(X, y, lam=lam, radius=np.full(B, kappa), quad=s2 * W, lin=-s2 * W[:, :, 0] * anchor,
                     max_iter=5000, tol=1e-13).theta[:, 0]


def audit_qop(
    *, epsilon: float, delta: float, broken: str | bool = False, anchor_error: float = 0.0, runs: int = 40_000,
    m: int = 2, smoothness: float = 1.0, n: int = 5, lam: float = 1.0, delta3_share: float = 0.5,
    alpha1: str = "reference", confidence: float = 0.95, rng: RNGLike = None,
    progress: Callable[[int, int], bool | None] | None = None, chunk: int = 20_000,
) -> ERMAudit:
    """Audit QOP (exact solve, d = 1) on its worst pair: exact ε of the pair and a statistical ε̂.

    ``anchor_error = 0`` (default): θ̃ = θ*, pair :func:`qop_worst_case_pair`, ℓ1 weight ``lam``;
    the score is θ (a larger curvature pulls θ towards θ* = 1) — for m = 2 clamped at the edge
    θ* − λ/(nL) of D1's support, which makes it the likelihood-ratio test (module docstring) — and
    the exact ε is :func:`qop_pair_exact_epsilon` with c = L/σ² (``details["exclusive_mass"]`` is the
    mass P(χ²_m < c) that only D0 can produce; the pair is not DP at all when it exceeds δ).
    ``anchor_error = η > 0``: θ̃ = θ* − η, pair :func:`qop_anchor_pair`, λ = 0; the score is
    |θ − θ̃| and the exact ε is ``inf`` (disjoint supports): exact-solve QOP with an inexact anchor —
    a setting the paper's exact-solve guarantee (τ = η = 0) does not cover, but its F2 experiment
    runs — is not DP for any ε. ε̂ is then capped by the run count (≈ 9.5 at 10⁵ runs), a ceiling.

    Parameters
    ----------
    broken : False, True or one of :data:`QOP_BUGS`
        Use :func:`broken_qop_sigma2` (True means its default, "sigma_for_sigma2").
    m : int
        Wishart degrees of freedom (W ~ χ²_m in d = 1).
    Other parameters as in :func:`audit_lop` and :func:`~dpexplore.erm.qop`.

    Returns
    -------
    ERMAudit

    Examples
    --------
    >>> a = audit_qop(epsilon=2.0, delta=0.01, runs=2000, rng=0)
    >>> a.exact_epsilon < 0.01, a.violation
    (True, False)
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    broken = _check_bug(broken, QOP_BUGS)
    eta = check_positive(anchor_error, "anchor_error", allow_zero=True)
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=_MAX_RUNS)
    gen = as_generator(rng)
    m = check_int(m, "m", low=1, high=1000)
    L = check_positive(smoothness, "smoothness")
    lam = check_positive(lam, "lam", allow_zero=True)
    share = check_probability(delta3_share, "delta3_share", open_low=True, open_high=True)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    d3 = dl * share
    d1 = dl - d3
    if broken:
        s2 = broken_qop_sigma2(eps, d1, d3, L=L, d=1, m=m, alpha1=alpha1, bug=broken)
    else:
        s2 = qop_sigma2(eps, d1, d3, L=L, d=1, m=m, alpha1=alpha1)
    if not math.isfinite(s2):
        raise ValueError(f"QOP calibration undefined for d=1, m={m}, delta={dl:g}: increase m or delta")
    kappa = 10.0
    theta_star = 1.0
    if eta > 0:
        X0, y0, X1, y1 = qop_anchor_pair(smoothness=L, n=n, theta_star=theta_star)
        anchor, lam_used = theta_star - eta, 0.0
        pair = (f"{NEIGHBOURS}: d = 1, n = {X0.shape[0]}, untouched rows x = 0; the changed row is 0 or √L "
                f"(L = {L:g}); anchor θ̃ = θ* − {eta:g}, λ = 0")
    else:
        X0, y0, X1, y1 = qop_worst_case_pair(smoothness=L, n=n, theta_star=theta_star)
        anchor, lam_used = theta_star, lam
        pair = (f"{NEIGHBOURS}: d = 1, n = {X0.shape[0]}, rows x = √L (L = {L:g}) except the changed one, 0 or √L "
                f"(curvature change L); exact anchor θ̃ = θ*, λ = {lam:g}")

    # m = 2, exact anchor: W ~ χ²_2 has density e^{−w/2}/2, so W versus W + c (c = L/σ²) has likelihood
    # ratio e^{c/2} for W ≥ c and 0 below; in θ = θ* − λ/(S + σ²W) that region is θ < edge = θ* − λ/(nL),
    # reachable on D0 only. The likelihood-ratio test is the indicator of it: the score min(θ, edge′)
    # puts every D1 output on one atom (edge′ a hair below the edge, so that solver rounding never
    # moves a D1 output under it) and leaves a threshold exactly at that atom to the test.
    n_rows = X0.shape[0]
    edge = theta_star - lam_used / (n_rows * L) - 1e-9 if (eta == 0 and m == 2 and lam_used > 0) else None

    def sample(B, g=gen):
        out = []
        for X, y in ((X0, y0), (X1, y1)):
            W = _wishart(1, m, B, g)  # step 1 of QOP, W ~ χ²_m
            th = _qop_solve(X, y, anchor, s2, W, lam_used, kappa)
            if eta > 0:
                out.append(np.abs(th - anchor))
            else:
                out.append(th if edge is None else np.minimum(th, edge))
        return out[0], out[1]

    t0 = time.perf_counter()
    st = sampled_audit(sample, runs, delta=dl, confidence=conf, claimed_epsilon=eps, chunk=chunk, progress=progress,
                       started=t0)
    c = L / s2
    exact = math.inf if eta > 0 else qop_pair_exact_epsilon(c, m, dl)
    label = {False: "", "sigma_for_sigma2": "BROKEN (σ used for σ²) "}[broken]
    name = label + ("QOP exact solve with an inexact anchor" if eta > 0 else "QOP (exact solve, exact anchor)")
    return ERMAudit(mechanism=name, neighbours=pair, claimed_epsilon=eps, delta=dl, exact_epsilon=exact,
                    statistical=st, broken=bool(broken),
                    details={"sigma2": s2, "c": c, "m": m, "anchor_error": eta, "edge": edge,
                             "exclusive_mass": float(stats.chi2.cdf(c, m)) if eta == 0 else math.nan})


def audit_qop_inexact(
    *, epsilon: float, delta: float, broken: str | bool = False, anchor_error: float = 0.1, tau: float = 1e-12,
    runs: int = 40_000, m: int = 2, smoothness: float = 1.0, n: int = 5, epsilon1_share: float = 0.8,
    delta_shares=(0.4, 0.2, 0.2, 0.2), alpha1: str = "reference", calibration: str = "analytic",
    confidence: float = 0.95, rng: RNGLike = None, progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 20_000,
) -> ERMAudit:
    """Audit :func:`~dpexplore.erm.qop_inexact` (inexact anchor, output noise) on :func:`qop_anchor_pair`.

    The pair: d = 1, λ = 0, every untouched row (0, 0); the changed row is (0, 0) in D0 and
    (√L, √L·θ*) in D1; anchor θ̃ = θ* − η with the declared accuracy η = ``anchor_error`` (true).
    Each run draws W ~ χ²_m, solves the perturbed problem with the package's batched deterministic
    solver and adds N(0, σ̃²) with σ̃ from ``qop_inexact``'s own calibration
    (:func:`~dpexplore.erm.mechanisms.qop_inexact` → ``_qop_inexact_setup``), or from
    :func:`broken_qop_output_sigma` if ``broken``. Score: the release minus θ̃ (D1 is pushed towards
    θ*); a threshold on it is the likelihood-ratio test (:func:`qop_inexact_pair_exact_epsilon`).

    **Why this pair, and why the correct mechanism is far below its claim.** η only enters through
    the anchor: the release moves by s = Lη/(L + σ²W) when one example adds curvature L, which is
    largest when the rest of the data has no curvature (all-zero rows: D0 returns θ̃ itself) — the
    anchor pair. But ``qop_inexact`` pays for η through the worst-case bound 2βη/α (β ≈ λ_max, α ≈
    λ_min quantile of W): between that and the largest real move η·L/(L + σ²α) sits a factor ≈
    2σ²β/L (≈ 10⁵ here) of slack. So no pair we know gets near the claim: the exact ε of the pair is
    0 and ε̂ = 0. What an audit *can* catch is a gross bug — the η term dropped altogether — whose
    noise σ̃_τ covers only the solver's τ. The audit declares τ = 10⁻¹² by default: on this d = 1
    problem the solver's suboptimality is below 10⁻²⁰ (``tests/erm/test_audit.py`` checks it against
    the closed form), so the declaration is true. With a large declared τ the τ-noise alone covers
    the anchor's move and the bug hides (e.g. τ = 10⁻⁶ at η = 0.1).

    Parameters
    ----------
    broken : False, True or one of :data:`QOP_INEXACT_BUGS`
    anchor_error : float
        η > 0, the anchor error (declared and true).
    tau : float
        Declared solver accuracy τ ≥ 0.
    Other parameters as in :func:`audit_qop` and :func:`~dpexplore.erm.qop_inexact`.

    Returns
    -------
    ERMAudit
        ``exact_epsilon`` from :func:`qop_inexact_pair_exact_epsilon`; ``details`` has σ², σ̃, α, β,
        the largest move η, ``epsilon_upper`` = gdp_epsilon(η/σ̃, δ) (a proven bound for the pair).

    Examples
    --------
    >>> a = audit_qop_inexact(epsilon=2.0, delta=0.01, runs=2000, rng=0)
    >>> a.exact_epsilon, a.violation, a.details["epsilon_upper"] < 1e-3
    (0.0, False, True)
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    broken = _check_bug(broken, QOP_INEXACT_BUGS)
    eta = check_positive(anchor_error, "anchor_error")
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=_MAX_RUNS)
    gen = as_generator(rng)
    m = check_int(m, "m", low=1, high=1000)
    L = check_positive(smoothness, "smoothness")
    cal = _qop_inexact_setup(1, eps, dl, L, tau, eta, epsilon1_share, delta_shares, m, alpha1, 1.0, calibration)
    s2, alpha, beta, split = cal["sigma2"], cal["alpha"], cal["beta"], cal["split"]
    sig = cal["output_sigma"]
    if broken:
        sig = broken_qop_output_sigma(cal["tau"], eta, epsilon2=split["epsilon2"], delta2=split["delta2"], alpha=alpha,
                                      sigma2=s2, beta=beta, calibration=cal["calibration"], bug=broken)
    kappa, theta_star = 10.0, 1.0
    X0, y0, X1, y1 = qop_anchor_pair(smoothness=L, n=n, theta_star=theta_star)
    anchor = theta_star - eta

    def sample(B, g=gen):
        out = []
        for X, y in ((X0, y0), (X1, y1)):
            W = _wishart(1, m, B, g)  # step 1 of QOP, W ~ χ²_m
            th = _qop_solve(X, y, anchor, s2, W, 0.0, kappa)  # deterministic solve (λ = 0)
            released = th + sig * g.standard_normal(B)  # Gaussian output noise σ̃
            out.append(released - anchor)
        return out[0], out[1]

    t0 = time.perf_counter()
    st = sampled_audit(sample, runs, delta=dl, confidence=conf, claimed_epsilon=eps, chunk=chunk, progress=progress,
                       started=t0)
    exact = qop_inexact_pair_exact_epsilon(eta=eta, smoothness=L, sigma2=s2, m=m, output_sigma=sig, delta=dl)
    upper = math.inf if sig == 0 else gdp_epsilon(eta / sig, dl)
    label = {False: "", "anchor_term_dropped": "BROKEN (anchor term βη/α dropped from σ̃) "}[broken]
    pair = (f"{NEIGHBOURS}: d = 1, n = {X0.shape[0]}, untouched rows x = 0; the changed row is 0 or √L (L = {L:g}); "
            f"anchor θ̃ = θ* − {eta:g} (declared η = {eta:g}, τ = {cal['tau']:g}), λ = 0, m = {m}")
    return ERMAudit(mechanism=label + "qop_inexact (inexact anchor, output noise)", neighbours=pair,
                    claimed_epsilon=eps, delta=dl, exact_epsilon=exact, statistical=st, broken=bool(broken),
                    details={"sigma2": s2, "output_sigma": sig, "correct_output_sigma": cal["output_sigma"],
                             "alpha": alpha, "beta": beta, "tau": cal["tau"], "anchor_error": eta, "m": m,
                             "max_shift": eta, "epsilon_upper": upper, "split": split})


def audit_erm(mechanism: str, *, epsilon: float, delta: float, broken: bool = False, runs: int = 40_000,
              rng: RNGLike = None, progress=None, confidence: float = 0.95, anchor_error: float = 0.1) -> ERMAudit:
    """One entry point for the dashboard: ``mechanism`` in :data:`AUDIT_MECHANISMS`.

    "QOP inexact anchor" audits :func:`~dpexplore.erm.qop` (exact solve) with θ̃ = θ* − ``anchor_error``;
    "qop_inexact" audits :func:`~dpexplore.erm.qop_inexact` with that anchor error declared
    (:func:`audit_qop_inexact`; ``broken`` drops the anchor term from its output noise).

    Examples
    --------
    >>> audit_erm("LOP", epsilon=2.0, delta=0.01, runs=200, rng=0).mechanism
    'LOP'
    """
    mech = check_choice(mechanism, "mechanism", AUDIT_MECHANISMS)
    kw = dict(epsilon=epsilon, delta=delta, runs=runs, rng=rng, progress=progress, confidence=confidence)
    if mech in ("LOP", "clipped LOP"):
        return audit_lop(clipped=mech == "clipped LOP", broken=broken, **kw)
    if mech == "QOP":
        return audit_qop(broken=broken, **kw)
    eta = check_positive(anchor_error, "anchor_error")
    if mech == "qop_inexact":
        return audit_qop_inexact(broken=broken, anchor_error=eta, **kw)
    return audit_qop(broken=broken, anchor_error=eta, **kw)


# ---------------------------------------------------------------------------------------------
# the audit of the non-degenerate pair for exact-solve QOP with an inexact anchor (issue 15)
# ---------------------------------------------------------------------------------------------
def audit_qop_anchor_scale_pair(
    *, epsilon: float, delta: float, anchor_error: float = 0.1, runs: int = 40_000, m: int = 2,
    smoothness: float = 1.0, delta3_share: float = 0.5, alpha1: str = "reference", confidence: float = 0.95,
    rng: RNGLike = None, progress: Callable[[int, int], bool | None] | None = None, chunk: int = 20_000,
) -> ERMAudit:
    """Audit exact-solve QOP with an inexact anchor on the non-degenerate pair :func:`qop_anchor_scale_pair`.

    The package's own calibration (``qop_sigma2``) and deterministic solver run on both data sets;
    the score is V̂ = σ²W/S recovered from the release, i.e. ``(θ* − θ)/(θ − θ̃)``, which is monotone
    in the likelihood ratio. ``exact_epsilon`` from :func:`qop_anchor_scale_pair_exact_epsilon`.
    Measured (ε = 2, δ = 0.01, m = 2, 100 000 runs per input; tests/erm/test_audit.py): exact ε 3.22,
    ε̂ = 2.10, 2.66, 2.61 for seeds 0, 1, 2 — a measured leak above the claim, not a run-count ceiling.
    Attribution: exact-solve QOP with an inexact anchor is not covered by the paper's exact-solve
    guarantee (τ = η = 0); its F2 experiment runs it.

    Examples
    --------
    >>> a = audit_qop_anchor_scale_pair(epsilon=2.0, delta=0.01, runs=2000, rng=0)
    >>> round(a.exact_epsilon, 2), a.exact_epsilon > a.claimed_epsilon
    (3.22, True)
    """
    eps = check_epsilon(epsilon)
    eta = check_positive(anchor_error, "anchor_error")
    dl = check_delta(delta)
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress, max_runs=_MAX_RUNS)
    gen = as_generator(rng)
    m = check_int(m, "m", low=1, high=1000)
    L = check_positive(smoothness, "smoothness")
    share = check_probability(delta3_share, "delta3_share", open_low=True, open_high=True)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    s2 = qop_sigma2(eps, dl * (1 - share), dl * share, L=L, d=1, m=m, alpha1=alpha1)
    if not math.isfinite(s2):
        raise ValueError(f"QOP calibration undefined for d=1, m={m}, delta={dl:g}: increase m or delta")
    theta_star = 1.0
    anchor = theta_star - eta
    X0, y0, X1, y1 = qop_anchor_scale_pair(smoothness=L, theta_star=theta_star)

    def sample(B, g=gen):
        out = []
        for X, y in ((X0, y0), (X1, y1)):
            W = _wishart(1, m, B, g)  # step 1 of QOP, W ~ χ²_m
            th = _qop_solve(X, y, anchor, s2, W, 0.0, 10.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(-np.log((theta_star - th) / (th - anchor)))  # −log V̂: larger on D1 (V halved)
        return out[0], out[1]

    t0 = time.perf_counter()
    st = sampled_audit(sample, runs, delta=dl, confidence=conf, claimed_epsilon=eps, chunk=chunk, progress=progress,
                       started=t0)
    pair = (f"{NEIGHBOURS}: d = 1, n = 2, λ = 0, anchor θ̃ = θ* − {eta:g}; D0 = {{(√L, √Lθ*), (0, 0)}}, "
            f"D1 = {{(√L, √Lθ*), (√L, √Lθ*)}} (L = {L:g}): curvature L vs 2L, same support")
    return ERMAudit(mechanism="QOP exact solve with an inexact anchor (non-degenerate pair)", neighbours=pair,
                    claimed_epsilon=eps, delta=dl, exact_epsilon=qop_anchor_scale_pair_exact_epsilon(m, dl),
                    statistical=st, broken=False, details={"sigma2": s2, "m": m, "anchor_error": eta})
