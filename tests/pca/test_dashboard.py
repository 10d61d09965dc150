"""The paper-2 dashboard, without a kernel: draws every panel, reacts to the first slider, reproduces."""

import numpy as np
import pytest

from dpexplore.ui.pca import PrivatePCADashboard

SMALL = "n=200&d=30&trials=2&epsilon=10"


class Counting(PrivatePCADashboard):
    def __init__(self, **kw):
        self.calls: list[str] = []
        super().__init__(**kw)

    def figure(self, panel, p):
        self.calls.append(panel)
        return super().figure(panel, p)


def test_builds_small_and_draws_every_panel_with_theory_labels():
    b = PrivatePCADashboard(query_string=SMALL)
    assert not b.errors and set(b.figures) == {"vs_eps", "vs_coherence", "thresholds", "vs_n"}
    names = [t.name for t in b.figures["vs_eps"].data]
    assert any(n.startswith("adaptive power (Alg. 1) (measured, mean ± 95% CI over 2 trials)") for n in names)
    assert any("Thm 1.1 (adaptive) [rate, Thm 1.1, constant 1" in n for n in names)
    assert any("DTTZ14 (Analyze Gauss) [bound" in n for n in names)
    assert any("Thm 1.2 (adaptive) [rate" in t.name for t in b.figures["vs_n"].data)


def test_first_slider_changes_a_plot_and_only_dependent_panels_recompute():
    b = Counting(query_string=SMALL)
    assert b.controls[0].name == "epsilon"
    before = b.figures["vs_coherence"].to_dict()
    w = b.widgets["epsilon"]
    b.calls.clear()
    w.value = 10 ** (np.log10(w.value) + 0.1)  # one slider step to the right
    assert b.figures["vs_coherence"].to_dict() != before
    b.calls.clear()
    b.widgets["coherence"].value = 0.2
    assert sorted(b.calls) == ["thresholds", "vs_coherence", "vs_eps"]  # not the i.i.d. panel
    assert not b.errors


def test_coherence_below_floor_is_clamped_with_a_note():
    b = PrivatePCADashboard(query_string=SMALL + "&coherence=0.01")  # 1/sqrt(200) = 0.0707
    assert not b.errors
    assert "below 1/√n = 0.0707" in b._message_box.value


def test_reproduce_snippet_runs():
    b = PrivatePCADashboard(query_string=SMALL)
    code = b.reproduce(b.params())
    ns: dict = {}
    exec(code.replace("print(", "_ = ("), ns)  # our own generated code
    assert 0.0 <= ns["sin2"](ns["data"].v1, ns["res"].vector) <= 1.0
    assert ns["res"].iterations == len(ns["res"].thresholds)


def test_audit_note_says_the_exact_svt_audit_ignores_the_run_count():
    b = PrivatePCADashboard(query_string=SMALL)
    assert b.params()["audit"] != "svt" and b.audit_panel.note.value == ""
    b.widgets["audit"].value = "svt"
    assert "exact" in b.audit_panel.note.value and "not used" in b.audit_panel.note.value


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_captions_numbers_hold_at_the_defaults_for_seeds_0_1_2(seed):
    """Panel 1 and 2 captions and notebook 02 (measured for seeds 0, 1, 2 on issue 16's streams): adaptive beats
    worst-case noisy power (8–15× at ε ≥ 5), matches Analyze Gauss (factor 0.9–1.6) at d = 200 and beats it by
    1.4–2.2× at d = 500; the Thm 1.1 rate lies 12–23× below the measurement at ε ≥ 2 (the classic ε² scale put it
    13–91× below); over ε ≥ 5 the rate's log–log slope is −1.57 and the measurement's −1.45 to −1.65; at Υ ≈ 0.25
    and ε = 100 the adaptive method (0.19–0.72) is worse than worst-case noisy power (0.14) and Analyze Gauss
    (0.014–0.017) beats both."""
    from dpexplore.core import dp_to_zcdp
    from dpexplore.pca import theorem_1_1
    from dpexplore.ui.pca import DELTA, EPS_GRID

    b = PrivatePCADashboard(query_string="trials=3")
    p = dict(b.params(), seed=seed)
    r = b._eps_sweep(p)
    m = {k: r["vals"][k].mean(1) for k in ("adaptive", "worst", "gauss")}
    eps = np.asarray(EPS_GRID)
    big = eps >= 5
    assert np.all((m["worst"][big] / m["adaptive"][big] > 8) & (m["worst"][big] / m["adaptive"][big] < 15))
    ratio = m["gauss"][big] / m["adaptive"][big]
    assert np.all((ratio > 0.9) & (ratio < 1.65))
    t11 = np.array([theorem_1_1(p["n"], p["d"], p["kappa"], r["ups"], e, DELTA, r["sigma1"]).value for e in EPS_GRID])
    above = m["adaptive"][eps >= 2] / t11[eps >= 2]
    assert np.all((above > 12) & (above < 23))
    classic = eps**2 / (2 * np.log(2 / DELTA)) / np.array([2 * dp_to_zcdp(e, DELTA) for e in EPS_GRID])
    assert np.all((above * classic[eps >= 2] > 12.5) & (above * classic[eps >= 2] < 91))
    assert np.polyfit(np.log(eps[big]), np.log(t11[big]), 1)[0] == pytest.approx(-1.57, abs=0.005)
    assert -1.655 <= np.polyfit(np.log(eps[big]), np.log(m["adaptive"][big]), 1)[0] <= -1.445
    r5 = b._eps_sweep(dict(p, d=500))
    ratio5 = r5["vals"]["gauss"].mean(1)[big] / r5["vals"]["adaptive"].mean(1)[big]
    assert np.all((ratio5 > 1.395) & (ratio5 < 2.25))
    fig = b._fig_vs_coherence(dict(p, epsilon=100.0))
    ys = {t.name.split(" (")[0]: np.asarray(t.y, float) for t in fig.data if t.name and "(measured" in t.name}
    xs = next(np.asarray(t.x, float) for t in fig.data if t.name and "(measured" in t.name)
    j = int(np.argmin(np.abs(np.log(xs / 0.25))))
    assert ys["adaptive power"][j] > ys["worst-case noisy power"][j] > ys["Analyze Gauss"][j]
    assert 0.185 < ys["adaptive power"][j] < 0.725 and 0.135 < ys["worst-case noisy power"][j] < 0.145
    assert 0.0135 < ys["Analyze Gauss"][j] < 0.0175
