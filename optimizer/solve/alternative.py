"""One near-optimal alternative: the best plan for a goal within a cost limit, then the cheapest such.

:func:`solve_alternative` takes data only (scenario, estimates, settings, the
goal and the cost limit), so that a spawned worker process can run it; it
builds the model itself and hands back a :class:`~optimizer.results.Plan`
with the goal's figures, never a PuLP object.

Two solves, lexicographic (chosen over a small cost weight on the goal,
which would trade a little of the goal for cost by an amount that depends
on the weight): (1) minimise the goal subject to ``total cost <= limit``;
(2) fix the goal at what (1) reached (plus a tolerance the size of the
solver's own), loosen the cost cap (redundant: (1)'s plan meets it) and
minimise the total cost. The plan is (2)'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import pulp

from optimizer.domain import Scenario
from optimizer.model.build import build_model
from optimizer.model.built import BuiltModel
from optimizer.model.goal_names import GOALS, Goal
from optimizer.model.goals import FAMILY, add_cost_cap, goal_start, goal_terms
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus
from optimizer.solve.adapters import SolverRun
from optimizer.solve.assemble import _plan_from_solution
from optimizer.solve.budget import LEAST_SOLVE_S
from optimizer.solve.solver import _solver_info, run_solver
from optimizer.solve.type_subsets import fewest_types_by_subsets

# How far above its optimum the goal may land in the tie-break solve: the
# solver's feasibility tolerance, relative to the goal's size.
GOAL_TOLERANCE = 1e-7
# The solvers of a goal's two solves (the goal, then the cheapest plan
# reaching it) when the settings say ``auto``; HiGHS for goals not listed.
# Measured on the bundled example (slack 0.02), one thread each, both solvers
# given the same first plan, in CPU seconds, SCIP against HiGHS
# (docs/performance.md, "Alternatives"): first solves most_owned 17 s in
# 100 nodes against HiGHS's 6,023 nodes and 204,924 simplex iterations (over
# a minute), least_rent 16 s (136 nodes) against 2,861 nodes, fewest_gpus
# 7.8 s against 13.9 s, least_power 8.3 s against 17.4 s, least_capex 5.0 s
# against 7.4 s; second solves most_owned 7.8 s against 12.8 s, least_capex
# 1.4 s against 3.4 s, but least_rent 11.1 s against 5.5 s, fewest_gpus
# 7.8 s against 3.1 s, least_power 2.3 s against 1.8 s.
AUTO_SOLVERS: dict[Goal, tuple[str, str]] = {
    Goal.MOST_OWNED: ("scip", "scip"),
    Goal.LEAST_RENT: ("scip", "highs"),
    Goal.FEWEST_GPUS: ("scip", "highs"),
    Goal.LEAST_POWER: ("scip", "highs"),
    Goal.LEAST_CAPEX: ("scip", "scip"),
}
# Relative: a plan's cost at the solver's values may differ from the same cost
# summed from rounded decisions by this much (far below the half-cent proof).
COST_NOISE = 1e-9


@dataclass(frozen=True)
class AlternativeSolve:
    """A goal's plan and how its two solves went."""

    goal: Goal
    plan: Plan | None  # None: the cheapest plan is already best for the goal (no second solve)
    goal_bound: float | None  # the goal's value in the model at the first solve's plan
    goal_status: SolveStatus  # of the first solve (the goal's own optimum)
    goal_gap: float | None  # proven relative gap of the goal (first solve)
    seconds: float  # both solves, building included


def solve_alternative(
    scenario: Scenario,
    estimates: tuple[PairEstimate, ...],
    settings: SolverSettings,
    goal: Goal,
    cost_limit: float,
    start: dict[str, float] | None = None,
    optimum_goal: float | None = None,
    optimum_cost: float | None = None,
) -> AlternativeSolve:
    """The plan best for ``goal`` among those costing at most ``cost_limit``, cheapest among ties.

    ``start`` is the optimum's variable values by name: a plan within any
    slack, handed to HiGHS as its first plan. Without it HiGHS may search a
    long time for any plan under the cost cap (on the bundled example: none
    in 40 s for four goals of six). ``auto`` therefore means HiGHS here
    (never a race), but SCIP, given the same first plan, for the solves
    :data:`AUTO_SOLVERS` names.
    ``optimum_goal`` is the cheapest plan's value of the goal: when the first
    solve proves nothing better, that plan is the answer (it is the cheapest
    of all) and the second solve is skipped (``plan`` None). ``optimum_cost``
    is the cheapest plan's total, proven: when the first solve's plan costs
    no more, it is the cheapest plan reaching the goal (proven like the
    optimum), and the second solve is skipped too (always so at slack 0).
    """
    begun = time.perf_counter()
    deadline = None if settings.time_limit is None else begun + settings.time_limit
    # Progress lines would show goal values as USD.
    quiet = replace(settings, progress=False)
    goal_settings = tie_settings = quiet
    if quiet.solver == "auto":
        quiet = replace(quiet, solver="highs")
        first_solver, second_solver = AUTO_SOLVERS.get(goal, ("highs", "highs"))
        goal_settings = replace(quiet, solver=first_solver)
        tie_settings = replace(quiet, solver=second_solver)
    # Without the bounds by use (model/bounds.py): with a goal other than cost
    # they slow HiGHS down, measured on the example with one thread each side
    # by side: least_rent 132 s with them, 30 s without; most_owned 96 s, 71 s;
    # only fewest_types gained from them (68 s, 90 s).
    # Without the charge per move (methodology 2.16): the cap is on the plan's cost.
    built = build_model(scenario, estimates, bound_levels_by_use=False, charge_moves=False)
    cost = built.problem.objective
    cap_row = add_cost_cap(built, cost_limit)
    terms = goal_terms(built, goal)
    if goal is Goal.FEWEST_TYPES and quiet.solver == "highs" and optimum_goal is not None:
        uses = dict(zip((g.name for g in scenario.gpus), (v for v, _c in terms), strict=True))
        by_subsets = _by_subsets(built, uses, quiet, estimates, round(optimum_goal), deadline)
        if by_subsets is not None:
            plan, reached_types = by_subsets
            seconds = time.perf_counter() - begun
            return AlternativeSolve(goal, plan, reached_types, SolveStatus.OPTIMAL, 0.0, seconds)
    if _spent(deadline):
        # Too late to start: HiGHS and SCIP check their limits only after taking the
        # model and the start (4 s past a 0.3 s limit on a 100,000-integer model).
        why = "not solved: the time budget was spent"
        plan = Plan.without_plan(scenario, SolveStatus.ERROR, estimates, (why,), None)
        seconds = time.perf_counter() - begun
        return AlternativeSolve(goal, plan, None, SolveStatus.ERROR, None, seconds)
    goal_expr = pulp.LpAffineExpression(terms)
    built.problem.setObjective(goal_expr)
    first_plan = dict(start or {})
    first_plan.update(goal_start(built, goal))
    first = run_solver(built.problem, goal_settings, deadline=deadline, start=first_plan)
    if not first.status.has_plan:
        why = first.message or f"no plan within the cost limit ({first.status.value})"
        plan = Plan.without_plan(scenario, SolveStatus.ERROR, estimates, (why,), None)
        return AlternativeSolve(goal, plan, None, first.status, None, time.perf_counter() - begun)
    reached = float(pulp.value(goal_expr) or 0.0)
    if GOALS[goal].whole:
        reached = float(round(reached))
    cap = reached + GOAL_TOLERANCE * max(1.0, abs(reached))
    if (
        first.status is SolveStatus.OPTIMAL
        and optimum_goal is not None
        and optimum_goal <= reached + GOAL_TOLERANCE * max(1.0, abs(reached))
    ):
        seconds = time.perf_counter() - begun
        return AlternativeSolve(goal, None, reached, first.status, first.gap, seconds)
    if (
        first.status is SolveStatus.OPTIMAL
        and optimum_cost is not None
        and float(pulp.value(cost) or 0.0) <= optimum_cost + COST_NOISE * (abs(optimum_cost) + 1)
    ):
        # Its cost gap is the optimum's: no plan costs less than the optimum.
        proven = replace(first, gap=0.0)
        info = _solver_info(built, proven, 0.0)
        plan = _plan_from_solution(built, proven, estimates, info, quiet)
        seconds = time.perf_counter() - begun
        return AlternativeSolve(goal, plan, reached, first.status, first.gap, seconds)
    built.add_row(FAMILY, ("goal",), list(goal_expr.items()), pulp.LpConstraintLE, cap)
    # The cost cap is redundant now (the first plan meets it and the cost is
    # minimised) and a tight row parallel to the objective slows the search
    # down (on the bundled example, three goals of six took over 40 s with
    # it). PuLP 3 cannot drop a row without a deprecation warning: loosen it
    # tenfold instead, so that it never binds.
    cap_row.changeRHS(10.0 * (abs(cap_row.constant) + abs(cost_limit)) + 1.0)
    built.problem.setObjective(cost)
    reached_plan = {
        v.name: float(v.varValue) for v in built.problem.variables() if v.varValue is not None
    }
    if _spent(deadline):
        # The first solve used the time up: a second would start past the deadline and
        # still take its presolve and root (6.6 s on a 100,000-integer model, where the
        # goal had 10 s in all), so `alternatives --time-limit` would overrun.
        second = SolverRun(SolveStatus.ERROR, None, 0.0, tie_settings.solver, "-", "not started")
    else:
        second = run_solver(built.problem, tie_settings, deadline=deadline, start=reached_plan)
    diagnostics: list[str] = []
    run = second
    if not second.status.has_plan:
        # The first solve's plan is still in the variables (a failed run assigns none).
        run = replace(first, gap=None)
        diagnostics.append(
            "the cheapest plan reaching this goal was not found in time; this plan reaches "
            "the goal but may not be the cheapest that does"
        )
    info = _solver_info(built, run, 0.0)
    plan = _plan_from_solution(built, run, estimates, info, quiet)
    if first.status is SolveStatus.TIME_LIMIT:
        gap = "unknown" if first.gap is None else f"{first.gap:.2%}"
        diagnostics.append(f"the goal was not proven best: stopped at the time limit, gap {gap}")
    plan = replace(plan, diagnostics=(*diagnostics, *plan.diagnostics))
    return AlternativeSolve(
        goal=goal,
        plan=plan,
        goal_bound=reached,
        goal_status=first.status,
        goal_gap=first.gap,
        seconds=time.perf_counter() - begun,
    )


def _spent(deadline: float | None) -> bool:
    """Whether too little is left before ``deadline`` (``time.perf_counter()``) to start a solve."""
    return deadline is not None and deadline - time.perf_counter() < LEAST_SOLVE_S


def _by_subsets(
    built: BuiltModel,
    uses: dict[str, pulp.LpVariable],
    settings: SolverSettings,
    estimates: tuple[PairEstimate, ...],
    optimum_types: int,
    deadline: float | None,
) -> tuple[Plan | None, float] | None:
    """``fewest_types`` by trying subsets of types (:mod:`optimizer.solve.type_subsets`).

    The plan (None: the cheapest plan is the answer) and the goal's proven
    value; None when the subsets are too many or a solve gave no proof.
    """
    answer = fewest_types_by_subsets(built.problem, uses, settings, optimum_types, deadline)
    if answer is None:
        return None
    if answer.run is None:
        return None, float(answer.types)
    info = _solver_info(built, answer.run, 0.0)
    return _plan_from_solution(built, answer.run, estimates, info, settings), float(answer.types)
