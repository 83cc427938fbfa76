"""Currency (model v2 §E): a workbook in EUR plans exactly the numbers of the same
workbook in USD, and every money label, number format and terminal line says EUR.
Nothing is converted; ``compare`` refuses inputs in two currencies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli import main
from optimizer.currency import money_format, money_text, unit_in
from optimizer.inputs.load import load_input
from optimizer.inputs.price_warnings import scenario_warnings
from tests.conftest import Sheets, set_cell, sha256, valid_sheets, write_sheets

FINANCE_SHEETS = ("Summary", "us Cash flow", "eu Cash flow")


def _sheets(currency: str | None, *, electricity: bool = True) -> Sheets:
    sheets = valid_sheets()
    if not electricity:
        sheets["Assumptions"] = [
            row for row in sheets["Assumptions"] if row[0] != "electricity_per_kwh"
        ]
    if currency is not None:
        sheets["Assumptions"].append(["currency", currency, "finance"])
    return sheets


def _solve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, sheets: Sheets
) -> tuple[Path, list[str], dict[str, object]]:
    """Solve ``sheets`` (result workbook, terminal lines, JSON) with HiGHS alone.

    One solver, so the two workbooks compare to the last digit: in a race the
    winner can differ between runs, and two proven plans may differ in the
    last bits of a float.
    """
    path = write_sheets(tmp_path / f"{name}.xlsx", sheets)
    out = tmp_path / f"{name}-results.xlsx"
    alone = ["--solver", "highs"]
    assert main(["solve", str(path), "--output", str(out), *alone]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if not x.startswith("wrote ")]
    assert main(["solve", str(path), "--output", str(out), "--json", "--quiet", *alone]) == 0
    return out, lines, json.loads(capsys.readouterr().out)


def test_money_text_keeps_the_dollar_and_labels_any_other_currency() -> None:
    assert money_text(1234.5, "USD") == "$1,234.50"
    assert money_text(-1234.5, "USD") == "$-1,234.50"  # as before the currency existed
    assert money_text(1234.5, "EUR") == "EUR 1,234.50"
    assert money_text(1234567.891, "€", 0) == "€ 1,234,568"
    assert money_format("USD") == "$#,##0.00"
    assert money_format("EUR", 0) == '"EUR "#,##0;"EUR "-#,##0'  # EUR -5, as in text
    assert money_format('R"s') == '"R"\\""s "#,##0.00;"R"\\""s "-#,##0.00'  # quote escaped
    assert unit_in("USD per kWh", "CHF") == "CHF per kWh"
    assert unit_in("USD per GPU", "\\1") == "\\1 per GPU"  # the label is literal text


def test_a_eur_workbook_plans_the_usd_numbers_labelled_eur(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usd_out, usd_lines, usd_json = _solve(tmp_path, capsys, "usd", _sheets(None))
    eur_out, eur_lines, eur_json = _solve(tmp_path, capsys, "eur", _sheets("EUR"))

    assert eur_lines[:2] == [
        "us: optimal, total cost EUR 28,195.08 (cash out EUR 36,770.08, residual credit EUR 8,575.00)",
        "eu: optimal, total cost EUR 19,391.60 (cash out EUR 19,391.60)",
    ]
    assert eur_lines == [line.replace("$", "EUR ") for line in usd_lines]

    usd_book, eur_book = openpyxl.load_workbook(usd_out), openpyxl.load_workbook(eur_out)
    money_cells = 0
    for name in FINANCE_SHEETS:
        usd, eur = usd_book[name], eur_book[name]
        for usd_row, eur_row in zip(usd.iter_rows(), eur.iter_rows(), strict=True):
            for u, e in zip(usd_row, eur_row, strict=True):
                where = f"{name}!{e.coordinate}"
                if isinstance(u.value, str):
                    assert e.value == u.value.replace("USD", "EUR").replace("$", "EUR "), where
                    assert "USD" not in e.value and "$" not in e.value, where
                    continue
                assert e.value == u.value, where  # the same number: nothing converted
                is_money = u.number_format == "$#,##0.00"
                assert e.number_format == (money_format("EUR") if is_money else u.number_format), (
                    where
                )
                money_cells += is_money
    assert money_cells > 20  # the check above looked at money, not only counts and months

    for doc in (usd_json, eur_json):
        for entry in doc["scenarios"]:  # type: ignore[attr-defined]
            entry.pop("solver", None)  # timings differ between runs
    assert [s["currency"] for s in eur_json["scenarios"]] == ["EUR", "EUR"]  # type: ignore[index]
    assert [s["currency"] for s in usd_json["scenarios"]] == ["USD", "USD"]  # type: ignore[index]
    for entry in eur_json["scenarios"]:  # type: ignore[attr-defined]
        entry["currency"] = "USD"
    assert eur_json == json.loads(json.dumps(usd_json).replace("$", "EUR "))


def test_compare_refuses_inputs_in_different_currencies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usd = write_sheets(tmp_path / "a.xlsx", _sheets(None))
    eur_sheets = _sheets("EUR")
    set_cell(eur_sheets, "Scenarios", 2, "scenario", "us-eur")
    set_cell(eur_sheets, "Scenarios", 3, "scenario", "eu-eur")
    eur = write_sheets(tmp_path / "b.xlsx", eur_sheets)
    before = (sha256(usd), sha256(eur))
    out = tmp_path / "c.xlsx"
    assert main(["compare", str(usd), str(eur), "--output", str(out)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "",
        "1 problem in the input:\n"
        f"  - {eur}: usage: its money is in EUR but {usd} is in USD; compare needs one "
        "currency (gpumix converts nothing): set the same Assumptions currency in every "
        "workbook\n",
    )
    assert not out.exists()
    assert (sha256(usd), sha256(eur)) == before


def test_compare_in_one_currency_labels_the_table_and_workbook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eur = write_sheets(tmp_path / "b.xlsx", _sheets("€"))
    out = tmp_path / "c.xlsx"
    assert main(["compare", str(eur), "--output", str(out)]) == 0
    table = capsys.readouterr().out.splitlines()
    total = next(line for line in table if line.startswith("Total cost ("))
    assert re.split(r"\s{2,}", total) == [
        "Total cost (€, cash; the objective)",
        "€ 28,195.08",
        "€ 19,391.60",
    ]
    assert not any("$" in line or "USD" in line for line in table)
    sheet = openpyxl.load_workbook(out)["Comparison"]
    formats = {
        c.number_format for row in sheet.iter_rows() for c in row if isinstance(c.value, float)
    }
    assert money_format("€") in formats and "$#,##0.00" not in formats
    assert not any(
        isinstance(c.value, str) and ("USD" in c.value or "$" in c.value)
        for row in sheet.iter_rows()
        for c in row
    )


@pytest.mark.parametrize(
    ("currency", "electricity", "warned"),
    [("EUR", False, True), ("EUR", True, False), (None, False, False)],
    ids=["EUR, blank", "EUR, set", "USD, blank"],
)
def test_a_usd_money_default_left_blank_in_another_currency_is_said(
    tmp_path: Path, currency: str | None, electricity: bool, warned: bool
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _sheets(currency, electricity=electricity))
    line = (
        "warning: the currency is EUR but these money keys were left blank and use their USD "
        "defaults, unconverted: electricity_per_kwh = 0.1 (USD per kWh); set them in sheet "
        "Assumptions in EUR"
    )
    for scenario in load_input(path).scenarios:
        # The Scenarios sheet's eu row sets electricity_per_kwh itself.
        expected = warned and scenario.name == "us"
        assert (line in scenario_warnings(scenario)) is expected, scenario.name


def test_in_place_result_sheets_carry_the_currency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _sheets("EUR"))
    assert main(["solve", str(path), "--in-place", "--quiet"]) == 0
    book = openpyxl.load_workbook(path)
    summary = book["Summary"]
    formats = {
        c.number_format for row in summary.iter_rows() for c in row if isinstance(c.value, float)
    }
    assert money_format("EUR") in formats and "$#,##0.00" not in formats
    audit = [c.value for row in book["Audit"].iter_rows() for c in row if isinstance(c.value, str)]
    assert "EUR per kWh" in audit and "USD per kWh" not in audit  # electricity_per_kwh's unit
