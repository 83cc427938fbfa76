"""What a company already has (model v2 §E): sheet Fleet and a scenario file's fleet:.

Six H100 bought earlier (at $20,000 each) and one H100 reserved at $2.00 an
hour with 12 months left meet a batch job that needs four GPUs working for
three months of a six-month plan; new H100 cost $25,000, so a used one fetches
0.7 × $25,000 = $17,500 in month 1. Every solve goes through the independent
checker, which recomputes stock, sales, reservations and every cost from the
Fleet rows; the enumeration tests (``tests/test_optimality.py``, family
``existing``) compare such plans with the brute-force optimum.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest

from optimizer.cli import main
from optimizer.domain import Assumptions, CostCategory, ExistingGpus, FleetKind, Scenario
from optimizer.inputs.load import load_input
from optimizer.reports.at_a_glance import recommendation
from optimizer.results import HOUSE, SolveStatus
from tests.builders import gpu, measured, offer, scenario, workload
from tests.check.test_check import pair, violations_of
from tests.checked import CENT, solve_checked
from tests.conftest import sha256, valid_sheets, write_sheets

HOURS = 0.95 * 730  # a GPU's working hours a month (max_utilization 0.95)
OWNED = ExistingGpus("H100|fleet|1", "H100", 6, FleetKind.OWNED, 20_000.0, label="Fleet row 2")
RESERVED = ExistingGpus(
    "H100|fleet|2", "H100", 1, FleetKind.RESERVED, 2.0, months_left=12, label="Fleet row 3"
)


def four_gpus_for_three_months(*fleet: ExistingGpus, **kw: object) -> Scenario:
    return scenario(
        [gpu("H100", max_per_node=8)],
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.0)],
        [workload("batch", "batch_inference", tokens=1.0, end_month=3)],
        [measured("batch", "H100", gpus_per_replica=1, gpu_hours=4 * HOURS)],
        horizon_months=6,
        fleet=fleet,
        **kw,
    )


def test_old_gpus_that_are_not_needed_are_sold_and_the_rest_after_their_last_month() -> None:
    plan = solve_checked(four_gpus_for_three_months(OWNED, RESERVED))
    assert plan.status is SolveStatus.OPTIMAL and plan.decisions is not None
    d = plan.decisions
    # The reservation is paid anyway, so it carries one GPU's work; three owned GPUs
    # carry the rest. The other three are sold at once, these three after month 3.
    assert d.purchases == {}
    assert d.reservations == {("H100|fleet|2", 1): 1}
    assert d.sales == {("H100|fleet|1", 1): 3, ("H100|fleet|1", 4): 3}
    assert {t: h for (_w, _g, p, t), h in d.work.items() if p == HOUSE} == pytest.approx(
        {1: 3 * HOURS, 2: 3 * HOURS, 3: 3 * HOURS}
    )
    cash = {c.month: c.amounts for c in plan.cash_flow}
    assert cash[1][CostCategory.SALES] == pytest.approx(-3 * 17_500.0, abs=CENT)
    # 17,500 × 0.7 ** (3 / 12) = 16,007.10 a GPU in month 4
    assert cash[4][CostCategory.SALES] == pytest.approx(-48_021.29, abs=CENT)
    # Maintenance follows the row's own price: 3 × 5 % / 12 × 20,000.
    assert cash[1][CostCategory.MAINTENANCE] == pytest.approx(250.00, abs=CENT)
    # 3 GPUs busy 693.5 h at 700 W and idle 36.5 h at 10 %, × 1.3 × $0.10
    assert cash[1][CostCategory.ENERGY] == pytest.approx(190.32, abs=CENT)
    assert [cash[t][CostCategory.RESERVED] for t in range(1, 7)] == [1_460.0] * 6
    assert cash[1][CostCategory.PURCHASE] == 0.0
    assert plan.total_cost == pytest.approx(-90_440.32, abs=CENT)
    assert {f.month: (f.existing, f.owned, f.sold) for f in plan.fleet} == {
        1: (3, 3, 3),
        2: (3, 3, 0),
        3: (3, 3, 0),
        4: (0, 0, 3),
        5: (0, 0, 0),
        6: (0, 0, 0),
    }
    assert recommendation(plan) == (
        "Sell the 6 H100 already owned (3 in month 1, 3 in month 4); "
        "pay the 1 H100 already reserved for months 1–6."
    )
    # What the reservation owes past month 6 is stated, not charged.
    assert (
        "the existing reservation Fleet row 3 (1 H100 at $2.00 per GPU-hour) has 6 months left "
        "after month 6: $8,760.00 still owed after the horizon, not in this plan's cost"
    ) in plan.diagnostics


def test_without_market_value_the_fleet_is_kept_and_credited_at_book_value_by_age() -> None:
    aged = replace(OWNED, count=2, age_months=12)
    s = four_gpus_for_three_months(
        aged,
        assumptions=Assumptions(residual_value="book", depreciation_months=36.0),
    )
    plan = solve_checked(s)
    assert plan.decisions is not None and plan.decisions.sales == {}
    # Two owned GPUs work; the other two GPUs' hours are bought or rented.
    assert {f.month: f.existing for f in plan.fleet} == {t: 2 for t in range(1, 7)}
    assert recommendation(plan).startswith("Keep the 2 H100 already owned; ")
    # 12 + 6 = 18 of 36 months old at the horizon: half of $20,000 each.
    credit_of_fleet = 2 * 20_000.0 * 0.5
    bought = sum(plan.decisions.purchases.values())
    assert plan.residual_credit == pytest.approx(
        credit_of_fleet + bought * 25_000.0 * (1 - 6 / 36), abs=CENT
    )
    # Maintenance on the fleet is paid every month, used or not.
    assert all(
        c.amounts[CostCategory.MAINTENANCE] >= 2 * 0.05 / 12 * 20_000.0 - CENT
        for c in plan.cash_flow
    )


def test_a_type_with_no_buy_offer_is_valued_at_the_mean_of_its_fleet_prices() -> None:
    cheap = replace(OWNED, count=1, price=10_000.0)
    dear = replace(OWNED, source_id="H100|fleet|2", count=3, price=30_000.0)
    s = replace(
        four_gpus_for_three_months(cheap, dear),
        offers=(offer("H100", "on_demand", 3.0),),
    )
    assert s.reference_price("H100") == pytest.approx(25_000.0)
    plan = solve_checked(s)
    assert plan.decisions is not None
    # Four GPUs are just enough: all kept through month 3, sold in month 4.
    assert sum(n for (_o, t), n in plan.decisions.sales.items() if t == 4) == 4


def test_existing_servers_come_with_the_fleet_and_are_sold_with_it() -> None:
    s = replace(
        four_gpus_for_three_months(replace(OWNED, count=3)),
        gpus=(gpu("H100", max_per_node=2, node_price=10_000.0, node_power_w=500.0),),
    )
    plan = solve_checked(s)
    assert plan.decisions is not None
    d = plan.decisions
    # 3 GPUs came in ceil(3 / 2) = 2 servers, bought by no one; the fourth GPU's
    # work is rented (buying one to sell three months later costs more).
    assert d.purchases == {} and d.server_purchases == {}
    assert d.sales == {("H100|fleet|1", 4): 3} and d.server_sales == {("H100", 4): 2}
    assert [f.servers for f in plan.fleet] == [2, 2, 2, 0, 0, 0]
    cash = {c.month: c.amounts for c in plan.cash_flow}
    # GPUs 3 × 5 % / 12 × 20,000 and servers 2 × 5 % / 12 × 10,000
    assert cash[1][CostCategory.MAINTENANCE] == pytest.approx(333.33, abs=CENT)
    # the GPUs' 190.32 and the servers' 2 × 0.5 kW × 730 h × 1.3 × $0.10
    assert cash[1][CostCategory.ENERGY] == pytest.approx(190.32 + 94.90, abs=CENT)
    # 3 × 16,007.10 and 2 × 0.7 × 10,000 × 0.7 ** (3 / 12)
    assert cash[4][CostCategory.SALES] == pytest.approx(-60_826.97, abs=CENT)
    assert cash[1][CostCategory.NODE] == 0.0


def test_the_checker_refuses_a_plan_that_drops_the_reservation_or_buys_a_fleet_row() -> None:
    s = four_gpus_for_three_months(OWNED, RESERVED)
    estimates = [pair("batch", "H100", gpu_hours=4 * HOURS)]
    plan = solve_checked(s)
    assert plan.decisions is not None
    assert violations_of(s, plan.decisions, estimates) == []
    dropped = replace(plan.decisions, reservations={})
    assert (
        "reservations: the existing reservation H100|fleet|2 (Fleet row 3) holds 1 GPUs from "
        "month 1 for 12 months; the plan has none"
    ) in violations_of(s, dropped, estimates)
    bought = replace(plan.decisions, purchases={("H100|fleet|1", 2): 1})
    assert (
        "purchases: 1 GPUs of H100|fleet|1 bought in month 2, but it is Fleet row 2: "
        "GPUs that exist are not bought"
    ) in violations_of(s, bought, estimates)
    oversold = replace(plan.decisions, sales={("H100|fleet|1", 1): 7})
    assert "sales: 1 more GPUs of H100|fleet|1 sold than bought by month 1" in violations_of(
        s, oversold, estimates
    )


# ---------------------------------------------------------------- input

HEADER = ["gpu", "count", "kind", "price", "months_left", "age_months"]


def _sheets_with_fleet(rows: list[list[object]]) -> dict:
    sheets = valid_sheets()
    sheets["Fleet"] = [HEADER, *rows]
    return sheets


def test_fleet_rows_reach_the_scenario_and_a_scenario_file_replaces_or_adds(
    tmp_path: Path,
) -> None:
    write_sheets(
        tmp_path / "input.xlsx",
        _sheets_with_fleet(
            [["H100", 4, "owned", 24000, None, 10], ["L40S", 2, "reserved", 1.1, 6, None]]
        ),
    )
    path = tmp_path / "fleet.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            workbook: input.xlsx
            scenarios:
              - name: more
                fleet:
                  - {gpu: H100, count: 8, kind: owned, price: 22000}
                  - {gpu: L40S, count: 0, kind: reserved, price: 1.1, months_left: 6}
                  - {gpu: H100, count: 1, kind: reserved, price: 2.5, months_left: 30}
              - name: sheet
                exclude_gpus: [L40S]
            """
        )
    )
    more, sheet = load_input(path).scenarios
    assert more.fleet == (
        ExistingGpus("H100|fleet|1", "H100", 8, FleetKind.OWNED, 22000.0, label=_entry(1)),
        ExistingGpus(
            "H100|fleet|2", "H100", 1, FleetKind.RESERVED, 2.5, months_left=30, label=_entry(3)
        ),
    )
    # exclude_gpus never removes what exists: L40S stays, with its reservation only.
    assert [r.label for r in sheet.fleet] == ["Fleet row 2", "Fleet row 3"]
    assert sheet.fleet[0].age_months == 10
    assert "L40S" in {g.name for g in sheet.gpus}
    assert not sheet.offers_of("L40S")


def _entry(n: int) -> str:
    return f"fleet entry {n} of fleet.yaml"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (
            ["H200", 2, "owned", 30000, None, None],
            "cell A2, column gpu: not a name in sheet GPUs; did you mean 'H100'? "
            "(found 'H200'); expected a name from sheet GPUs",
        ),
        (
            ["H100", -1, "owned", 30000, None, None],
            "cell B2, column count: must be at least 0 (found -1.0); "
            "expected a whole number ≥ 0 (GPUs)",
        ),
        (
            ["H100", 2.5, "owned", 30000, None, None],
            "cell B2, column count: not a whole number (found 2.5); "
            "expected a whole number ≥ 0 (GPUs)",
        ),
        (
            ["H100", 2, "leased", 3, None, None],
            "cell C2, column kind: unknown kind (found 'leased'); expected one of owned, reserved",
        ),
        (
            ["H100", 2, "reserved", 2.1, None, None],
            "cell E2, column months_left: is blank; a reserved row needs the months of its "
            "term still to pay; expected a whole number ≥ 1 (months)",
        ),
        (
            ["H100", 2, "owned", 25000, 12, None],
            "cell E2, column months_left: is only for reserved rows, not owned (owned GPUs "
            "stay until sold) (found 12); expected blank",
        ),
        (
            ["H100", 2, "reserved", 2.1, 12, 6],
            "cell F2, column age_months: is only for owned rows, not reserved (found 6); "
            "expected blank",
        ),
        (
            ["H100", 2, "owned", -1, None, None],
            "cell D2, column price: must be at least 0 (found -1.0); expected a number ≥ 0 (USD)",
        ),
    ],
    ids=[
        "unknown gpu",
        "negative",
        "fractional",
        "kind",
        "reserved without months_left",
        "owned with months_left",
        "reserved with an age",
        "negative price",
    ],
)
def test_bad_fleet_rows_are_reported_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], row: list[object], problem: str
) -> None:
    path = write_sheets(tmp_path / "input.xlsx", _sheets_with_fleet([row]))
    before = sha256(path)
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"1 problem in the input:\n  - input.xlsx, sheet Fleet, {problem}\n"
    assert sha256(path) == before


def test_a_scenario_file_fleet_row_of_an_unknown_gpu_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_sheets(tmp_path / "input.xlsx", valid_sheets())
    path = tmp_path / "bad.yaml"
    path.write_text(
        "workbook: input.xlsx\nscenarios:\n  - name: a\n    fleet:\n"
        "      - {gpu: H200, count: 2, kind: owned, price: 30000}\n"
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == (
        "1 problem in the input:\n  - bad.yaml, line 5: scenario 'a', fleet entry 1, gpu: "
        "no GPU type 'H200' in the workbook; did you mean 'H100'? (found 'H200'); "
        "expected a name from sheet GPUs\n"
    )


def test_the_result_workbook_and_json_show_the_existing_fleet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheets = _sheets_with_fleet(
        [["H100", 2, "owned", 24000, None, 6], ["H100", 1, "reserved", 2.0, 30, None]]
    )
    sheets["Scenarios"] = [sheets["Scenarios"][0], sheets["Scenarios"][1]]
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    out_path = tmp_path / "result.xlsx"
    assert main(["solve", str(path), "--output", str(out_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    (only,) = result["scenarios"]
    month1 = next(r for r in only["fleet"] if r["gpu"] == "H100" and r["month"] == 1)
    assert month1["existing"] + month1["sold"] == 2
    assert month1["reserved"] >= 1
    assert any("still owed after the horizon" in line for line in only["diagnostics"])
    book = openpyxl.load_workbook(out_path)
    fleet = book["us Fleet"]
    headers = [c.value for c in fleet[1]]
    assert headers[2] == "Existing (GPUs)"
    audit_text = [c.value for row in book["Audit"].iter_rows() for c in row if c.value]
    assert "Existing fleet (sheet Fleet, after scenario files)" in audit_text
    assert "Still owed after the horizon (USD)" in audit_text
    # 1 GPU × $2.00 × 730 h × (30 − 24) months
    assert 8_760.0 in audit_text


def test_the_assignments_sheet_reconciles_sales_and_the_fleets_value(tmp_path: Path) -> None:
    from optimizer.reports.result_workbook import write_result_workbook
    from tests.fake_plans import fake_run

    plan = solve_checked(four_gpus_for_three_months(OWNED, RESERVED))
    path = tmp_path / "result.xlsx"
    write_result_workbook(path, fake_run(plan, with_baselines=False))
    sheet = openpyxl.load_workbook(path, data_only=True)["test Assignments"]
    rows = {r[0]: r[11] for r in sheet.iter_rows(values_only=True) if r[0]}
    assert rows["Sales (USD, cash in, negative)"] == pytest.approx(-100_521.29, abs=CENT)
    # Six GPUs worth 0.7 × $25,000 each in month 1
    fleet_value = "Value of the GPUs and servers already owned at month 1 (USD, sheet Fleet)"
    assert rows[fleet_value] == pytest.approx(105_000.00, abs=CENT)
    # The reservation idles in months 4-6: 3 × $1,460.00 belongs to no workload.
    assert rows["Not assigned to any workload (USD, idle capacity)"] == pytest.approx(
        4_380.00, abs=CENT
    )
    assert "$4,380.00 of idle capacity is not allocated to any workload" in plan.diagnostics


def test_the_checker_recomputes_the_fleets_value_the_cost_shares_carry() -> None:
    from optimizer.check.rules import check_plan

    s = four_gpus_for_three_months(OWNED, RESERVED)
    plan = solve_checked(s)
    assert plan.existing_value == pytest.approx(105_000.00, abs=CENT)
    wrong = replace(plan, existing_value=0.0)
    assert check_plan(s, wrong).violations == [
        "reported existing_value $0.00 but recomputed $105,000.00"
    ]


def test_a_gang_runs_on_the_existing_fleet_when_no_offer_could_hold_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An outside audit's case: 2 owned GPUs, a buy offer capped at 1, renting off,
    # and a batch job whose copies need 2 GPUs at once. The house holds 2 + 1 GPUs,
    # so the job runs there; gpumix said no place could hold the gang.
    sheets = {
        "GPUs": [
            ["gpu", "vram_gb", "fp16_tflops", "tdp_w", "max_per_node"],
            ["G", 80, 989, 500, 4],
        ],
        "Prices": [
            ["gpu", "option", "price", "max_units"],
            ["G", "on_demand", 2.6, None],
            ["G", "buy", 1000, 1],
        ],
        "Workloads": [["workload", "kind", "tokens"], ["w0", "batch_inference", 1e9]],
        "Throughput": [["workload", "gpu", "gpus_per_replica", "gpu_hours"], ["w0", "G", 2, 170]],
        "Scenarios": [["scenario", "horizon_months", "allow_rent"], ["s", 1, False]],
        "Assumptions": [
            ["key", "value"],
            ["hours_per_month", 100],
            ["electricity_per_kwh", 0.1],
            ["pue", 1.0],
            ["idle_power_fraction", 0.0],
            ["maintenance_per_year", 0.12],
            ["residual_value", "none"],
        ],
        "Fleet": [HEADER, ["G", 2, "owned", 1000, None, None]],
    }
    path = write_sheets(tmp_path / "input.xlsx", sheets)
    before = sha256(path)
    code = main(["solve", str(path), "--json", "--quiet", "--output", str(tmp_path / "r.xlsx")])
    (s,) = json.loads(capsys.readouterr().out)["scenarios"]
    assert code == 0 and s["status"] == "optimal", s["diagnostics"]
    # Maintenance 2 × $1,000 × 12 % / 12 = $20; energy 170 h × 0.5 kW × $0.10 = $8.50.
    assert s["total_cost"] == pytest.approx(28.50, abs=CENT)
    assert sha256(path) == before
