"""Intro track, page 3: composition — many releases of the same data, and how to count their cost.

Two panels: the total ε of k releases by basic, advanced, zCDP, RDP and PLD accounting (and the exact
value for Gaussian noise) against an audit of the composed mechanism; and budget splitting — a fixed
total budget spread over k answers, and the noise each answer then needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.basics import experiments as X
from dpexplore.basics import theory as T
from dpexplore.basics.experiments import composition_audit

from . import figures as F
from .audit import AuditReport
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["CompositionDashboard", "split_figure", "total_figure"]

ACC_NAMES = {"basic": "basic: add the ε's (Gaussian: each re-read at δ/k)",
             "advanced": "advanced composition (Dwork–Rothblum–Vadhan)",
             "zcdp": "zCDP (Bun–Steinke)", "rdp": "Rényi DP (dp-accounting)",
             "pld": "privacy-loss distribution (dp-accounting)", "exact": "exact (k Gaussians = √k·μ-GDP)"}
ACC_COLORS = {"basic": F.COLORS[1], "advanced": F.COLORS[4], "zcdp": F.COLORS[3], "rdp": F.COLORS[5],
              "pld": F.COLORS[0], "exact": F.COLORS[6]}
AUDIT_RUNS = 20_000
MECH_NAMES = {"laplace": "Laplace", "gaussian": "Gaussian"}


def total_figure(totals: Mapping[str, np.ndarray], audit, p: Mapping[str, Any]) -> go.Figure:
    """Total ε at δ after k releases, per accountant, and the audited lower bound ε̂ (95 % confidence)."""
    ks = np.asarray(audit.grid, dtype=float)
    mech = p["mechanism"]
    fig = F.base_figure("", "number of releases k (log scale)", "total ε (log scale)", log_x=True, log_y=True,
                        height=360)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 20, "b": 45},
                      legend={"orientation": "v", "yanchor": "top", "y": 0.99, "xanchor": "left", "x": 0.01,
                              "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}})
    for acc, vals in totals.items():
        if acc == "exact" and mech != "gaussian":
            continue
        kind = "exact" if acc == "exact" else "bound"
        F.add_theory(fig, ks, vals, name=ACC_NAMES[acc], kind=kind, color=ACC_COLORS[acc])
    lo = np.asarray(audit.values[0, :, 0], dtype=float)
    fig.add_trace(go.Scatter(x=ks, y=np.where(lo > 0, lo, np.nan), mode="markers",
                             marker={"color": "#000000", "size": 10, "symbol": "triangle-up"},
                             name=f"audit: measured lower bound ε̂ ({AUDIT_RUNS:,} runs, 95%)"))
    fig.add_vline(x=p["k"], line={"color": "#444", "dash": "dot", "width": 1})
    j = int(np.argmin(np.abs(ks - p["k"])))
    parts = [f"{a} {totals[a][j]:.3g}" for a in totals if np.isfinite(totals[a][j])]
    head = f"{MECH_NAMES[mech]}, ε = {p['epsilon']:.3g} per release, total δ = {p['delta']:.1g}"
    fig.add_annotation(text=f"{head}<br>k = {int(ks[j])} (nearest the slider): " + ", ".join(parts)
                            + f"<br>{_regime_text(mech, p['epsilon'], p['delta'], int(ks[j]))}"
                            + f"<br>audit: ε̂ ≥ {lo[j]:.3g} at 95 % confidence",
                       xref="paper", yref="paper", x=0.99, y=0.02, xanchor="right", yanchor="bottom", showarrow=False,
                       align="right", font={"size": 12, "color": "#333"}, bgcolor="rgba(255,255,255,0.85)")
    return fig


def split_figure(sds: Mapping[str, np.ndarray], ks, p: Mapping[str, Any]) -> go.Figure:
    """Noise sd of each of k answers when the total budget (ε, δ) is split evenly, per accountant."""
    mech = p["mechanism"]
    fig = F.base_figure(f"Budget splitting: a total ε = {p['epsilon']:.3g} (δ = {p['delta']:.1g}) shared by k "
                        "answers", "number of answers k (log scale)", "noise sd of each answer (log scale)",
                        log_x=True, log_y=True, height=400)
    for acc, vals in sds.items():
        F.add_theory(fig, ks, vals, name=ACC_NAMES[acc], kind="exact" if acc == "exact" else "bound",
                     color=ACC_COLORS[acc], note="per-answer noise it certifies")
    fig.add_vline(x=p["k"], line={"color": "#444", "dash": "dot", "width": 1})
    F.add_note(fig, f"{MECH_NAMES[mech]} noise, Δ = 1. Lower is better: a tighter accountant lets each answer "
                    "use less noise for the same total.")
    return fig


class CompositionDashboard(Dashboard):
    """Start here, page 3: composition of k releases, and splitting a budget."""

    title = "Start here 3 · Many releases: composition"
    intro = ("Each release of the same data leaks a little more. Adding the ε's is safe but pessimistic; better "
             "accounting gives a smaller, still guaranteed, total.")
    paper = ("Dwork, Rothblum, Vadhan (2010), <i>Boosting and differential privacy</i>; Bun &amp; Steinke (2016), "
             "<i>Concentrated differential privacy</i>; Mironov (2017), <i>Rényi DP</i>; Google's "
             "<code>dp_accounting</code> (RDP and PLD accountants).")
    controls = [
        Control("mechanism", "mechanism", "choice", "gaussian",
                options=(("Gaussian noise", "gaussian"), ("Laplace noise", "laplace"))),
        Control("epsilon", "ε (1: each; 2: total)", "log", 1.0, 0.05, 10.0, step=0.05),
        Control("delta", "δ (total)", "log", 1e-5, 1e-10, 1e-2, step=0.5),
        Control("k", "number of releases k", "logint", 10, 1, 100, step=0.1),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("total", "1. The total ε of k releases",
              depends_on=("mechanism", "epsilon", "delta", "k", "seed"),
              caption="Each curve is a guarantee (an upper bound); the black triangles an audit (a lower bound "
                      "at 95 % confidence). The true total lies between, at that confidence."),
        Panel("split", "2. Budget splitting",
              depends_on=("mechanism", "epsilon", "delta", "k"),
              caption="Now ε is a total budget for k answers. The better the accountant, the less noise each "
                      "answer needs."),
    ]

    def _totals(self, p):
        mech, eps, d = p["mechanism"], p["epsilon"], p["delta"]

        def make():
            return {acc: np.array([T.composed_epsilon(mech, acc, epsilon=eps, delta=d, k=int(k)) for k in X.KS])
                    for acc in T.ACCOUNTANTS if not (acc == "exact" and mech != "gaussian")}

        return self.memo(("totals", mech, eps, d), make)

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        mech, eps, d = p["mechanism"], p["epsilon"], p["delta"]
        if panel == "total":
            audit = self.experiment("total", "", composition_audit, mechanism=mech, epsilon=eps, delta=d,
                                    ks=list(X.KS), runs=AUDIT_RUNS, rng=p["seed"])
            return total_figure(self._totals(p), audit, p)
        if panel == "split":
            ks = np.unique(np.geomspace(1, 100, 30).round().astype(int))
            accs = ("basic", "advanced", "zcdp") + (("exact",) if mech == "gaussian" else ())
            sds = self.memo(("split", mech, eps, d), lambda: {
                a: np.array([T.split_noise_sd(mech, a, total_epsilon=eps, delta=d, k=int(k)) for k in ks])
                for a in accs})
            return split_figure(sds, ks, p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        m, e, d, k = p["mechanism"], p["epsilon"], p["delta"], p["k"]
        return ("from dpexplore.basics.theory import composed_epsilon, split_noise_sd, ACCOUNTANTS\n"
                f"for acc in ACCOUNTANTS:\n"
                f"    print(acc, composed_epsilon({m!r}, acc, epsilon={e!r}, delta={d!r}, k={k}),\n"
                f"          split_noise_sd({m!r}, acc, total_epsilon={e!r}, delta={d!r}, k={k}))\n")

    audit_description = (
        "Audits k releases at the current settings: the k outputs on data set A and on B (one answer changed) are "
        "summarised by the best test statistic (their sum for Gaussian noise, the summed privacy loss for Laplace "
        "noise); ε̂ is a Clopper–Pearson lower bound at 95 % confidence. The claim is the tightest guarantee of "
        "panel 1 (PLD; exact for Gaussian). The broken variant adds half the noise to every release.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        mech, eps, d, k = p["mechanism"], p["epsilon"], p["delta"], p["k"]
        # half the noise = the honest mechanism at a larger per-release ε: 2ε (Laplace), the ε of σ/2 (Gaussian)
        used = eps if not broken else (2.0 * eps if mech == "laplace" else _half_noise_eps(eps, d))
        progress(0, runs)
        res = composition_audit(mech, epsilon=used, delta=d, ks=[k], runs=runs, rng=rng)
        progress(runs, runs)
        claimed = T.composed_epsilon(mech, "exact" if mech == "gaussian" else "pld", epsilon=eps, delta=d, k=k)
        exact = T.composed_epsilon(mech, "exact", epsilon=used, delta=d, k=k) if mech == "gaussian" else None
        return AuditReport(mechanism=("BROKEN (noise halved) " if broken else "") + f"{k} {MECH_NAMES[mech]} releases",
                           neighbours="one person's answer no → yes, in all k releases", claimed_epsilon=claimed,
                           delta=d, exact_epsilon=exact, epsilon_lower=float(res.values[0, 0, 0]), confidence=0.95,
                           runs=runs)


def _regime_text(mech: str, eps: float, d: float, k: int) -> str:
    """Advanced composition's two terms at k, and the k where the √k shape gives way to the linear one."""
    from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon

    e1, slack = (eps, d) if mech == "laplace" else (gdp_epsilon(1.0 / gaussian_sigma(eps, d, 1.0), d / (2 * k)), d / 2)
    k_sqrt, k_beat = T.advanced_composition_regimes(e1, slack)
    root, lin = e1 * np.sqrt(2 * k * np.log(1 / slack)), k * e1 * np.expm1(e1)
    beat = "never (ε ≥ ln 2)" if not np.isfinite(k_beat) else f"for k > {k_beat:.3g}"
    per = "" if mech == "laplace" else f" (ε = {e1:.3g}: one release at δ/(2k))"
    return (f"advanced{per} = ε√(2k ln(1/δ′)) + kε(e<sup>ε</sup> − 1) = {root:.3g} + {lin:.3g}: grows like √k for "
            f"k < {k_sqrt:.3g}, like k beyond; beats kε {beat}")


def _half_noise_eps(eps: float, d: float) -> float:
    """The per-release ε at δ of the Gaussian mechanism with half the analytic σ for (ε, δ)."""
    from dpexplore.core.gaussian import gaussian_sigma, gdp_epsilon

    return gdp_epsilon(2.0 / gaussian_sigma(eps, d, 1.0), d)
