"""Auditing the edge-DP mechanisms of paper 1: worst-case neighbours, exact laws, broken variants.

Neighbouring graphs differ in one unordered pair {i, j} (edge DP). What is audited, and how:

* **Randomized response on edges** (:func:`audit_randomized_response`): every pair is flipped
  independently, so on graphs G and G + {i, j} every output coordinate except (i, j) has the same law
  and the likelihood ratio is a function of the released bit Ã_ij alone. The pair's **exact** ε is
  that of one ε0-randomized-response bit (:func:`exact_audit_randomized_response`). The
  **statistical** audit runs :func:`~.mechanisms.randomized_response_graph` itself on the empty and the
  complete graph of ``block`` vertices: each of the block's pairs is one independent draw of the
  released bit under "edge absent" / "edge present" (this bulk sampling relies on the independence
  across pairs, which ``tests/spectral/test_mechanisms.py`` checks against the exact 3-vertex law).
  The score is the released bit (the likelihood ratio).
* **Matrix shuffling, identifiable vertices** (:func:`audit_matrix_shuffle_hubs`): the pair that
  **refutes the shuffle accountants** (:func:`hub_edge_pair`). Two hubs of very different degrees,
  the edge between them flipped. The relabelling hides nothing: the release's two largest degrees
  point at the hubs, and the released bit between them is the ε0-randomized-response bit of the
  flipped pair. Black-box: :func:`~.mechanisms.matrix_shuffle` itself runs on both graphs; score:
  the bit between the two largest-degree vertices of the release. ε̂ approaches ε0 (the sound bound:
  randomized response followed by a data-independent relabelling is post-processing), far above the
  FMT claims that treat the n rows as independent anonymous reports.
* **Matrix shuffling, symmetric pair** (:func:`audit_matrix_shuffle`): **exact** at any n on the
  empty graph vs a single edge (:func:`worst_case_edge_pair`). For that pair the likelihood ratio of
  a release H depends on its edge count only (the single edge can sit on any of the m = n(n−1)/2
  pairs after the relabelling), so the two laws of the released edge count (:func:`edge_count_laws`)
  give the exact privacy curve. On this pair the relabelling does hide the edge, and the exact ε
  stays below the FMT claim: a pair on which a claim holds says nothing about other pairs.
  :func:`shuffled_rr_law` gives the full law of P Ã Pᵀ on any graph with n ≤ 6 vertices.
* **Analyze Gauss** (:func:`audit_analyze_gauss`): the flipped entry is a scalar Gaussian mechanism
  with sensitivity 1, every other entry has the same law on both graphs, so the pair is exactly
  (1/σ)-GDP: **exact** ε = ``gdp_epsilon(1/σ, δ)``. The **statistical** audit samples the released
  entry in bulk through :func:`~.mechanisms.analyze_gauss` (empty / complete graphs, as for
  randomized response) and scores it by its value (the likelihood ratio).
* **Noisy power method** (:func:`audit_noisy_power_step`): ONE step, audited against the PER-STEP
  claim (auditing the whole L-step run black-box is much weaker: the orthonormalised X_L forgets most
  of what a step leaked). The proof treats step ℓ as a Gaussian mechanism whose input X_{ℓ−1} is
  public and claims it is (1/σ)-GDP (ρ_ℓ = 1/(2σ²) of the zCDP total L/(2σ²)). The audit fixes the
  worst-case public iterate (:func:`worst_case_power_iterate`), runs the step's own code
  (``_power_step`` with the mechanism's sensitivity rule) on the empty graph and the single edge
  {0, 1}, and scores each release by its projection on the direction the flipped edge moves the
  product A X (the likelihood ratio: the noise is isotropic). The pair's **exact** ε is
  ``gdp_epsilon(‖D‖/(Δ_ℓ σ), δ)``, D the actual shift. Composition over the L steps is arithmetic
  and is tested in ``tests/spectral/test_mechanisms.py``, not here.

The ``broken_*`` mechanisms are deliberately wrong (never a default anywhere): each says in its
docstring what is broken and what its true ε is, and reports the correct mechanism's claim.

An audit can refute a privacy claim (exact ε or ε̂ above the claim), never prove one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core.audit import (
    ExactAudit,
    PairAuditMixin,
    StatisticalAudit,
    check_audit_args,
    exact_audit,
    exact_audit_result,
    sampled_audit,
)
from ..core.gaussian import gdp_delta, gdp_epsilon
from ..core.random import RNGLike, as_generator
from ..core.randomized_response import flip_probability
from ..core.validation import (
    check_adjacency,
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_matrix,
    check_real,
)
from .accounting import Accountant, analyze_gauss_sigma, noisy_power_epsilon, noisy_power_sigma, shuffle_epsilon
from .accounting import shuffle_epsilon0 as _shuffle_epsilon0
from .mechanisms import (
    MAX_DENSE_NODES,
    MAX_ITERATIONS,
    AnalyzeGaussResult,
    GraphRRResult,
    MatrixShuffleResult,
    NoisyPowerResult,
    _power_step,
    _power_step_sensitivity,
    analyze_gauss,
    matrix_shuffle,
    noisy_power_method,
    randomized_response_graph,
)

__all__ = [
    "SpectralAudit",
    "SHUFFLE_LAW_MAX_N",
    "POWER_BUGS",
    "worst_case_edge_pair",
    "hub_edge_pair",
    "worst_case_power_iterate",
    "worst_case_edge_for_iterate",
    "shuffled_rr_law",
    "release_mask",
    "edge_count_laws",
    "broken_randomized_response_graph",
    "broken_matrix_shuffle",
    "broken_analyze_gauss",
    "broken_noisy_power_method",
    "exact_audit_randomized_response",
    "exact_audit_matrix_shuffle",
    "exact_audit_gaussian",
    "audit_randomized_response",
    "audit_matrix_shuffle",
    "audit_matrix_shuffle_hubs",
    "audit_analyze_gauss",
    "audit_noisy_power_step",
]

SHUFFLE_LAW_MAX_N = 6  # 2^15 outputs × ≤ 720 relabellings; n = 7 would be 2^21 × 5040
POWER_BUGS = ("no_sqrt2", "average_row_norm")
_Progress = Callable[[int, int], "bool | None"] | None


@dataclass(frozen=True)
class SpectralAudit(PairAuditMixin):
    """An audit of one mechanism on one neighbouring pair: the claim, the exact ε, the measured ε̂.

    Attributes
    ----------
    mechanism : str
        What was audited (``"BROKEN ..."`` for a broken variant).
    neighbours : str
        The neighbouring pair, in words.
    claimed_epsilon : float
        ε claimed by the accounting function at ``delta``.
    delta : float
    exact : ExactAudit or None
        The pair's exact privacy (None where the law is not computable).
    statistical : StatisticalAudit or None
        The black-box lower bound (None where only an exact audit is run).
    broken : bool
    notes : str
        What the claim is and what the sampling relies on.
    """

    mechanism: str
    neighbours: str
    claimed_epsilon: float
    delta: float
    exact: ExactAudit | None
    statistical: StatisticalAudit | None
    broken: bool
    notes: str = ""

    @property
    def exact_epsilon(self) -> float | None:  # epsilon_lower, cancelled, violation: PairAuditMixin
        return None if self.exact is None else self.exact.epsilon


# -- worst-case neighbours ------------------------------------------------------------------
def worst_case_edge_pair(n: int) -> tuple[sp.csr_array, sp.csr_array, tuple[int, int]]:
    """The empty graph on n vertices and the graph with the single edge {0, 1}.

    Why this pair: for randomized response, Analyze Gauss and one noisy power step every pair of
    graphs differing in one edge is equally hard (the mechanism treats the flipped coordinate
    independently of the rest, or the rest cancels in the shift A₁X − A₀X), so the cheapest graph
    is used. For matrix shuffling the pair matters. On this one the relabelling hides where the
    edge is (its likelihood ratio depends only on the released edge count, which makes the exact
    law computable at any n, :func:`edge_count_laws`). It is **not** the hardest pair for matrix
    shuffling, even at n = 5: at δ = 0 every neighbouring pair on 5 vertices has exact ε = ε0, but at
    the package's δ = 1/n² = 0.04 an exhaustive search over all 34 graphs on 5 vertices (exact laws,
    :func:`shuffled_rr_law`) finds harder ones — at ε0 = 1, empty vs one edge has exact ε 0.375,
    while a triangle vs the triangle plus a disjoint edge has 0.746 (tested). At realistic n the hard
    pairs are the asymmetric ones: see :func:`hub_edge_pair`.

    Examples
    --------
    >>> A0, A1, e = worst_case_edge_pair(4)
    >>> A0.nnz, A1.nnz, e
    (0, 2, (0, 1))
    """
    n = check_int(n, "n", low=2, high=MAX_DENSE_NODES)
    a0 = sp.csr_array((n, n), dtype=float)
    a1 = sp.csr_array((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))
    return a0, a1, (0, 1)


def hub_edge_pair(n: int) -> tuple[sp.csr_array, sp.csr_array, tuple[int, int]]:
    """Two graphs whose vertices matrix shuffling cannot hide: two hubs, with or without the edge between them.

    Hub a = 0 is adjacent to every vertex except hub b = 1; hub b is adjacent to vertices
    2, …, 1 + ⌊(n − 2)/2⌋. The second graph adds the edge {0, 1}. Degrees: a ≈ n, b ≈ n/2, every other
    vertex 1 or 2. After randomized response a vertex's degree moves by about √(n μ(1 − μ)) (μ the
    flip probability), far less than the gaps of about (n/2)(1 − 2μ), so in the released P Ã Pᵀ the
    two largest degrees point at a and b whatever the relabelling was, and the released bit between
    them IS the flipped pair's randomized-response bit: laws (1 − μ, μ) vs (μ, 1 − μ), likelihood
    ratio e^{ε0}. The relabelling amplifies nothing here; the accountant's claim ε < ε0 fails
    (:func:`audit_matrix_shuffle_hubs`). Any graph with two re-identifiable vertices would do; hubs
    make re-identification by degree reliable for every ε0 ≳ 1 at n ≥ 50.

    Returns
    -------
    (G, G + {a, b}, (a, b)) as symmetric 0/1 CSR arrays and the flipped pair.

    Examples
    --------
    >>> g0, g1, (a, b) = hub_edge_pair(10)
    >>> g0.sum(axis=1).astype(int).tolist(), int(g1[a, b]), int(g0[a, b])
    ([8, 4, 2, 2, 2, 2, 1, 1, 1, 1], 1, 0)
    """
    n = check_int(n, "n", low=4, high=MAX_DENSE_NODES)
    rows = [np.zeros(n - 2, dtype=int), np.ones((n - 2) // 2, dtype=int)]
    cols = [np.arange(2, n), np.arange(2, 2 + (n - 2) // 2)]
    r, c = np.concatenate(rows), np.concatenate(cols)
    g0 = sp.csr_array((np.ones(2 * r.size), (np.r_[r, c], np.r_[c, r])), shape=(n, n))
    g1 = (g0 + sp.csr_array((np.ones(2), ([0, 1], [1, 0])), shape=(n, n))).tocsr()
    return g0, g1, (0, 1)


def worst_case_power_iterate(n: int, p: int, *, rng: RNGLike = None) -> np.ndarray:
    """A public iterate X_{ℓ−1} (n×p, orthonormal columns) on which edge {0, 1} attains the step sensitivity.

    Edge {0, 1} shifts A X by D with rows D_0 = X_1, D_1 = X_0, so ‖D‖² = ‖X_0‖² + ‖X_1‖² ≤
    2 max_i ‖X_i‖² = Δ_ℓ². For p ≥ 2 the columns e_0 and e_1 make rows 0 and 1 unit vectors:
    ‖D‖ = √2 = Δ_ℓ (the bound is attained, no iterate is harder). For p = 1 the column
    (e_0 + e_1)/√2 gives ‖D‖ = 1 = Δ_ℓ. Further columns are random (from ``rng``) on rows 2..n−1.
    Such a coherent iterate is also where a sensitivity that assumes incoherent rows
    (:func:`broken_noisy_power_method` with ``bug="average_row_norm"``) is most wrong.

    Examples
    --------
    >>> x = worst_case_power_iterate(6, 3, rng=0)
    >>> bool(np.allclose(x.T @ x, np.eye(3))), np.round(np.linalg.norm(x[:2], axis=1), 6).tolist()
    (True, [1.0, 1.0])
    """
    n = check_int(n, "n", low=2, high=MAX_DENSE_NODES)
    p = check_int(p, "p", low=1, high=n)
    x = np.zeros((n, p))
    if p == 1:
        x[0, 0] = x[1, 0] = 1.0 / math.sqrt(2.0)
        return x
    x[0, 0] = x[1, 1] = 1.0
    if p > 2:
        q, _ = np.linalg.qr(as_generator(rng).standard_normal((n - 2, p - 2)))
        x[2:, 2:] = q
    return x


def worst_case_edge_for_iterate(x) -> tuple[int, int]:
    """The edge {i, j} that moves A X the most for a given public iterate X: the two longest rows.

    ‖D‖² = ‖X_i‖² + ‖X_j‖², maximised by the two rows of largest norm.

    Examples
    --------
    >>> worst_case_edge_for_iterate(np.array([[0.1], [0.9], [0.3], [0.2]]))
    (1, 2)
    """
    arr = check_matrix(x, "x", min_rows=2)
    norms = (arr * arr).sum(axis=1)
    i, j = np.argsort(-norms, kind="stable")[:2]
    return int(min(i, j)), int(max(i, j))


# -- exact laws -----------------------------------------------------------------------------
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)  # row-major order of the pairs i < j: bit b of a mask is pair b


def release_mask(matrix) -> int:
    """The released graph as an integer: bit b is the b-th pair (i < j, row-major) of the upper triangle.

    Examples
    --------
    >>> release_mask([[0, 1, 0], [1, 0, 1], [0, 1, 0]])  # pairs (0,1), (0,2), (1,2) -> bits 1, 0, 1
    5
    """
    arr = check_adjacency(matrix, "matrix").toarray()
    if arr.shape[0] > SHUFFLE_LAW_MAX_N + 2:
        raise ValueError(f"matrix must have at most {SHUFFLE_LAW_MAX_N + 2} vertices; got {arr.shape[0]}")
    iu, ju = _pairs(arr.shape[0])
    bits = arr[iu, ju].astype(np.int64) != 0
    return int((bits.astype(np.int64) << np.arange(bits.size)).sum())


def shuffled_rr_law(adjacency, *, epsilon0: float) -> np.ndarray:
    """Exact law of the matrix-shuffling release P Ã Pᵀ of a graph with n ≤ 6 vertices.

    Returns ``law`` of length 2^m (m = n(n−1)/2): ``law[release_mask(H)]`` is the probability of
    releasing H. P(H | G) = (1/n!) Σ_π μ^{d(H, πG)} (1 − μ)^{m − d(H, πG)}, d the Hamming distance,
    μ = 1/(e^{ε0} + 1): the average of the randomized-response law over the relabellings of G.

    Examples
    --------
    >>> law = shuffled_rr_law([[0, 1, 0], [1, 0, 0], [0, 0, 0]], epsilon0=1.0)
    >>> law.size, round(float(law.sum()), 12), bool(np.allclose(law[[1, 2, 4]], law[1]))
    (8, 1.0, True)
    """
    adj = check_adjacency(adjacency, "adjacency")
    n = adj.shape[0]
    if n > SHUFFLE_LAW_MAX_N:
        raise ValueError(f"adjacency must have at most {SHUFFLE_LAW_MAX_N} vertices for the exact shuffled law; "
                         f"got n = {n}")
    e0 = check_epsilon(epsilon0, "epsilon0")
    dense = adj.toarray() != 0
    iu, ju = _pairs(n)
    m = iu.size
    perms = np.array(list(itertools.permutations(range(n))))
    bits = dense[perms[:, iu], perms[:, ju]].astype(np.int64)  # relabelled graphs, one row per π
    orbit, mult = np.unique((bits << np.arange(m)).sum(axis=1), return_counts=True)
    outputs = np.arange(2**m, dtype=np.int64)
    dist = np.bitwise_count(outputs[:, None] ^ orbit[None, :]).astype(float)
    mu = flip_probability(e0)
    logp = dist * math.log(mu) + (m - dist) * math.log1p(-mu)
    law = (np.exp(logp) * mult[None, :]).sum(axis=1) / perms.shape[0]
    return law / law.sum()


def edge_count_laws(n: int, *, epsilon0: float, tail: float = 1e-40) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Laws of the released edge count of matrix shuffling on :func:`worst_case_edge_pair`.

    Empty graph: Binomial(m, μ). Single edge: Binomial(m − 1, μ) + Bernoulli(1 − μ), m = n(n−1)/2.
    Given the count c, the release is uniform over graphs with c edges in both cases (the relabelling
    and the i.i.d. flips are exchangeable), so the count is a sufficient statistic and the privacy
    curve of these laws is that of the whole release.

    Returns ``(counts, p0, p1)``, restricted to the counts where either law exceeds ``tail``
    (the dropped mass is below m·tail, far below any δ used here; both laws are renormalised).

    Examples
    --------
    >>> c, p0, p1 = edge_count_laws(3, epsilon0=1.0)
    >>> c.tolist(), round(float(p1[0] / p0[0]), 6) == round(math.exp(-1.0), 6)
    ([0, 1, 2, 3], True)
    """
    from scipy import stats  # imported on use: scipy.stats costs ~0.5 s of a kernel's start
    n = check_int(n, "n", low=2, high=MAX_DENSE_NODES)
    e0 = check_epsilon(epsilon0, "epsilon0")
    tail = check_real(tail, "tail", low=0.0, high=1e-10, low_open=True)
    m = n * (n - 1) // 2
    mu = flip_probability(e0)
    c = np.arange(m + 1)
    p0 = stats.binom.pmf(c, m, mu)
    base = stats.binom.pmf(c, m - 1, mu)  # base[m] = 0
    p1 = (1 - mu) * np.concatenate([[0.0], base[:-1]]) + mu * base
    keep = (p0 > tail) | (p1 > tail)
    c, p0, p1 = c[keep], p0[keep], p1[keep]
    return c, p0 / p0.sum(), p1 / p1.sum()


def _epsilon0(epsilon, epsilon0, n: int, delta: float, accountant: Accountant, who: str) -> float:
    """ε0 from exactly one of a target ``epsilon`` (through the accountant, as matrix_shuffle does) or ``epsilon0``."""
    if (epsilon is None) == (epsilon0 is None):
        raise TypeError(f"{who} needs exactly one of epsilon (target) or epsilon0")
    if epsilon0 is None:
        return _shuffle_epsilon0(check_epsilon(epsilon), n, delta, accountant=accountant)
    return check_epsilon(epsilon0, "epsilon0")


# -- deliberately broken variants (teaching only) -------------------------------------------
def broken_randomized_response_graph(adjacency, *, epsilon0: float, rng: RNGLike = None) -> GraphRRResult:
    """BROKEN on purpose: randomized response that flips with μ(2ε0) = 1/(e^{2ε0} + 1) but *claims* ε0.

    The factor-2 bug. Its true edge-DP ε is 2ε0; its result reports ε0. Teaching audits only.

    Examples
    --------
    >>> r = broken_randomized_response_graph([[0, 1], [1, 0]], epsilon0=1.0, rng=0)
    >>> r.epsilon, round(r.flip_probability, 4)
    (1.0, 0.1192)
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    res = randomized_response_graph(adjacency, epsilon0=2.0 * e0, rng=rng)  # the bug
    return GraphRRResult(matrix=res.matrix, flip_probability=res.flip_probability, epsilon=e0)


def broken_matrix_shuffle(adjacency, *, epsilon: float | None = None, delta: float, epsilon0: float | None = None,
                          accountant: Accountant = "none", rng: RNGLike = None) -> MatrixShuffleResult:
    """BROKEN on purpose: matrix shuffling whose randomized response uses 2ε0 while the accountant is told ε0.

    ε0 is chosen as in :func:`~.mechanisms.matrix_shuffle` and the result reports that ε0 and its
    shuffled ε, but the flips use μ(2ε0). Its true guarantee is the accountant's ε at 2ε0 (at most
    2ε0). Teaching audits only.

    Examples
    --------
    >>> r = broken_matrix_shuffle([[0, 1], [1, 0]], epsilon0=1.0, delta=1e-3, rng=0)
    >>> r.epsilon0, round(r.flip_probability, 4)
    (1.0, 0.1192)
    """
    adj = check_adjacency(adjacency, "adjacency")
    n = adj.shape[0]
    delta = check_delta(delta)
    e0 = _epsilon0(epsilon, epsilon0, n, delta, accountant, "broken_matrix_shuffle")
    res = matrix_shuffle(adj, epsilon0=2.0 * e0, delta=delta, accountant=accountant, rng=rng)  # the bug
    return MatrixShuffleResult(matrix=res.matrix, permutation=res.permutation, epsilon0=e0,
                               flip_probability=res.flip_probability,
                               epsilon=shuffle_epsilon(e0, n, delta, accountant=accountant), delta=delta,
                               accountant=res.accountant)


def broken_analyze_gauss(adjacency, *, epsilon: float, delta: float, rng: RNGLike = None) -> AnalyzeGaussResult:
    """BROKEN on purpose: Analyze Gauss with σ halved, still claiming (ε, δ).

    Its true guarantee is (2/σ)-GDP, σ the correct analytic σ: ε = ``gdp_epsilon(2/σ, δ)``
    (about 2.2 at ε = 1, δ = 1e-5). Teaching audits only.

    Examples
    --------
    >>> r = broken_analyze_gauss([[0, 1], [1, 0]], epsilon=1.0, delta=1e-5, rng=0)
    >>> round(r.sigma * 2, 4), r.epsilon
    (3.7306, 1.0)
    """
    return analyze_gauss(adjacency, epsilon=epsilon, delta=delta, rng=rng, _sigma_scale=0.5)  # the bug: σ/2


def _broken_sensitivity(bug: str) -> Callable[[np.ndarray], float]:
    if bug == "no_sqrt2":
        return lambda x: float(np.sqrt((x * x).sum(axis=1)).max())  # the √2 dropped
    # assumes incoherent rows: every row norm equal to the RMS row norm √(p/n)
    return lambda x: math.sqrt(2.0 * (x * x).sum() / x.shape[0])


def broken_noisy_power_method(adjacency, *, k: int, epsilon: float, delta: float, iterations: int = 10,
                              p: int | None = None, bug: str = "no_sqrt2", rng: RNGLike = None) -> NoisyPowerResult:
    """BROKEN on purpose: the noisy power method with a wrong per-step sensitivity, claiming (ε, δ).

    ``bug="no_sqrt2"``: Δ_ℓ = max row norm (the √2 for the two rows an edge touches dropped); every
    step is really (√2/σ)-GDP, twice the claimed ρ: true ε = ``noisy_power_epsilon(σ/√2, L, δ)``.
    ``bug="average_row_norm"``: Δ_ℓ = √2 · √(p/n), the row norm of a perfectly incoherent iterate;
    on a coherent iterate (a row of norm 1) a step is really (√(n/p)/σ)-GDP — √(n/p) times the claim.
    The ``sensitivities`` reported are the wrong ones actually used. Teaching audits only.

    Examples
    --------
    >>> from dpexplore.spectral import sbm
    >>> A, _ = sbm(40, 2, 0.5, 0.1, rng=0)
    >>> r = broken_noisy_power_method(A, k=2, epsilon=1.0, delta=1e-4, iterations=3, rng=0)
    >>> round(r.epsilon, 6), r.embedding.shape
    (1.0, (40, 2))
    """
    sensitivity = _broken_sensitivity(check_choice(bug, "bug", POWER_BUGS))  # the bug
    return noisy_power_method(adjacency, k=k, epsilon=epsilon, delta=delta, iterations=iterations, p=p, rng=rng,
                              _sensitivity=sensitivity)


# -- exact audits ---------------------------------------------------------------------------
def exact_audit_randomized_response(epsilon0: float, *, delta: float = 0.0, broken: bool = False) -> ExactAudit:
    """Exact ε of randomized response on edges for any pair of neighbouring graphs (claim: ε0).

    The flipped pair's released bit is the only coordinate whose law differs, so the pair's privacy
    curve is that of one bit: laws (1 − μ, μ) and (μ, 1 − μ). ``broken=True`` audits
    :func:`broken_randomized_response_graph` (μ from 2ε0).

    Examples
    --------
    >>> a = exact_audit_randomized_response(1.5)
    >>> round(a.epsilon, 9), a.violation, exact_audit_randomized_response(1.5, broken=True).violation
    (1.5, False, True)
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    delta = check_delta(delta, allow_zero=True)
    broken = check_bool(broken, "broken")
    mu = flip_probability(2.0 * e0 if broken else e0)
    return exact_audit([1.0 - mu, mu], [mu, 1.0 - mu], delta=delta, claimed_epsilon=e0)


def exact_audit_matrix_shuffle(n: int, *, epsilon0: float, delta: float,
                               accountant: Accountant = "none", broken: bool = False) -> ExactAudit:
    """Exact ε of matrix shuffling on :func:`worst_case_edge_pair` at n vertices vs the accountant's claim.

    Claim: ``shuffle_epsilon(ε0, n, δ, accountant=...)``. Exact: the privacy curve of
    :func:`edge_count_laws` (for the broken variant, of the laws at 2ε0). Cost O(n²) memory/time at
    most (the count's support, trimmed to its non-negligible part).

    Examples
    --------
    >>> a = exact_audit_matrix_shuffle(5, epsilon0=2.0, delta=1e-4)
    >>> a.epsilon <= a.claimed_epsilon, exact_audit_matrix_shuffle(5, epsilon0=2.0, delta=1e-4, broken=True).violation
    (True, True)
    """
    n = check_int(n, "n", low=2, high=MAX_DENSE_NODES)
    e0 = check_epsilon(epsilon0, "epsilon0")
    delta = check_delta(delta)
    broken = check_bool(broken, "broken")
    claimed = shuffle_epsilon(e0, n, delta, accountant=accountant)
    _, p0, p1 = edge_count_laws(n, epsilon0=2.0 * e0 if broken else e0)
    return exact_audit(p0, p1, delta=delta, claimed_epsilon=claimed)


def exact_audit_gaussian(mu: float, *, delta: float, claimed_epsilon: float | None = None,
                         grid: int = 60) -> ExactAudit:
    """Exact audit of a pair on which the mechanism is a scalar Gaussian shift with μ = shift/σ (μ-GDP).

    ε = ``gdp_epsilon(μ, δ)``; the curve is δ(ε) = ``gdp_delta(μ, ε)``.

    Examples
    --------
    >>> a = exact_audit_gaussian(1.0, delta=1e-5, claimed_epsilon=4.0)
    >>> round(a.epsilon, 3), a.violation
    (4.377, True)
    """
    mu = check_real(mu, "mu", low=0.0, low_open=True)
    delta = check_delta(delta)
    return exact_audit_result(gdp_epsilon(mu, delta), lambda e: gdp_delta(mu, e), delta=delta,
                              claimed_epsilon=claimed_epsilon, grid=grid)


# -- statistical audits ---------------------------------------------------------------------
def _complete(b: int) -> sp.csr_array:
    return sp.csr_array(np.ones((b, b)) - np.eye(b))


def audit_randomized_response(*, epsilon0: float, runs: int = 200_000, delta: float = 0.0, confidence: float = 0.95,
                              broken: bool = False, block: int = 300, rng: RNGLike = None,
                              progress: _Progress = None) -> SpectralAudit:
    """Exact and statistical audit of randomized response on edges (claim ε0, pure DP).

    The statistical part calls :func:`~.mechanisms.randomized_response_graph` (or its broken variant)
    on the empty and the complete graph of ``block`` vertices; each of the block(block−1)/2 released
    bits is one run on "edge absent" / "edge present" (see the module docstring). Score: the bit.

    Examples
    --------
    >>> a = audit_randomized_response(epsilon0=1.0, runs=20000, rng=0)
    >>> round(a.exact_epsilon, 6), 0.5 < a.epsilon_lower <= 1.0, a.violation
    (1.0, True, False)
    """
    e0 = check_epsilon(epsilon0, "epsilon0")
    runs, conf, _ = check_audit_args(runs, confidence, progress=progress)
    delta = check_delta(delta, allow_zero=True)
    broken = check_bool(broken, "broken")
    block = check_int(block, "block", low=2, high=2000)
    mech = broken_randomized_response_graph if broken else randomized_response_graph
    iu, ju = _pairs(block)
    a0, a1 = sp.csr_array((block, block), dtype=float), _complete(block)
    g0, g1 = as_generator(rng).spawn(2)

    def sample(_want):  # one release per input: block(block − 1)/2 runs each
        return (mech(a0, epsilon0=e0, rng=g0).matrix[iu, ju].astype(float),
                mech(a1, epsilon0=e0, rng=g1).matrix[iu, ju].astype(float))

    stat = sampled_audit(sample, runs, delta=delta, confidence=conf, claimed_epsilon=e0, progress=progress)
    name = "BROKEN randomized response on edges (flips with μ(2ε0))" if broken else "Randomized response on edges"
    return SpectralAudit(name, "graphs differing in one edge (the released bit of that pair)", e0, delta,
                         exact_audit_randomized_response(e0, delta=delta, broken=broken), stat, broken,
                         "claim: ε0 of randomized response (before any shuffling); bulk sampling: each pair of an "
                         "empty / complete graph is one independent run")


def audit_matrix_shuffle(n: int, *, delta: float, epsilon: float | None = None, epsilon0: float | None = None,
                         accountant: Accountant = "none", broken: bool = False) -> SpectralAudit:
    """Exact audit of matrix shuffling at n vertices on the empty graph vs one edge.

    Give the target ``epsilon`` (ε0 then comes from the accountant, as in
    :func:`~.mechanisms.matrix_shuffle`) or ``epsilon0``. Claimed ε: ``shuffle_epsilon(ε0, n, δ)``.
    At large n the accountant amplifies and this pair is far below the claim (the claim is not
    refuted, but this pair does not show it is tight); at small n (no amplification) the broken
    variant is caught.

    Examples
    --------
    >>> a = audit_matrix_shuffle(6, epsilon0=2.0, delta=1e-5)
    >>> a.exact_epsilon <= a.claimed_epsilon, audit_matrix_shuffle(6, epsilon0=2.0, delta=1e-5, broken=True).violation
    (True, True)
    """
    n = check_int(n, "n", low=2, high=MAX_DENSE_NODES)
    delta = check_delta(delta)
    e0 = _epsilon0(epsilon, epsilon0, n, delta, accountant, "audit_matrix_shuffle")
    ex = exact_audit_matrix_shuffle(n, epsilon0=e0, delta=delta, accountant=accountant, broken=broken)
    name = ("BROKEN matrix shuffling (flips with μ(2ε0))" if broken else "Matrix shuffling") + f", n = {n}"
    return SpectralAudit(name, f"empty graph vs one edge on {n} vertices (law of the released edge count)",
                         float(ex.claimed_epsilon), delta, ex, None, bool(broken),
                         f"claim: shuffle accountant at ε0 = {e0:.4g}, n = {n}; exact law, no sampling")


def audit_matrix_shuffle_hubs(n: int, *, delta: float, epsilon: float | None = None, epsilon0: float | None = None,
                              accountant: Accountant = "none", broken: bool = False, runs: int = 2000,
                              confidence: float = 0.95, rng: RNGLike = None,
                              progress: _Progress = None) -> SpectralAudit:
    """Black-box audit of matrix shuffling on :func:`hub_edge_pair`: the pair that refutes amplification.

    Runs :func:`~.mechanisms.matrix_shuffle` (or :func:`broken_matrix_shuffle`) ``runs`` times on each
    graph and scores each release by its bit between the two vertices of largest degree (the
    re-identified hubs; the relabelling is not used). Claimed ε: the accountant's
    ``shuffle_epsilon(ε0, n, δ)``; the sound bound is ε0 (randomized response, then a
    data-independent relabelling), and ε̂ approaches it as ``runs`` grows. Each run costs one
    n×n release (about 5 ms at n = 300, 0.1 s at n = 1500).

    Parameters
    ----------
    n : int
        Vertices (≥ 4).
    delta : float
        δ of the claim and of the audit.
    epsilon, epsilon0 : float
        Exactly one: the target ε (ε0 from the accountant, as in ``matrix_shuffle``) or ε0 itself.
    accountant : str or callable
        The claim being audited (``"none"`` claims ε0, which this audit cannot refute).
    broken : bool
        Audit :func:`broken_matrix_shuffle` (flips with μ(2ε0)) instead.
    runs : int
        Releases per graph (≥ 20).
    confidence : float
        Confidence of the Clopper–Pearson lower bound ε̂.
    rng : Generator, int or None
    progress : callable (done, total) -> bool or None, optional
        Called after every chunk; returning False cancels.

    Examples
    --------
    >>> a = audit_matrix_shuffle_hubs(100, epsilon=1.0, delta=1e-4, runs=400, accountant="fmt21_numerical", rng=0)
    >>> a.claimed_epsilon < 1.0 + 1e-6 < a.epsilon_lower, a.violation
    (True, True)
    >>> audit_matrix_shuffle_hubs(100, epsilon=1.0, delta=1e-4, runs=400, rng=0).violation  # accountant="none"
    False
    """
    n = check_int(n, "n", low=4, high=MAX_DENSE_NODES)
    delta = check_delta(delta)
    runs, conf, _ = check_audit_args(runs, confidence, progress=progress)
    broken = check_bool(broken, "broken")
    e0 = _epsilon0(epsilon, epsilon0, n, delta, accountant, "audit_matrix_shuffle_hubs")
    claimed = shuffle_epsilon(e0, n, delta, accountant=accountant)
    mech = broken_matrix_shuffle if broken else matrix_shuffle
    g0, g1, _ = hub_edge_pair(n)
    chunk = max(1, min(runs, 20_000_000 // (n * n) + 1))  # progress about every 0.1 s

    def score(g, gen):
        h = mech(g, epsilon0=e0, delta=delta, accountant=accountant, rng=gen).matrix  # released P Ã Pᵀ
        h = h.toarray() if sp.issparse(h) else np.asarray(h)
        i, j = np.argsort(h.sum(axis=1), kind="stable")[-2:]  # the two largest degrees: the hubs
        return float(h[i, j])

    gen0, gen1 = as_generator(rng).spawn(2)

    def sample(k):
        return [score(g0, gen0) for _ in range(k)], [score(g1, gen1) for _ in range(k)]

    stat = sampled_audit(sample, runs, delta=delta, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress)
    name = ("BROKEN matrix shuffling (flips with μ(2ε0))" if broken else "Matrix shuffling") + f", n = {n}"
    acc = accountant if isinstance(accountant, str) else "custom"
    return SpectralAudit(name, f"two hubs on {n} vertices, with or without the edge between them "
                               "(score: released bit between the two largest degrees)",
                         float(claimed), delta, None, stat, bool(broken),
                         f"claim: accountant {acc!r} at ε0 = {e0:.4g}, n = {n}; sound bound ε0 = {e0:.4g}"
                         + (f" (the broken variant's: {2 * e0:.4g})" if broken else ""))


def audit_analyze_gauss(*, epsilon: float, delta: float, runs: int = 200_000, confidence: float = 0.95,
                        broken: bool = False, block: int = 300, rng: RNGLike = None,
                        progress: _Progress = None) -> SpectralAudit:
    """Exact (GDP) and statistical audit of Analyze Gauss on one edge (claim: (ε, δ)).

    Exact: the flipped entry is a Gaussian mechanism with sensitivity 1 and the σ actually used, so
    ε = ``gdp_epsilon(1/σ, δ)``. Statistical: :func:`~.mechanisms.analyze_gauss` (or the broken
    variant) on the empty / complete graph of ``block`` vertices, every released upper entry one run;
    score = the entry (the likelihood ratio).

    Examples
    --------
    >>> a = audit_analyze_gauss(epsilon=1.0, delta=1e-5, runs=20000, rng=0)
    >>> round(a.exact_epsilon, 6), a.epsilon_lower <= 1.0, a.violation
    (1.0, True, False)
    """
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    runs, conf, _ = check_audit_args(runs, confidence, progress=progress)
    broken = check_bool(broken, "broken")
    block = check_int(block, "block", low=2, high=2000)
    mech = broken_analyze_gauss if broken else analyze_gauss
    iu, ju = _pairs(block)
    a0, a1 = sp.csr_array((block, block), dtype=float), _complete(block)
    sigma_used = 0.5 * analyze_gauss_sigma(eps, delta) if broken else analyze_gauss_sigma(eps, delta)
    g0, g1 = as_generator(rng).spawn(2)

    def sample(_want):  # one release per input: block(block − 1)/2 runs each
        return (mech(a0, epsilon=eps, delta=delta, rng=g0).matrix[iu, ju],
                mech(a1, epsilon=eps, delta=delta, rng=g1).matrix[iu, ju])

    stat = sampled_audit(sample, runs, delta=delta, confidence=conf, claimed_epsilon=eps, progress=progress)
    name = "BROKEN Analyze Gauss (σ halved)" if broken else "Analyze Gauss"
    return SpectralAudit(name, "graphs differing in one edge (the released entry of that pair)", eps, delta,
                         exact_audit_gaussian(1.0 / sigma_used, delta=delta, claimed_epsilon=eps), stat, broken,
                         f"claim: analytic Gaussian calibration, σ = {sigma_used:.4g} used; bulk sampling: each "
                         "entry of an empty / complete graph is one independent run")


def audit_noisy_power_step(n: int, *, k: int, epsilon: float, delta: float, iterations: int = 10,
                           audit_delta: float | None = None, runs: int = 200_000, confidence: float = 0.95,
                           broken: bool = False, bug: str = "average_row_norm", chunk: int = 500,
                           rng: RNGLike = None, progress: _Progress = None) -> SpectralAudit:
    """Audit ONE noisy power step against the per-step claim, on the worst-case public iterate.

    The mechanism at (ε, δ, L) sets σ = ``noisy_power_sigma(ε, δ, L)`` and claims each step is
    (1/σ)-GDP, so the **claimed** per-step ε at ``audit_delta`` (default δ) is ``gdp_epsilon(1/σ,
    audit_delta)`` (a GDP claim holds at every δ; a larger audit δ can make a violation easier to
    see). The step's code (``_power_step`` with the mechanism's — or, when ``broken``, the ``bug``'s —
    sensitivity rule) runs ``runs`` times on the empty graph and on the single edge {0, 1} with
    X_{ℓ−1} = :func:`worst_case_power_iterate` (n, k); score: ⟨Y − A₀X, D⟩/‖D‖, D = (A₁ − A₀)X.
    **Exact** ε of the pair: ``gdp_epsilon(‖D‖/(Δ_used σ), audit_delta)``.

    Examples
    --------
    >>> a = audit_noisy_power_step(50, k=2, epsilon=4.0, delta=1e-4, iterations=1, runs=20000, rng=0)
    >>> abs(a.exact_epsilon - a.claimed_epsilon) < 1e-9, a.violation
    (True, False)
    """
    n = check_int(n, "n", low=3, high=MAX_DENSE_NODES)
    k = check_int(k, "k", low=1, high=n - 1)
    eps = check_epsilon(epsilon)
    delta = check_delta(delta)
    L = check_int(iterations, "iterations", low=1, high=MAX_ITERATIONS)
    a_delta = delta if audit_delta is None else check_delta(audit_delta, "audit_delta")
    runs, conf, chunk = check_audit_args(runs, confidence, chunk=chunk, progress=progress)
    broken = check_bool(broken, "broken")
    bug = check_choice(bug, "bug", POWER_BUGS)
    gen = as_generator(rng)
    sigma = noisy_power_sigma(eps, delta, L)
    x = worst_case_power_iterate(n, k, rng=gen)
    a0, a1, (i, j) = worst_case_edge_pair(n)
    shift = (a1 @ x) - (a0 @ x)
    norm_d = float(np.linalg.norm(shift))
    direction = shift / norm_d
    sens = (_broken_sensitivity(bug) if broken else _power_step_sensitivity)(x)
    scale = sens * sigma
    base = a0 @ x
    claimed = gdp_epsilon(1.0 / sigma, a_delta)
    g0, g1 = gen.spawn(2)

    def sample(r):
        y0 = _power_step(a0, x, scale, g0, reps=r)
        y1 = _power_step(a1, x, scale, g1, reps=r)
        return (np.tensordot(y0 - base, direction, axes=([1, 2], [0, 1])),
                np.tensordot(y1 - base, direction, axes=([1, 2], [0, 1])))

    stat = sampled_audit(sample, runs, delta=a_delta, confidence=conf, claimed_epsilon=claimed, chunk=chunk,
                         progress=progress)
    what = {"no_sqrt2": "√2 dropped", "average_row_norm": "row norm assumed √(k/n)"}[bug]
    name = (f"BROKEN noisy power method ({what})" if broken else "Noisy power method") + ", one step"
    whole = noisy_power_epsilon(sigma, L, delta)
    return SpectralAudit(name, f"graphs differing in edge ({i}, {j}); public iterate with rows {i}, {j} of full norm",
                         claimed, a_delta, exact_audit_gaussian(norm_d / scale, delta=a_delta,
                                                                claimed_epsilon=claimed), stat, broken,
                         f"claim: ONE step is (1/σ)-GDP, σ = {sigma:.4g} (the whole L = {L} run claims ε = "
                         f"{whole:.3g} at δ = {delta:.2g} by zCDP composition)")
