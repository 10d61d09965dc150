"""Strict reading and safe writing of :class:`~dpexplore.core.ExperimentResult` files (CSV and JSON dicts).

A file read back is untrusted: :func:`check_result_dict` and :func:`read_result_csv` check every field
(types, ranges, shapes, the grid and series each row names, trial indices, duplicate cells) and raise a
``ValueError``/``TypeError`` naming the field and the row **before** allocating anything sized by the
file's claims (the value array is sized by the number of rows actually present, at most
:data:`MAX_RESULT_VALUES`). :func:`write_result_csv` escapes every text cell a spreadsheet would run
as a formula (:mod:`dpexplore.core.csvsafe`), header lines included.

Examples
--------
>>> check_result_dict({"function": "f"})
Traceback (most recent call last):
...
ValueError: experiment result: missing key 'parameters'
>>> read_result_csv("results.csv")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: source must be a path to an existing file, a file object or CSV text; got 'results.csv' (no such ...
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import stat
from collections.abc import Mapping
from typing import Any

import numpy as np

from .csvsafe import _NUMBER, safe_writer, unescape_cell

__all__ = ["BANDS", "MAX_CSV_BYTES", "MAX_GRID", "MAX_JSON_DEPTH", "MAX_RESULT_VALUES", "MAX_SERIES",
           "check_result_dict", "nesting_depth_ok", "read_result_csv", "write_result_csv"]

#: confidence bands an experiment can report: Student t for the mean (optionally intersected with the
#: known range of the values), Wilson or Clopper–Pearson for a proportion (values 0/1 per trial)
BANDS = ("t", "wilson", "clopper-pearson")
#: most values (series × grid × trials) a result holds, computed or loaded
MAX_RESULT_VALUES = 4_000_000
#: most grid points and series a result (or a loaded file) has
MAX_GRID, MAX_SERIES = 100_000, 256
#: largest CSV text read (bytes or characters)
MAX_CSV_BYTES = 256 * 2**20
#: deepest nesting of a parameter, grid value or extra
MAX_JSON_DEPTH = 32
_MAX_TEXT = 10_000
_KEYS = ("function", "parameters", "seed", "version", "axis", "grid", "series", "band", "confidence",
         "value_range", "extras")
_OPTIONAL = ("value_range", "extras")
_DERIVED = ("values", "mean", "lower", "upper")
_TRIAL = re.compile(r"\d{1,12}")


def nesting_depth_ok(obj: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``obj`` (parsed JSON) nests at most ``limit`` lists/dicts deep (iterative: no recursion).

    Examples
    --------
    >>> nesting_depth_ok([[1]], 2), nesting_depth_ok([[[1]]], 2)
    (True, False)
    """
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth > limit:
                return False
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return True


def _num(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _plain_ok(value: Any) -> bool:
    """A JSON-able plain value (what ``_plain`` makes): numbers, strings, booleans, None, lists and str-keyed dicts."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                return False
            stack.extend(v.values())
        elif not (v is None or isinstance(v, (str, bool)) or _num(v)):
            return False
    return True


def _check_text(value: Any, field: str, where: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"experiment result: {field} must be a string{where}; got {type(value).__name__}")
    if len(value) > _MAX_TEXT:
        raise ValueError(f"experiment result: {field} must be at most {_MAX_TEXT} characters{where}; got {len(value)}")
    return value


def _check_meta(data: Mapping[str, Any], where) -> dict[str, Any]:
    """Validated metadata (every key but the values); ``where(key)`` locates a key in the source for messages."""
    out: dict[str, Any] = {}
    for key in ("function", "version", "axis"):
        out[key] = _check_text(data[key], key, where(key))
    seed = data["seed"]
    if isinstance(seed, float) or isinstance(seed, np.floating):
        raise ValueError(f"experiment result: seed must be an integer >= 0{where('seed')}; got {seed!r}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"experiment result: seed must be an integer >= 0{where('seed')}; got {seed!r} of type "
                        f"{type(seed).__name__}")
    if not 0 <= int(seed) < 2**256:
        raise ValueError(f"experiment result: seed must be an integer in [0, 2**256){where('seed')}; "
                         f"got {seed!r}"[:300])
    out["seed"] = int(seed)
    params = data["parameters"]
    if not isinstance(params, Mapping) or not _plain_ok(dict(params)):
        raise TypeError(f"experiment result: parameters must be a dict of plain values{where('parameters')}; "
                        f"got {type(params).__name__}")
    if not nesting_depth_ok(dict(params), MAX_JSON_DEPTH):
        raise ValueError(f"experiment result: parameters nest deeper than {MAX_JSON_DEPTH}{where('parameters')}")
    out["parameters"] = dict(params)
    grid = data["grid"]
    if not isinstance(grid, (list, tuple)):
        raise TypeError(f"experiment result: grid must be a list{where('grid')}; got {type(grid).__name__}")
    if not 1 <= len(grid) <= MAX_GRID:
        raise ValueError(f"experiment result: grid must have 1 to {MAX_GRID} values{where('grid')}; got {len(grid)}")
    for i, x in enumerate(grid):
        if not _plain_ok(x) or isinstance(x, dict) or not nesting_depth_ok(x, MAX_JSON_DEPTH):
            raise TypeError(f"experiment result: grid[{i}] must be a number, string or list of them{where('grid')}; "
                            f"got {x!r}"[:300])
        if _num(x) and not math.isfinite(x):
            raise ValueError(f"experiment result: grid[{i}] must be finite{where('grid')}; got {x!r}")
    out["grid"] = list(grid)
    series = data["series"]
    if not isinstance(series, (list, tuple)) or not all(isinstance(s, str) for s in series):
        raise TypeError(f"experiment result: series must be a list of strings{where('series')}; got {series!r}"[:300])
    if not 1 <= len(series) <= MAX_SERIES or len(set(series)) != len(series):
        raise ValueError(f"experiment result: series must be 1 to {MAX_SERIES} distinct names{where('series')}; "
                         f"got {series!r}"[:300])
    for s in series:
        _check_text(s, "series name", where("series"))
    out["series"] = list(series)
    band = data["band"]
    if band not in BANDS:
        raise ValueError(f"experiment result: band must be one of {list(BANDS)}{where('band')}; got {band!r}"[:300])
    out["band"] = band
    conf = data["confidence"]
    if not _num(conf) or not 0 < conf < 1:
        raise ValueError(f"experiment result: confidence must be a number in (0, 1){where('confidence')}; got {conf!r}")
    out["confidence"] = float(conf)
    vr = data.get("value_range")
    if vr is not None and (not isinstance(vr, (list, tuple)) or len(vr) != 2 or not all(_num(v) for v in vr)
                           or math.isnan(vr[0]) or math.isnan(vr[1]) or not vr[0] < vr[1]):
        raise ValueError(f"experiment result: value_range must be null or [low, high] with low < high"
                         f"{where('value_range')}; got {vr!r}"[:300])
    out["value_range"] = None if vr is None else (float(vr[0]), float(vr[1]))
    extras = data.get("extras") or {}
    if not isinstance(extras, Mapping) or not _plain_ok(dict(extras)) or not nesting_depth_ok(dict(extras)):
        raise TypeError(f"experiment result: extras must be a dict of plain values nested at most {MAX_JSON_DEPTH} "
                        f"deep{where('extras')}")
    out["extras"] = dict(extras)
    return out


def _check_values(values: Any, n_series: int, n_grid: int) -> np.ndarray:
    """Every trial's values as an array of shape (series, grid, trials), checked cell by cell (no ragged arrays)."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "fiu" or values.ndim != 3 or values.shape[:2] != (n_series, n_grid) \
                or values.shape[2] < 1 or values.size > MAX_RESULT_VALUES:
            raise ValueError(f"experiment result: values must be a numeric array of shape (series, grid, trials) = "
                             f"({n_series}, {n_grid}, 1 to {MAX_RESULT_VALUES // (n_series * n_grid)}); got "
                             f"{values.shape} of {values.dtype}")
        return values.astype(float)
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"experiment result: values must be a list of lists of lists; got {type(values).__name__}")
    if len(values) != n_series:
        raise ValueError(f"experiment result: values has {len(values)} rows; the result names {n_series} series")
    trials = None
    for s, row in enumerate(values):
        if not isinstance(row, (list, tuple)) or len(row) != n_grid:
            size = len(row) if hasattr(row, "__len__") else "-"
            raise ValueError(f"experiment result: values[{s}] must be a list of {n_grid} grid points (one per grid "
                             f"value); got {type(row).__name__} of length {size}")
        for g, cell in enumerate(row):
            if not isinstance(cell, (list, tuple)):
                raise TypeError(f"experiment result: values[{s}][{g}] must be a list of trial values; got "
                                f"{type(cell).__name__}")
            if trials is None:
                trials = len(cell)
                if not 1 <= trials <= MAX_RESULT_VALUES // (n_series * n_grid):
                    raise ValueError(f"experiment result: values[0][0] must hold 1 to "
                                     f"{MAX_RESULT_VALUES // (n_series * n_grid)} trials (series × grid × trials <= "
                                     f"{MAX_RESULT_VALUES:,}); got {trials}")
            elif len(cell) != trials:
                raise ValueError(f"experiment result: values[{s}][{g}] has {len(cell)} trials but values[0][0] has "
                                 f"{trials} (ragged array)")
            for t, v in enumerate(cell):
                if not _num(v):
                    raise TypeError(f"experiment result: values[{s}][{g}][{t}] must be a number (NaN allowed); got "
                                    f"{v!r}"[:300])
    return np.array(values, dtype=float)


def check_result_dict(data: Any) -> dict[str, Any]:
    """The keyword arguments of ``ExperimentResult.from_values`` from an untrusted dict (``to_dict``'s format).

    Raises ``TypeError``/``ValueError`` naming the first bad field (unknown keys included).
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"experiment result must be a dict (ExperimentResult.to_dict()); got {type(data).__name__}")
    for key in _KEYS + ("values",):
        if key not in data and key not in _OPTIONAL:
            raise ValueError(f"experiment result: missing key {key!r}")
    unknown = [k for k in data if k not in _KEYS + _DERIVED]
    if unknown:
        raise ValueError(f"experiment result: unknown key {str(unknown[0])!r}"[:200])
    out = _check_meta(data, lambda key: "")
    out["values"] = _check_values(data["values"], len(out["series"]), len(out["grid"]))
    return out


def write_result_csv(meta: Mapping[str, Any], rows, path=None) -> str:
    """CSV text of a result: one ``# key: json`` header cell per line, the column row, then ``rows``.

    Every cell goes through :func:`dpexplore.core.csvsafe.escape_cell` (the header cells start with
    ``#`` and are quoted as one cell, so text inside them cannot start a spreadsheet cell).
    """
    buf = io.StringIO()
    w = safe_writer(buf, lineterminator="\n")
    for key, val in meta.items():
        w.writerow([f"# {key}: {json.dumps(val, allow_nan=True)}"])
    w.writerow(["series", meta["axis"], "trial", "value"])
    w.writerows(rows)
    text = buf.getvalue()
    if path is not None:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    return text


def _read_text(source: Any) -> str:
    if isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError("source must be a path, a text file object or CSV text (str); got bytes")
    if hasattr(source, "read"):
        text = source.read(MAX_CSV_BYTES + 1)
        if not isinstance(text, str):
            raise TypeError(f"source file object must be opened in text mode; read() gave {type(text).__name__}")
    elif isinstance(source, str) and ("\n" in source or "\r" in source):
        text = source
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(source, str) and not os.path.isfile(path):
            raise ValueError(f"source must be a path to an existing file, a file object or CSV text; got "
                             f"{source[:80]!r} (no such file, and one line is not a result CSV)")
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_CSV_BYTES:
            raise ValueError(f"source {path!r} must be a regular file of at most {MAX_CSV_BYTES} bytes")
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read(MAX_CSV_BYTES + 1)
    else:
        raise TypeError(f"source must be a path, a file object or CSV text; got {type(source).__name__}")
    if len(text) > MAX_CSV_BYTES:
        raise ValueError(f"source: a result CSV has at most {MAX_CSV_BYTES} characters")
    return text


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook that refuses a repeated key (Python would keep the last one silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key[:40]!r} appears twice in one object")
        out[key] = value
    return out


def _header(lines: list[str]) -> tuple[dict[str, Any], dict[str, int], int]:
    """Header keys and values, the line of each key, and the index of the first body line."""
    meta: dict[str, Any] = {}
    line_of: dict[str, int] = {}
    i = 0
    for i, line in enumerate(lines):  # noqa: B007 - i is the first body line after the loop
        if not line.strip():
            continue
        if line.startswith('"#'):
            try:
                cells = next(csv.reader([line], strict=True))  # an unclosed quote is an error, not a cell
            except (csv.Error, StopIteration) as exc:
                raise ValueError(f"result CSV line {i + 1}: malformed header cell ({exc})") from None
            if len(cells) != 1:
                raise ValueError(f"result CSV line {i + 1}: a header line must be a single cell")
            cell = cells[0]
        elif line.startswith("#"):
            cell = line
        else:
            break
        key, sep, val = cell[1:].strip().partition(": ")
        if not sep or key not in _KEYS:
            raise ValueError(f"result CSV line {i + 1}: header must be '# <key>: <json>' with key one of "
                             f"{list(_KEYS)}; got {cell[:80]!r}")
        if key in meta:
            raise ValueError(f"result CSV line {i + 1}: header key {key!r} repeats line {line_of[key]}")
        try:
            meta[key] = json.loads(val, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"result CSV line {i + 1}: header '# {key}:' is not valid JSON "
                             f"({type(exc).__name__}: {str(exc)[:80]})") from None
        if not nesting_depth_ok(meta[key], MAX_JSON_DEPTH):
            raise ValueError(f"result CSV line {i + 1}: header '# {key}:' nests deeper than {MAX_JSON_DEPTH}")
        line_of[key] = i + 1
    else:
        i = len(lines)
    return meta, line_of, i


def read_result_csv(source: Any) -> dict[str, Any]:
    """The keyword arguments of ``ExperimentResult.from_values`` from what ``to_csv`` wrote (strictly checked).

    ``source`` is a path, a text file object or the CSV text itself (a string with a line break).
    """
    lines = _read_text(source).splitlines()
    meta, line_of, start = _header(lines)
    missing = [k for k in _KEYS if k not in meta and k not in _OPTIONAL]
    if missing:
        raise ValueError(f"not an experiment result CSV: no '# {missing[0]}:' header line")
    out = _check_meta(meta, lambda key: f" (CSV header '# {key}:', line {line_of.get(key, '-')})")
    series, grid, axis = out["series"], out["grid"], out["axis"]
    s_index = {s: i for i, s in enumerate(series)}
    g_index: dict[str, int] = {}
    for i, x in enumerate(grid):
        text = json.dumps(x)
        if text in g_index:
            raise ValueError(f"experiment result: grid[{i}] = {text[:60]} repeats grid[{g_index[text]}] "
                             f"(CSV header '# grid:', line {line_of['grid']})")
        g_index[text] = i
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    cells: list[tuple[int, int, int, float, int]] = []
    try:
        columns = next(reader, None)
        want = ["series", axis, "trial", "value"]
        if columns is None or [unescape_cell(c) for c in columns] != want:
            raise ValueError(f"result CSV line {start + 1}: the first row after the header must be the columns "
                             f"{want}; got {columns!r}"[:300])
        for row in reader:
            line = start + reader.line_num
            r = len(cells) + 1
            if not row:
                continue
            where = f"result CSV data row {r} (line {line})"
            if len(row) != 4:
                raise ValueError(f"{where}: must have 4 cells (series, {axis}, trial, value); got {len(row)}")
            name, x, t, v = (unescape_cell(c) for c in row)
            if name not in s_index:
                raise ValueError(f"{where}: series {name[:60]!r} is not one of the header's series {series}"[:300])
            if x not in g_index:
                raise ValueError(f"{where}: {axis} value {x[:60]!r} is not in the header's grid"[:300])
            if not _TRIAL.fullmatch(t):
                raise ValueError(f"{where}: trial must be a non-negative integer; got {t[:40]!r}")
            if not _NUMBER.fullmatch(v.strip()):
                raise ValueError(f"{where}: value must be a number (nan and inf allowed); got {v[:40]!r}")
            if len(cells) >= MAX_RESULT_VALUES:
                raise ValueError(f"{where}: a result has at most {MAX_RESULT_VALUES:,} values")
            cells.append((s_index[name], g_index[x], int(t), float(v), line))
    except csv.Error as exc:
        raise ValueError(f"result CSV line {start + reader.line_num}: malformed CSV ({exc})") from None
    per_trial = len(series) * len(grid)
    if not cells or len(cells) % per_trial:
        raise ValueError(f"result CSV: {len(cells)} data rows; a complete result has series × grid × trials = "
                         f"{len(series)} × {len(grid)} × trials rows")
    trials = len(cells) // per_trial
    values = np.full(len(cells), np.nan)
    first = np.zeros(len(cells), dtype=np.int64)
    for r, (s, g, t, v, line) in enumerate(cells, start=1):
        if t >= trials:
            raise ValueError(f"result CSV data row {r} (line {line}): trial {t} is out of range: the file holds "
                             f"{trials} trials per series and grid value (0 to {trials - 1})")
        j = (s * len(grid) + g) * trials + t
        if first[j]:
            raise ValueError(f"result CSV data row {r} (line {line}): series {series[s]!r}, {axis} = {grid[g]!r}, "
                             f"trial {t} repeats line {first[j]} (duplicate cell)"[:300])
        first[j] = line
        values[j] = v
    out["values"] = values.reshape(len(series), len(grid), trials)
    return out
