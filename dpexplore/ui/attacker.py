"""Intro track, page 2: what ε means to an attacker.

Three panels: the trade-off curves of (ε, δ)-DP and μ-GDP (the best test's misses against its false
alarms); the posterior an attacker can reach from a prior; and the "play the attacker" game, whose
success rate (with its interval, valid when checked after every round) is drawn against the bound every
attacker obeys. The neighbours are replacement neighbours: B is A with one person's answer changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.basics import experiments as X
from dpexplore.basics import theory as T
from dpexplore.basics.audit import audit_release
from dpexplore.basics.game import AttackerGame
from dpexplore.core.gaussian import gaussian_sigma
from dpexplore.core.risk import attacker_success_bound, attacker_view, dp_tradeoff, gdp_tradeoff, posterior_bound

from . import figures as F
from .audit import AuditReport
from .basics import NAMES, pair_audit_report
from .controls import Control
from .dashboard import Dashboard, Panel
from .game import AttackerGameBox

__all__ = ["AttackerDashboard", "game_figure", "posterior_figure", "tradeoff_figure"]

PRIORS = (("1 in 2 (a coin flip)", 0.5), ("1 in 10", 0.1), ("1 in 100", 0.01), ("1 in 1000", 0.001))
COUNT = 30  # the true count of data set A in the game (n = 100 people, 30 % say yes)
SIM_ROUNDS, SIM_TRIALS = 200, 20
DP_COLOR, GDP_COLOR, MECH_COLOR, YOU_COLOR = F.COLORS[1], F.COLORS[0], F.COLORS[2], F.COLORS[6]


def _mu(p: Mapping[str, Any]) -> float:
    """μ of the Gaussian mechanism calibrated to (ε, δ) with Δ = 1 (μ = Δ/σ)."""
    return 1.0 / gaussian_sigma(p["epsilon"], p["delta"], 1.0)


def tradeoff_figure(p: Mapping[str, Any]) -> go.Figure:
    """β (misses) against α (false alarms) of the best test: (ε, δ)-DP, μ-GDP and the chosen mechanism."""
    eps, delta, mech = p["epsilon"], p["delta"], p["mechanism"]
    a = np.linspace(0.0, 1.0, 201)
    fig = F.base_figure("", "false alarms: says “B” when it was A (type I error α)",
                        "misses: says “A” when it was B (type II error β)", height=360)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 20, "b": 45})
    F.add_theory(fig, a, 1 - a, name="guessing at random", kind="exact", color="#999999")
    F.add_theory(fig, a, dp_tradeoff(eps, delta, a), name="(ε, δ)-DP: no attacker can go below this", kind="bound",
                 color=DP_COLOR)
    mu = _mu(p)
    F.add_theory(fig, a, gdp_tradeoff(mu, a), name=f"μ-GDP with μ = {mu:.3g} (the Gaussian mechanism at ε, δ)",
                 kind="exact", color=GDP_COLOR)
    if mech != "gaussian":
        F.add_theory(fig, a, T.mechanism_tradeoff(mech, a, epsilon=eps, delta=delta),
                     name=f"{NAMES[mech]}: its best test", kind="exact", color=MECH_COLOR)
    fig.update_layout(legend={"orientation": "v", "yanchor": "top", "y": 0.99, "xanchor": "right", "x": 0.99,
                              "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}})
    fig.update_xaxes(range=[0, 1], constrain="domain")
    fig.update_yaxes(range=[0, 1])
    return fig


def posterior_figure(p: Mapping[str, Any]) -> go.Figure:
    """The attacker's belief after one output, from their prior, vs ε (pure ε-DP: odds × e^ε)."""
    prior = p["prior"]
    eps_grid = np.geomspace(0.05, 10.0, 80)
    fig = F.base_figure("How sure can the attacker become that the data set is B (your answer is “yes”)?",
                        "ε (log scale)",
                        "attacker's belief after one output", log_x=True, height=360)
    F.add_theory(fig, eps_grid, [posterior_bound(0.5, e) for e in eps_grid],
                 name="starting from 1 in 2: at most", kind="bound", color=F.COLORS[4])
    label = next(lbl for lbl, v in PRIORS if v == prior)
    F.add_theory(fig, eps_grid, [posterior_bound(prior, e) for e in eps_grid],
                 name=f"starting from your prior ({label}): at most", kind="bound", color=F.COLORS[5])
    F.add_theory(fig, [eps_grid[0], eps_grid[-1]], [prior, prior], name="your prior (before the output)",
                 kind="exact", color="#777777")
    e = p["epsilon"]
    post = posterior_bound(prior, e)
    fig.add_vline(x=e, line={"color": "#444", "dash": "dot", "width": 1})
    g = attacker_view(e, p["delta"], mechanism="gaussian")
    F.add_note(fig, f"At ε = {e:.3g}: {prior:.3g} → at most {post:.3g} (odds × e<sup>ε</sup> = ×{math.exp(e):.3g}). "
                    f"From 1 in 2: at most {posterior_bound(0.5, e):.3g}.<br>With δ = {p['delta']:.2g} (the "
                    f"Gaussian mechanism) this fails on outputs whose loss exceeds ε: probability "
                    f"{g.loss_above_epsilon:.2g}, not δ. Except with probability δ: at most "
                    f"{posterior_bound(prior, g.tail_epsilon):.3g}.")
    fig.update_yaxes(range=[0, 1.02])
    return fig


def game_figure(sim, p: Mapping[str, Any], score) -> go.Figure:
    """Success of guessing A or B: the bound, the best attacker (exact and simulated) and the player."""
    mech, delta = p["mechanism"], p["delta"]
    eps_grid = np.asarray(sim.grid, dtype=float)
    fine = np.geomspace(eps_grid[0], eps_grid[-1], 60)
    d_claim = delta if mech == "gaussian" else 0.0
    fig = F.base_figure(f"Play the attacker: {NAMES[mech]} — how often is a guess right?", "ε (log scale)",
                        "fraction of rounds guessed right", log_x=True, height=400)
    F.add_theory(fig, [fine[0], fine[-1]], [0.5, 0.5], name="a coin flip", kind="exact", color="#999999")
    F.add_theory(fig, fine, [attacker_success_bound(e, d_claim) for e in fine],
                 name=f"the bound for every attacker: at most (e^ε + δ)/(e^ε + 1), δ = {d_claim:.2g}", kind="bound",
                 color=DP_COLOR)
    F.add_theory(fig, fine, [T.lr_attacker_success(mech, epsilon=e, delta=delta) for e in fine],
                 name="the best guess for this mechanism", kind="exact", color=MECH_COLOR)
    F.add_measured(fig, eps_grid, sim.mean[0], sim.lower[0], sim.upper[0],
                   name=f"simulated best attacker, {SIM_ROUNDS} rounds", color=MECH_COLOR, trials=sim.values.shape[2])
    if score.rounds:
        fig.add_trace(go.Scatter(x=[p["epsilon"]], y=[score.rate], mode="markers",
                                 marker={"color": YOU_COLOR, "size": 13, "symbol": "star"},
                                 error_y={"type": "data", "symmetric": False, "array": [score.upper - score.rate],
                                          "arrayminus": [score.rate - score.lower], "color": YOU_COLOR},
                                 name=f"you: {score.successes} of {score.rounds} right (95% interval, valid at "
                                      f"every round)"))
    else:
        from dpexplore.basics.game import clopper_pearson_interval

        lo, hi = clopper_pearson_interval(p["rounds"] // 2, p["rounds"], 1.0 - 0.05 / p["rounds"])
        F.add_note(fig, f"Play the {p['rounds']} rounds above: your score appears here as a star with a 95% interval "
                        f"that stays valid when you look after every round (after {p['rounds']} rounds about "
                        f"±{(hi - lo) / 2:.0%} wide).")
    fig.update_yaxes(range=[0.0, 1.05])
    return fig


class AttackerDashboard(Dashboard):
    """Start here, page 2: ε in the attacker's terms (trade-off, advantage, posterior, a game)."""

    title = "Start here 2 · What ε means to an attacker"
    intro = ("An attacker sees one published result and guesses: data set A, or B (the same with <i>your</i> answer "
             "changed)? ε limits how much better than a coin <b>any</b> attacker can guess from it, however clever.")
    paper = ("Kairouz, Oh, Viswanath (2015), <i>The composition theorem for differential privacy</i>; Dong, Roth, "
             "Su (2022), <i>Gaussian differential privacy</i>; Yeom et al. (2018), <i>Privacy risk in machine "
             "learning</i>.")
    controls = [
        Control("epsilon", "ε (privacy budget)", "log", 1.0, 0.05, 10.0, step=0.05),
        Control("delta", "δ", "log", 1e-5, 1e-10, 1e-2, step=0.5),
        Control("prior", "attacker's prior", "choice", 0.01, options=PRIORS),
        Control("mechanism", "game mechanism", "choice", "laplace",
                options=(("Laplace noise", "laplace"), ("Gaussian noise", "gaussian"), ("randomized response", "rr"))),
        Control("rounds", "rounds in a game", "int", 20, 5, 100),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("tradeoff", "1. The best attacker",
              depends_on=("epsilon", "delta", "mechanism"),
              caption="Every guess makes two kinds of mistakes. ε-DP keeps every attacker above the orange dashed "
                      "curve; the grey line is a coin."),
        Panel("posterior", "2. From prior to posterior",
              depends_on=("epsilon", "delta", "prior"),
              caption="Before the output the attacker believes “the data set is B” (your answer is yes) with the "
                      "prior. One ε-DP output multiplies the odds by at most e<sup>ε</sup>."),
        Panel("game", "3. Play the attacker",
              depends_on=("epsilon", "delta", "mechanism", "rounds", "seed", "_game"),
              caption="The page picks A or B by a coin flip and publishes the mechanism's output. Guess! After a "
                      "few rounds your success rate (star) is drawn against the bound no attacker can beat on "
                      "average; its interval stays valid however often you look."),
    ]

    def __init__(self, **kwargs: Any) -> None:
        self._game_key: tuple | None = None
        self.game_box = AttackerGameBox(on_change=lambda: self.refresh("_game"), describe=self._describe)
        super().__init__(**kwargs)
        box = self._panel_boxes["game"]
        box.children = (type(box)([box.children[0], self.game_box]), *box.children[1:])

    def _describe(self, output: float) -> str:
        mech = self._game_key[0] if self._game_key else "laplace"
        if mech == "rr":
            return ("“yes”" if output > 0.5 else "“no”") + "  (your true answer: “no” in A, “yes” in B)"
        return f"count = {COUNT + output:.2f}  (A's true count is {COUNT}, B's is {COUNT + 1})"

    def _game(self, p: Mapping[str, Any]):
        key = (p["mechanism"], p["epsilon"], p["delta"], p["rounds"], p["seed"], self.game_box.games_started)
        if key != self._game_key or self.game_box.game is None:
            self._game_key = key
            self.game_box.set_game(AttackerGame(p["mechanism"], epsilon=p["epsilon"], delta=p["delta"],
                                                rounds=p["rounds"],
                                                rng=np.random.SeedSequence([p["seed"], self.game_box.games_started])))
        return self.game_box.game

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        if panel == "tradeoff":
            return tradeoff_figure(p)
        if panel == "posterior":
            return posterior_figure(p)
        if panel == "game":
            sim = self.experiment("game", "", X.attacker_success, mechanism=p["mechanism"],
                                  epsilons=list(X.EPSILONS), delta=p["delta"], rounds=SIM_ROUNDS, trials=SIM_TRIALS,
                                  rng=p["seed"])
            return game_figure(sim, p, self._game(p).score())
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        e, d = p["epsilon"], p["delta"]
        return ("from dpexplore.core import dp_tradeoff, advantage_bound, gdp_advantage, posterior_bound, "
                "gaussian_sigma\n"
                f"print(advantage_bound({e!r}, {d!r}))            # best TPR − FPR of any attacker\n"
                f"print(gdp_advantage(1 / gaussian_sigma({e!r}, {d!r})))  # the Gaussian mechanism's own\n"
                f"print(posterior_bound({p['prior']!r}, {e!r}))   # belief after one ε-DP output\n"
                "from dpexplore.core.risk import attacker_view\n"
                f"print(attacker_view({e!r}, {d!r}, mechanism='gaussian'))  # P(L > ε), posterior except w.p. δ\n"
                "from dpexplore.basics.game import play_optimal\n"
                f"print(play_optimal({p['mechanism']!r}, epsilon={e!r}, delta={d!r}, rounds=1000, rng={p['seed']}))\n")

    audit_description = (
        "Audits the game's mechanism on its two data sets A and B: ε̂ is a Clopper–Pearson lower bound (95 % "
        "confidence) from a threshold test on the published value (the best attacker's own test). The broken "
        "variant adds half the noise (randomized response: flips as for 2ε) but claims the same ε — against it "
        "the simulated attacker beats the bound.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        return pair_audit_report(audit_release(p["mechanism"], epsilon=p["epsilon"], delta=p["delta"], runs=runs,
                                               broken=broken, rng=rng, progress=progress))


