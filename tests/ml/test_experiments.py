"""The private-ML panels as experiments: registry, shapes, agreement with the library calls they wrap."""

import math

import numpy as np
import pytest

from dpexplore.experiments import resolve
from dpexplore.ml.accounting import ACCOUNTANTS, dpsgd_epsilon
from dpexplore.ml.data import breast_cancer
from dpexplore.ml.experiments import accuracy_vs_noise, epsilon_vs_steps, gradient_norms
from dpexplore.ml.mechanisms import dp_sgd, train_logistic_batch


def test_registered():
    assert resolve("ml.accuracy_vs_noise") is accuracy_vs_noise
    assert resolve("ml.epsilon_vs_steps") is epsilon_vs_steps


def test_epsilon_vs_steps_is_the_accountants():
    r = epsilon_vs_steps(sampling_rate=0.1, noise_multiplier=1.5, delta=1e-6, steps=[5, 50])
    for i, a in enumerate(ACCOUNTANTS):
        for j, t in enumerate((5, 50)):
            assert r.values[i, j, 0] == dpsgd_epsilon(sampling_rate=0.1, noise_multiplier=1.5, steps=t, delta=1e-6,
                                                      accountant=a)


def test_batched_training_equals_dp_sgd():
    d = breast_cancer()
    W = train_logistic_batch(d.X_train, d.y_train, noise_multipliers=[0.5, 3.0, 0.0], clip_norms=[0.3, 2.0, math.inf],
                             rngs=[4, 5, 6], steps=80, sampling_rate=0.08, lr=0.7)
    for w, s, c, g in zip(W, (0.5, 3.0, 0.0), (0.3, 2.0, math.inf), (4, 5, 6)):
        ref = dp_sgd(d.X_train, d.y_train, noise_multiplier=s, clip_norm=c, rng=g, steps=80, sampling_rate=0.08,
                     lr=0.7).weights
        np.testing.assert_allclose(w, ref, rtol=1e-9, atol=1e-10)


def test_accuracy_vs_noise_shape_and_epsilons():
    r = accuracy_vs_noise(noise_multipliers=[1.0, 16.0], trials=3, steps=50, rng=0)
    assert r.values.shape == (2, 2, 3)
    assert np.all((r.values >= 0) & (r.values <= 1))
    assert r.extras["epsilon"][0] == dpsgd_epsilon(sampling_rate=0.05, noise_multiplier=1.0, steps=50, delta=1e-5)
    # the non-private series is one number per trial, repeated at every σ
    np.testing.assert_array_equal(r.values[1, 0], r.values[1, 1])


def test_accuracy_vs_noise_mlp_runs():
    r = accuracy_vs_noise(noise_multipliers=[2.0], trials=2, steps=20, model="mlp", hidden=4, rng=0)
    assert r.values.shape == (2, 1, 2)


def test_gradient_norms_histogram():
    r = gradient_norms(steps=40, clip_norm=0.5, rng=1)
    assert r.values[0].sum() == pytest.approx(1.0) and r.values[1].sum() == pytest.approx(1.0)
    grid = np.asarray(r.grid)
    assert np.all(r.values[1, grid > 0.5 + (grid[1] - grid[0]), 0] == 0)  # nothing survives clipping above C
    frac = r.extras["clipped_fraction"][0]
    assert frac == pytest.approx(r.values[0, grid > 0.5, 0].sum(), abs=r.values[0].max() + 1e-12)


@pytest.mark.parametrize("kw,msg", [(dict(trials=0), "trials"), (dict(noise_multipliers=[-1.0]), "noise_multipliers"),
                                    (dict(clip_norm=0.0), "clip_norm"), (dict(model="tree"), "model")])
def test_bad_inputs(kw, msg):
    with pytest.raises(ValueError, match=msg):
        accuracy_vs_noise(**kw)
