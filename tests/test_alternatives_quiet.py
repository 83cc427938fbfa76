"""``alternatives --quiet`` where no plan exists says why on stderr (issue 33 item 10).

It exited 1 with nothing on stderr: quiet drops the summary, not the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from tests.conftest import set_cell, sha256, valid_sheets, write_sheets


def test_quiet_alternatives_with_no_plan_say_why_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = set_cell(valid_sheets(), "Scenarios", 2, "budget_total", 1)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    before = sha256(path)
    args = ["alternatives", str(path), "--scenario", "us", "--goal", "least_capex", "--quiet"]
    assert main([*args, "--output", str(tmp_path / "out.xlsx")]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(
        "us: infeasible — no plan meets every requirement:\n  - total budget short by $"
    )
    assert sha256(path) == before
