"""The checker on hand-built plans: money against hand arithmetic, and every
kind of broken plan rejected with a message that names the item.

No solver runs here: plans are written out by hand, so a failure points at the
checker alone.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import optimizer.check.rules
from optimizer.check.reported import expected_assignments, expected_fleet
from optimizer.check.rules import CheckReport, check_plan
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.estimate.pairs import estimate_pairs
from optimizer.results import (
    AssignmentRow,
    CashFlowMonth,
    Decisions,
    EstimateSource,
    FleetRow,
    OfferUse,
    PairEstimate,
    Plan,
    SolveStatus,
    WorkHours,
)
from tests.builders import BARE, gpu, measured, offer, scenario, with_assumptions, workload

C = CostCategory


def pair(
    w: str,
    g: str,
    gpu_hours: float | None = None,
    k: int = 1,
    tps: float | None = None,
    allowed: bool = True,
) -> PairEstimate:
    return PairEstimate(
        workload=w,
        gpu=g,
        allowed=allowed,
        reason="" if allowed else "does not fit (test)",
        memory_gb=10.0,
        gpus_per_replica=k,
        gpu_hours=gpu_hours,
        tokens_per_second_per_replica=tps,
        latency_ms=None,
        source=EstimateSource.MEASURED,
    )


def plan_reporting(
    s: Scenario,
    decisions: Decisions,
    estimates: list[PairEstimate],
    *,
    total_cost: float,
    cash_out: float,
    residual_credit: float,
    costs: dict[CostCategory, float],
    cash_flow: dict[int, dict[CostCategory, float]],
    fleet: list[FleetRow],
    assignments: list[AssignmentRow] | None = None,
) -> Plan:
    return Plan(
        scenario=s,
        status=SolveStatus.OPTIMAL,
        gap=0.0,
        total_cost=total_cost,
        cash_out=cash_out,
        residual_credit=residual_credit,
        costs=costs,
        cash_flow=tuple(CashFlowMonth(t, amounts) for t, amounts in sorted(cash_flow.items())),
        fleet=tuple(fleet),
        assignments=tuple(assignments or ()),
        options=tuple(estimates),
        diagnostics=(),
        decisions=decisions,
    )


def consistent_plan(s: Scenario, decisions: Decisions, estimates: list[PairEstimate]) -> Plan:
    """A plan reporting exactly what the checker recomputes, so that only a
    broken constraint (not a reported number) can be found wrong."""
    blank = plan_reporting(
        s,
        decisions,
        estimates,
        total_cost=0.0,
        cash_out=0.0,
        residual_credit=0.0,
        costs={},
        cash_flow={},
        fleet=[],
    )
    r = check_plan(s, blank, estimates)
    return plan_reporting(
        s,
        decisions,
        estimates,
        total_cost=r.total_cost,
        cash_out=r.cash_out,
        residual_credit=r.residual_credit,
        costs=r.costs,
        cash_flow=r.cash_flow,
        fleet=list(expected_fleet(s, decisions).values()),
        assignments=list(expected_assignments(s, decisions, estimates).values()),
    )


def violations_of(s: Scenario, decisions: Decisions, estimates: list[PairEstimate]) -> list[str]:
    return check_plan(s, consistent_plan(s, decisions, estimates), estimates).violations


def assert_rejected(violations: list[str], *fragments: str) -> None:
    """Some violation mentions every fragment: the message names the item."""
    assert any(all(f in v for f in fragments) for v in violations), violations


# ---------------------------------------------------------------- one hand-computed plan
#
# H100 (700 W), defaults: H = 730, PUE 1.3, $0.10/kWh, idle 10 %, maintenance
# 5 %/year, depreciation 36 months, residual credited, max_utilization 0.95.
# A batch job needs 1,000 GPU-hours a month for 3 months and may use spot.
#   month 1: 1,000 on-demand hours.
#   month 2: buy one H100 ($25,000) and reserve one for 2 months ($2/h);
#            600 owned hours + 400 on-demand hours (the reservation idles).
#   month 3: 500 owned + 330 reserved + 200 paid spot hours (× 0.85 = 170).

BATCH = [pair("batch", "H100", gpu_hours=1000.0)]
KW_FACTOR = 0.7 * 1.3 * 0.10  # $ per owned hour at full power: 0.091


def money_scenario(**kw: Any) -> Scenario:
    return scenario(
        [gpu("H100")],
        [
            offer("H100", "buy", 25000.0),
            offer("H100", "on_demand", 3.15),
            offer("H100", "reserved", 2.0, term_months=2),
            offer("H100", "spot", 1.0),
        ],
        [workload("batch", "batch_inference", tokens=1e9, interruptible=True)],
        horizon_months=3,
        **kw,
    )


MONEY_DECISIONS = Decisions(
    purchases={("H100|buy|1", 2): 1},
    reservations={("H100|reserved|1", 2): 1},
    rented_hours={
        ("H100|on_demand|1", 1): 1000.0,
        ("H100|on_demand|1", 2): 400.0,
        ("H100|spot|1", 3): 200.0,
    },
    owned_hours={("H100", 2): 600.0, ("H100", 3): 500.0},
    reserved_hours={("H100", 3): 330.0},
    work={
        ("batch", "H100", 1): WorkHours(hours=1000.0),
        ("batch", "H100", 2): WorkHours(hours=1000.0),
        ("batch", "H100", 3): WorkHours(hours=830.0, spot_hours=200.0),
    },
)

MAINTENANCE = 0.05 / 12 * 25000  # 104.1666...
HAND_CASH = {
    1: {
        C.PURCHASE: 0.0,
        C.ENERGY: 0.0,
        C.MAINTENANCE: 0.0,
        C.ON_DEMAND: 3150.0,
        C.SPOT: 0.0,
        C.RESERVED: 0.0,
    },
    2: {
        C.PURCHASE: 25000.0,
        C.ENERGY: (600 + 0.1 * 130) * KW_FACTOR,  # 55.783
        C.MAINTENANCE: MAINTENANCE,
        C.ON_DEMAND: 1260.0,
        C.SPOT: 0.0,
        C.RESERVED: 1460.0,
    },
    3: {
        C.PURCHASE: 0.0,
        C.ENERGY: (500 + 0.1 * 230) * KW_FACTOR,  # 47.593
        C.MAINTENANCE: MAINTENANCE,
        C.ON_DEMAND: 0.0,
        C.SPOT: 200.0,
        C.RESERVED: 1460.0,
    },
}
HAND_CREDIT = 25000 * (1 - 2 / 36)  # bought in month 2 of 3: two months old
HAND_FLEET = [
    FleetRow(
        "H100",
        1,
        bought=0,
        owned=0,
        reserved=0,
        rented_hours=1000.0,
        spot_hours=0.0,
        owned_utilization=None,
    ),
    FleetRow(
        "H100",
        2,
        bought=1,
        owned=1,
        reserved=1,
        rented_hours=400.0,
        spot_hours=0.0,
        owned_utilization=600 / 730,
    ),
    FleetRow(
        "H100",
        3,
        bought=0,
        owned=1,
        reserved=1,
        rented_hours=0.0,
        spot_hours=200.0,
        owned_utilization=500 / 730,
    ),
]

# Each month's cost of the type goes to the one workload using it. The purchase
# counts at its net capital cost, 25,000 × (1 − 34/36) = 1,388.89, spread over
# months 2 and 3 (methodology 2.5); so the rows add up to cash_out − credit.
NET_CAPITAL_A_MONTH = 25000 * (2 / 36) / 2  # 694.44
HAND_ASSIGNMENTS = [
    AssignmentRow(
        "batch", "H100", 1, gpus_per_replica=1, replicas=None, gpu_hours=1000.0, cost=3150.0
    ),
    AssignmentRow(
        "batch",
        "H100",
        2,
        gpus_per_replica=1,
        replicas=None,
        gpu_hours=1000.0,
        cost=NET_CAPITAL_A_MONTH + MAINTENANCE + 1460.0 + 1260.0 + 613 * KW_FACTOR,  # 3,574.39
    ),
    AssignmentRow(
        "batch",
        "H100",
        3,
        gpus_per_replica=1,
        replicas=None,
        gpu_hours=1030.0,
        spot_hours=200.0,
        cost=NET_CAPITAL_A_MONTH + MAINTENANCE + 1460.0 + 523 * KW_FACTOR + 200.0,  # 2,506.20
    ),
]


def hand_plan(s: Scenario, discount: list[float]) -> Plan:
    costs = {c: sum(HAND_CASH[t][c] * discount[t - 1] for t in (1, 2, 3)) for c in CostCategory}
    return plan_reporting(
        s,
        MONEY_DECISIONS,
        BATCH,
        total_cost=sum(costs.values()) - HAND_CREDIT * discount[2],
        cash_out=sum(sum(m.values()) for m in HAND_CASH.values()),
        residual_credit=HAND_CREDIT,
        costs=costs,
        cash_flow=HAND_CASH,
        fleet=HAND_FLEET,
        assignments=HAND_ASSIGNMENTS,
    )


def test_hand_plan_money_to_the_cent() -> None:
    s = money_scenario()
    report = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH)
    assert report.violations == []
    assert report.cash_out == pytest.approx(3150.00 + 27879.949667 + 1811.759667, abs=0.005)
    assert report.residual_credit == pytest.approx(23611.11, abs=0.005)
    assert report.total_cost == pytest.approx(32841.709333 - 23611.111111, abs=0.005)
    assert report.cash_flow[2][C.ENERGY] == pytest.approx(55.78, abs=0.005)
    assert report.cash_flow[3][C.ENERGY] == pytest.approx(47.59, abs=0.005)
    assert report.costs[C.MAINTENANCE] == pytest.approx(208.33, abs=0.005)
    assert report.costs[C.RESERVED] == pytest.approx(2920.00, abs=0.005)


def test_hand_plan_discounted_at_ten_percent() -> None:
    s = with_assumptions(money_scenario(), discount_rate=0.10)
    discount = [1.0, 1.1 ** (-1 / 12), 1.1 ** (-2 / 12)]
    report = check_plan(s, hand_plan(s, discount), BATCH)
    assert report.violations == []
    # Cash and credit stay undiscounted; the objective discounts month t by 1.1^-(t-1)/12
    # and the credit as month T.
    assert report.cash_out == pytest.approx(32841.71, abs=0.005)
    assert report.residual_credit == pytest.approx(23611.11, abs=0.005)
    expected = (
        3150.0
        + 27879.949667 * 1.1 ** (-1 / 12)
        + 1811.759667 * 1.1 ** (-2 / 12)
        - 23611.111111 * 1.1 ** (-2 / 12)
    )
    assert report.total_cost == pytest.approx(expected, abs=0.005)
    assert report.residual_credit_discounted == pytest.approx(
        23611.111111 * 1.1 ** (-2 / 12), abs=0.005
    )


def test_undiscounted_plan_is_rejected_when_rate_is_ten_percent() -> None:
    s = with_assumptions(money_scenario(), discount_rate=0.10)
    violations = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH).violations
    assert_rejected(violations, "reported total_cost")
    assert_rejected(violations, "reported costs[purchase]")


def test_report_is_frozen() -> None:
    s = money_scenario()
    report = check_plan(s, hand_plan(s, [1.0, 1.0, 1.0]), BATCH)
    assert isinstance(report, CheckReport) and report.ok
    with pytest.raises(AttributeError):
        report.total_cost = 0.0  # type: ignore[misc]


# ---------------------------------------------------------------- reported numbers off


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"total_cost": 1.0}, "reported total_cost"),
        ({"cash_out": 1.0}, "reported cash_out"),
        ({"residual_credit": -1.0}, "reported residual_credit"),
    ],
)
def test_totals_off_by_a_dollar_are_rejected(change: dict[str, float], fragment: str) -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    field, delta = next(iter(change.items()))
    bad = replace(good, **{field: getattr(good, field) + delta})
    violations = check_plan(s, bad, BATCH).violations
    assert_rejected(violations, fragment, "but recomputed")
    assert len(violations) == 1


def test_totals_off_by_a_third_of_a_cent_pass() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    assert good.total_cost is not None
    assert check_plan(s, replace(good, total_cost=good.total_cost + 0.003), BATCH).ok


def test_category_and_month_off_by_a_dollar_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    costs = dict(good.costs)
    costs[C.ENERGY] += 1.0
    assert_rejected(check_plan(s, replace(good, costs=costs), BATCH).violations, "costs[energy]")
    month2 = dict(good.cash_flow[1].amounts)
    month2[C.RESERVED] -= 1.0
    flows = (good.cash_flow[0], CashFlowMonth(2, month2), good.cash_flow[2])
    assert_rejected(
        check_plan(s, replace(good, cash_flow=flows), BATCH).violations,
        "cash_flow month 2 reserved",
    )
    missing = (good.cash_flow[0], good.cash_flow[2])
    assert_rejected(
        check_plan(s, replace(good, cash_flow=missing), BATCH).violations,
        "lacks month 2",
    )


def test_wrong_fleet_rows_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    rows = list(good.fleet)
    rows[2] = replace(rows[2], owned=2)
    assert_rejected(
        check_plan(s, replace(good, fleet=tuple(rows)), BATCH).violations, "H100 month 3 owned 2"
    )
    rows = list(good.fleet)
    rows[1] = replace(rows[1], owned_utilization=0.9)
    assert_rejected(
        check_plan(s, replace(good, fleet=tuple(rows)), BATCH).violations,
        "month 2 owned_utilization",
    )
    rows = list(good.fleet)
    rows[0] = replace(rows[0], rented_hours=999.0)
    assert_rejected(
        check_plan(s, replace(good, fleet=tuple(rows)), BATCH).violations, "month 1 rented_hours"
    )
    assert_rejected(
        check_plan(s, replace(good, fleet=good.fleet[:2]), BATCH).violations,
        "no row for H100 month 3",
    )


def test_options_must_equal_the_estimates() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    other = [pair("batch", "H100", gpu_hours=900.0)]
    assert_rejected(check_plan(s, good, other).violations, "options: batch on H100")
    assert_rejected(
        check_plan(s, replace(good, options=()), BATCH).violations,
        "missing from the plan's options",
    )


def test_plan_without_decisions_is_rejected() -> None:
    s = money_scenario()
    report = check_plan(s, replace(hand_plan(s, [1.0, 1.0, 1.0]), decisions=None), BATCH)
    assert_rejected(report.violations, "no decisions")


# ---------------------------------------------------------------- constraints broken


def test_the_hand_plan_breaks_nothing() -> None:
    assert violations_of(money_scenario(), MONEY_DECISIONS, BATCH) == []


def test_too_few_owned_gpus_is_rejected() -> None:
    # 700 owned hours on one H100 exceeds 0.95 × 730 = 693.5.
    d = replace(
        MONEY_DECISIONS,
        owned_hours={**MONEY_DECISIONS.owned_hours, ("H100", 2): 700.0},
        rented_hours={**MONEY_DECISIONS.rented_hours, ("H100|on_demand|1", 2): 300.0},
    )
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "capacity", "H100 month 2", "owned hours"
    )


def test_reserved_hours_without_reservation_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, reservations={})
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "capacity", "month 3", "reserved hours"
    )


def test_unpaid_hours_are_rejected() -> None:
    # Work claims 1,000 hours in month 1 but only 900 are paid for.
    d = replace(
        MONEY_DECISIONS,
        rented_hours={**MONEY_DECISIONS.rented_hours, ("H100|on_demand|1", 1): 900.0},
    )
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "capacity", "H100 month 1", "workloads use 1,000"
    )
    d = replace(
        MONEY_DECISIONS, rented_hours={**MONEY_DECISIONS.rented_hours, ("H100|spot|1", 3): 100.0}
    )
    assert_rejected(violations_of(money_scenario(), d, BATCH), "spot hours are paid")


def test_short_batch_month_is_rejected() -> None:
    d = replace(
        MONEY_DECISIONS,
        rented_hours={**MONEY_DECISIONS.rented_hours, ("H100|on_demand|1", 1): 990.0},
        work={**MONEY_DECISIONS.work, ("batch", "H100", 1): WorkHours(hours=990.0)},
    )
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "batch job batch in month 1", "99.0000"
    )


def test_spot_counts_at_spot_efficiency() -> None:
    # 200 paid spot hours are 170 hours of work; at spot_efficiency 0.80 they are 160 and month 3 is short.
    s = with_assumptions(money_scenario(), spot_efficiency=0.80)
    assert_rejected(violations_of(s, MONEY_DECISIONS, BATCH), "batch job batch in month 3")


def test_spot_for_a_non_interruptible_job_is_rejected() -> None:
    s = replace(money_scenario(), workloads=(workload("batch", "batch_inference", tokens=1e9),))
    assert_rejected(
        violations_of(s, MONEY_DECISIONS, BATCH), "spot", "not interruptible", "month 3"
    )


@pytest.mark.parametrize(
    ("budget", "fragment"),
    [
        ({"budget_capex": 24999.99}, "budget_capex"),
        ({"budget_monthly": 3000.0}, "operating spend $3,150.00 in month 1"),
        ({"budget_total": 32000.0}, "budget_total"),
    ],
)
def test_budgets_exceeded_are_rejected(budget: dict[str, float], fragment: str) -> None:
    s = money_scenario(**budget)
    assert_rejected(violations_of(s, MONEY_DECISIONS, BATCH), "budget", fragment)


def test_budgets_exactly_met_pass() -> None:
    # Budgets are undiscounted and before residual credit: cash_out 32,841.71.
    s = with_assumptions(
        money_scenario(budget_capex=25000.0, budget_monthly=3150.0, budget_total=32841.71),
        discount_rate=0.10,
    )
    assert violations_of(s, MONEY_DECISIONS, BATCH) == []


def test_reservation_past_the_horizon_is_rejected() -> None:
    d = replace(
        MONEY_DECISIONS,
        reservations={("H100|reserved|1", 2): 1, ("H100|reserved|1", 3): 1},
    )
    assert_rejected(
        violations_of(money_scenario(), d, BATCH),
        "reservations",
        "end in month 4",
        "past the horizon",
    )


def test_available_from_is_honoured() -> None:
    s = replace(
        money_scenario(),
        offers=tuple(replace(o, available_from=3) for o in money_scenario().offers),
    )
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(violations, "purchases", "before it is available (month 3)")
    assert_rejected(violations, "reservations", "before it is available (month 3)")
    assert_rejected(
        violations, "rented hours", "H100|on_demand|1 in month 1", "before it is available"
    )


def test_max_units_are_honoured() -> None:
    s = replace(
        money_scenario(),
        offers=tuple(replace(o, max_units=0) for o in money_scenario().offers),
    )
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(violations, "purchases", "1 GPUs of H100|buy|1 bought, more than max_units 0")
    assert_rejected(violations, "reservations", "active in month 2", "max_units 0")
    assert_rejected(violations, "rented hours", "H100|on_demand|1 in month 1", "max_units 0")
    assert_rejected(violations, "rented hours", "H100|spot|1 in month 3", "max_units 0")
    # One on-demand GPU is 730 hours a month: 1,000 hours need two.
    capped = replace(
        money_scenario(),
        offers=tuple(
            replace(o, max_units=1) if o.option.value == "on_demand" else o
            for o in money_scenario().offers
        ),
    )
    assert_rejected(
        violations_of(capped, MONEY_DECISIONS, BATCH), "1,000 h of H100|on_demand|1 in month 1"
    )
    assert not any("month 2" in v for v in violations_of(capped, MONEY_DECISIONS, BATCH))


def test_offers_removed_by_switches_are_rejected() -> None:
    # allow_rent = FALSE leaves only the buy offer in the scenario.
    s = replace(money_scenario(), allow_rent=False, offers=(offer("H100", "buy", 25000.0),))
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(
        violations, "rented hours", "'H100|on_demand|1' is not an offer of this scenario"
    )
    assert_rejected(
        violations, "reservations", "'H100|reserved|1' is not an offer of this scenario"
    )
    d = replace(MONEY_DECISIONS, purchases={("H100|on_demand|1", 2): 1})
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "purchases", "is a on_demand offer, not buy"
    )


def test_excluded_gpu_type_is_rejected() -> None:
    s = replace(money_scenario(), gpus=(gpu("A100"),), offers=(), excluded_gpus=("H100",))
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(violations, "GPU type 'H100' is not in this scenario")


def test_fractional_and_negative_decisions_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, purchases={("H100|buy|1", 2): 1.5})  # type: ignore[dict-item]
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "purchases", "1.5, not a whole number"
    )
    d = replace(MONEY_DECISIONS, owned_hours={**MONEY_DECISIONS.owned_hours, ("H100", 1): -5.0})
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "owned hours", "must be a number >= 0"
    )


def test_months_outside_the_horizon_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, purchases={("H100|buy|1", 2): 1, ("H100|buy|1", 4): 1})
    assert_rejected(violations_of(money_scenario(), d, BATCH), "purchases", "month 4, outside 1..3")


def test_power_cap_is_honoured() -> None:
    # One owned H100 draws 700 W × 1.3 = 910 W.
    assert violations_of(money_scenario(power_cap_kw=0.91), MONEY_DECISIONS, BATCH) == []
    assert_rejected(
        violations_of(money_scenario(power_cap_kw=0.9), MONEY_DECISIONS, BATCH),
        "power",
        "0.91 kW",
        "power_cap_kw 0.9",
    )


# ---------------------------------------------------------------- training and realtime


def two_gpu_scenario(*workloads: object, horizon: int = 2) -> Scenario:
    return scenario(
        [gpu("H100"), gpu("RTX 4090", vram_gb=24.0, fp16_tflops=330.0, tdp_w=450.0, nvlink=False)],
        [offer("H100", "on_demand", 3.15), offer("RTX 4090", "on_demand", 0.60)],
        list(workloads),  # type: ignore[arg-type]
        assumptions=BARE,
        horizon_months=horizon,
    )


LORA = [pair("lora", "H100", gpu_hours=10.0), pair("lora", "RTX 4090", gpu_hours=10.0)]
LORA_OK = Decisions(
    rented_hours={("RTX 4090|on_demand|1", 1): 4.0, ("RTX 4090|on_demand|1", 2): 6.0},
    work={
        ("lora", "RTX 4090", 1): WorkHours(hours=4.0),
        ("lora", "RTX 4090", 2): WorkHours(hours=6.0),
    },
    picks={"lora": "RTX 4090"},
)


def test_training_job_spread_over_its_window_costs_six_dollars() -> None:
    s = two_gpu_scenario(workload("lora", "lora", tokens=1e8))
    plan = consistent_plan(s, LORA_OK, LORA)
    assert check_plan(s, plan, LORA).violations == []
    assert plan.total_cost == pytest.approx(6.00, abs=0.005)


def test_training_job_on_two_types_is_rejected() -> None:
    s = two_gpu_scenario(workload("lora", "lora", tokens=1e8))
    d = replace(
        LORA_OK,
        rented_hours={("RTX 4090|on_demand|1", 1): 4.0, ("H100|on_demand|1", 2): 6.0},
        work={
            ("lora", "RTX 4090", 1): WorkHours(hours=4.0),
            ("lora", "H100", 2): WorkHours(hours=6.0),
        },
    )
    violations = violations_of(s, d, LORA)
    assert_rejected(violations, "picked RTX 4090 but runs on H100 in month 2")
    assert_rejected(violations, "gets 4 GPU-hours", "needs exactly 10")


def test_training_job_without_pick_or_outside_window_is_rejected() -> None:
    s = two_gpu_scenario(workload("lora", "lora", tokens=1e8))
    assert_rejected(violations_of(s, replace(LORA_OK, picks={}), LORA), "no picked GPU type")
    late = two_gpu_scenario(workload("lora", "lora", tokens=1e8, start_month=2))
    assert_rejected(
        violations_of(late, LORA_OK, LORA), "runs on RTX 4090 in month 1, outside its window 2..2"
    )


def test_training_job_on_a_pair_not_allowed_is_rejected() -> None:
    s = two_gpu_scenario(workload("lora", "lora", tokens=1e8))
    banned = [pair("lora", "H100", gpu_hours=10.0), pair("lora", "RTX 4090", allowed=False)]
    assert_rejected(
        violations_of(s, LORA_OK, banned), "runs on RTX 4090 in month 1, a pair not allowed"
    )


def test_over_delivered_training_is_rejected() -> None:
    s = two_gpu_scenario(workload("lora", "lora", tokens=1e8))
    d = replace(
        LORA_OK,
        rented_hours={("RTX 4090|on_demand|1", 1): 5.0, ("RTX 4090|on_demand|1", 2): 6.0},
        work={
            ("lora", "RTX 4090", 1): WorkHours(hours=5.0),
            ("lora", "RTX 4090", 2): WorkHours(hours=6.0),
        },
    )
    assert_rejected(violations_of(s, d, LORA), "gets 11 GPU-hours", "needs exactly 10")


CHAT = [pair("chat", "H100", k=2, tps=1000.0), pair("chat", "RTX 4090", k=1, tps=300.0)]
H = 730.0


def chat_scenario() -> Scenario:
    return two_gpu_scenario(
        workload("chat", "realtime_inference", tokens_per_second=2500.0), horizon=1
    )


def chat_decisions(h100: int, rtx: int, rtx_hours: float | None = None) -> Decisions:
    rtx_h = rtx * H if rtx_hours is None else rtx_hours
    return Decisions(
        rented_hours={("H100|on_demand|1", 1): h100 * 2 * H, ("RTX 4090|on_demand|1", 1): rtx_h},
        work={
            ("chat", "H100", 1): WorkHours(hours=h100 * 2 * H),
            ("chat", "RTX 4090", 1): WorkHours(hours=rtx_h),
        },
        replicas={("chat", "H100", 1): h100, ("chat", "RTX 4090", 1): rtx},
    )


def test_realtime_mix_costs_replicas_times_gpus_times_hours() -> None:
    # 2 H100 replicas (2 GPUs each) serve 2,000 tokens/s, 2 RTX 4090s 600 more:
    # 4 × 730 × 3.15 + 2 × 730 × 0.60 = 9,198 + 876 = $10,074.
    s = chat_scenario()
    plan = consistent_plan(s, chat_decisions(2, 2), CHAT)
    assert check_plan(s, plan, CHAT).violations == []
    assert plan.total_cost == pytest.approx(10074.00, abs=0.005)


def test_too_few_replicas_are_rejected() -> None:
    assert_rejected(
        violations_of(chat_scenario(), chat_decisions(2, 1), CHAT),
        "serves 2,300 tokens/s, needs 2,500",
    )


def test_realtime_hours_must_match_replicas() -> None:
    assert_rejected(
        violations_of(chat_scenario(), chat_decisions(2, 2, rtx_hours=1000.0), CHAT),
        "realtime chat on RTX 4090 in month 1 uses 1,000 h",
        "2 replicas × 1 GPUs",
    )


def test_realtime_on_spot_is_rejected() -> None:
    s = replace(
        chat_scenario(),
        workloads=(
            workload("chat", "realtime_inference", tokens_per_second=2500.0, interruptible=True),
        ),
        offers=(*chat_scenario().offers, offer("RTX 4090", "spot", 0.2)),
    )
    d = chat_decisions(2, 2)
    d = replace(
        d,
        rented_hours={**d.rented_hours, ("RTX 4090|spot|1", 1): 10.0},
        work={**d.work, ("chat", "RTX 4090", 1): WorkHours(hours=2 * H, spot_hours=10.0)},
    )
    assert_rejected(violations_of(s, d, CHAT), "spot: realtime workload chat uses 10 spot hours")


def test_replicas_for_a_batch_job_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, replicas={("batch", "H100", 1): 1})
    assert_rejected(violations_of(money_scenario(), d, BATCH), "only realtime work has replicas")


def test_assignment_costs_add_up_to_cash_out_minus_credit() -> None:
    assert sum(r.cost for r in HAND_ASSIGNMENTS) == pytest.approx(9230.60, abs=0.005)
    assert HAND_ASSIGNMENTS[1].cost == pytest.approx(3574.39, abs=0.005)
    assert HAND_ASSIGNMENTS[2].cost == pytest.approx(2506.20, abs=0.005)


def test_wrong_assignment_rows_are_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    rows = list(good.assignments)
    rows[1] = replace(rows[1], cost=rows[1].cost + 1.0)
    assert_rejected(
        check_plan(s, replace(good, assignments=tuple(rows)), BATCH).violations,
        "assignments: batch on H100 month 2 cost $3,575.39",
    )
    rows = list(good.assignments)
    rows[2] = replace(rows[2], gpu_hours=1000.0)
    assert_rejected(
        check_plan(s, replace(good, assignments=tuple(rows)), BATCH).violations,
        "month 3 gpu_hours 1,000",
    )
    assert_rejected(
        check_plan(s, replace(good, assignments=good.assignments[:2]), BATCH).violations,
        "no row for batch on H100 month 3",
    )


def test_wrong_offer_use_is_rejected() -> None:
    s = money_scenario()
    good = hand_plan(s, [1.0, 1.0, 1.0])
    use = (
        OfferUse("H100|buy|1", "H100", OfferOption.BUY, 25000.0, units=1, cost=25000.0),
        OfferUse("H100|reserved|1", "H100", OfferOption.RESERVED, 2.0, units=2, cost=2920.0),
        OfferUse(
            "H100|on_demand|1", "H100", OfferOption.ON_DEMAND, 3.15, units=1400.0, cost=4410.0
        ),
        OfferUse("H100|spot|1", "H100", OfferOption.SPOT, 1.0, units=200.0, cost=200.0),
    )
    assert check_plan(s, replace(good, offer_use=use), BATCH).ok
    wrong = (*use[:2], replace(use[2], cost=4400.0), use[3])
    assert_rejected(
        check_plan(s, replace(good, offer_use=wrong), BATCH).violations,
        "offer use: H100|on_demand|1 cost $4,400.00",
    )


def test_not_a_number_is_rejected_without_crashing() -> None:
    d = replace(MONEY_DECISIONS, owned_hours={("H100", 2): float("nan"), ("H100", 3): 500.0})
    report = check_plan(money_scenario(), hand_plan(money_scenario(), [1.0, 1.0, 1.0]), BATCH)
    assert report.ok
    bad = check_plan(
        money_scenario(), replace(hand_plan(money_scenario(), [1.0] * 3), decisions=d), BATCH
    )
    assert_rejected(bad.violations, "owned hours", "nan, not a finite number")
    d = replace(MONEY_DECISIONS, purchases={("H100|buy|1", 2): float("inf")})  # type: ignore[dict-item]
    bad = check_plan(
        money_scenario(), replace(hand_plan(money_scenario(), [1.0] * 3), decisions=d), BATCH
    )
    assert_rejected(bad.violations, "purchases", "inf, not a finite number")


def test_estimates_default_to_the_estimator() -> None:
    s = scenario(
        [gpu("RTX 4090", vram_gb=24.0, fp16_tflops=330.0, tdp_w=450.0, nvlink=False)],
        [offer("RTX 4090", "on_demand", 0.60)],
        [workload("lora", "lora", params_b=7.0, tokens=1e8)],
        [measured("lora", "RTX 4090", gpus_per_replica=1, gpu_hours=10.0)],
        BARE,
        horizon_months=1,
    )
    estimates = list(estimate_pairs(s))
    d = Decisions(
        rented_hours={("RTX 4090|on_demand|1", 1): 10.0},
        work={("lora", "RTX 4090", 1): WorkHours(hours=10.0)},
        picks={"lora": "RTX 4090"},
    )
    plan = consistent_plan(s, d, estimates)
    report = check_plan(s, plan)
    assert report.ok and report.total_cost == pytest.approx(6.00, abs=0.005)
    stale = replace(estimates[0], gpu_hours=9.0)
    assert_rejected(
        check_plan(s, replace(plan, options=(stale,))).violations, "options: lora on RTX 4090"
    )


def test_checker_is_independent_of_the_model() -> None:
    """The checker recomputes from inputs and decisions: it never imports PuLP, the model or the solver.

    Every module of ``optimizer/check`` is read, except ``verify`` and
    ``baselines``, which solve on purpose.
    """
    folder = Path(optimizer.check.rules.__file__).parent
    modules = sorted(p for p in folder.glob("*.py") if p.stem not in ("verify", "baselines"))
    assert {p.stem for p in modules} >= {"rules", "money", "capacity", "demand", "reported"}
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        imported |= {
            f"{node.module}.{alias.name}"  # "from optimizer import model" is optimizer.model
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
            for alias in node.names
        }
        assert not any(
            name == banned or name.startswith(banned + ".")
            for name in imported
            for banned in ("pulp", "highspy", "optimizer.model", "optimizer.solve")
        ), (path.name, imported)
