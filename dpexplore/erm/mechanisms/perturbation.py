"""The private ERM mechanisms themselves: QOP (exact and inexact solves), LOP and clipped LOP, their shared
validation and noise draws, and :class:`ERMResult`. The public bounds they calibrate to are described in
:mod:`dpexplore.erm.mechanisms`; the sweeps over these mechanisms are in :mod:`dpexplore.erm.mechanisms.sweeps`.

.. warning:: NumPy's generator is not cryptographically secure: teaching only.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from dpexplore.core import RNGLike, as_generator
from dpexplore.core.validation import (
    check_bool,
    check_cells,
    check_choice,
    check_delta,
    check_int,
    check_positive,
    check_probability,
    check_real,
    check_vector,
)

from ..calibration import (
    ALPHA1_VARIANTS,
    MAX_M,
    QOP_INEXACT_DEFAULT_TAU,
    lop_noise_scale,
    lop_regularization,
    qop_beta,
    qop_inexact_tau_floor,
    qop_optimal_delta3_share,
    qop_output_sigma,
    qop_sigma2,
    wishart_alpha,
    wishart_alpha1,
)
from ..problems import MAX_SCALE, box_gradient_bound, check_problem, clip_examples, interpolation_label_bound
from ..solvers import MAX_ITERATIONS, davis_yin, prox_gradient_certificate, stochastic_tos

__all__ = ["ERMResult", "UncertifiedReleaseError", "qop", "qop_inexact", "lop", "lop_clipped", "SOLVERS",
           "MAX_EPSILON", "MAX_M", "MAX_TRIALS", "MAX_WISHART_CELLS"]

SOLVERS = ("stochastic", "deterministic")
#: Largest ε of the mechanisms (beyond it 4ε and the noise calibrations are not representable;
#: the tests' "no noise" limit uses 1e14).
MAX_EPSILON = 1e15
#: Largest ``trials`` of the sweeps (``compare_mechanisms``, ``qop_risk_sweep``, ``qop_inexact_risk_sweep``).
MAX_TRIALS = 1_000
#: Largest B·d·m of QOP's batch of Wishart factors G (memory: 400 MB of float64).
MAX_WISHART_CELLS = 50_000_000


class UncertifiedReleaseError(RuntimeError):
    """:func:`qop_inexact` could not certify the declared solver accuracy τ, so it released nothing.

    The (ε, δ) guarantee of the inexact solve needs a τ-accurate point; a point whose certified
    suboptimality exceeds τ is not covered, so no result (and no ε) is returned. Attributes
    ``certified`` (the proven suboptimality bound) and ``tau`` (the declaration).
    """

    def __init__(self, certified: float, tau: float):
        self.certified, self.tau = float(certified), float(tau)
        super().__init__(
            f"qop_inexact: the solver's certified suboptimality {self.certified:.3g} exceeds the declared tau = "
            f"{self.tau:.3g}, so the (epsilon, delta) guarantee would not hold: nothing was released; increase "
            "max_iter or declare a larger tau (tau='auto' picks one double precision can certify)")


@dataclass(frozen=True)
class ERMResult:
    """Output of a private ERM mechanism.

    Attributes
    ----------
    theta : ndarray, shape (d,)
        The released parameter.
    epsilon, delta : float
        Privacy actually spent.
    mechanism : str
    split : dict
        How (ε, δ) is split (e.g. ``{"epsilon1": ..., "delta1": ..., "delta3": ...}``).
    diagnostics : dict
        Noise scales, step, Wishart spectrum, solver iterations, ...
    """

    theta: np.ndarray
    epsilon: float
    delta: float
    mechanism: str
    split: dict = field(default_factory=dict)
    diagnostics: dict = field(default_factory=dict)


def _common(X, y, epsilon, delta, lam, radius, feature_bound, smoothness, solver, iterations):
    """Validate the shared arguments; clip rows to the public ``feature_bound``; public L (never from the data)."""
    X, y = check_problem(X, y)
    eps = check_real(epsilon, "epsilon", low=0.0, low_open=True, high=MAX_EPSILON)
    dl = check_delta(delta)
    lam = check_real(lam, "lam", low=0.0)
    kappa = check_real(radius, "radius", low=0.0, low_open=True, high=MAX_SCALE)
    xi = check_real(feature_bound, "feature_bound", low=0.0, low_open=True, high=MAX_SCALE)
    X, y = clip_examples(X, y, feature_bound=xi)  # per-row, data-independent: keeps DP and interpolation
    L = xi * xi  # Hessian x xᵀ of a row with ‖x‖ ≤ ξ has norm ≤ ξ²
    if smoothness is not None:
        Ls = check_positive(smoothness, "smoothness")
        if Ls < L * (1 - 1e-12):
            raise ValueError(f"smoothness must be >= feature_bound**2 = {L!r} (rows of norm feature_bound have that "
                             f"curvature); got {Ls!r}")
        L = Ls
    solver = check_choice(solver, "solver", SOLVERS)
    K = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    return X, y, eps, dl, lam, kappa, L, solver, K, xi


def _solve(X, y, *, lam, radius, quad, lin, clip, step, solver, K, gen):
    if solver == "stochastic":
        return stochastic_tos(X, y, lam=lam, radius=radius, step=step, iterations=K, quad=quad, lin=lin, clip=clip,
                              rng=gen)
    return davis_yin(X, y, lam=lam, radius=radius, quad=quad, lin=lin, clip=clip, max_iter=max(K, 1), tol=1e-10)


def _wishart(d: int, m: int, B: int, gen: np.random.Generator) -> np.ndarray:
    """B Wishart matrices W = G Gᵀ, G ∈ R^{d×m} i.i.d. N(0, 1) (step 1 of QOP)."""
    check_cells(MAX_WISHART_CELLS, batch=B, d=d, m=m)  # before drawing G
    G = gen.standard_normal((B, d, m))
    return G @ np.swapaxes(G, 1, 2)


def _qop_setup(d, eps, dl, L, m, delta3_share, alpha1, rho):
    m = 2 * d if m is None else check_int(m, "m", low=d, high=MAX_M)
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    rho = check_positive(rho, "rho")
    if isinstance(delta3_share, str):
        if delta3_share != "optimal":
            raise ValueError(f"delta3_share must be a number in (0, 1) or 'optimal'; got {delta3_share!r}")
        share = qop_optimal_delta3_share(eps, dl, L=L, d=d, m=m, rho=rho, alpha1=alpha1)  # public inputs only
    else:
        share = check_probability(delta3_share, "delta3_share", open_low=True, open_high=True)
    d3 = dl * share
    d1 = dl - d3
    s2 = qop_sigma2(eps, d1, d3, L=L, d=d, m=m, rho=rho, alpha1=alpha1)
    if not math.isfinite(s2):
        raise ValueError(f"QOP calibration undefined for d={d}, m={m}, delta1={d1:g}, delta3={d3:g}: "
                         "increase m or change the delta split")
    return m, d1, d3, s2, alpha1


def qop(
    X, y, *, epsilon: float, delta: float, lam: float, radius: float, anchor, feature_bound: float = 1.0,
    rng: RNGLike = None,
    m: int | None = None, delta3_share: float | str = 0.5, alpha1: str = "reference",
    smoothness: float | None = None, rho: float = 1.0, iterations: int = 1000, solver: str = "stochastic",
) -> ERMResult:
    """Quadratic objective perturbation, exact solve: (ε, δ1 + δ3)-DP [paper + reference code].

    1. W = G Gᵀ, G ∈ R^{d×m} i.i.d. N(0, 1) (default m = 2d).
    2. σ² from :func:`~dpexplore.erm.calibration.qop_sigma2` (ε1 = ε, δ3 = δ·delta3_share, δ1 = δ − δ3).
    3. Release argmin_{‖θ‖_∞ ≤ κ} Σ½(x_iᵀθ − y_i)² + λ‖θ‖₁ + (σ²/2)(θ − θ̃)ᵀW(θ − θ̃).

    The privacy theorem is for the exact minimiser; the default solver is the reference code's
    StoTOS with K iterations (as in the paper's experiment), which is *not* exact — use
    :func:`qop_inexact` for a guarantee with an approximate solver.

    Parameters
    ----------
    X : ndarray (n, d)
    y : ndarray (n,)
    epsilon, delta : float
    lam : float
        ℓ1 weight λ.
    radius : float
        Box radius κ.
    anchor : ndarray (d,)
        θ̃, an approximation of the common minimiser (must not depend on the private data).
    feature_bound : float
        Public bound ξ on the row norms (default 1, the usual ‖x_i‖ ≤ 1 convention of private ERM; it is
        never derived from the data). Rows with ‖x_i‖ > ξ are rescaled, with their labels, to norm ξ
        (:func:`~dpexplore.erm.problems.clip_examples`), so pass the bound your data really satisfy
        (``xi`` for :func:`~dpexplore.erm.interpolation_data`).
    rng : Generator, int or None
    m : int, optional
        Wishart degrees of freedom (≥ d; default 2d).
    delta3_share : float or "optimal"
        δ3/δ (default ½ as in the reference experiment). ``"optimal"``: the share that minimises σ²
        (:func:`~dpexplore.erm.calibration.qop_optimal_delta3_share`, searched on a log scale; public
        inputs only) — at d = 100, m = 2d it lowers σ² by ≈ 10¹².
    alpha1 : {"reference", "consistent"}
        See :func:`~dpexplore.erm.calibration.wishart_alpha1`.
    smoothness : float, optional
        Public bound L ≥ ξ² on the per-example smoothness (default ξ² = ``feature_bound**2``).
    rho : float
        Hessian-rank bound (1 for least squares).
    iterations : int
        Solver iterations K.
    solver : {"stochastic", "deterministic"}

    Returns
    -------
    ERMResult

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data, noisy_anchor
    >>> X, y, t = interpolation_data(50, 5, xi=1.0, rng=0)
    >>> res = qop(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=10.0, anchor=noisy_anchor(t, scale=0.1, rng=1),
    ...           feature_bound=1.0, rng=2)
    >>> res.theta.shape, res.epsilon, res.delta
    ((5,), 1.0, 0.001)
    """
    X, y, eps, dl, lam, kappa, L, solver, K, xi = _common(X, y, epsilon, delta, lam, radius, feature_bound,
                                                          smoothness, solver, iterations)
    n, d = X.shape
    anchor = check_vector(anchor, "anchor")
    if anchor.shape[0] != d:
        raise ValueError(f"anchor must have {d} entries; got {anchor.shape[0]}")
    m, d1, d3, s2, alpha1 = _qop_setup(d, eps, dl, L, m, delta3_share, alpha1, rho)
    gen = as_generator(rng)
    W = _wishart(d, m, 1, gen)[0]  # step 1
    ev = np.linalg.eigvalsh(W)
    step = 1.0 / (n * L + s2 * ev[-1])
    # step 3: smooth part Σℓ_i + (σ²/2)(θ − θ̃)ᵀW(θ − θ̃) = … + ½θᵀ(σ²W)θ − (σ²Wθ̃)ᵀθ + const
    res = _solve(X, y, lam=lam, radius=kappa, quad=s2 * W, lin=-s2 * (W @ anchor), clip=None, step=step,
                 solver=solver, K=K, gen=gen)
    diag = {"sigma2": s2, "m": m, "alpha": wishart_alpha(d3, d, m), "alpha1": wishart_alpha1(d1, d3, d, m,
            variant=alpha1), "alpha1_variant": alpha1, "lambda_min": float(ev[0]), "lambda_max": float(ev[-1]),
            "L": L, "feature_bound": xi, "step": step, "solver": solver, "iterations": res.iterations}
    return ERMResult(theta=res.theta, epsilon=eps, delta=dl, mechanism="QOP",
                     split={"epsilon1": eps, "delta1": d1, "delta3": d3}, diagnostics=diag)


def qop_inexact(
    X, y, *, epsilon: float, delta: float, lam: float, radius: float, anchor, tau: float | str, eta: float,
    feature_bound: float = 1.0, rng: RNGLike = None, epsilon1_share: float = 0.8, delta_shares=(0.4, 0.2, 0.2, 0.2),
    m: int | None = None, alpha1: str = "reference", smoothness: float | None = None, rho: float = 1.0,
    max_iter: int = 5000, calibration: str = "analytic", project: bool = False,
) -> ERMResult:
    """QOP with an approximate solve and Gaussian output noise: (ε1 + ε2, δ1 + δ2 + δ3 + δ4)-DP [paper].

    Solves the perturbed problem with the deterministic Davis–Yin solver, then releases
    θ̂ + N(0, σ̃² I) with σ̃ from :func:`~dpexplore.erm.calibration.qop_output_sigma` (sensitivity
    ``2(√(2τ/(ασ²)) + βη/α)``).

    ``tau`` (solver suboptimality) and ``eta`` (anchor accuracy, ‖θ̃ − θ*‖ ≤ η) are *declared*
    bounds that the privacy guarantee relies on. τ is **checked**: after the Davis–Yin solve, one
    proximal-gradient step gives the released θ̂ together with a proven bound on its suboptimality
    (:func:`~dpexplore.erm.solvers.prox_gradient_certificate`, from the strong convexity σ²λ_min(W));
    ``diagnostics["certified_suboptimality"]`` is that bound. When it exceeds τ the guarantee does not
    hold, and **nothing is released**: :class:`UncertifiedReleaseError` is raised (before the output
    noise is drawn), so a returned result always carries a certified τ.
    ``tau="auto"`` declares max(10⁻⁶, 100 × the certificate's double-precision rounding floor)
    (:func:`~dpexplore.erm.calibration.qop_inexact_tau_floor`, public quantities only): when σ² is
    huge, 10⁻⁶ is below what any double-precision solve can certify; the τ actually declared is
    ``diagnostics["tau"]``.
    η cannot be checked (θ* is unknown): it is the caller's declaration.

    Parameters
    ----------
    epsilon1_share : float
        ε1/ε (the rest, ε2, pays for the output noise).
    delta_shares : 4 floats summing to 1
        (δ1, δ2, δ3, δ4)/δ.
    calibration : {"analytic", "paper"}
        Output-noise calibration: ``"analytic"`` (default) uses ``dpexplore.core.gaussian_sigma``
        (valid for every ε2); ``"paper"`` the paper's classic √(2 ln(1.25/δ2))/ε2 formula, which
        is only proven for ε2 < 1 and is what the utility bounds use.
    project : bool
        Project the noisy release onto the box ‖θ‖_∞ ≤ κ (post-processing: no privacy cost; it
        keeps a large σ̃ from sending θ far outside C). Default False (the paper's release).
    Other parameters as in :func:`qop`.

    Returns
    -------
    ERMResult
        ``diagnostics["output_sigma"]`` is σ̃ and ``diagnostics["theta_solver"]`` the solver's θ̂.

    Raises
    ------
    UncertifiedReleaseError
        When the certified suboptimality exceeds the declared τ (nothing is released).

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data
    >>> X, y, t = interpolation_data(40, 4, xi=1.0, rng=0)
    >>> r = qop_inexact(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=5.0, anchor=t, tau=1e-6, eta=1e-3,
    ...                 feature_bound=1.0, rng=0)
    >>> r.delta == 1e-3 and r.diagnostics["output_sigma"] > 0
    True
    """
    max_iter = check_int(max_iter, "max_iter", low=1, high=MAX_ITERATIONS)
    X, y, eps, dl, lam, kappa, L, _, K, xi = _common(X, y, epsilon, delta, lam, radius, feature_bound, smoothness,
                                                     "deterministic", max_iter)
    n, d = X.shape
    anchor = check_vector(anchor, "anchor")
    if anchor.shape[0] != d:
        raise ValueError(f"anchor must have {d} entries; got {anchor.shape[0]}")
    project = check_bool(project, "project")
    cal = _qop_inexact_setup(d, eps, dl, L, tau, eta, epsilon1_share, delta_shares, m, alpha1, rho, calibration,
                             n=n, kappa=kappa)
    s2, m, sig_out = cal["sigma2"], cal["m"], cal["output_sigma"]
    gen = as_generator(rng)
    W = _wishart(d, m, 1, gen)[0]
    ev = np.linalg.eigvalsh(W)
    res, theta_hat, certified = _certified_solve(X, y, lam, kappa, s2 * W, -s2 * (W @ anchor), n * L + s2 * ev[-1],
                                                 s2 * ev[0], cal["tau"], K, warn=False)
    if not certified <= cal["tau"]:  # not covered by the guarantee: release nothing
        raise UncertifiedReleaseError(float(certified), cal["tau"])
    released = theta_hat + sig_out * gen.standard_normal(d)  # Gaussian output noise
    if project:  # post-processing: projecting onto the public box C costs no privacy
        released = np.clip(released, -kappa, kappa)
    diag = {"sigma2": s2, "m": m, "alpha": cal["alpha"], "beta": cal["beta"], "output_sigma": sig_out,
            "tau": cal["tau"], "eta": cal["eta"], "calibration": cal["calibration"], "theta_solver": theta_hat,
            "solver_residual": res.residual, "iterations": res.iterations, "L": L, "feature_bound": xi,
            "projected": project, "certified_suboptimality": certified, "tau_certified": bool(certified <= cal["tau"])}
    return ERMResult(theta=released, epsilon=eps, delta=dl, mechanism="QOP (inexact + output noise)",
                     split=cal["split"], diagnostics=diag)


def _certified_solve(X, y, lam, kappa, quad, lin, smoothness, strong_convexity, tau, max_iter, warn=True):
    """Davis–Yin to a tolerance chosen from τ, then one prox-gradient step with a certified suboptimality.

    The released point θ̂ = θ⁺ has F(θ̂) − min F ≤ ‖G‖²/(2μ) with G ≈ L_f·(DY residual), so the residual
    must be ≲ √(2μτ)/L_f (μ = σ²λ_min(W) > 0 as m ≥ d; L_f = nL + σ²λ_max(W), public). The relative
    tolerance is that over (1 + κ√d) (‖θ‖ ≤ κ√d in the box), clipped to [1e-16, 1e-12]; one retry at
    a 100× tighter tolerance if the certificate still exceeds τ. Returns (solver result, θ̂, bounds).
    """
    d = X.shape[1]
    Lf, mu = np.asarray(smoothness, dtype=float), np.asarray(strong_convexity, dtype=float)
    target = np.min(np.sqrt(2.0 * mu * tau) / Lf / (1.0 + np.asarray(kappa, dtype=float) * math.sqrt(d)))
    tol = float(np.clip(target, 1e-16, 1e-12))
    for _ in range(2):
        res = davis_yin(X, y, lam=lam, radius=kappa, quad=quad, lin=lin, max_iter=max_iter, tol=tol)
        theta_hat, certified = prox_gradient_certificate(X, y, res.theta, lam=lam, radius=kappa, quad=quad, lin=lin,
                                                         smoothness=Lf, strong_convexity=mu)
        if np.max(certified) <= tau or tol <= 1e-16:
            break
        tol = max(tol / 100.0, 1e-16)
    if warn:
        _warn_uncertified(float(np.max(certified)), tau)
    return res, theta_hat, certified


def _warn_uncertified(certified: float, tau: float) -> None:
    if not certified <= tau:
        warnings.warn(f"qop_inexact: the solver's certified suboptimality {certified:.3g} exceeds the declared "
                      f"tau = {tau:.3g}, so the (epsilon, delta) guarantee does not hold for this release; "
                      "increase max_iter or declare a larger tau", RuntimeWarning, stacklevel=3)


def _qop_inexact_setup(d, eps, dl, L, tau, eta, epsilon1_share, delta_shares, m, alpha1, rho, calibration,
                       n=None, kappa=None):
    """Validated calibration of :func:`qop_inexact` (σ², α, β, σ̃ and the budget split); ``eta`` may be a vector.

    ``tau="auto"`` (needs the public n and box radius κ): max(1e-6, 100 × the rounding floor of the
    certificate, :func:`~dpexplore.erm.calibration.qop_inexact_tau_floor`) — computed from public
    quantities only, so σ̃ stays data-independent.
    """
    auto = isinstance(tau, str) and tau == "auto" and n is not None
    if isinstance(tau, str) and not auto:
        extra = "" if n is None else " or 'auto'"
        raise TypeError(f"tau must be a finite number >= 0{extra}; got {tau!r} of type str")
    if not auto:
        tau = check_positive(tau, "tau", allow_zero=True)
    scalar_eta = np.ndim(eta) == 0
    if scalar_eta:
        etas = np.array([check_positive(eta, "eta", allow_zero=True)])
    else:
        etas = check_vector(eta, "eta")
        if np.any(etas < 0):
            raise ValueError(f"eta must be numbers >= 0; got {etas.tolist()!r}")
    share = check_probability(epsilon1_share, "epsilon1_share", open_low=True, open_high=True)
    shares = check_vector(delta_shares, "delta_shares")
    if shares.shape[0] != 4 or np.any(shares <= 0) or abs(shares.sum() - 1) > 1e-9:
        raise ValueError(f"delta_shares must be 4 numbers > 0 summing to 1; got {list(delta_shares)!r}")
    calibration = check_choice(calibration, "calibration", ("analytic", "paper"))
    alpha1 = check_choice(alpha1, "alpha1", ALPHA1_VARIANTS)
    e1, e2 = eps * share, eps * (1 - share)
    d1, d2, d3, d4 = (float(v) for v in dl * shares)
    m = 2 * d if m is None else check_int(m, "m", low=d, high=MAX_M)
    rho = check_positive(rho, "rho")
    s2 = qop_sigma2(e1, d1, d3, L=L, d=d, m=m, rho=rho, alpha1=alpha1)
    if not math.isfinite(s2):
        raise ValueError(f"QOP calibration undefined for d={d}, m={m}, delta1={d1:g}, delta3={d3:g}")
    alpha = wishart_alpha(d3, d, m)
    beta = qop_beta(d3, d4, d, m)
    if auto:
        tau = max(QOP_INEXACT_DEFAULT_TAU, 100.0 * qop_inexact_tau_floor(sigma2=s2, alpha=alpha, beta=beta, n=n, L=L,
                                                                          radius=kappa, d=d))
    sig = np.array([qop_output_sigma(tau, float(e), epsilon2=e2, delta2=d2, alpha=alpha, sigma2=s2, beta=beta,
                                     calibration=calibration) for e in etas])
    return {"sigma2": s2, "m": m, "alpha": alpha, "beta": beta, "tau": tau, "calibration": calibration,
            "eta": float(etas[0]) if scalar_eta else etas, "output_sigma": float(sig[0]) if scalar_eta else sig,
            "split": {"epsilon1": e1, "epsilon2": e2, "delta1": d1, "delta2": d2, "delta3": d3,
                                "delta4": d4}}


def _lop_terms(d, eps, dl, L, zeta, B, gen):
    """LOP's ridge Δ = 2L/ε and linear noise b ~ N(0, σ_b² I), σ_b = ζ√(8 ln(2/δ) + 4ε)/ε (KST 2012)."""
    Delta = lop_regularization(eps, L)
    sig = np.array([lop_noise_scale(eps, dl, z) for z in np.atleast_1d(zeta)])
    if not (math.isfinite(Delta) and np.all(np.isfinite(sig))):  # name the user's parameters, not a derived one
        raise ValueError(f"epsilon must be large enough for LOP's noise scale σ_b = ζ√(8 ln(2/δ) + 4ε)/ε and ridge "
                         f"2L/ε to be finite in float64 (or the bounds radius, feature_bound, label_bound smaller); "
                         f"got epsilon={eps:g}, gradient bound ζ={float(np.max(zeta)):g}")
    sig = np.broadcast_to(sig, (B,))
    b = sig[:, None] * gen.standard_normal((B, d))
    return Delta, sig, b


def lop(
    X, y, *, epsilon: float, delta: float, lam: float, radius: float, feature_bound: float = 1.0,
    label_bound: float | None = None, rng: RNGLike = None, smoothness: float | None = None, iterations: int = 1000,
    solver: str = "stochastic", _noise_scale: float = 1.0,
) -> ERMResult:
    """Linear objective perturbation (Kifer, Smith & Thakurta 2012): (ε, δ)-DP [standard].

    Release argmin_{‖θ‖_∞ ≤ κ} Σℓ_i + (Δ/2)‖θ‖² + bᵀθ + λ‖θ‖₁ with Δ = 2L/ε, b ~ N(0, σ_b² I),
    σ_b = ζ√(8 ln(2/δ) + 4ε)/ε and ζ = ξ(√d κ ξ + B) the public per-example gradient bound over the
    box (:func:`~dpexplore.erm.problems.box_gradient_bound`, which grows linearly with κ).

    Parameters
    ----------
    feature_bound : float
        Public bound ξ on the row norms (default 1); rows beyond it are rescaled with their labels to norm ξ.
    label_bound : float, optional
        Public bound B on |y_i| (default 5ξ, :func:`~dpexplore.erm.problems.interpolation_label_bound`,
        which holds with z = 5 for :func:`~dpexplore.erm.interpolation_data`; a constant, never read off
        the data); labels beyond it are clipped to ±B (after the row rescaling). Both
        clippings act row by row, so the guarantee holds with ζ computed from (ξ, B, κ, d) alone.
    Other parameters as in :func:`qop` (no anchor).

    Returns
    -------
    ERMResult

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data
    >>> X, y, t = interpolation_data(50, 5, xi=1.0, rng=0)
    >>> r = lop(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=1.0, feature_bound=1.0, label_bound=5.0, rng=0)
    >>> r.mechanism, r.theta.shape, round(r.diagnostics["grad_bound"], 4)  # ζ = ξ(√5·κξ + B)
    ('LOP', (5,), 7.2361)
    """
    X, y, eps, dl, lam, kappa, L, solver, K, xi = _common(X, y, epsilon, delta, lam, radius, feature_bound,
                                                          smoothness, solver, iterations)
    n, d = X.shape
    B = interpolation_label_bound(xi) if label_bound is None else check_positive(label_bound, "label_bound")
    y = np.clip(y, -B, B)  # per-row clipping to the public label bound
    zeta = box_gradient_bound(feature_bound=xi, label_bound=B, radius=kappa, d=d)
    gen = as_generator(rng)
    Delta, sig, b = _lop_terms(d, eps, dl, L, zeta, 1, gen)
    sig, b = sig * _noise_scale, b * _noise_scale  # ≠ 1 only in erm.audit's broken_lop (the noise halved)
    step = 1.0 / (n * L + Delta)
    res = _solve(X, y, lam=lam, radius=kappa, quad=Delta, lin=b[0], clip=None, step=step, solver=solver, K=K,
                 gen=gen)
    diag = {"Delta": Delta, "noise_sigma": float(sig[0]), "grad_bound": zeta, "L": L, "feature_bound": xi,
            "label_bound": B, "step": step, "solver": solver, "iterations": res.iterations}
    return ERMResult(theta=res.theta, epsilon=eps, delta=dl, mechanism="LOP", split={"epsilon": eps, "delta": dl},
                     diagnostics=diag)


def lop_clipped(
    X, y, *, epsilon: float, delta: float, lam: float, radius: float, clip: float, feature_bound: float = 1.0,
    rng: RNGLike = None,
    smoothness: float | None = None, iterations: int = 1000, solver: str = "stochastic",
) -> ERMResult:
    """LOP with per-example gradients clipped to norm ζ = ``clip`` (Redberg, Koskela & Wang 2023) [standard].

    Each gradient (x_iᵀθ − y_i)x_i is rescaled to norm ζ when it is longer (to ζ, not to 1 as
    the reference code does), so the gradient bound holds by construction whatever κ is; for
    least squares this is LOP on the Huber loss with threshold ζ/‖x_i‖, whose smoothness is still
    ‖x_i‖². The noise is calibrated to ζ; ``feature_bound`` ξ (default 1) gives the public smoothness
    L = ξ² (rows beyond it are rescaled). No label bound is needed.

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data
    >>> X, y, t = interpolation_data(50, 5, xi=1.0, rng=0)
    >>> r = lop_clipped(X, y, epsilon=1.0, delta=1e-3, lam=0.1, radius=100.0, clip=1.0, feature_bound=1.0, rng=0)
    >>> r.diagnostics["grad_bound"]
    1.0
    """
    X, y, eps, dl, lam, kappa, L, solver, K, xi = _common(X, y, epsilon, delta, lam, radius, feature_bound,
                                                          smoothness, solver, iterations)
    n, d = X.shape
    zeta = check_positive(clip, "clip")
    gen = as_generator(rng)
    Delta, sig, b = _lop_terms(d, eps, dl, L, zeta, 1, gen)
    step = 1.0 / (n * L + Delta)
    res = _solve(X, y, lam=lam, radius=kappa, quad=Delta, lin=b[0], clip=zeta, step=step, solver=solver, K=K,
                 gen=gen)
    diag = {"Delta": Delta, "noise_sigma": float(sig[0]), "grad_bound": zeta, "L": L, "feature_bound": xi,
            "step": step, "solver": solver, "iterations": res.iterations}
    return ERMResult(theta=res.theta, epsilon=eps, delta=dl, mechanism="clipped LOP",
                     split={"epsilon": eps, "delta": dl}, diagnostics=diag)


