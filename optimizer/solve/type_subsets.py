"""Fewest GPU types by trying the subsets of types, smallest first: exact, and fast when they are few.

The MILP of the ``fewest_types`` goal (minimise the ``uses`` binaries under
the cost cap) finds a plan on few types at once but then takes a minute or
more on the bundled example to prove that no plan within the slack uses one
type fewer. The question splits by subsets instead: a plan uses at most
``k`` types exactly when it uses only the types of some subset ``S`` of
size ``k``. So, for ``k = 1, 2, ...`` below the types the cheapest plan
uses, and every subset ``S`` of ``k`` types, the model restricted to ``S``
(``uses[g]`` fixed at 0 for every other type, which fixes all their work at
0) with the cost cap row is solved:

* its LP relaxation infeasible (no plan on ``S`` within the cost limit even
  with fractional GPUs): ``S`` is out;
* otherwise its MILP minimising the cost: infeasible, ``S`` is out;
  optimal, ``S`` has a plan within the limit.

The first ``k`` with a subset that has a plan is the goal's proven value
(every smaller subset has none), and the cheapest plan using at most ``k``
types is the cheapest of those subsets' plans (plans on fewer types all
cost more than the limit). Subsets are solved in the order of their LP
bounds, and one whose bound is no lower than the cheapest plan so far is
not solved (it cannot be cheaper). When no subset smaller than the cheapest
plan's has a plan, the cheapest plan itself is the answer.

One HiGHS model is built and reused: only the bounds of the ``uses``
columns change between solves. Above :data:`MOST_SUBSETS` subsets (or when
a solve stops for any reason other than a proof) :func:`fewest_types_by_subsets`
returns None and the caller solves the MILP.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.adapters import (
    SolverRun,
    highs_outcome,
    highs_solver,
    limit_from_now,
)

# More subsets than this (of the sizes below the cheapest plan's types): the MILP.
MOST_SUBSETS = 30


@dataclass(frozen=True)
class SubsetAnswer:
    """The goal's proven value, and the cheapest plan reaching it (None: the cheapest plan)."""

    types: int
    run: SolverRun | None  # its values are in the PuLP variables; None: no subset smaller
    subsets: int  # subsets whose LP relaxation was solved
    milps: int  # subsets whose MILP was solved


def subsets_to_try(types: int, optimum_types: int) -> int:
    """How many subsets of ``types`` types have fewer than ``optimum_types`` of them."""
    return sum(math.comb(types, k) for k in range(1, min(optimum_types, types + 1)))


def fewest_types_by_subsets(
    problem: pulp.LpProblem,
    uses: dict[str, pulp.LpVariable],
    settings: SolverSettings,
    optimum_types: int,
    deadline: float | None = None,
) -> SubsetAnswer | None:
    """The fewest types of any plan of ``problem`` (cost cap row included, cost minimised).

    ``uses`` maps each GPU type to its binary (fixing it at 0 fixes the
    type's work at 0); ``optimum_types`` is the types the cheapest plan
    uses. None: too many subsets, or a solve ended without a proof.
    """
    if subsets_to_try(len(uses), optimum_types) > MOST_SUBSETS:
        return None
    begun = time.perf_counter()
    solver = highs_solver(settings)
    solver.createAndConfigureSolver(problem)
    solver.buildSolverModel(problem)
    highs = problem.solverModel
    try:
        return _search(problem, highs, uses, optimum_types, deadline, begun)
    except _NoProof:
        return None


class _NoProof(Exception):
    """A solve ended without a proof (time limit, error): the MILP decides instead."""


def _search(
    problem: pulp.LpProblem,
    highs: Any,
    uses: dict[str, pulp.LpVariable],
    optimum_types: int,
    deadline: float | None,
    begun: float,
) -> SubsetAnswer:
    """Subsets of 1, 2, ... types, each pruned by its LP relaxation or solved."""
    names = list(uses)
    lps = milps = 0
    for k in range(1, optimum_types):
        bounded: list[tuple[float, tuple[str, ...]]] = []
        for subset in combinations(names, k):
            _restrict(highs, uses, subset)
            lps += 1
            bound = _relaxation(highs, deadline)
            if bound is not None:
                bounded.append((bound, subset))
        best: tuple[float, list[float]] | None = None
        floor = math.inf
        for bound, subset in sorted(bounded):
            if best is not None and bound >= best[0]:
                break  # no later subset can be cheaper
            _restrict(highs, uses, subset)
            milps += 1
            solved = _cheapest(highs, deadline)
            if solved is None:
                continue
            cost, dual, values = solved
            floor = min(floor, dual)
            if best is None or cost < best[0]:
                best = (cost, values)
        if best is not None:
            cost, values = best
            for var in problem.variables():
                var.varValue = values[var.index]
            floor = min(floor, cost)
            run = SolverRun(
                status=SolveStatus.OPTIMAL,
                gap=max(0.0, (cost - floor) / abs(cost)) if cost else 0.0,
                seconds=time.perf_counter() - begun,
                name="HiGHS",
                version=highs.version(),
                bound=floor,
            )
            return SubsetAnswer(k, run, lps, milps)
    return SubsetAnswer(optimum_types, None, lps, milps)


def _restrict(highs: Any, uses: dict[str, pulp.LpVariable], subset: tuple[str, ...]) -> None:
    """Let only the types of ``subset`` do work."""
    for g, var in uses.items():
        highs.changeColBounds(var.index, 0.0, 1.0 if g in subset else 0.0)


def _relaxation(highs: Any, deadline: float | None) -> float | None:
    """The LP relaxation's cost; None: infeasible (:class:`_NoProof`: neither, proven)."""
    import highspy

    highs.setOptionValue("solve_relaxation", True)
    limit_from_now(deadline, highs=highs)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return None
    if status != highspy.HighsModelStatus.kOptimal:
        raise _NoProof
    return float(highs.getInfo().objective_function_value)


def _cheapest(highs: Any, deadline: float | None) -> tuple[float, float, list[float]] | None:
    """The restricted MILP: (cost, proven bound, values); None: infeasible (:class:`_NoProof`)."""
    highs.setOptionValue("solve_relaxation", False)
    limit_from_now(deadline, highs=highs)
    highs.run()
    outcome = highs_outcome(highs, True)
    if outcome.status is SolveStatus.INFEASIBLE:
        return None
    if outcome.status is not SolveStatus.OPTIMAL or outcome.plan is None:
        raise _NoProof
    bound = outcome.bound if outcome.bound is not None else outcome.plan
    return outcome.plan, bound, list(highs.getSolution().col_value)


__all__ = ["MOST_SUBSETS", "SubsetAnswer", "fewest_types_by_subsets", "subsets_to_try"]
