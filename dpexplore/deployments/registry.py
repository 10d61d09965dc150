"""An ε registry: documented deployments with their privacy unit, time horizon and source, read in an
attacker's terms.

The rows live in ``registry.json`` beside this module (package data). :func:`load_registry` reads the
file back and validates **every** row before anything uses it (:func:`validate_row`): a name, ε (a number
≥ 0, or null with a reason), δ in [0, 1) (null only with a null ε), the privacy unit, the time horizon,
a source with a citation and an https URL, and a note. A malformed row is refused with a ValueError
naming the row and the field.

:func:`translate` reads a row's ε through :mod:`dpexplore.core.risk`: the best membership-inference
advantage (at most) and the attacker's posterior from a prior, after k-fold use:

* ``mode="time"``: the same release k times (k periods): basic composition, (kε, kδ). An **upper bound**;
  tighter accounting (advanced composition, RDP) can give less, never more is guaranteed by this one.
* ``mode="group"``: k people related (a household): group privacy, (kε, k·e^{(k−1)ε}·δ) (Dwork & Roth
  2014, Thm 2.2 for δ = 0 and its (ε, δ) form). Also an upper bound.

Examples
--------
>>> rows = load_registry()
>>> all(r.source["url"].startswith("https://") for r in rows)
True
>>> t = translate(rows[0], k=1, prior=0.5)
>>> t["advantage"] > 0.99
True
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from dpexplore.core.risk import advantage_bound, posterior_bound
from dpexplore.core.validation import check_choice, check_int, check_real

__all__ = [
    "MAX_K",
    "MAX_ROWS",
    "REGISTRY_FILE",
    "Deployment",
    "load_registry",
    "translate",
    "validate_row",
]

REGISTRY_FILE = Path(__file__).resolve().parent / "registry.json"
#: most rows a registry file may hold
MAX_ROWS = 200
#: largest k of the group / time-horizon slider
MAX_K = 365
_TEXT_FIELDS = ("key", "name", "organisation", "model", "mechanism", "privacy_unit", "time_horizon", "note")
_MAX_TEXT = 600


@dataclass(frozen=True)
class Deployment:
    """One validated registry row (see the module docstring for the fields)."""

    key: str
    name: str
    organisation: str
    model: str
    mechanism: str
    epsilon: float | None
    epsilon_reason: str | None
    delta: float | None
    rho: float | None
    privacy_unit: str
    time_horizon: str
    source: dict
    note: str
    flag: str | None


def _text(row: dict, field: str, where: str, *, optional: bool = False) -> str | None:
    v = row.get(field)
    if v is None and optional:
        return None
    if not isinstance(v, str) or not v.strip() or len(v) > _MAX_TEXT:
        raise ValueError(f"{where}: {field} must be a non-empty string of at most {_MAX_TEXT} characters; "
                         f"got {v!r}"[:300])
    return v


def validate_row(row, index: int = 0) -> Deployment:
    """Check one registry row and return it as a :class:`Deployment`.

    Raises
    ------
    ValueError
        A missing or malformed field, named with the row's index and key.

    Examples
    --------
    >>> validate_row({"key": "x"})
    Traceback (most recent call last):
    ...
    ValueError: registry row 0 ('x'): name must be a non-empty string of at most 600 characters; got None
    """
    if not isinstance(row, dict):
        raise ValueError(f"registry row {index} must be an object; got {type(row).__name__}")
    where = f"registry row {index} ({row.get('key')!r})"
    texts = {f: _text(row, f, where) for f in _TEXT_FIELDS}
    eps = row.get("epsilon", "missing")
    reason = _text(row, "epsilon_reason", where, optional=True)
    delta = row.get("delta", "missing")
    if eps is None:
        if reason is None:
            raise ValueError(f"{where}: epsilon is null, so epsilon_reason must say why; got {reason!r}")
        if delta is not None:
            raise ValueError(f"{where}: delta must be null when epsilon is null; got {delta!r}")
    else:
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps < 0:
            raise ValueError(f"{where}: epsilon must be a finite number >= 0 or null; got {eps!r}")
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 <= delta < 1:
            raise ValueError(f"{where}: delta must be a number >= 0 and < 1; got {delta!r}")
    rho = row.get("rho")
    if rho is not None and (isinstance(rho, bool) or not isinstance(rho, (int, float)) or not math.isfinite(rho)
                            or rho < 0):
        raise ValueError(f"{where}: rho must be a finite number >= 0 or null; got {rho!r}")
    src = row.get("source")
    if not isinstance(src, dict):
        raise ValueError(f"{where}: source must be an object with a citation and a url; got {src!r}"[:300])
    _text(src, "citation", where + " source")
    url = _text(src, "url", where + " source")
    if not url.startswith("https://") or " " in url:
        raise ValueError(f"{where}: source url must be an https:// address without spaces; got {url!r}")
    flag = _text(row, "flag", where, optional=True)
    return Deployment(key=texts["key"], name=texts["name"], organisation=texts["organisation"], model=texts["model"],
                      mechanism=texts["mechanism"], epsilon=None if eps is None else float(eps),
                      epsilon_reason=reason, delta=None if delta is None else float(delta),
                      rho=None if rho is None else float(rho), privacy_unit=texts["privacy_unit"],
                      time_horizon=texts["time_horizon"], source={"citation": src["citation"], "url": url},
                      note=texts["note"], flag=flag)


def load_registry(path: str | Path | None = None) -> tuple[Deployment, ...]:
    """Read a registry file (default: the shipped ``registry.json``) and validate every row.

    Raises
    ------
    ValueError
        Not JSON, no ``rows`` list, more than ``MAX_ROWS`` rows, a duplicate key, or a malformed row.

    Examples
    --------
    >>> len(load_registry()) >= 5
    True
    """
    p = REGISTRY_FILE if path is None else Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"registry file {p.name} is not valid JSON: {exc}") from None
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_ROWS:
        raise ValueError(f"registry file {p.name} must hold an object with a 'rows' list of 1 to {MAX_ROWS} rows")
    out = tuple(validate_row(r, i) for i, r in enumerate(rows))
    keys = [d.key for d in out]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"registry keys must be unique; repeated: {dup}")
    return out


def translate(row: Deployment, *, k: int = 1, mode: str = "time", prior: float = 0.01) -> dict | None:
    """A row's guarantee after k-fold use, in an attacker's terms (None when the row has no ε).

    Returns
    -------
    dict
        ``epsilon`` and ``delta`` after k-fold use (upper bounds), ``advantage`` (at most; :func:`advantage_bound`)
        and ``posterior`` (at most, from ``prior``, δ aside: :func:`posterior_bound` with δ = 0; the
        outputs δ allows can tell more, their excess mass is at most δ).

    Examples
    --------
    >>> rows = {r.key: r for r in load_registry()}
    >>> t = translate(rows["microsoft_telemetry"], k=2, prior=0.5)
    >>> t["epsilon"], round(t["posterior"], 4)
    (2.0, 0.8808)
    """
    if not isinstance(row, Deployment):
        raise TypeError(f"row must be a Deployment (load_registry()); got {type(row).__name__}")
    kk = check_int(k, "k", low=1, high=MAX_K)
    m = check_choice(mode, "mode", ("time", "group"))
    p = check_real(prior, "prior", low=0.0, high=1.0, low_open=True, high_open=True)
    if row.epsilon is None:
        return None
    eps = kk * row.epsilon
    if m == "time":
        delta = min(1.0, kk * row.delta)
    else:
        delta = min(1.0, kk * math.exp(min((kk - 1) * row.epsilon, 700.0)) * row.delta) if row.delta > 0 else 0.0
    adv = advantage_bound(eps, min(delta, 1.0 - 1e-16)) if delta < 1 else 1.0
    return {"epsilon": eps, "delta": delta, "advantage": adv, "posterior": posterior_bound(p, eps, 0.0),
            "k": kk, "mode": m, "prior": p}
