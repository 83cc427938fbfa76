"""The two-stage plan is the cheapest in expectation: compared, to the cent, with an
enumeration of every shared first-stage choice and each future's best second stage
(``tests.futures_cases.enumerated_two_stage``, no model, no solver). Every plan
also passes the independent checker, alone and across the futures."""

from __future__ import annotations

import pytest

from optimizer.check.futures import check_futures
from optimizer.check.verify import solve_futures_and_verify
from optimizer.results import SolveStatus
from tests.brute_force_search import TooBig
from tests.futures_cases import (
    CENT,
    EXACT,
    FUTURE_FAMILIES,
    case_with_futures,
    enumerated_two_stage,
    fixed,
)

SEEDS = 6


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("family", FUTURE_FAMILIES)
def test_two_stage_plan_is_the_enumerated_minimum(family: str, seed: int) -> None:
    s, estimates = case_with_futures(family, seed)
    try:
        best = enumerated_two_stage(s, estimates)
    except TooBig:
        pytest.skip("too many stock choices to enumerate")
    result = solve_futures_and_verify(s, EXACT, fixed(estimates), workers=1)
    if best is None:
        assert result.status is SolveStatus.INFEASIBLE, result.diagnostics
        return
    assert result.status is SolveStatus.OPTIMAL, result.diagnostics
    assert check_futures(result, fixed(estimates)) == []
    assert result.expected_cost is not None
    assert abs(result.expected_cost - best) <= CENT, (result.expected_cost, best)


def test_a_shared_purchase_may_exceed_what_the_smaller_future_can_use() -> None:
    # One GPU serves the low future; five serve the likely high one. Buying
    # pays within the horizon and nothing is resold, so the best shared
    # month-1 purchase is five: a bound taken from the low future alone (the
    # most GPUs it can use) would cut that plan off.
    from optimizer.domain.futures import Futures, FutureSpec
    from tests.builders import gpu, offer, scenario, workload
    from tests.test_alternatives import serving_assumptions, serving_estimate

    base = scenario(
        [gpu("H100")],
        [offer("H100", "buy", 1_000.0), offer("H100", "on_demand", 5.0)],
        [workload("chat", "realtime_inference", tokens_per_second=800.0)],
        assumptions=serving_assumptions(),
        horizon_months=6,
        futures=Futures(
            (FutureSpec("low", 0.1), FutureSpec("high", 0.9, demand_factor=6.0)),
            decide_by_month=1,
        ),
    )
    estimates = (serving_estimate("H100", 1000.0),)
    result = solve_futures_and_verify(base, EXACT, fixed(estimates), workers=1)
    assert result.status is SolveStatus.OPTIMAL, result.diagnostics
    assert [(d.action.value, d.count) for d in result.shared] == [("buy", 5)]
    best = enumerated_two_stage(base, estimates)
    assert best is not None and result.expected_cost is not None
    assert abs(result.expected_cost - best) <= CENT
