"""Constraint family ``realtime_demand``: realtime serving meets its tokens/s.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/realtime_demand.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import Kind
from optimizer.model.built import ELASTIC_DEMAND, BuiltModel, Terms, _ceil, _pairs_of


def define_realtime_demand_constraints(built: BuiltModel) -> None:
    """Realtime serving meets its sustained tokens/s in every month of its window.

    ``realtime_demand_w{w}_t{t}``:
        sum_g min(cap[w,g], tokens_per_second[w]) * replicas[w,g,t] >= tokens_per_second[w]

    Capping a coefficient at the demand changes no integer solution (one
    such replica alone meets the demand) but stops the LP relaxation from
    paying for a sliver of a big replica.

    ``realtime_demand_replicas_w{w}_t{t}`` (a valid cut that tightens the LP
    relaxation, which would otherwise pay for a fraction of a replica):
        sum_g replicas[w,g,t] >= ceil(tokens_per_second[w] / max_g cap[w,g])
    and ``replicas[w,g,t] <= ceil(tokens_per_second[w] / cap[w,g])`` as a
    bound (more replicas of one type than meet the demand alone only add cost).

    Its GPU-hours are ``replicas * k[w,g] * H`` (in ``pool_balance``).
    Elastic (``demand``): ``short[w,t]`` tokens/s, weighted 1 per month of
    full demand.
    """
    s = built.scenario
    wpos = built.workload_pos
    for w in s.workloads:
        if w.kind is not Kind.REALTIME_INFERENCE:
            continue
        i = wpos[w.name]
        need = w.tokens_per_second or 0.0
        best = max(
            (built.estimates[(w.name, g)].tokens_per_second_per_replica or 0.0)
            for g in _pairs_of(built, w)
        )
        fewest = _ceil(need / best)
        for t in w.window(s.horizon_months):
            terms: Terms = [
                (
                    built.replicas[(w.name, g, t)],
                    min(need, built.estimates[(w.name, g)].tokens_per_second_per_replica or 0.0),
                )
                for g in _pairs_of(built, w)
            ]
            short = built.add_shortfall(ELASTIC_DEMAND, ("realtime", i, t), 1.0 / max(need, 1e-9))
            if short is not None:
                terms.append((short, 1.0))
            built.add_row("realtime_demand", (f"w{i}", f"t{t}"), terms, pulp.LpConstraintGE, need)
            if short is None and fewest >= 1:
                built.add_row(
                    "realtime_demand",
                    ("replicas", f"w{i}", f"t{t}"),
                    [(v, 1.0) for v, _cap in terms],
                    pulp.LpConstraintGE,
                    fewest,
                )
