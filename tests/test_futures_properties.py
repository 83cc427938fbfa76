"""Properties of planning for several futures, on small random cases.

One future that is sure is the plain plan; futures that change nothing are
the plain plan; knowing the future never costs more (EVPI >= 0) and deciding
for the expected future never beats the two-stage plan (VSS >= 0); deciding
everything now makes one plan for all; a regret bound of 0 forces each
future's own optimum. Every plan goes through the independent checker (alone
and across the futures).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from optimizer.check.futures import check_futures
from optimizer.check.verify import solve_and_verify, solve_futures_and_verify
from optimizer.domain import Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import Futures, FutureSpec
from optimizer.results import PairEstimate, SolveStatus
from optimizer.results.futures import FuturesResult
from tests.futures_cases import (
    CENT,
    EXACT,
    FUTURE_FAMILIES,
    case_with_futures,
    fixed,
    plan_costs,
)

SEEDS = st.integers(min_value=0, max_value=100_000)
FAMILY = st.sampled_from(FUTURE_FAMILIES)
FEW = settings(max_examples=12, deadline=None)


def solved(s: Scenario, estimates: tuple[PairEstimate, ...]) -> FuturesResult:
    result = solve_futures_and_verify(s, EXACT, fixed(estimates), workers=1)
    assert result.status is not SolveStatus.ERROR, result.diagnostics
    assert check_futures(result, fixed(estimates)) == []
    return result


def plain_cost(s: Scenario, estimates: tuple[PairEstimate, ...]) -> float | None:
    plan = solve_and_verify(replace(s, futures=None), EXACT, estimates)
    assert plan.status is not SolveStatus.ERROR, plan.diagnostics
    return plan.total_cost


@FEW
@given(family=FAMILY, seed=SEEDS)
def test_one_sure_future_is_the_plain_plan(family: str, seed: int) -> None:
    s, estimates = case_with_futures(family, seed)
    assert s.futures is not None
    spec = replace(s.futures.futures[-1], probability=1.0)
    result = solved(replace(s, futures=replace(s.futures, futures=(spec,))), estimates)
    plain = plain_cost(future_scenario(s, spec), estimates)
    if plain is None:
        assert result.status is SolveStatus.INFEASIBLE
        return
    assert result.expected_cost is not None
    assert abs(result.expected_cost - plain) <= CENT


@FEW
@given(family=FAMILY, seed=SEEDS)
def test_futures_that_change_nothing_are_the_plain_plan(family: str, seed: int) -> None:
    s, estimates = case_with_futures(family, seed)
    assert s.futures is not None
    same = tuple(FutureSpec(f.name, f.probability) for f in s.futures.futures)
    result = solved(replace(s, futures=replace(s.futures, futures=same)), estimates)
    plain = plain_cost(s, estimates)
    if plain is None:
        assert result.status is SolveStatus.INFEASIBLE
        return
    assert result.expected_cost is not None
    assert abs(result.expected_cost - plain) <= CENT
    assert all(abs(c - plain) <= CENT for c in plan_costs(result))


@FEW
@given(family=FAMILY, seed=SEEDS)
def test_perfect_information_and_the_stochastic_solution_are_worth_something(
    family: str, seed: int
) -> None:
    result = solved(*case_with_futures(family, seed))
    if result.evpi is not None:
        assert result.evpi >= -CENT
    if result.vss is not None:
        assert result.vss >= -CENT


@FEW
@given(family=FAMILY, seed=SEEDS)
def test_deciding_everything_now_makes_one_plan_for_all(family: str, seed: int) -> None:
    s, estimates = case_with_futures(family, seed)
    assert s.futures is not None
    s = replace(s, futures=replace(s.futures, decide_by_month=s.horizon_months))
    result = solved(s, estimates)
    if not result.status.has_plan:
        return
    first = result.outcomes[0].plan.decisions
    assert first is not None
    for outcome in result.outcomes[1:]:
        d = outcome.plan.decisions
        assert d is not None
        assert d.purchases == first.purchases
        assert d.sales == first.sales
        assert d.reservations == first.reservations
        assert d.server_purchases == first.server_purchases
        assert d.server_sales == first.server_sales


@FEW
@given(family=FAMILY, seed=SEEDS, share=st.booleans())
def test_a_regret_bound_of_zero_forces_each_futures_optimum(
    family: str, seed: int, share: bool
) -> None:
    s, estimates = case_with_futures(family, seed)
    assert s.futures is not None
    bound = {"max_regret_share": 0.0} if share else {"max_regret": 0.0}
    result = solved(replace(s, futures=replace(s.futures, **bound)), estimates)
    if not result.status.has_plan:
        assert result.status is SolveStatus.INFEASIBLE
        return
    for outcome in result.outcomes:
        assert outcome.alone is not None and outcome.alone.total_cost is not None
        assert outcome.plan.total_cost is not None
        assert abs(outcome.plan.total_cost - outcome.alone.total_cost) <= CENT


@FEW
@given(seed=SEEDS)
def test_random_scenarios_with_the_estimator_are_checked(seed: int) -> None:
    """Scenarios of ``tests.random_scenarios`` (estimated as any scenario is) with futures."""
    import random

    from optimizer.check.futures import check_futures as check
    from tests.futures_cases import random_futures
    from tests.random_scenarios import random_scenario

    s = random_scenario(seed)
    rng = random.Random(seed)
    s = replace(
        s,
        futures=Futures(random_futures(rng, s), decide_by_month=rng.randint(1, s.horizon_months)),
    )
    result = solve_futures_and_verify(s, EXACT, workers=1)
    assert result.status is not SolveStatus.ERROR, result.diagnostics
    assert check(result) == []
    if result.evpi is not None:
        assert result.evpi >= -CENT
    if result.vss is not None:
        assert result.vss >= -CENT


def test_side_by_side_workers_give_the_same_plans() -> None:
    """Spawned workers (one solver thread each) plan as one process does."""
    import random

    from tests.futures_cases import random_futures
    from tests.random_scenarios import random_scenario

    s = random_scenario(7)
    s = replace(s, futures=Futures(random_futures(random.Random(7), s), decide_by_month=1))
    one = solve_futures_and_verify(s, EXACT, workers=1)
    two = solve_futures_and_verify(s, EXACT, workers=2)
    assert one.status is two.status
    if one.expected_cost is not None:
        assert two.expected_cost is not None
        assert abs(one.expected_cost - two.expected_cost) <= CENT
        assert one.wait_and_see is not None and two.wait_and_see is not None
        assert abs(one.wait_and_see - two.wait_and_see) <= CENT
