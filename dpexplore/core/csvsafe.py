"""CSV cells that a spreadsheet cannot run: every CSV dpexplore writes goes through :func:`escape_cell`.

A spreadsheet (Excel, LibreOffice, Google Sheets) evaluates a cell whose text starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return as a formula (``=cmd|' /C calc'!A0`` runs a program
through DDE). A text cell starting with one of those, or with the escape character ``'`` itself, is
written with a leading ``'`` (shown as plain text by spreadsheets, removed again by
:func:`unescape_cell`); numbers stay numbers: a negative number such as ``-0.5`` or ``-1e-06``, and
``nan``/``inf``/``-inf``, are written as they are.

Examples
--------
>>> escape_cell("=cmd|' /C calc'!A0"), escape_cell("-0.5"), escape_cell(-2), escape_cell("mechanism")
("'=cmd|' /C calc'!A0", '-0.5', -2, 'mechanism')
>>> unescape_cell(escape_cell("@SUM(A1)"))
'@SUM(A1)'
>>> import io
>>> buf = io.StringIO()
>>> _ = safe_writer(buf, lineterminator="\\n").writerow(["+1-2", -3.5, "a,b"])
>>> buf.getvalue()
'\\'+1-2,-3.5,"a,b"\\n'
"""

from __future__ import annotations

import csv
import numbers
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["FORMULA_STARTS", "escape_cell", "safe_writer", "unescape_cell"]

#: first characters that make a spreadsheet evaluate a text cell
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_ESCAPED = FORMULA_STARTS + ("'",)
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def escape_cell(value: Any) -> Any:
    """``value`` made safe for a spreadsheet: numbers unchanged; text starting with a formula character gets ``'``.

    Text that is a plain decimal number (``"-0.5"``, ``"1e-06"``, ``"-inf"``) is a number and is
    left as it is.
    """
    kind = type(value)
    if kind is float or kind is int:  # the common cells, without the ABC check below
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, bool) or value is None:
        return value
    text = str(value)
    if text.startswith(_ESCAPED) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def unescape_cell(text: str) -> str:
    """Inverse of :func:`escape_cell` on the text read back from a cell."""
    if len(text) >= 2 and text[0] == "'" and text[1] in _ESCAPED:
        return text[1:]
    return text


class safe_writer:  # noqa: N801 - a drop-in for csv.writer
    """``csv.writer(fileobj, **fmt)`` whose ``writerow``/``writerows`` pass every cell through :func:`escape_cell`."""

    def __init__(self, fileobj, **fmt: Any) -> None:
        self._writer = csv.writer(fileobj, **fmt)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([escape_cell(c) for c in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
