"""Solve one scenario: estimates → model → HiGHS (or CBC) → a complete :class:`Plan`.

The only public entry point is :func:`solve_scenario`; :func:`run_solver` runs
the solver the settings name. The pieces: ``adapters`` (HiGHS and CBC through
PuLP; solver statuses become :class:`SolveStatus` in ``adapters._solve_status``
and nowhere else), ``progress`` (progress lines on stderr) and ``assemble``
(decisions, money, fleet and assignments of the plan). Every money figure of
the plan is computed from its :class:`Decisions` (rounded variable values) with
the cost formulas of ``optimizer.model.costs``, so the plan, its cash flow and
the independent checker agree to the cent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pulp

from optimizer.domain import Scenario
from optimizer.model.aggregate import tie_blocks
from optimizer.model.build import BuildTimeLimit, build_model
from optimizer.model.built import BuiltModel
from optimizer.results import (
    COMMERCIAL,
    SOLVERS,
    PairEstimate,
    Plan,
    SolverInfo,
    SolverSettings,
    SolveStatus,
)
from optimizer.solve import diagnose
from optimizer.solve.adapters import SolverRun, _run_cbc, _run_highs, seconds_text
from optimizer.solve.assemble import _plan_from_solution
from optimizer.solve.cores import usable_cores
from optimizer.solve.interrupt import STOPPED_BY_USER, stop_requested
from optimizer.solve.plan_first import (
    MAX_INTEGERS,
    FirstPlan,
    Phase,
    monthly_optimum,
    never,
    phase_may_run,
    plan_first,
    report,
    say_first_plan,
    say_proof,
)
from optimizer.solve.warm_start import pick_groups


def solve_scenario(
    scenario: Scenario,
    settings: SolverSettings,
    estimates: Sequence[PairEstimate] | None = None,
    on_solved: Callable[[BuiltModel], None] | None = None,
    *,
    start: dict[str, float] | None = None,
    explain: bool = True,
    should_stop: Callable[[], bool] | None = None,
    coarse_after: int | None = None,
) -> Plan:
    """The cheapest plan for ``scenario``, or why there is none (never raises for infeasibility).

    ``on_solved`` sees the solved model when there is a plan (the
    alternatives take the optimum's variable values from it as a first plan).
    ``start`` (variable name -> value) is a first plan for the solver (see
    :func:`run_solver`). ``explain`` False skips the elastic re-solves that
    say why a model is infeasible (a baseline needs only its status).
    ``should_stop()`` ends the plan-first phase early (its best plan is
    kept; :mod:`optimizer.solve.plan_first`). ``coarse_after`` (a month;
    default: the scenario's ``coarse_after_month``) plans one layout per
    quarter after that month: the aggregated model is then the answer
    (:func:`optimizer.model.aggregate.tie_blocks`).
    """
    begun = time.perf_counter()
    if estimates is None:
        from optimizer.estimate.pairs import estimate_pairs

        estimates = estimate_pairs(scenario)
    options = tuple(estimates)
    settings = replace(settings, currency=scenario.assumptions.currency)  # for progress lines

    unplannable = diagnose.unplannable_workloads(scenario, options)
    if unplannable:
        return Plan.without_plan(scenario, SolveStatus.INFEASIBLE, options, unplannable, None)

    if stop_requested():  # Ctrl-C came before this solve began: leave it, say why
        why = (f"not planned: {STOPPED_BY_USER} before this solve began",)
        return Plan.without_plan(scenario, SolveStatus.ERROR, options, why, None)

    started = time.perf_counter()
    # --time-limit covers building as well: the build stops once it is spent,
    # and the solver gets what is left.
    deadline = None if settings.time_limit is None else begun + settings.time_limit
    try:
        built: BuiltModel | None = build_model(scenario, options, deadline=deadline)
    except BuildTimeLimit:
        built = None
    build_seconds = time.perf_counter() - started
    left = None if deadline is None else deadline - time.perf_counter()
    if built is None or (left is not None and left <= 0):
        message = (
            f"building the model took {build_seconds:.1f} s, past the "
            f"{seconds_text(settings.time_limit or 0.0)} s time limit; raise --time-limit or simplify "
            "the scenario"
        )
        return Plan.without_plan(scenario, SolveStatus.ERROR, options, (message,), None)
    picks = pick_groups(built)
    found: list[FirstPlan] = []  # what the plan-first phase gave, when it ran
    phase: Phase | None = None
    if coarse_after is None and scenario.assumptions.coarse_after_month is not None:
        coarse_after = int(scenario.assumptions.coarse_after_month)
    monthly_cost: float | None = None
    beside = False
    if coarse_after is not None:
        monthly_cost = monthly_optimum(built, settings, deadline)
        tie_blocks(built, coarse_after)
    elif start is None and settings.solver in PLAN_FIRST_SOLVERS and phase_may_run(built):
        beside = settings.solver != "scip" and _huge(built.problem, settings)
        phase = _phase(built, settings, deadline, should_stop or stop_requested, found, beside)
    run = run_solver(
        built.problem,
        settings,
        deadline=deadline,
        start=start,
        picks=picks,
        phase=phase,
        beside=beside,
    )
    first = found[0] if found else None
    if first is not None and settings.progress:
        plan_cost = pulp.value(built.problem.objective) if run.status.has_plan else None
        report(say_proof(plan_cost, run.gap, settings.currency, time.perf_counter() - begun))
    info = _solver_info(built, run, build_seconds)
    if stop_requested() and run.status is not SolveStatus.OPTIMAL:
        info = replace(info, name=f"{info.name}, {STOPPED_BY_USER}")  # the Audit says so
    if coarse_after is not None:
        info = replace(info, coarse_after=coarse_after, monthly_cost=monthly_cost)

    if run.status is SolveStatus.INFEASIBLE and not explain:
        why = ("the model is infeasible (not explained: elastic re-solves skipped)",)
        return Plan.without_plan(scenario, SolveStatus.INFEASIBLE, options, why, info)
    if run.status is SolveStatus.INFEASIBLE:
        # The elastic re-solves minimise weighted shortfall, not dollars: their
        # progress lines ("best plan $268.50") would read as a plan's cost.
        quiet = replace(settings, progress=False)
        explained = diagnose.explain_infeasible(
            scenario, options, lambda model: run_solver(model.problem, quiet).status
        )
        return Plan.without_plan(scenario, SolveStatus.INFEASIBLE, options, explained, info)
    if not run.status.has_plan:
        return Plan.without_plan(scenario, SolveStatus.ERROR, options, (run.message,), info)
    if on_solved is not None:
        on_solved(built)
    return _plan_from_solution(built, run, options, info, settings)


def run_solver(
    problem: pulp.LpProblem,
    settings: SolverSettings,
    deadline: float | None = None,
    start: dict[str, float] | None = None,
    picks: Sequence[Sequence[str]] | None = None,
    highs_options: dict[str, Any] | None = None,
    *,
    phase: Phase | None = None,
    beside: bool = False,
) -> SolverRun:
    """Solve ``problem`` in place with the solver ``settings`` name; map the outcome.

    ``deadline`` (a ``time.perf_counter()`` value) is when the time limit
    runs out, when it started counting before this call (model building);
    by default the limit counts from now. Messages name ``settings.time_limit``.
    ``start`` (variable name -> value) is a first plan for HiGHS and SCIP;
    other solvers start without it, and so does the race (a caller's own
    start was measured to slow SCIP on the example's shadow-price solves).
    ``phase`` (the plan-first phase) gives HiGHS and SCIP a first plan: run
    first for HiGHS or SCIP alone; in the race, in HiGHS's thread while
    SCIP already searches (:func:`optimizer.solve.race._run_race`). ``picks`` (each one-off training job's
    ``pick`` variable names) lets HiGHS start from a restricted warm start on
    large time-limited models (:mod:`optimizer.solve.warm_start`).
    ``highs_options`` are HiGHS options for this solve when HiGHS alone solves
    it (the futures' two-stage solve sets its own search options).
    ``beside`` (a model above ``MAX_INTEGERS`` on two cores, decided with the
    phase): HiGHS searches beside the phase instead
    (:mod:`optimizer.solve.beside_phase`).
    """
    started = time.perf_counter()
    if deadline is None and settings.time_limit is not None:
        deadline = started + settings.time_limit
    if not problem.variables():
        # Nothing to decide (no workload needs anything): the empty plan is optimal.
        return SolverRun(SolveStatus.OPTIMAL, 0.0, 0.0, settings.solver, "-")
    solver = settings.solver
    if solver == "auto":
        solver = "race" if _cores_for_race(settings) else "highs"
    if solver == "cbc":
        return _run_cbc(problem, settings, started, deadline)
    if beside and phase is not None and not start:
        from optimizer.solve.beside_phase import run_beside_phase

        return run_beside_phase(problem, settings, started, deadline, phase)
    if phase is not None and solver in ("highs", "scip") and not start:
        start = phase(never, lambda _plan: None)
    if solver == "scip":
        from optimizer.solve.scip import _run_scip

        return _run_scip(problem, settings, started, deadline, start)
    if solver == "race":
        from optimizer.solve.race import _run_race

        return _run_race(problem, settings, started, deadline, picks, None, phase)
    if solver in COMMERCIAL:
        from optimizer.solve.commercial import run_commercial

        return run_commercial(problem, settings, started, deadline)
    if solver != "highs":
        raise ValueError(f"unknown solver {settings.solver!r} (use one of {', '.join(SOLVERS)})")
    return _run_highs(problem, settings, started, deadline, start, picks, highs_options)


def _phase(
    built: BuiltModel,
    settings: SolverSettings,
    deadline: float | None,
    should_stop: Callable[[], bool],
    found: list[FirstPlan],
    beside: bool = False,
) -> Phase:
    """The plan-first phase of ``built``, for :func:`run_solver` to run where it fits.

    Called with the race's "stop" (SCIP may prove the plan while the phase
    runs); keeps what the phase gave in ``found`` and says it on stderr.
    """
    # In the race it has HiGHS's core (one thread); SCIP has the other. Beside
    # HiGHS's search (models above MAX_INTEGERS) it has a core of its own.
    one_thread = replace(settings, threads=1) if settings.solver == "auto" or beside else settings

    def run(
        race_stop: Callable[[], bool], early: Callable[[dict[str, float]], None]
    ) -> dict[str, float] | None:
        first = plan_first(
            built,
            one_thread,
            deadline,
            lambda: race_stop() or should_stop(),
            on_plan=early,
            beside=beside,
        )
        if first is None:
            return None
        found.append(first)
        if settings.progress:
            report(say_first_plan(first, settings.currency))
        return first.values

    return run


def _huge(problem: pulp.LpProblem, settings: SolverSettings) -> bool:
    """Too large for the race, with two cores for HiGHS and the phase side by side
    (:mod:`optimizer.solve.beside_phase`)."""
    integers = sum(1 for v in problem.variables() if v.cat == pulp.LpInteger)
    return integers > MAX_INTEGERS and _cores_for_race(settings)


# Solvers the plan-first phase starts: those that take a first plan.
PLAN_FIRST_SOLVERS = frozenset({"auto", "highs", "scip", "race"})


def _cores_for_race(settings: SolverSettings) -> bool:
    """``auto`` races HiGHS and SCIP when this solve may use two cores or more."""
    if settings.threads is not None:
        return settings.threads >= 2
    return usable_cores() >= 2


def _solver_info(built: BuiltModel, run: SolverRun, build_seconds: float) -> SolverInfo:
    variables = built.problem.variables()
    return SolverInfo(
        name=run.name,
        version=run.version,
        seconds=run.seconds,
        build_seconds=build_seconds,
        variables=len(variables),
        constraints=built.problem.numConstraints(),
        integers=sum(1 for v in variables if v.cat == pulp.LpInteger),
        bound=run.bound,
    )


# Re-exported for diagnose's elastic solve (typed callable it receives).
ElasticSolve = Callable[[BuiltModel], SolveStatus]
