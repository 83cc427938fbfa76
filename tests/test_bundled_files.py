"""Every file in workbooks/ and scenarios/ is current, readable and says what it should."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import openpyxl
import pytest
import yaml

from optimizer.inputs import example_data
from optimizer.inputs.docs_reference import SCENARIO_FILE_KEYS

ROOT = Path(__file__).parent.parent
WORKBOOKS = ROOT / "workbooks"
SCENARIO_FILES = sorted((ROOT / "scenarios").glob("*.yaml"))
TOP_LEVEL_KEYS = {"workbook", "scenarios"}
SCENARIO_KEYS = {key for key, _, _ in SCENARIO_FILE_KEYS} - TOP_LEVEL_KEYS


def _make_workbooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_workbooks", WORKBOOKS / "make_workbooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workbook_content(path: Path) -> dict[str, Any]:
    """What a user sees and the reader reads, leaving out volatile parts (dates, zip order)."""
    wb = openpyxl.load_workbook(path)
    content: dict[str, Any] = {"sheets": wb.sheetnames}
    for ws in wb.worksheets:
        content[ws.title] = {
            "cells": {
                c.coordinate: (c.value, c.data_type, c.number_format, c.fill.fgColor.rgb)
                for row in ws.iter_rows()
                for c in row
            },
            "comments": {
                c.coordinate: c.comment.text for row in ws.iter_rows() for c in row if c.comment
            },
            "validations": sorted(
                (str(dv.sqref), dv.type, dv.operator, dv.formula1, dv.formula2, dv.prompt, dv.error)
                for dv in ws.data_validations.dataValidation
            ),
            "freeze": ws.freeze_panes,
            "merged": sorted(str(r) for r in ws.merged_cells.ranges),
            "widths": {k: d.width for k, d in ws.column_dimensions.items()},
        }
    return content


def test_every_bundled_workbook_is_made_by_make_workbooks() -> None:
    assert sorted(p.name for p in WORKBOOKS.glob("*.xlsx")) == sorted(_make_workbooks().BUNDLED)


@pytest.fixture(scope="module")
def fresh_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fresh")
    _make_workbooks().write_all(folder)
    return folder


@pytest.mark.parametrize("name", ["template.xlsx", "example.xlsx"])
def test_bundled_workbook_matches_what_make_workbooks_writes(fresh_folder: Path, name: str) -> None:
    fresh, bundled = workbook_content(fresh_folder / name), workbook_content(WORKBOOKS / name)
    for sheet in fresh["sheets"]:
        assert bundled.get(sheet) == fresh[sheet], (
            f"workbooks/{name}, sheet {sheet} is stale: "
            "regenerate it with `.venv/bin/python workbooks/make_workbooks.py`"
        )
    assert bundled["sheets"] == fresh["sheets"]


def test_example_carries_the_guides_cost_per_tflop() -> None:
    # The guide's worked numbers: on-demand rent per hour / FP16 TFLOPS.
    tflops = {g["gpu"]: g["fp16_tflops"] for g in example_data.GPUS}
    rent = {p["gpu"]: p["price"] for p in example_data.PRICES if p["option"] == "on_demand"}
    per_tflop = {gpu: round(rent[gpu] / tflops[gpu], 4) for gpu in tflops if gpu != "L4"}  # type: ignore[operator]
    assert per_tflop == {
        "RTX 4090": 0.0018,
        "B200": 0.0019,
        "A100 80GB": 0.0023,
        "H100": 0.0032,
        "H200": 0.0038,
        "L40S": 0.0041,
    }


def test_every_example_price_names_its_source_and_date() -> None:
    for row in example_data.PRICES:
        assert "2026" in str(row["source"]) and row["provider"], row
    b200_buy = next(p for p in example_data.PRICES if (p["gpu"], p["option"]) == ("B200", "buy"))
    assert b200_buy["available_from"] == 4 and b200_buy["max_units"]
    assert not any(p["gpu"] == "L4" and p["option"] == "buy" for p in example_data.PRICES)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_scenario_file_uses_only_contract_keys_and_known_names(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert set(data) == TOP_LEVEL_KEYS
    assert (path.parent / data["workbook"]).resolve() == (WORKBOOKS / "example.xlsx").resolve()
    gpus = {g["gpu"] for g in example_data.GPUS}
    workloads = {w["workload"] for w in example_data.WORKLOADS}
    bases = {s["scenario"] for s in example_data.SCENARIOS}
    for entry in data["scenarios"]:
        assert set(entry) <= SCENARIO_KEYS, set(entry) - SCENARIO_KEYS
        assert entry.get("base", "us-baseline") in bases
        assert {p["gpu"] for p in entry.get("prices", [])} <= gpus
        assert set(entry.get("exclude_gpus", [])) <= gpus
        assert set(entry.get("workloads", [])) <= workloads


def test_there_are_at_least_two_scenario_files() -> None:
    assert len(SCENARIO_FILES) >= 2


def test_bundled_workbooks_read_without_problems() -> None:
    reader = pytest.importorskip("optimizer.inputs.reader")
    example, problems = reader.parse_workbook(WORKBOOKS / "example.xlsx")
    assert problems == []
    assert (len(example.gpus), len(example.offers), len(example.workloads)) == (7, 19, 6)
    assert [s.name for s in example.scenarios] == ["us-baseline", "europe", "tight-capex"]
    template, problems = reader.parse_workbook(WORKBOOKS / "template.xlsx")
    assert problems == []
    assert (template.gpus, template.offers, template.workloads) == ((), (), ())


BUNDLED_INPUTS = [*sorted(WORKBOOKS.glob("*.xlsx")), *SCENARIO_FILES]


@pytest.mark.parametrize("path", BUNDLED_INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_bundled_file_loads(path: Path) -> None:
    inputs = pytest.importorskip("optimizer.inputs.load")
    loaded = inputs.load_input(path)
    assert loaded.scenarios
    if path.suffix == ".yaml":
        names = [s["name"] for s in yaml.safe_load(path.read_text(encoding="utf-8"))["scenarios"]]
        assert [s.name for s in loaded.scenarios] == names


def test_template_loads_as_one_scenario_of_defaults() -> None:
    inputs = pytest.importorskip("optimizer.inputs.load")
    from optimizer.domain import Assumptions

    (only,) = inputs.load_input(WORKBOOKS / "template.xlsx").scenarios
    assert (only.name, only.gpus, only.offers, only.workloads) == ("base", (), (), ())
    assert only.assumptions == Assumptions()


def test_example_loads_with_every_scenario() -> None:
    inputs = pytest.importorskip("optimizer.inputs.load")
    loaded = inputs.load_input(WORKBOOKS / "example.xlsx")
    scenarios = {s.name: s for s in loaded.scenarios}
    assert list(scenarios) == ["us-baseline", "europe", "tight-capex"]
    assert (loaded.gpu_count, loaded.offer_count, loaded.workload_count) == (7, 19, 6)
    assert scenarios["europe"].assumptions.electricity_per_kwh == 0.25
    assert scenarios["us-baseline"].assumptions.electricity_per_kwh == 0.10
    assert scenarios["tight-capex"].budget_capex == 10_000
    assert len(scenarios["us-baseline"].measurements) == 1


def test_scenario_files_load_with_their_overrides() -> None:
    inputs = pytest.importorskip("optimizer.inputs.load")
    loaded = {s.name: s for path in SCENARIO_FILES for s in inputs.load_input(path).scenarios}
    eu = loaded["eu-power"]
    assert eu.assumptions.electricity_per_kwh == 0.25 and eu.power_cap_kw == 3
    h100_on_demand = [
        o.price for o in eu.offers if (o.gpu, o.option.value) == ("H100", "on_demand")
    ]
    assert h100_on_demand == [pytest.approx(3.15 * 0.8)]
    assert not any(o.option.value == "buy" for o in loaded["rent-only"].offers)
    assert "chat-70b" in {w.name for w in loaded["rent-only-chat-70b"].workloads}
    small = loaded["small-team"]
    assert small.horizon_months == 24 and "B200" not in {g.name for g in small.gpus}
    assert {w.name for w in small.workloads} == {"lora-7b", "ft-13b", "batch-13b", "chat-8b"}
    assert [o.price for o in small.offers if (o.gpu, o.option.value) == ("H100", "buy")] == [22_000]
    futures = loaded["growth-futures"].futures
    assert futures is not None and futures.decide_by_month == 1
    assert [(f.name, f.probability) for f in futures.futures] == [
        ("low", 0.25),
        ("expected", 0.5),
        ("high", 0.25),
    ]
    assert futures.futures[0].demand_factor == 0.7 and futures.futures[1].changes_nothing
