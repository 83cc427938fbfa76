"""``gpumix futures``: the command writes the futures workbook and prints the plan or the JSON.

The workbook is ``tests.conftest.valid_sheets()``; the scenario file plans
its chat service alone for six months, in two futures.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli import main
from optimizer.reports.futures_workbook import SHEET
from tests.conftest import sha256

CENT = 0.005
FILE = """\
workbook: input.xlsx
scenarios:
  - name: plain
    base: us
    horizon_months: 6
    workloads: [chat-8b]
  - name: two-ways
    base: us
    horizon_months: 6
    workloads: [chat-8b]
    decide_by_month: 2
    futures:
      - {name: quiet, probability: 0.6}
      - {name: busy, probability: 0.4, demand_factor: 3}
"""


@pytest.fixture
def inputs(tmp_path: Path, write_workbook: Callable[..., Path]) -> Path:
    write_workbook()
    path = tmp_path / "bet.yaml"
    path.write_text(FILE)
    return path


def test_the_command_plans_the_first_scenario_with_futures_and_prints_json(
    inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sha256(inputs), sha256(tmp_path / "input.xlsx")
    out = tmp_path / "out.xlsx"
    assert main(["futures", str(inputs), "--output", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scenario"] == "two-ways"
    assert data["decide_by_month"] == 2
    assert [f["future"] for f in data["futures"]] == ["quiet", "busy"]
    costs = [f["total_cost"] for f in data["futures"]]
    assert data["expected_cost"] == pytest.approx(0.6 * costs[0] + 0.4 * costs[1], abs=CENT)
    assert data["evpi"] >= -CENT and data["vss"] >= -CENT
    for f in data["futures"]:
        assert f["regret"] == pytest.approx(f["total_cost"] - f["alone_cost"], abs=CENT)
        assert f["regret"] >= -CENT
    book = openpyxl.load_workbook(out, data_only=True)
    assert book.sheetnames[0] == SHEET and "Summary" in book.sheetnames
    rows = {r[0].value: [c.value for c in r[1:]] for r in book[SHEET].iter_rows() if r[0].value}
    expected = rows["Expected total cost of the shared plan (USD)"][0]
    assert expected == pytest.approx(data["expected_cost"], abs=CENT)
    assert (sha256(inputs), sha256(tmp_path / "input.xlsx")) == before


def test_the_terminal_says_what_to_decide_now_and_each_futures_regret(
    inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["futures", str(inputs), "--output", str(tmp_path / "o.xlsx")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("two-ways: optimal, expected total cost $")
    assert lines[1].startswith("  decide now (to month 2): ")
    assert lines[2].startswith("  quiet (60%): $") and "planned alone" in lines[2]
    assert lines[3].startswith("  busy (40%): $")
    assert lines[4].startswith("  EVPI $")
    assert "-$0.00" not in "\n".join(lines)
    assert lines[-1] == f"wrote {tmp_path / 'o.xlsx'}"


def test_a_scenario_without_futures_is_a_usage_error_naming_it(
    inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["futures", str(inputs), "--scenario", "plain", "--output", str(tmp_path / "x.xlsx")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert (
        "scenario 'plain' has no futures: add rows to sheet Futures, or a futures: list to the "
        "scenario in a scenario file" in err
    )
    assert not (tmp_path / "x.xlsx").exists()
