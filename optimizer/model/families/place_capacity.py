"""Constraint family ``place_capacity``: pinned replicas and slots fit their place.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/place_capacity.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_place_capacity_constraints(built: BuiltModel) -> None:
    """Whole GPUs of a finite place: serving replicas pin theirs, slots set theirs aside.

    ``place_capacity_g{g}_p{p}_t{t}`` (model v2 §B, §C), for every finite place
    (the house, a reserved offer, a capped rental offer) and month with
    replicas or slots:
        sum_{w,k} k * rep[w,g,p,k,t] + sum_k k * slots[g,p,k,t] <= N[p,t]

    ``N`` is the GPUs owned (house), the reserved GPUs active (reserved
    offer) or ``max_units`` (capped rental). A replica of width ``k`` is one
    of the place's whole GPUs times ``k``: it never mixes places.
    """
    gpos = built.gpu_pos
    for gpu in built.scenario.gpus:
        for place in built.places.get(gpu.name, []):
            if not place.finite:
                continue
            for t in built.scenario.months:
                used = built.pinned_terms(place, t) + built.slot_terms(place, t)
                if not used:
                    continue
                size, constant = built.size_terms(place, t, -1.0)
                terms: Terms = used + size
                built.add_row(
                    "place_capacity",
                    (f"g{gpos[gpu.name]}", f"p{place.lp}", f"t{t}"),
                    terms,
                    pulp.LpConstraintLE,
                    -constant,
                )
