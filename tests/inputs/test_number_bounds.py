"""One bound on every number gpumix reads (issue 33 item 2).

An outside check typed 1e308 into a price, a Fleet price, hours_per_month,
vram_gb, tokens, max_units, a Fleet count, a Demand value and a Futures
price_factor: each passed ``validate`` and then crashed the solve (SCIP
"error in input data", ``OverflowError``, ``PulpError``, "internal check
failed"); a Fleet count of 1e9, months_left 1e9, age_months 1e6 and a Demand
month of 1e18 were planned. Each is now refused where it is read, exit 2,
naming the cell and the bound, with the input unchanged — in a workbook, a
scenario file, ``--vary`` and ``--slack`` alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.inputs import schema
from optimizer.inputs.schema import ColumnType
from tests.conftest import Sheets, set_cell, sha256, valid_sheets, write_sheets

HUGE = 1e308
_FLEET = ["gpu", "count", "kind", "price", "months_left", "age_months"]
_FUTURES = ["scenario", "future", "probability", "gpu", "option", "price_factor"]


def _with_fleet_and_futures() -> Sheets:
    sheets = valid_sheets()
    sheets["Fleet"] = [_FLEET, ["H100", 2, "owned", 20000, None, 3], ["H100", 1, "reserved", 2, 6]]
    sheets["Demand"] = [["workload", "month", "value"], ["chat-8b", 2, 600]]
    sheets["Futures"] = [
        _FUTURES,
        ["us", "dear", 0.5, "H100", "reserved", 1.5],
        ["us", "same", 0.5],
    ]
    return sheets


def _refused(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    before = sha256(path)
    assert main(["validate", str(path), *extra]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert sha256(path) == before
    return err


def test_the_valid_workbook_with_fleet_demand_and_futures_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _with_fleet_and_futures())
    assert main(["validate", str(path)]) == 0


@pytest.mark.parametrize(
    ("sheet", "row", "column", "value", "cell", "bound"),
    [
        ("Prices", 2, "price", HUGE, "C2", "1,000,000,000"),
        ("Prices", 3, "max_units", HUGE, "E3", "1,000,000"),
        ("GPUs", 3, "vram_gb", HUGE, "B3", "100,000"),
        ("Workloads", 2, "tokens", HUGE, "E2", "1e+18"),
        ("Fleet", 2, "price", HUGE, "D2", "1,000,000,000"),
        ("Fleet", 3, "price", HUGE, "D3", "1,000,000,000"),
        ("Fleet", 2, "count", 1e9, "B2", "1,000,000"),
        ("Fleet", 3, "months_left", 1e9, "E3", "1,200"),
        ("Fleet", 2, "age_months", 1e6, "F2", "1,200"),
        ("Demand", 2, "value", HUGE, "C2", "1e+18"),
        ("Demand", 2, "month", 1e18, "B2", "1,200"),
        ("Futures", 2, "price_factor", HUGE, "F2", "1,000"),
        ("Scenarios", 2, "budget_total", HUGE, "C2", "10,000,000,000,000"),
    ],
)
def test_a_huge_number_in_a_cell_is_refused_naming_the_cell_and_the_bound(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sheet: str,
    row: int,
    column: str,
    value: float,
    cell: str,
    bound: str,
) -> None:
    sheets = _with_fleet_and_futures()
    set_cell(sheets, sheet, row, column, value)
    err = _refused(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    lines = err.splitlines()
    assert lines[0] == "1 problem in the input:"
    assert lines[1].startswith(
        f"  - input.xlsx, sheet {sheet}, cell {cell}, column {column}: must be at most "
        f"{bound}, the largest gpumix plans (found "
    )


def test_hours_per_month_of_1e308_is_refused_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Assumptions", 4, "key", "hours_per_month")
    set_cell(sheets, "Assumptions", 4, "value", HUGE)
    err = _refused(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert err == (
        "1 problem in the input:\n  - input.xlsx, sheet Assumptions, cell B4, column value: "
        "hours_per_month: must be at most 8,784, the largest gpumix plans (found 1e+308); "
        "expected a number > 0 (hours)\n"
    )


def test_the_bound_itself_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = _with_fleet_and_futures()
    set_cell(sheets, "Fleet", 2, "count", schema.MAX_GPUS)
    set_cell(sheets, "Demand", 2, "month", 24)
    set_cell(sheets, "Prices", 2, "price", schema.MAX_PRICE)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    assert main(["validate", str(path)]) == 0


def test_every_number_of_every_sheet_and_assumption_has_a_bound() -> None:
    numbers = (ColumnType.NUMBER, ColumnType.INTEGER)
    for sheet in schema.INPUT_SHEETS:
        for column in sheet.columns:
            if column.type in numbers:
                assert column.maximum is not None or column.at_most_one, column.name
    for key in schema.ASSUMPTIONS:
        if key.column_type is ColumnType.NUMBER:
            assert key.maximum is not None or key.at_most_one or key.below_one, key.key


_HUGE_YAML = """\
workbook: input.xlsx
scenarios:
  - name: a
    horizon_months: 100000
    power_cap_kw: 1.0e308
    assumptions: {hours_per_month: 1.0e308}
    prices: [{gpu: H100, option: buy, price: 1.0e308}]
    demand: [{workload: chat-8b, month: 2, value: 1.0e308}]
    fleet: [{gpu: H100, count: 1000000000, kind: owned, price: 1.0e308, age_months: 1000000}]
    futures:
      - {name: dear, probability: 0.5, prices: [{gpu: H100, multiply: 1.0e308}]}
      - {name: same, probability: 0.5, growth_per_month: 1.0e308}
"""


def test_huge_numbers_in_a_scenario_file_are_refused_each_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workbook = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "s.yaml"
    path.write_text(_HUGE_YAML, encoding="utf-8")
    before = sha256(workbook)
    err = _refused(path, capsys)
    assert sha256(workbook) == before
    lines = err.splitlines()
    assert lines[0] == "10 problems in the input:", err
    for line, key in [
        (4, "horizon_months"),
        (5, "power_cap_kw"),
        (6, "assumptions.hours_per_month"),
        (7, "prices"),
        (8, "demand"),
        (9, "fleet"),
        (11, "futures"),
        (12, "futures"),
    ]:
        assert any(f"s.yaml, line {line}: scenario 'a', {key}" in x for x in lines), (line, err)
    # A YAML 1.1 text like 1.0e308 is read as the number it means, then bounded.
    assert (
        "  - s.yaml, line 5: scenario 'a', power_cap_kw: must be at most 1,000,000,000, "
        "the largest gpumix plans (found '1.0e308')"
    ) in lines


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        (
            "hours_per_month=1e308:1e308:1",
            "hours_per_month cannot be 1e+308; expected a number > 0 and ≤ 8,784 (hours)",
        ),
        (
            "price:H100:buy=1:1e300:2",
            "price:H100:buy cannot be 1e+300; expected a number ≥ 0 and ≤ 1,000,000,000",
        ),
        (
            "budget_total=0:1e300:2",
            "budget_total cannot be 1e+300; expected a number ≥ 0 and ≤ 10,000,000,000,000",
        ),
    ],
)
def test_a_huge_vary_value_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vary: str, message: str
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    err = _sweep_refused(path, capsys, vary)
    assert err == f"gpumix sweep: --vary {vary!r}: {message}\n"


def _sweep_refused(path: Path, capsys: pytest.CaptureFixture[str], vary: str) -> str:
    before = sha256(path)
    assert main(["sweep", str(path), "--vary", vary, "--output", str(path.parent / "o.xlsx")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert sha256(path) == before
    assert not (path.parent / "o.xlsx").exists()
    return err


def test_varying_the_currency_is_a_usage_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 33 item 6: a ValueError traceback, exit 1.
    path = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    err = _sweep_refused(path, capsys, "currency=1:2:2")
    assert err == (
        "gpumix sweep: --vary 'currency=1:2:2': currency is a label, not a number, and cannot "
        "be varied; expected a key that takes numbers (currency is set once, in sheet "
        "Assumptions)\n"
    )


def test_growth_that_leaves_any_plannable_demand_is_refused_naming_the_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4 where 0.04 was meant: ×5 a month, about 1e16 times month 1's demand by month 24.
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "growth_per_month", 4)
    err = _refused(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    error, warning = err.split("\nwarning: ")  # the plausibility warning stays (below)
    assert warning.startswith("input.xlsx, sheet Workloads, cell M3: growth_per_month is 4")
    assert error + "\n" == (
        "1 problem in the input:\n  - input.xlsx, sheet Workloads, cell M3, column "
        "growth_per_month: scenario 'us': compounded from month 1 to month 24, it multiplies "
        "demand by about 1e16, more than the 1,000,000,000,000 times gpumix plans (fractions "
        "are plain numbers: 0.04 is 4 % a month) (found 4.0); expected a fraction per month "
        "that keeps demand within 1,000,000,000,000 times its first month's\n"
    )
