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
    """With regret caps the shared plan needs every future's own plan: without one in
    time there is no shared plan, and the words say it was time, not infeasibility."""
    from dataclasses import replace

    s, estimates = case_with_futures("serving", 0)
    assert s.futures is not None
    s = replace(s, futures=replace(s.futures, max_regret=1e9))
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


def test_a_future_alone_the_limit_stopped_beside_the_shared_solve_leaves_the_shared_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without regret caps the futures alone only feed the report: one that ran out of
    time while the shared plan was solved costs its regret, not the shared plan (a
    20 s run lost its whole result to it)."""
    from optimizer.cli.futures import futures_lines

    s, estimates = case_with_futures("serving", 0)
    real = futures_solve.solve_alone
    last = s.futures.futures[-1].name  # type: ignore[union-attr]
    out_of_time = "HiGHS found no plan within the 0.01 s time limit; raise --time-limit"

    def late(scenario, settings, *args):  # type: ignore[no-untyped-def]
        plan = real(scenario, settings, *args)
        if scenario.name.endswith(last):
            return Plan.without_plan(scenario, SolveStatus.ERROR, plan.options, (out_of_time,))
        return plan

    monkeypatch.setattr(futures_solve, "solve_alone", late)
    settings = SolverSettings(solver="highs", threads=1)
    result = solve_futures_and_verify(s, settings, fixed(estimates), workers=1)
    assert result.status is SolveStatus.OPTIMAL, result.diagnostics
    assert result.diagnostics == (
        f"future {last!r} was not planned alone within the time limit: its regret and the "
        "EVPI are not known (raise --time-limit)",
    )
    assert result.outcomes[-1].regret is None and result.evpi is None
    assert result.expected_cost is not None
    text = "\n".join(futures_lines(result))
    assert "regret not known against not known planned alone (error)" in text
    assert "EVPI not known" in text


def test_the_command_keeps_back_the_time_already_spent_and_the_writing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    from optimizer.cli.futures import futures_settings
    from optimizer.solve import budget

    # The command began 5 s ago (reading took 5 s): the same clock every command uses.
    monkeypatch.setattr(budget, "_command_started", time.monotonic() - 5.0)
    left = futures_settings(SolverSettings(time_limit=60.0), 3).time_limit
    # 60 s less the 5 s spent less the writing (0.5 s and 0.3 s a future).
    assert left is not None and 53.5 < left <= 60.0 - 5.0 - 1.4
    assert futures_settings(SolverSettings(), 3).time_limit is None
    # The writing never takes more than a fifth of a short budget; the rest may be gone,
    # and a solve then gets the least any solve is handed.
    short = futures_settings(SolverSettings(time_limit=2.0), 20).time_limit
    assert short == budget.LEAST_SOLVE_S


def test_a_shared_solve_stopped_without_a_plan_shows_the_best_plan_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 34: under --time-limit the two-stage solve found no plan in the 2.4 s left and
    the command wrote nothing planned, although the expected future's decisions re-planned
    in every future are a plan of the two-stage problem."""
    from optimizer.solve.adapters import SolverRun

    s, estimates = case_with_futures("serving", 0)
    stopped = SolverRun(
        SolveStatus.ERROR,
        None,
        2.4,
        "HiGHS",
        "1",
        "HiGHS found no plan within the 2.4 s time limit; raise --time-limit",
        bound=None,
    )
    monkeypatch.setattr(futures_solve, "run_solver", lambda *args, **kwargs: stopped)
    settings = SolverSettings(solver="highs", threads=1)
    result = solve_futures_and_verify(s, settings, fixed(estimates), workers=1)
    assert result.status is SolveStatus.TIME_LIMIT, result.diagnostics
    assert result.gap is None  # no bound: not proven
    replans = [o.expected_future_plan for o in result.outcomes]
    assert [o.plan for o in result.outcomes] == replans
    assert result.vss == 0.0
    d = s.futures.decide_by_month  # type: ignore[union-attr]
    assert result.diagnostics[-1].startswith(
        f"the plan shown keeps the expected future's decisions of months 1..{d} in every future"
    )
    assert any("found no plan within the 2.4 s time limit" in d for d in result.diagnostics)
    assert all(o.plan.status.has_plan for o in result.outcomes)


def test_a_steps_limit_counts_from_when_it_was_handed_out_not_when_its_worker_started() -> None:
    """A spawned worker took 1-3 s to start on a loaded machine, and each step then had
    its whole limit on top: the command ran over by as much."""
    import time

    from optimizer.solve.futures_steps import _left_at_start, by_then

    given, ends_at = by_then(SolverSettings(time_limit=5.0))
    assert given.time_limit == 5.0 and ends_at is not None
    late = _left_at_start(given, ends_at - 2.0)  # as if the worker started 2 s late
    assert late.time_limit is not None and 2.9 < late.time_limit <= 3.0
    assert _left_at_start(given, time.time() - 1.0).time_limit == 0.01  # past its end
    assert by_then(SolverSettings()) == (SolverSettings(), None)
