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
    assert any("Matrix shuffling (measured" in str(n) for n in names)
    assert any("[bound" in str(n) for n in names) and any("[rate, constant 1" in str(n) for n in names)
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
