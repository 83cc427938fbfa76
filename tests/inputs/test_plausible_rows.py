"""Warnings for figures allowed but no real one has (issue 33 item 12).

The new user's ``growth_per_month`` of 4 (0.04 meant) and ``vram_gb`` of
80000 (typed in MB) validated "OK" without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import Sheets, set_cell, sha256, valid_sheets, write_sheets

_TAIL = "; gpumix plans with it as given, check it is not a typo"


def _uncatalogued() -> Sheets:
    """The valid input with its GPU renamed to one the GPU catalogue does not know, so that
    the catalogue's own "times apart" warning (tests/inputs/test_catalogue.py) stays out."""
    sheets = valid_sheets()
    for rows in sheets.values():
        for row in rows[1:]:
            row[:] = ["X100" if cell == "H100" else cell for cell in row]
    return sheets


def _warnings(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    before = sha256(path)
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and sha256(path) == before
    return [line for line in out.splitlines() if line.startswith("warning")]


def test_vram_in_mb_and_a_fast_growth_are_warned_naming_the_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = set_cell(_uncatalogued(), "GPUs", 2, "vram_gb", 80_000)
    set_cell(sheets, "Workloads", 3, "growth_per_month", 0.5)
    warnings = _warnings(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert warnings == [
        "warning: input.xlsx, sheet GPUs, cell B2: vram_gb is 80,000, more memory than any GPU "
        f"made (the largest hold 432 GB); is it in MB?{_TAIL}",
        "warning: input.xlsx, sheet Workloads, cell M3: growth_per_month is 0.5, which "
        "multiplies demand by 129.7 in a year (×1.5 a month; fractions are plain numbers: "
        f"0.04 is 4 % a month){_TAIL}",
    ]


def test_a_catalogued_gpu_gets_one_warning_per_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # H100 is in the GPU catalogue: its "times apart" warning names both values; the
    # "more memory than any GPU made" warning for the same cell would say it again.
    sheets = set_cell(valid_sheets(), "GPUs", 2, "vram_gb", 80_000)
    warnings = _warnings(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert len(warnings) == 1 and "80000 against the GPU catalogue's 80 GB" in warnings[0]


def test_real_figures_are_not_warned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = set_cell(_uncatalogued(), "GPUs", 2, "vram_gb", 288)
    set_cell(sheets, "Workloads", 3, "growth_per_month", 0.2)  # ×8.9 a year
    set_cell(sheets, "GPUs", 2, "tdp_w", 1_400)
    assert _warnings(write_sheets(tmp_path / "input.xlsx", sheets), capsys) == []


def test_growth_of_4_is_refused_and_its_warning_says_what_it_implies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Over the 24-month scenario it passes the bound (an error); the warning stays beside it.
    sheets = set_cell(valid_sheets(), "Workloads", 3, "growth_per_month", 4)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "warning: input.xlsx, sheet Workloads, cell M3: growth_per_month is 4, which multiplies "
        "demand by 2.441e+08 in a year (×5 a month; fractions are plain numbers: 0.04 is 4 % "
        f"a month){_TAIL}"
    )


def test_fast_growth_in_a_scenario_file_is_warned_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "g.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    horizon_months: 12\n    futures:\n"
        "      - {name: boom, probability: 0.5, growth_per_month: 0.5}\n"
        "      - {name: flat, probability: 0.5}\n",
        encoding="utf-8",
    )
    assert _warnings(path, capsys) == [
        "warning: g.yaml, line 6: growth_per_month is 0.5, which multiplies demand by 129.7 in "
        "a year (×1.5 a month; fractions are plain numbers: 0.04 is 4 % a month)" + _TAIL
    ]
