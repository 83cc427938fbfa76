"""The GPU catalogue (issue 31): the shipped file is sound, a damaged one is refused, and a
GPUs row naming a type fills its blank cells from it (typed values win)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml

from optimizer.cli import main
from optimizer.inputs.catalogue import (
    CATALOGUE_FILE,
    FILLABLE,
    PLAUSIBLE,
    CatalogueError,
    build_catalogue,
    catalogue,
    catalogue_problems,
    normalise,
)
from optimizer.inputs.load import load_input
from optimizer.inputs.reader import parse_workbook
from optimizer.inputs.schema import GPUS
from optimizer.inputs.template import write_template
from tests.checked import solve_checked
from tests.conftest import valid_sheets, write_sheets
from tests.paths import ROOT

SHIPPED = ROOT / "optimizer" / "inputs" / CATALOGUE_FILE
# The types issue 31 names; each must be found by its usual name.
ISSUE_TYPES = (
    "A100 40GB",
    "A100 80GB",
    "A100 PCIe 40GB",
    "A100 PCIe 80GB",
    "H100 SXM",
    "H100 PCIe",
    "H100 NVL",
    "H200",
    "B200",
    "GB200",
    "L40S",
    "L40",
    "L4",
    "A10G",
    "RTX 6000 Ada",
    "RTX 4090",
    "RTX 5090",
    "V100 32GB",
    "T4",
    "MI300X",
    "MI325X",
)


def _shipped() -> Any:
    return yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the shipped file


def test_the_shipped_catalogue_breaks_no_rule() -> None:
    assert catalogue_problems(_shipped()) == []


def test_every_type_of_the_issue_is_found_by_its_name() -> None:
    missing = [name for name in ISSUE_TYPES if catalogue().find(name) is None]
    assert missing == []


def test_every_figure_has_a_dated_source_and_a_plausible_value_in_the_sheets_unit() -> None:
    for entry in catalogue().entries:
        for column, figure in entry.figures.items():
            assert column in FILLABLE and column != "node_price"
            assert figure.source.strip(), (entry.name, column)
            if column in PLAUSIBLE and not isinstance(figure.value, bool):
                low, high = PLAUSIBLE[column]
                assert low <= figure.value <= high, (entry.name, column, figure.value)


def test_dense_tflops_and_datasheet_figures_of_the_domain_brief() -> None:
    """The domain brief's dense figures: the sparse ones are twice as large and would
    halve every training estimate."""
    find = catalogue().find
    expected = {
        ("H100", "fp16_tflops"): 989,
        ("H200", "fp16_tflops"): 989,
        ("B200", "fp16_tflops"): 2250,
        ("A100 80GB", "fp16_tflops"): 312,
        ("L40S", "fp16_tflops"): 362,
        ("L4", "fp16_tflops"): 121,
        ("MI300X", "fp16_tflops"): 1307.4,
        ("RTX 4090", "fp16_tflops"): 165.2,
        ("B200", "memory_bandwidth_gbs"): 8000,
        ("H200", "memory_bandwidth_gbs"): 4800,
        ("H100", "memory_bandwidth_gbs"): 3350,
        ("A100 80GB", "memory_bandwidth_gbs"): 2039,
        ("A100 40GB", "memory_bandwidth_gbs"): 1555,
        ("L40S", "memory_bandwidth_gbs"): 864,
        ("RTX 4090", "memory_bandwidth_gbs"): 1008,
        ("L4", "memory_bandwidth_gbs"): 300,
        ("MI300X", "memory_bandwidth_gbs"): 5300,
        ("A100 80GB", "mfu_training"): 0.50,
        ("H100", "mfu_training"): 0.40,
        ("L40S", "mfu_training"): 0.35,
        ("MI300X", "mfu_training"): 0.30,
    }
    found = {}
    for name, column in expected:
        entry = find(name)
        assert entry is not None, name
        found[name, column] = entry.figures[column].value
    assert found == expected


def test_no_prices_and_no_figure_without_a_source() -> None:
    for raw in _shipped()["gpus"]:
        assert "node_price" not in raw
        for column, figure in raw.items():
            if column not in ("name", "aliases"):
                assert set(figure) <= {"value", "source", "note"} and figure["source"]


@pytest.mark.parametrize(
    ("typed", "entry"),
    [
        ("H100 SXM", "H100 SXM"),
        ("H100-80GB", "H100 SXM"),
        ("h100", "H100 SXM"),
        ("a100 80gb", "A100 SXM 80GB"),
        ("NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"),
        ("  nvidia_l40s ", "L40S"),
        ("AMD Instinct MI300X", "MI300X"),
        ("GeForce RTX 4090", "RTX 4090"),
    ],
)
def test_aliases_resolve_to_one_entry(typed: str, entry: str) -> None:
    found = catalogue().find(typed)
    assert found is not None and found.name == entry


@pytest.mark.parametrize("typed", ["A100", "V100", "H100X", "H10", "L4O", "nvidia", ""])
def test_no_fuzzy_match(typed: str) -> None:
    """A100 could mean 40 or 80 GB: no guess, only suggestions."""
    assert catalogue().find(typed) is None


def test_names_and_aliases_are_unique_once_normalised() -> None:
    keys = [normalise(a) for e in catalogue().entries for a in (e.name, *e.aliases)]
    assert len(keys) == len(set(keys))


def test_the_names_fit_an_excel_drop_down() -> None:
    """Excel refuses a typed list source longer than 255 characters."""
    assert len(",".join(e.name for e in catalogue().entries)) <= 255


# ---------------------------------------------------------------- a damaged file


def _damaged(change: Any) -> Any:
    data = copy.deepcopy(_shipped())
    change(data)
    return data


def _entry(data: Any, name: str) -> dict[str, Any]:
    return next(e for e in data["gpus"] if e["name"] == name)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: _entry(d, "L4")["vram_gb"].update(value=24576),
            "entry 13 (L4): vram_gb 24576 is outside 4–1024 GB",
        ),
        (
            lambda d: _entry(d, "H100 SXM")["fp16_tflops"].update(value="989"),
            "entry 5 (H100 SXM): fp16_tflops must be a number, not '989'",
        ),
        (
            lambda d: _entry(d, "H100 SXM")["mfu_training"].update(value=40),
            "entry 5 (H100 SXM): mfu_training 40 is outside 0.1–0.8 fraction",
        ),
        (
            lambda d: _entry(d, "H100 SXM")["nvlink"].update(value="yes"),
            "entry 5 (H100 SXM): nvlink must be true or false, not 'yes'",
        ),
        (
            lambda d: _entry(d, "H100 SXM")["tdp_w"].update(source="a-blog"),
            "entry 5 (H100 SXM): tdp_w cites source 'a-blog', which is not in sources",
        ),
        (
            lambda d: _entry(d, "H100 SXM").update(vram_gb=80),
            "entry 5 (H100 SXM): vram_gb must be {value, source, note}, not 80",
        ),
        (
            lambda d: _entry(d, "H200")["aliases"].append("h100"),
            "entry 8 (H200): 'h100' is also a name of 'H100 SXM'",
        ),
        (
            lambda d: _entry(d, "H200").update(
                node_price={"value": 250000, "source": "h200-datasheet"}
            ),
            "entry 8 (H200): node_price is not a GPUs column the catalogue fills (never "
            "node_price: no prices)",
        ),
        (
            lambda d: d["sources"].update({"h100-datasheet": "NVIDIA H100 datasheet"}),
            "source 'h100-datasheet' must name a document and its year, not 'NVIDIA H100 datasheet'",
        ),
        (
            lambda d: d["sources"].update({"unused": "A document (2024)"}),
            "source 'unused' is cited by no figure",
        ),
        (lambda d: d.pop("sources"), "the catalogue must be a mapping with exactly the keys"),
    ],
)
def test_a_damaged_catalogue_is_refused_naming_the_entry(change: Any, message: str) -> None:
    data = _damaged(change)
    problems = catalogue_problems(data)
    assert any(p.startswith(message) for p in problems), problems
    with pytest.raises(CatalogueError, match="the GPU catalogue is unsound"):
        build_catalogue(data)


def test_unparseable_yaml_is_no_catalogue() -> None:
    assert catalogue_problems(yaml.safe_load("- just\n- a list\n")) != []
    assert catalogue_problems(None) != []


# ---------------------------------------------------------------- reading a workbook

PRICES = [
    {"gpu": "H100", "option": "on_demand", "price": 3.15, "source": "guide 2026"},
    {"gpu": "H100", "option": "buy", "price": 25000, "source": "guide 2026"},
    {"gpu": "A100 80GB", "option": "on_demand", "price": 0.72, "source": "guide 2026"},
    {"gpu": "L40S", "option": "on_demand", "price": 1.50, "source": "guide 2026"},
    {"gpu": "L4", "option": "on_demand", "price": 0.50, "source": "guide 2026"},
]
WORKLOADS = [
    {
        "workload": "chat-8b",
        "kind": "realtime_inference",
        "params_b": 8,
        "tokens_per_second": 2000,
        "latency_ms": 50,
    },
    {"workload": "pretrain-7b", "kind": "pretraining", "params_b": 7, "tokens": 2e11},
    {"workload": "batch-8b", "kind": "batch_inference", "params_b": 8, "tokens": 5e10},
]


def _names_only(path: Path, gpus: list[dict[str, object]] | None = None) -> Path:
    rows: dict[str, Any] = {
        "GPUs": gpus or [{"gpu": "H100"}, {"gpu": "A100 80GB"}, {"gpu": "L40S"}, {"gpu": "L4"}],
        "Prices": PRICES,
        "Workloads": WORKLOADS,
    }
    write_template(path, rows)
    return path


def test_a_sheet_of_names_only_plans_and_the_checker_accepts_the_plan(tmp_path: Path) -> None:
    path = _names_only(tmp_path / "names.xlsx")
    before = path.read_bytes()
    (scenario,) = load_input(path).scenarios
    h100 = scenario.gpu("H100")
    assert (h100.vram_gb, h100.fp16_tflops, h100.memory_bandwidth_gbs, h100.tdp_w) == (
        80,
        989,
        3350,
        700,
    )
    assert (h100.nvlink, h100.max_per_node, h100.mfu_training, h100.fp8) == (True, 8, 0.40, True)
    a100 = scenario.gpu("A100 80GB")
    assert (a100.fp16_tflops, a100.mfu_training, a100.fp8) == (312, 0.50, False)
    assert (scenario.gpu("L4").vram_gb, scenario.gpu("L40S").fp16_tflops) == (24, 362)
    plan = solve_checked(scenario)
    assert plan.status.has_plan
    assert {a.workload for a in plan.assignments if a.gpu_hours > 0} == {
        "chat-8b",
        "pretrain-7b",
        "batch-8b",
    }
    assert path.read_bytes() == before


def test_a_typed_value_wins_over_the_catalogue(tmp_path: Path) -> None:
    gpus = [
        {"gpu": "H100", "fp16_tflops": 900, "mfu_training": 0.45, "max_per_node": 1},
        {"gpu": "A100 80GB"},
        {"gpu": "L40S"},
        {"gpu": "L4"},
    ]
    data, problems = parse_workbook(_names_only(tmp_path / "typed.xlsx", gpus))
    assert problems == []
    h100 = next(g for g in data.gpus if g.name == "H100")
    assert (h100.fp16_tflops, h100.mfu_training, h100.max_per_node) == (900, 0.45, 1)
    assert h100.vram_gb == 80  # blank: the catalogue's
    filled = {f.column for f in data.catalogue_figures if f.gpu == "H100"}
    assert filled == {"vram_gb", "memory_bandwidth_gbs", "tdp_w", "nvlink", "fp8"}
    # 900 against 989 is no contradiction; one GPU per server is a platform, not a slip.
    assert data.warnings == ()


def test_a_contradictory_typed_vram_warns_with_both_values(tmp_path: Path) -> None:
    gpus = [
        {"gpu": "H100", "vram_gb": 80000},
        {"gpu": "A100 80GB"},
        {"gpu": "L40S"},
        {"gpu": "L4", "fp16_tflops": 242},
    ]
    data, problems = parse_workbook(_names_only(tmp_path / "mb.xlsx", gpus))
    assert problems == []
    assert next(g for g in data.gpus if g.name == "H100").vram_gb == 80000  # typed: used
    assert list(data.warnings) == [
        "warning: mb.xlsx, sheet GPUs, cell B2, column vram_gb: 80000 against the GPU "
        "catalogue's 80 GB for H100 SXM (NVIDIA H100 Tensor Core GPU datasheet (nvidia.com, "
        "2023)), 1,000.0 times apart; the typed value is used: check its unit (MB for GB? "
        "TFLOPS with sparsity?)"
    ]
    # Twice the catalogue's (a sparse TFLOPS figure) is the limit: not more than 2x, no warning.
    assert "fp16_tflops" not in " ".join(data.warnings)


def test_an_unknown_name_with_blank_required_cells_says_did_you_mean(tmp_path: Path) -> None:
    gpus = [{"gpu": "A100"}, {"gpu": "L4"}, {"gpu": "H100"}, {"gpu": "A10G"}]
    _, problems = parse_workbook(_names_only(tmp_path / "unknown.xlsx", gpus))
    assert [str(p) for p in problems if p.sheet == "GPUs"] == [
        "unknown.xlsx, sheet GPUs, cell B2, column vram_gb: is blank, and the GPU catalogue has "
        "no type 'A100' to fill it (gpumix gpus lists them); did you mean 'A100 SXM 40GB', "
        "'A100 SXM 80GB', 'A100 PCIe 40GB' or 'A100 PCIe 80GB'?; expected a number > 0 (GB)",
        "unknown.xlsx, sheet GPUs, cell C2, column fp16_tflops: is blank, and the GPU catalogue "
        "has no type 'A100' to fill it (gpumix gpus lists them); did you mean 'A100 SXM 40GB', "
        "'A100 SXM 80GB', 'A100 PCIe 40GB' or 'A100 PCIe 80GB'?; expected a number > 0 (TFLOPS)",
        "unknown.xlsx, sheet GPUs, cell C5, column fp16_tflops: is blank, and the GPU "
        "catalogue's A10G (for 'A10G') has no published figure for it; expected a number > 0 "
        "(TFLOPS)",
    ]


def test_the_results_say_which_figures_came_from_the_catalogue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gpus = [{"gpu": "H100", "vram_gb": 80}, {"gpu": "A100 80GB"}, {"gpu": "L40S"}, {"gpu": "L4"}]
    path = _names_only(tmp_path / "names.xlsx", gpus)
    out = tmp_path / "out.xlsx"
    assert main(["solve", str(path), "--output", str(out), "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["scenarios"]
    h100 = {f["column"]: f for f in doc["catalogue_figures"] if f["gpu"] == "H100"}
    assert "vram_gb" not in h100  # typed
    assert h100["fp16_tflops"] == {
        "gpu": "H100",
        "column": "fp16_tflops",
        "value": 989,
        "entry": "H100 SXM",
        "source": "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com, 2023)",
        "note": "BF16 Tensor Core 1,979 with sparsity, 989 dense",
    }
    assert h100["mfu_training"]["source"].startswith("Llama 3 herd of models")

    book = openpyxl.load_workbook(out)
    audit = [[c for c in row if c is not None] for row in book["Audit"].iter_rows(values_only=True)]
    title = audit.index(["GPU figures from the catalogue (cells left blank in sheet GPUs)"])
    assert audit[title + 1] == [
        "Scenario",
        "GPU",
        "Catalogue entry",
        "Column",
        "Value",
        "Source (document, date; how)",
    ]
    assert [
        "base",
        "H100",
        "H100 SXM",
        "fp16_tflops",
        989,
        "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com, 2023): BF16 Tensor Core 1,979 "
        "with sparsity, 989 dense",
    ] in audit
    assert not any(r[:4] == ["base", "H100", "H100 SXM", "vram_gb"] for r in audit)
    options = next(name for name in book.sheetnames if name.endswith("Options"))
    notes = [
        row[0]
        for row in book[options].iter_rows(values_only=True)
        if isinstance(row[0], str) and "(catalogue: " in row[0]
    ]
    assert notes[:3] == [
        "  H100 (catalogue: H100 SXM): 989 fp16_tflops, 3350 memory_bandwidth_gbs, 700 tdp_w, "
        "TRUE nvlink, TRUE fp8 [NVIDIA H100 Tensor Core GPU datasheet (nvidia.com, 2023)]",
        "  H100 (catalogue: H100 SXM): 8 max_per_node [AWS EC2 accelerated computing instance "
        "types (aws.amazon.com/ec2/instance-types, 2024)]",
        "  H100 (catalogue: H100 SXM): 0.4 mfu_training [Llama 3 herd of models (Dubey et al., "
        "July 2024) §3.3.4: 38–43 % MFU on 16K H100; the Hopper and Blackwell generations' "
        "figure, 0.40]",
    ]
    assert {n.split(" (catalogue")[0].strip() for n in notes} == {"H100", "A100 80GB", "L40S", "L4"}


# ---------------------------------------------------------------- gpumix gpus


def test_gpus_lists_every_type(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    for entry in catalogue().entries:
        assert f"\n{entry.name} " in out
    assert "FP16 TFLOPS are dense" in out


def test_gpus_name_shows_every_figure_with_its_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "nvidia a100-sxm4-80gb"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "A100 SXM 80GB"
    assert (
        "  memory_bandwidth_gbs: 2039 GB/s  [NVIDIA A100 Tensor Core GPU datasheet "
        "(nvidia.com, June 2021)]" in out
    )
    assert "  node_price: - (never: prices differ by provider and week)" in out
    assert len(out) == 2 + len(GPUS.columns) - 1


def test_gpus_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "L4", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["gpus"]
    assert entry["name"] == "L4"
    assert entry["figures"]["fp16_tflops"] == {
        "value": 121,
        "source": "NVIDIA L4 Tensor Core GPU datasheet (nvidia.com, 2023)",
        "note": "BF16 Tensor Core 242 with sparsity, 121 dense",
    }


def test_gpus_unknown_name_exits_2_with_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "H100X"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "gpumix gpus: 'H100X' is not in the GPU catalogue; did you mean 'H100 SXM', 'H200', "
        "'H100 NVL' or 'H100 PCIe'?\n"
    )


def test_gpus_nope_exits_2_listing_the_types(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "NOPE"]) == 2
    names = ", ".join(e.name for e in catalogue().entries)
    assert capsys.readouterr().err == (
        f"gpumix gpus: 'NOPE' is not in the GPU catalogue; did you mean one of its "
        f"{len(catalogue().entries)} types: {names}?\n"
    )


def test_a_gpus_sheet_with_the_name_column_only_reads(tmp_path: Path) -> None:
    """The catalogue fills every column of known names, so the sheet may hold names alone;
    an unknown name keeps the missing-column problem, reported once."""
    sheets = valid_sheets()
    sheets["GPUs"] = [["gpu"], ["H100"], ["L40S"]]
    data, problems = parse_workbook(write_sheets(tmp_path / "names.xlsx", sheets))
    assert problems == []
    assert [(g.name, g.vram_gb, g.fp16_tflops) for g in data.gpus] == [
        ("H100", 80, 989),
        ("L40S", 48, 362),
    ]
    sheets["GPUs"] = [["gpu"], ["H100"], ["L40S"], ["Custom"]]
    _, problems = parse_workbook(write_sheets(tmp_path / "custom.xlsx", sheets))
    assert [str(p) for p in problems] == [
        "custom.xlsx, sheet GPUs, row 1, column vram_gb: required column vram_gb is missing; "
        "expected a header 'vram_gb (GB)' in row 1",
        "custom.xlsx, sheet GPUs, row 1, column fp16_tflops: required column fp16_tflops is "
        "missing; expected a header 'fp16_tflops (TFLOPS)' in row 1",
    ]
