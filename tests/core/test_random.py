import numpy as np
import pytest

from dpexplore.core import as_generator, spawn


def test_generator_passthrough_and_seeding():
    g = np.random.default_rng(5)
    assert as_generator(g) is g
    assert as_generator(3).random() == np.random.default_rng(3).random()
    assert isinstance(as_generator(None), np.random.Generator)
    assert isinstance(as_generator(np.random.SeedSequence(1)), np.random.Generator)


@pytest.mark.parametrize("bad", [1.5, "0", np.random.RandomState(0), True])
def test_bad_rng_types(bad):
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator, a SeedSequence, None or an integer"):
        as_generator(bad)


def test_negative_seed():
    with pytest.raises(ValueError, match=r"integer seed >= 0; got -1"):
        as_generator(-1)


def test_spawn_independent_and_reproducible():
    a = [g.random(4) for g in spawn(7, 3)]
    b = [g.random(4) for g in spawn(7, 3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.allclose(a[0], a[1])


def test_global_state_untouched():
    from dpexplore.core import permute_and_flip, randomized_response

    np.random.seed(123)  # noqa: NPY002 - this test checks the legacy global state is untouched
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    randomized_response([0, 1, 1], 1.0, rng=0)
    permute_and_flip([0.0, 1.0], 1.0, rng=0)
    assert np.array_equal(before, np.random.get_state()[1])  # noqa: NPY002
