"""Look-alike names get a warning naming both places (issue 33 item 8).

GPU ``H\\u200b100`` beside ``H100``, Cyrillic ``Н100`` beside ``H100`` and
futures ``high`` and ``h\\u200bigh`` were accepted as different names without a
word; the results then showed two rows that look the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.inputs.lookalike import skeleton
from tests.conftest import sha256, valid_sheets, write_sheets

_TAIL = "; the results would show two that look the same (retype one if they are meant to be one)"


def _validate(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    before = sha256(path)
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and sha256(path) == before
    return [line for line in out.splitlines() if "looks like" in line]


def test_lookalike_gpu_types_are_named_with_both_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["GPUs"] += [
        ["H\u200b100", 80, 989, 3350, 700, True, 8, None],
        ["\u041d100", 80, 989, 3350, 700, True, 8, None],
    ]
    warnings = _validate(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert warnings == [
        "warning: input.xlsx, sheet GPUs, cell A4: GPU type 'H\\u200b100' looks like GPU type "
        "'H100' (input.xlsx, sheet GPUs, cell A2) but is a different name (U+200B ZERO WIDTH "
        f"SPACE){_TAIL}",
        "warning: input.xlsx, sheet GPUs, cell A5: GPU type '\\u041d100' looks like GPU type "
        "'H100' (input.xlsx, sheet GPUs, cell A2) but is a different name (U+041D CYRILLIC "
        f"CAPITAL LETTER EN){_TAIL}",
    ]


def test_lookalike_futures_are_named_in_the_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["Futures"] = [
        ["scenario", "future", "probability"],
        ["us", "high", 0.5],
        ["us", "h\u200bigh", 0.5],
    ]
    warnings = _validate(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert warnings == [
        "warning: input.xlsx, sheet Futures, cell B3: future 'h\\u200bigh' looks like future "
        "'high' (input.xlsx, sheet Futures, cell B2) but is a different name (U+200B ZERO "
        f"WIDTH SPACE){_TAIL}"
    ]


def test_lookalike_futures_are_named_in_a_scenario_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "f.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    futures:\n"
        '      - {name: high, probability: 0.5}\n      - {name: "h\\u200bigh", probability: 0.5}\n',
        encoding="utf-8",
    )
    warnings = _validate(path, capsys)
    assert warnings == [
        "warning: f.yaml, line 5: future 'h\\u200bigh' looks like future 'high' (f.yaml, "
        f"line 5) but is a different name (U+200B ZERO WIDTH SPACE){_TAIL}"
    ]


def test_names_that_differ_visibly_are_not_lookalikes() -> None:
    assert skeleton("H100") != skeleton("H200")
    assert skeleton("H100") != skeleton("h100")  # case shows
    assert skeleton("\uff28100") == skeleton("H100")  # a full-width H (NFKC)
    assert skeleton("\u0397100") == skeleton("H100")  # Greek Eta
