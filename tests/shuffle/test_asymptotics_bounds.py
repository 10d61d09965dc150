"""Asymptotics (GDP, JSD, multi-message, Chernoff, Poisson), comparison bounds and the solver."""

import math

import numpy as np
import pytest

from dpexplore.shuffle import (
    ACCOUNTINGS,
    affordable_epsilon0,
    binary_rr,
    blanket_epsilon,
    chernoff_delta,
    chernoff_epsilon,
    chi_square,
    exact_delta,
    exact_epsilon,
    fisher_constant,
    fmt21_epsilon,
    fmt_delta,
    fmt_epsilon,
    frequency_variance,
    gdp_delta_curve,
    gdp_epsilon_at,
    gdp_mu,
    gdp_mu_multi,
    jsd_asymptotic,
    jsd_exact,
    jsd_two_term,
    k_rr,
    mixture_constant,
    poisson_delta,
    poisson_lambda,
    randomizer,
    shuffled_epsilon,
    shuffled_pair,
    tradeoff_gdp,
    worst_case_epsilon,
)

CUSTOM = randomizer([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])


@pytest.mark.parametrize("mu, eps, ref", [(1.0, 0.0, 0.382925), (1.0, 1.0, 0.126937), (0.5, 0.5, 0.052440)])
def test_gdp_delta_reference_values(mu, eps, ref):
    assert round(gdp_delta_curve(mu, eps), 6) == pytest.approx(ref, abs=1e-12)


def test_gdp_mu_uses_fixed_composition_constant():
    R = k_rr(1.5, 4)
    assert gdp_mu(R, 1000, k=300) == pytest.approx(math.sqrt(fisher_constant(R, 0.3) / 1000), rel=1e-12)
    assert gdp_mu(binary_rr(1.0), 1000) == pytest.approx(math.sqrt(chi_square(binary_rr(1.0)) / 1000), rel=1e-12)


def test_jsd_converges_to_i_over_8n_with_second_order_term():
    R = binary_rr(1.0)
    rel1, rel2 = [], []
    for n in (100, 1000, 10_000):
        ex = jsd_exact(R, n)
        rel1.append(abs(ex / jsd_asymptotic(R, n) - 1))
        rel2.append(abs(ex / jsd_two_term(R, n) - 1))
    assert rel1[0] / rel1[1] == pytest.approx(10, rel=0.15) and rel1[1] / rel1[2] == pytest.approx(10, rel=0.15)
    assert all(b < a / 50 for a, b in zip(rel1, rel2))  # the two-term expansion is O(n^-2) closer
    assert rel2[0] / rel2[1] > 50


@pytest.mark.parametrize("R, n, k", [(binary_rr(2.0), 20_000, 6000), (k_rr(1.0, 3), 60, 20), (CUSTOM, 80, 40)])
def test_jsd_general_k_uses_fixed_composition_not_mixture(R, n, k):
    ex = n * jsd_exact(R, n, k=k)
    pi = k / n
    fixed, mix = fisher_constant(R, pi) / 8, mixture_constant(R, pi) / 8
    assert abs(ex - fixed) < abs(ex - mix)
    assert abs(ex / fixed - 1) < 40.0 / n


def test_multi_message_unbundled_beats_bundled_and_matches_exact():
    R, n = binary_rr(1.0), 20_000
    assert gdp_mu_multi(R, n, 1) == pytest.approx(gdp_mu_multi(R, n, 1, bundled=True), rel=1e-12)
    for m in (2, 3, 6):
        unb, bun = gdp_mu_multi(R, n, m), gdp_mu_multi(R, n, m, bundled=True)
        assert unb == pytest.approx(math.sqrt(m) * gdp_mu(R, n), rel=1e-12)
        assert bun == pytest.approx(math.sqrt(((1 + chi_square(R)) ** m - 1) / n), rel=1e-12)
        assert unb < bun
        # the exact unbundled curve is close to GDP(μ_unb), far from GDP(μ_bun)
        e_exact = exact_epsilon(R, n, 1e-6, messages=m, k=0)
        d_unb = float(gdp_delta_curve(unb, e_exact))
        assert 0.3e-6 < d_unb < 3e-6
    assert math.isnan(gdp_mu_multi(R, n, 2, bundled=True, k=5))


@pytest.mark.parametrize("R, n", [(binary_rr(1.0), 1000), (binary_rr(4.0), 500), (k_rr(1.0, 4), 300),
                                  (CUSTOM, 200), (binary_rr(0.3), 50)])
def test_chernoff_never_below_exact(R, n):
    eps = np.linspace(0.0, R.local_epsilon, 25)
    pair = shuffled_pair(R, n)
    for d in ("forward", "reverse"):
        ch = chernoff_delta(R, n, eps, d)
        ex = pair.delta(eps, d)
        lost = pair.lost_p if d == "forward" else pair.lost_q  # exact value is within lost (< 1e-40) of ex
        assert np.all(ch >= ex - lost - 1e-15 * ex)
    assert chernoff_epsilon(R, n, 1e-6) >= exact_epsilon(R, n, 1e-6, k=0) - 1e-9  # root-finding tolerance


def test_chernoff_is_reasonably_tight():
    R = binary_rr(1.0)
    assert chernoff_epsilon(R, 1000, 1e-6) < 1.2 * exact_epsilon(R, 1000, 1e-6, k=0)


def test_poisson_limit_and_reverse_floor():
    lam = 2.0
    for eps in (0.5, 3.0, 20.0):
        assert poisson_delta(lam, eps, "reverse") >= math.exp(-lam) - 1e-15
    assert poisson_delta(lam, 20.0, "forward") < 1e-12
    # the exact binary-RR pair with n/(e^ε0 + 1) = λ fixed converges to the Poisson pair
    errs = []
    for n in (1000, 100_000):
        e0 = math.log(n / lam - 1.0)
        assert poisson_lambda(e0, n) == pytest.approx(lam, rel=1e-12)
        eps = np.array([0.2, 1.0, 2.0])
        errs.append(max(np.max(np.abs(exact_delta(binary_rr(e0), n, eps, direction=d, k=0)
                                      - poisson_delta(lam, eps, d)))
                        for d in ("forward", "reverse")))
    assert errs[1] < errs[0] / 30 and errs[1] < 1e-4


def test_gdp_error_rates():
    R = binary_rr(1.0)

    def rel_eps_err(n):  # relative error of the GDP ε at δ = 1e-6: O(n^{-1/2})
        return abs(gdp_epsilon_at(gdp_mu(R, n), 1e-6) / exact_epsilon(R, n, 1e-6, k=0) - 1)

    assert 7 < rel_eps_err(10**4) / rel_eps_err(10**6) < 15  # n^{-1/2} over two decades: 10

    alpha = np.linspace(0, 1, 2001)

    def sup_gap(n):  # trade-off curves: both within O(μ) of the diagonal, gap O(μ n^{-1/2}) = O(1/n)
        return np.max(np.abs(shuffled_pair(R, n).tradeoff(alpha) - tradeoff_gdp(gdp_mu(R, n), alpha)))

    assert 70 < sup_gap(1000) / sup_gap(100_000) < 140
    # boundary path e^{ε0} = n/20 (a_n fixed): the relative error does not shrink
    errs = []
    for n in (10**4, 10**6):
        Rb = binary_rr(math.log(0.05 * n))
        errs.append(abs(gdp_epsilon_at(gdp_mu(Rb, n), 1e-6) / exact_epsilon(Rb, n, 1e-6, k=0) - 1))
    assert errs[1] > 0.5 * errs[0] > 0.1


def test_fmt21_public_example_and_ordering():
    num = fmt_epsilon(4.0, 100_000, 1e-6)
    assert 0.1675 <= num <= 0.1728
    assert round(fmt21_epsilon(4.0, 100_000, 1e-6), 4) == 0.5378
    ex = exact_epsilon(binary_rr(4.0), 100_000, 1e-6, k=0)
    f23 = fmt_epsilon(4.0, 100_000, 1e-6, variant="fmt23")
    assert ex < f23 <= num < fmt21_epsilon(4.0, 100_000, 1e-6)
    d = fmt_delta(4.0, 100_000, [0.1, 0.2])
    assert np.all(d >= exact_delta(binary_rr(4.0), 100_000, [0.1, 0.2], k=0))


def test_blanket_formula_and_validity():
    e = blanket_epsilon(1.0, 100_000, 1e-6, k=4)
    assert e == pytest.approx(math.sqrt(14 * math.log(2e6) * (math.e + 3) / 99_999), rel=1e-12)
    assert blanket_epsilon(8.0, 1000, 1e-6) == 8.0  # formula > 1: the trivial bound ε0, never NaN
    assert blanket_epsilon(1.0, 100_000, 1e-6, k=4, method="exact_blanket") < e
    assert e > exact_epsilon(k_rr(1.0, 4), 1000, 1e-6, k=0) * math.sqrt(1000 / 100_000) * 0.5


def test_solver_orders_accountings_and_meets_target():
    n, target, delta = 10_000, 0.5, 1e-6
    res = {a: affordable_epsilon0(target, delta, n, accounting=a, tol=1e-3) for a in ACCOUNTINGS}
    for r in res.values():
        assert r.epsilon <= target + 1e-9 and math.isfinite(r.epsilon0)
    # sharper accounting -> larger affordable ε0 -> smaller variance. "exact" is the worst case over data sets
    # (at n = 10⁴ the certified branch and bound over k, width ≤ 1e-3): every certified bound over all data
    # sets (the FMT23 clone pair for binary RR, FMT21) allows at most its ε0; Chernoff/GDP are the canonical
    # pair only, hence not comparable with a worst case
    assert res["exact"].epsilon0 > res["fmt23_numerical"].epsilon0
    wc = worst_case_epsilon(binary_rr(res["exact"].epsilon0), n, delta)
    assert wc.certified_exact and wc.lower <= wc.epsilon <= target + 1e-9 and wc.epsilon >= 0.99 * target
    assert res["exact"].epsilon0 > res["fmt21_numerical"].epsilon0
    assert res["chernoff"].epsilon0 > res["fmt21_numerical"].epsilon0
    assert res["fmt23_numerical"].epsilon0 > res["fmt21_numerical"].epsilon0
    assert res["fmt21_numerical"].epsilon0 > res["fmt21_closed_form"].epsilon0
    assert res["exact"].variance < res["fmt21_closed_form"].variance
    # the answer is tight: a slightly larger ε0 misses the target
    e0 = res["exact"].epsilon0
    assert shuffled_epsilon(e0 * 1.01, n, delta, accounting="exact") > target


def test_frequency_variance_is_debiased_rr_variance():
    e0, n = 1.3, 5000
    assert frequency_variance(e0, n) == pytest.approx(math.exp(e0) / (n * math.expm1(e0) ** 2), rel=1e-12)
    r = affordable_epsilon0(0.5, 1e-6, 10**5, accounting="exact", k=4)  # was NaN (grid limit); now the worst case
    assert math.isfinite(r.epsilon0) and r.epsilon <= 0.5
