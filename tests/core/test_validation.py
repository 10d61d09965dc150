import math

import numpy as np
import pytest
import scipy.sparse as sp

from dpexplore.core import validation as v


@pytest.mark.parametrize(
    ("value", "exc", "message"),
    [
        (-1.0, ValueError, "epsilon must be a finite number > 0; got -1.0"),
        (0, ValueError, "epsilon must be a finite number > 0; got 0"),
        (math.inf, ValueError, "epsilon must be a finite number > 0; got inf"),
        (math.nan, ValueError, "epsilon must be a finite number > 0; got nan"),
        ("1", TypeError, "epsilon must be a finite number > 0; got '1' of type str"),
        (True, TypeError, "epsilon must be a finite number > 0; got True of type bool"),
        (None, TypeError, "epsilon must be a finite number > 0; got None of type NoneType"),
    ],
)
def test_check_epsilon_messages(value, exc, message):
    with pytest.raises(exc) as info:
        v.check_epsilon(value)
    assert str(info.value) == message


def test_check_epsilon_accepts_numpy_scalars_and_inf_when_allowed():
    assert v.check_epsilon(np.float32(0.5)) == 0.5
    assert v.check_epsilon(np.int64(2)) == 2.0
    assert v.check_epsilon(math.inf, allow_inf=True) == math.inf


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0.0, "delta must be a finite number > 0 and < 1; got 0.0"),
        (1.0, "delta must be a finite number > 0 and < 1; got 1.0"),
        (-1e-5, "delta must be a finite number > 0 and < 1; got -1e-05"),
    ],
)
def test_check_delta_messages(value, message):
    with pytest.raises(ValueError) as info:
        v.check_delta(value)
    assert str(info.value) == message


def test_check_delta_allow_zero():
    assert v.check_delta(0.0, allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=r"delta must be a finite number >= 0 and < 1; got 1"):
        v.check_delta(1, allow_zero=True)


def test_check_probability_and_positive():
    assert v.check_probability(1.0, "p") == 1.0
    with pytest.raises(ValueError, match=r"^p must be a finite number >= 0 and <= 1; got 1.5$"):
        v.check_probability(1.5, "p")
    with pytest.raises(ValueError, match=r"^q must be a finite number > 0 and < 1; got 0$"):
        v.check_probability(0, "q", open_low=True, open_high=True)
    with pytest.raises(ValueError, match=r"^sensitivity must be a finite number > 0; got 0$"):
        v.check_positive(0, "sensitivity")


def test_check_int():
    assert v.check_int(5.0, "n", low=1) == 5
    with pytest.raises(ValueError, match=r"^n must be an integer >= 2 and <= 10; got 11$"):
        v.check_int(11, "n", low=2, high=10)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 2; got 2.5$"):
        v.check_int(2.5, "n", low=2)
    with pytest.raises(TypeError, match=r"^n must be an integer >= 2; got '3' of type str$"):
        v.check_int("3", "n", low=2)
    with pytest.raises(TypeError, match=r"of type bool"):
        v.check_int(True, "n")


def test_check_choice_and_bool():
    with pytest.raises(ValueError, match=r"^mode must be one of \['a', 'b'\]; got 'c'$"):
        v.check_choice("c", "mode", ("a", "b"))
    with pytest.raises(TypeError, match=r"^mode must be one of \['a', 'b'\]; got 1 of type int$"):
        v.check_choice(1, "mode", ("a", "b"))
    with pytest.raises(TypeError, match=r"^flag must be True or False; got 1 of type int$"):
        v.check_bool(1, "flag")


def test_check_vector_and_matrix():
    with pytest.raises(ValueError, match=r"^x must be a 1-d array of numbers; got an array with 2 dimension"):
        v.check_vector([[1.0]], "x")
    with pytest.raises(ValueError, match=r"^x must contain only finite numbers; got 1 non-finite$"):
        v.check_vector([1.0, np.nan], "x")
    with pytest.raises(TypeError, match=r"^x must be a 1-d array of numbers; got 'ab' of type str$"):
        v.check_vector("ab", "x")
    with pytest.raises(ValueError, match=r"^x must have at least 1 entries; got 0$"):
        v.check_vector([], "x")
    with pytest.raises(ValueError, match=r"^A must be a square matrix; got shape \(2, 3\)$"):
        v.check_matrix(np.zeros((2, 3)), "A", square=True)
    with pytest.raises(TypeError, match=r"dtype"):
        v.check_matrix(np.array([["a"]]), "A")


def test_check_probability_vector():
    with pytest.raises(ValueError, match=r"^W must be a probability vector \(entries >= 0, sum 1\); got sum 0.9$"):
        v.check_probability_vector([0.4, 0.5], "W")
    with pytest.raises(ValueError, match=r"got -0.1 at index 0"):
        v.check_probability_vector([-0.1, 1.1], "W")
    with pytest.raises(ValueError, match=r"^W must have full support \(every entry > 0\); got a zero at index 1$"):
        v.check_probability_vector([1.0, 0.0], "W", full_support=True)


def test_check_stochastic_matrix():
    with pytest.raises(ValueError, match=r"^P must be a square matrix; got shape \(1, 2\)$"):
        v.check_stochastic_matrix([[0.5, 0.5]])
    with pytest.raises(ValueError, match=r"got -0.5 at \(0, 0\)"):
        v.check_stochastic_matrix([[-0.5, 1.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"row 1 sums to 0.9"):
        v.check_stochastic_matrix([[0.5, 0.5], [0.5, 0.4]])


def test_check_adjacency():
    a = v.check_adjacency(sp.coo_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(3, 3)))
    assert a.format == "csr" and a.nnz == 2
    with pytest.raises(ValueError, match=r"^A must be a 0/1 adjacency matrix; got an entry 2$"):
        v.check_adjacency([[0, 2], [2, 0]])
    with pytest.raises(ValueError, match=r"^A must have a zero diagonal \(no self-loops\); got a 1 at \(1, 1\)$"):
        v.check_adjacency([[0, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"^A must be a square adjacency matrix; got shape \(2, 3\)$"):
        v.check_adjacency(sp.csr_array(np.zeros((2, 3))))
    with pytest.raises(ValueError, match=r"^A must have at least 2 vertices; got 1$"):
        v.check_adjacency([[0]])
