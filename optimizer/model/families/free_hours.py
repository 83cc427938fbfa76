"""Constraint family ``free_hours``: 1-GPU work fits the GPUs no replica or slot holds.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/free_hours.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_free_hours_constraints(built: BuiltModel) -> None:
    """Width-1 work without deadline slots uses what is left outside every replica and slot.

    ``free_hours_g{g}_p{p}_t{t}`` (model v2 §C), per finite place and month:
        sum_{w: k_w = 1} work[w,g,p,t]
            - u_p * H * (N[p,t] - sum k * rep[.,g,p,k,t] - sum k * slots[g,p,k,t]) <= 0

    It also keeps pinned and slot GPUs within the place whenever such work
    runs there.
    """
    a = built.scenario.assumptions
    H = a.hours_per_month
    gpos = built.gpu_pos
    for gpu in built.scenario.gpus:
        for place in built.places.get(gpu.name, []):
            if not place.finite:
                continue
            u = place.utilization(a) * H
            for t in built.scenario.months:
                singles: Terms = [
                    (var, 1.0)
                    for w_name, var in built.place_work(place, t).items()
                    if built.work_class(w_name, place, t) is None
                ]
                if not singles:
                    continue
                size, constant = built.size_terms(place, t, -u)
                terms = (
                    singles + size + built.pinned_terms(place, t, u) + built.slot_terms(place, t, u)
                )
                built.add_row(
                    "free_hours",
                    (f"g{gpos[gpu.name]}", f"p{place.lp}", f"t{t}"),
                    terms,
                    pulp.LpConstraintLE,
                    -constant,
                )
