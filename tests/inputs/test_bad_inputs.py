"""Every kind of bad workbook input: ``gpumix validate`` exits 2, names the
place and the value on stderr, prints nothing on stdout, and leaves the file
byte-for-byte unchanged."""

from __future__ import annotations

import datetime
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optimizer.cli import main
from optimizer.errors import InputError
from optimizer.inputs import xlsx_safety
from optimizer.inputs.load import load_input
from optimizer.inputs.xlsx_safety import MAX_RATIO
from tests.conftest import Sheets, set_cell, sha256, valid_sheets, write_sheets

Edit = tuple[str, int, str, Any]  # sheet, Excel row, column, new value

# (id, cell edits, fragments stderr must contain)
CASES: list[tuple[str, list[Edit], list[str]]] = [
    (
        "text price",
        [("Prices", 3, "price", "3,80 $")],
        ["sheet Prices", "cell C3", "column price", "'3,80 $'", "a number ≥ 0 (USD)"],
    ),
    (
        "fractional integer",
        [("Prices", 2, "max_units", 3.5)],
        ["sheet Prices", "cell E2", "column max_units", "not a whole number", "3.5"],
    ),
    ("negative price", [("Prices", 2, "price", -1)], ["cell C2", "must be at least 0", "-1"]),
    (
        "zero vram",
        [("GPUs", 2, "vram_gb", 0)],
        ["sheet GPUs", "cell B2", "column vram_gb", "must be more than 0", "a number > 0 (GB)"],
    ),
    (
        "mfu above one",
        [("GPUs", 3, "mfu_training", 35)],
        ["sheet GPUs", "cell H3", "at most 1", "35"],
    ),
    (
        "unknown kind",
        [("Workloads", 2, "kind", "trainng")],
        [
            "sheet Workloads",
            "cell B2",
            "'trainng'",
            "one of pretraining, fine_tuning, lora, qlora, batch_inference, realtime_inference",
        ],
    ),
    (
        "unknown precision",
        [("Workloads", 3, "precision", "bf8")],
        ["cell D3", "'bf8'", "one of fp32, bf16, fp16, fp8, int8, int4"],
    ),
    (
        "unknown option",
        [("Prices", 3, "option", "on-demand")],
        [
            "cell B3",
            "'on-demand'",
            "did you mean 'on_demand'",
            "one of buy, on_demand, spot, reserved",
        ],
    ),
    (
        "workloads cell of commas only",
        [("Scenarios", 3, "workloads", " , ")],
        ["sheet Scenarios", "cell E3", "column workloads", "names nothing, only commas"],
    ),
    (
        "maintenance typed as a percent",
        [("Assumptions", 4, "key", "maintenance_per_year"), ("Assumptions", 4, "value", 8)],
        ["sheet Assumptions", "cell B4", "must be at most 1", "0.05 is 5 %", "8"],
    ),
    (
        "discount rate typed as a percent",
        [("Scenarios", 2, "discount_rate", 10)],
        ["sheet Scenarios", "cell H2", "column discount_rate", "must be at most 1", "10"],
    ),
    (
        "bad boolean",
        [("GPUs", 2, "nvlink", "maybe")],
        ["cell F2", "column nvlink", "'maybe'", "TRUE or FALSE"],
    ),
    (
        "training without tokens",
        [("Workloads", 2, "tokens", None)],
        ["sheet Workloads", "cell E2", "column tokens", "a lora workload needs"],
    ),
    (
        "batch without tokens",
        [("Workloads", 4, "tokens", None)],
        ["cell E4", "batch_inference workload needs tokens per month"],
    ),
    (
        "realtime without demand",
        [("Workloads", 3, "tokens_per_second", None)],
        ["cell F3", "column tokens_per_second", "realtime_inference workload needs"],
    ),
    (
        "interruptible realtime",
        [("Workloads", 3, "interruptible", True)],
        ["cell K3", "column interruptible", "cannot be interruptible"],
    ),
    (
        "reserved without term",
        [("Prices", 5, "term_months", None)],
        ["sheet Prices", "cell D5", "column term_months", "reserved offer needs its term"],
    ),
    (
        "term on on-demand",
        [("Prices", 3, "term_months", 12)],
        ["cell D3", "only for reserved offers", "12"],
    ),
    (
        "tdp missing for a bought type",
        # A type the GPU catalogue does not know (its H100 row would get the catalogue's TDP).
        [
            ("GPUs", 4, "gpu", "Custom"),
            ("GPUs", 4, "vram_gb", 24),
            ("GPUs", 4, "fp16_tflops", 100),
            ("Prices", 7, "gpu", "Custom"),
            ("Prices", 7, "option", "buy"),
            ("Prices", 7, "price", 1000),
        ],
        ["sheet GPUs", "cell E4", "column tdp_w", "has a buy offer"],
    ),
    (
        "params_b needed",
        [("Workloads", 4, "params_b", None)],
        ["sheet Workloads", "cell C4", "column params_b", "'batch-8b'", "H100, L40S", "scenario"],
    ),
    (
        "duplicate gpu",
        [("GPUs", 3, "gpu", "h100")],
        ["sheet GPUs", "cell A3", "duplicate name (first in row 2)", "'h100'"],
    ),
    (
        "duplicate workload",
        [("Workloads", 4, "workload", "chat-8b")],
        ["sheet Workloads", "cell A4", "duplicate name", "'chat-8b'"],
    ),
    (
        "duplicate scenario",
        [("Scenarios", 3, "scenario", "us")],
        ["sheet Scenarios", "cell A3", "duplicate name", "'us'"],
    ),
    (
        "duplicate measurement",
        [
            ("Throughput", 3, "workload", "lora-7b"),
            ("Throughput", 3, "gpu", "H100"),
            ("Throughput", 3, "tokens_per_second_per_replica", None),
        ],
        [
            "sheet Throughput, cell B3, column gpu: duplicate measurement of workload 'lora-7b' "
            "on this GPU type (first in row 2) (found 'H100'); expected one Throughput row per "
            "workload and GPU type"
        ],
    ),
    (
        "unknown gpu in prices",
        [("Prices", 4, "gpu", "H1OO")],
        ["sheet Prices", "cell A4", "column gpu", "'H1OO'", "did you mean 'H100'"],
    ),
    (
        "scenario lists unknown workload",
        [("Scenarios", 3, "workloads", "lora-7b, chat-9b")],
        ["sheet Scenarios", "cell E3", "'chat-9b'", "did you mean 'chat-8b'"],
    ),
    (
        "scenario excludes unknown gpu",
        [("Scenarios", 3, "exclude_gpus", "L40")],
        ["sheet Scenarios", "cell F3", "'L40'", "did you mean 'L40S'"],
    ),
    (
        "throughput for unknown workload",
        [("Throughput", 2, "workload", "lora-70b")],
        ["sheet Throughput", "cell A2", "'lora-70b'", "a name from sheet Workloads"],
    ),
    (
        "throughput for unknown gpu",
        [("Throughput", 3, "gpu", "L4")],
        ["sheet Throughput", "cell B3", "'L4'"],
    ),
    (
        "measured figure of the wrong kind",
        [("Throughput", 2, "tokens_per_second_per_replica", 100)],
        ["sheet Throughput", "cell E2", "is for realtime_inference workloads"],
    ),
    (
        "measured realtime width that does not divide max_per_node",
        [("Throughput", 3, "gpus_per_replica", 3)],
        [
            "sheet Throughput, cell C3, column gpus_per_replica: a realtime_inference replica "
            "runs in one server and the servers of a place hold whole replicas, so its width "
            "must divide max_per_node 8 of 'L40S' (found 3); expected 1, 2, 4 or 8"
        ],
    ),
    (
        "measured realtime width wider than a server",
        [("Throughput", 3, "gpus_per_replica", 16)],
        ["sheet Throughput", "cell C3", "must divide max_per_node 8 of 'L40S'", "(found 16)"],
    ),
    (
        "unknown assumption key",
        [("Assumptions", 2, "key", "electricity_per_kWh_usd")],
        [
            "sheet Assumptions",
            "cell A2",
            "unknown assumption key",
            "did you mean 'electricity_per_kwh'",
        ],
    ),
    (
        "duplicate assumption key",
        [("Assumptions", 3, "key", "electricity_per_kwh")],
        ["sheet Assumptions", "cell A3", "duplicate key (first in row 2)"],
    ),
    (
        "assumption of the wrong type",
        [("Assumptions", 3, "value", "high")],
        ["sheet Assumptions", "cell B3", "pue: not a number", "'high'", "a number > 0 (ratio)"],
    ),
    (
        "assumption out of range",
        [("Assumptions", 4, "key", "max_utilization"), ("Assumptions", 4, "value", 1.5)],
        ["cell B4", "max_utilization: must be at most 1", "1.5"],
    ),
    (
        "negative assumption",
        [("Assumptions", 2, "value", -0.1)],
        ["cell B2", "electricity_per_kwh: must be at least 0", "-0.1"],
    ),
    (
        "unknown Scenarios column",
        [("Scenarios", 2, "budget_totl", 5)],
        [
            "sheet Scenarios",
            "cell H1",
            "unknown column 'budget_totl'",
            "did you mean 'budget_total'",
        ],
    ),
    (
        "Scenarios assumption out of range",
        [("Scenarios", 2, "goodput", 2)],
        ["sheet Scenarios", "cell H2", "column goodput", "at most 1"],
    ),
    (
        "window runs backwards",
        [("Workloads", 2, "start_month", 4)],
        ["sheet Workloads", "cell J2", "runs backwards", "start_month 4 is after end_month 3"],
    ),
    (
        "window past one scenario's horizon",
        [("Workloads", 2, "end_month", 13)],
        [
            "sheet Workloads",
            "cell J2",
            "column end_month",
            "scenario 'eu'",
            "12-month horizon",
            "Scenarios sheet, row 3",
        ],
    ),
    (
        "start past the horizon",
        [("Workloads", 4, "start_month", 30)],
        ["cell I4", "scenario 'us'", "starts in month 30", "24-month horizon"],
    ),
    (
        "date in a number cell",
        [("Prices", 3, "price", datetime.date(2024, 3, 1))],
        ["cell C3", "is a date or time", "2024-03-01"],
    ),
    (
        "boolean in a number cell",
        [("GPUs", 2, "fp16_tflops", True)],
        ["cell C2", "TRUE/FALSE is not a number"],
    ),
    (
        "comma in a name",
        [("GPUs", 3, "gpu", "L40S, 48GB")],
        ["sheet GPUs", "cell A3", "may not contain a comma"],
    ),
    (
        "required cell blank",
        [("GPUs", 4, "gpu", "Custom"), ("GPUs", 4, "vram_gb", 24)],
        [
            "sheet GPUs",
            "cell C4",
            "column fp16_tflops",
            "is blank, and the GPU catalogue has no type 'Custom' to fill it",
        ],
    ),
    (
        "Excel error value",
        [("Prices", 3, "price", "#N/A")],
        ["sheet Prices", "cell C3", "holds the Excel error #N/A"],
    ),
]


def _apply(edits: list[Edit]) -> Sheets:
    sheets = valid_sheets()
    for sheet, row, column, value in edits:
        set_cell(sheets, sheet, row, column, value)
    return sheets


def _validate_fails(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    before = sha256(path)
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert sha256(path) == before
    return err


@pytest.mark.parametrize(
    ("edits", "fragments"), [(e, f) for _, e, f in CASES], ids=[c[0] for c in CASES]
)
def test_bad_cell_is_reported_with_its_place_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: list[Edit], fragments: list[str]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply(edits))
    err = _validate_fails(path, capsys)
    assert "input.xlsx" in err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in:\n{err}"


def test_every_problem_is_reported_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edits = [edit for _, case, _ in CASES[:6] for edit in case]
    err = _validate_fails(write_sheets(tmp_path / "input.xlsx", _apply(edits)), capsys)
    assert err.startswith("6 problems in the input:")
    for cell in ("cell C3", "cell E2", "cell C2", "cell B2", "cell H3"):
        assert cell in err


@pytest.mark.parametrize(
    ("row", "column", "value", "message"),
    [
        (2, "tokens", -1, "must be more than 0"),
        (2, "tokens", "many", "not a number"),
        (3, "tokens_per_second", "fast", "not a number"),
    ],
)
def test_a_bad_needed_cell_is_reported_once_not_also_as_blank(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    row: int,
    column: str,
    value: object,
    message: str,
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply([("Workloads", row, column, value)]))
    err = _validate_fails(path, capsys)
    assert err.startswith("1 problem in the input:"), err
    assert message in err
    assert "is blank" not in err


@pytest.mark.parametrize("header", ["(notes)", None, "  "])
def test_a_scenarios_column_with_values_but_no_name_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str | None
) -> None:
    sheets = valid_sheets()
    sheets["Scenarios"][0].append(header)
    sheets["Scenarios"][2].append("cheaper")
    err = _validate_fails(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert err.startswith("1 problem in the input:")
    assert (
        "sheet Scenarios, cell H1: column H has values (first in row 3) but no name in its "
        "header; expected a scenario field or an Assumptions key as the header"
    ) in err


def test_an_unnamed_empty_scenarios_column_is_ignored(
    write_workbook: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["Scenarios"][0].append("(notes)")
    assert main(["validate", str(write_workbook(sheets))]) == 0


def test_valid_workbook_passes_and_prints_the_summary(
    write_workbook: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["validate", str(write_workbook())])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == "input.xlsx: OK — 2 GPU types, 5 offers, 3 workloads, 2 scenarios (us, eu)\n"


def test_missing_required_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = valid_sheets()
    sheets["Workloads"][0][1] = "kinds"
    err = _validate_fails(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    # Once for the sheet, not once per row.
    assert err.startswith("1 problem in the input:")
    assert (
        "sheet Workloads, row 1, column kind: required column kind is missing; did you mean 'kinds'?"
        in err
    )


def test_missing_required_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = valid_sheets()
    del sheets["Prices"]
    err = _validate_fails(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert (
        "sheet Prices is missing (the workbook has GPUs, Workloads, Throughput, Scenarios, Assumptions)"
        in err
    )


@pytest.mark.parametrize(
    ("sheet", "column", "header"),
    [("GPUs", 0, "name"), ("Workloads", 0, "name"), ("GPUs", None, None)],
)
def test_a_missing_name_column_or_sheet_is_reported_once_not_in_every_reference(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sheet: str,
    column: int | None,
    header: str | None,
) -> None:
    sheets = valid_sheets()
    if column is None:
        del sheets[sheet]
    else:
        sheets[sheet][0][column] = header
    err = _validate_fails(write_sheets(tmp_path / "input.xlsx", sheets), capsys)
    assert err.startswith("1 problem in the input:"), err
    assert "not a name in sheet" not in err


@pytest.mark.parametrize(
    ("sheet", "typo"), [("Scenarios", "Scenario"), ("Assumptions", "assumption ")]
)
def test_a_sheet_named_almost_like_an_optional_sheet_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sheet: str, typo: str
) -> None:
    sheets = valid_sheets()
    sheets[typo] = sheets.pop(sheet)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        f"warning: input.xlsx: sheet {typo!r} is not read; the optional sheet {sheet} is "
        f"absent, so its defaults apply (rename the sheet to {sheet} if it holds those rows)"
    ) in out
    # The plan carries it too, so a result workbook or JSON never hides it.
    assert main(["solve", str(path), "--json", "--output", str(tmp_path / "r.xlsx")]) == 0
    (entry, *_) = json.loads(capsys.readouterr().out)["scenarios"]
    assert any(f"sheet {typo!r} is not read" in d for d in entry["diagnostics"])


def test_an_unrelated_extra_sheet_is_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    del sheets["Scenarios"]
    sheets["Notes"] = [["anything"]]
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    assert "warning" not in capsys.readouterr().out


def test_formula_without_a_saved_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # openpyxl writes the formula and no cached value, as any script would.
    path = write_sheets(tmp_path / "input.xlsx", _apply([("Prices", 3, "price", "=C2*0.9")]))
    err = _validate_fails(path, capsys)
    assert "sheet Prices, cell C3, column price: formula has no saved value" in err
    assert "'=C2*0.9'" in err


def test_formula_with_a_saved_value_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    # Put a formula with its cached result in C3, as Excel saves it.
    _rewrite_member(path, "xl/worksheets/sheet2.xml", b"<v>3.15</v>", b"<f>1+2.15</f><v>3.15</v>")
    loaded = load_input(path)
    assert loaded.scenarios[0].offers[1].price == 3.15


def _rewrite_member(path: Path, member: str, old: bytes, new: bytes) -> None:
    with zipfile.ZipFile(path) as archive:
        contents = {i.filename: archive.read(i.filename) for i in archive.infolist()}
    assert old in contents[member]
    contents[member] = contents[member].replace(old, new, 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


# ---------------------------------------------------------------- files that are not workbooks


def test_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.xlsx"
    path.write_bytes(b"")
    assert "empty.xlsx: the file is empty" in _validate_fails(path, capsys)


def test_text_file_named_xlsx(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.xlsx"
    path.write_text("gpu,price\nH100,3.15\n")
    assert "notes.xlsx: is not an Excel workbook (not a zip archive)" in _validate_fails(
        path, capsys
    )


def test_zip_that_is_not_a_workbook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert "is a zip archive but not an Excel workbook" in _validate_fails(path, capsys)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["validate", str(tmp_path / "nope.xlsx")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "nope.xlsx: file not found" in err


def test_unknown_extension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "input.csv"
    path.write_text("gpu\n")
    err = _validate_fails(path, capsys)
    assert "input.csv: cannot read a .csv file" in err
    assert "expected a workbook (.xlsx) or a scenario file (.yaml, .yml)" in err


def test_password_protected_workbook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Excel saves an encrypted workbook as an OLE compound file, like an old .xls.
    path = tmp_path / "locked.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504)
    assert (
        "locked.xlsx: is a password-protected workbook or an old-style .xls file"
        in _validate_fails(path, capsys)
    )


def test_damaged_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_sheets(tmp_path / "damaged.xlsx", valid_sheets())
    with zipfile.ZipFile(path) as archive:
        member = archive.getinfo("xl/worksheets/sheet2.xml")
    data = bytearray(path.read_bytes())
    start = member.header_offset + 30 + len(member.filename) + len(member.extra)
    for offset in range(start + 10, start + 40):
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    assert "damaged.xlsx: the workbook archive is damaged" in _validate_fails(path, capsys)


def test_zip_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_sheets(tmp_path / "bomb.xlsx", valid_sheets())
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        # 20 MB of zeros compress about 1000:1.
        archive.writestr("xl/media/padding.bin", b"\0" * (20 * 2**20))
    err = _validate_fails(path, capsys)
    assert "member xl/media/padding.bin is compressed" in err
    assert f"expected at most {MAX_RATIO}:1" in err


def test_xml_entity_bomb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_sheets(tmp_path / "entities.xlsx", valid_sheets())
    doctype = (
        b'<!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
    )
    _rewrite_member(path, "xl/worksheets/sheet1.xml", b"<worksheet", doctype + b"<worksheet")
    err = _validate_fails(path, capsys)
    assert "member xl/worksheets/sheet1.xml declares a DOCTYPE or ENTITY" in err


def test_error_cell_written_by_openpyxl_is_an_error_type() -> None:
    # Guards the "Excel error value" case above: openpyxl stores "#N/A" as an error cell.
    ws = openpyxl.Workbook().active
    assert ws is not None
    ws["A1"] = "#N/A"
    assert ws["A1"].data_type == "e"


# ---------------------------------------------------------------- damaged XML never escapes as a traceback

_TOKENS = [
    b"<",
    b">",
    b'"',
    b't="e"',
    b't="s"',
    b't="str"',
    b"<v>",
    b"</v>",
    b"<f>",
    b'r="ZZ9"',
    b"-1",
    b"",
]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 6), st.sampled_from(_TOKENS)),
        min_size=1,
        max_size=4,
    )
)
def test_damaged_sheet_xml_is_an_input_error_or_reads(
    tmp_path: Path, edits: list[tuple[float, int, bytes]]
) -> None:
    path = write_sheets(tmp_path / "fuzz.xlsx", _apply([("Prices", 3, "price", "=1+2")]))
    with zipfile.ZipFile(path) as archive:
        original = archive.read("xl/worksheets/sheet2.xml")
    data = bytearray(original)
    for where, cut, token in edits:
        at = int(where * (len(data) - 1))
        data[at : at + cut] = token
    _rewrite_member(path, "xl/worksheets/sheet2.xml", original, bytes(data))
    try:
        load_input(path)
    except InputError as error:
        assert error.problems


def test_archive_that_unpacks_too_large(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real limit is 500 MB; a small one shows the check without writing that much.
    monkeypatch.setattr(xlsx_safety, "MAX_TOTAL_BYTES", 2**20)
    path = write_sheets(tmp_path / "big.xlsx", valid_sheets())
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/media/photo.bin", bytes(range(256)) * 8192)  # 2 MB
    err = _validate_fails(path, capsys)
    assert "big.xlsx: the workbook would unpack to 2 MB; expected at most 1 MB" in err


def test_utf16_xml_member(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_sheets(tmp_path / "wide.xlsx", valid_sheets())
    with zipfile.ZipFile(path) as archive:
        original = archive.read("xl/worksheets/sheet1.xml")
    _rewrite_member(path, "xl/worksheets/sheet1.xml", original, original.decode().encode("utf-16"))
    assert "member xl/worksheets/sheet1.xml is not UTF-8 XML" in _validate_fails(path, capsys)


# ---------------------------------------------------------------- model v2 fields (v2 §B, §C)

_NOT_REALTIME = "is only for training and batch_inference workloads, not realtime_inference"
_TARGET_LOAD = "a number > 0, at most 1 (fraction of rated throughput)"
_PERCENT = "must be at most 1 (fractions are plain numbers: 0.05 is 5 %)"

# (id, cell edits, the one problem stderr reports, after "input.xlsx, ")
V2_CASES: list[tuple[str, list[Edit], str]] = [
    (
        "runs_per_month on a realtime row",
        [("Workloads", 3, "runs_per_month", 4)],
        f"sheet Workloads, cell M3, column runs_per_month: {_NOT_REALTIME} (found 4.0); "
        "expected blank",
    ),
    (
        "deadline_hours on a realtime row",
        [("Workloads", 3, "deadline_hours", 24)],
        f"sheet Workloads, cell M3, column deadline_hours: {_NOT_REALTIME} (found 24.0); "
        "expected blank",
    ),
    (
        "min_replicas on a training row",
        [("Workloads", 2, "min_replicas", 2)],
        "sheet Workloads, cell M2, column min_replicas: is only for realtime_inference "
        "workloads, not lora (found 2); expected blank",
    ),
    (
        "min_replicas 0",
        [("Workloads", 3, "min_replicas", 0)],
        "sheet Workloads, cell M3, column min_replicas: must be at least 1 (found 0.0); "
        "expected a whole number ≥ 1 (replicas)",
    ),
    (
        "min_replicas negative",
        [("Workloads", 3, "min_replicas", -2)],
        "sheet Workloads, cell M3, column min_replicas: must be at least 1 (found -2.0); "
        "expected a whole number ≥ 1 (replicas)",
    ),
    (
        "min_replicas not whole",
        [("Workloads", 3, "min_replicas", 2.5)],
        "sheet Workloads, cell M3, column min_replicas: not a whole number (found 2.5); "
        "expected a whole number ≥ 1 (replicas)",
    ),
    (
        "target_load 0",
        [("Assumptions", 4, "key", "target_load"), ("Assumptions", 4, "value", 0)],
        "sheet Assumptions, cell B4, column value: target_load: must be more than 0 "
        f"(found 0.0); expected {_TARGET_LOAD}",
    ),
    (
        "target_load negative",
        [("Assumptions", 4, "key", "target_load"), ("Assumptions", 4, "value", -0.5)],
        "sheet Assumptions, cell B4, column value: target_load: must be more than 0 "
        f"(found -0.5); expected {_TARGET_LOAD}",
    ),
    (
        "target_load typed as a percent",
        [("Assumptions", 4, "key", "target_load"), ("Assumptions", 4, "value", 80)],
        f"sheet Assumptions, cell B4, column value: target_load: {_PERCENT} (found 80.0); "
        f"expected {_TARGET_LOAD}",
    ),
    (
        "target_load above one in Scenarios",
        [("Scenarios", 2, "target_load", 1.2)],
        f"sheet Scenarios, cell H2, column target_load: {_PERCENT} (found 1.2); "
        f"expected {_TARGET_LOAD}",
    ),
    (
        "runs_per_month 0",
        [("Workloads", 4, "runs_per_month", 0)],
        "sheet Workloads, cell M4, column runs_per_month: must be more than 0 (found 0.0); "
        "expected a number > 0 (runs)",
    ),
    (
        "runs_per_month negative",
        [("Workloads", 4, "runs_per_month", -2)],
        "sheet Workloads, cell M4, column runs_per_month: must be more than 0 (found -2.0); "
        "expected a number > 0 (runs)",
    ),
    (
        "deadline_hours 0",
        [("Workloads", 2, "deadline_hours", 0)],
        "sheet Workloads, cell M2, column deadline_hours: must be more than 0 (found 0.0); "
        "expected a number > 0 (hours)",
    ),
    (
        "deadline_hours negative",
        [("Workloads", 2, "deadline_hours", -8)],
        "sheet Workloads, cell M2, column deadline_hours: must be more than 0 (found -8.0); "
        "expected a number > 0 (hours)",
    ),
    (
        "recurring run longer than a month",
        [("Workloads", 4, "runs_per_month", 4), ("Workloads", 4, "deadline_hours", 700)],
        "sheet Workloads, cell N4, column deadline_hours: scenario 'us': longer than a "
        "month's 693.5 working hours (max_utilization 0.95 × hours_per_month 730); a "
        "recurring run (runs_per_month given) must fit inside a month (found 700.0); "
        "expected a number > 0, at most 693.5 (hours)",
    ),
    (
        "recurring run longer than one scenario's month",
        [
            ("Workloads", 2, "runs_per_month", 2),
            ("Workloads", 2, "deadline_hours", 400),
            ("Scenarios", 3, "max_utilization", 0.5),
        ],
        "sheet Workloads, cell N2, column deadline_hours: scenario 'eu': longer than a "
        "month's 365 working hours (max_utilization 0.5 × hours_per_month 730); a recurring "
        "run (runs_per_month given) must fit inside a month (found 400.0); "
        "expected a number > 0, at most 365 (hours)",
    ),
    (
        "recurring run longer than every scenario's month",
        [
            ("Workloads", 2, "runs_per_month", 2),
            ("Workloads", 2, "deadline_hours", 800),
            ("Workloads", 2, "end_month", None),
        ],
        "sheet Workloads, cell N2, column deadline_hours: scenarios 'us', 'eu': longer than "
        "a month's 693.5 working hours (max_utilization 0.95 × hours_per_month 730); a "
        "recurring run (runs_per_month given) must fit inside a month (found 800.0); "
        "expected a number > 0, at most 693.5 (hours)",
    ),
    # model v2 §E: what is credited at the horizon
    (
        "residual_value unknown word",
        [("Assumptions", 4, "key", "residual_value"), ("Assumptions", 4, "value", "resale")],
        "sheet Assumptions, cell B4, column value: residual_value: unknown residual_value "
        "(found 'resale'); expected one of market, book, none",
    ),
    (
        "residual_value and v1 key both in Assumptions",
        [
            ("Assumptions", 4, "key", "residual_value"),
            ("Assumptions", 4, "value", "market"),
            ("Assumptions", 5, "key", "credit_residual_value"),
            ("Assumptions", 5, "value", True),
        ],
        "sheet Assumptions, cell A5, column key: credit_residual_value (v1) and "
        "residual_value say the same thing: give one (credit_residual_value TRUE = "
        "residual_value book, FALSE = none) (found 'credit_residual_value'); "
        "expected one of the two keys",
    ),
    (
        "residual_value and v1 key both on a Scenarios row",
        [
            ("Scenarios", 2, "residual_value", "none"),
            ("Scenarios", 2, "credit_residual_value", True),
        ],
        "sheet Scenarios, cell H2, column residual_value: credit_residual_value (v1) and "
        "residual_value say the same thing: give one (credit_residual_value TRUE = "
        "residual_value book, FALSE = none) (found 'none'); expected one of the two columns",
    ),
    (
        "resale_fraction above one",
        [("Assumptions", 4, "key", "resale_fraction"), ("Assumptions", 4, "value", 1.2)],
        f"sheet Assumptions, cell B4, column value: resale_fraction: {_PERCENT} (found 1.2); "
        "expected a number ≥ 0, at most 1 (fraction of the new price)",
    ),
]


# Model v2 §G: architecture and request shape. Each case adds its columns after the
# sheet's twelve, so the first added column is M and the second N.
ESTIMATE_CASES: list[tuple[str, list[Edit], str]] = [
    (
        "active_params_b above params_b",
        [("Workloads", 2, "active_params_b", 9)],
        "sheet Workloads, cell M2, column active_params_b: a model cannot use more parameters "
        "per token than params_b 7 (found 9.0); expected a number > 0, at most 7 "
        "(billion parameters)",
    ),
    *(
        (
            f"{name} {value}",
            [("Workloads", row, name, value)],
            f"sheet Workloads, cell M{row}, column {name}: {problem} (found {value!r}); "
            f"expected a whole number ≥ 1 ({unit})",
        )
        for name, row, value, problem, unit in [
            ("seq_len", 2, 0.0, "must be at least 1", "tokens"),
            ("seq_len", 2, 2048.5, "not a whole number", "tokens"),
            ("layers", 3, 2.5, "not a whole number", "layers"),
            ("layers", 3, 0.0, "must be at least 1", "layers"),
            ("heads", 3, -32.0, "must be at least 1", "heads"),
            ("kv_heads", 3, 0.0, "must be at least 1", "heads"),
            ("head_dim", 3, 127.5, "not a whole number", "values"),
            ("prompt_tokens", 3, 0.0, "must be at least 1", "tokens"),
            ("output_tokens", 3, 2.5, "not a whole number", "tokens"),
        ]
    ),
    (
        "kv_heads that do not divide heads",
        [("Workloads", 3, "heads", 32), ("Workloads", 3, "kv_heads", 6)],
        "sheet Workloads, cell N3, column kv_heads: does not divide heads 32 (each KV head "
        "serves a whole group of heads) (found 6); expected a divisor of 32",
    ),
]


@pytest.mark.parametrize(
    ("edits", "problem"),
    [(e, p) for _, e, p in V2_CASES + ESTIMATE_CASES],
    ids=[c[0] for c in V2_CASES + ESTIMATE_CASES],
)
def test_bad_v2_field_is_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: list[Edit], problem: str
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply(edits))
    err = _validate_fails(path, capsys)
    assert err == f"1 problem in the input:\n  - input.xlsx, {problem}\n"


@pytest.mark.parametrize(
    "edits",
    [
        [("Workloads", 2, "min_replicas", 1)],  # the default, on a training row
        [("Workloads", 4, "deadline_hours", 700)],  # no runs_per_month: not a recurring run
        [("Workloads", 4, "runs_per_month", 4), ("Workloads", 4, "deadline_hours", 693.5)],
        [("Assumptions", 4, "key", "target_load"), ("Assumptions", 4, "value", 1)],
        [("Assumptions", 4, "key", "residual_value"), ("Assumptions", 4, "value", "Book")],
        [("Assumptions", 4, "key", "credit_residual_value"), ("Assumptions", 4, "value", False)],
    ],
    ids=[
        "min_replicas 1",
        "one-off deadline",
        "deadline of a whole month",
        "target_load 1",
        "residual_value in capitals",
        "v1 key alone",
    ],
)
def test_v2_values_at_their_limits_are_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: list[Edit]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply(edits))
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "edits", [V2_CASES[0][1], V2_CASES[-3][1]], ids=["row check", "per-scenario check"]
)
def test_bad_v2_field_solves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: list[Edit]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply(edits))
    before = sha256(path)
    output = tmp_path / "result.xlsx"
    assert main(["solve", str(path), "--output", str(output)]) == 2
    out, err = capsys.readouterr()
    assert (out, err.startswith("1 problem in the input:")) == ("", True)
    assert not output.exists()
    assert sha256(path) == before


_V2_YAML = """\
workbook: input.xlsx
scenarios:
  - name: a
    assumptions: {target_load: 80}
    add_workloads:
      - {workload: chat-2, kind: realtime_inference, params_b: 8,
         tokens_per_second: 100, runs_per_month: 2}
      - {workload: nightly, kind: fine_tuning, params_b: 8, tokens: 1e9, min_replicas: 3}
      - {workload: weekly, kind: fine_tuning, params_b: 8, tokens: 1e9,
         min_replicas: 2.5, deadline_hours: 0}
  - name: b
    assumptions: {max_utilization: 0.5}
    add_workloads:
      - workload: nightly
        kind: batch_inference
        params_b: 8
        tokens: 1e9
        runs_per_month: 30
        deadline_hours: 400
"""


def _scenario_file_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> list[str]:
    """Validate scenario file ``name`` (over the valid workbook): exit 2, both files unchanged."""
    workbook = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / name
    path.write_text(text)
    before = (sha256(path), sha256(workbook))
    err = _validate_fails(path, capsys)
    assert (sha256(path), sha256(workbook)) == before
    return err.splitlines()


def test_bad_v2_fields_in_a_scenario_file_are_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _scenario_file_fails(tmp_path, capsys, "v2.yaml", _V2_YAML) == [
        "6 problems in the input:",
        "  - v2.yaml, line 4: scenario 'a', assumptions.target_load: "
        f"{_PERCENT} (found 80); expected {_TARGET_LOAD}",
        "  - v2.yaml, line 7: scenario 'a', add_workloads entry 1, runs_per_month: "
        f"{_NOT_REALTIME} (found 2.0); expected blank",
        "  - v2.yaml, line 8: scenario 'a', add_workloads entry 2, min_replicas: "
        "is only for realtime_inference workloads, not fine_tuning (found 3); expected blank",
        "  - v2.yaml, line 10: scenario 'a', add_workloads entry 3, min_replicas: "
        "not a whole number (found 2.5); expected a whole number ≥ 1 (replicas)",
        "  - v2.yaml, line 10: scenario 'a', add_workloads entry 3, deadline_hours: "
        "must be more than 0 (found 0); expected a number > 0 (hours)",
        "  - v2.yaml, line 19: scenario 'b', add_workloads entry 1, deadline_hours: "
        "scenario 'b': longer than a month's 365 working hours (max_utilization 0.5 × "
        "hours_per_month 730); a recurring run (runs_per_month given) must fit inside a month "
        "(found 400.0); expected a number > 0, at most 365 (hours)",
    ]


@pytest.mark.parametrize("far_cell", ["XFD1048576", "A100001", "ALM2"])
def test_a_stray_far_cell_is_refused_in_a_moment_naming_the_sheet(
    tmp_path: Path, far_cell: str
) -> None:
    """One stray cell made the reader size a rectangle of up to 17 billion cells
    (a 512 GB allocation and a crash). It runs in a subprocess with a timeout so
    that a regression fails the test instead of the test run."""
    import subprocess
    import sys

    path = write_sheets(tmp_path / "stray.xlsx", valid_sheets())
    book = openpyxl.load_workbook(path)
    book["Prices"][far_cell] = "x"
    book.save(path)
    before = sha256(path)
    done = subprocess.run(
        [sys.executable, "-m", "optimizer.cli", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    assert "stray.xlsx, sheet Prices: spans" in done.stderr
    assert f"(a cell or range reaches {far_cell}); gpumix reads at most 100,000 rows" in done.stderr
    assert "expected the table only: delete the rows and columns beyond it" in done.stderr
    assert sha256(path) == before


def test_a_sheet_inside_the_limits_is_read() -> None:
    from optimizer.inputs.grid import MAX_SHEET_COLUMNS, MAX_SHEET_ROWS

    # The bundled example is far inside them; the limits are what the README states.
    assert (MAX_SHEET_ROWS, MAX_SHEET_COLUMNS) == (100_000, 1_000)


def test_a_scenario_too_large_to_plan_is_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """200,000 workloads were still being built after 480 s, past --time-limit 20."""
    from openpyxl import load_workbook

    from tests.paths import EXAMPLE_WORKBOOK

    # 1,700 workloads × 7 GPU types × 36 months = 428,400 pair-months: within the limit;
    # a 48-month horizon makes it 571,200, beyond it.
    book = load_workbook(EXAMPLE_WORKBOOK)
    sheet = book["Workloads"]
    first = [cell.value for cell in sheet[3]]  # an ordinary batch row of the example
    for row in range(8, 1_702):  # the example's six workloads are rows 2-7
        for column, value in enumerate([f"job-{row}", *first[1:]], start=1):
            sheet.cell(row=row, column=column, value=value)
    path = tmp_path / "many.xlsx"
    book.save(path)
    scenarios = tmp_path / "many.yaml"
    scenarios.write_text(
        "workbook: many.xlsx\nscenarios:\n  - name: us-baseline\n    horizon_months: 48\n",
        encoding="utf-8",
    )
    before = sha256(path)
    assert main(["validate", str(scenarios)]) == 2
    err = capsys.readouterr().err
    assert (
        "scenario 'us-baseline' is too large to plan: 1,700 workloads × 7 GPU types × 48 months "
        "= 571,200; gpumix plans at most 500,000; expected fewer workloads, GPU types or months "
        "(or split the scenario)"
    ) in err
    assert sha256(path) == before


@pytest.mark.parametrize("index", [b"-1", b"abc", b"99999"])
def test_a_damaged_shared_string_index_is_refused_not_read_as_other_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: bytes
) -> None:
    """A text cell pointing at shared string -1 or "abc" was read as string 0."""
    import re
    import shutil

    from optimizer.inputs.grid import _sheet_parts
    from tests.paths import EXAMPLE_WORKBOOK

    # The bundled example is written by xlsxwriter, which stores text as shared strings.
    path = tmp_path / "strings.xlsx"
    shutil.copyfile(EXAMPLE_WORKBOOK, path)
    with zipfile.ZipFile(path) as archive:
        part = (_sheet_parts(archive) or {})["GPUs"]

        cell = re.search(rb'<c r="A2"[^>]*t="s"[^>]*><v>[0-9]+</v>', archive.read(part))
    assert cell is not None  # the GPU name in row 2
    damaged = re.sub(rb"<v>[0-9]+</v>", b"<v>" + index + b"</v>", cell.group())
    _rewrite_member(path, part, cell.group(), damaged)
    before = sha256(path)
    err = _validate_fails(path, capsys)
    shown = index.decode()
    assert (
        f"strings.xlsx, sheet GPUs, cell A2: is damaged: its text is shared string '{shown}'" in err
    )
    assert "expected a workbook saved by Excel or LibreOffice (open it and save it again)" in err
    assert sha256(path) == before


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "is a folder, not a file"),
        (lambda p: os.mkfifo(p), "is a pipe (FIFO), not a file"),
        (lambda p: p.symlink_to(p), "is a link that leads back to itself (a loop of links)"),
        (lambda p: p.symlink_to(p.parent / "gone.xlsx"), "is a link to "),
    ],
    ids=["folder", "fifo", "loop", "dangling"],
)
def test_a_workbook_that_is_not_a_file_says_what_it_is(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], None],
    reason: str,
) -> None:
    """A folder, a pipe or a link loop named as workbook: was reported "not found"."""
    odd = tmp_path / "fleet.xlsx"
    make(odd)
    assert main(["validate", str(odd)]) == 2
    err = capsys.readouterr().err
    assert "fleet.xlsx: " in err and reason in err  # a folder: "this is a folder, not a file"
    scenario_file = tmp_path / "plan.yaml"
    scenario_file.write_text("workbook: fleet.xlsx\nscenarios:\n  - name: a\n", encoding="utf-8")
    assert main(["validate", str(scenario_file)]) == 2
    assert f"workbook {odd}: {reason}" in capsys.readouterr().err


def _damaged_prices(tmp_path: Path, damage: Callable[[bytes], bytes | None]) -> Path:
    """The bundled example with its Prices worksheet part changed (None: taken out)."""
    from optimizer.inputs.grid import _sheet_parts
    from tests.paths import EXAMPLE_WORKBOOK

    with zipfile.ZipFile(EXAMPLE_WORKBOOK) as archive:
        part = (_sheet_parts(archive) or {})["Prices"]
        contents = {i.filename: archive.read(i.filename) for i in archive.infolist()}
    changed = damage(contents[part])
    if changed is None:
        del contents[part]
    else:
        assert changed != contents[part]
        contents[part] = changed
    path = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    return path


def _price_cell(xml: bytes, attributes: bytes) -> bytes:
    """C2 (the first offer's price, a number) with extra attributes."""
    return xml.replace(b'<c r="C2"', b'<c r="C2" ' + attributes, 1)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda xml: None,
            "damaged.xlsx, sheet Prices: is missing from the file: the workbook lists it, but "
            "its part xl/worksheets/sheet3.xml is not there",
        ),
        (
            lambda xml: xml[: len(xml) // 2],
            "damaged.xlsx, sheet Prices: is damaged: its XML breaks off after cell ",
        ),
        (
            lambda xml: xml.replace(
                b"<sheetData>", b'<sheetData><row r="2"><c r="B2"><v>1</v></row>'
            ),
            "damaged.xlsx, sheet Prices, cell B2: is damaged: its XML breaks off in cell B2 "
            "(line 2, column ",
        ),
        (
            lambda xml: _price_cell(xml, b't="b"'),
            "damaged.xlsx, sheet Prices, cell C2: is damaged: a TRUE/FALSE cell holds '4.7'",
        ),
        (
            lambda xml: _price_cell(xml, b't="e"'),
            "damaged.xlsx, sheet Prices, cell C2: is damaged: an Excel error cell holds '4.7', "
            "which is no Excel error",
        ),
    ],
    ids=["part missing", "cut short", "tag broken", "bad boolean", "bad error code"],
)
def test_a_damaged_sheet_is_refused_naming_the_sheet_and_the_cell(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[bytes], bytes | None],
    message: str,
) -> None:
    """The xlsx reader stopped with "(Prices)" or "Unrecognized boolean cell value: 4.7"."""
    path = _damaged_prices(tmp_path, damage)
    before = sha256(path)
    err = _validate_fails(path, capsys)
    assert message in err
    assert "expected a workbook saved by Excel or LibreOffice (open it and save it again)" in err
    assert "Traceback" not in err
    assert sha256(path) == before


def test_the_readme_states_every_limit_gpumix_checks() -> None:
    import re

    from optimizer.analysis.sweep_params import MAX_SWEEP_POINTS, MAX_SWEEP_VARIANTS
    from optimizer.inputs.grid import MAX_SHEET_COLUMNS, MAX_SHEET_ROWS
    from optimizer.inputs.schema import MAX_WORKLOAD_TYPE_MONTHS
    from tests.paths import ROOT

    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    for stated in (
        f"at most {MAX_SHEET_ROWS:,} rows and {MAX_SHEET_COLUMNS:,} columns",
        f"a scenario at most {MAX_WORKLOAD_TYPE_MONTHS:,} workloads × GPU types × months",
        f"a sweep at most {MAX_SWEEP_POINTS:,} points per `--vary` and "
        f"{MAX_SWEEP_VARIANTS:,} variants",
        "`--time-limit S` is the whole command's time, in every command that solves, from start "
        "to written result (reading, building and writing included)",
    ):
        assert stated in readme, stated


def _as_nobody() -> list[str] | None:
    """A command prefix that runs as an unprivileged user, or None where none can be had.

    Root reads any file, so permission tests run gpumix as ``nobody`` through
    ``setpriv`` when the suite runs as root; as another user, plain files do.
    """
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import optimizer"], capture_output=True, timeout=60
    )
    return prefix if probe.returncode == 0 else None


def test_permission_denied_on_the_input_its_folder_or_the_output_is_one_line() -> None:
    """Permission denied on the input or its folder ended in a traceback (exit 1)."""
    import shutil
    import subprocess
    import sys
    import tempfile

    from tests.paths import EXAMPLE_WORKBOOK

    prefix = _as_nobody()
    if prefix is None:
        pytest.skip("no unprivileged user to run as")
    folder = Path(tempfile.mkdtemp(prefix="gpumix-perm-"))
    try:
        folder.chmod(0o755)
        closed = folder / "closed.xlsx"
        shutil.copyfile(EXAMPLE_WORKBOOK, closed)
        closed.chmod(0o000)
        locked = folder / "locked"
        locked.mkdir()
        shutil.copyfile(EXAMPLE_WORKBOOK, locked / "in.xlsx")
        locked.chmod(0o000)
        runs = {
            "closed file": (["validate", str(closed)], "closed.xlsx", 2),
            "closed folder": (["validate", str(locked / "in.xlsx")], "in.xlsx", 2),
            "output folder": (
                ["solve", str(EXAMPLE_WORKBOOK), "--output", str(locked / "out.xlsx")],
                "out.xlsx",
                2,
            ),
        }
        for case, (args, name, code) in runs.items():
            done = subprocess.run(
                [*prefix, sys.executable, "-m", "optimizer.cli", *args],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == code, (case, done.stderr)
            assert "Traceback" not in done.stderr, case
            assert f"{name}: " in done.stderr and "Permission denied" in done.stderr, case
    finally:
        for path in (folder / "locked", folder / "closed.xlsx"):
            path.chmod(0o755)
        shutil.rmtree(folder)


@pytest.mark.parametrize(
    "edits",
    [
        [("Workloads", 2, "active_params_b", 7)],  # a dense model: all parameters active
        # Gemma-7B: 16 heads of 256 on a 3,072 hidden size (no rule ties the three together).
        [
            ("Workloads", 3, "hidden_size", 3072),
            ("Workloads", 3, "heads", 16),
            ("Workloads", 3, "kv_heads", 16),
            ("Workloads", 3, "head_dim", 256),
        ],
        [("Workloads", 3, "kv_heads", 1), ("Workloads", 3, "heads", 1)],
        [("Workloads", 3, "prompt_tokens", 1), ("Workloads", 3, "output_tokens", 1)],
    ],
    ids=["active = params", "Gemma-7B heads", "one head", "one-token request"],
)
def test_architecture_at_its_limits_is_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edits: list[Edit]
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _apply(edits))
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err


_ARCH_YAML = """\
workbook: input.xlsx
scenarios:
  - name: a
    add_workloads:
      - {workload: moe, kind: pretraining, params_b: 47, active_params_b: 48, tokens: 1e9}
      - {workload: gqa, kind: realtime_inference, params_b: 8, tokens_per_second: 10,
         heads: 32, kv_heads: 5, prompt_tokens: 0}
"""


def test_bad_architecture_in_a_scenario_file_is_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _scenario_file_fails(tmp_path, capsys, "arch.yaml", _ARCH_YAML) == [
        "3 problems in the input:",
        "  - arch.yaml, line 5: scenario 'a', add_workloads entry 1, active_params_b: a model "
        "cannot use more parameters per token than params_b 47 (found 48.0); expected a number "
        "> 0, at most 47 (billion parameters)",
        "  - arch.yaml, line 7: scenario 'a', add_workloads entry 2, prompt_tokens: must be at "
        "least 1 (found 0); expected a whole number ≥ 1 (tokens)",
        "  - arch.yaml, line 7: scenario 'a', add_workloads entry 2, kv_heads: does not divide "
        "heads 32 (each KV head serves a whole group of heads) (found 5); expected a divisor "
        "of 32",
    ]


def test_a_blank_cell_of_a_merged_range_says_the_cells_are_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two H100 rows with their gpu cells merged (A2:A3) read "cell A3 is blank" beside a
    cell that shows H100; the message says why and what to do."""
    path = write_sheets(tmp_path / "input.xlsx", valid_sheets())
    book = openpyxl.load_workbook(path)
    book["Prices"].merge_cells("A2:A3")  # A3's H100 is gone: Excel keeps A2's value only
    book["GPUs"].merge_cells("A2:B2")  # a merge across columns: B2 (vram_gb) is blank
    book.save(path)
    err = _validate_fails(path, capsys)
    # B2 is not reported blank (the GPU catalogue fills an H100's vram_gb, issue 31) but the
    # merge that hid it is still refused.
    assert err == (
        "2 problems in the input:\n"
        "  - input.xlsx, sheet Prices, cell A3, column gpu: is blank (cells A2:A3 are merged: "
        "only A2 holds a value; unmerge them and fill each row); expected text\n"
        "  - input.xlsx, sheet GPUs, cell B2, column vram_gb: is blank: cells A2:B2 are merged "
        "and only A2 holds a value (H100); the other cells read as blank (the default, or no "
        "limit); expected the merge undone and each cell filled, or left blank for its default\n"
    )


def test_a_merge_over_optional_cells_is_refused_not_read_as_no_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cap of 16 merged over rows 3-5 shows as every offer's cap, but only row 3 holds
    it: rows 4 and 5 would read as "no limit" (the audit's case). A merge over blank cells
    (E6:F6 of the spot row) loses nothing and stays allowed."""
    sheets = set_cell(valid_sheets(), "Prices", 3, "max_units", 16)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    book = openpyxl.load_workbook(path)
    book["Prices"].merge_cells("E3:E5")
    book["Prices"].merge_cells("E6:F6")  # blank cells: nothing is lost
    book.save(path)
    before = sha256(path)
    err = _validate_fails(path, capsys)
    assert err == (
        "1 problem in the input:\n"
        "  - input.xlsx, sheet Prices, cell E4, column max_units: is blank: cells E3:E5 are "
        "merged and only E3 holds a value (16); the other cells read as blank (the default, "
        "or no limit); expected the merge undone and each row filled, or left blank for its "
        "default\n"
    )
    assert sha256(path) == before


def test_a_merged_header_over_a_column_with_values_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An outside audit's case: header cells merged to look tidy (D1:E1) leave column E
    without a header, so its caps would be ignored; the message names the header cell,
    the merge and a value that would be lost. The input file is unchanged."""
    sheets = set_cell(valid_sheets(), "Prices", 3, "max_units", 16)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    book = openpyxl.load_workbook(path)
    shown = book["Prices"]["D1"].value
    book["Prices"].merge_cells("D1:E1")
    book.save(path)
    before = sha256(path)
    err = _validate_fails(path, capsys)
    assert (
        f"  - input.xlsx, sheet Prices, cell E1: is blank: header cells D1:E1 are merged and "
        f"only D1 holds a header ({shown!r}); column E holds values (E3 = 16) under no header "
        "of its own, so gpumix cannot read them; expected the merge undone and E1 given its "
        "column's header\n"
    ) in err
    assert sha256(path) == before


def test_a_measured_training_width_need_not_divide_max_per_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A gang may span servers: only a serving replica must pack into one.
    sheets = _apply([("Throughput", 2, "gpus_per_replica", 3)])
    assert main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))]) == 0
    capsys.readouterr()


def test_three_gpu_replicas_on_eight_gpu_servers_are_refused_before_the_solve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The audit's case: 5 three-GPU replicas were placed on two 8-GPU servers (4 fit)."""
    sheets: Sheets = {
        "GPUs": [
            ["gpu", "vram_gb", "fp16_tflops", "memory_bandwidth_gbs", "tdp_w", "max_per_node"],
            ["G8", 80, 989, 3350, 700, 8],
        ],
        "Prices": [["gpu", "option", "price", "node_price"], ["G8", "buy", 25000, 1000]],
        "Workloads": [
            ["workload", "kind", "params_b", "tokens_per_second", "latency_ms", "min_replicas"],
            ["m3", "realtime_inference", 8, 4000, 50, 5],
        ],
        "Throughput": [
            ["workload", "gpu", "gpus_per_replica", "tokens_per_second_per_replica"],
            ["m3", "G8", 3, 1000],
        ],
    }
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    before = sha256(path)
    code = main(["solve", str(path), "--output", str(tmp_path / "plan.xlsx")])
    out, err = capsys.readouterr()
    assert out == ""
    assert code == 2, err
    assert sha256(path) == before
    assert not (tmp_path / "plan.xlsx").exists()
    assert (
        "sheet Throughput, cell C2, column gpus_per_replica: a realtime_inference replica runs "
        "in one server and the servers of a place hold whole replicas, so its width must divide "
        "max_per_node 8 of 'G8' (found 3); expected 1, 2, 4 or 8"
    ) in err
