"""Course page "Private statistics": counts, histograms, means and medians of a real table's column, with
clipping, the unit of privacy and the ε an accuracy target needs.

Four panels: the error vs ε split into clipping bias² + noise variance; the released histogram beside the
true one, or (mean, median) the error vs the clipping bound with the best bound marked; the unit of privacy
(rows per person) and its cost; the inverse view (accuracy target → ε → what it means to an attacker).
"""

from __future__ import annotations

import functools
import html
from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from dpexplore.core.risk import posterior_bound
from dpexplore.statistics import experiments as X
from dpexplore.statistics.audit import audit_statistic
from dpexplore.statistics.data import (
    DATASET_LICENSE,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_COLUMNS,
    MAX_UPLOAD_ROWS,
    PUBLIC_BOUNDS,
    parse_csv,
)
from dpexplore.statistics.mechanisms import group_privacy, true_histogram
from dpexplore.statistics.theory import epsilon_for_accuracy

from . import figures as F
from .audit import AuditReport
from .basics import pair_audit_report
from .controls import Control
from .dashboard import Dashboard, Panel

__all__ = ["StatisticsDashboard", "UploadBox", "bound_figure", "error_figure", "histogram_figure", "inverse_figure",
           "unit_figure"]

TRIALS = 100
HIST_TRIALS = 30
STAT_NAMES = {"count": "count of rows", "histogram": "histogram (per cell)", "mean": "mean", "median": "median"}
COLUMN_OPTIONS = tuple((PUBLIC_BOUNDS[c][0], c) for c in ("age", "bmi", "bp", "tc", "hdl", "glu", "progression"))
BIAS_C, VAR_C, SUM_C = F.COLORS[1], F.COLORS[0], F.COLORS[3]
LEGEND_INSIDE = {"orientation": "v", "yanchor": "top", "y": 0.98, "xanchor": "right", "x": 0.99,
                 "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}}


def _source(p: Mapping[str, Any], clip: float = 1.0):
    """(x, L, U, U_pub) of the view: the diabetes column, or the uploaded column (``p["_upload"]``)."""
    up = p.get("_upload")
    if up:
        return X.column_data(n=min(p["n"], len(up["values"])), clip=clip, values=up["values"], lower=up["lower"],
                             upper=up["upper"])
    return X.column_data(p["column"], n=p["n"], clip=clip)


def _label(p: Mapping[str, Any]) -> str:
    up = p.get("_upload")
    return up["label"] if up else PUBLIC_BOUNDS[p["column"]][0]


def _data(p: Mapping[str, Any]):
    return _source(p, 1.0 if p["statistic"] == "histogram" else p["clip"])


@functools.lru_cache(maxsize=32)
def _exact_curves(stat, column, n, clip, eps_grid, c, bins):
    """(bias², variance) on ``eps_grid`` (a tuple): a pure function of its arguments, cached (the ε slider
    only moves the marker of panel 1)."""
    x, lo, u, _ = X.column_data(column, n=n, clip=clip)
    terms = np.array([X.exact_mse(stat, x, lower=lo, upper=u, epsilon=e, rows_per_person=c, bins=bins)
                      for e in eps_grid])
    return terms[:, 0], terms[:, 1]


def error_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Measured squared error vs ε, beside the exact clipping bias², noise variance and their sum."""
    stat = p["statistic"]
    x, lo, u, _ = _data(p)
    eps = np.asarray(res.grid, dtype=float)
    fine = np.geomspace(eps[0], eps[-1], 60)
    if p.get("_upload"):  # an upload: computed here (the cache is for the built-in columns)
        terms = np.array([X.exact_mse(stat, x, lower=lo, upper=u, epsilon=e, rows_per_person=p["rows_per_person"],
                                      bins=p["bins"]) for e in fine])
        b2, var = terms[:, 0], terms[:, 1]
    else:
        clip = 1.0 if stat == "histogram" else p["clip"]
        b2, var = _exact_curves(stat, p["column"], p["n"], clip, tuple(fine), p["rows_per_person"], p["bins"])
    fig = F.base_figure("", "ε (log scale)", "squared error (log scale)", log_x=True, log_y=True, height=360)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    word = "spread of the exponential mechanism" if stat == "median" else "noise variance 2(Δ/ε)²"
    F.add_theory(fig, fine, var, name=word, kind="exact", color=VAR_C)
    if stat in ("mean", "median"):
        F.add_theory(fig, fine, np.where(b2 > 0, b2, np.nan), name="bias² (clipping" +
                     (", and the mechanism's lean)" if stat == "median" else ")"), kind="exact", color=BIAS_C)
    F.add_theory(fig, fine, b2 + var, name="bias² + variance = expected squared error", kind="exact", color=SUM_C)
    F.add_measured(fig, eps, res.mean[0], res.lower[0], res.upper[0], name="squared error", color=F.COLORS[2],
                   trials=res.trials, headline=True)
    fig.add_vline(x=p["epsilon"], line={"color": "#444", "dash": "dot", "width": 1})
    b2e, vare = X.exact_mse(stat, x, lower=lo, upper=u, epsilon=p["epsilon"], rows_per_person=p["rows_per_person"],
                            bins=p["bins"])
    clip_txt = f", clipped to [{lo:g}, {u:.3g}]" if stat in ("mean", "median") else ""
    F.add_note(fig, f"{STAT_NAMES[stat]} of {_label(p)}, n = {x.size}{clip_txt}. At ε = "
                    f"{p['epsilon']:.3g}: bias² {b2e:.3g} + variance {vare:.3g} = {b2e + vare:.3g} "
                    f"(typical error ±{np.sqrt(b2e + vare):.3g})", y=0.02)
    return fig


def bound_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Mean / median: squared error vs the clipping bound at the slider's ε, the best bound marked."""
    stat = p["statistic"]
    x, lo, _, top = _source(p)
    clips = np.asarray(res.grid, dtype=float)
    fine = np.linspace(clips[0], clips[-1], 80)
    us = lo + fine * (top - lo)
    terms = np.array([X.exact_mse(stat, x, lower=lo, upper=u, epsilon=p["epsilon"],
                                  rows_per_person=p["rows_per_person"]) for u in us])
    total = terms.sum(axis=1)
    fig = F.base_figure("", f"clipping bound U ({_label(p)})", "squared error (log scale)",
                        log_y=True, height=340)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    F.add_theory(fig, us, np.where(terms[:, 0] > 0, terms[:, 0], np.nan), name="bias²", kind="exact", color=BIAS_C)
    F.add_theory(fig, us, terms[:, 1], name="variance", kind="exact", color=VAR_C)
    F.add_theory(fig, us, total, name="bias² + variance", kind="exact", color=SUM_C)
    F.add_measured(fig, lo + clips * (top - lo), res.mean[0], res.lower[0], res.upper[0], name="squared error",
                   color=F.COLORS[2], trials=res.trials, headline=True)
    j = int(np.argmin(total))
    fig.add_trace(go.Scatter(x=[us[j]], y=[total[j]], mode="markers", name=f"best bound U = {us[j]:.3g}",
                             marker={"symbol": "star", "size": 16, "color": "#000"}))
    fig.add_vline(x=lo + p["clip"] * (top - lo), line={"color": "#444", "dash": "dot", "width": 1})
    F.add_note(fig, f"ε = {p['epsilon']:.3g}. The data's largest value is {x.max():.3g}. The best bound is found "
                    "from the private data: a real analyst must fix it in advance (or spend ε to find it).", y=0.02)
    return fig


def histogram_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """The true histogram beside one release (noisy, and rounded ≥ 0) with the spread over trials."""
    x, lo, u, _ = _source(p)
    edges = np.linspace(lo, u, p["bins"] + 1)
    truth, _ = true_histogram(x, edges)
    centres = np.asarray(res.grid, dtype=float)
    fig = F.base_figure("", _label(p), "rows per bin", height=340)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45}, barmode="group")
    fig.add_trace(go.Bar(x=centres, y=truth, name="true counts (not published)", marker={"color": "#bbbbbb"}))
    one = res.values[1, :, 0]
    fig.add_trace(go.Bar(x=centres, y=one, name="one release (rounded, negatives set to 0)",
                         marker={"color": F.COLORS[0]}))
    noisy = res.values[0]
    lo_q, hi_q = np.quantile(noisy, 0.05, axis=1), np.quantile(noisy, 0.95, axis=1)
    fig.add_trace(go.Scatter(x=centres, y=(lo_q + hi_q) / 2, mode="markers", name=f"90% of {res.trials} releases "
                             "(before rounding)", marker={"color": "#000", "size": 1},
                             error_y={"type": "data", "symmetric": False, "array": hi_q - (lo_q + hi_q) / 2,
                                      "arrayminus": (lo_q + hi_q) / 2 - lo_q, "color": "#000"}))
    b = p["rows_per_person"] / p["epsilon"]
    F.add_note(fig, f"Laplace noise of scale c/ε = {b:.3g} in every bin; {x.size} rows in {p['bins']} public bins on "
                    f"[{lo:g}, {u:g}]. Setting negatives to 0 adds bias (empty bins come out too high).")
    return fig


def unit_figure(res, p: Mapping[str, Any]) -> go.Figure:
    """Squared error vs rows per person c (the noise grows with c), exact curve beside."""
    stat = p["statistic"]
    x, lo, u, _ = _data(p)
    cs = np.asarray(res.grid, dtype=float)
    exact = np.array([sum(X.exact_mse(stat, x, lower=lo, upper=u, epsilon=p["epsilon"], rows_per_person=int(c),
                                      bins=p["bins"])) for c in cs])
    fig = F.base_figure("", "rows per person c (log scale)", "squared error (log scale)", log_x=True, log_y=True,
                        height=320)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 20, "t": 20, "b": 45})
    F.add_theory(fig, cs, exact, name="bias² + variance", kind="exact", color=SUM_C)
    F.add_measured(fig, cs, res.mean[0], res.lower[0], res.upper[0], name="squared error", color=F.COLORS[2],
                   trials=res.trials, headline=True)
    fig.add_vline(x=p["rows_per_person"], line={"color": "#444", "dash": "dot", "width": 1})
    k = int(p["rows_per_person"])
    ge, gd = group_privacy(p["epsilon"], k, 1e-6)
    F.add_note(fig, f"Protecting a person with up to c = {k} rows costs noise × c. Calibrating for one row instead "
                    f"protects such a person only at group privacy kε = {ge:.3g} (for (ε, 10⁻⁶): δ at most "
                    f"{gd:.2g}).", y=0.98)
    return fig


def inverse_figure(p: Mapping[str, Any]) -> go.Figure:
    """ε needed for a 95 % error half-width, and the attacker's posterior (prior 1 %) at that ε."""
    stat = "mean" if p["statistic"] == "median" else p["statistic"]
    x, lo, u, _ = _data(p)
    c = p["rows_per_person"]
    if stat == "mean":
        widths = np.geomspace((u - lo) / 1000, (u - lo) / 4, 60)
        unit = _label(p)
    else:
        widths = np.geomspace(0.5, 200, 60)
        unit = "rows"
    plans = [epsilon_for_accuracy(stat, half_width=h, n=x.size, lower=lo, upper=u, rows_per_person=c) for h in widths]
    eps = np.array([pl.epsilon for pl in plans])
    post = np.array([pl.posterior for pl in plans])
    fig = F.base_figure("", f"target: 95% of releases within ± this ({unit}, log scale)", "ε needed (log scale)",
                        log_x=True, log_y=True, height=320)
    fig.update_layout(legend=LEGEND_INSIDE, margin={"l": 60, "r": 60, "t": 20, "b": 45},
                      yaxis2={"title": "attacker's belief, from 1% (%)", "overlaying": "y", "side": "right",
                              "range": [0, 100], "showgrid": False})
    F.add_theory(fig, widths, eps, name="ε = Δ·ln(20)/half-width (Laplace)", kind="exact", color=VAR_C,
                 headline=True)
    fig.add_trace(go.Scatter(x=widths, y=100 * post, yaxis="y2", mode="lines", line={"color": BIAS_C, "dash": "dot"},
                             name="attacker's posterior from a 1% prior [bound: at most]"))
    here = epsilon_for_accuracy(stat, half_width=float(np.log(20) * plans[0].sensitivity / p["epsilon"]), n=x.size,
                                lower=lo, upper=u, rows_per_person=c)
    fig.add_trace(go.Scatter(x=[here.half_width], y=[p["epsilon"]], mode="markers", name="the slider's ε",
                             marker={"symbol": "diamond", "size": 12, "color": "#000"}))
    F.add_note(fig, f"At ε = {p['epsilon']:.3g} ({STAT_NAMES[stat]}, Δ = {here.sensitivity:.3g}): 95% of releases "
                    f"within ±{here.half_width:.3g}; an attacker 1% sure you are in the data becomes at most "
                    f"{100 * posterior_bound(0.01, p['epsilon']):.2g}% sure. (The error here is the noise only"
                    + ("; the median has no closed form: the mean's plan is shown" if p["statistic"] == "median"
                       else "") + ".)",
               y=0.02)
    return fig


class StatisticsDashboard(Dashboard):
    """Course, week 5: private statistics of a real table."""

    title = "Course · Private statistics: counts, histograms, means, medians"
    intro = ("442 real patients (the diabetes study of Efron et al. 2004). Pick a column and a statistic: the noise "
             "must cover the most <i>one person</i> can change it. Clipping the values limits that, but biases the "
             "answer. Data license: " + DATASET_LICENSE + ".")
    paper = ("Near &amp; Abuah, <i>Programming Differential Privacy</i> ch. 5 and 7; Dwork &amp; Roth (2014) §3.3; "
             "Smith (2011), private quantiles by the exponential mechanism; data: Efron, Hastie, Johnstone &amp; "
             "Tibshirani (2004), shipped by scikit-learn (BSD-3-Clause).")
    controls = [
        Control("column", "column", "choice", "bmi", options=COLUMN_OPTIONS),
        Control("statistic", "statistic", "choice", "mean",
                options=(("mean (clipped)", "mean"), ("median (exponential mechanism)", "median"),
                         ("histogram", "histogram"), ("count of rows", "count"))),
        Control("epsilon", "ε (privacy budget)", "log", 1.0, 0.05, 10.0, step=0.05),
        Control("clip", "clip at (share of the public range)", "float", 0.5, 0.05, 1.0, step=0.05,
                shown_if=("statistic", "mean"),
                help="upper clipping bound U = L + share·(public upper − L); shown for the mean and the median"),
        Control("bins", "bins", "int", 10, 2, 40, shown_if=("statistic", "histogram")),
        Control("n", "rows used n", "logint", 442, 20, 442, step=0.05),
        Control("rows_per_person", "rows per person c", "int", 1, 1, 20,
                help="the unit of privacy: the most rows one person may own (the noise grows with c)"),
        Control("seed", "seed", "int", 0, 0, 9999, shown_if=("statistic", "url-only"),
                help="set from the URL (?seed=3): not shown, so the first screen keeps six controls"),
    ]
    panels = [
        Panel("error", "1. Error vs ε: clipping bias² + noise variance",
              depends_on=("column", "statistic", "epsilon", "clip", "bins", "n", "rows_per_person", "seed"),
              caption="Points: measured over 100 releases; lines: the exact formulas. Noise shrinks like 1/ε²; the "
                      "clipping bias does not shrink at all."),
        Panel("release", "2. What clipping and binning do",
              depends_on=("column", "statistic", "epsilon", "clip", "bins", "n", "rows_per_person", "seed"),
              caption="Mean and median: the error at every clipping bound — too low clips real values (bias), too "
                      "high needs more noise. Histogram and count: the released histogram beside the true one."),
        Panel("unit", "3. The unit of privacy: rows per person",
              depends_on=("column", "statistic", "epsilon", "clip", "bins", "n", "rows_per_person", "seed"),
              caption="If one person can own c rows, the noise must cover all of them."),
        Panel("inverse", "4. From the accuracy you need to ε — and what that ε allows an attacker",
              depends_on=("column", "statistic", "epsilon", "clip", "n", "rows_per_person"),
              caption="Read it backwards: choose how close the answer must be; the curve gives the ε it costs."),
    ]

    def _show_if(self, ctl: Control) -> None:
        if ctl.name == "seed":  # a URL parameter only (?seed=3): six controls on the first screen
            self._visible["seed"] = lambda: False
            self._show_controls()
            return None
        if ctl.name != "clip":
            return super()._show_if(ctl)
        src = self.widgets["statistic"]  # clipping matters for the mean and the median
        self._visible["clip"] = lambda: src.value in ("mean", "median")
        src.observe(lambda _: self._show_controls(), names="value")
        self._show_controls()
        return None

    def __init__(self, **kwargs: Any) -> None:
        self._upload: dict | None = None  # the uploaded column in use (values, public lower/upper, label)
        super().__init__(**kwargs)
        self.upload_box = UploadBox(self)
        kids = list(self.children)
        kids.insert(3, self.upload_box)  # below the panels, above the audit
        self.children = kids

    def use_upload(self, upload: dict | None) -> None:
        """Compute every panel on an uploaded column (``None``: back to the diabetes data)."""
        self._upload = upload
        self.refresh()

    def _common(self, p):
        clip = 1.0 if p["statistic"] == "histogram" else p["clip"]
        data = self._data_kw(p)  # first: it caps p["n"] at the upload's size
        return dict(column=p["column"], clip=clip, n=p["n"], bins=p["bins"], **data)

    def _data_kw(self, p):
        up = self._upload
        if not up:
            return {}
        p["n"] = min(p["n"], len(up["values"]))
        return dict(values=up["values"], lower=up["lower"], upper=up["upper"])

    def figure(self, panel: str, p: Mapping[str, Any]) -> go.Figure:
        p = {**p, "_upload": self._upload}
        stat, c = p["statistic"], p["rows_per_person"]
        if panel == "error":
            res = self.experiment("error", "", X.mse_vs_epsilon, statistic=stat, rows_per_person=c,
                                  epsilons=list(X.EPSILONS), trials=TRIALS, rng=p["seed"], **self._common(p))
            return error_figure(res, p)
        if panel == "release":
            data = self._data_kw(p)
            if stat in ("mean", "median"):
                res = self.experiment("release", "", X.mse_vs_bound, column=p["column"], statistic=stat,
                                      epsilon=p["epsilon"], n=p["n"], rows_per_person=c, clips=list(X.CLIPS[::2]),
                                      trials=TRIALS // 2, rng=p["seed"], **data)
                return bound_figure(res, p)
            res = self.experiment("release", "", X.histogram_release, column=p["column"], epsilon=p["epsilon"],
                                  n=p["n"], rows_per_person=c, bins=p["bins"], trials=HIST_TRIALS, rng=p["seed"],
                                  **data)
            return histogram_figure(res, p)
        if panel == "unit":
            res = self.experiment("unit", "", X.mse_vs_rows_per_person, statistic=stat, epsilon=p["epsilon"],
                                  cs=list(X.CS), trials=TRIALS // 2, rng=p["seed"], **self._common(p))
            return unit_figure(res, p)
        if panel == "inverse":
            self._data_kw(p)
            return inverse_figure(p)
        raise ValueError(f"unknown panel {panel!r}")

    def reproduce(self, p: Mapping[str, Any]) -> str:
        x_line = (f"x, lower, upper, _ = column_data({p['column']!r}, n={p['n']}, "
                  f"clip={1.0 if p['statistic'] == 'histogram' else p['clip']!r})\n")
        calls = {
            "mean": f"private_mean(x, lower=lower, upper=upper, epsilon={p['epsilon']!r}, "
                    f"rows_per_person={p['rows_per_person']}, rng=0)",
            "median": f"private_quantile(x, 0.5, lower=lower, upper=upper, epsilon={p['epsilon']!r}, "
                      f"rows_per_person={p['rows_per_person']}, rng=0)",
            "histogram": f"private_histogram(x, bins={p['bins']}, lower=lower, upper=upper, epsilon={p['epsilon']!r}, "
                         f"rows_per_person={p['rows_per_person']}, postprocess=('round', 'nonnegative'), rng=0)",
            "count": f"private_count(x, epsilon={p['epsilon']!r}, rows_per_person={p['rows_per_person']}, rng=0)",
        }
        return ("from dpexplore.statistics import private_count, private_histogram, private_mean, private_quantile\n"
                "from dpexplore.statistics.experiments import column_data\n" + x_line +
                f"print({calls[p['statistic']]})\n")

    audit_description = (
        "Audits the chosen statistic on its worst-case pair of neighbouring data sets (one person added, or their "
        "value moved from the lowest to the highest allowed): the exact ε of that pair from the output laws, and ε̂, "
        "a 95% Clopper–Pearson lower bound from the releases. Broken variants: the mean clipped to the data's own "
        "min and max (count and median pages audit this one too), and a histogram whose bins come from the data.")
    audit_runs = (20_000, 200_000)

    def audit_report(self, p, *, broken, runs, rng, progress) -> AuditReport:
        stat = {"median": "quantile"}.get(p["statistic"], p["statistic"])
        if broken:
            stat, variant = ("histogram", "data_bins") if stat == "histogram" else ("mean", "data_bounds")
        else:
            variant = None
        return pair_audit_report(audit_statistic(stat, epsilon=p["epsilon"], n=min(p["n"], 100),
                                                 rows_per_person=p["rows_per_person"], broken=variant, runs=runs,
                                                 rng=rng, progress=progress))


class UploadBox(widgets.VBox):
    """"Bring your own CSV": upload a table of numbers, pick a column, state its public bounds, use it.

    The file is validated by :func:`dpexplore.statistics.data.parse_csv` (size, header, rows, numbers); every
    problem shows as one line in the box, never a traceback. The bounds are prefilled with the data's own min
    and max and the box says that these are **not** public: a release is private only with bounds fixed
    without looking at the data.
    """

    def __init__(self, board: StatisticsDashboard) -> None:
        self.board = board
        self.table = None
        self.file = widgets.FileUpload(accept=".csv,text/csv", multiple=False, description="Upload a CSV")
        self.column = widgets.Dropdown(description="column", options=[], disabled=True)
        self.lower = widgets.FloatText(description="public lower", disabled=True)
        self.upper = widgets.FloatText(description="public upper", disabled=True)
        self.use = widgets.Button(description="Use this column", disabled=True)
        self.back = widgets.Button(description="Back to the diabetes data", disabled=True)
        self.message = widgets.HTML(
            f"<span style='color:#444'>A CSV of numbers with a header row: at most {MAX_UPLOAD_BYTES:,} bytes, "
            f"{MAX_UPLOAD_ROWS:,} rows, {MAX_UPLOAD_COLUMNS} columns. It stays in this page's kernel.</span>")
        self.file.observe(lambda ch: self.load(), names="value")
        self.column.observe(lambda ch: self._prefill(), names="value")
        self.use.on_click(lambda b: self.apply())
        self.back.on_click(lambda b: self.reset())
        inner = widgets.VBox([self.message, widgets.HBox([self.file, self.column]),
                              widgets.HBox([self.lower, self.upper]), widgets.HBox([self.use, self.back])])
        acc = widgets.Accordion(children=[inner], titles=("Bring your own CSV",))
        acc.selected_index = None
        super().__init__([acc])
        self.add_class("dpx-upload")

    def _say(self, text: str, bad: bool = False) -> None:
        color = "#922b21" if bad else "#1b2631"
        self.message.value = f"<span style='color:{color}'>{html.escape(text)}</span>"

    def load(self, files=None) -> None:
        """Read the uploaded file (or ``files``: a sequence of {"name", "content"} as FileUpload gives)."""
        files = self.file.value if files is None else files
        if not files:
            return
        f = files[0]
        name = str(f.get("name", "upload.csv"))[:80]
        content = f.get("content", b"")
        size = len(content) if hasattr(content, "__len__") else 0
        if size > MAX_UPLOAD_BYTES:
            self._say(f"{name}: the file must be at most {MAX_UPLOAD_BYTES:,} bytes; got {size:,}", bad=True)
            return
        try:
            self.table = parse_csv(bytes(content), name=name)
        except (ValueError, TypeError) as exc:
            self.table = None
            self.column.options, self.column.disabled, self.use.disabled = [], True, True
            self._say(str(exc), bad=True)
            return
        self.column.options = list(self.table.columns)
        self.column.value = self.table.columns[0]
        self.column.disabled = self.lower.disabled = self.upper.disabled = self.use.disabled = False
        self._prefill()
        self._say(f"{name}: {self.table.n:,} rows, {len(self.table.columns)} columns. The bounds below are your "
                  "data's own min and max: NOT public. Replace them with a range you could state without looking "
                  "at the data, then press 'Use this column'.")

    def _prefill(self) -> None:
        if self.table is None or self.column.value not in self.table.columns:
            return
        _, lo, hi = self.table.bounds[self.column.value]
        self.lower.value, self.upper.value = lo, hi

    def apply(self) -> None:
        """Use the chosen column with the stated bounds (an error in the box if they are not valid)."""
        if self.table is None:
            self._say("Upload a CSV first.", bad=True)
            return
        lo, hi = float(self.lower.value), float(self.upper.value)
        if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
            self._say(f"public upper must be > public lower; got lower={lo:g}, upper={hi:g}", bad=True)
            return
        col = self.column.value
        if col not in self.table.columns:
            self._say("Choose a column of your file.", bad=True)
            return
        values = [float(v) for v in self.table.column(col)]
        self.board.use_upload({"values": values, "lower": lo, "upper": hi, "label": f"{col} (your upload)"})
        self.back.disabled = False
        self._say(f"Every panel now uses '{col}' ({len(values):,} rows, at most 442 of them as n) with public bounds "
                  f"[{lo:g}, {hi:g}]; the column selector above is ignored until you go back.")

    def reset(self) -> None:
        """Back to the diabetes data."""
        self.board.use_upload(None)
        self.back.disabled = True
        self._say("Back to the diabetes data.")
