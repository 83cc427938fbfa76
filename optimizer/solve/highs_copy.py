"""Copies of a HiGHS model, solved to a deadline: the plan-first phase's sub-solves.

Each step of the phase (the aggregated model, a restriction to some GPU
types, HiGHS's own first plan) changes a copy of the full model's HiGHS
model, never the model itself, and runs it until a deadline, a "stop" from
outside or a plan close enough to its bound. What it hands on is the plan's
every column with its cost recomputed from them (:func:`plan_of`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from optimizer.solve.warm_start import interrupt_when

Stop = Callable[[], bool]


def copy_of(highs: Any) -> Any:
    """A silent copy of ``highs``: the same model and options."""
    import highspy

    copy = highspy.Highs()
    copy.passOptions(highs.getOptions())
    copy.setOptionValue("output_flag", False)
    copy.passModel(highs.getModel())
    return copy


class Solved(NamedTuple):
    """A sub-solve's best plan: its cost (recomputed), every column, and when it was found."""

    cost: float
    values: list[float]
    found_at: float  # time.perf_counter() when the search last improved its plan


def solve_until(
    copy: Any, until: float, should_stop: Stop, search_done: Callable[[Any], bool] | None = None
) -> Solved | None:
    """Run ``copy`` until ``until``, ``should_stop()`` or ``search_done(data_out)`` (see
    :func:`optimizer.solve.warm_start.interrupt_when`); its best plan or None."""
    started = time.perf_counter()
    left = until - started
    if left <= 0.05 or should_stop():
        return None
    best = [math.inf, started]  # the search's plan's cost as it reports it, and when it fell

    def watched(data_out: Any) -> bool:
        # Asked at HiGHS's frequent MIP interrupt callbacks: when the plan improved is
        # known to within one of them (a search may hand its plan on much later).
        if data_out.mip_primal_bound < best[0]:
            best[:] = [data_out.mip_primal_bound, time.perf_counter()]
        return search_done is not None and search_done(data_out)

    interrupt_when(copy, lambda: time.perf_counter() >= until or should_stop(), watched)
    copy.setOptionValue("time_limit", left)
    copy.run()
    model = copy.getModel()
    found = plan_of(copy, model, set(integer_columns(model)))
    return None if found is None else Solved(found[0], found[1], best[1])


def within_gap_after(patience_until: float, gap: float) -> Callable[[Any], bool]:
    """Whether a search's plan is within ``gap`` of its bound, once ``patience_until`` has passed."""

    def close_enough(data_out: Any) -> bool:
        return (
            time.perf_counter() >= patience_until
            and math.isfinite(data_out.mip_primal_bound)
            and data_out.mip_gap <= gap
        )

    return close_enough


def start_from(copy: Any, values: list[float]) -> None:
    """Hand ``copy`` a plan (every column's value) to start its search from."""
    import numpy as np

    columns = np.arange(len(values), dtype=np.int32)
    copy.setSolution(len(values), columns, np.array(values, dtype=np.float64))


def plan_of(highs: Any, model: Any, integers: set[int]) -> tuple[float, list[float]] | None:
    """The plan ``highs`` holds (cost, columns with integers rounded), or None.

    The cost is recomputed from the columns: HiGHS 1.16, given a first plan,
    can report an objective value that is not its plan's (a sub-MIP said
    $169,416.52 of a plan that costs $209,794.02).
    """
    if int(highs.getInfo().primal_solution_status) != 2:  # kSolutionStatusFeasible
        return None
    values = list(highs.getSolution().col_value)
    for col in integers:
        values[col] = float(round(values[col]))
    lp = model.lp_
    return float(lp.offset_ + sum(c * x for c, x in zip(lp.col_cost_, values, strict=True))), values


def integer_columns(model: Any) -> list[int]:
    """Indices of the integer columns of a HiGHS model."""
    import highspy

    integer = highspy.HighsVarType.kInteger
    return [col for col, kind in enumerate(model.lp_.integrality_) if kind == integer]
