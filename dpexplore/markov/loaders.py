"""Loader for the Wikispeedia click paths (SNAP) as a web-browsing Markov chain.

Files (https://snap.stanford.edu/data/wikispeedia.html, ``wikispeedia_paths-and-graph.tar.gz``):

* ``links.tsv``: ``source<TAB>target`` (URL-encoded article names), ``#`` comment lines;
* ``paths_finished.tsv``: ``hashedIpAddress<TAB>timestamp<TAB>durationInSec<TAB>path<TAB>rating``,
  where ``path`` is ``;``-separated articles and ``<`` is a back-click.

P is estimated from consecutive **forward** clicks after resolving back-clicks (a ``<`` returns to
the page before; the next click leaves from there), restricted to clicks along an existing link, to
the ``max_states`` most visited articles and then to the largest strongly connected component, and
row-normalised.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import numpy as np
from scipy.sparse.csgraph import connected_components

from dpexplore.core.validation import check_int

from .chains import MarkovChain

__all__ = ["load_wikispeedia", "resolve_back_clicks", "MAX_WIKISPEEDIA_STATES"]

#: Largest ``max_states`` of :func:`load_wikispeedia` (the game has ~4600 articles; the chain's
#: distance and kernel tables are n×n and larger).
MAX_WIKISPEEDIA_STATES = 5_000


def resolve_back_clicks(path: str) -> list[tuple[str, str]]:
    """Forward clicks (from, to) of one Wikispeedia path, with ``<`` back-clicks resolved.

    Examples
    --------
    >>> resolve_back_clicks("A;B;<;C;D")
    [('A', 'B'), ('A', 'C'), ('C', 'D')]
    """
    stack: list[str] = []
    clicks = []
    for token in path.strip().split(";"):
        token = token.strip()
        if not token:
            continue
        if token == "<":
            if len(stack) > 1:
                stack.pop()
            continue
        if stack:
            clicks.append((stack[-1], token))
        stack.append(token)
    return clicks


def _read_rows(path: Path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield line.split("\t")


def load_wikispeedia(directory, *, max_states: int = 200, min_clicks: int = 1) -> MarkovChain:
    """Build the Wikispeedia click chain from ``links.tsv`` and ``paths_finished.tsv`` in ``directory``.

    Parameters
    ----------
    directory : str or Path
        Folder holding the two files.
    max_states : int
        Keep at most this many articles (the most visited) before taking the largest strongly
        connected component; at most ``MAX_WIKISPEEDIA_STATES`` (5000).
    min_clicks : int
        Ignore transitions observed fewer times.

    Returns
    -------
    MarkovChain
        States are article names (URL-decoded).

    Raises
    ------
    FileNotFoundError
        If a file is missing.
    ValueError
        If no strongly connected component with at least 2 articles remains.
    """
    folder = Path(directory)
    max_states = check_int(max_states, "max_states", low=2, high=MAX_WIKISPEEDIA_STATES)
    min_clicks = check_int(min_clicks, "min_clicks", low=1)
    links = {(unquote(r[0]), unquote(r[1])) for r in _read_rows(folder / "links.tsv") if len(r) >= 2}
    counts: Counter = Counter()
    visits: Counter = Counter()
    for row in _read_rows(folder / "paths_finished.tsv"):
        if len(row) < 4:
            continue
        for a, b in resolve_back_clicks(unquote(row[3])):
            if (a, b) in links:
                counts[(a, b)] += 1
                visits[a] += 1
                visits[b] += 1
    keep = [name for name, _ in sorted(visits.items(), key=lambda kv: (-kv[1], kv[0]))[:max_states]]
    index = {name: i for i, name in enumerate(keep)}
    C = np.zeros((len(keep), len(keep)))
    for (a, b), k in counts.items():
        if a in index and b in index and k >= min_clicks:
            C[index[a], index[b]] += k
    if C.size == 0:
        raise ValueError("no clicks along existing links were found in paths_finished.tsv")
    ncomp, labels = connected_components(C > 0, directed=True, connection="strong")
    sizes = np.bincount(labels, minlength=ncomp)
    big = int(np.argmax(sizes))
    if sizes[big] < 2:
        raise ValueError("no strongly connected group of at least 2 articles: too few clicks")
    sel = np.flatnonzero(labels == big)
    C = C[np.ix_(sel, sel)]
    P = C / C.sum(axis=1, keepdims=True)
    return MarkovChain(P, states=tuple(keep[i] for i in sel), name=f"Wikispeedia clicks ({sel.size} articles)")
