"""Near-optimal alternatives (``gpumix alternatives``): plans within a slack of the optimum that push a goal.

Solve the optimum (as ``gpumix solve`` does, checked), then for each goal the
best plan for that goal among plans costing at most ``slack`` more than the
optimum (:mod:`optimizer.solve.alternative`), side by side in spawned worker
processes when cores allow (data goes to the workers, never a PuLP model).
Every alternative is checked by the independent checker, which also confirms
the slack from both plans' recomputed totals; a plan it rejects becomes an
``error`` result naming the findings.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from optimizer.analysis.goal_values import fleet_summary, goal_value
from optimizer.check.rules import check_plan
from optimizer.check.slack import slack_violations
from optimizer.check.verify import rejected, solve_and_verify
from optimizer.domain import Scenario
from optimizer.model.goal_names import Goal
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus
from optimizer.solve.alternative import AlternativeSolve, solve_alternative
from optimizer.solve.budget import LEAST_SOLVE_S, NO_LIMIT, Budget
from optimizer.solve.cores import usable_cores

# The goals in the order their solves start: those whose solves take longest
# on the bundled example first (CPU seconds of both solves with ``auto``'s
# solvers, slack 0.02: most_owned 25 s, least_rent 21 s, fewest_gpus 11 s,
# least_power 10 s, least_capex 6 s, fewest_types 1 s by its subsets).
# Results keep the goals' order.
_LONGEST_FIRST = (
    Goal.MOST_OWNED,
    Goal.LEAST_RENT,
    Goal.FEWEST_GPUS,
    Goal.LEAST_POWER,
    Goal.LEAST_CAPEX,
    Goal.FEWEST_TYPES,
)


@dataclass(frozen=True)
class Alternative:
    """One goal's plan, checked, with the goal's value recomputed from the plan."""

    goal: Goal
    plan: Plan
    goal_value: float | None
    goal_status: SolveStatus  # was the goal itself proven best (first solve)?
    goal_gap: float | None
    seconds: float


@dataclass(frozen=True)
class AlternativesResult:
    """The optimum, each goal's alternative, and what a reader must know about both."""

    scenario: Scenario
    slack: float
    optimum: Plan
    optimum_goal_values: dict[Goal, float | None]
    cost_limit: float | None  # the optimum's checked total + slack x its size
    alternatives: tuple[Alternative, ...]
    diagnostics: tuple[str, ...]
    optimum_seconds: float
    seconds: float  # the whole run, wall clock
    workers: int


# With --time-limit, the cheapest plan's share of the budget; the goals get the rest.
OPTIMUM_SHARE = 0.4


def run_alternatives(
    scenario: Scenario,
    settings: SolverSettings,
    goals: Sequence[Goal],
    slack: float,
    *,
    jobs: int | None = None,
    estimates: Sequence[PairEstimate] | None = None,
    budget: Budget | None = None,
) -> AlternativesResult:
    """The optimum and one checked alternative per goal (in ``goals`` order).

    ``estimates`` default to the estimator's (tests hand in their own).
    ``budget`` (the command's ``--time-limit``): the optimum gets
    :data:`OPTIMUM_SHARE` of it, the goals what is left, each an equal part of
    what is left when it starts (:func:`alternative_by`).
    """
    from optimizer.estimate.pairs import estimate_pairs

    begun = time.perf_counter()
    estimates = tuple(estimate_pairs(scenario) if estimates is None else estimates)
    start: dict[str, float] = {}

    def keep_values(built: Any) -> None:
        # The optimum's values: a first plan for every goal's solve (data, not the model).
        start.update(
            {v.name: float(v.varValue) for v in built.problem.variables() if v.varValue is not None}
        )

    budget = budget or NO_LIMIT
    optimum_settings = budget.settings(settings, OPTIMUM_SHARE)
    optimum = solve_and_verify(scenario, optimum_settings, estimates, keep_values)
    optimum_seconds = time.perf_counter() - begun
    values = {g: goal_value(optimum, g) for g in goals}
    if not optimum.status.has_plan:
        why = "no alternatives: the scenario has no plan to start from"
        return AlternativesResult(
            scenario,
            slack,
            optimum,
            values,
            None,
            (),
            (why,),
            optimum_seconds,
            time.perf_counter() - begun,
            0,
        )
    checking = time.perf_counter()
    optimum_total = check_plan(scenario, optimum, estimates).total_cost
    check_seconds = time.perf_counter() - checking
    # Above the optimum by the slack's share of its size: a total below zero (residual
    # credit above costs) times (1 + slack) would lie below the optimum itself.
    limit = optimum_total + slack * abs(optimum_total)
    diagnostics: list[str] = []
    if optimum.status is not SolveStatus.OPTIMAL or (optimum.gap or 0.0) > 0:
        gap = "unknown" if optimum.gap is None else f"{optimum.gap:.3%}"
        diagnostics.append(
            f"the optimum was not proven (status {optimum.status.value}, gap {gap}): the slack "
            "is measured from the best plan found, and a cheaper plan may exist"
        )
    if settings.gap > 0:
        diagnostics.append(
            f"the optimum is proven only to within --gap {settings.gap:g}: the slack is "
            "measured from that plan, and a cheaper plan may exist"
        )
    # The optimum's total lets a goal's solve stop after its first step (see
    # solve_alternative) only when that total is proven cheapest.
    proven = None if diagnostics else optimum_total
    workers, worker_settings = _workers(settings, len(goals), jobs)
    # Longest first, so that the short ones fill the other worker's time at the end.
    order = sorted(range(len(goals)), key=lambda i: _LONGEST_FIRST.index(goals[i]))
    # Reading a plan out of the model comes after a solve's limit: as long as the
    # optimum's solve ran past its own (0.1 s on the example, 2-3 s at 100,000
    # integers). Each goal keeps that back, and the checks of every goal's plan
    # at the end are set aside too, as long each as the optimum's took.
    overrun = max(0.0, optimum_seconds - (optimum_settings.time_limit or optimum_seconds))
    left = budget.left()
    end = None if left is None else time.monotonic() + left - len(goals) * check_seconds
    tasks = [
        (
            None if end is None else end - overrun,
            (len(goals) - 1 - rank) // workers,  # goals its worker still has to solve after it
            (
                scenario,
                estimates,
                worker_settings,
                goals[i],
                limit,
                start,
                values[goals[i]],
                proven,
            ),
        )
        for rank, i in enumerate(order)
    ]
    from optimizer.analysis.executors import open_executor, run_in_order

    with open_executor(jobs=workers, tasks=len(tasks)) as executor:
        done = run_in_order(executor, alternative_by, tasks)
    solved: list[AlternativeSolve] = [done[order.index(i)] for i in range(len(goals))]
    alternatives = tuple(
        _checked(scenario, estimates, one, optimum, optimum_total, slack) for one in solved
    )
    return AlternativesResult(
        scenario=scenario,
        slack=slack,
        optimum=optimum,
        optimum_goal_values=values,
        cost_limit=limit,
        alternatives=alternatives,
        diagnostics=tuple(diagnostics),
        optimum_seconds=optimum_seconds,
        seconds=time.perf_counter() - begun,
        workers=workers,
    )


def alternative_by(end: float | None, later: int, arguments: tuple[Any, ...]) -> AlternativeSolve:
    """:func:`solve_alternative` within an equal part of what is left until ``end``
    (``time.monotonic()``, the same clock in every process; None: the settings' own
    limit), shared with the ``later`` goals its worker still has to solve after it.

    Counted when the goal starts, not when the goals were handed out: a goal that
    starts late (the one before it ran long) gets less, so that the last ends by
    ``end``; one that starts early gets more. Module-level, so that a spawned
    worker can run it.
    """
    scenario, estimates, settings, *rest = arguments
    if end is not None:
        share = (end - time.monotonic()) / (1 + later)
        settings = replace(settings, time_limit=max(LEAST_SOLVE_S, share))
    return solve_alternative(scenario, estimates, settings, *rest)


def _workers(settings: SolverSettings, tasks: int, jobs: int | None) -> tuple[int, SolverSettings]:
    """How many processes solve goals, and with what settings.

    One solver thread per process when several run (``auto`` stays ``auto``:
    a goal's solves never race, see :func:`solve_alternative`, but pick the
    solver by goal); the solver's progress lines are never printed (they
    would show goal values as dollars).
    """
    cores = usable_cores()
    workers = jobs if jobs is not None else cores
    workers = max(1, min(workers, tasks))
    quiet = replace(settings, progress=False)
    if workers == 1:
        return 1, quiet
    return workers, replace(quiet, threads=1)


def _checked(
    scenario: Scenario,
    estimates: tuple[PairEstimate, ...],
    one: AlternativeSolve,
    optimum: Plan,
    optimum_total: float,
    slack: float,
) -> Alternative:
    """The independent check of one alternative, its cost against the slack included."""
    if one.plan is None:
        note = "the cheapest plan is already best for this goal within the slack"
        plan = replace(optimum, diagnostics=(note, *optimum.diagnostics))
    else:
        plan = one.plan
    if plan.status.has_plan:
        report = check_plan(scenario, plan, estimates)
        violations = [
            *report.violations,
            *slack_violations(
                report.total_cost, optimum_total, slack, scenario.assumptions.currency
            ),
        ]
        if violations:
            plan = rejected(plan, violations)
    return Alternative(
        goal=one.goal,
        plan=plan,
        goal_value=goal_value(plan, one.goal),
        goal_status=one.goal_status,
        goal_gap=one.goal_gap,
        seconds=one.seconds,
    )


__all__ = ["Alternative", "AlternativesResult", "fleet_summary", "run_alternatives"]
