"""Course page "Selection": the exponential mechanism, report noisy max, permute-and-flip, and the sparse vector
technique with its famous broken variants (Lyu, Su & Li, PVLDB 10, 2017).

Panels: who gets picked (exact output laws beside sampled frequencies); utility loss vs ε with the exponential
mechanism's theorem; a stream of queries through the sparse vector technique; the budget SVT spends vs c; the
audit of every selection mechanism and SVT variant (claimed vs exact vs measured ε). The kit's audit panel
audits permute-and-flip, and its broken variant drops the factor 2.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.selection import experiments as X
from dpexplore.selection import theory as T
from dpexplore.selection.audit import audit_selection, svt_exact_epsilon
from dpexplore.selection.svt import svt_spec

from . import figures as F
from .audit import AuditReport
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["SelectionDashboard", "audit_figure", "budget_figure", "law_figure", "stream_figure", "utility_figure"]

NAMES = {"em": "exponential mechanism", "rnm": "report noisy max (Laplace)", "pf": "permute-and-flip"}
COLORS = {"em": F.COLORS[0], "rnm": F.COLORS[1], "pf": F.COLORS[2]}
LAW_RUNS = 600
LOSS_TRIALS = 200
STREAM_TRIALS = 200
STREAM_N = 30
THRESHOLD = 45.0
SVT_AUDIT_RUNS = 20_000
#: the c slider's maximum: the audit's worst pair for the Dwork–Roth SVT has 8·c queries, exact up to 60
MAX_C = 7
SEL_AUDIT_RUNS = 2000
SVT_NAMES = {"dwork-roth": "SVT<br>Dwork–Roth", "lyu": "SVT<br>Lyu et al.", "no-query-noise":
             "BROKEN SVT<br>no query<br>noise", "shared-query-noise": "BROKEN SVT<br>query noise<br>not re-drawn",
             "noise-independent-of-c": "BROKEN SVT<br>noise<br>ignores c", "noisy-value":
             "BROKEN SVT<br>releases<br>noisy value"}
SEL_NAMES = {"em": "exponential<br>mechanism", "rnm": "noisy max<br>(Laplace)", "pf": "permute-<br>and-flip",
             "pf-broken": "BROKEN<br>PF without<br>the 2"}


def law_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Exact output law of each mechanism (bars) and the sampled frequencies (markers)."""
    q = X.candidate_scores(p["k"], p["gap"])
    x = np.arange(q.size)
    labels = x + 1  # numeric positions (the house axes are linear), named by tick labels
    ticks = [f"{i + 1}<br>({q[i]:g})" for i in x]
    fig = F.base_figure("", "candidate answer", "probability of being picked", height=360)
    for j, m in enumerate(X.PAGE_MECHANISMS):
        fig.add_trace(go.Bar(x=labels, y=res.values[j, :, 0], name=f"{NAMES[m]} [exact]",
                             marker={"color": COLORS[m]}, offsetgroup=m))
    for j, m in enumerate(X.PAGE_MECHANISMS):
        fig.add_trace(go.Scatter(x=labels, y=res.values[j + 3, :, 0], mode="markers", name=f"{NAMES[m]}: "
                                 f"{LAW_RUNS} runs (measured)", marker={"color": "#000000", "size": 8,
                                 "symbol": ["circle-open", "diamond-open", "square-open"][j]}, offsetgroup=m))
    fig.update_layout(barmode="group", margin={"l": 60, "r": 20, "t": 20})
    fig.update_xaxes(tickmode="array", tickvals=list(labels), ticktext=ticks,
                     title_text="candidate answer (votes); the true favourite is 1")
    fig.update_yaxes(range=[0, 1.3 * float(np.max(res.values[:, :, 0]))])  # head room for the note
    top = [float(res.values[j, 0, 0]) for j in range(3)]
    F.add_note(fig, f"ε = {p['epsilon']:.3g}, Δ = {p['sensitivity']:g}: the favourite is picked with probability "
                    + ", ".join(f"{n} {v:.2f}" for n, v in zip(("EM", "RNM", "PF"), top))
                    + ". Noisy max with Gumbel noise is EM; with exponential noise it is PF.")
    return fig


@functools.lru_cache(maxsize=32)
def _loss_curves(k: int, gap: float, sensitivity: float, lo: float, hi: float, series: tuple[str, ...]):
    """The theory lines of panel 2 (a pure function of its arguments, so cached: moving ε only moves the dotted
    line): 40 ε from lo to hi, EM's bound there, and each mechanism's exact expected loss."""
    q = X.candidate_scores(k, gap)
    fine = np.geomspace(lo, hi, 40)
    bound = np.array([T.em_expected_loss_bound(q.size, epsilon=e, sensitivity=sensitivity) for e in fine])
    exact = np.array([[T.selection_expected_loss(m, q, epsilon=e, sensitivity=sensitivity) for e in fine]
                      for m in series])
    for a in (fine, bound, exact):
        a.setflags(write=False)
    return fine, bound, exact


def utility_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Mean loss OPT − q_out vs ε: measured, the exact expectations, and the EM theorem's bound."""
    q = X.candidate_scores(p["k"], p["gap"])
    eps = np.asarray(res.grid, dtype=float)
    fine, bound, exacts = _loss_curves(int(p["k"]), float(p["gap"]), float(p["sensitivity"]), float(eps[0]),
                                       float(eps[-1]), tuple(res.series))
    fig = F.base_figure("", "ε (log scale)", "votes lost (log scale)", log_x=True,
                        log_y=True, height=380)
    F.add_theory(fig, fine, bound, name="EM's guarantee (2Δ/ε)(ln K + 1)", kind="bound", color="#444444",
                 note="Dwork & Roth Thm 3.11")
    for j, m in enumerate(res.series):
        exact = exacts[j]
        F.add_theory(fig, fine, np.where(exact > 0, exact, np.nan), name=f"{NAMES[m]} expected",
                     kind="exact", color=COLORS[m])
        F.add_measured(fig, eps, np.where(res.mean[j] > 0, res.mean[j], np.nan), res.lower[j], res.upper[j],
                       name=NAMES[m], color=COLORS[m], trials=res.trials)
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dot", "width": 1})
    em = T.selection_expected_loss("em", q, epsilon=p["epsilon"], sensitivity=p["sensitivity"])
    pf = T.selection_expected_loss("pf", q, epsilon=p["epsilon"], sensitivity=p["sensitivity"])
    F.add_note(fig, f"At ε = {p['epsilon']:.3g} (dotted): EM loses {em:.3g} votes on average, permute-and-flip "
                    f"{pf:.3g} — never more than EM (McKenna &amp; Sheldon 2020).")
    return fig


def stream_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """The stream of query answers, the threshold, and how often each comes out ⊤ (Lyu et al.'s SVT)."""
    q = X.stream_queries(STREAM_N)
    x = np.arange(1, q.size + 1)
    pos = res.mean[0]
    fig = F.base_figure("", "day (query number)", "query answer (count)", height=360)
    fig.add_trace(go.Bar(x=x, y=q, name="true answer of the query", marker={"color": "#c8c8c8"}))
    fig.add_trace(go.Scatter(x=[0.5, q.size + 0.5], y=[THRESHOLD, THRESHOLD], mode="lines",
                             line={"color": "#000000", "dash": "dash"}, name=f"threshold T = {THRESHOLD:g}"))
    one = res.values[0, :, 0] > 0
    fig.add_trace(go.Scatter(x=x[one], y=q[one] + 3, mode="markers", marker={"symbol": "triangle-down", "size": 12,
                             "color": F.COLORS[1]}, name="reported ⊤ in one run (seed's first)"))
    fig.add_trace(go.Scatter(x=x, y=pos * 60, mode="lines+markers", line={"color": F.COLORS[0]},
                             name=f"how often reported ⊤ over {res.trials} runs (×60, measured)",
                             customdata=pos, hovertemplate="day %{x}: ⊤ in %{customdata:.0%} of runs<extra></extra>"))
    spec = svt_spec("lyu", epsilon=p["epsilon"], c=p["c"])
    seen = float(np.mean(res.values[1].sum(axis=0)))
    F.add_note(fig, f"Lyu et al.'s SVT, ε = {p['epsilon']:.3g} in all, c = {p['c']}: threshold noise Lap("
                    f"{spec.threshold_scale:.3g}), query noise Lap({spec.query_scale:.3g}); it stops after c ⊤ "
                    f"(on average after {seen:.1f} of {q.size} days). The cost is ε whatever the number of days.")
    fig.update_yaxes(range=[0, 70])
    return fig


def budget_figure(p: Mapping[str, Any]) -> go.Figure:
    """True ε spent vs c at a claimed ε: honest SVT, the broken "noise independent of c", c separate runs."""
    cs = np.arange(1, 11)
    eps = p["epsilon"]
    fig = F.base_figure("", "positives c the analyst may receive", "true ε spent", height=340)
    F.add_theory(fig, cs, [svt_exact_epsilon("lyu", epsilon=eps, c=int(c)) for c in cs],
                 name="SVT with noise scaled to c (claims ε)", kind="exact", color=F.COLORS[2],
                 note="Lyu et al. Thm 2")
    F.add_theory(fig, cs, [svt_exact_epsilon("noise-independent-of-c", epsilon=eps, c=int(c)) for c in cs],
                 name="BROKEN: noise independent of c (claims ε)", kind="exact", color=F.COLORS[1],
                 note="(1 + c)ε/2")
    F.add_theory(fig, cs, cs * eps, name="c separate AboveThreshold runs at ε each", kind="exact",
                 color=F.COLORS[6], note="basic composition, tight for pure DP")
    fig.add_vline(x=p["c"], line={"color": "#444", "dash": "dot", "width": 1})
    b = svt_spec("lyu", epsilon=eps, c=p["c"]).query_scale
    F.add_note(fig, f"The honest SVT pays for c with noise, not with budget: at c = {p['c']} each query gets "
                    f"Lap({b:.3g}) noise = Lap(2cΔ/ε₂).")
    return fig


def audit_figure(sel, svt, p: Mapping[str, Any]) -> go.Figure:
    """Claimed vs exact vs measured ε for every mechanism and SVT variant (∞ drawn at the top, labelled)."""
    names = [SEL_NAMES[m] for m in sel.grid] + [SVT_NAMES[v] for v in svt.grid]
    claimed = np.concatenate([sel.values[0, :, 0], svt.values[0, :, 0]])
    exact = np.concatenate([sel.values[1, :, 0], svt.values[1, :, 0]])
    inf = np.concatenate([np.zeros(len(sel.grid), bool), np.array(svt.extras["exact_infinite"][0], bool)])
    measured = np.concatenate([sel.values[2, :, 0], svt.values[3, :, 0]])
    refuted = np.concatenate([sel.values[3, :, 0], svt.values[4, :, 0]]) > 0
    top = 1.15 * max(float(np.nanmax(np.where(inf, np.nan, exact))), float(np.nanmax(measured)),
                     float(np.max(claimed)) * 2)
    fig = F.base_figure("", "", "ε", height=460)
    pos = np.arange(1, len(names) + 1)
    fig.add_trace(go.Bar(x=pos, y=claimed, name="claimed ε", marker={"color": "#bbbbbb"}))
    fig.add_trace(go.Bar(x=pos, y=np.where(inf, top, exact), name="exact ε (worst case; selection: on the "
                         "audited pair) — ∞ drawn at the top", marker={"color": F.COLORS[0]},
                         text=["∞" if i else f"{e:.2f}" for i, e in zip(inf, exact)], textposition="outside"))
    fig.add_trace(go.Bar(x=pos, y=measured, name="measured ε̂ (95 % lower bound)", marker={"color": F.COLORS[3]},
                         text=[f"{m:.2f}" for m in measured], textposition="outside"))
    fig.update_layout(barmode="group", margin={"l": 60, "r": 20, "t": 20})
    fig.update_xaxes(tickmode="array", tickvals=list(pos), ticktext=names, tickfont={"size": 12})
    fig.update_yaxes(range=[0, top * 1.5])  # head room for the note above the tallest bar
    bad = [n.replace("<br>", " ") for n, r in zip(names, refuted) if r]
    F.add_note(fig, f"Refuted (exact or measured ε above the claim): {', '.join(bad) if bad else 'none'}. "
                    f"Selection: K = {p['k']} candidates, {SEL_AUDIT_RUNS:,} runs; SVT: c = {p['c']}, "
                    f"{SVT_AUDIT_RUNS:,} runs per input."
                    + (" At c = 1 'noise ignores c' is the honest algorithm: raise c to see it fail." if p["c"] == 1
                       else ""))
    return fig


class SelectionDashboard(Dashboard):
    """Course page "Selection": EM, report noisy max, permute-and-flip and the sparse vector technique."""

    title = "Selection · Picking the best answer privately, and the sparse vector technique"
    intro = ("Which answer is the most common? A private algorithm may not simply report the winner: one person "
             "could tip it. The <b>exponential mechanism</b>, <b>report noisy max</b> and <b>permute-and-flip</b> "
             "pick a good answer at random, favouring high scores. The <b>sparse vector technique</b> checks a "
             "long stream of queries against a threshold and pays only for the few that come out above it.")
    paper = ("McSherry &amp; Talwar (2007); Dwork &amp; Roth (2014) §3.3–3.6; McKenna &amp; Sheldon (2020), "
             "<i>Permute-and-flip</i>; Ding et al. (2021); Lyu, Su &amp; Li (2017), <i>Understanding the sparse "
             "vector technique for differential privacy</i>, PVLDB 10.")
    controls = [
        Control("epsilon", "ε (privacy budget)", "log", 1.0, 0.05, 10.0, step=0.05),
        Control("k", "number of candidates K", "int", 5, 2, 30),
        Control("gap", "favourite's lead (votes)", "float", 3.0, 0.0, 30.0, step=0.5),
        Control("sensitivity", "sensitivity Δ (votes per person)", "int", 1, 1, 6),
        Control("c", "SVT: positives c", "int", 2, 1, MAX_C, help="at most 7: the audit's exact worst pair for "
                "Dwork–Roth's SVT (a threshold redrawn after each positive) has 8·c queries, and exact laws are "
                "computed up to 60"),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("law", "1. Who gets picked?", depends_on=("epsilon", "k", "gap", "sensitivity", "seed"),
              caption="Bars: the exact probability each answer is picked; markers: how often it was picked in "
                      f"{LAW_RUNS} runs. Small ε flattens the bars; a large lead makes the favourite win anyway."),
        Panel("utility", "2. How much does privacy cost?", depends_on=("epsilon", "k", "gap", "sensitivity", "seed"),
              caption="Lines: exact expected loss; points: measured over 200 picks; the grey dashed line is the "
                      "exponential mechanism's guarantee. Permute-and-flip is never worse than EM."),
        Panel("stream", "3. The sparse vector technique on a stream", depends_on=("epsilon", "c", "seed"),
              caption="30 daily counts, a threshold of 45. SVT answers above/below for each day and stops after c "
                      "'above' answers. It misses some spikes and may flag a quiet day: that is the noise."),
        Panel("budget", "4. What SVT pays for: c, not the number of queries", depends_on=("epsilon", "c"),
              caption="Each line is the true ε spent at a claimed ε. The broken variant keeps the noise of c = 1 "
                      "and spends more the more positives it gives."),
        Panel("audit", "5. Audit: claimed vs exact vs measured ε", depends_on=("epsilon", "k", "sensitivity", "c",
                                                                           "seed"),
              caption="Grey: what each algorithm claims. Blue: its exact ε. Pink: a measured ε̂, a lower bound on the "
                      "true ε at 95 % confidence. A blue or pink bar above the grey one refutes the claim."),
    ]

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        sel = dict(k=p["k"], gap=p["gap"], sensitivity=p["sensitivity"])
        if panel == "law":
            return law_figure(self.experiment("law", "", X.output_law, epsilon=p["epsilon"], runs=LAW_RUNS,
                                              rng=p["seed"], **sel), p)
        if panel == "utility":
            return utility_figure(self.experiment("utility", "", X.loss_vs_epsilon, epsilons=list(X.EPSILONS),
                                                  trials=LOSS_TRIALS, rng=p["seed"], **sel), p)
        if panel == "stream":
            return stream_figure(self.experiment("stream", "", X.svt_stream, n_queries=STREAM_N, threshold=THRESHOLD,
                                                 epsilon=p["epsilon"], c=p["c"], variant="lyu", trials=STREAM_TRIALS,
                                                 rng=p["seed"]), p)
        if panel == "budget":
            return budget_figure(p)
        if panel == "audit":
            s = self.experiment("audit", "selection", X.selection_audit, epsilon=p["epsilon"], k=max(p["k"], 2),
                                sensitivity=p["sensitivity"], runs=SEL_AUDIT_RUNS, rng=p["seed"])
            v = self.experiment("audit", "svt", X.svt_audit, epsilon=p["epsilon"], c=p["c"], runs=SVT_AUDIT_RUNS,
                                rng=p["seed"])
            return audit_figure(s, v, p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        return ("from dpexplore.selection import exponential_mechanism, report_noisy_max, permute_and_flip, "
                "sparse_vector\n"
                "from dpexplore.selection.experiments import candidate_scores, stream_queries\n"
                f"q = candidate_scores({p['k']}, {p['gap']!r})\n"
                f"for f in (exponential_mechanism, report_noisy_max, permute_and_flip):\n"
                f"    print(f(q, epsilon={p['epsilon']!r}, sensitivity={p['sensitivity']}, rng={p['seed']}))\n"
                f"print(sparse_vector(stream_queries({STREAM_N}), {THRESHOLD!r}, epsilon={p['epsilon']!r}, "
                f"c={p['c']}, split=0.5, rng={p['seed']}))\n")

    audit_description = (
        "Audits permute-and-flip on the pair of panel 5 (all scores equal vs the first candidate up by Δ, the others "
        "down by Δ): the exact ε of that pair from the two exact output laws, and ε̂ from runs scored by the exact "
        "likelihood ratio (Clopper–Pearson, 95 %). The broken variant drops the factor 2 in exp(ε(q − q*)/(2Δ)): it "
        "runs at 2ε but claims ε.")
    audit_runs = (2000, 20_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        progress(0, runs)
        a = audit_selection("pf-broken" if broken else "pf", epsilon=p["epsilon"], k=p["k"],
                            sensitivity=p["sensitivity"], runs=runs, rng=rng)
        progress(runs, runs)
        st = a.statistical
        return AuditReport(mechanism=("BROKEN (factor 2 dropped) " if broken else "") + "permute-and-flip",
                           neighbours=f"{p['k']} scores all 0 vs (Δ, −Δ, …, −Δ), Δ = {p['sensitivity']}",
                           claimed_epsilon=a.claimed_epsilon, delta=0.0, exact_epsilon=a.exact_epsilon,
                           epsilon_lower=st.epsilon_lower, confidence=st.confidence, runs=st.runs,
                           seconds=st.seconds)


