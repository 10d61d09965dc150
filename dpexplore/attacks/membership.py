"""Membership inference on released column means (Homer et al. 2008; Dwork, Smith, Steinke, Ullman &
Vadhan 2015).

A study of n people, each with d 0/1 attributes (allele-frequency-style columns), publishes the d column
means q. An attacker holds a target's attributes y and a reference sample of N people from the same
population (its means p̂), and scores T = ⟨y − p̂, q − p̂⟩: a member pulls the means towards herself, so
T is larger when the target is in the study. Thresholding T at a false-positive rate α (non-members
wrongly called members) gives a true-positive rate; the curve over α is the test's ROC.

Simulation (exact in law, O(d) per study): a study is the target (member case) or a fresh person
(non-member case) plus n − 1 others, whose attribute sums are Binomial(n − 1, p_j). Both cases share the
n − 1 others, so each (member, non-member) pair of releases is a pair of neighbouring data sets
(replacement: the target swapped for someone else) — which is what the DP trade-off bound is about. The
noise enters the score linearly (⟨y − p̂, e⟩ with e = scale · a standard draw), so one simulation
(:func:`membership_score_parts`) gives the scores at every noise model and ε, on the same people.

Examples
--------
>>> s = membership_scores(n=100, d=2000, studies=400, rng=0)
>>> r = roc_at(s.members, s.non_members, [0.05])
>>> bool(r[0] > 0.5)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_bool, check_cells, check_choice, check_epsilon, check_int, check_vector

from .data import MAX_ATTRIBUTES, MAX_PEOPLE, population_frequencies
from .theory import means_noise_scale

__all__ = [
    "MAX_REFERENCE",
    "MAX_STUDIES",
    "MEANS_NOISE",
    "MembershipScores",
    "MembershipParts",
    "binomial_columns",
    "membership_score_parts",
    "membership_scores",
    "noisy_means",
    "roc_at",
]

MEANS_NOISE = ("none", "laplace", "gaussian")
#: the most studies (pairs of releases) one call simulates
MAX_STUDIES = 200_000
#: the largest reference sample N
MAX_REFERENCE = 10**7
#: studies · d cells per chunk (memory)
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class MembershipScores:
    """The attacker's scores T on ``studies`` releases with the target in the study and as many without.

    Attributes
    ----------
    members, non_members : ndarray, shape (studies,)
    noise : str
    scale : float
        Laplace scale or Gaussian σ of each released mean (0 for ``"none"``).
    epsilon, delta : float
        The claimed total privacy of the d means (inf, 0 for ``"none"``).
    per_query : bool
        Broken variant: each mean given the whole ε.
    frequencies : ndarray, shape (d,)
        The population's p_j.
    """

    members: np.ndarray
    non_members: np.ndarray
    noise: str
    scale: float
    epsilon: float
    delta: float
    per_query: bool
    frequencies: np.ndarray


def noisy_means(sums, n: int, *, noise: str, scale: float, rng: np.random.Generator) -> np.ndarray:
    """Column means sums/n plus Laplace (scale) or Gaussian (sd) noise, independently per mean."""
    q = np.asarray(sums, dtype=float) / n
    if noise == "laplace":
        return q + rng.laplace(0.0, scale, q.shape)
    if noise == "gaussian":
        return q + rng.normal(0.0, scale, q.shape)
    return q


def membership_scores(*, n: int, d: int, studies: int = 2000, reference: int = 1000, noise: str = "none",
                      epsilon: float | None = None, delta: float = 1e-5, per_query: bool = False,
                      frequencies=None, rng: RNGLike = None) -> MembershipScores:
    """Simulate the membership attack on ``studies`` member and as many non-member releases.

    Parameters
    ----------
    n : int
        People in the study (2 ≤ n ≤ ``MAX_PEOPLE``).
    d : int
        Attributes released (1 ≤ d ≤ ``MAX_ATTRIBUTES``).
    studies : int
        Releases per case (20 ≤ studies ≤ ``MAX_STUDIES``).
    reference : int
        The attacker's reference sample size N (its means p̂ stand in for the population's).
    noise : {"none", "laplace", "gaussian"}
        Noise on the released means at a total (ε, δ) for all d of them
        (:func:`dpexplore.attacks.theory.means_noise_scale`).
    epsilon, delta : float
        Total privacy (``"laplace"``, ``"gaussian"``).
    per_query : bool
        Broken variant: each mean calibrated to the whole ε.
    frequencies : array_like, optional
        The population's p_j (default: :func:`~dpexplore.attacks.data.population_frequencies` from ``rng``).
    rng : Generator, int or None

    Returns
    -------
    MembershipScores

    Examples
    --------
    >>> s = membership_scores(n=100, d=200, studies=50, noise="laplace", epsilon=1.0, rng=0)
    >>> s.members.shape, round(s.scale, 3)
    ((50,), 2.0)
    """
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    studies = check_int(studies, "studies", low=20, high=MAX_STUDIES)
    big = check_int(reference, "reference", low=1, high=MAX_REFERENCE)
    mech = check_choice(noise, "noise", MEANS_NOISE)
    pq = check_bool(per_query, "per_query")
    g = as_generator(rng)
    p = None
    if frequencies is not None:
        p = check_vector(frequencies, "frequencies")
        if p.size != d or np.any((p < 0) | (p > 1)):
            raise ValueError(f"frequencies must be {d} numbers in [0, 1] (one per attribute); got {p.size}")
    if mech == "none":
        eps, dl, scale = math.inf, 0.0, 0.0
    else:
        if epsilon is None:
            raise ValueError(f"epsilon must be given (the total ε of the d means) for noise={mech!r}")
        eps = check_epsilon(epsilon)
        dl = float(delta) if mech == "gaussian" else 0.0
        scale = means_noise_scale(mech, n=n, d=d, epsilon=eps, delta=delta, per_query=pq)
    parts = membership_score_parts(n=n, d=d, studies=studies, reference=big, noises=(mech,), frequencies=p, rng=g)
    members, non = parts.scores(mech, scale)
    return MembershipScores(members, non, mech, float(scale), eps, dl, pq, parts.frequencies)


#: :func:`binomial_columns` inverts tables of (trials + 1) · d CDF values up to this size, else calls numpy
_CDF_CELLS = 5_000_000


def binomial_columns(trials: int, p, k: int, *, rng: RNGLike = None) -> np.ndarray:
    """k rows of independent Binomial(trials, p_j) counts, one column per p_j: a k × d int array.

    ``trials`` ≤ ``MAX_PEOPLE``, at most ``MAX_ATTRIBUTES`` probabilities ``p``, 1 ≤ k ≤ ``MAX_STUDIES`` and
    k·d ≤ 2,000,000 (one chunk of the membership simulation). Exact in law: each column inverts the
    Binomial(trials, p_j) CDF (the running sum of its pmf, computed in logs) at uniform draws; about 3x faster
    than ``Generator.binomial`` with one p per cell at the page's membership panel (99 trials, 500 columns,
    1000 rows: 39 ms vs 127 ms). Above ``_CDF_CELLS`` table entries it is ``Generator.binomial``.

    Examples
    --------
    >>> c = binomial_columns(10, [0.0, 0.5, 1.0], 4000, rng=0)
    >>> c[:, 0].max(), c[:, 2].min(), bool(abs(c[:, 1].mean() - 5) < 0.1)
    (np.int64(0), np.int64(10), True)
    """
    from scipy import special

    trials = check_int(trials, "trials", low=0, high=MAX_PEOPLE)
    p = check_vector(p, "p")
    if p.size > MAX_ATTRIBUTES or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p must be at most {MAX_ATTRIBUTES} probabilities in [0, 1]; got {p.size} values in "
                         f"[{p.min():g}, {p.max():g}]")
    k = check_int(k, "k", low=1, high=MAX_STUDIES)
    check_cells(_CHUNK_CELLS, k=k, d=p.size)
    g = as_generator(rng)
    if (trials + 1) * p.size > _CDF_CELLS:
        return g.binomial(trials, np.broadcast_to(p, (k, p.size)))
    x = np.arange(trials + 1)[None, :]
    q = p[:, None]
    log_pmf = (special.gammaln(trials + 1) - special.gammaln(x + 1) - special.gammaln(trials - x + 1)
               + special.xlogy(x, q) + special.xlog1py(trials - x, -q))
    cdf = np.cumsum(np.exp(log_pmf), axis=1)
    u = g.random((k, p.size))
    out = np.empty((k, p.size), dtype=np.int64)
    for j in range(p.size):  # the smallest x with CDF(x) > u; u < 1 ≤ CDF(trials) up to rounding: clip
        out[:, j] = np.searchsorted(cdf[j], u[:, j], side="right")
    return np.minimum(out, trials)


@dataclass(frozen=True)
class MembershipParts:
    """One simulation of the membership attack, split so that every noise model and scale reuses it.

    The score of a release with noise e (one draw per mean) is T = ⟨y − p̂, q − p̂⟩ + ⟨y − p̂, e⟩. With
    e = scale · e₁ for a standard draw e₁ (Laplace(0, 1) or N(0, 1)), the second term is scale · ⟨y − p̂, e₁⟩:
    :meth:`scores` adds it to the noise-free score, so the scores at any ε are exact in law and all ε (and
    the noise-free release) share the same people and the same standard noise (common random numbers).

    Attributes
    ----------
    plain : tuple of two ndarrays, shape (studies,)
        The noise-free scores (members, non-members).
    unit : dict
        Per noise model in ``noises``: ⟨y − p̂, e₁⟩ for the member and the non-member releases.
    frequencies : ndarray, shape (d,)
    """

    plain: tuple[np.ndarray, np.ndarray]
    unit: dict
    frequencies: np.ndarray

    def scores(self, noise: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """(members, non-members) scores with ``noise`` of the given scale (Laplace scale, Gaussian σ)."""
        if noise == "none":
            return self.plain
        if noise not in self.unit:
            raise ValueError(f"noise must be one of {sorted(self.unit)} for these parts; got {noise!r}")
        return tuple(a + scale * b for a, b in zip(self.plain, self.unit[noise]))


def membership_score_parts(*, n: int, d: int, studies: int, reference: int, noises=("laplace", "gaussian"),
                           frequencies=None, rng: RNGLike = None) -> MembershipParts:
    """The simulation behind :func:`membership_scores`, for several noise models and scales at once.

    The people are drawn from ``rng``; each noise model's standard noise from a stream of its own (seeded
    from ``rng`` first), so a model's parts do not depend on which other models are asked for. Arguments
    are as in :func:`membership_scores`; ``noises``: the noise models whose parts to compute.

    Examples
    --------
    >>> parts = membership_score_parts(n=100, d=200, studies=50, reference=1000, rng=0)
    >>> m0, _ = parts.scores("none", 0.0)
    >>> m1, _ = parts.scores("laplace", 2.0)
    >>> m0.shape, bool(np.all(m0 != m1))
    ((50,), True)
    """
    n = check_int(n, "n", low=2, high=MAX_PEOPLE)
    d = check_int(d, "d", low=1, high=MAX_ATTRIBUTES)
    studies = check_int(studies, "studies", low=20, high=MAX_STUDIES)
    reference = check_int(reference, "reference", low=1, high=MAX_REFERENCE)
    noises = tuple(check_choice(m, "noises", MEANS_NOISE) for m in noises)
    if frequencies is not None:
        frequencies = check_vector(frequencies, "frequencies")
        if frequencies.size != d or np.any((frequencies < 0) | (frequencies > 1)):
            raise ValueError(f"frequencies must be {d} numbers in [0, 1] (one per attribute); got {frequencies.size}")
    g = as_generator(rng)
    seeds = g.integers(0, 2**63, size=len(MEANS_NOISE) - 1)
    streams = {m: as_generator(int(s)) for m, s in zip(MEANS_NOISE[1:], seeds) if m in noises}
    p = population_frequencies(d, rng=g) if frequencies is None else frequencies
    p_ref = g.binomial(reference, p) / reference
    plain = (np.empty(studies), np.empty(studies))
    unit = {m: (np.empty(studies), np.empty(studies)) for m in streams}
    step = max(1, _CHUNK_CELLS // d)
    for lo in range(0, studies, step):
        k = min(step, studies - lo)
        y = (g.random((k, d)) < p).astype(float)  # the target
        z = (g.random((k, d)) < p).astype(float)  # who takes the target's place when she is out
        rest = binomial_columns(n - 1, p, k, rng=g)
        yc = y - p_ref
        plain[0][lo:lo + k] = np.einsum("ij,ij->i", yc, (rest + y) / n - p_ref)
        plain[1][lo:lo + k] = np.einsum("ij,ij->i", yc, (rest + z) / n - p_ref)
        for m, gm in streams.items():
            draw = gm.laplace if m == "laplace" else gm.normal
            for i in (0, 1):
                unit[m][i][lo:lo + k] = np.einsum("ij,ij->i", yc, draw(0.0, 1.0, (k, d)))
    return MembershipParts(plain, unit, p)


def roc_at(members, non_members, fprs) -> np.ndarray:
    """The test "member if T > t" at the thresholds t that give false-positive rates ``fprs`` on the
    non-members: its true-positive rates (the ROC at those points; empirical quantiles).

    Examples
    --------
    >>> roc_at([3, 4, 5, 6], [1, 2, 3, 4], [0.0, 0.5, 1.0]).tolist()
    [0.5, 1.0, 1.0]
    >>> roc_at([1, 2], [1, 2], [0.5]).tolist()
    [0.5]
    """
    mem = check_vector(members, "members")
    non = np.sort(check_vector(non_members, "non_members"))
    a = check_vector(fprs, "fprs")
    if np.any((a < 0) | (a > 1)):
        raise ValueError("fprs must lie in [0, 1]")
    # threshold: the smallest t with at most ⌊α·N⌋ non-members above it
    k = np.floor(a * non.size).astype(int)
    thr = np.where(k >= non.size, -np.inf, non[np.clip(non.size - 1 - k, 0, non.size - 1)])
    return np.array([float(np.mean(mem > t)) for t in thr])
