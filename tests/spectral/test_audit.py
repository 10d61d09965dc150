"""Audits of the edge-DP mechanisms: exact ε never above the claim, ε̂ never above it, broken variants caught."""

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpexplore.core import exact_epsilon
from dpexplore.spectral import matrix_shuffle, noisy_power_method, sbm, shuffle_epsilon0
from dpexplore.spectral.audit import (
    audit_analyze_gauss,
    audit_matrix_shuffle,
    audit_matrix_shuffle_hubs,
    audit_noisy_power_step,
    audit_randomized_response,
    broken_analyze_gauss,
    broken_matrix_shuffle,
    broken_noisy_power_method,
    broken_randomized_response_graph,
    edge_count_laws,
    exact_audit_matrix_shuffle,
    exact_audit_randomized_response,
    hub_edge_pair,
    release_mask,
    shuffled_rr_law,
    worst_case_edge_for_iterate,
    worst_case_edge_pair,
    worst_case_power_iterate,
)
from dpexplore.spectral.mechanisms import _power_step_sensitivity

CONF = 0.99
SEEDS = (0, 1, 2)


# -- randomized response ----------------------------------------------------------------------
@pytest.mark.parametrize("e0", [0.3, 1.0, 2.04, 5.0])
def test_rr_exact_audit_equals_claim_and_broken_is_twice(e0):
    good = exact_audit_randomized_response(e0)
    assert good.epsilon == pytest.approx(e0, rel=1e-9) and not good.violation
    bad = exact_audit_randomized_response(e0, broken=True)
    assert bad.epsilon == pytest.approx(2 * e0, rel=1e-9) and bad.violation


@pytest.mark.parametrize("seed", SEEDS)
def test_rr_statistical_audit_below_claim_and_non_vacuous(seed):
    a = audit_randomized_response(epsilon0=2.0, runs=100_000, confidence=CONF, rng=seed)
    assert a.epsilon_lower <= 2.0 and not a.violation
    assert a.epsilon_lower > 1.8  # the released bit is the likelihood ratio: the audit is nearly tight


def test_rr_broken_caught_at_default_runs():
    a = audit_randomized_response(epsilon0=2.0, broken=True, rng=0)
    assert a.violation and a.epsilon_lower > 2.0 and a.statistical.runs == 200_000
    assert broken_randomized_response_graph([[0, 1], [1, 0]], epsilon0=2.0, rng=0).epsilon == 2.0


# -- matrix shuffling -------------------------------------------------------------------------
def test_shuffled_law_reduces_to_edge_count_laws():
    e0 = 1.3
    for n in (3, 4, 5):
        a0, a1, _ = worst_case_edge_pair(n)
        p0, p1 = shuffled_rr_law(a0, epsilon0=e0), shuffled_rr_law(a1, epsilon0=e0)
        _, c0, c1 = edge_count_laws(n, epsilon0=e0)
        for delta in (0.0, 1e-3, 0.05):
            assert exact_epsilon(p0, p1, delta) == pytest.approx(exact_epsilon(c0, c1, delta), abs=1e-9)
    # n = 3 by hand: the law of one single-edge graph, relabelled, is uniform over the three positions
    mu = 1 / (math.exp(e0) + 1)
    law = shuffled_rr_law([[0, 1, 0], [1, 0, 0], [0, 0, 0]], epsilon0=e0)
    assert law[0] == pytest.approx(mu * (1 - mu) ** 2, rel=1e-12)
    assert law[7] == pytest.approx((1 - mu) * mu**2, rel=1e-12)


def test_empty_vs_one_edge_is_the_hardest_pair_on_four_vertices():
    n, e0, delta = 4, 2.0, 1e-3
    iu = np.triu_indices(n, 1)
    a0, a1, _ = worst_case_edge_pair(n)
    target = exact_epsilon(shuffled_rr_law(a0, epsilon0=e0), shuffled_rr_law(a1, epsilon0=e0), delta)
    laws = {}
    for bits in itertools.product((0, 1), repeat=iu[0].size):  # every labelled graph on 4 vertices
        g = np.zeros((n, n))
        g[iu] = bits
        laws[bits] = shuffled_rr_law(g + g.T, epsilon0=e0)
    for bits, law_g in laws.items():
        for b in np.flatnonzero(np.array(bits) == 0):  # every edge that can be added
            h = tuple(1 if c == b else v for c, v in enumerate(bits))
            assert exact_epsilon(law_g, laws[h], delta) <= target + 1e-9


@pytest.mark.slow
def test_matrix_shuffle_empirical_law_matches_exact_law():
    e0, T = 1.0, 600
    g = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    law = shuffled_rr_law(g, epsilon0=e0)
    rng = np.random.default_rng(0)
    counts = np.bincount([release_mask(matrix_shuffle(g, epsilon0=e0, delta=1e-3, rng=rng).matrix)
                          for _ in range(T)], minlength=8)
    assert np.all(np.abs(counts - T * law) < 5 * np.sqrt(T * law * (1 - law)) + 1)


@pytest.mark.parametrize("accountant", ["fmt21_numerical", "fmt23_numerical", "fmt21_closed_form"])
@pytest.mark.parametrize("n", [6, 50, 300])
@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_shuffle_exact_audit_never_exceeds_the_accountant(accountant, n, eps):
    delta = 1 / 300**2
    e0 = shuffle_epsilon0(eps, n, delta, accountant=accountant)
    a = audit_matrix_shuffle(n, epsilon0=e0, delta=delta, accountant=accountant)
    assert a.exact_epsilon <= a.claimed_epsilon * (1 + 1e-9) and not a.violation


def test_shuffle_exact_audit_is_tight_without_amplification_and_catches_broken():
    delta = 1 / 300**2
    e0 = shuffle_epsilon0(1.0, 300, delta, accountant="fmt21_numerical")
    good = audit_matrix_shuffle(6, epsilon0=e0, delta=delta, accountant="fmt21_numerical")
    assert good.exact_epsilon > 0.99 * good.claimed_epsilon  # non-vacuous: the pair nearly attains the claim
    bad = audit_matrix_shuffle(6, epsilon0=e0, delta=delta, broken=True)
    assert bad.violation and bad.exact_epsilon > 1.9 * e0
    assert exact_audit_matrix_shuffle(20, epsilon0=e0, delta=delta, broken=True).violation
    r = broken_matrix_shuffle(sbm(20, 2, 0.5, 0.1, rng=0)[0], epsilon0=e0, delta=delta, rng=0)
    assert r.epsilon0 == e0 and r.flip_probability == pytest.approx(1 / (math.exp(2 * e0) + 1))


# -- matrix shuffling on two hubs: the pair that refutes the amplified claims --------------------
def test_hub_pair_is_two_hubs_and_one_edge():
    g0, g1, (a, b) = hub_edge_pair(9)
    assert (g1 - g0).nnz == 2 and g1[a, b] == 1 and g0[a, b] == 0
    for g in (g0, g1):
        assert (g != g.T).nnz == 0 and g.diagonal().sum() == 0 and set(np.unique(g.data)) <= {1.0}
    deg = g0.sum(axis=1)
    assert deg[a] == 7 and deg[b] == 3 and deg[2:].max() == 2  # a ≈ n, b ≈ n/2, the rest ≤ 2


def test_hubs_are_reidentified_and_their_bit_is_plain_randomized_response():
    # The attack's mechanics, checked with the experimenter's knowledge of the relabelling: the two
    # largest released degrees are the hubs in every run, and the bit between them follows the
    # ε0-randomized-response law of the flipped pair (z = 5 binomial bounds).
    n, e0, T = 100, 2.0, 300
    mu = 1 / (math.exp(e0) + 1)
    rng = np.random.default_rng(7)
    for edge, g in enumerate(hub_edge_pair(n)[:2]):
        ones = 0
        for _ in range(T):
            r = matrix_shuffle(g, epsilon0=e0, delta=1e-4, rng=rng)
            h = r.matrix.toarray() if sp.issparse(r.matrix) else np.asarray(r.matrix)
            i, j = np.argsort(h.sum(axis=1), kind="stable")[-2:]
            assert {int(r.permutation[i]), int(r.permutation[j])} == {0, 1}  # shuffled → original labels
            ones += int(h[i, j])
        p = 1 - mu if edge else mu
        assert abs(ones - T * p) <= 5 * math.sqrt(T * p * (1 - p))


@pytest.mark.parametrize("accountant", ["fmt21_numerical", "fmt23_numerical"])
@pytest.mark.parametrize("seed", (0, 1))
def test_two_hub_audit_refutes_the_amplified_claims_but_not_the_sound_bound(accountant, seed):
    n, delta = 100, 1e-4
    a = audit_matrix_shuffle_hubs(n, epsilon=1.0, delta=delta, accountant=accountant, runs=800, confidence=CONF,
                                  rng=seed)
    e0 = shuffle_epsilon0(1.0, n, delta, accountant=accountant)
    assert a.claimed_epsilon <= 1.0 + 1e-6 < e0  # the accountant amplifies: it claims ε < ε0
    assert a.violation and a.epsilon_lower > 1.15  # ... and the release is measurably less private
    assert a.epsilon_lower <= e0  # the sound bound (randomized response + post-processing) stands


@pytest.mark.parametrize("seed", SEEDS)
def test_two_hub_audit_with_the_sound_accountant_stands_and_catches_broken(seed):
    n, delta = 100, 1e-4
    good = audit_matrix_shuffle_hubs(n, epsilon=1.0, delta=delta, accountant="none", runs=800, confidence=CONF,
                                     rng=seed)
    assert good.claimed_epsilon == 1.0 and not good.violation and good.epsilon_lower > 0.4  # non-vacuous
    bad = audit_matrix_shuffle_hubs(n, epsilon=1.0, delta=delta, accountant="none", runs=800, confidence=CONF,
                                    broken=True, rng=seed)
    assert bad.violation and bad.epsilon_lower > 1.3


@pytest.mark.slow
def test_dashboard_default_audit_at_n_300_sound_claim_stands_broken_and_fmt_refuted():
    # Issue 8's criterion at the dashboard's defaults (n = 300, ε = 1, accountant none, default run count):
    # the sound claim stands, the broken variant is caught; the paper's FMT claim is refuted.
    pytest.importorskip("ipywidgets")
    from dpexplore.ui.spectral import SpectralClusteringDashboard, hub_audit_runs

    d = SpectralClusteringDashboard(query_string="trials=1")
    p = d.params()
    assert p["audit"] == "shuffle_hubs" and p["n"] == 300 and p["accountant"] == "none"
    assert d.audit_runs[0] == 200_000 and hub_audit_runs(300, d.audit_runs[0]) == 2000

    def run(broken, **over):
        return d.audit_report({**p, **over}, broken=broken, runs=d.audit_runs[0], rng=3,
                              progress=lambda done, total: None)

    good, bad = run(False), run(True)
    assert not good.violation and 0.5 < good.epsilon_lower <= 1.0 and good.runs == 2000
    assert bad.violation and bad.epsilon_lower > 1.4  # true ε 2ε0 = 2
    fmt = run(False, accountant="fmt21_numerical")
    assert fmt.violation and fmt.claimed_epsilon <= 1.0 + 1e-6 and fmt.epsilon_lower > 1.5  # ε0 = 2.04


# -- Analyze Gauss ----------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [1.0, 4.0])
@pytest.mark.parametrize("seed", SEEDS)
def test_analyze_gauss_audit_below_claim(eps, seed):
    a = audit_analyze_gauss(epsilon=eps, delta=1e-5, runs=100_000, confidence=CONF, rng=seed)
    assert a.exact_epsilon == pytest.approx(eps, abs=1e-6)
    assert a.epsilon_lower <= eps and not a.violation
    if eps == 4.0:
        assert a.epsilon_lower > 1.0  # non-vacuous


def test_analyze_gauss_broken_caught_at_default_runs():
    n = 300
    a = audit_analyze_gauss(epsilon=1.0, delta=1 / n**2, broken=True, rng=0)
    assert a.violation and a.epsilon_lower > 1.0 and a.exact_epsilon > 2.0
    r = broken_analyze_gauss([[0, 1], [1, 0]], epsilon=1.0, delta=1e-5, rng=0)
    assert r.epsilon == 1.0 and np.allclose(r.matrix, r.matrix.T)


# -- noisy power method -----------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2, 3])
def test_worst_case_iterate_attains_the_step_sensitivity(p):
    x = worst_case_power_iterate(10, p, rng=0)
    assert np.allclose(x.T @ x, np.eye(p))
    a0, a1, _ = worst_case_edge_pair(10)
    shift = np.linalg.norm(a1 @ x - a0 @ x)
    assert shift == pytest.approx(_power_step_sensitivity(x), rel=1e-12)
    assert worst_case_edge_for_iterate(x) == (0, 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_noisy_power_step_audit_below_claim_and_non_vacuous(seed):
    a = audit_noisy_power_step(50, k=2, epsilon=4.0, delta=1e-4, iterations=1, audit_delta=0.1, runs=40_000,
                               confidence=CONF, rng=seed)
    assert a.exact_epsilon == pytest.approx(a.claimed_epsilon, rel=1e-9)  # the worst-case iterate is tight
    assert a.epsilon_lower <= a.claimed_epsilon and not a.violation
    assert a.epsilon_lower > 0.3


def test_noisy_power_broken_variants_caught_at_default_runs():
    row = audit_noisy_power_step(50, k=2, epsilon=1.0, delta=1e-4, broken=True, bug="average_row_norm", rng=0)
    assert row.violation and row.epsilon_lower > row.claimed_epsilon and row.statistical.runs == 200_000
    sq = audit_noisy_power_step(50, k=2, epsilon=4.0, delta=1e-4, iterations=1, audit_delta=0.1, broken=True,
                                bug="no_sqrt2", rng=0)
    assert sq.violation and sq.exact_epsilon > sq.claimed_epsilon


def test_broken_noisy_power_uses_the_wrong_sensitivity():
    A, _ = sbm(60, 2, 0.5, 0.1, rng=0)
    good = noisy_power_method(A, k=2, epsilon=1.0, delta=1e-4, iterations=4, rng=3)
    bad = broken_noisy_power_method(A, k=2, epsilon=1.0, delta=1e-4, iterations=4, bug="no_sqrt2", rng=3)
    assert bad.epsilon == good.epsilon and bad.sigma == good.sigma
    assert bad.sensitivities[0] == pytest.approx(good.sensitivities[0] / math.sqrt(2), rel=1e-12)  # same X_0
    inc = broken_noisy_power_method(A, k=2, epsilon=1.0, delta=1e-4, iterations=2, bug="average_row_norm", rng=3)
    assert inc.sensitivities[0] == pytest.approx(math.sqrt(2 * 2 / 60), rel=1e-12)


def test_audit_can_be_cancelled():
    calls = []

    def stop(done, total):
        calls.append(done)
        return False

    a = audit_noisy_power_step(40, k=2, epsilon=1.0, delta=1e-4, runs=10_000, chunk=100, rng=0, progress=stop)
    assert a.cancelled and math.isnan(a.epsilon_lower) and calls == [100] and not a.violation
    b = audit_analyze_gauss(epsilon=1.0, delta=1e-4, runs=500_000, rng=0, progress=stop)
    assert b.cancelled and b.statistical.runs == 300 * 299 // 2  # the runs made: one block (300 vertices)


def test_edge_count_laws_are_distributions_and_trim_honestly():
    c, p0, p1 = edge_count_laws(300, epsilon0=2.0)
    assert p0.sum() == pytest.approx(1) and p1.sum() == pytest.approx(1) and c.size < 300 * 299 // 2
    mu = 1 / (math.exp(2.0) + 1)
    m = 300 * 299 // 2
    assert float((c * p0).sum()) == pytest.approx(m * mu, rel=1e-9)
    assert float((c * p1).sum()) == pytest.approx((m - 1) * mu + 1 - mu, rel=1e-9)
    assert sp.issparse(worst_case_edge_pair(3)[0])


# -- dashboard --------------------------------------------------------------------------------
@pytest.mark.slow
def test_dashboard_audit_panel_claims_exact_and_broken():
    pytest.importorskip("ipywidgets")
    from dpexplore.ui.spectral import SpectralClusteringDashboard

    d = SpectralClusteringDashboard(query_string="n=120&trials=1&k=2&p=0.4&q=0.05&audit=analyze_gauss")
    panel = d.audit_panel
    assert panel is not None and panel.runs.value == 200_000
    panel.start(wait=True)
    good = panel.report
    assert not good.violation and good.exact_epsilon == pytest.approx(good.claimed_epsilon, abs=1e-6)
    assert good.epsilon_lower > 0 and "Consistent with the claim" in panel.result.value
    panel.broken.value = True
    panel.start(wait=True)
    assert panel.report.violation and "Claim refuted" in panel.result.value
    for which in ("shuffle_small", "rr", "noisy_power"):
        d.widgets["audit"].value = which
        panel.runs.value = 20_000
        panel.start(wait=True)
        assert panel.report.violation, which
    d.widgets["audit"].value = "shuffle"
    panel.broken.value = False
    panel.start(wait=True)
    assert not panel.report.violation and panel.report.exact_epsilon < panel.report.claimed_epsilon


def test_dashboard_says_which_run_count_each_audit_uses():
    # The slider shows one run count for every audit; the line under it says when the selected audit uses
    # another (the two-hub audit's full releases are capped, exact audits sample nothing).
    pytest.importorskip("ipywidgets")
    from dpexplore.ui.spectral import POWER_AUDIT_MAX_RUNS, SpectralClusteringDashboard, hub_audit_runs

    d = SpectralClusteringDashboard(query_string="n=120&trials=1&k=2&p=0.4&q=0.05")
    panel = d.audit_panel
    assert d.params()["audit"] == "shuffle_hubs"
    assert f"uses {hub_audit_runs(120, 200_000):,} runs per input at n = 120" in panel.note.value
    for which, text in (("shuffle", "exact"), ("shuffle_small", "exact"), ("analyze_gauss", ""), ("rr", "")):
        d.widgets["audit"].value = which
        assert (text in panel.note.value) if text else panel.note.value == "", which
    d.widgets["audit"].value = "noisy_power"
    panel.runs.value = POWER_AUDIT_MAX_RUNS + 100
    assert f"at most {POWER_AUDIT_MAX_RUNS:,}" in panel.note.value
    panel.runs.value = 1000
    assert panel.note.value == ""


def test_empty_vs_one_edge_is_not_the_hardest_shuffling_pair_at_n5_and_delta_1_over_n2():
    """worst_case_edge_pair's docstring: at δ = 0 every pair is ε0, at δ = 1/25 a triangle + edge pair is harder."""
    from dpexplore.core.privacy_curves import exact_epsilon
    from dpexplore.spectral.audit import shuffled_rr_law, worst_case_edge_pair

    a0, a1, _ = worst_case_edge_pair(5)
    tri = np.zeros((5, 5))
    tri[[0, 0, 1], [1, 2, 2]] = 1
    tri = tri + tri.T
    tri_e = tri.copy()
    tri_e[3, 4] = tri_e[4, 3] = 1
    laws = [shuffled_rr_law(m, epsilon0=1.0) for m in (a0, a1, tri, tri_e)]
    assert exact_epsilon(laws[0], laws[1], 0.0) == pytest.approx(1.0, abs=1e-9)
    assert exact_epsilon(laws[2], laws[3], 0.0) == pytest.approx(1.0, abs=1e-9)
    empty = exact_epsilon(laws[0], laws[1], 1 / 25)
    harder = exact_epsilon(laws[2], laws[3], 1 / 25)
    assert empty == pytest.approx(0.3747, abs=1e-3) and harder == pytest.approx(0.7456, abs=1e-3)
