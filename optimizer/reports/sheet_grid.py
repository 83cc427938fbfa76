"""A sheet as a grid of styled cells, and its rendering with XlsxWriter.

The result and comparison workbooks are first laid out as :class:`SheetModel`
grids (pure data: cells with a value, a style and, for live formulas, the
formula whose *cached value* is the solver's number), then rendered.
XlsxWriter stores each formula's cached value, so pandas and any reader that
does not recalculate see the numbers Excel shows. ``optimizer.reports.in_place``
renders the same grids with openpyxl.

No cell holds NaN or infinity: such a value is written blank. All text goes
through :func:`optimizer.reports.cell_text.cell_text` into a string cell with a
quote prefix, so text from users can never run as a formula.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import xlsxwriter

from optimizer.currency import USD, money_format
from optimizer.reports.cell_text import cell_text

# ---------------------------------------------------------------------------
# The grid model


class Style(StrEnum):
    """How a cell looks; each renderer maps these to its own formats."""

    TITLE = "title"
    HEADER = "header"
    SECTION = "section"
    LABEL = "label"
    TEXT = "text"
    WRAP = "wrap"
    NOTE = "note"
    MARK = "mark"
    MONEY = "money"
    NUMBER = "number"
    INTEGER = "integer"
    HOURS = "hours"
    PERCENT = "percent"
    BOOL = "bool"
    MONEY_FORMULA = "money_formula"
    PERCENT_FORMULA = "percent_formula"
    INTEGER_FORMULA = "integer_formula"
    TOTAL_MONEY_FORMULA = "total_money_formula"
    TOTAL_HOURS_FORMULA = "total_hours_formula"
    TOTAL_LABEL = "total_label"
    COLUMN_HEADER = "column_header"  # header over a column of numbers: right-aligned
    VALUE_TEXT = "value_text"  # text among numbers (a status): right-aligned
    VALUE_NOTE = "value_note"  # a remark in place of a number ("no plan"): right-aligned, grey


# Number formats, shared by both renderers; money styles follow the sheet's
# currency (:func:`number_format`), shown here as USD.
MONEY_STYLES = frozenset({Style.MONEY, Style.MONEY_FORMULA, Style.TOTAL_MONEY_FORMULA})
NUMBER_FORMATS: dict[Style, str] = {
    **dict.fromkeys(MONEY_STYLES, money_format(USD)),
    Style.NUMBER: "#,##0.00",
    Style.INTEGER: "#,##0",
    Style.HOURS: "#,##0.0",
    Style.TOTAL_HOURS_FORMULA: "#,##0.0",
    Style.PERCENT: "0.0%",
    Style.PERCENT_FORMULA: "0.0%",
    Style.INTEGER_FORMULA: "#,##0",
}


def number_format(style: Style, currency: str) -> str | None:
    """The number format of ``style`` in a sheet whose money is in ``currency``."""
    return money_format(currency) if style in MONEY_STYLES else NUMBER_FORMATS.get(style)


FORMULA_STYLES = frozenset(
    {
        Style.MONEY_FORMULA,
        Style.PERCENT_FORMULA,
        Style.INTEGER_FORMULA,
        Style.TOTAL_MONEY_FORMULA,
        Style.TOTAL_HOURS_FORMULA,
    }
)
# Every style but numbers and TRUE/FALSE holds text, and text cells carry the quote prefix.
TEXT_STYLES = frozenset(set(Style) - set(NUMBER_FORMATS) - {Style.BOOL})

CellValue = float | int | str | bool | None


@dataclass(frozen=True)
class Cell:
    """One cell. With ``formula`` set, ``value`` is the formula's cached result."""

    value: CellValue
    style: Style
    formula: str | None = None


@dataclass(frozen=True)
class Table:
    """An Excel table over ``first_row..last_row`` (header row first), 0-based."""

    name: str
    first_row: int
    first_col: int
    last_row: int
    last_col: int


@dataclass(frozen=True)
class Series:
    name_cell: tuple[int, int]
    values: tuple[int, int, int, int]  # first_row, first_col, last_row, last_col


@dataclass(frozen=True)
class Chart:
    kind: str  # "stacked_column" or "line"
    # Fixed text and the currency label only, never other user text: XlsxWriter reads
    # "=..." as a reference (the label may not start with "=": inputs.cells).
    title: str
    y_axis: str
    y_format: str
    categories: tuple[int, int, int, int]
    series: tuple[Series, ...]
    anchor: tuple[int, int]
    x_axis: str = "Month"
    scale: tuple[float, float] = (1.5, 1.3)  # of the renderer's default size (480 × 288 px)
    # Series drawn as lines on a second axis at the right, so large one-off
    # amounts (purchases) do not flatten the stacked columns.
    secondary: tuple[Series, ...] = ()
    y2_axis: str = ""


@dataclass
class SheetModel:
    """One sheet as a grid; ``freeze`` is (rows, columns) kept in view."""

    name: str
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    freeze: tuple[int, int] | None = None
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    names: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)  # defined names
    widths: dict[int, float] = field(default_factory=dict)  # set ones win over fitted ones
    # Printing: landscape, one page wide, the frozen header rows and columns on every page.
    landscape: bool = True
    pages_wide: int = 1  # printed as wide as this many pages
    pages_tall: int = 0  # and as tall as this many (0: as tall as it takes)
    page_breaks: list[int] = field(default_factory=list)  # rows that start a printed page
    # Rows after this one stay in the workbook but are not printed (a chart's data table).
    print_last_row: int | None = None
    # The printed columns (first, last) when not all are: the rest is on screen only.
    print_columns: tuple[int, int] | None = None
    # Row ranges (first, last) folded away under an outline "+": kept, shown on a click, not printed.
    folded_rows: list[tuple[int, int]] = field(default_factory=list)
    # A detail sheet kept in the workbook (Unhide shows it) but left out of the printed document.
    hidden: bool = False
    currency: str = USD  # the label of every money cell (model v2 §E)

    def text(self, row: int, col: int, value: object, style: Style = Style.TEXT) -> None:
        """Any text, user-supplied or not: always made safe and stored as a string."""
        self.cells[(row, col)] = Cell(cell_text(value), style)

    def number(self, row: int, col: int, value: float | int | None, style: Style) -> None:
        """A number; None, NaN and infinity leave the cell blank (styled)."""
        self.cells[(row, col)] = Cell(finite_or_none(value), style)

    def flag(self, row: int, col: int, value: bool | None) -> None:
        self.cells[(row, col)] = Cell(value, Style.BOOL)

    def formula(self, row: int, col: int, formula: str, cached: float | None, style: Style) -> None:
        self.cells[(row, col)] = Cell(finite_or_none(cached), style, formula)

    def header(self, row: int, col: int, headers: Sequence[str]) -> None:
        for i, h in enumerate(headers):
            self.text(row, col + i, h, Style.HEADER)

    @property
    def last_row(self) -> int:
        return max((r for r, _ in self.cells), default=0)

    def print_area(self) -> tuple[int, int, int, int] | None:
        """(first row, first col, last row, last col) printed, or None when all of it is."""
        if self.print_last_row is None and self.print_columns is None:
            return None
        last_col = max((col for _row, col in self.cells), default=0)
        first_col, last_col = self.print_columns or (0, last_col)
        last_row = self.last_row if self.print_last_row is None else self.print_last_row
        return 0, first_col, last_row, last_col

    def folded(self) -> set[int]:
        return {r for first, last in self.folded_rows for r in range(first, last + 1)}


def finite_or_none(value: float | int | None) -> float | int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def a1(row: int, col: int) -> str:
    """0-based (row, col) as an A1 reference."""
    letters = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


def absolute_ref(sheet: str, r1: int, c1: int, r2: int, c2: int) -> str:
    """``'Sheet'!$B$2:$D$2``, the sheet name quoted as Excel requires."""
    quoted = "'" + sheet.replace("'", "''") + "'"
    start, end = a1(r1, c1), a1(r2, c2)
    return f"{quoted}!{_absolute(start)}:{_absolute(end)}"


def _absolute(ref: str) -> str:
    letters = ref.rstrip("0123456789")
    return f"${letters}${ref[len(letters) :]}"


def column_letter(col: int) -> str:
    return a1(0, col)[:-1]


# ---------------------------------------------------------------------------
# Rendering with XlsxWriter


def fitted_widths(sheet: SheetModel) -> dict[int, float]:
    """Column widths (characters) that fit the content; wrapped text stops at 36."""
    widest: dict[int, float] = defaultdict(lambda: 8.0)
    for (_, col), cell in sheet.cells.items():
        value = cell.value
        if isinstance(value, str):
            if cell.style in (Style.NOTE, Style.SECTION, Style.TITLE):
                continue  # notes and section titles may run over empty neighbours
            longest = max((len(line) for line in value.splitlines()), default=0)
            cap = {Style.HEADER: 28, Style.WRAP: 36}.get(cell.style, 50)
            size = min(longest, cap) + 2
        elif isinstance(value, bool):
            size = 7
        elif isinstance(value, int | float):
            size = len(f"{value:,.2f}") + 3
        else:
            continue
        widest[col] = max(widest[col], float(size))
    return {**widest, **sheet.widths}


WRAPPING_STYLES = frozenset({Style.WRAP, Style.LABEL, Style.HEADER, Style.COLUMN_HEADER})
LINE_HEIGHT = 15.0  # points, for the default 11-point font


def fitted_heights(sheet: SheetModel, widths: dict[int, float]) -> dict[int, float]:
    """Row heights (points) that show every line of wrapped text.

    Neither Excel nor LibreOffice reliably grows a row for wrapped text in a
    file it did not write, so rows that need more than one line get a height.
    A column's width counts digit widths; average text is narrower, so about
    1.2 characters fit per unit of width (1.0 in bold headers).
    """
    lines: dict[int, int] = {}
    for (row, col), cell in sheet.cells.items():
        if cell.style not in WRAPPING_STYLES or not isinstance(cell.value, str):
            continue
        bold = cell.style in (Style.HEADER, Style.COLUMN_HEADER)
        per_line = max(int(widths.get(col, 8.0) * (1.0 if bold else 1.2)) - 2, 1)
        needed = sum(max(1, -(-len(part) // per_line)) for part in cell.value.split("\n"))
        lines[row] = max(lines.get(row, 1), needed)
    return {row: n * LINE_HEIGHT for row, n in lines.items() if n > 1}


def _xlsx_formats(workbook: xlsxwriter.Workbook, currency: str) -> dict[Style, object]:
    formula: dict[str, object] = {"font_color": "#1F4E79", "bg_color": "#EEF3F8"}
    total: dict[str, object] = {"bold": True, "top": 1}
    props: dict[Style, dict[str, object]] = {
        Style.TITLE: {"bold": True, "font_size": 14},
        Style.HEADER: {
            "bold": True,
            "bg_color": "#D9E1F2",
            "text_wrap": True,
            "valign": "top",
            "bottom": 1,
        },
        Style.COLUMN_HEADER: {
            "bold": True,
            "bg_color": "#D9E1F2",
            "text_wrap": True,
            "align": "right",
            "valign": "top",
            "bottom": 1,
        },
        Style.VALUE_TEXT: {"align": "right"},
        Style.VALUE_NOTE: {"align": "right", "italic": True, "font_color": "#595959"},
        Style.SECTION: {"bold": True, "font_size": 12},
        Style.LABEL: {"text_wrap": True, "valign": "top"},
        Style.TEXT: {},
        Style.WRAP: {"text_wrap": True, "valign": "top"},
        Style.NOTE: {"italic": True, "font_color": "#595959"},
        Style.MARK: {"align": "center", "font_color": "#006100"},
        # Without a boolean format LibreOffice prints TRUE as 1.
        Style.BOOL: {"align": "center", "num_format": '"TRUE";"TRUE";"FALSE"'},
        Style.TOTAL_LABEL: {"bold": True, "top": 1},
        Style.MONEY_FORMULA: formula,
        Style.PERCENT_FORMULA: formula,
        Style.INTEGER_FORMULA: formula,
        Style.TOTAL_MONEY_FORMULA: {**formula, **total},
        Style.TOTAL_HOURS_FORMULA: {**formula, **total},
    }
    formats: dict[Style, object] = {}
    for style in Style:
        p = dict(props.get(style, {}))
        if (num_format := number_format(style, currency)) is not None:
            p["num_format"] = num_format
        if style in TEXT_STYLES:
            # The hidden apostrophe: editing the cell in Excel keeps "=..." as text.
            p["quote_prefix"] = True
        # Top-aligned, so a value sits level with the first line of a wrapped label.
        p.setdefault("valign", "top")
        formats[style] = workbook.add_format(p)
    return formats


def _write_cell(w: Any, row: int, col: int, cell: Cell, fmt: object) -> None:
    """``w``: an XlsxWriter worksheet (XlsxWriter has no type hints)."""
    value = cell.value
    if cell.formula is not None:
        w.write_formula(row, col, cell.formula, fmt, "" if value is None else value)
    elif value is None:
        w.write_blank(row, col, None, fmt)
    elif isinstance(value, bool):
        w.write_boolean(row, col, value, fmt)
    elif isinstance(value, str):
        w.write_string(row, col, value, fmt)
    else:
        w.write_number(row, col, value, fmt)


def render_xlsx(path: Path, sheets: Sequence[SheetModel]) -> None:
    """Write grids to ``path`` with XlsxWriter: values, cached formulas, tables, charts."""
    workbook = xlsxwriter.Workbook(
        str(path), {"strings_to_numbers": False, "strings_to_formulas": False}
    )
    workbook.set_properties({"title": "gpumix results", "comments": "Written by gpumix"})
    by_currency: dict[str, dict[Style, object]] = {}
    for model in sheets:
        if model.currency not in by_currency:
            by_currency[model.currency] = _xlsx_formats(workbook, model.currency)
        formats = by_currency[model.currency]
        ws = workbook.add_worksheet(model.name)
        for name, block in model.names.items():
            workbook.define_name(name, "=" + absolute_ref(model.name, *block))
        widths = fitted_widths(model)
        for col, width in widths.items():
            ws.set_column(col, col, width)
        heights = fitted_heights(model, widths)
        folded = model.folded()
        for row in sorted(set(heights) | folded):
            if row in folded:
                ws.set_row(row, heights.get(row), None, {"level": 1, "hidden": True})
            else:
                ws.set_row(row, heights[row])
        for _first, last in model.folded_rows:
            # The "+" that unfolds them sits on the row below the group.
            ws.set_row(last + 1, heights.get(last + 1), None, {"collapsed": True})
        if model.hidden:
            ws.hide()
        for (row, col), cell in sorted(model.cells.items()):
            style = cell.style
            if isinstance(cell.value, str) and style not in TEXT_STYLES:
                style = Style.TEXT  # text always gets a format with the quote prefix
            _write_cell(ws, row, col, cell, formats[style])
        for table in model.tables:
            headers = [
                model.cells[(table.first_row, c)]
                for c in range(table.first_col, table.last_col + 1)
            ]
            ws.add_table(
                table.first_row,
                table.first_col,
                table.last_row,
                table.last_col,
                {
                    "name": table.name,
                    "style": "Table Style Light 9",
                    "autofilter": True,
                    "columns": [
                        {"header": str(h.value), "header_format": formats[Style.HEADER]}
                        for h in headers
                    ],
                },
            )
            # add_table rewrites the header row; the cells below keep what was written.
        for chart in model.charts:
            _insert_chart(workbook, ws, model.name, chart)
        if model.freeze:
            ws.freeze_panes(*model.freeze)
        _print_setup(ws, model)
    workbook.close()


def _print_setup(ws: Any, model: SheetModel) -> None:
    if model.landscape:
        ws.set_landscape()
    ws.fit_to_pages(model.pages_wide, model.pages_tall)
    if model.page_breaks:
        ws.set_h_pagebreaks(model.page_breaks)
    ws.set_margins(left=0.4, right=0.4, top=0.6, bottom=0.6)
    area = model.print_area()
    if area is not None:
        ws.print_area(*area)
    rows, cols = repeated_titles(model)
    if rows:
        ws.repeat_rows(0, rows - 1)
    if cols:
        ws.repeat_columns(0, cols - 1)
    # Sheet name left, page count right: a printed page says where it came from.
    ws.set_footer("&L&A&RPage &P of &N")


def repeated_titles(model: SheetModel) -> tuple[int, int]:
    """(rows, columns) printed on every page: the frozen ones, but no column left of the
    printed area (it would print beside a block it does not belong to)."""
    rows, cols = model.freeze or (0, 0)
    area = model.print_area()
    return rows, 0 if area is not None and area[1] > 0 else cols


def _insert_chart(workbook: xlsxwriter.Workbook, ws: Any, sheet_name: str, spec: Chart) -> None:
    if spec.kind == "stacked_column":
        chart = workbook.add_chart({"type": "column", "subtype": "stacked"})
    else:
        chart = workbook.add_chart({"type": "line"})

    def series(s: Series, **style: object) -> dict[str, object]:
        return {
            "name": [sheet_name, *s.name_cell],
            "categories": [sheet_name, *spec.categories],
            "values": [sheet_name, *s.values],
            **style,
        }

    for s in spec.series:
        chart.add_series(series(s, gap=50))
    # Month labels along the bottom, not on the zero line of a chart that goes negative.
    chart.set_x_axis({"name": spec.x_axis, "label_position": "low"})
    chart.set_title({"name": spec.title, "name_font": {"size": 12}})
    if spec.secondary:
        line = workbook.add_chart({"type": "line"})
        for s in spec.secondary:
            line.add_series(series(s, y2_axis=True, marker={"type": "circle"}))
        line.set_y2_axis({"name": spec.y2_axis, "num_format": spec.y_format})
        chart.combine(line)
    chart.set_y_axis({"name": spec.y_axis, "num_format": spec.y_format})
    chart.set_legend({"position": "bottom"})
    ws.insert_chart(
        spec.anchor[0], spec.anchor[1], chart, {"x_scale": spec.scale[0], "y_scale": spec.scale[1]}
    )
