"""The shipped diabetes table and the CSV upload's validation (a malformed corpus of 26 files)."""

import subprocess
import sys

import numpy as np
import pytest

from dpexplore.statistics.data import (
    COLUMNS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_COLUMNS,
    MAX_UPLOAD_ROWS,
    PUBLIC_BOUNDS,
    load_diabetes,
    parse_csv,
)


def test_diabetes_shape_and_bounds():
    t = load_diabetes()
    assert t.n == 442 and t.columns == COLUMNS
    for name in COLUMNS:
        v = t.column(name)
        _, lo, hi = PUBLIC_BOUNDS[name]
        assert v.shape == (442,) and lo <= v.min() and v.max() <= hi
    assert sorted(np.unique(t.column("sex")).tolist()) == [1.0, 2.0]
    assert 48 < t.column("age").mean() < 49  # Efron et al. (2004): mean age 48.5
    with pytest.raises(ValueError, match="column must be one of"):
        t.column("weight")


def test_loading_does_not_import_sklearn():
    code = ("import sys; from dpexplore.statistics.data import load_diabetes; load_diabetes(); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_good_upload():
    t = parse_csv("\ufeffheight, weight\n1.5,60\n1.8, 80\n\n2.0,1e2\n")
    assert t.columns == ("height", "weight") and t.n == 3 and t.bounds_from_data
    assert t.column("weight").tolist() == [60.0, 80.0, 100.0]


BAD = [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"a,b\n1,2\n", "at least 2 data rows"),
    (b"a,b\n", "at least 2 data rows"),
    (b"a,b\n1,2\n3\n", "row 3 has 1 cells"),
    (b"a,b\n1,2\n3,4,5\n", "row 3 has 3 cells"),
    (b"a,b\n1,2\n3,x\n", "row 3, column 'b': 'x' is not a finite number"),
    (b"a,b\n1,2\n3,\n", "row 3, column 'b': empty"),
    (b"a,b\n1,2\n3,nan\n", "'nan' is not a finite number"),
    (b"a,b\n1,2\n3,inf\n", "'inf' is not a finite number"),
    (b"a,b\n1,2\n3,-Infinity\n", "is not a finite number"),
    (b"a,a\n1,2\n3,4\n", "'a' appears twice"),
    (b"a,\n1,2\n3,4\n", "column 2 of the header has no name"),
    (b"1,2\n3,4\n5,6\n", "header of column names"),
    (b"a,b\n1,2\n3,4\xff\n", "UTF-8"),
    (b"a\x00b\n1\n2\n", "binary"),
    (b"a,b\n1,2\n\"3,4\n", "row 3 has 1 cells"),
    (("x" * 61 + "\n1\n2\n").encode(), "longer than 60"),
    ((",".join(f"c{i}" for i in range(MAX_UPLOAD_COLUMNS + 1)) + "\n").encode(), "1 to 50 columns"),
    (b"a\n" + b"1\n" * (MAX_UPLOAD_ROWS + 1), "at most 50,000 data rows"),
    (b"a\n" + b"1" * (MAX_UPLOAD_BYTES + 1), "at most 2,000,000 bytes"),
    (b"a;b\n1;2\n3;x\n", "comma-separated; its header is separated by semicolons"),
    (b"a\tb\n1\t2\n3\t4\n", "separated by tabs"),
    (b"a,b\n1,2\n3,4 5\n", "'4 5' is not a finite number"),
    (b"a,b\n1,2\n3,1,5\n", "row 3 has 3 cells"),
    (b"a,b\n1,2\n3,0x10\n", "'0x10' is not a finite number"),
    (b"name,age\nann,31\nbob,40\n", "row 2, column 'name': 'ann' is not a finite number"),
]


@pytest.mark.parametrize("content,match", BAD, ids=[f"case{i}" for i in range(len(BAD))])
def test_malformed_corpus(content, match):
    with pytest.raises(ValueError, match=match.replace("(", r"\(")) as err:
        parse_csv(content, name="mine.csv")
    assert str(err.value).startswith("mine.csv: ")


def test_corpus_size_and_type_errors():
    assert len(BAD) >= 20
    with pytest.raises(TypeError, match="content must be bytes or str"):
        parse_csv(12)
