"""Caps on every list of a scenario file, and reading in linear time (issue 33 item 4).

A 4.77 MB file of 90,000 ``fleet:`` entries kept ``validate`` running past
90 s: each entry's place was found with ``list.index`` over every place
(quadratic), after the file was parsed twice by the pure-Python YAML parser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.inputs.scenario_file.lines import YamlWhere
from optimizer.inputs.scenario_file.models import LIST_CAPS
from optimizer.inputs.scenario_file.read import parse_scenario_file
from tests.conftest import sha256, valid_sheets, write_sheets


def _fleet_file(folder: Path, entries: int) -> Path:
    write_sheets(folder / "input.xlsx", valid_sheets())
    lines = ["workbook: input.xlsx", "scenarios:", "  - name: a", "    fleet:"]
    lines += [
        f"      - {{gpu: H100, count: 1, kind: owned, price: {1000 + i}}}" for i in range(entries)
    ]
    path = folder / "fleet.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_fleet_entries_are_put_in_order_without_comparing_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counted, not timed: the old code compared places n² / 2 times (2,000 entries:
    # about 2 million comparisons; 90,000: 4 billion).
    compared = 0
    equal = YamlWhere.__eq__

    def counting(self: YamlWhere, other: object) -> bool:
        nonlocal compared
        compared += 1
        return equal(self, other)

    monkeypatch.setattr(YamlWhere, "__eq__", counting)
    read, problems = parse_scenario_file(_fleet_file(tmp_path, 2_000))
    assert problems == []
    assert read is not None
    assert [e.price for e in read.scenarios[0].fleet][:3] == [1000.0, 1001.0, 1002.0]
    assert len(read.scenarios[0].fleet) == 2_000
    assert compared <= 2_000


def test_a_list_longer_than_its_cap_is_refused_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _fleet_file(tmp_path, LIST_CAPS["fleet"] + 1)
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert sha256(path) == before
    assert err == (
        "1 problem in the input:\n  - fleet.yaml, line 5: fleet has 10,001 entries, more than "
        "a scenario file may hold; expected at most 10,000 (README, Limits)\n"
    )


def test_a_list_at_its_cap_is_read(tmp_path: Path) -> None:
    text = (
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    exclude_gpus: ["
        + ", ".join(["L40S"] * LIST_CAPS["exclude_gpus"])
        + "]\n"
    )
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    read, problems = parse_scenario_file(path)
    assert problems == [] and read is not None
    path.write_text(text.replace("[L40S, ", "[L40S, L40S, "), encoding="utf-8")
    _, problems = parse_scenario_file(path)
    assert [p.message for p in problems] == [
        "exclude_gpus has 10,001 entries, more than a scenario file may hold"
    ]
