"""The simulated panels of the paper-3 dashboard as library functions (one call = one panel's numbers).

A chain is named by plain values (so that a result is a pure function of its parameters, can be
cached and run from the command line): ``chain="credit"``, ``"web"``, ``"traffic"`` (with
``grid_size``) or ``"paste"`` (with ``matrix``, the pasted text). Each trial simulates one sensitive
trajectory and its two private releases (Mechanism 1 and the baseline) from its own spawned stream
(children 0, 1, 2), so :func:`large_error_probability`, :func:`entropy_vs_length` and
:func:`example_trajectories` see the same trajectories for the same seed, and serial, joblib and Dask
runs give the same numbers. The exact pair-chain curves are not Monte Carlo and stay with
:func:`dpexplore.markov.time_profile` / :func:`dpexplore.markov.analyze`.

Examples
--------
>>> r = large_error_probability("credit", epsilon=3.0, rho=2.0, T=50, trials=2, rng=0)
>>> r.series, r.values.shape
(('mechanism', 'baseline'), (2, 41, 2))
"""

from __future__ import annotations

import functools

import numpy as np

from dpexplore.core.experiment import ExperimentResult, check_grid, check_runs, check_trials, run_experiment
from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.validation import check_choice, check_epsilon, check_int, check_positive

from .analysis import empirical_tail, running_entropy, word_entropy
from .chains import MAX_PASTED_STATES, city_grid, credit_migration, parse_matrix, simulate, web_browsing
from .distances import distances
from .mechanisms import baseline_kernel, mechanism_kernel, sample_trajectories

__all__ = [
    "CHAINS",
    "MAX_RUNS",
    "MAX_STEPS",
    "MAX_T",
    "MAX_TRIALS",
    "chain_from_spec",
    "entropy_lengths",
    "entropy_vs_length",
    "example_trajectories",
    "large_error_probability",
]

CHAINS = ("credit", "traffic", "web", "paste")
MAX_T = 100_000
MAX_TRIALS = 10_000
#: most runs (grid values × trials) of one call
MAX_RUNS = 100_000
#: most simulated steps (T × trials) of one call
MAX_STEPS = 50_000_000
ENTROPY_SERIES = ("mechanism running", "baseline running", "sensitive word", "mechanism word", "baseline word")


def chain_from_spec(chain: str = "credit", grid_size: int = 5, matrix: str | None = None):
    """The chain named by ``chain`` (credit ratings, city-grid traffic, web browsing, or a pasted matrix).

    Examples
    --------
    >>> chain_from_spec("traffic", grid_size=3).n
    9
    """
    kind = check_choice(chain, "chain", CHAINS)
    if kind == "credit":
        return credit_migration()
    if kind == "traffic":
        return city_grid(check_int(grid_size, "grid_size", low=2, high=30))
    if kind == "web":
        return web_browsing(20, rng=0)
    if not isinstance(matrix, str):
        raise TypeError(f"matrix must be the pasted matrix text when chain='paste'; got {type(matrix).__name__}")
    return parse_matrix(matrix, max_states=MAX_PASTED_STATES)


def _setup(chain, grid_size, matrix, symmetrize, epsilon, rho, T, trials, points=None):
    """Validated chain, distances, kernels and parameters; ``points(T)`` is the grid size (runs = points × trials)."""
    T = check_int(T, "T", low=2, high=MAX_T)
    trials = check_trials(trials, MAX_TRIALS)
    if points is not None:
        check_runs(points(T), trials, MAX_RUNS)
    if T * trials > MAX_STEPS:
        raise ValueError(f"T*trials must be <= {MAX_STEPS:,} simulated steps; got {T} * {trials}")
    c = chain_from_spec(chain, grid_size, matrix)
    symmetrize = check_choice(symmetrize, "symmetrize", ("sum", "max"))
    epsilon = check_epsilon(epsilon)
    rho = check_positive(rho, "rho")
    d = distances(c, symmetrize=symmetrize)
    mk = mechanism_kernel(c, epsilon=epsilon, rho=rho, d=d)
    bk = baseline_kernel(c, epsilon=epsilon)
    params = dict(chain=chain, grid_size=int(grid_size) if chain == "traffic" else None,
                  matrix=matrix if chain == "paste" else None, symmetrize=symmetrize, epsilon=epsilon, rho=rho, T=T,
                  trials=trials)
    return c, d, mk, bk, params


def _trajectories(rng, chain, mk, bk, T):
    """One trial: sensitive trajectory, Mechanism 1's and the baseline's releases (and their step log-probs)."""
    g_s, g_m, g_b = rng.spawn(3)
    s = simulate(chain, T, size=1, rng=g_s)
    ms, ml = sample_trajectories(mk, s, rng=g_m)
    bs, bl = sample_trajectories(bk, s, rng=g_b)
    return s, ms, ml, bs, bl


def _tail_trial(rng, *, chain, d, mk, bk, T, v):
    s, ms, _, bs, _ = _trajectories(rng, chain, mk, bk, T)
    return np.stack([empirical_tail(d[ms, s], v)[0], empirical_tail(d[bs, s], v)[0]])


def large_error_probability(
    chain: str = "credit", *, epsilon: float, rho: float, T: int = 200, trials: int = 20, grid_size: int = 5,
    matrix: str | None = None, symmetrize: str = "sum", v_grid=None, rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 2 (simulated points): per trajectory, the fraction of the T steps with error d(s'_t, s_t) ≥ v.

    Grid: ``v_grid`` (default 41 thresholds from 0 to the largest distance). Series ``"mechanism"``
    (Mechanism 1 at (ε, ρ)) and ``"baseline"`` (ε per state). Values are fractions; the band is the
    t-band within [0, 1]. Monte Carlo cannot resolve probabilities below 1/(trials·T).

    Examples
    --------
    >>> r = large_error_probability("traffic", grid_size=3, epsilon=3.0, rho=2.0, T=30, trials=3, rng=0)
    >>> bool(r.mean[0, 0] == 1.0)  # every error is >= 0
    True
    """
    v = None if v_grid is None else check_grid(v_grid, "v_grid", low=0.0, max_size=1000)
    c, d, mk, bk, params = _setup(chain, grid_size, matrix, symmetrize, epsilon, rho, T, trials,
                                  points=lambda _: 41 if v is None else len(v))
    if v is None:
        v = check_grid(np.linspace(0.0, float(d.max()), 41), "v_grid", low=0.0, max_size=1000)
    params["v_grid"] = list(v)
    trial = functools.partial(_tail_trial, chain=c, d=d, mk=mk, bk=bk, T=params["T"], v=np.asarray(v))
    return run_experiment(large_error_probability, params, trial, axis="v", grid=v, series=["mechanism", "baseline"],
                          trials=params["trials"], rng=rng, n_jobs=n_jobs, value_range=(0.0, 1.0), per="trial")


def entropy_lengths(T: int) -> np.ndarray:
    """The trajectory lengths of panel 3: about 40 values from 2 to T, geometric.

    Examples
    --------
    >>> entropy_lengths(10).tolist()
    [2, 3, 4, 5, 6, 7, 8, 9, 10]
    """
    return np.unique(np.round(np.geomspace(2, int(T), 40)).astype(int))


def _entropy_trial(rng, *, chain, mk, bk, T):
    s, ms, ml, bs, bl = _trajectories(rng, chain, mk, bk, T)
    idx = entropy_lengths(T) - 1
    rows = [running_entropy(ml)[0, idx], running_entropy(bl)[0, idx]]
    rows += [word_entropy(chain, x)[0, idx - 1] for x in (s, ms, bs)]
    return np.stack(rows)


def entropy_vs_length(
    chain: str = "credit", *, epsilon: float, rho: float, T: int = 200, trials: int = 20, grid_size: int = 5,
    matrix: str | None = None, symmetrize: str = "sum", rng: RNGLike = None, n_jobs: int | None = None,
) -> ExperimentResult:
    """Panel 3: running mechanism entropy Ĥ_T and the released words' sample entropy, vs trajectory length.

    Grid: :func:`entropy_lengths` (T). Series: ``"mechanism running"``, ``"baseline running"``
    (−(1/t) Σ log M(s'_u | ·)) and the sample entropy −(1/t) log P(word) of the ``"sensitive word"``,
    ``"mechanism word"`` and ``"baseline word"`` under the chain (nats per step).

    Examples
    --------
    >>> r = entropy_vs_length("credit", epsilon=3.0, rho=2.0, T=20, trials=2, rng=0)
    >>> r.series[0], r.grid[-1]
    ('mechanism running', 20)
    """
    c, _, mk, bk, params = _setup(chain, grid_size, matrix, symmetrize, epsilon, rho, T, trials,
                                  points=lambda t: len(entropy_lengths(t)))
    trial = functools.partial(_entropy_trial, chain=c, mk=mk, bk=bk, T=params["T"])
    return run_experiment(entropy_vs_length, params, trial, axis="T", grid=entropy_lengths(params["T"]).tolist(),
                          series=ENTROPY_SERIES, trials=params["trials"], rng=rng, n_jobs=n_jobs, per="trial")


def example_trajectories(chain: str = "credit", *, epsilon: float, rho: float, T: int = 200, grid_size: int = 5,
                         matrix: str | None = None, symmetrize: str = "sum", rng: RNGLike = None):
    """Trial 0's sensitive trajectory and its two releases, as drawn in panel 1: ``(s, mechanism, baseline)``.

    The same trajectories as trial 0 of :func:`large_error_probability` and :func:`entropy_vs_length`
    with the same integer ``rng``.

    Examples
    --------
    >>> s, m, b = example_trajectories("credit", epsilon=3.0, rho=2.0, T=10, rng=0)
    >>> s.shape, m.shape
    ((10,), (10,))
    """
    c, _, mk, bk, params = _setup(chain, grid_size, matrix, symmetrize, epsilon, rho, T, 1)
    stream = as_generator(rng).spawn(1)[0]
    s, ms, _, bs, _ = _trajectories(stream, c, mk, bk, params["T"])
    return s[0], ms[0], bs[0]
