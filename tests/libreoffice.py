"""Recalculate workbooks with LibreOffice headless, as a user's spreadsheet would.

XlsxWriter stores a cached value with each formula; this proves those values
are what the formulas compute. LibreOffice by default keeps cached values of
xlsx files on load, so a throw-away profile switches it to "always
recalculate" (``OOXMLRecalcMode`` 0) before one ``soffice`` call converts
every file (each start costs about a second).
"""

from __future__ import annotations

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
