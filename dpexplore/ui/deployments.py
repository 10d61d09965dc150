"""Course page "Real deployments": a 2020-Census-style TopDown mini-lab and an ε registry in attacker's terms.

Panels: the bias post-processing adds by true block size (measured, with the raw measurements' zero bias
and the clipping-alone reference); the error at each level (released vs raw, with the raw error's exact
value); ρ → (ε, δ) both ways, with the Census's published points; the registry of documented deployments
read through :mod:`dpexplore.core.risk` after k periods (composition) or for a group of k.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.core.discrete_gaussian import zcdp_epsilon
from dpexplore.core.gaussian import zcdp_to_dp
from dpexplore.deployments import experiments as X
from dpexplore.deployments.audit import audit_topdown
from dpexplore.deployments.data import DEFAULT_SEED
from dpexplore.deployments.metrics import LEVELS, SIZE_BINS, bin_labels
from dpexplore.deployments.registry import load_registry, translate
from dpexplore.deployments.theory import clipping_bias_reference, raw_rmse
from dpexplore.deployments.topdown import DEFAULT_DELTA, level_rhos

from . import figures as F
from .audit import AuditReport
from .basics import pair_audit_report
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["BIAS_SENTENCE", "DeploymentsDashboard", "bias_figure", "level_figure", "privacy_figure",
           "registry_figure"]

TRIALS = 50
LEGEND_INSIDE = {"orientation": "v", "yanchor": "top", "y": 0.98, "xanchor": "right", "x": 0.99,
                 "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}}
_PB = X.PAGE_BIAS
#: the page's sentence about the bias (numbers from experiments.PAGE_BIAS, recomputed by tests/deployments)
BIAS_SENTENCE = (
    f"At ρ = {_PB['rho']:g} split evenly ({_PB['trials']} noise draws, seeds 0–9): an empty block comes out with "
    f"+{_PB['empty'][0]:.1f} to +{_PB['empty'][1]:.1f} people on average, a block of 1–2 people with "
    f"+{_PB['one_or_two'][0]:.1f} to +{_PB['one_or_two'][1]:.1f}, and blocks of 11 or more lose "
    f"{-_PB['eleven_plus'][1]:.1f} to {-_PB['eleven_plus'][0]:.1f} each: small areas are pushed up, large ones "
    "down.")


def bias_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Mean (released − true) by true block size: post-processed, raw, and the clipping-alone reference."""
    x = np.arange(len(SIZE_BINS), dtype=float)
    _, rb = level_rhos(p["rho"], p["block_share"])
    fig = F.base_figure("", "true block population", "released − true (people, mean)", height=360)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    fig.add_hline(y=0, line={"color": "#888", "width": 1})
    F.add_theory(fig, x, np.zeros(x.size), name="raw measurement: mean 0", kind="exact", color=F.COLORS[0])
    F.add_measured(fig, x, res.mean[1], res.lower[1], res.upper[1], name="raw measurement", color=F.COLORS[0],
                   trials=res.trials)
    ref = clipping_bias_reference(rb)
    fig.add_trace(go.Scatter(x=[0.0], y=[ref], mode="markers", marker={"symbol": "star", "size": 14, "color": "#000"},
                             name="empty block, clipping at 0 alone: E[max(0, noise)] [reference, not a bound]"))
    F.add_measured(fig, x, res.mean[0], res.lower[0], res.upper[0], name="after post-processing", color=F.COLORS[1],
                   trials=res.trials, headline=True)
    fig.update_xaxes(tickmode="array", tickvals=list(x), ticktext=list(bin_labels()))
    top = float(np.nanmax([np.nanmax(res.upper[0]), ref]))
    low = float(np.nanmin([np.nanmin(res.lower[0]), np.nanmin(res.lower[1])]))
    fig.update_yaxes(range=[min(low, -0.5) * 1.2, top * 1.6 + 0.2])
    F.add_note(fig, f"ρ = {p['rho']:.3g} in all; blocks get ρ = {rb:.3g} (noise σ² = {1 / (2 * rb):.3g}). "
                    "Counts cannot be negative, so the fit pushes empty and tiny blocks up; the county total is "
                    "fixed, so the people added there are taken from the large blocks.")
    return fig


def level_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """RMSE by level, released vs raw, with the raw error's exact value at the measured levels."""
    x = np.arange(len(LEVELS), dtype=float)
    rc, rb = level_rhos(p["rho"], p["block_share"])
    fig = F.base_figure("", "geographic level", "root mean squared error (people)", height=340)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    F.add_theory(fig, [2.0, 3.0], [raw_rmse(rc), raw_rmse(rb)], name="raw measurement: √Var of the discrete "
                 "Gaussian", kind="exact", color=F.COLORS[0])
    F.add_measured(fig, x, res.mean[1], res.lower[1], res.upper[1], name="raw (states, nation: sums of counties)",
                   color=F.COLORS[0], trials=res.trials)
    F.add_measured(fig, x, res.mean[0], res.lower[0], res.upper[0], name="after post-processing", color=F.COLORS[1],
                   trials=res.trials, headline=True)
    fig.update_xaxes(tickmode="array", tickvals=list(x), ticktext=list(LEVELS))
    F.add_note(fig, "Nation and state totals are invariants: released exactly (error 0), and outside the privacy "
                    f"accounting. County ρ = {rc:.3g}, block ρ = {rb:.3g}.")
    return fig


@functools.lru_cache(maxsize=1)
def _conversion_curves() -> tuple[np.ndarray, tuple[float, ...], tuple[float, ...]]:
    """(ρ grid, simple ε, tight ε) at δ = 10⁻¹⁰: the same for every slider position (computed once)."""
    rhos = np.geomspace(0.01, 10.0, 50)
    return (rhos, tuple(zcdp_to_dp(r, DEFAULT_DELTA) for r in rhos),
            tuple(zcdp_epsilon(r, DEFAULT_DELTA) for r in rhos))


def privacy_figure(p: Mapping[str, Any]) -> go.Figure:
    """ε vs ρ at δ = 10⁻¹⁰: the tight conversion and the simple one, the slider's ρ and the Census's points."""
    rhos, simple, tight = _conversion_curves()
    fig = F.base_figure("", "ρ (zCDP budget, log scale)", "ε at δ = 10⁻¹⁰ (log scale)", log_x=True, log_y=True,
                        height=320)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    F.add_theory(fig, rhos, simple, name="simple: ρ + 2√(ρ ln 1/δ)",
                 kind="bound", color=F.COLORS[0], note="Bun & Steinke 2016")
    F.add_theory(fig, rhos, tight, name="tight conversion", kind="bound",
                 color=F.COLORS[1], note="Canonne, Kamath & Steinke 2020, Cor. 13", headline=True)
    census = [r for r in load_registry() if r.key.startswith("census2020") and r.rho is not None]
    fig.add_trace(go.Scatter(x=[r.rho for r in census], y=[r.epsilon for r in census], mode="markers+text",
                             text=["Census persons", "Census units"][:len(census)], textposition="top left",
                             marker={"symbol": "square", "size": 10, "color": "#000"},
                             name="2020 Census, as published (Abowd et al. 2022)"))
    e = zcdp_epsilon(p["rho"], DEFAULT_DELTA)
    fig.add_trace(go.Scatter(x=[p["rho"]], y=[e], mode="markers", marker={"symbol": "diamond", "size": 12,
                             "color": F.COLORS[2]}, name=f"this lab: ρ = {p['rho']:.3g} → ε = {e:.3g}"))
    F.add_note(fig, "Both curves are upper bounds on ε; the tight one is never above the simple one.", y=0.98)
    return fig


def registry_figure(p: Mapping[str, Any]) -> go.Figure:
    """The registry after k-fold use, in an attacker's terms (a table)."""
    rows = load_registry()
    k, mode, prior = int(p["k"]), p["mode"], float(p["prior"])
    cells: list[list[str]] = [[] for _ in range(7)]
    for r in rows:
        t = translate(r, k=k, mode=mode, prior=prior)
        cells[0].append(html.escape(r.name) + ("<br><i>figure flagged: check the source</i>" if r.flag and
                                               r.epsilon is not None else ""))
        cells[1].append(html.escape(r.privacy_unit))
        cells[2].append(html.escape(r.time_horizon))
        if t is None:
            cells[3].append("none stated here: " + html.escape(r.epsilon_reason or ""))
            cells[4].append("—")
            cells[5].append("—")
        else:
            cells[3].append(f"{r.epsilon:.3g} → {t['epsilon']:.3g}" + (f"<br>δ {t['delta']:.1e}" if t["delta"] else ""))
            cells[4].append(f"{100 * t['advantage']:.1f} %")
            cells[5].append(f"{100 * t['posterior']:.1f} %")
        cells[6].append(html.escape(r.source["citation"]) + "<br>" + html.escape(r.source["url"]))
    what = "periods (basic composition)" if mode == "time" else "people in a group (group privacy)"
    head = ["deployment", "privacy unit", "time horizon", f"ε (×{k}: at most)", "advantage at most",
            f"posterior at most, from {100 * prior:g} %", "source"]
    fig = go.Figure(go.Table(columnwidth=[150, 150, 150, 90, 80, 90, 200],
                             header={"values": head, "align": "left", "font": {"size": 12},
                                     "fill": {"color": "#e8eef5"}},
                             cells={"values": cells, "align": "left", "font": {"size": 12}, "height": 28}))
    fig.update_layout(height=760, margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      title={"text": f"k = {k} {what}: every ε is an upper bound; the posterior sets δ aside",
                             "x": 0.01, "font": {"size": 13}})
    return fig


class DeploymentsDashboard(Dashboard):
    """Course, week 9: real deployments — the 2020 Census TopDown lab and an ε registry."""

    title = "Course · Real deployments: the 2020 Census TopDown lab and an ε registry"
    intro = ("A toy country (4 states × 5 counties × 10 blocks, <b>generated from seed "
             f"{DEFAULT_SEED}</b>, not real data) is released the way the 2020 US Census was: discrete-Gaussian "
             "noise on county and block counts under a ρ budget, then made non-negative, whole and consistent, "
             "with the state totals exact. " + BIAS_SENTENCE)
    paper = ("Abowd et al. (2022), <i>The 2020 Census Disclosure Avoidance System TopDown Algorithm</i>, HDSR; "
             "Canonne, Kamath &amp; Steinke (2020), <i>The Discrete Gaussian for Differential Privacy</i>; "
             "registry sources in the table (Apple 2017; Erlingsson et al. 2014; Messing et al. 2020; Ding et al. "
             "2017).")
    controls = [
        Control("rho", "ρ (zCDP budget of the lab)", "log", 0.1, 0.01, 10.0, step=0.05),
        Control("block_share", "share of ρ for blocks", "float", 0.5, 0.05, 0.95, step=0.05,
                help="the rest goes to the counties; the nation and state totals are exact (invariants)"),
        Control("k", "registry: k periods or people", "int", 1, 1, 365,
                help="k-fold use: k periods (basic composition) or a group of k people (group privacy)"),
        Control("mode", "registry: k counts", "choice", "time",
                options=(("periods (time horizon)", "time"), ("people (group privacy)", "group"))),
        Control("prior", "attacker's prior belief", "log", 0.01, 0.001, 0.5, step=0.05),
        Control("seed", "seed", "int", 0, 0, 9999, shown_if=("rho", "url-only"),
                help="set from the URL (?seed=3): not shown, so the first screen keeps at most six controls"),
    ]
    panels = [
        Panel("bias", "1. The bias post-processing adds, by true block size",
              depends_on=("rho", "block_share", "seed"),
              caption="Points: the mean over 50 noise draws of (released − true) for the blocks of each size, with "
                      "its 95 % band. The raw measurements are unbiased; the release is not."),
        Panel("levels", "2. Error at each level", depends_on=("rho", "block_share", "seed"),
              caption="Root mean squared error over the areas of each level: raw measurements vs the release."),
        Panel("privacy", "3. From ρ to (ε, δ)", depends_on=("rho",),
              caption="The Bureau states ρ; ε at δ = 10⁻¹⁰ is what the tight conversion gives."),
        Panel("registry", "4. The ε registry, in an attacker's terms", depends_on=("k", "mode", "prior"),
              caption="Documented deployments with their privacy unit, time horizon and source. Advantage: how much "
                      "better than a coin an attacker can tell 'in' from 'out' (at most); posterior: how sure one "
                      "becomes from the prior (at most)."),
    ]
    no_headline = {"registry": "it is a table of deployments"}

    def _show_if(self, ctl: Control) -> None:
        if ctl.name == "seed":  # a URL parameter only (?seed=3)
            self._visible["seed"] = lambda: False
            self._show_controls()
            return None
        return super()._show_if(ctl)

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        kw = dict(rho=p["rho"], block_share=p["block_share"], trials=TRIALS, rng=p["seed"])
        if panel == "bias":
            return bias_figure(self.experiment("bias", "", X.bias_by_block_size, **kw), p)
        if panel == "levels":
            return level_figure(self.experiment("levels", "", X.error_by_level, **kw), p)
        if panel == "privacy":
            return privacy_figure(p)
        if panel == "registry":
            return registry_figure(p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        return ("from dpexplore.deployments import topdown, toy_geography\n"
                "from dpexplore.deployments.registry import load_registry, translate\n"
                f"g = toy_geography(seed={DEFAULT_SEED})\n"
                f"r = topdown(g, rho={p['rho']!r}, block_share={p['block_share']!r}, rng={p['seed']})\n"
                "print(r.epsilon, (r.blocks - g.blocks)[g.blocks == 0].mean())\n"
                f"for row in load_registry():\n"
                f"    print(row.name, translate(row, k={int(p['k'])}, mode={p['mode']!r}, prior={p['prior']!r}))\n")

    audit_description = (
        "Audits the lab's measurements (county and block counts) on the pair 'one person added to one block': the "
        "claimed ε (tight conversion of ρ at δ = 10⁻¹⁰), the pair's exact ε from the two discrete-Gaussian laws, and "
        "ε̂ from runs scored by the exact likelihood ratio (Clopper–Pearson, 95 %). The exact state totals are "
        "outside the claim, as in the Bureau's accounting: on this pair they alone would tell the two data sets "
        "apart. Broken variant: the block counts are also declared an invariant (published exactly) while the "
        "same ρ is claimed.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        rho = max(float(p["rho"]), 0.01)
        return pair_audit_report(audit_topdown(rho=rho, block_share=p["block_share"], broken=broken, runs=runs,
                                               rng=rng, progress=progress))
