"""Gurobi, CPLEX, Xpress and COPT through PuLP's interfaces, when the user has them.

Takes a PuLP problem and ``results.SolverSettings`` whose ``solver`` is one
of ``results.COMMERCIAL``; hands on a
:class:`~optimizer.solve.adapters.SolverRun`. gpumix does not install these
solvers (they need the vendor's package and licence): :func:`missing_solver`
says which package to install, and the command line checks it before
anything is solved. Status and plan come from PuLP's statuses; the
proven bound is read from the solver's own model.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.adapters import (
    PROOF_TOLERANCE_USD,
    SolverRun,
    _message,
    _solve_status,
    time_left,
)
from optimizer.solve.scip import relative_gap


@dataclass(frozen=True)
class Commercial:
    """How PuLP drives one commercial solver."""

    label: str  # as users know it
    pulp_class: str  # PuLP's class for the Python interface
    package: str  # what to pip install
    options: Callable[[SolverSettings], dict[str, Any]]  # limits beyond time and gap
    bound: Callable[[Any], float]  # proven bound from the solver's model


COMMERCIAL_SOLVERS = {
    "gurobi": Commercial(
        "Gurobi",
        "GUROBI",
        "gurobipy",
        lambda s: {
            "MIPGapAbs": PROOF_TOLERANCE_USD,
            **({"Threads": s.threads} if s.threads else {}),
        },
        lambda m: float(m.ObjBound),
    ),
    "cplex": Commercial(
        "CPLEX",
        "CPLEX_PY",
        "cplex",
        lambda s: {"threads": s.threads} if s.threads else {},
        lambda m: float(m.solution.MIP.get_best_objective()),
    ),
    "xpress": Commercial(
        "Xpress",
        "XPRESS_PY",
        "xpress",
        lambda s: {},
        lambda m: float(m.attributes.bestbound),
    ),
    "copt": Commercial(
        "COPT",
        "COPT",
        "coptpy",
        lambda s: {"AbsGap": PROOF_TOLERANCE_USD, **({"Threads": s.threads} if s.threads else {})},
        lambda m: float(m.getAttr("BestBnd")),
    ),
}


def missing_solver(name: str) -> str | None:
    """Why ``--solver name`` cannot run here, or None when it can."""
    solver = COMMERCIAL_SOLVERS.get(name)
    if solver is None:
        return None
    if getattr(pulp, solver.pulp_class)(msg=False).available():
        return None
    return (
        f"usage: --solver {name} needs {solver.label}'s Python package, which is not "
        f"installed here: pip install {solver.package} (and a {solver.label} licence), "
        "or choose --solver auto"
    )


def run_commercial(
    problem: pulp.LpProblem, settings: SolverSettings, started: float, deadline: float | None
) -> SolverRun:
    """Solve with the commercial solver ``settings.solver`` names."""
    solver = COMMERCIAL_SOLVERS[settings.solver]
    reason = missing_solver(settings.solver)
    if reason is not None:
        return SolverRun(SolveStatus.ERROR, None, 0.0, solver.label, "-", reason)
    engine = getattr(pulp, solver.pulp_class)(
        msg=False, timeLimit=time_left(deadline), gapRel=settings.gap, **solver.options(settings)
    )
    problem.solve(engine)
    status = _solve_status(None, problem.status, problem.sol_status, None)
    plan = pulp.value(problem.objective) if status.has_plan else None
    try:
        bound: float | None = solver.bound(problem.solverModel)
    except Exception:  # a solver version without the attribute: the bound is unknown
        bound = None
    if bound is not None and not math.isfinite(bound):
        bound = None
    gap = relative_gap(plan, bound)
    return SolverRun(
        status=status,
        gap=0.0 if status is SolveStatus.OPTIMAL and gap is None else gap,
        seconds=time.perf_counter() - started,
        name=solver.label,
        version=f"through PuLP {pulp.__version__}",
        message=_message(status, solver.label, settings),
        bound=bound,
    )
