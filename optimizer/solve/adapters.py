"""Solver adapters: HiGHS and CBC through PuLP, reported in our terms.

Takes a PuLP problem and ``results.SolverSettings``; builds the PuLP solver
object, solves the problem in place and hands on a :class:`SolverRun` (status,
proven gap and bound, seconds, solver name and version, message), never a PuLP
object. Solver statuses become ``results.SolveStatus`` in :func:`_solve_status`
and nowhere else; CBC's proven bound is read from its log.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.progress import HighsPlans, _Progress

# A plan counts as proven cheapest when no plan can be cheaper by more than
# half a cent (the solver's absolute gap); --gap adds a relative tolerance.
PROOF_TOLERANCE_USD = 0.005


@dataclass(frozen=True)
class SolverRun:
    """What one solver run gave, in our terms (no PuLP object)."""

    status: SolveStatus
    gap: float | None  # proven relative gap of the incumbent; None when unknown
    seconds: float
    name: str
    version: str
    message: str = ""  # why, when the status is ERROR or a limit stopped the run
    bound: float | None = None  # proven lower bound on the cost of any plan (HiGHS)


_banner_silenced = False


def _silence_highs_banner() -> None:
    """HiGHS prints its banner on file descriptor 1 when the first Highs object is made.

    Standard output carries ``--json`` and ``--quiet`` promises silence, so
    make that first object with fd 1 pointed at the null device; later
    objects print nothing.
    """
    global _banner_silenced
    if _banner_silenced:
        return
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    _banner_silenced = True


_scheduler_threads: int | None = None


def _use_threads(threads: int | None) -> None:
    """HiGHS keeps one global thread pool per process, sized by the first solve.

    A later solve asking for a different ``threads`` fails ("global scheduler
    has already been initialized"), so rebuild the pool when the number
    changes. Solves in one process run one at a time, so no solve is using
    the pool when it is rebuilt.
    """
    global _scheduler_threads
    if threads is None:
        # HiGHS sizes the pool itself (and may rebuild it) when no count is
        # given: forget the count, so that the next solve asking for one
        # rebuilds the pool (after an alternatives run, a 1-thread solve
        # in the same process failed: "already initialized to use 2 threads").
        _scheduler_threads = None
        return
    if threads == _scheduler_threads:
        return
    import highspy

    highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads = threads


def highs_solver(settings: SolverSettings, **extra: Any) -> pulp.HiGHS:
    """PuLP's HiGHS object with the settings' limits and gpumix's search options."""
    _silence_highs_banner()
    _use_threads(settings.threads)
    # Two root-node heuristics and restarts are switched off. Each is a
    # search setting only: the model, and so every optimal value, is
    # unchanged. On the bundled example feasibility jump and the root
    # reduced-cost heuristic spent 0.5-1.5 s a scenario finding nothing the
    # search did not find anyway (three scenarios: 4.6 -> 1.8 s of solving),
    # and a restart after root fixing redoes the root's work (europe 1.5 ->
    # 1.2 s). On the synthetic benchmarks the proven gap after 20 s is the
    # same within run-to-run noise at (10, 20, 36), and at (20, 50, 60)
    # feasibility jump's first plans led the search astray (gap 88-90 %
    # instead of 20-32 % on seeds 2 and 3).
    return pulp.HiGHS(
        msg=False,
        gapRel=settings.gap,
        gapAbs=PROOF_TOLERANCE_USD,
        timeLimit=settings.time_limit,
        threads=settings.threads,
        mip_allow_restart=False,
        mip_heuristic_run_feasibility_jump=False,
        mip_heuristic_run_root_reduced_cost=False,
        **extra,
    )


@dataclass(frozen=True)
class HighsOutcome:
    """What a finished HiGHS run holds: status, best plan's cost, proven bound, raw status."""

    status: SolveStatus
    plan: float | None  # recomputed from the plan's columns, not HiGHS's own figure
    bound: float | None
    raw: str
    # HiGHS's objective value was not its plan's cost (see highs_outcome)
    misreported: bool = False

    @property
    def false_optimum(self) -> bool:
        """HiGHS stopped as "optimal" at a plan whose cost it misjudged: no proof, and
        a search that ended early (given a first plan, it may stop at that plan)."""
        return self.misreported and self.raw == "Optimal"


# Below this many integers (the bundled example's 2,969; the plan-first phase
# starts at 4,000) HiGHS searches with more heuristic effort than its 0.05:
# one thread, the example in process, tight-capex took 1,060-1,385 nodes and
# 7.1-8.1 s on three seeds at 0.05-0.1 and 135-240 nodes and 3.9-4.1 s at
# 0.2-0.5; europe (119 nodes) and us-baseline (13) did not change; the
# buy-only baselines took 147/108 nodes instead of 414/116. Larger models
# keep the default: their first plans come from the plan-first phase.
SMALL_MODEL_INTEGERS = 4000
SMALL_MODEL_HEURISTIC_EFFORT = 0.2


def tune_for_size(problem: pulp.LpProblem, highs: Any) -> None:
    """More heuristic effort on small models (see :data:`SMALL_MODEL_HEURISTIC_EFFORT`)."""
    integers = sum(1 for v in problem.variables() if v.cat == pulp.LpInteger)
    if 0 < integers < SMALL_MODEL_INTEGERS:
        highs.setOptionValue("mip_heuristic_effort", SMALL_MODEL_HEURISTIC_EFFORT)


def highs_outcome(highs: Any, has_integers: bool) -> HighsOutcome:
    """Read status, plan and bound from HiGHS's own model status and info.

    The plan's cost is recomputed from its columns. HiGHS 1.16, given a
    first plan, can misjudge its cost after presolve (a plan of $3,620
    "feasible in the reduced space: objective value is 300"; on (20, 50, 60)
    $494,225.88 for a $495,969.75 plan) and then stop at it as "optimal",
    pruning with a value below its real cost. Its bound stays a bound (a node
    is pruned only where its LP bound passes that value), but such an
    "optimal" is no proof: it reads as a stop at the limit, and whether the
    bound proves the plan is judged from the recomputed cost.
    """
    model_status = highs.getModelStatus()
    hinfo = highs.getInfo()
    has_incumbent = int(hinfo.primal_solution_status) == 2  # kSolutionStatusFeasible
    status = _solve_status(model_status, None, None, has_incumbent)
    plan = highs_plan_cost(highs) if status.has_plan else None
    bound = float(hinfo.mip_dual_bound) if math.isfinite(hinfo.mip_dual_bound) else None
    reported = float(hinfo.objective_function_value)
    misreported = plan is not None and abs(plan - reported) > 1e-6 * max(1.0, abs(plan))
    if misreported and status is SolveStatus.OPTIMAL and has_integers:
        status = SolveStatus.TIME_LIMIT
    if status is SolveStatus.OPTIMAL and not has_integers:
        bound = plan  # a pure LP: its optimum is its own bound
    raw = highs.modelStatusToString(model_status)
    return HighsOutcome(status, plan, bound, raw, misreported)


def relative_gap(plan: float | None, bound: float | None) -> float | None:
    """HiGHS's convention ``(plan - bound) / plan``, never below 0; None when unknown."""
    if plan is None or bound is None:
        return None
    return max(0.0, plan - bound) / max(abs(plan), 1e-9)


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (a ``time.perf_counter()`` value), at least 0.01; None: no limit."""
    return None if deadline is None else max(0.01, deadline - time.perf_counter())


def limit_from_now(deadline: float | None, highs: Any = None, scip: Any = None) -> None:
    """Give the solvers what is left of the time limit once their models are built.

    Handing a large model to a solver takes seconds (2-3 s at (20, 50, 60));
    ``--time-limit`` covers it, as it covers building the model.
    """
    left = time_left(deadline)
    if left is None:
        return
    if highs is not None:
        highs.setOptionValue("time_limit", left)
    if scip is not None:
        scip.setParam("limits/time", left)


def highs_plan_cost(highs: Any) -> float:
    """The cost of the plan ``highs`` holds, recomputed from its columns and costs."""
    lp = highs.getLp()
    values = highs.getSolution().col_value
    return float(lp.offset_ + sum(c * x for c, x in zip(lp.col_cost_, values, strict=True)))


def assign_highs_values(problem: pulp.LpProblem, highs: Any) -> None:
    """Copy HiGHS's plan into the PuLP variables (``var.index`` set by PuLP's build)."""
    values = list(highs.getSolution().col_value)
    for var in problem.variables():
        var.varValue = values[var.index]


def _run_highs(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    deadline: float | None,
    start: dict[str, float] | None = None,
    picks: Sequence[Sequence[str]] | None = None,
    options: dict[str, Any] | None = None,
) -> SolverRun:
    """HiGHS through PuLP; status, gap and bound from HiGHS's own model status and info.

    ``start`` (variable name -> value, any subset) is handed to HiGHS as a
    first plan; HiGHS completes the variables it leaves out. Without one,
    ``picks`` (each training job's pick variables) may give a restricted
    warm start (:mod:`optimizer.solve.warm_start`) on large models.
    ``options`` are HiGHS options for this solve, on top of gpumix's.
    """
    import highspy

    extra: dict[str, Any] = dict(options or {})
    kinds = highspy.cb.HighsCallbackType
    # Always a callback: it is where a Ctrl-C (optimizer.solve.interrupt) stops
    # the search, and where Python gets to run its signal handler at all.
    plans = HighsPlans()
    extra["callbackTuple"] = (_stoppable(settings, plans), None)
    extra["callbacksToActivate"] = [
        kinds.kCallbackMipInterrupt,
        kinds.kCallbackMipImprovingSolution,
    ]
    solver = highs_solver(settings, **extra)
    solver.createAndConfigureSolver(problem)
    solver.buildSolverModel(problem)
    highs = problem.solverModel
    plans.watch(highs)
    tune_for_size(problem, highs)
    if not start:
        from optimizer.solve.warm_start import maybe_warm_start

        start = maybe_warm_start(problem, highs, settings, deadline, picks)
    limit_from_now(deadline, highs=highs)
    if start:
        _set_start(problem, highs, start)
    highs.run()
    integers = _has_integers(problem)
    outcome = highs_outcome(highs, integers)
    status = outcome.status
    if status.has_plan:
        assign_highs_values(problem, highs)
        if start and outcome.false_optimum:
            # HiGHS 1.16, given a first plan, can stop at it as "optimal" at a
            # cost that is not its cost (highs_outcome): solve again without
            # it, within what is left of the limit.
            return _run_highs(problem, settings, started, deadline, options=options)
    seconds = time.perf_counter() - started
    hinfo = highs.getInfo()
    gap: float | None = None
    if status is SolveStatus.OPTIMAL:
        gap = float(hinfo.mip_gap) if integers else 0.0
    elif status is SolveStatus.TIME_LIMIT:
        # From the recomputed cost: HiGHS's own gap uses its objective value.
        gap = relative_gap(outcome.plan, outcome.bound) if integers else None
    return SolverRun(
        status=status,
        gap=gap,
        seconds=seconds,
        name="HiGHS",
        version=highs.version(),
        message=_message(status, "HiGHS", settings, outcome.raw),
        bound=float(hinfo.mip_dual_bound) if math.isfinite(hinfo.mip_dual_bound) else None,
    )


def _stoppable(settings: SolverSettings, plans: HighsPlans | None = None) -> Any:
    """HiGHS's callback: progress lines when asked for (plan costs from ``plans``), and a
    stop on Ctrl-C."""
    import highspy

    from optimizer.solve.interrupt import stop_requested

    interrupt = highspy.cb.HighsCallbackType.kCallbackMipInterrupt
    progress = _Progress(settings.currency, plans) if settings.progress else None

    def callback(kind: Any, message: str, data_out: Any, data_in: Any, user: Any) -> None:
        if progress is not None:
            progress(kind, message, data_out, data_in, user)
        if kind == interrupt and stop_requested():
            data_in.user_interrupt = True

    return callback


def _set_start(problem: pulp.LpProblem, highs: Any, start: dict[str, float]) -> None:
    """Hand HiGHS a (partial) first plan by variable name."""
    import numpy as np

    given = [(v.index, start[v.name]) for v in problem.variables() if v.name in start]
    index = np.array([i for i, _ in given], dtype=np.int32)
    value = np.array([x for _, x in given], dtype=np.float64)
    highs.setSolution(len(given), index, value)


def _run_cbc(
    problem: pulp.LpProblem, settings: SolverSettings, started: float, deadline: float | None
) -> SolverRun:
    """CBC through PuLP; the proven bound is read from CBC's log, which PuLP does not return."""
    with tempfile.TemporaryDirectory(prefix="gpumix-cbc-") as folder:
        log = Path(folder) / "cbc.log"
        # PuLP 3.3 warns that PULP_CBC_CMD (the CBC bundled with PuLP) goes away
        # in 4.0; it is still the CBC every install has, so silence that notice.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "PULP_CBC_CMD", DeprecationWarning)
            cbc = pulp.PULP_CBC_CMD(
                msg=False,
                timeLimit=time_left(deadline),
                gapRel=settings.gap,
                gapAbs=PROOF_TOLERANCE_USD,
                threads=settings.threads,
                logPath=str(log),
            )
        problem.solve(cbc)
        log_text = log.read_text(errors="replace") if log.exists() else ""
    seconds = time.perf_counter() - started
    status = _solve_status(None, problem.status, problem.sol_status, None)
    gap: float | None = None
    bound: float | None = None
    if status.has_plan:
        objective = pulp.value(problem.objective)
        bound = cbc_lower_bound(log_text, objective, status)
        if bound is not None and objective:
            # HiGHS's convention (plan - bound) / plan, so both solvers report alike.
            gap = max(0.0, (objective - bound) / abs(objective))
        elif status is SolveStatus.OPTIMAL:
            gap = 0.0
    return SolverRun(
        status=status,
        gap=gap,
        seconds=seconds,
        name="CBC",
        version=_cbc_version(),
        message=_message(status, "CBC", settings),
        bound=bound,
    )


_CBC_BOUND = re.compile(r"^Lower bound:\s*(\S+)", re.MULTILINE)


def cbc_lower_bound(log_text: str, objective: float | None, status: SolveStatus) -> float | None:
    """The proven lower bound in CBC's log ("Lower bound: ..."), or None when it says none.

    CBC prints the line only when the search stopped short of proof (gap
    tolerance or time limit); a run that proved its plan optimal prints no
    bound, and then the bound is the plan's own cost.
    """
    found = _CBC_BOUND.findall(log_text)
    if found:
        try:
            return float(found[-1])
        except ValueError:
            return None
    if status is SolveStatus.OPTIMAL and "Result - Optimal solution found" in log_text:
        return objective
    return None


def _solve_status(
    highs_status: Any | None,
    pulp_status: int | None,
    pulp_solution_status: int | None,
    has_incumbent: bool | None,
) -> SolveStatus:
    """The one place solver statuses become :class:`SolveStatus`.

    HiGHS: its own ``HighsModelStatus`` (PuLP 3.3.2 calls a run stopped by
    the time limit "Optimal"). A time, iteration or solution limit or an
    interrupt with an incumbent is TIME_LIMIT; without one, ERROR. CBC
    (through PuLP): PuLP's status and solution status.
    """
    if highs_status is not None:
        import highspy

        ms = highspy.HighsModelStatus
        if highs_status == ms.kOptimal:
            return SolveStatus.OPTIMAL
        if highs_status in (ms.kInfeasible, ms.kUnboundedOrInfeasible):
            # Every cost is >= 0 but the residual credit, which is below the
            # price it comes from, so the model is never unbounded.
            return SolveStatus.INFEASIBLE
        if highs_status in (ms.kTimeLimit, ms.kIterationLimit, ms.kSolutionLimit, ms.kInterrupt):
            return SolveStatus.TIME_LIMIT if has_incumbent else SolveStatus.ERROR
        return SolveStatus.ERROR
    if pulp_status == pulp.LpStatusOptimal:
        if pulp_solution_status == pulp.LpSolutionOptimal:
            return SolveStatus.OPTIMAL
        if pulp_solution_status == pulp.LpSolutionIntegerFeasible:
            return SolveStatus.TIME_LIMIT
        return SolveStatus.ERROR
    if pulp_status == pulp.LpStatusInfeasible:
        return SolveStatus.INFEASIBLE
    return SolveStatus.ERROR


def _message(status: SolveStatus, name: str, settings: SolverSettings, raw: str = "") -> str:
    from optimizer.solve.interrupt import STOPPED_BY_USER, stop_requested

    # "The search (HiGHS and SCIP) was": a race's name is two solvers.
    if stop_requested() and status is SolveStatus.ERROR:
        return f"The search ({name}) found no plan before it was {STOPPED_BY_USER}"
    if stop_requested() and status is SolveStatus.TIME_LIMIT:
        return f"The search ({name}) was {STOPPED_BY_USER} before proving the plan optimal"
    limit = f"{seconds_text(settings.time_limit)} s" if settings.time_limit is not None else "no"
    if status is SolveStatus.ERROR:
        if "limit" in raw.lower():
            return (
                f"{name} found no plan within the {limit} time limit; "
                "raise --time-limit or simplify the scenario"
            )
        return f"{name} failed to solve the model (status: {raw or 'not solved'})"
    if status is SolveStatus.TIME_LIMIT:
        return f"{name} stopped at the {limit} time limit before proving the plan optimal"
    return ""


def seconds_text(seconds: float) -> str:
    """A time limit as people write it: 60, 19.4 (a share of a command's budget), 0.01."""
    return f"{seconds:g}" if seconds < 1 or seconds == int(seconds) else f"{seconds:.1f}"


def _has_integers(problem: pulp.LpProblem) -> bool:
    return any(v.cat == pulp.LpInteger for v in problem.variables())


def _cbc_version() -> str:
    return f"bundled with PuLP {pulp.__version__}"
