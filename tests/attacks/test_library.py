"""The attacks library: reconstruction against closed forms and bounds, membership inference under the DP
trade-off curve, audits, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpexplore.attacks import audit as AU
from dpexplore.attacks import data as D
from dpexplore.attacks import experiments as X
from dpexplore.attacks import mechanisms as M
from dpexplore.attacks import membership as MI
from dpexplore.attacks import theory as T
from dpexplore.core.risk import dp_tradeoff

SEEDS = range(10)


def _attack(n, noise, seed, **kw):
    x = D.secret_bits(n, rng=seed)
    a = D.subset_queries(n, 4 * n, rng=1000 + seed)
    rel = M.answer_queries(x, a, noise=noise, rng=2000 + seed, **kw)
    return rel, M.reconstruct(rel.answers, a, method="lp").fraction_recovered(x)


@pytest.mark.parametrize("n", [100, pytest.param(200, marks=pytest.mark.slow)])
def test_lp_recovers_95_percent_under_small_bounded_noise(n):
    """Dinur–Nissim: E ≤ 0.05·√n, m = 4n random queries: ≥ 95 % of the bits at every seed 0–9."""
    e = 0.05 * math.sqrt(n)
    for seed in SEEDS:
        rel, frac = _attack(n, "bounded", seed, bound=e)
        assert np.max(np.abs(rel.errors)) <= e + 1e-12
        assert np.max(np.abs(rel.errors)) > 0.5 * e  # the adversarial noise is really there
        assert frac >= 0.95, (n, seed, frac)


@pytest.mark.parametrize("n, m, noise, kw", [
    (30, 120, "bounded", {"bound": 1.0}), (40, 80, "laplace", {"epsilon": 1.0}),
    (60, 1000, "bounded", {"bound": 3.0}), (250, 300, "bounded", {"bound": 2.0})])
def test_lp_through_its_dual_reaches_the_primal_optimum(n, m, noise, kw):
    """The attacker's LP is solved through its dual (simplex, or interior point above m·n = 50,000): the x it
    returns lies in [0, 1]ⁿ and its residual ‖Ax − a‖₁ equals the optimum of the primal LP solved directly."""
    from scipy import optimize, sparse

    for seed in range(3):
        x = D.secret_bits(n, rng=seed)
        a = D.subset_queries(n, m, rng=100 + seed)
        y = M.answer_queries(x, a, noise=noise, rng=200 + seed, **kw).answers
        guess = M.reconstruct(y, a, method="lp")
        assert np.all((guess.relaxed >= 0) & (guess.relaxed <= 1))
        eye = sparse.identity(m, format="csr")
        primal = optimize.linprog(np.r_[np.zeros(n), np.ones(2 * m)],
                                  A_eq=sparse.hstack([sparse.csr_matrix(a), -eye, eye]), b_eq=y,
                                  bounds=[(0, 1)] * n + [(0, None)] * (2 * m), method="highs-ipm")
        assert primal.status == 0
        assert guess.residual == pytest.approx(primal.fun, rel=1e-6, abs=1e-6)


def test_bounded_noise_far_above_sqrt_n_defeats_the_lp():
    """Noise ≫ √n (here n/2: the decoy wins every count it can): the attack is near guessing."""
    fr = [_attack(100, "bounded", s, bound=50.0)[1] for s in range(5)]
    assert np.mean(fr) < 0.75


@pytest.mark.parametrize("n", [100, pytest.param(200, marks=pytest.mark.slow)])
def test_laplace_at_total_epsilon_one_stays_under_the_dp_bound(n):
    """Laplace at total ε = 1 over m = 4n answers: the mean fraction over seeds 0–9 is at most the DP bound
    e/(1 + e) plus 4 standard errors. The n·10 guesses are treated as independent coin flips with
    variance ≤ 1/4 (the bits and the noise draws are independent; the LP couples them, so the test also
    checks the observed spread across seeds is no larger than that model's)."""
    bound = T.dp_recovery_bound(1.0)
    assert bound == pytest.approx(math.e / (1 + math.e))
    fr = np.array([_attack(n, "laplace", s, epsilon=1.0)[1] for s in SEEDS])
    se = 0.5 / math.sqrt(n * len(SEEDS))
    assert fr.mean() <= bound + 4 * se, (fr.mean(), bound)
    assert fr.std(ddof=1) <= 3 * 0.5 / math.sqrt(n)
    # the release says what each count got: ε/m, Laplace scale m/ε
    rel, _ = _attack(n, "laplace", 0, epsilon=1.0)
    assert rel.epsilon_per_answer == pytest.approx(1.0 / (4 * n))
    assert rel.scale == pytest.approx(4 * n)


def test_broken_per_query_calibration_breaks_the_bound():
    """Each count given the whole ε (scale 1/ε): the attack recovers (almost) everything, far above the
    claimed bound 0.731, and the exact ε of the release is ~m/2 times the claim."""
    fr = np.array([_attack(100, "laplace", s, epsilon=1.0, per_query=True)[1] for s in range(3)])
    assert fr.min() > T.dp_recovery_bound(1.0) + 0.2
    a = D.subset_queries(100, 400, rng=0)
    assert M.exact_release_epsilon(a, noise="laplace", epsilon=1.0, per_query=True) > 150
    assert M.exact_release_epsilon(a, noise="laplace", epsilon=1.0) <= 1.0
    assert T.release_recovery_bound("laplace", m=400, epsilon=1.0, per_query=True) > 0.999


def test_gaussian_total_budget_calibration():
    """σ for (ε, δ) at ℓ2 sensitivity √m: √m times the one-count σ; each count is (1/σ)-GDP and the m of them
    compose to μ = √m/σ, the μ of the total (ε, δ) — GDP composition, exact."""
    from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon

    x, a = D.secret_bits(50, rng=0), D.subset_queries(50, 100, rng=0)
    rel = M.answer_queries(x, a, noise="gaussian", epsilon=1.0, delta=1e-5, rng=0)
    assert rel.scale == pytest.approx(10 * gaussian_sigma(1.0, 1e-5))
    assert gdp_epsilon(math.sqrt(100) * rel.mu_per_answer, 1e-5) == pytest.approx(1.0, rel=1e-6)
    assert T.release_recovery_bound("gaussian", m=100, epsilon=1.0) <= T.dp_recovery_bound(1.0, 1e-5)


def test_exact_answers_are_reconstructed_exactly_and_rounding_is_within_e():
    x = D.secret_bits(60, rng=3)
    a = D.subset_queries(60, 240, rng=4)
    for meth in M.METHODS:
        assert np.array_equal(M.reconstruct(a @ x, a, method=meth).bits, x)
    rel = M.answer_queries(x, a, noise="rounding", bound=2.0)
    assert np.all(np.abs(rel.errors) <= 2.0) and np.all(np.mod(rel.answers, 4.0) == 0)


def test_query_families():
    h = D.subset_queries(8, 8, family="hadamard").astype(int)
    s = 2 * h - 1
    assert np.array_equal(s @ s.T, 8 * np.eye(8))  # rows of a Hadamard matrix are orthogonal
    p = D.subset_queries(5, 5, family="prefix")
    assert np.array_equal(p.sum(axis=1), np.arange(1, 6))
    x = D.secret_bits(5, rng=0)
    assert np.array_equal(M.reconstruct(p @ x, p).bits, x)  # prefix counts determine x (differences)


def test_theory_closed_forms():
    alpha = np.linspace(0, 1, 200_001)
    for eps in (0.1, 1.0, 3.0):
        grid = 0.5 * (1 + np.max(1 - alpha - dp_tradeoff(eps, 0.0, alpha)))
        assert T.dp_recovery_bound(eps) == pytest.approx(grid, abs=1e-5)
    assert T.dp_recovery_bound(math.inf) == 1.0 and T.gdp_recovery_bound(0.0) == 0.5
    assert T.exponential_attack_recovery(30.0, 100) == 0.0
    assert T.sqrt_n_threshold(225) == 15.0


def _band_check(members, non, fprs, tpr_bound_fn, slope):
    """Empirical (FPR, TPR) points vs the bound, with 4 binomial standard errors on each of TPR and FPR
    (the bound's slope is at most e^ε: an FPR error moves it by at most slope × that error)."""
    k = members.size
    non_sorted = np.sort(non)
    for a in fprs:
        thr = non_sorted[min(non.size - 1, int(np.ceil((1 - a) * non.size)) - 1)] if a < 1 else -np.inf
        fpr = float(np.mean(non > thr))
        tpr = float(np.mean(members > thr))
        se_t = math.sqrt(max(tpr * (1 - tpr), 1 / k) / k)
        se_f = math.sqrt(max(fpr * (1 - fpr), 1 / k) / k)
        assert tpr <= float(tpr_bound_fn(fpr)) + 4 * (se_t + slope * se_f), (a, fpr, tpr)


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_membership_roc_stays_under_the_dp_tradeoff_curve(noise):
    """The measured ROC under the honest noise at ε = 2 never exceeds 1 − f(FPR) beyond 4 standard errors
    on each axis (16 points: a 4-sd excursion has probability < 1e-4 each). Small d makes the release
    close to its worst case, so the bound is not vacuous here."""
    n, d, eps = 50, 4, 2.0
    s = MI.membership_scores(n=n, d=d, studies=20_000, noise=noise, epsilon=eps, rng=5)
    _band_check(s.members, s.non_members, X.FPRS,
                lambda f: T.membership_tpr_bound(f, noise, n=n, d=d, epsilon=eps), math.exp(eps))


def test_broken_membership_release_exceeds_the_curve():
    """Each mean given the whole ε: the measured ROC lies far above the claimed ε's trade-off curve."""
    n, d, eps = 50, 200, 1.0
    s = MI.membership_scores(n=n, d=d, studies=4000, noise="laplace", epsilon=eps, per_query=True, rng=0)
    tpr = MI.roc_at(s.members, s.non_members, [0.05])[0]
    assert tpr > T.membership_tpr_bound(0.05, "laplace", n=n, d=d, epsilon=eps) + 0.2


def test_membership_without_noise_matches_the_normal_approximation():
    """The unnoised attack: TPR at FPR 5 % averaged over seeds 0–9 within 0.05 of the normal approximation
    (itself an approximation: we allow its error, measured here to be about 0.01, on top of 4 se)."""
    n, d = 100, 500
    got, want = [], []
    for seed in SEEDS:
        s = MI.membership_scores(n=n, d=d, studies=1000, reference=1000, rng=seed)
        got.append(MI.roc_at(s.members, s.non_members, [0.05])[0])
        want.append(T.membership_tpr_normal(0.05, s.frequencies, n=n, reference=1000))
    assert abs(np.mean(got) - np.mean(want)) < 0.05
    assert np.mean(got) > 0.3  # the attack really works without noise


def test_audits_refute_the_broken_variant_and_not_the_honest_one():
    for noise in ("laplace", "gaussian"):
        ok = AU.audit_counts(n=50, m=200, noise=noise, epsilon=1.0, runs=10_000, rng=0)
        assert not ok.violation and ok.exact_epsilon <= 1.0 + 1e-9 and ok.epsilon_lower <= 1.0
        bad = AU.audit_counts(n=50, m=200, noise=noise, epsilon=1.0, runs=10_000, per_query=True, rng=0)
        assert bad.violation and bad.epsilon_lower > 1.5 and bad.exact_epsilon > 5
        okm = AU.audit_means(n=100, d=20, noise=noise, epsilon=1.0, runs=10_000, rng=0)
        assert not okm.violation and okm.exact_epsilon == pytest.approx(1.0, rel=1e-6)
        badm = AU.audit_means(n=100, d=20, noise=noise, epsilon=1.0, runs=10_000, per_query=True, rng=0)
        assert badm.violation and badm.epsilon_lower > 1.5


def test_experiments_shapes_and_reproducibility():
    r = X.recovery_vs_queries(40, ms=[20, 160], noise="bounded", bound=0.3, methods=["lp", "least_squares"],
                              trials=2, rng=1)
    assert r.values.shape == (2, 2, 2) and r.same_numbers(
        X.recovery_vs_queries(40, ms=[20, 160], noise="bounded", bound=0.3, methods=["lp", "least_squares"],
                              trials=2, rng=1))
    assert r.mean[0, 1] == 1.0
    p = X.reconstruction_picture(20, m=80, noise="laplace", epsilon=1.0, rng=0)
    assert set(np.unique(p.values[:2])) <= {0.0, 1.0}
    v = X.recovery_vs_noise(30, m=120, noise="laplace", levels=[0.1, 1000.0], trials=2, rng=0)
    assert v.axis == "epsilon" and v.mean[0, 1] == 1.0


@pytest.mark.parametrize("call, exc, match", [
    (lambda: M.reconstruct([1, 2], [[0, 2], [1, 1]]), ValueError, "only 0/1 entries; got 2.0 at row 0, column 1"),
    (lambda: M.reconstruct([1, 2, 3], [[0, 1], [1, 1]]), ValueError, r"one entry per query \(m = 2\); got 3"),
    (lambda: M.answer_queries([1, 0, 1], [[0, 1], [1, 1]], noise="none"), ValueError, "n = 3 columns"),
    (lambda: M.reconstruct(np.zeros(3000), np.zeros((3000, 2000))), ValueError, r"m\*n must be <= 4,000,000"),
    (lambda: D.subset_queries(2000, 2001), ValueError, r"m\*n must be <= 4,000,000"),
    (lambda: D.subset_queries(2001, 1), ValueError, "n must be"),
    (lambda: M.reconstruct([1], [[1]], method="magic"), ValueError, "method must be one of"),
    (lambda: M.answer_queries([1, 2], [[1, 1]], noise="none"), ValueError, "secret must contain only 0/1"),
    (lambda: M.answer_queries([1, 0], [[1, 1]], noise="laplace"), ValueError, "epsilon must be given"),
    (lambda: M.answer_queries([1, 0], [[1, 1]], noise="laplace", epsilon=-1), ValueError, "epsilon must be"),
    (lambda: M.answer_queries([1, 0], [[1, 1]], noise="bounded"), ValueError, "bound must be given"),
    (lambda: M.reconstruct("abc", [[1]]), TypeError, "answers must be"),
    (lambda: MI.membership_scores(n=10, d=10**6), ValueError, "d must be"),
    (lambda: MI.membership_score_parts(n=10, d=10, studies=10, reference=10), ValueError, "studies must be"),
    (lambda: MI.membership_score_parts(n=10, d=10, studies=20, reference=10, noises=("rr",)), ValueError, "noises"),
    (lambda: MI.binomial_columns(10, [0.5, 1.5], 10), ValueError, r"p must be .* \[0, 1\]"),
    (lambda: MI.binomial_columns(10**6, [0.5], 10), ValueError, "trials must be"),
    (lambda: MI.binomial_columns(10, [0.5] * 1000, 10_000), ValueError, "must be <="),
    (lambda: X.recovery_vs_queries(2000, ms=[2000], noise="none", trials=1000), ValueError, "must be <="),
    (lambda: AU.audit_means(n=10, d=100_000, epsilon=1.0, runs=10_000), ValueError, r"runs \* d must be"),
])
def test_bad_inputs_get_clear_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# -- the class's own data (issue 40): a roster of n fake students whose bits are a class's answers -------------
@pytest.mark.parametrize("k, n", [(3, 7), (4, 10), (12, 100), (250, 100), (100, 100), (1, 5)])
def test_class_secret_bits_deal_every_answer_evenly(k, n):
    for seed in range(10):
        answers = (np.random.default_rng(1000 + seed).random(k) < 0.4).astype(int)
        ones = int(answers.sum())
        bits = D.class_secret_bits(answers.tolist(), n, rng=seed)
        assert bits.shape == (n,) and bits.dtype == np.int64 and set(np.unique(bits)) <= {0, 1}
        q, r = divmod(n, k)
        # each answer ⌊n/k⌋ times, n mod k of them once more: the count of 1s is the class's scaled to n
        assert q * ones + max(0, r - (k - ones)) <= bits.sum() <= q * ones + min(ones, r)
    assert not np.array_equal(D.class_secret_bits([0, 1] * 50, 100, rng=0), D.class_secret_bits([0, 1] * 50, 100,
                                                                                                  rng=1))
    assert np.array_equal(D.class_secret_bits([1, 0, 1], 9, rng=3), D.class_secret_bits([1, 0, 1], 9, rng=3))


def test_class_secret_bits_refuses_bad_answers():
    with pytest.raises(ValueError, match="answers must contain only 0/1 values; got 2.0"):
        D.class_secret_bits([0, 1, 2], 5)
    with pytest.raises(ValueError, match="answers"):
        D.class_secret_bits([], 5)
    with pytest.raises(ValueError, match=f"at most {D.MAX_ANSWERS}"):
        D.class_secret_bits(np.zeros(D.MAX_ANSWERS + 1, dtype=int), 5)
    with pytest.raises(TypeError, match="answers"):
        D.class_secret_bits(["yes", "no"], 5)
    with pytest.raises(ValueError, match="answers"):
        D.class_secret_bits([[0, 1]], 5)
    with pytest.raises(ValueError, match="n must be"):
        D.class_secret_bits([0, 1], D.MAX_PEOPLE + 1)


def test_the_picture_attacks_the_given_secret():
    secret = tuple(D.class_secret_bits([1, 0, 0, 1, 1], 40, rng=0).tolist())
    r = X.reconstruction_picture(40, m=160, noise="none", secret=secret, rng=0)
    assert r.values[0, :, 0].astype(int).tolist() == list(secret)
    assert r.values[1, :, 0].astype(int).tolist() == list(secret)  # exact counts: every bit recovered
    assert r.parameters["secret"] == "".join(map(str, secret))
    coins = X.reconstruction_picture(40, m=160, noise="none", rng=0)
    assert coins.parameters["secret"] == "fair coins"
    with pytest.raises(ValueError, match="secret must have n = 40 bits"):
        X.reconstruction_picture(40, m=160, noise="none", secret=(0, 1), rng=0)
    with pytest.raises(ValueError, match="secret must contain only 0/1"):
        X.reconstruction_picture(3, m=10, noise="none", secret=(0, 1, 3), rng=0)


@pytest.mark.parametrize("trials", [1, 10, 99, 1999])
def test_binomial_columns_follow_the_binomial_law(trials):
    """The membership simulation's fast Binomial(t, p_j) sampler (CDF inversion): every column's mean within 5
    standard errors of t·p_j, its variance within 5 standard errors of t·p_j(1 − p_j) (k = 20,000 rows; the
    sample variance's se is about σ²·√(2/k) plus the excess-kurtosis term, bounded here by 6·σ² /√k), and the
    values in 0 … t (p = 0 and 1 give 0 and t)."""
    p = np.array([0.0, 0.001, 0.05, 0.3, 0.5, 0.77, 0.95, 1.0])
    k = 20_000
    c = MI.binomial_columns(trials, p, k, rng=3)
    assert c.shape == (k, p.size) and c.min() >= 0 and c.max() <= trials
    assert np.all(c[:, 0] == 0) and np.all(c[:, -1] == trials)
    var = trials * p * (1 - p)
    inner = var > 0
    se_mean = np.sqrt(var[inner] / k)
    assert np.all(np.abs(c.mean(axis=0)[inner] - trials * p[inner]) <= 5 * se_mean)
    kurt = (1 - 6 * p[inner] * (1 - p[inner])) / var[inner]  # the binomial's excess kurtosis
    se_var = var[inner] * np.sqrt((2 + np.maximum(kurt, 0)) / k)
    assert np.all(np.abs(c.var(axis=0, ddof=1)[inner] - var[inner]) <= 5 * se_var)


def test_membership_parts_give_every_epsilon_from_one_simulation():
    """Scores at any ε are the noise-free scores plus scale × the standard noise's projection: the same
    people for every ε, and membership_scores gives exactly those of its own noise model."""
    parts = MI.membership_score_parts(n=50, d=40, studies=200, reference=500, noises=("laplace",), rng=7)
    s = MI.membership_scores(n=50, d=40, studies=200, reference=500, noise="laplace", epsilon=1.0, rng=7)
    mem, non = parts.scores("laplace", s.scale)
    np.testing.assert_allclose(mem, s.members)
    np.testing.assert_allclose(non, s.non_members)
    plain = MI.membership_scores(n=50, d=40, studies=200, reference=500, rng=7)
    np.testing.assert_allclose(parts.scores("none", 0.0)[0], plain.members)
    with pytest.raises(ValueError, match="noise must be one of"):
        parts.scores("gaussian", 1.0)
