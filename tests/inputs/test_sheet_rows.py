"""A sheet with more rows than gpumix reads says so (issue 33 item 10).

A 200,001-row Prices sheet was reported as "a cell or range reaches A100001",
the words for one stray cell far from the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import xlsxwriter

from optimizer.cli import main
from tests.conftest import sha256, valid_sheets


def test_a_sheet_of_too_many_rows_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.xlsx"
    book = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    for name, rows in valid_sheets().items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            sheet.write_row(r, 0, row)
        if name == "Prices":
            for r in range(len(rows), 100_010):
                sheet.write_row(r, 0, ["H100", "spot", 1.0])
    book.close()
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and sha256(path) == before
    assert err == (
        "1 problem in the input:\n  - big.xlsx, sheet Prices: has more than 100,000 rows (its "
        "rows reach row 100,010); gpumix reads at most 100,000 rows; expected a table of at "
        "most 100,000 rows (split the scenario, or delete the rows beyond it)\n"
    )
