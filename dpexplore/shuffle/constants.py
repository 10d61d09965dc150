"""Constants of a local randomizer: covariances, the Fisher constant I_π, χ², μ3.

Paper 4 (Shvets 2026), Section 2–3. For one user, the one-hot output e_Y has covariance
Σ_b = diag(W_b) − W_b W_bᵀ under input b. When a fraction π of the n users hold input 1, the
histogram N has covariance exactly nΣ_π with the **fixed-composition** covariance
Σ_π = (1 − π)Σ_0 + πΣ_1, and the shuffled experiment's Fisher constant is I_π = vᵀΣ_π⁺v,
v = W_1 − W_0. Treating the users as an i.i.d. mixture instead gives the covariance
Σ_mix = Σ_π + π(1 − π)vvᵀ and, by Sherman–Morrison, I_mix = I_π/(1 + π(1 − π)I_π) < I_π:
the mixture model under-states how much the histogram reveals (over-optimistic privacy).
"""

from __future__ import annotations

import numpy as np

from dpexplore.core.validation import check_probability

from .randomizers import Randomizer

__all__ = [
    "sigma_b",
    "sigma_pi",
    "sigma_mix",
    "fisher_constant",
    "mixture_constant",
    "mixture_constant_closed_form",
    "chi_square",
    "mu3",
]


def _check_randomizer(R) -> Randomizer:
    if not isinstance(R, Randomizer):
        raise TypeError(
            f"randomizer must be a Randomizer (from binary_rr, k_rr or randomizer); got {type(R).__name__}"
        )
    return R


def sigma_b(randomizer: Randomizer, b: int) -> np.ndarray:
    """Σ_b = diag(W_b) − W_b W_bᵀ, the covariance of one user's one-hot output under input b.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> sigma_b(binary_rr(1.0), 0).round(4).tolist()
    [[0.1966, -0.1966], [-0.1966, 0.1966]]
    """
    R = _check_randomizer(randomizer)
    if b not in (0, 1) or isinstance(b, bool):
        raise ValueError(f"b must be 0 or 1; got {b!r}")
    w = R.W0 if b == 0 else R.W1
    return np.diag(w) - np.outer(w, w)


def sigma_pi(randomizer: Randomizer, pi: float) -> np.ndarray:
    """Fixed-composition covariance Σ_π = (1 − π)Σ_0 + πΣ_1 (Cov N = nΣ_π exactly, π = k/n).

    Examples
    --------
    >>> from dpexplore.shuffle import k_rr
    >>> float(abs(sigma_pi(k_rr(1.0, 3), 0.5).sum())) < 1e-15  # rows sum to 0: N sums to n
    True
    """
    R = _check_randomizer(randomizer)
    pi = check_probability(pi, "pi")
    return (1.0 - pi) * sigma_b(R, 0) + pi * sigma_b(R, 1)


def sigma_mix(randomizer: Randomizer, pi: float) -> np.ndarray:
    """Covariance of one output of the i.i.d. mixture W_π = (1 − π)W_0 + πW_1 (the proxy model).

    Σ_mix = Σ_π + π(1 − π)vvᵀ.
    """
    R = _check_randomizer(randomizer)
    pi = check_probability(pi, "pi")
    w = (1.0 - pi) * R.W0 + pi * R.W1
    return np.diag(w) - np.outer(w, w)


def _quad_pinv(S: np.ndarray, v: np.ndarray) -> float:
    # vᵀ S⁺ v with the Moore–Penrose pseudoinverse (S is singular: its rows sum to 0).
    return float(v @ np.linalg.pinv(S, rcond=1e-12, hermitian=True) @ v)


def fisher_constant(randomizer: Randomizer, pi: float = 0.0) -> float:
    """The Fisher constant I_π = vᵀ Σ_π⁺ v of the shuffled experiment (paper, eq. for I_π).

    It sets the JSD (I_π/(8n)), the GDP parameter (μ_n = √(I_π/n)) and every smooth
    f-divergence to first order. At π = 0 it equals χ²(W_1 ‖ W_0).

    Parameters
    ----------
    randomizer : Randomizer
    pi : float
        Fraction of users holding input 1 (π = k/n), in [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(fisher_constant(binary_rr(1.0), 0.3), 4)  # = χ² for binary RR at every π
    1.0862
    """
    R = _check_randomizer(randomizer)
    return _quad_pinv(sigma_pi(R, pi), R.v)


def mixture_constant(randomizer: Randomizer, pi: float = 0.0) -> float:
    """I_mix = vᵀ Σ_mix⁺ v, the (over-optimistic) constant of the i.i.d.-mixture proxy.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> R = binary_rr(2.0)
    >>> mixture_constant(R, 0.5) < fisher_constant(R, 0.5)
    True
    """
    R = _check_randomizer(randomizer)
    return _quad_pinv(sigma_mix(R, pi), R.v)


def mixture_constant_closed_form(randomizer: Randomizer, pi: float = 0.0) -> float:
    """I_mix via Sherman–Morrison: I_π/(1 + π(1 − π)I_π).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> R = binary_rr(2.0)
    >>> abs(mixture_constant_closed_form(R, 0.3) - mixture_constant(R, 0.3)) < 1e-10
    True
    """
    pi = check_probability(pi, "pi")
    ip = fisher_constant(randomizer, pi)
    return ip / (1.0 + pi * (1.0 - pi) * ip)


def chi_square(randomizer: Randomizer) -> float:
    """χ²(W_1 ‖ W_0) = Σ_y v_y²/W_0(y) = I_0.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(chi_square(binary_rr(1.0)), 4), round(chi_square(binary_rr(4.0)), 4)
    (1.0862, 52.6165)
    """
    R = _check_randomizer(randomizer)
    return float(np.sum(R.v**2 / R.W0))


def mu3(randomizer: Randomizer) -> float:
    """μ3 = E_{W_0}[ξ³], the third moment of the score increment ξ = W_1/W_0 − 1.

    Enters the second-order term of the canonical JSD expansion.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> round(mu3(binary_rr(1.0)), 4)
    1.1797
    """
    R = _check_randomizer(randomizer)
    with np.errstate(over="ignore"):  # ε0 ≳ 236: ξ³ overflows float64 and μ3 saturates at +inf
        return float(np.sum(R.W0 * R.xi**3))
