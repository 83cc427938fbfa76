"""The checker rejects plans that break v1's rules, as they read in model v2:
stock and offers, keys and switches, budgets and power, one-off training, batch
months and realtime replicas. Each test corrupts a consistent hand-built plan
(``test_check``) and asserts that a violation names the broken item.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from optimizer.check.rules import check_plan
from optimizer.domain import Scenario
from optimizer.estimate.pairs import estimate_pairs
from optimizer.results import HOUSE, Decisions
from tests.builders import BARE, gpu, measured, offer, scenario, with_assumptions, workload
from tests.check.test_check import (
    BATCH,
    MONEY_DECISIONS,
    OD,
    RES,
    SPOT,
    H,
    assert_rejected,
    consistent_plan,
    money_scenario,
    pair,
    violations_of,
)


def with_work(**change: Any) -> Decisions:
    """The hand plan with some work items changed: keys ``"<place>_<month>"``."""
    places = {"house": HOUSE, "od": OD, "res": RES, "spot": SPOT}
    work = dict(MONEY_DECISIONS.work)
    for key, hours in change.items():
        place, month = key.split("_")
        work["batch", "H100", places[place], int(month)] = hours
    return replace(MONEY_DECISIONS, work=work)


# ---------------------------------------------------------------- places and stock


def test_too_few_owned_gpus_is_rejected() -> None:
    # 700 house hours on one H100 exceed 0.95 × 730 = 693.5.
    violations = violations_of(money_scenario(), with_work(house_2=700.0, od_2=300.0), BATCH)
    assert_rejected(violations, "free_hours", "H100 house month 2", "700 h")
    assert all(v.startswith("free_hours") for v in violations), violations


def test_reserved_hours_without_reservation_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, reservations={})
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "free_hours", "H100|reserved|1 month 3", "0 GPUs"
    )


def test_short_batch_month_is_rejected() -> None:
    assert_rejected(
        violations_of(money_scenario(), with_work(od_1=990.0), BATCH),
        "recurring_demand",
        "batch job batch in month 1",
        "99.0000%",
    )


def test_spot_counts_at_spot_efficiency() -> None:
    # 200 paid spot hours are 170 hours of work; at spot_efficiency 0.80 they are 160 and month 3 is short.
    s = with_assumptions(money_scenario(), spot_efficiency=0.80)
    assert_rejected(violations_of(s, MONEY_DECISIONS, BATCH), "batch job batch in month 3")


def test_spot_for_a_non_interruptible_job_is_rejected() -> None:
    s = replace(money_scenario(), workloads=(workload("batch", "batch_inference", tokens=1e9),))
    assert_rejected(
        violations_of(s, MONEY_DECISIONS, BATCH),
        "work",
        "month 3",
        "spot, but batch is not interruptible",
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
    d = replace(MONEY_DECISIONS, reservations={(RES, 2): 1, (RES, 3): 1})
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
    assert_rejected(violations, "work", f"in {OD} in month 1, before it is available (month 3)")


def test_max_units_are_honoured() -> None:
    s = replace(
        money_scenario(),
        offers=tuple(replace(o, max_units=0) for o in money_scenario().offers),
    )
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(violations, "purchases", "1 GPUs of H100|buy|1 bought, more than max_units 0")
    assert_rejected(violations, "reservations", "active in month 2", "max_units 0")
    # A capped rental offer is a place of max_units GPUs, at u = 1.
    assert_rejected(violations, "free_hours", f"{OD} month 1", "(0 GPUs")
    assert_rejected(violations, "free_hours", f"{SPOT} month 3", "(0 GPUs")
    # One on-demand GPU is 730 hours a month: 1,000 hours need two.
    capped = replace(
        money_scenario(),
        offers=tuple(
            replace(o, max_units=1) if o.option.value == "on_demand" else o
            for o in money_scenario().offers
        ),
    )
    violations = violations_of(capped, MONEY_DECISIONS, BATCH)
    assert_rejected(violations, "free_hours", f"{OD} month 1: 1,000 h", "u 1 × 730 h × (1 GPUs")
    assert not any("month 2" in v for v in violations), violations


def test_offers_removed_by_switches_are_rejected() -> None:
    # allow_rent = FALSE leaves only the buy offer in the scenario.
    s = replace(money_scenario(), allow_rent=False, offers=(offer("H100", "buy", 25000.0),))
    violations = violations_of(s, MONEY_DECISIONS, BATCH)
    assert_rejected(
        violations, "work", f"place {OD!r}, not an offer of this scenario: not a place of H100"
    )
    assert_rejected(violations, "reservations", f"{RES!r} is not an offer of this scenario")
    d = replace(MONEY_DECISIONS, purchases={(OD, 2): 1})
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
    assert_rejected(
        violations_of(money_scenario(), with_work(house_1=-5.0), BATCH),
        "work",
        "must be a number >= 0",
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


def two_gpu_scenario(*workloads: object, horizon: int = 2, **assumptions: Any) -> Scenario:
    return scenario(
        [gpu("H100"), gpu("RTX 4090", vram_gb=24.0, fp16_tflops=330.0, tdp_w=450.0, nvlink=False)],
        [offer("H100", "on_demand", 3.15), offer("RTX 4090", "on_demand", 0.60)],
        list(workloads),  # type: ignore[arg-type]
        assumptions=replace(BARE, **assumptions),
        horizon_months=horizon,
    )


RTX_OD, H100_OD = "RTX 4090|on_demand|1", "H100|on_demand|1"
LORA = [pair("lora", "H100", gpu_hours=10.0), pair("lora", "RTX 4090", gpu_hours=10.0)]
LORA_OK = Decisions(
    work={("lora", "RTX 4090", RTX_OD, 1): 4.0, ("lora", "RTX 4090", RTX_OD, 2): 6.0},
    picks={"lora": "RTX 4090"},
)


def lora_scenario(**kw: Any) -> Scenario:
    return two_gpu_scenario(workload("lora", "lora", tokens=1e8, **kw))


def test_training_job_spread_over_its_window_costs_six_dollars() -> None:
    s = lora_scenario()
    plan = consistent_plan(s, LORA_OK, LORA)
    assert check_plan(s, plan, LORA).violations == []
    assert plan.total_cost == pytest.approx(10 * 0.60, abs=0.005)


def test_training_job_on_two_types_is_rejected() -> None:
    d = replace(
        LORA_OK, work={("lora", "RTX 4090", RTX_OD, 1): 4.0, ("lora", "H100", H100_OD, 2): 6.0}
    )
    violations = violations_of(lora_scenario(), d, LORA)
    assert_rejected(violations, "training_demand", "picked RTX 4090 but runs on H100", "month 2")
    assert_rejected(violations, "training_demand", "gets 4 GPU-hours", "needs exactly 10")


def test_training_job_without_pick_or_outside_window_is_rejected() -> None:
    assert_rejected(
        violations_of(lora_scenario(), replace(LORA_OK, picks={}), LORA), "no picked GPU type"
    )
    assert_rejected(
        violations_of(lora_scenario(start_month=2), LORA_OK, LORA),
        "work",
        "runs on RTX 4090 in month 1, outside its window 2..2",
    )


def test_training_job_on_a_pair_not_allowed_is_rejected() -> None:
    banned = [pair("lora", "H100", gpu_hours=10.0), pair("lora", "RTX 4090", allowed=False)]
    violations = violations_of(lora_scenario(), LORA_OK, banned)
    assert_rejected(violations, "work", "RTX 4090", "month 1: a pair not allowed (does not fit")
    assert_rejected(violations, "training_demand", "picked RTX 4090, a pair not allowed")


def test_over_delivered_training_is_rejected() -> None:
    d = replace(LORA_OK, work={**LORA_OK.work, ("lora", "RTX 4090", RTX_OD, 1): 5.0})
    assert_rejected(
        violations_of(lora_scenario(), d, LORA), "gets 11 GPU-hours", "needs exactly 10"
    )


def test_picks_only_for_one_off_training() -> None:
    d = replace(MONEY_DECISIONS, picks={"batch": "H100"})
    assert_rejected(
        violations_of(money_scenario(), d, BATCH), "picks: batch is batch_inference", "one-off"
    )
    s = lora_scenario(runs_per_month=2.0)
    d = Decisions(
        work={("lora", "RTX 4090", RTX_OD, t): 20.0 for t in (1, 2)}, picks={"lora": "H100"}
    )
    assert_rejected(violations_of(s, d, LORA), "picks: lora is lora with runs_per_month")
    assert violations_of(s, replace(d, picks={}), LORA) == []


CHAT = [pair("chat", "H100", k=2, tps=1000.0), pair("chat", "RTX 4090", k=1, tps=300.0)]


def chat_scenario(**kw: Any) -> Scenario:
    """Demand 2,500 tokens/s with no headroom (target_load 1), one month."""
    chat = workload("chat", "realtime_inference", tokens_per_second=2500.0, **kw)
    return two_gpu_scenario(chat, horizon=1, target_load=1.0)


def chat_decisions(h100: int, rtx: int) -> Decisions:
    return Decisions(
        replicas={("chat", "H100", H100_OD, 2, 1): h100, ("chat", "RTX 4090", RTX_OD, 1, 1): rtx}
    )


def test_realtime_mix_costs_replicas_times_gpus_times_hours() -> None:
    # 2 H100 replicas (2 GPUs each) serve 2,000 tokens/s, 2 RTX 4090s 600 more:
    # 4 × 730 × 3.15 + 2 × 730 × 0.60 = 9,198 + 876 = $10,074.
    s = chat_scenario()
    plan = consistent_plan(s, chat_decisions(2, 2), CHAT)
    assert check_plan(s, plan, CHAT).violations == []
    assert plan.total_cost == pytest.approx(4 * H * 3.15 + 2 * H * 0.60, abs=0.005)
    assert plan.fleet[0].rented_hours == pytest.approx(4 * H)


def test_too_few_replicas_are_rejected() -> None:
    assert_rejected(
        violations_of(chat_scenario(), chat_decisions(2, 1), CHAT),
        "serving: chat month 1 has 2,300 tokens/s of capacity, needs 2,500",
    )


def test_realtime_work_hours_are_rejected() -> None:
    d = replace(chat_decisions(2, 2), work={("chat", "H100", H100_OD, 1): 100.0})
    assert_rejected(violations_of(chat_scenario(), d, CHAT), "work", "runs as replicas")


def test_realtime_on_spot_is_rejected() -> None:
    s = replace(
        chat_scenario(interruptible=True),
        offers=(*chat_scenario().offers, offer("RTX 4090", "spot", 0.2)),
    )
    d = chat_decisions(2, 2)
    d = replace(d, replicas={**d.replicas, ("chat", "RTX 4090", "RTX 4090|spot|1", 1, 1): 1})
    assert_rejected(violations_of(s, d, CHAT), "replicas", "RTX 4090|spot|1", "spot never serves")


def test_replicas_for_a_batch_job_are_rejected() -> None:
    d = replace(MONEY_DECISIONS, replicas={("batch", "H100", OD, 1, 1): 1})
    assert_rejected(violations_of(money_scenario(), d, BATCH), "only realtime work has replicas")


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
    d = Decisions(work={("lora", "RTX 4090", RTX_OD, 1): 10.0}, picks={"lora": "RTX 4090"})
    plan = consistent_plan(s, d, estimates)
    report = check_plan(s, plan)
    assert report.ok and report.total_cost == pytest.approx(6.00, abs=0.005)
    stale = replace(estimates[0], gpu_hours=9.0)
    assert_rejected(
        check_plan(s, replace(plan, options=(stale,))).violations, "options: lora on RTX 4090"
    )
