"""Course page "The local model": frequency oracles (k-RR, basic RAPPOR, OUE, OLH, Hadamard response) on a
k-choice question, and local vs shuffle vs central at the same ε.

Four panels: the five oracles' error vs ε beside Wang et al.'s exact variances; one release's estimates beside
the true answers (with the heavy hitters); local vs shuffle vs central; claimed vs exact vs measured ε of every
oracle and of a broken OUE.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dpexplore.core.risk import advantage_bound
from dpexplore.local import experiments as X
from dpexplore.local.audit import audit_oracle
from dpexplore.local.data import true_counts
from dpexplore.local.mechanisms import ORACLE_NAMES, ORACLES, estimate, randomize, top_k
from dpexplore.local.models import shuffle_central_epsilon, shuffle_epsilon0, shuffle_method
from dpexplore.local.theory import count_variance

from . import figures as F
from .audit import AuditReport
from .basics import pair_audit_report
from .class_data import load_class_data, read_as_instructor, split_poll_param
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["DELTA", "LocalDashboard", "audit_figure", "class_figure", "estimates_figure", "models_figure",
           "oracles_figure", "class_population", "read_class_reports"]

TRIALS = 60
MODEL_TRIALS = 60
AUDIT_RUNS = 20_000
#: δ of the shuffled release (the other models are pure ε-DP)
DELTA = 1e-6
HEAVY = 3
LEGEND_INSIDE = {"orientation": "v", "yanchor": "top", "y": 0.98, "xanchor": "right", "x": 0.99,
                 "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}}
ORACLE_COLORS = dict(zip(ORACLES, F.COLORS))
MODEL_COLORS = {"central Laplace": F.COLORS[0], "local k-RR": F.COLORS[1], "local OUE": F.COLORS[2],
                "shuffled k-RR": F.COLORS[3]}


def _counts(p: Mapping[str, Any]) -> np.ndarray:
    v, k = X.page_data(k=p["k"], n=p["n"])
    return true_counts(v, k)


def oracles_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Squared error of the frequency estimates vs ε for every oracle: measured, and exact (Wang et al. 2017)."""
    c = _counts(p)
    eps = np.asarray(res.grid, dtype=float)
    fine = np.geomspace(eps[0], eps[-1], 40)
    fig = F.base_figure("", "ε per report (log scale)", "squared error of the frequencies (log scale)", log_x=True,
                        log_y=True, height=380)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    for i, name in enumerate(res.series):
        o = next(k for k, v in ORACLE_NAMES.items() if v == name)
        exact = [X.expected_mse(o, counts=c, epsilon=e) for e in fine]
        F.add_theory(fig, fine, exact, name=f"{name}: Wang et al. variance", kind="exact", color=ORACLE_COLORS[o],
                     showlegend=o == p["oracle"])
        F.add_measured(fig, eps, res.mean[i], res.lower[i], res.upper[i], name=name, color=ORACLE_COLORS[o],
                       trials=res.trials, headline=o == p["oracle"])
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dot", "width": 1})
    best = min(ORACLES, key=lambda o: X.expected_mse(o, counts=c, epsilon=p["epsilon"]))
    mse = X.expected_mse(p["oracle"], counts=c, epsilon=p["epsilon"])
    F.add_note(fig, f"n = {int(c.sum())} answers, k = {p['k']} choices. At ε = {p['epsilon']:.3g}: "
                    f"{ORACLE_NAMES[p['oracle']]} has typical error ±{math.sqrt(mse):.3g} per frequency (exact); "
                    f"the most accurate here is {ORACLE_NAMES[best]}.", y=0.02)
    return fig


def estimates_figure(p: Mapping[str, Any]) -> go.Figure:
    """The true answer shares beside one release's estimates (± 2 exact standard deviations); top answers marked."""
    v, k = X.page_data(k=p["k"], n=p["n"])
    c = true_counts(v, k)
    est = estimate(randomize(v, oracle=p["oracle"], k=k, epsilon=p["epsilon"], rng=p["seed"]))
    sd = np.sqrt(count_variance(p["oracle"], n=v.size, k=k, epsilon=p["epsilon"], count=c)) / v.size
    x = np.arange(k)
    fig = F.base_figure("", "answer (choice number)", "share of the class", height=340)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45}, barmode="group")
    fig.add_trace(go.Bar(x=x, y=c / v.size, name="true shares (not published)", marker={"color": "#bbbbbb"}))
    fig.add_trace(go.Scatter(x=x, y=est.frequencies, mode="markers", name=f"one release: {ORACLE_NAMES[p['oracle']]} "
                             "estimate ± 2 sd", marker={"color": ORACLE_COLORS[p["oracle"]], "size": 10},
                             error_y={"type": "data", "array": 2 * sd}))
    F.mark_headline(fig.data[-1])
    hh = top_k(est, min(HEAVY, k))
    truth_top = set(np.argsort(-c, kind="stable")[:min(HEAVY, k)].tolist())
    found = len(truth_top & set(hh.tolist()))
    fig.add_trace(go.Scatter(x=hh, y=est.frequencies[hh] + 2 * sd[hh], mode="markers", name=f"estimated top {len(hh)}",
                             marker={"symbol": "star", "size": 13, "color": "#000"}))
    F.add_note(fig, f"Error bars: ± 2 exact standard deviations. The estimates are unbiased, so some come out "
                    f"negative. Heavy hitters: {found} of the true top {len(hh)} found.")
    return fig


def read_class_reports(code: object, environ: Mapping[str, str] | None = None, *, store=None):
    """A k-choice class poll's stored reports (:class:`dpexplore.classroom.kary.KaryReports`), read as its creator
    reads its class view (the page's instructor identity); raises ``PollError`` (a ``ValueError``) saying why not.

    Examples
    --------
    >>> import tempfile
    >>> from dpexplore.classroom.store import PollStore
    >>> store = PollStore(tempfile.mkdtemp())
    >>> poll = store.create_kary_poll("Favourite?", ["a", "b", "c"], oracle="krr", epsilon=1.0)
    >>> for r in (0, 2, 2):
    ...     store.submit_report(poll.code, store.issue_token(poll.code), r)
    >>> read_class_reports(poll.code.lower(), {}, store=store).n
    3
    """
    def read(st, code: str, who: str):
        from dpexplore.classroom.store import PollError

        reports = st.kary_reports(code, creator=who)
        if reports.n == 0:
            raise PollError(f"the class poll {code} has no answers yet")
        return reports

    return read_as_instructor(code, read, environ, store=store)


def class_figure(reports, code: str) -> go.Figure:
    """What the server learns from the class's own stored reports: each choice's estimated share ± 2 standard
    errors (the exact variance of Wang et al. at the estimate clipped to [0, n], as the poll's class view)."""
    r = reports.as_local_result()
    est = estimate(r)
    n, k = reports.n, reports.k
    c_hat = np.clip(est.counts, 0.0, n)
    sd = np.sqrt(count_variance(reports.oracle, n=n, k=k, epsilon=reports.epsilon, count=c_hat)) / n
    labels = [lab if len(lab) <= 18 else lab[:17] + "…" for lab in reports.labels]
    fig = F.base_figure("", "answer", "share of the class", height=340)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    fig.add_trace(go.Scatter(x=labels, y=est.frequencies, mode="markers",
                             name=f"the class's {ORACLE_NAMES[reports.oracle]} estimate ± 2 sd",
                             marker={"color": ORACLE_COLORS[reports.oracle], "size": 10},
                             error_y={"type": "data", "array": 2 * sd}))
    F.mark_headline(fig.data[-1])
    F.add_note(fig, f"Poll {html.escape(code)}: {n} stored reports, k = {k}, ε = {reports.epsilon:.3g} per report. "
                    "The true answers were never stored: only these randomized reports. Error bars: ± 2 standard "
                    "deviations (exact variance at the clipped estimate).")
    return fig


def class_population(reports) -> np.ndarray:
    """The room's answers as estimated from its stored reports: the debiased counts, clipped at 0 and rounded
    (largest remainders) to whole counts that sum to the number of reports; a value per person, sorted. The true
    answers were never stored, so this is the best stand-in the page has for panel 3.

    Examples
    --------
    >>> from dpexplore.classroom.kary import KaryReports
    >>> r = KaryReports(k=3, oracle="krr", epsilon=8.0, labels=("a", "b", "c"), reports=np.array([0, 2, 2, 2]))
    >>> class_population(r).tolist()
    [0, 2, 2, 2]
    """
    n, k = reports.n, reports.k
    c = np.clip(estimate(reports.as_local_result()).counts, 0.0, None)
    share = c / c.sum() if c.sum() > 0 else np.full(k, 1.0 / k)
    raw = share * n
    whole = np.floor(raw).astype(int)
    rest = n - int(whole.sum())
    whole[np.argsort(-(raw - whole), kind="stable")[:rest]] += 1
    return np.repeat(np.arange(k), whole)


def models_figure(res, p: Mapping[str, Any], counts: np.ndarray | None = None, data_note: str = "") -> go.Figure:
    """Local vs shuffle vs central at the same ε: measured squared error and the exact expected values (on the
    page's generated answers, or on ``counts`` when given)."""
    c = _counts(p) if counts is None else np.asarray(counts)
    eps = np.asarray(res.grid, dtype=float)
    fig = F.base_figure("", "ε of the whole release (log scale)", "squared error of the frequencies (log scale)",
                        log_x=True, log_y=True, height=380)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    for i, name in enumerate(res.series):
        exact = [X.expected_mse(name, counts=c, epsilon=e, delta=DELTA) for e in eps]
        label = name + (" (ε, δ = 10⁻⁶)" if name.startswith("shuffled") else " (ε, δ = 0)")
        F.add_theory(fig, eps, exact, name=f"{name}: exact", kind="exact", color=MODEL_COLORS[name],
                     showlegend=False)
        F.add_measured(fig, eps, res.mean[i], res.lower[i], res.upper[i], name=label, color=MODEL_COLORS[name],
                       trials=res.trials, headline=name == "shuffled k-RR")
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dot", "width": 1})
    n = int(c.sum())
    on_grid = dict(zip((float(e) for e in res.grid), res.extras.get("epsilon0", ())))
    e0 = on_grid.get(float(p["epsilon"])) or shuffle_epsilon0(p["epsilon"], n=n, k=p["k"], delta=DELTA)
    cert = shuffle_central_epsilon(e0, n=n, k=p["k"], delta=DELTA)
    how = shuffle_method(e0, n=n, k=p["k"], delta=DELTA)
    ratio = X.expected_mse("local k-RR", counts=c, epsilon=p["epsilon"]) / X.expected_mse(
        "central Laplace", counts=c, epsilon=p["epsilon"])
    F.add_note(fig, f"At ε = {p['epsilon']:.3g}, n = {n}: each shuffled report may use ε0 = {e0:.3g}, because the "
                    f"shuffled histogram is then ({cert:.3g}, 10⁻⁶)-DP at most (paper 4's certified worst case over "
                    f"all neighbouring data sets: {how}). Local k-RR's expected error is {ratio:.3g}× the central one "
                    "(exact)." + (" " + data_note if data_note else ""), y=0.02)
    return fig


def audit_figure(audits: Mapping[str, Any], p: Mapping[str, Any]) -> go.Figure:
    """Claimed vs exact vs measured ε̂ of each oracle and of the broken OUE."""
    names = [ORACLE_NAMES[o].replace(" (basic RAPPOR)", "<br>(RAPPOR)").replace("Hadamard response", "Hadamard")
             for o in ORACLES] + ["BROKEN OUE<br>(q for 2ε)"]
    rows = [audits[o] for o in ORACLES] + [audits["broken"]]
    claimed = [a.claimed_epsilon for a in rows]
    exact = [a.exact_epsilon for a in rows]
    measured = [a.epsilon_lower for a in rows]
    top = max(max(exact), max(measured), max(claimed))
    pos = np.arange(1, len(rows) + 1)
    fig = F.base_figure("", "", "ε", height=380)
    fig.add_trace(go.Bar(x=pos, y=claimed, name="claimed ε", marker={"color": "#bbbbbb"}))
    fig.add_trace(go.Bar(x=pos, y=exact, name="exact ε (worst pair of values, from the output law)",
                         marker={"color": F.COLORS[0]}, text=[f"{e:.2f}" for e in exact], textposition="outside"))
    fig.add_trace(go.Bar(x=pos, y=measured, name="measured ε̂ (95 % lower bound)", marker={"color": F.COLORS[3]},
                         text=[f"{m:.2f}" for m in measured], textposition="outside"))
    fig.update_layout(barmode="group", margin={"l": 60, "r": 20, "t": 20}, legend=LEGEND_INSIDE)
    fig.update_xaxes(tickmode="array", tickvals=list(pos), ticktext=names, tickfont={"size": 12})
    fig.update_yaxes(range=[0, top * 1.6])
    bad = [n.replace("<br>", " ") for n, a in zip(names, rows) if a.violation]
    adv = advantage_bound(p["epsilon"])
    F.add_note(fig, f"k = {p['k']}, {AUDIT_RUNS:,} reports per value. Refuted: {', '.join(bad) if bad else 'none'}. "
                    f"At ε = {p['epsilon']:.3g} an attacker who sees one report tells the two values apart with "
                    f"advantage at most {adv:.2f}.")
    return fig


class LocalDashboard(Dashboard):
    """Course, week 8: the local model, frequency oracles, and shuffling."""

    title = "Course · The local model: frequency oracles, and local vs shuffle vs central"
    intro = ("Nobody trusts the curator: every person randomizes their own answer to a question with k choices "
             "before sending it. The server can only estimate how many chose each answer. Five ways to randomize "
             "(the <b>frequency oracles</b> of Google's RAPPOR and of Wang et al.) trade noise against k. Then the "
             "same ε three ways: a trusted curator (central), nobody trusted (local), and a trusted shuffler. "
             "Data: answers generated with a fixed seed from a Zipf law (a few popular answers, a long tail).")
    paper = ("Near &amp; Abuah, <i>Programming Differential Privacy</i> ch. 13; Wang, Blocki, Li &amp; Jha (2017), "
             "<i>Locally differentially private protocols for frequency estimation</i>, USENIX Security; Erlingsson, "
             "Pihur &amp; Korolova (2014), <i>RAPPOR</i>, CCS; Acharya, Sun &amp; Zhang (2019), <i>Hadamard "
             "response</i>, AISTATS; shuffled accounting: dpexplore paper 4 (certified worst case).")
    controls = [
        Control("oracle", "oracle", "choice", "krr", options=tuple((ORACLE_NAMES[o], o) for o in ORACLES)),
        Control("epsilon", "ε (privacy budget)", "log", 1.0, 0.1, 8.0, step=0.05),
        Control("k", "choices k", "int", 8, 2, 32),
        Control("n", "people n", "logint", 1000, 100, 10_000, step=0.05),
        Control("seed", "seed", "int", 0, 0, 9999),
    ]
    panels = [
        Panel("oracles", "1. Five frequency oracles: error vs ε", depends_on=("oracle", "epsilon", "k", "n", "seed"),
              caption=f"Points: measured over {TRIALS} releases; lines: the exact variances of Wang et al. (2017). "
                      "k-RR wins for small k or large ε; the unary encodings, OLH and Hadamard response do not "
                      "get worse as k grows."),
        Panel("estimates", "2. One release: what the server learns", depends_on=("oracle", "epsilon", "k", "n", "seed"),
              caption="Grey: the true shares (never sent). Colour: the server's unbiased estimates from the "
                      "randomized reports, with the heavy hitters it would publish."),
        Panel("models", "3. Local vs shuffle vs central at the same ε", depends_on=("epsilon", "k", "n", "seed"),
              caption=f"Points: measured over {MODEL_TRIALS} releases; thin lines: exact. Central adds Laplace noise "
                      "of scale 2/ε to each count (one person's answer replaced moves two counts). The shuffler "
                      "lets each person use a larger ε0 for the same central ε."),
        Panel("audit", "4. Audit: claimed vs exact vs measured ε", depends_on=("epsilon", "k", "seed"),
              caption="Grey: the claim. Blue: the exact ε from the output law. Pink: ε̂, a lower bound on the true ε "
                      "at 95 % confidence. A blue or pink bar above the grey one refutes the claim."),
    ]

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        data = dict(k=p["k"], n=p["n"])
        if panel == "oracles":
            res = self.experiment("oracles", "", X.oracle_mse_vs_epsilon, epsilons=list(X.EPSILONS), trials=TRIALS,
                                  rng=p["seed"], **data)
            return oracles_figure(res, p)
        if panel == "estimates":
            if self._class is not None:
                return class_figure(self._class, self._class_code)
            return estimates_figure(p)
        if panel == "models" and self._class is not None:  # the room's answers, as estimated from its reports
            values = class_population(self._class)
            q = dict(p, k=self._class.k, n=int(values.size))
            res = self.experiment("models-class", "", X.model_mse_vs_epsilon, delta=DELTA, epsilons=list(X.EPSILONS),
                                  trials=MODEL_TRIALS, rng=p["seed"], k=q["k"], values=values)
            return models_figure(res, q, counts=true_counts(values, q["k"]), data_note=(
                f"Data: the room's answers as estimated from the {self._class.n} reports of poll "
                f"{html.escape(self._class_code)} (debiased, rounded; the true answers were never stored)."))
        if panel == "models":
            res = self.experiment("models", "", X.model_mse_vs_epsilon, delta=DELTA, epsilons=list(X.EPSILONS),
                                  trials=MODEL_TRIALS, rng=p["seed"], **data)
            return models_figure(res, p)
        if panel == "audit":
            def run():
                out = {o: audit_oracle(o, k=p["k"], epsilon=p["epsilon"], runs=AUDIT_RUNS, rng=p["seed"])
                       for o in ORACLES}
                out["broken"] = audit_oracle("oue", k=p["k"], epsilon=p["epsilon"], broken=True, runs=AUDIT_RUNS,
                                             rng=p["seed"])
                return out
            audits = self.memo(("audit", p["k"], p["epsilon"], p["seed"]), run)
            return audit_figure(audits, p)
        raise ValueError(f"unknown panel {panel!r}")

    #: the k-choice class poll's stored reports behind panel 2 (``?poll=CODE``), or None: the generated answers
    _class = None
    _class_code = ""

    def _parse_query(self, qs: str):
        """The URL's ``poll=CODE`` (panel 2 shows the class's own stored reports), then the kit's parameters."""
        rest, code = split_poll_param(qs)
        values, options, notes = super()._parse_query(rest)
        if code is not None:
            self._class, why = load_class_data(code, read_class_reports)
            if self._class is not None:
                self._class_code = code.upper()
                notes.append(f"Panels 2 and 3 use the class's own data: the {self._class.n} reports stored by the "
                             f"k-choice poll {html.escape(self._class_code)} ({ORACLE_NAMES[self._class.oracle]}, "
                             f"ε = {self._class.epsilon:.3g}; panel 3 runs on the answers they estimate); the k and n "
                             "sliders do not change them. Panels 1 and 4 use the generated answers.")
            else:
                notes.append(f"URL parameter poll ignored: {why}. The answers are generated.")
        return values, options, notes

    def reproduce(self, p: Mapping[str, Any]) -> str:
        return ("from dpexplore.local import estimate, randomize, top_k\n"
                "from dpexplore.local.experiments import page_data\n"
                f"v, k = page_data(k={p['k']}, n={p['n']})\n"
                f"r = randomize(v, oracle={p['oracle']!r}, k=k, epsilon={p['epsilon']!r}, rng={p['seed']})\n"
                "e = estimate(r)\n"
                f"print(e.frequencies.round(3), top_k(e, {min(HEAVY, p['k'])}))\n")

    audit_description = (
        "Audits one report of the chosen oracle on the pair 'this person's value is 0' vs 'is 1': the exact ε from "
        "the output law (for the unary encodings, the largest likelihood ratio over all bit vectors), and ε̂ from "
        "reports scored by the exact likelihood ratio (Clopper–Pearson, 95 %). The broken variant is an OUE whose "
        "0-bits flip with the probability for 2ε while it claims ε.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        oracle = "oue" if broken else p["oracle"]
        return pair_audit_report(audit_oracle(oracle, k=p["k"], epsilon=p["epsilon"], broken=broken, runs=runs,
                                              rng=rng, progress=progress))
