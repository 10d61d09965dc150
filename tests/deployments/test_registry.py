"""The ε registry: every row sourced, the loader refuses malformed rows, translations are bounds."""

import copy
import json
import math

import pytest

from dpexplore.core.discrete_gaussian import zcdp_epsilon
from dpexplore.core.risk import advantage_bound, posterior_bound
from dpexplore.deployments.registry import REGISTRY_FILE, load_registry, translate, validate_row

RAW = json.loads(REGISTRY_FILE.read_text(encoding="utf-8"))["rows"]


def test_every_row_has_a_source_unit_and_horizon():
    rows = load_registry()
    assert len(rows) == len(RAW) >= 5
    for r in rows:
        assert r.source["citation"].strip() and r.source["url"].startswith("https://")
        assert r.privacy_unit.strip() and r.time_horizon.strip()
        assert r.epsilon is not None or r.epsilon_reason
    keys = {r.key for r in rows}
    # the required deployments
    assert {"census2020_persons", "apple_emoji", "google_rappor", "facebook_urls", "microsoft_telemetry"} <= keys


def test_census_rows_convert_their_rho():
    """ρ printed to two decimals: the tight conversion of ρ ± 0.005 at the row's δ brackets the row's ε."""
    for r in load_registry():
        if r.rho is not None and r.epsilon is not None:
            assert zcdp_epsilon(r.rho - 0.005, r.delta) <= r.epsilon <= zcdp_epsilon(r.rho + 0.005, r.delta)


def test_rappor_epsilon_is_its_formula():
    r = {d.key: d for d in load_registry()}["google_rappor"]
    h, f = 2, 0.5
    assert r.epsilon == pytest.approx(2 * h * math.log((1 - f / 2) / (f / 2)), abs=5e-4)


@pytest.mark.parametrize("field,value,match", [
    ("source", None, "source must be an object"),
    ("source", {"citation": "x", "url": "http://insecure"}, "https://"),
    ("source", {"citation": "", "url": "https://a.b"}, "citation must be a non-empty string"),
    ("epsilon", -1, "epsilon must be a finite number >= 0 or null"),
    ("epsilon", "4", "epsilon must be a finite number"),
    ("delta", 1.0, "delta must be a number >= 0 and < 1"),
    ("privacy_unit", "", "privacy_unit must be a non-empty string"),
    ("time_horizon", None, "time_horizon"),
    ("rho", -0.1, "rho must be"),
])
def test_loader_refuses_malformed_rows(tmp_path, field, value, match):
    rows = copy.deepcopy(RAW)
    rows[1][field] = value
    p = tmp_path / "bad.json"
    p.write_text(json.dumps({"rows": rows}))
    with pytest.raises(ValueError, match=match):
        load_registry(p)


def test_loader_refuses_null_epsilon_without_reason_and_duplicates(tmp_path):
    row = copy.deepcopy(RAW[0])
    row["epsilon"], row["epsilon_reason"] = None, None
    with pytest.raises(ValueError, match="epsilon_reason must say why"):
        validate_row(row)
    p = tmp_path / "dup.json"
    p.write_text(json.dumps({"rows": [RAW[0], RAW[0]]}))
    with pytest.raises(ValueError, match="unique"):
        load_registry(p)
    p.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_registry(p)


@pytest.mark.parametrize("k", [1, 2, 7, 365])
@pytest.mark.parametrize("mode", ["time", "group"])
def test_translation_is_the_risk_bound_of_k_fold_use(k, mode):
    for r in load_registry():
        t = translate(r, k=k, mode=mode, prior=0.01)
        if r.epsilon is None:
            assert t is None
            continue
        assert t["epsilon"] == pytest.approx(k * r.epsilon)
        assert t["delta"] >= min(1.0, k * r.delta) - 1e-18  # never below basic composition's δ
        if t["delta"] < 1:
            assert t["advantage"] == pytest.approx(advantage_bound(k * r.epsilon, t["delta"]))
        assert t["posterior"] == pytest.approx(posterior_bound(0.01, k * r.epsilon))
    with pytest.raises(ValueError, match="k must be an integer >= 1 and <= 365"):
        translate(load_registry()[0], k=0)
