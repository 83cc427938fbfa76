"""Futures under --time-limit: the first steps share the budget, and running out of
time is never reported as "no plan" (an outside audit: the expected future took 299.99
of 300 s and the report said the expected and high futures had no plan even alone)."""

from __future__ import annotations

import pytest

import optimizer.solve.futures as futures_solve
from optimizer.check.verify import solve_futures_and_verify
from optimizer.results import Plan, SolverSettings, SolveStatus
from tests.futures_cases import case_with_futures, fixed


def test_each_step_before_the_two_stage_solve_gets_at_most_a_quarter_of_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, estimates = case_with_futures("serving", 0)
    limits: list[float | None] = []
    real = futures_solve.solve_alone

    def recorded(scenario, settings, *args):  # type: ignore[no-untyped-def]
        limits.append(settings.time_limit)
        return real(scenario, settings, *args)

    monkeypatch.setattr(futures_solve, "solve_alone", recorded)
    settings = SolverSettings(solver="highs", threads=1, time_limit=40.0)
    result = solve_futures_and_verify(s, settings, fixed(estimates), workers=1)
    assert result.status is SolveStatus.OPTIMAL, result.diagnostics
    assert limits and all(limit is not None and limit <= 10.0 for limit in limits), limits


def test_a_future_stopped_by_the_time_limit_is_not_called_planless(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, estimates = case_with_futures("serving", 0)
    real = futures_solve.solve_alone
    out_of_time = (
        "building the model took 0.1 s, past the 0.01 s time limit; raise --time-limit or "
        "simplify the scenario"
    )

    def slow(scenario, settings, *args):  # type: ignore[no-untyped-def]
        plan = real(scenario, settings, *args)
        if scenario.name.endswith(s.futures.futures[-1].name):  # type: ignore[union-attr]
            return Plan.without_plan(
                scenario, SolveStatus.ERROR, plan.options, (out_of_time,), None
            )
        return plan

    monkeypatch.setattr(futures_solve, "solve_alone", slow)
    settings = SolverSettings(solver="highs", threads=1)
    result = solve_futures_and_verify(s, settings, fixed(estimates), workers=1)
    last = s.futures.futures[-1].name  # type: ignore[union-attr]
    assert result.status is SolveStatus.ERROR
    assert result.diagnostics[0] == (
        f"future {last!r} was not planned within the time limit (error): {out_of_time}"
    )
    text = " ".join(d for o in result.outcomes for d in o.plan.diagnostics)
    assert "no plan" not in text.replace("was not planned", "")
    assert "raise --time-limit" in text
