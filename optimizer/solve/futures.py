"""Plan one scenario for its futures at once (issue 19): the two-stage solve.

:func:`solve_futures` takes a scenario whose ``futures`` is set and hands on
a :class:`~optimizer.results.futures.FuturesResult`:

1. each future alone (wait and see): the future's plain scenario solved as
   any scenario;
2. the expected future (:func:`~optimizer.solve.futures_expected.expected_future`)
   alone, then every future re-planned with its shared decisions fixed;
3. the two-stage MILP (:mod:`optimizer.solve.futures_model`): expected cost
   minimised, shared decisions linked, and with ``max_regret`` /
   ``max_regret_share`` each future's cost at most its alone plan's cost plus
   the bound. An alone plan not proven optimal costs at least the true
   optimum, so bounding against it never cuts off a plan that truly meets
   the bound (it may admit one that misses it by up to the alone plan's gap;
   the diagnostics then say so);
4. one plan per future read from its variables.

Steps 1 and 2 share one pool of spawned workers
(:class:`~optimizer.solve.side_by_side.SideBySide`): the expected future
goes first and its re-plans jump the queue; without regret bounds, step 3
runs in this process while the futures alone (needed only for the report)
finish beside it.

Every plan goes through ``verify`` (the independent checker; the check
stage passes it, see ``optimizer.check.verify.solve_futures_and_verify``:
the solve stage may not import the checker). The time limit counts from the
start and covers every solve.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from typing import Any

from optimizer.domain import Scenario
from optimizer.domain.future_scenario import future_scenario
from optimizer.domain.futures import Futures, FutureSpec
from optimizer.estimate.pairs import estimate_pairs
from optimizer.results import PairEstimate, Plan, SolverInfo, SolverSettings, SolveStatus
from optimizer.results.futures import FutureOutcome, FuturesResult, shared_decisions
from optimizer.solve.adapters import SolverRun
from optimizer.solve.assemble import _plan_from_solution
from optimizer.solve.cores import usable_cores
from optimizer.solve.futures_expected import expected_future
from optimizer.solve.futures_model import (
    TwoStage,
    add_cost_cap,
    build_two_stage,
    joint_dominated,
)
from optimizer.solve.futures_steps import Verify, by_then, one_core, replanned_in, solve_alone
from optimizer.solve.side_by_side import SideBySide
from optimizer.solve.solver import _solver_info, run_solver

Estimator = Callable[[Scenario], Sequence[PairEstimate]]
# Regret bounds get this much room (money): the solver's half-cent proof tolerance.
REGRET_ROOM = 0.005
# HiGHS's search options for the two-stage solve (search only: the model and its
# optimum are unchanged). On the bundled example's three futures, from the
# re-plans, one thread, random seeds 0-3: 7.3-8.1 CPU s (13,338-15,043 simplex
# iterations) against 10.1-12.4 (22,213-25,070) with gpumix's usual options,
# less on every seed (docs/performance.md, "Futures").
TWO_STAGE_HIGHS = {"mip_heuristic_run_rens": False, "mip_pscost_minreliable": 2}


# Under --time-limit, a step before the two-stage solve (the expected future, a
# future alone, a re-plan) gets at most this share of the whole budget: on a
# workbook no solve proves, the first step would otherwise spend all of it and
# leave the others a hundredth of a second (an outside audit's case).
EARLY_SHARE = 0.25
# ... and every step before it ends by the time this share of the budget is
# left, kept for building and solving the two-stage model: the expected future
# and two rounds of re-plans (three futures on two workers) took 19.3 of a 20 s
# budget and left the two-stage solve 0.6 s (docs/performance.md, "Futures").
LATE_SHARE = 0.3


def _left(
    settings: SolverSettings,
    deadline: float | None,
    share: float | None = None,
    before_two_stage: bool = False,
) -> SolverSettings:
    """``settings`` with the time left before ``deadline``: at most ``share`` of the
    budget, and for a step the two-stage solve waits for, none of its ``LATE_SHARE``."""
    if deadline is None or settings.time_limit is None:
        return settings
    left = deadline - time.perf_counter()
    if before_two_stage:
        left -= LATE_SHARE * settings.time_limit
    if share is not None:
        left = min(left, share * settings.time_limit)
    return replace(settings, time_limit=max(0.01, left))


def solve_futures(
    scenario: Scenario,
    settings: SolverSettings,
    verify: Verify,
    estimator: Estimator = estimate_pairs,
    workers: int | None = None,
) -> FuturesResult:
    """The plan for every future with shared decisions of months ``1..decide_by_month``.

    ``estimator`` gives each future's (and the expected future's) estimates,
    as ``solve_and_verify`` gets them (tests hand in estimates made by hand).
    ``workers`` (None: one per usable core) solve the futures alone, the
    expected future and its re-plans side by side in spawned processes, one
    solver thread each; 1 solves them one after another in this process.
    """
    futures = scenario.futures
    if futures is None:
        raise ValueError(f"scenario {scenario.name!r} has no futures")
    begun = time.perf_counter()
    deadline = None if settings.time_limit is None else begun + settings.time_limit
    settings = replace(settings, progress=False, currency=scenario.assumptions.currency)
    D = futures.decide_by_month
    scenarios = [future_scenario(scenario, f) for f in futures.futures]
    estimates = [tuple(estimator(s)) for s in scenarios]
    expected_scenario = future_scenario(scenario, expected_future(scenario, futures))
    expected_estimates = tuple(estimator(expected_scenario))
    dominated = joint_dominated([*scenarios, expected_scenario])
    diagnostics: list[str] = []

    clock = _Clock(begun)
    workers = usable_cores() if workers is None else workers
    each = one_core(settings) if workers > 1 else settings
    capped = futures.max_regret is not None or futures.max_regret_share is not None

    # Arguments of a step, made when a worker takes it: the time left is counted then.
    # Without regret caps the futures alone finish beside the two-stage solve.
    def alone_args(s: Scenario, e: tuple[PairEstimate, ...], first: bool) -> tuple[Any, ...]:
        given, ends_at = by_then(_left(each, deadline, EARLY_SHARE, first))
        return (s, given, e, verify, ends_at)

    def replan_args(s: Scenario, e: tuple[PairEstimate, ...]) -> tuple[Any, ...]:
        given, ends_at = by_then(_left(each, deadline, EARLY_SHARE, True))
        return (s, e, expected, D, dominated, given, verify, ends_at)

    with SideBySide(workers) as steps:
        # One pool for every step. The expected future goes first and its
        # re-plans jump the queue: the two-stage solve starts from them. Each
        # future alone is needed only for the report (and the regret caps), so
        # without caps the two-stage solve runs while they finish.
        expected_step = steps.submit(
            solve_alone,
            partial(alone_args, expected_scenario, expected_estimates, True),
            urgent=True,
        )
        alone_steps = [
            steps.submit(solve_alone, partial(alone_args, s, e, capped))
            for s, e in zip(scenarios, estimates, strict=True)
        ]
        expected = expected_step.result()
        clock.lap("the expected future alone")
        replan_steps = [
            steps.submit(
                replanned_in,
                partial(replan_args, s, e),
                urgent=True,
            )
            for s, e in zip(scenarios, estimates, strict=True)
        ]
        replans = [step.result() for step in replan_steps]
        clock.lap("the expected future's decisions in each future")
        alone: list[Plan] = []
        if capped or any(_without_own_plan(step) for step in alone_steps):
            alone = [step.result() for step in alone_steps]
            clock.lap("each future alone")
            if (lost := _lost(scenario, futures, scenarios, estimates, alone)) is not None:
                # A future without a plan of its own has none with shared decisions either.
                return lost
        two = build_two_stage(
            [
                (f.name, f.probability, s, e)
                for f, s, e in zip(futures.futures, scenarios, estimates, strict=True)
            ],
            D,
            dominated,
        )
        if capped:
            diagnostics += _regret_caps(two, futures, alone)
        start = _start(two, replans)
        build_seconds = clock.lap("building the two-stage model")
        two_settings = _left(settings, deadline)
        if start and two_settings.solver == "auto":
            # On the bundled example's three futures HiGHS from the expected
            # future's plans proved the optimum in 21 s, the race (then without a
            # first plan) in 75 s, SCIP alone in 43 s.
            two_settings = replace(two_settings, solver="highs")
        steps.set_limit(steps.workers - 1)  # this process solves now: a core for it
        run = run_solver(
            two.problem, two_settings, start=start or None, highs_options=TWO_STAGE_HIGHS
        )
        clock.lap("the two-stage solve")
        # Without regret caps the expected future's decisions re-planned in every
        # future are a plan of the two-stage problem: the best known when its solve
        # found none in time (issue 34: "found no plan within 2.4 s", nothing shown).
        fallback = (
            not run.status.has_plan
            and run.status is not SolveStatus.INFEASIBLE
            and not capped
            and all(plan is not None and plan.status.has_plan for plan, _ in replans)
        )
        if not alone:
            alone = [step.result() for step in alone_steps]
            clock.lap("each future alone (what was left of it)")
            late = [
                f
                for f, a in zip(futures.futures, alone, strict=True)
                if not a.status.has_plan and _out_of_time(a)
            ]
            planned = run.status.has_plan or fallback
            if planned and len(late) == sum(not a.status.has_plan for a in alone):
                # The shared plan stands; only the report's comparison is missing.
                diagnostics += [
                    f"future {f.name!r} was not planned alone within the time limit: its "
                    "regret and the EVPI are not known (raise --time-limit)"
                    for f in late
                ]
            elif (lost := _lost(scenario, futures, scenarios, estimates, alone)) is not None:
                return lost
    replanned = [plan for plan, _ in replans]
    if not expected.status.has_plan:
        diagnostics.append(
            f"the expected future has no plan of its own ({expected.status.value}): "
            "no value of the stochastic solution"
        )
    info = SolverInfo(
        name=run.name,
        version=run.version,
        seconds=run.seconds,
        build_seconds=build_seconds,
        variables=len(two.problem.variables()),
        constraints=two.problem.numConstraints(),
        integers=sum(1 for v in two.problem.variables() if v.cat == "Integer"),
        bound=run.bound,
    )
    plans = _plans(two, run, settings, verify)
    status, gap = run.status, run.gap
    if status.has_plan and not all(p.status.has_plan for p in plans):
        status = SolveStatus.ERROR
        diagnostics.append("a future's plan was refused by the independent checker")
    if not run.status.has_plan:
        diagnostics.append(_no_plan(run, futures))
    if fallback:
        plans = [plan for plan in replanned if plan is not None]
        status, gap = SolveStatus.TIME_LIMIT, _gap(futures, plans, run.bound)
        diagnostics.append(
            f"the plan shown keeps the expected future's decisions of months 1..{D} in every "
            "future (the best plan known; planning for every future saved nothing on it in "
            "the time given)"
        )
    outcomes = tuple(
        FutureOutcome(spec=f, plan=p, alone=a, expected_future_plan=r)
        for f, p, a, r in zip(futures.futures, plans, alone, replanned, strict=True)
    )
    shared: tuple = ()
    if status.has_plan and plans[0].decisions is not None:
        shared = shared_decisions(scenarios[0], plans[0].decisions, D)
    return FuturesResult(
        scenario=scenario,
        futures=futures,
        status=status,
        gap=gap if status.has_plan else None,
        bound=run.bound,
        outcomes=outcomes,
        shared=shared,
        expected_future=expected,
        solver=info,
        diagnostics=tuple(diagnostics),
        seconds=clock.laps(),
    )


def _gap(futures: Futures, plans: list[Plan], bound: float | None) -> float | None:
    """The proven relative gap of the plans' expected cost against the two-stage bound."""
    expected = sum(
        f.probability * (p.total_cost or 0.0) for f, p in zip(futures.futures, plans, strict=True)
    )
    if bound is None or expected == 0:
        return None
    return max(0.0, (expected - bound) / abs(expected))


def _without_own_plan(step: Future[Plan]) -> bool:
    """A future solved alone already and found to have no plan (not merely out of time:
    without regret caps the shared plan does not need it)."""
    if not step.done():
        return False
    plan = step.result()
    return not plan.status.has_plan and not _out_of_time(plan)


def _out_of_time(plan: Plan) -> bool:
    """A plan missing because the time limit ran out, not because none exists."""
    return plan.status is SolveStatus.ERROR and any("time limit" in d for d in plan.diagnostics)


def _lost(
    scenario: Scenario,
    futures: Futures,
    scenarios: list[Scenario],
    estimates: list[tuple[PairEstimate, ...]],
    alone: list[Plan],
) -> FuturesResult | None:
    """The result without a plan when some future has none alone; else None."""
    lost = [(f, a) for f, a in zip(futures.futures, alone, strict=True) if not a.status.has_plan]
    if not lost:
        return None
    return _without_plan(scenario, futures, scenarios, estimates, alone, lost)


class _Clock:
    """Seconds of each step of the futures solve, for the benchmark and the diagnostics."""

    def __init__(self, begun: float) -> None:
        self.begun = self.last = begun
        self.steps: list[tuple[str, float]] = []

    def lap(self, step: str) -> float:
        now = time.perf_counter()
        self.steps.append((step, now - self.last))
        self.last = now
        return self.steps[-1][1]

    def laps(self) -> tuple[tuple[str, float], ...]:
        return (*self.steps, ("total", time.perf_counter() - self.begun))


def _without_plan(
    scenario: Scenario,
    futures: Futures,
    scenarios: list[Scenario],
    estimates: list[tuple[PairEstimate, ...]],
    alone: list[Plan],
    lost: list[tuple[FutureSpec, Plan]],
) -> FuturesResult:
    """The result when some future has no plan even alone (its status, its reasons)."""
    status = lost[0][1].status
    status = SolveStatus.INFEASIBLE if status is SolveStatus.INFEASIBLE else status
    # Out of time is not "no plan": say which it was, and what to do.
    timed_out = [f for f, p in lost if _out_of_time(p)]
    why = [
        (
            f"future {f.name!r} was not planned within the time limit ({p.status.value}): "
            if f in timed_out
            else f"future {f.name!r} has no plan even on its own ({p.status.value}): "
        )
        + "; ".join(p.diagnostics)
        for f, p in lost
    ]
    names = ", ".join(repr(f.name) for f, _ in lost)
    if len(timed_out) == len(lost):
        no_shared = (
            f"future {names} was not planned on its own within the time limit, so no shared "
            "plan was made; raise --time-limit"
        )
    else:
        no_shared = f"future {names} has no plan on its own, so no shared plan exists"
    outcomes = tuple(
        FutureOutcome(
            spec=f,
            plan=Plan.without_plan(
                s,
                status,
                e,
                a.diagnostics if not a.status.has_plan else (no_shared,),
                None,
            ),
            alone=a,
        )
        for f, s, e, a in zip(futures.futures, scenarios, estimates, alone, strict=True)
    )
    return FuturesResult(
        scenario=scenario,
        futures=futures,
        status=status,
        gap=None,
        bound=None,
        outcomes=outcomes,
        shared=(),
        diagnostics=tuple(why),
    )


def _no_plan(run: SolverRun, futures: Futures) -> str:
    if run.status is SolveStatus.INFEASIBLE:
        bound = ""
        if futures.max_regret is not None or futures.max_regret_share is not None:
            bound = " and the regret bounds"
        return f"no shared decisions meet every future's demand and limits{bound}"
    return run.message or f"the two-stage solve found no plan ({run.status.value})"


def _regret_caps(two: TwoStage, futures: Futures, alone: list[Plan]) -> list[str]:
    """Each future's cost at most its alone plan's cost plus the bound; what was used, in words."""
    notes: list[str] = []
    for k, plan in enumerate(alone):
        name = two.futures[k].name
        if plan.total_cost is None:
            notes.append(f"future {name!r} has no plan of its own: no regret bound for it")
            continue
        bounds = []
        if futures.max_regret is not None:
            bounds.append(futures.max_regret)
        if futures.max_regret_share is not None:
            bounds.append(futures.max_regret_share * abs(plan.total_cost))
        add_cost_cap(two, k, plan.total_cost + min(bounds) + REGRET_ROOM)
        if plan.status is not SolveStatus.OPTIMAL:
            gap = "unknown" if plan.gap is None else f"{plan.gap:.3%}"
            notes.append(
                f"future {name!r} alone was not proven optimal (gap {gap}): its regret is "
                "bounded against its best plan found, which costs at least the true "
                "optimum, so the bound may be loose by up to that gap"
            )
    return notes


def _start(two: TwoStage, replans: list[tuple[Plan | None, dict[str, float]]]) -> dict[str, float]:
    """A first plan: the expected future's shared decisions re-planned in every future.

    It keeps every two-stage row but the regret caps (HiGHS ignores a first
    plan that breaks a row). Its variables carry the same names as the
    futures' models before the prefix (same scenario, same pruning).
    """
    start: dict[str, float] = {}
    for m, (plan, values) in zip(two.futures, replans, strict=True):
        if plan is None or not plan.status.has_plan or not values:
            return {}
        start.update({m.prefix + name: v for name, v in values.items()})
    return start


def _plans(two: TwoStage, run: SolverRun, settings: SolverSettings, verify: Verify) -> list[Plan]:
    """One checked plan per future from its variables (or why there is none)."""
    plans: list[Plan] = []
    # The run's gap and bound are of the expected cost, not of one future's.
    own = replace(run, bound=None)
    for m in two.futures:
        info = _solver_info(m.built, own, 0.0)
        if not run.status.has_plan:
            status = SolveStatus.INFEASIBLE if run.status is SolveStatus.INFEASIBLE else run.status
            plans.append(Plan.without_plan(m.scenario, status, m.estimates, (), info))
            continue
        plan = _plan_from_solution(m.built, own, m.estimates, info, settings)
        plans.append(verify(m.scenario, plan, m.estimates))
    return plans
