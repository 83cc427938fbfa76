"""--in-place: only result sheets change; anything openpyxl would drop makes it refuse."""

from __future__ import annotations

import base64
import zipfile
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter
from openpyxl.chart import BarChart, Reference
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

from optimizer.domain import CostCategory
from optimizer.errors import InputError
from optimizer.reports.in_place import RESULT_SHEETS_PROPERTY, write_in_place
from tests.fake_plans import fake_plan, fake_run
from tests.paths import EXAMPLE_WORKBOOK

CENT = 0.005
EVIL = '=HYPERLINK("http://x","y")'
# A 1×1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def rich_workbook(path: Path) -> Path:
    """An input workbook with values, a formula, styles, a defined name, a validation and a chart."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "GPUs"
    ws.append(["gpu", "vram_gb (GB)", "price (USD)"])
    ws.append(["H100", 80, 25_000])
    ws.append(["L40S", 48, 8_000])
    ws["C4"] = "=SUM(C2:C3)"
    ws["A1"].font = Font(bold=True, color="FF0000")
    ws["B2"].fill = PatternFill("solid", fgColor="FFFF00")
    ws["C2"].number_format = "$#,##0.00"
    ws.column_dimensions["A"].width = 17.5
    ws.merge_cells("E1:F1")
    ws["E1"] = "merged note"
    ws["A2"].comment = Comment("checked 2026-11", "finance")
    validation = DataValidation(
        type="list", formula1='"buy,on_demand,spot,reserved"', allow_blank=True
    )
    validation.add("D2:D10")
    ws.add_data_validation(validation)
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=3, min_row=1, max_row=3), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=2, max_row=3))
    ws.add_chart(chart, "H2")
    wb.defined_names["TotalPrice"] = DefinedName("TotalPrice", attr_text="GPUs!$C$4")
    notes = wb.create_sheet("Notes")
    notes["A1"] = "kept as typed"
    wb.save(path)
    return path


def test_other_sheets_survive_untouched(tmp_path: Path) -> None:
    path = rich_workbook(tmp_path / "input.xlsx")
    plan = fake_plan()
    write_in_place(path, fake_run(plan))
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames[:2] == ["GPUs", "Notes"]
    assert {"Summary", "Audit", "base Cash flow", "base Options"} <= set(wb.sheetnames)
    ws = wb["GPUs"]
    assert [[c.value for c in row] for row in ws["A1:C3"]] == [
        ["gpu", "vram_gb (GB)", "price (USD)"],
        ["H100", 80, 25_000],
        ["L40S", 48, 8_000],
    ]
    assert ws["C4"].value == "=SUM(C2:C3)"
    assert ws["A1"].font.bold and ws["A1"].font.color.rgb == "00FF0000"
    assert ws["B2"].fill.fgColor.rgb == "00FFFF00"
    assert ws["C2"].number_format == "$#,##0.00"
    assert ws.column_dimensions["A"].width == 17.5
    assert "E1:F1" in {str(r) for r in ws.merged_cells.ranges}
    assert ws["A2"].comment is not None and ws["A2"].comment.text == "checked 2026-11"
    assert wb.defined_names["TotalPrice"].attr_text == "GPUs!$C$4"
    [validation] = ws.data_validations.dataValidation
    assert (
        validation.formula1 == '"buy,on_demand,spot,reserved"' and str(validation.sqref) == "D2:D10"
    )
    assert len(ws._charts) == 1
    assert wb["Notes"]["A1"].value == "kept as typed"


def test_result_sheets_hold_the_plans_numbers_and_safe_text(tmp_path: Path) -> None:
    path = rich_workbook(tmp_path / "input.xlsx")
    plan = fake_plan(EVIL, chat=EVIL)
    write_in_place(path, fake_run(plan))
    wb = openpyxl.load_workbook(path)  # not data_only: the numbers are values, not formulas
    summary = {row[0].value: row[1] for row in wb["Summary"].iter_rows() if row[0].value}
    assert summary["Scenario"].value == EVIL and summary["Scenario"].data_type == "s"
    assert summary["Total cost (USD, after residual credit; the objective)"].value == pytest.approx(
        plan.total_cost, abs=CENT
    )
    net = summary["Net undiscounted cost (USD) = cash out + sales − residual credit"]
    assert plan.cash_out is not None and plan.residual_credit is not None
    assert net.value == pytest.approx(plan.cash_out - plan.residual_credit, abs=CENT)
    assert net.data_type == "n"
    flow_sheet = next(n for n in wb.sheetnames if n.endswith("Cash flow"))
    flow = wb[flow_sheet]
    total = get_column_letter(len(CostCategory) + 2)
    assert flow[f"{total}5"].value == pytest.approx(plan.cash_out, abs=CENT)
    assert flow["B2"].number_format == "$#,##0.00"
    assert flow.freeze_panes == "B2"
    assert (
        len(flow._charts) == 2 and flow.tables
    )  # monthly cash, and cumulative against the baselines
    texts = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value == EVIL]
    assert len(texts) >= 3 and all(c.data_type == "s" and c.quotePrefix for c in texts)


def test_running_twice_replaces_the_result_sheets(tmp_path: Path) -> None:
    path = rich_workbook(tmp_path / "input.xlsx")
    write_in_place(path, fake_run(fake_plan("base")))
    first = openpyxl.load_workbook(path).sheetnames
    cheaper = fake_plan("base", scale=2.0)
    write_in_place(path, fake_run(cheaper))
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == first
    summary = {row[0]: row[1] for row in wb["Summary"].iter_rows(values_only=True) if row[0]}
    assert summary["Total cost (USD, after residual credit; the objective)"] == pytest.approx(
        cheaper.total_cost, abs=CENT
    )
    recorded = next(p for p in wb.custom_doc_props.props if p.name == RESULT_SHEETS_PROPERTY)
    assert recorded.value.split("\n") == first[2:]
    assert set(wb.defined_names) == {"TotalPrice", "TotalCost", "CashOut", "ResidualCredit"}
    total = next(
        r
        for r in wb["Summary"].iter_rows()
        if r[0].value == "Total cost (USD, after residual credit; the objective)"
    )
    row = total[0].row  # the name follows the row wherever the layout puts it
    assert wb.defined_names["TotalCost"].attr_text == f"'Summary'!$B${row}:$B${row}"


@pytest.mark.parametrize("sheet", ["Summary", "Audit"])
def test_a_users_own_summary_or_audit_sheet_is_kept(tmp_path: Path, sheet: str) -> None:
    path = rich_workbook(tmp_path / "input.xlsx")
    wb = openpyxl.load_workbook(path)
    wb.create_sheet(sheet)["A1"] = "my own"
    wb.save(path)
    write_in_place(path, fake_run(fake_plan()))
    wb = openpyxl.load_workbook(path)
    assert wb[sheet]["A1"].value == "my own"
    assert wb[f"{sheet} (2)"]["A1"].value == {"Summary": "Scenario", "Audit": "Run"}[sheet]
    if sheet == "Audit":
        # The Summary's note points at our Audit sheet, not the user's.
        notes = [str(c.value) for row in wb["Summary"].iter_rows() for c in row if c.value]
        assert any("sheet 'Audit (2)'." in v for v in notes)
        assert not any("sheet 'Audit'." in v for v in notes)


def _xlsxwriter_book(path: Path, add: str) -> Path:
    workbook = xlsxwriter.Workbook(str(path))
    ws = workbook.add_worksheet("GPUs")
    ws.write_row(0, 0, ["gpu", "vram_gb"])
    ws.write_row(1, 0, ["H100", 80])
    if add == "shape":
        ws.insert_textbox("D2", "a note in a text box")
    elif add == "sparkline":
        ws.add_sparkline("D2", {"range": "GPUs!B2:B2"})
    elif add == "image":
        image = path.with_suffix(".png")
        image.write_bytes(PNG)
        ws.insert_image("D2", str(image))
    workbook.close()
    return path


def _with_member(path: Path, member: str, content_type: str) -> Path:
    """``path`` with one more part and its content type (a part openpyxl would drop)."""
    out = path.with_name("extra-" + path.name)
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "[Content_Types].xml":
                data = data.replace(
                    b"</Types>",
                    f'<Override PartName="/{member}" ContentType="{content_type}"/></Types>'.encode(),
                )
            dst.writestr(item, data)
        dst.writestr(member, b"<x/>")
    return out


@pytest.mark.parametrize(
    ("add", "said"),
    [("shape", "a shape or text box"), ("sparkline", "Excel extension"), ("image", "a picture")],
)
def test_refuses_what_openpyxl_would_drop_and_leaves_the_file_alone(
    tmp_path: Path, add: str, said: str
) -> None:
    path = _xlsxwriter_book(tmp_path / "input.xlsx", add)
    before = path.read_bytes()
    with pytest.raises(InputError) as caught:
        write_in_place(path, fake_run(fake_plan()))
    message = str(caught.value)
    assert said in message and "not changed" in message and "input.xlsx" in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".xlsx") == ["input.xlsx"]


@pytest.mark.parametrize(
    ("member", "content_type", "said"),
    [
        ("xl/vbaProject.bin", "application/vnd.ms-office.vbaProject", "VBA"),
        (
            "xl/pivotCache/pivotCacheDefinition1.xml",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.pivotCacheDefinition+xml",
            "pivot table cache",
        ),
        (
            "xl/pivotTables/pivotTable1.xml",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.pivotTable+xml",
            "pivot table",
        ),
        ("xl/slicers/slicer1.xml", "application/vnd.ms-excel.slicer+xml", "slicer"),
        ("xl/unknown/thing.xml", "application/x-something-new", "does not keep"),
    ],
)
def test_refuses_parts_openpyxl_does_not_model(
    tmp_path: Path, member: str, content_type: str, said: str
) -> None:
    path = _with_member(_xlsxwriter_book(tmp_path / "input.xlsx", "nothing"), member, content_type)
    before = path.read_bytes()
    with pytest.raises(InputError, match=said):
        write_in_place(path, fake_run(fake_plan()))
    assert path.read_bytes() == before


def test_a_plain_xlsxwriter_workbook_is_accepted(tmp_path: Path) -> None:
    path = _xlsxwriter_book(tmp_path / "input.xlsx", "nothing")
    write_in_place(path, fake_run(fake_plan()))
    assert openpyxl.load_workbook(path)["GPUs"]["A2"].value == "H100"


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "input.xlsx"
    path.write_bytes(b"plain text")
    with pytest.raises(InputError):
        write_in_place(path, fake_run(fake_plan()))
    assert path.read_bytes() == b"plain text"


def test_the_bundled_example_still_reads_the_same_after_in_place(tmp_path: Path) -> None:
    from optimizer.inputs.load import load_input

    example = EXAMPLE_WORKBOOK
    copy = tmp_path / "example.xlsx"
    copy.write_bytes(example.read_bytes())
    before = load_input(copy)
    write_in_place(copy, fake_run(fake_plan()))
    after = load_input(copy)
    assert [s.name for s in after.scenarios] == [s.name for s in before.scenarios]
    assert after.scenarios == before.scenarios  # every GPU, offer, workload and assumption
    assert "Summary" in openpyxl.load_workbook(copy).sheetnames


def test_the_users_formulas_keep_their_cached_values(tmp_path: Path) -> None:
    path = tmp_path / "input.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    ws = workbook.add_worksheet("Prices")
    ws.write_row(0, 0, ["gpu", "price"])
    ws.write_row(1, 0, ["H100", 25_000])
    ws.write_formula(2, 1, "=B2*0.9", None, 22_500)
    ws.write_formula(3, 1, '="H"&"100"', None, "H100")
    ws.write_formula(4, 1, "=B2>1", None, True)
    ws.write_formula(5, 1, "=1/0", None, "#DIV/0!")
    workbook.close()
    write_in_place(path, fake_run(fake_plan()))
    values = openpyxl.load_workbook(path, data_only=True)["Prices"]
    assert [values[f"B{r}"].value for r in range(3, 7)] == [22_500, "H100", True, "#DIV/0!"]
    formulas = openpyxl.load_workbook(path)["Prices"]
    assert formulas["B3"].value == "=B2*0.9" and formulas["B4"].value == '="H"&"100"'


def test_in_place_on_a_link_writes_the_linked_workbook_and_keeps_its_mode(tmp_path: Path) -> None:
    """--in-place replaced a symlink with a regular file (the linked workbook
    never got the results) and reset the file's mode."""
    (tmp_path / "shared").mkdir()
    target = rich_workbook(tmp_path / "shared" / "fleet.xlsx")
    target.chmod(0o640)
    link = tmp_path / "fleet-link.xlsx"
    link.symlink_to(target)
    write_in_place(link, fake_run(fake_plan("base")))
    assert link.is_symlink() and link.resolve() == target
    assert "Summary" in openpyxl.load_workbook(target).sheetnames
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["fleet.xlsx"]  # no temporary left
