"""Closed forms of the intro track: output laws on neighbouring data sets, the privacy-loss random
variable, expected errors, the best attacker's success, and composition accountants.

Neighbouring data sets throughout: B differs from A in one person, whose answer changes from "no" to
"yes": the true count goes from c to c + Δ (Δ = 1 for randomized response; Δ > 1 when one person can
add several rows). Every function here is exact unless its
docstring says otherwise.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special  # not scipy.stats/optimize: ~0.5 s and ~20 MiB of every intro page's kernel

from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon, zcdp_to_dp
from dpexplore.core.randomized_response import flip_probability
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int, check_positive

from .mechanisms import MAX_PEOPLE, MECHANISMS, rr_count_sd

__all__ = [
    "ACCOUNTANTS",
    "MAX_RELEASES",
    "check_release_args",
    "advanced_composition",
    "advanced_composition_regimes",
    "composed_epsilon",
    "expected_abs_error",
    "lr_attacker_success",
    "mechanism_tradeoff",
    "noise_sd",
    "output_law",
    "pair_privacy_loss",
    "privacy_loss_survival",
    "release_pair",
    "split_noise_sd",
]

#: composition accountants, in the order the composition dashboard draws them
ACCOUNTANTS = ("basic", "advanced", "zcdp", "rdp", "pld", "exact")
#: the most releases composed
MAX_RELEASES = 1000


def check_release_args(mechanism, epsilon, delta, sensitivity) -> tuple[str, float, float, float]:
    """Validated ``(mechanism, ε, δ, Δ)`` of a counting-query release (Δ is 1 for randomized response)."""
    mech = check_choice(mechanism, "mechanism", MECHANISMS)
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = 1.0 if mech == "rr" else check_positive(sensitivity, "sensitivity")
    return mech, eps, d, sens


def noise_sd(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0, n: int = 100) -> float:
    """Standard deviation of the released count around the truth: √2·Δ/ε (Laplace), the analytic
    Gaussian σ, √(nμ(1 − μ))/(1 − 2μ) (debiased randomized response).

    Examples
    --------
    >>> noise_sd("laplace", epsilon=1.0) == math.sqrt(2)
    True
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    if mech == "laplace":
        return math.sqrt(2.0) * sens / eps
    if mech == "gaussian":
        return gaussian_sigma(eps, d, sens)
    return rr_count_sd(n, eps)


def expected_abs_error(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                       n: int = 100) -> tuple[float, str]:
    """E|release − true count| and its kind: Δ/ε (Laplace, exact), σ√(2/π) (Gaussian, exact),
    sd·√(2/π) (randomized response: the normal approximation of a debiased binomial sum).

    Examples
    --------
    >>> expected_abs_error("laplace", epsilon=0.5)
    (2.0, 'exact')
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    if mech == "laplace":
        return sens / eps, "exact"
    sd = noise_sd(mech, epsilon=eps, delta=d, sensitivity=sens, n=n)
    return sd * math.sqrt(2.0 / math.pi), ("exact" if mech == "gaussian" else "approximation")


def output_law(mechanism: str, x, *, count: int, n: int, epsilon: float, delta: float = 1e-5,
               sensitivity: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The output's density (Laplace, Gaussian) or probability (randomized response: the number of
    "yes" answers) at ``x``, on data set A (count c) and on its neighbour B (count c + Δ).

    Examples
    --------
    >>> pa, pb = output_law("laplace", [0.0, 10.0], count=10, n=100, epsilon=1.0)
    >>> bool(np.all(pa / pb <= math.e + 1e-12))
    True
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    n = check_int(n, "n", low=1, high=MAX_PEOPLE)
    c = check_int(count, "count", low=0, high=n - 1 if mech == "rr" else n)
    x = np.asarray(x, dtype=float)
    if mech == "laplace":
        b = sens / eps
        return np.exp(-np.abs(x - c) / b) / (2 * b), np.exp(-np.abs(x - c - sens) / b) / (2 * b)
    if mech == "gaussian":
        s = gaussian_sigma(eps, d, sens)
        norm = s * math.sqrt(2 * math.pi)
        return np.exp(-0.5 * ((x - c) / s) ** 2) / norm, np.exp(-0.5 * ((x - c - sens) / s) ** 2) / norm
    from scipy import stats  # Boost's accurate binomial pmf; imported only when randomized response is drawn

    mu = flip_probability(eps)

    def law(cc: int) -> np.ndarray:
        return np.convolve(stats.binom.pmf(np.arange(cc + 1), cc, 1 - mu),
                           stats.binom.pmf(np.arange(n - cc + 1), n - cc, mu))

    pa, pb = law(c), law(c + 1)
    idx = np.clip(np.rint(x).astype(int), 0, n)
    inside = (x >= 0) & (x <= n) & (np.abs(x - np.rint(x)) < 1e-9)
    return np.where(inside, pa[idx], 0.0), np.where(inside, pb[idx], 0.0)


def privacy_loss_survival(mechanism: str, t, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                          count: int = 30, n: int = 100) -> np.ndarray:
    """P(L > t) of the privacy loss L = ln(p_A(Y)/p_B(Y)), Y the output on data set A.

    Laplace: L = ε at Y ≤ c (probability 1/2), −ε at Y ≥ c + Δ (½e^{−ε}), and density ¼e^{−(ε−l)/2}
    between; Gaussian: L ~ N(μ²/2, μ²), μ = Δ/σ; randomized response: from the exact law of the
    "yes" count (:func:`output_law`, which needs ``count`` and ``n``), |L| ≤ ε.

    Examples
    --------
    >>> float(privacy_loss_survival("laplace", 1.0, epsilon=1.0))
    0.0
    >>> round(float(privacy_loss_survival("laplace", 0.999999, epsilon=1.0)), 4)
    0.5
    >>> float(privacy_loss_survival("rr", 1.0 + 1e-9, epsilon=1.0))
    0.0
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    t = np.asarray(t, dtype=float)
    if mech == "gaussian":
        mu = sens / gaussian_sigma(eps, d, sens)
        return special.ndtr(-(t - mu * mu / 2.0) / mu)
    if mech == "rr":
        k = np.arange(check_int(n, "n", low=1, high=MAX_PEOPLE) + 1)
        pa, pb = output_law("rr", k, count=count, n=n, epsilon=eps)
        ok = (pa > 0) & (pb > 0)
        loss, mass = np.log(pa[ok]) - np.log(pb[ok]), pa[ok]
        return np.array([mass[loss > x].sum() for x in np.atleast_1d(t).ravel()]).reshape(t.shape)
    # Laplace: P(L > t) = P(L = ε) + ∫_t^ε ¼ e^{−(ε−l)/2} dl for −ε ≤ t < ε
    tt = np.clip(t, -eps, eps)
    cont = 0.5 * (1.0 - np.exp(-(eps - tt) / 2.0))
    return np.where(t < -eps, 1.0, np.where(t < eps, 0.5 + cont, 0.0))


def lr_attacker_success(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0) -> float:
    """Success probability of the best (likelihood-ratio) guess "A or B?" from one output, 50/50 prior.

    Laplace: 1 − ½e^{−ε/2} (guess B above c + Δ/2); Gaussian: Φ(μ/2) with μ = Δ/σ; randomized
    response (one bit): e^ε/(e^ε + 1), which reaches the ε-DP bound.

    Examples
    --------
    >>> round(lr_attacker_success("rr", epsilon=math.log(3)), 6)
    0.75
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    if mech == "laplace":
        return 1.0 - 0.5 * math.exp(-eps / 2.0)
    if mech == "gaussian":
        return float(special.ndtr(sens / gaussian_sigma(eps, d, sens) / 2.0))
    return 1.0 - flip_probability(eps)


def mechanism_tradeoff(mechanism: str, alpha, *, epsilon: float, delta: float = 1e-5,
                       sensitivity: float = 1.0) -> np.ndarray:
    """The mechanism's own trade-off curve: the smallest miss rate of a test with false-alarm rate α.

    Laplace (threshold tests, Dong, Roth & Su 2022, Ex. 2.9 form): β = F(F⁻¹(1 − α) − ε) with F the
    standard Laplace CDF of scale 1; Gaussian: Φ(Φ⁻¹(1 − α) − μ); randomized response (one bit):
    the (ε, 0)-DP curve.

    Examples
    --------
    >>> round(float(mechanism_tradeoff("gaussian", 0.5, epsilon=1.0, delta=1e-5)), 4) < 0.5
    True
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    if mech == "laplace":
        return _laplace_cdf(_laplace_ppf(1.0 - a) - eps)
    if mech == "gaussian":
        mu = sens / gaussian_sigma(eps, d, sens)
        return special.ndtr(special.ndtri(1.0 - a) - mu)
    e = math.exp(min(eps, 700.0))
    return np.maximum.reduce([np.zeros_like(a), 1.0 - e * a, (1.0 - a) / e])


def release_pair(mechanism: str, secret, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0,
                 broken: bool = False, rng=None) -> np.ndarray:
    """One output per entry of ``secret`` (0 = data set A, 1 = its neighbour B) of the pair the attacker
    faces: the noisy count minus A's count (so A's value is 0 and B's is Δ), or, for randomized
    response, the one person's flipped answer ("no" in A, "yes" in B).

    ``broken=True`` releases with half the noise (randomized response at 2ε): a mechanism that spends
    more than it claims, for audits and the attacker game.

    Examples
    --------
    >>> release_pair("rr", [0, 1, 1], epsilon=50.0, rng=0).tolist()
    [0.0, 1.0, 1.0]
    """
    from dpexplore.core.random import as_generator

    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    s = np.asarray(secret, dtype=int)
    gen = as_generator(rng)
    if mech == "rr":
        mu = flip_probability(2 * eps if broken else eps)
        return np.where(gen.random(s.shape) < mu, 1 - s, s).astype(float)
    scale = sens / eps if mech == "laplace" else gaussian_sigma(eps, d, sens)
    if broken:
        scale /= 2.0
    noise = gen.laplace(0.0, scale, s.shape) if mech == "laplace" else gen.normal(0.0, scale, s.shape)
    return s * sens + noise


def pair_privacy_loss(mechanism: str, outputs, *, epsilon: float, delta: float = 1e-5,
                      sensitivity: float = 1.0) -> np.ndarray:
    """The privacy loss ln(p_A(y)/p_B(y)) of outputs y of :func:`release_pair` (A at 0, B at Δ).

    Examples
    --------
    >>> pair_privacy_loss("laplace", [-5.0, 5.0], epsilon=1.0).tolist()
    [1.0, -1.0]
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    y = np.asarray(outputs, dtype=float)
    if mech == "laplace":  # by branch, so that the atoms ±ε are exact: the last bits of |y − Δ| − |y| would
        # differ between A and B and give a threshold test a floating-point side channel (cf. Mironov 2012)
        return np.where(y <= 0, eps, np.where(y >= sens, -eps, eps * (sens - 2.0 * y) / sens))
    if mech == "gaussian":
        s = gaussian_sigma(eps, d, sens)
        return ((y - sens) ** 2 - y ** 2) / (2.0 * s * s)
    return np.where(y > 0.5, -eps, eps)


# -- composition ---------------------------------------------------------------------------------
def advanced_composition(epsilon: float, k: int, delta_slack: float) -> float:
    """ε of k ε-DP releases by the advanced composition theorem: ε√(2k ln(1/δ')) + kε(e^ε − 1), at δ' extra.

    Dwork, Rothblum, Vadhan (2010), Thm III.3; never worse than kε here (the smaller is returned).

    Examples
    --------
    >>> round(advanced_composition(0.1, 100, 1e-5), 4)
    5.8502
    """
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", low=1, high=MAX_RELEASES)
    d = check_delta(delta_slack, "delta_slack")
    return min(k * eps, eps * math.sqrt(2.0 * k * math.log(1.0 / d)) + k * eps * math.expm1(eps))


def advanced_composition_regimes(epsilon: float, delta_slack: float) -> tuple[float, float]:
    """Where each shape of advanced composition's total ε√(2k ln(1/δ')) + kε(e^ε − 1) holds, at fixed ε.

    Returns ``(k_sqrt, k_beats_basic)``:

    * ``k_sqrt`` = 2 ln(1/δ')/(e^ε − 1)²: for k below it the √k term ε√(2k ln(1/δ')) is the larger, and
      the total grows like √k; above it the linear term kε(e^ε − 1) is, and the total grows like k.
      (At fixed ε the composed privacy loss is a sum of k losses whose mean is positive, so every
      accountant's total, the exact one included, eventually grows linearly in k.)
    * ``k_beats_basic`` = 2 ln(1/δ')/(2 − e^ε)² for ε < ln 2 (``inf`` otherwise): the total is below
      basic composition's kε exactly for k above it.

    Examples
    --------
    >>> [round(x, 1) for x in advanced_composition_regimes(1.0, 1e-5)]
    [7.8, inf]
    >>> [round(x) for x in advanced_composition_regimes(0.1, 1e-5)]
    [2082, 29]
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta_slack, "delta_slack")
    two_log = 2.0 * math.log(1.0 / d)
    k_sqrt = two_log / math.expm1(eps) ** 2 if eps < 700 else 0.0
    k_beat = two_log / (2.0 - math.exp(eps)) ** 2 if eps < math.log(2.0) else math.inf
    return k_sqrt, k_beat


def _gauss_mu(eps: float, d: float) -> float:
    return 1.0 / gaussian_sigma(eps, d, 1.0)  # μ = Δ/σ (scale-free)


def composed_epsilon(mechanism: str, accountant: str, *, epsilon: float, delta: float, k: int) -> float:
    """Total ε at total δ of k releases, each the Laplace mechanism at ε or the Gaussian mechanism
    calibrated to (ε, δ), by one accountant.

    ``"basic"``: each release is (ε_i, δ/k)-DP, total Σε_i; ``"advanced"``: :func:`advanced_composition`
    with δ/2 as slack (Gaussian releases: each (ε_i, δ/(2k))-DP); ``"zcdp"``: ρ = kΔ²/(2σ²) (Gaussian) or
    kε²/2 (ε-DP ⇒ ε²/2-zCDP, Bun & Steinke 2016), then ρ + 2√(ρ ln(1/δ)); ``"rdp"`` and ``"pld"``: Google's
    ``dp_accounting`` (PLD pessimistic on a 10⁻³ grid); ``"exact"``: Gaussian only, √k·μ-GDP (NaN for
    Laplace: use ``"pld"``). All are upper bounds on the true ε except ``"exact"``, which is it.

    Examples
    --------
    >>> e = {a: composed_epsilon("gaussian", a, epsilon=1.0, delta=1e-5, k=10) for a in ACCOUNTANTS}
    >>> e["exact"] <= min(e["pld"], e["rdp"], e["zcdp"]) + 1e-6 and e["pld"] < e["basic"]
    True
    """
    mech = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    acc = check_choice(accountant, "accountant", ACCOUNTANTS)
    eps, d = check_epsilon(epsilon), check_delta(delta)
    k = check_int(k, "k", low=1, high=MAX_RELEASES)
    mu = _gauss_mu(eps, d) if mech == "gaussian" else math.nan
    if acc == "basic":
        return k * (eps if mech == "laplace" else gdp_epsilon(mu, d / k))
    if acc == "advanced":
        e1 = eps if mech == "laplace" else gdp_epsilon(mu, d / (2 * k))
        if e1 == 0.0:
            return 0.0
        return advanced_composition(e1, k, d / 2 if mech == "gaussian" else d)
    if acc == "zcdp":
        rho = k * (mu * mu / 2.0 if mech == "gaussian" else eps * eps / 2.0)
        return zcdp_to_dp(rho, d)
    if acc == "exact":
        return gdp_epsilon(math.sqrt(k) * mu, d) if mech == "gaussian" else math.nan

    if acc == "rdp":  # one release's RDP curve from dp_accounting, k-fold by adding it up, its conversion
        from dp_accounting import rdp

        orders, one = _rdp_one(mech, 1.0 / mu if mech == "gaussian" else 1.0 / eps)
        return float(rdp.compute_epsilon(orders, [k * r for r in one], d)[0])
    from dp_accounting.pld import privacy_loss_distribution as pld

    one = (pld.from_gaussian_mechanism(1.0 / mu, value_discretization_interval=1e-3) if mech == "gaussian"
           else pld.from_laplace_mechanism(1.0 / eps, value_discretization_interval=1e-3))
    return float(one.self_compose(k).get_epsilon_for_delta(d))


@functools.lru_cache(maxsize=256)
def _rdp_one(mech: str, noise: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(orders, RDP at each order) of one Gaussian (noise multiplier) or Laplace (scale/Δ) release."""
    import dp_accounting
    from dp_accounting import rdp

    acct = rdp.RdpAccountant()
    acct.compose(dp_accounting.GaussianDpEvent(noise) if mech == "gaussian" else dp_accounting.LaplaceDpEvent(noise))
    return tuple(float(o) for o in acct.orders), tuple(float(r) for r in acct.rdp)


def split_noise_sd(mechanism: str, accountant: str, *, total_epsilon: float, delta: float, k: int,
                   sensitivity: float = 1.0) -> float:
    """Noise standard deviation of each of k answers when a total budget (ε, δ) is split evenly.

    The largest per-release noise level that the accountant certifies within the budget: basic (ε/k,
    δ/k each), advanced (solved numerically), zCDP (ρ = ρ(ε, δ) split k ways), exact (Gaussian:
    μ_total/√k per release). RDP and PLD need a search over dp_accounting calls and are not offered
    here (NaN).

    Examples
    --------
    >>> a = split_noise_sd("gaussian", "basic", total_epsilon=1.0, delta=1e-5, k=10)
    >>> b = split_noise_sd("gaussian", "exact", total_epsilon=1.0, delta=1e-5, k=10)
    >>> b < a
    True
    """
    mech = check_choice(mechanism, "mechanism", ("laplace", "gaussian"))
    acc = check_choice(accountant, "accountant", ACCOUNTANTS)
    eps, d = check_epsilon(total_epsilon, "total_epsilon"), check_delta(delta)
    k = check_int(k, "k", low=1, high=MAX_RELEASES)
    sens = check_positive(sensitivity, "sensitivity")
    if acc in ("rdp", "pld"):
        return math.nan
    if mech == "laplace":
        if acc == "exact":
            return math.nan
        if acc == "basic":
            e1 = eps / k
        elif acc == "zcdp":
            from dpexplore.core.gaussian import dp_to_zcdp

            e1 = math.sqrt(2.0 * dp_to_zcdp(eps, d) / k)
        else:
            e1 = _invert(lambda e: advanced_composition(e, k, d), eps)
        return math.sqrt(2.0) * sens / e1
    if acc == "basic":
        return gaussian_sigma(eps / k, d / k, sens)
    if acc == "zcdp":
        from dpexplore.core.gaussian import dp_to_zcdp

        return sens * math.sqrt(k / (2.0 * dp_to_zcdp(eps, d)))
    if acc == "exact":
        mu_total = 1.0 / gaussian_sigma(eps, d, 1.0)
        return sens * math.sqrt(k) / mu_total
    # advanced: each release (e1, δ/(2k)), slack δ/2
    e1 = _invert(lambda e: advanced_composition(e, k, d / 2), eps)
    return gaussian_sigma(e1, d / (2 * k), sens)


def _laplace_ppf(q: np.ndarray) -> np.ndarray:
    """Quantile of the standard Laplace law (scale 1): log 2q below the median, −log 2(1 − q) above."""
    with np.errstate(divide="ignore"):
        return np.where(q <= 0.5, np.log(2 * np.minimum(q, 0.5)), -np.log(2 * (1 - np.maximum(q, 0.5))))


def _laplace_cdf(x: np.ndarray) -> np.ndarray:
    """CDF of the standard Laplace law: e^x / 2 below 0, 1 − e^(−x) / 2 above."""
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0.0)), 1 - 0.5 * np.exp(-np.maximum(x, 0.0)))


def _invert(total, target: float) -> float:
    """The largest per-release ε with total(ε) ≤ target (total increasing), to 10⁻¹⁰ relative.

    Bisection that keeps total(lo) ≤ target: the answer is never a hair above the budget (a root finder's
    answer can be, on either side of the root)."""
    lo, hi = 1e-12, target
    if total(hi) <= target:
        return hi
    if total(lo) > target:
        return lo
    while hi - lo > max(1e-14, 1e-10 * lo):
        mid = 0.5 * (lo + hi)
        if total(mid) <= target:
            lo = mid
        else:
            hi = mid
    return float(lo)
