"""Issue 30, item 4 (shuffle part): the asymptotic formulas and bounds refuse or saturate at huge λ, μ, ε0 or ε —
a clear ValueError naming the parameter, or a saturated value (0, 1, ε0 or inf) — never OverflowError, a
RuntimeWarning (an error under pytest's filterwarnings) or a scipy/Boost overflow."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpexplore import shuffle as S

R700 = S.binary_rr(700.0)


def test_poisson_delta_refuses_a_lambda_beyond_the_users_maximum():
    with pytest.raises(ValueError, match=r"^lam must be a finite number > 0 and <= 1e\+15; got 1e\+300$"):
        S.poisson_delta(1e300, 0.1)
    with pytest.raises(ValueError, match="lam"):
        S.poisson_delta(1e20, [0.1, 1.0])


def test_poisson_delta_saturates_at_the_largest_lambda_and_any_epsilon():
    d = S.poisson_delta(1e15, [0.0, 1e-9, 1e300])
    assert np.all(np.isfinite(d)) and d[-1] == 0.0 and 0.0 < d[0] < 1e-7  # ≈ 1/√(2πλ)·…: tiny but positive
    assert S.poisson_delta(1e15, 1e300, "reverse") == 0.0
    lam = S.poisson_lambda(1e-9, 10**15)  # the largest λ the public n allows
    assert np.all(np.isfinite(S.poisson_delta(lam, [0.0, 1.0])))


def test_gdp_epsilon_saturates_at_inf_for_huge_mu():
    assert S.gdp_epsilon_at(1e300, 1e-6) == math.inf
    mu = S.gdp_mu(R700, 2)  # ≈ 7e151: μ² overflows float64
    assert S.gdp_epsilon_at(mu, 1e-6) == math.inf
    assert S.shuffled_epsilon(700.0, 2, 1e-6, accounting="gdp") == 700.0  # capped at ε0, never an error


def test_chernoff_saturates():
    assert S.chernoff_epsilon(R700, 10**15, 1e-300) == math.inf
    d = S.chernoff_delta(R700, 2, [0.0, 1e300])
    assert np.all((d >= 0) & (d <= 1))


def test_two_term_jsd_refuses_where_it_overflows():
    with pytest.raises(ValueError, match="randomizer: the two-term JSD expansion overflows"):
        S.jsd_two_term(R700, 1)
    assert S.mu3(R700) == math.inf and math.isfinite(S.chi_square(R700))


def test_blanket_and_clone_bounds_saturate_at_epsilon0_700():
    d = S.blanket_delta(700.0, 10**15, [0.0, 699.0, 1e300], k=10_000)
    assert d.tolist() == [1.0, 1.0, 0.0]  # the trivial values (δ ≤ 1; 0 for ε ≥ ε0)
    assert S.blanket_epsilon(700.0, 10**9, 1e-300, method="bennett") == 700.0
    assert S.fmt_delta(700.0, 10**8, [0.0, 1e300]).tolist() == [1.0, 0.0]
    assert S.fmt_epsilon(700.0, 10**8, 1e-300) == 700.0
    for variant in ("fmt21", "fmt23"):
        lo, up = S.fmt_epsilon_bracket(700.0, 10**9, 1e-300, variant=variant)
        assert lo <= up <= 700.0


def test_every_accounting_answers_at_epsilon0_700():
    for acc in S.ACCOUNTINGS:
        for k in (2, 3, 16):
            assert S.shuffled_epsilon(700.0, 10**8, 1e-300, accounting=acc, k=k) == 700.0
    up = S.worst_case_delta(S.k_rr(700.0, 3), 10**6, [0.0, 1.0, 1e300], lower=False)[0]
    assert up.tolist() == [1.0, 1.0, 0.0]


def test_compose_rounds_refuses_an_epsilon0_beyond_float64():
    with pytest.raises(ValueError, match=r"^epsilon0 of the randomizer must be <= 30 for compose_rounds"):
        S.compose_rounds(S.k_rr(40.0, 3), 1000, 10, 1e-6)
    c = S.compose_rounds(S.k_rr(30.0, 16), 10**5, 100, 1e-6)
    assert c.lower <= c.epsilon <= 3000.0
    c = S.compose_rounds(S.binary_rr(30.0), 10**7, 10**4, 1e-300)
    assert c.lower <= c.epsilon <= 3e5
