"""SCIP is handed a first plan (``run_solver(..., start=...)`` with ``--solver scip``)."""

from __future__ import annotations

import pulp
import pyscipopt

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.scip import add_scip_start, build_scip_model, scip_outcome
from optimizer.solve.solver import run_solver

WEIGHTS = (3, 5, 7, 9, 11, 13, 17, 19)
VALUES = (4, 7, 9, 12, 15, 16, 22, 25)


def knapsack() -> pulp.LpProblem:
    """A knapsack whose LP relaxation is fractional (no plan at the root without search)."""
    problem = pulp.LpProblem("knapsack", pulp.LpMinimize)
    xs = [problem.add_variable(f"x{i}", cat=pulp.LpBinary) for i in range(len(WEIGHTS))]
    problem += pulp.lpSum(-v * x for v, x in zip(VALUES, xs, strict=True))
    problem += pulp.lpSum(w * x for w, x in zip(WEIGHTS, xs, strict=True)) <= 31
    return problem


def root_only(start: dict[str, float] | None) -> tuple[SolveStatus, float | None]:
    """SCIP stopped after the root, with no presolve, heuristics or cuts of its own."""
    problem = knapsack()
    model = build_scip_model(problem, SolverSettings(solver="scip"))
    off = pyscipopt.SCIP_PARAMSETTING.OFF
    model.setPresolve(off)
    model.setHeuristics(off)
    model.setSeparating(off)
    model.setParam("limits/totalnodes", 1)
    if start:
        add_scip_start(problem, model, start)
    model.optimize()
    status, plan, _bound = scip_outcome(model)
    return status, plan


def test_scip_keeps_a_whole_first_plan() -> None:
    assert root_only(None) == (SolveStatus.ERROR, None)  # no plan found on its own
    first = {f"x{i}": float(i < 3) for i in range(len(WEIGHTS))}  # weight 15, value 20
    assert root_only(first) == (SolveStatus.TIME_LIMIT, -20.0)


def test_run_solver_hands_scip_the_start_and_the_answer_is_unchanged() -> None:
    with_start = knapsack()
    first = {f"x{i}": float(i < 3) for i in range(len(WEIGHTS))}
    run = run_solver(with_start, SolverSettings(solver="scip"), start=first)
    alone = knapsack()
    plain = run_solver(alone, SolverSettings(solver="scip"))
    assert run.status is plain.status is SolveStatus.OPTIMAL
    assert pulp.value(with_start.objective) == pulp.value(alone.objective)
