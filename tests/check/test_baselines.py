"""Baselines against hand arithmetic: rent only, buy only, best single GPU type."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from optimizer.check import baselines as baselines_module
from optimizer.check.baselines import (
    BEST_SINGLE_GPU,
    BUY_ONLY,
    RENT_ONLY,
    Variant,
    baseline_variants,
    buy_only,
    known_plan,
    needs_solving,
    rent_only,
    single_gpu,
    single_type_bound,
    solve_baselines,
    solve_singles,
    solve_variant,
)
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.results import Plan, SolverSettings, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import CENT, solve_checked
from tests.random_scenarios import random_scenario

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


def _same_figures(known: Plan, solved: Plan) -> None:
    """What the workbook shows of a baseline: status, total, cash by month, the type kept."""
    assert known.status is solved.status
    assert known.total_cost == pytest.approx(solved.total_cost, abs=CENT)
    assert [m.total for m in known.cash_flow] == pytest.approx(
        [m.total for m in solved.cash_flow], abs=CENT
    )
    assert [g.name for g in known.scenario.gpus] == [g.name for g in solved.scenario.gpus]
    assert known.name == solved.name


def test_a_baseline_the_optimum_keeps_to_is_the_optimum_not_solved_again() -> None:
    s = two_types_each_best_for_one_workload()  # the mix rents only: it is "rent only"
    mix = solve_checked(s)
    variants = baseline_variants(s)
    rent = next(v for v in variants if v.baseline == RENT_ONLY)
    known = known_plan(rent, mix)
    assert known is not None and known.decisions == mix.decisions
    assert "cheapest plan itself" in known.diagnostics[0]
    assert needs_solving(variants, [known_plan(v, mix) for v in variants], mix) == [
        False,  # rent only: the mix
        True,  # buy only
        True,  # only H100
        True,  # only L40S: the mix uses both types
    ]
    solved = solve_baselines(s, SolverSettings())
    reused = solve_baselines(s, SolverSettings(), optimum=mix)
    _same_figures(reused[RENT_ONLY], solved[RENT_ONLY])
    _same_figures(reused[BEST_SINGLE_GPU], solved[BEST_SINGLE_GPU])
    assert reused[BUY_ONLY].status is solved[BUY_ONLY].status is SolveStatus.INFEASIBLE


def test_when_the_optimum_uses_one_type_no_single_type_is_solved() -> None:
    s = one_type_base_and_peak()  # H100 bought and rented: best single type is the mix
    l40s = gpu("L40S", vram_gb=48.0, fp16_tflops=362.0, nvlink=False)
    s = replace(s, gpus=(*s.gpus, l40s), offers=(*s.offers, offer("L40S", "on_demand", 9.0)))
    s = replace(s, measurements=(*s.measurements, measured("batch", "L40S", gpu_hours=1000.0)))
    mix = solve_checked(s)
    assert {r.gpu for r in mix.fleet if r.owned or r.rented_hours} == {"H100"}
    variants = baseline_variants(s)
    known = [known_plan(v, mix) for v in variants]
    assert [k is not None for k in known] == [False, False, True, False]
    # The mix is proven cheapest, so no other type can beat it: neither is solved.
    assert needs_solving(variants, known, mix) == [True, True, False, False]
    solved = solve_baselines(s, SolverSettings())
    reused = solve_baselines(s, SolverSettings(), optimum=mix)
    for name in (RENT_ONLY, BUY_ONLY, BEST_SINGLE_GPU):
        _same_figures(reused[name], solved[name])


def test_an_optimum_not_proven_leaves_the_other_single_types_to_solve() -> None:
    s = one_type_base_and_peak()
    mix = solve_checked(s)
    stopped = replace(mix, status=SolveStatus.TIME_LIMIT, gap=0.01)
    variants = baseline_variants(s)
    known = [known_plan(v, stopped) for v in variants]
    assert known[2] is not None and known[2].status is SolveStatus.TIME_LIMIT  # labelled as such
    assert needs_solving(variants, known, stopped) == [True, True, False]


def test_an_infeasible_baseline_is_not_explained() -> None:
    s = two_types_each_best_for_one_workload()
    (buy,) = [v for v in baseline_variants(s) if v.baseline == BUY_ONLY]
    plan = solve_variant(buy, SolverSettings())
    assert plan.status is SolveStatus.INFEASIBLE and plan.total_cost is None


def test_a_single_type_whose_lp_bound_is_above_a_cheaper_plan_is_not_solved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = two_types_each_best_for_one_workload()
    solved: list[str] = []
    real = baselines_module.solve_variant

    def spy(variant: Variant, settings: SolverSettings) -> Plan:
        solved.append(variant.gpu or variant.baseline)
        return real(variant, settings)

    monkeypatch.setattr(baselines_module, "solve_variant", spy)
    baselines = solve_baselines(s, SolverSettings())
    # Only L40S: 16,800; only H100's relaxation alone costs more (its plan: 43,200).
    h100 = next(v for v in baseline_variants(s) if v.gpu == "H100")
    h100_bound = single_type_bound(h100, SolverSettings())
    assert h100_bound is not None and h100_bound > 16_800.0 + 1.0
    assert solved == [RENT_ONLY, BUY_ONLY, "L40S"]
    best = baselines[BEST_SINGLE_GPU]
    assert [g.name for g in best.scenario.gpus] == ["L40S"]
    assert best.total_cost == pytest.approx(16_800.0, abs=CENT)


def _fake(cost: float | None) -> Plan:
    status = SolveStatus.OPTIMAL if cost is not None else SolveStatus.INFEASIBLE
    return replace(
        solve_checked(one_type_base_and_peak()),
        status=status,
        total_cost=cost,
        diagnostics=(),
    )


def test_single_types_are_solved_cheapest_bound_first_until_no_bound_is_below_the_best() -> None:
    (one, *_) = [v for v in baseline_variants(two_types_each_best_for_one_workload()) if v.gpu]
    variants = [replace(one, gpu=str(i)) for i in range(6)]  # stand-ins: only the figures count
    bounds = [50.0, None, 10.0, math.inf, 30.0, 45.0]
    costs = [60.0, 70.0, 40.0, None, 44.0, 46.0]
    order: list[int] = []

    def solve(variant: Variant) -> Plan:
        order.append(int(variant.gpu or ""))
        return _fake(costs[order[-1]])

    plans = solve_singles(
        variants, [None] * 6, [True] * 6, solve, lambda v: bounds[int(v.gpu or "")]
    )
    # The unknown bound first, then 10 (a plan at 40) and 30 (below 40: solved, 44); 45
    # and 50 are above 40, and an infeasible relaxation is not solved once a type has a plan.
    assert order == [1, 2, 4]
    assert [p is not None for p in plans] == [False, True, True, False, True, False]
    cheapest = plans[2]
    assert cheapest is not None and cheapest.total_cost == 40.0


def test_a_known_plan_prunes_and_infeasible_types_are_solved_only_without_any_plan() -> None:
    variants = [v for v in baseline_variants(two_types_each_best_for_one_workload()) if v.gpu]
    known = [_fake(20.0), None]
    plans = solve_singles(variants, known, [False, True], lambda v: _fake(99.0), lambda v: 25.0)
    assert plans[1] is None  # its bound 25 is above the known 20
    nothing = solve_singles(
        variants, [None, None], [True, True], lambda v: _fake(None), lambda v: math.inf
    )
    assert all(p is not None and p.status is SolveStatus.INFEASIBLE for p in nothing)


@pytest.mark.parametrize("seed", range(8))
def test_the_best_single_type_with_bounds_is_the_cheapest_of_every_type_solved(seed: int) -> None:
    s = random_scenario(seed, longest_horizon=3, extra_jobs=1)
    every = [solve_variant(v, SolverSettings()) for v in baseline_variants(s) if v.gpu is not None]
    costs = [p.total_cost for p in every if p.status.has_plan and p.total_cost is not None]
    best = solve_baselines(s, SolverSettings())[BEST_SINGLE_GPU]
    if not costs:
        assert not best.status.has_plan
    else:
        assert best.total_cost == pytest.approx(min(costs), abs=CENT)
