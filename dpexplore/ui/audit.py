"""The "Audit" panel: measured privacy next to claimed privacy, in every dashboard.

A dashboard that defines :meth:`~dpexplore.ui.Dashboard.audit_report` gets this panel at the end:
the claimed ε (from the mechanism's accounting function), the exact ε where it can be computed,
the measured lower bound ε̂ with its confidence (ε̂ ≤ the true ε at that confidence), the advantage
the audit's own test reached, a run-count control, a "use the broken variant"
toggle, a progress bar and a Cancel button. Audits run in a worker thread so that the Cancel
button (and the rest of the page) stays responsive; the worker checks a flag between chunks.
"""

from __future__ import annotations

import html
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets

__all__ = ["AuditReport", "AuditPanel"]


@dataclass(frozen=True)
class AuditReport:
    """What an audit found, ready to display.

    Attributes
    ----------
    mechanism : str
        What was audited (e.g. "Analyze Gauss" or "BROKEN Analyze Gauss (σ halved)").
    neighbours : str
        The neighbouring pair (e.g. "graphs differing in edge (0, 1)").
    claimed_epsilon : float
        ε claimed by the accounting function (at ``delta``).
    delta : float
    exact_epsilon : float or None
        The pair's exact ε at ``delta`` where the output law is computable.
    epsilon_lower : float or None
        The statistical lower bound ε̂ at ``confidence`` (None if only an exact audit was run).
    confidence : float or None
    runs : int
    seconds : float
    cancelled : bool
    test_advantage : float or None
        TPR − FPR that the audit's own threshold test reached on its held-out runs (a measured value,
        not a bound; :attr:`dpexplore.core.audit.StatisticalAudit.advantage`), None where not reported.
    """

    mechanism: str
    neighbours: str
    claimed_epsilon: float
    delta: float
    exact_epsilon: float | None = None
    epsilon_lower: float | None = None
    confidence: float | None = None
    runs: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    test_advantage: float | None = None

    @property
    def violation(self) -> bool:
        """True when the exact ε or the lower bound ε̂ (at its confidence) exceeds the claim."""
        tol = 1e-9 * max(1.0, self.claimed_epsilon)
        exact_bad = self.exact_epsilon is not None and self.exact_epsilon > self.claimed_epsilon + tol
        stat_bad = (self.epsilon_lower is not None and math.isfinite(self.epsilon_lower)
                    and self.epsilon_lower > self.claimed_epsilon)
        return bool(exact_bad or stat_bad)

    def verdict(self) -> str:
        if self.cancelled:
            return "Audit cancelled: no conclusion."
        if self.violation:
            return ("Claim refuted: the measured ε exceeds the claimed ε on this neighbouring pair — "
                    "this mechanism is not as private as its accounting says.")
        conf = f"{100 * self.confidence:.0f} %" if self.confidence else "95 %"
        return ("Consistent with the claim. (An audit can refute a privacy claim, never prove it: "
                f"ε̂ is a lower bound on the true ε for this one pair at {conf} confidence.)")

    def attacker_lines(self) -> list[str]:
        """The claimed, exact and measured ε in an attacker's terms (:func:`dpexplore.core.risk.attacker_view`).

        Every number is a bound ("at most"): the best advantage of any attacker guessing which of the two
        neighbouring inputs was used, and the belief reachable from priors 1/2 and 1/100. For ε̂ the line
        says what it proves — the claim cannot promise better than the bound at ε̂ — and, beside it, the
        advantage the audit's own test actually reached."""
        from dpexplore.core.risk import attacker_view

        d = min(max(self.delta, 0.0), 0.999)
        out = []
        for label, eps in (("claimed ε promises", self.claimed_epsilon), ("exact ε promises", self.exact_epsilon)):
            if eps is None or (isinstance(eps, float) and math.isnan(eps)) or eps < 0:
                continue
            out.append(f"{label}: {attacker_view(eps, d).sentence()}")
        lo = self.epsilon_lower
        if lo is not None and not (isinstance(lo, float) and math.isnan(lo)) and lo >= 0:
            conf = f"{100 * self.confidence:.0f} %" if self.confidence else "95 %"
            v = attacker_view(lo, d)
            line = (f"measured ε̂ = {lo:.3g} (at {conf} confidence the true ε is at least this): the claim cannot "
                    f"promise better than “advantage at most {v.advantage:.2f}, 1 in 100 → at most "
                    f"{_pct(v.posterior_hundredth)}”")
            if self.test_advantage is not None and math.isfinite(self.test_advantage):
                line += (f"; the audit's own test reached advantage {self.test_advantage:.3f} (right "
                         f"{_pct(0.5 * (1 + self.test_advantage), fine=True)} of the time on its held-out runs)")
            out.append(line)
        return out

    def attacker_html(self) -> str:
        lines = self.attacker_lines()
        if not lines:
            return "—"
        return ("<div class='dpx-audit-attacker'>" + "<br>".join(html.escape(t) for t in lines)
                + "<br><span style='color:#777'>(bounds, not outcomes: no attacker does better on average. With "
                "δ > 0 the posteriors from ε alone can fail on outputs whose privacy loss exceeds ε; δ bounds "
                "the excess mass P(S) − e<sup>ε</sup>·P′(S), not how likely those outputs are — the line says "
                "what holds except with a stated probability.)</span></div>")

    def to_html(self) -> str:
        def fmt(x: float | None) -> str:
            if x is None:
                return "—"
            return "∞" if math.isinf(x) else ("n/a" if math.isnan(x) else f"{x:.3f}")

        rows = [
            ("Mechanism", html.escape(self.mechanism)),
            ("Neighbouring inputs", html.escape(self.neighbours)),
            ("Claimed ε (accounting)", f"{fmt(self.claimed_epsilon)} at δ = {self.delta:.2g}"),
            ("Exact ε of this pair", fmt(self.exact_epsilon)),
            ("Measured lower bound ε̂, with its confidence", fmt(self.epsilon_lower)
             + (f" at {100 * self.confidence:.0f}% confidence" if self.confidence else "")),
            ("Advantage the audit's test reached", "—" if self.test_advantage is None
             else f"{self.test_advantage:.3f} (TPR − FPR on the held-out runs; measured, not a bound)"),
            ("What it means to an attacker", self.attacker_html()),
            ("Runs per input", f"{self.runs:,}" if self.runs else "—"),
            ("Time", f"{self.seconds:.1f} s"),
        ]
        color = "#c0392b" if self.violation else "#1e8449"
        table = "".join(f"<tr><td style='padding:2px 12px 2px 0;color:#555'>{k}</td><td>{v}</td></tr>" for k, v in rows)
        return (f"<table style='font-size:0.92em'>{table}</table>"
                f"<div class='dpx-audit-verdict' style='margin-top:4px;color:{color};font-weight:600'>"
                f"{html.escape(self.verdict())}</div>")


def _pct(x: float, *, fine: bool = False) -> str:
    if fine:
        return f"{100 * x:.4g}%"
    return "100%" if x >= 0.9995 else (f"{100 * x:.2g}%" if x < 0.1 else f"{100 * x:.0f}%")


class AuditPanel(widgets.VBox):
    """Run-count control, broken toggle, Run/Cancel, progress, and the report.

    Parameters
    ----------
    run : callable
        ``run(broken: bool, runs: int, seed: int, progress) -> AuditReport``; ``progress(done, total)``
        returns False once the user pressed Cancel.
    default_runs, max_runs : int
        The run-count slider's default and (server-side enforced) maximum.
    description : str
        One paragraph: what pair is audited and with which test.
    seed : callable
        Returns the dashboard's current seed.
    runs_note : callable, optional
        ``runs_note(runs) -> str``: what the selected audit does with the slider's run count when it
        does not use it as is (an exact audit ignores it; a costly one caps it). Shown beside the
        slider, refreshed by :meth:`update_note`.
    """

    def __init__(self, run: Callable[..., AuditReport], *, default_runs: int, max_runs: int, description: str,
                 seed: Callable[[], int], min_runs: int = 100,
                 runs_note: Callable[[int], str] | None = None) -> None:
        super().__init__()
        self._run, self._seed, self._runs_note = run, seed, runs_note
        self._min, self._max = int(min_runs), int(max_runs)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.report: AuditReport | None = None
        self.runs = widgets.IntSlider(value=default_runs, min=self._min, max=self._max, step=self._min,
                                      description="runs per input", style={"description_width": "10.5em"},
                                      layout=widgets.Layout(width="420px"), continuous_update=False)
        self.broken = widgets.Checkbox(value=False, description="use the deliberately broken variant", indent=False)
        self.run_button = widgets.Button(description="Run audit", button_style="primary", icon="play")
        self.cancel_button = widgets.Button(description="Cancel", icon="stop", disabled=True)
        self.progress = widgets.IntProgress(value=0, min=0, max=1, layout=widgets.Layout(width="300px"))
        self.status = widgets.HTML()
        self.result = widgets.HTML("<i style='color:#555'>Not run yet.</i>")
        self.note = widgets.HTML()
        self.runs.observe(lambda _: self.update_note(), names="value")
        self.run_button.on_click(lambda _: self.start())
        self.cancel_button.on_click(lambda _: self._cancel.set())
        self.children = [
            widgets.HTML(f"<div style='max-width:60em;color:#444'>{description}</div>"),
            widgets.HBox([self.runs, self.broken]),
            self.note,
            widgets.HBox([self.run_button, self.cancel_button, self.progress, self.status]),
            self.result,
        ]

    def update_note(self) -> None:
        """Refresh the line under the slider (call it when the dashboard's settings change)."""
        text = ""
        if self._runs_note is not None:
            try:
                text = self._runs_note(int(self.runs.value))
            except (ValueError, TypeError, ArithmeticError):
                text = ""  # the settings are invalid: the dashboard's message box already says why
        self.note.value = f"<div style='color:#1f618d;max-width:60em'>{html.escape(text)}</div>" if text else ""
        # The slider's number must not disagree with the line under it (issue 25, item 8): when the selected
        # audit does not use the slider's value as is (exact, or its own run count), the number is hidden
        # and the line says what the audit uses.
        self.runs.readout = not text

    def start(self, *, wait: bool = False) -> None:
        """Start an audit in a worker thread (``wait=True`` joins it: used by tests)."""
        if self._thread is not None and self._thread.is_alive():
            return
        runs = min(max(int(self.runs.value), self._min), self._max)  # server-side bound
        if runs != self.runs.value:
            self.runs.value = runs
        self._cancel.clear()
        self.run_button.disabled, self.cancel_button.disabled = True, False
        self.progress.value, self.progress.max = 0, runs
        self.status.value = "<span style='color:#1f618d'>running…</span>"
        self._thread = threading.Thread(target=self._work, args=(bool(self.broken.value), runs, int(self._seed())),
                                        daemon=True)
        self._thread.start()
        if wait:
            self._thread.join()

    def _progress(self, done: int, total: int) -> bool:
        self.progress.max = max(total, 1)
        self.progress.value = min(done, total)
        return not self._cancel.is_set()

    def _work(self, broken: bool, runs: int, seed: int) -> None:
        t0 = time.perf_counter()
        try:
            report = self._run(broken, runs, seed, self._progress)
            self.report = report
            self.result.value = report.to_html()
            self.status.value = f"<span style='color:#555'>done in {time.perf_counter() - t0:.1f} s</span>"
        except (ValueError, TypeError, ArithmeticError) as exc:
            self.result.value = (f"<div class='dpx-error' style='color:#611a15'><b>Error.</b> "
                                 f"{html.escape(str(exc))}</div>")
            self.status.value = ""
        except Exception as exc:  # noqa: BLE001 - shown in the page, never swallowed silently
            self.result.value = (f"<div class='dpx-error' style='color:#611a15'><b>Error.</b> internal error "
                                 f"{html.escape(type(exc).__name__)}: {html.escape(str(exc))}</div>")
            self.status.value = ""
        finally:
            self.run_button.disabled, self.cancel_button.disabled = False, True
