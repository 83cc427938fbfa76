"""Demand growth a scenario cannot plan: compounded past ``MAX_DEMAND_GROWTH``.

``growth_per_month`` is bounded cell by cell (schema), but what it does
depends on the window it compounds over: 4 (a percent typed as a number)
multiplies demand by 5^23 ≈ 1e16 by month 24, and 1 over a 1,200-month
horizon overflows a float. Checked after every override, per scenario, with
the factor worked out in logarithms so that the check itself cannot overflow.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from optimizer.domain import Scenario
from optimizer.errors import Problem
from optimizer.inputs.cells import Where
from optimizer.inputs.schema import MAX_DEMAND_GROWTH, bound_text


def growth_exponent(growth: float, months: int) -> float:
    """log10 of ``(1 + growth) ** months``: how many tenfolds demand grows."""
    return months * math.log10(1.0 + growth)


def growth_problems(
    built: Sequence[tuple[Scenario, Mapping[str, Where], str | None]],
    unsound: Mapping[str, frozenset[str]],
) -> list[Problem]:
    """One problem per workload whose growth over its window passes ``MAX_DEMAND_GROWTH``.

    ``unsound``: by scenario, its keys with problems; one with an unsure horizon is skipped.
    """
    found: dict[tuple[str, float, int, int], tuple[Where, list[str]]] = {}
    for scenario, wheres, _ in built:
        if "horizon_months" in unsound.get(scenario.name, frozenset()):
            continue
        for w in scenario.workloads:
            where = wheres.get(w.name)
            if where is None or w.growth_per_month <= 0:
                continue
            last = w.end_month if w.end_month is not None else scenario.horizon_months
            months = last - w.start_month
            if growth_exponent(w.growth_per_month, months) > math.log10(MAX_DEMAND_GROWTH):
                key = (w.name, w.growth_per_month, w.start_month, last)
                found.setdefault(key, (where, []))[1].append(scenario.name)
    problems = []
    for (_, growth, start, last), (where, scenarios) in found.items():
        tenfolds = growth_exponent(growth, last - start)
        named = ", ".join(repr(s) for s in scenarios)
        problems.append(
            where.at(
                "growth_per_month",
                f"scenario{'s' if len(scenarios) > 1 else ''} {named}: compounded from month "
                f"{start} to month {last}, it multiplies demand by about 1e{tenfolds:.0f}, more "
                f"than the {bound_text(MAX_DEMAND_GROWTH)} times gpumix plans (fractions are "
                "plain numbers: 0.04 is 4 % a month)",
                growth,
                f"a fraction per month that keeps demand within {bound_text(MAX_DEMAND_GROWTH)} "
                "times its first month's",
            )
        )
    return problems
