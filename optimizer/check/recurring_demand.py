"""Rule family ``recurring_demand`` (model v2 §C, with v1's ``batch_demand``): runs every month.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on a
violation line for every month of a recurring training job's or a batch job's
window that does fewer runs than it needs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from optimizer.check.demand import gangs, useful_per_paid
from optimizer.check.tolerances import HOURS_REL_TOL
from optimizer.domain import Kind, Scenario
from optimizer.results import Decisions, PairEstimate


def recurring_demand_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every month ``t`` of the window of a recurring training job or a batch job:
    ``sum_{g,p} useful(work[w,g,p,t]) / R_wg >= runs_per_month`` (1 for batch without it;
    for batch, times the month's demand over its base, model v2 §E).

    Types and places may mix; ``useful = paid × spot_yield(...)`` on a spot
    offer. A pair with ``R_wg = 0`` has nothing to do: its months are met.
    """
    found: list[str] = []
    pair_gangs = gangs(scenario, estimates)
    runs: dict[tuple[str, int], float] = defaultdict(float)
    for (name, gpu, place, t), hours in decisions.work.items():
        gang = pair_gangs.get((name, gpu, t))
        if gang is None or gang.run_gpu_hours <= 0:
            continue
        runs[name, t] += hours * useful_per_paid(scenario, gpu, place, gang) / gang.run_gpu_hours
    for w in scenario.workloads:
        if w.kind is Kind.REALTIME_INFERENCE or w.one_off_training:
            continue
        if any(n == w.name and g.run_gpu_hours <= 0 for (n, _, _), g in pair_gangs.items()):
            continue
        rate = w.runs_per_month if w.runs_per_month is not None else 1.0
        what = "batch job" if w.kind is Kind.BATCH_INFERENCE else "recurring training job"
        for t in w.window(scenario.horizon_months):
            # model v2 §E: a batch month's work scales with its demand (each run that much larger)
            need = rate * w.demand_factor(t) if w.kind is Kind.BATCH_INFERENCE else rate
            done = runs.get((w.name, t), 0.0)
            if done < need * (1.0 - HOURS_REL_TOL):
                found.append(
                    f"recurring_demand: {what} {w.name} in month {t} does {done:.6g} runs "
                    f"({done / need:.4%} of its work), needs {need:g} a month"
                )
    return found
