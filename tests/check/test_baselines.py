"""Baselines against hand arithmetic: rent only, buy only, best single GPU type."""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.check.baselines import (
    BEST_SINGLE_GPU,
    BUY_ONLY,
    RENT_ONLY,
    buy_only,
    rent_only,
    single_gpu,
    solve_baselines,
)
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.results import SolverSettings, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import CENT, solve_checked

H = 730.0


def one_type_base_and_peak() -> Scenario:
    """1,000 H100-hours a month for 12 months; buy at $25,000 or rent at $3.15/h."""
    return scenario(
        [gpu("H100")],
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15)],
        [workload("batch", "batch_inference", params_b=8, tokens=1e9)],
        [measured("batch", "H100", gpu_hours=1000.0, gpus_per_replica=1)],
        assumptions=BARE,
        horizon_months=12,
    )


def two_types_each_best_for_one_workload() -> Scenario:
    """w1 is cheap on H100 ($3 × 200 h), w2 on L40S ($1 × 400 h), every month for 12 months."""
    return scenario(
        [gpu("H100"), gpu("L40S", vram_gb=48.0, fp16_tflops=362.0, nvlink=False)],
        [offer("H100", "on_demand", 3.0), offer("L40S", "on_demand", 1.0)],
        [
            workload("w1", "batch_inference", params_b=8, tokens=1e9),
            workload("w2", "batch_inference", params_b=8, tokens=1e9),
        ],
        [
            measured("w1", "H100", gpu_hours=200.0, gpus_per_replica=1),
            measured("w1", "L40S", gpu_hours=1000.0, gpus_per_replica=1),
            measured("w2", "H100", gpu_hours=1000.0, gpus_per_replica=1),
            measured("w2", "L40S", gpu_hours=400.0, gpus_per_replica=1),
        ],
        assumptions=BARE,
        horizon_months=12,
    )


def test_restricted_scenarios_drop_the_right_offers() -> None:
    s = two_types_each_best_for_one_workload()
    s = replace(s, offers=(*s.offers, offer("H100", "buy", 25_000.0)))
    assert {o.option for o in rent_only(s).offers} == {OfferOption.ON_DEMAND}
    assert not rent_only(s).allow_buy
    assert {o.option for o in buy_only(s).offers} == {OfferOption.BUY}
    assert not buy_only(s).allow_rent
    only = single_gpu(s, "L40S")
    assert [g.name for g in only.gpus] == ["L40S"]
    assert {o.gpu for o in only.offers} == {"L40S"}
    assert {m.gpu for m in only.measurements} == {"L40S"}
    assert only.excluded_gpus == ("H100",)
    assert len(s.offers) == 3  # the original is untouched


def test_rent_only_and_buy_only_against_the_mix() -> None:
    s = one_type_base_and_peak()
    mix = solve_checked(s)
    assert mix.total_cost == pytest.approx(25_000.0 + 3.15 * 270 * 12, abs=CENT)
    baselines = solve_baselines(s, SolverSettings())
    assert set(baselines) == {RENT_ONLY, BUY_ONLY, BEST_SINGLE_GPU}
    assert baselines[RENT_ONLY].total_cost == pytest.approx(3.15 * 1000 * 12, abs=CENT)
    assert baselines[RENT_ONLY].costs[CostCategory.PURCHASE] == 0.0
    # Buying only: two GPUs (1,460 h a month) cover 1,000 h.
    assert baselines[BUY_ONLY].total_cost == pytest.approx(50_000.0, abs=CENT)
    # One type only: the mix itself.
    assert baselines[BEST_SINGLE_GPU].total_cost == pytest.approx(mix.total_cost, abs=CENT)


def test_best_single_type_is_the_cheapest_feasible_one() -> None:
    s = two_types_each_best_for_one_workload()
    mix = solve_checked(s)
    assert mix.total_cost == pytest.approx((3.0 * 200 + 1.0 * 400) * 12, abs=CENT)
    baselines = solve_baselines(s, SolverSettings())
    best = baselines[BEST_SINGLE_GPU]
    # Only H100: (200 + 1,000) × $3 × 12 = 43,200; only L40S: (1,000 + 400) × $1 × 12 = 16,800.
    assert [g.name for g in best.scenario.gpus] == ["L40S"]
    assert best.total_cost == pytest.approx(16_800.0, abs=CENT)
    assert baselines[RENT_ONLY].total_cost == pytest.approx(mix.total_cost, abs=CENT)
    assert baselines[BUY_ONLY].status is SolveStatus.INFEASIBLE  # there is nothing to buy
    assert baselines[BUY_ONLY].total_cost is None


def test_when_no_single_type_fits_the_budget_every_reason_is_kept() -> None:
    s = two_types_each_best_for_one_workload()
    s = replace(s, budget_total=13_000.0)  # the mix (12,000) fits, no single type
    baselines = solve_baselines(s, SolverSettings())
    best = baselines[BEST_SINGLE_GPU]
    assert best.status is SolveStatus.INFEASIBLE and best.total_cost is None
    assert any(d.startswith("only H100: ") for d in best.diagnostics)
    assert any(d.startswith("only L40S: ") for d in best.diagnostics)
