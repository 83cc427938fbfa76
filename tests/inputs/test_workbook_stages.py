"""A workbook's problems come in one validate run, also when they share a row.

A Workloads row with a bad cell is left out of the scenarios, but the cells
that read fine are still checked later: its window against each scenario's
horizon, the Demand rows against its window, a recurring run's deadline
against a month's hours. A Futures row with a problem still gives its future's
probability to the sum. A check whose input cell had a problem is skipped, so
no problem follows from another; each has the words it has alone.

The workbook is ``tests.conftest.valid_sheets()``: scenario ``us`` (24 months,
every workload) and ``eu`` (12 months, lora-7b and chat-8b).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import Sheets, set_cell, sha256, valid_sheets, write_sheets
from tests.inputs.test_futures_sheet import HEADER as FUTURES_HEADER

_ = None
F = "input.xlsx, sheet Workloads"


@pytest.fixture
def validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[[Sheets], list[str]]:
    """``validate(sheets)``: the problems one validate run prints (one line each) for a
    workbook of ``sheets``; the workbook does not change."""

    def run(sheets: Sheets) -> list[str]:
        workbook = write_sheets(tmp_path / "input.xlsx", sheets)
        before = sha256(workbook)
        code = main(["validate", str(workbook)])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert sha256(workbook) == before
        head, *lines = err.splitlines()
        assert head == f"{len(lines)} problem{'s' if len(lines) > 1 else ''} in the input:"
        return [line.removeprefix("  - ") for line in lines]

    return run


def _past(cell: str, scenario: str, horizon: int, end: int, start: int) -> str:
    row = {"us": 2, "eu": 3}[scenario]
    return (
        f"{F}, cell {cell}, column end_month: scenario {scenario!r}: the window ends in month "
        f"{end}, past its {horizon}-month horizon (horizon_months from Scenarios sheet, row "
        f"{row}) (found {end}); expected a month from {start} to {horizon}"
    )


def test_a_bad_precision_and_a_window_past_the_horizon_in_one_row(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 2, "precision", "bf32")
    set_cell(sheets, "Workloads", 2, "end_month", 30)
    assert validate(sheets) == [
        f"{F}, cell D2, column precision: unknown precision; did you mean 'fp32'? "
        "(found 'bf32'); expected one of fp32, bf16, fp16, fp8, int8, int4",
        _past("J2", "us", 24, 30, 1),
        _past("J2", "eu", 12, 30, 1),
    ]


def test_a_bad_latency_and_a_demand_row_outside_the_window(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "latency_ms", "x")
    set_cell(sheets, "Workloads", 3, "start_month", 5)
    sheets["Demand"] = [["workload", "month", "value"], ["chat-8b", 2, 600]]
    assert validate(sheets) == [
        f"{F}, cell G3, column latency_ms: not a number (found 'x'); expected a number > 0 (ms)",
        "input.xlsx, sheet Demand, cell B2, column month: outside the window of 'chat-8b' "
        "(months 5 on) (found 2); expected a month from 5",
    ]


def test_a_bad_start_month_makes_no_demand_row_outside_the_window(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "start_month", "x")
    set_cell(sheets, "Workloads", 3, "end_month", 40)
    sheets["Demand"] = [["workload", "month", "value"], ["chat-8b", 2, 600]]
    assert validate(sheets) == [
        f"{F}, cell I3, column start_month: not a number (found 'x'); "
        "expected a whole number ≥ 1 (month)",
    ]


def test_a_bad_runs_per_month_a_deadline_too_long_and_a_window_past_the_horizon(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 4, "runs_per_month", "x")
    set_cell(sheets, "Workloads", 4, "deadline_hours", 800)
    set_cell(sheets, "Workloads", 4, "end_month", 30)
    assert validate(sheets) == [
        f"{F}, cell M4, column runs_per_month: not a number (found 'x'); "
        "expected a number > 0 (runs)",
        _past("J4", "us", 24, 30, 2),
        f"{F}, cell N4, column deadline_hours: scenario 'us': longer than a month's 693.5 "
        "working hours (max_utilization 0.95 × hours_per_month 730); a recurring run "
        "(runs_per_month given) must fit inside a month (found 800.0); "
        "expected a number > 0, at most 693.5 (hours)",
    ]


def test_a_bad_kind_skips_the_deadline_and_the_demand_rows_but_not_the_window(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 4, "kind", "batch")
    set_cell(sheets, "Workloads", 4, "runs_per_month", 2)
    set_cell(sheets, "Workloads", 4, "deadline_hours", 800)
    set_cell(sheets, "Workloads", 4, "end_month", 30)
    sheets["Demand"] = [["workload", "month", "value"], ["batch-8b", 1, 600]]
    lines = validate(sheets)
    assert lines[1:] == [_past("J4", "us", 24, 30, 2)]
    assert "column kind: unknown kind" in lines[0]


def test_a_futures_row_with_a_bad_price_factor_still_counts_in_the_sum(
    validate: Callable[[Sheets], list[str]],
) -> None:
    sheets = valid_sheets()
    sheets["Futures"] = [FUTURES_HEADER, ["us", "b", 0.2, _, _, _, _, _, _, _, _, 0]]
    assert validate(sheets) == [
        "input.xlsx, sheet Futures, cell L2, column price_factor: must be more than 0 "
        "(found 0.0); expected a number > 0 (factor)",
        "input.xlsx, sheet Futures, column probability: scenario 'us': the probabilities of "
        "its futures (b 0.2) sum to 0.2, not 1; expected probabilities that sum to 1 "
        "(a third: =1/3, not 0.33)",
    ]


def test_a_bad_probability_skips_the_sum(validate: Callable[[Sheets], list[str]]) -> None:
    sheets = valid_sheets()
    sheets["Futures"] = [
        FUTURES_HEADER,
        ["us", "a", 0.2, _, _, _, _, _, _, _, _, _],
        ["us", "b", "x", _, _, _, _, _, _, _, _, _],
    ]
    assert validate(sheets) == [
        "input.xlsx, sheet Futures, cell C3, column probability: not a number (found 'x'); "
        "expected a number > 0 (fraction), at most 1",
    ]


def test_a_future_naming_a_workload_with_problems_is_no_problem_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "latency_ms", "x")
    sheets["Futures"] = [FUTURES_HEADER, ["us", "a", 1, _, _, _, "chat-8b", 2, _, _, _, _]]
    write_sheets(tmp_path / "input.xlsx", sheets)
    path = tmp_path / "s.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: f\n    base: eu\n    futures:\n"
        "      - {name: low, probability: 1, demand_factors: {chat-8b: 2}}\n"
    )
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    assert sha256(path) == before
    assert capsys.readouterr().err.splitlines() == [
        "1 problem in the input:",
        f"  - {F}, cell G3, column latency_ms: not a number (found 'x'); "
        "expected a number > 0 (ms)",
    ]
