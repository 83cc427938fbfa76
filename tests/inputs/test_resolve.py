"""Resolving scenarios: precedence of overrides, filters, and the per-scenario checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.domain import OfferOption, Scenario
from optimizer.errors import InputError
from optimizer.inputs.load import load_input
from optimizer.inputs.reader import read_workbook
from optimizer.inputs.resolve import resolve_scenarios
from optimizer.inputs.scenario_file.read import read_scenario_file
from tests.conftest import Sheets, set_cell, valid_sheets, write_sheets
from tests.paths import EXAMPLE_WORKBOOK


def _scenarios(tmp_path: Path, sheets: Sheets) -> dict[str, Scenario]:
    data = read_workbook(write_sheets(tmp_path / "input.xlsx", sheets))
    return {s.name: s for s in resolve_scenarios(data)}


def test_precedence_default_sheet_row_file(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Scenarios", 3, "pue", 1.5)
    write_sheets(tmp_path / "input.xlsx", sheets)
    yaml = tmp_path / "s.yaml"
    yaml.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: x\n    base: eu\n    assumptions:\n      pue: 1.1\n"
    )
    data = read_workbook(tmp_path / "input.xlsx")
    (x,) = resolve_scenarios(data, read_scenario_file(yaml))
    eu = {s.name: s for s in resolve_scenarios(data)}["eu"]
    # default < Assumptions sheet < Scenarios row < scenario file
    assert (x.assumptions.goodput, x.assumption_sources["goodput"]) == (
        0.9,
        "default: Llama 3: > 90 % effective training time",
    )
    assert (x.assumptions.electricity_per_kwh, x.assumption_sources["electricity_per_kwh"]) == (
        0.25,
        "Scenarios sheet, row 3",
    )
    assert (eu.assumptions.pue, eu.assumption_sources["pue"]) == (1.5, "Scenarios sheet, row 3")
    assert (x.assumptions.pue, x.assumption_sources["pue"]) == (1.1, "s.yaml, line 6")
    us = {s.name: s for s in resolve_scenarios(data)}["us"]
    assert (us.assumptions.pue, us.assumption_sources["pue"]) == (
        1.2,
        "Assumptions sheet: no source given",
    )
    assert set(x.assumption_sources) == set(x.assumptions.__dict__)


def test_switches_and_exclusions_filter_offers(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Scenarios", 2, "allow_rent", "no")
    eu = _scenarios(tmp_path, sheets)
    us, europe = eu["us"], eu["eu"]
    assert [o.offer_id for o in us.offers] == ["H100|buy|1"]
    # eu: no buying, L40S excluded; ids stay those of the workbook.
    assert [o.offer_id for o in europe.offers] == [
        "H100|on_demand|1",
        "H100|on_demand|2",
        "H100|reserved|1",
    ]
    assert all(o.option is not OfferOption.BUY for o in europe.offers)
    assert [g.name for g in europe.gpus] == ["H100"]
    assert europe.excluded_gpus == ("L40S",)


def test_workload_filter_keeps_matching_measurements(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Scenarios", 3, "exclude_gpus", None)
    set_cell(sheets, "Scenarios", 3, "workloads", "chat-8b")
    europe = _scenarios(tmp_path, sheets)["eu"]
    assert [w.name for w in europe.workloads] == ["chat-8b"]
    assert [(m.workload, m.gpu) for m in europe.measurements] == [("chat-8b", "L40S")]


def test_no_gpu_left_is_not_an_input_error(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Scenarios", 3, "exclude_gpus", "H100, L40S")
    europe = _scenarios(tmp_path, sheets)["eu"]
    assert europe.gpus == () and europe.offers == ()
    assert [w.name for w in europe.workloads] == ["lora-7b", "chat-8b"]


def test_params_b_not_needed_when_memory_and_speed_are_measured(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Workloads", 3, "params_b", None)
    # chat-8b is measured on L40S (replica size and speed); on H100 it is not.
    with pytest.raises(InputError) as caught:
        _scenarios(tmp_path, sheets)
    (problem,) = caught.value.problems
    assert (problem.sheet, problem.cell) == ("Workloads", "C3")
    assert problem.message == (
        "is blank, and GPU type H100 has no measured memory (vram_gb, or gpus_per_replica "
        "in Throughput) and speed (tokens_per_second_per_replica in Throughput) for workload "
        "'chat-8b' "
        "(scenarios us, eu); without params_b they cannot be estimated"
    )
    sheets["Throughput"].append(["chat-8b", "H100", 1, None, 2000])
    resolved = _scenarios(tmp_path, sheets)
    assert resolved["us"].workloads[1].params_b is None


def test_params_b_message_says_which_figure_is_not_measured(tmp_path: Path) -> None:
    # Memory is given on every type (vram_gb); speed is measured on L40S only.
    sheets = set_cell(valid_sheets(), "Workloads", 3, "params_b", None)
    set_cell(sheets, "Workloads", 3, "vram_gb", 20)
    with pytest.raises(InputError) as caught:
        _scenarios(tmp_path, sheets)
    (problem,) = caught.value.problems
    assert "GPU type H100 has no measured speed (tokens_per_second_per_replica in Throughput)" in (
        problem.message
    )
    assert "memory" not in problem.message


def test_params_b_checked_only_on_the_scenarios_gpus(tmp_path: Path) -> None:
    # Only eu plans chat-8b on H100 alone, and it is measured there.
    sheets = set_cell(valid_sheets(), "Workloads", 3, "params_b", None)
    set_cell(sheets, "Throughput", 3, "gpu", "H100")
    set_cell(sheets, "Scenarios", 2, "workloads", "lora-7b, batch-8b")
    assert [w.name for w in _scenarios(tmp_path, sheets)["eu"].workloads] == ["lora-7b", "chat-8b"]


def test_vram_gb_counts_as_memory(tmp_path: Path) -> None:
    sheets = set_cell(valid_sheets(), "Workloads", 2, "params_b", None)
    set_cell(sheets, "Workloads", 2, "vram_gb", 30)
    sheets["Throughput"].append(["lora-7b", "L40S", None, 80, None])
    assert _scenarios(tmp_path, sheets)["us"].workloads[0].vram_gb == 30.0


def test_empty_scenarios_sheet_means_one_base_scenario(tmp_path: Path) -> None:
    sheets = valid_sheets()
    sheets["Scenarios"] = [sheets["Scenarios"][0]]
    assert list(_scenarios(tmp_path, sheets)) == ["base"]


def test_window_checked_after_the_override(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # lora-7b ends in month 3: fine for 24 and 12 months, not for a 2-month scenario row.
    sheets = set_cell(valid_sheets(), "Scenarios", 2, "horizon_months", 2)
    code = main(["validate", str(write_sheets(tmp_path / "input.xlsx", sheets))])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert (
        "input.xlsx, sheet Workloads, cell J2, column end_month: scenario 'us': the window ends in month 3, "
        "past its 2-month horizon (horizon_months from Scenarios sheet, row 2) (found 3); expected a month from 1 to 2"
    ) in err
    assert "scenario 'eu'" not in err


def test_bundled_example_validates(capsys: pytest.CaptureFixture[str]) -> None:
    example = EXAMPLE_WORKBOOK
    if not example.is_file():
        pytest.skip("workbooks/example.xlsx is not built yet")
    code = main(["validate"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.startswith("example.xlsx: OK — ")
    assert len(load_input(None).scenarios) >= 1
