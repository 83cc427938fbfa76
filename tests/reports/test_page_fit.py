"""How sheets fit the printed page: one page tall only while legible, and which way up."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from optimizer.reports.compare import comparison_sheet
from optimizer.reports.page_fit import (
    LEGIBLE_SCALE,
    fit_one_page_when_legible,
    one_page_scale,
)
from optimizer.reports.result_workbook import write_result_workbook
from optimizer.reports.sheet_grid import SheetModel, Style
from tests.fake_plans import fake_plan, fake_run


def _rows_of_text(rows: int) -> SheetModel:
    sheet = SheetModel("Rows")
    for r in range(rows):
        sheet.text(r, 0, "a line of text", Style.TEXT)
    return sheet


def test_a_sheet_asks_for_one_page_only_while_its_text_stays_legible() -> None:
    short, long = _rows_of_text(30), _rows_of_text(100)
    # 30 rows of 15 points fit a landscape page's 520 points as they are.
    assert one_page_scale(short) == 1.0
    # 100 rows are 1,500 points: one page would print them at about a third of their size.
    assert one_page_scale(long) == pytest.approx(520 / 1500)
    assert one_page_scale(long) < LEGIBLE_SCALE
    for sheet, pages_tall in ((short, 1), (long, 0)):
        fit_one_page_when_legible(sheet)
        assert sheet.pages_tall == pages_tall


def test_a_comparison_of_few_scenarios_prints_upright_and_of_many_across() -> None:
    few = comparison_sheet([fake_plan("a"), fake_plan("b")])
    many = comparison_sheet([fake_plan(name) for name in "abcdef"])
    assert (few.landscape, few.pages_tall) == (False, 1)
    assert (many.landscape, many.pages_tall) == (True, 1)


def test_printed_areas_fold_and_hide_what_finance_does_not_print(tmp_path: Path) -> None:
    path = tmp_path / "results.xlsx"
    write_result_workbook(path, fake_run(fake_plan("base")))
    wb = openpyxl.load_workbook(path)
    audit = wb["Audit"]
    # The Audit prints its first ten columns on one page; the input tables are folded.
    assert audit.print_area == "'Audit'!$A$1:$J$" + str(audit.max_row)
    # One page wide and one tall (1 is the file format's default, so it may be left out).
    assert audit.sheet_properties.pageSetUpPr.fitToPage
    assert audit.page_setup.fitToWidth in (1, None) and audit.page_setup.fitToHeight in (1, None)
    folded = [r for r, dim in audit.row_dimensions.items() if dim.hidden]
    titles = {audit.cell(r - 1, 1).value for r in folded if not audit.row_dimensions[r - 1].hidden}
    assert titles == {"Assumptions used", "GPUs", "Offers (after scenario overrides)", "Workloads"}
    assert all(audit.row_dimensions[r].outline_level == 1 for r in folded)
    # The Fleet prints the GPUs in use (from column M) and its chart, upright, on one page.
    fleet = wb["base Fleet"]
    assert fleet.print_area.startswith("'base Fleet'!$M$1:")
    assert fleet.page_setup.orientation == "portrait" and fleet.page_setup.fitToHeight in (1, None)
    assert fleet["M1"].value == "Month" and fleet.print_title_cols is None
    # GPUs in use per month: 2 H100 owned; L40S's on-demand hours ÷ 730 hours a month.
    block = [[c.value for c in row] for row in fleet["M1:O4"]]
    assert block == [
        ["Month", "H100 owned", "L40S on demand"],
        [1, 2, pytest.approx(100.5 / 730)],
        [2, 2, pytest.approx(200.25 / 730)],
        [3, 2, 0],
    ]
    assert fleet["P1"].value is None  # no column for a place the plan does not use
    assert wb["base Cash flow"].page_setup.orientation == "portrait"
