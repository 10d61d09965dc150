"""Issue 37 item 10: ``compose_rounds``' lower end composes its named pair in *both* directions.

The lower end names an actual neighbouring pair (binary RR: the canonical pair, the others at one bit;
3-RR: the others at the third symbol). Here that pair is built by brute force, independently of
:func:`dpexplore.shuffle.shuffled_pair` and of the module's cells (binary RR: the count of 1s is a
binomial plus the target's bit; 3-RR: the full histogram law on the dense grid, n ≤ 20), and each
direction (P‖Q and Q‖P) is composed T times by the same accountant (dp_accounting's PLD) on the same
grid Δ. The lower end must equal the larger direction composed with losses rounded down (as the module
does it), and lie within 2·T·Δ below the larger direction composed with losses rounded up (which is ≥
the pair's true composed ε). Before the fix the binary lower end composed one
direction only (ε0 = 4, n = 100, T = 10, δ = 1e-6: 9.30 while the other direction gives 32.95).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import pld_pmf
from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution
from scipy import stats

from dpexplore.shuffle import binary_rr, compose_rounds, k_rr
from dpexplore.shuffle.worst import _dense_law, _krr_matrix


def _composed(A: np.ndarray, B: np.ndarray, T: int, delta: float, disc: float, up: bool) -> float:
    """ε(δ) of the T-fold product of (A ‖ B), losses rounded up (``up``) or down to the grid ``disc``."""
    ok = (A > 1e-250) & (B > 1e-250)  # denormal tails overflow dp_accounting's bounds: up: infinite loss; down: dropped
    loss = np.log(A[ok]) - np.log(B[ok])
    idx = (np.ceil(loss / disc + 1e-9) if up else np.floor(loss / disc - 1e-9)).astype(np.int64)
    base = int(idx.min())
    agg = np.bincount(idx - base, weights=A[ok])
    pmf = {int(i + base): float(m) for i, m in enumerate(agg) if m > 0}
    inf = float(A[~ok].sum()) if up else 0.0
    pld = PrivacyLossDistribution(pld_pmf.create_pmf(pmf, disc, inf, up))
    return float(pld.self_compose(T).get_epsilon_for_delta(delta)) if T > 1 else float(pld.get_epsilon_for_delta(delta))


def _binary_pair(e0: float, n: int):
    """Binary RR, n − 1 others with input 0, the target 1 (P) or 0 (Q): the law of the number of 1s."""
    q = 1.0 / (1.0 + math.exp(e0))  # a report flips with probability q
    x = np.arange(n + 1)
    b, b1 = stats.binom.pmf(x, n - 1, q), stats.binom.pmf(x - 1, n - 1, q)
    return (1 - q) * b1 + q * b, q * b1 + (1 - q) * b


def _third_symbol_pair(e0: float, n: int):
    W = _krr_matrix(k_rr(e0, 3))
    others = [2] * (n - 1)
    return _dense_law(others + [1], W, n), _dense_law(others + [0], W, n)


CASES = [("binary", 4.0, 100, 10), ("binary", 1.0, 20, 5), ("binary", 0.5, 2000, 10), ("binary", 2.0, 500, 3),
         ("binary", 4.0, 2000, 5), pytest.param("binary", 8.0, 50, 4, marks=pytest.mark.slow),
         ("3-RR", 2.0, 20, 5), ("3-RR", 4.0, 12, 10),
         ("3-RR", 1.0, 20, 1)]


@pytest.mark.parametrize("kind,e0,n,T", CASES, ids=lambda x: str(x))
def test_lower_end_is_the_named_pair_composed_in_both_directions(kind, e0, n, T):
    delta = 1e-6
    R = binary_rr(e0) if kind == "binary" else k_rr(e0, 3)
    c = compose_rounds(R, n, T, delta)
    P, Q = _binary_pair(e0, n) if kind == "binary" else _third_symbol_pair(e0, n)
    d = c.discretization
    up = [min(_composed(A, B, T, delta, d, up=True), T * e0) for A, B in ((P, Q), (Q, P))]
    down = [min(_composed(A, B, T, delta, d, up=False), T * e0) for A, B in ((P, Q), (Q, P))]
    tol = 1e-9 * max(up)
    # the lower end is at least each direction's composition on the same grid, rounded the same way ...
    assert c.lower >= max(down) - tol, (c.lower, down)
    # ... hence within the rounding of the pair's true composed ε (≤ max(up)): floor and ceil, each with a
    # 1e-9·Δ margin, put a loss ≤ 2Δ apart (a loss on a grid point: k − 1 vs k + 1), so ≤ 2·T·Δ for T rounds
    assert c.lower >= max(up) - 2 * T * d * (1 + 1e-6) - tol, (c.lower, up)
    # ... and never above the pair it names (it is a lower end), nor above the certified upper end
    assert c.lower <= max(up) + tol, (c.lower, up)
    assert c.lower <= c.epsilon
    one_up = [min(_composed(A, B, 1, delta, d, up=True), e0) for A, B in ((P, Q), (Q, P))]
    assert max(one_up) - 2 * d * (1 + 1e-6) - tol <= c.lower_one_round <= max(one_up) + tol
    assert "both directions" in c.lower_pair or kind == "3-RR"


def test_issue_37_cases():
    """The issue's two measurements: the canonical pair's other direction composes to 32.95 and 2.81."""
    c = compose_rounds(binary_rr(4.0), 100, 10, 1e-6)
    assert 32.9 <= c.lower <= c.epsilon
    c = compose_rounds(binary_rr(1.0), 20, 5, 1e-6)
    assert 2.80 <= c.lower <= c.epsilon


def test_the_binary_pair_is_really_asymmetric():
    """The check above has teeth: at these settings the two directions differ by far more than T·Δ."""
    P, Q = _binary_pair(4.0, 100)
    a, b = (_composed(A, B, 10, 1e-6, 1e-4, up=False) for A, B in ((P, Q), (Q, P)))
    assert min(a, b) < 10.0 < 32.0 < max(a, b)
