"""Sensitivity constants are public: no mechanism reads L or ζ from the private rows.

(a) rows beyond the public ``feature_bound`` (labels beyond LOP's ``label_bound``) are clipped row by row —
    a run on data with an offending row equals the run on the same data with that row clipped by hand;
(b) the privacy spent and every calibrated constant are identical on neighbouring data sets, including
    a neighbour whose changed row is huge (before the fix, L = max‖x_i‖² and ζ followed that row);
(c) a smoothness below feature_bound² (a claimed curvature the rows can exceed) is rejected;
(d) the documented signatures work without the bounds: the defaults are public constants (ξ = 1, B = 5ξ).
"""

import numpy as np
import pytest

from dpexplore.erm import (
    box_gradient_bound,
    clip_examples,
    compare_mechanisms,
    gradient_bound,
    interpolation_data,
    lop,
    lop_clipped,
    qop,
    qop_inexact,
    qop_inexact_risk_sweep,
)
from dpexplore.erm.audit import broken_lop

XI, B = 1.0, 5.0
X, Y, T = interpolation_data(30, 4, xi=XI, rng=0)
ANCHOR = T + 0.01
# neighbour: replace the last example by one 100 times outside the public bound (still interpolated by T)
X1, Y1 = X.copy(), Y.copy()
X1[-1] *= 100.0
Y1[-1] = X1[-1] @ T

COMMON = dict(epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, feature_bound=XI, rng=3)
MECHS = {
    "QOP": lambda X, y: qop(X, y, anchor=ANCHOR, iterations=50, **COMMON),
    "QOP inexact": lambda X, y: qop_inexact(X, y, anchor=ANCHOR, tau=1e-6, eta=0.02, max_iter=5000, **COMMON),
    "LOP": lambda X, y: lop(X, y, label_bound=B, iterations=50, **COMMON),
    "clipped LOP": lambda X, y: lop_clipped(X, y, clip=3.0, iterations=50, **COMMON),
    "broken LOP": lambda X, y: broken_lop(X, y, label_bound=B, iterations=50, **COMMON),
}
CALIBRATION_KEYS = ("L", "sigma2", "alpha", "alpha1", "beta", "output_sigma", "Delta", "noise_sigma", "grad_bound",
                    "feature_bound", "label_bound", "m", "step")


def test_clip_examples_rescales_the_whole_example_and_keeps_interpolation():
    Xc, yc = clip_examples(X1, Y1, feature_bound=XI)
    assert np.allclose(np.linalg.norm(Xc, axis=1), XI) and np.allclose(Xc @ T, yc)  # still interpolated by θ*
    assert np.array_equal(Xc[:-1], X[:-1]) and np.array_equal(yc[:-1], Y[:-1])  # rows inside the bound untouched
    with pytest.raises(ValueError, match=r"^feature_bound must be a finite number > 0; got 0$"):
        clip_examples(X, Y, feature_bound=0)


@pytest.mark.parametrize("name", sorted(MECHS))
def test_a_row_beyond_the_public_bound_is_clipped(name):
    """(a) The mechanism run on the offending data equals the run on the data clipped by hand (same seed)."""
    Xc, yc = clip_examples(X1, Y1, feature_bound=XI)
    if "LOP" in name and name != "clipped LOP":
        yc = np.clip(yc, -B, B)
    a, b = MECHS[name](X1, Y1), MECHS[name](Xc, yc)
    assert np.array_equal(a.theta, b.theta)


@pytest.mark.parametrize("name", sorted(MECHS))
def test_reported_privacy_and_calibration_do_not_depend_on_the_data(name):
    """(b) Same ε, δ, split and noise constants on neighbouring data sets (one row replaced by a huge one)."""
    a, b = MECHS[name](X, Y), MECHS[name](X1, Y1)
    assert (a.epsilon, a.delta, a.split) == (b.epsilon, b.delta, b.split)
    keys = [k for k in CALIBRATION_KEYS if k in a.diagnostics]
    assert {"L", "feature_bound"} <= set(keys)
    for k in keys:
        assert a.diagnostics[k] == b.diagnostics[k], k
    assert a.diagnostics["L"] == XI**2


def test_lop_noise_uses_the_public_box_bound_not_the_datas():
    r0 = lop(X, Y, label_bound=B, iterations=5, **COMMON)
    zeta = box_gradient_bound(feature_bound=XI, label_bound=B, radius=2.0, d=4)
    assert r0.diagnostics["grad_bound"] == zeta == pytest.approx(XI * (2.0 * 2.0 * XI + B))
    # the public bound covers every example inside the domain; the data's own maximum is smaller and unused
    assert gradient_bound(X, np.clip(Y, -B, B), 2.0) <= zeta
    assert gradient_bound(X, Y, 2.0) != r0.diagnostics["grad_bound"]


def test_sweeps_calibrate_from_public_bounds():
    kw = dict(radii=[1.0, 10.0], epsilon=1.0, delta=1e-2, lam=0.1, anchor=ANCHOR, clip=3.0, trials=1, iterations=20,
              rng=0, nonprivate=False, feature_bound=XI, label_bound=B)
    a, b = compare_mechanisms(X, Y, **kw), compare_mechanisms(X1, Y1, **kw)
    assert np.array_equal(a.info["lop_noise_sigma"], b.info["lop_noise_sigma"]) and a.info["L"] == b.info["L"] == 1.0
    sk = dict(radii=[2.0], anchors=[ANCHOR], anchor_errors=[0.02], epsilon=1.0, delta=1e-2, lam=0.1, trials=1, rng=0,
              feature_bound=XI, max_iter=100)
    assert (qop_inexact_risk_sweep(X, Y, **sk).output_sigma == qop_inexact_risk_sweep(X1, Y1, **sk).output_sigma).all()


def test_bounds_that_the_rows_could_exceed_are_rejected():
    """(c) smoothness below feature_bound² is not a valid public bound; (d) the defaults are public constants."""
    with pytest.raises(ValueError, match=r"^smoothness must be >= feature_bound\*\*2 = 4.0 .*got 1.0$"):
        qop(X, Y, epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, anchor=ANCHOR, feature_bound=2.0, smoothness=1.0)
    # (d) the documented call signatures work without the bounds: the defaults are public constants
    # (ξ = 1, B = 5ξ), identical to passing them, and never read off the data
    base = dict(epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, iterations=5, rng=0)
    for f, extra, explicit in ((qop, dict(anchor=ANCHOR), dict(feature_bound=1.0)),
                               (lop, {}, dict(feature_bound=1.0, label_bound=5.0)),
                               (lop_clipped, dict(clip=3.0), dict(feature_bound=1.0))):
        a, b = f(X, Y, **base, **extra), f(X, Y, **base, **extra, **explicit)
        assert np.array_equal(a.theta, b.theta) and a.diagnostics["feature_bound"] == 1.0
        a1 = f(X1, Y1, **base, **extra)  # neighbouring data: same calibration
        for key in ("noise_sigma", "grad_bound", "Delta", "L"):
            if key in a.diagnostics:
                assert a.diagnostics[key] == a1.diagnostics[key], key
    assert lop(X, Y, **base).diagnostics["label_bound"] == 5.0
    c = compare_mechanisms(X, Y, radii=[1.0], epsilon=1.0, delta=1e-2, lam=0.1, anchor=ANCHOR, clip=3.0, trials=1,
                           iterations=5, rng=0, nonprivate=False)
    assert c.info["label_bound"] == 5.0 and c.info["feature_bound"] == 1.0
    # a larger public smoothness (the reference code's L = dξ²) is accepted and used
    r = qop(X, Y, epsilon=1.0, delta=1e-3, lam=0.1, radius=2.0, anchor=ANCHOR, feature_bound=XI, smoothness=4.0,
            iterations=5, rng=0)
    assert r.diagnostics["L"] == 4.0
