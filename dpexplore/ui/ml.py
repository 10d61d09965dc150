"""Course page "Private machine learning": DP-SGD on a real data set, its accounting, and an audit.

Three panels: test accuracy against ε (DP-SGD over seeds, with the non-private line); ε against the number of
steps by four accountants (what subsampling buys); the per-example gradient norms of one run, before and after
clipping. The Audit panel trains on a small data set with a gradient canary many times (white box) and
compares the measured ε̂ with the claim; the broken variant skips clipping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.ml import experiments as X
from dpexplore.ml.accounting import dpsgd_epsilon
from dpexplore.ml.audit import AUDIT_N, CANARY_SCALE, audit_dpsgd
from dpexplore.ml.data import DATA_LICENSE

from . import figures as F
from .audit import AuditReport
from .basics import pair_audit_report
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["PrivateMLDashboard", "accuracy_figure", "accounting_figure", "norms_figure"]

DELTA = 1e-5
TRIALS = 10
AUDIT_STEPS = 20
ACC_NAMES = {"pld": "PLD accountant (dp-accounting)", "rdp": "Rényi DP accountant (dp-accounting)",
             "none": "no amplification (every example in every step)", "basic": "basic composition of T steps"}
ACC_COLORS = {"pld": F.COLORS[0], "rdp": F.COLORS[5], "none": F.COLORS[1], "basic": F.COLORS[4]}
LEGEND_INSIDE = {"orientation": "v", "yanchor": "bottom", "y": 0.02, "xanchor": "right", "x": 0.99,
                 "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}}


def _eps(p: Mapping[str, Any]) -> float:
    return dpsgd_epsilon(sampling_rate=p["sampling_rate"], noise_multiplier=p["noise_multiplier"], steps=p["steps"],
                         delta=DELTA)


def accuracy_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Test accuracy vs ε (log x): DP-SGD mean and 95 % band over seeds at each σ of the grid, plain SGD's line."""
    eps = np.asarray(res.extras["epsilon"], dtype=float)
    fig = F.base_figure("", "ε at δ = 10⁻⁵ (PLD accountant; log scale)", "test accuracy (114 held-out tumours)",
                        log_x=True, height=340)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 20, "b": 45}, legend={**LEGEND_INSIDE, "y": 0.3})
    k = list(res.series).index("non_private")
    m, lo, hi = res.mean[k][0], res.lower[k][0], res.upper[k][0]
    xs = [float(eps.min()) / 1.3, float(eps.max()) * 1.3]
    fig.add_trace(go.Scatter(x=xs + xs[::-1], y=[hi, hi, lo, lo], fill="toself", fillcolor="rgba(213,94,0,0.12)",
                             line={"width": 0}, hoverinfo="skip", showlegend=False, name="non-private band"))
    fig.add_trace(go.Scatter(x=xs, y=[m, m], mode="lines", line={"color": F.COLORS[1], "width": 2, "dash": "dash"},
                             name="non-private SGD, the ε → ∞ limit (measured, same seeds)"))
    j = list(res.series).index("dp_sgd")
    F.add_measured(fig, eps, res.mean[j], res.lower[j], res.upper[j], name="DP-SGD", color=F.COLORS[0],
                   trials=res.trials, headline=True)
    e = _eps(p)
    fig.add_vline(x=e, line={"color": "#444", "dash": "dot", "width": 1})
    fig.add_annotation(text=f"dotted line: the slider's σ = {p['noise_multiplier']:.3g} → ε = {e:.3g};<br>one point "
                            f"per σ in {', '.join(f'{s:g}' for s in res.grid)}; {res.trials} seeds each",
                       xref="paper", yref="paper", x=0.01, y=0.02, xanchor="left", yanchor="bottom", showarrow=False,
                       align="left", font={"size": 12, "color": "#333"}, bgcolor="rgba(255,255,255,0.85)")
    fig.update_yaxes(range=[0.5, 1.0])
    return fig


def accounting_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """ε after T steps (log-log) by the PLD and RDP accountants, without amplification, and by basic composition."""
    ts = np.asarray(res.grid, dtype=float)
    fig = F.base_figure("", "training steps T (log scale)", "ε at δ = 10⁻⁵ (log scale)", log_x=True, log_y=True,
                        height=360)
    fig.update_layout(legend={**LEGEND_INSIDE, "yanchor": "top", "y": 0.99, "xanchor": "left", "x": 0.01})
    for i, acc in enumerate(res.series):
        F.add_theory(fig, ts, res.values[i, :, 0], name=ACC_NAMES[acc], kind="bound", color=ACC_COLORS[acc],
                     note="exact for that composition" if acc == "none" else "")
    fig.add_vline(x=p["steps"], line={"color": "#444", "dash": "dot", "width": 1})
    j = int(np.argmin(np.abs(ts - p["steps"])))
    parts = [f"{a} {res.values[i, j, 0]:.3g}" for i, a in enumerate(res.series)]
    fig.add_annotation(text=f"q = {p['sampling_rate']:.3g}, σ = {p['noise_multiplier']:.3g}, T = {int(ts[j])}:<br>"
                            + ", ".join(parts), xref="paper", yref="paper", x=0.99, y=0.02, xanchor="right",
                       yanchor="bottom", showarrow=False, align="right", font={"size": 12, "color": "#333"},
                       bgcolor="rgba(255,255,255,0.85)")
    return fig


def norms_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Histogram of one run's per-example gradient norms before and after clipping, with the clip norm C."""
    x = np.asarray(res.grid, dtype=float)
    width = float(x[1] - x[0]) if x.size > 1 else 1.0
    fig = F.base_figure("", "per-example gradient norm ‖g‖ (last bar: everything beyond)",
                        "fraction of per-example gradients", height=340)
    fig.update_layout(barmode="overlay", legend={**LEGEND_INSIDE, "yanchor": "top", "y": 0.99})
    for k, (name, color) in enumerate((("before clipping", F.COLORS[1]), ("after clipping (sent on)", F.COLORS[0]))):
        fig.add_trace(go.Bar(x=x, y=res.values[k, :, 0], width=width, name=f"{name} (measured, one run, seed "
                             f"{p['seed']})", marker={"color": color}, opacity=0.6))
    fig.add_vline(x=p["clip_norm"], line={"color": "#000", "dash": "dash", "width": 2})
    ex = {k: v[0] for k, v in res.extras.items()}
    fig.add_annotation(text=f"dashed line: clip norm C = {p['clip_norm']:.3g};<br>clipping shortened "
                            f"{ex['clipped_fraction']:.0%} of the gradients;<br>median norm {ex['median_norm']:.3g}; "
                            f"this run: test accuracy<br>{ex['test_accuracy']:.1%} at ε = {ex['epsilon']:.3g}",
                       xref="paper", yref="paper", x=0.99, y=0.6, xanchor="right", yanchor="top", showarrow=False,
                       align="right", font={"size": 12, "color": "#333"}, bgcolor="rgba(255,255,255,0.85)")
    return fig


class PrivateMLDashboard(Dashboard):
    """Course page: private machine learning with DP-SGD (Abadi et al. 2016)."""

    title = "Private machine learning · DP-SGD"
    intro = ("We train a classifier that tells benign from malignant breast tumours — privately. Each step looks "
             "at a random batch, <b>clips</b> every example's gradient to length C (so no one example can push "
             "hard), and adds Gaussian <b>noise</b> of size σ·C. More noise σ = smaller ε = more privacy.")
    paper = ("Abadi et al. (2016), <i>Deep learning with differential privacy</i>; Mironov, Talwar &amp; Zhang "
             "(2019), <i>Rényi DP of the sampled Gaussian mechanism</i>; Google's <code>dp_accounting</code>; "
             "Nasr et al. (2021, 2023) on auditing DP-SGD. Data: Breast Cancer Wisconsin (Diagnostic), Wolberg, "
             f"Street &amp; Mangasarian, UCI ML Repository, {DATA_LICENSE}.")
    controls = [
        Control("noise_multiplier", "noise σ (noise sd / C)", "log", 1.0, 0.5, 50.0, step=0.05,
                help="more noise: smaller ε, more privacy, usually lower accuracy"),
        Control("clip_norm", "clip norm C", "log", 1.0, 0.01, 10.0, step=0.05,
                help="every example's gradient is shortened to length at most C"),
        Control("sampling_rate", "sampling rate q", "log", 0.05, 0.005, 1.0, step=0.05,
                help="each example joins a step's batch with probability q"),
        Control("steps", "steps T", "logint", 200, 10, 2000, step=0.05),
        Control("lr", "learning rate η", "log", 0.5, 0.01, 5.0, step=0.05),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("accuracy", "1. Accuracy against privacy",
              depends_on=("noise_multiplier", "clip_norm", "sampling_rate", "steps", "lr", "seed"),
              caption="Thick line: DP-SGD, one point per noise level, test accuracy averaged over 10 seeds (band: "
                      "95% CI). Orange dashes: the same training without privacy. There is no formula for accuracy: "
                      "the non-private line is the limit ε → ∞."),
        Panel("accounting", "2. What subsampling buys: ε after T steps",
              depends_on=("noise_multiplier", "sampling_rate", "steps"),
              caption="Four guarantees (upper bounds) for the same training. Sampling a random batch hides whether "
                      "you were in it: compare with 'no amplification'. PLD is the tightest of them."),
        Panel("norms", "3. Clipping: gradient norms before and after",
              depends_on=("noise_multiplier", "clip_norm", "sampling_rate", "steps", "lr", "seed"),
              caption="Every example's gradient in every step of one run. Clipping caps them at C; small C loses "
                      "signal, large C needs more noise (the noise is σ·C)."),
    ]

    def _common(self, p):
        return dict(steps=p["steps"], sampling_rate=p["sampling_rate"], clip_norm=p["clip_norm"], lr=p["lr"],
                    delta=DELTA)

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        if panel == "accuracy":
            res = self.experiment("accuracy", "", X.accuracy_vs_noise, noise_multipliers=list(X.NOISE_MULTIPLIERS),
                                  trials=TRIALS, rng=p["seed"], **self._common(p))
            return accuracy_figure(res, p)
        if panel == "accounting":
            steps = sorted(set(X.STEP_GRID) | {int(p["steps"])})
            res = self.experiment("accounting", "", X.epsilon_vs_steps, sampling_rate=p["sampling_rate"],
                                  noise_multiplier=p["noise_multiplier"], delta=DELTA, steps=steps)
            return accounting_figure(res, p)
        if panel == "norms":
            res = self.experiment("norms", "", X.gradient_norms, noise_multiplier=p["noise_multiplier"],
                                  rng=p["seed"], **self._common(p))
            return norms_figure(res, p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        return ("from dpexplore.ml import breast_cancer, dp_sgd\n"
                "data = breast_cancer()\n"
                f"r = dp_sgd(data.X_train, data.y_train, model='logistic', steps={p['steps']}, "
                f"sampling_rate={p['sampling_rate']!r},\n           noise_multiplier={p['noise_multiplier']!r}, "
                f"clip_norm={p['clip_norm']!r}, lr={p['lr']!r}, delta={DELTA!r}, rng={p['seed']})\n"
                "print(r.epsilon, r.accuracy(data.X_test, data.y_test))\n")

    audit_description = (
        f"White-box audit with a gradient canary: a data set of {AUDIT_N} examples, one of them a canary whose "
        f"gradient has length {CANARY_SCALE:g}·C along a direction nobody else uses; {AUDIT_STEPS} DP-SGD steps at "
        "the page's σ, C and q, run many times with and without the canary. The auditor sees every step's noisy "
        "update and guesses 'canary in' when the largest step along its direction is large; ε̂ is a 95% "
        "Clopper–Pearson lower bound. The claim is the PLD ε of those 20 steps. The broken variant forgets to "
        "clip (more in dpexplore.ml.audit: noise not scaled by C, fixed batches accounted as Poisson).")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        res = audit_dpsgd("no_clip" if broken else "honest", sampling_rate=p["sampling_rate"],
                          noise_multiplier=p["noise_multiplier"], clip_norm=p["clip_norm"], steps=AUDIT_STEPS,
                          delta=DELTA, runs=runs, rng=rng, progress=progress)
        return pair_audit_report(res)
