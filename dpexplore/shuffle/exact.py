"""Exact finite-n laws of the shuffled histogram and their exact privacy curves.

Paper 4 (Shvets 2026), Sections 3 and 6. With n users of whom k hold input 1, the shuffler
releases the histogram N ~ T_{n,k} = Mult(n − k, W_0) ⊛ Mult(k, W_1). Changing one user's input
from 0 to 1 gives the neighbouring law T_{n,k+1}. Everything about privacy is in the pair

    Q = T_{n,k},   P = T_{n,k+1},   δ_→(ε) = Σ_N (P − e^ε Q)_+,   δ_←(ε) = Σ_N (Q − e^ε P)_+,

and the two-sided profile is max(δ_→, δ_←). This module computes such *named pairs* exactly
(``k=``; for k-RR the other users hold 0 or 1 here). A privacy guarantee is the worst case over
**all** neighbouring data sets — the canonical pair k = 0 is not always worst (binary RR: some
k > 0; k-RR: other users at a third symbol) — which :mod:`.worst` computes; the public
``dpexplore.shuffle.exact_epsilon`` / ``exact_delta`` (defined in :mod:`.worst`, so that this module
imports nothing above it) return that worst case without ``k`` and one pair with ``k``.

How the laws are computed exactly
---------------------------------
* The histogram grouped by equal ratio W_1(y)/W_0(y) is sufficient for the pair (an output that
  lands in a group has law W_0(·|group) whatever its input), so binary randomized response and
  any two-ratio randomizer reduce to **one count**: T_{n,k} = Bin(n − k, w_0) ⊛ Bin(k, w_1),
  w_b = W_b(high-ratio group); k-RR reduces to a trinomial.
* Binary case: log-pmfs (log of ``scipy.stats.binom.pmf``, Boost's accurate binomial) on a
  window of mean ± (14 sd + 14) for each binomial, rescaled by their maximum and convolved
  directly (``numpy.convolve``: all terms positive, so every entry keeps full *relative*
  precision; no FFT round-off floor), then returned to logs. Likelihood ratios are differences
  of logs: no under/overflow at n = 10⁷ and beyond. The binomial mass outside the windows
  (≈ e^{−98}, computed exactly with ``binom.cdf``/``sf``) and on cells outside the other law's
  window is added to δ (``lost_p``/``lost_q``), so reported δ values are never below the truth.
  Direct convolution costs (window of Bin(n − k))·(window of Bin(k)): instant for k = 0 and
  small k, ≈ 0.1 s for k = n/2 at n = 10⁶.
* Unbundled multi-message (binary outputs): each user sends m independent messages, all nm are
  shuffled: T_{n,k} = Bin((n − k)m, w_0) ⊛ Bin(km, w_1).
* Three or more ratio groups: exact multinomial grids ((n + 1)^{G−1} cells, limited to 4·10⁶).

The privacy curve is evaluated for many ε at once: the support is sorted by the log-likelihood
ratio, and with tail sums S_P(ε), S_Q(ε) over {log P/Q > ε}, δ_→(ε) = S_P − e^ε S_Q (tails are
summed from the far end, so small δ keeps its relative accuracy).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sp_fft
from scipy import signal, special, stats

from dpexplore.core.validation import check_choice, check_delta, check_int

from ._validate import check_real_array
from .constants import _check_randomizer
from .randomizers import Randomizer

__all__ = [
    "ShuffledPair",
    "shuffled_pair",
    "jsd_exact",
    "exact_tradeoff",
    "histogram_law",
    "likelihood_ratio",
    "GRID_CELL_LIMIT",
    "MAX_USERS",
    "MAX_MESSAGES",
]

#: largest multinomial grid (cells) the exact general-alphabet path builds
GRID_CELL_LIMIT = 4_000_000
#: public maximum of n (users) of an exact pair (binomial windows stay O(√n) long)
MAX_USERS = 10**10
#: public maximum of unbundled messages per user
MAX_MESSAGES = 10_000
_WIDTH = 14.0  # window half-width in standard deviations (+ the same number of cells)
_DIRECTIONS = ("max", "forward", "reverse")


@dataclass(frozen=True, eq=False)
class ShuffledPair:
    """The exact pair Q = T_{n,k}, P = T_{n,k+1} on a common support, ready for privacy curves.

    Attributes
    ----------
    randomizer : Randomizer
    n, k, messages : int
    logp, logq : ndarray, shape (S,)
        log P and log Q on the support cells (−inf where a law is negligible / zero).
    counts : ndarray
        The support cells: counts of the high-ratio output group (binary case, shape (S,)) or the
        grouped histograms (shape (S, G)).
    lost_p, lost_q : float
        Mass of P and Q outside the support (exact binomial tails; 0 for grids). Added to δ.
    method : str
        ``"binomial convolution (log space)"`` or ``"multinomial grid (G groups)"``.
    """

    randomizer: Randomizer
    n: int
    k: int
    messages: int
    logp: np.ndarray
    logq: np.ndarray
    counts: np.ndarray
    lost_p: float
    lost_q: float
    method: str
    _s: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        with np.errstate(invalid="ignore"):  # −inf − (−inf) = NaN marks cells neither law reaches
            lr = self.logp - self.logq
        keep = ~np.isnan(lr)  # both −inf: a cell neither law reaches
        lr = lr[keep]
        p = np.exp(self.logp[keep])
        q = np.exp(self.logq[keep])
        if lr.size > 1 and np.all(lr[1:] >= lr[:-1]):  # increasing (binary pairs: log-concave laws): reversed
            lr, p, q = lr[::-1], p[::-1], q[::-1]  # (the order within ties does not change δ or ε)
        elif lr.size > 1 and not np.all(lr[1:] <= lr[:-1]):
            order = np.argsort(-lr, kind="stable")
            lr, p, q = lr[order], p[order], q[order]
        s = self._s
        s["lr"] = lr  # descending
        s["p"], s["q"] = p, q
        # tail sums over the largest ratios (forward) and the smallest (reverse), summed from the far end
        s["fP"] = np.concatenate([[0.0], np.cumsum(p)])
        s["fQ"] = np.concatenate([[0.0], np.cumsum(q)])
        s["rP"] = np.concatenate([[0.0], np.cumsum(p[::-1])])
        s["rQ"] = np.concatenate([[0.0], np.cumsum(q[::-1])])

    # -- privacy profile ------------------------------------------------------------------
    def delta(self, epsilon, direction: str = "max"):
        """δ(ε) of the pair: ``"forward"`` H(P‖Q), ``"reverse"`` H(Q‖P), or their ``"max"``."""
        direction = check_choice(direction, "direction", _DIRECTIONS)
        eps = check_real_array(epsilon, "epsilon")
        s = self._s
        lr = s["lr"]
        e = np.exp(np.minimum(eps, 700.0))
        out = np.zeros_like(eps)
        if direction in ("forward", "max"):
            j = np.searchsorted(-lr, -eps, side="left")  # cells with log P/Q > ε
            fq = s["fQ"][j]
            d = s["fP"][j] - np.where(fq > 0, e * fq, 0.0)
            out = np.maximum(out, np.maximum(d, 0.0) + self.lost_p)
        if direction in ("reverse", "max"):
            j = np.searchsorted(lr[::-1], -eps, side="left")  # cells with log P/Q < −ε
            rp = s["rP"][j]
            d = s["rQ"][j] - np.where(rp > 0, e * rp, 0.0)
            out = np.maximum(out, np.maximum(d, 0.0) + self.lost_q)
        out = np.minimum(out, 1.0)
        return float(out) if out.ndim == 0 else out

    def epsilon(self, delta: float, direction: str = "max") -> float:
        """The smallest ε ≥ 0 with δ(ε) ≤ ``delta`` (``inf`` if no finite ε reaches it).

        Closed form, no root search: with the cells sorted by log P/Q (descending, forward) and
        S_P[j], S_Q[j] the masses of the first j cells, :meth:`delta` is
        δ(ε) = max(0, max_j (S_P[j] − e^ε S_Q[j])) + lost (the maximising j is the number of
        cells with log P/Q > ε), so δ(ε) ≤ δ iff δ' = δ − lost ≥ 0 and e^ε S_Q[j] ≥ S_P[j] − δ'
        for every j: ε = max(0, max_j log((S_P[j] − δ')/S_Q[j])) (∞ if some j has S_Q[j] = 0 <
        S_P[j] − δ', or δ' < 0). The reverse direction swaps P and Q (cells from the other end).
        """
        delta = check_delta(delta)
        direction = check_choice(direction, "direction", _DIRECTIONS)
        if direction == "max":
            return max(self.epsilon(delta, "forward"), self.epsilon(delta, "reverse"))
        s = self._s
        if direction == "forward":
            sp, sq, lost = s["fP"], s["fQ"], self.lost_p
        else:
            sp, sq, lost = s["rQ"], s["rP"], self.lost_q
        dp = delta - lost
        if dp < 0:
            return math.inf
        num = sp - dp
        pos = num > 0
        if not np.any(pos):
            return 0.0
        if np.any(pos & (sq <= 0)):
            return math.inf
        with np.errstate(divide="ignore"):
            r = np.max(np.log(num[pos]) - np.log(sq[pos]))
        return max(0.0, float(r))

    def jsd(self) -> float:
        """Jensen–Shannon divergence (natural log) between P and Q, summed cell by cell.

        Each cell contributes ½[p f(t) + q f(−t)], t = log p/q, f(t) = log(2/(1 + e^{−t})),
        with f written as −log1p(expm1(−t)/2) for |t| ≤ 1 (no cancellation at small t).
        """
        s = self._s
        t, p, q = s["lr"], s["p"], s["q"]

        def f(x):
            small = np.abs(x) <= 1.0
            out = np.empty_like(x)
            out[small] = -np.log1p(np.expm1(-x[small]) / 2.0)
            big = ~small
            out[big] = math.log(2.0) - np.logaddexp(0.0, -x[big])
            return out

        fin = np.isfinite(t)
        val = 0.5 * np.sum(p[fin] * f(t[fin]) + q[fin] * f(-t[fin]))
        val += 0.5 * math.log(2.0) * (np.sum(p[t == np.inf]) + np.sum(q[t == -np.inf]))
        return float(val)

    def tradeoff(self, alpha) -> np.ndarray:
        """Exact trade-off curve β(α) for testing Q = T_{n,k} against P = T_{n,k+1}.

        Neyman–Pearson: reject Q for large log P/Q (randomising on ties), so the curve is the
        piecewise-linear interpolation of (Q(lr > t), 1 − P(lr > t)).
        """
        a = check_real_array(alpha, "alpha", high=1.0)
        s = self._s
        total_q = s["fQ"][-1]
        beta = np.interp(a * total_q, s["fQ"], 1.0 - s["fP"] / s["fP"][-1])
        return np.clip(beta, 0.0, 1.0)


# -- law builders --------------------------------------------------------------------------
def _binom_window(N: int, w: float) -> tuple[int, np.ndarray, float]:
    """log Bin(x; N, w) on x ∈ [lo, hi] (mean ± (14 sd + 14)), and the exact mass left outside."""
    if N == 0:
        return 0, np.zeros(1), 0.0
    mean = N * w
    sd = math.sqrt(N * w * (1.0 - w))
    lo = max(0, int(math.floor(mean - _WIDTH * sd - _WIDTH)))
    hi = min(N, int(math.ceil(mean + _WIDTH * sd + _WIDTH)))
    x = np.arange(lo, hi + 1)
    # scipy's binom.pmf (Boost) keeps ~1e-15 relative accuracy at n = 1e8, while logpmf's
    # log-gamma differences lose ~1e-9 at n = 1e7; logpmf only where pmf underflows (< 1e-308)
    pm = stats.binom.pmf(x, N, w)
    lp = np.empty(pm.shape)
    pos = pm > 0
    lp[pos] = np.log(pm[pos])
    lp[~pos] = stats.binom.logpmf(x[~pos], N, w)
    lost = (float(stats.binom.cdf(lo - 1, N, w)) if lo > 0 else 0.0) + (
        float(stats.binom.sf(hi, N, w)) if hi < N else 0.0)
    return lo, lp, lost


def _conv_binom(n0: int, w0: float, n1: int, w1: float) -> tuple[int, np.ndarray, float]:
    """log of Bin(n0, w0) ⊛ Bin(n1, w1) on its window (:func:`_conv_binoms` with two parts).

    Short windows: direct convolution of the max-rescaled pmfs (all terms positive: full relative
    precision). Long × long (k ≈ n/2 at n ≥ 10⁶): exponentially tilted FFT convolutions, see
    :func:`_tilted_fft_logconv`.
    """
    return _conv_binoms([(n0, w0), (n1, w1)])


_DIRECT_LIMIT = 4_000_000  # cells × cells above which the tilted FFT is used
try:  # Boost's binomial pmf ufunc, what ``binom.pmf`` calls (without its argument checks: ~20× less overhead)
    from scipy.special._ufuncs import _binom_pmf as _BINOM_PMF
except ImportError:  # pragma: no cover - another scipy layout
    _BINOM_PMF = stats.binom.pmf
_FAST_DIRECT_LIMIT = 300_000  # _conv_binoms_fast: direct convolution below this many cells × cells
_TILT_STEP = 8.0  # sd between the tilts of _tilted_fft_logconv (5 tilts over ±16 sd)


def _conv_binoms(parts: list[tuple[int, float]]) -> tuple[int, np.ndarray, float]:
    """log of Bin(N_1, w_1) ⊛ … ⊛ Bin(N_j, w_j) on its window, and the mass left outside.

    Applied pairwise: direct convolution of the max-rescaled pmfs where short (all terms positive:
    full relative precision), tilted FFTs where long. Empty parts (N = 0) are skipped.
    """
    parts = [(int(N), float(w)) for N, w in parts if N > 0]
    if not parts:
        return 0, np.zeros(1), 0.0
    lo, acc, lost = _binom_window(*parts[0])
    mean = parts[0][0] * parts[0][1]
    var = parts[0][0] * parts[0][1] * (1.0 - parts[0][1])
    for N, w in parts[1:]:
        b_lo, b, lb = _binom_window(N, w)
        mean += N * w
        var += N * w * (1.0 - w)
        if acc.size * b.size <= _DIRECT_LIMIT:
            ma, mb = float(np.max(acc)), float(b.max())
            c = np.convolve(np.exp(acc - ma), np.exp(b - mb))
            with np.errstate(divide="ignore"):
                acc = np.log(c) + ma + mb
        else:
            acc = _tilted_fft_logconv(acc, b, mean - (lo + b_lo), var)
        lo += b_lo
        lost += lb
    return lo, acc, lost


def _binom_window_w(N: int, w: float, width: float) -> tuple[int, np.ndarray, float]:
    """:func:`_binom_window` with the half-width ``width`` sd (+ ``width`` cells) instead of 14, faster.

    Boost's pmf (``binom.pmf``) only at anchors every 64 cells; in between, the exact ratio
    Bin(x + 1)/Bin(x) = (N − x)/(x + 1) · w/(1 − w), summed in logs from the anchor (≤ 63 rounded
    steps: ≲ 1e-14 relative). The lost mass: the exact tails (``special.bdtr``/``bdtrc``).
    """
    mean, sd = N * w, math.sqrt(N * w * (1.0 - w))
    lo = max(0, int(math.floor(mean - width * sd - width)))
    hi = min(N, int(math.ceil(mean + width * sd + width)))
    x = np.arange(lo, hi + 1, dtype=float)
    anc = x[::64]
    pm = _BINOM_PMF(anc, N, w)
    pos = pm > 0
    with np.errstate(divide="ignore"):
        la = np.log(pm)
    if not np.all(pos):  # underflow (< 1e-308): the log-pmf there
        la[~pos] = stats.binom.logpmf(anc[~pos], N, w)
    cs = np.zeros(x.size)
    np.cumsum(np.log((N - x[:-1]) / (x[:-1] + 1.0)) + (math.log(w) - math.log1p(-w)), out=cs[1:])
    seg = np.arange(x.size) // 64
    lp = la[seg] + (cs - cs[seg * 64])
    lost = (float(special.bdtr(lo - 1, N, w)) if lo > 0 else 0.0) + (float(special.bdtrc(hi, N, w)) if hi < N else 0.0)
    return lo, lp, lost


def _conv_binoms_fast(parts: list[tuple[int, float]], width: float) -> tuple[int, np.ndarray, float]:
    """log of Bin(N_1, w_1) ⊛ … ⊛ Bin(N_j, w_j) on windows of ±``width`` sd: the branch and bound's law.

    The same law as :func:`_conv_binoms`, built with fewer operations: windows of ``width`` sd
    (their exact binomial tails are returned as lost mass, so any width is valid: the caller adds
    it to δ), the short parts merged first by direct convolution (all terms positive: full relative
    precision), and the remaining long parts in *one* exponentially tilted FFT product per tilt
    (:func:`_tilted_fft_logconv`'s argument: a tilt by e^{θx} commutes with convolution; each cell
    is read from the tilt whose peak is nearest, the tilts' peaks ≤ 8 sd apart and covering the
    whole window). A cell that no tilt resolves to 1e-12 of its peak is dropped, and a bound on its
    mass (2e-12 of the tilted peak, untilted, minimised over the tilts) is added to the lost mass.
    """
    parts = [(int(N), float(w)) for N, w in parts if N > 0]
    if not parts:
        return 0, np.zeros(1), 0.0
    wins = sorted((_binom_window_w(N, w, width) + (N * w, N * w * (1.0 - w)) for N, w in parts),
                  key=lambda t: t[1].size)
    lo, acc, lost, mean, var = wins[0]
    longs = []
    for b_lo, b, lb, m, v in wins[1:]:
        if acc.size * b.size <= _FAST_DIRECT_LIMIT:
            ma, mb = float(np.max(acc)), float(b.max())
            c = np.convolve(np.exp(acc - ma), np.exp(b - mb))
            with np.errstate(divide="ignore"):
                acc = np.log(c) + ma + mb
        else:
            longs.append(b)
        lo += b_lo
        lost += lb
        mean += m
        var += v
    if not longs:
        return lo, acc, lost
    seqs = [acc] + longs
    out_len = sum(x.size for x in seqs) - len(seqs) + 1
    nfft = sp_fft.next_fast_len(out_len, real=True)
    x_out = np.arange(out_len)
    sd = math.sqrt(var)
    # the tilts' peaks ≤ 8 sd apart, within 4 sd of every cell in mean ± width sd of the sum (cells
    # further out have mass ≪ the parts' lost tails; any that no tilt resolves is dropped, its bound added)
    zc = min(width, 0.5 * (out_len - 1) / sd) - 4.0
    m_t = max(1, int(math.ceil(2.0 * zc / 8.0)) + 1) if zc > 0 else 1
    centres = np.linspace(-zc, zc, m_t) if m_t > 1 else np.zeros(1)
    best = np.full(out_len, -np.inf)
    best_rel = np.full(out_len, -np.inf)
    tilts = []  # (θ, log of the tilt's peak, untilted): 2e-12 of it bounds a cell no tilt resolves
    for j in centres:
        theta = j / sd
        spec = None
        shift = 0.0
        for sq in seqs:
            t = sq + theta * np.arange(sq.size)
            mt = float(t.max())
            shift += mt
            f = sp_fft.rfft(np.exp(t - mt), nfft)
            spec = f if spec is None else spec * f
        c = sp_fft.irfft(spec, nfft)[:out_len]
        c_max = float(c.max())
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.log(np.maximum(c, 0.0) / c_max)
        lc = math.log(c_max) + shift
        tilts.append((theta, lc))
        take = rel > best_rel
        best[take] = rel[take] + lc - theta * x_out[take]
        best_rel[take] = rel[take]
    drop = best_rel < math.log(1e-12)
    if np.any(drop):
        xd = x_out[drop]
        bound = np.min([math.log(2e-12) + lc - th * xd for th, lc in tilts], axis=0)
        best[drop] = -np.inf
        lost += float(np.exp(bound).sum())
    return lo, best, lost


def _pair_from_others(R: Randomizer, others: list[tuple[int, float]], w0: float, w1: float, *, n: int, k: int,
                      method: str, width: float | None = None) -> ShuffledPair:
    """The pair (base ⊛ Ber(w1), base ⊛ Ber(w0)), base = the other users' count law (binary case).

    ``others`` lists independent binomial parts of the other users' count of high-ratio outputs;
    the target reports the high-ratio group with probability w1 (P, input 1) or w0 (Q, input 0).
    The base law is built once and the target's Bernoulli is a two-term log-sum (exact, positive
    terms), so P and Q share one window; the base's lost mass is lost for both.
    """
    lo, base, lost = _conv_binoms(others) if width is None else _conv_binoms_fast(others, width)
    ext = np.concatenate([base, [-np.inf]])
    prev = np.concatenate([[-np.inf], base])  # base[s − 1]
    with np.errstate(divide="ignore"):
        logq = np.logaddexp(math.log1p(-w0) + ext, math.log(w0) + prev)
        logp = np.logaddexp(math.log1p(-w1) + ext, math.log(w1) + prev)
    counts = np.arange(lo, lo + ext.size)
    both = np.isfinite(logp) & np.isfinite(logq)
    # the first / last cell misses base's neighbour outside a truncated window: an incomplete cell
    # (its likelihood ratio would be that of the target's Bernoulli alone) goes to the lost mass
    if lo > 0:
        both[0] = False
    if lo + base.size - 1 < sum(int(N) for N, _ in others):
        both[-1] = False
    lost_p = lost + float(np.exp(logp[~both]).sum())
    lost_q = lost + float(np.exp(logq[~both]).sum())
    return ShuffledPair(R, n, k, 1, logp[both], logq[both], counts[both], lost_p, lost_q, method)


def _tilted_fft_logconv(a: np.ndarray, b: np.ndarray, mean: float, var: float) -> np.ndarray:
    """log(exp(a) ⊛ exp(b)) for long log-concave sequences, with relative accuracy in the tails.

    An FFT convolution is accurate only to ~1e-13 of its peak. Tilting both inputs by e^{θx}
    tilts the output by the same e^{θx} (conv(a e^{θ·}, b e^{θ·}) = conv(a, b) e^{θ·}) and moves
    its peak to ≈ mean + θ·var; with tilts placing the peak every 2 sd across the window, each
    output cell is read from the tilt in which it is closest to the peak (well conditioned).
    Tilts every 8 sd put each cell within ≈ 4 sd of a tilt's peak (relative size ≳ e^{−8} ≈ 3e-4 of
    it, FFT round-off ≈ 1e-16 of the peak), so it keeps ≈ 1e-12 relative accuracy (checked against
    direct convolution in tests/shuffle/test_exact.py; tilts every 2 sd gave the same values).
    """
    out_len = a.size + b.size - 1
    x_out = np.arange(out_len)
    sd = math.sqrt(var)
    best = np.full(out_len, -np.inf)
    best_rel = np.full(out_len, -np.inf)
    xa, xb = np.arange(a.size), np.arange(b.size)
    for j in np.arange(-_WIDTH - 2, _WIDTH + 2.1, _TILT_STEP):
        theta = j / sd  # peak of the tilted Gaussian approximation at mean + j·sd
        ta, tb = a + theta * xa, b + theta * xb
        ma, mb = float(ta.max()), float(tb.max())
        c = signal.fftconvolve(np.exp(ta - ma), np.exp(tb - mb))
        c_max = float(c.max())
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.log(np.maximum(c, 0.0) / c_max)  # log of the value relative to this tilt's peak
            val = np.log(np.maximum(c, 0.0)) + ma + mb - theta * x_out
        take = rel > best_rel
        best[take], best_rel[take] = val[take], rel[take]
    best[best_rel < math.log(1e-12)] = -np.inf  # not reliably resolved by any tilt: zero mass (see lost)
    return best


def _align(lo1: int, l1: np.ndarray, lo2: int, l2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo, hi = min(lo1, lo2), max(lo1 + l1.size, lo2 + l2.size)
    o1 = np.full(hi - lo, -np.inf)
    o2 = np.full(hi - lo, -np.inf)
    o1[lo1 - lo: lo1 - lo + l1.size] = l1
    o2[lo2 - lo: lo2 - lo + l2.size] = l2
    return np.arange(lo, hi), o1, o2


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for i in range(total + 1):
        for rest in _compositions(total - i, parts - 1):
            yield (i, *rest)


def _mult_grid(N: int, W: np.ndarray) -> np.ndarray:
    """Mult(N, W) as a dense array over the first G − 1 counts (0 outside the simplex)."""
    G = W.size
    lgam = special.gammaln(np.arange(N + 1) + 1.0)  # lgam[x] = log x!
    logw = np.log(W)
    axes = np.meshgrid(*([np.arange(N + 1)] * (G - 1)), indexing="ij")
    last = N - sum(axes)
    valid = last >= 0
    lastc = np.where(valid, last, 0)
    logp = lgam[N] + lastc * logw[-1] - lgam[lastc]
    for g, ax in enumerate(axes):
        logp += ax * logw[g] - lgam[ax]
    out = np.zeros(valid.shape)
    out[valid] = np.exp(logp[valid])
    return out


def _grid_law(n: int, k: int, W0: np.ndarray, W1: np.ndarray) -> np.ndarray:
    """T_{n,k} = Mult(n − k, W0) ⊛ Mult(k, W1) on the dense (n + 1)^{G−1} grid."""
    G = W0.size
    base = _mult_grid(n - k, W0)
    out = np.zeros((n + 1,) * (G - 1))
    for J in _compositions(k, G):
        logw = special.gammaln(k + 1) + sum(special.xlogy(j, W1[g]) - special.gammaln(j + 1) for g, j in enumerate(J))
        sl = tuple(slice(j, j + n - k + 1) for j in J[:-1])
        out[sl] += math.exp(logw) * base
    return out


def _grid_counts(n: int, G: int) -> tuple[np.ndarray, np.ndarray]:
    axes = np.meshgrid(*([np.arange(n + 1)] * (G - 1)), indexing="ij")
    last = n - sum(axes)
    valid = (last >= 0).ravel()
    counts = np.stack([a.ravel() for a in axes] + [last.ravel()], axis=1)
    return counts, valid


def _check_grid(n: int, k: int, G: int) -> None:
    cells = (n + 1) ** (G - 1)
    work = cells * math.comb(k + 1 + G - 1, G - 1)
    if cells > GRID_CELL_LIMIT or work > 25 * GRID_CELL_LIMIT:
        raise ValueError(
            f"n must be small enough for an exact multinomial grid with {G} ratio groups "
            f"((n + 1)^{G - 1} <= {GRID_CELL_LIMIT} cells and k small); got n={n}, k={k}. "
            "Use the GDP approximation or the Chernoff bound for larger n."
        )


_CACHE: OrderedDict = OrderedDict()


def shuffled_pair(randomizer: Randomizer, n: int, *, k: int = 0, messages: int = 1, cache: bool = True) -> ShuffledPair:
    """Build the exact pair (T_{n,k}, T_{n,k+1}) of the shuffled histogram.

    Parameters
    ----------
    randomizer : Randomizer
    n : int
        Number of users, ≥ 2 (≥ 1 for k = 0).
    k : int
        Users holding input 1 in the smaller data set, 0 ≤ k ≤ n − 1 (k = 0: the canonical pair —
        *not* always the worst case: see :func:`dpexplore.shuffle.worst_case_epsilon`).
    messages : int
        Unbundled messages per user (m ≥ 1); m > 1 needs binary outputs (two ratio groups).
    cache : bool
        Keep the pair in a small LRU cache (24 pairs).

    Returns
    -------
    ShuffledPair

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> pair = shuffled_pair(binary_rr(1.0), 1000)
    >>> round(pair.epsilon(1e-6), 4)
    0.1266
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_USERS)
    k = check_int(k, "k", low=0, high=n - 1)
    m = check_int(messages, "messages", low=1, high=MAX_MESSAGES)
    key = (R.W0.tobytes(), R.W1.tobytes(), n, k, m)
    if cache and key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    Rg = R.grouped()
    G = Rg.K
    if G == 2:
        w0, w1 = float(Rg.W0[1]), float(Rg.W1[1])  # group 1: the high-ratio outputs
        if max(n * m, 1) > 10**10:
            raise ValueError(f"n * messages must be <= 1e10 for the exact curve; got {n * m}")
        if m == 1 and 0.0 < w0 < 1.0 and 0.0 < w1 < 1.0:
            # T_{n,k} = B ⊛ Ber(w0), T_{n,k+1} = B ⊛ Ber(w1), B = Bin(n − k − 1, w0) ⊛ Bin(k, w1): one base law
            pair = _pair_from_others(R, [(n - k - 1, w0), (k, w1)], w0, w1, n=n, k=k,
                                     method="binomial convolution (log space)")
        else:
            q_lo, lq, lost_q = _conv_binom((n - k) * m, w0, k * m, w1)  # T_{n,k}
            p_lo, lp, lost_p = _conv_binom((n - k - 1) * m, w0, (k + 1) * m, w1)  # T_{n,k+1}
            counts, logp, logq = _align(p_lo, lp, q_lo, lq)
            # both laws have full support on {0..N}: a cell where one is −inf lies outside the other's window
            # (or underflowed): keep the common cells and count the rest as lost mass (added to δ)
            both = np.isfinite(logp) & np.isfinite(logq)
            lost_p += float(np.exp(logp[~both]).sum())
            lost_q += float(np.exp(logq[~both]).sum())
            pair = ShuffledPair(R, n, k, m, logp[both], logq[both], counts[both], lost_p, lost_q,
                                "binomial convolution (log space)")
    else:
        if m != 1:
            raise ValueError(
                f"messages must be 1 for randomizers with more than two likelihood-ratio groups (exact multi-message "
                f"curves are implemented for binary outputs); got messages={m} with {G} groups"
            )
        _check_grid(n, k, G)
        counts, valid = _grid_counts(n, G)
        counts = counts[valid]
        Q = _grid_law(n, k, Rg.W0, Rg.W1).ravel()[valid]
        with np.errstate(divide="ignore"):  # cells below 1e-308 carry no mass that matters
            logq = np.log(Q)
            if k == 0:  # canonical pair: P = Q · L with L = (1/n) Σ_g N_g W_1(g)/W_0(g) (= 1 + U_n)
                logp = logq + np.log(counts @ Rg.ratio / n)
            else:
                logp = np.log(_grid_law(n, k + 1, Rg.W0, Rg.W1).ravel()[valid])
        pair = ShuffledPair(R, n, k, m, logp, logq, counts, 0.0, 0.0, f"multinomial grid ({G} groups)")
    if not cache:
        return pair
    _CACHE[key] = pair
    while len(_CACHE) > 24:
        _CACHE.popitem(last=False)
    return pair


def jsd_exact(randomizer: Randomizer, n: int, *, k: int = 0) -> float:
    """Exact JSD(T_{n,k} ‖ T_{n,k+1}) (natural log).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> f"{jsd_exact(binary_rr(1.0), 100):.6e}"
    '1.363200e-03'
    """
    return shuffled_pair(randomizer, n, k=k).jsd()


def exact_tradeoff(randomizer: Randomizer, n: int, alpha, *, k: int = 0, messages: int = 1) -> np.ndarray:
    """Exact trade-off function α ↦ β of testing T_{n,k} against T_{n,k+1}.

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> b = exact_tradeoff(binary_rr(1.0), 1000, [0.0, 0.05, 1.0])
    >>> bool(b[0] > b[1] > b[2] - 1e-12)
    True
    """
    return shuffled_pair(randomizer, n, k=k, messages=messages).tradeoff(alpha)


def histogram_law(randomizer: Randomizer, n: int, *, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The full (ungrouped) law T_{n,k} of the histogram N ∈ {0..n}^K, by exact enumeration.

    Returns
    -------
    counts : ndarray, shape (S, K)
        Every histogram with Σ_y N_y = n.
    pmf : ndarray, shape (S,)

    Examples
    --------
    >>> from dpexplore.shuffle import k_rr
    >>> counts, pmf = histogram_law(k_rr(1.0, 3), 5, k=2)
    >>> counts.shape, round(float(pmf.sum()), 12)
    ((21, 3), 1.0)
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_USERS)  # the grid check below bounds the allocation
    k = check_int(k, "k", low=0, high=n)
    _check_grid(n, max(k - 1, 0), R.K)
    law = _grid_law(n, k, R.W0, R.W1).ravel()
    counts, valid = _grid_counts(n, R.K)
    return counts[valid], law[valid]


def likelihood_ratio(randomizer: Randomizer, n: int, counts, *, k: int = 0) -> np.ndarray:
    """L_{n,k}(N) = T_{n,k+1}(N)/T_{n,k}(N) from the paper's identities (not from the laws).

    * k = 0 (canonical pair): L = (1/n) Σ_y N_y W_1(y)/W_0(y) = 1 + U_n, with U_n the mean of the
      score increments ξ(Y_i) = W_1(Y_i)/W_0(Y_i) − 1.
    * k ≥ 1: L = 1 + (1/(n − k)) Σ_y ξ(y) E[N⁽⁰⁾_y | N], with N⁽⁰⁾ the histogram of the input-0
      users; the conditional expectation is evaluated exactly by summing over the split
      N = N⁽⁰⁾ + N⁽¹⁾ (small k).

    Parameters
    ----------
    counts : array_like, shape (S, K)
        Histograms (rows summing to n).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> likelihood_ratio(binary_rr(1.0), 4, [[4, 0], [2, 2]]).round(4).tolist()
    [0.3679, 1.5431]
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=1, high=MAX_USERS)
    k = check_int(k, "k", low=0, high=min(n - 1, 1000))  # the split sum enumerates compositions of k
    if isinstance(counts, (str, bytes, dict)) or counts is None:
        raise TypeError(f"counts must be an array of shape (S, {R.K}) of histograms; got {type(counts).__name__}")
    try:
        N = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"counts must be an array of shape (S, {R.K}) of histograms; got {counts!r}") from exc
    if (N.ndim != 2 or not np.all(np.isfinite(N)) or N.shape[1] != R.K or np.any(N < 0)
            or np.any(np.abs(N.sum(axis=1) - n) > 1e-9)):
        raise ValueError(f"counts must be an array of shape (S, {R.K}) of histograms with rows summing to n={n}")
    if k == 0:
        return N @ R.ratio / n
    # E[N0 | N] = Σ_J (N − J) Mult(k, W1)(J) Mult(n − k, W0)(N − J) / Σ_J (same weights)
    num = np.zeros(N.shape)
    den = np.zeros(N.shape[0])
    for J in _compositions(k, R.K):
        Ja = np.asarray(J, dtype=float)
        rest = N - Ja
        ok = np.all(rest >= 0, axis=1)
        lw = special.gammaln(k + 1) + np.sum(special.xlogy(Ja, R.W1) - special.gammaln(Ja + 1))
        r = np.maximum(rest, 0)
        lb = special.gammaln(n - k + 1) + np.sum(special.xlogy(r, R.W0) - special.gammaln(r + 1), axis=1)
        w = np.where(ok, np.exp(lw + lb), 0.0)
        num += w[:, None] * rest * ok[:, None]
        den += w
    e_n0 = num / den[:, None]
    return 1.0 + (e_n0 @ R.xi) / (n - k)


