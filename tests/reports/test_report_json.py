"""The --json object: the contract's keys, the plan's numbers unrounded, no NaN."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from optimizer.domain import CostCategory
from optimizer.reports.report_json import plan_to_dict, run_to_json
from optimizer.results import FleetRow, SolveStatus
from tests.fake_plans import fake_plan, fake_run, infeasible_plan

SCENARIO_KEYS = [
    "scenario",
    "status",
    "total_cost",
    "cash_out",
    "residual_credit",
    "gap",
    "costs",
    "cash_flow",
    "fleet",
    "assignments",
    "options",
    "diagnostics",
    "shadow_prices",
]


def test_top_level_is_a_list_of_scenarios_with_the_contract_keys() -> None:
    doc = json.loads(run_to_json(fake_run(fake_plan("a"), infeasible_plan("b"))))
    assert list(doc) == ["scenarios"]
    assert [s["scenario"] for s in doc["scenarios"]] == ["a", "b"]
    for entry in doc["scenarios"]:
        assert list(entry) == SCENARIO_KEYS


def test_money_is_the_plans_number_unrounded() -> None:
    plan = fake_plan()
    d = json.loads(run_to_json(fake_run(plan)))["scenarios"][0]
    assert d["total_cost"] == plan.total_cost
    assert d["cash_out"] == plan.cash_out
    assert d["residual_credit"] == plan.residual_credit
    # 45,833.333... has no exact cent value: rounding anywhere would change it.
    assert d["residual_credit"] != round(d["residual_credit"], 2)
    assert d["costs"] == {c.value: plan.costs[c] for c in CostCategory}
    assert d["status"] == "optimal" and d["gap"] == 0.0


def test_cash_flow_rows_hold_month_and_every_category() -> None:
    plan = fake_plan()
    rows = plan_to_dict(plan)["cash_flow"]
    assert isinstance(rows, list)
    assert [r["month"] for r in rows] == [1, 2, 3]
    for row, month in zip(rows, plan.cash_flow, strict=True):
        assert set(row) == {"month", *(c.value for c in CostCategory)}
        assert sum(v for k, v in row.items() if k != "month") == pytest.approx(
            month.total, abs=1e-9
        )
    assert sum(r["on_demand"] for r in rows) == plan.costs[CostCategory.ON_DEMAND]


def test_fleet_assignments_options_rows_carry_the_contract_fields() -> None:
    plan = fake_plan()
    d = plan_to_dict(plan)
    fleet = d["fleet"]
    assert isinstance(fleet, list)
    assert fleet[0] == {
        "gpu": "H100",
        "month": 1,
        "bought": 2,
        "owned": 2,
        "reserved": 0,
        "rented_hours": 0.0,
        "spot_hours": 0.0,
        "owned_utilization": pytest.approx(0.9),
    }
    assert fleet[3]["owned_utilization"] is None  # L40S: nothing owned
    assignments = d["assignments"]
    assert isinstance(assignments, list)
    assert set(assignments[0]) == {
        "workload",
        "gpu",
        "month",
        "gpus_per_replica",
        "replicas",
        "gpu_hours",
        "cost",
    }
    assert [a["cost"] for a in assignments] == [a.cost for a in plan.assignments]
    options = d["options"]
    assert isinstance(options, list)
    assert options[1]["allowed"] is False and "latency" in options[1]["reason"]
    assert {o["source"] for o in options} == {"measured", "estimated"}


def test_shadow_prices_are_listed() -> None:
    d = plan_to_dict(fake_plan())
    assert d["shadow_prices"] == [
        {
            "constraint": "budget_capex",
            "month": None,
            "saving_per_unit": 0.1234,
            "unit": "USD of capex",
        }
    ]


def test_a_scenario_without_a_plan_has_nulls_and_its_reasons() -> None:
    d = plan_to_dict(infeasible_plan())
    assert d["status"] == SolveStatus.INFEASIBLE.value
    assert d["total_cost"] is None and d["cash_out"] is None and d["gap"] is None
    assert d["costs"] == {} and d["cash_flow"] == [] and d["fleet"] == []
    assert d["diagnostics"] == ["budget_total 1,000 USD is below the cheapest plan"]


def test_non_finite_numbers_become_null_never_nan() -> None:
    plan = fake_plan()
    bad = replace(
        plan,
        total_cost=math.nan,
        gap=math.inf,
        fleet=(FleetRow("H100", 1, 0, 0, 0, -math.inf, 0.0, math.nan),),
        options=(replace(plan.options[0], latency_ms=math.inf),),
    )
    text = run_to_json(fake_run(bad, with_baselines=False))
    assert "NaN" not in text and "Infinity" not in text
    d = json.loads(text)["scenarios"][0]
    assert d["total_cost"] is None and d["gap"] is None
    assert d["fleet"][0]["rented_hours"] is None and d["fleet"][0]["owned_utilization"] is None
    assert d["options"][0]["latency_ms"] is None


def test_user_text_passes_through_as_data() -> None:
    plan = fake_plan(chat='=HYPERLINK("http://x","y")')
    d = json.loads(run_to_json(fake_run(plan)))["scenarios"][0]
    assert d["assignments"][0]["workload"] == '=HYPERLINK("http://x","y")'
