"""The paper-4 dashboard without a kernel: panels draw, the first slider moves a curve, errors show."""

import math

import numpy as np
import pytest

from dpexplore.ui.shuffle import ShuffleAsymptoticsDashboard, gdp_error_sweep


@pytest.fixture(scope="module")
def board():
    return ShuffleAsymptoticsDashboard(query_string="n=2000")


def _ys(fig):
    return [np.asarray(t.y, dtype=float) for t in fig.data if t.y is not None and t.type == "scatter"]


def test_builds_and_draws_every_panel(board):
    assert not board.errors
    assert set(board.figures) == {p.name for p in board.panels}
    names = " | ".join(t.name for t in board.figures["curve"].data)
    for word in ("[exact", "[approximation", "[bound"):
        assert word in names
    assert "FMT21 clones" in names and "Chernoff" in names
    assert board.figures["solver"].data[0].type == "table"
    assert "not cryptographically secure" in board.children[-1].value


def test_first_slider_one_step_changes_a_curve(board):
    first = board.controls[0]
    assert first.name == "epsilon0" and first.kind == "log"
    before = _ys(board.figures["curve"])
    w = board.widgets["epsilon0"]
    w.value = 10 ** (math.log10(w.value) + first.step)
    after = _ys(board.figures["curve"])
    assert any(a.shape != b.shape or not np.allclose(a, b, equal_nan=True) for a, b in zip(before, after))


def test_reproduce_snippet_runs_and_matches(board):
    p = board.params()
    code = board.reproduce(p)
    ns: dict = {}
    exec(code, ns)  # the snippet is real library code
    from dpexplore.shuffle import binary_rr, exact_epsilon

    assert "exact_epsilon(R, 2000" in code
    assert ns["R"].W0 == pytest.approx(binary_rr(p["epsilon0"]).W0)
    assert exact_epsilon(ns["R"], 2000, p["delta"]) > 0


def test_krr_small_and_large_n_and_pi():
    d = ShuffleAsymptoticsDashboard(query_string="family=krr&alphabet=5&n=300&pi=0.05")
    assert not d.errors
    assert any("exact" in t.name for t in d.figures["curve"].data)
    d.set_params(n=50_000)
    assert not d.errors
    notes = " ".join(a.text for a in d.figures["curve"].layout.annotations)
    assert "exact k-RR curve drawn only while" in notes
    assert not any(t.name.startswith("exact") for t in d.figures["curve"].data)
    names = " ".join(t.name for t in d.figures["tradeoff"].data)
    assert "mixture μ<sub>mix</sub>" in names  # π > 0 shows the optimistic mixture curve


def test_large_n_binary_stays_bounded(board):
    import time

    t0 = time.process_time()
    board.set_params(n=10**6)
    cpu = time.process_time() - t0
    assert not board.errors
    assert cpu < 20  # generous: ≈ 2 s of CPU on the shared 2-core machine; guards against a blow-up


def test_gdp_error_sweep_shape():
    ns = np.array([100, 10_000, 1_000_000])
    err = gdp_error_sweep(1.0, ns)
    assert err[0] > err[1] > err[2] > 0
    path = gdp_error_sweep(1.0, ns, a=0.05)
    assert math.isnan(path[0]) or path[0] > 0
    assert path[2] > 10 * err[2]  # on the boundary path the error does not vanish


def test_audit_panel_reports_and_catches_the_broken_variant():
    from dpexplore.shuffle import audit as SA
    board = ShuffleAsymptoticsDashboard(query_string="n=20&epsilon0=2")
    p = board.params()
    rep = board.audit_report(p, broken=False, runs=200_000, rng=0, progress=lambda d, t: True)
    assert not rep.violation and rep.exact_epsilon <= rep.claimed_epsilon * (1 + 1e-9) and rep.epsilon_lower > 0.5
    bad = board.audit_report(p, broken=True, runs=200_000, rng=0, progress=lambda d, t: True)
    assert bad.violation and bad.exact_epsilon > bad.claimed_epsilon
    assert bad.exact_epsilon == pytest.approx(SA.exact_shuffle_audit(2.0, 20, p["delta"],
                                                                     variant="broken_randomizer").epsilon)
    # large n: the exact audit still catches it; GDP shown honestly as an approximation
    big = ShuffleAsymptoticsDashboard(query_string="n=1000000")
    rb = big.audit_report(big.params(), broken=True, runs=20_000, rng=0, progress=lambda d, t: True)
    assert rb.violation and "approximation" in rb.neighbours
    # cancel
    rc = board.audit_report(p, broken=False, runs=200_000, rng=0, progress=lambda d, t: False)
    assert rc.cancelled


def test_audit_panel_runs_in_the_page():
    board = ShuffleAsymptoticsDashboard(query_string="n=20")
    board.audit_panel.runs.value = 20_000
    board.audit_panel.start(wait=True)
    assert board.audit_panel.report is not None and not board.audit_panel.report.violation


def test_worst_case_curves_download_and_labels():
    import base64
    import csv
    import io
    import re
    import time

    from dpexplore.shuffle import binary_rr, k_rr, privacy_profile, worst_case_epsilon

    t0 = time.process_time()
    small = ShuffleAsymptoticsDashboard(query_string="n=300&epsilon0=2")
    assert not small.errors and time.process_time() - t0 < 30
    names = [t.name for t in small.figures["curve"].data]
    assert any(nm.startswith("exact worst case over all data sets") for nm in names)
    assert any(nm.startswith("this pair only (k = 0)") for nm in names)
    # the download link carries the library's profile for these settings
    m = re.search(r"href='data:text/csv;base64,([A-Za-z0-9+/=]+)'", small.teaching.csv_widget("curve").value)
    rows = list(csv.reader(io.StringIO(base64.b64decode(m.group(1)).decode())))
    p = small.params()
    eps_row = [r for r in rows if r[0] == "epsilon_of_delta"][0]
    assert float(eps_row[1]) == p["delta"]
    assert float(eps_row[2]) == pytest.approx(worst_case_epsilon(binary_rr(2.0), 300, p["delta"]).epsilon, rel=1e-12)
    assert "application/json" in small.teaching.csv_widget("curve").value
    # solver: 'exact' is labelled as the worst case, GDP/Chernoff as the canonical pair
    kinds = small.figures["solver"].data[0].cells.values[1]
    assert kinds[0].startswith("worst case over all data sets") and any("canonical pair only" in x for x in kinds)
    # k-RR at large n: certified upper and named-pair lower, both drawn; the third-symbol pair is the lower end
    big = ShuffleAsymptoticsDashboard(query_string="family=krr&alphabet=3&n=1000&epsilon0=2")
    names = [t.name for t in big.figures["curve"].data]
    notes = " ".join(a.text for a in big.figures["curve"].layout.annotations)
    assert any("certified upper end" in nm for nm in names) and "certified, exact privacy blanket" in notes
    assert any("Bennett" in nm for nm in names)
    assert any("worst pair found" in nm for nm in names)
    from dpexplore.ui.shuffle import PROFILE_RTOL

    prof = privacy_profile(k_rr(2.0, 3), 1000, deltas=[big.params()["delta"]], rtol=PROFILE_RTOL)
    notes = " ".join(a.text for a in big.figures["curve"].layout.annotations)
    assert f"{prof.epsilon_upper[0]:.4g}" in notes and f"{prof.epsilon_lower[0]:.4g}" in notes


def test_bundled_cap_is_noted_where_it_binds():
    d = ShuffleAsymptoticsDashboard(query_string="epsilon0=4&n=100000&m=10")
    notes = " ".join(a.text for a in d.figures["multi"].layout.annotations)
    assert "trivial bound" in notes and "m·ε0 = 40" in notes
