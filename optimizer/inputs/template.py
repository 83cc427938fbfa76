"""The input workbook: an empty template, or one filled with given rows.

Everything comes from ``optimizer.inputs.schema``: headers (name plus unit), cell
comments, drop-down lists, number formats and the README sheet. The bundled
example is this same workbook filled with ``optimizer.inputs.example_data``.

What the workbook never holds, on purpose: formulas in cells. A reader that
uses cached values (openpyxl ``data_only``, calamine) then sees every value
even in a file that no spreadsheet program ever recalculated. User text is
always written as a string, so text starting with ``=`` cannot run as a
formula in finance's copy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.workbook import Format
from xlsxwriter.worksheet import Worksheet

from optimizer.currency import CURRENCY_MAX_CHARS
from optimizer.inputs import schema
from optimizer.inputs.catalogue import catalogue
from optimizer.inputs.cells import FieldSpec
from optimizer.inputs.docs_reference import (
    allowed_text,
    assumption_default_text,
    column_note,
)
from optimizer.inputs.rows import ASSUMPTION_SPECS, SPECS
from optimizer.inputs.schema import AssumptionKey, Column, ColumnType, Sheet
from optimizer.inputs.template_readme import write_readme
from optimizer.inputs.template_styles import TemplateStyles, assumption_format, column_format

Rows = Mapping[str, Sequence[Mapping[str, object]]]
CellValue = bool | int | float | str | None

README = "README"
SHEET_ORDER: tuple[str, ...] = (
    README,
    *(s.name for s in schema.INPUT_SHEETS),
    schema.ASSUMPTIONS_SHEET_NAME,
)
# Empty rows below the data that carry the input style and the drop-down lists.
INPUT_ROWS = 100
# How far down a name list (GPUs.gpu, Workloads.workload) is looked up.
NAME_LIST_ROWS = 1000
ASSUMPTION_COLUMNS: tuple[str, ...] = ("key", "value", "unit", "source")

_EXCEL_TEXT_LIMIT = 32_767
_MESSAGE_LIMIT = 255  # Excel's limit for a validation's input message
_TITLE_LIMIT = 32


@dataclass(frozen=True)
class _PlannedSheet:
    """A data sheet as it will be written: its columns and its cell values."""

    sheet: Sheet
    columns: tuple[Column, ...]
    values: tuple[tuple[CellValue, ...], ...]


def write_template(path: Path, rows: Rows | None = None) -> None:
    """Write an input workbook to ``path``: the empty template, or filled with ``rows``.

    ``rows`` maps a sheet name to its rows, each keyed by column name. Keys that
    are not schema columns become extra columns (in ``Scenarios`` an
    ``Assumptions`` key is such a column). For ``Assumptions``, rows
    ``{key, value, source}`` replace that key's default row; unknown keys are
    added at the end. Raises ``ValueError`` (nothing is written) for an unknown
    sheet or a value Excel cannot hold, ``TypeError`` for a value of an
    unsupported type.
    """
    given = dict(rows or {})
    unknown = sorted(set(given) - set(SHEET_ORDER[1:]))
    if unknown:
        raise ValueError(f"no such input sheet: {', '.join(unknown)}; sheets are {SHEET_ORDER[1:]}")
    planned = [_plan_sheet(sheet, given.get(sheet.name, ())) for sheet in schema.INPUT_SHEETS]
    assumption_rows = _plan_assumptions(given.get(schema.ASSUMPTIONS_SHEET_NAME, ()))

    workbook = xlsxwriter.Workbook(
        str(path),
        # Belt and braces: write() never turns text into formulas, numbers or links.
        {"strings_to_formulas": False, "strings_to_numbers": False, "strings_to_urls": False},
    )
    try:
        workbook.set_properties({"title": "gpumix input workbook", "author": "gpumix"})
        styles = TemplateStyles(workbook)
        write_readme(workbook.add_worksheet(README), styles)
        for plan in planned:
            _write_data_sheet(workbook.add_worksheet(plan.sheet.name), plan, styles)
        _write_assumptions(
            workbook.add_worksheet(schema.ASSUMPTIONS_SHEET_NAME), assumption_rows, styles
        )
    finally:
        workbook.close()


# --- planning: rows to checked cell values (pure) ---------------------------------


def _cell_value(value: object, where: str) -> CellValue:
    """A Python value as one Excel cell holds it, or an error naming the cell."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not a number Excel can hold")
        return value
    if isinstance(value, str):
        if len(value) > _EXCEL_TEXT_LIMIT:
            raise ValueError(f"{where}: text longer than Excel's {_EXCEL_TEXT_LIMIT} characters")
        return str(value)  # a StrEnum member becomes its plain value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        # Name lists (Scenarios.workloads, exclude_gpus) are comma-separated in a cell.
        return _cell_value(", ".join(value), where)
    raise TypeError(f"{where}: cannot write a {type(value).__name__} ({value!r}) to a cell")


def _assumption_column(key: AssumptionKey) -> Column:
    """An Assumptions key used as a Scenarios column, described like any column."""
    return Column(
        key.key,
        key.column_type,
        f"Overrides Assumptions.{key.key} for this scenario ({key.source}).",
        unit=key.unit if key.column_type is ColumnType.NUMBER else None,
        default_text="the Assumptions sheet's value",
        minimum=0 if key.column_type is ColumnType.NUMBER else None,
        allowed=key.allowed,
        positive=key.positive,
        fraction=key.fraction,
        uncapped=not key.at_most_one,  # a share is capped at 1; the reader's spec has the rest
    )


def _extra_column(sheet: Sheet, name: str) -> Column:
    if sheet is schema.SCENARIOS and name in schema.ASSUMPTION_KEYS:
        return _assumption_column(schema.ASSUMPTION_KEYS[name])
    return Column(name, ColumnType.TEXT, "Not a gpumix column.")


def _plan_sheet(sheet: Sheet, rows: Sequence[Mapping[str, object]]) -> _PlannedSheet:
    names = [c.name for c in sheet.columns]
    extras = [key for row in rows for key in row if key not in names]
    columns = sheet.columns + tuple(_extra_column(sheet, n) for n in dict.fromkeys(extras))
    values = tuple(
        tuple(
            _cell_value(row.get(c.name), f"sheet {sheet.name}, row {i + 2}, column {c.name}")
            for c in columns
        )
        for i, row in enumerate(rows)
    )
    return _PlannedSheet(sheet, columns, values)


@dataclass(frozen=True)
class _AssumptionRow:
    key: str
    value: CellValue
    unit: str
    source: str
    declared: AssumptionKey | None


def _plan_assumptions(rows: Sequence[Mapping[str, object]]) -> tuple[_AssumptionRow, ...]:
    """Every declared key with its default, each replaced by the first row given for it.

    Later rows for the same key, and rows for undeclared keys, are added at the
    end, so that the reader reports them instead of this writer hiding them.
    """
    planned: dict[str, _AssumptionRow] = {
        a.key: _AssumptionRow(a.key, a.default, a.unit, a.source, a) for a in schema.ASSUMPTIONS
    }
    replaced: set[str] = set()
    added: list[_AssumptionRow] = []
    for i, row in enumerate(rows):
        where = f"sheet {schema.ASSUMPTIONS_SHEET_NAME}, row {i + 2}"
        key = _cell_value(row.get("key"), where + ", column key")
        source = _cell_value(row.get("source"), where + ", column source")
        declared = schema.ASSUMPTION_KEYS.get(key) if isinstance(key, str) else None
        given = _AssumptionRow(
            key="" if key is None else str(key),
            value=_cell_value(row.get("value"), where + ", column value"),
            unit=declared.unit if declared else "",
            # The default's source would not describe a value the user chose.
            source="" if source is None else str(source),
            declared=declared,
        )
        if declared is not None and declared.key not in replaced:
            planned[declared.key] = given
            replaced.add(declared.key)
        else:
            added.append(given)
    for mine, other in (schema.RESIDUAL_KEYS, schema.RESIDUAL_KEYS[::-1]):
        if mine in replaced and other not in replaced:
            # Two keys say the same thing: the default of the one not given would clash.
            planned[other] = replace(planned[other], value=None)
    return (*planned.values(), *added)


def _width(column: Column) -> float:
    if column.name == "source":
        return 90
    if column.allowed:
        return max(len(column.header), *(len(a) for a in column.allowed)) + 4
    if column.type in (ColumnType.TEXT, ColumnType.NAME_LIST) and column.name != "gpu":
        return max(len(column.header) + 4, 18)
    return max(len(column.header) + 4, 12)


# --- data validation --------------------------------------------------------------


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names_source(sheet_name: str) -> str:
    """A list source that grows with the names of a sheet (its first column), with no blanks.

    A plain range would include the empty rows, and Excel then accepts any value
    when "ignore blank" is on; OFFSET/COUNTA lists only the names filled in.
    """
    letter = xl_col_to_name(0)  # each sheet's names are its first column (gpu, workload)
    return (
        f"=OFFSET('{sheet_name}'!${letter}$2,0,0,"
        f"MAX(1,COUNTA('{sheet_name}'!${letter}$2:${letter}${NAME_LIST_ROWS + 1})),1)"
    )


# Excel's checks have no strict bounds: a bound the reader excludes moves by this step.
_STEP = 1e-12


def _number_validation(spec: FieldSpec) -> dict[str, Any]:
    """Excel's check of a number cell, with exactly the bounds the reader enforces (``spec``)."""
    kind = "integer" if spec.type is ColumnType.INTEGER else "decimal"
    step = 1 if kind == "integer" else _STEP
    low, high = spec.minimum, spec.upper
    if low is None and spec.positive:
        low = 0.0
    if high is None:
        if low is None:
            return {"validate": "any"}
        return {"validate": kind, "criteria": ">" if spec.positive else ">=", "value": low}
    if spec.below_one:
        high -= step
    if low is None:
        return {"validate": kind, "criteria": "<=", "value": high}
    return {
        "validate": kind,
        "criteria": "between",
        "minimum": low + step if spec.positive else low,
        "maximum": high,
    }


def _reader_spec(sheet: Sheet, column: Column) -> FieldSpec:
    """The spec the reader coerces this column's cells with (an Assumptions key's in Scenarios)."""
    if sheet is schema.SCENARIOS and column.name in ASSUMPTION_SPECS:
        return ASSUMPTION_SPECS[column.name]
    return SPECS.get(sheet.name, {}).get(column.name) or FieldSpec.of_column(column)


def _validation(column: Column, spec: FieldSpec) -> dict[str, Any]:
    """The data validation of one column: a drop-down list, a number check or a hint."""
    options: dict[str, Any] = {
        "input_title": _short(column.name, _TITLE_LIMIT),
        "input_message": _short(
            f"{column.description} Expected: {spec.bounded_expected}.", _MESSAGE_LIMIT
        ),
        "error_title": _short(f"Not a valid {column.name}", _TITLE_LIMIT),
        "error_message": _short(f"Expected {spec.bounded_expected}.", _MESSAGE_LIMIT),
    }
    if column.type is ColumnType.CHOICE:
        options.update(validate="list", source=list(column.allowed))
    elif column.type is ColumnType.BOOL:
        options.update(validate="list", source=["TRUE", "FALSE"])
    elif column.type is ColumnType.TEXT and column.references:
        # A warning, not a stop: a user may fill Prices before adding the GPU type.
        options.update(
            validate="list",
            source=_names_source(column.references),
            error_type="warning",
            error_message=_short(
                f"Not a name on sheet {column.references} (yet). Expected {allowed_text(column)}.",
                _MESSAGE_LIMIT,
            ),
        )
    elif column.type in (ColumnType.NUMBER, ColumnType.INTEGER):
        options.update(_number_validation(spec))
    elif column is schema.GPUS.column("gpu"):
        # The GPU catalogue's names (issue 31); "information", not a stop: any name is allowed.
        names = [e.name for e in catalogue().entries]
        options.update(
            validate="list",
            source=names,
            error_type="information",
            error_message=_short(
                "Not a GPU catalogue name: fill this row's vram_gb and fp16_tflops yourself "
                "(a catalogue name fills blank cells).",
                _MESSAGE_LIMIT,
            ),
        )
    else:
        options.update(validate="any")
    return options


def _assumption_validation(key: AssumptionKey) -> dict[str, Any]:
    options: dict[str, Any] = {
        "input_title": _short(key.key, _TITLE_LIMIT),
        "input_message": _short(
            f"{key.unit}. Default {assumption_default_text(key)}.", _MESSAGE_LIMIT
        ),
        "error_title": _short(f"Not a valid {key.key}", _TITLE_LIMIT),
    }
    if key.column_type is ColumnType.BOOL:
        options.update(
            validate="list", source=["TRUE", "FALSE"], error_message="Expected TRUE or FALSE."
        )
    elif key.column_type is ColumnType.CHOICE:
        options.update(
            validate="list",
            source=list(key.allowed),
            error_message=f"Expected one of {', '.join(key.allowed)}.",
        )
    elif key.label:
        options.update(
            validate="length",
            criteria="between",
            minimum=1,
            maximum=CURRENCY_MAX_CHARS,
            error_message=f"Expected 1 to {CURRENCY_MAX_CHARS} characters, such as EUR or €.",
        )
    else:
        spec = ASSUMPTION_SPECS[key.key]
        options.update(_number_validation(spec), error_message=f"Expected {spec.expected}.")
    return options


# --- writing ----------------------------------------------------------------------


def _write_cell(ws: Worksheet, row: int, col: int, value: CellValue, fmt: Format) -> None:
    # Empty text is a blank cell, as a user who clears a cell leaves it.
    if value is None or value == "":
        ws.write_blank(row, col, None, fmt)
    elif isinstance(value, bool):
        ws.write_boolean(row, col, value, fmt)
    elif isinstance(value, int | float):
        ws.write_number(row, col, value, fmt)
    else:
        ws.write_string(row, col, value, fmt)


def _print_setup(ws: Worksheet) -> None:
    # Printed or turned into a PDF for finance: landscape, every column on the page.
    ws.set_landscape()
    ws.set_paper(9)  # A4
    ws.fit_to_pages(1, 0)
    ws.repeat_rows(0)


def _write_header(ws: Worksheet, columns: Sequence[Column], styles: TemplateStyles) -> None:
    _print_setup(ws)
    ws.set_comments_author("gpumix")
    for col, column in enumerate(columns):
        ws.write_string(0, col, column.header, styles.header)
        note = column_note(column)
        lines = sum(math.ceil(max(len(line), 1) / 48) for line in note.split("\n"))
        ws.write_comment(0, col, note, {"width": 330, "height": 16 * lines + 12})
    ws.freeze_panes(1, 0)


def _write_data_sheet(ws: Worksheet, plan: _PlannedSheet, styles: TemplateStyles) -> None:
    _write_header(ws, plan.columns, styles)
    last_row = len(plan.values) + INPUT_ROWS
    for col, column in enumerate(plan.columns):
        fmt = styles.input(column_format(column))
        ws.set_column(col, col, _width(column))
        for row in range(1, last_row + 1):
            value = plan.values[row - 1][col] if row <= len(plan.values) else None
            _write_cell(ws, row, col, value, fmt)
        ws.data_validation(
            1, col, last_row, col, _validation(column, _reader_spec(plan.sheet, column))
        )


def _write_assumptions(
    ws: Worksheet, rows: Iterable[_AssumptionRow], styles: TemplateStyles
) -> None:
    _print_setup(ws)
    for col, name in enumerate(ASSUMPTION_COLUMNS):
        ws.write_string(0, col, name, styles.header)
    ws.freeze_panes(1, 0)
    for col, width in enumerate((32, 12, 34, 70)):
        ws.set_column(col, col, width)
    for i, row in enumerate(rows, start=1):
        _write_cell(ws, i, 0, row.key, styles.fixed)
        _write_cell(ws, i, 1, row.value, styles.input(assumption_format(row.declared)))
        _write_cell(ws, i, 2, row.unit, styles.fixed)
        _write_cell(ws, i, 3, row.source, styles.input(None))
        if row.declared is not None:
            ws.data_validation(i, 1, i, 1, _assumption_validation(row.declared))
