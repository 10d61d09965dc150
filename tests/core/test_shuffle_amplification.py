import math

import numpy as np
import pytest
from scipy import stats

from dpexplore.core import (
    clone_pair_delta,
    clone_pair_epsilon,
    fmt21_closed_form_epsilon,
    shuffle_amplification_epsilon,
    shuffle_amplification_epsilon0,
)


def brute_clone_delta(e0, n, eps, r):
    """The clone-pair δ(ε) summed term by term over every C and a (no tail tricks)."""
    alpha = math.exp(e0) / (math.exp(e0) + 1)
    total = 0.0
    for c in range(n):
        w = stats.binom.pmf(c, n - 1, r)
        a = np.arange(c + 2)
        b0 = stats.binom.pmf(a, c, 0.5)
        b1 = stats.binom.pmf(a - 1, c, 0.5)
        p = alpha * b1 + (1 - alpha) * b0
        q = (1 - alpha) * b1 + alpha * b0
        total += w * max(np.maximum(p - math.exp(eps) * q, 0).sum(), np.maximum(q - math.exp(eps) * p, 0).sum())
    return total


def test_public_reference_values():
    # Feldman–McMillan–Talwar 2021, n = 1e5, ε0 = 4, δ = 1e-6
    assert fmt21_closed_form_epsilon(4.0, 100_000, 1e-6) == pytest.approx(0.5378, abs=5e-5)
    eps = clone_pair_epsilon(4.0, 100_000, 1e-6)
    assert 0.1675 <= eps <= 0.1728


@pytest.mark.parametrize(("e0", "n", "eps"), [(1.0, 40, 0.3), (2.0, 60, 0.5), (3.0, 80, 1.0)])
@pytest.mark.parametrize("variant", ["fmt21", "fmt23"])
def test_tail_formula_equals_brute_force(e0, n, eps, variant):
    r = math.exp(-e0) if variant == "fmt21" else 2 / (math.exp(e0) + 1)
    assert clone_pair_delta(e0, n, eps, variant=variant) == pytest.approx(brute_clone_delta(e0, n, eps, r), abs=1e-12)


def test_amplification_orderings():
    n, delta = 10_000, 1e-6
    for e0 in (0.5, 1.0, 2.0, 3.0):
        num = shuffle_amplification_epsilon(e0, n, delta)
        stronger = shuffle_amplification_epsilon(e0, n, delta, accountant="fmt23_numerical")
        closed = shuffle_amplification_epsilon(e0, n, delta, accountant="fmt21_closed_form")
        assert stronger <= num <= closed <= e0
    # more users, more amplification
    assert clone_pair_epsilon(2.0, 100_000, delta) < clone_pair_epsilon(2.0, 1_000, delta)


def test_inverse_is_consistent():
    for acc in ("fmt21_numerical", "fmt21_closed_form"):
        e0 = shuffle_amplification_epsilon0(0.5, 5_000, 1e-6, accountant=acc)
        assert e0 > 0.5
        assert shuffle_amplification_epsilon(e0, 5_000, 1e-6, accountant=acc) <= 0.5 + 1e-6
        assert shuffle_amplification_epsilon(e0 + 0.01, 5_000, 1e-6, accountant=acc) > 0.5


def test_closed_form_outside_its_range_returns_epsilon0():
    assert fmt21_closed_form_epsilon(8.0, 1000, 1e-6) == 8.0


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^n must be an integer >= 2 and <= 100000000; got 1$"):
        clone_pair_epsilon(1.0, 1, 1e-6)
    with pytest.raises(ValueError, match=r"^accountant must be one of"):
        shuffle_amplification_epsilon(1.0, 100, 1e-6, accountant="magic")


@pytest.mark.parametrize("n", [10**8 + 1, 10**14, 10**18])
def test_numerical_accountants_refuse_n_above_max_n_before_allocating(n):
    # before the cap, n = 10**14 tried to allocate 0.7 GB and n = 10**18 72 GB (MemoryError);
    # n = 10**10 ran ~9 minutes. The refusal must come at once, naming n and the range.
    from dpexplore.core.shuffle_amplification import MAX_N, clone_pair_delta

    assert MAX_N == 10**8
    for call in (lambda: clone_pair_epsilon(1.0, n, 1e-6), lambda: clone_pair_delta(1.0, n, 0.5),
                 lambda: shuffle_amplification_epsilon(1.0, n, 1e-6),
                 lambda: shuffle_amplification_epsilon0(1.0, n, 1e-6, accountant="fmt23_numerical")):
        with pytest.raises(ValueError, match=rf"^n must be an integer >= 2 and <= 100000000; got {n}$"):
            call()
    # the O(1) closed form has no cap
    assert 0 < shuffle_amplification_epsilon(1.0, n, 1e-6, accountant="fmt21_closed_form") <= 1.0
    assert shuffle_amplification_epsilon0(1.0, n, 1e-6, accountant="fmt21_closed_form") >= 1.0
