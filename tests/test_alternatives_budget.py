"""`gpumix alternatives --time-limit`: the goals' solves keep to one budget.

On a (20, 50, 60) model (100,000 integers) the command took 88-94 s at
``--time-limit 60``: each goal's solve was given its share in seconds from
when it started, ran its second (tie-break) solve after the first had used the
time up, and started solves with almost nothing left, which HiGHS and SCIP
overrun by seconds while they take a large model. Now each goal gets an equal
part of what is left when it starts (shared with the goals after it on its
worker), all ending before the checks, and a solve with less than
``LEAST_SOLVE_S`` left is not started (docs/performance.md). The wall time is a benchmark's; these
tests check the rules.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

import optimizer.analysis.alternatives as alternatives
import optimizer.solve.alternative as alternative
from optimizer.check.rules import check_plan
from optimizer.model.goal_names import Goal
from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.budget import LEAST_SOLVE_S
from optimizer.solve.solver import solve_scenario
from tests.test_alternatives import SETTINGS, tiny_case


def test_each_goal_gets_an_equal_part_of_what_is_left_when_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Shared with the goals its worker still has after it; all must end by ``end``."""
    limits: list[float | None] = []
    monkeypatch.setattr(
        alternatives,
        "solve_alternative",
        lambda _s, _e, settings, *_: limits.append(settings.time_limit),
    )
    arguments = (None, None, SolverSettings(solver="highs"), Goal.LEAST_CAPEX, 1e9)
    now = time.monotonic()
    alternatives.alternative_by(now + 30.0, 2, arguments)  # two more after it: a third
    alternatives.alternative_by(now + 30.0, 0, arguments)  # the last: all that is left
    alternatives.alternative_by(now - 5.0, 0, arguments)  # too late: the least there is
    alternatives.alternative_by(None, 2, arguments)  # no limit: none
    assert limits[0] == pytest.approx(10.0, abs=0.05)
    assert limits[1] == pytest.approx(30.0, abs=0.05)
    assert limits[2:] == [LEAST_SOLVE_S, None]


def test_a_goal_with_too_little_time_left_is_not_started(
    alternative_solves: list[object],
) -> None:
    case = tiny_case(3)
    too_short = SolverSettings(solver="highs", gap=0.0, time_limit=0.1)
    found = alternative.solve_alternative(
        case.scenario, case.estimates, too_short, Goal.LEAST_CAPEX, 1e9
    )
    assert alternative_solves == []  # no solve begun
    assert found.plan is not None and found.plan.status is SolveStatus.ERROR
    assert found.plan.diagnostics == ("not solved: the time budget was spent",)


def test_the_tie_break_is_skipped_when_the_goals_solve_used_the_time_up(
    monkeypatch: pytest.MonkeyPatch, alternative_solves: list[object]
) -> None:
    """The plan reaching the goal is kept, checked, and said not to be the cheapest such."""
    case = tiny_case(3)
    optimum = solve_scenario(case.scenario, SETTINGS, case.estimates)
    assert optimum.total_cost is not None
    late = [0.0]
    real_solver = alternative.run_solver

    def slow(*args: Any, **kwargs: Any) -> Any:
        done = real_solver(*args, **kwargs)
        late[0] = 1000.0  # as if this solve had run to its deadline and past it
        return done

    monkeypatch.setattr(alternative, "run_solver", slow)
    monkeypatch.setattr(
        alternative, "time", SimpleNamespace(perf_counter=lambda: time.perf_counter() + late[0])
    )
    limited = SolverSettings(solver="highs", gap=0.0, time_limit=100.0)
    found = alternative.solve_alternative(
        case.scenario, case.estimates, limited, Goal.MOST_OWNED, optimum.total_cost * 1.5
    )
    assert len(alternative_solves) == 1  # the goal's solve; no tie-break
    plan = found.plan
    assert plan is not None and plan.status.has_plan
    assert plan.diagnostics[0] == (
        "the cheapest plan reaching this goal was not found in time; this plan reaches "
        "the goal but may not be the cheapest that does"
    )
    report = check_plan(case.scenario, plan, list(case.estimates))
    assert report.violations == []
    assert report.total_cost <= optimum.total_cost * 1.5 + 0.005
