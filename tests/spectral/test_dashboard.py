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
    assert "private_spectral_clustering(" in d._snippet.value and "rng=np.random.default_rng" in d._snippet.value


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
