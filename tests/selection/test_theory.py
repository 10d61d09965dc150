"""Utility theory: the exponential mechanism's theorem holds (exactly and in simulation); permute-and-flip's expected
loss is never above the exponential mechanism's; measured mean losses agree with the exact expectations."""

import itertools
import math

import numpy as np
import pytest

from dpexplore.selection import experiments as X
from dpexplore.selection import theory as T
from dpexplore.selection.mechanisms import exponential_mechanism_probabilities, selection_probabilities


def test_em_bound_formula():
    assert T.em_loss_bound(10, epsilon=0.5, t=2.0, sensitivity=3.0) == pytest.approx(12.0 * (math.log(10) + 2.0))
    assert T.em_loss_bound(10, epsilon=0.5, t=2.0, n_optimal=10) == pytest.approx(4.0 * 2.0)
    assert T.em_tail_probability_bound(T.em_loss_bound(7, epsilon=1.0, t=1.5), 7, epsilon=1.0) == \
        pytest.approx(math.exp(-1.5))


@pytest.mark.parametrize(("k", "gap", "eps"), [(2, 0, 0.5), (5, 3, 1.0), (20, 1, 0.2), (50, 10, 2.0)])
def test_em_theorem_holds_on_the_exact_law(k, gap, eps):
    q = X.candidate_scores(k, gap)
    p = exponential_mechanism_probabilities(q, epsilon=eps)
    loss = q.max() - q
    for t in (0.0, 0.5, 1.0, 2.0, 4.0):
        assert p[loss >= T.em_loss_bound(k, epsilon=eps, t=t)].sum() <= math.exp(-t) + 1e-12
    assert T.expected_loss(p, q) <= T.em_expected_loss_bound(k, epsilon=eps) + 1e-12


def test_em_theorem_holds_in_simulation():
    """Measured P(loss ≥ bound(t)) ≤ e^(−t) + 3 SE, SE = √(e^(−t)(1 − e^(−t))/runs) (one-sided, 5 values of t:
    3 SE keeps the family-wise false-alarm rate below 1 %; the seed is fixed)."""
    runs = 2000
    r = X.em_tail_check(k=8, gap=0.0, epsilon=0.5, ts=(0.0, 0.5, 1.0, 2.0, 3.0), runs=runs, rng=4)
    measured, bound = r.mean[0], r.mean[1]
    se = np.sqrt(bound * (1 - bound) / runs)
    assert np.all(measured <= bound + 3 * se + 1e-12)


def test_pf_never_worse_than_em_at_every_setting_tested():
    worst = math.inf
    for k, gap, eps, d in itertools.product((2, 3, 5, 10, 30), (0.0, 1.0, 3.0, 10.0), (0.1, 0.5, 1.0, 2.0, 5.0),
                                           (1.0, 2.0)):
        adv = T.pf_advantage(X.candidate_scores(k, gap), epsilon=eps, sensitivity=d)
        worst = min(worst, adv)
        assert adv >= -1e-12, (k, gap, eps, d, adv)
    # and strictly better somewhere (the theorem is not vacuous here)
    assert T.pf_advantage(X.candidate_scores(10, 0.0), epsilon=1.0) > 0.1


def test_measured_losses_agree_with_exact_expectations():
    """Each mean over 300 trials within 4 SE (from the exact law's variance) of the exact expected loss
    (18 comparisons: 4 SE is
    a two-sided level below 1e-3 each, Bonferroni below 2 %; fixed seed)."""
    k, gap = 5, 3.0
    r = X.loss_vs_epsilon(k=k, gap=gap, epsilons=X.EPSILONS, trials=300, rng=7)
    q = X.candidate_scores(k, gap)
    for i, mech in enumerate(r.series):
        for j, eps in enumerate(r.grid):
            law = selection_probabilities(mech, q, epsilon=eps)
            exact = T.expected_loss(law, q)
            losses, probs = T.loss_law(law, q)
            vals = r.values[i, j]
            se = math.sqrt(float(np.dot(probs, (losses - exact) ** 2)) / vals.size)  # the exact law's SE
            assert abs(vals.mean() - exact) <= 4 * se + 1e-9, (mech, eps, vals.mean(), exact)


def test_bad_inputs():
    with pytest.raises(ValueError, match="n_optimal"):
        T.em_loss_bound(3, epsilon=1.0, t=1.0, n_optimal=4)
    with pytest.raises(ValueError, match="t must"):
        T.em_loss_bound(3, epsilon=1.0, t=-1.0)
    with pytest.raises(ValueError, match="sum to 1"):
        T.expected_loss([0.5, 0.6], [1.0, 2.0])


def test_numbers_quoted_in_the_lessons():
    """The lesson sequence's answers quote exact (seed-free) numbers: recompute them."""
    from dpexplore.selection.mechanisms import selection_probabilities

    q = X.candidate_scores(5, 15.0)  # preset clear-favourite, ε = 1
    fav = {m: selection_probabilities(m, q, epsilon=1.0)[0] for m in ("em", "rnm", "pf")}
    assert round(fav["em"], 3) == round(fav["pf"], 3) == 0.999 and round(fav["rnm"], 3) == 0.997
    q = X.candidate_scores(5, 0.0)  # preset close-race: two tied leaders
    for m in ("em", "rnm", "pf"):
        p = selection_probabilities(m, q, epsilon=1.0)
        assert 0.31 <= p[0] <= 0.34 and abs(p[0] - p[1]) < 1e-9
    q = X.candidate_scores(5, 3.0)  # preset tiny-epsilon
    losses = [T.selection_expected_loss(m, q, epsilon=0.1) for m in ("em", "rnm", "pf")]
    assert all(abs(v - 3.3) < 0.1 for v in losses) and losses[2] == min(losses)
    assert max(losses) < T.em_expected_loss_bound(5, epsilon=0.1) / 10  # "far below" the guarantee
