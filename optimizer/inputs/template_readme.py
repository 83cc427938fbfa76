"""The README sheet of the input workbook: what each sheet, column and assumption means.

Takes an xlsxwriter worksheet and the template's cell formats; writes the
introduction and one table per input sheet, all from ``optimizer.inputs.schema``
(the same declarations the reader checks against and ``docs/workbook.md`` shows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xlsxwriter.worksheet import Worksheet

from optimizer.inputs import schema
from optimizer.inputs.docs_reference import (
    allowed_text,
    assumption_default_text,
    default_text,
    type_text,
)
from optimizer.inputs.template_styles import TemplateStyles

# --- README -----------------------------------------------------------------------

_README_WIDTHS = (26, 20, 22, 10, 22, 30, 64)
_README_COLUMNS = ("column", "unit", "type", "required", "default", "allowed values", "meaning")
_INTRO = (
    "This workbook is the input of gpumix, which plans the cheapest GPU fleet for your AI "
    "workloads: which GPU types to buy, rent on demand, reserve or take on spot, how many of "
    "each per month, and which workload runs where. Run `gpumix solve THIS-FILE.xlsx`; the "
    "result workbook shows the plan, its cost per month and category, and every assumption used.",
    "How to fill it in: one row per GPU type (sheet GPUs), per offer (Prices) and per workload "
    "(Workloads); the sheets Throughput, Scenarios and Assumptions are optional. Type into the "
    "yellow cells with blue text. Keep the headers in row 1 (units are in parentheses; hover over "
    "a header for its meaning). A blank cell means its default, or no limit; in sheet GPUs, "
    "a type the GPU catalogue knows (`gpumix gpus`) fills its blank cells from the catalogue. "
    "Drop-down lists "
    "offer the allowed values. Fractions are percent cells: 5 % and 0.05 are the same. Text is "
    "read as text, never as a formula.",
    "Scenarios: each row of sheet Scenarios is one plan to solve; a column named after an "
    "Assumptions key overrides that key for the scenario. Scenario files (scenarios/*.yaml) "
    "change a scenario without editing this workbook. The full reference is docs/workbook.md.",
)


def _lines(text: str, width_chars: float) -> int:
    # A column of width w holds about 1.15 w characters of prose (w counts wide digits).
    return max(1, math.ceil(len(text) / (width_chars * 1.15)))


def _height(texts: Sequence[str], widths: Sequence[float]) -> float:
    """Row height for wrapped text: rows are not grown to fit it on opening, so set it here."""
    return 15.0 * max(_lines(t, w) for t, w in zip(texts, widths, strict=True)) + 2


def write_readme(ws: Worksheet, styles: TemplateStyles) -> None:
    """Write the README sheet: the introduction, then every sheet's columns and every assumption."""
    ws.set_landscape()
    ws.set_paper(9)
    ws.fit_to_pages(1, 0)
    for col, width in enumerate(_README_WIDTHS):
        ws.set_column(col, col, width)
    last_col = len(_README_WIDTHS) - 1
    ws.write_string(0, 0, "gpumix input workbook", styles.title)
    row = 2
    for text in _INTRO:
        ws.merge_range(row, 0, row, last_col, "", styles.paragraph)
        ws.write_string(row, 0, text, styles.paragraph)
        ws.set_row(row, _height([text], [sum(_README_WIDTHS)]))
        row += 2
    for sheet in schema.INPUT_SHEETS:
        presence = "optional sheet" if sheet.optional_sheet else "required sheet"
        ws.write_string(
            row, 0, f"Sheet {sheet.name} ({presence}): {sheet.description}", styles.heading
        )
        row += 1
        for col, name in enumerate(_README_COLUMNS):
            ws.write_string(row, col, name, styles.header)
        row += 1
        for column in sheet.columns:
            texts = (
                column.name,
                column.unit or "",
                type_text(column),
                "yes" if column.required else "no",
                default_text(column),
                allowed_text(column),
                column.description,
            )
            for col, text in enumerate(texts):
                ws.write_string(row, col, text, styles.wrapped)
            ws.set_row(row, _height(texts, _README_WIDTHS))
            row += 1
        row += 1
    ws.write_string(
        row,
        0,
        f"Sheet {schema.ASSUMPTIONS_SHEET_NAME} (optional sheet): columns key, value and source; "
        "a key not given keeps its default.",
        styles.heading,
    )
    row += 1
    for col, name in enumerate(("key", "default", "unit", "source")):
        ws.write_string(row, col, name, styles.header)
    row += 1
    for key in schema.ASSUMPTIONS:
        ws.merge_range(row, 3, row, last_col, "", styles.wrapped)
        key_texts = (key.key, assumption_default_text(key), key.unit, key.source)
        for col, text in enumerate(key_texts):
            ws.write_string(row, col, text, styles.wrapped)
        ws.set_row(row, _height(key_texts, (*_README_WIDTHS[:3], sum(_README_WIDTHS[3:]))))
        row += 1
