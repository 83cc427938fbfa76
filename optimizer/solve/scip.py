"""SCIP through PuLP's ``SCIP_PY`` (the ``pyscipopt`` wheel), reported in our terms.

Takes a PuLP problem and ``results.SolverSettings``; builds SCIP's model with
PuLP, solves it and hands on a :class:`~optimizer.solve.adapters.SolverRun`.
Status, best plan and proven bound are read from SCIP itself
(``getStatus``, ``getPrimalbound``, ``getDualbound``): PuLP reports SCIP's
"gap limit reached" as not solved.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.adapters import (
    PROOF_TOLERANCE_USD,
    SolverRun,
    _message,
    limit_from_now,
    relative_gap,
)
from optimizer.solve.progress import ProgressLine, finite

# How often a solver's frequent callbacks hand on its best plan and bound.
REPORT_EVERY_S = 0.05

# SCIP statuses after which SCIP may hold a plan that was not proven optimal.
_STOPPED = {
    "timelimit",
    "userinterrupt",
    "nodelimit",
    "totalnodelimit",
    "stallnodelimit",
    "memlimit",
    "sollimit",
    "bestsollimit",
    "restartlimit",
    "primallimit",
    "duallimit",
}


def build_scip_model(problem: pulp.LpProblem, settings: SolverSettings) -> Any:
    """SCIP's model of ``problem`` with the settings' limits (``var.solverVar`` set by PuLP)."""
    solver = pulp.SCIP_PY(
        msg=False,
        timeLimit=settings.time_limit,
        gapRel=settings.gap,
        gapAbs=PROOF_TOLERANCE_USD,
    )
    solver.buildSolverModel(problem)
    model = problem.solverModel
    # SCIP would catch Ctrl-C for its own search only, hiding it from gpumix's
    # handler (optimizer.solve.interrupt), which stops every search.
    model.setParam("misc/catchctrlc", False)
    return model


def scip_outcome(model: Any) -> tuple[SolveStatus, float | None, float | None]:
    """(status, best plan's cost, proven bound) as SCIP reports them."""
    raw = model.getStatus()
    has_plan = model.getNSols() > 0
    plan = float(model.getPrimalbound()) if has_plan else None
    dual = float(model.getDualbound())
    bound = dual if finite(dual) else None
    if raw in ("optimal", "gaplimit") and has_plan:
        status = SolveStatus.OPTIMAL
    elif raw in ("infeasible", "inforunbd"):
        # Every cost is >= 0 but the residual credit, so the model is never unbounded.
        status = SolveStatus.INFEASIBLE
    elif raw in _STOPPED:
        status = SolveStatus.TIME_LIMIT if has_plan else SolveStatus.ERROR
    else:
        status = SolveStatus.ERROR
    return status, plan, bound


def assign_scip_values(problem: pulp.LpProblem, model: Any) -> None:
    """Copy SCIP's best plan into the PuLP variables (what PuLP's own read-back does)."""
    solution = model.getBestSol()
    for var in problem.variables():
        var.varValue = solution[var.solverVar]


def scip_version() -> str:
    import pyscipopt

    return f"SCIP {pyscipopt.Model().version()} (pyscipopt {pyscipopt.__version__})"


def _run_scip(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    deadline: float | None,
    start: dict[str, float] | None = None,
) -> SolverRun:
    """SCIP alone, one thread (SCIP's MIP search is sequential).

    ``start`` (variable name -> value, any subset) is handed to SCIP as a
    partial first plan, which SCIP completes (:func:`add_scip_start`).
    """
    model = build_scip_model(problem, settings)
    limit_from_now(deadline, scip=model)
    if start:
        add_scip_start(problem, model, start)
    # Always watched: the watch is where a Ctrl-C stops SCIP's search.
    progress = ProgressLine(settings.currency).report if settings.progress else None
    model.includeEventhdlr(
        scip_watch(lambda plan, bound: progress is not None and progress(plan, bound)),
        "gpumix-watch",
        "progress",
    )
    model.optimizeNogil()
    status, plan, bound = scip_outcome(model)
    if status.has_plan:
        assign_scip_values(problem, model)
    gap = relative_gap(plan, bound) if status.has_plan else None
    return SolverRun(
        status=status,
        gap=0.0 if status is SolveStatus.OPTIMAL and gap is None else gap,
        seconds=time.perf_counter() - started,
        name="SCIP",
        version=scip_version(),
        message=_message(status, "SCIP", settings, model.getStatus()),
        bound=bound,
    )


def add_scip_start(problem: pulp.LpProblem, model: Any, start: dict[str, float]) -> None:
    """Hand SCIP a first plan by variable name: whole, or partial for SCIP to complete.

    On the bundled example's ``most_owned`` alternative, SCIP given the
    cheapest plan proved the goal in 100 nodes (36 s on a loaded machine),
    without it in 100 s.
    """
    variables = problem.variables()
    given = [var for var in variables if var.name in start]
    plan = model.createSol() if len(given) == len(variables) else model.createPartialSol()
    for var in given:
        model.setSolVal(plan, var.solverVar, start[var.name])
    model.addSol(plan)


def try_scip_plan(
    variables: Sequence[pulp.LpVariable], model: Any, values: dict[str, float], heur: Any = None
) -> bool:
    """Offer SCIP a whole plan by variable name during its search; whether SCIP kept it.

    ``variables``: the problem's, listed before any thread started. PuLP's
    ``problem.variables()`` sorts its live list in place, and a thread that
    reads that list meanwhile sees it cut short (a plan of 9,138 of 25,226
    columns was handed on that way).
    """
    # In the original space: during the search createSol's values are the
    # transformed problem's, and SCIP refuses original variables there.
    plan = model.createOrigSol(heur)
    for var in variables:
        model.setSolVal(plan, var.solverVar, values.get(var.name, 0.0))
    return bool(model.trySol(plan, printreason=False, free=True))


def include_handed_plans(
    model: Any, problem: pulp.LpProblem, handed: list[dict[str, float]]
) -> None:
    """A SCIP heuristic that offers SCIP the plans another thread puts in ``handed``.

    Plans found beside SCIP's search (the plan-first phase in the race) may
    reach SCIP only from SCIP's own thread, and only where SCIP expects new
    plans: a heuristic, called before each node and in every round of the
    root's cut loop. (An event handler that added them after LP solves
    crashed SCIP 10 with a segmentation fault in 3 runs of 3 on the company
    workbook.)
    """
    from pyscipopt import SCIP_HEURTIMING, SCIP_RESULT, Heur

    variables = tuple(problem.variables())  # here, before the threads: see try_scip_plan

    class HandedPlans(Heur):
        def heurexec(self, heurtiming: Any, nodeinfeasible: bool) -> dict[str, Any]:
            found = False
            while handed:
                found = try_scip_plan(variables, self.model, handed.pop(0), self) or found
            return {"result": SCIP_RESULT.FOUNDSOL if found else SCIP_RESULT.DIDNOTFIND}

    model.includeHeur(
        HandedPlans(),
        "gpumix-handed",
        "plans found beside the search",
        "G",
        priority=1_000_000,
        freq=1,
        freqofs=0,
        maxdepth=-1,
        timingmask=SCIP_HEURTIMING.BEFORENODE | SCIP_HEURTIMING.DURINGLPLOOP,
    )


def scip_watch(
    report: Callable[[float, float], bool], stopped: Callable[[], bool] = lambda: False
) -> Any:
    """An event handler that hands SCIP's best plan and proven bound to ``report``.

    Called after every LP solve (so also during a long root phase), node and
    new plan; it reports at most every REPORT_EVERY_S seconds and on every new
    plan, and in between only asks ``stopped()``. ``report(plan, bound)``
    returns True when the search should stop (the race is decided); the
    handler then interrupts SCIP from SCIP's own thread: SCIP refuses an
    interrupt from outside in some stages of its solve. (pyscipopt is
    imported here: only runs that use SCIP pay for it.)
    """
    from pyscipopt import SCIP_EVENTTYPE, SCIP_STAGE, Eventhdlr

    from optimizer.solve.interrupt import stop_requested

    interruptible = {
        SCIP_STAGE.TRANSFORMED,
        SCIP_STAGE.INITPRESOLVE,
        SCIP_STAGE.PRESOLVING,
        SCIP_STAGE.SOLVING,
    }

    mask = SCIP_EVENTTYPE.LPSOLVED | SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND
    last = [0.0]

    class ScipWatch(Eventhdlr):
        def eventinit(self) -> None:
            self.model.catchEvent(mask, self)

        def eventexit(self) -> None:
            self.model.dropEvent(mask, self)

        def eventexec(self, event: Any) -> None:
            model = self.model
            now = time.perf_counter()
            new_plan = event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND
            if new_plan or now - last[0] >= REPORT_EVERY_S:
                last[0] = now
                plan = float(model.getPrimalbound()) if model.getNSols() > 0 else math.inf
                stop = report(plan, float(model.getDualbound()))
            else:
                stop = stopped()
            stop = stop or stop_requested()
            # SCIP takes an interrupt only in some stages (not while it starts
            # the search, when a first plan may already be found); in any
            # other the race's stop flag is seen again at the next event.
            if stop and model.getStage() in interruptible:
                model.interruptSolve()

    return ScipWatch()
