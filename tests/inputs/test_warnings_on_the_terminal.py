"""Input warnings reach the terminal (issue 35 item 7).

``solve`` never printed them (``validate`` does), and the "did you mean" for a
misspelt header disappeared as soon as any error was reported beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import set_cell, sha256, valid_sheets, write_sheets

_PRICE_ZERO = (
    "warning: L40S spot offer, Prices row 6 has price 0 — the planner treats it as free; "
    "leave the row out if the price is unknown"
)
_TYPO = (
    "warning: input.xlsx, sheet Workloads, cell M1: header 'min_replcas' is not a column gpumix "
    "reads; did you mean min_replicas? its values are ignored (rename the header to "
    "min_replicas if they are meant)"
)


def _workbook(tmp_path: Path) -> Path:
    sheets = set_cell(valid_sheets(), "Prices", 6, "price", 0)
    set_cell(sheets, "Scenarios", 3, "exclude_gpus", None)
    sheets["Scenarios"] = sheets["Scenarios"][:2]  # one scenario: us
    return write_sheets(tmp_path / "input.xlsx", sheets)


def test_solve_prints_the_input_warnings_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _workbook(tmp_path)
    assert main(["solve", str(path), "--output", str(tmp_path / "a.xlsx")]) == 0
    out, err = capsys.readouterr()
    assert _PRICE_ZERO in err.splitlines()
    assert "warning" not in out


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_quiet_and_json_solves_print_no_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    path = _workbook(tmp_path)
    assert main(["solve", str(path), flag, "--output", str(tmp_path / "a.xlsx")]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    if flag == "--json":
        json.loads(out)  # stdout stays JSON alone


def test_did_you_mean_stays_beside_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = set_cell(valid_sheets(), "Workloads", 3, "min_replcas", 2)
    set_cell(sheets, "GPUs", 2, "vram_gb", -1)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and sha256(path) == before
    lines = err.splitlines()
    assert lines[0] == "1 problem in the input:"
    assert lines[1].startswith("  - input.xlsx, sheet GPUs, cell B2, column vram_gb:")
    assert lines[2:] == [_TYPO]
