"""The GPU buying guide's worked numbers, reproduced to the cent by the solver.

Speeds come from measured Throughput rows, so the GPU-hours are exactly the
guide's and the totals are plain hand arithmetic. Every solve goes through
the independent checker (``tests.checked.solve_checked``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.domain import Gpu, Offer, Scenario
from optimizer.results import Plan, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import solve_checked

CENT = 0.005
# "30 days": the guide's month of 720 hours.
BARE_720 = replace(BARE, hours_per_month=720.0)

H100 = gpu("H100")
RTX_4090 = gpu(
    "RTX 4090",
    vram_gb=24.0,
    fp16_tflops=330.0,
    tdp_w=450.0,
    nvlink=False,
    memory_bandwidth_gbs=1008.0,
)
H100_ON_DEMAND = offer("H100", "on_demand", 3.15)
RTX_ON_DEMAND = offer("RTX 4090", "on_demand", 0.60)


def solved(s: Scenario) -> Plan:
    plan = solve_checked(s)
    assert plan.status is SolveStatus.OPTIMAL, plan.diagnostics
    assert plan.total_cost is not None and plan.decisions is not None
    return plan


# ---------------------------------------------------------------- 10-hour 7B LoRA


def lora_scenario(gpus: list[Gpu], offers: list[Offer], excluded: tuple[str, ...] = ()) -> Scenario:
    # Ten measured GPU-hours on either card: the guide's "same hours" comparison.
    return scenario(
        gpus,
        offers,
        [workload("lora-7b", "lora", params_b=7.0, tokens=1e8)],
        [
            measured("lora-7b", "RTX 4090", gpus_per_replica=1, gpu_hours=10.0),
            measured("lora-7b", "H100", gpus_per_replica=1, gpu_hours=10.0),
        ],
        BARE,
        horizon_months=1,
        excluded_gpus=excluded,
    )


def test_lora_on_an_rtx_4090_costs_six_dollars() -> None:
    plan = solved(lora_scenario([RTX_4090], [RTX_ON_DEMAND], excluded=("H100",)))
    assert plan.total_cost == pytest.approx(6.00, abs=CENT)  # 10 h × $0.60


def test_lora_on_an_h100_costs_thirty_one_fifty() -> None:
    plan = solved(lora_scenario([H100], [H100_ON_DEMAND], excluded=("RTX 4090",)))
    assert plan.total_cost == pytest.approx(31.50, abs=CENT)  # 10 h × $3.15


def test_planner_picks_the_rtx_4090_for_the_lora() -> None:
    plan = solved(lora_scenario([H100, RTX_4090], [H100_ON_DEMAND, RTX_ON_DEMAND]))
    assert plan.total_cost == pytest.approx(6.00, abs=CENT)
    assert plan.decisions is not None
    assert plan.decisions.picks == {"lora-7b": "RTX 4090"}
    rented = {(f.gpu, f.month): f.rented_hours for f in plan.fleet}
    assert rented[("H100", 1)] == 0.0
    assert rented[("RTX 4090", 1)] == pytest.approx(10.0, rel=1e-6)
    assert plan.decisions.work == {
        ("lora-7b", "RTX 4090", "RTX 4090|on_demand|1", 1): pytest.approx(10.0, rel=1e-6)
    }


# ---------------------------------------------------------------- 1,000 H100 for 30 days


def test_a_thousand_h100_for_thirty_days() -> None:
    # 1,000 GPUs × 720 h = 720,000 GPU-hours at $3.15 = $2,268,000, rent only.
    s = scenario(
        [H100],
        [offer("H100", "on_demand", 3.15, max_units=1000)],
        [workload("cluster-month", "pretraining", params_b=70.0, tokens=1e9)],
        [measured("cluster-month", "H100", gpus_per_replica=1000, gpu_hours=720_000.0)],
        BARE_720,
        horizon_months=1,
        allow_buy=False,
    )
    plan = solved(s)
    assert plan.total_cost == pytest.approx(2_268_000.00, abs=CENT)
    assert plan.cash_out == pytest.approx(2_268_000.00, abs=CENT)
    (row,) = [r for r in plan.fleet if r.gpu == "H100" and r.month == 1]
    assert row.rented_hours == pytest.approx(720_000.0, rel=1e-9)
    assert row.bought == 0 and row.owned == 0


def test_a_thousand_and_one_h100_are_not_for_rent() -> None:
    # The offer's cap is 1,000 GPUs: 720,720 GPU-hours cannot be had in the month.
    s = scenario(
        [H100],
        [offer("H100", "on_demand", 3.15, max_units=1000)],
        [workload("cluster-month", "pretraining", params_b=70.0, tokens=1e9)],
        [measured("cluster-month", "H100", gpus_per_replica=1001, gpu_hours=720_720.0)],
        BARE_720,
        horizon_months=1,
        allow_buy=False,
    )
    assert solve_checked(s).status is SolveStatus.INFEASIBLE


# ---------------------------------------------------------------- rent or buy over 36 months


def steady_h100(hours_a_month: float) -> Scenario:
    """One H100's worth of steady batch work, 36 months, nothing but price and rent."""
    return scenario(
        [H100],
        [offer("H100", "buy", 25000.0), H100_ON_DEMAND],
        [workload("steady", "batch_inference", params_b=7.0, tokens=1e9)],
        [measured("steady", "H100", gpus_per_replica=1, gpu_hours=hours_a_month)],
        BARE,
        horizon_months=36,
    )


def test_two_hundred_hours_a_month_is_rented() -> None:
    plan = solved(steady_h100(200.0))
    assert plan.total_cost == pytest.approx(22_680.00, abs=CENT)  # 200 × 36 × 3.15
    assert plan.decisions is not None and plan.decisions.purchases == {}
    assert all(r.owned == 0 for r in plan.fleet)


def test_two_hundred_forty_hours_a_month_is_bought() -> None:
    plan = solved(steady_h100(240.0))
    # $25,000 < 240 × 36 × 3.15 = $27,216; bought in month 1, nothing rented.
    assert plan.total_cost == pytest.approx(25_000.00, abs=CENT)
    assert plan.decisions is not None
    assert {k: v for k, v in plan.decisions.purchases.items() if v} == {("H100|buy|1", 1): 1}
    assert sum(f.rented_hours + f.spot_hours for f in plan.fleet) == pytest.approx(0.0, abs=1e-6)
