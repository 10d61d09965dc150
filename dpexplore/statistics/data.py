"""The data of the private-statistics page: a real public table shipped by scikit-learn, and "bring your
own CSV" with validated limits.

**The diabetes data** (Efron, Hastie, Johnstone & Tibshirani 2004, *Least angle regression*, Annals of
Statistics 32(2)): 442 patients, ten baseline variables (age, sex, body-mass index, mean blood pressure,
six blood-serum measurements) and a measure of disease progression one year later. scikit-learn ships the
raw (unscaled) table as ``sklearn/datasets/data/diabetes_data_raw.csv.gz`` and the target as
``diabetes_target.csv.gz``, under scikit-learn's BSD-3-Clause license. We read the two files from the
installed package's folder (found with :func:`importlib.util.find_spec`, *without* importing scikit-learn)
and check their shape and value ranges before trusting them. Nothing is downloaded.

The public bounds below are what an analyst could state **without looking at the data** (plausible
ranges for an adult clinic's patients), as a DP release requires; they are not the data's min and max.

Examples
--------
>>> t = load_diabetes()
>>> t.n, t.columns[:3]
(442, ('age', 'sex', 'bmi'))
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import io
import math
import os
from dataclasses import dataclass

import numpy as np

__all__ = [
    "COLUMNS",
    "DATASET_CITATION",
    "DATASET_LICENSE",
    "MAX_UPLOAD_BYTES",
    "MAX_UPLOAD_COLUMNS",
    "MAX_UPLOAD_ROWS",
    "PUBLIC_BOUNDS",
    "Table",
    "load_diabetes",
    "parse_csv",
]

#: the columns of the raw diabetes table, in file order, and the target
COLUMNS = ("age", "sex", "bmi", "bp", "tc", "ldl", "hdl", "tch", "ltg", "glu", "progression")
#: column → (label with unit, public lower bound, public upper bound): stated without looking at the data
PUBLIC_BOUNDS = {
    "age": ("age (years)", 18.0, 90.0),
    "sex": ("sex (coded 1 or 2)", 1.0, 2.0),
    "bmi": ("body-mass index (kg/m²)", 15.0, 50.0),
    "bp": ("mean blood pressure (mm Hg)", 50.0, 150.0),
    "tc": ("total serum cholesterol (mg/dL)", 90.0, 320.0),
    "ldl": ("low-density lipoproteins (mg/dL)", 30.0, 250.0),
    "hdl": ("high-density lipoproteins (mg/dL)", 15.0, 100.0),
    "tch": ("total cholesterol / HDL", 1.0, 10.0),
    "ltg": ("log of serum triglycerides", 3.0, 7.0),
    "glu": ("blood sugar (mg/dL)", 55.0, 130.0),
    "progression": ("disease progression after one year", 0.0, 400.0),
}
DATASET_CITATION = ("Efron, Hastie, Johnstone & Tibshirani (2004), Least Angle Regression, Annals of Statistics "
                    "32(2): the diabetes study's 442 patients, as shipped by scikit-learn")
DATASET_LICENSE = "BSD-3-Clause (scikit-learn's license, which covers the copy it ships)"

#: the largest CSV upload (bytes), rows and columns
MAX_UPLOAD_BYTES = 2_000_000
MAX_UPLOAD_ROWS = 50_000
MAX_UPLOAD_COLUMNS = 50
#: the longest column name
MAX_NAME = 60


@dataclass(frozen=True)
class Table:
    """A table of numeric columns.

    Attributes
    ----------
    columns : tuple of str
    values : dict
        name → read-only float array, shape (n,).
    n : int
    source : str
    bounds : dict
        name → (label, public lower, public upper). For an upload: the bounds the user states (default:
        a guess from the data, flagged as **not** public in ``bounds_from_data``).
    bounds_from_data : bool
    """

    columns: tuple
    values: dict
    n: int
    source: str
    bounds: dict
    bounds_from_data: bool = False

    def column(self, name: str) -> np.ndarray:
        """The values of one column (ValueError naming the valid columns)."""
        if name not in self.values:
            raise ValueError(f"column must be one of {list(self.columns)}; got {name!r}")
        return self.values[name]


_CACHE: dict = {}


def _sklearn_data_dir() -> str:
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the diabetes data ships with scikit-learn, which is not installed: "
                           "pip install 'dpexplore[dashboard]' (or scikit-learn)")
    return os.path.join(list(spec.submodule_search_locations)[0], "datasets", "data")


def load_diabetes() -> Table:
    """The 442 patients of the diabetes study (see the module docstring), read from scikit-learn's folder.

    Raises
    ------
    RuntimeError
        scikit-learn is not installed, or its files do not have the expected shape (442 × 10 and 442)
        or values outside the public bounds.
    """
    if "diabetes" in _CACHE:
        return _CACHE["diabetes"]
    folder = _sklearn_data_dir()
    try:
        with gzip.open(os.path.join(folder, "diabetes_data_raw.csv.gz"), "rt") as f:
            x = np.loadtxt(f)
        with gzip.open(os.path.join(folder, "diabetes_target.csv.gz"), "rt") as f:
            y = np.loadtxt(f)
    except OSError as exc:
        raise RuntimeError(f"cannot read scikit-learn's diabetes files in {folder}: {exc}") from None
    if x.shape != (442, 10) or y.shape != (442,):
        raise RuntimeError(f"scikit-learn's diabetes files have shape {x.shape} and {y.shape}; expected (442, 10) "
                           "and (442,)")
    data = np.column_stack([x, y])
    values = {}
    for j, name in enumerate(COLUMNS):
        col = data[:, j].copy()
        _, lo, hi = PUBLIC_BOUNDS[name]
        if not (np.all(np.isfinite(col)) and col.min() >= lo and col.max() <= hi):
            raise RuntimeError(f"column {name} of scikit-learn's diabetes file lies outside its expected range "
                               f"[{lo:g}, {hi:g}]: the file is not what this page expects")
        col.setflags(write=False)
        values[name] = col
    t = Table(COLUMNS, values, 442, DATASET_CITATION, dict(PUBLIC_BOUNDS))
    _CACHE["diabetes"] = t
    return t


def _number(cell: str) -> float:
    try:
        v = float(cell)
    except ValueError:
        return math.nan
    return v


def parse_csv(content, *, name: str = "upload.csv") -> Table:
    """Validate and read an uploaded CSV of numeric columns.

    Rules (each broken rule is a ValueError saying which, and where): at most :data:`MAX_UPLOAD_BYTES`
    bytes, UTF-8 text, a header row of 1 to :data:`MAX_UPLOAD_COLUMNS` distinct non-empty names (≤ 60
    characters), 2 to :data:`MAX_UPLOAD_ROWS` data rows, every row with as many cells as the header, and
    every cell a finite number (empty cells: the row is refused, not guessed). At least one column.

    The table's ``bounds`` are the data's own min and max, flagged ``bounds_from_data=True``: they are
    **not** public, so the page asks the user to state bounds before a release counts as private.

    Examples
    --------
    >>> t = parse_csv(b"a,b\\n1,2\\n3,4\\n")
    >>> t.columns, t.n, t.column("b").tolist()
    (('a', 'b'), 2, [2.0, 4.0])
    >>> parse_csv(b"a\\n1\\nx\\n")
    Traceback (most recent call last):
    ...
    ValueError: upload.csv: row 3, column 'a': 'x' is not a finite number
    """
    if isinstance(content, str):
        content = content.encode("utf-8")
    if not isinstance(content, (bytes, bytearray, memoryview)):
        raise TypeError(f"content must be bytes or str; got {type(content).__name__}")
    raw = bytes(content)
    if len(raw) > MAX_UPLOAD_BYTES:
        raise ValueError(f"{name}: the file must be at most {MAX_UPLOAD_BYTES:,} bytes; got {len(raw):,}")
    if not raw.strip():
        raise ValueError(f"{name}: the file is empty")
    if b"\x00" in raw:
        raise ValueError(f"{name}: the file is binary (it contains NUL bytes), not a CSV text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: the file must be UTF-8 text; byte {exc.start} is not") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise ValueError(f"{name}: not a valid CSV ({exc})") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]  # blank lines
    header = [h.strip() for h in rows[0]]
    for sep, word in ((";", "semicolons"), ("\t", "tabs")):
        if len(header) == 1 and sep in header[0]:
            raise ValueError(f"{name}: the file must be comma-separated; its header is separated by {word}")
    if not 1 <= len(header) <= MAX_UPLOAD_COLUMNS:
        raise ValueError(f"{name}: the header must have 1 to {MAX_UPLOAD_COLUMNS} columns; got {len(header)}")
    for j, h in enumerate(header):
        if not h:
            raise ValueError(f"{name}: column {j + 1} of the header has no name")
        if len(h) > MAX_NAME:
            raise ValueError(f"{name}: column name {h[:20]!r}… is longer than {MAX_NAME} characters")
        if not math.isnan(_number(h)):  # a number where a name should be: no header row
            raise ValueError(f"{name}: the first row must be a header of column names; got the number {h!r}")
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise ValueError(f"{name}: column names must be distinct; {dup!r} appears twice")
    body = rows[1:]
    if len(body) < 2:
        raise ValueError(f"{name}: the file must have at least 2 data rows; got {len(body)}")
    if len(body) > MAX_UPLOAD_ROWS:
        raise ValueError(f"{name}: the file must have at most {MAX_UPLOAD_ROWS:,} data rows; got {len(body):,}")
    data = np.empty((len(body), len(header)))
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise ValueError(f"{name}: row {i + 2} has {len(r)} cells; the header has {len(header)}")
        for j, cell in enumerate(r):
            v = _number(cell.strip())
            if not math.isfinite(v):
                shown = cell.strip()[:20]
                what = "empty" if not shown else f"{shown!r} is not a finite number"
                raise ValueError(f"{name}: row {i + 2}, column {header[j]!r}: {what}")
            data[i, j] = v
    values, bounds = {}, {}
    for j, h in enumerate(header):
        col = data[:, j].copy()
        col.setflags(write=False)
        values[h] = col
        lo, hi = float(col.min()), float(col.max())
        if hi <= lo:
            hi = lo + 1.0
        bounds[h] = (h, lo, hi)
    return Table(tuple(header), values, len(body), f"your upload {name}", bounds, bounds_from_data=True)
