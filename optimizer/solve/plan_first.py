"""Plans first: a near-optimal first plan for the exact search (issue 30).

Takes a built model (its PuLP problem not yet solved), the solver settings,
the time limit's deadline and a ``should_stop`` hook; hands on
:class:`FirstPlan`: every variable's value in a plan of the full model (or
None), its cost and where it came from. Steps:

1. the aggregated model (:mod:`optimizer.model.aggregate`: layout integers
   tied in quarters after month 12), solved under a capped share of the
   budget; if it gives no plan in time, the full model on each workload's
   cheapest GPU types (below), else HiGHS's own first plan of the full
   model (a short run stopped at its first plan), both taken from the
   phase's total: the full solve keeps :func:`reserve_seconds`;
2. fix-and-optimize from that plan (:mod:`optimizer.solve.fix_optimize`):
   6-month blocks (step 3) and pairs of GPU types with the training picks, in turn.

Above ``MAX_INTEGERS`` integers the aggregated model's root alone outlasts
the share, and so would each fix-and-optimize step: the first plan comes
from the full model with every column of the GPU types that are no
workload's cheapest fixed at 0 (:mod:`optimizer.model.type_choice`); beside
HiGHS's search it is then widened to each workload's two cheapest types,
and so on, in the time left (:mod:`optimizer.solve.cheapest_first`).

In the race (``auto`` on two cores) the phase runs in HiGHS's thread while
SCIP already searches the full model on the other core, and its plan goes
to both (:func:`optimizer.solve.race._run_race`); for ``highs`` or ``scip``
alone it runs first. The plan is only a start: the full MIP is then solved from it and reports
its own plan, bound and gap, which the checker checks as always. When the
phase runs (:func:`plan_first_budget`): on models of ``MIN_INTEGERS``
integers or more (the bundled example stays below), for a share of the time
limit. See docs/performance.md, "Plans first".
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import pulp

from optimizer.currency import money_text
from optimizer.model.aggregate import BLOCK_MONTHS, MONTHLY_UNTIL, layout_integers, tie_pairs
from optimizer.model.built import BuiltModel
from optimizer.results import SolverSettings
from optimizer.solve.adapters import highs_solver
from optimizer.solve.cheapest_first import TypesPlan, cheapest_types_plan, wider_types
from optimizer.solve.fix_optimize import Improved, fix_and_optimize
from optimizer.solve.highs_copy import Solved, Stop, copy_of, solve_until, within_gap_after

MIN_INTEGERS = 4000  # the bundled example has 2,969; (6, 8, 36) 4,281-5,095
# Above, the LP relaxation alone outlasts the caps ((20, 50, 60): 100-112k): the
# first plan comes from the cheapest GPU types, without fix-and-optimize.
MAX_INTEGERS = 50_000
AGGREGATED_SHARE = 0.3  # of the time limit
AGGREGATED_CAP_S = 30.0  # without a limit, or at most
# The aggregated search ends at a plan within this gap of its own bound, once
# this share of its time has passed (see _aggregated).
AGGREGATED_GAP = 0.02
AGGREGATED_PATIENCE = 0.25
IMPROVE_SHARE = 0.25
IMPROVE_CAP_S = 20.0
# What the phase leaves the full solve at least (the race's SCIP reads and
# presolves the model; HiGHS presolves it again): 10 s plus 0.2 s per 1,000
# integers (20 s at 50,000; a chosen margin, not fitted: the full solves
# measured ended 0.7-1.2 s past a 60-s limit with 25-27 s left to them). The fallback start comes out of the phase's
# total, not on top: at --time-limit 60 the phase ends by 33 s after its
# start (it took up to 42 s when the aggregated model gave no plan).
RESERVE_S = 10.0
RESERVE_PER_INTEGER_S = 0.0002
# Beside HiGHS's search (models above MAX_INTEGERS on two cores), the phase ends
# this long before the deadline: its plan is then compared and checked.
BESIDE_MARGIN_S = 2.0
# There the first plan (each workload's cheapest GPU type) gets this share of the
# phase, the wider restrictions from it the rest: on (20, 50, 60) the cheapest
# type's plan comes within 8-14 s, and the two cheapest types' root LP alone
# takes about 20 s (seed 1: $495,969.75 at 7.6 s, then $414,669.57 25 s later).
# Without a time limit the phase ends after BESIDE_CAP_S (HiGHS searches on).
BESIDE_FIRST_SHARE = 0.4
BESIDE_CAP_S = 120.0
FO_BLOCK_MONTHS = 6
FO_BLOCK_STEP = 3
# --coarse-after: the monthly plan is solved too, for the comparison, only on
# models below MIN_INTEGERS (the example, 2,969 integers, proves its optimum
# in a few seconds) and within a share of what is left of the time limit.
MONTHLY_SHARE = 0.25
MONTHLY_CAP_S = 30.0

# The phase as a solver runs it: given "should I stop?" and where to hand each
# plan as it is found, its best plan by variable name (or None).
Phase = Callable[[Stop, Callable[[dict[str, float]], None]], dict[str, float] | None]


def never() -> bool:
    return False


@dataclass(frozen=True)
class FirstPlan:
    """What the plan-first phase gave: the plan by variable name (None: none), cost, steps."""

    values: dict[str, float] | None
    cost: float | None  # of the first plan (aggregated model or HiGHS's own)
    source: str  # "the aggregated model", "HiGHS's first plan", or why there is none
    seconds: float  # to the first plan: when it was found above MAX_INTEGERS, else handed on
    improved: float | None = None  # cost after fix-and-optimize
    improve_seconds: float = 0.0  # when fix-and-optimize ended (a wider plan: was found)
    steps: int = 0
    improved_by: str = "fix-and-optimize"  # or "widening to each workload's 2 cheapest ..."

    @property
    def best(self) -> float | None:
        return self.improved if self.improved is not None else self.cost


def plan_first_budget(
    time_limit: float | None, left: float | None, integers: int, beside: bool = False
) -> tuple[float, float] | None:
    """Seconds for the first plan and for fix-and-optimize, or None (phase skipped).

    Their sum is the whole phase (fallback start included) and leaves the
    full solve at least :func:`reserve_seconds` of ``left``. ``beside``: the
    phase runs on a core of its own while HiGHS searches the full model
    (:mod:`optimizer.solve.beside_phase`), so it may take all that is left
    but :data:`BESIDE_MARGIN_S` (:data:`BESIDE_CAP_S` without a time limit):
    :data:`BESIDE_FIRST_SHARE` of it (at most :data:`AGGREGATED_CAP_S`) for
    the first plan, the rest to widen it to more GPU types.
    """
    if integers < MIN_INTEGERS:
        return None
    improves = integers <= MAX_INTEGERS
    if beside:
        total = BESIDE_CAP_S if left is None else left - BESIDE_MARGIN_S
        first = min(AGGREGATED_CAP_S, BESIDE_FIRST_SHARE * total)
        return (first, total - first) if first >= 1.0 else None
    if time_limit is None or left is None:
        return AGGREGATED_CAP_S, IMPROVE_CAP_S if improves else 0.0
    first = min(AGGREGATED_SHARE * time_limit, AGGREGATED_CAP_S, left / 3)
    improve = min(IMPROVE_SHARE * time_limit, IMPROVE_CAP_S, left / 4) if improves else 0.0
    room = left - reserve_seconds(integers)
    if first + improve > room:
        scale = max(0.0, room) / (first + improve)
        first, improve = first * scale, improve * scale
    return (first, improve) if first >= 1.0 else None


def phase_may_run(built: BuiltModel) -> bool:
    """Whether ``built`` has the size the phase runs on (its time may still rule it out)."""
    integers = sum(1 for v in built.problem.variables() if v.cat == pulp.LpInteger)
    return integers >= MIN_INTEGERS


def reserve_seconds(integers: int) -> float:
    """Seconds of the time limit the phase leaves the full solve of a model this size."""
    return RESERVE_S + RESERVE_PER_INTEGER_S * integers


def plan_first(
    built: BuiltModel,
    settings: SolverSettings,
    deadline: float | None = None,
    should_stop: Stop = never,
    budget: tuple[float, float] | None = None,
    on_plan: Callable[[dict[str, float]], None] | None = None,
    beside: bool = False,
) -> FirstPlan | None:
    """A plan of ``built``'s full model to start the exact search from, or None (phase skipped).

    ``budget`` (seconds for the aggregated solve, for fix-and-optimize)
    overrides :func:`plan_first_budget`. ``should_stop()`` is asked between
    and inside the sub-solves; when it says stop, the best plan so far is
    handed on. ``on_plan`` gets each plan by variable name as soon as it is
    found: the first, then each one fix-and-optimize improves (the race hands
    them to SCIP, which is already searching).
    """
    problem = built.problem
    # A list of its own: PuLP's problem.variables() re-sorts one shared list in
    # place, and another thread reading it meanwhile sees it cut short.
    variables = list(problem.variables())
    integers = [v for v in variables if v.cat == pulp.LpInteger]
    if budget is None:
        left = None if deadline is None else deadline - time.perf_counter()
        budget = plan_first_budget(settings.time_limit, left, len(integers), beside)
    if budget is None:
        return None
    started = time.perf_counter()
    phase_end = _until(started + budget[0] + budget[1], deadline)  # the fallback included
    highs = _highs_of(problem, settings)
    column = {v.name: v.index for v in variables}
    integer_cols = [column[v.name] for v in integers]
    first_until = _until(started + budget[0], deadline)
    patience_until = started + AGGREGATED_PATIENCE * budget[0]

    def by_name(columns: list[float]) -> dict[str, float]:
        return {v.name: columns[v.index] for v in variables}

    if len(integers) > MAX_INTEGERS:
        return _on_cheapest_types(
            highs,
            built,
            column,
            by_name,
            (started, first_until, patience_until, phase_end),
            should_stop,
            on_plan,
        )
    values, cost, source = _aggregated(
        highs, built, column, first_until, should_stop, patience_until
    )
    if values is None and not should_stop():
        # The aggregated solve spent its share: the fallback gets half as much again,
        # first each workload's cheapest GPU types, then HiGHS's own first plan. On
        # (10, 20, 36), one thread, 9 s: +26.1 %, +2.1 %, +0.1 % over the best known
        # (seeds 1-3) against +101 %, +67 %, +111 % for HiGHS's first plan.
        fallback_until = _until(time.perf_counter() + budget[0] / 2, phase_end)
        cheapest = cheapest_types_plan(
            highs, built, column, fallback_until, should_stop, time.perf_counter()
        )
        values, cost = cheapest.values, cheapest.cost
        source = cheapest.source if values is not None else source
        fallback = None if values is not None else _solver_first(highs, fallback_until, should_stop)
        if fallback is not None:
            cost, values = fallback.cost, fallback.values
            source = "HiGHS's first plan"
    seconds = time.perf_counter() - started
    if values is None or cost is None:
        return FirstPlan(None, None, source, seconds)
    if on_plan is not None:
        on_plan(by_name(values))
    improve_until = _until(time.perf_counter() + budget[1], phase_end)
    improved: Improved = fix_and_optimize(
        highs,
        values,
        cost,
        integer_cols,
        neighbourhoods(built, column),
        improve_until,
        should_stop,
        on_improved=None if on_plan is None else lambda columns: on_plan(by_name(columns)),
    )
    return FirstPlan(
        by_name(improved.values),
        cost,
        source,
        seconds,
        improved.cost,
        time.perf_counter() - started,
        improved.steps,
    )


def _on_cheapest_types(
    highs: Any,
    built: BuiltModel,
    column: dict[str, int],
    by_name: Callable[[list[float]], dict[str, float]],
    times: tuple[float, float, float, float],
    should_stop: Stop,
    on_plan: Callable[[dict[str, float]], None] | None,
) -> FirstPlan:
    """Above MAX_INTEGERS: the plan on each workload's cheapest GPU types (by its share's
    end if near its bound by then, else by the phase's end), then, until the phase's end,
    on one type more each, from that plan (:mod:`optimizer.solve.cheapest_first`).

    ``times``: the phase's start, the end of the first plan's share, its patience, the
    phase's end (on one core the share's end: no time is left for more).
    """
    started, first_until, patience_until, phase_end = times
    # The first restriction may search on to the phase's end unless its plan, after
    # its share, is near enough its bound to be widened (cheapest_first.WIDEN_GAP).
    first = cheapest_types_plan(
        highs, built, column, phase_end, should_stop, patience_until, widen_from=first_until
    )
    if first.values is None or first.cost is None:
        return FirstPlan(None, None, first.source, time.perf_counter() - started)
    if on_plan is not None:
        on_plan(by_name(first.values))
    wider: TypesPlan = wider_types(
        highs,
        built,
        column,
        first,
        phase_end,
        should_stop,
        on_improved=None if on_plan is None else lambda columns: on_plan(by_name(columns)),
    )
    assert wider.values is not None  # it starts from the first plan
    improved = wider is not first
    # When each plan was found (the searches may hand their plans on much later:
    # s20-50-60-1's first plan was found at 7.6 s and handed on at 20.6 s).
    return FirstPlan(
        by_name(wider.values),
        first.cost,
        first.source,
        first.found_at - started,
        wider.cost if improved else None,
        (wider.found_at if improved else time.perf_counter()) - started,
        0,
        f"widening to {wider.source}",
    )


def monthly_optimum(
    built: BuiltModel, settings: SolverSettings, deadline: float | None
) -> float | None:
    """The monthly (untied) model's proven optimal cost, or None: not compared.

    Solved by HiGHS (silent) before ``--coarse-after``'s ties are added, only
    when cheap (below ``MIN_INTEGERS`` integers, within ``MONTHLY_SHARE`` of
    what is left of the time limit, at most ``MONTHLY_CAP_S``); a plan that
    is not proven optimal is not compared.
    """
    problem = built.problem
    if sum(1 for v in problem.variables() if v.cat == pulp.LpInteger) >= MIN_INTEGERS:
        return None
    now = time.perf_counter()
    share = (
        MONTHLY_CAP_S if deadline is None else min(MONTHLY_CAP_S, MONTHLY_SHARE * (deadline - now))
    )
    highs = copy_of(_highs_of(problem, settings))
    found = solve_until(highs, now + share, never)
    if found is None or highs.modelStatusToString(highs.getModelStatus()) != "Optimal":
        return None
    return found[0]


def neighbourhoods(built: BuiltModel, column: dict[str, int]) -> list[tuple[str, list[int]]]:
    """6-month blocks (step 3) and pairs of GPU types (with every training pick), taken
    in turn: block, pair, block, pair ...; by column.

    Pairs rather than single types: work moves between two types only when
    both are free at once. In turn rather than all blocks first: on
    s6-8-36-2 (one thread, 10 s of fix-and-optimize after the same first
    plan, optimum $196,724.45) single types after the blocks stopped at
    $198,882.08 (+1.10 %) at 12.6 s; pairs after the blocks came within 1 %
    only at 15.2 s; blocks and pairs in turn at 10.0 s ($198,205.13). On
    company the optimum then comes at 7.1 s instead of 5.3 s (the first plan
    is within 1 % already), on s6-8-36-1 the phase ends cheaper ($24,989.88
    against $25,156.64); docs/performance.md. One type alone is its own
    neighbourhood.
    """
    layout = layout_integers(built)
    months = built.scenario.horizon_months
    blocks: list[tuple[str, list[int]]] = []
    start = 1
    while True:
        end = min(months, start + FO_BLOCK_MONTHS - 1)
        cols = [column[c.name] for c in layout if c.month is not None and start <= c.month <= end]
        if cols:
            blocks.append((f"months {start}-{end}", cols))
        if end >= months:
            break
        start += FO_BLOCK_STEP
    picks = [column[c.name] for c in layout if c.month is None]
    by_type: dict[str, list[int]] = {}
    for gpu in built.scenario.gpus:
        cols = [column[c.name] for c in layout if c.gpu == gpu.name and c.month is not None]
        if cols:
            by_type[gpu.name] = cols
    types = [
        (f"{a} + {b}", ca + cb + picks) for (a, ca), (b, cb) in combinations(by_type.items(), 2)
    ]
    if len(by_type) == 1:
        ((name, cols),) = by_type.items()
        types = [(name, cols + picks)]
    found: list[tuple[str, list[int]]] = []
    for i in range(max(len(blocks), len(types))):
        found += blocks[i : i + 1] + types[i : i + 1]
    return found


def _highs_of(problem: pulp.LpProblem, settings: SolverSettings) -> Any:
    """HiGHS's model of ``problem`` with gpumix's options (sets ``var.index``), silent."""
    quiet = replace(settings, progress=False, time_limit=None)
    solver = highs_solver(quiet)
    solver.createAndConfigureSolver(problem)
    solver.buildSolverModel(problem)
    return problem.solverModel


def _aggregated(
    highs: Any,
    built: BuiltModel,
    column: dict[str, int],
    until: float,
    should_stop: Stop,
    patience_until: float = -math.inf,
) -> tuple[list[float] | None, float | None, str]:
    """The aggregated model's best plan within ``until`` (columns, cost, source or why none).

    Its own optimum is a start, not the answer (0-1 % above the full
    model's): after ``patience_until`` a plan proven within AGGREGATED_GAP
    of its bound goes on to fix-and-optimize, which improves it in the full
    model. Before it the search goes on, since an optimum found early is
    often proven soon after (s6-8-36-1: within 2 % at 2.0 s with $25,188.87,
    the aggregated optimum $24,863.63 at 2.3 s).
    """
    import numpy as np

    pairs = tie_pairs(built, MONTHLY_UNTIL, BLOCK_MONTHS)
    copy = copy_of(highs)
    n = len(pairs)
    if n:
        starts = np.arange(0, 2 * n, 2, dtype=np.int32)
        index = np.array([column[name] for pair in pairs for name in pair], dtype=np.int32)
        value = np.tile(np.array([1.0, -1.0]), n)
        copy.addRows(n, np.zeros(n), np.zeros(n), 2 * n, starts, index, value)
    found = solve_until(copy, until, should_stop, within_gap_after(patience_until, AGGREGATED_GAP))
    if found is None:
        status = copy.modelStatusToString(copy.getModelStatus())
        return None, None, f"aggregated model: {status}"
    return found[1], found[0], "the aggregated model"


def _solver_first(highs: Any, until: float, should_stop: Stop) -> Solved | None:
    """HiGHS's first plan of the full model (the search stopped at it), or None."""
    copy = copy_of(highs)
    copy.setOptionValue("mip_max_improving_sols", 1)
    return solve_until(copy, until, should_stop)


def _until(end: float, deadline: float | None) -> float:
    return end if deadline is None else min(end, deadline)


def say_first_plan(found: FirstPlan, currency: str) -> str:
    """The progress line of the phase: "first plan $X from ..., 4.2 s; after ... $Y, 9.8 s"."""
    if found.cost is None:
        return f"gpumix: no first plan ({found.source}, {found.seconds:.1f} s)"
    text = (
        f"gpumix: first plan {money_text(found.cost, currency)} from {found.source}, "
        f"{found.seconds:.1f} s"
    )
    if found.improved is not None:
        text += (
            f"; after {found.improved_by} {money_text(found.improved, currency)}, "
            f"{found.improve_seconds:.1f} s"
        )
    return text


def say_proof(plan: float | None, gap: float | None, currency: str, seconds: float) -> str:
    """The closing progress line: the full model's plan and proven gap."""
    plan_text = "no plan" if plan is None else f"plan {money_text(plan, currency)}"
    gap_text = "unknown" if gap is None or not math.isfinite(gap) else f"{gap:.2%}"
    return f"gpumix: full model: {plan_text}, proven gap {gap_text}, {seconds:.1f} s"


def report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
