"""Bad inputs for every public function of dpexplore.spectral (hypothesis), and numerical edge cases.

Every bad value ends in a TypeError or ValueError whose message names the parameter, quickly, with
no numpy warning escaping (pytest turns warnings into errors) and never a silent NaN.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpexplore import spectral as S
from dpexplore.spectral import audit as AU
from tests.test_bad_inputs import BAD, NONFINITE, WRONG_TYPES, assert_clear_error

A8, Z8 = S.sbm(8, 2, 0.8, 0.1, rng=0)
A40, Z40 = S.sbm(40, 2, 0.6, 0.05, rng=0)
REL = S.matrix_shuffle(A40, epsilon=2.0, delta=1e-3, rng=0)
X = np.random.default_rng(0).standard_normal((10, 2))

BAD_ADJ = st.one_of(
    WRONG_TYPES,
    st.sampled_from([
        [[0, 1], [0, 0]],  # not symmetric
        [[0, 2], [2, 0]],  # not 0/1
        [[0, 0.5], [0.5, 0]],
        [[1, 0], [0, 0]],  # self-loop
        [[0, math.nan], [math.nan, 0]],
        [[0, math.inf], [math.inf, 0]],
        [[0, -1], [-1, 0]],
        [[0, 1, 0], [1, 0, 1]],  # not square
        [[0]],  # one vertex
        [], [[]], [0, 1], [[[0, 1], [1, 0]]],
        "0 1\n1 0",
        sp.csr_array(np.array([[0.0, 1.0], [0.0, 0.0]])),
    ]),
)
BAD_PROB = st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False),
                     st.floats(min_value=1.0 + 1e-9, max_value=1e300))
BAD_MATRIX = st.one_of(WRONG_TYPES, st.sampled_from([[], [[]], [1.0, 2.0], [[math.nan, 1.0], [0.0, 1.0]],
                                                     [[math.inf, 1.0], [0.0, 1.0]], [[[1.0]]], "1 2"]))
BAD_LABELS = st.one_of(st.sampled_from([None, 1.5, [], [[0, 1]], [0.5, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0],
                                        [math.nan] * 8, [0, 1], object()]))
BAD_KIND = {**BAD, "adjacency": BAD_ADJ, "probability": BAD_PROB, "matrix": BAD_MATRIX, "labels": BAD_LABELS,
            "choice": st.one_of(WRONG_TYPES, st.sampled_from(["", "SHUFFLE", "rdp", "gauss"])),
            "nonneg": st.one_of(WRONG_TYPES, NONFINITE, st.floats(max_value=-1e-300, allow_nan=False,
                                                                   allow_infinity=False)),
            "bool": st.sampled_from(["yes", 2, None, 1.5, [True]]),
            "callable": st.sampled_from(["yes", 2, 1.5, [True], object()]),
            "count_or_none": BAD["count2"].filter(lambda v: v is not None),
            "delta_or_none": BAD["delta"].filter(lambda v: v is not None),
            "nonneg_or_none": st.one_of(WRONG_TYPES.filter(lambda v: v is not None), NONFINITE,
                                        st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False)),
            "positive_or_none": BAD["positive"].filter(lambda v: v is not None),
            "real_or_inf": st.sampled_from(["1", None, [1.0], {"a": 1}, 1j, b"x", object(), math.nan, -math.inf]),
            "real": st.one_of(st.sampled_from(["1", None, [1.0], {"a": 1}, 1j, b"x", object()]), NONFINITE),
            "endpoints": st.sampled_from(["1", None, {"a": 1}, 1j, b"x", object(), [0.5], [math.nan], [-1], [7],
                                          [[0]], [0, 1]])}

E = {"epsilon": 1.0, "delta": 1e-4}
CASES = [
    # accounting
    ("analyze_gauss_sigma.epsilon", S.analyze_gauss_sigma, (), E, "epsilon", "positive"),
    ("analyze_gauss_sigma.delta", S.analyze_gauss_sigma, (), E, "delta", "delta"),
    ("asymptotic_epsilon0.n", S.asymptotic_epsilon0, (), {**E, "n": 1000}, "n", "count2"),
    ("asymptotic_epsilon0.epsilon", S.asymptotic_epsilon0, (), {**E, "n": 1000}, "epsilon", "positive"),
    ("noisy_power_epsilon.sigma", S.noisy_power_epsilon, (), {"sigma": 2.0, "iterations": 3, "delta": 1e-4},
     "sigma", "positive"),
    ("noisy_power_epsilon.delta", S.noisy_power_epsilon, (), {"sigma": 2.0, "iterations": 3, "delta": 1e-4},
     "delta", "delta"),
    ("noisy_power_epsilon.iterations", S.noisy_power_epsilon, (), {"sigma": 2.0, "iterations": 3, "delta": 1e-4},
     "iterations", "count"),
    ("noisy_power_sigma.iterations", S.noisy_power_sigma, (), {**E, "iterations": 3}, "iterations", "count"),
    ("noisy_power_sigma.epsilon", S.noisy_power_sigma, (), {**E, "iterations": 3}, "epsilon", "positive"),
    ("rr_noise_variance.epsilon0", S.rr_noise_variance, (), {"epsilon0": 1.0}, "epsilon0", "positive"),
    ("shuffle_epsilon.epsilon0", S.shuffle_epsilon, (), {"epsilon0": 2.0, "n": 100, "delta": 1e-4}, "epsilon0",
     "positive"),
    ("shuffle_epsilon.n", S.shuffle_epsilon, (), {"epsilon0": 2.0, "n": 100, "delta": 1e-4}, "n", "count2"),
    ("shuffle_epsilon.accountant", S.shuffle_epsilon, (), {"epsilon0": 2.0, "n": 100, "delta": 1e-4},
     "accountant", "choice"),
    ("shuffle_epsilon0.epsilon", S.shuffle_epsilon0, (), {**E, "n": 100}, "epsilon", "positive"),
    ("shuffle_epsilon0.delta", S.shuffle_epsilon0, (), {**E, "n": 100}, "delta", "delta"),
    # data
    ("sbm.n", S.sbm, (), {"n": 10, "k": 2, "p": 0.5, "q": 0.1}, "n", "count2"),
    ("sbm.k", S.sbm, (), {"n": 10, "k": 2, "p": 0.5, "q": 0.1}, "k", "count"),
    ("sbm.p", S.sbm, (), {"n": 10, "k": 2, "p": 0.5, "q": 0.1}, "p", "probability"),
    ("sbm.q", S.sbm, (), {"n": 10, "k": 2, "p": 0.5, "q": 0.1}, "q", "probability"),
    ("sbm_pq.avg_degree", S.sbm_pq, (100, 3), {"avg_degree": 20.0, "eigengap": 10.0}, "avg_degree", "positive"),
    ("sbm_pq.eigengap", S.sbm_pq, (100, 3), {"avg_degree": 20.0, "eigengap": 10.0}, "eigengap", "positive"),
    ("block_sizes.k", S.block_sizes, (), {"n": 10, "k": 3}, "k", "count"),
    ("adjacency_from_edges.n", S.adjacency_from_edges, ([0], [1]), {"n": 3}, "n", "count2"),
    ("adjacency_from_edges.rows", S.adjacency_from_edges, (), {"rows": [0], "cols": [1], "n": 3}, "rows",
     "endpoints"),
    # mechanisms
    ("randomized_response_graph.adjacency", S.randomized_response_graph, (), {"adjacency": A8, "epsilon0": 1.0},
     "adjacency", "adjacency"),
    ("randomized_response_graph.epsilon0", S.randomized_response_graph, (A8,), {"epsilon0": 1.0}, "epsilon0",
     "positive_or_inf"),
    ("debias.flip_prob", S.debias, ([[0, 1], [1, 0]],), {"flip_prob": 0.2}, "flip_prob", "probability"),
    ("debias.released", S.debias, (), {"released": [[0, 1], [1, 0]], "flip_prob": 0.2}, "released", "matrix"),
    ("matrix_shuffle.adjacency", S.matrix_shuffle, (), {"adjacency": A8, **E}, "adjacency", "adjacency"),
    ("matrix_shuffle.epsilon", S.matrix_shuffle, (A8,), E, "epsilon", "positive"),
    ("matrix_shuffle.delta", S.matrix_shuffle, (A8,), E, "delta", "delta"),
    ("matrix_shuffle.accountant", S.matrix_shuffle, (A8,), {**E, "accountant": "fmt21_numerical"}, "accountant",
     "choice"),
    ("analyze_gauss.adjacency", S.analyze_gauss, (), {"adjacency": A8, **E}, "adjacency", "adjacency"),
    ("analyze_gauss.epsilon", S.analyze_gauss, (A8,), E, "epsilon", "positive"),
    ("analyze_gauss.delta", S.analyze_gauss, (A8,), E, "delta", "delta"),
    ("noisy_power_method.adjacency", S.noisy_power_method, (), {"adjacency": A8, "k": 2, **E}, "adjacency",
     "adjacency"),
    ("noisy_power_method.k", S.noisy_power_method, (A8,), {"k": 2, **E}, "k", "count"),
    ("noisy_power_method.epsilon", S.noisy_power_method, (A8,), {"k": 2, **E}, "epsilon", "positive"),
    ("noisy_power_method.iterations", S.noisy_power_method, (A8,), {"k": 2, **E, "iterations": 2}, "iterations",
     "count"),
    ("noisy_power_method.p", S.noisy_power_method, (A8,), {"k": 2, **E, "p": 3}, "p", "count_or_none"),
    # clustering
    ("kmeans.x", S.kmeans, (), {"x": X, "k": 2}, "x", "matrix"),
    ("kmeans.k", S.kmeans, (X,), {"k": 2}, "k", "count"),
    ("kmeans.n_init", S.kmeans, (X,), {"k": 2, "n_init": 2}, "n_init", "count"),
    ("kmeans.max_iter", S.kmeans, (X,), {"k": 2, "max_iter": 5}, "max_iter", "count"),
    ("top_eigenpairs.matrix", S.top_eigenpairs, (), {"matrix": np.eye(3), "k": 1}, "matrix", "matrix"),
    ("top_eigenpairs.k", S.top_eigenpairs, (np.eye(4),), {"k": 2}, "k", "count"),
    ("spectral_clustering.adjacency", S.spectral_clustering, (), {"adjacency": A8, "k": 2}, "adjacency",
     "adjacency"),
    ("spectral_clustering.k", S.spectral_clustering, (A8,), {"k": 2}, "k", "count"),
    ("private_spectral_clustering.adjacency", S.private_spectral_clustering, (),
     {"adjacency": A8, "k": 2, "mechanism": "shuffle", **E}, "adjacency", "adjacency"),
    ("private_spectral_clustering.k", S.private_spectral_clustering, (A8,), {"k": 2, "mechanism": "shuffle", **E},
     "k", "count"),
    ("private_spectral_clustering.mechanism", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "shuffle", **E}, "mechanism", "choice"),
    ("private_spectral_clustering.epsilon", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "analyze_gauss", **E}, "epsilon", "positive"),
    ("private_spectral_clustering.delta", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "noisy_power", **E}, "delta", "delta"),
    ("private_spectral_clustering.iterations", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "noisy_power", **E, "iterations": 3}, "iterations", "count"),
    ("private_spectral_clustering.n_init", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "analyze_gauss", **E, "n_init": 2}, "n_init", "count"),
    ("estimate_k.adjacency", S.estimate_k, (), {"adjacency": A40, **E, "k_max": 4}, "adjacency", "adjacency"),
    ("estimate_k.k_max", S.estimate_k, (A40,), {**E, "k_max": 4}, "k_max", "count"),
    ("estimate_k.method", S.estimate_k, (A40,), {**E, "k_max": 4, "method": "gap"}, "method", "choice"),
    ("estimate_k_from_release.release", S.estimate_k_from_release, (), {"release": REL, "k_max": 4}, "release",
     "matrix"),
    ("estimate_k_from_release.k_max", S.estimate_k_from_release, (REL,), {"k_max": 4}, "k_max", "count"),
    # metrics
    ("misclassification_rate.labels_pred", S.misclassification_rate, (Z8,), {"labels_pred": Z8}, "labels_pred",
     "labels"),
    ("misclassification_rate.labels_true", S.misclassification_rate, (), {"labels_true": Z8, "labels_pred": Z8},
     "labels_true", "labels"),
    ("confusion_matrix.labels_pred", S.confusion_matrix, (Z8,), {"labels_pred": Z8}, "labels_pred", "labels"),
    ("sin_theta_distance.u", S.sin_theta_distance, (), {"u": X, "v": X}, "u", "matrix"),
    ("procrustes_error.u", S.procrustes_error, (X,), {"u": X}, "u", "matrix"),
    # theory
    ("sbm_quantities.p", S.sbm_quantities, (100, 3), {"p": 0.3, "q": 0.05}, "p", "probability"),
    ("sbm_quantities.k", S.sbm_quantities, (100,), {"k": 3, "p": 0.3, "q": 0.05}, "k", "count"),
    ("margin_quantities.u", S.margin_quantities, (), {"u": X[:8], "labels": Z8}, "u", "matrix"),
    ("margin_quantities.labels", S.margin_quantities, (X[:8],), {"labels": Z8}, "labels", "labels"),
    ("mechanism_noise_variance.mechanism", S.mechanism_noise_variance, (),
     {"mechanism": "analyze_gauss", **E, "n": 100}, "mechanism", "choice"),
    ("mechanism_noise_variance.epsilon0", S.mechanism_noise_variance, (),
     {"mechanism": "shuffle", **E, "n": 100, "epsilon0": 2.0}, "epsilon0", "positive"),
    ("mechanism_noise_variance.epsilon", S.mechanism_noise_variance, (),
     {"mechanism": "analyze_gauss", **E, "n": 100}, "epsilon", "positive"),
    ("expected_noise_norm.variance", S.expected_noise_norm, (100,), {"variance": 1.0}, "variance", "nonneg"),
    ("expected_noise_norm.n", S.expected_noise_norm, (), {"n": 100, "variance": 1.0}, "n", "count"),
    ("davis_kahan_bound.noise_op", S.davis_kahan_bound, (), {"noise_op": 1.0, "eigengap": 10.0, "k": 3},
     "noise_op", "nonneg"),
    ("davis_kahan_bound.eigengap", S.davis_kahan_bound, (1.0,), {"eigengap": 10.0, "k": 3}, "eigengap", "real"),
    ("davis_kahan_bound.k", S.davis_kahan_bound, (1.0,), {"eigengap": 10.0, "k": 3}, "k", "count"),
    ("davis_kahan_bound.noise_fro", S.davis_kahan_bound, (1.0,), {"eigengap": 10.0, "k": 3, "noise_fro": 2.0},
     "noise_fro", "nonneg_or_none"),
    ("misclassification_bound.delta_star", S.misclassification_bound, (1.0,),
     {"n": 100, "k": 3, "eigengap": 10.0, "delta_star": 0.3}, "delta_star", "real_or_inf"),
    ("misclassification_bound.r_star", S.misclassification_bound, (1.0,),
     {"n": 100, "k": 3, "eigengap": 10.0, "delta_star": 0.3, "r_star": 0.0}, "r_star", "nonneg"),
    ("misclassification_bound.k", S.misclassification_bound, (1.0,),
     {"n": 100, "k": 3, "eigengap": 10.0, "delta_star": 0.3}, "k", "count"),
    ("rate.mechanism", S.rate, (), {"mechanism": "shuffle", "n": 100, "k": 3, "eigengap": 10.0, **E}, "mechanism",
     "choice"),
    ("rate.eigengap", S.rate, ("shuffle",), {"n": 100, "k": 3, "eigengap": 10.0, **E}, "eigengap", "real"),
    ("rate.max_row_norm", S.rate, ("noisy_power",), {"n": 100, "k": 3, "eigengap": 10.0, **E, "max_row_norm": 0.2},
     "max_row_norm", "positive_or_none"),
    ("rate.iterations", S.rate, ("noisy_power",), {"n": 100, "k": 3, "eigengap": 10.0, **E, "iterations": 3},
     "iterations", "count"),
    # audit
    ("worst_case_edge_pair.n", AU.worst_case_edge_pair, (), {"n": 3}, "n", "count2"),
    ("worst_case_power_iterate.p", AU.worst_case_power_iterate, (5,), {"p": 2}, "p", "count"),
    ("worst_case_edge_for_iterate.x", AU.worst_case_edge_for_iterate, (), {"x": X}, "x", "matrix"),
    ("shuffled_rr_law.adjacency", AU.shuffled_rr_law, (), {"adjacency": [[0, 1], [1, 0]], "epsilon0": 1.0},
     "adjacency", "adjacency"),
    ("shuffled_rr_law.epsilon0", AU.shuffled_rr_law, ([[0, 1], [1, 0]],), {"epsilon0": 1.0}, "epsilon0",
     "positive"),
    ("release_mask.matrix", AU.release_mask, (), {"matrix": [[0, 1], [1, 0]]}, "matrix", "matrix"),
    ("edge_count_laws.n", AU.edge_count_laws, (), {"n": 10, "epsilon0": 1.0}, "n", "count2"),
    ("edge_count_laws.epsilon0", AU.edge_count_laws, (10,), {"epsilon0": 1.0}, "epsilon0", "positive"),
    ("broken_randomized_response_graph.epsilon0", AU.broken_randomized_response_graph, (A8,), {"epsilon0": 1.0},
     "epsilon0", "positive"),
    ("broken_randomized_response_graph.adjacency", AU.broken_randomized_response_graph, (),
     {"adjacency": A8, "epsilon0": 1.0}, "adjacency", "adjacency"),
    ("broken_matrix_shuffle.delta", AU.broken_matrix_shuffle, (A8,), E, "delta", "delta"),
    ("broken_matrix_shuffle.epsilon0", AU.broken_matrix_shuffle, (A8,), {"delta": 1e-4, "epsilon0": 1.0},
     "epsilon0", "positive"),
    ("broken_analyze_gauss.epsilon", AU.broken_analyze_gauss, (A8,), E, "epsilon", "positive"),
    ("broken_analyze_gauss.adjacency", AU.broken_analyze_gauss, (), {"adjacency": A8, **E}, "adjacency",
     "adjacency"),
    ("broken_noisy_power_method.bug", AU.broken_noisy_power_method, (A8,), {"k": 2, **E, "bug": "no_sqrt2"}, "bug",
     "choice"),
    ("broken_noisy_power_method.k", AU.broken_noisy_power_method, (A8,), {"k": 2, **E}, "k", "count"),
    ("exact_audit_randomized_response.epsilon0", AU.exact_audit_randomized_response, (), {"epsilon0": 1.0},
     "epsilon0", "positive"),
    ("exact_audit_randomized_response.broken", AU.exact_audit_randomized_response, (1.0,), {"broken": False},
     "broken", "bool"),
    ("exact_audit_matrix_shuffle.n", AU.exact_audit_matrix_shuffle, (), {"n": 6, "epsilon0": 1.0, "delta": 1e-4},
     "n", "count2"),
    ("exact_audit_matrix_shuffle.delta", AU.exact_audit_matrix_shuffle, (6,), {"epsilon0": 1.0, "delta": 1e-4},
     "delta", "delta"),
    ("exact_audit_gaussian.mu", AU.exact_audit_gaussian, (), {"mu": 1.0, "delta": 1e-4}, "mu", "positive"),
    ("exact_audit_gaussian.delta", AU.exact_audit_gaussian, (1.0,), {"delta": 1e-4}, "delta", "delta"),
    ("audit_randomized_response.epsilon0", AU.audit_randomized_response, (), {"epsilon0": 1.0, "runs": 100},
     "epsilon0", "positive"),
    ("audit_randomized_response.runs", AU.audit_randomized_response, (), {"epsilon0": 1.0, "runs": 100}, "runs",
     "count2"),
    ("audit_randomized_response.confidence", AU.audit_randomized_response, (), {"epsilon0": 1.0, "runs": 100,
     "confidence": 0.9}, "confidence", "probability"),
    ("audit_randomized_response.block", AU.audit_randomized_response, (), {"epsilon0": 1.0, "runs": 100,
     "block": 20}, "block", "count2"),
    ("audit_matrix_shuffle.n", AU.audit_matrix_shuffle, (), {"n": 6, "epsilon0": 1.0, "delta": 1e-4}, "n", "count2"),
    ("audit_matrix_shuffle.epsilon", AU.audit_matrix_shuffle, (6,), {"epsilon": 1.0, "delta": 1e-4}, "epsilon",
     "positive"),
    ("audit_matrix_shuffle.accountant", AU.audit_matrix_shuffle, (6,), {"epsilon": 1.0, "delta": 1e-4,
     "accountant": "fmt21_numerical"}, "accountant", "choice"),
    ("audit_analyze_gauss.epsilon", AU.audit_analyze_gauss, (), {**E, "runs": 100}, "epsilon", "positive"),
    ("audit_analyze_gauss.delta", AU.audit_analyze_gauss, (), {**E, "runs": 100}, "delta", "delta"),
    ("audit_analyze_gauss.runs", AU.audit_analyze_gauss, (), {**E, "runs": 100}, "runs", "count2"),
    ("audit_analyze_gauss.broken", AU.audit_analyze_gauss, (), {**E, "runs": 100, "broken": False}, "broken",
     "bool"),
    ("audit_noisy_power_step.n", AU.audit_noisy_power_step, (), {"n": 10, "k": 2, **E, "runs": 100}, "n", "count2"),
    ("audit_noisy_power_step.k", AU.audit_noisy_power_step, (10,), {"k": 2, **E, "runs": 100}, "k", "count"),
    ("audit_noisy_power_step.audit_delta", AU.audit_noisy_power_step, (10,),
     {"k": 2, **E, "runs": 100, "audit_delta": 0.1}, "audit_delta", "delta_or_none"),
    ("audit_noisy_power_step.iterations", AU.audit_noisy_power_step, (10,), {"k": 2, **E, "runs": 100,
     "iterations": 2}, "iterations", "count"),
    ("audit_noisy_power_step.chunk", AU.audit_noisy_power_step, (10,), {"k": 2, **E, "runs": 100, "chunk": 10},
     "chunk", "count"),
    ("audit_noisy_power_step.progress", AU.audit_noisy_power_step, (10,), {"k": 2, **E, "runs": 100,
     "progress": None}, "progress", "callable"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_valid_call_works(case):
    _, fn, args, kwargs, _, _ = case
    fn(*args, **kwargs)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@settings(max_examples=25, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_value_gets_a_clear_error(case, data):
    _, fn, args, kwargs, param, kind = case
    assert_clear_error(fn, args, kwargs, param, data.draw(BAD_KIND[kind], label=param))


# -- structural bad inputs that are not one parameter's value ---------------------------------
def test_k_versus_n_and_other_cross_parameter_errors():
    with pytest.raises(ValueError, match="k must be"):
        S.sbm(3, 5, 0.5, 0.1)
    with pytest.raises(ValueError, match="k must be"):
        S.private_spectral_clustering(A8, 8, mechanism="shuffle", **E)
    with pytest.raises(ValueError, match="k must be"):
        S.kmeans(X, 11)
    with pytest.raises(ValueError, match="k_max must be"):
        S.estimate_k(A8, **E, k_max=7)
    with pytest.raises(ValueError, match="u and v"):
        S.sin_theta_distance(X, X[:5])
    with pytest.raises(ValueError, match="labels_true and labels_pred"):
        S.misclassification_rate([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="labels"):
        S.margin_quantities(X, Z8)
    with pytest.raises(ValueError, match="eigengap"):
        S.sbm_pq(100, 3, avg_degree=10, eigengap=20)
    with pytest.raises(ValueError, match="adjacency must have at most 6"):
        AU.shuffled_rr_law(A8, epsilon0=1.0)
    with pytest.raises(TypeError, match="exactly one of epsilon"):
        AU.audit_matrix_shuffle(6, delta=1e-4)
    with pytest.raises(ValueError, match=r"rows must hold vertex ids in \[0, n - 1\]"):
        S.adjacency_from_edges([0, 5], [1, 2], 3)


def test_empty_and_disconnected_graphs_give_answers_not_nan():
    empty = sp.csr_array((30, 30))
    res = S.private_spectral_clustering(empty, 2, mechanism="shuffle", epsilon=1.0, delta=1e-3, rng=0)
    assert np.all(np.isfinite(res.embedding)) and res.labels.shape == (30,)
    two = sp.block_diag([S.sbm(15, 1, 0.8, 0.0, rng=1)[0], S.sbm(15, 1, 0.8, 0.0, rng=2)[0]]).tocsr()
    for mech in ("analyze_gauss", "noisy_power", "none"):
        r = S.private_spectral_clustering(two, 2, mechanism=mech, epsilon=50.0, delta=1e-3, rng=0)
        assert np.all(np.isfinite(r.embedding))
    assert S.spectral_clustering(two, 2, rng=0).labels.shape == (30,)
    est = S.estimate_k(empty, epsilon=1.0, delta=1e-3, k_max=4, rng=0)
    assert 2 <= est.k <= 4 and np.all(np.isfinite(est.eigenvalues))


@pytest.mark.parametrize("eps", [1e-6, 1e-3, 50.0, 700.0, 1e6])
def test_extreme_epsilon_is_finite_and_honest(eps):
    d = 1e-12
    assert math.isfinite(S.analyze_gauss_sigma(eps, d)) and S.analyze_gauss_sigma(eps, d) > 0
    assert math.isfinite(S.noisy_power_sigma(eps, d, 10))
    e0 = S.shuffle_epsilon0(eps, 1000, d)
    assert 0 < e0 <= 30.0
    assert S.shuffle_epsilon(e0, 1000, d) <= eps * (1 + 1e-6) + 1e-9
    v = S.rr_noise_variance(min(eps, 700.0))
    assert math.isfinite(v) and v >= 0
    r = S.rate("analyze_gauss", n=1000, k=3, eigengap=80.0, epsilon=eps, delta=d)
    assert math.isfinite(r.value) or not r.valid
    a = AU.exact_audit_randomized_response(min(eps, 30.0))
    assert math.isfinite(a.epsilon)


def test_huge_n_accounting_and_tiny_delta():
    assert math.isfinite(S.shuffle_epsilon0(1.0, 10**7, 1e-300))
    assert math.isfinite(S.asymptotic_epsilon0(1.0, 10**12, 1e-300))
    assert S.noisy_power_sigma(1.0, 1e-300, 10) > S.noisy_power_sigma(1.0, 1e-5, 10)
    c, p0, p1 = AU.edge_count_laws(3000, epsilon0=3.0)  # m ≈ 4.5 M pairs: the trimmed support stays small
    assert c.size < 20_000 and abs(p0.sum() - 1) < 1e-12


def test_near_degenerate_eigengap_theory_says_so():
    s = S.sbm_quantities(100, 3, 0.3, 0.3)
    assert s.eigengap == pytest.approx(0.0, abs=1e-9)
    b = S.davis_kahan_bound(1.0, eigengap=s.eigengap, k=3)
    assert not b.valid and math.isnan(b.value)
    m = S.misclassification_bound(1.0, n=100, k=3, eigengap=1e-300, delta_star=0.3)
    assert m.valid and (m.value > 1 and "vacuous" in m.reason or math.isfinite(m.value))


def test_debias_rejects_non_matrix_release_and_huge_values():
    with pytest.raises(ValueError, match="flip_prob"):
        S.debias([[0, 1], [1, 0]], 0.5)


# -- issue 13: size caps before allocation, complex input refused, wrong answers refused -------------------
from dpexplore.spectral import clustering as _CL  # noqa: E402
from dpexplore.spectral import data as _DA  # noqa: E402
from dpexplore.spectral import mechanisms as _ME  # noqa: E402
from dpexplore.spectral import metrics as _MT  # noqa: E402
from tests.test_bad_inputs import HUGE, array_variants, assert_refused_fast  # noqa: E402

SIZE_CASES = [
    # (label, function, valid args, valid kwargs, size parameter, documented maximum)
    ("sbm.n", S.sbm, (), {"n": 10, "k": 2, "p": 0.5, "q": 0.1}, "n", _DA.MAX_SBM_NODES),
    ("sbm.k", S.sbm, (), {"n": 2000, "k": 2, "p": 0.0, "q": 0.0}, "k", _DA.MAX_SBM_BLOCKS),
    ("adjacency_from_edges.n", S.adjacency_from_edges, ([0], [1]), {"n": 3}, "n", _DA.MAX_NODES),
    ("block_sizes.n", S.block_sizes, (), {"n": 10, "k": 3}, "n", _DA.MAX_NODES),
    ("noisy_power_method.iterations", S.noisy_power_method, (A8,), {"k": 2, **E, "iterations": 2}, "iterations",
     _ME.MAX_ITERATIONS),
    ("kmeans.n_init", S.kmeans, (X,), {"k": 2, "n_init": 2}, "n_init", _CL.MAX_N_INIT),
    ("kmeans.max_iter", S.kmeans, (X,), {"k": 2, "max_iter": 5}, "max_iter", _CL.MAX_KMEANS_ITER),
    ("private_spectral_clustering.iterations", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "noisy_power", **E, "iterations": 3}, "iterations", _ME.MAX_ITERATIONS),
    ("private_spectral_clustering.n_init", S.private_spectral_clustering, (A8,),
     {"k": 2, "mechanism": "analyze_gauss", **E, "n_init": 2}, "n_init", _CL.MAX_N_INIT),
]


@pytest.mark.parametrize("case", SIZE_CASES, ids=[c[0] for c in SIZE_CASES])
@settings(max_examples=8, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_size_parameters_have_a_maximum_checked_before_allocation(case, data):
    # before: sbm(10**9, ...) and adjacency_from_edges(n=10**12) raised MemoryError (7 GB, 7 TB),
    # kmeans(n_init=10**9) hung, noisy_power_method(iterations=10**9) tried 7.45 GB
    _, fn, args, kwargs, param, maximum = case
    fn(*args, **{**kwargs, param: min(maximum, 3) if param != "n" else kwargs[param]})  # valid below the cap
    assert_refused_fast(fn, args, kwargs, param, data.draw(st.one_of(HUGE, st.just(maximum + 1)), label=param),
                        kind=ValueError)


def test_sbm_refuses_more_expected_edges_than_its_cap():
    n = _DA.MAX_SBM_NODES
    with pytest.raises(ValueError, match="expected edges"):
        S.sbm(n, 2, 0.5, 0.5)  # 10**8 expected edges


@pytest.mark.parametrize("fn,kw", [(S.randomized_response_graph, {"epsilon0": 1.0}), (S.matrix_shuffle, E),
                                   (S.analyze_gauss, E)])
def test_dense_releases_refuse_graphs_above_max_dense_nodes_before_densifying(fn, kw):
    big = sp.csr_array((_ME.MAX_DENSE_NODES + 1, _ME.MAX_DENSE_NODES + 1))  # empty: tiny as sparse, 512 MB dense
    assert_refused_fast(fn, (), {**kw, "rng": 0}, "adjacency", big, kind=ValueError)


@settings(max_examples=10, deadline=3000)
@given(bad=array_variants([[0.0, 1.0], [1.0, 0.0]]))
def test_complex_adjacency_is_refused_dense_or_sparse(bad):
    # before: spectral_clustering(sparse complex) gave a ComplexWarning and clustered the real part
    assert_refused_fast(S.spectral_clustering, (), {"k": 1}, "adjacency", bad, kind=TypeError)
    if np.asarray(bad).dtype.kind == "c":
        assert_refused_fast(S.spectral_clustering, (), {"k": 1}, "adjacency", sp.csr_array(np.asarray(bad)),
                            kind=TypeError)


@pytest.mark.parametrize("bad", [[0.5 + 1j, 1.0], [True, False], ["0", "1"]])
def test_edge_endpoints_refuse_complex_bool_and_strings(bad):
    assert_refused_fast(S.adjacency_from_edges, (), {"cols": [1, 0], "n": 3}, "rows", bad, kind=TypeError)


def test_top_eigenpairs_refuses_a_non_symmetric_matrix_and_accepts_rounding():
    # before: eigh read one triangle of [[0, 1], [0, 0]] and returned eigenvalue 0.5 with confidence
    with pytest.raises(ValueError, match="matrix must be symmetric"):
        S.top_eigenpairs(np.array([[0.0, 1.0], [0.0, 0.0]]), 1)
    with pytest.raises(ValueError, match="matrix must be symmetric"):
        S.top_eigenpairs(sp.csr_array(np.triu(np.ones((400, 400)), 1)), 2, rng=0)
    with pytest.raises(TypeError, match="matrix must be a real"):
        S.top_eigenpairs(sp.csr_array(np.eye(3) * 1j), 1)
    x = np.random.default_rng(1).standard_normal((500, 40))
    gram = x @ x.T  # symmetric up to BLAS rounding: accepted, and agrees with the symmetrised matrix
    vals, _ = S.top_eigenpairs(gram, 3, rng=0)
    ref, _ = S.top_eigenpairs((gram + gram.T) / 2, 3, rng=0)
    assert np.allclose(vals, ref, rtol=1e-10)


@pytest.mark.parametrize("u", [np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]),  # a zero column
                               np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]]),  # dependent columns
                               np.ones((2, 3))])  # more columns than rows
def test_sin_theta_distance_refuses_rank_deficient_input(u):
    # before: sin_theta_distance([[1, 0], [0, 0]], I) returned 0.0 (QR invented a direction)
    v = np.eye(u.shape[0])[:, : u.shape[1]]
    assert_refused_fast(S.sin_theta_distance, (), {"v": v}, "u", u, kind=ValueError)


def test_confusion_matrix_caps_its_table():
    labels = np.arange(5_000)
    with pytest.raises(ValueError, match="distinct_true_labels"):
        _MT.confusion_matrix(labels, labels[::-1].copy())
