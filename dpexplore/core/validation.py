"""Input validation shared by every mechanism.

Every check returns the validated (and normalised) value or raises:

* ``TypeError`` when the *kind* of value is wrong (a string where a number is needed),
* ``ValueError`` when the value has the right kind but lies outside the valid range.

Messages always name the parameter, the valid range and the value that was given, e.g.
``epsilon must be a finite number > 0; got -1.0``. Tests match these messages, and the
dashboards show them verbatim in the page.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_probability",
    "check_positive",
    "check_int",
    "check_choice",
    "check_bool",
    "check_probability_vector",
    "check_stochastic_matrix",
    "check_adjacency",
    "check_matrix",
    "check_vector",
    "check_array",
    "check_n_jobs",
    "check_cells",
    "MAX_COUNT",
    "MAX_N_JOBS",
]

#: Largest count the generic helpers accept (``spawn``, ``sweep(trials=...)``, ...): a million
#: independent generators / runs is far beyond any dashboard, notebook or benchmark here, and
#: each costs memory, so anything larger is a typo or an attack.
MAX_COUNT = 1_000_000
#: Largest ``n_jobs`` of :func:`check_n_jobs` (worker processes).
MAX_N_JOBS = 1024


def _fmt(value: Any) -> str:
    """Short, readable rendering of a bad value for an error message."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _range_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    def num(x: float) -> str:  # integers in full (a cap of 10**8 reads "100000000", not "1e+08")
        return str(x) if isinstance(x, (int, np.integer)) and not isinstance(x, bool) else f"{x:g}"

    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {num(low)}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {num(high)}")
    return " and ".join(parts)


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Validate a real number and return it as ``float``.

    Parameters
    ----------
    value : Any
        The value to check. Booleans are rejected (``True`` is not a number here).
    name : str
        Parameter name used in the error message.
    low, high : float, optional
        Bounds of the valid range (inclusive unless ``low_open`` / ``high_open``).
    allow_inf : bool
        Accept ``+inf`` / ``-inf`` (they must still satisfy the bounds). NaN is never accepted.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN, infinite (unless allowed) or outside the range.

    Examples
    --------
    >>> check_real(0.5, "rho", low=0, low_open=True)
    0.5
    >>> check_real(-1, "rho", low=0, low_open=True)
    Traceback (most recent call last):
    ...
    ValueError: rho must be a finite number > 0; got -1
    """
    def expect() -> str:  # the message's range, built only for an error (this check runs in every inner loop)
        kind = "a number" if allow_inf else "a finite number"
        return f"{kind} {_range_text(low, high, low_open, high_open)}".strip()

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be {expect()}; got {_fmt(value)} of type {type(value).__name__}")
    try:
        x = float(value)
    except OverflowError:  # a Python int beyond float64 (10**400): out of every range, not an OverflowError
        raise ValueError(f"{name} must be {expect()}; got {_fmt(value)}") from None
    bad = math.isnan(x) or (math.isinf(x) and not allow_inf)
    if low is not None and (x < low or (low_open and x == low)):
        bad = True
    if high is not None and (x > high or (high_open and x == high)):
        bad = True
    if bad:
        raise ValueError(f"{name} must be {expect()}; got {_fmt(value)}")
    return x


def check_epsilon(epsilon: Any, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """Validate a privacy parameter ε: a finite number > 0.

    Examples
    --------
    >>> check_epsilon(1)
    1.0
    >>> check_epsilon(-1.0)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a finite number > 0; got -1.0
    """
    return check_real(epsilon, name, low=0.0, low_open=True, allow_inf=allow_inf)


def check_delta(delta: Any, name: str = "delta", *, allow_zero: bool = False) -> float:
    """Validate a privacy parameter δ: a number in (0, 1) (or [0, 1) with ``allow_zero``).

    Examples
    --------
    >>> check_delta(1e-5)
    1e-05
    >>> check_delta(1.5)
    Traceback (most recent call last):
    ...
    ValueError: delta must be a finite number > 0 and < 1; got 1.5
    """
    return check_real(delta, name, low=0.0, high=1.0, low_open=not allow_zero, high_open=True)


def check_probability(p: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    """Validate a probability in [0, 1] (ends optionally open).

    Examples
    --------
    >>> check_probability(0.3, "p")
    0.3
    """
    return check_real(p, name, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Validate a finite number > 0 (or >= 0 with ``allow_zero``).

    Examples
    --------
    >>> check_positive(2, "sensitivity")
    2.0
    """
    return check_real(value, name, low=0.0, low_open=not allow_zero)


_INT64_MAX = 2**63 - 1


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Validate an integer in ``[low, high]`` and return it as ``int``.

    Floats are accepted only when they are whole numbers (``1000.0``), since sliders and
    URL parameters often deliver those. Booleans, strings and other types are refused with a
    ``TypeError``. Without ``high``, |value| must still fit a 64-bit integer (2**63 − 1), so a
    huge Python int never reaches NumPy or ``float()`` as an ``OverflowError``.

    Examples
    --------
    >>> check_int(3, "k", low=1)
    3
    >>> check_int(0, "k", low=1)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1; got 0
    """
    def expect() -> str:  # built only for an error
        return f"an integer {_range_text(low, high, False, False)}".strip()

    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {expect()}; got {_fmt(value)} of type {type(value).__name__}")
    if isinstance(value, (numbers.Integral, np.integer)):
        x = int(value)
    elif isinstance(value, (numbers.Real, np.floating)) and math.isfinite(float(value)) and float(value).is_integer():
        x = int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        raise ValueError(f"{name} must be {expect()}; got {_fmt(value)}")
    else:
        raise TypeError(f"{name} must be {expect()}; got {_fmt(value)} of type {type(value).__name__}")
    if (low is not None and x < low) or (high is not None and x > high):
        raise ValueError(f"{name} must be {expect()}; got {_fmt(value)}")
    if abs(x) > _INT64_MAX:
        raise ValueError(f"{name} must be {expect()} (and fit a 64-bit integer, |{name}| <= 2**63 - 1); "
                         f"got {_fmt(value)}")
    return x


def check_choice(value: Any, name: str, choices: tuple[str, ...] | list[str]) -> str:
    """Validate that ``value`` is one of ``choices`` (strings).

    Examples
    --------
    >>> check_choice("sum", "symmetrize", ("sum", "max"))
    'sum'
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(choices)}; got {_fmt(value)} of type {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}; got {_fmt(value)}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """Validate a boolean flag."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {_fmt(value)} of type {type(value).__name__}")
    return bool(value)


def _as_float_array(
    value: Any, name: str, ndim: int | None, *, allow_bool: bool = False, kind: str | None = None
) -> np.ndarray:
    """The one path every array parameter goes through: real numbers only, as float64.

    Refused with ``TypeError``: strings, ``None``, ragged lists, object arrays, complex values
    (``astype(float)`` would silently drop the imaginary part), and booleans unless
    ``allow_bool`` (a 0/1 mask is not a number).
    """
    kind = kind or {1: "a 1-d array of numbers", 2: "a 2-d array of numbers"}.get(ndim, "an array of numbers")
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be {kind}; got {_fmt(value)} of type {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"{name} must be {kind}; got {_fmt(value)} ({exc})") from None
    if arr.dtype == bool and not allow_bool:
        raise TypeError(f"{name} must be {kind}; got booleans (dtype bool)")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be {kind}; got {_fmt(value)} with dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be {kind} (real); got complex values (dtype {arr.dtype})")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {kind}; got an array with {arr.ndim} dimension(s), shape {arr.shape}")
    return arr.astype(float)


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    min_size: int = 0,
    max_size: int | None = None,
    finite: bool = True,
    allow_bool: bool = False,
    kind: str | None = None,
) -> np.ndarray:
    """Validate an array of real numbers of any (or the given) dimension; return it as float64.

    ``kind`` replaces "an array of numbers" in the messages (e.g. "an array of 0/1 values").

    Complex, object, string and (unless ``allow_bool``) boolean input is refused with a
    ``TypeError`` naming the parameter; NaN/±inf (when ``finite``), too few or too many entries
    with a ``ValueError``.

    Examples
    --------
    >>> check_array(0.5, "alpha")
    array(0.5)
    >>> check_array([1 + 1j], "alpha")
    Traceback (most recent call last):
    ...
    TypeError: alpha must be an array of numbers (real); got complex values (dtype complex128)
    """
    arr = _as_float_array(value, name, None, allow_bool=allow_bool, kind=kind)
    if ndim is not None:
        dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in dims:
            raise ValueError(f"{name} must have {' or '.join(map(str, dims))} dimension(s); got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} entries; got {arr.size}")
    if max_size is not None and arr.size > max_size:
        raise ValueError(f"{name} must have at most {max_size:,} entries; got {arr.size:,}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers; got {int(np.sum(~np.isfinite(arr)))} non-finite")
    return arr


def check_n_jobs(value: Any, name: str = "n_jobs") -> int | None:
    """Validate a joblib-style worker count: ``None``, or an integer in [1, MAX_N_JOBS], or −1 (all cores).

    Examples
    --------
    >>> check_n_jobs(None) is None, check_n_jobs(2)
    (True, 2)
    """
    if value is None:
        return None
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)) and value == -1:
        return -1
    return check_int(value, name, low=1, high=MAX_N_JOBS)


def check_cells(max_cells: int, **sizes: int) -> None:
    """Refuse a product of sizes (an allocation of ``prod(sizes)`` numbers) above ``max_cells``.

    Examples
    --------
    >>> check_cells(100, n=10, d=10)
    >>> check_cells(100, n=10, d=11)
    Traceback (most recent call last):
    ...
    ValueError: n*d must be <= 100 (memory); got n = 10, d = 11
    """
    total = math.prod(sizes.values())
    if total > max_cells:
        names = "*".join(sizes)
        got = ", ".join(f"{k} = {v}" for k, v in sizes.items())
        raise ValueError(f"{names} must be <= {max_cells:,} (memory); got {got}")


def check_vector(
    value: Any, name: str, *, min_size: int = 1, finite: bool = True, allow_bool: bool = False
) -> np.ndarray:
    """Validate a 1-d array of real numbers and return it as a float array.

    Examples
    --------
    >>> check_vector([1, 2], "scores")
    array([1., 2.])
    """
    arr = _as_float_array(value, name, 1, allow_bool=allow_bool)
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} entries; got {arr.size}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers; got {int(np.sum(~np.isfinite(arr)))} non-finite")
    return arr


def check_matrix(
    value: Any, name: str, *, square: bool = False, min_rows: int = 1, min_cols: int = 1, allow_bool: bool = False
) -> np.ndarray:
    """Validate a dense 2-d array of finite real numbers and return it as a float array.

    Examples
    --------
    >>> check_matrix([[1, 0], [0, 1]], "A", square=True).shape
    (2, 2)
    """
    arr = _as_float_array(value, name, 2, allow_bool=allow_bool)
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_rows} row(s) and {min_cols} column(s); got shape {arr.shape}")
    if square and arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers; got {int(np.sum(~np.isfinite(arr)))} non-finite")
    return arr


def check_probability_vector(
    value: Any, name: str, *, full_support: bool = False, atol: float = 1e-9
) -> np.ndarray:
    """Validate a probability vector (non-negative, sums to 1) and return it as floats.

    Parameters
    ----------
    full_support : bool
        Require every entry to be strictly positive.

    Examples
    --------
    >>> check_probability_vector([0.25, 0.75], "W0")
    array([0.25, 0.75])
    >>> check_probability_vector([0.0, 1.0], "W0", full_support=True)
    Traceback (most recent call last):
    ...
    ValueError: W0 must have full support (every entry > 0); got a zero at index 0
    """
    arr = check_vector(value, name)
    if np.any(arr < 0):
        i = int(np.argmin(arr))
        raise ValueError(f"{name} must be a probability vector (entries >= 0, sum 1); got {arr[i]:g} at index {i}")
    s = float(arr.sum())
    if abs(s - 1.0) > atol * max(1, arr.size):
        raise ValueError(f"{name} must be a probability vector (entries >= 0, sum 1); got sum {s:.10g}")
    if full_support and np.any(arr <= 0):
        raise ValueError(
            f"{name} must have full support (every entry > 0); got a zero at index {int(np.argmin(arr))}"
        )
    return arr


def check_stochastic_matrix(value: Any, name: str = "P", *, atol: float = 1e-8) -> np.ndarray:
    """Validate a row-stochastic matrix: square, finite, non-negative, each row sums to 1.

    Examples
    --------
    >>> check_stochastic_matrix([[0.5, 0.5], [0.1, 0.9]]).shape
    (2, 2)
    >>> check_stochastic_matrix([[0.5, 0.6], [0.1, 0.9]])
    Traceback (most recent call last):
    ...
    ValueError: P must be row-stochastic (entries >= 0, each row sums to 1); row 0 sums to 1.1
    """
    arr = check_matrix(value, name, square=True)
    if np.any(arr < 0):
        i, j = np.unravel_index(int(np.argmin(arr)), arr.shape)
        raise ValueError(
            f"{name} must be row-stochastic (entries >= 0, each row sums to 1); got {arr[i, j]:g} at ({i}, {j})"
        )
    sums = arr.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol * arr.shape[1])
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} must be row-stochastic (entries >= 0, each row sums to 1); row {i} sums to {sums[i]:.10g}"
        )
    return arr


def check_adjacency(value: Any, name: str = "A", *, min_nodes: int = 2, max_nodes: int | None = None):
    """Validate an undirected simple graph's adjacency matrix and return it as CSR (float).

    Accepts a dense array or any ``scipy.sparse`` matrix/array. Requirements: square, entries
    in {0, 1}, symmetric, zero diagonal, at least ``min_nodes`` (and at most ``max_nodes``) vertices.
    The vertex cap is checked on the shape, before any conversion.

    Returns
    -------
    scipy.sparse.csr_array

    Examples
    --------
    >>> check_adjacency([[0, 1], [1, 0]]).nnz
    2
    >>> check_adjacency([[0, 1], [0, 0]])
    Traceback (most recent call last):
    ...
    ValueError: A must be symmetric (an undirected graph); got 1 asymmetric pair(s), e.g. (0, 1)
    """
    import scipy.sparse as sp

    if max_nodes is not None and not isinstance(value, (str, bytes)):
        shape = value.shape if sp.issparse(value) or isinstance(value, np.ndarray) else np.shape(value)
        if len(shape) >= 1 and max(shape) > max_nodes:
            raise ValueError(f"{name} must have at most {max_nodes:,} vertices (this mechanism forms a dense "
                             f"n×n matrix); got shape {tuple(shape)}")
    if sp.issparse(value):
        if value.dtype == object or not (np.issubdtype(value.dtype, np.number) or value.dtype == bool):
            raise TypeError(f"{name} must be a 0/1 adjacency matrix of numbers; got sparse dtype {value.dtype}")
        if np.iscomplexobj(value):  # csr_array(..., dtype=float) would drop the imaginary part
            raise TypeError(f"{name} must be a real 0/1 adjacency matrix; got complex values (dtype {value.dtype})")
        mat = sp.csr_array(value, dtype=float)
        if mat.ndim != 2:
            raise ValueError(f"{name} must be a 2-d adjacency matrix; got shape {mat.shape}")
    else:
        mat = sp.csr_array(check_matrix(value, name, allow_bool=True))
    n, m = mat.shape
    if n != m:
        raise ValueError(f"{name} must be a square adjacency matrix; got shape {mat.shape}")
    if n < min_nodes:
        raise ValueError(f"{name} must have at least {min_nodes} vertices; got {n}")
    mat.eliminate_zeros()
    if not np.all(np.isfinite(mat.data)):
        raise ValueError(f"{name} must contain only finite numbers")
    if np.any(mat.data != 1.0):
        bad = mat.data[mat.data != 1.0][0]
        raise ValueError(f"{name} must be a 0/1 adjacency matrix; got an entry {bad:g}")
    if mat.diagonal().any():
        i = int(np.flatnonzero(mat.diagonal())[0])
        raise ValueError(f"{name} must have a zero diagonal (no self-loops); got a 1 at ({i}, {i})")
    diff = (mat - mat.T).tocoo()
    diff.eliminate_zeros()
    if diff.nnz:
        i, j = sorted((int(diff.row[0]), int(diff.col[0])))
        raise ValueError(
            f"{name} must be symmetric (an undirected graph); got {diff.nnz // 2} asymmetric pair(s), e.g. ({i}, {j})"
        )
    mat.sort_indices()
    return mat
