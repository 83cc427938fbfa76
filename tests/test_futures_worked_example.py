"""docs/methodology.md, section 6.6: the worked example of planning for two futures,
every figure checked to the cent (the section says how to redo each by hand)."""

from __future__ import annotations

import functools
from dataclasses import replace

from optimizer.check.futures import check_futures
from optimizer.check.verify import solve_futures_and_verify
from optimizer.domain import OfferOption, Scenario
from optimizer.domain.futures import Futures, FutureSpec, PriceFactor
from optimizer.results import SolverSettings, SolveStatus
from optimizer.results.futures import FuturesResult, SharedAction, SharedDecision
from optimizer.solve.futures_expected import expected_future
from tests.builders import BARE, gpu, offer, scenario, workload
from tests.futures_cases import fixed
from tests.test_optimality import serving_estimate

EXACT = SolverSettings(gap=0.0, solver="highs", threads=1)
ESTIMATES = (serving_estimate("chat", "G", {1: 500.0}),)
CENT = 0.005


def example(**bounds: float) -> Scenario:
    """One type G: buy $250 or rent $1.60 an hour; a service of 1,000 tokens/s for
    2 months of 100 hours; futures low (half the demand) and high (1.5 times, GPUs 20 %
    dearer to buy), equally likely; month 1 decided now."""
    s = scenario(
        [gpu("G")],
        [offer("G", "buy", 250.0), offer("G", "on_demand", 1.6)],
        [workload("chat", "realtime_inference", tokens_per_second=1000.0, min_replicas=1)],
        assumptions=replace(
            BARE, hours_per_month=100.0, residual_value="none", target_load=1.0, pue=1.0
        ),
        horizon_months=2,
    )
    futures = Futures(
        (
            FutureSpec("low", 0.5, demand_factor=0.5),
            FutureSpec(
                "high",
                0.5,
                demand_factor=1.5,
                price_factors=(PriceFactor(1.2, "G", OfferOption.BUY),),
            ),
        ),
        decide_by_month=1,
        **bounds,
    )
    return replace(s, futures=futures)


@functools.cache
def solved(max_regret: float | None = None) -> FuturesResult:
    bounds = {} if max_regret is None else {"max_regret": max_regret}
    result = solve_futures_and_verify(example(**bounds), EXACT, fixed(ESTIMATES), workers=1)
    assert check_futures(result, fixed(ESTIMATES)) == []
    return result


def close(value: float | None, expected: float) -> bool:
    return value is not None and abs(value - expected) <= CENT


def test_the_shared_plan_buys_one_gpu_now() -> None:
    result = solved()
    assert result.status is SolveStatus.OPTIMAL
    assert result.shared == (SharedDecision(1, SharedAction.BUY, "G|buy|1", "G", 1),)
    low, high = result.outcomes
    assert close(low.plan.total_cost, 250.0)  # the GPU bought at $250 serves both months
    assert close(high.plan.total_cost, 940.0)  # $300 for it, two more rented 2 months: $640
    assert close(result.expected_cost, 595.0)


def test_each_future_alone_and_the_value_of_perfect_information() -> None:
    result = solved()
    low, high = result.outcomes
    assert close(low.alone.total_cost if low.alone else None, 250.0)  # buys 1
    assert close(high.alone.total_cost if high.alone else None, 900.0)  # buys 3 at $300
    assert close(low.regret, 0.0)
    assert close(high.regret, 40.0)
    assert close(result.wait_and_see, 575.0)
    assert close(result.evpi, 20.0)


def test_the_expected_future_and_the_value_of_the_stochastic_solution() -> None:
    spec = expected_future(example(), example().futures)  # type: ignore[arg-type]
    assert spec.workload_demand_factors == (("chat", 1.0),)
    assert [(p.gpu, p.option, p.factor) for p in spec.price_factors] == [
        ("G", OfferOption.BUY, 1.1),
        ("G", OfferOption.ON_DEMAND, 1.0),
    ]
    result = solved()
    assert result.expected_future is not None
    assert result.expected_future.decisions is not None
    assert result.expected_future.decisions.purchases == {("G|buy|1", 1): 2}
    assert close(result.expected_future.total_cost, 550.0)  # 2 at $275
    low, high = result.outcomes
    assert close(low.expected_future_plan.total_cost if low.expected_future_plan else None, 500.0)
    assert close(high.expected_future_plan.total_cost if high.expected_future_plan else None, 920.0)
    assert close(result.expected_future_cost, 710.0)
    assert close(result.vss, 115.0)


def test_a_regret_bound() -> None:
    assert close(solved(40.0).expected_cost, 595.0)  # the plan keeps its $40
    assert solved(30.0).status is SolveStatus.INFEASIBLE


def test_the_expected_futures_decisions_may_leave_a_future_without_a_plan() -> None:
    """Under a capex budget of $560 the expected future buys 2 GPUs ($550 at its $275);
    in the high future they cost $600: with them fixed there is no plan."""
    s = replace(example(), budget_capex=560.0)
    result = solve_futures_and_verify(s, EXACT, fixed(ESTIMATES), workers=1)
    assert check_futures(result, fixed(ESTIMATES)) == []
    assert result.status is SolveStatus.OPTIMAL
    assert close(result.expected_cost, 595.0)  # one GPU now fits every future's budget
    low, high = result.outcomes
    assert close(low.expected_future_plan.total_cost if low.expected_future_plan else None, 500.0)
    replanned = high.expected_future_plan
    assert replanned is not None
    assert replanned.status is SolveStatus.INFEASIBLE
    assert replanned.total_cost is None
    assert replanned.diagnostics == (
        "with the expected future's decisions of months 1..1 this future has no plan (infeasible)",
    )
    assert result.expected_future_cost is None
    assert result.vss is None
