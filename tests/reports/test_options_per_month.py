"""The Options sheet and the JSON ``options`` of a small solved workbook.

``gpu_hours`` is a month's work for batch and recurring runs (``runs_per_month``
× one run; workbook.md ``options``), the whole job for one-off training. The
cost per unit of work takes the offer that can hold the gang (model v2 §A, §C:
a gang runs wholly in one place, a capped offer holds up to its ``max_units``)
and costs least per useful hour, a spot hour of a gang yielding
``spot_efficiency ^ ceil(gang / max_per_node)`` hours; the formula in the sheet
recalculates (LibreOffice) to the number shown.

The workbook: G8 (8 GPUs a server), rented only: on-demand $3 uncapped
(``anycloud``), on-demand $0.50 capped at 2 GPUs (``cheap-capped``), spot $1
capped at 10 (``spotty``) and spot $1.20 uncapped (``spot-big``).
- b: batch, 2 runs a month of 360 GPU-hours (measured), copies of 4 GPUs,
  deadline 10 h → 9 copies, a 36-GPU gang; interruptible. spotty and
  cheap-capped cannot hold it; spot-big yields 0.85 ^ 5 = 0.4437 hours a paid
  hour, $2.70 a useful hour, under anycloud's $3.
- ft: one-off fine-tune, 300 GPU-hours, a 3-GPU copy: cheap-capped (2 GPUs)
  cannot hold it, anycloud can.
- nightly: LoRA, 4 runs a month of 10 GPU-hours on 1 GPU: cheap-capped holds it.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli import main
from tests.conftest import Sheets, write_sheets
from tests.libreoffice import recalculate

SHEETS: Sheets = {
    "GPUs": [
        ["gpu", "vram_gb", "fp16_tflops", "memory_bandwidth_gbs", "tdp_w", "max_per_node"],
        ["G8", 80, 989, 3350, 700, 8],
    ],
    "Prices": [
        ["gpu", "option", "price", "max_units", "provider"],
        ["G8", "on_demand", 3.0, None, "anycloud"],
        ["G8", "spot", 1.0, 10, "spotty"],
        ["G8", "spot", 1.2, None, "spot-big"],
        ["G8", "on_demand", 0.5, 2, "cheap-capped"],
    ],
    "Workloads": [
        [
            "workload",
            "kind",
            "runs_per_month",
            "deadline_hours",
            "interruptible",
            "start_month",
            "end_month",
            "tokens",
        ],
        ["b", "batch_inference", 2, 10, True, None, None, 1e9],
        ["ft", "fine_tuning", None, None, False, 1, 2, 1e9],
        ["nightly", "lora", 4, None, False, None, None, 1e7],
    ],
    "Throughput": [
        ["workload", "gpu", "gpus_per_replica", "gpu_hours"],
        ["b", "G8", 4, 360],
        ["ft", "G8", 3, 300],
        ["nightly", "G8", 1, 10],
    ],
    "Scenarios": [["scenario", "horizon_months"], ["base", 2]],
}
B_YIELD = 0.85**5  # a 36-GPU gang spans 5 servers of 8


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], Path]:
    folder = tmp_path_factory.mktemp("options")
    source = write_sheets(folder / "gangs.xlsx", SHEETS)
    out = folder / "gangs-results.xlsx"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["solve", str(source), "--output", str(out), "--json", "--jobs", "1"])
    assert code == 0
    return json.loads(buffer.getvalue()), out


def _json_options(solved: tuple[dict[str, object], Path]) -> dict[str, dict[str, object]]:
    data, _ = solved
    scenarios = data["scenarios"]
    assert isinstance(scenarios, list)
    return {o["workload"]: o for o in scenarios[0]["options"]}


def _sheet_rows(path: Path, values: bool) -> dict[str, tuple[object, ...]]:
    wb = openpyxl.load_workbook(path, data_only=values)
    ws = next(ws for ws in wb.worksheets if ws.title.endswith("Options"))
    return {str(r[0]): r for r in ws.iter_rows(min_row=2, values_only=True) if r[1] == "G8"}


def test_json_gpu_hours_are_per_month_for_batch_and_recurring_runs(
    solved: tuple[dict[str, object], Path],
) -> None:
    options = _json_options(solved)
    assert options["b"]["gpu_hours"] == pytest.approx(2 * 360)
    assert options["nightly"]["gpu_hours"] == pytest.approx(4 * 10)
    assert options["ft"]["gpu_hours"] == pytest.approx(300)  # the whole job


def test_the_options_sheet_says_per_month_and_shows_a_month(
    solved: tuple[dict[str, object], Path],
) -> None:
    _, out = solved
    wb = openpyxl.load_workbook(out)
    ws = next(ws for ws in wb.worksheets if ws.title.endswith("Options"))
    assert ws.cell(row=1, column=7).value == (
        "GPU-hours (training: whole job; recurring and batch: per month, at the base month)"
    )
    rows = _sheet_rows(out, values=True)
    assert rows["b"][6] == pytest.approx(720) and rows["b"][13] == "USD per month"
    assert rows["nightly"][6] == pytest.approx(40) and rows["nightly"][13] == "USD per month"
    assert rows["ft"][6] == pytest.approx(300) and rows["ft"][13] == "USD per job"


def test_the_cheapest_offer_can_hold_the_gang_at_the_gangs_spot_yield(
    solved: tuple[dict[str, object], Path],
) -> None:
    _, out = solved
    rows = _sheet_rows(out, values=True)
    # b: not spotty (10 GPUs) nor cheap-capped; spot-big at 0.85 ^ 5, not 0.85.
    assert rows["b"][10:12] == (pytest.approx(1.2), "spot (spot-big)")
    assert rows["b"][12] == pytest.approx(720 / B_YIELD * 1.2)
    # ft: a 3-GPU copy does not fit cheap-capped's 2 GPUs.
    assert rows["ft"][10:13] == (pytest.approx(3.0), "on_demand (anycloud)", pytest.approx(900))
    # nightly: 1 GPU at a time fits cheap-capped.
    assert rows["nightly"][11] == "on_demand (cheap-capped)"
    assert rows["nightly"][12] == pytest.approx(40 * 0.5)
    formulas = _sheet_rows(out, values=False)
    assert str(formulas["b"][12]).endswith("/0.85^5*K2")


def test_the_cost_formulas_recalculate_to_the_numbers_shown(
    solved: tuple[dict[str, object], Path], tmp_path: Path
) -> None:
    _, out = solved
    (again,) = recalculate([out], tmp_path / "recalculated")
    shown, recalculated = _sheet_rows(out, values=True), _sheet_rows(again, values=True)
    for name in ("b", "ft", "nightly"):
        assert recalculated[name][12] == pytest.approx(shown[name][12], rel=1e-9), name
