"""Generators and loaders of paper 1 (SBM, (p, q) from degree and eigengap, karate club, files)."""

import math

import numpy as np
import pytest

from dpexplore.spectral import karate_club, load_edge_list, load_planetoid, sbm, sbm_pq, sbm_quantities


def test_sbm_structure_and_reproducibility():
    A, z = sbm(301, 4, 0.3, 0.05, rng=3)
    assert A.shape == (301, 301) and (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    assert set(np.unique(A.data)) == {1.0}
    assert np.bincount(z).tolist() == [76, 75, 75, 75]
    B, w = sbm(301, 4, 0.3, 0.05, rng=3)
    assert (A != B).nnz == 0 and np.array_equal(z, w)
    assert (A != sbm(301, 4, 0.3, 0.05, rng=4)[0]).nnz > 0


def test_sbm_edge_frequencies_match_p_and_q():
    n, k, p, q = 600, 3, 0.3, 0.05
    A, z = sbm(n, k, p, q, rng=0)
    coo = A.tocoo()
    upper = coo.row < coo.col
    same = z[coo.row[upper]] == z[coo.col[upper]]
    sizes = np.bincount(z)
    pairs_in = int((sizes * (sizes - 1) // 2).sum())
    pairs_out = n * (n - 1) // 2 - pairs_in
    for count, pairs, prob in ((same.sum(), pairs_in, p), ((~same).sum(), pairs_out, q)):
        sd = math.sqrt(pairs * prob * (1 - prob))
        assert abs(count - pairs * prob) < 5 * sd  # z = 5 binomial bound


def test_sbm_validation_messages():
    with pytest.raises(ValueError, match=r"^p must be a finite number >= 0 and <= 1; got 1.5$"):
        sbm(10, 2, 1.5, 0.1)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1 and <= 10; got 11$"):
        sbm(10, 11, 0.5, 0.1)
    with pytest.raises(TypeError, match=r"^n must be an integer >= 2 and <= 20000; got 'x' of type str$"):
        sbm("x", 2, 0.5, 0.1)


def test_sbm_pq_roundtrip_and_infeasible():
    n, k = 900, 3
    p, q = sbm_pq(n, k, avg_degree=100.0, eigengap=60.0)
    s = sbm_quantities(n, k, p, q)
    assert s.eigengap == pytest.approx(60.0 - 0.0, rel=1e-12)
    assert (n / k) * (p + (k - 1) * q) == pytest.approx(100.0)
    with pytest.raises(ValueError, match=r"eigengap must be at most avg_degree \(else q < 0\); got eigengap=20"):
        sbm_pq(100, 3, avg_degree=10, eigengap=20)
    with pytest.raises(ValueError, match=r"avg_degree \+ \(k - 1\)\*eigengap must be at most n"):
        sbm_pq(100, 5, avg_degree=50, eigengap=20)


def test_karate_club():
    A, z = karate_club()
    assert A.shape == (34, 34) and A.nnz == 156 and np.bincount(z).tolist() == [17, 17]
    assert z[0] == 0 and z[33] == 1  # Mr. Hi (vertex 0) and the officer (vertex 33) lead the factions


def test_load_edge_list_roundtrip(tmp_path):
    A, _ = sbm(50, 2, 0.3, 0.1, rng=0)
    coo = A.tocoo()
    ids = np.arange(50) * 7 + 3  # arbitrary integer ids
    lines = ["# SNAP-style header", "# FromNodeId\tToNodeId"]
    lines += [f"{ids[i]}\t{ids[j]}\t1.0" for i, j in zip(coo.row, coo.col)]  # both directions + a weight column
    lines += [f"{ids[0]}\t{ids[0]}"]  # a self-loop is dropped
    path = tmp_path / "edges.txt"
    path.write_text("\n".join(lines) + "\n")
    B, got_ids = load_edge_list(path)
    present = np.unique(np.concatenate([coo.row, coo.col]))
    assert np.array_equal(got_ids, ids[present])
    assert (B != A[present][:, present]).nnz == 0


def test_load_edge_list_errors(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1 2\n3\n")
    with pytest.raises(ValueError, match=r"line 2 must hold two vertex ids; got '3'"):
        load_edge_list(path)


def test_load_planetoid_sample(tmp_path):
    rng = np.random.default_rng(0)
    A, z = sbm(40, 3, 0.4, 0.05, rng=1)
    names = np.array(["Case_Based", "Neural_Networks", "Theory"])
    ids = [f"p{1000 + i}" for i in range(40)]
    content = [f"{ids[i]} " + " ".join(map(str, rng.integers(0, 2, 5))) + f" {names[z[i]]}" for i in range(40)]
    (tmp_path / "cora.content").write_text("\n".join(content) + "\n")
    coo = A.tocoo()
    cites = [f"{ids[i]}\t{ids[j]}" for i, j in zip(coo.row, coo.col) if i < j]
    cites.append(f"{ids[0]}\tunknown_paper")
    (tmp_path / "cora.cites").write_text("\n".join(cites) + "\n")
    B, labels, classes, got_ids = load_planetoid(tmp_path / "cora.content", tmp_path / "cora.cites")
    assert classes == list(names) and np.array_equal(labels, z) and list(got_ids) == ids
    assert (B != A).nnz == 0
