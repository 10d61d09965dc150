"""The QOP dashboard without a kernel: draws every panel, responds to ε, reproduces its numbers."""

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from dpexplore.ui.erm import QuadraticPerturbationDashboard  # noqa: E402

SMALL = "n=80&d=10&trials=2&iterations=200"


@pytest.fixture(scope="module")
def board():
    return QuadraticPerturbationDashboard(query_string=SMALL)


def ys(fig, name_start):
    return [np.asarray(t.y, dtype=float) for t in fig.data if t.name and t.name.startswith(name_start)]


def test_draws_every_panel_without_errors(board):
    assert not board.errors and set(board.figures) == {"risk", "bounds", "advantage"}
    names = [t.name for t in board.figures["risk"].data if t.name]
    assert any(n.startswith("LOP (measured, mean ± 95% CI over 2 trials)") for n in names)
    assert any("[approximation" in n for n in names) and any("[exact" in n for n in names)
    assert any("[bound" in (t.name or "") for t in board.figures["bounds"].data)


def test_first_slider_changes_the_risk_curves(board):
    assert board.controls[0].name == "epsilon"
    before = ys(board.figures["risk"], "LOP (measured")[0]
    board.widgets["epsilon"].value = board.widgets["epsilon"].value * 10**0.1  # one slider step right
    after = ys(board.figures["risk"], "LOP (measured")[0]
    assert not np.allclose(before, after)


def test_reproduce_snippet_gives_the_plotted_numbers(board):
    ns = {}
    exec(board.experiment_code().replace("print(", "len("), ns)
    plotted = ys(board.figures["risk"], "QOP, private (inexact anchor) (measured")[0]
    assert np.array_equal(ns["r_risk"].curve("QOP")[0], plotted)
    reference = ys(board.figures["risk"], "QOP θ̂ before output noise — NOT private for η > 0 (measured")[0]
    assert np.array_equal(ns["r_risk"].curve("QOP θ̂ (no output noise)")[0], reference)
    ns = {}
    exec(board.reproduce(board.params()), ns)
    assert ns["q"].mechanism == "QOP (inexact + output noise)"


def test_risk_panels_plot_the_inexact_anchor_qop_and_say_so(board):
    """η > 0: QOP's curves come from qop_inexact (output noise for η); θ̂ before the noise is labelled not private."""
    assert board.params()["eta"] > 0
    names = [t.name or "" for t in board.figures["risk"].data]
    assert any(n.startswith("QOP, private (inexact anchor)") for n in names)
    assert any("NOT private" in n for n in names)
    assert not any(n.startswith("QOP (measured") for n in names)
    cap = next(p.caption for p in board.panels if p.name == "risk")
    assert "qop_inexact" in cap and "not</b> (ε, δ)-DP" in cap
    adv = [t.name or "" for t in board.figures["advantage"].data]
    assert any(n.startswith("QOP, private (inexact anchor)") for n in adv) and any("NOT private" in n for n in adv)
    # the private release pays for η: its risk is at least the noiseless solver output's at every κ
    c = board._sweep(board.params())
    assert c.info["output_sigma"] > 0 and np.all(c.mean["QOP"] >= c.mean["QOP θ̂ (no output noise)"])


def test_bad_url_values_are_reported_not_fatal():
    b = QuadraticPerturbationDashboard(query_string=SMALL + "&d=100000&alpha1=foo")
    assert b.widgets["d"].value == 10 and "URL parameter d=" in b._message_box.value and not b.errors


def test_audit_panel_reports_claims_and_catches_the_inexact_anchor(board):
    assert board.audit_panel is not None and board.audit_runs[0] == 100_000
    board.widgets["audit"].value = "QOP"
    board.audit_panel.runs.value = 2000
    board.audit_panel.start(wait=True)
    good = board.audit_panel.report
    assert not good.violation and good.exact_epsilon <= good.claimed_epsilon == 2.0
    assert "Consistent with the claim" in board.audit_panel.result.value
    board.widgets["audit"].value = "QOP inexact anchor"
    board.audit_panel.start(wait=True)
    assert board.audit_panel.report.violation and "Claim refuted" in board.audit_panel.result.value
    board.widgets["audit"].value = "LOP"
    board.audit_panel.broken.value = True
    board.audit_panel.runs.value = 4000
    board.audit_panel.start(wait=True)
    bad = board.audit_panel.report
    assert bad.mechanism.startswith("BROKEN") and bad.exact_epsilon > bad.claimed_epsilon and bad.violation


def test_broken_qop_toggle_is_caught_at_the_defaults():
    """The dashboard's broken QOP (σ used for σ²) is refuted at the default claim, δ and run count."""
    b = QuadraticPerturbationDashboard(query_string=SMALL + "&audit=QOP")
    assert b.params()["audit_epsilon"] == 2.0 and b.params()["delta"] == 0.01
    assert b.audit_panel.runs.value == b.audit_runs[0] == 100_000
    b.audit_panel.broken.value = True
    b.audit_panel.start(wait=True)
    bad = b.audit_panel.report
    assert bad.mechanism.startswith("BROKEN (σ used for σ²)") and bad.violation
    assert bad.epsilon_lower > bad.claimed_epsilon and bad.exact_epsilon == float("inf")
    assert "Claim refuted" in b.audit_panel.result.value


def test_qop_inexact_is_in_the_audit_selector_and_its_broken_variant_is_caught_at_the_defaults():
    """The plotted mechanism can be audited: correct qop_inexact not refuted, η term dropped refuted (defaults)."""
    b = QuadraticPerturbationDashboard(query_string=SMALL + "&audit=qop_inexact")
    assert "qop_inexact" in [v for _, v in b.widgets["audit"].options]
    assert b.params()["audit_epsilon"] == 2.0 and b.params()["delta"] == 0.01 and b.params()["audit_eta"] == 0.1
    assert b.audit_panel.runs.value == b.audit_runs[0] == 100_000
    b.audit_panel.start(wait=True)
    good = b.audit_panel.report
    assert good.mechanism.startswith("qop_inexact") and not good.violation and good.exact_epsilon == 0.0
    b.audit_panel.broken.value = True
    b.audit_panel.start(wait=True)
    bad = b.audit_panel.report
    assert bad.mechanism.startswith("BROKEN (anchor term") and bad.violation
    assert bad.epsilon_lower > bad.claimed_epsilon and "Claim refuted" in b.audit_panel.result.value


def _certificate_note(board):
    return next(a.text for a in board.figures["risk"].layout.annotations if "certified suboptimality" in (a.text or ""))


def test_declared_tau_is_certified_or_the_page_says_it_is_not():
    # defaults: τ = 1e-6, certified; m/d = 8 (σ² ≈ 1e27): τ raised to the certifiable floor, certified;
    # m/d = 1 (W nearly singular): the solve does not reach τ and the page says so, in words
    ok = QuadraticPerturbationDashboard(query_string="trials=1")
    note = _certificate_note(ok)
    assert "τ = 1e-06" in note and "NOT" not in note and "certified" not in ok._message_box.value
    big = QuadraticPerturbationDashboard(query_string="trials=1&m_ratio=8")
    note = _certificate_note(big)
    assert "NOT" not in note and "τ = 1e-06" not in note and "certified" not in big._message_box.value
    bad = QuadraticPerturbationDashboard(query_string="trials=1&m_ratio=1")
    assert "NOT ≤ τ" in _certificate_note(bad)
    assert "not (ε, δ)-DP at these settings" in bad._message_box.value and "raise m/d" in bad._message_box.value
    assert not bad.errors  # a warning in the page, not an error: the panels are still drawn


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_panel_shows_the_headline_effect_the_caption_promises(seed):
    """Panel 1 at the true defaults (η = 10⁻³): the private QOP is flat in κ while LOP grows like κ².

    Measured for seeds 0–2: private QOP 88–117 for κ ≥ 10 (≤ 1.4× its value at κ = 10), LOP 4.7e3–1.2e7,
    clipped LOP 500–780. The caption's counter-statement (η = 0.1 puts QOP on LOP) is checked too.
    """
    b = QuadraticPerturbationDashboard(query_string=f"seed={seed}")
    c = b._sweep(b.params())
    q, lop, clipped = c.mean["QOP"], c.mean["LOP"], c.mean["clipped LOP"]
    big = c.radii >= 10
    assert np.all(q[big] < lop[big] / 40) and np.all(q[big] < clipped[big])
    assert q[big].max() < 2 * q[big].min()  # flat
    assert lop[-1] / lop[big][0] > 1e3  # LOP ∝ κ² (κ from 10 to 1000)
    cap = next(p.caption for p in b.panels if p.name == "risk")
    assert "At the defaults (η = 10⁻³)" in cap
    hi = QuadraticPerturbationDashboard(query_string=f"seed={seed}&eta=0.1")
    ch = hi._sweep(hi.params())
    assert np.all(ch.mean["QOP"][big] > 0.05 * ch.mean["LOP"][big])  # on LOP's scale (κ² growth)


def _big_kappa(b, **kw):
    c = b._sweep(dict(b.params(), **kw))
    return c, c.radii >= 10


@pytest.mark.slow
def test_the_notebooks_what_to_try_numbers_hold_for_seeds_0_1_2():
    """Every range notebook 05 quotes under "What to try" (measured for seeds 0, 1, 2)."""
    b = QuadraticPerturbationDashboard()
    for seed in (0, 1, 2):
        c, big = _big_kappa(b, seed=seed)
        assert c.info["output_sigma"] == pytest.approx(2.8, abs=0.05)
        assert 80 <= c.mean["QOP"][big].min() and c.mean["QOP"][big].max() <= 120
        assert 1.0e7 <= c.mean["LOP"][-1] <= 1.2e7
        assert 490 <= c.mean["clipped LOP"][big].min() and c.mean["clipped LOP"][big].max() <= 870
        c, big = _big_kappa(b, seed=seed, eta=0.1)
        assert c.info["output_sigma"] == pytest.approx(283, rel=0.01)
        assert 4e3 < c.mean["QOP"][big][0] < 6e3 and 0.9e6 <= c.mean["QOP"][-1] <= 1.2e6
        assert np.all(c.mean["QOP θ̂ (no output noise)"][big] == pytest.approx(c.anchor_risk, rel=0.05))
        for eta, lo, hi in ((1.0, 0.22, 0.25), (3.0, 2.0, 2.3)):
            c, big = _big_kappa(b, seed=seed, eta=eta)
            assert lo <= c.anchor_risk <= hi
            assert np.all(c.mean["QOP θ̂ (no output noise)"][big] == pytest.approx(c.anchor_risk, rel=0.05))
        c, big = _big_kappa(b, seed=seed, epsilon=20.0)
        assert 0.235 <= c.mean["QOP"][big].min() and c.mean["QOP"][big].max() <= 0.315
        assert 2.25 <= c.mean["clipped LOP"][big].min() and c.mean["clipped LOP"][big].max() <= 4.15
        assert 3e6 <= c.mean["LOP"][-1] <= 4e6
        c, big = _big_kappa(b, seed=seed, alpha1="consistent")
        assert c.info["sigma2"] == pytest.approx(1.7e3, rel=0.05)
        assert 80 <= c.mean["QOP"][big].min() and c.mean["QOP"][big].max() <= 120
    assert b._sweep(b.params()).info["sigma2"] == pytest.approx(6e8, rel=0.02)
