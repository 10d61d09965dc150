"""Building blocks every paper uses: validation, randomness, noise calibration, GDP/zCDP
conversions, randomized response, the Laplace and Gaussian mechanisms, what ε means to an attacker
(:mod:`~dpexplore.core.risk`), the sparse vector technique, permute-and-flip, exact privacy curves,
shuffle-amplification accountants and Monte-Carlo sweeps."""

from .additive import GaussianResult, LaplaceResult, gaussian_mechanism, laplace_mechanism, laplace_scale
from .cache import ResultCache, clear_cache, get_cache, set_cache_dir, using_cache
from .experiment import (
    ExperimentResult,
    SweepResult,
    experiment_progress,
    mean_confidence_band,
    proportion_band,
    run_experiment,
    sweep,
)
from .gaussian import (
    dp_to_zcdp,
    gaussian_sigma,
    gaussian_zcdp_rho,
    gdp_delta,
    gdp_epsilon,
    gdp_tradeoff,
    zcdp_to_dp,
)
from .permute_and_flip import PermuteAndFlipResult, permute_and_flip, permute_and_flip_probabilities
from .privacy_curves import PrivacyCheck, exact_epsilon, exact_privacy_check, hockey_stick
from .random import RNGLike, as_generator, spawn
from .randomized_response import (
    RandomizedResponseResult,
    debias_randomized_response,
    flip_probability,
    randomized_response,
)
from .risk import (
    advantage_bound,
    attacker_success_bound,
    dp_tradeoff,
    gdp_advantage,
    posterior_bound,
)
from .shuffle_amplification import (
    ACCOUNTANTS,
    clone_pair_delta,
    clone_pair_epsilon,
    fmt21_closed_form_epsilon,
    shuffle_amplification_epsilon,
    shuffle_amplification_epsilon0,
)
from .sparse_vector import AboveThresholdResult, above_threshold

__all__ = [
    "GaussianResult",
    "LaplaceResult",
    "advantage_bound",
    "attacker_success_bound",
    "dp_tradeoff",
    "gaussian_mechanism",
    "gdp_advantage",
    "laplace_mechanism",
    "laplace_scale",
    "posterior_bound",
    "ACCOUNTANTS",
    "AboveThresholdResult",
    "ExperimentResult",
    "ResultCache",
    "PermuteAndFlipResult",
    "PrivacyCheck",
    "RNGLike",
    "RandomizedResponseResult",
    "SweepResult",
    "above_threshold",
    "as_generator",
    "clear_cache",
    "clone_pair_delta",
    "clone_pair_epsilon",
    "debias_randomized_response",
    "dp_to_zcdp",
    "exact_epsilon",
    "experiment_progress",
    "get_cache",
    "exact_privacy_check",
    "flip_probability",
    "fmt21_closed_form_epsilon",
    "gaussian_sigma",
    "gaussian_zcdp_rho",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_tradeoff",
    "hockey_stick",
    "mean_confidence_band",
    "permute_and_flip",
    "permute_and_flip_probabilities",
    "proportion_band",
    "randomized_response",
    "run_experiment",
    "set_cache_dir",
    "shuffle_amplification_epsilon",
    "shuffle_amplification_epsilon0",
    "spawn",
    "sweep",
    "using_cache",
    "zcdp_to_dp",
]
