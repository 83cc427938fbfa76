"""Runs last: every result, comparison, in-place and break-even workbook the suite wrote,
recalculated by LibreOffice in one call, shows its cached numbers and no errors.

(pytest runs test modules in name order; the ``zz`` keeps this one last.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from optimizer.reports.result_workbook import write_result_workbook
from tests.fake_plans import fake_plan, fake_run
from tests.libreoffice import error_cells, formula_mismatches, recalculate
from tests.written_workbooks import TARGETS, WRITTEN

pytestmark = pytest.mark.libreoffice


def test_every_workbook_the_suite_wrote_recalculates_to_its_cached_values(tmp_path: Path) -> None:
    # One of our own, so the check never runs on nothing when this file runs alone.
    write_result_workbook(tmp_path / "own.xlsx", fake_run(fake_plan()))
    staged = tmp_path / "staged"
    staged.mkdir()
    copies: list[Path] = []
    skips: list[frozenset[str]] = []
    for i, (path, users) in enumerate(dict.fromkeys(WRITTEN)):
        if path.is_file():  # a test may have deleted its file since
            copy = staged / f"{i:04d}-{path.name}"
            shutil.copyfile(path, copy)
            copies.append(copy)
            skips.append(users)
    assert copies, "the recording writers saw no workbook"
    recalculated = recalculate(copies, tmp_path / "recalculated")
    checked = 0
    problems: list[str] = []
    for written, after, skip in zip(copies, recalculated, skips, strict=True):
        count, mismatches = formula_mismatches(written, after, skip)
        checked += count
        problems += mismatches + error_cells(after, skip)
    assert problems == [], "\n".join(problems[:50])
    assert checked > 0


def test_no_test_writes_a_workbook_into_the_checkout() -> None:
    # `gpumix solve` writes to the current folder by default; a test that forgets
    # to change folder leaves `<name>-results.xlsx` beside the sources.
    checkout = Path(__file__).resolve().parents[1]
    assert TARGETS, "the recording writers saw no workbook"
    inside = sorted({str(t) for t in TARGETS if t.is_relative_to(checkout)})
    assert inside == []
