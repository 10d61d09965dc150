"""The noises of the additive mechanisms and the bias that post-processing a noisy histogram adds.

``"laplace"`` (Δ₁/ε) and ``"gaussian"`` (the analytic σ for (ε, δ), Balle & Wang 2018) come from
:mod:`dpexplore.core.additive`; ``"geometric"`` is the two-sided geometric (discrete Laplace) mechanism of
Ghosh, Roughgarden & Sundararajan (2009): integer noise with P(k) ∝ α^|k|, α = e^(−ε/Δ), ε-DP for an
integer-valued query of sensitivity Δ. :func:`postprocessing_bias` is exact for rounding and clamping at 0
and a Monte-Carlo estimate (fixed seed, with its standard error) for normalisation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpexplore.core.additive import gaussian_mechanism, laplace_mechanism
from dpexplore.core.gaussian import gaussian_sigma
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_real,
)

__all__ = ["MAX_CELLS", "NOISES", "geometric_noise", "noise_sd", "postprocessing_bias"]

#: the noises of the additive mechanisms
NOISES = ("laplace", "gaussian", "geometric")
#: the most cells :func:`postprocessing_bias` takes
MAX_CELLS = 10_000


def _alpha(epsilon: float, sensitivity: float) -> float:
    return math.exp(-epsilon / sensitivity)


def geometric_noise(shape, *, epsilon: float, sensitivity: float = 1.0, rng: RNGLike = None) -> np.ndarray:
    """Two-sided geometric noise: P(K = k) = (1 − α)/(1 + α)·α^|k|, α = e^(−ε/Δ) (integers).

    The difference of two independent Geometric(1 − α) counts (failures before a success) has exactly
    this law. Added to an integer query of sensitivity Δ it is ε-DP (Ghosh et al. 2009).

    Examples
    --------
    >>> geometric_noise(3, epsilon=1.0, rng=0).dtype.kind
    'i'
    """
    eps = check_epsilon(epsilon)
    sens = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    p = 1.0 - _alpha(eps, sens)
    gen = as_generator(rng)
    # numpy's geometric counts trials (>= 1); the two 1s cancel in the difference
    return gen.geometric(p, size=shape).astype(np.int64) - gen.geometric(p, size=shape).astype(np.int64)


def noise_sd(noise: str, *, epsilon: float, delta: float = 0.0, sensitivity: float = 1.0) -> float:
    """Standard deviation of one noise draw: √2·Δ/ε (Laplace), the analytic σ (Gaussian),
    √(2α)/(1 − α) with α = e^(−ε/Δ) (geometric). Exact.

    Examples
    --------
    >>> round(noise_sd("laplace", epsilon=1.0), 6)
    1.414214
    """
    noise, eps, sens = _check_noise_scale(noise, epsilon, sensitivity)
    if noise == "laplace":
        return math.sqrt(2.0) * sens / eps
    if noise == "gaussian":
        return gaussian_sigma(eps, check_delta(delta), sens)
    a = _alpha(eps, sens)
    return math.sqrt(2.0 * a) / (1.0 - a)


def _check_noise_scale(noise: str, epsilon: float, sensitivity: float) -> tuple[str, float, float]:
    """The checked (noise, ε, Δ) of a noise-size formula (:func:`noise_sd`, ``theory.expected_abs_error``)."""
    return (check_choice(noise, "noise", NOISES), check_epsilon(epsilon),
            check_real(sensitivity, "sensitivity", low=0.0, low_open=True))


def _check_noise_args(noise: str, epsilon: float, delta: float) -> tuple[str, float, float]:
    noise = check_choice(noise, "noise", NOISES)
    eps = check_epsilon(epsilon)
    if noise == "gaussian":
        d = check_delta(delta)
    else:
        d = check_real(delta, "delta", low=0.0, high=0.0) if delta != 0 else 0.0
    return noise, eps, d


def _add_noise(value, *, noise: str, sensitivity: float, epsilon: float, delta: float, gen) -> tuple:
    """value + noise; returns (released, scale, sd). ``scale``: b (Laplace), σ (Gaussian), Δ/ε (geometric)."""
    if noise == "laplace":
        r = laplace_mechanism(value, sensitivity=sensitivity, epsilon=epsilon, rng=gen)
        return r.value, r.scale, math.sqrt(2.0) * r.scale
    if noise == "gaussian":
        g = gaussian_mechanism(value, sensitivity=sensitivity, epsilon=epsilon, delta=delta, rng=gen)
        return g.value, g.sigma, g.sigma
    arr = np.asarray(value, dtype=float)
    out = arr + geometric_noise(arr.shape, epsilon=epsilon, sensitivity=sensitivity, rng=gen)
    return (float(out) if out.ndim == 0 else out), sensitivity / epsilon, noise_sd(
        "geometric", epsilon=epsilon, sensitivity=sensitivity)


def _upper_tail_sum(counts: np.ndarray, noise: str, epsilon: float, delta: float, sens: float,
                    rounded: bool) -> np.ndarray:
    """E[(−c − N)^+] per cell: the bias that max(0, ·) adds to c + N (N the noise, rounded if asked)."""
    c = counts
    if noise == "geometric":  # P(K ≥ m) = α^m/(1 + α), Σ_{j≥1} P(K ≥ c + j)
        a = math.exp(-epsilon / sens)
        return a ** (c + 1) / ((1 + a) * (1 - a))
    if noise == "laplace":
        b = sens / epsilon
        if rounded:  # P(round N ≥ m) = ½e^(−(m − ½)/b) for m ≥ 1
            return 0.5 * np.exp(-(c + 0.5) / b) / (-math.expm1(-1.0 / b))
        return 0.5 * b * np.exp(-c / b)
    s = gaussian_sigma(epsilon, delta, sens)
    if not rounded or s > 50:  # continuous: σφ(c/σ) − c·Φ(−c/σ) (rounded, σ > 50: the midpoint rule, error < 1e-4)
        return s * np.exp(-0.5 * (c / s) ** 2) / math.sqrt(2 * math.pi) - c * special.ndtr(-c / s)
    j = np.arange(1, int(40 * s) + 2)
    return special.ndtr(-(c[:, None] + j[None, :] - 0.5) / s).sum(axis=1)


def postprocessing_bias(counts, *, noise: str, epsilon: float, delta: float = 0.0, sensitivity: float = 1.0,
                        steps=("round", "nonnegative"), draws: int = 4000) -> dict:
    """The expected bias each post-processing step adds to every cell of a noisy histogram.

    Parameters
    ----------
    counts : array_like, shape (bins,)
        The true counts (integers ≥ 0).
    noise, epsilon, delta, sensitivity
        The noise added to every cell.
    steps : sequence of {"round", "nonnegative", "normalise"}
        Applied in this order.
    draws : int
        Simulated releases for the normalisation bias (fixed seed 0).

    Returns
    -------
    dict
        ``"round"``: E[round(c + N)] − c = 0 exactly (symmetric noise, integer c); ``"nonnegative"``:
        E[max(0, Y)] − E[Y] = E[(−Y)^+] ≥ 0 (exact; Y the rounded value if rounding came first);
        ``"normalise"``: E[Y_i/ΣY] − c_i/Σc (Monte-Carlo estimate over ``draws`` releases, seed 0) and
        ``"normalise_se"``, its standard error. Each array has shape (bins,).

    Examples
    --------
    >>> b = postprocessing_bias([0, 10], noise="laplace", epsilon=1.0, steps=("nonnegative",))
    >>> b["nonnegative"].round(4).tolist()  # (b/2)·e^(−c/b)
    [0.5, 0.0]
    """
    c = check_array(counts, "counts", ndim=1, min_size=1, max_size=MAX_CELLS)
    noise = check_choice(noise, "noise", NOISES)
    eps = check_epsilon(epsilon)
    d = check_delta(delta) if noise == "gaussian" else 0.0
    sens = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    steps = tuple(check_choice(s, "steps", ("round", "nonnegative", "normalise")) for s in steps)
    out: dict = {}
    rounded = "round" in steps or noise == "geometric"
    if "round" in steps:
        out["round"] = np.zeros_like(c)
    if "nonnegative" in steps:
        out["nonnegative"] = _upper_tail_sum(c, noise, eps, d, sens, rounded)
    if "normalise" in steps:
        m = check_int(draws, "draws", low=10, high=100_000)
        gen = np.random.default_rng(0)
        ys = np.empty((m, c.size))
        for i in range(m):
            y = np.atleast_1d(np.asarray(_add_noise(c, noise=noise, sensitivity=sens, epsilon=eps, delta=d,
                                                    gen=gen)[0], dtype=float))
            if "round" in steps:
                y = np.round(y)
            if "nonnegative" in steps:
                y = np.maximum(y, 0)
            tot = y.sum()
            ys[i] = y / tot if tot > 0 else 1.0 / c.size
        truth = c / c.sum() if c.sum() > 0 else np.full_like(c, 1.0 / c.size)
        out["normalise"] = ys.mean(axis=0) - truth
        out["normalise_se"] = ys.std(axis=0, ddof=1) / math.sqrt(m)
    return out
