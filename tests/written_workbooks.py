"""Every result, comparison, in-place and break-even workbook the test suite writes, recorded.

``record_writers()`` (called by conftest.py before any test module imports a
writer) wraps the four writers so each file they write is remembered; the
last test module, ``test_zz_recalculate_everything.py``, recalculates all of
them in LibreOffice and checks every formula against its cached value.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optimizer.analysis.breakeven_workbook
import optimizer.reports.compare
import optimizer.reports.in_place
import optimizer.reports.result_workbook

# (file, sheets that were there before gpumix wrote: a user's, not ours, so not checked)
WRITTEN: list[tuple[Path, frozenset[str]]] = []
# Where each of those files was meant to land (the command line's target, not its ``.part``).
TARGETS: list[Path] = []


def _sheets(path: Path) -> frozenset[str]:
    import openpyxl

    try:
        return frozenset(openpyxl.load_workbook(path, read_only=True).sheetnames)
    except Exception:  # not a workbook (yet): the writer will say so
        return frozenset()


def _kept(path: Path) -> Path:
    """The file to recalculate later: a copy when the command line wrote a temporary file.

    The command line writes to ``<name>.xlsx.part`` and renames it over the
    target (``optimizer.reports.safe_files``), so the path the writer saw is
    gone by the end of the run.
    """
    if not path.name.endswith(".part"):
        return path.resolve()
    global _STASH
    if _STASH is None:
        _STASH = Path(tempfile.mkdtemp(prefix="gpumix-written-"))
    copy = _STASH / f"{len(WRITTEN):04d}-{path.name.removesuffix('.part')}"
    shutil.copyfile(path, copy)
    return copy


_STASH: Path | None = None


def _recording(writer: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(writer)
    def write(path: Path, *args: Any, **kwargs: Any) -> None:
        users = _sheets(Path(path)) if writer.__name__ == "write_in_place" else frozenset()
        writer(path, *args, **kwargs)
        WRITTEN.append((_kept(Path(path)), users))
        target = Path(path).resolve()
        TARGETS.append(target.with_name(target.name.removesuffix(".part")))

    write.__gpumix_recording__ = True  # type: ignore[attr-defined]
    return write


def record_writers() -> None:
    import optimizer.analysis.alternatives_workbook as alternatives
    import optimizer.reports.futures_workbook as futures

    for module, name in (
        (alternatives, "write_alternatives_workbook"),
        (futures, "write_futures_workbook"),
        (optimizer.reports.result_workbook, "write_result_workbook"),
        (optimizer.reports.compare, "write_comparison"),
        (optimizer.reports.in_place, "write_in_place"),
        (optimizer.analysis.breakeven_workbook, "write_breakeven_workbook"),
    ):
        writer = getattr(module, name)
        if not getattr(writer, "__gpumix_recording__", False):
            setattr(module, name, _recording(writer))
