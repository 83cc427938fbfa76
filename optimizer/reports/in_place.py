"""``gpumix solve --in-place``: write the result sheets into the input workbook.

openpyxl rewrites the whole file when it saves, and silently drops what it
does not model (shapes, pivot tables, VBA, slicers, unknown extensions ...).
So before anything is loaded, the zip's parts and content types are checked
against what openpyxl is known to round-trip; anything else makes this
refuse with an :class:`InputError` naming the part, and the file is left
byte-for-byte unchanged. Loading then runs with openpyxl's own warnings
recorded, and any "will be removed" warning refuses too (a second net).

Only result sheets are added or replaced: the ones a previous run recorded
in the custom document property ``gpumix result sheets``. A user's own sheet
that happens to be called ``Summary`` is kept, and the result sheet becomes
``Summary (2)``. The new file is written beside the input and moved over it
in one step, so a failure never leaves half a workbook.

openpyxl cannot store a formula's cached value, and a formula without one
reads as empty to pandas and to gpumix's own reader. In place, every
result cell therefore holds the number the formula would compute (the
solver's number); the live formulas are in the separate result workbook.
The user's own formulas keep their cached values: ``optimizer.reports.cached_values``
copies them back from the original file after openpyxl has saved.
"""

from __future__ import annotations

import importlib.util
import re
import warnings
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

import openpyxl
from defusedxml import ElementTree
from openpyxl.chart import BarChart, LineChart, Reference
from openpyxl.chart.data_source import StrRef
from openpyxl.chart.series import SeriesLabel
from openpyxl.chart.text import RichText, Text
from openpyxl.chart.title import Title
from openpyxl.drawing.text import (
    CharacterProperties,
    Paragraph,
    ParagraphProperties,
    RegularTextRun,
)
from openpyxl.packaging.custom import StringProperty
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.table import Table as XlTable
from openpyxl.worksheet.table import TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

from optimizer.errors import InputError, Problem
from optimizer.inputs.xlsx_safety import check_xlsx_file
from optimizer.reports.cached_values import restore_cached_values
from optimizer.reports.result_workbook import build_result_sheets
from optimizer.reports.safe_files import write_atomically, write_problems
from optimizer.reports.sheet_grid import (
    FORMULA_STYLES,
    Chart,
    SheetModel,
    Style,
    a1,
    absolute_ref,
    fitted_heights,
    fitted_widths,
    number_format,
    repeated_titles,
)
from optimizer.results import RunResult

RESULT_SHEETS_PROPERTY = "gpumix result sheets"

_CT = "application/vnd.openxmlformats-officedocument."
# Content types of parts openpyxl reads and writes back.
KEPT_CONTENT_TYPES = frozenset(
    {
        _CT + "spreadsheetml.sheet.main+xml",
        _CT + "spreadsheetml.worksheet+xml",
        _CT + "spreadsheetml.chartsheet+xml",
        _CT + "spreadsheetml.styles+xml",
        _CT + "spreadsheetml.sharedStrings+xml",
        _CT + "spreadsheetml.comments+xml",
        _CT + "spreadsheetml.table+xml",
        _CT + "spreadsheetml.externalLink+xml",
        _CT + "theme+xml",
        _CT + "drawing+xml",
        _CT + "drawingml.chart+xml",
        _CT + "vmlDrawing",  # legacy comment boxes (openpyxl writes its own)
        _CT + "extended-properties+xml",
        _CT + "custom-properties+xml",
        "application/vnd.openxmlformats-package.core-properties+xml",
        "application/vnd.openxmlformats-package.relationships+xml",
    }
)
# Parts openpyxl drops that hold nothing a user made: caches Excel rebuilds.
REBUILT_CONTENT_TYPES = frozenset(
    {
        _CT + "spreadsheetml.calcChain+xml",  # Excel's recalculation order
        "application/vnd.ms-office.chartstyle+xml",  # chart style presets; the chart XML keeps its look
        "application/vnd.ms-office.chartcolorstyle+xml",
    }
)
# What a part is, for the message, by a piece of its content type or path.
_WHAT = (
    ("vbaProject", "a VBA macro project"),
    ("macroEnabled", "a VBA macro project"),
    ("pivotTable", "a pivot table"),
    ("pivotCache", "a pivot table cache"),
    ("slicer", "a slicer"),
    ("timeline", "a timeline"),
    ("chartex", "a new-style Excel chart"),
    ("activeX", "an ActiveX control"),
    ("ctrlProp", "a form control"),
    ("oleObject", "an embedded object"),
    ("embeddings", "an embedded object"),
    ("printerSettings", "printer settings"),
    ("customXml", "custom XML data"),
    ("threadedComment", "threaded comments"),
    ("person", "threaded comment authors"),
    ("sheetMetadata", "dynamic array metadata"),
    ("queryTable", "a query table"),
    ("connections", "a data connection"),
    ("richData", "pictures in cells"),
    ("image", "a picture"),
)
_DRAWING_NS = "{http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing}"
_CHART_URI = "http://schemas.openxmlformats.org/drawingml/2006/chart"
_ANCHORS = {_DRAWING_NS + t for t in ("twoCellAnchor", "oneCellAnchor", "absoluteAnchor")}
_CONTENT_TYPES_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"
_WORKSHEET_EXTRAS = re.compile(rb"<(?:\w+:)?(extLst|controls|oleObjects)[\s>/]")


def _pillow_installed() -> bool:
    """openpyxl keeps pictures only when Pillow is installed."""
    return importlib.util.find_spec("PIL") is not None


def _content_types(archive: zipfile.ZipFile) -> tuple[dict[str, str], dict[str, str]]:
    root = ElementTree.fromstring(archive.read("[Content_Types].xml"))
    defaults = {
        e.get("Extension", "").lower(): e.get("ContentType", "")
        for e in root.iter(_CONTENT_TYPES_NS + "Default")
    }
    overrides = {
        e.get("PartName", "").lstrip("/"): e.get("ContentType", "")
        for e in root.iter(_CONTENT_TYPES_NS + "Override")
    }
    return defaults, overrides


def _extension(part: str) -> str:
    """``rels`` for ``_rels/.rels`` too (PurePosixPath sees no suffix there)."""
    base = PurePosixPath(part).name
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


def _describe(part: str, content_type: str) -> str:
    for marker, what in _WHAT:
        if marker.lower() in content_type.lower() or marker.lower() in part.lower():
            return what
    return f"a part openpyxl does not keep ({content_type or 'unknown type'})"


def _drawing_problems(xml: bytes) -> list[str]:
    """What in one drawing part is neither a chart nor (with Pillow) a picture."""
    found = []
    for anchor in ElementTree.fromstring(xml):
        if anchor.tag not in _ANCHORS:
            found.append("an unknown drawing element")
            continue
        for item in anchor:
            tag = item.tag.removeprefix(_DRAWING_NS)
            if tag in ("from", "to", "pos", "ext", "clientData"):
                continue
            if tag == "graphicFrame" and any(
                e.get("uri") == _CHART_URI for e in item.iter() if e.tag.endswith("graphicData")
            ):
                continue
            if tag == "pic" and _pillow_installed():
                continue
            found.append(
                {
                    "sp": "a shape or text box",
                    "grpSp": "a group of shapes",
                    "cxnSp": "a connector line",
                    "pic": "a picture",
                }.get(tag, "a drawing that is not a chart")
            )
    return found


def unsupported_parts(path: Path) -> list[str]:
    """Everything in the workbook that openpyxl would drop, described for the user (empty: safe)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        return [f"the file is not an .xlsx workbook ({exc})"]
    with archive:
        names = archive.namelist()
        if "[Content_Types].xml" not in names or "xl/workbook.xml" not in names:
            return ["the file is not an .xlsx workbook (no [Content_Types].xml or xl/workbook.xml)"]
        defaults, overrides = _content_types(archive)
        found: list[str] = []
        for name in names:
            if name == "[Content_Types].xml" or name.endswith("/"):
                continue
            content_type = overrides.get(name) or defaults.get(_extension(name), "")
            if content_type in REBUILT_CONTENT_TYPES:
                continue
            if content_type.startswith("image/") and _pillow_installed():
                continue
            if content_type not in KEPT_CONTENT_TYPES:
                found.append(f"{name}: {_describe(name, content_type)}")
                continue
            if content_type == _CT + "drawing+xml":
                found += [f"{name}: {what}" for what in _drawing_problems(archive.read(name))]
            elif content_type == _CT + "spreadsheetml.worksheet+xml":
                for match in sorted(
                    {m.group(1).decode() for m in _WORKSHEET_EXTRAS.finditer(archive.read(name))}
                ):
                    what = {
                        "extLst": "an Excel extension openpyxl does not keep (sparklines, newer data "
                        "validation or conditional formats ...)",
                        "controls": "a form control",
                        "oleObjects": "an embedded object",
                    }[match]
                    found.append(f"{name}: {what}")
    return list(dict.fromkeys(found))


def _refuse(path: Path, reasons: Iterable[str]) -> InputError:
    listed = "; ".join(reasons)
    return InputError(
        Problem(
            file=str(path),
            message=(
                "--in-place would lose parts of this workbook that openpyxl cannot keep: "
                f"{listed}. The file was not changed; run without --in-place to write a "
                "separate result workbook."
            ),
        )
    )


def _load(path: Path) -> Workbook:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # rich_text keeps partly formatted cell text; links keep external references.
        workbook = openpyxl.load_workbook(path, rich_text=True, keep_links=True)
    lost = [
        str(w.message) for w in caught if "removed" in str(w.message) or "lost" in str(w.message)
    ]
    if lost:
        raise _refuse(path, lost)
    return workbook


def _previous_result_sheets(workbook: Workbook) -> set[str]:
    for prop in workbook.custom_doc_props.props:
        if prop.name == RESULT_SHEETS_PROPERTY and isinstance(prop.value, str):
            return {name for name in prop.value.split("\n") if name}
    return set()


def _remove_result_sheets(workbook: Workbook, previous: set[str]) -> None:
    """Delete a previous run's sheets and the defined names that point into them."""
    for name in list(workbook.sheetnames):
        if name in previous:
            del workbook[name]
    quoted = {"'" + s.replace("'", "''") + "'!" for s in previous}
    for name, defined in list(workbook.defined_names.items()):
        if any(q in (defined.attr_text or "") for q in quoted):
            del workbook.defined_names[name]


def refuse_unless_safe(input_path: Path) -> None:
    """Raise InputError unless ``write_in_place`` can rewrite the file losing nothing."""
    check_xlsx_file(input_path)  # zip and entity bombs are refused before any part is parsed
    problems = unsupported_parts(input_path)
    if problems:
        raise _refuse(input_path, problems)
    unwritable = write_problems(input_path.resolve())  # a link's target gets the results
    if unwritable:
        raise InputError(
            [
                Problem(file=str(input_path), message=f"--in-place cannot write it: {m}")
                for m in unwritable
            ]
        )


def write_in_place(input_path: Path, run: RunResult) -> None:
    """Add or replace the result sheets of ``run`` in ``input_path``; change nothing else."""
    refuse_unless_safe(input_path)
    workbook = _load(input_path)
    previous = _previous_result_sheets(workbook)
    _remove_result_sheets(workbook, previous)
    kept = list(workbook.sheetnames)
    sheets = build_result_sheets(run, taken=kept)
    used_tables = {t for ws in workbook.worksheets for t in ws.tables} | set(workbook.defined_names)
    for model in sheets:
        _render_sheet(workbook, model, used_tables)
    props = [p for p in workbook.custom_doc_props.props if p.name != RESULT_SHEETS_PROPERTY]
    props.append(
        StringProperty(name=RESULT_SHEETS_PROPERTY, value="\n".join(m.name for m in sheets))
    )
    workbook.custom_doc_props.props = props
    _save_atomically(workbook, input_path, kept)


def _save_atomically(workbook: Workbook, path: Path, user_sheets: list[str]) -> None:
    """Save through a temporary file renamed over the workbook (``safe_files``).

    A link is followed: the linked workbook gets the results and the link
    stays a link. The replaced file keeps its mode and, where allowed, owner.
    """
    target = path.resolve()

    def save(temporary: Path) -> None:
        workbook.save(temporary)
        restore_cached_values(target, temporary, user_sheets)

    write_atomically(target, save)


# ---------------------------------------------------------------------------
# Rendering a grid with openpyxl

_FORMULA_COLOR = "1F4E79"


def _font(**kw: Any) -> Font:
    # openpyxl's Font() has no name or size: LibreOffice would fall back to a serif face.
    return Font(name="Calibri", size=kw.pop("size", 11), **kw)


_FORMULA_FILL = PatternFill("solid", fgColor="EEF3F8")
_HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
_THIN = Side(style="thin")


def _style_cell(c: Any, style: Style, currency: str) -> None:
    """``c``: an openpyxl cell (openpyxl has no type hints)."""
    if (num_format := number_format(style, currency)) is not None:
        c.number_format = num_format
    if isinstance(c.value, str):
        c.quotePrefix = True  # editing the cell in Excel keeps "=..." as text
    if style in (Style.HEADER, Style.COLUMN_HEADER):
        c.font = _font(bold=True)
        c.fill = _HEADER_FILL
        right = "right" if style is Style.COLUMN_HEADER else None
        c.alignment = Alignment(wrap_text=True, vertical="top", horizontal=right)
        c.border = Border(bottom=_THIN)
    elif style is Style.VALUE_TEXT:
        c.alignment = Alignment(horizontal="right")
    elif style is Style.VALUE_NOTE:
        c.alignment = Alignment(horizontal="right")
        c.font = _font(italic=True, color="595959")
    elif style in (Style.SECTION, Style.TITLE):
        c.font = _font(bold=True, size=12 if style is Style.SECTION else 14)
    elif style is Style.NOTE:
        c.font = _font(italic=True, color="595959")
    elif style in (Style.WRAP, Style.LABEL):
        c.alignment = Alignment(wrap_text=True, vertical="top")
    elif style in (Style.MARK, Style.BOOL):
        c.alignment = Alignment(horizontal="center")
    if style in FORMULA_STYLES:
        c.font = _font(color=_FORMULA_COLOR, bold=style.name.startswith("TOTAL"))
        c.fill = _FORMULA_FILL
    if style in (Style.TOTAL_LABEL, Style.TOTAL_MONEY_FORMULA, Style.TOTAL_HOURS_FORMULA):
        c.border = Border(top=_THIN)
        if style is Style.TOTAL_LABEL:
            c.font = _font(bold=True)


def _render_sheet(workbook: Workbook, model: SheetModel, used_tables: set[str]) -> None:
    ws: Worksheet = workbook.create_sheet(model.name)
    for (row, col), cell in model.cells.items():
        target = ws.cell(row=row + 1, column=col + 1)
        # The number the formula computes, not the formula: openpyxl cannot cache it.
        target.value = cell.value
        if isinstance(cell.value, str):
            target.data_type = "s"  # "=..." from a user stays text, never a formula
        _style_cell(target, cell.style, model.currency)
    widths = fitted_widths(model)
    for col, width in widths.items():
        ws.column_dimensions[a1(0, col)[:-1]].width = width
    for row, height in fitted_heights(model, widths).items():
        ws.row_dimensions[row + 1].height = height
    for first, last in model.folded_rows:
        ws.row_dimensions.group(first + 1, last + 1, outline_level=1, hidden=True)
    if model.hidden:
        ws.sheet_state = "hidden"
    if model.freeze:
        ws.freeze_panes = a1(*model.freeze)
    _print_setup(ws, model)
    for table in model.tables:
        name = table.name
        while name in used_tables:
            name += "_2"
        used_tables.add(name)
        ref = f"{a1(table.first_row, table.first_col)}:{a1(table.last_row, table.last_col)}"
        xl = XlTable(displayName=name, ref=ref)
        xl.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True)
        ws.add_table(xl)
    for chart in model.charts:
        ws.add_chart(_chart(ws, chart), a1(*chart.anchor))
    for name, block in model.names.items():
        if name in used_tables:  # the user's own name of that spelling wins
            continue
        used_tables.add(name)
        workbook.defined_names[name] = DefinedName(name, attr_text=absolute_ref(model.name, *block))


def _print_setup(ws: Any, model: SheetModel) -> None:
    """As ``sheet_grid`` prints: landscape, N pages wide, headers repeated, sheet name in the footer."""
    if model.landscape:
        ws.page_setup.orientation = "landscape"
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = model.pages_wide
    ws.page_setup.fitToHeight = model.pages_tall
    rows, cols = repeated_titles(model)
    if rows:
        ws.print_title_rows = f"1:{rows}"
    if cols:
        ws.print_title_cols = f"A:{a1(0, cols - 1)[:-1]}"
    for row in model.page_breaks:
        ws.row_breaks.append(Break(id=row))  # openpyxl breaks after row ``id`` (1-based)
    area = model.print_area()
    if area is not None:
        ws.print_area = f"{a1(area[0], area[1])}:{a1(area[2], area[3])}"
    ws.oddFooter.left.text = "&A"
    ws.oddFooter.right.text = "Page &P of &N"


def _title(text: str) -> Title:
    """A chart title in 12-point bold, as XlsxWriter's (openpyxl's default is 18 points)."""
    font = CharacterProperties(sz=1200, b=True)
    paragraph = Paragraph(
        pPr=ParagraphProperties(defRPr=font), r=[RegularTextRun(rPr=font, t=text)]
    )
    return Title(tx=Text(rich=RichText(p=[paragraph])), overlay=False)


def _chart(ws: Worksheet, spec: Chart) -> BarChart | LineChart:
    chart: BarChart | LineChart
    if spec.kind == "line":
        chart = LineChart()
    else:
        chart = BarChart()
        chart.type = "col"
        chart.grouping = "stacked"
        chart.overlap = 100
        chart.gapWidth = 50
    chart.title = _title(spec.title)
    chart.legend.position = "b"  # under the plot, as XlsxWriter's: beside it squeezes the plot
    chart.x_axis.title = spec.x_axis
    chart.x_axis.tickLblPos = "low"  # month labels along the bottom, below any negative values
    chart.y_axis.title = spec.y_axis
    chart.y_axis.number_format = spec.y_format
    r1, c1, r2, c2 = spec.categories
    for s in spec.series:
        v1, w1, v2, w2 = s.values
        data = Reference(ws, min_row=v1 + 1, min_col=w1 + 1, max_row=v2 + 1, max_col=w2 + 1)
        chart.add_data(data, titles_from_data=False, from_rows=v1 == v2 and w1 != w2)
        series = chart.series[-1]
        series.tx = SeriesLabel(
            strRef=StrRef(f"'{ws.title.replace(chr(39), chr(39) * 2)}'!{a1(*s.name_cell)}")
        )
    categories = Reference(ws, min_row=r1 + 1, min_col=c1 + 1, max_row=r2 + 1, max_col=c2 + 1)
    chart.set_categories(categories)
    if spec.secondary:
        line = LineChart()
        for s in spec.secondary:
            v1, w1, v2, w2 = s.values
            data = Reference(ws, min_row=v1 + 1, min_col=w1 + 1, max_row=v2 + 1, max_col=w2 + 1)
            line.add_data(data, titles_from_data=False)
            line.series[-1].tx = SeriesLabel(
                strRef=StrRef(f"'{ws.title.replace(chr(39), chr(39) * 2)}'!{a1(*s.name_cell)}")
            )
        line.set_categories(categories)
        line.y_axis.axId = 200  # a second axis, at the right
        line.y_axis.title = spec.y2_axis
        line.y_axis.number_format = spec.y_format
        line.y_axis.crosses = "max"
        chart += line
    # XlsxWriter's default chart is 480 × 288 px; openpyxl sizes in cm (37.8 px each).
    chart.width, chart.height = 480 * spec.scale[0] / 37.8, 288 * spec.scale[1] / 37.8
    return chart
