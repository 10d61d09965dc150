"""Every measured number the notebooks' guides and the dashboards' captions quote, recomputed (issues 25 and 37).

Each check reads its number out of the text (a notebook's markdown or a caption/description string), recomputes
it with the dashboard's own experiment code at the settings the text describes, and compares: editing the text or
the code so that they disagree fails here. Values that involve no randomness (calibrations, exact ε, accountants)
are recomputed as is.

What a quoted range claims (issue 37, item 9). A range is the lowest and highest value over seeds 0–9 — a record
of ten runs, and the pages say what it predicts: for exchangeable seeds a new seed falls below the minimum of ten
with probability 1/11 and above the maximum with probability 1/11 (so inside with probability ≥ 9/11 ≈ 82 %); an
"at most"/"above" number is the largest/smallest of the ten, or looser, and a new seed crosses it with probability
≤ 1/11. Given the ten seeds, the chance U that a new seed falls below the range is Beta(1, 10)-distributed (the
minimum of ten uniforms), so the number X of m fresh seeds below it is beta-binomial(m, 1, 10) — not binomial: one
range can be unlucky for every fresh seed at once. Each end is tested one-sided, and for a scalar per seed also
the number outside (beta-binomial(m, 2, 9)): the claim fails when P(X ≥ x_observed) < ALPHA = 3e-4 (Bonferroni:
≈ 130 tests over the file keep the chance of any false alarm ≤ 4 %). The fresh seeds are 100 and up (never the
seeds a range was built from).

Checks a range at seeds 0–9 must be tight (its ends are the measured extremes to the printed precision).

What CI runs and what only ``DPEXPLORE_QUOTED_SEEDS=all`` runs
--------------------------------------------------------------
* CI (default): the cheap groups (notebook 01's panel-1 sweep under the sound accountant and its Analyze Gauss
  audit, notebook 05's audits and its F2 setting) at all ten seeds, tight; the fresh-seed coverage test for the
  cheapest of them (05's scale-pair audit and its F2 setting: seeds 100–109, ≈ 6 s CPU). The costly groups
  (01's FMT21 curve and slopes, 02's sweeps, 05's "What to try" sweeps and broken-qop_inexact audit) run at
  seed 0 only: seed 0's value must lie in the quoted range, which does not check the range's ends, and their
  coverage is not tested in CI.
* ``DPEXPLORE_QUOTED_SEEDS=all``: every group at seeds 0–9 (tight) and every range's coverage claim on
  ``DPEXPLORE_QUOTED_FRESH`` fresh seeds (default 20: seeds 100–119) — about 25 CPU minutes (estimated from
  per-seed CPU times of ≈ 50 s over all groups; not yet run end to end).

Not recomputed here (too expensive for the CI budget; qualitative in the text): notebook 01's two-hub audits (the
text says ε̂ ≤ 1 / ε̂ > 1; tests/spectral/test_audit.py checks that at one seed), notebook 01's "7 of seeds 0–140"
false-alarm count, and notebook 02's whole-run composition audit ("ε̂ stays far below the claim").
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

ROOT = Path(__file__).resolve().parents[2]
ALL = os.environ.get("DPEXPLORE_QUOTED_SEEDS", "") == "all"
SEEDS = tuple(range(10))  # the seeds the texts quote ranges over
COSTLY = SEEDS if ALL else (0,)
FRESH = tuple(range(100, 100 + int(os.environ.get("DPEXPLORE_QUOTED_FRESH", "20")))) if ALL else ()
CHEAP_FRESH = FRESH if ALL else tuple(range(100, 110))  # the cheapest groups check their coverage in CI too
ALPHA = 3e-4  # per test (module docstring)
#: the sentence each page with seed ranges carries (the claim the coverage test checks), and the captions' short form
RULE = ("a new seed falls below such a range 1 time in 11 on average and above it 1 time in 11, so it lands inside "
        "about 4 times in 5 (at least 9/11 ≈ 82 %)")
RULE_BOUND = "a new seed crosses it at most 1 time in 11 on average"
RULE_CAPTION = "lowest–highest of seeds 0–9: a new seed lands inside about 4 times in 5"
N = r"([−-]?\d+(?:\.\d+)?)"  # one quoted number (a typographic or ASCII minus)
NOOP = lambda *a: None  # noqa: E731 - the audits' progress callback


# -- reading the text ------------------------------------------------------------------------------------------
@functools.cache
def markdown(stem: str) -> str:
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def defaults(cls) -> dict:
    """A dashboard's default settings (what its page opens on)."""
    return {c.name: c.default for c in cls.controls}


def caption(cls, panel: str) -> str:
    return next(p.caption for p in cls.panels if p.name == panel)


def quoted(text: str, pattern: str) -> list[tuple[float, float]]:
    """The numbers of the one match of ``pattern`` (``N`` marks a number) as (value, half a unit of its last digit)."""
    rx = re.compile(pattern.replace("N", N), re.S)
    found = rx.findall(re.sub(r"\s+", " ", text))
    assert len(found) == 1, f"expected one match of {pattern!r} in the text, found {len(found)}"
    groups = found[0] if isinstance(found[0], tuple) else (found[0],)
    out = []
    for g in groups:
        g = g.replace("−", "-")
        decimals = len(g.split(".")[1]) if "." in g else 0
        out.append((float(g), 0.5 * 10.0**-decimals))
    return out


# -- the checks ------------------------------------------------------------------------------------------------
def check_range(text, pattern, per_seed, *, scale=1.0, seeds=SEEDS, tight=None, fresh=None, what=""):
    """The quoted range (two numbers) holds every value of ``per_seed(seed)`` over ``seeds``.

    ``tight`` (default: when ``seeds`` are all the quoted seeds) also requires the range's ends to be the measured
    extremes to the printed precision; a range quoted "at seed 0" passes ``seeds=(0,)`` and ``tight=True``.
    ``fresh`` (default :data:`FRESH`: only in the ``all`` mode): seeds on which the coverage claim is tested
    (:func:`coverage`), against the range of seeds 0–9 as recomputed.
    """
    _range(quoted(text, pattern), per_seed, scale=scale, seeds=seeds, tight=tight, fresh=fresh, what=what)


def _values(per_seed, seeds):
    return [np.atleast_1d(np.asarray(per_seed(s), float)).ravel() for s in seeds]


def coverage(per_seed, fresh, *, below=None, above=None, what=""):
    """The stated rate on fresh seeds: a new seed is below ``below`` (above ``above``) ≤ 1 time in 11 on average.

    A per-seed value may be an array (a range "for every κ ≥ 10"): the seed is below if its smallest element is,
    above if its largest is. X of the m fresh seeds below the minimum of ten exchangeable seeds is
    beta-binomial(m, 1, 10) (module docstring); the check fails when P(X ≥ x) < ALPHA. With ties or a looser
    bound the true rate is smaller, so the test stays valid (conservative). For a scalar per seed the number
    outside the range is tested too (beta-binomial(m, 2, 9)); for arrays only the two ends (a weaker test: the
    chance of falling outside is then only bounded by the two ends' sum).
    """
    from scipy import stats

    fresh = tuple(fresh)
    if not fresh:
        return
    assert min(fresh) >= 100, "coverage is tested on seeds the range was not built from"
    vals = _values(per_seed, fresh)
    m = len(fresh)
    if below is not None and above is not None and all(v.size == 1 for v in vals):
        # a scalar per seed: the chance 1 − C of falling outside [min, max] of ten is Beta(2, 9), so the number of
        # fresh seeds outside is beta-binomial(m, 2, 9) — this catches a range too narrow at both ends at once
        x = int(sum(v[0] < below or v[0] > above for v in vals))
        p = float(stats.betabinom.sf(x - 1, m, 2, 9))
        assert p >= ALPHA, (f"{what}: {x} of {m} fresh seeds fall outside {below:.4g}–{above:.4g}; under the stated "
                            f"rate (inside ≥ 9/11 on average) P(≥ {x}) = {p:.2g} < {ALPHA}")
    for bound, out, side in ((below, [v.min() < below for v in vals] if below is not None else None, "below"),
                             (above, [v.max() > above for v in vals] if above is not None else None, "above")):
        if out is None:
            continue
        x = int(sum(out))
        p = float(stats.betabinom.sf(x - 1, m, 1, 10))
        assert p >= ALPHA, (f"{what}: {x} of {m} fresh seeds fall {side} {bound:.4g}; under the stated rate "
                            f"(1 in 11 on average) P(≥ {x}) = {p:.2g} < {ALPHA}")


def _range(nums, per_seed, *, scale=1.0, seeds=SEEDS, tight=None, fresh=None, what=""):
    (a, ha), (b, hb) = nums
    lo, hi = sorted((a * scale, b * scale))
    h = max(ha, hb) * scale
    run = tuple(seeds)
    vals = np.concatenate(_values(per_seed, run))
    assert np.all(vals >= lo - h) and np.all(vals <= hi + h), (
        f"{what}: text says {a:g}–{b:g}, measured {vals.min() / scale:.4g}–{vals.max() / scale:.4g} (seeds {run})")
    if tight or (tight is None and run == SEEDS):
        assert vals.min() - lo <= 2 * h and hi - vals.max() <= 2 * h, (
            f"{what}: text says {a:g}–{b:g}, but the measured range is only "
            f"{vals.min() / scale:.4g}–{vals.max() / scale:.4g} (seeds {run})")
    if run == SEEDS:  # the claim is about the range of seeds 0–9 (the text's ends are that range, rounded)
        coverage(per_seed, FRESH if fresh is None else fresh, below=vals.min(), above=vals.max(), what=what)


def check_bound(text, pattern, per_seed, *, upper, scale=1.0, seeds=SEEDS, fresh=None, what=""):
    """The quoted one-sided bound ("at most x", "above x") holds for every value over the seeds, and a fresh seed
    crosses it at most 1 time in 11 on average (tested on ``fresh`` seeds, default :data:`FRESH`)."""
    ((q, h),) = quoted(text, pattern)
    run = tuple(seeds)
    vals = np.concatenate(_values(per_seed, run))
    if upper:
        assert np.all(vals <= (q + h) * scale), f"{what}: text says ≤ {q:g}, measured up to {vals.max() / scale:.4g}"
        coverage(per_seed, FRESH if fresh is None else fresh, above=(q + h) * scale, what=what)
    else:
        assert np.all(vals >= (q - h) * scale), f"{what}: text says ≥ {q:g}, measured down to {vals.min() / scale:.4g}"
        coverage(per_seed, FRESH if fresh is None else fresh, below=(q - h) * scale, what=what)


def check_value(text, pattern, value, *, scale=1.0, what=""):
    """Every number of the match equals ``value`` (one value or one per number) to the printed precision."""
    nums = quoted(text, pattern)
    values = value if isinstance(value, (list, tuple)) else [value] * len(nums)
    for (q, h), v in zip(nums, values, strict=True):
        assert abs(v / scale - q) <= h * (1 + 1e-9), f"{what}: text says {q:g}, computed {v / scale:.6g}"


# == notebook 01 and the spectral captions ======================================================================
# Each board is built on a small view (building draws every panel once) and then asked for the default settings
# explicitly: ``defaults(cls)`` plus the texts' overrides.
@functools.cache
def spectral_board():
    from dpexplore.ui.spectral import SpectralClusteringDashboard

    return SpectralClusteringDashboard(query_string="trials=1&n=100")


def spectral_defaults() -> dict:
    from dpexplore.ui.spectral import SpectralClusteringDashboard

    return defaults(SpectralClusteringDashboard)


@functools.cache
def spectral(seed: int) -> dict[str, float | np.ndarray]:
    """Panel 1 at the defaults with 3 trials (the notebook's setting), sound accounting."""
    from dpexplore.ui.spectral import EPS_GRID

    d = spectral_board()
    i = {e: j for j, e in enumerate(EPS_GRID)}
    p = dict(spectral_defaults(), seed=seed, trials=3)
    sh, ag, npw = (d._eps_sweep(p, m).mean(1) for m in ("shuffle", "analyze_gauss", "noisy_power"))
    return {"sh@1": sh[i[1.0]], "sh>=2": sh[i[2.0]:], "base<=2": np.r_[ag[: i[2.0] + 1], npw[: i[2.0] + 1]],
            "ag@4": ag[i[4.0]], "npw@4": npw[i[4.0]], "ag@8": ag[i[8.0]], "npw@8": npw[i[8.0]]}


@functools.cache
def spectral_fmt(seed: int) -> dict[str, float | np.ndarray]:
    """Panel 1's shuffling curve under the FMT21 accountant (costly: its ε0 is recomputed per trial)."""
    from dpexplore.ui.spectral import EPS_GRID

    i = {e: j for j, e in enumerate(EPS_GRID)}
    p = dict(spectral_defaults(), seed=seed, trials=3, accountant="fmt21_numerical")
    fmt = spectral_board()._eps_sweep(p, "shuffle").mean(1)
    return {"fmt@0.5": fmt[i[0.5]], "fmt>=1": fmt[i[1.0]:]}


@functools.cache
def slopes(seed: int) -> dict[str, float | np.ndarray]:
    """Panel 2's printed log–log slopes (last two n), defaults with 3 trials, at ε = 1 and 3."""
    d = spectral_board()
    p = dict(spectral_defaults(), seed=seed, trials=3)

    def slopes(**over):
        note = next(a.text for a in d._fig_vs_n(dict(p, **over)).layout.annotations if "slope" in (a.text or ""))
        return {line.split(":")[0]: float(line.split("slope ")[1].split()[0]) for line in note.split("<br>")}

    s1, s3 = slopes(accountant="none", epsilon=1.0), slopes(accountant="none", epsilon=3.0)
    f1, f3 = (slopes(accountant="fmt21_numerical", epsilon=e)["Matrix shuffling"] for e in (1.0, 3.0))
    return {"base slopes e1": np.abs([s1["Analyze Gauss"], s1["Noisy power"]]), "sh slope e1": s1["Matrix shuffling"],
            "sh slope e3": s3["Matrix shuffling"], "ag slope e3": s3["Analyze Gauss"], "fmt slopes": [f1, f3]}


def test_notebook_01_panel_1_and_2():
    t = markdown("01_spectral_clustering")
    assert RULE in re.sub(r"\s+", " ", t) and RULE_BOUND in re.sub(r"\s+", " ", t)
    v, sl, C = spectral, slopes, COSTLY
    pct = dict(scale=0.01, seeds=SEEDS)  # percentages; the sound-accountant sweep (1 s a seed) at all ten seeds
    check_range(t, r"shuffling misclassifies N–N% at ε = 1", lambda s: v(s)["sh@1"], **pct, what="shuffle ε=1")
    check_bound(t, r"at most N% from ε = 2", lambda s: v(s)["sh>=2"], upper=True, **pct, what="shuffle ε≥2")
    check_bound(t, r"stay above N% \(chance", lambda s: v(s)["base<=2"], upper=False, **pct, what="baselines")
    check_range(t, r"Analyze Gauss is at N–N%", lambda s: v(s)["ag@4"], **pct, what="AG ε=4")
    check_range(t, r"noisy power method at N–N%, and at ε = 8", lambda s: v(s)["npw@4"], **pct, what="NPM ε=4")
    check_bound(t, r"Analyze Gauss is below N%", lambda s: v(s)["ag@8"], upper=True, **pct, what="AG ε=8")
    check_range(t, r"noisy power method at N–N%\. Switch", lambda s: v(s)["npw@8"], **pct, what="NPM ε=8")
    f, pct = spectral_fmt, dict(scale=0.01, seeds=C)  # FMT21's ε0 is slow: costly
    check_range(t, r"misclassifies N–N% at ε = 0\.5", lambda s: f(s)["fmt@0.5"], **pct, what="FMT ε=.5")
    check_bound(t, r"at most N% from ε = 1", lambda s: f(s)["fmt>=1"], upper=True, **pct, what="FMT ε≥1")
    check_bound(t, r"slopes within ±N of 0", lambda s: sl(s)["base slopes e1"], upper=True, seeds=C, what="baselines")
    check_range(t, r"slope is N to N with the sound accountant", lambda s: sl(s)["sh slope e1"], seeds=C, what="ε=1")
    check_range(t, r"shuffling N to N, Analyze Gauss", lambda s: sl(s)["sh slope e3"], seeds=C, what="shuffle ε=3")
    check_range(t, r"Analyze Gauss N to N — both", lambda s: sl(s)["ag slope e3"], seeds=C, what="AG slope ε=3")
    check_range(t, r"becomes N to N \(at ε = 1 or 3\)", lambda s: sl(s)["fmt slopes"], seeds=C, what="FMT21 slopes")
    # the vacuous bound's note (a bound from the graph's expected noise: no seed)
    d = spectral_board()
    note = next(a.text for a in d._fig_vs_eps(dict(spectral_defaults(), trials=3)).layout.annotations
                if "sampling noise alone" in (a.text or ""))
    ((alone, _),) = quoted(note, r"sampling noise alone gives N;")
    check_value(t, r"sampling noise alone puts it at N\)", alone, what="graph noise bound")


def test_spectral_panel_2_caption():
    from dpexplore.ui.spectral import SpectralClusteringDashboard as D

    c, sl, C = caption(D, "vs_n"), slopes, COSTLY
    assert RULE_CAPTION in re.sub(r"\s+", " ", c)
    check_bound(c, r"slopes within ±N of 0", lambda s: sl(s)["base slopes e1"], upper=True, seeds=C, what="baselines")
    check_range(c, r"something: N to N with accountant", lambda s: sl(s)["sh slope e1"], seeds=C, what="ε=1")
    check_range(c, r"N to N with an FMT", lambda s: sl(s)["fmt slopes"], seeds=C, what="FMT slopes")
    check_range(c, r"its slope \(N to N\)", lambda s: sl(s)["ag slope e3"], seeds=C, what="AG slope ε=3")
    check_range(c, r"under none \(N to N\)", lambda s: sl(s)["sh slope e3"], seeds=C, what="shuffle ε=3")


@functools.cache
def spectral_gauss_audit(seed: int, broken: bool):
    d = spectral_board()
    return d.audit_report(dict(spectral_defaults(), audit="analyze_gauss", epsilon=1.0, seed=seed), broken=broken,
                          runs=d.audit_runs[0], rng=seed, progress=NOOP)


def test_notebook_01_audit_numbers():
    from dpexplore.spectral import shuffle_epsilon0

    t = markdown("01_spectral_clustering")
    check_range(t, r"ε̂ = N–N over seeds 0–9, below the claim 1",
                lambda s: spectral_gauss_audit(s, False).epsilon_lower, what="Analyze Gauss audit")
    check_range(t, r"broken: ε̂ = N–N above it", lambda s: spectral_gauss_audit(s, True).epsilon_lower,
                what="broken Analyze Gauss audit")
    check_value(t, r"above it, exact N\)", spectral_gauss_audit(0, True).exact_epsilon, what="exact ε, σ halved")
    # the accountants' ε0 (deterministic) behind the qualitative audit statements
    e0 = {(e, acc): shuffle_epsilon0(e, 300, 1 / 300**2, accountant=acc)
          for e in (1.0, 3.0) for acc in ("none", "fmt21_numerical")}
    check_value(t, r"really spends ε0 = N\)", e0[1.0, "fmt21_numerical"], what="FMT21 ε0 at ε=1")
    check_value(t, r"its true ε is 2ε0 = N\)", 2 * e0[1.0, "fmt21_numerical"], what="2ε0 (FMT21)")
    check_value(t, r"that is N with accountant none and N with FMT21",
                [2 * e0[1.0, "none"], 2 * e0[1.0, "fmt21_numerical"]], what="2ε0")
    check_value(t, r"any more \(ε0 = N\)", e0[3.0, "fmt21_numerical"], what="FMT21 ε0 at ε=3")
    d = spectral_board()
    empty = d.audit_report(dict(spectral_defaults(), audit="shuffle", accountant="fmt21_numerical", epsilon=1.0),
                           broken=False, runs=d.audit_runs[0], rng=0, progress=NOOP)  # exact: samples nothing
    check_value(t, r"symmetric pair \(N at n = 300 with FMT21's ε0 = N\)",
                [empty.exact_epsilon, e0[1.0, "fmt21_numerical"]], what="empty vs one edge")


# == notebook 02 and the PCA captions ===========================================================================
@functools.cache
def pca_board():
    from dpexplore.ui.pca import PrivatePCADashboard

    return PrivatePCADashboard(query_string="trials=1&n=200&d=20")


def pca_defaults() -> dict:
    from dpexplore.ui.pca import PrivatePCADashboard

    return defaults(PrivatePCADashboard)


@functools.cache
def pca(seed: int) -> dict[str, np.ndarray | float]:
    from dpexplore.core import dp_to_zcdp
    from dpexplore.pca import theorem_1_1
    from dpexplore.ui.pca import DELTA, EPS_GRID

    b = pca_board()
    p = dict(pca_defaults(), seed=seed)
    r = b._eps_sweep(p)
    m = {k: r["vals"][k].mean(1) for k in ("adaptive", "worst", "gauss")}
    eps = np.asarray(EPS_GRID)
    big, two = eps >= 5, eps >= 2
    t11 = np.array([theorem_1_1(p["n"], p["d"], p["kappa"], r["ups"], e, DELTA, r["sigma1"]).value for e in EPS_GRID])
    classic = eps**2 / (2 * np.log(2 / DELTA)) / np.array([2 * dp_to_zcdp(e, DELTA) for e in EPS_GRID])
    above = m["adaptive"][two] / t11[two]
    return {"worst/adaptive": m["worst"][big] / m["adaptive"][big],
            "gauss/adaptive": m["gauss"][big] / m["adaptive"][big],
            "rate below": above, "classic below": above * classic[two],
            "rate slope": np.polyfit(np.log(eps[big]), np.log(t11[big]), 1)[0],
            "measured slope": np.polyfit(np.log(eps[big]), np.log(m["adaptive"][big]), 1)[0]}


@functools.cache
def pca_more(seed: int) -> dict[str, np.ndarray | float]:
    """d = 500 (panel 1) and ε = 100 at Υ ≈ 0.25 (panel 2)."""
    b = pca_board()
    p = dict(pca_defaults(), seed=seed)
    from dpexplore.ui.pca import EPS_GRID

    big = np.asarray(EPS_GRID) >= 5
    r5 = b._eps_sweep(dict(p, d=500))
    fig = b._fig_vs_coherence(dict(p, epsilon=100.0))
    ys = {t.name.split(" (")[0]: np.asarray(t.y, float) for t in fig.data if t.name and "(measured" in t.name}
    xs = next(np.asarray(t.x, float) for t in fig.data if t.name and "(measured" in t.name)
    j = int(np.argmin(np.abs(np.log(xs / 0.25))))
    assert abs(xs[j] - 0.25) < 0.01
    return {"d500": r5["vals"]["gauss"].mean(1)[big] / r5["vals"]["adaptive"].mean(1)[big],
            "adaptive": ys["adaptive power"][j], "worst": ys["worst-case noisy power"][j],
            "gauss": ys["Analyze Gauss"][j]}


def test_notebook_02_and_pca_panel_1_caption():
    from dpexplore.ui.pca import PrivatePCADashboard as D

    t, c, v, C = markdown("02_private_pca"), caption(D, "vs_eps"), pca, COSTLY
    assert RULE in re.sub(r"\s+", " ", t) and RULE_CAPTION in c
    assert "at seed 0" not in re.sub(r"\s+", " ", t) + c  # issue 37: seed 0's 8–13× was not typical (3–22× elsewhere)
    check_range(t, r"N–N× lower error for ε ≥ 5\.", lambda s: v(s)["worst/adaptive"], seeds=C, what="worst/adaptive")
    check_range(c, r"\(N–N× lower error at ε ≥ 5 at the defaults\)", lambda s: v(s)["worst/adaptive"], seeds=C,
                what="worst/adaptive (caption)")
    check_range(t, r"\(ratio N–N, either side\)", lambda s: v(s)["gauss/adaptive"], seeds=C,
                what="Analyze Gauss/adaptive")
    check_range(c, r"within a factor N–N, either side", lambda s: v(s)["gauss/adaptive"], seeds=C,
                what="Analyze Gauss/adaptive (caption)")
    check_value(t, r"its log–log slope is N,", v(0)["rate slope"], what="rate's slope")
    check_value(c, r"log–log slope N over ε ≥ 5", v(0)["rate slope"], what="rate's slope (caption)")
    check_range(t, r"the measured error's N to N \(the lowest", lambda s: v(s)["measured slope"], seeds=C,
                what="slope")
    check_range(c, r"the measurement's N to N\)", lambda s: v(s)["measured slope"], seeds=C, what="slope (caption)")
    check_range(t, r"put the curve N–N× below the measurement \(seeds 0–9\)", lambda s: v(s)["classic below"],
                seeds=C, what="classic scale")
    check_range(t, r"lies N–N× below the measured error for ε ≥ 2 \(seeds 0–9\)", lambda s: v(s)["rate below"],
                seeds=C, what="rate below")
    check_range(c, r"lies N–N× below the measured error at ε ≥ 2 \(", lambda s: v(s)["rate below"], seeds=C,
                what="rate below (caption)")


def test_notebook_02_d500_and_pca_panel_2_caption():
    from dpexplore.ui.pca import PrivatePCADashboard as D

    t, c, v = markdown("02_private_pca"), caption(D, "vs_coherence"), pca_more
    assert RULE_CAPTION in c
    check_range(t, r"beats Analyze Gauss by N–N×", lambda s: v(s)["d500"], seeds=COSTLY, what="d = 500")
    for text, where in ((t, "notebook"), (c, "caption")):
        check_range(text, r"\(sin² N–N", lambda s: v(s)["adaptive"], seeds=COSTLY, what=f"adaptive at Υ≈0.25 ({where})")
        check_range(text, r"(?:against|vs) N–N[);]", lambda s: v(s)["worst"], seeds=COSTLY, what=f"worst ({where})")
        check_range(text, r"Analyze Gauss \(?N–N\)? beats both", lambda s: v(s)["gauss"], seeds=COSTLY,
                    what=f"AG ({where})")
    for s in COSTLY:
        assert v(s)["adaptive"] > v(s)["worst"] > v(s)["gauss"], s  # "worse than worst-case …, AG beats both"


# == notebook 04 and the shuffle caption ========================================================================
def test_notebook_04_and_shuffle_caption_fmt_example():
    from dpexplore.shuffle import binary_rr, exact_epsilon, shuffled_epsilon
    from dpexplore.ui.shuffle import ShuffleAsymptoticsDashboard as D

    canonical = exact_epsilon(binary_rr(4.0), 100_000, 1e-6, k=0)
    worst = exact_epsilon(binary_rr(4.0), 100_000, 1e-6)  # certified: never below the worst case
    numerical, closed = (shuffled_epsilon(4.0, 100_000, 1e-6, accounting=a)
                         for a in ("fmt21_numerical", "fmt21_closed_form"))
    t, c = markdown("04_shuffle_asymptotics"), caption(D, "curve")
    check_value(t, r"at the target δ is ≈ N and", canonical, what="canonical pair")
    check_value(c, r"canonical pair ε ≈ N at δ", canonical, what="canonical pair (caption)")
    for text, pattern in ((t, r"data sets is ≤ N \(certified\)"), (c, r"worst case ≤ N \(certified\)")):
        ((q, h),) = quoted(text, pattern)
        assert worst <= q < worst + 2 * h, (q, worst)  # a true "≤", and not a loose one
    check_value(t, r"numerical clone bound gives ≈ N and its closed form N", [numerical, closed], what="FMT21")
    check_value(c, r"FMT21 numerical ≈ N, closed form N\.", [numerical, closed], what="FMT21 (caption)")


# == notebook 05 and the ERM captions ===========================================================================
@functools.cache
def erm_board():
    from dpexplore.ui.erm import QuadraticPerturbationDashboard

    return QuadraticPerturbationDashboard(query_string="trials=1&n=50&d=5")


def erm_defaults() -> dict:
    from dpexplore.ui.erm import QuadraticPerturbationDashboard

    return defaults(QuadraticPerturbationDashboard)


@functools.cache
def erm(seed: int, **over):
    b = erm_board()
    c = b._sweep(dict(erm_defaults(), seed=seed, **over))
    return c, c.radii >= 10


def _erm(**over):
    return lambda s: erm(s, **over)


def test_notebook_05_what_to_try():
    t, C = markdown("05_quadratic_objective_perturbation"), COSTLY  # six sweeps per seed
    assert RULE in re.sub(r"\s+", " ", t) and RULE_BOUND in re.sub(r"\s+", " ", t)

    def series(name, where, **over):
        def f(s):
            c, big = erm(s, **over)
            y = c.mean[name]
            return {"big": y[big], "last": y[-1], "first big": y[big][0]}[where]
        return f

    check_range(t, r"N–N·10⁷ at κ = 1000\)\. Clipped", series("LOP", "last"), scale=1e7, seeds=C, what="LOP κ=1000")
    check_range(t, r"levels off \(N–N for κ ≥ 10\)", series("clipped LOP", "big"), seeds=C, what="clipped LOP")
    check_range(t, r"stays flat: N–N for every κ ≥ 10", series("QOP", "big"), seeds=C, what="QOP")
    check_value(t, r"σ̃ ≈ N per coordinate", erm(0)[0].info["output_sigma"], what="σ̃")
    check_value(t, r"grows in proportion \(≈ N\)", erm(0, eta=0.1)[0].info["output_sigma"], what="σ̃ at η=0.1")
    check_range(t, r"\(N–N·10³ at κ ≈ \d+,", series("QOP", "first big", eta=0.1), scale=1e3, seeds=C, what="QOP η=0.1")
    c, big = erm(0, eta=0.1)
    check_value(t, r"·10³ at κ ≈ N,", c.radii[big][0], what="that κ")
    check_range(t, r"N–N·10⁶ at κ = 1000\), while", series("QOP", "last", eta=0.1), scale=1e6,
                seeds=C, what="QOP η=0.1 κ=1000")
    for s in C:  # "the noiseless θ̂ still sits on the grey anchor line" (and for η = 1, 3)
        for eta in (0.1, 1.0, 3.0):
            c, big = erm(s, eta=eta)
            assert np.allclose(c.mean["QOP θ̂ (no output noise)"][big], c.anchor_risk, rtol=0.05), (s, eta)
    nums = quoted(t, r"anchor's own risk \(N–N, then N–N\)")
    for pair, eta in ((nums[:2], 1.0), (nums[2:], 3.0)):
        _range(pair, lambda s, e=eta: erm(s, eta=e)[0].anchor_risk, seeds=C, what=f"anchor's risk η={eta}")
    check_range(t, r"plateaus at N–N for κ ≥ 10, clipped", series("QOP", "big", epsilon=20.0), seeds=C, what="QOP ε=20")
    check_range(t, r"clipped LOP at N–N, and LOP", series("clipped LOP", "big", epsilon=20.0), seeds=C,
                what="clipped ε=20")
    check_range(t, r"explodes \(N–N·10⁶ at κ = 1000\)", series("LOP", "last", epsilon=20.0), scale=1e6,
                seeds=C, what="LOP ε=20")
    check_value(t, r"σ² drops from ≈ N·10⁸ to ≈ N·10³",
                [erm(0)[0].info["sigma2"] / 1e8, erm(0, alpha1="consistent")[0].info["sigma2"] / 1e3], what="σ²")


@functools.cache
def erm_audit(seed: int, mech: str, broken: bool):
    b = erm_board()
    return b.audit_report(dict(erm_defaults(), audit=mech), broken=broken, runs=100_000, rng=seed, progress=NOOP)


@functools.cache
def scale_pair(seed: int):
    from dpexplore.erm.audit import audit_qop_anchor_scale_pair

    return audit_qop_anchor_scale_pair(epsilon=2.0, delta=0.01, runs=100_000, rng=seed)


def test_notebook_05_and_erm_audit_numbers():
    from dpexplore.ui.erm import QuadraticPerturbationDashboard as D

    t, c = markdown("05_quadratic_objective_perturbation"), D.audit_description
    check_range(t, r"\(ε̂ = N–N over seeds 0–9\)\. A factor-2", lambda s: erm_audit(s, "QOP", True).epsilon_lower,
                what="broken QOP")
    ceiling = erm_audit(0, "QOP inexact anchor", False)
    assert math.isinf(ceiling.exact_epsilon)
    check_value(t, r"ε̂ \(≈ N against a claim of 2 at 100 000 runs\)", ceiling.epsilon_lower, what="ceiling")
    check_value(c, r"statistical ε̂ ≈ N is only the run-count ceiling", ceiling.epsilon_lower, what="ceiling (caption)")
    check_range(t, r"ε̂ = N–N > 2 \(100 000 runs, seeds 0–9\)", lambda s: scale_pair(s).statistical.epsilon_lower,
                fresh=CHEAP_FRESH, what="scale pair")
    check_value(t, r"ln\(1/\(4δ\)\) = N at δ = 0\.01", scale_pair(0).exact_epsilon, what="scale pair exact ε")

    def broken_inexact(s):
        return erm_audit(s, "qop_inexact", True).epsilon_lower

    check_range(t, r"\(ε̂ = N–N at 100 000 runs, seeds 0–9;", broken_inexact, seeds=COSTLY, what="broken qop_inexact")
    assert RULE_CAPTION in c
    check_range(c, r"\(ε̂ = N–N at the defaults, 100 000 runs; lowest", broken_inexact, seeds=COSTLY,
                what="broken qop_inexact (caption)")
    check_value(t, r"exact ε of the pair ≈ N·10⁴", erm_audit(0, "qop_inexact", True).exact_epsilon / 1e4,
                what="exact ε, broken qop_inexact")


# == the rule itself =============================================================================================
def test_guides_name_their_seeds():
    """No guide says its numbers hold "for seeds 0, 1 and 2" or "seeds 0–2" any more (issue 25: ≥ 10 seeds)."""
    for stem in ("00_index", "00_intro_1_randomized_response_laplace", "00_intro_2_what_epsilon_means",
                 "00_intro_3_composition", "01_spectral_clustering", "02_private_pca", "03_markov_trajectories",
                 "04_shuffle_asymptotics", "05_quadratic_objective_perturbation"):
        t = re.sub(r"\s+", " ", markdown(stem))
        assert not re.search(r"seeds 0(, 1 and 2|–2\b)|seeds 0–1\b|three seeds", t), stem
        # issue 37: a min–max of ten seeds is a record, not a promise; the pages say what it predicts
        assert not re.search(r"hold (for every|over) seeds?|holds? for every seed", t), stem


@functools.cache
def f2(seed: int):
    """The authors' F2 exactly (the compare_mechanisms docstring's call; as in tests/erm/test_mechanisms.py)."""
    from dpexplore.erm import compare_mechanisms, interpolation_data, noisy_anchor

    X, y, t = interpolation_data(300, 100, xi=5.0, rng=seed)
    a = noisy_anchor(t, scale=0.1, rng=seed + 1)
    return compare_mechanisms(X, y, radii=[0.01, 1.0, 3.0, 10.0, 1000.0], epsilon=0.5, delta=0.01, lam=1.0, anchor=a,
                              clip=1e4, trials=3, rng=seed, feature_bound=np.sqrt(100) * 5.0,
                              label_bound=float(np.max(np.abs(y))), m=200, delta3_share=0.5, iterations=1000,
                              nonprivate=False)


def test_notebook_05_paper_f2_setting():
    t = markdown("05_quadratic_objective_perturbation")
    fr = CHEAP_FRESH
    check_range(t, r"its LOP is N–N·10⁷ at κ = 1000", lambda s: f2(s).mean["LOP"][-1], scale=1e7, fresh=fr,
                what="F2 LOP")
    check_range(t, r"clipped LOP N–N at κ = 1000, and", lambda s: f2(s).mean["clipped LOP"][-1], fresh=fr,
                what="F2 clipped")

    def qop_off(s):  # QOP's largest relative distance from the anchor's own risk over κ ≥ 10, in percent
        c = f2(s)
        return 100 * np.max(np.abs(c.mean["QOP"][3:] / c.anchor_risk - 1))

    check_bound(t, r"QOP within N% of the anchor's own risk for κ ≥ 10", qop_off, upper=True, fresh=fr,
                what="F2 QOP near the anchor")


# == notebook 03 (exact pair-chain numbers: no seed) ============================================================
def test_notebook_03_exact_tail_and_entropy():
    from dpexplore.markov import analyze, baseline_kernel, credit_migration, distances, mechanism_kernel
    from dpexplore.ui.markov import MarkovTrajectoryDashboard as D

    p = defaults(D)
    assert (p["chain"], p["epsilon"], p["rho"], p["v"], p["symmetrize"]) == ("credit", 3.0, 2.0, 15.0, "sum")
    chain = credit_migration()
    d = distances(chain, symmetrize="sum")
    base = analyze(chain, baseline_kernel(chain, epsilon=3.0), d)

    def mech(rho):
        return analyze(chain, mechanism_kernel(chain, epsilon=3.0, rho=rho, d=d), d)

    t = markdown("03_markov_trajectories")
    (m, hm), (b, hb) = quoted(t, r"about N×10<sup>−8</sup> for Mechanism 1 against about N×10<sup>−3</sup>")
    assert abs(mech(2.0).tail(15.0) / 1e-8 - m) <= hm and abs(base.tail(15.0) / 1e-3 - b) <= hb
    assert "entropy rate (panel 3) moves from ~0 to above the baseline's" in re.sub(r"\s+", " ", t)
    assert mech(0.3).entropy_rate < 0.01 * base.entropy_rate < base.entropy_rate < mech(20.0).entropy_rate
    from dpexplore.markov import city_grid

    ratios = []
    for size in (5, 10):  # "raise the grid size": the baseline's stationary mean error against Mechanism 1's
        grid = city_grid(size)
        dg = distances(grid, symmetrize="sum")
        ratios.append(analyze(grid, baseline_kernel(grid, epsilon=3.0), dg).mean_error
                      / analyze(grid, mechanism_kernel(grid, epsilon=3.0, rho=2.0, d=dg), dg).mean_error)
    check_value(t, r"mean error is N× the mechanism's at grid size 5 and N× at 10", ratios, what="city grid")


# == the coverage test itself (synthetic, milliseconds) =========================================================
def test_the_coverage_check_passes_min_max_ranges_and_catches_a_seed_0_range():
    """Positive control: the min–max of seeds 0–9 of a continuous per-seed value passes on 40 fresh seeds (its
    claim is true by exchangeability). Negative control: seed 0's value ± 2 % of the ten seeds' spread — a single
    seed's number, like the "−1.57 at seed 0" the PCA caption quoted — misses most fresh seeds and fails."""
    def per_seed(s):
        return np.random.default_rng(s).lognormal(0.0, 0.5)

    ten = [per_seed(s) for s in SEEDS]
    fresh = range(100, 140)
    coverage(per_seed, fresh, below=min(ten), above=max(ten), what="min–max of seeds 0–9")
    x0, spread = per_seed(0), max(ten) - min(ten)
    with pytest.raises(AssertionError, match="fresh seeds fall outside"):
        coverage(per_seed, fresh, below=x0 - 0.02 * spread, above=x0 + 0.02 * spread, what="seed 0's value")
