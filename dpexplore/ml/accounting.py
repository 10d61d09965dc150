"""What DP-SGD costs: the ε of T steps of the subsampled Gaussian mechanism, by several accountants.

One DP-SGD step adds Gaussian noise of standard deviation σ·C to the sum of the clipped gradients of a
random batch (C the clip norm, σ the noise multiplier). Adding or removing one example moves that sum by at
most C, so one step *without* subsampling is the Gaussian mechanism with noise multiplier σ; with Poisson
subsampling at rate q each example is in a step's batch with probability q, which makes a step far more
private ("amplification by subsampling").

Accountants (all give an upper bound on the true ε at the given δ; none is an outcome):

``"pld"``
    Google's ``dp_accounting`` privacy-loss-distribution accountant for T-fold ``PoissonSampledDpEvent(q,
    GaussianDpEvent(σ))`` under add/remove-one neighbours, pessimistic discretisation on a grid of
    :data:`PLD_GRID` (Koskela et al. 2020; Doroshenko et al. 2022). The tightest here.
``"rdp"``
    ``dp_accounting``'s Rényi accountant for the same event (Mironov 2017; Mironov, Talwar & Zhang 2019),
    converted to (ε, δ) by its default conversion. Always ≥ the PLD value up to the PLD grid.
``"none"`` (no amplification)
    Every example counted in every step: T Gaussian mechanisms of multiplier σ, i.e. √T/σ-GDP (Dong, Roth
    & Su 2022), whose ε at δ is exact for that composition — the accounting one would use without the
    sampling argument.
``"basic"``
    Basic composition: one subsampled step's ε at δ/T (PLD), times T.

Fixed-size batches (a batch of B = round(q·n) examples drawn without replacement each step) need the
neighbouring relation that keeps n fixed: *substitution* (replace one example). Replacing an example moves
the clipped sum by up to 2C, so the base Gaussian has multiplier σ/2 relative to that sensitivity; the
accountant is ``dp_accounting``'s RDP for ``SampledWithoutReplacementDpEvent`` under ``REPLACE_ONE`` (Wang,
Balle & Kasiviswanathan 2019). Accounting such a run as if it were Poisson sampling under add/remove is a
known mistake (Lebeda, Regehr, Kamath & Steinke 2024; Chua et al. 2024): the audit refutes it
(:mod:`dpexplore.ml.audit`).

``dp_accounting`` is imported inside the functions, so ``import dpexplore`` stays light.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.core.validation import check_choice, check_delta, check_int, check_probability, check_real

__all__ = ["ACCOUNTANTS", "MAX_STEPS", "PLD_GRID", "SAMPLINGS", "check_noise_multiplier", "dpsgd_epsilon",
           "epsilon_vs_steps"]

ACCOUNTANTS = ("pld", "rdp", "none", "basic")
SAMPLINGS = ("poisson", "fixed")
#: public maximum number of training steps
MAX_STEPS = 100_000
#: PLD value-discretisation interval (pessimistic: the ε is an upper bound, at most ~T·grid above the limit)
PLD_GRID = 1e-2
#: largest noise multiplier accepted
MAX_NOISE_MULTIPLIER = 1e3


def check_noise_multiplier(sigma, name: str = "noise_multiplier") -> float:
    """Validate σ ≥ 0 (σ = 0: no noise, ε = ∞)."""
    return check_real(sigma, name, low=0.0, high=MAX_NOISE_MULTIPLIER)


@functools.lru_cache(maxsize=256)
def _one_step_pld(q: float, sigma: float):
    """One Poisson-subsampled Gaussian step's PLD, built as ``dp_accounting.pld.PLDAccountant`` builds it."""
    import dp_accounting
    from dp_accounting.pld.privacy_loss_distribution import from_gaussian_mechanism

    return from_gaussian_mechanism(standard_deviation=sigma, value_discretization_interval=PLD_GRID,
                                   sampling_prob=q,
                                   neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)


@functools.lru_cache(maxsize=256)
def _one_step_rdp(q: float, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """(orders, RDP of one step) from ``dp_accounting``'s RDP accountant; T steps add up to T times it."""
    import dp_accounting
    from dp_accounting import rdp

    acct = rdp.RdpAccountant()
    acct.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), 1)
    return np.array(acct._orders, dtype=float), np.array(acct._rdp, dtype=float)


@functools.lru_cache(maxsize=4096)
def _epsilon(q: float, sigma: float, steps: int, delta: float, accountant: str, sampling: str,
             n: int) -> float:
    if sigma == 0.0:
        return math.inf
    if sampling == "fixed":
        import dp_accounting
        from dp_accounting import rdp

        batch = max(1, int(round(q * n)))
        acct = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        acct.compose(dp_accounting.SampledWithoutReplacementDpEvent(n, batch, dp_accounting.GaussianDpEvent(
            sigma / 2.0)), steps)
        return float(acct.get_epsilon(delta))
    if accountant == "none":
        return gdp_epsilon(math.sqrt(steps) / sigma, delta)
    if accountant == "rdp":
        from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

        orders, one = _one_step_rdp(q, sigma)
        return float(compute_epsilon(orders, steps * one, delta)[0])
    one = _one_step_pld(q, sigma)
    if accountant == "basic":
        return steps * float(one.get_epsilon_for_delta(delta / steps))
    return float(one.self_compose(steps).get_epsilon_for_delta(delta))


def dpsgd_epsilon(*, sampling_rate: float, noise_multiplier: float, steps: int, delta: float,
                  accountant: str = "pld", sampling: str = "poisson", n: int | None = None) -> float:
    """ε at δ of ``steps`` DP-SGD steps (see the module docstring for each accountant).

    Parameters
    ----------
    sampling_rate : float in (0, 1]
        q: Poisson rate (``sampling="poisson"``) or batch fraction B/n (``"fixed"``, B = round(q·n)).
    noise_multiplier : float ≥ 0
        σ (noise standard deviation / clip norm). σ = 0 gives ε = ∞.
    steps : int
    delta : float in (0, 1)
    accountant : {"pld", "rdp", "none", "basic"}
        For ``sampling="fixed"`` only ``"rdp"`` (substitution neighbours).
    sampling : {"poisson", "fixed"}
    n : int, optional
        Training-set size (needed for ``"fixed"``).

    Returns
    -------
    float
        An upper bound on ε (``inf`` for σ = 0).

    Examples
    --------
    >>> e = {a: dpsgd_epsilon(sampling_rate=0.05, noise_multiplier=1.0, steps=200, delta=1e-5, accountant=a)
    ...      for a in ACCOUNTANTS}
    >>> e["pld"] <= e["rdp"] <= e["none"], round(e["pld"], 1)
    (True, 4.8)
    """
    q = check_probability(sampling_rate, "sampling_rate", open_low=True)
    sigma = check_noise_multiplier(noise_multiplier)
    steps = check_int(steps, "steps", low=1, high=MAX_STEPS)
    delta = check_delta(delta)
    acc = check_choice(accountant, "accountant", ACCOUNTANTS)
    samp = check_choice(sampling, "sampling", SAMPLINGS)
    if samp == "fixed":
        if acc != "rdp":
            raise ValueError(f"accountant must be 'rdp' for sampling='fixed' (dp_accounting's PLD has no "
                             f"sampling without replacement); got {acc!r}")
        if n is None:
            raise ValueError("n (the training-set size) is required for sampling='fixed'")
        n = check_int(n, "n", low=1, high=10**9)
    else:
        n = 0
    return _epsilon(q, sigma, steps, delta, acc, samp, n)


def epsilon_vs_steps(*, sampling_rate: float, noise_multiplier: float, delta: float, steps: Sequence[int],
                     accountants: Sequence[str] = ACCOUNTANTS) -> dict[str, np.ndarray]:
    """ε after each number of steps in ``steps``, one array per accountant.

    Examples
    --------
    >>> r = epsilon_vs_steps(sampling_rate=0.05, noise_multiplier=1.0, delta=1e-5, steps=[10, 100])
    >>> bool(np.all(r["pld"] < r["none"]))
    True
    """
    if isinstance(steps, (str, bytes)) or not hasattr(steps, "__len__") or not 1 <= len(steps) <= 200:
        raise ValueError(f"steps must be a list of 1 to 200 step counts; got {steps!r}"[:200])
    accs = [check_choice(a, "accountants", ACCOUNTANTS) for a in accountants]
    return {a: np.array([dpsgd_epsilon(sampling_rate=sampling_rate, noise_multiplier=noise_multiplier, steps=t,
                                       delta=delta, accountant=a) for t in steps]) for a in accs}
