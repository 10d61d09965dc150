"""Paper 4 dashboard: universal shuffle asymptotics (Shvets 2026).

Every number on this page is computed exactly or from a formula — there is no randomness, so no
seed and no Monte-Carlo bands. Panels: the exact privacy curve against GDP, Chernoff and the FMT
bounds; n·JSD → I_π/8; the GDP approximation error vs n and its breakdown in the Poisson regime;
bundled vs unbundled messages; trade-off curves; and the "how much ε0 can I afford" table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from scipy import optimize

from dpexplore import shuffle as S
from dpexplore.core.gaussian import gdp_epsilon
from dpexplore.shuffle import audit as SA
from dpexplore.shuffle.exact import shuffled_pair

from . import figures as F
from .audit import AuditReport
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = [
    "ShuffleAsymptoticsDashboard",
    "privacy_curve_figure",
    "jsd_figure",
    "gdp_error_figure",
    "multimessage_figure",
    "tradeoff_figure",
    "solver_figure",
    "gdp_error_sweep",
]

#: exact k-RR curves use the trinomial grid: keep the dashboard's grid at ≤ (1000 + 1)² cells
KRR_EXACT_MAX_N = 1000
#: width of the certified branch-and-bound bracket for binary inputs on this dashboard (1%: interactive)
PROFILE_RTOL = 1e-2
_GRID_CELLS = (KRR_EXACT_MAX_N + 1) ** 2  # named k-RR pairs of the worst case's lower end (dashboard limit)
_EXACT_FAIL = (ValueError, FloatingPointError)


def _randomizer(p: Mapping[str, Any]) -> S.Randomizer:
    return S.binary_rr(p["epsilon0"]) if p["family"] == "binary" else S.k_rr(p["epsilon0"], p["alphabet"])


def _k_of(p: Mapping[str, Any], n: int | None = None) -> int:
    n = p["n"] if n is None else n
    return min(int(round(p["pi"] * n)), n - 1)


def _exact_ok(p: Mapping[str, Any], n: int | None = None) -> bool:
    """Exact curves: always for binary RR; for k-RR while the trinomial grid work stays small."""
    n = p["n"] if n is None else n
    if p["family"] == "binary":
        return True
    cells = (n + 1) ** 2
    return cells <= (KRR_EXACT_MAX_N + 1) ** 2 and cells * math.comb(_k_of(p, n) + 3, 2) <= 1.5e7


# -- pure figure builders ------------------------------------------------------------------------
def privacy_curve_figure(curves: dict[str, tuple[np.ndarray, np.ndarray, str]], *, delta: float,
                         title: str, notes: list[str], headline: str | None = None) -> go.Figure:
    """δ(ε) curves on a log axis. ``curves`` maps a legend name to (ε values, δ values, theory kind);
    ``headline`` names the curve the panel is about (the worst case: drawn last, thick, black)."""
    fig = F.base_figure(title, "ε of the shuffled histogram", "δ(ε)  (log scale)", log_y=True, height=480)
    for i, (name, (x, vals, kind)) in enumerate(curves.items()):
        v = np.asarray(vals, dtype=float)
        v = np.where(v > 1e-16, v, np.nan)
        F.add_theory(fig, x, v, name=name, kind=kind, color=F.color_for(i), headline=name == headline)
    fig.add_hline(y=delta, line={"color": "#888", "width": 1, "dash": "dot"},
                  annotation_text=f"target δ = {delta:.0e}", annotation_position="top right")
    fig.update_yaxes(range=[-14, 0.05])
    if notes:
        F.add_note(fig, "<br>".join(notes))
    fig.update_layout(legend={"y": -0.2})
    return fig


def jsd_figure(ns, exact, asym: float, two_term, mix: float | None, *, title: str, notes: list[str]) -> go.Figure:
    """n·JSD against n: exact dots, the I_π/8 asymptote, the two-term curve, the mixture proxy."""
    fig = F.base_figure(title, "n (users, log scale)", "n · JSD(T_{n,k} ‖ T_{n,k+1})", log_x=True, height=420)
    ns = np.asarray(ns, dtype=float)
    ok = np.isfinite(exact)
    fig.add_trace(go.Scatter(x=ns[ok], y=np.asarray(exact)[ok], mode="markers", name="n·JSD [exact]",
                             marker={"size": 8, "color": F.color_for(0)}))
    F.mark_headline(fig.data[-1])  # the exact values the approximations are held against
    F.add_theory(fig, ns, np.full(ns.size, asym), name="I_π/8 (fixed composition)", kind="approximation",
                 note="n→∞ limit", color=F.color_for(1))
    if two_term is not None:
        F.add_theory(fig, ns, two_term, name="χ²/8 + [(7/64)χ⁴ − μ3/16]/n", kind="approximation",
                     note="two-term", color=F.color_for(2))
    if mix is not None:
        F.add_theory(fig, ns, np.full(ns.size, mix), name="I_mix/8 (i.i.d. mixture proxy)", kind="approximation",
                     note="optimistic", color=F.color_for(3))
    if notes:
        F.add_note(fig, "<br>".join(notes))
    return fig


def gdp_error_figure(ns, err_fixed, paths: dict[str, np.ndarray], *, epsilon0: float, delta: float,
                     n_mark: int) -> go.Figure:
    """Relative error of the GDP ε at δ vs n (log-log) with an n^{−1/2} guide."""
    fig = F.base_figure(f"Relative error of the GDP approximation at δ = {delta:.0e} (binary RR, canonical pair)",
                        "n (users, log scale)", "|ε_GDP(δ) / ε_exact(δ) − 1|  (log scale)",
                        log_x=True, log_y=True, height=420)
    ns = np.asarray(ns, dtype=float)
    F.add_theory(fig, ns, err_fixed, name=f"fixed ε0 = {epsilon0:.3g}", kind="exact",
                 note="exact vs GDP μ = √(χ²/n)", color=F.color_for(0), headline=True)  # the ε0 slider's curve
    for i, (name, err) in enumerate(paths.items()):
        F.add_theory(fig, ns, err, name=name, kind="exact", note="boundary path", color=F.color_for(i + 1))
    ok = np.isfinite(err_fixed) & (err_fixed > 0)
    if ok.any():
        i0 = int(np.flatnonzero(ok)[-1])
        F.add_theory(fig, ns, err_fixed[i0] * np.sqrt(ns[i0] / ns), name="slope −½ guide", kind="rate",
                     note="∝ n^(−1/2), anchored at the largest n", color="#777777")
    fig.add_vline(x=n_mark, line={"color": "#bbb", "width": 1, "dash": "dot"},
                  annotation_text="n slider", annotation_position="bottom left")
    return fig


def multimessage_figure(ms, mu_unb, mu_bun, mu_exact, *, m_mark: int, delta: float, title: str) -> go.Figure:
    """Bundled vs unbundled GDP μ against the number of messages m (smaller μ = more private)."""
    fig = F.base_figure(title, "m (messages per user)", "GDP μ  (log scale; smaller = more private)", log_y=True,
                        height=400)
    F.add_theory(fig, ms, mu_unb, name="unbundled √(m I_π/n)", kind="approximation", color=F.color_for(0))
    F.add_theory(fig, ms, mu_bun, name="bundled √(((1+χ²)^m − 1)/n)", kind="approximation", color=F.color_for(1))
    if mu_exact is not None:
        fig.add_trace(go.Scatter(x=ms, y=mu_exact, mode="markers", marker={"size": 8, "color": F.color_for(2)},
                                 name=f"exact unbundled, canonical pair, as the μ with the same ε at "
                                      f"δ={delta:.0e} [exact]"))
    fig.add_vline(x=m_mark, line={"color": "#bbb", "width": 1, "dash": "dot"},
                  annotation_text="m slider", annotation_position="top left")
    return fig


def tradeoff_figure(alpha, curves: dict[str, tuple[np.ndarray, str]], *, title: str, notes: list[str],
                    headline: str | None = None) -> go.Figure:
    """Trade-off curves drawn as the observer's advantage 1 − α − β(α) (0 = perfect privacy); ``headline`` names
    the curve the panel is about (the exact one, where it is computed).

    The trade-off curve β(α) of a private mechanism hugs the diagonal β = 1 − α; plotting the gap
    to the diagonal makes the differences between exact, GDP and mixture visible at any n.
    """
    fig = F.base_figure(title, "α (type I error of the observer's test)", "advantage 1 − α − β(α)",
                        height=430)
    for i, (name, (vals, kind)) in enumerate(curves.items()):
        F.add_theory(fig, alpha, 1.0 - np.asarray(alpha) - np.asarray(vals), name=name, kind=kind,
                     color=F.color_for(i), headline=name == headline)
    if notes:
        F.add_note(fig, "<br>".join(notes))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(rangemode="tozero")
    return fig


def solver_figure(rows: list[S.AffordableEpsilon0], *, target: float, delta: float, n: int, family: str) -> go.Figure:
    """Table: the largest affordable ε0 under each accounting and the resulting estimator variance."""
    ref = next((r.variance for r in rows if r.accounting == "exact" and math.isfinite(r.variance)), math.nan)

    def fmt(x, spec):
        return "—" if not math.isfinite(x) else format(x, spec)

    def kind(a: str) -> str:
        if a == "exact":
            return "worst case over all data sets (certified)"
        if a in ("gdp", "chernoff"):
            return S.ACCOUNTINGS[a][1] + ", canonical pair only (not a worst case)"
        return S.ACCOUNTINGS[a][1] + ", worst case over data sets"

    cols = [
        [S.ACCOUNTINGS[r.accounting][0] for r in rows],
        [kind(r.accounting) for r in rows],
        [fmt(r.epsilon0, ".3f") for r in rows],
        [fmt(r.epsilon, ".4f") for r in rows],
        [fmt(r.variance, ".3e") for r in rows],
        [fmt(r.variance / ref, ".2f") if math.isfinite(ref) else "—" for r in rows],
        [r.note for r in rows],
    ]
    header = ["accounting", "kind", "largest ε0", "shuffled ε at that ε0", "Var(π̂) ≈ 1/(n I)",
              "variance ÷ exact", "note"]
    fig = go.Figure(go.Table(header={"values": header, "fill_color": "#eaf2f8", "align": "left",
                                     "font": {"size": 12}},
                             cells={"values": cols, "align": "left", "height": 26, "font": {"size": 12}},
                             columnwidth=[2.2, 2.4, 1, 1.3, 1.3, 1, 1.8]))
    fig.update_layout(title={"text": f"How much ε0 can I afford? target (ε = {target:.3g}, δ = {delta:.0e}), "
                                     f"n = {n:,}, {family}", "x": 0.01, "font": {"size": 15}},
                      height=90 + 30 * (len(rows) + 1), margin={"l": 10, "r": 10, "t": 45, "b": 5})
    return fig


def gdp_error_sweep(epsilon0: float, ns, *, delta: float = 1e-6, a: float | None = None) -> np.ndarray:
    """|ε_GDP(δ)/ε_exact(δ) − 1| for binary RR at each n (μ = √(χ²/n), canonical pair).

    With ``a`` given, ε0 follows the boundary path e^{ε0} = a·n (a_n = a fixed), where the
    Gaussian approximation does not improve with n. NaN where ε0 would be ≤ 0.
    (The sup-distance between the trade-off curves is smaller, ∝ μ·n^{−1/2} ∝ 1/n, because both
    curves are within O(μ) of the diagonal; the relative ε error is what an accountant feels.)
    """
    out = []
    for n in ns:
        e0 = epsilon0 if a is None else math.log(a * n)
        if e0 <= 0:
            out.append(math.nan)
            continue
        R = S.binary_rr(e0)
        ex = shuffled_pair(R, int(n)).epsilon(delta)  # the canonical pair (what the GDP μ approximates)
        g = S.gdp_epsilon_at(S.gdp_mu(R, int(n)), delta)
        out.append(abs(g / ex - 1.0) if ex > 0 else math.nan)
    return np.array(out)


# -- the dashboard --------------------------------------------------------------------------------
class ShuffleAsymptoticsDashboard(Dashboard):
    """Shuffle-model privacy: exact curves, Fisher constant, GDP, and what accounting buys."""

    measured = False  # every curve is computed (exact, bound or asymptotic); nothing is sampled

    title = "Shuffle-model asymptotics: exact privacy, the Fisher constant and Gaussian DP"
    intro = (
        "n users each randomize one bit with a local randomizer (ε0-randomized response or k-RR); a shuffler "
        "releases only the histogram. The exact privacy of that histogram is close to a Gaussian shift with "
        "μ = √(I_π/n), where I_π is the randomizer's Fisher constant (χ² for binary RR). Everything here is "
        "computed exactly or from formulas — no randomness, so no seed."
    )
    paper = (
        "A. Shvets, <i>Universal Shuffle Asymptotics: Sharp Privacy Analysis in the Gaussian Regime</i>, "
        "arXiv:2602.09029 (2026). Comparison bounds: Feldman, McMillan, Talwar (FOCS 2021; SODA 2023); "
        "Balle, Bell, Gascón, Nissim (CRYPTO 2019)."
    )
    controls = [
        Control("epsilon0", "ε0 (local randomizer)", "log", 2.0, 0.1, 10.0, step=0.02,
                help="privacy parameter of each user's randomizer"),
        Control("n", "n (users, log scale)", "logint", 10_000, 10, 10**6, step=0.05,
                help="the library itself handles n = 10^7 and beyond; the page stops at 10^6 to stay interactive"),
        Control("family", "randomizer", "choice", "binary", options=(("binary randomized response", "binary"),
                                                                    ("k-ary randomized response", "krr"))),
        Control("alphabet", "k-RR alphabet size K", "int", 4, 3, 16, help="only used for k-ary RR"),
        Control("pi", "π = k/n (fraction with input 1)", "float", 0.0, 0.0, 0.5, step=0.01),
        Control("m", "m (messages per user)", "int", 4, 1, 10),
        Control("delta", "δ (target)", "log", 1e-6, 1e-12, 1e-2, step=0.25),
        Control("target_epsilon", "target ε (solver)", "log", 0.5, 0.05, 4.0, step=0.05),
    ]
    _R = ("epsilon0", "family", "alphabet")
    panels = [
        Panel("curve", "Exact privacy curve vs approximations and bounds", (*_R, "n", "pi", "delta"),
              "<b>Worst case over all neighbouring data sets</b> (thick black): for binary RR up to n = 600 every pair "
              "is evaluated (exact); beyond, binary RR uses a certified branch and bound over k, and k-RR (k ≥ 3) "
              "the privacy blanket evaluated exactly (upper end, every data set) against the pair \"others at a "
              "third symbol\" (lower end, one actual data set) — they meet to 0.1% from n ≈ 10⁴; the true worst "
              "case lies between. Thin solid: one pair only (k users hold 1, from π), both directions. "
              "Dash-dot GDP is an <i>approximation</i> (canonical pair); dashed lines are certified bounds "
              "(Chernoff: canonical pair only; FMT clones: every ε0-LDP randomizer and data set; privacy blanket "
              "Bennett bound of Balle et al. 2019: every data set). "
              "Try ε0 = 4, n = 10⁵: canonical pair ε ≈ 0.0847 at δ = 10⁻⁶, worst case ≤ 0.0849 (certified), FMT21 "
              "numerical ≈ 0.17, closed form 0.54. The links under the plot download the worst-case profile "
              "drawn (CSV / JSON)."),
        Panel("jsd", "n·JSD converges to I_π/8", (*_R, "n", "pi"),
              "Dots: exact n·JSD between neighbouring histograms. They settle on I_π/8 with a 1/n correction "
              "(two-term curve, canonical pair). Set π > 0 to see that the i.i.d. mixture constant I_mix/8 "
              "(dotted purple) lies <i>below</i> the truth: the mixture model over-states privacy."),
        Panel("gdp_error", "GDP approximation error vs n, and where it breaks down", ("epsilon0", "n", "delta"),
              "How far the GDP ε at the target δ is from the exact ε, relative to it. At fixed ε0 it falls like "
              "n^{−1/2} (parallel to the grey guide). On the boundary paths e^{ε0} = a·n (a_n = e^{ε0}/n fixed) "
              "it does not fall: counts become Poisson and the Gaussian picture fails."),
        Panel("multi", "Multi-message: unbundled beats bundled", (*_R, "n", "m", "delta"),
              "Each user sends m messages. Shuffled separately (unbundled), μ grows like √m; sent as one bundle, "
              "μ² grows like (1 + χ²)^m. Dots: the exact unbundled curve for binary outputs (canonical pair "
              "k = 0 only), converted to the μ with the same ε at the target δ. Any ε from m bundled reports is "
              "capped at the trivial m·ε0 (noted where it binds)."),
        Panel("tradeoff", "Trade-off curves: how well can an observer tell the neighbours apart?",
              (*_R, "n", "pi"),
              "The observer tests 'k users hold a 1' against 'k + 1 do'. β(α) is the best type II error at type I "
              "error α; we plot the advantage 1 − α − β (0 = perfect privacy; its maximum is δ(0), the total "
              "variation). Exact vs GDP T_μ; with π > 0 the mixture proxy's curve lies below (optimistic)."),
        Panel("solver", "How much ε0 can I afford?", ("family", "alphabet", "n", "delta", "target_epsilon"),
              "The largest local ε0 whose shuffled guarantee meets the target under each accounting, and the "
              "variance of estimating the fraction of 1-inputs at that ε0. A sharper accounting allows a larger "
              "ε0, i.e. less noise: the practical payoff of exact accounting. 'exact' is the worst case over all "
              "data sets (certified end); GDP and Chernoff describe the canonical pair only."),
    ]

    present_controls = ("epsilon0", "n", "family", "pi")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        # d3's ".3g" prints 1e-06 as 0.00000100: show δ in exponent form
        self.widgets["delta"].readout_format = ".0e"

    # -- panels -------------------------------------------------------------------------------
    no_headline = {
        "multi": "two approximations (bundled, unbundled) compared as equals, with exact dots for one of them",
        "solver": "a table, no curves",
    }

    def figure(self, panel: str, params: Mapping[str, Any]) -> go.Figure:
        return getattr(self, f"_fig_{panel}")(params)

    def _fig_curve(self, p):
        R, n, k, delta = _randomizer(p), p["n"], _k_of(p), p["delta"]
        e0 = p["epsilon0"]
        mu = S.gdp_mu(R, n, k)
        notes = []
        pair = None
        if _exact_ok(p):
            pair = self.memo(("pair", R.W0.tobytes(), R.W1.tobytes(), n, k), lambda: shuffled_pair(R, n, k=k))
        else:
            notes.append(f"exact k-RR curve drawn only while the trinomial grid is small (n ≤ {KRR_EXACT_MAX_N}, "
                         "fewer for k > 0)")
        e_hi = gdp_epsilon(mu, 1e-13)
        if pair is not None:
            e_hi = max(e_hi, pair.epsilon(1e-13))
        e_hi = min(R.local_epsilon, 1.05 * e_hi)
        eps = np.linspace(0.0, e_hi, 90)
        curves: dict[str, tuple[np.ndarray, np.ndarray, str]] = {}
        # the worst case over all neighbouring data sets (exhaustive, or certified upper + named-pair lower)
        e_w = np.linspace(0.0, e_hi, 36)
        prof = self.memo(("profile", R.W0.tobytes(), R.W1.tobytes(), R.inputs, n, e_hi, delta),
                         lambda: S.privacy_profile(R, n, epsilons=e_w, deltas=[delta], max_grid_cells=_GRID_CELLS,
                                                           rtol=PROFILE_RTOL))
        # the download links under the panel are made from this very result, when the panel is drawn
        self.results.setdefault("curve", {})["worst-case privacy profile"] = prof
        if prof.exhaustive:
            headline = "exact worst case over all data sets (every pair evaluated)"
            curves[headline] = (e_w, prof.delta_upper, "exact")
            notes.append(f"worst case at δ: ε = {prof.epsilon_upper[0]:.4g} (exact, exhaustive)")
        elif "certified bracket" in prof.method:
            how = ("branch and bound over k" if "branch and bound" in prof.method
                   else "exact privacy blanket")
            headline = "worst case over all data sets ≤ (certified upper end)"
            curves[headline] = (e_w, prof.delta_upper, "bound")
            curves["worst case ≥ worst pair found"] = (e_w, prof.delta_lower, "exact")
            notes.append(f"worst case at δ: ε ∈ [{prof.epsilon_lower[0]:.4g}, {prof.epsilon_upper[0]:.4g}] "
                         f"(certified, {how}; ≤ {PROFILE_RTOL:.0%} wide here, the library's default 0.1%)")
        else:
            headline = "worst case ≤ certified bound (min of exact blanket, clone pairs)"
            curves[headline] = (e_w, prof.delta_upper, "bound")
            curves["worst case ≥ worst named pair (exact pair)"] = (e_w, prof.delta_lower, "exact")
            notes.append(f"worst case at δ: ε ∈ [{prof.epsilon_lower[0]:.4g}, {prof.epsilon_upper[0]:.4g}] "
                         f"({prof.method})")
        if pair is not None:
            curves[f"this pair only (k = {k}): add a 1 (T_{{n,k+1}} vs T_{{n,k}})"] = (eps, pair.delta(eps, "forward"),
                                                                                    "exact")
            curves[f"this pair only (k = {k}): remove a 1"] = (eps, pair.delta(eps, "reverse"), "exact")
        curves[f"GDP μ = √(I_π/n) = {mu:.3g}"] = (eps, S.gdp_delta_curve(mu, eps), "approximation")
        if k == 0:
            e_ch = eps[::4]
            curves["Chernoff (canonical pair only)"] = (e_ch, self.memo(("chernoff", R.W0.tobytes(), R.W1.tobytes(), n,
                                                                     e_hi), lambda: S.chernoff_delta(R, n, e_ch)),
                                                   "bound")
        else:
            notes.append("Chernoff bound: canonical pair (π = 0) only")
        # FMT clone pairs: few points per curve (each point sums over ~20 sd of clone counts: the
        # costliest curve on the page at large n), cached per (ε0, n)
        e_fmt = np.linspace(0.0, e_hi, 10 if n <= 100_000 else 6)
        variants = ("fmt21", "fmt23") if p["family"] == "binary" else ("fmt21",)
        for v in variants:
            label = ("FMT21 clones (any ε0-LDP, worst case)" if v == "fmt21" else "FMT23 clones (RR, worst case)")
            curves[label] = (e_fmt, self.memo(("fmt", v, e0, n, e_hi), lambda v=v: S.fmt_delta(e0, n, e_fmt,
                                                                                               variant=v)), "bound")
        if R.krr is not None:  # BBGN19 privacy blanket, Bennett numerical bound (closed form in M: cheap)
            curves["privacy blanket, Bennett (BBGN19, worst case)"] = (eps, S.blanket_delta(e0, n, eps, k=R.krr[1]),
                                                                      "bound")
        lam = S.poisson_lambda(e0, n)
        if p["family"] == "binary" and k == 0 and lam <= 30:
            curves[f"Poisson limit, λ = n/(e^ε0+1) = {lam:.3g}"] = (eps, S.poisson_delta(lam, eps), "approximation")
            notes.append(f"Poisson regime (a_n = e^ε0/n = {math.exp(e0) / n:.2g}): reverse δ has a floor "
                         f"≈ e^(−λ) = {math.exp(-lam):.2g}")
        cf = S.fmt21_epsilon(e0, n, delta)
        if cf >= e_hi:
            notes.append(f"FMT21 closed form at target δ: ε = {cf:.3g} (off the right edge)")
        title = f"δ(ε) for {R.name}, n = {n:,}, k = {k} users with input 1"
        fig = privacy_curve_figure(curves, delta=delta, title=title, notes=notes, headline=headline)
        if cf < e_hi:
            fig.add_trace(go.Scatter(x=[cf], y=[delta], mode="markers", marker={"symbol": "x", "size": 11,
                                                                                  "color": "#000"},
                                     name=f"FMT21 closed form at target δ: ε = {cf:.3g} [bound]"))
        return fig

    def _fig_jsd(self, p):
        R, n = _randomizer(p), p["n"]
        pi = p["pi"]
        ns = np.unique(np.round(np.logspace(1, math.log10(max(n, 20)), 22)).astype(int))
        exact, notes = [], []
        for nj in ns:
            kj = _k_of(p, int(nj))
            if not _exact_ok(p, int(nj)):
                exact.append(math.nan)
                continue
            try:
                exact.append(nj * self.memo(("jsd", R.W0.tobytes(), R.W1.tobytes(), int(nj), kj),
                                            lambda nj=nj, kj=kj: S.jsd_exact(R, int(nj), k=kj)))
            except _EXACT_FAIL:
                exact.append(math.nan)
        if p["family"] != "binary":
            notes.append("exact k-RR dots only where the trinomial grid is small")
        asym = S.fisher_constant(R, pi) / 8.0
        two = np.array([nj * S.jsd_two_term(R, int(nj)) for nj in ns]) if pi == 0 else None
        mix = S.mixture_constant(R, pi) / 8.0 if pi > 0 else None
        notes.append(f"I_π/8 = {asym:.4g}" + (f", I_mix/8 = {mix:.4g}" if mix is not None else ""))
        return jsd_figure(ns, np.array(exact, dtype=float), asym, two, mix,
                          title=f"n·JSD vs n for {R.name}, π = {pi:g}", notes=notes)

    def _fig_gdp_error(self, p):
        e0, d = p["epsilon0"], p["delta"]
        ns = np.unique(np.round(np.logspace(1.3, 6, 15)).astype(int))
        err = self.memo(("gdp_err", e0, d), lambda: gdp_error_sweep(e0, ns, delta=d))
        paths = {}
        for a in (0.05, 1.0):
            paths[f"e^ε0 = {a:g}·n (a_n = {a:g})"] = self.memo(("gdp_err_path", a, d), lambda a=a: gdp_error_sweep(
                e0, ns, delta=d, a=a))
        return gdp_error_figure(ns, err, paths, epsilon0=e0, delta=d, n_mark=p["n"])

    def _fig_multi(self, p):
        R, n, delta = _randomizer(p), p["n"], p["delta"]
        ms = np.arange(1, 11)
        mu_unb = np.array([S.gdp_mu_multi(R, n, int(m)) for m in ms])
        mu_bun = np.array([S.gdp_mu_multi(R, n, int(m), bundled=True) for m in ms])
        mu_exact = None
        if p["family"] == "binary":
            mu_exact = []
            for m in ms:
                e = S.exact_epsilon(R, n, delta, k=0, messages=int(m))  # canonical pair (named)
                mu_exact.append(_mu_matching(e, delta))
            mu_exact = np.array(mu_exact)
        fig = multimessage_figure(ms, mu_unb, mu_bun, mu_exact, m_mark=p["m"], delta=delta,
                                  title=f"GDP μ vs messages per user, {R.name}, n = {n:,}")
        bun = S.gdp_epsilon_multi(R, n, int(p["m"]), delta, bundled=True)
        if bun.capped:
            F.add_note(fig, f"m = {p['m']} bundled: the GDP ε ({bun.uncapped:.3g}) exceeds the trivial bound "
                            f"m·ε0 = {bun.cap:.3g}, which binds (ε ≤ {bun.epsilon:.3g})")
        return fig

    def _fig_tradeoff(self, p):
        R, n, k, pi = _randomizer(p), p["n"], _k_of(p), p["pi"]
        alpha = np.linspace(0.0, 1.0, 401)
        curves: dict[str, tuple[np.ndarray, str]] = {}
        notes = []
        if _exact_ok(p):
            pair = self.memo(("pair", R.W0.tobytes(), R.W1.tobytes(), n, k), lambda: shuffled_pair(R, n, k=k))
            curves[f"exact, this pair only (T_{{n,k}} vs T_{{n,k+1}}, k = {k})"] = (pair.tradeoff(alpha), "exact")
        else:
            notes.append("exact k-RR curve: small n only")
        mu = S.gdp_mu(R, n, k)
        curves[f"GDP T_μ, μ = √(I_π/n) = {mu:.3g}"] = (S.tradeoff_gdp(mu, alpha), "approximation")
        if pi > 0:
            mu_mix = math.sqrt(S.mixture_constant(R, pi) / n)
            curves[f"GDP with mixture μ_mix = {mu_mix:.3g} (optimistic)"] = (S.tradeoff_gdp(mu_mix, alpha),
                                                                          "approximation")
        exact = next((name for name, (_, kind) in curves.items() if kind == "exact"), None)
        return tradeoff_figure(alpha, curves, title=f"Trade-off for {R.name}, n = {n:,}, k = {k}", notes=notes,
                               headline=exact)

    def _fig_solver(self, p):
        n, delta, target = p["n"], p["delta"], p["target_epsilon"]
        kk = 2 if p["family"] == "binary" else p["alphabet"]
        accs = [a for a in S.ACCOUNTINGS if not (a == "fmt23_numerical" and kk > 2)]

        def run():
            return [S.affordable_epsilon0(target, delta, n, accounting=a, k=kk, tol=2e-3) for a in accs]

        rows = self.memo(("solver", n, delta, target, kk), run)
        fam = "binary RR" if kk == 2 else f"{kk}-RR"
        return solver_figure(rows, target=target, delta=delta, n=n, family=fam)

    # -- audit ---------------------------------------------------------------------------------
    audit_description = (
        "Audits shuffled <b>binary</b> randomized response at the current ε0, n and δ (the k-RR choice is not "
        "audited here) on neighbours T<sub>n,k</sub> vs T<sub>n,k+1</sub> with the worst k found (every k for "
        "n ≤ 600, so the exact worst case; k ∈ {0,1,2,3,4,8} beyond). Claimed ε: the FMT23 numerical clone "
        "bound (a certified bound). Exact ε: that pair's exact two-sided ε(δ). Statistical ε̂ (canonical pair "
        "k = 0): "
        "histograms sampled in bulk, scored by the exact log-likelihood ratio, Clopper–Pearson at 95%. "
        "At n ≳ 1000 ε̂ is ≈ 0 for any feasible run count (the pair is a Gaussian shift with tiny μ) — that is "
        "why the exact audit matters; try n = 10–50 to see ε̂ bite. The broken variant runs the randomizer at "
        "2ε0 while claiming ε0."
    )
    audit_runs = (200_000, 2_000_000)

    def audit_report(self, params: Mapping[str, Any], *, broken: bool, runs: int, rng: int,
                     progress) -> AuditReport:
        e0, n, d = float(params["epsilon0"]), int(params["n"]), float(params["delta"])
        variant = "broken_randomizer" if broken else "correct"
        ex = SA.exact_shuffle_audit(e0, n, d, accounting="fmt23_numerical", variant=variant)
        st = SA.statistical_shuffle_audit(e0, n, d, runs=runs, accounting="fmt23_numerical", variant=variant,
                                          rng=rng, progress=progress)
        gdp = SA.claimed_epsilon(e0, n, d, accounting="gdp")
        note = (f" GDP approximation ε = {gdp:.4f}"
                + (" — exceeded by the exact ε: expected at finite n (an approximation, not a bound), "
                   "not a broken mechanism." if ex.epsilon > gdp else "."))
        name = ("BROKEN (randomizer runs at 2ε0, claims ε0) " if broken else "") + \
            f"shuffled binary RR, ε0 = {e0:.3g}, n = {n}"
        return AuditReport(
            mechanism=name,
            neighbours=(f"exact ε: worst pair found (T_n,k vs T_n,k+1); statistical ε̂: n zeros vs one user switched "
                        f"to 1; claim = FMT23 numerical bound.{note}"),
            claimed_epsilon=ex.claimed_epsilon if ex.claimed_epsilon is not None else math.inf, delta=d,
            exact_epsilon=ex.epsilon, epsilon_lower=None if st.cancelled else st.epsilon_lower,
            confidence=st.confidence, runs=st.runs, seconds=st.seconds, cancelled=st.cancelled,
            test_advantage=None if st.cancelled else st.advantage)

    # -- reproduce ------------------------------------------------------------------------------
    def reproduce(self, params: Mapping[str, Any]) -> str:
        p = params
        rand = (f"binary_rr({p['epsilon0']!r})" if p["family"] == "binary"
                else f"k_rr({p['epsilon0']!r}, {p['alphabet']})")
        n, k, d = p["n"], _k_of(p), p["delta"]
        kk = 2 if p["family"] == "binary" else p["alphabet"]
        return (
            "# deterministic: exact computations and formulas, no random numbers (no seed needed)\n"
            "from dpexplore.shuffle import *\n"
            f"R = {rand}\n"
            f"worst_case_epsilon(R, {n}, {d!r})                # worst case over all data sets (with lower end)\n"
            f"exact_epsilon(R, {n}, {d!r})                      # = worst_case_epsilon(...).epsilon\n"
            f"exact_delta(R, {n}, [0.1, 0.2], k={k})           # one pair only: δ(ε), two-sided max\n"
            f"exact_epsilon(R, {n}, {d!r}, k={k})               # one pair only: ε at the target δ\n"
            f"privacy_profile(R, {n}, deltas=[{d!r}]).to_csv()  # the downloadable profile\n"
            f"gdp_mu(R, {n}, k={k}), fisher_constant(R, {p['pi']!r})\n"
            f"chernoff_epsilon(R, {n}, {d!r}); fmt_epsilon({p['epsilon0']!r}, {n}, {d!r})\n"
            f"jsd_exact(R, {n}, k={k}), jsd_asymptotic(R, {n}, k={k})\n"
            f"gdp_mu_multi(R, {n}, {p['m']}), gdp_mu_multi(R, {n}, {p['m']}, bundled=True)\n"
            f"affordable_epsilon0({p['target_epsilon']!r}, {d!r}, {n}, accounting='exact', k={kk})\n"
            "# audit (binary RR, the worst pair found; statistical part: canonical pair, seeded):\n"
            "from dpexplore.shuffle import audit\n"
            f"audit.exact_shuffle_audit({p['epsilon0']!r}, {n}, {d!r}, accounting='fmt23_numerical')\n"
            f"audit.statistical_shuffle_audit({p['epsilon0']!r}, {n}, {d!r}, runs=200_000, rng=0)\n"
        )


def _mu_matching(epsilon: float, delta: float) -> float:
    """The GDP μ whose ε at δ equals ``epsilon`` (to show an exact curve on the μ scale)."""
    if not math.isfinite(epsilon):
        return math.nan
    if epsilon <= 0:
        return 0.0
    f = lambda mu: gdp_epsilon(mu, delta) - epsilon  # noqa: E731
    hi = 1.0
    while f(hi) < 0 and hi < 1e3:
        hi *= 2.0
    return float(optimize.brentq(f, 1e-9, hi, xtol=1e-10))
