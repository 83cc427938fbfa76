"""Reads an input workbook into typed rows, collecting every problem found.

Stages inside this module, each a small pure function:

1. ``xlsx_safety.check_xlsx_file`` vets the archive (zip bombs, entity bombs).
2. python-calamine reads every cell value of the input sheets (fast); only
   when the archive holds formulas or error cells does openpyxl (read-only)
   find the formula cells with no saved value and the ``#N/A``-style errors,
   which calamine would otherwise read as blank.
3. Each row's cells are coerced by the column declarations of
   ``optimizer.inputs.schema`` (``FieldSpec``) and built into the typed objects of
   ``optimizer.domain``; what a row's kind needs is checked per row.
4. Checks across rows and sheets: unique names, references that exist,
   duplicate measurements, ``tdp_w`` where a type can be bought.

The record builders (``coerce``, ``build_workload`` ...) are shared with
``optimizer.inputs.scenario_file``, whose ``add_workloads`` entries follow the same
rules as the Workloads sheet; only the location in messages differs
(``SheetCell`` versus a YAML line, both behind ``Where``).
"""

from __future__ import annotations

import difflib
import html
import math
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any, Protocol, cast

from optimizer.domain import Gpu, Kind, Measurement, Offer, OfferOption, Precision, Workload
from optimizer.errors import InputError, Problem
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    ASSUMPTIONS_SHEET_NAME,
    GPUS,
    INPUT_SHEETS,
    PRICES,
    SCENARIOS,
    THROUGHPUT,
    WORKLOADS,
    AssumptionKey,
    Column,
    ColumnType,
    Sheet,
)
from optimizer.inputs.xlsx_safety import ArchiveFacts, check_xlsx_file

# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class FieldSpec:
    """How one field's raw value (a cell, or a YAML value) becomes a typed value."""

    name: str
    type: ColumnType
    expected: str
    required: bool = False
    minimum: float | None = None
    positive: bool = False
    at_most_one: bool = False
    allowed: tuple[str, ...] = ()

    @classmethod
    def of_column(cls, column: Column) -> FieldSpec:
        # A fraction column is a share of something (MFU): more than 1 is impossible.
        at_most_one = column.fraction
        expected = column.expected + (", at most 1" if at_most_one else "")
        return cls(
            name=column.name,
            type=column.type,
            expected=expected,
            required=column.required,
            minimum=column.minimum,
            positive=column.positive,
            at_most_one=at_most_one,
            allowed=column.allowed,
        )

    @classmethod
    def of_assumption(cls, key: AssumptionKey) -> FieldSpec:
        if isinstance(key.default, bool):
            return cls(name=key.key, type=ColumnType.BOOL, expected="TRUE or FALSE")
        expected = "a number > 0" if key.positive else "a number ≥ 0"
        if key.at_most_one:
            expected += ", at most 1"
        expected += f" ({key.unit})"
        return cls(
            name=key.key,
            type=ColumnType.NUMBER,
            expected=expected,
            minimum=0.0,
            positive=key.positive,
            at_most_one=key.at_most_one,
        )


@dataclass(frozen=True)
class UnreadableCell:
    """A cell whose value cannot be used: a formula never calculated, an Excel error."""

    reason: str
    shown: str  # what the cell shows or holds, for the message


class BadValue(Exception):
    """Internal: a raw value does not fit its field; ``message`` says how."""

    def __init__(self, message: str, expected: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def is_blank(raw: object) -> bool:
    return raw is None or raw == "" or (isinstance(raw, str) and raw.isspace())


def shown(raw: object) -> object:
    """A raw value as a message should show it (dates as ISO text, not reprs)."""
    if isinstance(raw, UnreadableCell):
        return raw.shown
    if isinstance(raw, date | time):
        return raw.isoformat()
    if isinstance(raw, timedelta):
        return str(raw)
    return raw


def suggestion(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'H100'?`` when a known name is close, else ''.

    Case is ignored, and the letter O counts as the digit 0 (``H1OO``).
    """

    def plain(text: str) -> str:
        return text.lower().replace("o", "0")

    by_plain = {plain(k): k for k in known}
    close = difflib.get_close_matches(plain(name), list(by_plain), n=1, cutoff=0.6)
    return f"; did you mean {by_plain[close[0]]!r}?" if close else ""


def _number(raw: object) -> float:
    if raw.__class__ is float:  # the common case, first: most cells are plain numbers
        value = raw
        if not math.isfinite(value):
            raise BadValue("not a finite number")
        return value
    if isinstance(raw, bool):
        raise BadValue("TRUE/FALSE is not a number")
    if isinstance(raw, date | time | timedelta):
        raise BadValue("is a date or time, not a number")
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str) and _PLAIN_NUMBER.fullmatch(raw.strip()):
        value = float(raw.strip())
    else:
        raise BadValue("not a number")
    if not math.isfinite(value):
        raise BadValue("not a finite number")
    return value


def _bool(raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int | float) and raw in (0, 1):
        return bool(raw)
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise BadValue("not TRUE or FALSE")


def _text(raw: object) -> str:
    if isinstance(raw, bool):
        return "TRUE" if raw else "FALSE"
    if isinstance(raw, float) and raw.is_integer():
        return str(int(raw))
    if isinstance(raw, date | time):
        return raw.isoformat()
    return str(raw).strip()


def coerce(spec: FieldSpec, raw: object) -> object:
    """The typed value of ``raw`` for ``spec``; None when blank. Raises BadValue."""
    if raw is None or raw == "":
        return None
    kind = spec.type
    if kind is ColumnType.TEXT and raw.__class__ is str:
        text = raw.strip()
        return text or None
    if isinstance(raw, UnreadableCell):
        raise BadValue(raw.reason)
    if is_blank(raw):
        return None
    if kind is ColumnType.TEXT:
        return _text(raw)
    if kind is ColumnType.BOOL:
        return _bool(raw)
    if kind is ColumnType.CHOICE:
        text = _text(raw).lower()
        if text not in spec.allowed:
            raise BadValue(f"unknown {spec.name}{suggestion(text, spec.allowed)}")
        return text
    if kind is ColumnType.NAME_LIST:
        if isinstance(raw, list | tuple):
            return tuple(_text(item) for item in raw if not is_blank(item))
        names = tuple(part.strip() for part in _text(raw).split(",") if part.strip())
        if not names:
            # "," is not blank (the default "all" would be a guess) and names nothing.
            raise BadValue("names nothing, only commas")
        return names
    value = _number(raw)
    if kind is ColumnType.INTEGER and not value.is_integer():
        raise BadValue("not a whole number")
    if spec.positive and value <= 0:
        raise BadValue("must be more than 0")
    if spec.minimum is not None and value < spec.minimum:
        raise BadValue(f"must be at least {spec.minimum:g}")
    if spec.at_most_one and value > 1:
        raise BadValue("must be at most 1 (fractions are plain numbers: 0.05 is 5 %)")
    return int(value) if kind is ColumnType.INTEGER else value


# ---------------------------------------------------------------- locations


class Where(Protocol):
    """Where a record came from; builds Problems that point at it."""

    @property
    def label(self) -> str: ...

    def at(
        self, column: str, message: str, value: object = None, expected: str | None = None
    ) -> Problem: ...

    def whole(self, message: str) -> Problem: ...


def column_letter(index: int) -> str:
    """Excel's column letters for a 0-based column index (0 → A, 26 → AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


@dataclass(frozen=True)
class SheetRow:
    """A row of a sheet: file, sheet, Excel row number and where each column is."""

    file: str
    sheet: str
    row: int
    columns: Mapping[str, int]  # column name → 0-based index

    @property
    def label(self) -> str:
        return f"sheet {self.sheet}, row {self.row}"

    def cell(self, column: str) -> str | None:
        index = self.columns.get(column)
        return None if index is None else f"{column_letter(index)}{self.row}"

    def at(
        self, column: str, message: str, value: object = None, expected: str | None = None
    ) -> Problem:
        return Problem(
            file=self.file,
            message=message,
            sheet=self.sheet,
            row=self.row,
            column=column,
            cell=self.cell(column),
            value=value,
            expected=expected,
            about=column,
        )

    def whole(self, message: str) -> Problem:
        return Problem(file=self.file, message=message, sheet=self.sheet, row=self.row)


def coerce_fields(
    specs: Mapping[str, FieldSpec], raw: Mapping[str, object], where: Where
) -> tuple[dict[str, Any], list[Problem]]:
    """Every given field coerced (blanks left out), and a Problem per bad or missing one."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for name, spec in specs.items():
        cell = raw.get(name)
        try:
            value = coerce(spec, cell)
        except BadValue as bad:
            problems.append(where.at(name, bad.message, shown(cell), bad.expected or spec.expected))
            continue
        if value is None:
            if spec.required:
                problems.append(where.at(name, "is blank", None, spec.expected))
        else:
            values[name] = value
    return values, problems


def beyond(found: Sequence[Problem], more: Sequence[Problem]) -> list[Problem]:
    """``more``'s problems on columns ``found`` has not already reported.

    A record builder sees a bad cell as missing (``tokens`` of -1 is left out
    of the typed values), so without this the cell would be reported twice:
    once as bad, once as blank.
    """
    reported = {p.about for p in found}
    return [p for p in more if p.about is None or p.about not in reported]


# ---------------------------------------------------------------- records

SPECS: dict[str, dict[str, FieldSpec]] = {
    sheet.name: {c.name: FieldSpec.of_column(c) for c in sheet.columns}
    for sheet in (GPUS, PRICES, WORKLOADS, THROUGHPUT, SCENARIOS)
}
ASSUMPTION_SPECS: dict[str, FieldSpec] = {
    k: FieldSpec.of_assumption(a) for k, a in ASSUMPTION_KEYS.items()
}
SCENARIO_FIELDS: tuple[str, ...] = tuple(c.name for c in SCENARIOS.columns if c.name != "scenario")


def _name_problem(name: str, where: Where, column: str) -> list[Problem]:
    # Scenarios list names separated by commas, so a comma inside a name could never be referenced.
    if "," in name:
        return [where.at(column, "a name may not contain a comma", name, "a name without commas")]
    return []


def build_gpu(values: Mapping[str, Any], where: Where) -> tuple[Gpu | None, list[Problem]]:
    problems = _name_problem(values["gpu"], where, "gpu") if "gpu" in values else []
    if problems or not {"gpu", "vram_gb", "fp16_tflops"} <= values.keys():
        return None, problems
    rest = {k: v for k, v in values.items() if k != "gpu"}
    return Gpu(name=values["gpu"], **rest), []


def build_offer(
    values: Mapping[str, Any], where: Where, offer_id: str = "", row: int = 0
) -> tuple[Offer | None, list[Problem]]:
    """An offer, with ``offer_id`` and ``row`` as given (``offer_id()`` makes the ids)."""
    problems: list[Problem] = []
    option = values.get("option")
    if option == OfferOption.RESERVED.value and "term_months" not in values:
        problems.append(
            where.at(
                "term_months",
                "is blank; a reserved offer needs its term",
                None,
                "a whole number ≥ 1 (months)",
            )
        )
    if option is not None and option != OfferOption.RESERVED.value and "term_months" in values:
        problems.append(
            where.at(
                "term_months",
                f"is only for reserved offers, not {option}",
                values["term_months"],
                "blank",
            )
        )
    if problems or "gpu" not in values or option is None or "price" not in values:
        return None, problems
    return (
        Offer(
            offer_id=offer_id,
            gpu=values["gpu"],
            option=_OPTIONS[option],
            price=values["price"],
            term_months=values.get("term_months"),
            max_units=values.get("max_units"),
            available_from=values.get("available_from", 1),
            provider=values.get("provider"),
            source=values.get("source"),
            row=row,
        ),
        [],
    )


_OPTIONS = {o.value: o for o in OfferOption}


def build_workload(
    values: Mapping[str, Any], where: Where
) -> tuple[Workload | None, list[Problem]]:
    """A workload, after the checks of what its kind needs."""
    problems = _name_problem(values["workload"], where, "workload") if "workload" in values else []
    kind = Kind(values["kind"]) if "kind" in values else None
    if kind is not None:
        if kind is Kind.REALTIME_INFERENCE:
            if "tokens_per_second" not in values:
                problems.append(
                    where.at(
                        "tokens_per_second",
                        "is blank; a realtime_inference workload needs its demand",
                        None,
                        "a number > 0 (tokens/s)",
                    )
                )
            if values.get("interruptible") is True:
                problems.append(
                    where.at(
                        "interruptible",
                        "a realtime_inference workload cannot be interruptible (it never runs on spot)",
                        True,
                        "FALSE or blank",
                    )
                )
        elif "tokens" not in values:
            need = (
                "tokens per month"
                if kind is Kind.BATCH_INFERENCE
                else "the tokens of the whole job"
            )
            problems.append(
                where.at(
                    "tokens",
                    f"is blank; a {kind.value} workload needs {need}",
                    None,
                    "a number > 0 (tokens)",
                )
            )
    start, end = values.get("start_month", 1), values.get("end_month")
    if end is not None and start > end:
        problems.append(
            where.at(
                "end_month",
                f"the window runs backwards: start_month {start} is after end_month {end}",
                end,
                f"a month ≥ {start}",
            )
        )
    if problems or kind is None or "workload" not in values:
        return None, problems
    rest = {k: v for k, v in values.items() if k not in ("workload", "kind", "precision")}
    precision = Precision(values.get("precision", Precision.BF16.value))
    return Workload(name=values["workload"], kind=kind, precision=precision, **rest), []


def build_measurement(
    values: Mapping[str, Any], where: Where
) -> tuple[Measurement | None, list[Problem]]:
    if not {"workload", "gpu"} <= values.keys():
        return None, []
    rest = {k: v for k, v in values.items() if k not in ("workload", "gpu")}
    return Measurement(workload=values["workload"], gpu=values["gpu"], **rest), []


def offer_id(gpu: str, option: str, counts: dict[tuple[str, str], int]) -> str:
    """``gpu|option|n``, n counting that GPU's offers of that option from 1 in sheet order.

    ``counts`` carries the numbering from one row to the next.
    """
    n = counts[(gpu, option)] = counts.get((gpu, option), 0) + 1
    return f"{gpu}|{option}|{n}"


# ---------------------------------------------------------------- workbook data


@dataclass(frozen=True)
class ScenarioRow:
    """One row of sheet Scenarios: the non-blank cells, typed."""

    name: str
    where: SheetRow
    # Scenario fields given in the row (horizon_months ... exclude_gpus), typed.
    settings: Mapping[str, Any]
    assumptions: Mapping[str, float | bool]  # Assumptions keys given as columns

    def origin(self) -> str:
        return f"Scenarios sheet, row {self.where.row}"


@dataclass(frozen=True)
class AssumptionRow:
    """One row of sheet Assumptions."""

    key: str
    value: float | bool | None  # None: blank, the default stands
    source: str | None
    where: SheetRow


@dataclass(frozen=True)
class WorkbookData:
    """Everything read from one workbook, before any scenario is resolved.

    Rows with a problem are left out of the typed tuples, but their names are
    kept in ``gpu_names``/``workload_names`` so that references to them do not
    raise a second, misleading "unknown name" problem.
    """

    path: Path
    gpus: tuple[Gpu, ...] = ()
    offers: tuple[Offer, ...] = ()
    workloads: tuple[Workload, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    scenarios: tuple[ScenarioRow, ...] = ()
    assumptions: tuple[AssumptionRow, ...] = ()
    has_scenarios_sheet: bool = False
    gpu_names: frozenset[str] = frozenset()
    workload_names: frozenset[str] = frozenset()
    scenario_names: frozenset[str] = frozenset()
    workload_rows: Mapping[str, SheetRow] = field(default_factory=dict)
    measurement_rows: Mapping[tuple[str, str], SheetRow] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # things to look at that are not errors


# ---------------------------------------------------------------- sheets


def normalize_header(raw: object) -> str:
    """``Price (USD per GPU-hour)`` → ``price``: lower case, no parentheses, trimmed."""
    return re.sub(r"\([^)]*\)", "", _text(raw)).strip().lower()


@dataclass(frozen=True)
class SheetTable:
    """A sheet's header and non-blank data rows, raw values as read."""

    name: str
    columns: Mapping[str, int]  # normalized header → 0-based column index
    header: tuple[str, ...]  # normalized header of every column, '' for blank ones
    rows: tuple[tuple[int, tuple[object, ...]], ...]  # (Excel row number, values)


def _find_sheet(names: Sequence[str], wanted: str) -> str | None:
    for name in names:
        if name == wanted:
            return name
    for name in names:
        if name.strip().lower() == wanted.lower():
            return name
    return None


def _table(
    file: str,
    sheet_name: str,
    grid: list[list[object]],
    unreadable: Mapping[tuple[int, int], UnreadableCell],
    known: Iterable[str],
) -> tuple[SheetTable, list[Problem]]:
    problems: list[Problem] = []
    header = tuple(normalize_header(v) for v in grid[0]) if grid else ()
    columns: dict[str, int] = {}
    wanted = set(known)
    for index, name in enumerate(header):
        if not name:
            continue
        if name in columns and name in wanted:
            first = f"{column_letter(columns[name])}1"
            problems.append(
                Problem(
                    file=file,
                    message=f"column {name} appears twice (also in {first})",
                    sheet=sheet_name,
                    row=1,
                    cell=f"{column_letter(index)}1",
                    value=grid[0][index],
                )
            )
            continue
        columns.setdefault(name, index)
    used = sorted(columns[c] for c in wanted if c in columns)
    by_row: dict[int, list[tuple[int, UnreadableCell]]] = {}
    for (row, col), bad in unreadable.items():
        by_row.setdefault(row, []).append((col, bad))
    rows = []
    for r, values in enumerate(grid[1:], start=2):
        cells: Sequence[object] = values
        if r in by_row:
            changed = list(values)
            for col, bad in by_row[r]:
                if col < len(changed):
                    changed[col] = bad
            cells = changed
        width = len(cells)
        if any(i < width and not is_blank(cells[i]) for i in used):
            rows.append((r, tuple(cells)))
    return SheetTable(sheet_name, columns, header, tuple(rows)), problems


def _raw_record(
    table: SheetTable, values: Sequence[object], names: Iterable[str]
) -> dict[str, object]:
    return {
        n: values[table.columns[n]]
        for n in names
        if n in table.columns and table.columns[n] < len(values)
    }


def _missing_columns(file: str, table: SheetTable, sheet: Sheet) -> list[Problem]:
    problems = []
    present = [h for h in table.header if h]
    for column in sheet.required_columns:
        if column.name not in table.columns:
            problems.append(
                Problem(
                    file=file,
                    sheet=table.name,
                    row=1,
                    column=column.name,
                    message=f"required column {column.name} is missing{suggestion(column.name, present)}",
                    expected=f"a header {column.header!r} in row 1",
                )
            )
    return problems


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


def _read_grids(path: Path) -> tuple[list[str], dict[str, list[list[object]]]]:
    import python_calamine

    try:
        book = python_calamine.CalamineWorkbook.from_path(str(path))
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
                *(sh.name for sh in (GPUS, PRICES, WORKLOADS, THROUGHPUT, SCENARIOS)),
                ASSUMPTIONS_SHEET_NAME,
            )
            if (found := _find_sheet(names, s)) is not None
        ]
        grids: dict[str, list[list[object]]] = {
            name: cast(
                list[list[object]], book.get_sheet_by_name(name).to_python(skip_empty_area=False)
            )
            for name in wanted
        }
    except Exception as exc:
        raise InputError(
            Problem(file=str(path), message=f"cannot be read as a workbook ({exc})")
        ) from exc
    finally:
        book.close()
    return names, grids


# ---------------------------------------------------------------- reading


def parse_workbook(path: Path) -> tuple[WorkbookData, list[Problem]]:
    """Read a workbook; return its data and every problem found in it.

    Raises InputError only when nothing can be read at all (not a workbook,
    damaged archive). Rows with problems are left out of the data.
    """
    facts = check_xlsx_file(path)
    file = str(path)
    names, grids = _read_grids(path)
    try:
        unreadable = _unreadable_cells(path, facts, list(grids), grids)
    except InputError:
        raise
    except Exception as exc:  # openpyxl raises many kinds of errors on damaged parts
        raise InputError(
            Problem(
                file=file,
                message=f"cannot be read as a workbook ({type(exc).__name__}: {exc})",
                expected="an .xlsx file saved by Excel or LibreOffice",
            )
        ) from exc
    problems: list[Problem] = []

    def table(sheet: Sheet | str) -> SheetTable | None:
        sheet_name = sheet if isinstance(sheet, str) else sheet.name
        actual = _find_sheet(names, sheet_name)
        if actual is None:
            if isinstance(sheet, Sheet) and not sheet.optional_sheet:
                problems.append(
                    Problem(
                        file=file,
                        message=f"sheet {sheet_name} is missing (the workbook has {', '.join(names)})",
                        expected=f"a sheet named {sheet_name}",
                    )
                )
            return None
        known = (
            [c.name for c in sheet.columns]
            if isinstance(sheet, Sheet)
            else ["key", "value", "source"]
        )
        if sheet is SCENARIOS:
            known += list(ASSUMPTION_KEYS)
        t, found = _table(file, actual, grids[actual], unreadable[actual], known)
        problems.extend(found)
        if isinstance(sheet, Sheet):
            problems.extend(_missing_columns(file, t, sheet))
        return t

    gpu_table, price_table, workload_table = table(GPUS), table(PRICES), table(WORKLOADS)
    throughput_table, scenario_table, assumption_table = (
        table(THROUGHPUT),
        table(SCENARIOS),
        table(ASSUMPTIONS_SHEET_NAME),
    )

    # Problems come out sheet by sheet, in the workbook's order.
    gpus, gpu_names, gpu_rows = _records(file, gpu_table, GPUS, build_gpu, "gpu", problems)
    gpus_known = _checkable(gpu_names, gpu_table, "gpu")
    offers = _offers(file, price_table, gpus_known, problems)
    problems.extend(_tdp_needed(gpus, gpu_rows, offers))
    workloads, workload_names, workload_rows = _records(
        file, workload_table, WORKLOADS, build_workload, "workload", problems
    )
    workloads_known = _checkable(workload_names, workload_table, "workload")
    measurements, measurement_rows = _measurements(
        file, throughput_table, workloads, workloads_known, gpus_known, problems
    )
    scenarios, scenario_names = _scenarios(
        file, scenario_table, gpus_known, workloads_known, problems
    )
    assumptions = _assumptions(file, assumption_table, problems)
    data = WorkbookData(
        path=path,
        gpus=gpus,
        offers=offers,
        workloads=workloads,
        measurements=measurements,
        scenarios=scenarios,
        assumptions=assumptions,
        has_scenarios_sheet=scenario_table is not None,
        scenario_names=scenario_names,
        gpu_names=frozenset(gpu_names),
        workload_names=frozenset(workload_names),
        workload_rows={w.name: workload_rows[w.name] for w in workloads},
        measurement_rows=measurement_rows,
        warnings=tuple(_near_miss_sheets(file, names)),
    )
    return data, problems


def _near_miss_sheets(file: str, names: Sequence[str]) -> list[str]:
    """Warnings for an optional sheet that is absent while a sheet with a close name is there.

    Extra sheets are ignored and the optional sheets may be absent, so a
    sheet named ``Scenario`` is not an error; but its rows would be silently
    replaced by defaults, which a person should hear about.
    """
    expected = [*(sheet.name for sheet in INPUT_SHEETS), ASSUMPTIONS_SHEET_NAME]
    found = {n for e in expected if (n := _find_sheet(names, e)) is not None}
    others = {n.strip().lower(): n for n in names if n not in found}
    optional = [sheet.name for sheet in INPUT_SHEETS if sheet.optional_sheet]
    warnings = []
    for wanted in (*optional, ASSUMPTIONS_SHEET_NAME):
        if _find_sheet(names, wanted) is not None:
            continue
        close = difflib.get_close_matches(wanted.lower(), list(others), n=1, cutoff=0.75)
        if close:
            warnings.append(
                f"warning: {Path(file).name}: sheet {others[close[0]]!r} is not read; the "
                f"optional sheet {wanted} is absent, so its defaults apply (rename the sheet to "
                f"{wanted} if it holds those rows)"
            )
    return warnings


def read_workbook(path: Path) -> WorkbookData:
    """Read a workbook into typed rows; raise one InputError with every problem found."""
    data, problems = parse_workbook(path)
    if problems:
        raise InputError(problems)
    return data


def _rows(
    file: str, table: SheetTable | None, sheet: Sheet
) -> Iterable[tuple[SheetRow, dict[str, Any], list[Problem]]]:
    if table is None:
        return
    specs = SPECS[sheet.name]
    # Column by column: one spec per loop, and repeated texts (GPU names,
    # options, providers) coerced once. Fifty thousand Prices rows stay fast.
    columns = {
        name: _coerce_column(
            specs[name],
            [values[index] if index < len(values) else None for _, values in table.rows],
        )
        for name, index in table.columns.items()
        if name in specs
    }
    names = list(columns)
    # Rows needing a closer look: a bad value, or a blank required cell. A
    # required column that is missing altogether is reported once, by
    # _missing_columns, not once per row.
    required = [n for n in names if specs[n].required]
    flagged = {k for n in names for k, v in enumerate(columns[n]) if v.__class__ is BadValue}
    flagged.update(k for n in required for k, v in enumerate(columns[n]) if v is None)
    for k, ((r, values), typed_values) in enumerate(
        zip(table.rows, zip(*columns.values(), strict=True), strict=True)
    ):
        where = SheetRow(file, table.name, r, table.columns)
        if k not in flagged:
            yield (
                where,
                {n: v for n, v in zip(names, typed_values, strict=True) if v is not None},
                [],
            )
            continue
        typed: dict[str, Any] = {}
        found: list[Problem] = []
        for name, value in zip(names, typed_values, strict=True):
            if value.__class__ is BadValue:
                bad = value
                cell = values[table.columns[name]]
                found.append(
                    where.at(name, bad.message, shown(cell), bad.expected or specs[name].expected)
                )
            elif value is not None:
                typed[name] = value
            elif name in required:
                found.append(where.at(name, "is blank", None, specs[name].expected))
        yield where, typed, found


def _coerce_column(spec: FieldSpec, raws: Sequence[object]) -> list[object]:
    """``coerce`` over one column: each value typed, None when blank, or the BadValue."""
    cache: dict[str, object] = {}
    out: list[object] = []
    # Plain non-negative floats are most cells of a big sheet: checked inline.
    floats_pass = (
        spec.type is ColumnType.NUMBER and not spec.at_most_one and (spec.minimum or 0) <= 0
    )
    ints_pass = spec.type is ColumnType.INTEGER
    ints_from = (spec.minimum or 0) + (1 if spec.positive else 0)
    for raw in raws:
        if raw.__class__ is str:
            if raw not in cache:
                cache[raw] = _coerced_or_bad(spec, raw)
            out.append(cache[raw])
        elif floats_pass and raw.__class__ is float and 0 < raw < math.inf:
            out.append(raw)
        elif ints_pass and raw.__class__ is float and raw.is_integer() and ints_from <= raw < 2**53:
            out.append(int(raw))
        else:
            out.append(_coerced_or_bad(spec, raw))
    return out


def _coerced_or_bad(spec: FieldSpec, raw: object) -> object:
    try:
        return coerce(spec, raw)
    except BadValue as bad:
        return bad


def _records(
    file: str,
    table: SheetTable | None,
    sheet: Sheet,
    build: Callable[[Mapping[str, Any], Where], tuple[Any, list[Problem]]],
    key: str,
    problems: list[Problem],
) -> tuple[tuple[Any, ...], set[str], dict[str, SheetRow]]:
    """Rows of a sheet whose rows are named (GPUs, Workloads), with unique names."""
    built = []
    names: set[str] = set()
    rows: dict[str, SheetRow] = {}
    seen: dict[str, SheetRow] = {}
    for where, typed, found in _rows(file, table, sheet):
        problems.extend(found)
        name = typed.get(key)
        if name is not None:
            first = seen.get(name.lower())
            if first is not None:
                problems.append(
                    where.at(
                        key,
                        f"duplicate name (first in row {first.row})",
                        name,
                        "a name used once in the sheet",
                    )
                )
                continue
            seen[name.lower()] = where
            names.add(name)
            rows[name] = where
        record, more = build(typed, where)
        problems.extend(beyond(found, more))
        if record is not None and not found:
            built.append(record)
    return tuple(built), names, rows


# Names of a sheet, or None when the sheet or its name column is missing:
# that is reported once, and references to the sheet are then not checked
# (every row would otherwise repeat it as "not a name in sheet GPUs").
Names = AbstractSet[str] | None


def _unknown(name: str, known: Names) -> bool:
    return known is not None and name not in known


def _checkable(names: AbstractSet[str], table: SheetTable | None, key: str) -> Names:
    return names if table is not None and key in table.columns else None


def _unknown_reference(
    where: Where, column: str, name: str, sheet: str, known: Iterable[str]
) -> Problem:
    return where.at(
        column,
        f"not a name in sheet {sheet}{suggestion(name, known)}",
        name,
        f"a name from sheet {sheet}",
    )


def _offers(
    file: str, table: SheetTable | None, gpu_names: Names, problems: list[Problem]
) -> tuple[Offer, ...]:
    offers = []
    counts: dict[tuple[str, str], int] = {}
    for where, typed, found in _rows(file, table, PRICES):
        bad = list(found)
        if "gpu" in typed and _unknown(typed["gpu"], gpu_names):
            bad.append(_unknown_reference(where, "gpu", typed["gpu"], "GPUs", gpu_names or ()))
        if bad:
            problems.extend(bad)
            continue
        number = offer_id(typed.get("gpu", ""), typed.get("option", ""), counts)
        offer, more = build_offer(typed, where, number, where.row)
        problems.extend(more)
        if offer is not None and not more:
            offers.append(offer)
    return tuple(offers)


def _measurements(
    file: str,
    table: SheetTable | None,
    workloads: Sequence[Workload],
    workload_names: Names,
    gpu_names: Names,
    problems: list[Problem],
) -> tuple[tuple[Measurement, ...], dict[tuple[str, str], SheetRow]]:
    kinds = {w.name: w.kind for w in workloads}
    measurements = []
    rows: dict[tuple[str, str], SheetRow] = {}
    for where, typed, found in _rows(file, table, THROUGHPUT):
        bad = list(found)
        w, g = typed.get("workload"), typed.get("gpu")
        if w is not None and _unknown(w, workload_names):
            bad.append(_unknown_reference(where, "workload", w, "Workloads", workload_names or ()))
        if g is not None and _unknown(g, gpu_names):
            bad.append(_unknown_reference(where, "gpu", g, "GPUs", gpu_names or ()))
        if w is not None and g is not None:
            first = rows.get((w, g))
            if first is not None:
                bad.append(
                    where.at(
                        "gpu",
                        f"duplicate measurement of workload {w!r} on this GPU type "
                        f"(first in row {first.row})",
                        g,
                        "one Throughput row per workload and GPU type",
                    )
                )
            else:
                rows[(w, g)] = where
        kind = kinds.get(w) if w is not None else None
        if kind is Kind.REALTIME_INFERENCE and "gpu_hours" in typed:
            bad.append(
                where.at(
                    "gpu_hours",
                    f"is for training and batch_inference workloads; {w!r} is realtime_inference",
                    typed["gpu_hours"],
                    "blank (use tokens_per_second_per_replica)",
                )
            )
        if (
            kind is not None
            and kind is not Kind.REALTIME_INFERENCE
            and "tokens_per_second_per_replica" in typed
        ):
            bad.append(
                where.at(
                    "tokens_per_second_per_replica",
                    f"is for realtime_inference workloads; {w!r} is {kind.value}",
                    typed["tokens_per_second_per_replica"],
                    "blank (use gpu_hours)",
                )
            )
        problems.extend(bad)
        m, _ = build_measurement(typed, where)
        if m is not None and not bad:
            measurements.append(m)
    return tuple(measurements), rows


def _tdp_needed(
    gpus: Sequence[Gpu], rows: Mapping[str, SheetRow], offers: Sequence[Offer]
) -> list[Problem]:
    bought = {o.gpu for o in offers if o.option is OfferOption.BUY}
    return [
        rows[g.name].at(
            "tdp_w",
            f"is blank; GPU type {g.name!r} has a buy offer, and owned GPUs' power is costed",
            None,
            "a number > 0 (W)",
        )
        for g in gpus
        if g.name in bought and g.tdp_w is None
    ]


def _scenario_header_problems(file: str, table: SheetTable) -> list[Problem]:
    """Scenarios columns that would be silently ignored: unknown names, or values without one.

    Every other sheet ignores extra columns; here an unknown column is most
    likely a mistyped Assumptions key, and a column with values but no name
    (blank, or only "(notes)") would be ignored just the same.
    """
    allowed = {c.name for c in SCENARIOS.columns} | set(ASSUMPTION_KEYS)
    width = max([len(table.header), *(len(values) for _, values in table.rows)])
    problems = []
    for index in range(width):
        header = table.header[index] if index < len(table.header) else ""
        letter = column_letter(index)
        if header:
            if header in allowed:
                continue
            message = f"unknown column {header!r}{suggestion(header, allowed)}"
            expected = "a scenario field or an Assumptions key"
        else:
            used = [r for r, row in table.rows if index < len(row) and not is_blank(row[index])]
            if not used:
                continue
            message = (
                f"column {letter} has values (first in row {used[0]}) but no name in its header"
            )
            expected = "a scenario field or an Assumptions key as the header"
        problems.append(
            Problem(
                file=file,
                sheet=table.name,
                row=1,
                cell=f"{letter}1",
                message=message,
                expected=expected,
            )
        )
    return problems


def _scenarios(
    file: str,
    table: SheetTable | None,
    gpu_names: Names,
    workload_names: Names,
    problems: list[Problem],
) -> tuple[tuple[ScenarioRow, ...], frozenset[str]]:
    if table is None:
        return (), frozenset()
    problems.extend(_scenario_header_problems(file, table))
    specs = {**SPECS[SCENARIOS.name], **ASSUMPTION_SPECS}
    rows = []
    seen: dict[str, SheetRow] = {}
    seen_names: set[str] = set()  # rows with problems included
    for r, values in table.rows:
        where = SheetRow(file, table.name, r, table.columns)
        typed, found = coerce_fields(specs, _raw_record(table, values, specs), where)
        bad = list(found)
        name: str | None = typed.get("scenario")
        if name is not None:
            first = seen.get(name.lower())
            if first is not None:
                bad.append(
                    where.at(
                        "scenario",
                        f"duplicate name (first in row {first.row})",
                        name,
                        "a name used once in the sheet",
                    )
                )
            seen.setdefault(name.lower(), where)
            seen_names.add(name)
        for column, known, sheet in (
            ("workloads", workload_names, "Workloads"),
            ("exclude_gpus", gpu_names, "GPUs"),
        ):
            bad.extend(
                _unknown_reference(where, column, n, sheet, known or ())
                for n in typed.get(column, ())
                if _unknown(n, known)
            )
        problems.extend(bad)
        if name is not None and not bad:
            settings = {k: v for k, v in typed.items() if k in SCENARIO_FIELDS}
            assumptions = {k: v for k, v in typed.items() if k in ASSUMPTION_KEYS}
            rows.append(ScenarioRow(name, where, settings, assumptions))
    return tuple(rows), frozenset(seen_names)


def _assumptions(
    file: str, table: SheetTable | None, problems: list[Problem]
) -> tuple[AssumptionRow, ...]:
    if table is None:
        return ()
    for column in ("key", "value"):
        if column not in table.columns:
            problems.append(
                Problem(
                    file=file,
                    sheet=table.name,
                    row=1,
                    column=column,
                    message=f"required column {column} is missing",
                    expected=f"a header {column!r} in row 1",
                )
            )
    if "key" not in table.columns:
        return ()
    rows = []
    seen: dict[str, SheetRow] = {}
    key_spec = FieldSpec("key", ColumnType.TEXT, "an assumption key")
    source_spec = FieldSpec("source", ColumnType.TEXT, "text")
    for r, values in table.rows:
        where = SheetRow(file, table.name, r, table.columns)
        raw = _raw_record(table, values, ("key", "value", "source"))
        try:
            key = coerce(key_spec, raw.get("key"))
            source = coerce(source_spec, raw.get("source"))
        except BadValue as bad:
            problems.append(
                where.at("key", bad.message, shown(raw.get("key")), "an assumption key")
            )
            continue
        if not isinstance(key, str):
            problems.append(
                where.at("key", "is blank", shown(raw.get("value")), "an assumption key")
            )
            continue
        spec = ASSUMPTION_SPECS.get(key)
        if spec is None:
            problems.append(
                where.at(
                    "key",
                    f"unknown assumption key{suggestion(key, ASSUMPTION_KEYS)}",
                    key,
                    "a key listed in the README sheet",
                )
            )
            continue
        first = seen.get(key)
        if first is not None:
            problems.append(
                where.at("key", f"duplicate key (first in row {first.row})", key, "each key once")
            )
            continue
        seen[key] = where
        try:
            value = coerce(spec, raw.get("value"))
        except BadValue as bad:
            problems.append(
                where.at(
                    "value",
                    f"{key}: {bad.message}",
                    shown(raw.get("value")),
                    bad.expected or spec.expected,
                )
            )
            continue
        # A NUMBER spec coerces to float, a BOOL spec to bool.
        rows.append(
            AssumptionRow(key, cast(float | bool | None, value), cast(str | None, source), where)
        )
    return tuple(rows)
