"""The best known plan of a run is the one reported (issue 35 item 1): a baseline
cheaper than a plan its search stopped early on is reported as the plan, checked."""

from __future__ import annotations

from dataclasses import replace

from optimizer.check.baselines import BUY_ONLY, RENT_ONLY, best_known, buy_only, rent_only
from optimizer.check.rules import check_plan
from optimizer.results import Plan, SolverSettings, SolveStatus
from tests.check.test_baselines import one_type_base_and_peak
from tests.checked import solve_checked

SETTINGS = SolverSettings(solver="highs", threads=1)


def _stopped_dear_plan_and_cheap_baseline(bound: float):  # type: ignore[no-untyped-def]
    s = one_type_base_and_peak()
    dear = solve_checked(
        buy_only(s), SETTINGS
    )  # two H100 bought: $50,000, a plan of the full model
    cheap = solve_checked(rent_only(s), SETTINGS)  # renting: $37,800
    assert dear.solver is not None
    stopped = replace(
        dear,
        scenario=s,
        status=SolveStatus.TIME_LIMIT,
        gap=0.5,
        solver=replace(dear.solver, bound=bound),
        diagnostics=("HiGHS stopped at the 1 s time limit before proving the plan optimal",),
    )
    return s, stopped, cheap


def test_a_cheaper_baseline_is_reported_as_the_plan_with_its_gap_and_origin() -> None:
    s, stopped, cheap = _stopped_dear_plan_and_cheap_baseline(bound=20_000.0)
    assert cheap.total_cost is not None and stopped.total_cost is not None
    assert cheap.total_cost < stopped.total_cost  # the audit's case: the baseline is cheaper
    best = best_known(stopped, {BUY_ONLY: stopped, RENT_ONLY: cheap})
    assert best.total_cost == cheap.total_cost
    assert best.scenario is s and best.name == s.name
    assert best.status is SolveStatus.TIME_LIMIT
    gap = (cheap.total_cost - 20_000.0) / cheap.total_cost
    assert best.gap is not None and abs(best.gap - gap) < 1e-12
    assert best.diagnostics[0] == (
        "this plan is the rent only baseline's: the search for the cheapest plan stopped at "
        "$50,000.00, dearer than this plan; proven gap 47.090% "
        "(no plan can cost less than $20,000.00)"
    )
    assert best.diagnostics[1] == stopped.diagnostics[0]
    assert best.solver is not None and best.solver.name.endswith(
        "; plan from the rent only baseline"
    )
    assert not check_plan(s, best, best.options).violations


def test_a_baseline_at_the_proven_bound_makes_the_plan_optimal() -> None:
    _, _, cheap = _stopped_dear_plan_and_cheap_baseline(bound=0.0)
    assert cheap.total_cost is not None
    _, stopped, cheap = _stopped_dear_plan_and_cheap_baseline(bound=cheap.total_cost)
    best = best_known(stopped, {RENT_ONLY: cheap})
    assert best.status is SolveStatus.OPTIMAL and best.gap == 0.0


def test_a_plan_no_baseline_beats_stays() -> None:
    _, stopped, cheap = _stopped_dear_plan_and_cheap_baseline(bound=20_000.0)
    dearer = replace(cheap, total_cost=(stopped.total_cost or 0.0) + 1.0)
    assert best_known(stopped, {RENT_ONLY: dearer}) is stopped


def test_a_search_that_found_no_plan_in_time_reports_the_cheapest_baseline() -> None:
    """On a large model a short --time-limit can end the full search without a plan
    while a baseline (fewer choices) found one: that plan is the best known."""
    s, stopped, cheap = _stopped_dear_plan_and_cheap_baseline(bound=20_000.0)
    why = ("HiGHS found no plan within the 1 s time limit; raise --time-limit",)
    none = Plan.without_plan(s, SolveStatus.ERROR, stopped.options, why, stopped.solver)
    best = best_known(none, {BUY_ONLY: stopped, RENT_ONLY: cheap})
    assert best.total_cost == cheap.total_cost and best.status is SolveStatus.TIME_LIMIT
    assert best.diagnostics == (
        "this plan is the rent only baseline's: the search for the cheapest plan found none "
        "before it stopped; proven gap 47.090% (no plan can cost less than $20,000.00)",
        why[0],
    )


def test_an_infeasible_scenario_takes_no_baseline() -> None:
    s, stopped, cheap = _stopped_dear_plan_and_cheap_baseline(bound=20_000.0)
    none = Plan.without_plan(s, SolveStatus.INFEASIBLE, stopped.options, ("no",), None)
    assert best_known(none, {RENT_ONLY: cheap}) is none
