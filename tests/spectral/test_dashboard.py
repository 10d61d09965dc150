"""The paper-1 dashboard, exercised without a kernel on small settings."""

import pytest

pytest.importorskip("plotly")
pytest.importorskip("ipywidgets")

from dpexplore.ui.spectral import SpectralClusteringDashboard  # noqa: E402


@pytest.mark.slow
def test_dashboard_draws_every_panel_and_recomputes_selectively():
    d = SpectralClusteringDashboard(query_string="n=120&trials=1&k=2&p=0.4&q=0.05")
    assert not d.errors and set(d.figures) == {p.name for p in d.panels}
    names = [t.name for t in d.figures["vs_eps"].data]
    assert any("Matrix shuffling (accountant none (sound)) (measured" in str(n) for n in names)
    notes = " ".join(a.text or "" for a in d.figures["vs_eps"].layout.annotations)
    assert any("[bound" in str(n) for n in names) or "not drawn — above 1 (vacuous) at every ε" in notes
    assert any("[rate, constant 1" in str(n) for n in names)
    before = d.figures["spectrum"].to_json()
    d.widgets["epsilon"].value = 1.2589  # the first slider moves a curve
    assert d.figures["spectrum"].to_json() != before
    assert "misclassification_vs_epsilon(n=120, k=2" in d._snippet.value and "rng=0)" in d._snippet.value


@pytest.mark.slow
def test_dashboard_shows_library_errors():
    d = SpectralClusteringDashboard(query_string="n=120&trials=1&k=2&p=0.1&q=0.2")
    assert "q must be &lt; p" in d._message_box.value or "q must be < p" in str(d.errors)
    d.widgets["q"].value = 0.02
    assert not d.errors


@pytest.mark.slow
def test_panel1_overlays_say_what_is_true_at_the_defaults():
    """Issue 15: the shuffle rate is the rate of the accountant in use; a vacuous bound is reported where it lies
    (not a legend entry without a curve); a refuted accountant's curve says REFUTED on the plot."""
    import math

    import numpy as np

    from dpexplore.spectral import rate, sbm_quantities, shuffle_epsilon0

    d = SpectralClusteringDashboard(query_string="trials=1")
    p = d.params()
    fig = d.figures["vs_eps"]
    names = [t.name or "" for t in fig.data]
    assert not any("[bound" in n for n in names)  # above 1 at every ε at the defaults: no empty legend entry
    notes = " ".join(a.text or "" for a in fig.layout.annotations)
    assert "not drawn — above 1 (vacuous) at every ε" in notes and "graph's own sampling noise alone gives" in notes
    s = sbm_quantities(p["n"], p["k"], p["p"], p["q"])
    for acc in ("none", "fmt21_numerical"):
        f = d._fig_vs_eps(dict(p, accountant=acc))
        tr = next(t for t in f.data if (t.name or "").startswith("Matrix shuffling") and "[rate" in (t.name or ""))
        eps = np.asarray(tr.x, float)
        want = []
        for e in eps:
            e0 = shuffle_epsilon0(e, p["n"], 1 / p["n"] ** 2, accountant=acc)
            r = rate("shuffle", n=p["n"], k=p["k"], eigengap=s.eigengap, epsilon=e, delta=1 / p["n"] ** 2,
                     epsilon0=e0, max_row_norm=s.max_row_norm).value
            want.append(r if r <= 1 else math.nan)
        assert np.allclose(np.asarray(tr.y, float), want, equal_nan=True)
        measured = [t.name for t in f.data if (t.name or "").startswith("Matrix shuffling") and "(measured" in t.name]
        assert measured and all(("REFUTED" in m) == (acc != "none") for m in measured)
    # the sound accountant's rate has no 1/n gain: equal to the FMT rate only where FMT does not amplify
    sound = rate("shuffle", n=300, k=3, eigengap=s.eigengap, epsilon=1.0, delta=1 / 300**2, epsilon0=1.0).value
    fmt = rate("shuffle", n=300, k=3, eigengap=s.eigengap, epsilon=1.0, delta=1 / 300**2,
               epsilon0=shuffle_epsilon0(1.0, 300, 1 / 300**2, accountant="fmt21_numerical")).value
    assert sound > 3 * fmt


@pytest.mark.slow
def test_the_notebooks_what_to_try_numbers_hold_for_seeds_0_1_2():
    """Notebook 01's panel-1 and panel-2 ranges (measured for seeds 0, 1, 2; 3 trials)."""
    import numpy as np

    from dpexplore.spectral import analyze_gauss_sigma, rr_noise_variance, shuffle_epsilon0
    from dpexplore.ui.spectral import EPS_GRID

    d = SpectralClusteringDashboard(query_string="trials=1")
    i = {e: j for j, e in enumerate(EPS_GRID)}

    def slopes(p):
        note = next(a.text for a in d._fig_vs_n(p).layout.annotations if "slope" in (a.text or ""))
        return {line.split(":")[0]: float(line.split("slope ")[1].split()[0]) for line in note.split("<br>")}

    for seed in (0, 1, 2):
        p = dict(d.params(), seed=seed, trials=3)
        sh, ag, npw = (d._eps_sweep(p, m).mean(1) for m in ("shuffle", "analyze_gauss", "noisy_power"))
        assert 0.155 <= sh[i[1.0]] <= 0.205 and np.all(sh[i[2.0]:] <= 0.006)
        assert np.all(ag[: i[2.0] + 1] > 0.55) and np.all(npw[: i[2.0] + 1] > 0.55)
        assert 0.225 <= ag[i[4.0]] <= 0.325 and 0.435 <= npw[i[4.0]] <= 0.525
        assert ag[i[8.0]] < 0.03 and 0.0075 <= npw[i[8.0]] <= 0.095
        fmt = d._eps_sweep(dict(p, accountant="fmt21_numerical"), "shuffle").mean(1)
        assert 0.0305 <= fmt[i[0.5]] <= 0.0665 and np.all(fmt[i[1.0]:] <= 0.007)
        s1 = slopes(dict(p, accountant="none"))
        assert -1.07 <= s1["Matrix shuffling"] <= -0.96 and abs(s1["Analyze Gauss"]) < 0.1
        s3 = slopes(dict(p, accountant="none", epsilon=3.0))
        assert -1.10 <= s3["Matrix shuffling"] <= -0.93 and -0.86 <= s3["Analyze Gauss"] <= -0.84
        for eps in (1.0, 3.0):
            sf = slopes(dict(p, accountant="fmt21_numerical", epsilon=eps))
            assert -1.72 <= sf["Matrix shuffling"] <= -1.60
    # the per-entry noise-variance ratios the notebook quotes (deterministic)
    for n, acc, want in ((300, "none", 14.9), (1000, "none", 19.4), (300, "fmt21_numerical", 80.2),
                         (1000, "fmt21_numerical", 237.5)):
        e0 = shuffle_epsilon0(1.0, n, 1 / n**2, accountant=acc)
        assert analyze_gauss_sigma(1.0, 1 / n**2) ** 2 / rr_noise_variance(e0) == pytest.approx(want, abs=0.06)
