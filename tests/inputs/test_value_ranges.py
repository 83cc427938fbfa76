"""Value ranges as the contract states them, on every input path.

``resale_decline_per_year`` is in [0, 1) (model v2 §E): 1 is refused.
``growth_per_month`` is a fraction ≥ 0 with no upper bound, and
``horizon_months`` a whole number ≥ 1 (workbook.md): 1.5 and 300 are
accepted. The paths are the Assumptions sheet, a Scenarios column, a scenario
file's ``assumptions:`` and ``horizon_months``, sheet Workloads, sheet Futures
and a scenario file's ``futures:``. A refused input exits 2 with the exact
message and the file unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.inputs.load import load_input
from tests.conftest import set_cell, sha256, valid_sheets, write_sheets

_BELOW_ONE = "must be less than 1 (fractions are plain numbers: 0.05 is 5 %)"
_DECLINE = "a number ≥ 0, less than 1 (fraction per year)"


def _refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert sha256(path) == before
    return err


@pytest.mark.parametrize(
    ("edits", "place"),
    [
        (
            [("Assumptions", 4, "key", "resale_decline_per_year"), ("Assumptions", 4, "value", 1)],
            "sheet Assumptions, cell B4, column value: resale_decline_per_year",
        ),
        (
            [("Scenarios", 3, "resale_decline_per_year", 1)],
            "sheet Scenarios, cell H3, column resale_decline_per_year",
        ),
    ],
    ids=["Assumptions sheet", "Scenarios column"],
)
def test_a_resale_decline_of_one_is_refused_in_the_workbook(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edits: list[tuple[str, int, str, object]],
    place: str,
) -> None:
    sheets = valid_sheets()
    for sheet, row, column, value in edits:
        set_cell(sheets, sheet, row, column, value)
    err = _refused(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert err == (
        f"1 problem in the input:\n  - input.xlsx, {place}: {_BELOW_ONE} (found 1.0); "
        f"expected {_DECLINE}\n"
    )


def test_a_resale_decline_of_one_is_refused_in_a_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workbook = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "s.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n"
        "    assumptions: {resale_decline_per_year: 1}\n",
        encoding="utf-8",
    )
    before = sha256(workbook)
    err = _refused(path, capsys)
    assert err == (
        "1 problem in the input:\n  - s.yaml, line 4: scenario 'a', "
        f"assumptions.resale_decline_per_year: {_BELOW_ONE} (found 1); expected {_DECLINE}\n"
    )
    assert sha256(workbook) == before


def test_a_resale_decline_just_below_one_is_accepted(tmp_path: Path) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Assumptions", 4, "key", "resale_decline_per_year")
    set_cell(sheets, "Assumptions", 4, "value", 0.99)
    loaded = load_input(write_sheets(tmp_path / "input.xlsx", sheets))
    assert {s.assumptions.resale_decline_per_year for s in loaded.scenarios} == {0.99}


def test_growth_above_one_is_accepted_in_workloads_futures_and_a_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = set_cell(valid_sheets(), "Workloads", 3, "growth_per_month", 1.5)
    sheets["Futures"] = [
        ["scenario", "future", "probability", "workload", "growth_per_month"],
        ["us", "boom", 0.5, "chat-8b", 3],
        ["us", "calm", 0.5, None, None],
    ]
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    us = next(s for s in load_input(path).scenarios if s.name == "us")
    assert {w.name: w.growth_per_month for w in us.workloads}["chat-8b"] == 1.5
    assert us.futures is not None
    assert dict(us.futures.futures[0].workload_growth) == {"chat-8b": 3.0}
    scenario_file = tmp_path / "s.yaml"
    scenario_file.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    base: eu\n    futures:\n"
        "      - {name: boom, probability: 0.5, growth_per_month: 2, growth: {chat-8b: 4}}\n"
        "      - {name: calm, probability: 0.5}\n",
        encoding="utf-8",
    )
    assert main(["validate", str(scenario_file)]) == 0, capsys.readouterr().err
    (a,) = load_input(scenario_file).scenarios
    assert a.futures is not None
    boom = a.futures.futures[0]
    assert (boom.growth_per_month, dict(boom.workload_growth)) == (2.0, {"chat-8b": 4.0})


def test_a_horizon_of_300_months_is_accepted_in_the_sheet_and_a_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheets(
        tmp_path / "input.xlsx", set_cell(valid_sheets(), "Scenarios", 2, "horizon_months", 300)
    )
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    assert [s.horizon_months for s in load_input(path).scenarios] == [300, 12]
    scenario_file = tmp_path / "s.yaml"
    scenario_file.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: long\n    horizon_months: 300\n",
        encoding="utf-8",
    )
    assert main(["validate", str(scenario_file)]) == 0, capsys.readouterr().err
    assert [s.horizon_months for s in load_input(scenario_file).scenarios] == [300]


def test_a_horizon_too_large_to_plan_is_refused_by_its_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """horizon_months 1e9 once passed validate and solve died of a MemoryError; a horizon
    is now at most 1,200 months, like every month gpumix reads (issue 33 item 2)."""
    sheets = set_cell(valid_sheets(), "Scenarios", 2, "horizon_months", 1_000_000_000)
    err = _refused(write_sheets(tmp_path / "long.xlsx", sheets), capsys)
    assert err == (
        "1 problem in the input:\n  - long.xlsx, sheet Scenarios, cell B2, column "
        "horizon_months: must be at most 1,200, the largest gpumix plans (found 1000000000.0); "
        "expected a whole number ≥ 1 (months)\n"
    )
