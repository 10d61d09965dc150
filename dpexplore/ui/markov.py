"""Dashboard for paper 3: differential privacy for Markov-chain state trajectories.

Four live panels: the chain and one sensitive / private trajectory pair; the large-error
probability P(e ≥ v) (exact pair-chain curves with simulated points); the empirical entropy vs
trajectory length; the exact drift E[e_{t+1} − e_t | state] vs the current error.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpexplore.core import mean_confidence_band
from dpexplore.markov import (
    MAX_PASTED_STATES,
    analyze,
    baseline_kernel,
    distances,
    mechanism_kernel,
    stationary_distribution,
    time_profile,
)
from dpexplore.markov import experiments as X
from dpexplore.markov.audit import audit_markov
from dpexplore.markov.experiments import chain_from_spec

from . import figures as F
from .audit import AuditReport
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = [
    "MarkovTrajectoryDashboard",
    "chain_trajectory_figure",
    "tail_figure",
    "entropy_figure",
    "drift_figure",
]

MECH_COLOR = F.COLORS[0]  # blue
BASE_COLOR = F.COLORS[1]  # vermillion
TRUE_COLOR = "#000000"
ETA = 0.1  # typical-set half-width in nats (Theorem 4's η), fixed in the dashboard
MAX_DRAWN_STEPS = 200

DEFAULT_MATRIX = "0.80 0.20 0 0\n0.10 0.70 0.20 0\n0 0.15 0.70 0.15\n0.05 0 0.25 0.70"

CHAIN_OPTIONS = (
    ("credit ratings (S&P 1-year, 7 rated states)", "credit"),
    ("city-grid traffic (grid size slider)", "traffic"),
    ("web browsing (synthetic link graph, 20 pages)", "web"),
    ("paste a matrix (text box below)", "paste"),
)


def build_chain(kind: str, grid: int, matrix: str):
    """The chain selected in the dashboard (the same calls as in 'reproduce in code')."""
    return chain_from_spec(kind, grid, matrix)


def _chain_code(kind: str, grid: int, matrix: str) -> str:
    if kind == "credit":
        return "chain = credit_migration()  # default state D dropped, rows renormalised"
    if kind == "traffic":
        return f"chain = city_grid({grid})"
    if kind == "web":
        return "chain = web_browsing(20, rng=0)"
    return f"chain = parse_matrix({matrix!r})"


# -- pure figure builders ----------------------------------------------------------------------------


def _layout_positions(chain, kind: str) -> np.ndarray:
    n = chain.n
    if kind == "traffic":
        side = int(round(math.sqrt(n)))
        idx = np.arange(n)
        return np.stack([idx % side, -(idx // side)], axis=1).astype(float)
    if kind == "credit":  # a ladder: best rating on top
        return np.stack([np.where(np.arange(n) % 2 == 0, 0.0, 0.6), -np.arange(n, dtype=float)], axis=1)
    ang = 2 * np.pi * np.arange(n) / n
    return np.stack([np.cos(ang), np.sin(ang)], axis=1)


def chain_trajectory_figure(chain, kind: str, sensitive, mech, base, *, epsilon: float, rho: float) -> go.Figure:
    """Left: the chain as a graph; right: one sensitive trajectory and its two private versions."""
    n = chain.n
    fig = make_subplots(rows=1, cols=2, column_widths=[0.32, 0.68], horizontal_spacing=0.12,
                        subplot_titles=("The chain: line width ∝ P, node size ∝ stationary prob.",
                                        "States over time (one trial)"))
    pos = _layout_positions(chain, kind)
    P = chain.P
    mu = stationary_distribution(chain)
    # edges, both directions merged, grouped by width class so few traces are drawn
    pmax = np.maximum(P, P.T)
    iu, ju = np.nonzero(np.triu(pmax, k=1))
    widths = np.clip(1 + 6 * pmax[iu, ju], 1, 7).round().astype(int)
    for w in np.unique(widths):
        sel = widths == w
        xs, ys = [], []
        for i, j in zip(iu[sel], ju[sel]):
            xs += [pos[i, 0], pos[j, 0], None]
            ys += [pos[i, 1], pos[j, 1], None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line={"color": "rgba(120,120,120,0.5)", "width": int(w)},
                                 hoverinfo="skip", showlegend=False), row=1, col=1)
    labels = list(chain.states) if n <= 12 else [""] * n
    fig.add_trace(go.Scatter(
        x=pos[:, 0], y=pos[:, 1], mode="markers+text", text=labels, textposition="middle right",
        marker={"size": 8 + 30 * np.sqrt(mu / mu.max()), "color": "#56B4E9", "line": {"color": "#333", "width": 1}},
        hovertext=[f"{s}: stationary prob. {m:.3g}" for s, m in zip(chain.states, mu)], hoverinfo="text",
        showlegend=False), row=1, col=1)
    span = float(np.ptp(pos[:, 0])) or 1.0
    fig.update_xaxes(visible=False, range=[pos[:, 0].min() - 0.1 * span, pos[:, 0].max() + 0.45 * span], row=1, col=1)
    fig.update_yaxes(visible=False, row=1, col=1)
    T = min(len(sensitive), MAX_DRAWN_STEPS)
    t = np.arange(T)
    fig.add_trace(go.Scatter(x=t, y=sensitive[:T], mode="lines", line={"color": TRUE_COLOR, "width": 3, "shape": "hv"},
                             name="sensitive trajectory s_t"), row=1, col=2)
    fig.add_trace(go.Scatter(x=t, y=mech[:T], mode="lines", line={"color": MECH_COLOR, "width": 2, "shape": "hv"},
                             name=f"Mechanism 1 private s'_t (ε={epsilon:.3g}, ρ={rho:.3g})"), row=1, col=2)
    fig.add_trace(go.Scatter(x=t, y=base[:T], mode="lines",
                             line={"color": BASE_COLOR, "width": 2, "shape": "hv", "dash": "dot"},
                             name=f"baseline private s'_t (ε={epsilon:.3g} per state)"), row=1, col=2)
    fig.update_xaxes(title_text="time step t" + (f" (first {T} of {len(sensitive)})" if T < len(sensitive) else ""),
                     row=1, col=2)
    if n <= 12:
        fig.update_yaxes(title_text="state", tickmode="array", tickvals=list(range(n)), ticktext=list(chain.states),
                         autorange="reversed", row=1, col=2)
    else:
        fig.update_yaxes(title_text="state index", row=1, col=2)
    fig.update_layout(template="plotly_white", height=430, margin={"l": 40, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.15, "x": 0.3, "font": {"size": 11}})
    fig.update_annotations(font_size=12)
    return fig


def tail_figure(v_grid, mech_exact, base_exact, mech_sim, base_sim, *, v: float, trials: int, T: int,
                mech_stat: float, base_stat: float, epsilon: float, rho: float) -> go.Figure:
    """P(e ≥ v) vs v on a log scale: exact (time-averaged over t < T) and simulated (mean ± band)."""
    fig = F.base_figure(f"Large-error probability, ε = {epsilon:.3g}, ρ = {rho:.3g}",
                        "error threshold v (symmetric −log P distance, nats)", "P(error ≥ v)  (log scale)",
                        log_y=True, height=430)
    floor = 1.0 / (trials * T)
    positive = np.concatenate([mech_exact[mech_exact > 0], base_exact[base_exact > 0]])
    low = max(float(positive.min()) if positive.size else 1e-16, 1e-20)
    for name, exact, sim, color in (("Mechanism 1", mech_exact, mech_sim, MECH_COLOR),
                                    ("baseline", base_exact, base_sim, BASE_COLOR)):
        F.add_theory(fig, v_grid, np.where(exact > 0, exact, np.nan), name=name, kind="exact", color=color,
                     note="pair chain, averaged over t < T", headline=name == "Mechanism 1")
        m, lo, hi = mean_confidence_band(sim, axis=0)
        with np.errstate(invalid="ignore"):
            m = np.where(m > 0, m, np.nan)
        F.add_measured(fig, v_grid, m, np.maximum(lo, floor / 10), hi, name=f"{name} simulated", color=color,
                       trials=trials)
    fig.add_trace(go.Scatter(x=[v_grid[0], v_grid[-1]], y=[floor, floor], mode="lines",
                             line={"color": "#777", "dash": "dot", "width": 1},
                             name=f"Monte-Carlo resolution 1/(trials·T) = {floor:.1g}"))
    fig.add_vline(x=v, line={"color": "#444", "width": 1, "dash": "dash"})
    ratio = (f"{base_stat / mech_stat:.2g}× lower" if mech_stat > 0 else "zero") if base_stat > 0 else "—"
    fig.add_annotation(text=f"at v = {v:.3g} (stationary, exact):<br>Mechanism 1 {mech_stat:.3g}<br>baseline "
                            f"{base_stat:.3g} ({ratio})", xref="paper", yref="paper", x=1.0, y=1.0, xanchor="right",
                       yanchor="top", showarrow=False, align="right", font={"size": 11, "color": "#333"},
                       bgcolor="rgba(255,255,255,0.85)")
    fig.update_yaxes(range=[math.log10(low) - 0.5, 0.2])
    return fig


def entropy_figure(lengths, mech_run, base_run, mech_exact, base_exact, true_word, mech_word, base_word,
                   *, chain_rate: float, mech_rate: float, base_rate: float, trials: int,
                   typical: tuple[float, float, float]) -> go.Figure:
    """Left: Ĥ_T of the mechanisms vs T; right: the private words' sample entropy and the typical set."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("Mechanism entropy Ĥ_T = −(1/T) Σ log M(s'_t | s'_{t−1}, s_t)",
                                        "Sample entropy of the released word −(1/T) log P(s'_0…s'_T)"))
    x = np.asarray(lengths, dtype=float)
    for col, data, exact in ((1, (mech_run, base_run), (mech_exact, base_exact)),
                             (2, (mech_word, base_word), (None, None))):
        for k, (name, color) in enumerate((("Mechanism 1", MECH_COLOR), ("baseline", BASE_COLOR))):
            m, lo, hi = mean_confidence_band(data[k], axis=0)
            F.add_measured(fig, x, m, lo, hi, name=name, color=color, trials=trials, row=1, col=col,
                           showlegend=col == 1)
            if exact[k] is not None:
                F.add_theory(fig, x, exact[k], name=f"E[Ĥ_T] {name}", kind="exact", color=color, row=1, col=col)
    m, lo, hi = mean_confidence_band(true_word, axis=0)
    F.add_measured(fig, x, m, lo, hi, name="sensitive word (the chain's own)", color=TRUE_COLOR, trials=trials,
                   row=1, col=2)
    for col in (1, 2):
        F.add_theory(fig, [x[0], x[-1]], [chain_rate, chain_rate], name="chain entropy rate H(P)", kind="exact",
                     color=F.COLORS[2], row=1, col=col, showlegend=col == 1)
    fig.add_hrect(y0=max(chain_rate - ETA, 0), y1=chain_rate + ETA, fillcolor=F.COLORS[2], opacity=0.12,
                  line_width=0, row=1, col=2)
    fig.add_annotation(text=(f"shaded: η-typical set, η = {ETA} nats<br>in it at T: sensitive {typical[0]:.0%}, "
                             f"Mechanism 1 {typical[1]:.0%}, baseline {typical[2]:.0%}"),
                       xref="x2 domain", yref="y2 domain", x=0.02, y=0.98, showarrow=False, align="left",
                       xanchor="left", yanchor="top", font={"size": 11, "color": "#333"},
                       bgcolor="rgba(255,255,255,0.8)")
    fig.add_annotation(text=(f"exact rates: Mechanism 1 {mech_rate:.3g}, baseline {base_rate:.3g}, "
                             f"H(P) {chain_rate:.3g} nats/step"),
                       xref="x domain", yref="y domain", x=0.02, y=0.98, showarrow=False, align="left",
                       xanchor="left", yanchor="top", font={"size": 11, "color": "#333"},
                       bgcolor="rgba(255,255,255,0.8)")
    fig.update_xaxes(type="log", title_text="trajectory length T (log scale)", exponentformat="power")
    fig.update_yaxes(title_text="nats per step", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="nats per step", rangemode="tozero", row=1, col=2)
    fig.update_layout(template="plotly_white", height=460, margin={"l": 60, "r": 20, "t": 40, "b": 40},
                      legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0, "font": {"size": 11}})
    fig.update_annotations(font_size=11)
    return fig


def _binned_drift(errors, drift, weights, edges):
    centers, means = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (errors >= lo) & (errors < hi) & (weights > 0)
        if sel.any() and weights[sel].sum() > 0:
            centers.append(float(np.average(errors[sel], weights=weights[sel])))
            means.append(float(np.average(drift[sel], weights=weights[sel])))
    return np.array(centers), np.array(means)


def drift_figure(mech, base, *, v: float) -> go.Figure:
    """Exact drift E[e_{t+1} − e_t | s_t, s'_t] vs e_t for every pair state, and its π-weighted mean."""
    fig = F.base_figure("Drift of the error: E[e_{t+1} − e_t | current pair state]",
                        "current error e_t = d(s'_t, s_t) (nats)", "expected change of the error (nats)", height=430)
    emax = float(max(mech.errors.max(), base.errors.max()))
    dmin = float(min(mech.drift.min(), base.drift.min(), -1.0))
    dmax = float(max(mech.drift.max(), base.drift.max(), 1.0))
    fig.add_hrect(y0=dmin * 1.05, y1=0, fillcolor=F.COLORS[2], opacity=0.10, line_width=0)
    fig.add_annotation(text="shaded: negative drift, the error shrinks (pulled back toward the sensitive state)",
                       xref="paper", yref="y", x=0.99, y=0, xanchor="right", yanchor="top", showarrow=False,
                       font={"size": 11, "color": "#1b6b50"}, bgcolor="rgba(255,255,255,0.8)")
    edges = np.linspace(0, emax + 1e-9, 16)
    for res, name, color, sym in ((mech, "Mechanism 1", MECH_COLOR, "circle"),
                                  (base, "baseline", BASE_COLOR, "x")):
        e, dr, w = res.errors.ravel(), res.drift.ravel(), res.stationary.ravel()
        fig.add_trace(go.Scatter(x=e, y=dr, mode="markers", name=f"{name}: one point per pair (s, s') [exact]",
                                 marker={"color": color, "size": 5, "opacity": 0.45, "symbol": sym},
                                 hovertemplate="e=%{x:.3g}, drift=%{y:.3g}<extra></extra>"))
        c, m = _binned_drift(e, dr, w, edges)
        F.add_theory(fig, c, m, name=f"{name}: mean drift at that error, weighted by the stationary law", kind="exact",
                     color=color, headline=name == "Mechanism 1")
    fig.add_hline(y=0, line={"color": "#444", "width": 1})
    fig.add_vline(x=v, line={"color": "#444", "width": 1, "dash": "dash"})
    fig.update_yaxes(range=[dmin * 1.05, dmax * 1.05])
    return fig


# -- the dashboard -----------------------------------------------------------------------------------

_CHAIN_KEYS = ("chain", "grid", "matrix", "symmetrize")


class MarkovTrajectoryDashboard(Dashboard):
    """Online private release of Markov-chain trajectories: Mechanism 1 vs the uniform baseline."""

    title = "Differentially private Markov-chain trajectories"
    intro = (
        "A sensitive trajectory s<sub>t</sub> (a firm's credit rating, a car's intersection, a reader's page) is "
        "released online as a private trajectory s'<sub>t</sub> that the chain itself could have produced. "
        "<b>Mechanism 1</b> picks s'<sub>t</sub> among the states reachable from s'<sub>t−1</sub> with "
        "permute-and-flip, penalising the −log P shortest-path distance to s<sub>t</sub>; it is ε-DP for "
        "trajectories whose summed distance is at most ρ. The <b>baseline</b> (uniform on the feasible set) ignores "
        "transition probabilities; its ε is per changed state. The mechanism and the baseline are "
        "<i>reconstructions</i> from the paper's description."
    )
    paper = ("A. Benvenuti, M. Hale, <i>Differential Privacy for Markov Chain State Trajectories</i>; baseline: "
             "B. Chen, K. Leahy, A. Jones, M. Hale, <i>Differential privacy for symbolic systems with application "
             "to Markov chains</i> (arXiv:2202.03325); permute-and-flip: McKenna &amp; Sheldon (NeurIPS 2020).")
    controls = [
        Control("chain", "chain", "choice", "credit", options=CHAIN_OPTIONS),
        Control("epsilon", "ε (privacy budget)", "log", 3.0, 0.1, 20.0, step=0.05,
                help="ε for ρ-adjacent trajectories (Mechanism 1) / per changed state (baseline)"),
        Control("rho", "ρ (adjacency radius, nats)", "log", 2.0, 0.1, 50.0, step=0.05,
                help="trajectories with Σ_t d(s_t, s̃_t) ≤ ρ are neighbours (Definition 4)"),
        Control("T", "trajectory length T", "logint", 200, 10, 2000, step=0.1),
        Control("v", "error threshold v (large-error threshold, nats)", "float", 15.0, 0.0, 40.0, step=0.5),
        Control("trials", "trials", "logint", 20, 1, 200, step=0.1),
        Control("seed", "seed", "int", 0, 0, 9999),
        Control("grid", "traffic grid size (intersections per side)", "int", 5, 3, 10,
                shown_if=("chain", "traffic")),
        Control("symmetrize", "distance d(i,j) (symmetrised)", "choice", "sum",
                options=(("G(i,j) + G(j,i)", "sum"), ("max(G(i,j), G(j,i))", "max"))),
        Control("matrix", f"pasted matrix (rows on lines, ≤ {MAX_PASTED_STATES} states)", "text", DEFAULT_MATRIX,
                max_length=40 * MAX_PASTED_STATES * MAX_PASTED_STATES, shown_if=("chain", "paste")),
        Control("audit", "audited mechanism", "choice", "mechanism1",
                options=(("Mechanism 1", "mechanism1"), ("baseline", "baseline"))),
    ]
    panels = [
        Panel("chain", "1. The chain and the trajectories",
              depends_on=(*_CHAIN_KEYS, "epsilon", "rho", "T", "trials", "seed"),
              caption="The private trajectories move only along the chain's edges. Mechanism 1 (blue) hugs the "
                      "sensitive trajectory (black); the baseline (orange, dotted) wanders, most visibly on the "
                      "sparse traffic grid. Try ρ = 0.3 (almost exact) and ρ = 20 (very noisy)."),
        Panel("tail", "2. Probability of a large error",
              depends_on=(*_CHAIN_KEYS, "epsilon", "rho", "T", "v", "trials", "seed"),
              caption="Solid lines are exact (computed from the pair chain (s<sub>t</sub>, s'<sub>t</sub>), averaged "
                      "over the T steps); the points are the simulated fractions with their 95% band. Simulation "
                      "cannot see below the dotted 1/(trials·T) line; the exact curves can. Move ρ and watch the gap."),
        Panel("entropy", "3. Entropy vs trajectory length",
              depends_on=(*_CHAIN_KEYS, "epsilon", "rho", "T", "trials", "seed"),
              caption="Left: how much randomness each mechanism injects per step. Right: how plausible the released "
                      "word is for the chain: words near the entropy rate H(P) (shaded typical set) look like real "
                      "trajectories; the baseline's words are far less likely under the chain."),
        Panel("drift", "4. Drift of the error",
              depends_on=(*_CHAIN_KEYS, "epsilon", "rho", "v"),
              caption="For every pair of sensitive and private states: the expected change of the error in one step "
                      "(exact). Below zero (shaded) the private trajectory is pulled back toward the sensitive one; "
                      "Mechanism 1's drift is strongly negative at large errors, which makes large errors "
                      "exponentially rare."),
    ]

    # -- shared computations ------------------------------------------------------------------------
    def _chain(self, p):
        key = ("chain", p["chain"], p["grid"] if p["chain"] == "traffic" else 0,
               p["matrix"] if p["chain"] == "paste" else "", p["symmetrize"])

        def make():
            chain = build_chain(p["chain"], p["grid"], p["matrix"])
            return chain, distances(chain, symmetrize=p["symmetrize"])

        return key, self.memo(key, make)

    def _kernels(self, p):
        ckey, (chain, d) = self._chain(p)
        mk = self.memo(("mk", ckey, p["epsilon"], p["rho"]),
                       lambda: mechanism_kernel(chain, epsilon=p["epsilon"], rho=p["rho"], d=d))
        bk = self.memo(("bk", ckey, p["epsilon"]), lambda: baseline_kernel(chain, epsilon=p["epsilon"]))
        return ckey, chain, d, mk, bk

    def _analyses(self, p):
        ckey, chain, d, mk, bk = self._kernels(p)
        ma = self.memo(("ma", ckey, p["epsilon"], p["rho"]), lambda: analyze(chain, mk, d))
        ba = self.memo(("ba", ckey, p["epsilon"]), lambda: analyze(chain, bk, d))
        return ma, ba

    def _spec(self, p) -> dict[str, Any]:
        """The experiments' chain and mechanism arguments at the current settings (plain values)."""
        return dict(chain=p["chain"], grid_size=p["grid"], matrix=p["matrix"] if p["chain"] == "paste" else None,
                    symmetrize=p["symmetrize"], epsilon=p["epsilon"], rho=p["rho"], T=p["T"])

    def _example(self, p):
        key = ("example", repr(sorted(self._spec(p).items())), p["seed"])
        return self.memo(key, lambda: X.example_trajectories(**self._spec(p), rng=p["seed"]))

    def _profiles(self, p, v_grid):
        ckey, chain, d, mk, bk = self._kernels(p)
        key = (ckey, p["epsilon"], p["rho"], p["T"])
        mp = self.memo(("mp", *key), lambda: time_profile(chain, mk, d, p["T"], v=v_grid))
        bp = self.memo(("bp", *key), lambda: time_profile(chain, bk, d, p["T"], v=v_grid))
        return mp, bp

    # -- panels -------------------------------------------------------------------------------------
    no_headline = {
        # a thick Mechanism 1 on top would hide the sensitive trajectory it follows: the three are read together
        "chain": "the sensitive trajectory and the two private ones, read against each other",
        # Mechanism 1 is drawn in both subplots: one thick black copy would give it two colours
        "entropy": "two subplots, each comparing Mechanism 1, the baseline and the chain's own rate",
    }

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        _, (chain, d) = self._chain(p)
        v_grid = np.linspace(0.0, float(d.max()), 41)
        if panel == "chain":
            s, ms, bs = self._example(p)
            return chain_trajectory_figure(chain, p["chain"], s, ms, bs, epsilon=p["epsilon"], rho=p["rho"])
        if panel == "tail":
            r = self.experiment("tail", "", X.large_error_probability, **self._spec(p), trials=p["trials"],
                                v_grid=v_grid.tolist(), rng=p["seed"])
            mp, bp = self._profiles(p, v_grid)
            ma, ba = self._analyses(p)
            return tail_figure(v_grid, mp.mean_tail, bp.mean_tail, r.trial_values("mechanism").T,
                               r.trial_values("baseline").T, v=p["v"], trials=p["trials"], T=p["T"],
                               mech_stat=float(ma.tail(p["v"])), base_stat=float(ba.tail(p["v"])),
                               epsilon=p["epsilon"], rho=p["rho"])
        if panel == "entropy":
            r = self.experiment("entropy", "", X.entropy_vs_length, **self._spec(p), trials=p["trials"],
                                rng=p["seed"])
            mp, bp = self._profiles(p, v_grid)
            ma, ba = self._analyses(p)
            lengths = np.asarray(r.grid)
            idx = lengths - 1
            wt, wm, wb = (r.trial_values(f"{who} word").T for who in ("sensitive", "mechanism", "baseline"))
            last = [float(np.mean(np.abs(w[:, -1] - ma.chain_entropy_rate) <= ETA)) for w in (wt, wm, wb)]
            return entropy_figure(lengths, r.trial_values("mechanism running").T, r.trial_values("baseline running").T,
                                  mp.expected_running_entropy[idx], bp.expected_running_entropy[idx], wt, wm, wb,
                                  chain_rate=ma.chain_entropy_rate, mech_rate=ma.entropy_rate,
                                  base_rate=ba.entropy_rate, trials=p["trials"], typical=tuple(last))
        if panel == "drift":
            ma, ba = self._analyses(p)
            return drift_figure(ma, ba, v=p["v"])
        raise ValueError(f"unknown panel {panel!r}")

    # -- audit ----------------------------------------------------------------------------------------
    audit_description = (
        "Audits the mechanism chosen in <i>audited mechanism</i> at the current chain, ε, ρ and distance. "
        "<b>Exact:</b> short neighbouring windows of sensitive states (ρ-adjacent for Mechanism 1, one changed "
        "state for the baseline) are searched for the largest privacy loss max<sub>w</sub> |log P(w|s) − "
        "log P(w|s̃)| over all released words w, computed exactly from the mechanism's step law (at the start of a "
        "trajectory and after any previous private state). <b>Measured:</b> the worst window is embedded in two "
        "long trajectories (min(T, 200) steps) simulated from the chain; the mechanism's sampler runs on each, and the "
        "exact likelihood ratio of the released words is the test statistic; ε̂ is a Clopper–Pearson lower bound "
        "at 95 % confidence. "
        "When ρ is below every distance between two states no two different trajectories are ρ-adjacent, so the "
        "claim ε is trivially true; the audit then checks the proof's distance-scaled claim ε·D/ρ on single-state "
        "pairs instead (the claimed ε shown is that). Broken variants: Mechanism 1 with acceptance exp((ε/ρ)(u − u*)) "
        "instead of exp((ε/(2ρ))(u − u*)), the baseline re-drawing when its answer is not the true state (budget "
        "spent twice); both still claim ε."
    )
    audit_runs = (20000, 200000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        _, (chain, _) = self._chain(p)
        which = p["audit"]
        res = audit_markov(chain, ("broken_" if broken else "") + which, epsilon=p["epsilon"],
                           rho=p["rho"] if which == "mechanism1" else None, symmetrize=p["symmetrize"],
                           length=min(int(p["T"]), 200), runs=runs, rng=rng, progress=progress)
        pair = res.pair
        names = chain.states

        def word(x) -> str:
            return "(" + ", ".join(names[i] for i in x) + ")"

        where = ("at the start" if pair.context == "start" else
                 f"after private state {names[pair.start_state]}" if pair.start_state is not None else "mid-trajectory")
        dist = f", D = Σ d = {pair.distance:.3g} nats" if which == "mechanism1" else ""
        searched = f"worst of {pair.searched:,} windows" + ("" if pair.exhaustive else " (a bounded subset)")
        neighbours = (f"window s = {word(pair.s)} vs s̃ = {word(pair.s_tilde)} {where}{dist} ({searched}, each "
                      f"at the start and mid-trajectory), inside two trajectories of {res.long_s.size} states. "
                      f"Claim: {pair.claim}.")
        label = {"mechanism1": "Mechanism 1 (permute-and-flip, acceptance exp(ε/(2ρ)·(u − u*)))",
                 "baseline": "baseline (ε-randomized response on the feasible set)"}[which]
        if broken:
            label = {"mechanism1": "BROKEN Mechanism 1 (acceptance exp(ε/ρ·(u − u*)), factor 2 dropped)",
                     "baseline": "BROKEN baseline (re-draws when the answer is not the true state)"}[which]
        st = res.statistical
        return AuditReport(mechanism=label, neighbours=neighbours, claimed_epsilon=res.claimed_epsilon, delta=0.0,
                           exact_epsilon=res.exact.epsilon,
                           epsilon_lower=None if st.cancelled else st.epsilon_lower,
                           confidence=st.confidence, runs=st.runs, seconds=res.seconds, cancelled=st.cancelled,
                           test_advantage=None if st.cancelled else st.advantage)

    def reproduce(self, p: Mapping[str, Any]) -> str:
        """The exact (not simulated) numbers: pair-chain analyses of both mechanisms (panels 2–4)."""
        return (
            "# exact stationary pair-chain numbers (panels 2-4): P(e >= v), entropy rates\n"
            "from dpexplore.markov import (credit_migration, city_grid, web_browsing, parse_matrix, distances,\n"
            "    mechanism_kernel, baseline_kernel, analyze)\n"
            f"{_chain_code(p['chain'], p['grid'], p['matrix'])}\n"
            f"d = distances(chain, symmetrize={p['symmetrize']!r})\n"
            f"mech = mechanism_kernel(chain, epsilon={p['epsilon']!r}, rho={p['rho']!r}, d=d)  # exact step law\n"
            f"base = baseline_kernel(chain, epsilon={p['epsilon']!r})\n"
            f"exact_m, exact_b = analyze(chain, mech, d), analyze(chain, base, d)  # stationary pair chain\n"
            f"print(exact_m.tail({p['v']!r}), exact_b.tail({p['v']!r}), exact_m.entropy_rate, exact_b.entropy_rate)\n"
            "# one trajectory, online (a stream): private_trajectory(chain, s, "
            f"epsilon={p['epsilon']!r}, rho={p['rho']!r}, rng=0).states\n"
        )

    def _footer_html(self) -> str:  # the base footer plus what is reconstructed here
        extra = ("<div style='font-size:0.85em;color:#444;max-width:60em;margin-top:0.6em'><b>Reconstruction.</b> "
                 "The paper's full text was not available: Mechanism 1 (feasible set N(s'<sub>t−1</sub>), utility "
                 "−d(j, s<sub>t</sub>), acceptance exp(ε/(2ρ)·(u − u*))), the baseline and the entropy metrics "
                 "follow its description. The credit chain drops the absorbing default state and renormalises the "
                 "rated rows. Entropies are in nats. " + html.escape("η = 0.1 nats for the typical set.") + "</div>")
        return extra + super()._footer_html()
