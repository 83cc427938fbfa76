"""A sheet's grid as a table: its header, its non-blank rows, each row's typed values.

Takes a sheet's raw grid (``grid._read_grids``) and its unreadable cells;
hands on a ``SheetTable`` (columns by normalized header), the problems of the
header (a column twice, a required column missing), and, row by row, the
values coerced by the sheet's column declarations (``rows.SPECS``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from optimizer.errors import Problem
from optimizer.inputs.cells import (
    BadValue,
    FieldSpec,
    SheetRow,
    UnreadableCell,
    closest_name,
    coerce,
    column_letter,
    is_blank,
    normalize_header,
    shown,
    suggestion,
)
from optimizer.inputs.rows import SPECS
from optimizer.inputs.schema import ColumnType, Sheet

# ---------------------------------------------------------------- sheets


@dataclass(frozen=True)
class SheetTable:
    """A sheet's header and non-blank data rows, raw values as read."""

    name: str
    columns: Mapping[str, int]  # normalized header → 0-based column index
    header: tuple[str, ...]  # normalized header of every column, '' for blank ones
    rows: tuple[tuple[int, tuple[object, ...]], ...]  # (Excel row number, values)


def _table(
    file: str,
    sheet_name: str,
    grid: list[list[object]],
    unreadable: Mapping[tuple[int, int], UnreadableCell],
    known: Iterable[str],
) -> tuple[SheetTable, list[Problem]]:
    problems: list[Problem] = []
    header = tuple(normalize_header(v) for v in grid[0]) if grid else ()
    columns: dict[str, int] = {}
    wanted = set(known)
    for index, name in enumerate(header):
        if not name:
            continue
        if name in columns and name in wanted:
            first = f"{column_letter(columns[name])}1"
            problems.append(
                Problem(
                    file=file,
                    message=f"column {name} appears twice (also in {first})",
                    sheet=sheet_name,
                    row=1,
                    cell=f"{column_letter(index)}1",
                    value=grid[0][index],
                )
            )
            continue
        columns.setdefault(name, index)
    used = sorted(columns[c] for c in wanted if c in columns)
    by_row: dict[int, list[tuple[int, UnreadableCell]]] = {}
    for (row, col), bad in unreadable.items():
        by_row.setdefault(row, []).append((col, bad))
    rows = []
    for r, values in enumerate(grid[1:], start=2):
        cells: Sequence[object] = values
        if r in by_row:
            changed = list(values)
            for col, bad in by_row[r]:
                if col < len(changed):
                    changed[col] = bad
            cells = changed
        width = len(cells)
        if any(i < width and not is_blank(cells[i]) for i in used):
            rows.append((r, tuple(cells)))
    return SheetTable(sheet_name, columns, header, tuple(rows)), problems


def near_miss_headers(
    file: str, table: SheetTable, raw_header: Sequence[object], known: Iterable[str]
) -> list[str]:
    """Warnings for a header that is no column but close to one the sheet lacks.

    Extra columns are ignored (the contract), so ``min replicas`` over a
    column of values is not an error; but those values would be silently
    left out, which a person should hear about. Spaces, hyphens, case and
    units in parentheses are ignored when comparing (``cells.closest_name``).
    """
    absent = [name for name in known if name not in table.columns]
    warnings = []
    for index, name in enumerate(table.header):
        if not name or name in known or table.columns.get(name) != index:
            continue
        meant = closest_name(_text_of(raw_header[index]), absent)
        if meant is not None:
            warnings.append(
                f"warning: {Path(file).name}, sheet {table.name}, cell {column_letter(index)}1: "
                f"header {_text_of(raw_header[index])!r} is not a column gpumix reads; did you "
                f"mean {meant}? its values are ignored (rename the header to {meant} if they "
                "are meant)"
            )
    return warnings


def _text_of(raw: object) -> str:
    return str(shown(raw)).strip()


def _raw_record(
    table: SheetTable, values: Sequence[object], names: Iterable[str]
) -> dict[str, object]:
    return {
        n: values[table.columns[n]]
        for n in names
        if n in table.columns and table.columns[n] < len(values)
    }


def _missing_columns(file: str, table: SheetTable, sheet: Sheet) -> list[Problem]:
    problems = []
    present = [h for h in table.header if h]
    for column in sheet.required_columns:
        if column.name not in table.columns:
            problems.append(
                Problem(
                    file=file,
                    sheet=table.name,
                    row=1,
                    column=column.name,
                    message=f"required column {column.name} is missing{suggestion(column.name, present)}",
                    expected=f"a header {column.header!r} in row 1",
                )
            )
    return problems


def _rows(
    file: str, table: SheetTable | None, sheet: Sheet
) -> Iterable[tuple[SheetRow, dict[str, Any], list[Problem]]]:
    if table is None:
        return
    specs = SPECS[sheet.name]
    # Column by column: one spec per loop, and repeated texts (GPU names,
    # options, providers) coerced once. Fifty thousand Prices rows stay fast.
    columns = {
        name: _coerce_column(
            specs[name],
            [values[index] if index < len(values) else None for _, values in table.rows],
        )
        for name, index in table.columns.items()
        if name in specs
    }
    names = list(columns)
    # Rows needing a closer look: a bad value, or a blank required cell. A
    # required column that is missing altogether is reported once, by
    # _missing_columns, not once per row.
    required = [n for n in names if specs[n].required]
    flagged = {k for n in names for k, v in enumerate(columns[n]) if v.__class__ is BadValue}
    flagged.update(k for n in required for k, v in enumerate(columns[n]) if v is None)
    for k, ((r, values), typed_values) in enumerate(
        zip(table.rows, zip(*columns.values(), strict=True), strict=True)
    ):
        where = SheetRow(file, table.name, r, table.columns)
        if k not in flagged:
            yield (
                where,
                {n: v for n, v in zip(names, typed_values, strict=True) if v is not None},
                [],
            )
            continue
        typed: dict[str, Any] = {}
        found: list[Problem] = []
        for name, value in zip(names, typed_values, strict=True):
            if value.__class__ is BadValue:
                bad = value
                cell = values[table.columns[name]]
                found.append(
                    where.at(name, bad.message, shown(cell), bad.expected or specs[name].expected)
                )
            elif value is not None:
                typed[name] = value
            elif name in required:
                found.append(where.at(name, "is blank", None, specs[name].expected))
        yield where, typed, found


def _coerce_column(spec: FieldSpec, raws: Sequence[object]) -> list[object]:
    """``coerce`` over one column: each value typed, None when blank, or the BadValue."""
    cache: dict[str, object] = {}
    out: list[object] = []
    # Plain non-negative floats are most cells of a big sheet: checked inline.
    floats_pass = (
        spec.type is ColumnType.NUMBER
        and not (spec.at_most_one or spec.below_one)
        and (spec.minimum or 0) <= 0
    )
    ints_pass = spec.type is ColumnType.INTEGER
    ints_from = (spec.minimum or 0) + (1 if spec.positive else 0)
    # The fast paths keep the bound (issue 33: a 1e308 slipped past here).
    floats_to = sys.float_info.max if spec.upper is None else spec.upper  # never inf
    ints_to = min(2**53 - 1, floats_to)
    for raw in raws:
        if raw.__class__ is str:
            if raw not in cache:
                cache[raw] = _coerced_or_bad(spec, raw)
            out.append(cache[raw])
        elif floats_pass and raw.__class__ is float and 0 < raw <= floats_to:
            out.append(raw)
        elif (
            ints_pass
            and raw.__class__ is float
            and raw.is_integer()
            and ints_from <= raw <= ints_to
        ):
            out.append(int(raw))
        else:
            out.append(_coerced_or_bad(spec, raw))
    return out


def _coerced_or_bad(spec: FieldSpec, raw: object) -> object:
    try:
        return coerce(spec, raw)
    except BadValue as bad:
        return bad
