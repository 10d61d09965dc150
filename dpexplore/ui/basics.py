"""Intro track, page 1: one counting query released by randomized response, the Laplace mechanism
and the Gaussian mechanism.

Four panels: the output laws on two neighbouring data sets drawn over each other (the picture of DP);
the privacy-loss random variable; the measured error against its closed form; randomized response's
debiased estimate and its interval.
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
from dpexplore.core.randomized_response import flip_probability
from dpexplore.core.risk import loss_tail_bound

from . import figures as F
from .audit import AuditReport
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["CountingQueryDashboard", "error_figure", "loss_figure", "picture_figure", "rr_figure"]

NAMES = {"laplace": "Laplace", "gaussian": "Gaussian", "rr": "randomized response"}
MECH_COLORS = {"laplace": F.COLORS[0], "gaussian": F.COLORS[1], "rr": F.COLORS[2]}
A_COLOR, B_COLOR = F.COLORS[0], F.COLORS[1]
RUNS = 20_000
TRIALS = 200
LEGEND_INSIDE = {"orientation": "v", "yanchor": "top", "y": 0.98, "xanchor": "right", "x": 0.99,
                 "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}}


def _sd_text(mech: str, p: Mapping[str, Any]) -> str:
    if mech == "laplace":
        return f"Laplace scale b = Δ/ε = {p['sensitivity'] / p['epsilon']:.3g}"
    if mech == "gaussian":
        sigma = T.noise_sd("gaussian", epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"])
        return f"analytic Gaussian σ = {sigma:.3g}"
    return f"each answer flipped with probability 1/(e^ε + 1) = {flip_probability(p['epsilon']):.3g}"


def picture_figure(hist, mech: str, p: Mapping[str, Any]) -> go.Figure:
    """The output laws on A (count c) and B (count c + Δ), exact curves and sampled histograms."""
    c = X.true_count(p["n"])
    x = np.asarray(hist.grid, dtype=float)
    what = "number of “yes” answers released" if mech == "rr" else "released count"
    fig = F.base_figure("", what, "probability" if mech == "rr" else "probability density", height=340)
    if mech == "rr":
        lo, hi = int(math.ceil(x[0])), int(math.floor(x[-1]))
        xs = np.arange(lo, hi + 1, dtype=float)
    else:
        xs = np.linspace(x[0], x[-1], 400)
    pa, pb = T.output_law(mech, xs, count=c, n=p["n"], epsilon=p["epsilon"], delta=p["delta"],
                          sensitivity=p["sensitivity"])
    b_count = c + (1 if mech == "rr" else p["sensitivity"])
    for name, y, color in ((f"data set A (true count {c})", pa, A_COLOR),
                           (f"data set B: one person more says yes ({b_count:g})", pb, B_COLOR)):
        F.add_theory(fig, xs, y, name=name, kind="exact", color=color)
    width = float(np.mean(np.diff(x))) if x.size > 1 else 1.0
    for k, (series, color) in enumerate((("A", A_COLOR), ("B", B_COLOR))):
        y = hist.values[k, :, 0]
        if mech == "rr":  # probability per count: the histogram holds the mass of each bin over its counts
            y = y / max(1.0, round(width))
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers", marker={"color": color, "size": 6, "symbol": "circle-open"},
                                 name=f"{series}: {RUNS:,} simulated releases (measured)"))
    ratio = math.exp(p["epsilon"])
    tail = (" everywhere" if mech != "gaussian" else
            " except far out in the tails (there: P<sub>A</sub>(S) ≤ e<sup>ε</sup>·P<sub>B</sub>(S) + δ)")
    F.add_note(fig, f"{NAMES[mech]}, ε = {p['epsilon']:.3g}: the curves differ by at most a factor "
                    f"e<sup>ε</sup> = {ratio:.3g}{tail}.<br>{_sd_text(mech, p)}")
    # the house legend below the plot: inside it, beside the controls' sidebar, it covered B's peak
    fig.update_layout(margin={"l": 60, "r": 20, "t": 20})
    fig.update_yaxes(rangemode="tozero")
    return fig


def loss_figure(tail, mech: str, p: Mapping[str, Any]) -> go.Figure:
    """P(privacy loss > t): exact and measured, with the line t = ε and P(loss > ε) printed beside δ.

    For the Gaussian mechanism the figure also draws what (ε, δ) alone guarantees about the loss:
    P(L > t) ≤ δ/(1 − e^{ε − t}) for t > ε (:func:`dpexplore.core.risk.loss_tail_bound`).
    """
    t = np.asarray(tail.grid, dtype=float)
    fig = F.base_figure(f"{NAMES[mech]}: how much one output can reveal (the privacy loss)",
                        "privacy loss t = ln(p<sub>A</sub>(output) / p<sub>B</sub>(output))",
                        "fraction of outputs with loss above t", height=340)
    exact = T.privacy_loss_survival(mech, t, epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"],
                                    count=X.true_count(p["n"]), n=p["n"])
    F.add_theory(fig, t, exact, name="P(loss > t)", kind="exact", color=F.COLORS[0])
    fig.add_trace(go.Scatter(x=t, y=tail.values[0, :, 0], mode="markers", marker={"color": F.COLORS[0], "size": 5},
                             name=f"{RUNS:,} releases on A (measured)"))
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dash", "width": 1})
    above = float(T.privacy_loss_survival(mech, p["epsilon"], epsilon=p["epsilon"], delta=p["delta"],
                                          sensitivity=p["sensitivity"], count=X.true_count(p["n"]), n=p["n"]))
    d_claim = p["delta"] if mech == "gaussian" else 0.0
    if mech == "gaussian":
        beyond = t[t > p["epsilon"]]
        F.add_theory(fig, beyond, loss_tail_bound(p["epsilon"], d_claim, beyond),
                     name="(ε, δ) alone: P(loss > t) ≤ δ/(1 − e^(ε − t))", kind="bound", color=F.COLORS[3])
        why = (f" = {above / d_claim:.3g}·δ, δ = {d_claim:.2g}<br>δ bounds P<sub>A</sub>(S) − e<sup>ε</sup>·"
               "P<sub>B</sub>(S), not how often the loss exceeds ε")
    else:
        why = f", δ = {d_claim:g}<br>(an ε-DP mechanism: the loss never exceeds ε)"
    fig.add_annotation(text=f"dashed line: t = ε = {p['epsilon']:.3g}<br>P(loss > ε) = {above:.3g}{why}",
                       xref="paper", yref="paper", x=0.99, y=0.45, xanchor="right", yanchor="middle", showarrow=False,
                       align="right", font={"size": 12, "color": "#333"}, bgcolor="rgba(255,255,255,0.85)")
    fig.update_layout(legend=LEGEND_INSIDE)
    fig.update_yaxes(range=[-0.02, 1.05])
    return fig


def error_figure(err, p: Mapping[str, Any]) -> go.Figure:
    """Mean |error| of the released count vs ε, per mechanism, with the closed forms."""
    eps = np.asarray(err.grid, dtype=float)
    fig = F.base_figure(f"How far is the released count from the truth? (n = {p['n']:,} people, Δ = "
                        f"{p['sensitivity']:g})", "ε (log scale)", "typical error |release − truth| (log scale)",
                        log_x=True, log_y=True, height=380)
    fine = np.geomspace(eps[0], eps[-1], 50)
    for k, mech in enumerate(err.series):
        color = MECH_COLORS[mech]
        vals = [T.expected_abs_error(mech, epsilon=e, delta=p["delta"], sensitivity=p["sensitivity"], n=p["n"])
                for e in fine]
        kind = vals[0][1]
        note = {"laplace": "Δ/ε", "gaussian": "σ·√(2/π)", "rr": "normal approx."}[mech]
        F.add_theory(fig, fine, [v[0] for v in vals], name=f"{NAMES[mech]} theory", kind=kind, color=color,
                     note=note)
        F.add_measured(fig, eps, err.mean[k], err.lower[k], err.upper[k], name=NAMES[mech], color=color,
                       trials=err.values.shape[2])
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dot", "width": 1})
    return fig


def rr_figure(est, p: Mapping[str, Any]) -> go.Figure:
    """Randomized response: raw and debiased fraction vs n, the truth and the ±1.96 sd interval."""
    ns = np.asarray(est.grid, dtype=float)
    eps = p["epsilon"]
    mu = flip_probability(eps)
    fig = F.base_figure(f"Randomized response survey at ε = {eps:.3g}: estimating the fraction who say yes",
                        "people asked n (log scale)", "estimated fraction", log_x=True, height=380)
    truth = X.TRUE_FRACTION
    fine = np.geomspace(ns[0], ns[-1], 60)
    sd = np.sqrt(mu * (1 - mu) / fine) / (1 - 2 * mu)
    fig.add_trace(go.Scatter(x=np.concatenate([fine, fine[::-1]]),
                             y=np.concatenate([truth + 1.96 * sd, (truth - 1.96 * sd)[::-1]]), fill="toself",
                             fillcolor="rgba(0,158,115,0.12)", line={"width": 0}, hoverinfo="skip",
                             name="truth ± 1.96 sd of the debiased estimate [exact sd]"))
    F.add_theory(fig, [ns[0], ns[-1]], [truth, truth], name=f"true fraction {truth:g}", kind="exact", color="#000000")
    F.add_theory(fig, [ns[0], ns[-1]], [mu + (1 - 2 * mu) * truth] * 2, name="where the raw answers point",
                 kind="exact", color=F.COLORS[3], note="μ + (1 − 2μ)·truth")
    k_raw, k_deb, k_cov = (list(est.series).index(s) for s in ("raw", "debiased", "covered"))
    F.add_measured(fig, ns, est.mean[k_raw], est.lower[k_raw], est.upper[k_raw], name="raw fraction of yes",
                   color=F.COLORS[3], trials=est.values.shape[2])
    F.add_measured(fig, ns, est.mean[k_deb], est.lower[k_deb], est.upper[k_deb], name="debiased estimate",
                   color=F.COLORS[2], trials=est.values.shape[2])
    one = est.values[k_deb, :, 0]
    fig.add_trace(go.Scatter(x=ns, y=one, mode="markers", marker={"color": F.COLORS[2], "size": 9, "symbol": "x"},
                             name="one survey's debiased estimate"))
    j = int(np.argmin(np.abs(ns - p["n"])))
    cov = float(np.mean(est.values[k_cov, j]))
    F.add_note(fig, f"n = {int(ns[j]):,} (the grid point nearest the slider): a survey's 95% interval covered the "
                    f"truth in {cov:.0%} of {est.values.shape[2]} surveys")
    fig.add_vline(x=p["n"], line={"color": "#444", "dash": "dot", "width": 1})
    fig.update_yaxes(range=[max(-0.6, truth - 0.8), min(1.6, truth + 0.8)])
    return fig


class CountingQueryDashboard(Dashboard):
    """Start here, page 1: randomized response, the Laplace and the Gaussian mechanism on one count."""

    title = "Start here 1 · One count, released privately"
    intro = ("n people, 30 % answer <b>yes</b>. We publish how many said yes — with noise, so that the result "
             "reveals little more about <i>your</i> answer than the world knew without it. Small ε = more noise "
             "= more privacy.")
    paper = ("Dwork, McSherry, Nissim, Smith (2006), <i>Calibrating noise to sensitivity</i>; Warner (1965), "
             "<i>Randomized response</i>; Balle &amp; Wang (2018), analytic Gaussian mechanism.")
    controls = [
        Control("mechanism", "mechanism", "choice", "laplace",
                options=(("Laplace noise", "laplace"), ("Gaussian noise (needs δ)", "gaussian"),
                         ("randomized response", "rr")),
                help="Laplace/Gaussian: noise added to the count; randomized response: each person flips a coin"),
        Control("epsilon", "ε (privacy budget)", "log", 1.0, 0.05, 10.0, step=0.05),
        Control("delta", "δ (Gaussian only)", "log", 1e-5, 1e-10, 1e-2, step=0.5),
        Control("n", "people n", "logint", 100, 10, 10_000, step=0.1),
        Control("sensitivity", "rows per person Δ", "int", 1, 1, 10,
                help="how much one person can change the count (randomized response: always 1)"),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("picture", "1. Two neighbouring data sets",
              depends_on=("mechanism", "epsilon", "delta", "n", "sensitivity", "seed"),
              caption="Blue: what gets published from data set A; orange: from B, one person's answer changed. "
                      "The more they overlap, the less better than a coin any guess “A or B?” can be."),
        Panel("loss", "2. Privacy loss",
              depends_on=("mechanism", "epsilon", "delta", "n", "sensitivity", "seed"),
              caption="For an output you see, the privacy loss is the log of how much more likely it is under A "
                      "than under B. ε-DP means: the loss never goes above ε. The Gaussian's loss does, with the "
                      "probability printed beside δ."),
        Panel("error", "3. Error",
              depends_on=("delta", "n", "sensitivity", "seed"),
              caption="Every ε on the x-axis (the dotted line is the slider). Lines are the formulas, points are "
                      "measured over 200 releases. Doubling Δ doubles the Laplace and Gaussian noise."),
        Panel("rr", "4. Randomized response",
              depends_on=("epsilon", "n", "seed"),
              caption="Raw answers are pulled towards 50 %. The debiased estimate corrects that on average; its "
                      "interval shrinks like 1/√n."),
    ]

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        mech = p["mechanism"]
        common = dict(epsilon=p["epsilon"], delta=p["delta"], sensitivity=p["sensitivity"], n=p["n"], runs=RUNS,
                      rng=p["seed"])
        if panel == "picture":
            return picture_figure(self.experiment("picture", "", X.release_histogram, mechanism=mech, **common),
                                  mech, p)
        if panel == "loss":
            return loss_figure(self.experiment("loss", "", X.privacy_loss_tail, mechanism=mech, **common), mech, p)
        if panel == "error":
            return error_figure(self.experiment("error", "", X.error_vs_epsilon, n=p["n"],
                                                sensitivity=p["sensitivity"], delta=p["delta"], trials=TRIALS,
                                                rng=p["seed"]), p)
        if panel == "rr":
            return rr_figure(self.experiment("rr", "", X.rr_estimate_vs_n, epsilon=p["epsilon"], trials=TRIALS,
                                             rng=p["seed"]), p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        c = X.true_count(p["n"])
        return ("# one release of the count with each mechanism\n"
                "from dpexplore.core import laplace_mechanism, gaussian_mechanism\n"
                "from dpexplore.basics import release_count\n"
                f"print(laplace_mechanism({c}, sensitivity={p['sensitivity']}, epsilon={p['epsilon']!r}, "
                f"rng={p['seed']}))\n"
                f"print(gaussian_mechanism({c}, sensitivity={p['sensitivity']}, epsilon={p['epsilon']!r}, "
                f"delta={p['delta']!r}, rng={p['seed']}))\n"
                f"print(release_count({c}, {p['n']}, mechanism='rr', epsilon={p['epsilon']!r}, rng={p['seed']}))\n")

    audit_description = (
        "Audits the chosen mechanism on the pair of data sets of panel 1 (one person's answer changed): the "
        "published value itself is the test statistic (the best one here), ε̂ is a Clopper–Pearson lower bound "
        "at 95 % confidence. "
        "The broken variant adds half the noise (randomized response: flips as for 2ε) but claims the same ε.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        return pair_audit_report(audit_release(p["mechanism"], epsilon=p["epsilon"], delta=p["delta"],
                                               sensitivity=p["sensitivity"], runs=runs, broken=broken, rng=rng,
                                               progress=progress))


def pair_audit_report(res) -> AuditReport:
    """An :class:`AuditReport` from a :class:`dpexplore.core.audit.PairAudit`."""
    st = res.statistical
    return AuditReport(mechanism=res.mechanism, neighbours=res.neighbours, claimed_epsilon=res.claimed_epsilon,
                       delta=res.delta, exact_epsilon=res.exact_epsilon,
                       epsilon_lower=None if st is None or st.cancelled else st.epsilon_lower,
                       confidence=None if st is None else st.confidence, runs=0 if st is None else st.runs,
                       seconds=0.0 if st is None else st.seconds, cancelled=res.cancelled,
                       test_advantage=None if st is None or st.cancelled else st.advantage)
