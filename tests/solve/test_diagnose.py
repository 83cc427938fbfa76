"""No bare failures: what is short, where and by how much, in words."""

from __future__ import annotations

from dataclasses import replace

from optimizer.domain import ExistingGpus, FleetKind
from optimizer.results import EstimateSource, PairEstimate, SolverSettings, SolveStatus
from optimizer.solve.solver import solve_scenario
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import solve_checked

H = 730.0


def _no_plan(plan_status: SolveStatus, plan_total: float | None) -> None:
    assert plan_status is SolveStatus.INFEASIBLE
    assert plan_total is None


def batch(hours: float, months: int, offers: list, **kw: object):  # type: ignore[type-arg]
    return scenario(
        [gpu("H100")],
        offers,
        [workload("batch", "batch_inference", params_b=8, tokens=1e9)],
        [measured("batch", "H100", gpu_hours=hours, gpus_per_replica=1)],
        assumptions=BARE,
        horizon_months=months,
        **kw,
    )


def test_no_allowed_gpu_gives_the_reason_per_gpu() -> None:
    s = scenario(
        [gpu("L4", vram_gb=24.0), gpu("H100")],
        [offer("L4", "on_demand", 0.5), offer("H100", "on_demand", 3.0)],
        [workload("huge", "batch_inference", params_b=405, tokens=1e9)],
        horizon_months=1,
    )
    estimates = [
        PairEstimate(
            "huge",
            "L4",
            False,
            "needs 972 GB; 8 L4 hold 173 GB",
            972.0,
            None,
            None,
            None,
            None,
            EstimateSource.ESTIMATED,
        ),
        PairEstimate(
            "huge",
            "H100",
            False,
            "needs 972 GB; 8 H100 hold 576 GB",
            972.0,
            None,
            None,
            None,
            None,
            EstimateSource.ESTIMATED,
        ),
    ]
    plan = solve_scenario(s, SolverSettings(), estimates)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "huge cannot be planned: no GPU type can run it",
        "  huge on L4: needs 972 GB; 8 L4 hold 173 GB",
        "  huge on H100: needs 972 GB; 8 H100 hold 576 GB",
    )
    assert plan.decisions is None and plan.cash_out is None


def test_no_offer_inside_the_window() -> None:
    s = scenario(
        [gpu("H100"), gpu("B200")],
        [offer("H100", "on_demand", 3.0, available_from=5)],
        [workload("batch", "batch_inference", params_b=8, tokens=1e9, end_month=3)],
        [
            measured("batch", "H100", gpu_hours=10.0, gpus_per_replica=1),
            measured("batch", "B200", gpu_hours=10.0, gpus_per_replica=1),
        ],
        horizon_months=6,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "batch cannot be planned: no GPU type can run it",
        "  batch on H100: no offer can serve months 1–3 (H100|on_demand|1 is available only from month 5)",
        "  batch on B200: no offer for this GPU type in this scenario",
    )


def test_existing_gpus_run_work_with_no_offer_for_their_type() -> None:
    # 2 owned H100 from sheet Fleet and nothing to buy or rent: the work runs on them.
    owned = ExistingGpus("H100|fleet|1", "H100", 2, FleetKind.OWNED, 25_000.0, label="Fleet row 2")
    plan = solve_checked(batch(100.0, 3, [], fleet=(owned,)))
    assert plan.status is SolveStatus.OPTIMAL, plan.diagnostics
    assert plan.decisions is not None
    assert {place for (_w, _g, place, _t) in plan.decisions.work} == {"house"}


def test_an_existing_reservation_that_ends_before_the_window_says_so() -> None:
    reserved = ExistingGpus(
        "H100|fleet|1", "H100", 2, FleetKind.RESERVED, 2.0, months_left=2, label="Fleet row 2"
    )
    s = batch(100.0, 6, [], fleet=(reserved,))
    late = replace(s.workloads[0], start_month=4)
    plan = solve_checked(replace(s, workloads=(late,)))
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "batch cannot be planned: no GPU type can run it",
        "  batch on H100: no offer can serve months 4–6 (Fleet row 2's reservation ends in month 2)",
    )


def test_capex_budget_short() -> None:
    s = batch(H, 12, [offer("H100", "buy", 25_000.0)], budget_capex=20_000.0)
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == ("no plan meets every requirement:", "capex budget short by $5,000")


def test_total_budget_short() -> None:
    s = batch(
        H,
        12,
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15)],
        budget_total=20_000.0,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert "total budget short by $5,000" in plan.diagnostics


def test_power_cap_short() -> None:
    # Two GPUs needed, only buyable: 2 × 910 W against a 1 kW cap.
    s = batch(2 * H, 12, [offer("H100", "buy", 25_000.0)], power_cap_kw=1.0)
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == ("no plan meets every requirement:", "power cap short by 0.8 kW")


def test_realtime_short_because_offers_are_capped() -> None:
    s = scenario(
        [gpu("L40S", vram_gb=48.0)],
        [offer("L40S", "on_demand", 1.5, max_units=16)],
        [
            workload(
                "chat-70b",
                "realtime_inference",
                params_b=70,
                tokens_per_second=18_000.0,
                start_month=4,
                end_month=6,
            )
        ],
        [measured("chat-70b", "L40S", gpus_per_replica=2, tokens_per_second_per_replica=2_100.0)],
        assumptions=BARE,
        horizon_months=6,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    # 16 GPUs hold 8 replicas: 16,800 tokens/s rated, against 18,000 / 0.8 = 22,500.
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "chat-70b short of 5,700 tokens/s of serving capacity (demand / target_load 80%)"
        " in months 4–6 because L40S on_demand offers are capped at 16 GPUs at any moment",
    )


def test_too_few_replicas_fit_for_min_replicas() -> None:
    # Three 1-GPU replicas are asked for; the only offer holds 2 GPUs at once.
    s = scenario(
        [gpu("H100")],
        [offer("H100", "on_demand", 2.0, max_units=2)],
        [
            workload(
                "chat", "realtime_inference", params_b=8, tokens_per_second=500.0, min_replicas=3
            )
        ],
        [measured("chat", "H100", gpus_per_replica=1, tokens_per_second_per_replica=1000.0)],
        assumptions=BARE,
        horizon_months=2,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "chat short of 1 of its 3 replicas (min_replicas) in months 1–2 because H100 on_demand"
        " offers are capped at 2 GPUs at any moment",
    )


def test_no_place_holds_a_replica_is_no_plan_not_an_internal_error() -> None:
    """The audit's case: every replica needs 2 GPUs and the only offer holds 1 at once.
    The model has no replica variable, so its demand rows had no variable either; the
    solver dropped them and returned a plan that serves nothing, which the checker then
    refused as an internal error. Now the scenario has no plan, and says why."""
    s = scenario(
        [gpu("L4", vram_gb=24.0)],
        [offer("L4", "on_demand", 0.6, max_units=1)],
        [workload("chat", "realtime_inference", params_b=8, tokens_per_second=1_500.0)],
        [measured("chat", "L4", gpus_per_replica=2, tokens_per_second_per_replica=1_000.0)],
        assumptions=BARE,
        horizon_months=2,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "chat short of 1,875 tokens/s of serving capacity (demand / target_load 80%) in "
        f"months 1–2 because {NO_PLACE}",
        f"chat short of 1 of its 1 replicas (min_replicas) in months 1–2 because {NO_PLACE}",
    )


NO_PLACE = (
    "no place of its GPU types can hold one whole replica in its months (each is smaller, "
    "not there then, or on spot too slow for its deadline)"
)


def test_training_short_of_gpu_hours() -> None:
    s = scenario(
        [gpu("H100")],
        [offer("H100", "reserved", 2.0, term_months=2, max_units=1)],
        [workload("job", "pretraining", params_b=1, tokens=1e9, end_month=2)],
        [measured("job", "H100", gpu_hours=2000.0)],
        assumptions=BARE,
        horizon_months=2,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "job short of 540 of its 2,000 GPU-hours on H100 in months 1–2 because H100 reserved "
        "offers are capped at 1 GPU",
    )


def test_monthly_budget_short_in_every_month() -> None:
    # Renting one GPU all month costs 3.15 × 730 = 2,299.50 against 2,000.
    s = batch(H, 10, [offer("H100", "on_demand", 3.15)], budget_monthly=2000.0)
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "monthly budget short by $299.50 in months 1–10",
    )


def test_a_scenario_with_nothing_to_plan_costs_nothing() -> None:
    s = scenario([gpu("H100")], [offer("H100", "buy", 25_000.0)], [], horizon_months=2)
    plan = solve_checked(s)
    assert plan.status is SolveStatus.OPTIMAL
    assert plan.total_cost == 0.0 and plan.cash_out == 0.0
    assert [(f.gpu, f.month, f.owned) for f in plan.fleet] == [("H100", 1, 0), ("H100", 2, 0)]
    assert len(plan.cash_flow) == 2 and plan.assignments == ()


def test_batch_short_because_offers_are_capped() -> None:
    # 1,000 h of work a month, 730 h on offer: 27 % of the tokens are not processed.
    s = batch(1000.0, 3, [offer("H100", "on_demand", 3.0, max_units=1)])
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "batch short of 27.0% of its monthly tokens in months 1–3 because H100 on_demand "
        "offers are capped at 1 GPU at any moment",
    )


def test_a_gang_that_outgrows_every_place_in_a_month_says_so_for_that_month() -> None:
    """The audit's case: a 300-GPU-hour run with a 100-hour deadline is a gang of 3 in
    month 1; with 50 % growth month 2's run is a gang of 5, more than the house (4 to
    buy) or the capped offer (4) holds. The line names the month and why."""
    s = scenario(
        [gpu("G", max_per_node=8)],
        [offer("G", "buy", 1_000.0, max_units=4), offer("G", "on_demand", 3.0, max_units=4)],
        [
            workload(
                "job",
                "batch_inference",
                params_b=7,
                tokens=1e9,
                runs_per_month=1,
                deadline_hours=100.0,
                growth_per_month=0.5,
            )
        ],
        [measured("job", "G", gpus_per_replica=1, gpu_hours=300.0)],
        assumptions=BARE,
        horizon_months=2,
    )
    plan = solve_checked(s)
    _no_plan(plan.status, plan.total_cost)
    assert plan.diagnostics == (
        "no plan meets every requirement:",
        "job short of 150.0% of its monthly runs in month 2 because G buy offers are capped at "
        "4 GPUs and no place of its GPU types can hold one whole gang in month 2 (each is "
        "smaller, not there then, or on spot too slow for its deadline)",
    )
