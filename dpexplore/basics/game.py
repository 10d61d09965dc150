""""Play the attacker": the page releases one output of a mechanism run on data set A or on its
neighbour B, the player guesses which; after N rounds the success rate is compared with the bound
(1 + advantage)/2 = (e^ε + δ)/(e^ε + 1) that ε-DP (or (ε, δ)-DP) puts on *every* attacker.

A and B are replacement neighbours: B is A with one person's answer changed ("no" → "yes").
The secret (A or B) of each round is a fair coin. :func:`likelihood_ratio_guess` is the best possible
guesser (Neyman–Pearson: guess the data set under which the output is more likely), so its success
rate estimates the best an attacker can do against this mechanism; it never beats the bound beyond
its Clopper–Pearson interval (tests/basics/test_game.py, 20 seeds).

The page shows the player's interval after *every* round, and a player who stops when it looks
good would, with a plain 95 % interval, see an honest mechanism "beaten" in several % of games (each
look is another chance). :meth:`AttackerGame.score` therefore spends the error rate over the game's
N looks (Bonferroni: each look's Clopper–Pearson interval at level 1 − 0.05/N), so the chance that
the lower end ever rises above the true success rate, at any round, is at most 2.5 %
(:func:`sequential_lower_bounds`; tests/basics/test_words.py simulates 2 000 honest games).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpexplore.core.random import RNGLike, as_generator
from dpexplore.core.risk import attacker_success_bound
from dpexplore.core.validation import check_choice, check_int, check_positive, check_real

from .mechanisms import MECHANISMS
from .theory import check_release_args, release_pair

__all__ = ["MAX_ROUNDS", "AttackerGame", "GameScore", "clopper_pearson_interval", "likelihood_ratio_guess",
           "play_optimal", "sequential_lower_bounds"]

#: the most rounds of one game
MAX_ROUNDS = 100_000


def clopper_pearson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a success probability (exact, conservative).

    Examples
    --------
    >>> lo, hi = clopper_pearson_interval(15, 20)
    >>> round(lo, 4), round(hi, 4)
    (0.509, 0.9134)
    """
    from scipy import special  # betaincinv(a, b, q) = beta(a, b).ppf(q) of scipy.stats, without importing scipy.stats

    n = check_int(trials, "trials", low=1, high=10**9)
    k = check_int(successes, "successes", low=0, high=n)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    a = (1.0 - conf) / 2.0
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a))
    hi = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1.0 - a))
    return lo, hi


def likelihood_ratio_guess(mechanism: str, outputs, *, sensitivity: float = 1.0) -> np.ndarray:
    """The best guesses (1 = "B") for outputs of the pair A (value 0) / B (value Δ): B when the output is
    more likely under B. For Laplace and Gaussian noise that is "output above Δ/2"; for one
    randomized-response bit, the bit itself.

    Examples
    --------
    >>> likelihood_ratio_guess("laplace", [-1.0, 0.2, 0.9]).tolist()
    [0, 0, 1]
    """
    mech = check_choice(mechanism, "mechanism", MECHANISMS)
    y = np.asarray(outputs, dtype=float)
    if mech == "rr":
        return (y > 0.5).astype(int)
    return (y > check_positive(sensitivity, "sensitivity") / 2.0).astype(int)


#: the most looks whose lower bounds :func:`sequential_lower_bounds` tabulates at once
MAX_TABLE_ROUNDS = 2000


def sequential_lower_bounds(rounds: int, confidence: float = 0.95) -> np.ndarray:
    """Lower ends of the game's interval at every round: ``table[n, k]`` for k successes in n rounds.

    Each is the lower end of a two-sided Clopper–Pearson interval at level 1 − (1 − confidence)/N
    (N = ``rounds``, the looks one game allows): by the union bound (Bonferroni) over the N looks, the
    probability that ``table[n, S_n]`` exceeds the true success probability at *any* round n ≤ N is at
    most (1 − confidence)/2 — the interval is valid when checked after every round.

    Parameters
    ----------
    rounds : int
        N, 1 ≤ N ≤ :data:`MAX_TABLE_ROUNDS`.
    confidence : float
        The simultaneous (two-sided) level, in (0, 1).

    Returns
    -------
    ndarray, shape (N + 1, N + 1)
        ``table[n, k]`` for 0 ≤ k ≤ n ≤ N (0 where k = 0 or n = 0; NaN where k > n).

    References
    ----------
    Clopper, Pearson (1934), *Biometrika* 26; the Bonferroni union bound over the looks, as in
    α-spending for repeated significance tests (Armitage, McPherson & Rowe 1969, *JRSS A* 132).

    Examples
    --------
    >>> t = sequential_lower_bounds(20)
    >>> round(float(t[20, 20]), 4), round(clopper_pearson_interval(20, 20, 1 - 0.05 / 20)[0], 4)
    (0.7159, 0.7159)
    """
    from scipy import special  # betaincinv(a, b, q) = beta(a, b).ppf(q) of scipy.stats, without importing scipy.stats

    n_max = check_int(rounds, "rounds", low=1, high=MAX_TABLE_ROUNDS)
    conf = check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    a = (1.0 - conf) / (2.0 * n_max)
    n = np.arange(n_max + 1)[:, None]
    k = np.arange(n_max + 1)[None, :]
    with np.errstate(invalid="ignore"):
        lo = special.betaincinv(np.maximum(k, 1), np.maximum(n - k + 1, 1), a)
    lo = np.where(k == 0, 0.0, lo)
    return np.where(k <= n, lo, np.nan)


@dataclass(frozen=True)
class GameScore:
    """Where a player stands: ``successes`` of ``rounds``, the interval, and the bound.

    The interval is Clopper–Pearson at level 1 − (1 − 0.95)/``looks``: with ``looks`` = the game's N
    rounds it stays valid (95 % for both ends together, 97.5 % for the lower end) when checked after
    every round; ``looks`` = 1 for a score looked at once (:func:`play_optimal`).
    """

    successes: int
    rounds: int
    lower: float
    upper: float
    bound: float
    coin: float = 0.5
    looks: int = 1

    @property
    def rate(self) -> float:
        return self.successes / self.rounds if self.rounds else math.nan

    @property
    def beats_bound(self) -> bool:
        """The interval lies above the bound: strong evidence that the mechanism is less private than
        claimed (an honest one shows this in at most 2.5 % of games, however often the score is checked)."""
        return self.rounds > 0 and self.lower > self.bound


def _score(successes: int, rounds: int, bound: float, confidence: float = 0.95, looks: int = 1) -> GameScore:
    if rounds == 0:
        return GameScore(0, 0, 0.0, 1.0, bound, looks=looks)
    lo, hi = clopper_pearson_interval(successes, rounds, 1.0 - (1.0 - confidence) / looks)
    return GameScore(successes, rounds, lo, hi, bound, looks=looks)


def play_optimal(mechanism: str, *, epsilon: float, delta: float = 1e-5, sensitivity: float = 1.0, rounds: int = 1000,
                 confidence: float = 0.95, broken: bool = False, rng: RNGLike = None) -> GameScore:
    """``rounds`` rounds played by :func:`likelihood_ratio_guess` (``broken``: against the mechanism with
    half the noise, or randomized response at 2ε, while the bound stays that of ε).

    Examples
    --------
    >>> s = play_optimal("rr", epsilon=1.0, rounds=2000, rng=0)
    >>> s.lower <= s.bound
    True
    """
    mech, eps, d, sens = check_release_args(mechanism, epsilon, delta, sensitivity)
    rounds = check_int(rounds, "rounds", low=1, high=MAX_ROUNDS)
    gen = as_generator(rng)
    secret = (gen.random(rounds) < 0.5).astype(int)
    out = release_pair(mech, secret, epsilon=eps, delta=d, sensitivity=sens, broken=broken, rng=gen)
    wins = int(np.sum(likelihood_ratio_guess(mech, out, sensitivity=sens) == secret))
    return _score(wins, rounds, attacker_success_bound(eps, d if mech == "gaussian" else 0.0), confidence)


@dataclass
class AttackerGame:
    """One player's game (mutable: it records the guesses).

    Parameters
    ----------
    mechanism : {"laplace", "gaussian", "rr"}
    epsilon, delta, sensitivity : float
    rounds : int
        Rounds in the game, 1 ≤ N ≤ :data:`MAX_ROUNDS`.
    rng : Generator, int or None

    Examples
    --------
    >>> g = AttackerGame("laplace", epsilon=1.0, rounds=3, rng=0)
    >>> out = g.output()
    >>> g.guess("B") in (True, False), g.score().rounds
    (True, 1)
    """

    mechanism: str
    epsilon: float
    delta: float = 1e-5
    sensitivity: float = 1.0
    rounds: int = 20
    rng: RNGLike = None
    _secrets: np.ndarray = field(init=False, repr=False)
    _outputs: np.ndarray = field(init=False, repr=False)
    guesses: list = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.mechanism, self.epsilon, self.delta, self.sensitivity = check_release_args(
            self.mechanism, self.epsilon, self.delta, self.sensitivity)
        self.rounds = check_int(self.rounds, "rounds", low=1, high=MAX_ROUNDS)
        gen = as_generator(self.rng)
        self._secrets = (gen.random(self.rounds) < 0.5).astype(int)
        self._outputs = release_pair(self.mechanism, self._secrets, epsilon=self.epsilon, delta=self.delta,
                                     sensitivity=self.sensitivity, rng=gen)

    @property
    def played(self) -> int:
        return len(self.guesses)

    @property
    def finished(self) -> bool:
        return self.played >= self.rounds

    def output(self) -> float:
        """The current round's released output (what the player sees)."""
        if self.finished:
            raise ValueError(f"the game is over: all {self.rounds} rounds were played")
        return float(self._outputs[self.played])

    def guess(self, choice: str) -> bool:
        """Record the guess ``"A"`` or ``"B"`` for the current round; True if right."""
        c = check_choice(choice, "choice", ("A", "B"))
        if self.finished:
            raise ValueError(f"the game is over: all {self.rounds} rounds were played")
        right = (c == "B") == bool(self._secrets[self.played])
        self.guesses.append(bool(right))
        return right

    def last_secret(self) -> str:
        """The data set of the round just guessed ("A" or "B")."""
        if not self.guesses:
            raise ValueError("no round was guessed yet")
        return "B" if self._secrets[self.played - 1] else "A"

    def score(self) -> GameScore:
        """The score so far, with the interval that stays valid when checked after each of the N rounds."""
        bound = attacker_success_bound(self.epsilon, self.delta if self.mechanism == "gaussian" else 0.0)
        return _score(int(sum(self.guesses)), self.played, bound, looks=self.rounds)


