"""Reading a valid workbook: every value read back exactly, and the reading rules."""

from __future__ import annotations

import datetime
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import optimizer.inputs.load
from optimizer.domain import Gpu, Kind, Measurement, Offer, OfferOption, Precision, Workload
from optimizer.errors import InputError
from optimizer.inputs import grid
from optimizer.inputs.cells import column_letter, normalize_header
from optimizer.inputs.load import load_input
from optimizer.inputs.reader import read_workbook
from optimizer.inputs.schema import ASSUMPTIONS
from optimizer.inputs.xlsx_safety import check_xlsx_file
from tests.conftest import set_cell, valid_sheets, write_sheets
from tests.paths import EXAMPLE_WORKBOOK


def test_every_value_is_read_back_exactly(tmp_path: Path) -> None:
    data = read_workbook(write_sheets(tmp_path / "in.xlsx", valid_sheets()))
    # The blank cells (H100's mfu_training, both types' fp8: the column is absent) are
    # filled from the GPU catalogue (issue 31); every typed value is read as typed.
    assert data.gpus == (
        Gpu(
            "H100",
            80.0,
            989.0,
            3350.0,
            700.0,
            nvlink=True,
            max_per_node=8,
            mfu_training=0.4,
            fp8=True,
        ),
        Gpu(
            "L40S",
            48.0,
            362.0,
            864.0,
            350.0,
            nvlink=False,
            max_per_node=8,
            mfu_training=0.35,
            fp8=True,
        ),
    )
    assert [(f.gpu, f.column) for f in data.catalogue_figures] == [
        ("H100", "fp8"),
        ("H100", "mfu_training"),
        ("L40S", "fp8"),
    ]
    assert data.offers == (
        Offer(
            "H100|buy|1",
            "H100",
            OfferOption.BUY,
            25000.0,
            provider="Vendor",
            source="guide 2026",
            row=2,
        ),
        Offer(
            "H100|on_demand|1",
            "H100",
            OfferOption.ON_DEMAND,
            3.15,
            provider="Cloud A",
            source="guide 2026",
            row=3,
        ),
        Offer(
            "H100|on_demand|2",
            "H100",
            OfferOption.ON_DEMAND,
            2.99,
            max_units=16,
            available_from=2,
            provider="Cloud B",
            source="quote",
            row=4,
        ),
        Offer(
            "H100|reserved|1",
            "H100",
            OfferOption.RESERVED,
            2.2,
            term_months=12,
            provider="Cloud A",
            source="quote",
            row=5,
        ),
        Offer("L40S|spot|1", "L40S", OfferOption.SPOT, 0.6, provider="Cloud C", row=6),
    )
    assert data.workloads == (
        Workload("lora-7b", Kind.LORA, params_b=7.0, tokens=1e9, start_month=1, end_month=3),
        Workload(
            "chat-8b",
            Kind.REALTIME_INFERENCE,
            params_b=8.0,
            tokens_per_second=500.0,
            latency_ms=50.0,
            context_tokens=8192,
        ),
        Workload(
            "batch-8b",
            Kind.BATCH_INFERENCE,
            params_b=8.0,
            precision=Precision.FP8,
            tokens=2e10,
            start_month=2,
            interruptible=True,
        ),
    )
    assert data.measurements == (
        Measurement("lora-7b", "H100", gpus_per_replica=1, gpu_hours=40.0),
        Measurement("chat-8b", "L40S", gpus_per_replica=1, tokens_per_second_per_replica=900.0),
    )
    assert data.workloads[1].end_month is None
    assert [(a.key, a.value, a.source) for a in data.assumptions] == [
        ("electricity_per_kwh", 0.08, "EIA industrial 2024"),
        ("pue", 1.2, None),
    ]
    assert [(s.name, dict(s.settings), dict(s.assumptions)) for s in data.scenarios] == [
        ("us", {"horizon_months": 24}, {}),
        (
            "eu",
            {
                "horizon_months": 12,
                "budget_total": 500000.0,
                "allow_buy": False,
                "workloads": ("lora-7b", "chat-8b"),
                "exclude_gpus": ("L40S",),
            },
            {"electricity_per_kwh": 0.25},
        ),
    ]


def test_v2_fields_read_back_from_the_workbook_and_a_scenario_file(tmp_path: Path) -> None:
    sheets = valid_sheets()
    set_cell(sheets, "Workloads", 3, "min_replicas", 3)
    set_cell(sheets, "Workloads", 4, "runs_per_month", 4.5)
    set_cell(sheets, "Workloads", 4, "deadline_hours", 12)
    set_cell(sheets, "Assumptions", 4, "key", "target_load")
    set_cell(sheets, "Assumptions", 4, "value", 0.7)
    set_cell(sheets, "Assumptions", 4, "source", "SRE policy")
    set_cell(sheets, "Scenarios", 3, "target_load", 0.6)
    write_sheets(tmp_path / "input.xlsx", sheets)
    (tmp_path / "v2.yaml").write_text(
        "workbook: input.xlsx\n"
        "scenarios:\n"
        "  - name: weekly\n"
        "    assumptions: {target_load: 0.9}\n"
        "    add_workloads:\n"
        "      - {workload: tune, kind: fine_tuning, params_b: 8, tokens: 1e9,\n"
        "         runs_per_month: 4, deadline_hours: 48}\n"
        "      - {workload: chat-2, kind: realtime_inference, params_b: 8,\n"
        "         tokens_per_second: 100, min_replicas: 2}\n"
    )
    us, eu = load_input(tmp_path / "input.xlsx").scenarios
    chat, batch = (next(w for w in us.workloads if w.name == n) for n in ("chat-8b", "batch-8b"))
    assert (chat.min_replicas, chat.runs_per_month, chat.deadline_hours) == (3, None, None)
    assert (batch.min_replicas, batch.runs_per_month, batch.deadline_hours) == (1, 4.5, 12.0)
    assert (type(chat.min_replicas), batch.recurring, batch.one_off_training) == (int, True, False)
    assert (us.assumptions.target_load, eu.assumptions.target_load) == (0.7, 0.6)
    assert us.assumption_sources["target_load"] == "Assumptions sheet: SRE policy"
    (weekly,) = load_input(tmp_path / "v2.yaml").scenarios
    tune, chat2 = weekly.workloads[-2:]
    assert (tune.name, tune.runs_per_month, tune.deadline_hours, tune.min_replicas) == (
        "tune",
        4.0,
        48.0,
        1,
    )
    assert (chat2.name, chat2.min_replicas, chat2.runs_per_month) == ("chat-2", 2, None)
    assert weekly.assumptions.target_load == 0.9
    assert weekly.assumption_sources["target_load"] == "v2.yaml, line 4"


def test_v2_fields_default_when_absent(tmp_path: Path) -> None:
    (scenario, *_) = load_input(write_sheets(tmp_path / "in.xlsx", valid_sheets())).scenarios
    assert {(w.min_replicas, w.runs_per_month, w.deadline_hours) for w in scenario.workloads} == {
        (1, None, None)
    }
    assert scenario.assumptions.target_load == 0.8


def test_types_are_exact(tmp_path: Path) -> None:
    data = read_workbook(write_sheets(tmp_path / "in.xlsx", valid_sheets()))
    assert type(data.gpus[0].max_per_node) is int
    assert type(data.offers[3].term_months) is int
    assert type(data.gpus[0].vram_gb) is float
    assert type(data.workloads[0].kind) is Kind


def test_headers_ignore_case_spaces_units_and_order(tmp_path: Path) -> None:
    sheets = valid_sheets()
    for name, rows in sheets.items():
        rows[0] = [f"  {str(h).upper()} (whatever unit) " for h in rows[0]]
        # Reverse every row's columns: order must not matter.
        sheets[name] = [list(reversed(r + [None] * (len(rows[0]) - len(r)))) for r in rows]
    reordered = read_workbook(write_sheets(tmp_path / "b.xlsx", sheets))
    plain = read_workbook(write_sheets(tmp_path / "a.xlsx", valid_sheets()))
    assert (reordered.gpus, reordered.offers, reordered.workloads, reordered.measurements) == (
        plain.gpus,
        plain.offers,
        plain.workloads,
        plain.measurements,
    )
    assert [s.settings for s in reordered.scenarios] == [s.settings for s in plain.scenarios]


def test_blank_rows_skipped_text_trimmed_extras_ignored(tmp_path: Path) -> None:
    sheets = valid_sheets()
    sheets["GPUs"].insert(2, [None, None, "  "])
    sheets["GPUs"][1][0] = "  H100  "
    sheets["Prices"][0].append("notes")
    sheets["Prices"][1].append("anything at all")
    sheets["Notes"] = [["whatever"], [1, 2, 3]]
    data = read_workbook(write_sheets(tmp_path / "in.xlsx", sheets))
    assert [g.name for g in data.gpus] == ["H100", "L40S"]
    assert data.offers[0].offer_id == "H100|buy|1"
    # The blank row 3 is skipped, so the later rows keep their sheet numbers.
    assert data.workload_rows["chat-8b"].row == 3


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (True, True),
        (False, False),
        ("TRUE", True),
        ("false", False),
        (" Yes ", True),
        ("no", False),
        (1, True),
        (0, False),
        ("1", True),
        ("0", False),
    ],
)
def test_booleans(tmp_path: Path, cell: object, expected: bool) -> None:
    data = read_workbook(
        write_sheets(tmp_path / "in.xlsx", set_cell(valid_sheets(), "GPUs", 3, "nvlink", cell))
    )
    assert data.gpus[1].nvlink is expected


@pytest.mark.parametrize(
    ("cell", "expected"), [("3.15", 3.15), (" 4 ", 4.0), ("1e3", 1000.0), (7, 7.0)]
)
def test_numbers_given_as_plain_text(tmp_path: Path, cell: object, expected: float) -> None:
    data = read_workbook(
        write_sheets(tmp_path / "in.xlsx", set_cell(valid_sheets(), "Prices", 3, "price", cell))
    )
    assert data.offers[1].price == expected


def test_whole_float_is_an_integer(tmp_path: Path) -> None:
    data = read_workbook(
        write_sheets(
            tmp_path / "in.xlsx", set_cell(valid_sheets(), "Prices", 5, "term_months", 12.0)
        )
    )
    assert data.offers[3].term_months == 12
    assert type(data.offers[3].term_months) is int


def test_choices_ignore_case(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Prices", 3, "option", " On_Demand ")
    set_cell(sheets, "Workloads", 2, "kind", "LoRA")
    data = read_workbook(write_sheets(tmp_path / "in.xlsx", sheets))
    assert data.offers[1].option is OfferOption.ON_DEMAND
    assert data.workloads[0].kind is Kind.LORA


def test_date_in_a_text_column_becomes_iso_text(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Prices", 2, "source", datetime.date(2024, 5, 1))
    assert (
        read_workbook(write_sheets(tmp_path / "in.xlsx", sheets)).offers[0].source == "2024-05-01"
    )


def test_numeric_gpu_name_is_text(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "GPUs", 3, "gpu", 4090)
    sheets["Prices"][5][0] = "4090"
    sheets["Throughput"][2][1] = 4090
    sheets["Scenarios"][2][5] = 4090
    data = read_workbook(write_sheets(tmp_path / "in.xlsx", sheets))
    assert data.gpus[1].name == "4090"
    assert data.offers[4].offer_id == "4090|spot|1"
    assert data.measurements[1].gpu == "4090"


def test_sheet_names_match_ignoring_case(tmp_path: Path) -> None:
    sheets = valid_sheets()
    sheets["gpus"] = sheets.pop("GPUs")
    assert len(read_workbook(write_sheets(tmp_path / "in.xlsx", sheets)).gpus) == 2


def test_optional_sheets_absent(tmp_path: Path) -> None:
    sheets = valid_sheets()
    for name in ("Throughput", "Scenarios", "Assumptions"):
        del sheets[name]
    loaded = load_input(write_sheets(tmp_path / "in.xlsx", sheets))
    (only,) = loaded.scenarios
    assert only.name == "base"
    assert only.horizon_months == 36
    assert only.measurements == ()
    assert only.assumption_sources == {a.key: f"default: {a.source}" for a in ASSUMPTIONS}


def test_read_workbook_raises_every_problem(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "GPUs", 2, "vram_gb", "lots")
    set_cell(sheets, "Prices", 2, "price", "free")
    with pytest.raises(InputError) as caught:
        read_workbook(write_sheets(tmp_path / "in.xlsx", sheets))
    assert [(p.sheet, p.cell, p.column, p.value) for p in caught.value.problems] == [
        ("GPUs", "B2", "vram_gb", "lots"),
        ("Prices", "C2", "price", "free"),
    ]


def test_load_input_counts_and_files(tmp_path: Path) -> None:
    path = write_sheets(tmp_path / "in.xlsx", valid_sheets())
    loaded = load_input(path)
    assert (loaded.gpu_count, loaded.offer_count, loaded.workload_count) == (2, 5, 3)
    assert loaded.files == (path,)
    assert all(s.source_files == (path,) for s in loaded.scenarios)


def test_scenario_names_keep_only_those(tmp_path: Path) -> None:
    loaded = load_input(write_sheets(tmp_path / "in.xlsx", valid_sheets()), ["eu"])
    assert [s.name for s in loaded.scenarios] == ["eu"]


def test_unknown_scenario_name_lists_the_available_ones(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_input(write_sheets(tmp_path / "in.xlsx", valid_sheets()), ["asia"])
    assert "no scenario named 'asia' (found 'asia'); expected one of us, eu" in str(caught.value)


def test_missing_bundled_example_is_a_clean_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(optimizer.inputs.load, "bundled_example", lambda: tmp_path / "example.xlsx")
    with pytest.raises(InputError) as caught:
        load_input(None)
    assert "example.xlsx: the bundled example workbook is missing" in str(caught.value)


def test_bundled_example_path() -> None:
    expected = EXAMPLE_WORKBOOK
    assert optimizer.inputs.load.bundled_example() == expected


def test_column_letters_and_headers() -> None:
    assert [column_letter(i) for i in (0, 25, 26, 701, 702)] == ["A", "Z", "AA", "ZZ", "AAA"]
    assert normalize_header(" Price (USD per GPU-hour) ") == "price"
    assert normalize_header("VRAM_GB(GB)") == "vram_gb"


def _rewrite_member(path: Path, member: str, old: bytes, new: bytes) -> None:
    with zipfile.ZipFile(path) as archive:
        contents = {i.filename: archive.read(i.filename) for i in archive.infolist()}
    assert old in contents[member]
    contents[member] = contents[member].replace(old, new, 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def test_formula_whose_saved_result_is_empty_text_is_blank(tmp_path: Path) -> None:
    # Excel saves =IF(...,"",...) showing "" as a str-typed cell with an empty value.
    path = write_sheets(
        tmp_path / "in.xlsx", set_cell(valid_sheets(), "Prices", 6, "source", '=""')
    )
    _rewrite_member(
        path,
        "xl/worksheets/sheet2.xml",
        b'<c r="H6"><f>""</f><v /></c>',
        b'<c r="H6" t="str"><f>""</f><v></v></c>',
    )
    assert read_workbook(path).offers[4].source is None


@pytest.mark.libreoffice
def test_workbook_recalculated_by_libreoffice(tmp_path: Path) -> None:
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice is not installed")
    sheets = set_cell(valid_sheets(), "Prices", 3, "price", "=2*1.5")
    set_cell(sheets, "GPUs", 3, "nvlink", "=1>2")
    source = write_sheets(tmp_path / "script.xlsx", sheets)
    with pytest.raises(InputError, match="cell C3, column price: formula has no saved value"):
        read_workbook(source)
    out = tmp_path / "saved"
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path / 'profile'}",
            "--headless",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    data = read_workbook(out / "script.xlsx")
    assert data.offers[1].price == 3.0
    assert data.gpus[1].nvlink is False


def test_marker_search_and_openpyxl_agree(tmp_path: Path) -> None:
    # Uncalculated formula (C3), error value (C4), formula saved as "" (H6): both ways of
    # finding unusable cells give the same answer.
    sheets = set_cell(valid_sheets(), "Prices", 3, "price", "=C2*0.9")
    set_cell(sheets, "Prices", 4, "price", "#DIV/0!")
    set_cell(sheets, "Prices", 6, "source", '=""')
    path = write_sheets(tmp_path / "in.xlsx", sheets)
    _rewrite_member(
        path,
        "xl/worksheets/sheet2.xml",
        b'<c r="H6"><f>""</f><v /></c>',
        b'<c r="H6" t="str"><f>""</f><v></v></c>',
    )
    names = ["GPUs", "Prices", "Workloads"]
    facts = check_xlsx_file(path)
    _, grids = grid._read_grids(path)
    by_markers = grid._unreadable_by_markers(path, names)
    by_openpyxl = grid._unreadable_by_openpyxl(path, facts, names, grids)
    assert by_markers == by_openpyxl
    assert by_markers is not None
    assert sorted(by_markers["Prices"]) == [(3, 2), (4, 2)]
    assert by_markers["Prices"][(3, 2)].shown == "=C2*0.9"
    assert by_markers["Prices"][(4, 2)].reason == "holds the Excel error #DIV/0!"
