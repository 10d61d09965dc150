"""Building blocks every paper uses: validation, randomness, noise calibration, GDP/zCDP
conversions, randomized response, the Laplace and Gaussian mechanisms, what ε means to an attacker
(:mod:`~dpexplore.core.risk`), the sparse vector technique, permute-and-flip, exact privacy curves,
shuffle-amplification accountants and Monte-Carlo sweeps.

Every name loads on first use (PEP 562): ``import dpexplore.core`` alone imports no submodule, so a dashboard
kernel pays for scipy only when a page calls something that needs it; ``from dpexplore.core import x`` and
``dpexplore.core.x`` work as before."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Two submodules share their name with a function they define. Importing such a submodule (which any sibling
# may do) sets this package's attribute of that name to the *module*, shadowing the lazy function; so these two
# (numpy only) are imported eagerly and their names always mean the functions.
from .permute_and_flip import PermuteAndFlipResult, permute_and_flip, permute_and_flip_probabilities
from .randomized_response import (
    RandomizedResponseResult,
    debias_randomized_response,
    flip_probability,
    randomized_response,
)

if TYPE_CHECKING:  # for type checkers and IDEs; at run time each name is imported by __getattr__ below
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
    from .privacy_curves import PrivacyCheck, exact_epsilon, exact_privacy_check, hockey_stick
    from .random import RNGLike, as_generator, spawn
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

#: public name -> the submodule that defines it
_WHERE: dict[str, str] = {
    "GaussianResult": "additive",
    "LaplaceResult": "additive",
    "advantage_bound": "risk",
    "attacker_success_bound": "risk",
    "dp_tradeoff": "risk",
    "gaussian_mechanism": "additive",
    "gdp_advantage": "risk",
    "laplace_mechanism": "additive",
    "laplace_scale": "additive",
    "posterior_bound": "risk",
    "ACCOUNTANTS": "shuffle_amplification",
    "AboveThresholdResult": "sparse_vector",
    "ExperimentResult": "experiment",
    "ResultCache": "cache",
    "PrivacyCheck": "privacy_curves",
    "RNGLike": "random",
    "SweepResult": "experiment",
    "above_threshold": "sparse_vector",
    "as_generator": "random",
    "clear_cache": "cache",
    "clone_pair_delta": "shuffle_amplification",
    "clone_pair_epsilon": "shuffle_amplification",
    "dp_to_zcdp": "gaussian",
    "exact_epsilon": "privacy_curves",
    "experiment_progress": "experiment",
    "get_cache": "cache",
    "exact_privacy_check": "privacy_curves",
    "fmt21_closed_form_epsilon": "shuffle_amplification",
    "gaussian_sigma": "gaussian",
    "gaussian_zcdp_rho": "gaussian",
    "gdp_delta": "gaussian",
    "gdp_epsilon": "gaussian",
    "gdp_tradeoff": "gaussian",
    "hockey_stick": "privacy_curves",
    "mean_confidence_band": "experiment",
    "proportion_band": "experiment",
    "run_experiment": "experiment",
    "set_cache_dir": "cache",
    "shuffle_amplification_epsilon": "shuffle_amplification",
    "shuffle_amplification_epsilon0": "shuffle_amplification",
    "spawn": "random",
    "sweep": "experiment",
    "using_cache": "cache",
    "zcdp_to_dp": "gaussian",
}

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


def __getattr__(name: str):
    """Import ``name``'s submodule on first use and keep the name in this module (PEP 562)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
