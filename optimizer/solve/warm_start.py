"""A restricted warm start for large models: the LP's training picks, a short sub-MIP, a first plan.

Takes the HiGHS model the full solve is about to run (copied, never changed)
and the training jobs' ``pick[w,g]`` columns; hands on the values of every
column of a plan of the full model, or None. Steps: solve the LP relaxation;
fix each one-off training job's GPU type to the type the LP gives the
largest share of its pick (bounds on a copy: that pick 1, the job's other
picks 0); solve the LP again and fix the integer columns it leaves whole
(those at 0, then, separately, the others); solve these restricted MIPs
briefly. Every plan of a restricted
MIP is a plan of the full model (only bounds were tightened), so the full
MIP may take it as a first plan; the reported plan, bound and gap are still
the full MIP's own, and the checker path is unchanged.

When it runs (:func:`warm_budget`): only under a time limit, on models with
``WARM_MIN_INTEGERS`` to ``WARM_MAX_INTEGERS`` integers (the bundled
example's scenarios stay below), for a share of the time limit, at most
``WARM_CAP_S`` seconds; the time it takes counts against the time limit. See docs/performance.md, "A
restricted warm start for large scenarios".
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pulp

from optimizer.currency import money_text
from optimizer.model.built import BuiltModel
from optimizer.results import SolverSettings

WARM_MIN_INTEGERS = 6000  # the bundled example has 2,969; (10, 20, 36) 12-16k
# Above: the LP relaxation alone outlasts the cap ((20, 50, 60): 100-112k
# integers, its LP 47 s with dual simplex, 29 s with IPM and no crossover).
WARM_MAX_INTEGERS = 50_000
WARM_SHARE = 0.25  # of the time limit (building included)
WARM_CAP_S = 15.0  # at most
WARM_RESERVE_S = 5.0  # the full MIP keeps at least this much of the limit
# HiGHS's side of the race (one thread, next to SCIP) starts without it: at
# (10, 20, 36) and 20 s it measured better on two seeds and worse on one,
# and under load its LP relaxation alone outlasted the share (no start at
# all). See docs/performance.md.
WARM_IN_RACE = False


def pick_groups(built: BuiltModel) -> tuple[tuple[str, ...], ...]:
    """Names of each one-off training job's ``pick`` variables, jobs with two types or more."""
    jobs: dict[str, list[str]] = {}
    for (workload, _gpu), var in built.pick.items():
        jobs.setdefault(workload, []).append(var.name)
    return tuple(tuple(names) for names in jobs.values() if len(names) >= 2)


def warm_budget(time_limit: float | None, left: float | None, integers: int) -> float | None:
    """Seconds the warm start may take, or None for no warm start.

    ``time_limit`` is the user's limit and ``left`` what remains of it now
    (None: no limit). A warm start runs only under a time limit, on models
    with ``WARM_MIN_INTEGERS`` to ``WARM_MAX_INTEGERS`` integers; it takes
    ``WARM_SHARE`` of the limit, at most ``WARM_CAP_S``, and always leaves
    the full MIP ``WARM_RESERVE_S`` seconds and at least half of what is
    left. Without a limit the run is to prove optimality, and a first plan
    was not measured to shorten a proof: no warm start.
    """
    if time_limit is None or left is None:
        return None
    if not WARM_MIN_INTEGERS <= integers <= WARM_MAX_INTEGERS:
        return None
    budget = min(WARM_SHARE * time_limit, WARM_CAP_S, left / 2, left - WARM_RESERVE_S)
    return budget if budget >= 1.0 else None


def choose_picks(lp_values: Sequence[float], groups: Sequence[Sequence[int]]) -> list[int]:
    """Per group of pick columns, the column with the LP's largest value (the first on a tie)."""
    return [max(group, key=lambda col: (lp_values[col], -group.index(col))) for group in groups]


@dataclass(frozen=True)
class WarmStart:
    """What a warm start gave: the plan's column values (None: no plan), its cost, time spent."""

    values: list[float] | None
    cost: float | None
    seconds: float
    why: str  # "restricted plan" or why there is none
    lp_seconds: float = 0.0  # of which the LP relaxation


def restricted_start(
    highs: Any, groups: Sequence[Sequence[int]], deadline: float, threads: int | None = None
) -> WarmStart:
    """A plan of the model in ``highs`` with each job's pick fixed as its LP relaxation says.

    ``highs`` is not changed: a copy of its model and options is solved.
    Steps: the LP relaxation; each job's pick fixed (:func:`choose_picks`);
    the LP again with the picks fixed (a few dual simplex iterations); then
    two small sub-MIPs (each a relaxation-induced neighbourhood): first with
    every integer column the restricted LP leaves at 0 fixed at 0 (quick:
    under a second at (10, 20, 36)), then, with the time left, every integer
    column it leaves at another whole value fixed there. The cheaper plan
    wins. ``deadline`` (a ``time.perf_counter()`` value) bounds every solve,
    as HiGHS's time limit and through an interrupt callback, since HiGHS
    checks its limit only between phases (a sub-MIP given 4.3 s ran 12.3 s).
    """
    import highspy

    started = time.perf_counter()
    copy = highspy.Highs()
    copy.passOptions(highs.getOptions())
    copy.setOptionValue("output_flag", False)
    if threads is not None:
        copy.setOptionValue("threads", threads)
    model = highs.getModel()
    copy.passModel(model)
    _stop_at(copy, deadline)
    copy.setOptionValue("solve_relaxation", True)
    if not _run_until(copy, deadline):
        return _none(started, "LP relaxation", copy)
    chosen = set(choose_picks(list(copy.getSolution().col_value), groups))
    picks = {col: 1.0 if col in chosen else 0.0 for group in groups for col in group}
    _fix(copy, picks)
    if not _run_until(copy, deadline):
        return _none(started, "LP relaxation with the picks fixed", copy)
    lp = list(copy.getSolution().col_value)
    lp_seconds = time.perf_counter() - started
    integer = highspy.HighsVarType.kInteger
    whole = {
        col: float(round(lp[col]))
        for col, kind in enumerate(model.lp_.integrality_)
        if kind == integer and col not in picks and abs(lp[col] - round(lp[col])) <= 1e-9
    }
    copy.setOptionValue("solve_relaxation", False)
    best: tuple[float, list[float]] | None = None
    why = "restricted MIP: no plan"
    for at_zero in (True, False):
        neighbourhood = {col: v for col, v in whole.items() if (v == 0.0) == at_zero}
        _fix(copy, neighbourhood)
        # The first sub-MIP may take half of what is left, the second the rest.
        share = 0.5 if at_zero else 1.0
        _run_until(copy, time.perf_counter() + share * (deadline - time.perf_counter()))
        info = copy.getInfo()
        if int(info.primal_solution_status) == 2:  # kSolutionStatusFeasible
            cost = float(info.objective_function_value)
            if best is None or cost < best[0]:
                best = (cost, list(copy.getSolution().col_value))
        else:
            why = f"restricted MIP: {copy.modelStatusToString(copy.getModelStatus())}"
        _free(copy, model, list(neighbourhood))
        if time.perf_counter() >= deadline - 0.05:
            break
    seconds = time.perf_counter() - started
    if best is None:
        return WarmStart(None, None, seconds, why, lp_seconds)
    return WarmStart(best[1], best[0], seconds, "restricted plan", lp_seconds)


def _run_until(highs: Any, until: float) -> bool:
    """Run ``highs`` with a time limit ending at ``until``; whether it proved its model optimal."""
    import highspy

    left = until - time.perf_counter()
    if left <= 0.05:
        return False
    highs.setOptionValue("time_limit", left)
    highs.run()
    return bool(highs.getModelStatus() == highspy.HighsModelStatus.kOptimal)


def _none(started: float, step: str, highs: Any) -> WarmStart:
    status = highs.modelStatusToString(highs.getModelStatus())
    return WarmStart(None, None, time.perf_counter() - started, f"{step}: {status}")


def _free(highs: Any, model: Any, cols: list[int]) -> None:
    """Give columns (by index) their bounds in ``model`` again."""
    lower, upper = model.lp_.col_lower_, model.lp_.col_upper_
    highs.changeColsBounds(
        len(cols), cols, [lower[col] for col in cols], [upper[col] for col in cols]
    )


def _fix(highs: Any, values: dict[int, float]) -> None:
    """Fix columns (by index) at values through their bounds."""
    cols = list(values)
    fixed = [values[col] for col in cols]
    highs.changeColsBounds(len(cols), cols, fixed, fixed)


def _stop_at(highs: Any, deadline: float) -> None:
    """Interrupt ``highs`` (simplex, IPM or MIP search) once ``deadline`` has passed."""
    interrupt_when(highs, lambda: time.perf_counter() >= deadline)


def interrupt_when(
    highs: Any, stop: Callable[[], bool], search_done: Callable[[Any], bool] | None = None
) -> None:
    """Interrupt ``highs`` (simplex, IPM or MIP search) as soon as ``stop()`` says so.

    HiGHS checks its own time limit only between phases (a sub-MIP given
    4.3 s ran 12.3 s inside root cuts); its interrupt callbacks come often.
    ``search_done(data_out)``, asked in the MIP search's callbacks only, may
    end it too (on its plan and bound: ``mip_primal_bound``, ``mip_gap``).
    """
    import highspy

    kinds = highspy.cb.HighsCallbackType
    mip = kinds.kCallbackMipInterrupt

    def callback(kind: Any, _message: str, data_out: Any, data_in: Any, _user: Any) -> None:
        # Set both ways: HiGHS 1.16 keeps the flag from one run() to the next,
        # so a model run again after an interrupt would stop at once.
        data_in.user_interrupt = bool(
            stop() or (search_done is not None and kind == mip and search_done(data_out))
        )

    highs.setCallback(callback, None)
    for kind in (
        kinds.kCallbackSimplexInterrupt,
        kinds.kCallbackIpmInterrupt,
        kinds.kCallbackMipInterrupt,
    ):
        highs.startCallback(kind)


def warm_start_values(
    problem: pulp.LpProblem,
    highs: Any,
    groups: Sequence[Sequence[str]],
    deadline: float,
    threads: int | None,
) -> tuple[dict[str, float] | None, WarmStart | None]:
    """:func:`restricted_start` by variable name (``var.index`` set by PuLP's build of ``highs``)."""
    index = {v.name: v.index for v in problem.variables()}
    cols = [[index[name] for name in group if name in index] for group in groups]
    cols = [group for group in cols if len(group) >= 2]
    if not cols:
        return None, None
    warm = restricted_start(highs, cols, deadline, threads)
    if warm.values is None:
        return None, warm
    return {v.name: warm.values[v.index] for v in problem.variables()}, warm


def maybe_warm_start(
    problem: pulp.LpProblem,
    highs: Any,
    settings: SolverSettings,
    deadline: float | None,
    picks: Sequence[Sequence[str]] | None,
) -> dict[str, float] | None:
    """The warm start's first plan for the full MIP in ``highs`` by name, when one is due and found.

    Called after the full model is handed to HiGHS and before its time limit
    is set from what is left (``adapters.limit_from_now``), so the warm
    start's seconds count against ``--time-limit``.
    """
    if not picks:
        return None
    integers = sum(1 for v in problem.variables() if v.cat == pulp.LpInteger)
    left = None if deadline is None else deadline - time.perf_counter()
    budget = warm_budget(settings.time_limit, left, integers)
    if budget is None:
        return None
    start, warm = warm_start_values(
        problem, highs, picks, time.perf_counter() + budget, settings.threads
    )
    if settings.progress and warm is not None:
        found = "none" if warm.cost is None else money_text(warm.cost, settings.currency)
        print(
            f"gpumix: warm start ({warm.why}, {warm.seconds:.1f} s): first plan {found}",
            file=sys.stderr,
            flush=True,
        )
    return start


def warm_start(
    built: BuiltModel, deadline: float, threads: int | None = None
) -> dict[str, float] | None:
    """A first plan for ``built`` by variable name, or None (builds its own HiGHS model; for tests)."""
    import highspy

    solver = pulp.HiGHS(msg=False, threads=threads)
    solver.createAndConfigureSolver(built.problem)
    solver.buildSolverModel(built.problem)
    highs = built.problem.solverModel
    assert isinstance(highs, highspy.Highs)
    start, _warm = warm_start_values(built.problem, highs, pick_groups(built), deadline, threads)
    return start
