"""Doubtful but allowed input is a warning: near-miss headers and keys, implausible values.

The contract ignores extra columns and only asks ``hours_per_month`` and
``pue`` to be more than 0, so none of these stop a plan; each is printed by
``validate`` and carried in the plan's diagnostics by ``solve``, naming the
file, sheet and cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import set_cell, sha256, valid_sheets, write_sheets

MIN_REPLICAS = (
    "warning: input.xlsx, sheet Workloads, cell M1: header 'min replicas' is not a column "
    "gpumix reads; did you mean min_replicas? its values are ignored (rename the header to "
    "min_replicas if they are meant)"
)
MAX_UNITS = (
    "warning: input.xlsx, sheet Prices, cell E1: header 'max unit (GPUs)' is not a column "
    "gpumix reads; did you mean max_units? its values are ignored (rename the header to "
    "max_units if they are meant)"
)
HOURS = (
    "warning: input.xlsx, sheet Assumptions, cell B4: hours_per_month is 7300, more than the "
    "744 hours of the longest month (31 × 24; an average month has 730); gpumix plans with it "
    "as given, check it is not a typo"
)
PUE = (
    "warning: input.xlsx, sheet Assumptions, cell B3: pue is 0.5, less than 1, yet a site "
    "cannot draw less power than its IT equipment (1 means no cooling overhead; the default is "
    "1.3); gpumix plans with it as given, check it is not a typo"
)


def _validate_and_solve(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[str]]:
    """validate's standard output, and the first scenario's diagnostics from solve --json."""
    before = sha256(path)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert main(["solve", str(path), "--json", "--output", str(tmp_path / "r.xlsx")]) == 0
    (entry, *_) = json.loads(capsys.readouterr().out)["scenarios"]
    assert sha256(path) == before  # the input is never changed
    return out, entry["diagnostics"]


def test_near_miss_headers_are_warnings_naming_the_cell_and_the_column_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "min replicas", 2)
    sheets["Prices"][0][4] = "max unit (GPUs)"
    out, diagnostics = _validate_and_solve(
        write_sheets(tmp_path / "input.xlsx", sheets), tmp_path, capsys
    )
    assert MIN_REPLICAS in out.splitlines()
    assert MAX_UNITS in out.splitlines()
    assert MIN_REPLICAS in diagnostics and MAX_UNITS in diagnostics


@pytest.mark.parametrize("header", ["Min-Replicas", "MIN_REPLICA (replicas)", " min  replicas "])
def test_spaces_hyphens_case_and_units_are_ignored_when_comparing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, header, 2)
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    assert (
        f"header {header.strip()!r} is not a column gpumix reads; did you mean min_replicas?"
        in (capsys.readouterr().out)
    )


def test_unrelated_extra_columns_and_present_columns_are_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Prices", 2, "notes", "anything at all")
    set_cell(sheets, "Assumptions", 2, "unit", "USD per kWh")
    set_cell(sheets, "Workloads", 3, "min_replicas (replicas)", 2)
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    assert "warning" not in capsys.readouterr().out


def test_an_assumption_key_with_its_unit_gets_a_suggestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["Assumptions"][2][0] = "pue (ratio)"
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 2
    assert (
        "input.xlsx, sheet Assumptions, cell A3, column key: unknown assumption key; did you "
        "mean 'pue'? (found 'pue (ratio)'); expected a key listed in the README sheet"
    ) in capsys.readouterr().err


def test_implausible_hours_per_month_and_pue_are_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["Assumptions"][2][1] = 0.5
    sheets["Assumptions"].append(["hours_per_month", 7300, None])
    out, diagnostics = _validate_and_solve(
        write_sheets(tmp_path / "input.xlsx", sheets), tmp_path, capsys
    )
    assert PUE in out.splitlines() and HOURS in out.splitlines()
    assert PUE in diagnostics and HOURS in diagnostics


def test_an_implausible_value_in_a_scenario_row_names_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Scenarios", 3, "pue", 0.9)
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    assert "warning: input.xlsx, sheet Scenarios, cell H3: pue is 0.9, less than 1" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(("key", "value"), [("hours_per_month", 744), ("pue", 1)])
def test_the_limits_themselves_are_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: float
) -> None:
    sheets = valid_sheets()
    sheets["Assumptions"] = [row for row in sheets["Assumptions"] if row[0] != key]
    sheets["Assumptions"].append([key, value, None])
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    assert "warning" not in capsys.readouterr().out


def test_an_implausible_value_in_a_scenario_file_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "odd.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: odd\n    assumptions:\n"
        "      electricity_per_kwh: 0.2\n      hours_per_month: 7300\n",
        encoding="utf-8",
    )
    assert main(["validate", str(path)]) == 0
    assert (
        "warning: odd.yaml, line 6: hours_per_month is 7300, more than the 744 hours of the "
        "longest month"
    ) in capsys.readouterr().out
