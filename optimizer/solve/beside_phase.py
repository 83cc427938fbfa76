"""Models too large for the race: HiGHS's search and the plan-first phase side by side.

Above :data:`optimizer.solve.plan_first.MAX_INTEGERS` integers ((20, 50,
60): 100,000-112,000) SCIP does not finish its root LP within a minute (its
bound at 60 s: -1.9e8) and HiGHS needs 20-40 s for its root alone, in steps
that do not look at the clock: started after the phase, 31 s before the
deadline, HiGHS's root ran 4-8 s past it (s20-50-60-1). So on two cores such
a model gets no SCIP: HiGHS searches the full model from the start on one
core, for its plan and its bound, while the phase (each workload's cheapest
GPU types, :mod:`optimizer.solve.plan_first`) finds a plan on the other in
a HiGHS model of its own. The cheaper of the two plans, by the cost
recomputed from its columns, is the answer, with HiGHS's bound; the checker
checks it as always.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import replace
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.adapters import (
    HighsOutcome,
    SolverRun,
    _has_integers,
    _message,
    assign_highs_values,
    highs_outcome,
    highs_solver,
    limit_from_now,
    tune_for_size,
)
from optimizer.solve.interrupt import stop_requested
from optimizer.solve.plan_first import Phase
from optimizer.solve.progress import HighsPlans, ProgressLine
from optimizer.solve.race import proven
from optimizer.solve.scip import relative_gap

NAME = "HiGHS (beside its plan-first phase)"


def run_beside_phase(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    deadline: float | None,
    phase: Phase,
) -> SolverRun:
    """HiGHS on the full model, one thread, with ``phase`` on another; the cheaper plan."""
    import highspy

    one_thread = replace(settings, threads=1)
    kinds = highspy.cb.HighsCallbackType
    interrupt = kinds.kCallbackMipInterrupt
    improving = kinds.kCallbackMipImprovingSolution
    plans = HighsPlans()  # HiGHS's plans at their real cost
    phase_best = [math.inf]  # the phase's cheapest plan so far, for the progress line
    progress = ProgressLine(settings.currency) if settings.progress else None

    def callback(kind: Any, _message: str, data_out: Any, data_in: Any, _user: Any) -> None:
        if progress is not None:
            plan = min(plans.plan(kind == improving, data_out), phase_best[0])
            progress.report(plan, data_out.mip_dual_bound)
        if kind == interrupt and stop_requested():
            data_in.user_interrupt = True

    def on_plan(values: dict[str, float]) -> None:
        phase_best[0] = min(phase_best[0], _cost(problem, values))

    solver = highs_solver(
        one_thread,
        callbackTuple=(callback, None),
        callbacksToActivate=[interrupt, improving],
    )
    solver.createAndConfigureSolver(problem)
    solver.buildSolverModel(problem)
    highs = problem.solverModel  # the phase builds its own model; this one stays HiGHS's
    plans.watch(highs)
    tune_for_size(problem, highs)
    limit_from_now(deadline, highs=highs)
    found: list[dict[str, float] | None] = []
    proved = threading.Event()  # HiGHS proved its plan or no plan: the phase may stop

    errors: list[Exception] = []

    def run_phase() -> None:
        try:
            found.append(phase(proved.is_set, on_plan))
        except Exception as error:  # HiGHS's plan still answers; raised when there is none
            errors.append(error)

    # Until the phase has ended this thread leaves the PuLP problem alone: its
    # variables() re-sorts a list the phase reads (a plan of 9,138 of 25,226
    # columns came back, costed $132,835.01, when this thread listed them).
    integers = _has_integers(problem)
    side = threading.Thread(target=run_phase, name="gpumix-phase")
    side.start()
    highs.run()
    outcome = highs_outcome(highs, integers)
    if outcome.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
        proved.set()
    side.join()
    problem.solverModel = highs  # the phase built its own model from the same problem
    phase_plan = found[0] if found else None
    if errors and outcome.plan is None:
        raise errors[0]
    return _outcome(problem, settings, started, highs, outcome, phase_plan, integers)


def _outcome(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    highs: Any,
    outcome: HighsOutcome,
    phase_plan: dict[str, float] | None,
    integers: bool,
) -> SolverRun:
    """The cheaper of HiGHS's plan and the phase's, with HiGHS's bound."""
    own = outcome.plan if outcome.plan is not None else math.inf
    whole = phase_plan is not None and len(phase_plan) == len(problem.variables())
    # A plan that names fewer columns than the model has is no plan (its missing
    # columns would read as 0): the answer is then HiGHS's alone.
    phase_cost = _cost(problem, phase_plan) if whole and phase_plan is not None else math.inf
    seconds = time.perf_counter() - started
    version = highs.version()
    if not (math.isfinite(own) or math.isfinite(phase_cost)):
        failed = outcome.status if outcome.status is SolveStatus.INFEASIBLE else SolveStatus.ERROR
        message = _message(failed, NAME, settings, outcome.raw)
        return SolverRun(failed, None, seconds, NAME, version, message)
    if own <= phase_cost:
        assign_highs_values(problem, highs)
        plan = own
    else:
        assert phase_plan is not None  # its cost is finite
        for var in problem.variables():
            var.varValue = phase_plan.get(var.name, 0.0)
        plan = phase_cost
    bound = None if outcome.bound is None else min(outcome.bound, plan)
    optimal = bound is not None and proven(plan, bound, settings)
    status = SolveStatus.OPTIMAL if optimal else SolveStatus.TIME_LIMIT
    return SolverRun(
        status=status,
        gap=relative_gap(plan, bound) if integers else 0.0,
        seconds=seconds,
        name=NAME,
        version=version,
        message=_message(status, NAME, settings),
        bound=bound,
    )


def _cost(problem: pulp.LpProblem, values: dict[str, float]) -> float:
    """The objective at a plan by variable name (a name left out is 0)."""
    objective = problem.objective
    return float(
        objective.constant + sum(c * values.get(v.name, 0.0) for v, c in objective.items())
    )
