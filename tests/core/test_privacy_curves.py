import math

import pytest

from dpexplore.core import exact_epsilon, exact_privacy_check, hockey_stick


def test_hockey_stick_hand_values():
    p, q = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    assert hockey_stick(p, q, 0.0) == pytest.approx(0.3)  # total variation
    assert hockey_stick(p, q, math.log(2)) == pytest.approx(0.5 - 2 * 0.2)
    assert hockey_stick(p, q, math.log(2.5)) == pytest.approx(0.0)
    assert hockey_stick([0.5, 0.5], [1.0, 0.0], math.inf) == 0.5


def test_exact_epsilon_pure_and_approximate():
    p, q = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    assert exact_epsilon(p, q) == pytest.approx(math.log(2.5))
    e = exact_epsilon(p, q, delta=0.05)
    assert max(hockey_stick(p, q, e), hockey_stick(q, p, e)) == pytest.approx(0.05, abs=1e-9)
    assert exact_epsilon([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert exact_epsilon([0.5, 0.5], [1.0, 0.0], delta=0.6) == 0.0


def test_exact_privacy_check():
    res = exact_privacy_check([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 0.5, 0.0)
    assert not res.ok and res.delta_at_epsilon == pytest.approx(0.5 - math.exp(0.5) * 0.2)
    assert exact_privacy_check([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 1.0, 0.0).ok
    assert res.epsilon_needed == pytest.approx(math.log(2.5))


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"^p and q must have the same shape"):
        hockey_stick([1.0], [0.5, 0.5], 0.0)
    with pytest.raises(ValueError, match=r"^q must sum to 1"):
        hockey_stick([1.0, 0.0], [0.5, 0.6], 0.0)
    with pytest.raises(ValueError, match=r"^epsilon must be a number >= 0; got -1"):
        hockey_stick([1.0], [1.0], -1)


def test_hockey_stick_huge_epsilon_in_log_space():
    # q tiny but non-zero: at ε = 720 the term p − e^ε q is still positive (e^720 · 1e-320 ≈ 3e-8)
    p, q = [0.5, 0.5], [1.0 - 1e-320, 1e-320]
    assert hockey_stick(p, q, 720.0) == pytest.approx(0.5 - math.exp(720.0 + math.log(1e-320)), rel=1e-6)
    assert hockey_stick(p, q, 800.0) == 0.0
