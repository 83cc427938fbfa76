"""The input workbook's cell formats: inputs in blue on light yellow, headers, number formats.

Takes an xlsxwriter workbook (and a column or assumption declaration for its
number format); hands on the formats, made once each. Apart from ``template``
so that the README sheet (``template_readme``) uses the same formats without
importing the template back.
"""

from __future__ import annotations

from typing import Any

from xlsxwriter.workbook import Format, Workbook

from optimizer.inputs.schema import AssumptionKey, Column, ColumnType

# The usual finance convention: inputs in blue on light yellow.
_INPUT_STYLE = {
    "font_color": "#0000FF",
    "bg_color": "#FFF2CC",
    "border": 1,
    "border_color": "#BFBFBF",
}
_HEADER_STYLE = {"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "valign": "top"}
_USD = '"$"#,##0.00'
_PERCENT = "0.0%"
_WHOLE = "#,##0"
_TEXT = "@"
# How LibreOffice shows a boolean as TRUE/FALSE (Excel does so whatever the format).
_BOOLEAN = '"TRUE";"TRUE";"FALSE"'


class TemplateStyles:
    """The workbook's formats, made once each (XlsxWriter formats belong to a workbook)."""

    def __init__(self, workbook: Workbook) -> None:
        self._workbook = workbook
        self._inputs: dict[str, Format] = {}
        self.header = workbook.add_format(_HEADER_STYLE)
        self.fixed = workbook.add_format({"valign": "top"})
        self.title = workbook.add_format({"bold": True, "font_size": 16})
        self.heading = workbook.add_format({"bold": True, "font_size": 12, "bottom": 1})
        self.paragraph = workbook.add_format({"text_wrap": True, "valign": "top"})
        self.wrapped = workbook.add_format({"text_wrap": True, "valign": "top"})

    def input(self, num_format: str | None) -> Format:
        key = num_format or "General"
        if key not in self._inputs:
            style: dict[str, Any] = dict(_INPUT_STYLE)
            if num_format:
                style["num_format"] = num_format
            self._inputs[key] = self._workbook.add_format(style)
        return self._inputs[key]


def column_format(column: Column) -> str | None:
    if column.type is ColumnType.BOOL:
        return _BOOLEAN
    if column.fraction:
        return _PERCENT
    if column.unit is not None and column.unit.startswith("USD"):
        return _USD
    if column.type is ColumnType.INTEGER or column.unit in {"tokens", "tokens/s"}:
        return _WHOLE
    if column.type in (ColumnType.TEXT, ColumnType.NAME_LIST, ColumnType.CHOICE):
        # Typed names such as 4090 or =x stay text instead of turning into numbers or formulas.
        return _TEXT
    return None


def assumption_format(key: AssumptionKey | None) -> str | None:
    if key is None:
        return None
    if key.column_type is ColumnType.BOOL:
        return _BOOLEAN
    if key.column_type in (ColumnType.CHOICE, ColumnType.TEXT):
        return _TEXT
    if key.fraction:
        return _PERCENT
    return _USD if key.unit.startswith("USD") else None
