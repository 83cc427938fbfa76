"""The bundled example's workbooks as finance prints them: LibreOffice's PDF, read back.

The result, compare and sweep workbooks are written once by the commands in
``tests/printed_example.py`` and converted to PDF by one soffice call; the
tests read the pages with pdftotext and the written cells with openpyxl.
"""

from __future__ import annotations

import math
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import range_boundaries

from tests.libreoffice import printed_pages_of
from tests.paths import ROOT
from tests.printed_example import page_sheet, page_table, pages_per_sheet, write_example_workbooks

pytestmark = pytest.mark.libreoffice

DOCS = ROOT / "docs" / "printed.md"
SCENARIOS = ("us-baseline", "europe", "tight-capex")


@pytest.fixture(scope="module")
def workbooks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_example_workbooks(tmp_path_factory.mktemp("printed"))


@pytest.fixture(scope="module")
def printed(workbooks: dict[str, Path]) -> dict[str, list[str]]:
    folder = next(iter(workbooks.values())).parent / "pdf"
    pages = printed_pages_of(list(workbooks.values()), folder)
    return {kind: pages[path] for kind, path in workbooks.items()}


def test_the_result_prints_in_at_most_12_pages_finance_first(
    printed: dict[str, list[str]],
) -> None:
    pages = printed["result"]
    assert len(pages) <= 12
    sheets = [sheet for sheet, _n in pages_per_sheet(pages)]
    # The Summary, each scenario's cash flow and fleet, then the Audit; the hidden
    # engineering detail (Places, Assignments, Options) is not printed.
    assert sheets == [
        "Summary",
        *(f"{s} {kind}" for s in SCENARIOS for kind in ("Cash flow", "Fleet")),
        "Audit",
    ]
    counts = dict(pages_per_sheet(pages))
    assert counts["Summary"] <= 3 and counts["Audit"] == 1
    assert all(counts[f"{s} Cash flow"] == 1 and counts[f"{s} Fleet"] == 1 for s in SCENARIOS)


def test_page_one_tells_finance_what_to_do_and_what_it_saves(
    printed: dict[str, list[str]],
) -> None:
    first = printed["result"][0]
    assert page_sheet(first) == "Summary"
    for text in (
        "At a glance",
        "What to do",
        "Saving against rent only (USD)",
        "Buying pays back against rent only from",
        "Limits that hold the plan back",
        "Cash saved so far against renting everything",  # the chart's title
    ):
        assert text in first, text
    # The recommendation's sentence, whatever the counts of this release's plan.
    assert re.search(r"Buy \d+ RTX 4090", first), first
    # The details start on page 2, and no chart's data table is printed.
    assert "Status" not in first and "Status" in printed["result"][1]
    assert not any("Cumulative cash by month" in page for page in printed["result"])


def test_each_scenario_prints_its_cash_table_and_charts_on_one_page(
    printed: dict[str, list[str]],
) -> None:
    for scenario in SCENARIOS:
        (cash,) = [p for p in printed["result"] if page_sheet(p) == f"{scenario} Cash flow"]
        assert re.search(r"^\s*36\s+\$", cash, re.MULTILINE)  # the last month's row
        assert "Net cash after credit" in cash
        assert "Monthly cash: running costs (left)" in cash
        assert "Cumulative cash: this plan against each" in cash
        (fleet,) = [p for p in printed["result"] if page_sheet(p) == f"{scenario} Fleet"]
        assert "GPUs in use by type and place" in fleet
        assert "Owned utilisation" not in fleet  # the table at the left is on screen only


def test_compare_and_sweep_print_their_answer_on_one_page(printed: dict[str, list[str]]) -> None:
    assert [s for s, _ in pages_per_sheet(printed["compare"])] == ["Comparison"]
    assert len(printed["compare"]) == 1
    sweep = pages_per_sheet(printed["sweep"])
    assert sweep[0] == ("Summary", 1) and len(printed["sweep"]) <= 3
    summary = printed["sweep"][0]
    assert "where the plan changes" in summary
    assert "Total cost against the varied parameter" in summary
    assert "The chosen mix against the varied parameter" in summary


def _print_area(ws: openpyxl.worksheet.worksheet.Worksheet) -> tuple[int, int, int, int]:
    """(min_col, min_row, max_col, max_row), 1-based: the print area, or the used range."""
    area = ws.print_area
    if area:
        ref = (area[0] if isinstance(area, list) else area).split("!")[-1].replace("$", "")
        min_col, min_row, max_col, max_row = range_boundaries(ref)
        assert None not in (min_col, min_row, max_col, max_row)
        return min_col or 1, min_row or 1, max_col or 1, max_row or 1
    return 1, 1, ws.max_column, ws.max_row


def cut_text(path: Path) -> list[str]:
    """Text cells of the printed area that do not fit: wider than their column and the empty
    cells to their right, or wrapped onto more lines than their row is tall.

    A unit of column width is a digit's width; Calibri's average letter is
    narrower: about 1.2 letters fit per unit (1.0 in bold), as the printed Summary
    shows ("Target load (% of serving capacity; the plan stays at or below it)",
    66 letters, prints on one line of its 58-wide column)."""
    problems = []
    wb = openpyxl.load_workbook(path, data_only=True)  # a formula's cached number, not its text
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            continue
        min_col, min_row, max_col, max_row = _print_area(ws)
        widths: dict[int, float] = {}
        for dim in ws.column_dimensions.values():  # one entry may span several columns
            for col in range(dim.min or 0, (dim.max or 0) + 1):
                widths[col] = dim.width

        def width(col: int, widths: dict[int, float] = widths) -> float:
            return widths.get(col) or 8.43

        for row in ws.iter_rows(min_row, max_row, min_col, max_col):
            for cell in row:
                text = cell.value
                if not isinstance(text, str) or ws.row_dimensions[cell.row].hidden:
                    continue
                col = cell.column
                assert isinstance(col, int)
                letters = 1.0 if cell.font.bold else 1.2
                if cell.alignment.wrap_text:
                    per_line = max(width(col) * letters - 1, 1)
                    lines = sum(
                        max(1, math.ceil(len(part) / per_line)) for part in text.split("\n")
                    )
                    height = ws.row_dimensions[cell.row].height or 15
                    if lines * 15 > height + 1:
                        problems.append(
                            f"{ws.title}!{cell.coordinate}: {lines} lines in {height} pt"
                        )
                    continue
                room = width(col)
                if cell.alignment.horizontal not in ("right", "center"):
                    nxt = col + 1
                    while nxt <= max_col and ws.cell(cell.row, nxt).value in (None, ""):
                        room += width(nxt)
                        nxt += 1
                if len(text) > room * letters:
                    problems.append(
                        f"{ws.title}!{cell.coordinate}: {len(text)} characters in {room}"
                    )
    return problems


def test_no_printed_text_is_cut(workbooks: dict[str, Path]) -> None:
    for path in workbooks.values():
        assert cut_text(path) == [], path.name


def charts(path: Path) -> list[tuple[str, list[list[float]]]]:
    """Each chart's title and the numbers of each of its series, read from the cells."""
    values = openpyxl.load_workbook(path, data_only=True)
    found = []
    with zipfile.ZipFile(path) as z:
        for name in sorted(n for n in z.namelist() if re.match(r"xl/charts/chart\d+\.xml", n)):
            xml = z.read(name).decode()
            title = "".join(re.findall(r"<a:t>(.*?)</a:t>", xml.split("</c:title>")[0]))
            series = []
            for ref in re.findall(r"<c:(?:val|yVal)><c:numRef><c:f>(.*?)</c:f>", xml):
                sheet, cells = ref.rsplit("!", 1)
                ws = values[sheet.strip("'").replace("''", "'")]
                numbers = [
                    c.value
                    for row in ws[cells.replace("$", "")]
                    for c in (row if isinstance(row, tuple) else (row,))
                    if isinstance(c.value, int | float)
                ]
                series.append(numbers)
            found.append((title, series))
    return found


def test_every_chart_has_data_and_shows_what_its_title_says(
    workbooks: dict[str, Path],
) -> None:
    result = charts(workbooks["result"])
    assert len(result) == 1 + 3 * 3  # page 1's, then three per scenario
    assert sorted({title for title, _ in result}) == sorted(
        [
            "Cash saved so far against renting everything (USD; below 0: not paid back yet; "
            "last step: the residual credit of GPUs still owned)",
            "Monthly cash: running costs (left), purchases (right)",
            "Cumulative cash: this plan against each simple alternative",
            "GPUs in use by type and place",
        ]
    )
    for title, series in (*result, *charts(workbooks["compare"])):
        assert series and all(any(s) for s in series), title
    sweep = charts(workbooks["sweep"])
    assert sorted(title for title, _ in sweep) == [
        "The chosen mix against the varied parameter",
        "Total cost against the varied parameter",
    ]
    for title, series in sweep:
        # Each line has a point per variant; the last series holds the flip lines' ends.
        assert series and all(any(s) for s in series), title


def test_docs_printed_md_is_up_to_date(printed: dict[str, list[str]]) -> None:
    assert page_table(printed) in DOCS.read_text(encoding="utf-8"), (
        "docs/printed.md is stale: regenerate it with `.venv/bin/python docs/make_printed.py`"
    )
