"""Comparisons and risk sweeps of the private ERM mechanisms: LOP, clipped LOP and QOP side by side over radii
(:func:`compare_mechanisms`), and QOP's excess risk over trials with exact (:func:`qop_risk_sweep`) and inexact
(:func:`qop_inexact_risk_sweep`) solves, as :mod:`dpexplore.erm.experiments` calls them. The mechanisms and
their calibration are those of :mod:`dpexplore.erm.mechanisms.perturbation`.

.. warning:: NumPy's generator is not cryptographically secure: teaching only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpexplore.core import RNGLike, as_generator, mean_confidence_band
from dpexplore.core.validation import check_array, check_bool, check_choice, check_int, check_positive, check_vector

from ..calibration import lop_regularization
from ..problems import box_gradient_bound, empirical_risk, interpolation_label_bound
from ..solvers import MAX_ITERATIONS, davis_yin, stochastic_tos
from .perturbation import MAX_TRIALS, _certified_solve, _common, _lop_terms, _qop_inexact_setup, _qop_setup, _wishart

__all__ = ["MechanismComparison", "InexactSweep", "compare_mechanisms", "qop_risk_sweep", "qop_inexact_risk_sweep"]


@dataclass(frozen=True)
class MechanismComparison:
    """Output of :func:`compare_mechanisms`.

    Attributes
    ----------
    radii : ndarray (R,)
    risks : dict name -> ndarray (R, trials)
        Empirical risk of every run, for "LOP", "clipped LOP", "QOP".
    mean, lower, upper : dict name -> ndarray (R,)
        Mean and 95% band over trials.
    anchor_risk : float
        Empirical risk of the anchor itself.
    nonprivate_risk : ndarray (R,)
        Risk of the non-private constrained LASSO solution at every radius.
    info : dict
        σ², LOP's σ_b per radius, Δ, L, ...
    """

    radii: np.ndarray
    risks: dict
    mean: dict
    lower: dict
    upper: dict
    anchor_risk: float
    nonprivate_risk: np.ndarray
    info: dict[str, Any]


def compare_mechanisms(
    X, y, *, radii, epsilon: float, delta: float, lam: float, anchor, clip: float, feature_bound: float = 1.0,
    label_bound: float | None = None, trials: int = 3, rng: RNGLike = None, m: int | None = None,
    delta3_share: float | str = 0.5, alpha1: str = "reference", smoothness: float | None = None, rho: float = 1.0,
    iterations: int = 1000, weight_scale: float = 1.0, mechanisms=("LOP", "clipped LOP", "QOP"),
    nonprivate: bool = True, anchor_error: float | None = None, tau: float | str = 1e-6,
) -> MechanismComparison:
    """Empirical risk of LOP, clipped LOP and QOP over box radii × trials, in one batched solve each.

    The same randomness and calibration as :func:`lop`, :func:`lop_clipped`, :func:`qop` (with the
    stochastic solver), but all runs of a mechanism go through one vectorised
    :func:`~dpexplore.erm.solvers.stochastic_tos` call (the reference comparison, F2).

    Parameters
    ----------
    radii : array (R,)
        Box radii κ.
    feature_bound, label_bound : float
        Public bounds ξ on the row norms (default 1) and B on the labels (used only by "LOP", whose ζ =
        ξ(√d κ ξ + B) per radius; default 5ξ as in :func:`lop`). The risks are measured on the rows as
        clipped to ξ.
    weight_scale : float
        Multiplies QOP's σ² (1 = the private calibration; < 1 is **not** (ε, δ)-DP at the stated
        budget — for exploring what QOP's advantage depends on only).
    mechanisms : tuple of names
        Subset of ("LOP", "clipped LOP", "QOP").
    nonprivate : bool
        Also solve the non-private problem at every radius (deterministic solver); NaN otherwise.
    anchor_error : float, optional
        ``None`` (default): "QOP" is the exact-solve :func:`qop` (StoTOS, K iterations), whose
        guarantee assumes θ̃ = θ*. A number η ≥ 0: "QOP" is :func:`qop_inexact` with declared anchor
        accuracy ‖θ̃ − θ*‖ ≤ η and solver accuracy ``tau`` (deterministic solve, Gaussian output noise,
        release projected onto the box), via :func:`qop_inexact_risk_sweep`; ``risks`` then also has
        "QOP θ̂ (no output noise)", the solver's output before the noise — **not** private when η > 0.
    tau : float or "auto"
        Declared solver accuracy τ of the inexact path (see :func:`qop_inexact`).
    delta3_share : float or "optimal"
        δ3/δ of the exact-solve QOP (default ½, the reference experiment's); ``"optimal"`` minimises σ²
        on a log scale (:func:`~dpexplore.erm.calibration.qop_optimal_delta3_share`).
    Other parameters as in the mechanisms.

    Returns
    -------
    MechanismComparison

    Notes
    -----
    **Reproducing the authors' F2 exactly** (reference notebook F2; the test
    ``tests/erm/test_mechanisms.py::test_f2_reproduced_with_the_authors_settings`` checks the shape
    for three seeds). The reference code scales its constants by ξ_L = √d·ξ (not ξ) and takes the
    label bound from the data, so pass::

        X, y, t = interpolation_data(300, 100, xi=5.0, rng=seed)
        compare_mechanisms(X, y, radii=np.logspace(-2, 3, 11), epsilon=0.5, delta=0.01, lam=1.0,
                           anchor=noisy_anchor(t, scale=0.1, rng=seed + 1), clip=1e4,
                           feature_bound=math.sqrt(100) * 5.0,      # ξ_L = √d·ξ (so L = ξ_L² = dξ²)
                           label_bound=float(np.max(np.abs(y))),    # the authors' max|y|
                           m=200, delta3_share=0.5, iterations=1000, trials=10, rng=seed)

    ``anchor_error`` left at ``None`` runs what F2 runs: the exact-solve QOP (StoTOS, K iterations)
    with an *inexact* anchor, a setting the paper's exact-solve guarantee (τ = η = 0) does not cover.
    ``label_bound = max|y|`` is computed from the data, so that LOP is not (ε, δ)-DP either; it is the
    reference code's choice, reproduced here, not a recommendation. Shape: every method ≈ ½·mean(y²)
    at κ = 0.01; LOP ≈ 2× that at κ = 1, ≈ 10³ at κ = 10, ≈ 10⁷ at κ = 1000 (∝ κ², θ pinned to the
    box corners); clipped LOP levels off at several hundred; QOP falls to the anchor's own risk
    (≈ ½ξ²·0.1² ≈ 0.1) for κ ≳ 3.

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data, noisy_anchor
    >>> X, y, t = interpolation_data(60, 10, xi=5.0, rng=0)
    >>> c = compare_mechanisms(X, y, radii=[0.1, 100.0], epsilon=0.5, delta=0.01, lam=1.0,
    ...                        anchor=noisy_anchor(t, scale=0.1, rng=1), clip=100.0, feature_bound=5.0,
    ...                        label_bound=25.0,
    ...                        trials=2, rng=0, iterations=300)
    >>> bool(c.mean["LOP"][1] > 100 * c.mean["QOP"][1])
    True
    """
    X, y, eps, dl, lam, _, L, _, K, xi = _common(X, y, epsilon, delta, lam, 1.0, feature_bound, smoothness,
                                                 "stochastic", iterations)
    n, d = X.shape
    radii = check_vector(radii, "radii")
    if np.any(radii <= 0):
        raise ValueError(f"radii must be > 0; got {radii.tolist()!r}")
    anchor = check_vector(anchor, "anchor")
    if anchor.shape[0] != d:
        raise ValueError(f"anchor must have {d} entries; got {anchor.shape[0]}")
    T = check_int(trials, "trials", low=1, high=MAX_TRIALS)
    zeta_c = check_positive(clip, "clip")
    ws = check_positive(weight_scale, "weight_scale")
    for name in mechanisms:
        check_choice(name, "mechanisms", ("LOP", "clipped LOP", "QOP"))
    if "LOP" in mechanisms:
        B = interpolation_label_bound(xi) if label_bound is None else check_positive(label_bound, "label_bound")
    R = radii.shape[0]
    kap = np.repeat(radii, T)  # run r*T + t has radius radii[r]
    gens = dict(zip(("LOP", "clipped LOP", "QOP", "nonprivate"), as_generator(rng).spawn(4)))
    risks: dict[str, np.ndarray] = {}
    info: dict[str, Any] = {"L": L, "n": n, "d": d, "feature_bound": xi}
    if "LOP" in mechanisms or "clipped LOP" in mechanisms:
        Delta = lop_regularization(eps, L)
        info["Delta"] = Delta
        step = 1.0 / (n * L + Delta)
        if "LOP" in mechanisms:
            zetas = np.array([box_gradient_bound(feature_bound=xi, label_bound=B, radius=k, d=d) for k in radii])
            _, sig, b = _lop_terms(d, eps, dl, L, np.repeat(zetas, T), R * T, gens["LOP"])
            info["lop_noise_sigma"] = sig[::T].copy()
            info["label_bound"] = B
            res = stochastic_tos(X, np.clip(y, -B, B), lam=lam, radius=kap, step=np.full(R * T, step), iterations=K,
                                 quad=np.full(R * T, Delta), lin=b, rng=gens["LOP"])
            risks["LOP"] = empirical_risk(X, y, res.theta).reshape(R, T)
        if "clipped LOP" in mechanisms:
            _, sig, b = _lop_terms(d, eps, dl, L, zeta_c, R * T, gens["clipped LOP"])
            info["clipped_noise_sigma"] = float(sig[0])
            res = stochastic_tos(X, y, lam=lam, radius=kap, step=np.full(R * T, step), iterations=K,
                                 quad=np.full(R * T, Delta), lin=b, clip=np.full(R * T, zeta_c),
                                 rng=gens["clipped LOP"])
            risks["clipped LOP"] = empirical_risk(X, y, res.theta).reshape(R, T)
    if "QOP" in mechanisms and anchor_error is not None:
        eta = check_positive(anchor_error, "anchor_error", allow_zero=True)
        if ws != 1.0:
            raise ValueError(f"weight_scale must be 1 with anchor_error (the inexact calibration); got {ws!r}")
        sw = qop_inexact_risk_sweep(X, y, radii=radii, anchors=np.broadcast_to(anchor, (R, d)),
                                    anchor_errors=np.full(R, eta), epsilon=eps, delta=dl, lam=lam, tau=tau, trials=T,
                                    rng=gens["QOP"], m=m, alpha1=alpha1, feature_bound=xi, smoothness=L, rho=rho)
        info.update(sigma2=sw.info["sigma2"], m=sw.info["m"], qop_variant="inexact", output_sigma=float(
            sw.output_sigma[0]), anchor_error=eta, tau=sw.info["tau"], qop_split=sw.info["split"],
            qop_weight_ratio=float(np.median(sw.weight_ratio)), max_solver_residual=sw.info["max_solver_residual"],
            max_certified_suboptimality=sw.info["max_certified_suboptimality"], tau_certified=sw.info["tau_certified"],
            alpha=sw.info["alpha"],
            alpha1_variant=alpha1)
        risks["QOP"] = sw.risks
        risks["QOP θ̂ (no output noise)"] = sw.solver_risks
    elif "QOP" in mechanisms:
        info["qop_variant"] = "exact"
        m_, d1, d3, s2, a1 = _qop_setup(d, eps, dl, L, m, delta3_share, alpha1, rho)
        info.update(sigma2=s2, sigma2_used=s2 * ws, m=m_, delta1=d1, delta3=d3, alpha1_variant=a1)
        th, ratio = _qop_batch(X, y, L=L, lam=lam, kappa=kap, anchors=np.broadcast_to(anchor, (R * T, d)),
                               sigma2=np.full(R * T, s2 * ws), m=m_, K=K, gen=gens["QOP"])
        info["qop_weight_ratio"] = float(np.median(ratio))
        risks["QOP"] = empirical_risk(X, y, th).reshape(R, T)
    mean, lower, upper = {}, {}, {}
    for name, v in risks.items():
        mean[name], lower[name], upper[name] = mean_confidence_band(v, axis=1)
    if nonprivate:
        np_risk = empirical_risk(X, y, davis_yin(X, y, lam=lam, radius=radii, max_iter=4000, tol=1e-9).theta)
    else:
        np_risk = np.full(R, np.nan)
    return MechanismComparison(radii=radii, risks=risks, mean=mean, lower=lower, upper=upper,
                               anchor_risk=empirical_risk(X, y, anchor), nonprivate_risk=np_risk, info=info)


def _qop_batch(X, y, *, L, lam, kappa, anchors, sigma2, m, K, gen):
    """B QOP runs (one Wishart draw each) in one StoTOS call; returns θ (B, d) and σ²λ_max(W)/(nL)."""
    n, d = X.shape
    B = anchors.shape[0]
    W = _wishart(d, m, B, gen)
    lmax = np.linalg.eigvalsh(W)[:, -1]
    s2 = sigma2[:, None, None]
    res = stochastic_tos(X, y, lam=lam, radius=kappa, step=1.0 / (n * L + sigma2 * lmax), iterations=K,
                         quad=s2 * W, lin=-sigma2[:, None] * (W @ anchors[:, :, None])[:, :, 0], rng=gen)
    return res.theta, sigma2 * lmax / (n * L)


def qop_risk_sweep(
    X, y, *, radius: float, anchors, weight_scales, epsilon: float, delta: float, lam: float,
    feature_bound: float = 1.0,
    trials: int = 3, rng: RNGLike = None, m: int | None = None, delta3_share: float = 0.5, alpha1: str = "reference",
    smoothness: float | None = None, rho: float = 1.0, iterations: int = 1000,
):
    """QOP's empirical risk for several (anchor, weight scale) configurations × trials, in one batched solve.

    Configuration j uses ``anchors[j]`` and σ² × ``weight_scales[j]`` (1 = the private calibration for
    (ε, δ); other scales are **not** (ε, δ)-DP — this is for exploring what QOP's advantage depends
    on). Returns ``(mean, lower, upper, weight_ratio)`` arrays of length J, where ``weight_ratio``
    is the median σ²λ_max(W)/(nL) of the configuration. ``feature_bound`` as in :func:`qop`.

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data
    >>> X, y, t = interpolation_data(60, 10, xi=5.0, rng=0)
    >>> mean, lo, hi, ratio = qop_risk_sweep(X, y, radius=10.0, anchors=[t, t + 1.0], weight_scales=[1.0, 1.0],
    ...                                      epsilon=0.5, delta=0.01, lam=0.0, feature_bound=5.0, trials=2, rng=0)
    >>> bool(mean[0] < mean[1])
    True
    """
    X, y, eps, dl, lam, kappa, L, _, K, _xi = _common(X, y, epsilon, delta, lam, radius, feature_bound, smoothness,
                                                      "stochastic", iterations)
    n, d = X.shape
    A = check_array(anchors, "anchors", finite=False)  # complex, str, bool: TypeError naming anchors
    if A.ndim != 2 or A.shape[1] != d or not np.all(np.isfinite(A)):
        raise ValueError(f"anchors must be a (J, {d}) array of finite numbers; got shape {A.shape}")
    ws = check_vector(weight_scales, "weight_scales")
    if ws.shape[0] != A.shape[0] or np.any(ws <= 0):
        raise ValueError(f"weight_scales must be {A.shape[0]} numbers > 0; got {ws.tolist()!r}")
    T = check_int(trials, "trials", low=1, high=MAX_TRIALS)
    m_, _, _, s2, _ = _qop_setup(d, eps, dl, L, m, delta3_share, alpha1, rho)
    J = A.shape[0]
    th, ratio = _qop_batch(X, y, L=L, lam=lam, kappa=np.full(J * T, kappa), anchors=np.repeat(A, T, axis=0),
                           sigma2=np.repeat(s2 * ws, T), m=m_, K=K, gen=as_generator(rng))
    risks = empirical_risk(X, y, th).reshape(J, T)
    mean, lower, upper = mean_confidence_band(risks, axis=1)
    return mean, lower, upper, np.median(ratio.reshape(J, T), axis=1)


@dataclass(frozen=True)
class InexactSweep:
    """Output of :func:`qop_inexact_risk_sweep` (J configurations × T trials).

    Attributes
    ----------
    risks, solver_risks : ndarray (J, T)
        Empirical risk of the private release θ̂ + N(0, σ̃²I) (projected onto the box if asked) and,
        for reference, of the solver's θ̂ **before** the output noise (not private when η > 0).
    mean, lower, upper, solver_mean, solver_lower, solver_upper : ndarray (J,)
        Mean and 95% band over the trials.
    output_sigma : ndarray (J,)
        σ̃ of every configuration (it grows with the declared η).
    weight_ratio : ndarray (J,)
        Median σ²λ_max(W)/(nL).
    info : dict
        σ², α, β, the budget split, the declared τ, the largest solver residual, ...
    """

    risks: np.ndarray
    solver_risks: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    solver_mean: np.ndarray
    solver_lower: np.ndarray
    solver_upper: np.ndarray
    output_sigma: np.ndarray
    weight_ratio: np.ndarray
    info: dict[str, Any]


def qop_inexact_risk_sweep(
    X, y, *, radii, anchors, anchor_errors, epsilon: float, delta: float, lam: float, feature_bound: float = 1.0,
    tau: float | str = 1e-6, trials: int = 3, rng: RNGLike = None, epsilon1_share: float = 0.8,
    delta_shares=(0.4, 0.2, 0.2, 0.2), m: int | None = None, alpha1: str = "reference",
    smoothness: float | None = None, rho: float = 1.0, max_iter: int = 5000, calibration: str = "analytic",
    project: bool = True,
) -> InexactSweep:
    """Risk of :func:`qop_inexact` for J configurations (κ_j, θ̃_j, declared η_j) × trials, one batched solve.

    The same calibration, solver (deterministic Davis–Yin, tol 1e-12) and output noise as
    :func:`qop_inexact` — (ε, δ)-DP with ε = ε1 + ε2, δ = δ1 + δ2 + δ3 + δ4 when ‖θ̃_j − θ*‖ ≤ η_j
    and the solve is τ-accurate [paper] — with every run of every configuration in one
    vectorised :func:`~dpexplore.erm.solvers.davis_yin` call. ``project=True`` (default here)
    projects each release onto its box (post-processing).

    Parameters
    ----------
    radii : array (J,)
        Box radius κ of each configuration.
    anchors : array (J, d)
        Anchor θ̃ of each configuration.
    anchor_errors : array (J,)
        Declared anchor accuracy η_j ≥ ‖θ̃_j − θ*‖ (the guarantee relies on it).
    Other parameters as in :func:`qop_inexact`.

    Returns
    -------
    InexactSweep

    Examples
    --------
    >>> from dpexplore.erm import interpolation_data
    >>> X, y, t = interpolation_data(60, 5, xi=5.0, rng=0)
    >>> sw = qop_inexact_risk_sweep(X, y, radii=[10.0, 10.0], anchors=[t, t + 0.01], anchor_errors=[0.0, 0.03],
    ...                             epsilon=1.0, delta=0.01, lam=1.0, feature_bound=5.0, trials=2, rng=0)
    >>> bool(sw.output_sigma[0] < sw.output_sigma[1]), bool(sw.mean[0] < sw.mean[1])
    (True, True)
    """
    max_iter = check_int(max_iter, "max_iter", low=1, high=MAX_ITERATIONS)
    X, y, eps, dl, lam, _, L, _, K, xi = _common(X, y, epsilon, delta, lam, 1.0, feature_bound, smoothness,
                                                 "deterministic", max_iter)
    n, d = X.shape
    radii = check_vector(radii, "radii")
    if np.any(radii <= 0):
        raise ValueError(f"radii must be > 0; got {radii.tolist()!r}")
    A = check_array(anchors, "anchors", finite=False)  # complex, str, bool: TypeError naming anchors
    J = radii.shape[0]
    if A.shape != (J, d) or not np.all(np.isfinite(A)):
        raise ValueError(f"anchors must be a ({J}, {d}) array of finite numbers; got shape {A.shape}")
    etas = check_vector(anchor_errors, "anchor_errors")
    if etas.shape[0] != J or np.any(etas < 0):
        raise ValueError(f"anchor_errors must be {J} numbers >= 0; got {etas.tolist()!r}")
    T = check_int(trials, "trials", low=1, high=MAX_TRIALS)
    project = check_bool(project, "project")
    cal = _qop_inexact_setup(d, eps, dl, L, tau, etas, epsilon1_share, delta_shares, m, alpha1, rho, calibration,
                             n=n, kappa=float(np.max(radii)))
    s2, m_, sig = cal["sigma2"], cal["m"], cal["output_sigma"]
    gen = as_generator(rng)
    B = J * T  # run j*T + t belongs to configuration j
    kap = np.repeat(radii, T)
    anc = np.repeat(A, T, axis=0)
    W = _wishart(d, m_, B, gen)  # step 1, one Wishart draw per run
    evs = np.linalg.eigvalsh(W)
    lmax = evs[:, -1]
    lin = -s2 * (W @ anc[:, :, None])[:, :, 0]
    res, theta_hat, certified = _certified_solve(X, y, lam, kap, s2 * W, lin, n * L + s2 * lmax, s2 * evs[:, 0],
                                                 cal["tau"], K)
    released = theta_hat + np.repeat(sig, T)[:, None] * gen.standard_normal((B, d))  # Gaussian output noise
    if project:  # post-processing
        released = np.clip(released, -kap[:, None], kap[:, None])
    risks = empirical_risk(X, y, released).reshape(J, T)
    solver_risks = empirical_risk(X, y, theta_hat).reshape(J, T)
    mean, lower, upper = mean_confidence_band(risks, axis=1)
    smean, slower, supper = mean_confidence_band(solver_risks, axis=1)
    info = {"sigma2": s2, "m": m_, "alpha": cal["alpha"], "beta": cal["beta"], "tau": cal["tau"],
            "split": cal["split"], "calibration": cal["calibration"], "projected": project,
            "max_solver_residual": float(np.max(res.residual)), "iterations": res.iterations, "L": L,
            "feature_bound": xi, "max_certified_suboptimality": float(np.max(certified)),
            "tau_certified": bool(np.max(certified) <= cal["tau"])}
    return InexactSweep(risks=risks, solver_risks=solver_risks, mean=mean, lower=lower, upper=upper,
                        solver_mean=smean, solver_lower=slower, solver_upper=supper, output_sigma=np.asarray(sig),
                        weight_ratio=np.median((s2 * lmax / (n * L)).reshape(J, T), axis=1), info=info)
