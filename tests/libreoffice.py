"""Recalculate workbooks with LibreOffice headless, as a user's spreadsheet would.

XlsxWriter stores a cached value with each formula; this proves those values
are what the formulas compute. LibreOffice by default keeps cached values of
xlsx files on load, so a throw-away profile switches it to "always
recalculate" (``OOXMLRecalcMode`` 0) before one ``soffice`` call converts
every file (each start costs about a second).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

_ALWAYS_RECALCULATE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
           xmlns:xs="http://www.w3.org/2001/XMLSchema"
           xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str:
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        # CI installs LibreOffice (.ci/run); there a missing soffice must fail, not skip.
        if os.environ.get("CI"):
            pytest.fail("LibreOffice (soffice) is missing on CI: .ci/run should have installed it")
        pytest.skip("LibreOffice (soffice) is not installed")
    return found


def recalculate(paths: Sequence[Path], out_dir: Path) -> list[Path]:
    """Open, recalculate and save every workbook in ONE soffice call; returns the new files.

    The results land in ``out_dir`` under the same file names, so the inputs'
    names must differ.
    """
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        raise ValueError(f"workbooks to recalculate need distinct file names: {names}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpumix-lo-") as profile:
        user = Path(profile) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(_ALWAYS_RECALCULATE, encoding="utf-8")
        completed = subprocess.run(
            [
                soffice(),
                "--headless",
                "--norestore",
                f"-env:UserInstallation={Path(profile).as_uri()}",
                "--convert-to",
                "xlsx",
                "--outdir",
                str(out_dir),
                *(str(p) for p in paths),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    outputs = [out_dir / p.name for p in paths]
    missing = [str(p) for p in outputs if not p.is_file()]
    if completed.returncode != 0 or missing:
        raise RuntimeError(
            f"soffice failed (exit {completed.returncode}); missing {missing}\n{completed.stderr}"
        )
    return outputs


ERROR_VALUES = ("#VALUE!", "#REF!", "#NAME?", "#DIV/0!", "#N/A", "#NUM!", "#NULL!", "Err:")


def formula_mismatches(
    written: Path, recalculated: Path, skip: frozenset[str] = frozenset()
) -> tuple[int, list[str]]:
    """(formulas checked, every formula whose recalculated value differs from its cached one).

    Sheets named in ``skip`` are left out (a user's own sheets in an in-place file).
    """
    import openpyxl

    formulas = openpyxl.load_workbook(written)
    cached = openpyxl.load_workbook(written, data_only=True)
    after = openpyxl.load_workbook(recalculated, data_only=True)
    problems: list[str] = []
    checked = 0
    for ws in formulas.worksheets:
        if ws.title in skip:
            continue
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                checked += 1
                was = cached[ws.title][cell.coordinate].value
                now = after[ws.title][cell.coordinate].value
                same = (
                    now == was
                    if isinstance(was, str) or was is None
                    else isinstance(now, int | float)
                    and math.isclose(now, was, rel_tol=1e-9, abs_tol=1e-6)
                )
                if not same:
                    problems.append(
                        f"{written.name} {ws.title}!{cell.coordinate}: {was!r} -> {now!r}"
                    )
    return checked, problems


def error_cells(recalculated: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """Cells holding an error value or a non-finite number after recalculation."""
    import openpyxl

    found = []
    for ws in openpyxl.load_workbook(recalculated, data_only=True).worksheets:
        if ws.title in skip:
            continue
        for row in ws.iter_rows():
            for cell in row:
                bad = cell.data_type == "e"
                bad |= isinstance(cell.value, str) and cell.value.startswith(ERROR_VALUES)
                bad |= isinstance(cell.value, float) and not math.isfinite(cell.value)
                if bad:
                    found.append(
                        f"{recalculated.name} {ws.title}!{cell.coordinate}: {cell.value!r}"
                    )
    return found


def printed_pages_of(paths: Sequence[Path], out_dir: Path) -> dict[Path, list[str]]:
    """The text of each page each workbook prints as, through LibreOffice's PDF export and
    pdftotext, all converted by ONE soffice call; the PDFs stay in ``out_dir`` as ``<stem>.pdf``."""
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        if os.environ.get("CI"):
            pytest.fail("pdftotext (poppler) is missing on CI: .ci/run should have installed it")
        pytest.skip("pdftotext (poppler) is not installed")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpumix-lo-") as profile:
        subprocess.run(
            [
                soffice(),
                "--headless",
                "--norestore",
                f"-env:UserInstallation={Path(profile).as_uri()}",
                "--convert-to",
                "pdf",
                "--outdir",
                str(out_dir),
                *(str(p) for p in paths),
            ],
            capture_output=True,
            timeout=600,
            check=True,
        )
    printed = {}
    for path in paths:
        pdf = out_dir / (path.stem + ".pdf")
        text = subprocess.run(
            [pdftotext, "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
        ).stdout
        printed[path] = text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")
    return printed
