"""Steps of the futures solve that run side by side (issue 19): data in, plans out.

:func:`solve_alone` (a future, or the expected future, planned on its own)
and :func:`replanned_in` (a future re-planned with the expected future's
shared decisions fixed) take scenarios, estimates and settings, never a PuLP
object, so that :class:`~optimizer.solve.side_by_side.SideBySide` can hand
them to spawned worker processes (never forked: a child forked after a HiGHS
solve hangs), one solver thread each.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from optimizer.domain import Scenario
from optimizer.errors import SolveError
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus
from optimizer.results.futures import shared_decisions
from optimizer.solve.assemble import _plan_from_solution
from optimizer.solve.futures_expected import fixed_levels
from optimizer.solve.futures_model import build_replan
from optimizer.solve.solver import _solver_info, run_solver, solve_scenario

# A plan handed to the independent checker comes back as it was or as an error.
Verify = Callable[[Scenario, Plan, tuple[PairEstimate, ...]], Plan]


def one_core(settings: SolverSettings) -> SolverSettings:
    """Settings for a solve that shares the machine with others: one thread, no race."""
    solver = "highs" if settings.solver == "auto" else settings.solver
    return replace(settings, solver=solver, threads=1)


def by_then(settings: SolverSettings) -> tuple[SolverSettings, float | None]:
    """``settings`` and the wall-clock time its limit ends at, counted now (in the parent,
    when the step is handed out), so that a worker's start-up counts against the step."""
    if settings.time_limit is None:
        return settings, None
    return settings, time.time() + settings.time_limit


def _left_at_start(settings: SolverSettings, ends_at: float | None) -> SolverSettings:
    """``settings`` with what is left of its limit now that the step starts (a spawned
    worker took 1-3 s to start on a loaded machine, and the futures ran over by as much)."""
    if ends_at is None or settings.time_limit is None:
        return settings
    return replace(settings, time_limit=max(0.01, min(settings.time_limit, ends_at - time.time())))


def solve_alone(
    scenario: Scenario,
    settings: SolverSettings,
    estimates: tuple[PairEstimate, ...],
    verify: Verify,
    ends_at: float | None = None,
) -> Plan:
    """``scenario`` planned on its own, checked (as ``solve_and_verify``)."""
    settings = _left_at_start(settings, ends_at)
    return verify(scenario, solve_scenario(scenario, settings, estimates), estimates)


def replanned_in(
    scenario: Scenario,
    estimates: tuple[PairEstimate, ...],
    expected: Plan,
    D: int,
    dominated: frozenset[str],
    settings: SolverSettings,
    verify: Verify,
    ends_at: float | None = None,
) -> tuple[Plan | None, dict[str, float]]:
    """``scenario`` re-planned with the expected future's shared decisions fixed, and
    its variables' values by name (a first plan for the two-stage solve)."""
    if expected.decisions is None:
        return None, {}
    settings = _left_at_start(settings, ends_at)
    decisions = expected.decisions
    built = build_replan(scenario, estimates, dominated, D, lambda b: fixed_levels(b, decisions, D))
    run = run_solver(built.problem, settings)
    info = _solver_info(built, run, 0.0)
    if not run.status.has_plan:
        why = (
            "with the expected future's decisions of months 1.."
            f"{D} this future has no plan ({run.status.value})"
        )
        status = SolveStatus.INFEASIBLE if run.status is SolveStatus.INFEASIBLE else run.status
        return Plan.without_plan(scenario, status, estimates, (why,), info), {}
    plan = _plan_from_solution(built, run, estimates, info, settings)
    if plan.decisions is not None and shared_decisions(
        scenario, plan.decisions, D
    ) != shared_decisions(scenario, expected.decisions, D):
        raise SolveError(
            f"internal error: {scenario.name!r} re-planned does not keep the expected "
            "future's shared decisions"
        )
    values = {v.name: float(v.varValue or 0.0) for v in built.problem.variables()}
    return verify(scenario, plan, estimates), values
