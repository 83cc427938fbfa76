"""The LP relaxation's cost of a scenario: a proven lower bound on every plan's objective.

Used to skip MILP solves that cannot matter: the "best single GPU type"
baseline keeps only the cheapest single-type plan, so a type whose LP
relaxation already costs more than a plan found on another type needs no
MILP (company workbook: 5 of 7 types, 6.6 of 10.5 CPU-seconds; the bundled
example: 6 of 7 in each scenario). The relaxation of a single-type model
takes hundredths of a second.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace

from optimizer.domain import Scenario
from optimizer.results import PairEstimate, SolverSettings


def lp_bound(
    scenario: Scenario, estimates: Sequence[PairEstimate], settings: SolverSettings
) -> float | None:
    """The LP relaxation's optimal objective (cost, plus change_cost per move where set).

    ``math.inf``: the relaxation is infeasible, so no plan exists. None: not
    known (the model or the LP did not finish within ``settings.time_limit``,
    or Ctrl-C); such a scenario must be solved. Always HiGHS, with the settings' threads.
    """
    import highspy

    from optimizer.model.build import BuildTimeLimit, build_model
    from optimizer.solve.adapters import highs_solver, limit_from_now
    from optimizer.solve.interrupt import stop_requested
    from optimizer.solve.warm_start import interrupt_when

    started = time.perf_counter()
    deadline = None if settings.time_limit is None else started + settings.time_limit
    try:
        built = build_model(scenario, tuple(estimates), deadline=deadline)
    except BuildTimeLimit:
        return None
    solver = highs_solver(replace(settings, progress=False, time_limit=None))
    solver.createAndConfigureSolver(built.problem)
    solver.buildSolverModel(built.problem)
    highs = built.problem.solverModel
    highs.setOptionValue("solve_relaxation", True)
    limit_from_now(deadline, highs=highs)
    interrupt_when(highs, stop_requested)
    highs.run()
    status = highs.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return math.inf
    if status != highspy.HighsModelStatus.kOptimal:
        return None
    return float(highs.getInfo().objective_function_value)
