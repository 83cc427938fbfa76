"""Rule family ``serving`` (model v2 §B, the model's ``realtime_demand``): capacity with headroom.

Takes a ``Scenario``, the plan's ``Decisions`` and the pair estimates; hands on a
violation line for every month of a realtime workload's window whose replicas
serve less than its demand over ``target_load``, or number fewer than
``min_replicas``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from optimizer.check.demand import serving_capacity
from optimizer.check.tolerances import HOURS_REL_TOL
from optimizer.domain import Kind, Scenario
from optimizer.results import Decisions, PairEstimate


def serving_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every month ``t`` of a realtime window:
    ``sum cap[w,g,k] × replicas[w,g,p,k,t] >= demand[w,t] / target_load`` and
    ``sum replicas[w,g,p,k,t] >= min_replicas`` (also when demand is 0).

    Sums run over types, places and widths; a width that is not allowed has no
    capacity (the key rules report it); replicas in any place count.
    """
    found: list[str] = []
    a = scenario.assumptions
    capacity = serving_capacity(estimates)
    served: dict[tuple[str, int], float] = defaultdict(float)
    count: dict[tuple[str, int], float] = defaultdict(float)
    for (name, gpu, _, width, t), n in decisions.replicas.items():
        served[name, t] += capacity.get((name, gpu, width), 0.0) * n
        count[name, t] += n
    for w in scenario.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE:
            continue
        for t in w.window(scenario.horizon_months):
            demand = w.demand_in(t)  # model v2 §E: growth and sheet Demand
            need = demand / a.target_load
            have = served.get((w.name, t), 0.0)
            if have < need * (1.0 - HOURS_REL_TOL):
                found.append(
                    f"serving: {w.name} month {t} has {have:,.6g} tokens/s of capacity, needs "
                    f"{demand:,.6g} / target_load {a.target_load:g} = {need:,.6g}"
                )
            replicas = count.get((w.name, t), 0.0)
            if replicas < w.min_replicas - 1e-6:
                found.append(
                    f"serving: {w.name} month {t} has {replicas:g} replicas, fewer than "
                    f"min_replicas {w.min_replicas} (demand {demand:,.6g} tokens/s)"
                )
    return found
