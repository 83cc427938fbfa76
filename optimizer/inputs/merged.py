"""Blank cells that are part of a merged range: the message says why they are blank.

Excel keeps a merged range's value in its top-left cell only; the others read
as blank. A user who merged ``A2:A3`` to say "both rows are H100" sees "cell A3
is blank" and a cell that shows H100. Takes the workbook and its problems;
hands on the problems with each such "is blank" saying which cells are merged
and what to do. The sheets' XML is read only when some cell is blank.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from optimizer.errors import Problem
from optimizer.inputs.grid import _column_index, _sheet_parts

_MERGE = re.compile(
    rb"""<(?:\w+:)?mergeCell\b[^>]*?\bref=["']([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)["']"""
)
_CELL = re.compile(r"([A-Z]+)([0-9]+)")

# (first column, first row, last column, last row, the range as written), 0-based columns
Merged = tuple[int, int, int, int, str]


def explain_merged_blanks(path: Path, problems: Sequence[Problem]) -> list[Problem]:
    """``problems`` with every blank cell inside a merged range (not its first cell) saying so."""
    blank = [p for p in problems if p.message == "is blank" and p.cell and p.sheet]
    if not blank:
        return list(problems)
    merged = _merged_ranges(path, {p.sheet for p in blank if p.sheet})
    ids = {id(p) for p in blank}
    out = []
    for p in problems:
        found = _holding(merged.get(p.sheet or "", ()), p.cell) if id(p) in ids else None
        out.append(p if found is None else replace(p, message=f"is blank ({found})"))
    return out


def _holding(ranges: Iterable[Merged], cell: str | None) -> str | None:
    """What to say when ``cell`` lies in one of the ranges, after its first cell."""
    match = _CELL.fullmatch(cell or "")
    if match is None:
        return None
    col, row = _column_index(match.group(1)), int(match.group(2))
    for first_col, first_row, last_col, last_row, text in ranges:
        inside = first_col <= col <= last_col and first_row <= row <= last_row
        if inside and (col, row) != (first_col, first_row):
            first = text.split(":")[0]
            each = "row" if first_row != last_row else "cell"
            return (
                f"cells {text} are merged: only {first} holds a value; "
                f"unmerge them and fill each {each}"
            )
    return None


def _merged_ranges(path: Path, sheets: set[str]) -> dict[str, list[Merged]]:
    try:
        with zipfile.ZipFile(path) as archive:
            parts = _sheet_parts(archive) or {}
            xml = {name: archive.read(parts[name]) for name in sheets if name in parts}
    except (OSError, KeyError, zipfile.BadZipFile):
        return {}
    return {
        name: [
            (
                _column_index(a.decode()),
                int(r1),
                _column_index(b.decode()),
                int(r2),
                f"{a.decode()}{r1.decode()}:{b.decode()}{r2.decode()}",
            )
            for a, r1, b, r2 in _MERGE.findall(data)
        ]
        for name, data in xml.items()
    }
