"""Composition over T shuffled rounds, as a certified bracket [lower, upper].

Each round: n users, k-RR(ε0) (binary RR: k = 2), fresh randomness, the shuffler releases the
histogram. :func:`compose_rounds` returns

* **upper** (``epsilon``, certified): the T-fold composition of a *dominating pair* — the exact
  privacy blanket with its count M revealed — by ``dp_accounting``'s PLD accountant with every
  privacy loss rounded **up** to the grid and every mass the windows leave out given infinite loss;
* **lower**: the T-fold composition of an *actual* neighbouring pair (k ≥ 3: all other users at a
  third symbol, outputs ≠ 0, 1 merged; binary RR: the canonical pair, others at 0, composed in both
  directions — P‖Q and Q‖P — and the larger kept), with every loss
  rounded **down** and the mass outside the windows dropped. The worst case over adaptive T-round
  interactions lies in [lower, upper].

Why the blanket pair with M revealed dominates T adaptive rounds
-----------------------------------------------------------------
Every k-RR report is W_x = (k/d)·Uniform(k) + (1 − k/d)·δ_x, d = e^{ε0} + k − 1 (the blanket of
Balle, Bell, Gascón & Nissim 2019). Let the pair (P, Q) be: M ~ Bin(n − 1, k/d) (the same law under
both), then the histogram of the target's report (input 1 under P, 0 under Q) and M uniform
reports, of which only (M, h_0, h_1) is released. Fix any neighbouring data sets D (target 1) and D'
(target 0; any two symbols are 1 and 0 after relabelling, which is a bijection). The real release is
obtained from (M, h_0, h_1) by a Markov kernel K_D that does *not* depend on the target's input:
(i) complete the histogram of the target + M blanket reports: given (M, h_0, h_1), the counts on the
symbols 2 … k − 1 are Mult(M + 1 − h_0 − h_1, uniform) under both P and Q (both laws are
Mult·(S + α h_b), a factor constant given (h_0, h_1)); (ii) draw which n − 1 − M of the other users
did not report from the blanket (uniformly, given M) and add their inputs' symbols. So the real pair
is (K_D P, K_D Q). Replacing M by the first M of its block (blocks of M below) keeps this: given
the block, draw M from its conditional law and add M − M_first uniform reports (a kernel again).
In T adaptive rounds, round t's data set (the other users' inputs, even n's split) may depend on
the earlier releases, so round t is K_{D_t(y_<t)} applied to a fresh draw Z_t of (P, Q). The whole
transcript is therefore one kernel (independent of the target's input) applied to (Z_1 … Z_T) ~
P^T vs Q^T, and the data-processing inequality for the hockey-stick divergence gives
δ_T(ε) ≤ H_{e^ε}(P^T ‖ Q^T) (equally for the reverse direction: the pair is symmetric under the swap
of the symbols 0 and 1). That is the T-fold product dp_accounting composes. This is domination in
the post-processing (Blackwell) sense, which is stronger than the per-ε hockey-stick domination of
:mod:`.worst` (enough for one round; for T rounds the product of a hockey-stick-dominating pair is
also valid by Zhu, Dong & Wang 2022, Thm 10, but the argument above needs no such theorem).
For k = 2 the same pair is FMT23's clone pair.

Numerics (all certified in the upper end's direction)
------------------------------------------------------
* M outside mean ± z sd (window tails ≤ 1e-4·δ/T): infinite loss. Blocks of M (width ≈ 0.6% of
  the mean) at the first M of each block (a post-processing argument, above).
* Given S = M + 1, the count T = h_0 + h_1 has the same law under P and Q, w_T·(S + αT/2) with
  w_T = Bin(T; S, 2/k)·k/(dS), α = e^{ε0} − 1, and given T the pair is "target 1 w.p.
  u_T = (S + αT)/(2S + αT) (0 under Q) + T − 1 fair coins" (from P ∝ Bin(h_1; T, ½)(S + α h_1)).
  Rows in a block [T_a, T_b] (width ≈ 0.3% of T) are replaced by (max u_T, T_a − 1 coins): every
  row of the block is a post-processing of it (flip the target with some probability, add coins).
  k = 2: T = S, u = e^{ε0}/(e^{ε0} + 1): FMT23's clone pair. Rows outside the T window: infinite loss.
* Each clone pair's cells x (number of 1s) within C/2 ± (z sd + 2) are exact (Boost binomial pmf,
  log of a ratio of two linear terms); the P-mass outside: infinite loss. Losses are rounded *up* to
  dp_accounting's grid Δ; the grid is chosen so that T·Δ ≈ 0.5% of the composed ε (estimated from
  the loss's mean and variance), coarser where the composed PLD would need more than ≈ 2·10⁶
  points; dp_accounting composes with ``pessimistic_estimate=True``.
* Lower end: the third-symbol pair given its {0, 1}-count T is "with probability π_T the target is
  outside {0, 1} (T coins), else a target biased u/(u + v) + T − 1 coins"; a block of rows is
  replaced by (max π_T, T_b − 1 coins), which is a post-processing of every row of the block — so
  the result is *dominated* by the actual pair (a valid lower end; the pair is symmetric under the
  swap of 0 and 1, so one direction is both); binary RR: the canonical pair's exact cells
  (:func:`dpexplore.shuffle.shuffled_pair`), which is *not* symmetric: each direction is composed and
  the larger ε kept (each is a lower end, so their maximum is one). Losses rounded down, mass outside the
  windows dropped, ``pessimistic_estimate=False``. The two ends share Δ, so their gap is the
  pairs' gap plus ≤ T·Δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpexplore.core.validation import check_delta, check_int, check_real

from .asymptotics import gdp_epsilon_at
from .clones import _mass_blocks
from .constants import _check_randomizer
from .exact import shuffled_pair
from .pairs import _binom_pmf, _binom_window_mass, _krr_params
from .randomizers import Randomizer

__all__ = ["ComposedPrivacy", "compose_rounds", "MAX_COMPOSE_USERS", "MAX_ROUNDS", "MAX_EPSILON0"]

#: public maximum of n for :func:`compose_rounds`
MAX_COMPOSE_USERS = 10**7
#: public maximum of T (rounds) for :func:`compose_rounds`
MAX_ROUNDS = 10**4
#: largest ε0 of the randomizer :func:`compose_rounds` accepts (e^{-ε0} must stay well above float64's epsilon)
MAX_EPSILON0 = 30.0
@dataclass(frozen=True)
class ComposedPrivacy:
    """ε at δ of T composed shuffled rounds: a certified bracket [lower, epsilon].

    Attributes
    ----------
    rounds, delta : int, float
    epsilon : float
        Certified upper end (the dominating pair composed, pessimistic), capped at T·ε0.
    epsilon_one_round : float
        The dominating pair's ε for one round (its PLD, same grid).
    trivial_bound : float
        T·ε0.
    capped : bool
        The trivial bound binds.
    method : str
    lower : float
        T-fold composition of an actual neighbouring pair (optimistic): the worst case is ≥ it.
    lower_one_round : float
    lower_pair : str
        The pair giving ``lower``.
    discretization : float
        The PLD grid Δ used.
    """

    rounds: int
    delta: float
    epsilon: float
    epsilon_one_round: float
    trivial_bound: float
    capped: bool
    method: str
    lower: float = math.nan
    lower_one_round: float = math.nan
    lower_pair: str = ""
    discretization: float = math.nan

    @property
    def upper(self) -> float:
        """Alias of ``epsilon`` (the certified upper end)."""
        return self.epsilon

    @property
    def ratio(self) -> float:
        """upper / lower (the bracket's relative width; inf if lower = 0)."""
        return self.epsilon / self.lower if self.lower > 0 else math.inf


_T_WIDTH = 0.003  # T-blocks of relative width 0.3% (relative loss bias ≲ 0.3%)
_M_WIDTH = 0.006  # M-blocks of relative width ≈ 0.6% of the mean M (bias ≲ 0.2%: the loss scales like 1/√S)
_MAX_M_BLOCKS = 64
_GRID_SHARE = 0.005  # T·Δ ≤ 0.5% of the composed ε (unless that needs more than _MAX_SUPPORT points)
_MAX_SUPPORT = 1_000_000  # (≈ the composed PLD support / 2, measured)


def _clone_cells(u, C, pi, weight, z: float):
    """Grid PLD of a mixture of pairs "target 1 w.p. u (P) / 1 − u (Q) + C fair coins", diluted by π.

    Vectorised over the pairs (arrays u, C, π, weight). Cells x = 0 … C + 1 (the number of 1s):
    P(x) = π·Bin(x; C + 1, ½) + (1 − π)·[u·Bin(x − 1; C, ½) + (1 − u)·Bin(x; C, ½)], Q with
    u ↔ 1 − u; P/Q = (π' + u x + (1 − u)(C + 1 − x))/(π' + (1 − u)x + u(C + 1 − x)),
    π' = π(C + 1)/(2(1 − π)), is increasing in x (u > ½). Cells in C/2 ± (z sd + 2) are exact; the
    P-mass outside is returned (the upper end gives it infinite loss, the lower end drops it).
    Returns (losses, weighted P-masses, weighted outside mass).
    """
    u, C, pi, weight = (np.asarray(a, dtype=float) for a in (u, C, pi, weight))
    pi = np.minimum(pi, 1.0 - 1e-300)
    sd = 0.5 * np.sqrt(np.maximum(C, 1.0))
    lo = np.maximum(0.0, np.floor(C / 2 - z * sd - 2))
    hi = np.minimum(C + 1, np.ceil(C / 2 + z * sd + 2))
    cnt = (hi - lo + 1).astype(np.int64)
    blk = np.repeat(np.arange(C.size), cnt)
    start = np.cumsum(cnt) - cnt
    x = lo[blk] + (np.arange(blk.size) - start[blk])
    Cb, ub, pib = C[blk], u[blk], pi[blk]
    b = stats.binom.pmf(x, Cb + 1, 0.5)
    pp = pib * (Cb + 1) / (2.0 * (1.0 - pib))
    num = pp + ub * x + (1.0 - ub) * (Cb + 1 - x)
    den = pp + (1.0 - ub) * x + ub * (Cb + 1 - x)
    mass = weight[blk] * b * (2.0 * (1.0 - pib) / (Cb + 1)) * num
    with np.errstate(divide="ignore"):  # ε0 ≳ 37: u rounds to 1 and a cell has Q = 0 (infinite loss)
        loss = np.log(num / den)

    def tails(N, a, c):  # P(Bin(N, ½) < a) + P(Bin(N, ½) > c)
        return stats.binom.cdf(a - 1, N, 0.5) + stats.binom.sf(c, N, 0.5)

    out = pi * tails(C + 1, lo, hi) + (1.0 - pi) * (u * tails(C, lo - 1, hi - 1) + (1.0 - u) * tails(C, lo, hi))
    return loss, mass, float(np.dot(weight, np.minimum(out, 1.0)))


def _to_grid(loss: np.ndarray, mass: np.ndarray, disc: float, upper: bool) -> dict[int, float]:
    """{grid index: P-mass}: losses rounded up (``upper``, by a margin 1e-9 Δ) or down to the grid Δ."""
    idx = np.ceil(loss / disc + 1e-9) if upper else np.floor(loss / disc - 1e-9)
    return _aggregate([idx.astype(np.int64)], [mass])


def _blanket_blocks(e0: float, k: int, n: int, z: float):
    """The dominating pair as a mixture of clone pairs: [(weight, u, C)], the P-mass at loss 0, infinite mass.

    M ~ Bin(n − 1, k/d) in blocks (each at its first M: S = M + 1 reports incl. the target); given S,
    the rows T = h_0 + h_1 (the same law w_T(S + αT/2) under P and Q) in blocks [T_a, T_b]; the row T
    is the pair "target 1 w.p. u_T = (S + αT)/(2S + αT) + (T − 1) fair coins", and the block is
    replaced by (max u_T, T_a − 1 coins), a pair of which every row of the block is a post-processing
    (a less biased target: flip it; more coins: add them). Rows outside the window and M outside
    its window: infinite loss. k = 2: T = S (one row; FMT23's clone pair).
    """
    d, al = math.exp(e0) + k - 1, math.expm1(e0)
    r, N = k / d, n - 1
    lo, hi, inf = _binom_window_mass(N, r, z)
    mean = max(N * r, 1.0)
    nb = int(min(_MAX_M_BLOCKS, max(1, math.ceil((hi - lo + 1) / max(1.0, _M_WIDTH * mean)))))
    if hi - lo + 1 <= (4096 if k == 2 else 128):  # few values of M: every one exactly (no block bias)
        nb = hi - lo + 1
    starts, _, wM, _ = _mass_blocks(N, r, lo, hi, nb)
    out: list[tuple[float, float, int]] = []
    zero = 0.0
    for M0, wm in zip(starts, wM):
        if wm <= 0.0:
            continue
        S = int(M0) + 1
        if k == 2:
            out.append((float(wm), (1.0 + al) / (2.0 + al), S - 1))
            continue
        tl, th, out_t = _binom_window_mass(S, 2.0 / k, z)
        t = np.arange(tl, th + 1)
        m_t = stats.binom.pmf(t, S, 2.0 / k) * (k / (d * S)) * (S + 0.5 * al * t)  # P-mass of row T = t
        if tl == 0:  # T = 0: P = Q (loss 0)
            zero += wm * float(m_t[0])
            t, m_t = t[1:], m_t[1:]
        inf += wm * out_t * (k / d) * (1.0 + al / 2.0)  # a row's P-mass ≤ Bin(t; S, 2/k)·(k/d)(1 + α/2)
        width = max(1, int(_T_WIDTH * 2.0 * S / k))
        for i in range(0, t.size, width):
            ta, tb = int(t[i]), int(t[min(i + width, t.size) - 1])
            u = (S + al * tb) / (2.0 * S + al * tb)
            out.append((float(wm * m_t[i:i + width].sum()), u, ta - 1))
    return out, zero, inf


def _blanket_cells(e0: float, k: int, n: int, z: float):
    """Cells of the dominating pair: (losses, P-masses, infinite-loss mass)."""
    blocks, zero, inf = _blanket_blocks(e0, k, n, z)
    w, u, C = (np.array(c, dtype=float) for c in zip(*blocks))
    loss, mass, o = _clone_cells(u, C, np.zeros(w.shape), w, z)
    return np.append(loss, 0.0), np.append(mass, zero), min(inf + o, 1.0)


def _aggregate(idx_list, m_list) -> dict[int, float]:
    idx = np.concatenate(idx_list)
    m = np.concatenate(m_list)
    base = int(idx.min())
    agg = np.bincount(idx - base, weights=m)
    nz = np.nonzero(agg > 0)[0]
    return {int(i + base): float(agg[i]) for i in nz}


# -- actual pairs (lower end) -------------------------------------------------------------------
def _third_symbol_cells(R: Randomizer, n: int, z: float):
    """Cells (losses, P-masses) of a post-processing of the third-symbol pair (for the lower end).

    Others at symbol 2: C ~ Bin(n − 1, 2/d) of their reports land on {0, 1} (fair coins); outputs
    ≠ 0, 1 merged (exact for k = 3, a post-processing for k > 3). Given T = N_0 + N_1 (same law
    under P and Q) the row is "with probability π_T the target is outside {0, 1} (T coins), else a
    target biased u/(u + v) + (T − 1) coins". A block of rows [T_a, T_b] is replaced by
    (max π_T, T_b − 1 coins), which *is* a post-processing of every row of the block (add coins, mix
    in the identical part): the result is dominated by the actual pair, hence a lower end. Mass
    outside the windows is dropped; losses are rounded down.
    """
    u, v, r, k = _krr_params(R)
    w_out = 1.0 - u - v
    N = n - 1
    lo, hi, _ = _binom_window_mass(N + 1, r, z)
    T = np.arange(max(lo, 1), hi + 1)
    a_T = _binom_pmf(T, N, r) * w_out  # C = T: the target outside {0, 1} (a lower value where Nr < 1e-100)
    z_T = _binom_pmf(T - 1, N, r) * (u + v)  # C = T − 1: the target in {0, 1}
    row = a_T + z_T
    with np.errstate(invalid="ignore", divide="ignore"):
        pi_T = np.where(row > 0, a_T / row, 1.0)
    width = max(1, int(_T_WIDTH * N * r))
    ub = u / (u + v)
    starts = np.arange(0, T.size, width)
    wgt = np.add.reduceat(row, starts)
    pmax = np.maximum.reduceat(pi_T, starts)
    Cb = T[np.minimum(starts + width, T.size) - 1] - 1.0
    ok = wgt > 0
    loss, mass, _ = _clone_cells(np.full(ok.sum(), ub), Cb[ok], pmax[ok], wgt[ok], z)
    return loss, mass


def _pair_cells(R: Randomizer, n: int, k: int = 0):
    """Cells of the exact binary-input pair k (:func:`shuffled_pair`; lost mass dropped), both directions.

    Returns ``[(losses log P/Q, P-masses), (losses log Q/P, Q-masses)]``: the pair is not symmetric (the
    others sit at 0), so its two directions compose to different ε (issue 37: ε0 = 4, n = 100, T = 10,
    δ = 1e-6 gives 9.30 one way and 32.95 the other); the lower end takes the larger.
    """
    pr = shuffled_pair(R, n, k=k, cache=False)
    lr, p, q = pr._s["lr"], pr._s["p"], pr._s["q"]
    fwd, rev = p > 0, q > 0  # a cell with Q = 0 (P = 0) has infinite loss forward (reverse)
    return [(lr[fwd], p[fwd]), (-lr[rev], q[rev])]


# -- composition ---------------------------------------------------------------------------------
def _compose(pmf: dict[int, float], inf: float, disc: float, T: int, delta: float, pessimistic: bool):
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    pld = PrivacyLossDistribution(pld_pmf.create_pmf(pmf, disc, float(inf), pessimistic))
    one = float(pld.get_epsilon_for_delta(delta))
    comp = float(pld.self_compose(T).get_epsilon_for_delta(delta)) if T > 1 else one
    return one, comp


def _z_of(tail: float) -> float:
    return math.sqrt(2.0 * math.log(1.0 / tail)) + 1.0


def compose_rounds(randomizer: Randomizer, n: int, rounds: int, delta: float, *,
                   discretization: float | None = None) -> ComposedPrivacy:
    """ε(δ) of T shuffled rounds of n k-RR reports: a certified bracket [lower, epsilon].

    ``epsilon`` (alias ``upper``) composes the exact privacy blanket with its count M revealed —
    a pair of which every round's real release is a post-processing, for every data set and every
    adaptive choice of the data sets (module docstring) — by ``dp_accounting``'s PLD accountant,
    losses rounded up, window tails at infinite loss: certified. ``lower`` composes an actual
    neighbouring pair (k ≥ 3: others at a third symbol; binary RR: the canonical pair, the larger
    of its two directions), losses rounded down: the worst case is ≥ it. Both are capped at the trivial
    bound T·ε0 (``capped``).

    Parameters
    ----------
    randomizer : Randomizer
        :func:`binary_rr` or :func:`k_rr`, ε0 ≤ :data:`MAX_EPSILON0` (30).
    n : int
        Users per round, 2 ≤ n ≤ :data:`MAX_COMPOSE_USERS` (10⁷).
    rounds : int
        1 ≤ T ≤ :data:`MAX_ROUNDS` (10⁴).
    delta : float
    discretization : float, optional
        PLD grid Δ in [1e-9, 1e-2]; default: T·Δ ≈ 0.5% of the composed ε and Δ ≤ 1e-4 (the
        rounding moves each end by ≤ T·Δ/2), coarser where the composed PLD would need more than
        ≈ 2·10⁶ grid points (T ≳ 2000: the bracket widens to ≈ 2%).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr, k_rr
    >>> c = compose_rounds(binary_rr(2.0), 2000, 10, 1e-6)
    >>> c.lower <= c.epsilon and c.epsilon_one_round < c.epsilon < 10 * c.epsilon_one_round
    True
    >>> c = compose_rounds(k_rr(1.0, 3), 10_000, 10, 1e-6)
    >>> c.lower <= c.upper < 1.1 * c.lower
    True
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_COMPOSE_USERS)
    T = check_int(rounds, "rounds", low=1, high=MAX_ROUNDS)
    delta = check_delta(delta)
    disc = None if discretization is None else check_real(discretization, "discretization", low=1e-9, high=1e-2)
    _, _, _, k = _krr_params(R)  # k-RR / binary RR only (a clear ValueError otherwise)
    e0 = R.local_epsilon
    if e0 > MAX_EPSILON0:
        raise ValueError(f"epsilon0 of the randomizer must be <= {MAX_EPSILON0:g} for compose_rounds (beyond it a "
                         f"report is deterministic to float64 precision: the trivial bound T·ε0 is the answer); "
                         f"got {e0!r}")
    cap = T * e0
    z = _z_of(min(1e-12, 1e-4 * delta / T))  # window tails ≪ δ/T
    loss, mass, inf = _blanket_cells(e0, k, n, z)
    if k >= 3:  # symmetric under swapping the symbols 0 and 1: one direction is both
        lower_dirs = [_third_symbol_cells(R, n, z)]
        lname = "third-symbol pair (others at symbol 2" + (")" if k == 3 else "; outputs ≠ 0, 1 merged)")
    else:  # not symmetric: both directions (P‖Q and Q‖P), the larger of each
        lower_dirs = _pair_cells(R, n)
        lname = "canonical pair (others at 0), both directions"
    if disc is None:  # the loss's mean and spread set the composed ε's scale (a GDP-style estimate)
        mean = float(np.dot(loss, mass) / mass.sum())
        var = float(np.dot((loss - mean) ** 2, mass) / mass.sum())
        est = max(T * max(mean, 0.0) + gdp_epsilon_at(math.sqrt(T * var), delta), 1e-6)
        floor = (T * abs(mean) + 6.0 * math.sqrt(T * var)) / _MAX_SUPPORT  # composed PLD: ≲ 2·10⁶ grid points
        disc = float(min(1e-2, max(1e-9, floor, min(1e-4, _GRID_SHARE * min(est, cap) / T))))
    fin = np.isfinite(loss)  # infinite losses (Q = 0 cells) go to the infinite mass
    one, comp = _compose(_to_grid(loss[fin], mass[fin], disc, upper=True), min(1.0, inf + float(mass[~fin].sum())),
                         disc, T, delta, pessimistic=True)
    lone = lcomp = 0.0
    for lloss, lmass in lower_dirs:  # each direction's composition is a lower end: keep the larger
        lfin = np.isfinite(lloss)
        o, c = _compose(_to_grid(lloss[lfin], lmass[lfin], disc, upper=False), float(lmass[~lfin].sum()), disc,
                        T, delta, pessimistic=False)
        lone, lcomp = max(lone, o), max(lcomp, c)
    if lcomp > comp * (1 + 1e-9) + 1e-12 or lone > one * (1 + 1e-9) + 1e-12:  # never hide a bug
        raise RuntimeError(f"internal error: the actual pair's composed ε {lcomp} (one round {lone}) exceeds the "
                           f"dominating pair's {comp} ({one})")
    lone, lcomp = min(lone, e0), min(lcomp, cap)
    name = "FMT23's clone pair" if k == 2 else "the exact privacy blanket with M revealed"
    return ComposedPrivacy(T, delta, min(comp, cap), min(one, e0), cap, comp > cap,
                           f"dp_accounting PLD (pessimistic, Δ = {disc:.2g}) on {name}",
                           lcomp, lone, lname, disc)
