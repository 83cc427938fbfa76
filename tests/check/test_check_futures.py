"""The futures' checker refuses a wrong plan for several futures, naming what is wrong.

One solved case (``services``, seed 0: two futures, decisions of months 1..2
shared; in f0 the shared plan costs $850.00 against $700.00 alone, in f1
$1,050.00 against $1,000.00) is corrupted one way at a time.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest

from optimizer.check.futures import check_futures
from optimizer.check.verify import solve_futures_and_verify
from optimizer.results import SolveStatus
from optimizer.results.futures import FutureOutcome, FuturesResult
from tests.futures_cases import EXACT, case_with_futures, fixed

ESTIMATES = case_with_futures("services", 0)[1]


@functools.cache
def solved() -> FuturesResult:
    s, estimates = case_with_futures("services", 0)
    result = solve_futures_and_verify(s, EXACT, fixed(estimates), workers=1)
    assert result.status is SolveStatus.OPTIMAL
    return result


def check(result: FuturesResult) -> list[str]:
    return check_futures(result, fixed(ESTIMATES))


def with_outcome(result: FuturesResult, k: int, outcome: FutureOutcome) -> FuturesResult:
    outcomes = list(result.outcomes)
    outcomes[k] = outcome
    return replace(result, outcomes=tuple(outcomes))


def test_the_solved_case_is_as_documented() -> None:
    result = solved()
    assert check(result) == []
    assert [o.plan.total_cost for o in result.outcomes] == [850.0, 1050.0]
    assert [o.alone.total_cost for o in result.outcomes if o.alone] == [700.0, 1000.0]
    assert result.expected_cost == 0.3 * 850.0 + 0.7 * 1050.0


def test_probabilities_that_do_not_sum_to_one_are_refused() -> None:
    result = solved()
    specs = tuple(
        replace(f, probability=0.4) if f.name == "f0" else f for f in result.futures.futures
    )
    wrong = replace(result, futures=replace(result.futures, futures=specs))
    assert "the futures' probabilities sum to 1.1, not 1" in check(wrong)


def test_a_shared_decision_that_differs_between_futures_is_refused() -> None:
    result = solved()
    outcome = result.outcomes[1]
    d = outcome.plan.decisions
    assert d is not None
    purchases = dict(d.purchases)
    purchases[("A|buy|1", 1)] = 3
    plan = replace(outcome.plan, decisions=replace(d, purchases=purchases))
    wrong = with_outcome(result, 1, replace(outcome, plan=plan))
    assert (
        "future 'f1' does not share the decisions of months 1..2 with future 'f0': "
        "only in the first: buy 2 of A|buy|1 in month 1; "
        "only in this one: buy 3 of A|buy|1 in month 1"
    ) in check(wrong)


def test_a_wrong_cost_and_the_expected_cost_built_on_it_are_refused() -> None:
    result = solved()
    outcome = result.outcomes[0]
    plan = replace(outcome.plan, total_cost=851.0)
    found = check(with_outcome(result, 0, replace(outcome, plan=plan)))
    assert (
        "future 'f0' (shared plan): reported total cost $851.00 but the checker computes $850.00"
    ) in found
    assert (
        "expected cost $990.30 is not the probability-weighted sum of the plans' checked "
        "costs $990.00"
    ) in found


def test_a_regret_above_the_bound_is_refused() -> None:
    result = solved()
    tight = replace(result, futures=replace(result.futures, max_regret=100.0))
    assert check(tight) == ["future 'f0': regret $150.00 is above the bound $100.00"]
    share = replace(result, futures=replace(result.futures, max_regret_share=0.1))
    assert check(share) == ["future 'f0': regret $150.00 is above the bound $70.00"]


def test_solve_and_verify_refuses_a_result_the_futures_checker_rejects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import optimizer.check.futures

    monkeypatch.setattr(optimizer.check.futures, "check_futures", lambda r, e: ["wrong (test)"])
    s, estimates = case_with_futures("services", 0)
    result = solve_futures_and_verify(s, EXACT, fixed(estimates), workers=1)
    assert result.status is SolveStatus.ERROR
    assert result.shared == ()
    assert result.expected_cost is None
    assert result.diagnostics[-1] == "wrong (test)"
    assert all(o.plan.decisions is None and o.plan.total_cost is None for o in result.outcomes)


def test_a_regret_bound_holds_in_the_solve() -> None:
    """The same case with a bound of $100: no future's regret above it, or no plan."""
    s, estimates = case_with_futures("services", 0)
    assert s.futures is not None
    bounded = replace(s, futures=replace(s.futures, max_regret=100.0))
    result = solve_futures_and_verify(bounded, EXACT, fixed(estimates), workers=1)
    assert result.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE)
    if result.status is SolveStatus.OPTIMAL:
        assert check(result) == []
        assert all(o.regret is not None and o.regret <= 100.005 for o in result.outcomes)


def test_a_replan_that_does_not_keep_the_expected_futures_decisions_is_refused() -> None:
    result = solved()
    outcome = result.outcomes[0]
    replan = outcome.expected_future_plan
    assert replan is not None and replan.decisions is not None
    purchases = dict(replan.decisions.purchases)
    purchases[("A|buy|1", 1)] = purchases.get(("A|buy|1", 1), 0) + 1
    wrong_plan = replace(replan, decisions=replace(replan.decisions, purchases=purchases))
    wrong = with_outcome(result, 0, replace(outcome, expected_future_plan=wrong_plan))
    found = check(wrong)
    assert len(found) == 1
    assert found[0].startswith(
        "future 'f0': the plan deciding as if the expected future were sure does not keep "
        "that future's decisions of months 1..2: "
    )
