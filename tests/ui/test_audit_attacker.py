"""Issue 24 item 3: every audit says what its ε numbers mean to an attacker; issue 25 item 8: the audit's
run-count slider never shows a number the audit does not use."""

import html
import math

import pytest

pytest.importorskip("ipywidgets")

from dpexplore.core.risk import advantage_bound, attacker_view, posterior_bound  # noqa: E402
from dpexplore.ui.audit import AuditPanel, AuditReport  # noqa: E402


def _report(**kw):
    base = dict(mechanism="m", neighbours="x vs y", claimed_epsilon=1.0, delta=1e-5, exact_epsilon=1.0,
                epsilon_lower=0.5, confidence=0.95, runs=1000)
    return AuditReport(**{**base, **kw})


def test_attacker_line_for_claimed_exact_and_measured_epsilon():
    text = html.unescape(_report().to_html())
    assert "What it means to an attacker" in text
    for label, eps in (("claimed ε promises", 1.0), ("exact ε promises", 1.0)):
        assert f"{label}: {attacker_view(eps, 1e-5).sentence()}" in text
    # ε̂ (issue 37 item 3): what it proves, at its confidence, as a bound ("at most")
    assert ("measured ε̂ = 0.5 (at 95 % confidence the true ε is at least this): the claim cannot promise better "
            f"than “advantage at most {advantage_bound(0.5, 1e-5):.2f}") in text
    v = attacker_view(0.5, 1e-5)
    assert v.advantage == pytest.approx(advantage_bound(0.5, 1e-5))
    assert v.posterior_half == pytest.approx(posterior_bound(0.5, 0.5))
    assert v.posterior_hundredth == pytest.approx(posterior_bound(0.01, 0.5))


def test_attacker_line_skips_missing_numbers_and_handles_infinity():
    lines = _report(exact_epsilon=None, epsilon_lower=math.nan).attacker_lines()
    assert len(lines) == 1 and lines[0].startswith("claimed ε promises")
    lines = _report(exact_epsilon=math.inf).attacker_lines()
    assert "advantage at most 1.00" in lines[1] and "at most 100%" in lines[1]


def test_the_audit_panel_every_dashboard_uses_shows_the_line():
    """Every dashboard's audit (papers and intro track) is drawn by AuditPanel from AuditReport.to_html."""
    panel = AuditPanel(lambda broken, runs, seed, progress: _report(runs=runs), default_runs=1000, max_runs=2000,
                       description="", seed=lambda: 0)
    panel.start(wait=True)
    assert "What it means to an attacker" in panel.result.value
    assert html.escape(attacker_view(1.0, 1e-5).sentence()) in panel.result.value


@pytest.mark.slow
def test_a_paper_dashboards_audit_shows_the_line():
    from dpexplore.ui.markov import MarkovTrajectoryDashboard

    board = MarkovTrajectoryDashboard(query_string="T=20&trials=1", render=False, background=False)
    board.audit_panel.runs.value = 2000
    board.audit_panel.start(wait=True)
    assert "What it means to an attacker" in board.audit_panel.result.value
    assert "claimed ε promises" in html.unescape(board.audit_panel.result.value)


def test_runs_slider_hides_its_number_when_the_audit_uses_another():
    note = {"text": ""}
    panel = AuditPanel(lambda *a: None, default_runs=200_000, max_runs=1_000_000, description="", seed=lambda: 0,
                       runs_note=lambda runs: note["text"])
    panel.update_note()
    assert panel.runs.readout is True and panel.note.value == ""
    note["text"] = "This audit uses 2,000 runs per input at n = 300"
    panel.update_note()
    assert panel.runs.readout is False and "2,000 runs" in panel.note.value


@pytest.mark.slow
def test_spectral_hub_audit_slider_does_not_contradict_its_note():
    from dpexplore.ui.spectral import SpectralClusteringDashboard

    board = SpectralClusteringDashboard(query_string="n=150&trials=1&k=2&p=0.4&q=0.05&audit=shuffle_hubs",
                                        render=False, background=False)
    board.audit_panel.update_note()
    assert "runs per input" in board.audit_panel.note.value
    assert board.audit_panel.runs.readout is False  # 200,000 is not shown beside "uses N runs"
