"""ExperimentResult.from_csv / from_dict on a malformed corpus: each a clear error naming the field and row.

Every case starts from a valid file and breaks one thing; the error must be a ValueError or TypeError
(never KeyError, IndexError, MemoryError, RecursionError or a silent overwrite) whose message names
what is wrong and where, raised before anything sized by the file's claims is allocated. Also:
formula injection (issue 31 item 8): no cell of a written CSV starts a spreadsheet formula.
"""

import csv
import io
import json
import tracemalloc

import numpy as np
import pytest

from dpexplore.core import ExperimentResult
from dpexplore.core.csvsafe import FORMULA_STARTS, escape_cell, unescape_cell


def result(**kw):
    args = dict(function="tests.f", parameters={"n": 3, "name": "x"}, seed=5, axis="epsilon", grid=[0.5, 1],
                series=["a", "b"], values=[[[0.1, 0.2], [0.3, 0.4]], [[-0.5, 0.6], [0.7, float("nan")]]],
                version="0", extras={"k": 1})
    args.update(kw)
    return ExperimentResult.from_values(**args)


GOOD = result().to_csv()
LINES = GOOD.splitlines()
HEADER = {line.split(":")[0].strip('"# '): i for i, line in enumerate(LINES) if line.lstrip('"').startswith("#")}
FIRST_ROW = len(HEADER) + 1  # index of the first data row (after the column row)


def replace_line(index, text):
    lines = list(LINES)
    lines[index] = text
    return "\n".join(lines) + "\n"


def header(key, json_text):
    return replace_line(HEADER[key], next(iter([_cell(f"# {key}: {json_text}")])))


def _cell(text):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue()


def data_row(k, cells):
    return replace_line(FIRST_ROW + k, ",".join(cells))


CSV_CORPUS = [
    # (id, text, exception, regex the message must match)
    ("no header", "a,b\n1,2\n", ValueError, r"no '# function:' header line"),
    ("one-line string", "results.csv", ValueError, r"neither|existing file.*one line is not a result CSV"),
    ("broken header JSON", header("parameters", '{"n": 3,'), ValueError,
     r"line 2: header '# parameters:' is not valid JSON"),
    ("unknown header key", replace_line(0, "# colour: 1"), ValueError, r"line 1: header must be .* got '# colour: 1'"),
    ("repeated header key", replace_line(HEADER["band"], LINES[HEADER["seed"]]), ValueError,
     r"header key 'seed' repeats line"),
    ("NaN seed", header("seed", "NaN"), ValueError, r"seed must be an integer >= 0 \(CSV header '# seed:', line 3\)"),
    ("infinite seed", header("seed", "1e999"), ValueError, r"seed must be an integer >= 0 .*got inf"),
    ("fractional seed", header("seed", "1.5"), ValueError, r"seed must be an integer >= 0 .*got 1.5"),
    ("negative seed", header("seed", "-3"), ValueError, r"seed must be an integer in \[0, 2\*\*256\)"),
    ("string seed", header("seed", '"3"'), TypeError, r"seed must be an integer .*of type str"),
    ("boolean seed", header("seed", "true"), TypeError, r"seed must be an integer"),
    ("deep parameters", header("parameters", '{"a": ' + "[" * 100 + "]" * 100 + "}"), ValueError,
     r"'# parameters:' nests deeper than 32"),
    ("very deep parameters", header("parameters", "[" * 200_000 + "]" * 200_000), ValueError,
     r"'# parameters:' is not valid JSON \(RecursionError"),
    ("grid not a list", header("grid", '"0.5"'), TypeError, r"grid must be a list \(CSV header '# grid:'"),
    ("duplicate grid", header("grid", "[0.5, 0.5]"), ValueError, r"grid\[1\] = 0.5 repeats grid\[0\]"),
    ("NaN grid", header("grid", "[0.5, NaN]"), ValueError, r"grid\[1\] must be finite"),
    ("series not strings", header("series", "[1, 2]"), TypeError, r"series must be a list of strings"),
    ("duplicate series", header("series", '["a", "a"]'), ValueError, r"series must be 1 to 256 distinct names"),
    ("bad band", header("band", '"bootstrap"'), ValueError, r"band must be one of .*'# band:'"),
    ("bad confidence", header("confidence", "1.5"), ValueError, r"confidence must be a number in \(0, 1\)"),
    ("bad value_range", header("value_range", "[1, 0]"), ValueError, r"value_range must be null or \[low, high\]"),
    ("wrong columns", replace_line(FIRST_ROW - 1, "series,x,trial,value"), ValueError,
     r"line 12: the first row after the header must be the columns \['series', 'epsilon', 'trial', 'value'\]"),
    ("short row", data_row(1, ["a", "0.5", "1"]), ValueError, r"data row 2 \(line 14\): must have 4 cells"),
    ("unknown series", data_row(0, ["zzz", "0.5", "0", "0.1"]), ValueError,
     r"data row 1 \(line 13\): series 'zzz' is not one of the header's series"),
    ("unknown grid value", data_row(0, ["a", "0.75", "0", "0.1"]), ValueError,
     r"data row 1 \(line 13\): epsilon value '0.75' is not in the header's grid"),
    ("negative trial", data_row(0, ["a", "0.5", "-1", "0.1"]), ValueError,
     r"data row 1 \(line 13\): trial must be a non-negative integer; got '-1'"),
    ("fractional trial", data_row(0, ["a", "0.5", "0.5", "0.1"]), ValueError, r"data row 1 .*trial must be"),
    ("huge trial", data_row(0, ["a", "0.5", "999999999999", "0.1"]), ValueError,
     r"data row 1 \(line 13\): trial 999999999999 is out of range: the file holds 2 trials"),
    ("absurd trial", data_row(0, ["a", "0.5", "9" * 40, "0.1"]), ValueError, r"data row 1 .*trial must be"),
    ("duplicate cell", data_row(1, ["a", "0.5", "0", "0.9"]), ValueError,
     r"data row 2 \(line 14\): series 'a', epsilon = 0.5, trial 0 repeats line 13 \(duplicate cell\)"),
    ("text value", data_row(0, ["a", "0.5", "0", "=1+1"]), ValueError,
     r"data row 1 \(line 13\): value must be a number"),
    ("missing rows", "\n".join(LINES[:-1]) + "\n", ValueError, r"7 data rows; a complete result has"),
    ("extra row", GOOD + "a,0.5,2,0.3\n", ValueError, r"9 data rows"),
    ("NUL byte", GOOD.replace("0.1", "0\x001", 1), ValueError, r"malformed CSV|value must be a number"),
]


@pytest.mark.parametrize("case", CSV_CORPUS, ids=[c[0] for c in CSV_CORPUS])
def test_malformed_csv_corpus(case):
    _, text, exc, pattern = case
    with pytest.raises(exc, match=pattern):
        ExperimentResult.from_csv(text)


def test_the_corpus_bases_are_valid_and_round_trip(tmp_path):
    assert ExperimentResult.from_csv(GOOD).same_numbers(result())
    d = result().to_dict()
    assert ExperimentResult.from_dict(json.loads(json.dumps(d))).same_numbers(result())
    # old files (raw '# key: json' header lines, unescaped cells) still load
    old = "\n".join(line.replace('""', '"')[1:-1] if line.startswith('"#') else line for line in LINES) + "\n"
    assert "# parameters: {" in old and ExperimentResult.from_csv(old).same_numbers(result())
    path = tmp_path / "r.csv"
    result().to_csv(path)
    assert ExperimentResult.from_csv(path).same_numbers(result())
    assert ExperimentResult.from_csv(str(path)).same_numbers(result())
    with pytest.raises(TypeError, match="got bytes"):
        ExperimentResult.from_csv(GOOD.encode())
    with pytest.raises(TypeError, match="source must be a path, a file object or CSV text; got int"):
        ExperimentResult.from_csv(3)


def test_a_huge_trial_index_allocates_nothing_sized_by_it():
    text = data_row(0, ["a", "0.5", "999999999999", "0.1"])
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="out of range"):
            ExperimentResult.from_csv(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20  # the old loader allocated trials-sized arrays (8 TB here)


def corrupt(path, value):
    d = result().to_dict()
    node = d
    for k in path[:-1]:
        node = node[k]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


DICT_CORPUS = [
    ("not a dict", [1, 2], TypeError, r"must be a dict"),
    ("missing key", corrupt(("values",), KeyError), ValueError, r"missing key 'values'"),
    ("unknown key", {**result().to_dict(), "evil": 1}, ValueError, r"unknown key 'evil'"),
    ("NaN seed", corrupt(("seed",), float("nan")), ValueError, r"seed must be an integer >= 0; got nan"),
    ("float seed", corrupt(("seed",), 2.0), ValueError, r"seed must be an integer >= 0; got 2.0"),
    ("ragged trials", corrupt(("values", 1, 0), [0.1]), ValueError,
     r"values\[1\]\[0\] has 1 trials but values\[0\]\[0\] has 2 \(ragged array\)"),
    ("ragged grid", corrupt(("values", 0), [[0.1, 0.2]]), ValueError, r"values\[0\] must be a list of 2 grid points"),
    ("too many series rows", corrupt(("values",), [[[1.0]]] * 3), ValueError,
     r"values has 3 rows; the result names 2 series"),
    ("text value", corrupt(("values", 0, 0, 1), "0.2"), TypeError, r"values\[0\]\[0\]\[1\] must be a number"),
    ("boolean value", corrupt(("values", 0, 0, 1), True), TypeError, r"values\[0\]\[0\]\[1\] must be a number"),
    ("null value", corrupt(("values", 0, 0, 1), None), TypeError, r"values\[0\]\[0\]\[1\] must be a number"),
    ("no trials", corrupt(("values",), [[[], []], [[], []]]), ValueError, r"values\[0\]\[0\] must hold 1 to"),
    ("grid not a list", corrupt(("grid",), 3), TypeError, r"grid must be a list; got int"),
    ("series of numbers", corrupt(("series",), [1, 2]), TypeError, r"series must be a list of strings"),
    ("parameters not a dict", corrupt(("parameters",), [1]), TypeError, r"parameters must be a dict"),
    ("parameters with an object", corrupt(("parameters", "n"), object()), TypeError, r"parameters must be a dict"),
    ("function not a string", corrupt(("function",), 3), TypeError, r"function must be a string; got int"),
    ("huge text", corrupt(("axis",), "x" * 20_000), ValueError, r"axis must be at most 10000 characters"),
    ("deep extras", corrupt(("extras",), {"k": json.loads("[" * 100 + "]" * 100)}), TypeError,
     r"extras must be a dict of plain values nested at most 32"),
]


@pytest.mark.parametrize("case", DICT_CORPUS, ids=[c[0] for c in DICT_CORPUS])
def test_malformed_dict_corpus(case):
    _, data, exc, pattern = case
    with pytest.raises(exc, match=pattern):
        ExperimentResult.from_dict(data)


def test_too_many_values_are_refused_before_building_them():
    cell = [0.0] * 1_000_001
    d = {**result().to_dict(), "values": [[cell, cell], [cell, cell]]}
    with pytest.raises(ValueError, match=r"must hold 1 to 1000000 trials \(series × grid × trials <= 4,000,000\)"):
        ExperimentResult.from_dict(d)


# -- issue 31 item 8: formula injection -------------------------------------------------------------
PAYLOADS = ["=cmd|' /C calc'!A0", "+1+cmd", "-2+3", "@SUM(A1:A9)", "\tx", "\rx", "'=already", "plain"]


def spreadsheet_cells(text):
    """Every cell a spreadsheet sees (it splits header lines at commas too, as it knows nothing of '#')."""
    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def dangerous(cell):
    return cell.startswith(FORMULA_STARTS) and escape_cell(cell) != cell  # a number such as -0.5 is fine


def test_no_written_cell_starts_a_formula_and_text_round_trips():
    r = result(series=PAYLOADS[:4], grid=["=1+2", "-x", "ok"],
               values=np.full((4, 3, 2), -0.25), parameters={"matrix": "0.5 0.5\n#,=cmd|' /C calc'!A0", "n": -3},
               extras={"note": "@evil"})
    text = r.to_csv()
    bad = [c for c in spreadsheet_cells(text) if dangerous(c)]
    assert bad == []
    assert "-0.25" in spreadsheet_cells(text)  # negative numbers stay numbers
    back = ExperimentResult.from_csv(text)
    assert back.same_numbers(r) and back.series == tuple(PAYLOADS[:4]) and back.parameters["matrix"].endswith("A0")
    for p in PAYLOADS:
        assert unescape_cell(escape_cell(p)) == p
    assert [escape_cell(v) for v in ("-0.5", "-1e-06", "-inf", "nan", "+3", -2.5)] == ["-0.5", "-1e-06", "-inf", "nan",
                                                                                       "+3", -2.5]


def test_the_markov_paste_deep_link_cannot_inject():
    """issue 31.8: ``chain=paste&matrix=…`` put a formula into the panel's CSV through the parameters header."""
    from dpexplore.markov.experiments import large_error_probability

    matrix = "0.5 0.5\n0.5 0.5\n# note,=cmd|' /C calc'!A0,@SUM(1)"  # comment lines are valid in a pasted matrix
    r = large_error_probability("paste", matrix=matrix, epsilon=1.0, rho=1.0, T=5, trials=1, rng=0)
    text = r.to_csv()
    assert [c for c in spreadsheet_cells(text) if dangerous(c)] == []
    # what the old writer did: the raw '# parameters: {...}' line split into cells, one of them a formula
    old = "# parameters: " + json.dumps(r.to_dict()["parameters"])
    assert any(c.startswith("=cmd") for c in spreadsheet_cells(old))
    assert ExperimentResult.from_csv(text).parameters["matrix"] == matrix
