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
