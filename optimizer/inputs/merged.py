"""Blank cells that are part of a merged range: the message says why they are blank.

Excel keeps a merged range's value in its top-left cell only; the others read
as blank. A user who merged ``A2:A3`` to say "both rows are H100" sees "cell A3
is blank" and a cell that shows H100. Takes the workbook and its problems;
hands on the problems with each such "is blank" saying which cells are merged
and what to do. The sheets' XML is read only when some cell is blank.
:func:`merged_data_problems` refuses the merges that would otherwise pass
unnoticed: over optional cells, whose blank means a default or no limit.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from optimizer.errors import Problem
from optimizer.inputs.cells import column_letter
from optimizer.inputs.grid import _column_index, _sheet_parts
from optimizer.inputs.tables import SheetTable

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


def merged_data_problems(
    path: Path,
    tables: Sequence[SheetTable],
    grids: Mapping[str, list[list[object]]],
    problems: Sequence[Problem],
) -> list[Problem]:
    """One problem for each merged range whose value would be lost on rows it spans.

    A range whose first cell holds a value and that covers another column's
    cell in a data row: that cell reads as blank, which in an optional
    column means the default or no limit, the opposite of what the merge
    shows (a cap of 2 merged over six rows caps one). Ranges already named by
    a "blank" problem (a required cell) are not reported twice.
    """
    merged = _merged_ranges(path, {t.name for t in tables})
    said = {(p.sheet, p.cell) for p in problems}
    found = []
    for t in tables:
        data_rows = {row for row, _values in t.rows}
        grid = grids.get(t.name, [])
        known = set(t.columns.values())
        for first_col, first_row, last_col, last_row, text in merged.get(t.name, ()):
            if first_row == 1:
                found += _merged_header(path, t, grid, (first_col, last_col, text))
                continue
            value = _value_at(grid, first_row, first_col)
            covered = [
                (col, row)
                for row in range(first_row, last_row + 1)
                for col in range(first_col, last_col + 1)
                if (col, row) != (first_col, first_row) and row in data_rows and col in known
            ]
            if value is None or not covered:
                continue
            cells = {(t.name, f"{column_letter(c)}{r}") for c, r in covered}
            if cells & said:
                continue
            col, row = covered[0]
            first = text.split(":")[0]
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            found.append(
                Problem(
                    file=str(path),
                    sheet=t.name,
                    row=row,
                    column=t.header[col],
                    cell=f"{column_letter(col)}{row}",
                    message=(
                        f"is blank: cells {text} are merged and only {first} holds a value "
                        f"({value}); the other cells read as blank (the default, or no limit)"
                    ),
                    expected=(
                        f"the merge undone and each {'row' if first_row != last_row else 'cell'} "
                        "filled, or left blank for its default"
                    ),
                )
            )
    return found


def _merged_header(
    path: Path, t: SheetTable, grid: list[list[object]], merge: tuple[int, int, str]
) -> list[Problem]:
    """A header merged over columns that hold values: those columns have no header.

    Excel shows the first cell's header across the range, but each other column
    reads as headerless, so its values would be ignored (or a column the sheet
    needs would look blank in every row).
    """
    first_col, last_col, text = merge
    first = text.split(":")[0]
    shown = _value_at(grid, 1, first_col)
    found = []
    for col in range(first_col + 1, last_col + 1):
        held = [(row, v) for row, _ in t.rows if (v := _value_at(grid, row, col)) is not None]
        if not held:
            continue
        row, value = held[0]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        letter = column_letter(col)
        found.append(
            Problem(
                file=str(path),
                sheet=t.name,
                row=1,
                column=None,
                cell=f"{letter}1",
                message=(
                    f"is blank: header cells {text} are merged and only {first} holds a "
                    f"header ({shown!r}); column {letter} holds values ({letter}{row} = "
                    f"{value!r}) under no header of its own, so gpumix cannot read them"
                ),
                expected=f"the merge undone and {letter}1 given its column's header",
            )
        )
    return found


def _value_at(grid: list[list[object]], row: int, col: int) -> object:
    if row - 1 < len(grid) and col < len(grid[row - 1]):
        value = grid[row - 1][col]
        return None if value is None or (isinstance(value, str) and not value.strip()) else value
    return None


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
