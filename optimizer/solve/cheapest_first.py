"""Plans of the full model on a few GPU types: each workload's cheapest, then one more.

Takes the full model's HiGHS model and its built model; hands on
:class:`TypesPlan`: a plan of the full model (every column's value) with
every column of the GPU types left out fixed at 0, its cost recomputed from
the columns, and how many types per workload were kept. Which types are a
workload's cheapest is judged without an LP
(:func:`optimizer.model.type_choice.cheapest_types`). Only bounds change, so
every plan of a restriction is a plan of the full model at the same cost.

Two uses: the first plan of a model above ``MAX_INTEGERS`` integers (and the
fallback where the aggregated model gives none), and, with time left beside
HiGHS's search, a better plan from it on each workload's one type more
(:func:`wider_types`): on (20, 50, 60) seed 1 the cheapest type gives
$495,969.75 within 8 s, the two cheapest from that plan $414,669.57 after
25 s more (docs/performance.md, "Above 50,000 integers" and "Widening the
first plan beside HiGHS").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from optimizer.model.built import BuiltModel
from optimizer.model.type_choice import cheapest_types, columns_of_types
from optimizer.solve.adapters import highs_outcome
from optimizer.solve.fix_optimize import min_saving
from optimizer.solve.highs_copy import Stop, copy_of, solve_until, start_from, within_gap_after

# While a restriction has no plan at all (a capped offer, a latency target), it
# widens to each workload's 2, then 3 cheapest types.
CHEAPEST_WIDEN = 3
# A restriction's search ends at a plan proven within this gap of its own bound
# (the aggregated model's rule): the next, wider one may then improve it.
RESTRICTION_GAP = 0.02
# Beside HiGHS's search the first restriction hands its plan on to be widened
# once its share has passed and the plan is within this gap of its bound. On
# (20, 50, 60) seeds 1 and 2 it is within 2.7 % by then (widening: seed 1
# $495,969.75 -> $414,669.57); on seed 3 within 36 %, and its own search
# found $3,130,933.35 at 7 s and $2,673,012.84 at 33 s, where two types
# from the first plan reached only $2,960,740.41 by 56 s.
WIDEN_GAP = 0.05


@dataclass(frozen=True)
class TypesPlan:
    """A plan on each workload's ``per_workload`` cheapest types (columns, cost), or why none."""

    values: list[float] | None
    cost: float | None
    source: str  # "each workload's cheapest GPU type (2 of 20 types)", or why there is no plan
    per_workload: int = 0
    found_at: float = math.nan  # time.perf_counter() when the plan was found


def cheapest_types_plan(
    highs: Any,
    built: BuiltModel,
    column: dict[str, int],
    until: float,
    should_stop: Stop,
    patience_until: float,
    widen_from: float = math.inf,
) -> TypesPlan:
    """The best plan within ``until`` on each workload's cheapest GPU type; where that has
    no plan, on its two cheapest, then three (:data:`CHEAPEST_WIDEN`).

    The search ends early at a plan within :data:`RESTRICTION_GAP` of its bound
    after ``patience_until``, or within :data:`WIDEN_GAP` after ``widen_from``
    (then :func:`wider_types` may improve it; a plan further from its bound is
    left to its own search, which still improves it faster).
    """
    import highspy

    close = within_gap_after(patience_until, RESTRICTION_GAP)
    near = within_gap_after(widen_from, WIDEN_GAP)

    why = "every type is some workload's cheapest"
    tried: tuple[str, ...] = ()
    for per_workload in range(1, CHEAPEST_WIDEN + 1):
        kept = cheapest_types(built, per_workload)
        if kept == tried:
            continue  # the same types again: as infeasible as before
        tried = kept
        restriction = _restricted(highs, built, column, kept, per_workload)
        if restriction is None:
            break
        copy, source = restriction
        found = solve_until(copy, until, should_stop, lambda out: close(out) or near(out))
        if found is not None:
            return TypesPlan(found.values, found.cost, source, per_workload, found.found_at)
        status = copy.getModelStatus()
        why = f"{source}: {copy.modelStatusToString(status)}"
        if status != highspy.HighsModelStatus.kInfeasible:
            break  # out of time, or stopped: a wider restriction would not fare better
    return TypesPlan(None, None, why)


def wider_types(
    highs: Any,
    built: BuiltModel,
    column: dict[str, int],
    first: TypesPlan,
    until: float,
    should_stop: Stop,
    on_improved: Callable[[list[float]], None] | None = None,
) -> TypesPlan:
    """From ``first``'s plan, each workload's one more type, then one more, until ``until``:
    the cheapest plan found (``first`` when none is cheaper).

    Each wider restriction starts from the best plan so far, so it can only
    improve on it; it ends at its deadline or at a plan within
    :data:`RESTRICTION_GAP` of its own bound, and the next one goes on.
    """
    best = first
    tried = cheapest_types(built, first.per_workload)
    # A workload runs on only so many types: past that, one more per workload may keep
    # the same types, and the count of types bounds the loop.
    for per_workload in range(first.per_workload + 1, len(built.scenario.gpus) + 1):
        if best.values is None or best.cost is None:
            break
        if time.perf_counter() >= until - 0.1 or should_stop():
            break
        kept = cheapest_types(built, per_workload)
        if kept == tried:
            continue
        tried = kept
        restriction = _restricted(highs, built, column, kept, per_workload)
        if restriction is None:
            break  # every type kept: that is the full model, which HiGHS searches already
        copy, source = restriction
        start_from(copy, best.values)
        found = solve_until(
            copy, until, should_stop, within_gap_after(time.perf_counter(), RESTRICTION_GAP)
        )
        if found is not None and highs_outcome(copy, True).false_optimum:
            # HiGHS 1.16 stopped at the start it misjudged: the same types without it.
            copy, _source = _restricted(highs, built, column, kept, per_workload) or restriction
            found = solve_until(
                copy, until, should_stop, within_gap_after(time.perf_counter(), RESTRICTION_GAP)
            )
        if found is not None and found.cost < best.cost - min_saving(best.cost):
            best = TypesPlan(found.values, found.cost, source, per_workload, found.found_at)
            if on_improved is not None:
                on_improved(found.values)
    return best


def _restricted(
    highs: Any, built: BuiltModel, column: dict[str, int], kept: tuple[str, ...], per_workload: int
) -> tuple[Any, str] | None:
    """A copy of ``highs`` with every column of the types not ``kept`` (each workload's
    ``per_workload`` cheapest) fixed at 0, and what it keeps; None when no column is left out."""
    import numpy as np

    others = sorted(
        {
            column[v.name]
            for gpu, cols in columns_of_types(built).items()
            if gpu not in kept
            for v in cols
        }
    )
    if not others:
        return None
    copy = copy_of(highs)
    zeros = np.zeros(len(others))
    copy.changeColsBounds(len(others), np.array(others, dtype=np.int32), zeros, zeros)
    cheapest = "cheapest GPU type" if per_workload == 1 else f"{per_workload} cheapest types"
    types = len(built.scenario.gpus)
    return copy, f"each workload's {cheapest} ({len(kept)} of {types} types)"
