"""An output gpumix cannot write is refused before any solving, and the file is untouched.

Issue 33.9: ``--in-place`` replaced a read-only (0444) workbook another user
owned. Issue 35.8: a result file open in Excel was reported only after the
whole solve. Tests run as root, for whom ``os.access`` says every file is
writable: the refusal rests on the mode bits, as a text editor's does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

import optimizer.cli.solve as solve_command
from optimizer.cli import main
from tests.conftest import sha256


@pytest.fixture
def never_solved(monkeypatch: pytest.MonkeyPatch) -> None:
    def solve(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved before the output was found unwritable")

    monkeypatch.setattr(solve_command, "solve_with_extras", solve)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


def test_in_place_refuses_a_read_only_workbook(
    write_workbook: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    never_solved: None,
) -> None:
    workbook = write_workbook()
    os.chmod(workbook, 0o444)
    before = sha256(workbook)
    err = _refused(["solve", str(workbook), "--in-place"], capsys)
    assert err == (
        f"1 problem in the input:\n  - {workbook.name}: --in-place cannot write it: the file "
        "is read-only (mode -r--r--r--); make it writable or write the results elsewhere\n"
    )
    assert sha256(workbook) == before
    assert stat.S_IMODE(workbook.stat().st_mode) == 0o444


def test_an_output_open_in_libreoffice_or_read_only_is_refused_before_solving(
    write_workbook: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    never_solved: None,
) -> None:
    workbook = write_workbook()
    output = tmp_path / "result.xlsx"
    output.write_bytes(b"last week's result")
    lock = tmp_path / ".~lock.result.xlsx#"
    lock.write_text("someone,host,2026-12-07")
    err = _refused(["solve", str(workbook), "--output", str(output)], capsys)
    assert err == (
        f"1 problem in the input:\n  - {output}: usage: the file is open in LibreOffice "
        "(.~lock.result.xlsx# is beside it); close it and run again\n"
    )
    lock.unlink()
    (tmp_path / "~$result.xlsx").write_bytes(b"")
    err = _refused(["solve", str(workbook), "--output", str(output)], capsys)
    assert "usage: the file is open in Excel (~$result.xlsx is beside it)" in err
    (tmp_path / "~$result.xlsx").unlink()
    os.chmod(output, 0o444)
    err = _refused(["solve", str(workbook), "--output", str(output)], capsys)
    assert "usage: the file is read-only (mode -r--r--r--)" in err
    assert output.read_bytes() == b"last week's result"


def test_a_folder_that_takes_no_new_file_is_refused_before_solving(
    write_workbook: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    never_solved: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tempfile

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    workbook = write_workbook()
    monkeypatch.setattr(tempfile, "mkstemp", full)
    err = _refused(["solve", str(workbook), "--output", str(tmp_path / "r.xlsx")], capsys)
    assert f"usage: no file can be made in the folder {tmp_path}: No space left on device" in err
