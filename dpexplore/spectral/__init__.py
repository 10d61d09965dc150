"""Paper 1: differentially private spectral graph clustering under edge DP.

Koskela, Seif, Poor & Goldsmith, *Differentially Private Spectral Graph Clustering: Balancing Privacy,
Accuracy, and Efficiency*, arXiv:2510.07136.

* :mod:`.data`: SBM generator, (n, k, degree, eigengap) → (p, q), karate club, SNAP / Planetoid loaders;
* :mod:`.mechanisms`: randomized response on edges, matrix shuffling, Analyze Gauss, noisy power method;
* :mod:`.accounting`: what each costs (shuffle amplification with a pluggable accountant, σ's);
* :mod:`.clustering`: private spectral clustering, k-means++, the spectral-gap estimate of k;
* :mod:`.metrics`: misclassification rate (Hungarian matching), subspace distances;
* :mod:`.theory`: SBM quantities, Davis–Kahan + Procrustes + margin bound, rates.
"""

from .accounting import (
    analyze_gauss_sigma,
    asymptotic_epsilon0,
    noisy_power_epsilon,
    noisy_power_sigma,
    rr_noise_variance,
    shuffle_epsilon,
    shuffle_epsilon0,
)
from .clustering import (
    MECHANISMS,
    KEstimate,
    KMeansResult,
    SpectralClusteringResult,
    estimate_k,
    estimate_k_from_release,
    kmeans,
    private_spectral_clustering,
    spectral_clustering,
    top_eigenpairs,
)
from .data import adjacency_from_edges, block_sizes, karate_club, load_edge_list, load_planetoid, sbm, sbm_pq
from .mechanisms import (
    AnalyzeGaussResult,
    GraphRRResult,
    MatrixShuffleResult,
    NoisyPowerResult,
    analyze_gauss,
    debias,
    matrix_shuffle,
    noisy_power_method,
    randomized_response_graph,
)
from .metrics import confusion_matrix, misclassification_rate, procrustes_error, sin_theta_distance
from .theory import (
    SBMQuantities,
    TheoryValue,
    davis_kahan_bound,
    expected_noise_norm,
    margin_quantities,
    mechanism_noise_variance,
    misclassification_bound,
    rate,
    sbm_quantities,
)

__all__ = [
    "MECHANISMS",
    "AnalyzeGaussResult",
    "GraphRRResult",
    "KEstimate",
    "KMeansResult",
    "MatrixShuffleResult",
    "NoisyPowerResult",
    "SBMQuantities",
    "SpectralClusteringResult",
    "TheoryValue",
    "adjacency_from_edges",
    "analyze_gauss",
    "analyze_gauss_sigma",
    "asymptotic_epsilon0",
    "block_sizes",
    "confusion_matrix",
    "davis_kahan_bound",
    "debias",
    "estimate_k",
    "estimate_k_from_release",
    "expected_noise_norm",
    "karate_club",
    "kmeans",
    "load_edge_list",
    "load_planetoid",
    "margin_quantities",
    "matrix_shuffle",
    "mechanism_noise_variance",
    "misclassification_bound",
    "misclassification_rate",
    "noisy_power_epsilon",
    "noisy_power_method",
    "noisy_power_sigma",
    "private_spectral_clustering",
    "procrustes_error",
    "randomized_response_graph",
    "rate",
    "rr_noise_variance",
    "sbm",
    "sbm_pq",
    "sbm_quantities",
    "shuffle_epsilon",
    "shuffle_epsilon0",
    "sin_theta_distance",
    "spectral_clustering",
    "top_eigenpairs",
]
