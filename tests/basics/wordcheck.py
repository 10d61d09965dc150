"""Helpers of tests/basics/test_words.py: the text of pages and sources, and printed formulas made runnable.

:func:`evaluate` reads a formula as a page prints it — "(e^ε − 1 + 2δ)/(e^ε + 1)", "ε√(2k ln(1/δ'))",
"p·e^ε/(p·e^ε + 1 − p)", "e<sup>ε</sup>" — and evaluates it with the given values, so that a test compares
the *printed* formula (read off the page or its source) with the library, never a copy of the formula.
"""

from __future__ import annotations

import ast
import functools
import json
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_FUNCS = {"exp": math.exp, "sqrt": math.sqrt, "ln": math.log, "log": math.log, "max": max, "min": min}
_GREEK = {"ε": "eps", "δ": "delta", "α": "alpha", "β": "beta", "ρ": "rho", "μ": "mu"}


def _normalise(formula: str) -> str:
    f = formula.strip()
    f = re.sub(r"<sup>(.*?)</sup>", r"^(\1)", f)
    f = f.replace("{", "(").replace("}", ")")
    for a, b in (("−", "-"), ("·", "*"), ("′", "'"), ("×", "*"), ("⁻¹", ""), ("²", "^2")):
        f = f.replace(a, b)
    return f


def _tokens(f: str) -> list[str]:
    out, i = [], 0
    while i < len(f):
        c = f[i]
        if c.isspace():
            i += 1
            continue
        m = re.match(r"(exp|sqrt|ln|log|max|min)(?=\()", f[i:])
        if m:
            out.append(m.group(1))
            i += len(m.group(1))
            continue
        m = re.match(r"\d+(\.\d+)?", f[i:])
        if m:
            out.append(m.group(0))
            i += len(m.group(0))
            continue
        if c.isalpha():  # one-letter variables, optionally primed: ε, δ', k, p, t
            name = _GREEK.get(c, c)
            i += 1
            if i < len(f) and f[i] == "'":
                name += "_prime"
                i += 1
            out.append("E" if name == "e" else name)
            continue
        if c == "√":
            out.append("sqrt")
            i += 1
            if i < len(f) and f[i] != "(":  # √k: the root of the next factor
                m = re.match(r"\d+(\.\d+)?|\w'?", f[i:])
                out += ["(", _GREEK.get(m.group(0), m.group(0)), ")"]
                i += len(m.group(0))
            continue
        if c in "+-*/(),^":
            out.append(c)
            i += 1
            continue
        raise ValueError(f"cannot read {c!r} in formula {f!r}")
    return out


def to_python(formula: str) -> str:
    """The printed formula as a Python expression (implicit products made explicit, e^x → exp(x))."""
    toks = _tokens(_normalise(formula))
    out: list[str] = []
    for t in toks:
        prev = out[-1] if out else None
        starts = t not in "+-*/),^"
        ends = prev is not None and (prev not in "+-*/(,^" and prev not in _FUNCS)
        if starts and ends:
            out.append("*")
        out.append(t)
    py = "".join(out).replace("^", "**")
    py = re.sub(r"E\*\*(\w+|\([^()]*(?:\([^()]*\))*[^()]*\))", r"exp(\1)", py)
    return py


def evaluate(formula: str, **values: float) -> float:
    """Evaluate a printed formula; names: eps, delta, delta_prime, alpha, rho, mu, k, p, t, eps_prime."""
    return float(eval(to_python(formula), {"__builtins__": {}}, {**_FUNCS, **values}))  # noqa: S307


# -- the text of pages and sources --------------------------------------------------------------------
@functools.cache
def notebook_text(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"])


@functools.cache
def python_strings(path: Path) -> str:
    """Every string literal of a module (docstrings, messages, f-string text), one per line: Python's parser
    joins implicitly concatenated pieces, so a sentence split over source lines is one string here."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts.append("".join(v.value if isinstance(v, ast.Constant) else "{…}" for v in node.values))
    return "\n".join(parts)


def lessons_texts(dashboards=None) -> list[str]:
    """The words of notebooks/lessons.json (of the given dashboard classes only, when given)."""
    data = json.loads((ROOT / "notebooks" / "lessons.json").read_text(encoding="utf-8"))
    out: list[str] = []

    def walk(x):
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for name, entry in data["dashboards"].items():
        if dashboards is None or name in dashboards:
            walk(entry)
    for seq in data["sequences"]:
        if dashboards is None or seq["dashboard"] in dashboards:
            walk(seq)
    return out


def flat(text: str) -> str:
    """Whitespace (line breaks of a wrapped paragraph) collapsed to single spaces."""
    return re.sub(r"\s+", " ", text)
