"""The raw grids of an input workbook, and the cells whose values cannot be used.

Takes the path of a workbook that ``xlsx_safety.check_xlsx_file`` has vetted
and hands on, per input sheet, every cell value as python-calamine reads it.
When the archive holds formulas or error cells, it also finds the formula
cells with no saved value and the ``#N/A``-style errors (``UnreadableCell``),
which calamine would otherwise read as blank: by searching the sheets' XML
around those markers, or with openpyxl (read-only) when that search cannot.
"""

from __future__ import annotations

import html
import posixpath
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from optimizer.errors import InputError, Problem
from optimizer.inputs.cells import UnreadableCell, is_blank
from optimizer.inputs.damage import locate_damage
from optimizer.inputs.schema import ASSUMPTIONS_SHEET_NAME, INPUT_SHEETS
from optimizer.inputs.xlsx_safety import ArchiveFacts


def _find_sheet(names: Sequence[str], wanted: str) -> str | None:
    for name in names:
        if name == wanted:
            return name
    for name in names:
        if name.strip().lower() == wanted.lower():
            return name
    return None


_UNCALCULATED = (
    "formula has no saved value (the file was saved by a program that does not "
    "calculate formulas: open and save it in Excel or LibreOffice)"
)


def _unreadable_cells(
    path: Path, facts: ArchiveFacts, sheets: Sequence[str], grids: Mapping[str, list[list[object]]]
) -> dict[str, dict[tuple[int, int], UnreadableCell]]:
    """Formula cells with no saved value and Excel error cells, per sheet, as (row, 0-based col).

    calamine reads both as blank, which would silently mean "not given".
    Only runs when the safety scan saw formulas or error cells; then the
    sheets' XML is searched around those markers only (fast on big sheets),
    or, for a file written in a way that search does not handle, openpyxl
    reads every cell.
    """
    if not (facts.has_formulas or facts.has_error_cells):
        return {s: {} for s in sheets}
    found = _unreadable_by_markers(path, sheets)
    if found is None:
        found = _unreadable_by_openpyxl(path, facts, sheets, grids)
    return found


def _unreadable_by_markers(
    path: Path, sheets: Sequence[str]
) -> dict[str, dict[tuple[int, int], UnreadableCell]] | None:
    """The cells around each ``<f>`` and ``t="e"`` marker; None when the XML needs openpyxl."""
    with zipfile.ZipFile(path) as archive:
        parts = _sheet_parts(archive)
        if parts is None or any(name not in parts for name in sheets):
            return None
        found: dict[str, dict[tuple[int, int], UnreadableCell]] = {}
        for name in sheets:
            cells = _marked_cells(archive.read(parts[name]))
            if cells is None:
                return None
            found[name] = cells
    return found


def _sheet_parts(archive: zipfile.ZipFile) -> dict[str, str] | None:
    """Sheet name → worksheet part (``xl/worksheets/sheet1.xml``), from the workbook's relations."""
    from defusedxml.ElementTree import fromstring  # the archive's DTDs were refused already

    try:
        book = fromstring(archive.read("xl/workbook.xml"))
        rels = fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except Exception:  # a missing or odd part: let openpyxl deal with it
        return None
    targets = {
        r.get("Id"): r.get("Target") for r in rels.iter() if str(r.tag).endswith("Relationship")
    }
    parts: dict[str, str] = {}
    for sheet in book.iter():
        if not str(sheet.tag).endswith("}sheet"):
            continue
        rid = next((v for k, v in sheet.attrib.items() if k.endswith("}id")), None)
        target = targets.get(rid)
        name = sheet.get("name")
        if target is None or name is None:
            return None
        parts[name] = (
            target.lstrip("/") if target.startswith("/") else posixpath.normpath("xl/" + target)
        )
    return parts


_FORMULA_MARK = re.compile(rb"<f[\s>/]")
_ERROR_MARK = re.compile(rb"""\st=["']e["']""")
_CELL = re.compile(rb"<c\b([^>]*?)(?:/>|>(.*?)</c>)", re.DOTALL)
_REF = re.compile(rb"""\br=["']([A-Z]+)([0-9]+)["']""")
_TYPE = re.compile(rb"""\bt=["']([^"']*)["']""")
_VALUE = re.compile(rb"<v\s*(?:/>|>(.*?)</v>)", re.DOTALL)
_FORMULA_TEXT = re.compile(rb"<f\b[^>]*?(?:/>|>(.*?)</f>)", re.DOTALL)


def _marked_cells(xml: bytes) -> dict[tuple[int, int], UnreadableCell] | None:
    """Unusable cells of one worksheet's XML; None when it uses prefixes or cells without ``r``."""
    if b"<worksheet" not in xml[:2000]:
        return None  # a namespace prefix (<x:worksheet>): not what this search reads
    starts = set()
    for marker in (*_FORMULA_MARK.finditer(xml), *_ERROR_MARK.finditer(xml)):
        start = xml.rfind(b"<c ", 0, marker.start() + 1)
        if start < 0:
            return None
        starts.add(start)
    found: dict[tuple[int, int], UnreadableCell] = {}
    for start in starts:
        cell = _CELL.match(xml, start)
        ref = _REF.search(cell.group(1)) if cell else None
        if cell is None or ref is None:
            return None
        kind = _TYPE.search(cell.group(1))
        cell_type = kind.group(1) if kind else b"n"
        body = cell.group(2) or b""
        value = _VALUE.search(body)
        saved = (value.group(1) or b"") if value else b""
        key = (int(ref.group(2)), _column_index(ref.group(1).decode()))
        if cell_type == b"e":
            error = html.unescape(saved.decode())
            found[key] = UnreadableCell(f"holds the Excel error {error}", error)
            continue
        formula = _FORMULA_TEXT.search(body)
        # A str-typed formula cell with an empty value saved the result "": a blank cell.
        if formula is not None and not saved and cell_type != b"str":
            text = html.unescape((formula.group(1) or b"").decode())
            found[key] = UnreadableCell(_UNCALCULATED, f"={text}" if text else "(a shared formula)")
    return found


def _column_index(letters: str) -> int:
    """0-based index of Excel column letters (A → 0, AA → 26)."""
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - ord("A") + 1
    return index - 1


def _unreadable_by_openpyxl(
    path: Path, facts: ArchiveFacts, sheets: Sequence[str], grids: Mapping[str, list[list[object]]]
) -> dict[str, dict[tuple[int, int], UnreadableCell]]:
    """The same as ``_unreadable_by_markers``, read with openpyxl (read-only; slow on big sheets).

    A first pass finds the formula cells calamine reads as blank; a second,
    on cached values, finds error values and tells a formula whose saved
    result is the empty text (``=IF(..., "", ...)``, saved with type ``str``:
    a genuinely blank cell) from one never calculated.
    """
    found: dict[str, dict[tuple[int, int], UnreadableCell]] = {s: {} for s in sheets}
    if not (facts.has_formulas or facts.has_error_cells):
        return found
    import openpyxl  # slow to import; most workbooks never need it

    blank_formulas: dict[str, dict[tuple[int, int], str]] = {s: {} for s in sheets}
    if facts.has_formulas:
        for cell in _openpyxl_cells(openpyxl, path, sheets, data_only=False):
            if cell.data_type != "f":
                continue
            r, c = cell.row - 1, cell.column
            grid = grids[cell.sheet]
            cached = grid[r][c] if r < len(grid) and c < len(grid[r]) else ""
            if is_blank(cached):
                blank_formulas[cell.sheet][(cell.row, c)] = str(cell.value)
    if facts.has_error_cells or any(blank_formulas.values()):
        for cell in _openpyxl_cells(openpyxl, path, sheets, data_only=True):
            key = (cell.row, cell.column)
            if cell.data_type == "e":
                found[cell.sheet][key] = UnreadableCell(
                    f"holds the Excel error {cell.value}", str(cell.value)
                )
                blank_formulas[cell.sheet].pop(key, None)
            elif cell.data_type == "str":
                blank_formulas[cell.sheet].pop(key, None)  # the formula's saved result is ""
    for name, cells in blank_formulas.items():
        for key, formula in cells.items():
            found[name][key] = UnreadableCell(_UNCALCULATED, formula)
    return found


@dataclass(frozen=True)
class _StoredCell:
    sheet: str
    row: int  # Excel row number
    column: int  # 0-based
    data_type: str  # openpyxl's: "f" formula, "e" error, "str" formula text result, ...
    value: object


def _openpyxl_cells(
    openpyxl: Any, path: Path, sheets: Sequence[str], data_only: bool
) -> list[_StoredCell]:
    """Every stored, non-empty cell of ``sheets`` (and str-typed ones), read-only.

    The file is opened here, so that it is closed even when openpyxl fails
    half-way through a damaged part.
    """
    cells = []
    with path.open("rb") as stream:
        book = openpyxl.load_workbook(stream, read_only=True, data_only=data_only)
        try:
            for name in sheets:
                ws = book[name]
                ws.reset_dimensions()  # never trust the stored used range
                for row in ws.iter_rows():
                    for cell in row:
                        if not hasattr(cell, "row"):
                            continue  # an EmptyCell filling a gap
                        if cell.value is not None or cell.data_type == "str":
                            cells.append(
                                _StoredCell(
                                    name, cell.row, cell.column - 1, cell.data_type, cell.value
                                )
                            )
        finally:
            book.close()
    return cells


# The most rows and columns a sheet may span. The reader holds a sheet as a
# rectangle up to its last cell, so one stray cell at XFD1048576 would ask
# for 17 billion cells; every real input fits well inside these.
MAX_SHEET_ROWS = 100_000
MAX_SHEET_COLUMNS = 1_000
_ROW_MARK = re.compile(rb"""<row\b[^>]*?\br=["']([0-9]+)["']""")
_DIMENSION = re.compile(rb"""<dimension\b[^>]*?\bref=["'][A-Z]*[0-9]*:?([A-Z]+)([0-9]+)["']""")


_SHARED_ITEM = re.compile(rb"<si[\s>/]")
_SHARED_CELL = re.compile(rb"""<c\b([^>]*?\bt=["']s["'][^>]*)>\s*<v>([^<]*)</v>""")


def _sheet_xml_problems(path: Path, wanted: Sequence[str]) -> list[Problem]:
    """What the sheets' XML shows before they are loaded: too large, or damaged text cells.

    A stray far-away cell (or a ``<dimension>`` claiming one) is refused in a
    moment instead of exhausting memory. A text cell pointing at a shared
    string the workbook does not have (-1, "abc", past the end) would be read
    as some other text without a word, so it is refused with its cell.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            parts = _sheet_parts(archive) or {}
            xml = {name: archive.read(parts[name]) for name in wanted if name in parts}
            names = set(archive.namelist())
            shared = (
                len(_SHARED_ITEM.findall(archive.read("xl/sharedStrings.xml")))
                if "xl/sharedStrings.xml" in names
                else 0
            )
    except (OSError, KeyError, zipfile.BadZipFile):
        return []  # the loader reports a damaged file in its own words
    problems = _oversized(path, xml)
    for name, data in xml.items():
        for attributes, index in _SHARED_CELL.findall(data):
            text = index.decode(errors="replace").strip()
            if text.isdigit() and int(text) < shared:
                continue
            ref = _REF.search(attributes)
            cell = f"{ref.group(1).decode()}{ref.group(2).decode()}" if ref else None
            problems.append(
                Problem(
                    file=str(path),
                    sheet=name,
                    cell=cell,
                    message=f"is damaged: its text is shared string {text!r}, and the workbook"
                    f" has {shared:,} (numbered from 0)",
                    expected="a workbook saved by Excel or LibreOffice (open it and save it again)",
                )
            )
    return problems


def _oversized(path: Path, xml: Mapping[str, bytes]) -> list[Problem]:
    """Sheets that span more rows or columns than gpumix reads."""
    problems = []
    for name, data in xml.items():
        refs = [*_REF.findall(data), *_DIMENSION.findall(data)]
        # Few distinct column letters, many cells: convert each letter group once.
        columns = {letters: _column_index(letters.decode()) + 1 for letters, _ in refs}
        last_col = max(columns.values(), default=0)
        row_marks = [int(r) for r in _ROW_MARK.findall(data)]
        last_row = max([0, *(int(digits) for _, digits in refs), *row_marks])
        if sum(r > MAX_SHEET_ROWS for r in row_marks) > 1:
            # Rows of data past the limit, not one stray cell: say so (issue 33 item 10).
            problems.append(
                Problem(
                    file=str(path),
                    sheet=name,
                    message=f"has more than {MAX_SHEET_ROWS:,} rows (its rows reach row "
                    f"{last_row:,}); gpumix reads at most {MAX_SHEET_ROWS:,} rows",
                    expected=f"a table of at most {MAX_SHEET_ROWS:,} rows (split the scenario,"
                    " or delete the rows beyond it)",
                )
            )
            continue
        last_ref = next(
            (
                f"{letters.decode()}{digits.decode()}"
                for letters, digits in refs
                if int(digits) > MAX_SHEET_ROWS or columns[letters] > MAX_SHEET_COLUMNS
            ),
            "",
        )  # the first one out of bounds
        if last_row > MAX_SHEET_ROWS or last_col > MAX_SHEET_COLUMNS:
            problems.append(
                Problem(
                    file=str(path),
                    sheet=name,
                    message=f"spans {last_row:,} rows and {last_col:,} columns"
                    + (f" (a cell or range reaches {last_ref})" if last_ref else "")
                    + f"; gpumix reads at most {MAX_SHEET_ROWS:,} rows and"
                    f" {MAX_SHEET_COLUMNS:,} columns",
                    expected="the table only: delete the rows and columns beyond it",
                )
            )
    return problems


def _part_of(path: Path, sheet: str) -> str | None:
    """The worksheet part that holds ``sheet``, or None when the relations do not say."""
    try:
        with zipfile.ZipFile(path) as archive:
            return (_sheet_parts(archive) or {}).get(sheet)
    except (OSError, zipfile.BadZipFile):
        return None


def _read_grids(path: Path) -> tuple[list[str], dict[str, list[list[object]]]]:
    import python_calamine

    try:
        # Read through a Python file object: calamine's own path handling takes
        # only UTF-8 names, and reported any other name as "not found".
        with open(path, "rb") as stream:
            book = python_calamine.CalamineWorkbook.from_filelike(stream)
    except OSError as exc:
        raise InputError(
            Problem(file=str(path), message=f"cannot be read: {exc.strerror or exc}")
        ) from exc
    except Exception as exc:  # calamine raises its own error types for damaged parts
        raise InputError(
            Problem(
                file=str(path),
                message=f"cannot be read as a workbook ({exc})",
                expected="an .xlsx file saved by Excel or LibreOffice",
            )
        ) from exc
    try:
        names = list(book.sheet_names)
        wanted = [
            found
            for s in (
                *(sh.name for sh in INPUT_SHEETS),
                ASSUMPTIONS_SHEET_NAME,
            )
            if (found := _find_sheet(names, s)) is not None
        ]
        if damaged := _sheet_xml_problems(path, wanted):
            raise InputError(damaged)
        grids: dict[str, list[list[object]]] = {}
        for name in wanted:
            try:
                sheet = book.get_sheet_by_name(name).to_python(skip_empty_area=False)
            except Exception as exc:  # calamine names neither the sheet nor the cell
                raise InputError(locate_damage(path, name, _part_of(path, name), exc)) from exc
            grids[name] = cast(list[list[object]], sheet)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            Problem(file=str(path), message=f"cannot be read as a workbook ({exc})")
        ) from exc
    finally:
        book.close()
    return names, grids
