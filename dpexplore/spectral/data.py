"""Graphs for private spectral clustering: stochastic block models, built-in real graphs, file loaders.

Every adjacency matrix here is a ``scipy.sparse.csr_array`` of floats: symmetric, 0/1 entries, zero
diagonal (an undirected simple graph). Mechanisms densify only when they have to.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..core.random import RNGLike, as_generator
from ..core.validation import check_int, check_positive, check_probability

__all__ = [
    "sbm",
    "block_sizes",
    "sbm_pq",
    "karate_club",
    "load_edge_list",
    "load_planetoid",
    "adjacency_from_edges",
    "MAX_NODES",
    "MAX_SBM_NODES",
    "MAX_SBM_EDGES",
    "MAX_SBM_BLOCKS",
    "MAX_FILE_EDGES",
]

#: Largest vertex count of a sparse graph built here (``adjacency_from_edges``, the loaders,
#: ``block_sizes``): CSR storage is O(n + edges), 10⁶ vertices ≈ 8 MB of row pointers.
MAX_NODES = 1_000_000
#: Largest n of :func:`sbm`: it draws all n(n − 1)/2 pairs (2·10⁸ uniforms at the cap, a few seconds).
MAX_SBM_NODES = 20_000
#: Largest expected edge count of :func:`sbm` (≈ 0.5 GB of CSR storage at the cap).
MAX_SBM_EDGES = 20_000_000
#: Largest k of :func:`sbm` (it forms a k×k table of edge probabilities).
MAX_SBM_BLOCKS = 1_000
#: Largest number of edge lines :func:`load_edge_list` reads (each costs two Python strings).
MAX_FILE_EDGES = 10_000_000

# rows per chunk when Bernoulli pairs are drawn densely: about 2**22 uniforms per chunk
_CHUNK_ENTRIES = 1 << 22


def block_sizes(n: int, k: int) -> np.ndarray:
    """Sizes of k balanced blocks of n vertices (they differ by at most one).

    Examples
    --------
    >>> block_sizes(10, 3).tolist()
    [4, 3, 3]

    ``n`` is at most ``MAX_NODES`` (10⁶).
    """
    n = check_int(n, "n", low=2, high=MAX_NODES)
    k = check_int(k, "k", low=1, high=n)
    return np.full(k, n // k) + (np.arange(k) < n % k)


def adjacency_from_edges(rows, cols, n: int) -> sp.csr_array:
    """Symmetric 0/1 CSR adjacency from (possibly duplicated, either-direction) edge endpoints.

    Self-loops are dropped and duplicates merged. ``n`` (vertices) is in [1, ``MAX_NODES`` = 10⁶].

    Examples
    --------
    >>> adjacency_from_edges([0, 1, 1], [1, 0, 2], 3).toarray().astype(int).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    n = check_int(n, "n", low=1, high=MAX_NODES)
    r, c = _endpoints(rows, "rows", n), _endpoints(cols, "cols", n)
    if r.size != c.size:
        raise ValueError(f"rows and cols must have the same length; got {r.size} and {c.size}")
    keep = r != c
    r, c = r[keep], c[keep]
    lo, hi = np.minimum(r, c), np.maximum(r, c)
    mat = sp.coo_array((np.ones(lo.size), (lo, hi)), shape=(n, n)).tocsr()
    mat.data[:] = 1.0  # duplicates were summed
    mat = (mat + mat.T).tocsr()
    mat.sort_indices()
    return mat


def _endpoints(values, name: str, n: int) -> np.ndarray:
    """Edge endpoints as a 1-d int64 array of vertex ids in [0, n)."""
    if isinstance(values, (str, bytes, dict)) or values is None:
        raise TypeError(f"{name} must be a 1-d sequence of integer vertex ids; got {type(values).__name__}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-d sequence of integer vertex ids; got {values!r}") from exc
    if arr.dtype.kind in "cbOSUV":  # complex, bool, object, strings: not vertex ids
        raise TypeError(f"{name} must be a 1-d sequence of integer vertex ids; got dtype {arr.dtype}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a 1-d sequence of integer vertex ids; got shape {arr.shape}, "
                         f"dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not (np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
        raise ValueError(f"{name} must hold integer vertex ids; got non-integer or non-finite values")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"{name} must hold vertex ids in [0, n - 1] = [0, {n - 1}]; got values in "
                         f"[{arr.min()}, {arr.max()}] (n must exceed every id)")
    return arr


def _bernoulli_pairs(prob_block, labels: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw every pair i < j independently with probability prob_block[labels[i], labels[j]].

    Vectorised over row chunks (about 4 M uniforms each): a Python loop over chunks, never over pairs.
    """
    n = labels.size
    chunk = max(1, _CHUNK_ENTRIES // n)
    cols = np.arange(n)
    out_r, out_c = [], []
    for r0 in range(0, n, chunk):
        r1 = min(n, r0 + chunk)
        probs = prob_block[labels[r0:r1, None], labels[None, :]]
        hit = rng.random((r1 - r0, n)) < probs
        hit &= cols[None, :] > np.arange(r0, r1)[:, None]  # upper triangle only
        i, j = np.nonzero(hit)
        out_r.append(i + r0)
        out_c.append(j)
    return np.concatenate(out_r), np.concatenate(out_c)


def sbm(n: int, k: int, p: float, q: float, *, rng: RNGLike = None) -> tuple[sp.csr_array, np.ndarray]:
    """A balanced stochastic block model: k blocks, edge probability p within, q between.

    Parameters
    ----------
    n : int
        Number of vertices, in [2, ``MAX_SBM_NODES`` = 20 000]; the expected edge count
        p·(pairs within blocks) + q·(pairs between) is at most ``MAX_SBM_EDGES`` = 2·10⁷.
    k : int
        Number of blocks, 1 ≤ k ≤ min(n, ``MAX_SBM_BLOCKS`` = 1000). Blocks are contiguous
        (vertices 0..n_1−1 are block 0, ...) and balanced (sizes differ by at most one).
    p, q : float
        Within- and between-block edge probabilities in [0, 1].
    rng : Generator, int or None

    Returns
    -------
    adjacency : scipy.sparse.csr_array, shape (n, n)
        Symmetric 0/1 matrix with zero diagonal.
    labels : ndarray of int, shape (n,)
        Block of each vertex.

    Notes
    -----
    Every pair i < j is an independent Bernoulli draw; E[A] = Z B Zᵀ − p I with B = (p − q) I + q 11ᵀ.

    Examples
    --------
    >>> A, z = sbm(90, 3, 0.5, 0.05, rng=0)
    >>> A.shape, (A != A.T).nnz, int(A.diagonal().sum()), np.bincount(z).tolist()
    ((90, 90), 0, 0, [30, 30, 30])
    """
    n = check_int(n, "n", low=2, high=MAX_SBM_NODES)
    k = check_int(k, "k", low=1, high=min(n, MAX_SBM_BLOCKS))  # the (k, k) probability table
    p = check_probability(p, "p")
    q = check_probability(q, "q")
    sizes = block_sizes(n, k)
    within = float(np.sum(sizes * (sizes - 1.0)) / 2.0)
    expected_edges = p * within + q * (n * (n - 1) / 2.0 - within)
    if expected_edges > MAX_SBM_EDGES:
        raise ValueError(f"n, p and q must give at most {MAX_SBM_EDGES:,} expected edges (memory); got "
                         f"{expected_edges:,.0f} for n = {n}, p = {p:g}, q = {q:g}")
    gen = as_generator(rng)
    labels = np.repeat(np.arange(k), block_sizes(n, k))
    prob_block = np.full((k, k), q)
    np.fill_diagonal(prob_block, p)
    r, c = _bernoulli_pairs(prob_block, labels, gen)
    return adjacency_from_edges(r, c, n), labels


def sbm_pq(n: int, k: int, *, avg_degree: float, eigengap: float) -> tuple[float, float]:
    """(p, q) of a balanced k-block SBM with a given expected degree and eigengap Δ_k.

    For balanced blocks E[A] + p I = Z B Zᵀ has eigenvalues n(p + (k − 1)q)/k (once) and n(p − q)/k
    (k − 1 times), 0 otherwise, so the expected degree is d ≈ n(p + (k − 1)q)/k and
    Δ_k = λ_k − λ_{k+1} = n(p − q)/k. Solving: q = (d − Δ_k)/n, p = q + kΔ_k/n.

    Raises
    ------
    ValueError
        If no probabilities fit: Δ_k must be in (0, d] (q ≥ 0) and d + (k − 1)Δ_k ≤ n (p ≤ 1).

    Examples
    --------
    >>> [round(x, 4) for x in sbm_pq(1000, 3, avg_degree=133.3333, eigengap=83.3333)]
    [0.3, 0.05]
    >>> sbm_pq(100, 3, avg_degree=10, eigengap=20)
    Traceback (most recent call last):
    ...
    ValueError: eigengap must be at most avg_degree (else q < 0); got eigengap=20, avg_degree=10
    """
    n = check_int(n, "n", low=2)
    k = check_int(k, "k", low=1, high=n)
    d = check_positive(avg_degree, "avg_degree")
    gap = check_positive(eigengap, "eigengap")
    if gap > d * (1 + 1e-12):
        raise ValueError(
            f"eigengap must be at most avg_degree (else q < 0); got eigengap={eigengap:g}, avg_degree={avg_degree:g}"
        )
    q = max(0.0, (d - gap) / n)
    p = q + k * gap / n
    if p > 1 + 1e-12:
        raise ValueError(
            "avg_degree + (k - 1)*eigengap must be at most n (otherwise p > 1); "
            f"got {d:g} + {k - 1}*{gap:g} = {d + (k - 1) * gap:g} > n = {n}"
        )
    return min(p, 1.0), q


def karate_club() -> tuple[sp.csr_array, np.ndarray]:
    """Zachary's karate club (34 members, 78 friendships) with its two factions as ground truth.

    Shipped inside networkx (no download). Label 0: "Mr. Hi", label 1: "Officer".

    Examples
    --------
    >>> A, z = karate_club()
    >>> A.shape, A.nnz // 2, np.bincount(z).tolist()
    ((34, 34), 78, [17, 17])
    """
    import networkx as nx

    g = nx.karate_club_graph()
    nodes = sorted(g.nodes())
    labels = np.array([0 if g.nodes[v]["club"] == "Mr. Hi" else 1 for v in nodes])
    edges = np.array(list(g.edges()), dtype=np.int64)
    return adjacency_from_edges(edges[:, 0], edges[:, 1], len(nodes)), labels


def load_edge_list(path, *, comments: str = "#", delimiter: str | None = None) -> tuple[sp.csr_array, np.ndarray]:
    """Load a SNAP-style edge list (one ``u v`` pair per line) as an undirected simple graph.

    At most ``MAX_FILE_EDGES`` (10⁷) edge lines and ``MAX_NODES`` (10⁶) distinct vertices.
    Lines starting with ``comments`` are skipped; extra columns (weights, timestamps) are ignored;
    self-loops and duplicate/reversed edges are dropped. Vertex ids may be any tokens; they are
    relabelled 0..n−1 in sorted order (numerically if all are integers).

    Returns
    -------
    adjacency : scipy.sparse.csr_array
    node_ids : ndarray
        ``node_ids[i]`` is the original id of vertex i.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     f = os.path.join(d, "g.txt")
    ...     _ = open(f, "w").write("# toy\\n10 20\\n20 30\\n30 10\\n10 10\\n")
    ...     A, ids = load_edge_list(f)
    >>> A.nnz // 2, ids.tolist()
    (3, [10, 20, 30])
    """
    us, vs = [], []
    with open(Path(path), encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            s = line.strip()
            if not s or s.startswith(comments):
                continue
            parts = s.split(delimiter)
            if len(parts) < 2:
                raise ValueError(f"{path}: line {lineno} must hold two vertex ids; got {s!r}")
            us.append(parts[0].strip())
            vs.append(parts[1].strip())
            if len(us) > MAX_FILE_EDGES:
                raise ValueError(f"{path}: the edge list must have at most {MAX_FILE_EDGES:,} edges (memory); "
                                 f"stopped reading at line {lineno}")
    if not us:
        raise ValueError(f"{path}: no edges found")
    ids, inv = _relabel(us + vs)
    m = len(us)
    return adjacency_from_edges(inv[:m], inv[m:], ids.size), ids


def _relabel(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    try:
        arr = np.array([int(t) for t in tokens], dtype=np.int64)
    except ValueError:
        arr = np.array(tokens)
    return np.unique(arr, return_inverse=True)


def load_planetoid(content_path, cites_path) -> tuple[sp.csr_array, np.ndarray, list[str], np.ndarray]:
    """Load a Planetoid/LINQS-style citation graph (Cora's ``cora.content`` + ``cora.cites``).

    ``content``: one paper per line, ``<paper_id> <feature> ... <feature> <class_label>`` (features are
    ignored here). ``cites``: ``<cited_id> <citing_id>`` per line. Citations are treated as undirected
    edges; citations to papers missing from ``content`` are skipped.

    Returns
    -------
    adjacency : scipy.sparse.csr_array
    labels : ndarray of int
        Class index of each paper.
    classes : list of str
        Class names, ``classes[labels[i]]`` is paper i's class.
    paper_ids : ndarray of str
        Original id of each vertex, in the file's order.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     c, e = os.path.join(d, "x.content"), os.path.join(d, "x.cites")
    ...     _ = open(c, "w").write("a 0 1 Theory\\nb 1 0 Theory\\nc 1 1 Rules\\n")
    ...     _ = open(e, "w").write("a b\\nb c\\nc zzz\\n")
    ...     A, z, cls, ids = load_planetoid(c, e)
    >>> A.nnz // 2, z.tolist(), cls
    (2, [1, 1, 0], ['Rules', 'Theory'])
    """
    ids, classes_raw = [], []
    with open(Path(content_path), encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) < 2:
                raise ValueError(f"{content_path}: line {lineno} must hold '<id> [features...] <class>'")
            ids.append(parts[0])
            classes_raw.append(parts[-1])
    index = {pid: i for i, pid in enumerate(ids)}
    if len(index) != len(ids):
        raise ValueError(f"{content_path}: paper ids must be unique")
    classes = sorted(set(classes_raw))
    labels = np.array([classes.index(c) for c in classes_raw], dtype=np.int64)
    rows, cols = [], []
    with open(Path(cites_path), encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2 and parts[0] in index and parts[1] in index:
                rows.append(index[parts[0]])
                cols.append(index[parts[1]])
    return adjacency_from_edges(rows, cols, len(ids)), labels, classes, np.array(ids)

