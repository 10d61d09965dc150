"""Selection audits and the page's experiments: registered, reproducible, honest mechanisms not refuted, the broken
one refuted."""

import numpy as np
import pytest

from dpexplore.experiments import list_experiments, main, resolve
from dpexplore.selection import audit as A
from dpexplore.selection import experiments as X

NAMES = ["output_law", "loss_vs_epsilon", "em_tail_check", "svt_stream", "svt_audit", "selection_audit"]


def test_every_experiment_is_registered():
    listed = list_experiments()
    for name in NAMES:
        assert f"selection.{name}" in listed
        assert resolve(f"selection.{name}") is getattr(X, name)


def test_cli_runs_a_selection_experiment(tmp_path):
    out = tmp_path / "law.csv"
    assert main(["selection.output_law", "--k", "4", "--runs", "50", "--seed", "1", "--out", str(out),
                 "--no-progress"]) == 0
    from dpexplore.core import ExperimentResult

    assert ExperimentResult.from_csv(out).same_numbers(X.output_law(k=4, runs=50, rng=1))


@pytest.mark.parametrize("mech", A.AUDITED_SELECTORS)
def test_selection_audit(mech):
    a = A.audit_selection(mech, epsilon=1.0, k=10, runs=4000, rng=3)
    if mech == "pf-broken":
        assert a.exact_epsilon > 1.0 + 0.5  # 1.73 on this pair: the broken variant runs at 2ε
        assert a.violation
    else:
        assert a.exact_epsilon <= 1.0 + 1e-9 and not a.violation
        assert a.epsilon_lower <= a.exact_epsilon + 1e-9 or a.epsilon_lower <= 1.0


def test_output_law_sampled_matches_exact_within_binomial_band():
    """Each sampled frequency within 4 binomial SE of the exact probability (15 cells; fixed seed)."""
    runs = 1500
    r = X.output_law(k=5, gap=2.0, epsilon=1.0, runs=runs, rng=2)
    for m in range(3):
        p, f = r.mean[m], r.mean[m + 3]
        assert np.all(np.abs(f - p) <= 4 * np.sqrt(p * (1 - p) / runs) + 1e-12)


def test_svt_stream_stops_after_c_positives():
    r = X.svt_stream(n_queries=30, epsilon=1.0, c=2, trials=50, rng=0)
    positives = r.values[0].sum(axis=0)
    assert np.all(positives <= 2)
    examined = r.values[1]
    last = examined.sum(axis=0)  # queries examined per trial
    assert np.all((positives == 2) | (last == 30))


def test_stream_and_candidates_inputs():
    with pytest.raises(ValueError, match="n must"):
        X.stream_queries(X.MAX_STREAM + 1)
    with pytest.raises(ValueError, match="gap"):
        X.candidate_scores(3, -1)
    with pytest.raises(ValueError, match="variant"):
        X.svt_stream(variant="nope")
