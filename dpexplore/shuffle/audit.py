"""Audits of shuffled randomized response: measured privacy beside each accounting's claim.

Paper 4 (Shvets 2026) makes audits here *exact*: the shuffled histogram's laws T_{n,k} and
T_{n,k+1} are computable (binomial convolutions, :mod:`.exact`), so the exact ε of a neighbouring
pair at δ can be set beside the ε that each accounting claims (FMT21 closed form / numerical,
FMT23, the privacy blanket, the GDP approximation, the Chernoff bound).

* **Neighbours** (:func:`worst_case_datasets`): k of the other users hold 1, and one more user is
  switched 0 → 1 — the pair (T_{n,k}, T_{n,k+1}). k = 0 (the canonical pair) is *not* always the
  hardest (n = 10⁴, ε0 = 2: k = 3 is worse), so the exact audit uses the pair that
  :func:`dpexplore.shuffle.worst_case_epsilon` finds worst: the exact worst case over all data
  sets where its enumeration is exhaustive (n ≤ 600), the lower end of its certified branch-and-
  bound bracket (n ≤ 10⁷, within 0.1% of the worst case), else the worst of the pairs it evaluates.
* **Exact audit** (:func:`exact_shuffle_audit`): that pair's two-sided ε(δ) versus the claim.
  Any pair's exact ε above a claimed bound refutes the claim.
  A *bound* (FMT, blanket, Chernoff) must never be exceeded. The **GDP curve is an
  approximation, not a bound**: at finite n the exact ε can exceed it ("approximation exceeded",
  see :func:`claim_kind`), which says nothing against the mechanism.
* **Statistical audit** (:func:`statistical_shuffle_audit`): sample histograms of the two data
  sets in bulk, score them with the exact log-likelihood ratio log L(N), L = (1/n) Σ_y N_y
  W_1(y)/W_0(y) (the canonical-pair identity, Neyman–Pearson optimal), and convert the best
  threshold test's error rates into ε̂, a lower bound on the true ε at 95 % confidence
  (``dpexplore.core.audit``). It is non-vacuous only for small n: at n ≳ 10³ the pair is a Gaussian
  shift with μ = √(χ²/n) ≪ 1 and no feasible number of runs resolves ε̂ > 0 at small δ —
  which is why exact audits matter.
* **Broken variants** (never defaults): :func:`broken_shuffled_histogram` (the randomizer runs
  with 2ε0 but claims ε0) and :func:`broken_mixture_epsilon` (an accountant using the i.i.d.
  mixture constant I_mix at π = ½ as if it were a bound — over-optimistic, see
  :mod:`.constants`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpexplore.core.audit import ExactAudit, StatisticalAudit, sampled_audit
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_delta, check_epsilon, check_int, check_real

from . import asymptotics as A
from ._validate import MAX_CHUNK, MAX_N_FORMULA
from .constants import mixture_constant
from .exact import shuffled_pair
from .randomizers import binary_rr
from .solver import ACCOUNTINGS, shuffled_epsilon
from .worst import worst_case_epsilon

__all__ = [
    "AUDIT_ACCOUNTINGS",
    "VARIANTS",
    "ShuffledHistogram",
    "worst_case_datasets",
    "shuffled_histogram",
    "broken_shuffled_histogram",
    "broken_mixture_epsilon",
    "claimed_epsilon",
    "claim_kind",
    "exact_shuffle_audit",
    "statistical_shuffle_audit",
]

#: accountings an audit can check: the package's ones plus the deliberately broken mixture accountant
AUDIT_ACCOUNTINGS = (*ACCOUNTINGS, "broken_mixture")
#: "correct": binary RR at ε0; "broken_randomizer": :func:`broken_shuffled_histogram` (2ε0, claims ε0)
VARIANTS = ("correct", "broken_randomizer")
_MAX_E0 = 350.0  # the broken randomizer runs at 2ε0 ≤ 700 (exp stays finite)


def _check_e0(epsilon0: float) -> float:
    e0 = check_epsilon(epsilon0, "epsilon0")
    if e0 > _MAX_E0:
        raise ValueError(f"epsilon0 must be a finite number > 0 and <= {_MAX_E0:g}; got {epsilon0!r}")
    return e0


def worst_case_datasets(n: int, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Neighbouring data sets with laws T_{n,k}, T_{n,k+1}: users 1..k hold 1, then user 0 switched to 1.

    k = 0 is the canonical pair (not always the worst: see the module docstring); pass the
    ``pair_k`` of :func:`dpexplore.shuffle.worst_case_epsilon` for the worst pair it found.

    Examples
    --------
    >>> x0, x1 = worst_case_datasets(4)
    >>> x0.tolist(), x1.tolist()
    ([0, 0, 0, 0], [1, 0, 0, 0])
    """
    n = check_int(n, "n", low=1, high=10**8)
    k = check_int(k, "k", low=0, high=n - 1)
    x0 = np.zeros(n, dtype=np.int8)
    x0[1:k + 1] = 1
    x1 = x0.copy()
    x1[0] = 1
    return x0, x1


@dataclass(frozen=True)
class ShuffledHistogram:
    """Output of the shuffled binary-RR protocol.

    Attributes
    ----------
    counts : ndarray, shape (2,)
        How many reports were 0 and 1 (all the shuffler releases).
    epsilon0 : float
        The local ε0 the protocol *claims* (for the broken variant, not the one it spends).
    """

    counts: np.ndarray
    epsilon0: float


def _check_data(data) -> np.ndarray:
    try:
        arr = np.asarray(data)
    except Exception as exc:  # ragged / exotic objects
        raise TypeError(f"data must be a 1-d array of bits 0/1; got {type(data).__name__}") from exc
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"data must be a non-empty 1-d array of bits 0/1; got {data!r}")
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"data must be a non-empty 1-d array of bits 0/1; got shape {arr.shape}")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"data must contain only bits 0 and 1; got {data!r}")
    return arr.astype(np.int8)


def _run(arr: np.ndarray, e0_spent: float, gen: np.random.Generator) -> np.ndarray:
    flip = 1.0 / (1.0 + math.exp(e0_spent))  # binary RR: keep the bit w.p. e^{ε0}/(1 + e^{ε0})
    reports = np.where(gen.random(arr.size) < flip, 1 - arr, arr)
    ones = int(reports.sum())  # the shuffler releases only the histogram
    return np.array([arr.size - ones, ones])


def shuffled_histogram(data, *, epsilon0: float, rng: RNGLike = None) -> ShuffledHistogram:
    """Each user applies binary RR with ε0; the shuffler releases the histogram of reports.

    Examples
    --------
    >>> shuffled_histogram([0, 1, 1, 0], epsilon0=50.0, rng=0).counts.tolist()  # ε0 huge: no noise
    [2, 2]
    """
    arr = _check_data(data)
    e0 = _check_e0(epsilon0)
    return ShuffledHistogram(_run(arr, e0, as_generator(rng)), e0)


def broken_shuffled_histogram(data, *, epsilon0: float, rng: RNGLike = None) -> ShuffledHistogram:
    """BROKEN on purpose: the local randomizer runs with 2ε0 but the result claims ε0.

    Its true shuffled privacy is that of binary RR at 2ε0 (exact ε from
    ``shuffled_pair(binary_rr(2 * epsilon0), n)``). For teaching audits only — never use it.

    Examples
    --------
    >>> broken_shuffled_histogram([0, 1], epsilon0=1.0, rng=0).epsilon0
    1.0
    """
    arr = _check_data(data)
    e0 = _check_e0(epsilon0)
    return ShuffledHistogram(_run(arr, 2.0 * e0, as_generator(rng)), e0)  # the bug: 2ε0 spent


def broken_mixture_epsilon(epsilon0: float, n: int, delta: float) -> float:
    """BROKEN on purpose: an accountant that treats the users as an i.i.d. mixture.

    It claims the GDP ε with μ = √(I_mix/n), I_mix = I_π/(1 + π(1 − π)I_π) at π = ½ (a balanced
    population "hides" the changed user). I_mix < I_π: the claim is over-optimistic, and the exact
    ε of the canonical pair exceeds it for moderate ε0 (e.g. ε0 = 2, n = 10⁴). Teaching only.

    Examples
    --------
    >>> broken_mixture_epsilon(2.0, 10_000, 1e-6) < shuffled_epsilon(2.0, 10_000, 1e-6, accounting="exact")
    True
    """
    e0 = _check_e0(epsilon0)
    n = check_int(n, "n", low=1, high=MAX_N_FORMULA)
    delta = check_delta(delta)
    return A.gdp_epsilon_at(math.sqrt(mixture_constant(binary_rr(e0), 0.5) / n), delta)  # the bug: I_mix


def claimed_epsilon(epsilon0: float, n: int, delta: float, *, accounting: str) -> float:
    """ε claimed for n shuffled binary-RR reports by one accounting (NaN: that accounting says nothing).

    Examples
    --------
    >>> round(claimed_epsilon(4.0, 100_000, 1e-6, accounting="fmt21_closed_form"), 4)
    0.5378
    """
    accounting = check_choice(accounting, "accounting", AUDIT_ACCOUNTINGS)
    if accounting == "broken_mixture":
        return broken_mixture_epsilon(epsilon0, n, delta)
    e0 = _check_e0(epsilon0)
    n = check_int(n, "n", low=2, high=MAX_N_FORMULA)
    return shuffled_epsilon(e0, n, delta, accounting=accounting)


def claim_kind(accounting: str) -> str:
    """``"bound"`` (must hold), ``"approximation"`` (GDP: may be exceeded at finite n), ``"exact"``, ``"broken"``.

    Examples
    --------
    >>> claim_kind("gdp"), claim_kind("fmt23_numerical"), claim_kind("broken_mixture")
    ('approximation', 'bound', 'broken')
    """
    accounting = check_choice(accounting, "accounting", AUDIT_ACCOUNTINGS)
    return "broken" if accounting == "broken_mixture" else ACCOUNTINGS[accounting][1]


def _audited_e0(e0: float, variant: str) -> float:
    return 2.0 * e0 if variant == "broken_randomizer" else e0


def exact_shuffle_audit(epsilon0: float, n: int, delta: float, *, accounting: str = "fmt23_numerical",
                        variant: str = "correct", grid: int = 40) -> ExactAudit:
    """Exact ε(δ) of the worst neighbouring pair found, beside an accounting's claim.

    The pair is (T_{n,k}, T_{n,k+1}) with k = ``worst_case_epsilon(...).pair_k``: the exact worst
    case over all data sets for n ≤ 600 (exhaustive); up to n = 10⁷ the pair attaining the lower end
    of the certified branch-and-bound bracket (the worst case is at most 0.1% above it); beyond,
    the worst of k ∈ {0, 1, 2, 3, 4, 8}. Always an actual pair — a *lower* bound on the worst
    case, which is what an audit needs (any pair above a claimed bound refutes it).
    ``ExactAudit`` has no field for k; it is ``worst_case_epsilon``'s.

    Parameters
    ----------
    epsilon0 : float
        Claimed local ε0 of binary RR, in (0, 350].
    n : int
        Users (2 ≤ n ≤ 10¹⁰; binomial laws in log space, instant at n = 10⁶).
    delta : float
    accounting : str
        One of :data:`AUDIT_ACCOUNTINGS`; see :func:`claim_kind` for how to read a violation.
    variant : {"correct", "broken_randomizer"}
        ``"broken_randomizer"`` audits :func:`broken_shuffled_histogram` (spends 2ε0).
    grid : int
        Points of the returned privacy curve.

    Returns
    -------
    ExactAudit
        ``claimed_epsilon`` is None where the accounting says nothing (NaN claim).

    Examples
    --------
    >>> a = exact_shuffle_audit(4.0, 100_000, 1e-6, accounting="fmt21_closed_form")
    >>> round(a.epsilon, 4), a.violation  # the worst pair at n = 10⁵ (k = 8, branch and bound)
    (0.0847, False)
    >>> exact_shuffle_audit(2.0, 10_000, 1e-6, variant="broken_randomizer").violation
    True
    """
    e0 = _check_e0(epsilon0)
    n = check_int(n, "n", low=2, high=MAX_N_FORMULA)
    delta = check_delta(delta)
    accounting = check_choice(accounting, "accounting", AUDIT_ACCOUNTINGS)
    variant = check_choice(variant, "variant", VARIANTS)
    grid = check_int(grid, "grid", low=2, high=10_000)
    claim = claimed_epsilon(e0, n, delta, accounting=accounting)
    R = binary_rr(_audited_e0(e0, variant))
    wk = worst_case_epsilon(R, n, delta).pair_k
    pair = shuffled_pair(R, n, k=0 if wk is None else wk)
    eps = pair.epsilon(delta)  # two-sided max of the exact pair
    top = eps if math.isfinite(eps) and eps > 0 else 1.0
    epsilons = np.linspace(0.0, 1.5 * top, grid)
    deltas = np.asarray(pair.delta(epsilons), dtype=float)
    if not math.isfinite(claim):
        return ExactAudit(eps, delta, None, False, epsilons, deltas)
    violation = eps > claim * (1 + 1e-9) + 1e-12
    return ExactAudit(eps, delta, claim, bool(violation), epsilons, deltas)


def statistical_shuffle_audit(
    epsilon0: float,
    n: int,
    delta: float,
    *,
    runs: int = 200_000,
    accounting: str = "fmt23_numerical",
    variant: str = "correct",
    confidence: float = 0.95,
    rng: RNGLike = None,
    progress: Callable[[int, int], bool | None] | None = None,
    chunk: int = 50_000,
) -> StatisticalAudit:
    """Black-box-style audit: histograms of the canonical data sets, scored by the exact log-LR.

    Runs the protocol ``runs`` times on each of :func:`worst_case_datasets` (in bulk: the count
    of 1-reports is sampled from its exact law Bin(n, q), resp. Bin(n − 1, q) + Bernoulli(1 − q),
    which is the law of :func:`shuffled_histogram`'s output), scores each histogram with
    log L(N) = log((1/n) Σ_y N_y W_1(y)/W_0(y)) of the *claimed* randomizer (monotone in N_1, so
    also optimal for the broken one) and returns ``dpexplore.core.audit.audit_from_scores``'s
    ε̂ (a lower bound on the true ε at 95 % confidence). ``progress(done, runs)`` is called per chunk;
    returning False cancels.

    Examples
    --------
    >>> a = statistical_shuffle_audit(4.0, 10, 1e-6, runs=20_000, rng=0)
    >>> a.epsilon_lower > 0.5, a.violation
    (True, False)
    """
    e0 = _check_e0(epsilon0)
    n = check_int(n, "n", low=2, high=MAX_N_FORMULA)
    delta = check_delta(delta)
    runs = check_int(runs, "runs", low=40, high=10**8)
    accounting = check_choice(accounting, "accounting", AUDIT_ACCOUNTINGS)
    variant = check_choice(variant, "variant", VARIANTS)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    chunk = check_int(chunk, "chunk", low=1, high=MAX_CHUNK)
    claim = claimed_epsilon(e0, n, delta, accounting=accounting)
    claim_arg = claim if math.isfinite(claim) else None
    gen = as_generator(rng)
    g0, g1 = gen.spawn(2)
    q = 1.0 / (1.0 + math.exp(_audited_e0(e0, variant)))  # P(report 1 | input 0) of the audited randomizer
    R = binary_rr(e0)  # the auditor scores with the claimed randomizer's likelihood ratio
    r0, r1 = float(R.ratio[0]), float(R.ratio[1])

    def score(c):  # exact log-likelihood ratio of the canonical pair (paper: L = 1 + U_n)
        return np.log((c * r1 + (n - c) * r0) / n)

    def sample(m):  # the exact law of the 1-report count (same streams, whatever the chunking)
        c0 = g0.binomial(n, q, m)
        c1 = g1.binomial(n - 1, q, m) + (g1.random(m) >= q)  # user 0 holds 1: reports 1 w.p. 1 − q
        return score(c0), score(c1)

    return sampled_audit(sample, runs, delta=delta, confidence=conf, claimed_epsilon=claim_arg, chunk=chunk,
                         progress=progress)
