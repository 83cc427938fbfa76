"""Assumptions ``currency`` (model v2 §E): a short label, set once in sheet Assumptions.

Each malformed label and each per-scenario use exits 2 naming the place, the
value and what is expected, and leaves the input unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.inputs.load import load_input
from tests.conftest import set_cell, sha256, valid_sheets, write_sheets

_EXPECTED = (
    "expected 1 to 8 printable characters, not starting with = + - @"
    " (a code such as EUR or a symbol such as €)"
)
_SHEET_ONLY = (
    "currency is set in sheet Assumptions only, never per scenario: all prices of a"
    " workbook share it (found 'EUR'); expected blank: set it once in sheet Assumptions"
)


def _workbook(tmp_path: Path, currency: object) -> Path:
    sheets = valid_sheets()
    set_cell(sheets, "Assumptions", 4, "key", "currency")
    set_cell(sheets, "Assumptions", 4, "value", currency)
    return write_sheets(tmp_path / "input.xlsx", sheets)


def _fails(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``gpumix validate path``: exit 2, nothing on stdout, the file unchanged; stderr."""
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, sha256(path)) == ("", before)
    return err


@pytest.mark.parametrize(
    ("value", "problem", "shown"),
    [
        ("EURO-DOLLAR", "is 11 characters long, more than 8", "'EURO-DOLLAR'"),
        ("\u00a0 \u00a0", "is empty or only spaces", "'\\xa0 \\xa0'"),
        ("E\tR", "has a character that cannot be printed (U+0009)", "'E\\tR'"),
        ("EUR\u200b", "has a character that cannot be printed (U+200B)", "'EUR\\u200b'"),
        ("@EUR", "begins with @, which a workbook would read as a formula", "'@EUR'"),
    ],
    ids=["too long", "spaces", "tab", "zero-width space", "formula start"],
)
def test_a_malformed_currency_is_refused_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, problem: str, shown: str
) -> None:
    err = _fails(_workbook(tmp_path, value), capsys)
    assert err == (
        "1 problem in the input:\n  - input.xlsx, sheet Assumptions, cell B4, column value: "
        f"currency: {problem} (found {shown}); {_EXPECTED}\n"
    )


def test_currency_on_a_scenarios_row_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Scenarios", 3, "currency", "EUR")  # row 2 leaves it blank: no error
    err = _fails(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert err == (
        "1 problem in the input:\n"
        f"  - input.xlsx, sheet Scenarios, cell H3, column currency: {_SHEET_ONLY}\n"
    )


def test_currency_in_a_scenario_file_is_refused_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workbook = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "eu.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    assumptions:\n"
        "      pue: 1.2\n      currency: EUR\n"
    )
    before = sha256(workbook)
    err = _fails(path, capsys)
    assert sha256(workbook) == before
    assert err == (
        "1 problem in the input:\n"
        f"  - eu.yaml, line 6: scenario 'a', assumptions.currency: {_SHEET_ONLY}\n"
    )


@pytest.mark.parametrize(
    ("value", "read"),
    [(" € ", "€"), ("ABCDEFGH", "ABCDEFGH"), ("CHF", "CHF")],
    ids=["symbol trimmed", "eight characters", "code"],
)
def test_a_valid_currency_reaches_every_scenario(
    tmp_path: Path, value: str | None, read: str
) -> None:
    loaded = load_input(_workbook(tmp_path, value))
    assert [s.assumptions.currency for s in loaded.scenarios] == [read, read]


def test_without_a_currency_row_the_workbook_is_in_usd(tmp_path: Path) -> None:
    loaded = load_input(write_sheets(tmp_path / "input.xlsx", valid_sheets()))
    assert [s.assumptions.currency for s in loaded.scenarios] == ["USD", "USD"]


@pytest.mark.parametrize("value", [" ", "", None], ids=["space", "empty text", "blank cell"])
def test_a_currency_row_left_blank_is_refused_not_read_as_usd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: object
) -> None:
    # Issue 33 item 10: ' ' and '' were read as USD without a word.
    err = _fails(_workbook(tmp_path, value), capsys)
    assert err.startswith(
        "1 problem in the input:\n  - input.xlsx, sheet Assumptions, cell B4, column value: "
        "currency: is empty or only spaces (delete the row to plan in USD)"
    )
    assert err.endswith(f"; {_EXPECTED}\n")
