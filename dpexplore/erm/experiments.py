"""The measured panels of the paper-5 dashboard as library functions (one call = one panel's numbers).

The problem is the dashboard's: interpolating least squares + LASSO over a box, rows of norm ξ = 5
(``interpolation_data(n, d, xi=5, rng=data_seed)``), anchor θ̃ = ``noisy_anchor(θ_true, eta=η,
rng=data_seed + 1)`` with its accuracy ‖θ̃ − θ_true‖ declared to ``qop_inexact``, τ = "auto". The data
are fixed by ``data_seed``; ``rng`` drives the mechanisms' noise, one spawned stream per trial through
:func:`dpexplore.core.experiment.run_experiment` (serial = joblib = Dask, cached when the cache is on).
Each trial is one batched solve over the grid (the radii, the η's or the weights).

Examples
--------
>>> r = risk_vs_radius(40, 5, epsilon=1.0, delta=0.01, radii=[1.0, 100.0], iterations=100, trials=1, rng=0)
>>> r.series
('LOP', 'clipped LOP', 'QOP', 'QOP θ̂ (no output noise)')
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_runs, check_trials, run_experiment
from dpexplore.core.random import RNGLike
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int, check_real

from .mechanisms import compare_mechanisms, qop_inexact_risk_sweep, qop_risk_sweep
from .problems import empirical_risk, interpolation_data, interpolation_label_bound, noisy_anchor
from .solvers import davis_yin

__all__ = [
    "ETAS",
    "MAX_RUNS",
    "MAX_TRIALS",
    "RADII",
    "WEIGHTS",
    "XI",
    "risk_vs_anchor_error",
    "risk_vs_radius",
    "risk_vs_weight",
]

XI = 5.0
LABEL_BOUND = interpolation_label_bound(XI)
RADII = tuple(float(r) for r in np.logspace(-2, 3, 7))
ETAS = tuple(float(e) for e in np.logspace(-3, 1, 5))
WEIGHTS = tuple(float(w) for w in np.logspace(-3, 3, 5))  # σ²λ_max(W)/(nL)
MAX_TRIALS = 1_000
#: most runs (grid values × trials) of one call, on every route (each run solves an n × d problem)
MAX_RUNS = 20_000
MAX_N, MAX_D, MAX_CELLS, MAX_ITERATIONS = 100_000, 1_000, 10_000_000, 100_000  # n·d: 80 MB of float64
QOP_HAT = "QOP θ̂ (no output noise)"
_SCALAR_INFO = ("sigma2", "qop_weight_ratio", "anchor_error", "tau", "alpha", "output_sigma", "Delta", "L",
                "max_certified_suboptimality", "tau_certified")


def _problem(n, d, *, epsilon, delta, lam, eta, m_ratio, clip, alpha1, smoothness, iterations, data_seed):
    """Validated common arguments, the data and the anchor (deterministic given data_seed)."""
    n = check_int(n, "n", low=2, high=MAX_N)
    d = check_int(d, "d", low=1, high=MAX_D)
    if n * d > MAX_CELLS:
        raise ValueError(f"n*d must be <= {MAX_CELLS:,} (memory); got n = {n}, d = {d}")
    kw = dict(epsilon=check_epsilon(epsilon), delta=check_delta(delta), lam=check_real(lam, "lam", low=0.0),
              eta=check_real(eta, "eta", low=0.0, high=1e6), m_ratio=check_real(m_ratio, "m_ratio", low=1.0, high=100),
              clip=check_real(clip, "clip", low=0.0, low_open=True), alpha1=check_choice(alpha1, "alpha1",
                                                                                          ("reference", "consistent")),
              smoothness=check_choice(smoothness, "smoothness", ("tight", "reference")),
              iterations=check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS),
              data_seed=check_int(data_seed, "data_seed", low=0))
    X, y, theta = interpolation_data(n, d, xi=XI, rng=kw["data_seed"])
    lib = dict(epsilon=kw["epsilon"], delta=kw["delta"], lam=kw["lam"], m=max(int(round(kw["m_ratio"] * d)), d),
               alpha1=kw["alpha1"], feature_bound=XI, smoothness=XI**2 * (d if kw["smoothness"] == "reference" else 1))
    return dict(n=n, d=d, **kw), X, y, theta, lib


def _anchor(theta, eta, data_seed):
    return noisy_anchor(theta, eta=eta, rng=data_seed + 1)


def _quiet(run):
    """qop_inexact's uncertified-τ RuntimeWarning is reported through the result's extras instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return run()


def _info(info) -> dict:
    return {k: (bool(v) if isinstance(v, (bool, np.bool_)) else float(v)) for k, v in info.items() if k in _SCALAR_INFO}


def _radius_trial(rng, *, X, y, anchor, eta, radii, lib, clip, iterations):
    c = _quiet(lambda: compare_mechanisms(X, y, radii=radii, anchor=anchor, rng=rng, anchor_error=eta, tau="auto",
                                          label_bound=LABEL_BOUND, clip=clip, iterations=iterations, trials=1,
                                          nonprivate=False, **lib))
    rows = [c.risks[name][:, 0] for name in ("LOP", "clipped LOP", "QOP", QOP_HAT)]
    return np.stack(rows), _info(c.info)


def risk_vs_radius(
    n: int, d: int, *, epsilon: float, delta: float, lam: float = 1.0, eta: float = 0.1, m_ratio: float = 2.0,
    clip: float = 100.0, alpha1: str = "reference", smoothness: str = "tight", iterations: int = 1000,
    radii: Sequence[float] = RADII, trials: int = 3, data_seed: int = 0, rng: RNGLike = None,
    n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 1: empirical risk of LOP, clipped LOP and the private QOP (``qop_inexact``) vs the box radius κ.

    Series ``"QOP θ̂ (no output noise)"`` is QOP's solver output before its output noise: **not**
    (ε, δ)-DP when η > 0 (what the paper's experiment plots). ``extras``: the deterministic
    ``nonprivate_risk`` (per radius) and ``anchor_risk``, and per trial the calibration and the solver
    certificate (``tau_certified``, ``max_certified_suboptimality``, ``tau``, ``sigma2``, …).

    Examples
    --------
    >>> r = risk_vs_radius(40, 5, epsilon=1.0, delta=0.01, radii=[1.0], iterations=100, trials=2, rng=0)
    >>> r.values.shape, len(r.extras["tau_certified"])
    ((4, 1, 2), 2)
    """
    params, X, y, theta, lib = _problem(n, d, epsilon=epsilon, delta=delta, lam=lam, eta=eta, m_ratio=m_ratio,
                                        clip=clip, alpha1=alpha1, smoothness=smoothness, iterations=iterations,
                                        data_seed=data_seed)
    radii = check_grid(radii, "radii", low=0.0, low_open=True)
    trials = check_runs(len(radii), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    params.update(radii=list(radii), trials=trials)
    anchor = _anchor(theta, params["eta"], params["data_seed"])
    declared = float(np.linalg.norm(anchor - theta))
    trial = functools.partial(_radius_trial, X=X, y=y, anchor=anchor, eta=declared, radii=np.asarray(radii), lib=lib,
                              clip=params["clip"], iterations=params["iterations"])

    def extras():
        sol = davis_yin(X, y, lam=params["lam"], radius=np.asarray(radii), max_iter=4000, tol=1e-9).theta
        return {"nonprivate_risk": empirical_risk(X, y, sol).tolist(),
                "anchor_risk": float(empirical_risk(X, y, anchor)), "declared_eta": declared}

    return run_experiment(risk_vs_radius, params, trial, axis="radius", grid=radii,
                          series=["LOP", "clipped LOP", "QOP", QOP_HAT], trials=trials, rng=rng, n_jobs=n_jobs,
                          value_range=(0.0, np.inf), per="trial", extras=extras)


def _eta_trial(rng, *, X, y, kappa, anchors, declared, lib):
    J = len(anchors)
    sw = _quiet(lambda: qop_inexact_risk_sweep(X, y, radii=np.full(J, kappa), anchors=anchors, anchor_errors=declared,
                                               tau="auto", trials=1, rng=rng, **lib))
    return np.stack([sw.risks[:, 0], sw.solver_risks[:, 0]]), _info(sw.info)


def risk_vs_anchor_error(
    n: int, d: int, *, kappa: float, epsilon: float, delta: float, lam: float = 1.0, m_ratio: float = 2.0,
    alpha1: str = "reference", smoothness: str = "tight", etas: Sequence[float] = ETAS, trials: int = 3,
    data_seed: int = 0, rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 3 (left): risk of the private QOP (``qop_inexact``) and of its noiseless θ̂ vs the anchor error η.

    Grid: η (sd per coordinate of θ̃ − θ_true); each anchor's accuracy ‖θ̃ − θ_true‖ is declared.
    ``extras``: the anchors' own risks (exact) and the per-trial solver certificate.

    Examples
    --------
    >>> r = risk_vs_anchor_error(40, 5, kappa=10.0, epsilon=1.0, delta=0.01, etas=[0.01, 1.0], trials=1, rng=0)
    >>> r.series, len(r.extras["anchor_risk"])
    (('QOP', 'QOP θ̂ (no output noise)'), 2)
    """
    params, X, y, theta, lib = _problem(n, d, epsilon=epsilon, delta=delta, lam=lam, eta=0.0, m_ratio=m_ratio,
                                        clip=1.0, alpha1=alpha1, smoothness=smoothness, iterations=1,
                                        data_seed=data_seed)
    for k in ("eta", "clip", "iterations"):
        params.pop(k)
    kappa = check_real(kappa, "kappa", low=0.0, low_open=True)
    etas = check_grid(etas, "etas", low=0.0, high=1e6)
    trials = check_runs(len(etas), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    params.update(kappa=kappa, etas=list(etas), trials=trials)
    anchors = np.array([_anchor(theta, e, params["data_seed"]) for e in etas])
    declared = np.linalg.norm(anchors - theta, axis=1)
    trial = functools.partial(_eta_trial, X=X, y=y, kappa=kappa, anchors=anchors, declared=declared, lib=lib)
    extras = {"anchor_risk": [float(empirical_risk(X, y, a)) for a in anchors], "declared_eta": declared.tolist()}
    return run_experiment(risk_vs_anchor_error, params, trial, axis="eta", grid=etas, series=["QOP", QOP_HAT],
                          trials=trials, rng=rng, n_jobs=n_jobs, value_range=(0.0, np.inf), per="trial",
                          extras=extras)


def _weight_trial(rng, *, X, y, kappa, anchor, scales, lib, iterations):
    lib = {k: v for k, v in lib.items()}
    mean, _, _, ratio = qop_risk_sweep(X, y, radius=kappa, anchors=[anchor] * len(scales), weight_scales=scales,
                                       trials=1, rng=rng, iterations=iterations, **lib)
    return np.stack([mean, ratio])


def risk_vs_weight(
    n: int, d: int, *, kappa: float, epsilon: float, delta: float, weight_scales: Sequence[float], lam: float = 1.0,
    eta: float = 0.1, m_ratio: float = 2.0, alpha1: str = "reference", smoothness: str = "tight",
    iterations: int = 1000, trials: int = 3, data_seed: int = 0, rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 3 (right): θ̂'s risk with the exact-solve calibration's σ² multiplied by each weight scale.

    **Not** (ε, δ)-DP except at scale 1: it shows what a lighter or heavier quadratic would do.
    Series ``"QOP θ̂ (rescaled weight)"`` and ``"weight ratio"`` (σ²λ_max(W)/(nL) of each run, the x
    position drawn).

    Examples
    --------
    >>> r = risk_vs_weight(40, 5, kappa=10.0, epsilon=1.0, delta=0.01, weight_scales=[1e-3, 1.0], iterations=100,
    ...                    trials=1, rng=0)
    >>> r.series
    ('QOP θ̂ (rescaled weight)', 'weight ratio')
    """
    params, X, y, theta, lib = _problem(n, d, epsilon=epsilon, delta=delta, lam=lam, eta=eta, m_ratio=m_ratio,
                                        clip=1.0, alpha1=alpha1, smoothness=smoothness, iterations=iterations,
                                        data_seed=data_seed)
    params.pop("clip")
    kappa = check_real(kappa, "kappa", low=0.0, low_open=True)
    scales = check_grid(weight_scales, "weight_scales", low=0.0, low_open=True)
    trials = check_runs(len(scales), check_trials(trials, MAX_TRIALS), MAX_RUNS)
    params.update(kappa=kappa, weight_scales=list(scales), trials=trials)
    anchor = _anchor(theta, params["eta"], params["data_seed"])
    trial = functools.partial(_weight_trial, X=X, y=y, kappa=kappa, anchor=anchor, scales=np.asarray(scales), lib=lib,
                              iterations=params["iterations"])
    return run_experiment(risk_vs_weight, params, trial, axis="weight_scale", grid=scales,
                          series=["QOP θ̂ (rescaled weight)", "weight ratio"], trials=trials, rng=rng, n_jobs=n_jobs,
                          per="trial")
