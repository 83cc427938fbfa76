"""Constraint family ``realtime_demand``: whole replicas serve the demand with headroom.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/realtime_demand.lp``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pulp

from optimizer.domain import Kind
from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _ceil


def serving_months(built: BuiltModel) -> Iterator[tuple[int, int, float, int, Terms]]:
    """Each serving workload-month: ``(w position, t, D', fewest replicas, replicas)``.

    ``D'`` is the month's demand over the target load (model v2 §E: grows, or
    sheet Demand); the fewest replicas are ``max(min_replicas, ceil(D' / max
    cap))``; the replicas are the month's variables with each one's uncapped
    tokens/s.
    """
    s = built.scenario
    caps = {
        (w_name, g, k): width.tokens_per_second_per_replica or 0.0
        for (w_name, g), est in built.estimates.items()
        for width in est.serving_widths()
        for k in (width.width,)
    }
    by_month: dict[tuple[str, int], Terms] = {}
    for (w_name, g, _key, k, t), var in built.replicas.items():
        by_month.setdefault((w_name, t), []).append((var, caps[(w_name, g, k)]))
    for w in s.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE:
            continue
        best = max((c for (wn, _g, _k), c in caps.items() if wn == w.name), default=0.0)
        for t in w.window(s.horizon_months):
            need = w.demand_in(t) / s.assumptions.target_load
            fewest = max(w.min_replicas, _ceil(need / best) if best > 0 else 0)
            yield built.workload_pos[w.name], t, need, fewest, by_month.get((w.name, t), [])


def define_realtime_demand_constraints(built: BuiltModel) -> None:
    """Serving capacity with headroom, and enough replicas, in every month of the window.

    ``realtime_demand_w{w}_t{t}`` (model v2 §B):
        sum_{g, p, k} min(cap[w,g,k], D') * rep[w,g,p,k,t] >= D',  D' = demand[w,t] / target_load
    ``realtime_demand_replicas_w{w}_t{t}``:
        sum_{g, p, k} rep[w,g,p,k,t] >= max(min_replicas, ceil(D' / max cap))

    Capping a coefficient at ``D'`` changes no integer solution (one such
    replica alone meets it) but stops the LP relaxation from paying for a
    sliver of a big replica; ``ceil(D' / max cap)`` replicas are needed anyway,
    so that part of the second row is a valid cut. ``min_replicas`` holds also
    in a month whose demand is 0. Replicas pin whole GPUs of their place
    (``place_capacity``) and rented ones are paid ``k * H`` (``rental_hours``).
    Elastic (``demand``): ``short[w,t]`` tokens/s on the first row, weighted 1
    per month of full demand; the replicas row keeps only ``min_replicas``,
    with ``short[replicas,w,t]`` replicas, weighted 1 per month of all of them.
    """
    for i, t, need, fewest, reps in serving_months(built):
        w = built.scenario.workloads[i]
        terms: Terms = [(var, min(need, cap)) for var, cap in reps]
        short = built.add_shortfall(ELASTIC_DEMAND, ("realtime", i, t), 1.0 / max(need, 1e-9))
        if short is not None:
            terms.append((short, 1.0))
        if need > 0:
            built.add_row("realtime_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, need)
        if short is None and fewest >= 1:
            built.add_row(
                "realtime_demand",
                ("replicas", f"w{i}", f"t{t}"),
                [(var, 1.0) for var, _cap in reps],
                pulp.LpConstraintGE,
                fewest,
            )
        elif short is not None and w.min_replicas >= 1:
            # Elastic: only min_replicas, with its own slack (replicas short).
            lack = built.add_shortfall(ELASTIC_DEMAND, ("replicas", i, t), 1.0 / w.min_replicas)
            assert lack is not None  # the demand group is elastic here
            built.add_row(
                "realtime_demand",
                ("replicas", f"w{i}", f"t{t}"),
                [*((var, 1.0) for var, _cap in reps), (lack, 1.0)],
                pulp.LpConstraintGE,
                float(w.min_replicas),
            )
