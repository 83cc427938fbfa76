"""The --json object: the contract's keys, the plan's numbers unrounded, no NaN."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from optimizer.domain import CostCategory
from optimizer.reports.report_json import plan_to_dict, run_to_json
from optimizer.results import FleetRow, SolveStatus
from tests.fake_plans import CHAT_LOAD, CHAT_REPLICAS, fake_plan, fake_run, infeasible_plan

# The fields of an ``assignments`` row: workbook.md and its Version 2 additions.
ASSIGNMENT_KEYS = {
    "workload",
    "gpu",
    "month",
    "gpus_per_replica",
    "replicas",
    "gpu_hours",
    "cost",
    "place",
    "offer",
    "copy_width",
    "width",
    "load",
}
SCENARIO_KEYS = [
    "scenario",
    "currency",
    "status",
    "total_cost",
    "cash_out",
    "residual_credit",
    "gap",
    "costs",
    "cash_flow",
    "fleet",
    "places",
    "assignments",
    "options",
    "diagnostics",
    "shadow_prices",
    "catalogue_figures",  # issue 31: added after the contract's keys, which stay as they were
    "change_cost",  # issue 35 item 10: the charge per move, the moves, what was minimised
    "moves",
    "objective",
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
        "existing": 0,
        "bought": 2,
        "sold": 0,
        "servers": 0,
        "owned": 2,
        "reserved": 0,
        "rented_hours": 0.0,
        "spot_hours": 0.0,
        # Two replicas pin both owned H100s all month (model v2 §B): fully used.
        "owned_utilization": 1.0,
    }
    assert fleet[3]["owned_utilization"] is None  # L40S: nothing owned
    assignments = d["assignments"]
    assert isinstance(assignments, list)
    assert set(assignments[0]) == ASSIGNMENT_KEYS
    assert [a["cost"] for a in assignments] == [a.cost for a in plan.assignments]
    options = d["options"]
    assert isinstance(options, list)
    l40s = [o for o in options if (o["workload"], o["gpu"]) == ("chat-8b", "L40S")]
    assert l40s and all(o["allowed"] is False and "ms" in o["reason"] for o in l40s)
    assert "latency" in l40s[-1]["reason"]
    assert {o["source"] for o in options} == {"measured", "estimated"}


def test_assignment_rows_say_where_on_how_many_gpus_and_at_what_load() -> None:
    plan = fake_plan()
    rows = plan_to_dict(plan)["assignments"]
    assert isinstance(rows, list)
    for row, a in zip(rows, plan.assignments, strict=True):
        assert (row["place"], row["offer"]) == (a.place, a.offer)
        assert (row["copy_width"], row["width"], row["load"]) == (a.copy_width, a.width, a.load)
        assert row["gpus_per_replica"] == a.gpus_per_replica == a.copy_width
    chat, lora = rows[0], rows[-1]
    assert chat["place"] == "house" and chat["offer"] is None
    assert chat["replicas"] == CHAT_REPLICAS and chat["width"] == 1
    assert chat["load"] == CHAT_LOAD  # demand / capacity of all replicas, unrounded
    assert lora["place"] == "on_demand" and lora["offer"] == "Acme Cloud"
    assert lora["copy_width"] == lora["width"] == 2 and lora["load"] is None


def test_places_rows_hold_size_pinned_free_and_slots_by_copy_width() -> None:
    plan = fake_plan()
    text = run_to_json(fake_run(plan))
    places = json.loads(text)["scenarios"][0]["places"]
    assert len(places) == len(plan.places) == 5
    assert places[0] == {
        "gpu": "H100",
        "month": 1,
        "place": "house",
        "offer": None,
        "size": 2,
        "pinned": 2,
        "free": 0,
        "slots": {},
    }
    capped = [p for p in places if p["gpu"] == "L40S"]
    assert [p["month"] for p in capped] == [1, 2]
    assert capped[0] == {
        "gpu": "L40S",
        "month": 1,
        "place": "on_demand",
        "offer": "Acme Cloud",
        "size": 4,
        "pinned": 0,
        "free": 4,
        "slots": {"2": 1},  # JSON keys are text: one slot of 2 GPUs
    }
    for row, p in zip(places, plan.places, strict=True):
        assert {int(k): v for k, v in row["slots"].items()} == p.slots


def test_realtime_options_have_one_row_per_serving_width() -> None:
    plan = fake_plan()
    options = plan_to_dict(plan)["options"]
    assert isinstance(options, list)
    # chat-8b: 2 widths on H100 and 2 on L40S; lora-7b: one row per pair.
    assert [(o["workload"], o["gpu"], o["gpus_per_replica"]) for o in options] == [
        ("chat-8b", "H100", 1),
        ("chat-8b", "H100", 2),
        ("chat-8b", "L40S", 1),
        ("chat-8b", "L40S", 2),
        ("lora-7b", "H100", 1),
        ("lora-7b", "L40S", 2),
    ]
    h100 = plan.options[0]
    for row, width in zip(options[:2], h100.widths, strict=True):
        assert row["tokens_per_second_per_replica"] == width.tokens_per_second_per_replica
        assert row["latency_ms"] == width.latency_ms
        assert row["memory_gb"] == h100.memory_gb and row["source"] == "estimated"
    assert options[0]["allowed"] is True and options[0]["reason"] == ""
    assert options[1]["allowed"] is False and options[1]["reason"] == h100.widths[1].reason
    assert options[2]["reason"].startswith("batch-1 decode takes 20.5 ms")
    assert set(options[0]) == set(options[4])  # the same fields on every row


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
    assert d["places"] == [] and d["assignments"] == []
    assert d["diagnostics"] == ["budget_total 1,000 USD is below the cheapest plan"]


def test_non_finite_numbers_become_null_never_nan() -> None:
    plan = fake_plan()
    bad = replace(
        plan,
        total_cost=math.nan,
        gap=math.inf,
        fleet=(FleetRow("H100", 1, 0, 0, 0, -math.inf, 0.0, math.nan),),
        options=(replace(plan.options[0], latency_ms=math.inf, widths=()),),
        assignments=(replace(plan.assignments[0], load=math.nan),),
    )
    text = run_to_json(fake_run(bad, with_baselines=False))
    assert "NaN" not in text and "Infinity" not in text
    d = json.loads(text)["scenarios"][0]
    assert d["total_cost"] is None and d["gap"] is None
    assert d["fleet"][0]["rented_hours"] is None and d["fleet"][0]["owned_utilization"] is None
    assert d["options"][0]["latency_ms"] is None
    assert d["assignments"][0]["load"] is None


def test_user_text_passes_through_as_data() -> None:
    plan = fake_plan(chat='=HYPERLINK("http://x","y")')
    d = json.loads(run_to_json(fake_run(plan)))["scenarios"][0]
    assert d["assignments"][0]["workload"] == '=HYPERLINK("http://x","y")'
    assert d["options"][0]["workload"] == '=HYPERLINK("http://x","y")'


def test_options_rows_carry_the_options_sheets_note_on_what_was_estimated() -> None:
    # The JSON `estimates_note` is the Options sheet's last column, word for word, on
    # every serving-width row of a pair (model v2 §G).
    plan = fake_plan()
    note = "estimated: memory need, GPU-hours; assumed: layers estimated from params_b (33)"
    options = tuple(
        replace(o, basis=note if o.workload == "lora-7b" else "given: GPU-hours (measured)")
        for o in plan.options
    )
    rows = json.loads(run_to_json(fake_run(replace(plan, options=options))))["scenarios"][0][
        "options"
    ]
    assert {r["estimates_note"] for r in rows if r["workload"] == "lora-7b"} == {note}
    chat = [r for r in rows if r["workload"] == "chat-8b"]
    assert len(chat) == 4 and {r["estimates_note"] for r in chat} == {"given: GPU-hours (measured)"}
