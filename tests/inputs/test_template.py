"""The input workbook written by optimizer.inputs.template, read back with openpyxl."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import openpyxl
import pytest
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from optimizer.cli import main
from optimizer.domain import Kind, OfferOption, Precision
from optimizer.inputs import schema
from optimizer.inputs.cells import BadValue, FieldSpec, coerce
from optimizer.inputs.rows import ASSUMPTION_SPECS, SPECS
from optimizer.inputs.schema import ColumnType
from optimizer.inputs.template import INPUT_ROWS, SHEET_ORDER, write_template


def _written(
    tmp_path: Path, rows: Mapping[str, Sequence[Mapping[str, object]]] | None = None
) -> Path:
    path = tmp_path / "input.xlsx"
    write_template(path, rows)
    return path


@pytest.fixture(scope="module")
def template_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _written(tmp_path_factory.mktemp("template"))


@pytest.fixture(scope="module")
def template(template_path: Path) -> Workbook:
    return openpyxl.load_workbook(template_path)


def _headers(ws: Worksheet) -> list[str]:
    return [c.value for c in ws[1] if c.value is not None]


def _column_letter(ws: Worksheet, name: str) -> str:
    for cell in ws[1]:
        if cell.value is not None and re.sub(r"\(.*?\)", "", cell.value).strip() == name:
            return str(cell.column_letter)
    raise AssertionError(f"no column {name} on sheet {ws.title}")


def _validation(ws: Worksheet, name: str) -> DataValidation:
    letter = _column_letter(ws, name)
    found = [dv for dv in ws.data_validations.dataValidation if f"{letter}2" in dv.sqref]
    assert len(found) == 1, f"{ws.title}.{name}: {len(found)} validations"
    return found[0]


def _list_items(dv: DataValidation) -> list[str]:
    assert dv.type == "list"
    return str(dv.formula1).strip('"').split(",")


def test_sheets_come_in_the_contract_order(template: Workbook) -> None:
    assert template.sheetnames == [
        "README",
        "GPUs",
        "Prices",
        "Fleet",
        "Workloads",
        "Throughput",
        "Demand",
        "Scenarios",
        "Futures",
        "Assumptions",
    ]
    assert list(SHEET_ORDER) == template.sheetnames


@pytest.mark.parametrize("sheet", schema.INPUT_SHEETS, ids=lambda s: s.name)
def test_every_column_is_a_header_the_reader_matches(
    template: Workbook, sheet: schema.Sheet
) -> None:
    headers = _headers(template[sheet.name])
    assert headers == [c.header for c in sheet.columns]
    # The reader ignores case and any text in parentheses.
    assert [re.sub(r"\(.*?\)", "", h).strip() for h in headers] == [c.name for c in sheet.columns]


def test_header_comments_give_description_default_and_allowed_values(template: Workbook) -> None:
    nvlink = template["GPUs"][f"{_column_letter(template['GPUs'], 'nvlink')}1"].comment.text
    assert "Fast GPU-to-GPU link" in nvlink and "default: FALSE" in nvlink
    option = template["Prices"][f"{_column_letter(template['Prices'], 'option')}1"].comment.text
    assert "Required" in option and "buy, on_demand, spot, reserved" in option
    price = template["Prices"][f"{_column_letter(template['Prices'], 'price')}1"].comment.text
    assert "Unit: USD" in price


def test_choice_columns_offer_exactly_the_allowed_values(template: Workbook) -> None:
    assert _list_items(_validation(template["Workloads"], "kind")) == [k.value for k in Kind]
    assert _list_items(_validation(template["Workloads"], "precision")) == [
        p.value for p in Precision
    ]
    assert _list_items(_validation(template["Prices"], "option")) == [o.value for o in OfferOption]
    assert _list_items(_validation(template["Futures"], "option")) == [o.value for o in OfferOption]


def test_every_boolean_column_offers_true_and_false(template: Workbook) -> None:
    bool_columns = [
        (sheet.name, c.name)
        for sheet in schema.INPUT_SHEETS
        for c in sheet.columns
        if c.type is ColumnType.BOOL
    ]
    assert len(bool_columns) >= 4  # nvlink, interruptible, allow_buy, allow_rent
    for sheet_name, column in bool_columns:
        assert _list_items(_validation(template[sheet_name], column)) == ["TRUE", "FALSE"]


@pytest.mark.parametrize(
    ("sheet", "column", "names_from", "name_column"),
    [
        ("Prices", "gpu", "GPUs", "gpu"),
        ("Throughput", "gpu", "GPUs", "gpu"),
        ("Throughput", "workload", "Workloads", "workload"),
        ("Futures", "scenario", "Scenarios", "scenario"),
        ("Futures", "workload", "Workloads", "workload"),
        ("Futures", "gpu", "GPUs", "gpu"),
    ],
)
def test_name_columns_offer_the_names_of_their_sheet(
    template: Workbook, sheet: str, column: str, names_from: str, name_column: str
) -> None:
    dv = _validation(template[sheet], column)
    assert dv.type == "list"
    letter = _column_letter(template[names_from], name_column)
    assert f"'{names_from}'!${letter}$2" in str(dv.formula1)


def test_numbers_are_checked_against_their_minimum(template: Workbook) -> None:
    # Every number has the reader's upper bound too (issue 33 item 2).
    price = _validation(template["Prices"], "price")
    assert (price.type, price.operator, price.formula1, price.formula2) == (
        "decimal",
        None,  # openpyxl reads Excel's default operator, between, as None
        "0",
        "1000000000.0",
    )
    vram = _validation(template["GPUs"], "vram_gb")
    assert (vram.type, vram.operator, vram.formula1, vram.formula2) == (
        "decimal",
        None,  # openpyxl reads Excel's default operator, between, as None
        "1e-12",
        "100000",
    )
    nodes = _validation(template["GPUs"], "max_per_node")
    assert (nodes.type, nodes.operator, nodes.formula1, nodes.formula2) == (
        "whole",
        None,
        "1",
        "1024",
    )
    assert price.promptTitle == "price" and "USD per GPU" in (price.prompt or "")
    assert "at most 1,000,000,000" in (price.error or "")


def test_validations_and_input_style_cover_the_empty_rows(template: Workbook) -> None:
    ws = template["Prices"]
    assert f"B{INPUT_ROWS + 1}" in _validation(ws, "option").sqref
    cell = ws.cell(row=INPUT_ROWS + 1, column=1)
    assert cell.value is None
    assert cell.fill.fgColor.rgb.endswith("FFF2CC")
    assert cell.font.color.rgb.endswith("0000FF")
    header = ws.cell(row=1, column=1)
    assert not header.fill.fgColor.rgb.endswith("FFF2CC")


@pytest.mark.parametrize("sheet", SHEET_ORDER[1:])
def test_header_row_is_frozen(template: Workbook, sheet: str) -> None:
    assert template[sheet].freeze_panes == "A2"


def test_assumptions_sheet_holds_every_key_with_its_default(template: Workbook) -> None:
    ws = template["Assumptions"]
    assert [c.value for c in ws[1]] == ["key", "value", "unit", "source"]
    rows = [tuple(c.value for c in row) for row in ws.iter_rows(min_row=2)]
    assert rows == [(a.key, a.default, a.unit, a.source) for a in schema.ASSUMPTIONS]
    # v1's key is blank (residual_value decides); the word key is text with its drop-down.
    credit = next(r for r in ws.iter_rows(min_row=2) if r[0].value == "credit_residual_value")
    assert credit[1].value is None
    residual = next(r for r in ws.iter_rows(min_row=2) if r[0].value == "residual_value")
    assert residual[1].value == "market" and residual[1].data_type == "s"
    words = [v for v in ws.data_validations.dataValidation if v.formula1 == '"market,book,none"']
    assert words and residual[1].coordinate in str(words[0].sqref)


def test_fractions_are_percent_cells_and_prices_dollars(template: Workbook) -> None:
    ws = template["Assumptions"]
    formats = {row[0].value: row[1].number_format for row in ws.iter_rows(min_row=2)}
    assert "%" in formats["maintenance_per_year"] and "%" in formats["mfu_training"]
    assert "%" not in formats["hours_per_month"]
    assert "$" in formats["electricity_per_kwh"]
    gpus = template["GPUs"]
    assert "%" in gpus[f"{_column_letter(gpus, 'mfu_training')}2"].number_format
    prices = template["Prices"]
    assert "$" in prices[f"{_column_letter(prices, 'price')}2"].number_format


def test_readme_explains_every_sheet_column_and_key(template: Workbook) -> None:
    texts = {str(c.value) for row in template["README"].iter_rows() for c in row if c.value}
    joined = "\n".join(texts)
    assert "gpumix solve" in joined
    for sheet in schema.INPUT_SHEETS:
        assert any(t.startswith(f"Sheet {sheet.name} ") for t in texts), sheet.name
        for column in sheet.columns:
            assert column.name in texts and column.description in texts, column.name
    for key in schema.ASSUMPTIONS:
        assert key.key in texts and key.source in texts, key.key


def _formula_tags(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        return [
            name
            for name in z.namelist()
            if name.startswith("xl/worksheets/sheet") and re.search(rb"<f[ >]", z.read(name))
        ]


def test_template_has_no_formula_cells(template_path: Path, template: Workbook) -> None:
    assert _formula_tags(template_path) == []
    for ws in template.worksheets:
        for row in ws.iter_rows():
            assert all(c.data_type != "f" for c in row), ws.title


def test_text_that_looks_like_a_formula_is_written_as_text(tmp_path: Path) -> None:
    link = '=HYPERLINK("http://x","y")'
    path = _written(
        tmp_path,
        {
            "GPUs": [{"gpu": link, "vram_gb": 80, "fp16_tflops": 989}],
            "Prices": [
                {"gpu": "H100", "option": "buy", "price": 1, "source": "+cmd|' /C calc'!A0"}
            ],
        },
    )
    assert _formula_tags(path) == []
    wb = openpyxl.load_workbook(path)
    cell = wb["GPUs"]["A2"]
    assert (cell.value, cell.data_type) == (link, "s")
    source = wb["Prices"][f"{_column_letter(wb['Prices'], 'source')}2"]
    assert (source.value, source.data_type) == ("+cmd|' /C calc'!A0", "s")


def test_rows_are_written_with_their_types(tmp_path: Path) -> None:
    path = _written(
        tmp_path,
        {
            "GPUs": [{"gpu": "4090", "vram_gb": 24, "fp16_tflops": 330.5, "nvlink": False}],
            "Scenarios": [
                {
                    "scenario": "eu",
                    "exclude_gpus": ["B200", "L4"],
                    "electricity_per_kwh": 0.25,
                    "notes": "kept",
                }
            ],
        },
    )
    wb = openpyxl.load_workbook(path)
    gpus = wb["GPUs"]
    row = {h: gpus.cell(row=2, column=i + 1) for i, h in enumerate(_headers(gpus))}
    assert (row["gpu"].value, row["gpu"].data_type) == ("4090", "s")
    assert row["fp16_tflops (TFLOPS)"].value == 330.5
    assert (row["nvlink"].value, row["nvlink"].data_type) == (False, "b")
    scenarios = wb["Scenarios"]
    headers = _headers(scenarios)
    # An Assumptions key is a Scenarios column; extra columns follow the schema's.
    assert headers[-2:] == ["electricity_per_kwh (USD per kWh)", "notes"]
    values = [c.value for c in scenarios[2]][: len(headers)]
    assert values[headers.index("exclude_gpus")] == "B200, L4"
    assert values[-2:] == [0.25, "kept"]


def test_assumption_rows_replace_their_key_and_unknown_keys_are_kept(tmp_path: Path) -> None:
    path = _written(
        tmp_path,
        {
            "Assumptions": [
                {"key": "pue", "value": 1.1, "source": "our data centre, 2026"},
                {"key": "credit_residual_value", "value": False},
                {"key": "pue_typo", "value": 1.2},
            ]
        },
    )
    ws = openpyxl.load_workbook(path)["Assumptions"]
    rows = {r[0].value: (r[1].value, r[3].value) for r in ws.iter_rows(min_row=2)}
    assert rows["pue"] == (1.1, "our data centre, 2026")
    # The default's source would not describe the user's value.
    assert rows["credit_residual_value"] == (False, None)
    keys = [r[0].value for r in ws.iter_rows(min_row=2)]
    assert keys == [a.key for a in schema.ASSUMPTIONS] + ["pue_typo"]


@pytest.mark.parametrize(
    ("rows", "error"),
    [
        ({"GPUs": [{"gpu": "H100", "vram_gb": float("nan")}]}, ValueError),
        ({"Prices": [{"price": float("inf")}]}, ValueError),
        ({"GPU": [{"gpu": "H100"}]}, ValueError),
        ({"GPUs": [{"gpu": object()}]}, TypeError),
    ],
    ids=["nan", "infinity", "unknown-sheet", "unsupported-type"],
)
def test_values_excel_cannot_hold_are_refused_and_nothing_is_written(
    tmp_path: Path, rows: Mapping[str, Sequence[Mapping[str, object]]], error: type[Exception]
) -> None:
    path = tmp_path / "bad.xlsx"
    with pytest.raises(error):
        write_template(path, rows)
    assert not path.exists()


def test_gpumix_template_writes_the_workbook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "blank.xlsx"
    assert main(["template", str(out)]) == 0
    assert openpyxl.load_workbook(out).sheetnames == list(SHEET_ORDER)
    assert str(out) in capsys.readouterr().out


def test_awkward_text_reads_back_unchanged_with_calamine(tmp_path: Path) -> None:
    # The reader uses calamine; names must survive the trip exactly.
    from python_calamine import CalamineWorkbook

    names = ["a\x01b", "_x0041_", " lead and trail ", "é€😀", "-1", "@SUM(A1)", "line\nbreak"]
    path = _written(tmp_path, {"GPUs": [{"gpu": n, "vram_gb": 1, "fp16_tflops": 1} for n in names]})
    grid = CalamineWorkbook.from_path(str(path)).get_sheet_by_name("GPUs").to_python()
    assert [row[0] for row in grid[1 : len(names) + 1]] == names


def test_the_empty_template_validates_with_a_warning_that_it_plans_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.xlsx"
    assert main(["template", str(path)]) == 0
    capsys.readouterr()
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == (
        "t.xlsx: OK — 0 GPU types, 0 offers, 0 workloads, 1 scenario (base)\n"
        "warning: scenario 'base' plans no workloads, so its plan is empty (fill in sheet "
        "Workloads, or check the scenario's workloads list)\n"
    )


@pytest.mark.parametrize(
    ("sheet", "column", "low"),
    [
        ("GPUs", "mfu_training", 1e-12),
        ("Futures", "probability", 1e-12),
        ("Futures", "max_regret_share", 0),
    ],
)
def test_shares_are_checked_up_to_1_as_the_reader_does(
    template: Workbook, sheet: str, column: str, low: float
) -> None:
    # Excel took 40 (meant as 40 %) for mfu_training, which gpumix then refused.
    dv = _validation(template[sheet], column)
    assert (dv.type, dv.operator or "between") == ("decimal", "between")  # between: the default
    assert (float(str(dv.formula1)), float(str(dv.formula2))) == (low, 1)
    assert "at most 1" in (dv.error or "")


def _excel_accepts(dv: DataValidation, value: float) -> bool:
    """What Excel lets into a cell under ``dv`` (numbers only)."""
    if dv.type is None:  # "any value"
        return True
    if dv.type == "whole" and not value.is_integer():
        return False
    first = float(str(dv.formula1))
    checks = {
        "between": lambda: first <= value <= float(str(dv.formula2)),
        "greaterThan": lambda: value > first,
        "greaterThanOrEqual": lambda: value >= first,
        "lessThanOrEqual": lambda: value <= first,
    }
    return checks[dv.operator or "between"]()


def _reader_accepts(spec: FieldSpec, value: float) -> bool:
    try:
        coerce(spec, value)
    except BadValue:
        return False
    return True


_PROBES = (-1.0, 0.0, 0.5, 0.999, 1.0, 1.5, 2.0, 40.0, 744.5, 1e6)


def test_every_number_check_accepts_exactly_what_the_reader_accepts(tmp_path: Path) -> None:
    """Every number column of every sheet, every Assumptions value and an Assumptions key as a
    Scenarios column: Excel's check and the reader agree on values in and out of bounds."""
    path = _written(tmp_path, {"Scenarios": [{"scenario": "base", "discount_rate": 0.1}]})
    book = openpyxl.load_workbook(path)
    checked: list[tuple[DataValidation, FieldSpec]] = []
    for sheet in schema.INPUT_SHEETS:
        for column in sheet.columns:
            if column.type in (ColumnType.NUMBER, ColumnType.INTEGER):
                checked.append(
                    (_validation(book[sheet.name], column.name), SPECS[sheet.name][column.name])
                )
    checked.append(
        (_validation(book["Scenarios"], "discount_rate"), ASSUMPTION_SPECS["discount_rate"])
    )
    ws = book[schema.ASSUMPTIONS_SHEET_NAME]
    for row in range(2, ws.max_row + 1):
        spec = ASSUMPTION_SPECS.get(str(ws.cell(row, 1).value))
        found = [dv for dv in ws.data_validations.dataValidation if f"B{row}" in dv.sqref]
        if spec is not None and spec.type is ColumnType.NUMBER and found:
            checked.append((found[0], spec))
    assert len(checked) > 40
    wrong = [
        (spec.name, value)
        for dv, spec in checked
        for value in _PROBES
        if _excel_accepts(dv, value) != _reader_accepts(spec, value)
    ]
    assert wrong == []
