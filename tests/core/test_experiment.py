import numpy as np
import pytest

from dpexplore.core import mean_confidence_band, sweep


def noisy(param, rng):
    return param + rng.normal()


def test_reproducible_and_independent_streams():
    a = sweep(noisy, [0.0, 1.0], trials=20, rng=5)
    b = sweep(noisy, [0.0, 1.0], trials=20, rng=5)
    assert np.array_equal(a.values, b.values)
    assert a.values.shape == (2, 20) and a.trials == 20
    # the same grid value in two positions draws different noise (independent streams)
    c = sweep(noisy, [0.0, 0.0], trials=20, rng=5)
    assert not np.allclose(c.values[0], c.values[1])


def test_parallel_equals_serial():
    a = sweep(noisy, [0.0, 1.0, 2.0], trials=8, rng=1)
    b = sweep(noisy, [0.0, 1.0, 2.0], trials=8, rng=1, n_jobs=2)
    assert np.array_equal(a.values, b.values)


def test_band_coverage():
    # 95% t-intervals for the mean of N(0,1) samples: the cover rate over 400 sweeps is ~0.95;
    # with 400 Bernoulli(0.95) draws, a z = 5 interval is 0.95 ± 0.055.
    res = sweep(noisy, [0.0] * 400, trials=10, rng=2)
    cover = np.mean((res.lower <= 0.0) & (0.0 <= res.upper))
    assert abs(cover - 0.95) < 5 * np.sqrt(0.95 * 0.05 / 400)


def test_vector_outputs_and_nan_trials():
    res = sweep(lambda p, g: [p, 2 * p], [1.0, 2.0], trials=3, rng=0)
    assert res.mean.shape == (2, 2) and np.allclose(res.mean[:, 1], [2.0, 4.0])
    m, lo, hi = mean_confidence_band([[1.0, np.nan], [3.0, np.nan]], axis=0)
    assert m[0] == 2.0 and np.isnan(m[1])


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^trials must be an integer >= 1 and <= 1000000; got 0$"):
        sweep(noisy, [0.0], trials=0)
    with pytest.raises(ValueError, match=r"^grid must contain at least one"):
        sweep(noisy, [], trials=1)
    with pytest.raises(TypeError, match=r"^func must be callable"):
        sweep(3, [0.0], trials=1)
