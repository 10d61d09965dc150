"""Paper 3: differential privacy for Markov-chain state trajectories.

Benvenuti & Hale, *Differential Privacy for Markov Chain State Trajectories*. A chain is a weighted
digraph with W_ij = −log P_ij; the shortest-path distance G(i, j) is minus the log-probability of the
most likely path (Proposition 1); trajectories are neighbours when the sum over time of the symmetric
distances between their states is at most ρ (Definition 4); Mechanism 1 releases a private trajectory
online with permute-and-flip over the feasible neighbourhood of the previous private state.

[reconstruction] The paper's full text was not available: the mechanism, the baseline and the metrics
follow the paper's description where it is specific and ``papers/3-markov-trajectories.md`` elsewhere.

Modules: :mod:`.chains` (chain type, built-in chains, parser, simulation), :mod:`.distances`
(−log P graph, shortest paths, most likely paths), :mod:`.mechanisms` (Mechanism 1, the baseline,
online and batch, exact step kernels), :mod:`.analysis` (pair chain, exact tails, entropy, drift),
:mod:`.loaders` (Wikispeedia), :mod:`.audit` (worst neighbouring trajectories, exact and statistical
privacy audits, deliberately broken variants for teaching).
"""

from .analysis import (
    PairChainAnalysis,
    TimeProfile,
    analyze,
    empirical_tail,
    pair_chain,
    pair_stationary,
    running_entropy,
    time_profile,
    typical_fraction,
    word_distribution,
    word_entropy,
)
from .chains import (
    MAX_PASTED_STATES,
    MarkovChain,
    as_chain,
    check_irreducible,
    city_grid,
    credit_migration,
    entropy_rate,
    parse_matrix,
    simulate,
    stationary_distribution,
    web_browsing,
)
from .distances import (
    brute_force_most_likely,
    cost_graph,
    distances,
    most_likely_path,
    path_probability,
    shortest_path_lengths,
    to_networkx,
)
from .loaders import load_wikispeedia, resolve_back_clicks
from .mechanisms import (
    OnlineBaseline,
    OnlinePermuteAndFlip,
    StepKernel,
    TrajectoryResult,
    baseline_kernel,
    baseline_trajectory,
    feasible_sets,
    mechanism_epsilon,
    mechanism_kernel,
    private_trajectory,
    sample_trajectories,
)

__all__ = [
    "MAX_PASTED_STATES",
    "MarkovChain",
    "OnlineBaseline",
    "OnlinePermuteAndFlip",
    "PairChainAnalysis",
    "StepKernel",
    "TimeProfile",
    "TrajectoryResult",
    "analyze",
    "as_chain",
    "baseline_kernel",
    "baseline_trajectory",
    "brute_force_most_likely",
    "check_irreducible",
    "city_grid",
    "cost_graph",
    "credit_migration",
    "distances",
    "empirical_tail",
    "entropy_rate",
    "feasible_sets",
    "load_wikispeedia",
    "mechanism_epsilon",
    "mechanism_kernel",
    "most_likely_path",
    "pair_chain",
    "pair_stationary",
    "parse_matrix",
    "path_probability",
    "private_trajectory",
    "resolve_back_clicks",
    "running_entropy",
    "sample_trajectories",
    "shortest_path_lengths",
    "simulate",
    "stationary_distribution",
    "time_profile",
    "to_networkx",
    "typical_fraction",
    "web_browsing",
    "word_distribution",
    "word_entropy",
]
