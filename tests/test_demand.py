"""Demand over time (model v2 §E): growth_per_month, sheet Demand and a scenario file's demand:.

Each solve goes through the independent checker, which recomputes every
month's demand from the workload alone; the enumeration tests
(``tests/test_optimality.py``) compare growing services and batch work with the
brute-force optimum.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from optimizer.cli import main
from optimizer.domain import Kind, Workload
from optimizer.inputs.load import load_input
from optimizer.results import Decisions, EstimateSource, PairEstimate, ServingWidth, SolveStatus
from tests.builders import gpu, measured, offer, scenario, workload
from tests.check.test_check import violations_of
from tests.checked import solve_checked
from tests.conftest import sha256, valid_sheets, write_sheets


def test_demand_compounds_from_the_start_month_and_a_given_month_replaces_it() -> None:
    w = Workload(
        "chat",
        Kind.REALTIME_INFERENCE,
        tokens_per_second=1000.0,
        start_month=3,
        growth_per_month=0.1,
        demand_by_month=((5, 5000.0),),
    )
    assert w.demand_in(3) == 1000.0
    assert w.demand_in(4) == pytest.approx(1100.0)
    assert w.demand_in(5) == 5000.0  # sheet Demand's month
    assert w.demand_in(6) == pytest.approx(1331.0)  # growth goes on from the base
    batch = Workload(
        "nightly",
        Kind.BATCH_INFERENCE,
        tokens=1e9,
        growth_per_month=0.5,
        demand_by_month=((4, 4e9),),
    )
    assert batch.demand_factor(1) == 1.0
    assert batch.demand_factor(3) == pytest.approx(2.25)
    assert batch.demand_factor(4) == 4.0


@pytest.mark.parametrize(
    ("growth", "expected"),
    # 1 replica serves 1,000 tokens/s; with target_load 0.8 a month needs
    # ceil(demand / 800) replicas: 1,000 → 2, 1,500 → 2, 2,250 → 3, 3,375 → 5.
    # Growth above 1 (the spec's "fraction ≥ 0" has no upper bound) compounds the
    # same way: 1,000 → 2,500 → 6,250 → 15,625 tokens/s, 2, 4, 8, 20 replicas.
    [(0.5, {1: 2, 2: 2, 3: 3, 4: 5}), (1.5, {1: 2, 2: 4, 3: 8, 4: 20})],
)
def test_a_growing_service_gets_more_replicas_as_it_grows(
    growth: float, expected: dict[int, int]
) -> None:
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 2.0)],
        [workload("chat", "realtime_inference", tokens_per_second=1000.0, growth_per_month=growth)],
        [measured("chat", "H100", gpus_per_replica=1, tokens_per_second_per_replica=1000.0)],
        horizon_months=4,
    )
    plan = solve_checked(s)
    assert plan.status is SolveStatus.OPTIMAL and plan.decisions is not None
    replicas = {t: n for (_w, _g, _p, _k, t), n in plan.decisions.replicas.items()}
    assert replicas == expected
    assert plan.total_cost == pytest.approx(2.0 * 730 * sum(expected.values()), abs=0.005)


def test_batch_work_grows_with_its_demand() -> None:
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 2.0)],
        [workload("nightly", "batch_inference", tokens=1e9, growth_per_month=0.25)],
        [measured("nightly", "H100", gpus_per_replica=1, gpu_hours=100.0)],
        horizon_months=3,
    )
    plan = solve_checked(s)
    assert plan.decisions is not None
    hours = {t: h for (_w, _g, _p, t), h in plan.decisions.work.items()}
    assert hours == pytest.approx({1: 100.0, 2: 125.0, 3: 156.25})


def _sheets_with_demand(rows: list[list[object]]) -> dict:
    sheets = valid_sheets()
    sheets["Demand"] = [["workload", "month", "value"], *rows]
    return sheets


def test_sheet_demand_and_scenario_file_rows_reach_the_workload(tmp_path: Path) -> None:
    write_sheets(
        tmp_path / "input.xlsx", _sheets_with_demand([["chat-8b", 2, 800], ["chat-8b", 40, 9]])
    )
    path = tmp_path / "more.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            workbook: input.xlsx
            scenarios:
              - name: more
                demand:
                  - {workload: chat-8b, month: 2, value: 1200}
                  - {workload: batch-8b, month: 3, value: 4e10}
              - name: sheet
            """
        )
    )
    more, sheet = load_input(path).scenarios
    by_name = {w.name: w for w in more.workloads}
    # The file's row replaces the sheet's for that month; month 40 is past the horizon.
    assert by_name["chat-8b"].demand_by_month == ((2, 1200.0),)
    assert by_name["batch-8b"].demand_factor(3) == 2.0
    assert {w.name: w for w in sheet.workloads}["chat-8b"].demand_by_month == ((2, 800.0),)


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        (
            [["chat-9b", 2, 100]],
            "sheet Demand, cell A2, column workload: unknown workload; did you mean 'chat-8b'? "
            "(found 'chat-9b'); expected a workload of sheet Workloads (or added by the scenario)",
        ),
        (
            [["lora-7b", 2, 100]],
            "sheet Demand, cell A2, column workload: 'lora-7b' is lora: demand over time is for "
            "realtime_inference and batch_inference workloads (found 'lora-7b'); "
            "expected a realtime_inference or batch_inference workload",
        ),
        (
            [["batch-8b", 1, 100]],
            "sheet Demand, cell B2, column month: outside the window of 'batch-8b' (months 2 on) "
            "(found 1); expected a month from 2",
        ),
        (
            [["chat-8b", 2, -5]],
            "sheet Demand, cell C2, column value: must be at least 0 (found -5.0); "
            "expected a number ≥ 0 (tokens/s or tokens)",
        ),
        (
            [["chat-8b", 3, 100], ["chat-8b", 3, 200]],
            "sheet Demand, cell B3, column month: month 3 of 'chat-8b' is given twice "
            "(first at sheet Demand, row 2) (found 3); expected one row per workload and month",
        ),
    ],
    ids=["unknown workload", "training workload", "before the window", "negative", "twice"],
)
def test_bad_demand_rows_are_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[list[object]], problem: str
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _sheets_with_demand(rows))
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"1 problem in the input:\n  - input.xlsx, {problem}\n"
    assert sha256(path) == before


def test_growth_on_a_training_workload_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = valid_sheets()
    sheets["Workloads"][0].append("growth_per_month")
    sheets["Workloads"][1].append(0.05)
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == (
        "1 problem in the input:\n  - input.xlsx, sheet Workloads, cell M2, column "
        "growth_per_month: is only for realtime_inference and batch_inference workloads, "
        "not lora (found 0.05); expected blank or 0\n"
    )


def test_a_scenario_file_demand_row_outside_its_window_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "bad.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    demand:\n"
        "      - {workload: batch-8b, month: 1, value: 5}\n"
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == (
        "1 problem in the input:\n  - bad.yaml, line 5: scenario 'a', demand entry 1, month: "
        "outside the window of 'batch-8b' (months 2 to 24) (found 1); expected a month from 2 to 24\n"
    )


def test_the_checker_rejects_a_plan_that_serves_only_the_base_demand() -> None:
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 2.0)],
        [workload("chat", "realtime_inference", tokens_per_second=1000.0, growth_per_month=0.5)],
        horizon_months=4,
    )
    estimates = [
        PairEstimate(
            "chat",
            "H100",
            True,
            "",
            10.0,
            1,
            None,
            1000.0,
            20.0,
            EstimateSource.MEASURED,
            (ServingWidth(1, True, "", 1000.0, 20.0),),
        )
    ]
    flat = {("chat", "H100", "H100|on_demand|1", 1, t): 2 for t in (1, 2, 3, 4)}
    found = violations_of(s, Decisions(replicas=flat), estimates)
    assert found == [
        "serving: chat month 3 has 2,000 tokens/s of capacity, needs 2,250 / target_load 0.8 "
        "= 2,812.5",
        "serving: chat month 4 has 2,000 tokens/s of capacity, needs 3,375 / target_load 0.8 "
        "= 4,218.75",
    ]
    grown = {**flat, ("chat", "H100", "H100|on_demand|1", 1, 3): 3}
    grown[("chat", "H100", "H100|on_demand|1", 1, 4)] = 5
    assert violations_of(s, Decisions(replicas=grown), estimates) == []
