"""The −log P cost graph of a chain, shortest-path distances and most likely paths.

The chain is a weighted digraph with an edge i → j iff P_ij > 0, of weight W_ij = −log P_ij. A path's
weight is minus the log of its probability, so the shortest path from i to j is the **most likely
path** (Proposition 1) and G(i, j) = −log (its probability). The symmetric distance
d(i, j) = G(i, j) + G(j, i) (or max(G(i, j), G(j, i))) is a metric on the states of an irreducible
chain; Mechanism 1's utility and the ρ-adjacency (Definition 4) are measured with it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import csgraph_from_dense, shortest_path

from dpexplore.core.validation import check_choice, check_int

from .chains import as_chain, check_irreducible, check_states

__all__ = [
    "cost_graph",
    "shortest_path_lengths",
    "distances",
    "most_likely_path",
    "path_probability",
    "brute_force_most_likely",
    "to_networkx",
]


def cost_graph(chain) -> sp.csr_array:
    """Sparse weighted digraph with W_ij = −log P_ij on the edges P_ij > 0 (zero weights kept).

    Examples
    --------
    >>> W = cost_graph([[0.5, 0.5], [1.0, 0.0]])
    >>> W.nnz, round(float(W[0, 1]), 6), float(W[1, 0])
    (3, 0.693147, 0.0)
    """
    c = as_chain(chain)
    with np.errstate(divide="ignore"):  # log 0 = -inf marks the non-edges, mapped to +inf (null value)
        W = 0.0 - np.log(c.P)  # 0.0 - (...) so that P = 1 gives +0.0, not -0.0
    return sp.csr_array(csgraph_from_dense(W, null_value=np.inf))


def shortest_path_lengths(chain, *, return_predecessors: bool = False):
    """All-pairs G(i, j) = −log of the most likely path's probability (Dijkstra, scipy csgraph).

    Unreachable pairs are ``inf``.

    Returns
    -------
    G : ndarray, shape (n, n)
    predecessors : ndarray, shape (n, n), only if ``return_predecessors``

    Examples
    --------
    >>> G = shortest_path_lengths([[0.0, 1.0, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    >>> round(float(G[0, 2]), 6)  # 0 -> 1 -> 2 has probability 0.5
    0.693147
    """
    W = cost_graph(chain)
    out = shortest_path(W, method="D", directed=True, return_predecessors=return_predecessors)
    if return_predecessors:
        G, pred = out
        return np.asarray(G), np.asarray(pred)
    return np.asarray(out)


def distances(chain, *, symmetrize: str = "sum") -> np.ndarray:
    """The symmetric distance matrix d used by Mechanism 1 and the ρ-adjacency.

    d(i, j) = G(i, j) + G(j, i) (``symmetrize="sum"``, primary) or max(G(i, j), G(j, i))
    (``"max"``). Both are metrics (zero diagonal, symmetric, triangle inequality), which is what
    Mechanism 1's privacy proof uses.

    Parameters
    ----------
    chain : MarkovChain or array_like
        Must be irreducible (otherwise some distances are infinite).
    symmetrize : {"sum", "max"}

    Raises
    ------
    ValueError
        If a state cannot reach another (the message names them).

    Examples
    --------
    >>> d = distances([[0.5, 0.5], [0.25, 0.75]])
    >>> round(float(d[0, 1]), 6)  # -log 0.5 - log 0.25
    2.079442
    """
    c = check_irreducible(chain)
    check_choice(symmetrize, "symmetrize", ("sum", "max"))
    G = shortest_path_lengths(c)
    d = G + G.T if symmetrize == "sum" else np.maximum(G, G.T)
    np.fill_diagonal(d, 0.0)
    return d


def path_probability(chain, path) -> float:
    """Probability Π_t P[path_t, path_{t+1}] of following ``path`` (a sequence of state indices)."""
    c = as_chain(chain)
    p = check_states(path, "path", c.n)
    return float(np.prod(c.P[p[:-1], p[1:]])) if p.size > 1 else 1.0


def most_likely_path(chain, source: int, target: int) -> tuple[list[int], float]:
    """The shortest −log P path from ``source`` to ``target`` and its probability (Proposition 1).

    Returns
    -------
    path : list of int
        State indices from ``source`` to ``target`` (``[source]`` if they are equal).
    probability : float
        exp(−G(source, target)); 0 with an empty path if ``target`` is unreachable.

    Examples
    --------
    >>> most_likely_path([[0.0, 1.0, 0.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], 0, 2)
    ([0, 1, 2], 0.5)
    """
    c = as_chain(chain)
    i = check_int(source, "source", low=0, high=c.n - 1)
    j = check_int(target, "target", low=0, high=c.n - 1)
    G, pred = shortest_path_lengths(c, return_predecessors=True)
    if not np.isfinite(G[i, j]):
        return [], 0.0
    path = [j]
    while path[-1] != i:
        path.append(int(pred[i, path[-1]]))
    path.reverse()
    return path, float(np.exp(-G[i, j]))


def brute_force_most_likely(chain, source: int, target: int) -> float:
    """Largest probability over **all** simple paths source → target, by enumeration (networkx).

    For teaching and tests on small chains (the number of simple paths grows factorially): it
    demonstrates Proposition 1, ``brute_force_most_likely == exp(−G(source, target))``.
    Cycles never help (they multiply by probabilities ≤ 1), so simple paths suffice.

    Examples
    --------
    >>> round(brute_force_most_likely([[0.1, 0.3, 0.6], [0.5, 0.0, 0.5], [0.2, 0.8, 0.0]], 0, 1), 6)
    0.48
    """
    import networkx as nx

    c = as_chain(chain)
    if c.n > 12:
        raise ValueError(f"brute_force_most_likely enumerates all paths: use at most 12 states; got {c.n}")
    i = check_int(source, "source", low=0, high=c.n - 1)
    j = check_int(target, "target", low=0, high=c.n - 1)
    if i == j:
        return 1.0
    g = to_networkx(c)
    return max((path_probability(c, p) for p in nx.all_simple_paths(g, i, j)), default=0.0)


def to_networkx(chain):
    """The chain as a ``networkx.DiGraph`` with edge attributes ``p`` (P_ij) and ``weight`` (−log P_ij).

    Examples
    --------
    >>> g = to_networkx([[0.5, 0.5], [1.0, 0.0]])
    >>> sorted(g.edges())
    [(0, 0), (0, 1), (1, 0)]
    """
    import networkx as nx

    c = as_chain(chain)
    g = nx.DiGraph()
    for i, name in enumerate(c.states):
        g.add_node(i, name=name)
    rows, cols = np.nonzero(c.P)
    for i, j in zip(rows.tolist(), cols.tolist()):
        g.add_edge(i, j, p=float(c.P[i, j]), weight=float(-np.log(c.P[i, j])))
    return g

