"""Solve a scenario and refuse to report a plan the independent checker rejects.

The checker (``optimizer.check.rules``) recomputes every cost and constraint from the
inputs and the plan's decisions, never from the LP. In production a plan it
rejects is turned into an ``error`` result with the checker's findings, so a
wrong number cannot reach a workbook even if the model had a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from optimizer.domain import Scenario
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus
from optimizer.results.futures import FuturesResult


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
    from optimizer.solve.solver import solve_scenario

    plan = solve_scenario(scenario, settings, estimates, on_solved, start=start, explain=explain)
    return verify_plan(scenario, plan, estimates)


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


def verify_plan(
    scenario: Scenario, plan: Plan, estimates: Sequence[PairEstimate] | None = None
) -> Plan:
    """``plan`` if the independent checker accepts it, else an error naming its findings."""
    from optimizer.check.rules import check_plan

    if not plan.status.has_plan:
        return plan
    report = check_plan(scenario, plan, estimates)
    return rejected(plan, report.violations) if report.violations else plan


def solve_futures_and_verify(
    scenario: Scenario,
    settings: SolverSettings,
    estimator: Callable[[Scenario], Sequence[PairEstimate]] | None = None,
    workers: int | None = None,
) -> FuturesResult:
    """``solve_futures`` with every plan checked, then the futures checked together.

    ``estimator`` gives each future's estimates (default: the estimator's);
    ``workers`` as in ``solve_futures`` (None: one process per usable core).
    A result the futures' checker rejects becomes an ``error`` result: its
    plans are kept out of the writers' reach and the findings are named.
    """
    from optimizer.check.futures import check_futures
    from optimizer.solve.futures import solve_futures

    if estimator is None:
        from optimizer.estimate.pairs import estimate_pairs

        estimator = estimate_pairs
    result = solve_futures(scenario, settings, verify_plan, estimator, workers)
    violations = check_futures(result, estimator)
    if not violations:
        return result
    return replace(
        result,
        status=SolveStatus.ERROR,
        gap=None,
        outcomes=tuple(replace(o, plan=rejected(o.plan, violations)) for o in result.outcomes),
        shared=(),
        diagnostics=(
            *result.diagnostics,
            "internal check failed: the futures' plans were not reported because the "
            "independent checker found these problems (please report this as a bug):",
            *violations,
        ),
    )
