"""Solve a scenario and refuse to report a plan the independent checker rejects.

The checker (``optimizer.check.rules``) recomputes every cost and constraint from the
inputs and the plan's decisions, never from the LP. In production a plan it
rejects is turned into an ``error`` result with the checker's findings, so a
wrong number cannot reach a workbook even if the model had a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from optimizer.domain import Scenario
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus


def solve_and_verify(
    scenario: Scenario,
    settings: SolverSettings,
    estimates: Sequence[PairEstimate] | None = None,
    on_solved: Callable[[Any], None] | None = None,
    *,
    start: dict[str, float] | None = None,
    explain: bool = True,
) -> Plan:
    """``solve_scenario``, then the independent check; a rejected plan becomes an error.

    ``on_solved``, ``start`` and ``explain`` are handed to ``solve_scenario``.
    """
    from optimizer.check.rules import check_plan
    from optimizer.solve.solver import solve_scenario

    plan = solve_scenario(scenario, settings, estimates, on_solved, start=start, explain=explain)
    if not plan.status.has_plan:
        return plan
    report = check_plan(scenario, plan, estimates)
    return rejected(plan, report.violations) if report.violations else plan


def rejected(plan: Plan, violations: Sequence[str]) -> Plan:
    """``plan`` turned into an ``error`` result that names the checker's findings."""
    # Nothing of a rejected plan may reach a writer: no money, no fleet, no decisions.
    return Plan.without_plan(
        plan.scenario,
        SolveStatus.ERROR,
        plan.options,
        (
            *plan.diagnostics,
            "internal check failed: the plan was not reported because the independent "
            "checker found these problems (please report this as a bug):",
            *violations,
        ),
        plan.solver,
    )
