import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpexplore.core import above_threshold


def exact_law(queries, threshold, eps, sens=1.0):
    """P(output = j) for j = 0..K-1 and P(no query above) by integrating over the threshold noise ρ.

    Output j iff ν_i < T + ρ − q_i for i < j and ν_j ≥ T + ρ − q_j (Dwork & Roth, Alg. 1).
    """
    rho = stats.laplace(scale=2 * sens / eps)
    nu = stats.laplace(scale=4 * sens / eps)
    q = np.asarray(queries, dtype=float)
    probs = []
    for j in range(len(q) + 1):
        def integrand(r, j=j):
            below = np.prod(nu.cdf(threshold + r - q[:j]))
            above = nu.sf(threshold + r - q[j]) if j < len(q) else 1.0
            return rho.pdf(r) * below * above

        val, _ = integrate.quad(integrand, -60 * sens / eps, 60 * sens / eps, points=[0.0], limit=400,
                                epsabs=1e-13)
        probs.append(val)
    return np.array(probs)


QUERIES = [0.0, 1.0, 3.0, 2.0]


def test_exact_law_sums_to_one():
    law = exact_law(QUERIES, 2.5, 1.0)
    assert law.sum() == pytest.approx(1.0, abs=1e-9)


def test_sampled_frequencies_match_exact_law():
    eps, threshold, runs = 1.0, 2.5, 40_000
    law = exact_law(QUERIES, threshold, eps)
    rng = np.random.default_rng(0)
    counts = np.zeros(len(QUERIES) + 1)
    for _ in range(runs):
        idx = above_threshold(QUERIES, threshold, eps, rng=rng).index
        counts[len(QUERIES) if idx is None else idx] += 1
    freq = counts / runs
    tol = 5 * np.sqrt(law * (1 - law) / runs) + 1e-4
    assert np.all(np.abs(freq - law) <= tol), (freq, law)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("shift", [[1, 1, 1, 1], [-1, -1, -1, -1], [1, -1, 1, -1], [0, 0, -1, 1]])
def test_epsilon_dp_on_neighbouring_query_vectors(eps, shift):
    # Neighbouring data sets move each (sensitivity-1) query answer by at most 1.
    p = exact_law(QUERIES, 2.5, eps)
    q = exact_law(np.add(QUERIES, shift), 2.5, eps)
    ratio = np.max(np.maximum(p / q, q / p))
    assert ratio <= math.exp(eps) * (1 + 1e-6)


def test_large_epsilon_picks_first_true_crossing_and_none():
    assert above_threshold([0, 0, 100, 0], 50, 1e6, rng=1).index == 2
    res = above_threshold([0, 0, 0], 50, 1e6, rng=1)
    assert res.index is None and res.queries_answered == 3


def test_lazy_iterable_stops_early():
    seen = []

    def gen():
        for i in range(10**9):
            seen.append(i)
            yield 100.0 if i == 5 else 0.0

    assert above_threshold(gen(), 50, 1e6, rng=0).index == 5
    assert len(seen) == 6


def test_bad_inputs():
    with pytest.raises(TypeError, match=r"^queries must be an iterable of numbers; got int$"):
        above_threshold(3, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"^threshold must be a finite number; got nan$"):
        above_threshold([1.0], math.nan, 1.0)
    with pytest.raises(ValueError, match=r"^queries\[1\] must be a finite number; got inf$"):
        above_threshold([0.0, math.inf], 10.0, 1.0, rng=0)
