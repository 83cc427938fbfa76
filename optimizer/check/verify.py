"""Solve a scenario and refuse to report a plan the independent checker rejects.

The checker (``optimizer.check.rules``) recomputes every cost and constraint from the
inputs and the plan's decisions, never from the LP. In production a plan it
rejects is turned into an ``error`` result with the checker's findings, so a
wrong number cannot reach a workbook even if the model had a bug.
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.domain import Scenario
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus


def solve_and_verify(
    scenario: Scenario,
    settings: SolverSettings,
    estimates: Sequence[PairEstimate] | None = None,
) -> Plan:
    """``solve_scenario``, then the independent check; a rejected plan becomes an error."""
    from optimizer.check.rules import check_plan
    from optimizer.solve.solver import solve_scenario

    plan = solve_scenario(scenario, settings, estimates)
    if not plan.status.has_plan:
        return plan
    report = check_plan(scenario, plan, estimates)
    if not report.violations:
        return plan
    # Nothing of a rejected plan may reach a writer: no money, no fleet, no decisions.
    return Plan.without_plan(
        scenario,
        SolveStatus.ERROR,
        plan.options,
        (
            *plan.diagnostics,
            "internal check failed: the plan was not reported because the independent "
            "checker found these problems (please report this as a bug):",
            *report.violations,
        ),
        plan.solver,
    )
