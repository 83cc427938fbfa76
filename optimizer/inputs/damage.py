"""Where a worksheet the xlsx reader refused is damaged: the sheet, the cell, and what is wrong.

Takes the workbook's path, a sheet's name and the reader's own error; hands
on one :class:`~optimizer.errors.Problem` naming the sheet and, when the
damage is in a cell, that cell. The reader (calamine) stops at the first
damaged byte with a message that names neither ("Unrecognized boolean cell
value: 4.7"), so the sheet's XML is read again here, cell by cell.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from optimizer.errors import Problem

_RESAVE = "a workbook saved by Excel or LibreOffice (open it and save it again)"
_ERROR_CODES = {
    "#NULL!",
    "#DIV/0!",
    "#VALUE!",
    "#REF!",
    "#NAME?",
    "#NUM!",
    "#N/A",
    "#GETTING_DATA",
    "#SPILL!",
    "#CALC!",
}
_CELL_TYPES = {"n", "s", "str", "inlineStr", "b", "e", "d"}
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def locate_damage(path: Path, sheet: str, part: str | None, reader_error: object) -> Problem:
    """The damage in ``sheet`` (worksheet part ``part``) that made the reader fail."""
    fallback = Problem(
        file=str(path),
        sheet=sheet,
        message=f"is damaged and cannot be read ({reader_error})",
        expected=_RESAVE,
    )
    if part is None:
        return fallback
    try:
        with zipfile.ZipFile(path) as archive:
            if part not in archive.namelist():
                return Problem(
                    file=str(path),
                    sheet=sheet,
                    message=f"is missing from the file: the workbook lists it, but its part "
                    f"{part} is not there",
                    expected=_RESAVE,
                )
            xml = archive.read(part)
    except (OSError, zipfile.BadZipFile, KeyError):
        return fallback
    found = damaged_cell(xml)
    if found is None:
        return fallback
    cell, reason = found
    return Problem(
        file=str(path), sheet=sheet, cell=cell, message=f"is damaged: {reason}", expected=_RESAVE
    )


def damaged_cell(xml: bytes) -> tuple[str | None, str] | None:
    """(cell, what is wrong) for the first damaged cell or XML break in a worksheet part."""
    from defusedxml.ElementTree import ParseError, iterparse

    last: str | None = None  # the last whole cell
    inside: str | None = None  # the cell being read
    try:
        for event, element in iterparse(io.BytesIO(xml), events=("start", "end")):
            if element.tag != f"{_MAIN}c":
                continue
            if event == "start":
                inside = element.get("r")
                continue
            last, inside = element.get("r") or last, None
            reason = _cell_problem(element)
            if reason is not None:
                return last, reason
            element.clear()
    except ParseError as exc:
        line, column = getattr(exc, "position", (None, None))
        where = f" in cell {inside}" if inside else (f" after cell {last}" if last else "")
        return inside, f"its XML breaks off{where} (line {line}, column {column}: {_reason(exc)})"
    return None


def _cell_problem(element: object) -> str | None:
    kind = element.get("t", "n")  # type: ignore[attr-defined]
    value_node = element.find(f"{_MAIN}v")  # type: ignore[attr-defined]
    value = value_node.text if value_node is not None and value_node.text is not None else None
    children = {
        str(child.tag).removeprefix(_MAIN)
        for child in element  # type: ignore[attr-defined]
    }
    if not children <= {"v", "f", "is", "extLst"}:
        return f"the cell holds {', '.join(sorted(children))}, which no cell may hold"
    if kind not in _CELL_TYPES:
        return f"the cell has the unknown type {kind!r}"
    if value is None:
        return None
    if kind == "b" and value.strip() not in ("0", "1"):
        return f"a TRUE/FALSE cell holds {value!r}"
    if kind == "e" and value.strip() not in _ERROR_CODES:
        return f"an Excel error cell holds {value!r}, which is no Excel error"
    if kind == "n":
        try:
            float(value)
        except ValueError:
            return f"a number cell holds {value!r}"
    return None


def _reason(exc: Exception) -> str:
    text = str(exc)
    return text.split(":")[0] if ":" in text else text
