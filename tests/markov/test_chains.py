"""Chains: validation, built-in chains, the strict parser, simulation, the Wikispeedia loader."""

import numpy as np
import pytest
from scipy import stats

from dpexplore.markov import (
    MarkovChain,
    as_chain,
    check_irreducible,
    city_grid,
    credit_migration,
    distances,
    entropy_rate,
    load_wikispeedia,
    parse_matrix,
    resolve_back_clicks,
    simulate,
    stationary_distribution,
    web_browsing,
)


def test_validation_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"^P must be row-stochastic .*row 1 sums to 0.9$"):
        MarkovChain([[0.5, 0.5], [0.4, 0.5]])
    with pytest.raises(ValueError, match=r"^P must be row-stochastic .*got -0.1 at \(0, 1\)$"):
        MarkovChain([[1.1, -0.1], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"^P must be a square matrix; got shape \(2, 3\)$"):
        MarkovChain([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    with pytest.raises(TypeError, match=r"^P must be a 2-d array of numbers"):
        MarkovChain("0.5 0.5")
    with pytest.raises(ValueError, match=r"states must name each of the 2 states; got 3 names"):
        MarkovChain([[0.5, 0.5], [0.5, 0.5]], states=("a", "b", "c"))
    with pytest.raises(TypeError, match=r"chain must be a MarkovChain"):
        as_chain(None)


def test_unreachable_states_are_rejected_where_distances_are_needed():
    absorbing = [[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]]
    chain = MarkovChain(absorbing)  # a valid chain ...
    assert not chain.is_irreducible
    with pytest.raises(ValueError, match=r"state '2' cannot reach state '0'"):
        distances(chain)  # ... but its -log P distances are infinite
    with pytest.raises(ValueError, match=r"must be irreducible"):
        check_irreducible(absorbing)


def test_credit_chain_default_state_handled_explicitly():
    dropped = credit_migration()
    assert dropped.n == 7 and dropped.is_irreducible and "D" not in dropped.states
    # renormalised over the rated states: the CCC row loses its .2319 default mass
    assert dropped.P[6, 6] == pytest.approx(0.6493 / (1 - 0.2319), rel=1e-3)
    restart = credit_migration(default="restart", restart=0.1)
    assert restart.n == 8 and restart.is_irreducible
    assert restart.P[7, 7] == pytest.approx(0.9) and restart.P[7, :7].sum() == pytest.approx(0.1)
    sp16 = credit_migration("sp2016")
    assert sp16.n == 7 and sp16.is_irreducible
    with pytest.raises(ValueError, match=r"default must be one of \['drop', 'restart'\]; got 'keep'"):
        credit_migration(default="keep")


def test_grid_and_web_chains():
    g = city_grid(4, 3, stay=0.2)
    assert g.n == 12 and g.is_irreducible
    assert np.all(np.diag(g.P) == pytest.approx(0.2))
    assert int(g.support.sum(axis=1).max()) == 5  # wait + at most 4 neighbours
    w1, w2 = web_browsing(15, rng=3), web_browsing(15, rng=3)
    assert np.array_equal(w1.P, w2.P) and w1.is_irreducible
    assert np.all(w1.support.sum(axis=1) <= 4)


def test_stationary_and_entropy_rate():
    P = np.array([[0.9, 0.1], [0.4, 0.6]])
    mu = stationary_distribution(P)
    assert mu @ P == pytest.approx(mu) and mu.sum() == pytest.approx(1)
    h = -(mu[0] * (0.9 * np.log(0.9) + 0.1 * np.log(0.1)) + mu[1] * (0.4 * np.log(0.4) + 0.6 * np.log(0.6)))
    assert entropy_rate(P) == pytest.approx(h)


def test_parse_matrix_is_strict_and_bounded():
    c = parse_matrix("# a comment\n0.9, 0.1\n\n5e-1 .5")
    assert c.P.tolist() == [[0.9, 0.1], [0.5, 0.5]]
    assert parse_matrix("0.9 0.1; 0.5 0.5").n == 2
    for text, msg in [
        ("", r"matrix is empty"),
        ("0.9 0.1\n0.5", r"rows must all have the same length; row 1 has 2 entries, row 2 has 1"),
        ("0.5 0.5", r"matrix must be square"),
        ("__import__('os') 1\n0 1", r"row 1, entry 1: .* is not a non-negative decimal number"),
        ("-0.5 1.5\n0 1", r"row 1, entry 1: '-0.5' is not a non-negative decimal number"),
        ("nan 1\n0 1", r"row 1, entry 1: 'nan' is not"),
        ("0.9 0.2\n0.5 0.5", r"row 0 sums to 1.1"),
        ("\n".join(["1 " + "0 " * 30] * 31), r"at most 30 states; got 31 rows"),
    ]:
        with pytest.raises(ValueError, match=msg):
            parse_matrix(text)
    with pytest.raises(TypeError):
        parse_matrix(3)


def test_simulate_follows_the_chain():
    P = np.array([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    s = simulate(P, 20001, initial=0, rng=1)
    assert s[0] == 0 and np.all(P[s[:-1], s[1:]] > 0)
    # transition frequencies out of state 1: binomial, z = 5 bound
    out1 = s[1:][s[:-1] == 1]
    k, m = int((out1 == 2).sum()), out1.size
    assert abs(k / m - 0.5) <= 5 * np.sqrt(0.25 / m)
    batch = simulate(P, 5, size=4000, rng=2)  # s_0 from the stationary law
    mu = stationary_distribution(P)
    counts = np.bincount(batch[:, 0], minlength=3)
    assert stats.chisquare(counts, 4000 * mu).pvalue > 1e-4
    with pytest.raises(ValueError, match=r"length must be an integer >= 1 and <= 1000000; got 0"):
        simulate(P, 0)


def test_back_clicks_and_wikispeedia_loader(tmp_path):
    assert resolve_back_clicks("A;B;C;<;<;D") == [("A", "B"), ("B", "C"), ("A", "D")]
    links = "# links\nA\tB\nB\tC\nC\tA\nA\tC\nC\tD\nD\tE\n"
    paths = ("# paths\n"
             "ip1\t1\t10\tA;B;C;A\t1\n"
             "ip2\t2\t10\tA;C;<;B;C\tNULL\n"
             "ip3\t3\t10\tB;C;A;C\t2\n"
             "ip4\t4\t10\tC;D;E\t2\n"  # D and E are never left toward A: outside the largest SCC
             "ip5\t5\t10\tA;Z\t1\n")  # A -> Z is not a link: ignored
    (tmp_path / "links.tsv").write_text(links)
    (tmp_path / "paths_finished.tsv").write_text(paths)
    c = load_wikispeedia(tmp_path)
    assert set(c.states) == {"A", "B", "C"}
    i = {s: k for k, s in enumerate(c.states)}
    # clicks out of A: A->B (ip1), A->C then back, A->B (ip2), A->C (ip3): 2 x B, 2 x C
    assert c.P[i["A"], i["B"]] == pytest.approx(0.5) and c.P[i["A"], i["C"]] == pytest.approx(0.5)
    assert c.P[i["B"], i["C"]] == pytest.approx(1.0)
    with pytest.raises(FileNotFoundError):
        load_wikispeedia(tmp_path / "missing")
