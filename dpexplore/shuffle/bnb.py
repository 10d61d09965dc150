"""Binary inputs: the certified branch and bound over k (item 1b of :mod:`.worst`'s docstring).

Layer 6 of :mod:`dpexplore.shuffle` (imports only :mod:`.exact` below it). One exact "block pair"
bounds every pair k in a block [a, b] (joint convexity over the coins' count); blocks are swept with
growing widths from both ends and narrowed down to single k where they do not fit under the best
exact pair × (1 + rtol).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from .exact import _pair_from_others, shuffled_pair
from .randomizers import Randomizer

__all__ = ["BNB_MAX_N", "BNB_RTOL", "BNB_MAX_PAIRS", "BNB_PAIRS_LIMIT"]

#: binary inputs above ``exhaustive_max_n``: the certified branch and bound over k runs up to this n
BNB_MAX_N = 10**7
#: default relative width of the branch-and-bound bracket (upper ≤ lower·(1 + rtol) when it closes)
BNB_RTOL = 1e-3
#: default and public maximum of the pairs the branch and bound may evaluate
BNB_MAX_PAIRS = 2000
BNB_PAIRS_LIMIT = 100_000


def _swap_symmetric(R: Randomizer) -> bool:
    """Binary inputs: W1 is W0 reversed (binary RR), so the pairs k and n − 1 − k are mirror images."""
    return bool(np.allclose(R.W1, R.W0[::-1], rtol=0, atol=1e-15))


def _binary_groups(R: Randomizer) -> tuple[float, float] | None:
    """(w0, w1): the two inputs' probabilities of the high-ratio group, for the branch and bound."""
    if R.inputs != 2 or R.grouped().K != 2:
        return None
    Rg = R.grouped()
    w0, w1 = float(Rg.W0[1]), float(Rg.W1[1])
    return (w0, w1) if 0.0 < w0 < 1.0 and 0.0 < w1 < 1.0 else None


def _coin_quantile(t: float, N: int, g: float) -> int:
    """The largest m0 ≤ N with P(M < m0) ≤ t, M ~ Bin(N, g) (0 if t ≤ 0): ``binom.ppf``'s value, found
    from a normal guess by exact cdfs (``special.bdtr``), which are far cheaper than ``ppf``."""
    if t <= 0 or N <= 0:
        return 0
    mean, sd = N * g, math.sqrt(N * g * (1.0 - g))
    guess = int(mean + float(special.ndtri(t)) * sd)  # ndtri(t) = the normal quantile Φ⁻¹(t) < 0
    m = np.arange(max(0, guess - 40), min(N, guess + 40) + 1)
    ok = m[special.bdtr(m - 1, N, g) <= t] if m.size else m  # bdtr(−1) = 0: m = 0 is always valid
    if m.size and ok.size and ok[-1] < m[-1] and (m[0] == 0 or ok[0] == m[0]):
        return int(ok[-1])  # the largest valid m0 is inside the scanned range (valid ones are a prefix)
    return int(stats.binom.ppf(t, N, g))


def _block_pair(R: Randomizer, n: int, a: int, b: int, t: float, width: float | None = None):
    """A pair whose profile bounds that of every pair k ∈ [a, b] (see :func:`_binary_sweep`); its slack t.

    ``width``: None builds the laws on the standard windows (:func:`.exact._conv_binoms`), a number
    on windows of ±``width`` sd (:func:`.exact._conv_binoms_fast`; the mass outside is lost mass,
    added to δ, so the bound holds for any width).
    """
    w0, w1 = _binary_groups(R)
    if a == b:
        if width is None:
            return shuffled_pair(R, n, k=a, cache=False), 0.0
        return _pair_from_others(R, [(n - a - 1, w0), (a, w1)], w0, w1, n=n, k=a,
                                 method="binomial convolution (log space)", width=width), 0.0
    wm = b - a
    gam = 1.0 - abs(w1 - w0)  # mass common to Ber(w0) and Ber(w1): a coin Ber(c) with probability gam
    c = min(w0, w1) / gam
    m0 = _coin_quantile(t, wm, gam)  # P(M < m0) ≤ t, M ~ Bin(b − a, gam)
    others = [(n - 1 - b, w0), (a, w1)] + ([(m0, c)] if m0 > 0 else [])
    return (_pair_from_others(R, others, w0, w1, n=n, k=a, method=f"block bound k ∈ [{a}, {b}]", width=width),
            t if m0 > 0 else 0.0)


def _binary_sweep(R: Randomizer, n: int, value, *, t: float, rtol: float, atol: float, max_pairs: int,
                  tail: float | None = None):
    """Certified maximum over the pairs k = 0 … n − 1 of a privacy quantity (binary inputs).

    The model's pairs are "target 0 vs 1, k of the other n − 1 users hold 1" (k = 0 … n − 1; for a
    randomizer symmetric under swapping the inputs, k and n − 1 − k are mirror images, so
    k ≤ (n − 1)/2). For a block k ∈ [a, b] every such data set contains a common part: a users at 1
    and n − 1 − b at 0; each of the b − a others reports, with probability γ = 1 − |w1 − w0|, a coin
    Ber(c) (c = min(w0, w1)/γ), and otherwise a value fixed by its input. Conditioning on which
    of them are coins (M ~ Bin(b − a, γ), the same law for every k in the block) and on the fixed
    values (a shift of the count, which changes nothing), joint convexity of the hockey-stick
    divergence gives δ_k(ε) ≤ E_M δ_{A + Bin(M, c)}(ε) ≤ P(M < m0) + δ_{A + Bin(m0, c)}(ε), since
    adding a coin is post-processing (δ non-increasing in M). So one exact pair bounds a whole
    block. Blocks are swept from k = 0 with growing widths; a block whose bound is ≤ the best exact
    single-k value (× (1 + rtol), + atol) is done, otherwise it is narrowed down to single k
    (exact). Returns (lower, upper, k attaining lower, pairs evaluated, closed): the worst case is
    in [lower, upper] — lower attained by the pair k, upper ≥ every pair's value (entrywise).

    ``tail``: None builds every pair on the standard windows; a number builds the block pairs on
    narrower windows whose lost mass (added to δ: still a bound) is ≲ ``tail`` (a Gaussian quantile;
    a block pair whose lost mass exceeds ``tail`` is rebuilt on the standard windows, so the values
    stay as tight). Single pairs (the lower end) always use the standard windows.

    The widths: a block's bound (in units of the threshold) grows about linearly in its width
    (users taken out of the exact part), r ≈ c + s·width, with a slope s that changes slowly along
    k and an intercept c that drifts with the profile δ_k. s is estimated from the last two blocks
    of clearly different widths (kept when the widths are alike), c's drift from the last two
    accepted blocks (extrapolated linearly to the next one), and the next width aims at 0.96 of the
    threshold — a guess only: every block is checked, a failed one is retried narrower.
    """
    sym = _swap_symmetric(R)
    kmax = (n - 1) // 2 if sym else n - 1
    lower = kl = None
    evals = 0
    width = None if tail is None else float(stats.norm.isf(min(0.1, tail / 8.0))) + 0.5

    def pair(a: int, b: int):
        if a == b:  # single pairs (the lower end): the standard windows, as every exact pair elsewhere
            return _block_pair(R, n, a, b, t)
        pr, tt = _block_pair(R, n, a, b, t, width)
        if width is not None and max(pr.lost_p, pr.lost_q) > tail:  # a heavy tail: the standard windows
            pr, tt = _block_pair(R, n, a, b, t)
        return pr, tt

    def exact_at(k: int) -> np.ndarray:
        nonlocal lower, kl, evals
        v = np.asarray(value(*pair(k, k)), dtype=float)
        evals += 1
        if lower is None:
            lower, kl = v.copy(), np.full(v.shape, k)
        else:
            m = v > lower
            lower[m], kl[m] = v[m], k
        return v

    ends = sorted({*range(0, min(kmax, 15) + 1), *(() if sym else range(max(0, kmax - 15), kmax + 1))})
    for k in ends:  # the ends: every pair (the maximum is often at a small k > 0, or n − 1 − small k)
        exact_at(k)
    upper = lower.copy()
    lo_k, hi_k = 16, kmax if sym else kmax - 16  # the rest, swept from both ends toward the middle
    if sym:
        halves = [(lo_k, hi_k, 1)]
    else:
        mid = (lo_k + hi_k) // 2
        halves = [(lo_k, mid, 1), (hi_k, mid + 1, -1)]
    closed = True
    aim = 1.0 - 0.04 * rtol / (1.0 + rtol)  # just under the threshold, in units of it
    for start, stop, step in halves:
        a, w = start, 2
        last: tuple[int, float] | None = None  # (width, worst ratio bound / threshold) of the last block
        prev_ok: tuple[float, int, float] | None = None  # (centre, width, ratio) of the last accepted block
        slope = None
        while (a <= stop) if step > 0 else (a >= stop):
            if evals >= max_pairs:  # budget spent: one block bound for the rest (still certified)
                v = np.asarray(value(*pair(min(a, stop), max(a, stop))), dtype=float)
                upper, closed = np.maximum(upper, v), False
                evals += 1
                break
            b = min(stop, a + w - 1) if step > 0 else max(stop, a - w + 1)
            if b == a:
                upper = np.maximum(upper, exact_at(a))
                a, w = a + step, 2
                continue
            v = np.asarray(value(*pair(min(a, b), max(a, b))), dtype=float)
            evals += 1
            thr = lower * (1.0 + rtol) + atol
            ok = bool(np.all(v <= thr))
            wb = abs(b - a)
            r = float(np.max(v / np.maximum(thr, 1e-300)))
            if last is not None and abs(wb - last[0]) >= 0.2 * max(wb, last[0]):
                s_new = (r - last[1]) / (wb - last[0])
                if s_new > 0:
                    slope = s_new
            last = (wb, r)
            guess = None if slope is None else int((aim - (r - slope * wb)) / slope)
            if ok:
                upper = np.maximum(upper, v)
                centre = 0.5 * (a + b) * step
                if slope is not None and prev_ok is not None and centre > prev_ok[0]:
                    # the intercept (bound at width 0) drifts along k: extrapolate it linearly to the next block
                    c1, c0 = r - slope * wb, prev_ok[2] - slope * prev_ok[1]
                    drift = (c1 - c0) / (centre - prev_ok[0])
                    den = slope + 0.5 * drift
                    if den > 0:
                        guess = int((aim - c1 - drift * (0.5 * wb + 1.0)) / den)
                prev_ok = (centre, wb, r)
                nxt = int(w * 1.5) + 1 if guess is None else min(max(guess, wb // 2 + 1), 30 * wb + 30)
                a, w = b + step, max(1, nxt)
            else:
                w = max(1, w // 2 if guess is None else min(max(guess, wb // 4), (9 * wb) // 10))
    return lower, np.maximum(upper, lower), kl, evals, closed
