"""Fix-and-optimize: improve a plan one neighbourhood of integers at a time (issue 30).

Takes a HiGHS model (copied, never changed), a plan of it (every column's
value), the integer columns and the neighbourhoods (named lists of integer
columns); hands on the cheapest plan found (:class:`Improved`). Each step
frees one neighbourhood's integers, keeps every other integer fixed at the
plan's value (continuous columns stay free), starts the sub-MIP from the
plan and keeps what it gives when that is cheaper. Every sub-MIP's plan is a
plan of the whole model (only bounds were tightened), so the result is a
plan of the model at its own cost. The steps go round the neighbourhoods
until one full round improves nothing, the deadline passes or
``should_stop()`` says so; each sub-MIP is stopped by HiGHS's interrupt
callback at its own deadline, since HiGHS overruns its time limit inside
root cuts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from optimizer.solve.highs_copy import copy_of, plan_of, start_from
from optimizer.solve.warm_start import _fix, _free, interrupt_when

STEP_S = 3.0  # at most per sub-MIP (the study's measured setting)


@dataclass(frozen=True)
class Improved:
    """The plan after fix-and-optimize: values, cost, sub-MIPs run and how many gave a cheaper plan."""

    values: list[float]
    cost: float
    steps: int
    improvements: int


def fix_and_optimize(
    highs: Any,
    values: Sequence[float],
    cost: float,
    integers: Sequence[int],
    neighbourhoods: Sequence[tuple[str, Sequence[int]]],
    until: float,
    should_stop: Callable[[], bool] = lambda: False,
    step_s: float = STEP_S,
    on_improved: Callable[[list[float]], None] | None = None,
) -> Improved:
    """The cheapest plan reached from ``values`` (cost ``cost``) before ``until``.

    ``on_improved`` sees each cheaper plan (every column's value) as it is found.
    """
    copy = copy_of(highs)
    model = copy.getModel()
    step_until = [until]
    interrupt_when(copy, lambda: time.perf_counter() >= step_until[0] or should_stop())
    whole = set(integers)
    best = [float(round(v)) if i in whole else float(v) for i, v in enumerate(values)]
    best_cost = cost
    _fix(copy, {col: best[col] for col in integers})
    steps = improvements = 0
    unimproved = 0  # neighbourhoods tried since the last improvement
    n = 0
    while neighbourhoods and unimproved < len(neighbourhoods):
        now = time.perf_counter()
        if now >= until - 0.1 or should_stop():
            break
        _name, free = neighbourhoods[n % len(neighbourhoods)]
        n += 1
        _free(copy, model, list(free))
        start_from(copy, best)
        step_until[0] = min(until, now + step_s)
        copy.setOptionValue("time_limit", max(0.05, step_until[0] - now))
        copy.run()
        steps += 1
        found = plan_of(copy, model, whole)
        if found is not None and found[0] < best_cost - min_saving(best_cost):
            best_cost, best = found
            improvements += 1
            if on_improved is not None:
                on_improved(best)
            unimproved = 0
        else:
            unimproved += 1
        _fix(copy, {col: best[col] for col in free})
    return Improved(best, best_cost, steps, improvements)


def min_saving(cost: float) -> float:
    """A cheaper plan must save more than this (a cent, or a millionth of the cost)."""
    return max(0.01, 1e-6 * abs(cost))
