"""The k-choice class poll: a question with k labelled choices (3 ≤ k ≤ :data:`MAX_KARY_CHOICES`), answered
in the student's own kernel by a frequency oracle of :mod:`dpexplore.local` — k-ary randomized response
(``"krr"``) or optimized unary encoding (``"oue"``) — at the ε the instructor chose. Only the report leaves
the kernel, and only the report is stored (:meth:`dpexplore.classroom.store.PollStore.submit_report`):

* k-RR: one value in {0, …, k − 1} (the reported choice);
* OUE: a k-bit vector, stored as one integer in [0, 2^k − 1] (bit j is the report's bit for choice j).

Every stored report read back is checked against its poll's k and oracle (:func:`decode_reports`): a row out
of range is refused, not counted. The instructor's view (:func:`kary_tally`) shows the raw report counts and,
per choice, the unbiased estimate ĉ(v) = (C(v) − n q*)/(p* − q*) of :func:`dpexplore.local.estimate` with its
standard error √Var ĉ(v) from :func:`dpexplore.local.count_variance` (Wang, Blocki, Li & Jha 2017, Thm. 2),
evaluated at the estimate clipped to [0, n] (a plug-in: the true count is unknown).

Examples
--------
>>> r = randomize_choice(2, oracle="oue", k=4, epsilon=1.0, rng=0)
>>> len(r), set(r) <= {0, 1}
(4, True)
>>> decode_reports([encode_report(r, oracle="oue", k=4)], oracle="oue", k=4).tolist() == [list(r)]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.random import RNGLike
from ..local.mechanisms import LocalResult, estimate, oracle_probabilities, randomize
from ..local.theory import count_variance
from .poll_types import PollError, PollInfo

__all__ = ["KARY_ORACLES", "MIN_KARY_CHOICES", "MAX_KARY_CHOICES", "KaryReports", "KaryTally", "check_oracle",
           "encode_report", "decode_reports", "randomize_choice", "kary_tally"]

#: the frequency oracles a k-choice poll offers (:mod:`dpexplore.local`)
KARY_ORACLES = ("krr", "oue")
#: fewest and most choices of a k-choice poll (a yes/no question is the randomized-response poll)
MIN_KARY_CHOICES, MAX_KARY_CHOICES = 3, 8


def check_oracle(oracle: object) -> str:
    """``"krr"`` or ``"oue"`` (else ``PollError`` naming the parameter and the value).

    Examples
    --------
    >>> check_oracle("oue")
    'oue'
    """
    if not isinstance(oracle, str):
        raise TypeError(f"oracle must be one of {KARY_ORACLES}; got type {type(oracle).__name__}")
    if oracle not in KARY_ORACLES:
        raise PollError(f"oracle must be one of {KARY_ORACLES}; got {oracle[:20]!r}")
    return oracle


def encode_report(report, *, oracle: str, k: int) -> int:
    """One report as the integer stored: k-RR the value itself; OUE the bits as Σ_j bit_j 2^j.

    Parameters
    ----------
    report : int or sequence of k ints in {0, 1}
        What :func:`randomize_choice` returned (k-RR: an int in [0, k − 1]; OUE: k bits).

    Examples
    --------
    >>> encode_report([1, 0, 1], oracle="oue", k=3), encode_report(2, oracle="krr", k=3)
    (5, 2)
    """
    oracle = check_oracle(oracle)
    if oracle == "krr":
        if isinstance(report, (bool, np.bool_)) or not isinstance(report, (int, np.integer)):
            raise TypeError(f"a k-RR report must be an integer in [0, {k - 1}]; got type {type(report).__name__}")
        if not 0 <= report < k:
            raise PollError(f"a k-RR report must be in [0, {k - 1}]; got {int(report)}")
        return int(report)
    if isinstance(report, (str, bytes)) or not isinstance(report, (list, tuple, np.ndarray)):
        raise TypeError(f"an OUE report must be a sequence of {k} bits; got type {type(report).__name__}")
    if len(report) != k or np.ndim(report) != 1:
        raise PollError(f"an OUE report must have k = {k} bits; got {len(report)}")
    value = 0
    for j, b in enumerate(report):
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer)) or b not in (0, 1):
            raise PollError(f"an OUE report's bits must be 0 or 1; got {b!r:.20} at position {j}")
        value |= int(b) << j
    return value


def decode_reports(stored, *, oracle: str, k: int) -> np.ndarray:
    """The stored integers back as reports, each checked (a database row is hostile until checked).

    Returns shape (n,) int64 for k-RR, shape (n, k) int8 for OUE (the form :class:`dpexplore.local.LocalResult`
    holds). A value out of range raises ``PollError`` ("damaged in the database").

    Examples
    --------
    >>> decode_reports([5, 0], oracle="oue", k=3).tolist()
    [[1, 0, 1], [0, 0, 0]]
    >>> decode_reports([3], oracle="krr", k=3)
    Traceback (most recent call last):
    ...
    dpexplore.classroom.poll_types.PollError: a stored k-RR report is out of range (damaged in the database)
    """
    oracle = check_oracle(oracle)
    vals = list(stored)
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in vals):
        raise PollError(f"a stored {oracle} report is not an integer (damaged in the database)")
    arr = np.asarray(vals, dtype=np.int64).reshape(-1)
    high = k if oracle == "krr" else 1 << k
    if arr.size and (arr.min() < 0 or arr.max() >= high):
        name = "k-RR" if oracle == "krr" else "OUE"
        raise PollError(f"a stored {name} report is out of range (damaged in the database)")
    if oracle == "krr":
        return arr
    return ((arr[:, None] >> np.arange(k)[None, :]) & 1).astype(np.int8)


def randomize_choice(choice: int, *, oracle: str, k: int, epsilon: float, rng: RNGLike = None):
    """The student's kernel: randomize one true choice with the poll's oracle (ε-LDP); return the report.

    k-RR: an int in [0, k − 1]; OUE: a tuple of k bits. The true choice is not in the return value.
    """
    oracle = check_oracle(oracle)
    r = randomize([choice], oracle=oracle, k=k, epsilon=epsilon, rng=rng)
    return int(r.reports[0]) if oracle == "krr" else tuple(int(b) for b in r.reports[0])


@dataclass(frozen=True)
class KaryReports:
    """A k-choice poll's stored reports (for its instructor: :meth:`PollStore.kary_reports`), nothing else of a
    student (no token, voter or time); ``reports`` is read-only, in :class:`dpexplore.local.LocalResult`'s form.

    Attributes
    ----------
    k : int
    oracle : {"krr", "oue"}
    epsilon : float
        ε of every report (ε-LDP, the poll's ε).
    labels : tuple of str
    reports : ndarray
        k-RR shape (n,), values in [0, k − 1]; OUE shape (n, k), bits.
    """

    k: int
    oracle: str
    epsilon: float
    labels: tuple[str, ...]
    reports: np.ndarray

    @property
    def n(self) -> int:
        return int(self.reports.shape[0])

    def as_local_result(self) -> LocalResult:
        """The reports as :class:`dpexplore.local.LocalResult` (for :func:`dpexplore.local.estimate`)."""
        p, q = oracle_probabilities(self.oracle, k=self.k, epsilon=self.epsilon)
        return LocalResult(self.oracle, self.reports, self.k, self.epsilon, p, q, None, self.k)


@dataclass(frozen=True)
class KaryTally:
    """What a k-choice poll's instructor sees: per choice the raw report count (k-RR: reports of that choice;
    OUE: reports whose bit for it is 1), the unbiased estimate of how many chose it, and its standard error.

    ``estimates`` and ``standard_errors`` are NaN while no report has come in.
    """

    info: PollInfo
    report_counts: tuple[int, ...]
    estimates: tuple[float, ...]
    standard_errors: tuple[float, ...]
    responses: int
    tokens: int
    last_response_at: float | None


def kary_tally(info: PollInfo, reports: KaryReports, *, tokens: int, last_response_at: float | None) -> KaryTally:
    """The instructor's counts and estimates from the checked reports (post-processing: no privacy spent)."""
    k = reports.k
    if reports.n == 0:
        nan = (math.nan,) * k
        return KaryTally(info, (0,) * k, nan, nan, 0, tokens, last_response_at)
    res = reports.as_local_result()
    raw = np.bincount(res.reports, minlength=k) if reports.oracle == "krr" else res.reports.sum(axis=0)
    est = estimate(res).counts
    var = count_variance(reports.oracle, n=reports.n, k=k, epsilon=reports.epsilon,
                         count=np.clip(est, 0.0, reports.n))
    return KaryTally(info, tuple(int(c) for c in raw), tuple(float(e) for e in est),
                     tuple(float(math.sqrt(v)) for v in np.atleast_1d(var)), reports.n, tokens, last_response_at)
