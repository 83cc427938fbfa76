"""``--solver auto``: HiGHS and SCIP race on the same model, each on its own core.

Takes a PuLP problem and ``results.SolverSettings``; builds both solvers'
models from it, runs them side by side and hands on one
:class:`~optimizer.solve.adapters.SolverRun`: the cheaper plan either found,
the higher bound either proved, and the gap between the two. The race stops
as soon as that combined gap meets the target (half a cent, or ``--gap``),
or one solver proves the plan optimal or the model infeasible.

The two run in threads of this process, not in separate processes: both
release Python's lock while they search (measured: SCIP 1.8 s and HiGHS 5.6 s
side by side on the example's europe scenario, as alone), so each gets a
core, and no worker start-up or model copy (0.5-1 s) comes before the
search. Each reports its best plan and bound after every node and cut
round to :class:`_Race`, which tells both when to stop.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pulp

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve import warm_start
from optimizer.solve.adapters import (
    PROOF_TOLERANCE_USD,
    HighsOutcome,
    SolverRun,
    _has_integers,
    _message,
    _set_start,
    assign_highs_values,
    highs_outcome,
    highs_solver,
    limit_from_now,
    tune_for_size,
)
from optimizer.solve.interrupt import stop_requested
from optimizer.solve.plan_first import Phase
from optimizer.solve.progress import HighsPlans, ProgressLine, finite
from optimizer.solve.scip import (
    REPORT_EVERY_S,
    add_scip_start,
    assign_scip_values,
    build_scip_model,
    include_handed_plans,
    relative_gap,
    scip_outcome,
    scip_version,
    scip_watch,
)

HIGHS, SCIP = "HiGHS", "SCIP"


class _Race:
    """Best plan and bound each solver has reported; decides when both stop.

    Solver threads call :meth:`report` (from their own callbacks) and
    :meth:`finished`; the answer to ``report`` is whether that solver should
    stop now.
    """

    def __init__(self, settings: SolverSettings) -> None:
        self.settings = settings
        self.stop = threading.Event()
        self.plans: dict[str, float] = {}
        self.bounds: dict[str, float] = {}
        self._lock = threading.Lock()
        self._reported: dict[str, float] = {}
        self.progress = ProgressLine(settings.currency) if settings.progress else None

    def due(self, solver: str) -> bool:
        """Whether ``solver`` should report again (at most every REPORT_EVERY_S seconds)."""
        now = time.perf_counter()
        if now - self._reported.get(solver, 0.0) < REPORT_EVERY_S:
            return False
        self._reported[solver] = now
        return True

    def report(self, solver: str, plan: float, bound: float) -> bool:
        with self._lock:
            if finite(plan):
                self.plans[solver] = plan
            if finite(bound):
                self.bounds[solver] = bound
            best = min(self.plans.values(), default=math.inf)
            floor = max(self.bounds.values(), default=-math.inf)
        if proven(best, floor, self.settings):
            self.stop.set()
        if self.progress is not None:
            self.progress.report(best, floor)
        return self.stop.is_set()

    def finished(self, status: SolveStatus) -> None:
        # A proof ends the race; a solver that stopped short (time limit,
        # failure) leaves the other to search on to its own limit.
        if status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
            self.stop.set()


def proven(plan: float, bound: float, settings: SolverSettings) -> bool:
    """Whether ``bound`` proves ``plan`` within half a cent or the relative ``--gap``."""
    if not (math.isfinite(plan) and math.isfinite(bound)):
        return False
    tolerance = max(PROOF_TOLERANCE_USD, settings.gap * abs(plan))
    return plan - bound <= tolerance + 1e-9 * abs(plan)


def _run_race(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    deadline: float | None,
    picks: Sequence[Sequence[str]] | None = None,
    start: dict[str, float] | None = None,
    phase: Phase | None = None,
) -> SolverRun:
    """HiGHS and SCIP side by side, one thread each; the better of both reported.

    ``start`` (variable name -> value) is handed to both as a first plan.

    ``phase`` (the plan-first phase, :mod:`optimizer.solve.plan_first`) runs
    in HiGHS's thread before HiGHS's own search, while SCIP already searches
    the full model on the other core; its plan is then HiGHS's first plan
    and is handed to SCIP in SCIP's own thread. Before, the phase ran alone
    and one core stood idle for its 33 s (at --time-limit 60): SCIP alone,
    cold, on one thread, took s10-20-36-1 to a 0.01 % gap in 57 s, where the
    race after the phase ended at 2.2 % (docs/performance.md).

    With ``warm_start.WARM_IN_RACE`` (off: measured mixed), HiGHS's thread
    first finds a restricted warm start on large models (``picks``: each
    training job's pick variables; see :mod:`optimizer.solve.warm_start`)
    while SCIP searches.
    """
    import highspy

    race = _Race(settings)
    one_thread = replace(settings, threads=1)

    interrupt = highspy.cb.HighsCallbackType.kCallbackMipInterrupt
    improving = highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution
    plans = HighsPlans()  # HiGHS's plans at their real cost: the race decides on them

    def highs_callback(kind: Any, _message: str, data_out: Any, data_in: Any, _user: Any) -> None:
        # HiGHS asks whether to stop thousands of times a second; most answers
        # only look at the flag, so HiGHS's callbacks hold Python's lock briefly.
        if kind == interrupt and not race.due(HIGHS):
            if race.stop.is_set() or stop_requested():
                data_in.user_interrupt = True
            return
        plan = plans.plan(kind == improving, data_out)
        stop = race.report(HIGHS, plan, data_out.mip_dual_bound)
        if (stop or stop_requested()) and kind == interrupt:
            data_in.user_interrupt = True

    kinds = highspy.cb.HighsCallbackType
    hsolver = highs_solver(
        one_thread,
        callbackTuple=(highs_callback, None),
        callbacksToActivate=[kinds.kCallbackMipInterrupt, kinds.kCallbackMipImprovingSolution],
    )
    hsolver.createAndConfigureSolver(problem)
    hsolver.buildSolverModel(problem)
    highs = problem.solverModel
    plans.watch(highs)
    tune_for_size(problem, highs)
    scip = build_scip_model(problem, settings)
    handed: list[dict[str, float]] = []  # the phase's plans, for SCIP to take in its thread
    if phase is not None:
        include_handed_plans(scip, problem, handed)
    scip.includeEventhdlr(
        scip_watch(lambda plan, bound: race.report(SCIP, plan, bound), race.stop.is_set),
        "gpumix-race",
        "race",
    )
    integers = _has_integers(problem)
    if start:
        add_scip_start(problem, scip, start)
    limit_from_now(deadline, highs=highs, scip=scip)

    failed: set[str] = set()  # a solver that raised: the other one's answer stands

    def run_highs() -> None:
        try:
            first = start
            if phase is not None and not first:
                # Each plan the phase finds goes to SCIP at once (the last is its answer).
                first = phase(race.stop.is_set, handed.append)
                if first:
                    limit_from_now(deadline, highs=highs)
            if not first and warm_start.WARM_IN_RACE:
                first = warm_start.maybe_warm_start(problem, highs, one_thread, deadline, picks)
            if first:
                _set_start(problem, highs, first)
                limit_from_now(deadline, highs=highs)
            highs.run()
            race.finished(highs_outcome(highs, integers).status)
        except Exception:
            failed.add(HIGHS)

    def run_scip() -> None:
        try:
            scip.optimizeNogil()
            race.finished(scip_outcome(scip)[0])
        except Exception:
            failed.add(SCIP)

    # SCIP first: with a phase, HiGHS's thread spends its first seconds there.
    runners = [
        threading.Thread(target=f, name=f"gpumix-{f.__name__}") for f in (run_scip, run_highs)
    ]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    return _outcome(problem, settings, started, highs, scip, integers, failed)


def _outcome(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    started: float,
    highs: Any,
    scip: Any,
    integers: bool,
    failed: set[str],
) -> SolverRun:
    """The race's result: the cheaper plan, the higher bound, the gap between them."""
    none = HighsOutcome(SolveStatus.ERROR, None, None, "failed")
    # Its plan's real cost (HiGHS given a first plan may misjudge it: highs_outcome).
    h = none if HIGHS in failed else highs_outcome(highs, integers)
    s_status, s_plan, s_bound = (
        (SolveStatus.ERROR, None, None) if SCIP in failed else scip_outcome(scip)
    )
    plans = {name: cost for name, cost in ((HIGHS, h.plan), (SCIP, s_plan)) if cost is not None}
    bounds = [b for b in (h.bound, s_bound) if b is not None]
    version = f"HiGHS {highs.version()}; {scip_version()}"
    seconds = time.perf_counter() - started
    if not plans:
        infeasible = SolveStatus.INFEASIBLE in (h.status, s_status)
        status = SolveStatus.INFEASIBLE if infeasible else SolveStatus.ERROR
        raw = h.raw if "limit" in h.raw.lower() or SCIP in failed else scip.getStatus()
        return SolverRun(
            status=status,
            gap=None,
            seconds=seconds,
            name="HiGHS and SCIP",
            version=version,
            message=_message(status, "HiGHS and SCIP", settings, raw),
        )
    winner = min(plans, key=lambda name: (plans[name], name != HIGHS))
    plan = plans[winner]
    bound = max(bounds) if bounds else None
    own = h.status if winner == HIGHS else s_status
    optimal = own is SolveStatus.OPTIMAL or (bound is not None and proven(plan, bound, settings))
    status = SolveStatus.OPTIMAL if optimal else SolveStatus.TIME_LIMIT
    if winner == HIGHS:
        assign_highs_values(problem, highs)
    else:
        assign_scip_values(problem, scip)
    if bound is not None:
        bound = min(bound, plan)
    return SolverRun(
        status=status,
        gap=relative_gap(plan, bound) if integers else 0.0,
        seconds=seconds,
        name=f"{winner} (raced with {SCIP if winner == HIGHS else HIGHS})",
        version=version,
        message=_message(status, "HiGHS and SCIP", settings),
        bound=bound,
    )
