"""Privacy profiles of the shuffled histogram: export δ(ε) / ε(δ); T-round composition (re-exported).

* :func:`privacy_profile` — the worst-case profile over neighbouring data sets on an ε grid
  (upper = certified, lower = the largest exact δ of a named pair, or equal to the upper one when
  the enumeration is exhaustive) and ε(δ) on a δ grid; :class:`PrivacyProfile` exports CSV / JSON.
* :func:`compose_rounds` / :class:`ComposedPrivacy` — T shuffled rounds, in :mod:`.compose`
  (re-exported here: they used to live in this module).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

import numpy as np

from dpexplore.core.csvsafe import safe_writer
from dpexplore.core.validation import check_delta, check_int

from ._validate import check_real_array
from .compose import MAX_COMPOSE_USERS, MAX_ROUNDS, ComposedPrivacy, compose_rounds
from .constants import _check_randomizer
from .randomizers import Randomizer
from .worst import BNB_RTOL, MAX_USERS, worst_case_delta, worst_case_epsilon

__all__ = ["PrivacyProfile", "privacy_profile", "ComposedPrivacy", "compose_rounds", "MAX_COMPOSE_USERS",
           "MAX_ROUNDS", "MAX_GRID"]

#: public maximum of ε or δ grid points in :func:`privacy_profile`
MAX_GRID = 2_000


@dataclass(frozen=True, eq=False)
class PrivacyProfile:
    """Worst-case privacy profile of n shuffled reports.

    Attributes
    ----------
    randomizer : str
    n : int
    epsilons, delta_upper, delta_lower : ndarray
        δ(ε) on the ε grid: certified upper end and the lower end (equal when ``exhaustive``).
    deltas, epsilon_upper, epsilon_lower : ndarray
        ε(δ) on the δ grid, same convention.
    exhaustive : bool
    method : str
    """

    randomizer: str
    n: int
    epsilons: np.ndarray
    delta_upper: np.ndarray
    delta_lower: np.ndarray
    deltas: np.ndarray
    epsilon_upper: np.ndarray
    epsilon_lower: np.ndarray
    exhaustive: bool
    method: str

    def to_dict(self) -> dict:
        """Plain-JSON dict (lists of floats)."""
        return {
            "randomizer": self.randomizer, "n": self.n, "exhaustive": self.exhaustive, "method": self.method,
            "note": ("upper = certified worst case over neighbouring data sets; lower = largest exact value of "
                     "a named pair (equal to upper when exhaustive)"),
            "delta_of_epsilon": {"epsilon": self.epsilons.tolist(), "delta_upper": self.delta_upper.tolist(),
                                 "delta_lower": self.delta_lower.tolist()},
            "epsilon_of_delta": {"delta": self.deltas.tolist(), "epsilon_upper": self.epsilon_upper.tolist(),
                                 "epsilon_lower": self.epsilon_lower.tolist()},
        }

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), allow_nan=True)

    def to_csv(self) -> str:
        """CSV, one row per grid point: ``kind,x,upper,lower`` (kind ``delta_of_epsilon``/``epsilon_of_delta``)."""
        buf = io.StringIO()
        w = safe_writer(buf, lineterminator="\n")  # text cells that a spreadsheet would run as formulas are escaped
        w.writerow(["# " + self.randomizer, f"n={self.n}", f"exhaustive={self.exhaustive}", self.method])
        w.writerow(["kind", "x", "upper", "lower"])
        for e, u, lo in zip(self.epsilons, self.delta_upper, self.delta_lower):
            w.writerow(["delta_of_epsilon", repr(float(e)), repr(float(u)), repr(float(lo))])
        for d, u, lo in zip(self.deltas, self.epsilon_upper, self.epsilon_lower):
            w.writerow(["epsilon_of_delta", repr(float(d)), repr(float(u)), repr(float(lo))])
        return buf.getvalue()


def privacy_profile(randomizer: Randomizer, n: int, *, epsilons=None, deltas=None,
                    max_grid_cells: int | None = None, rtol: float = BNB_RTOL) -> PrivacyProfile:
    """δ(ε) and ε(δ) of n shuffled reports, worst case over neighbouring data sets (with lower ends).

    Parameters
    ----------
    randomizer : Randomizer
    n : int
        2 ≤ n ≤ :data:`MAX_USERS`.
    epsilons : array_like, optional
        ε grid (default: 40 points from 0 to ε0); at most :data:`MAX_GRID` points.
    deltas : array_like, optional
        δ grid (default 10⁻¹² … 10⁻² by decades); at most :data:`MAX_GRID` points.
    max_grid_cells : int, optional
        Passed to :func:`worst_case_delta` / :func:`worst_case_epsilon` (named k-RR pairs' grid).
    rtol : float
        Width of the binary inputs' certified branch-and-bound bracket (default
        :data:`dpexplore.shuffle.worst.BNB_RTOL`; the dashboard uses 1e-2 to stay interactive).

    Examples
    --------
    >>> from dpexplore.shuffle import binary_rr
    >>> prof = privacy_profile(binary_rr(1.0), 200, deltas=[1e-6])
    >>> prof.exhaustive, prof.to_csv().splitlines()[1]
    (True, 'kind,x,upper,lower')
    """
    R = _check_randomizer(randomizer)
    n = check_int(n, "n", low=2, high=MAX_USERS)
    e_loc = R.local_epsilon
    eps = np.linspace(0.0, e_loc, 40) if epsilons is None else np.atleast_1d(check_real_array(epsilons, "epsilons"))
    dls = 10.0 ** np.arange(-12.0, -1.0) if deltas is None else np.atleast_1d(check_real_array(deltas, "deltas",
                                                                                             high=1.0))
    for name, arr in (("epsilons", eps), ("deltas", dls)):
        if arr.ndim != 1 or not 1 <= arr.size <= MAX_GRID:
            raise ValueError(f"{name} must be a 1-d grid of 1 to {MAX_GRID} points; got shape {arr.shape}")
    up, lo, ex = worst_case_delta(R, n, eps, max_grid_cells=max_grid_cells, rtol=rtol)
    eu, el, method = [], [], "exhaustive"
    for d in dls:
        w = worst_case_epsilon(R, n, check_delta(float(d)), max_grid_cells=max_grid_cells, rtol=rtol)
        eu.append(w.epsilon)
        el.append(w.lower)
        method = w.method
    return PrivacyProfile(R.name, n, eps, up, lo, dls, np.array(eu), np.array(el), ex, method)


