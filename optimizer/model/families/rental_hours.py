"""Constraint family ``rental_hours``: what a rental offer is paid for in a month.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/rental_hours.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_rental_hours_constraints(built: BuiltModel) -> None:
    """Paid hours of an on-demand or spot offer: the work there and its replicas' whole months.

    ``rental_hours_o{o}_t{t}``:
        rent[o,t] - sum_w work[w,g,o,t] - H * sum_{w,k} k * rep[w,g,o,k,t] = 0

    ``rent[o,t] <= max_units * H`` is a bound where the offer is capped; the
    per-moment cap itself is ``place_capacity`` and ``free_hours``.
    """
    H = built.scenario.assumptions.hours_per_month
    opos = built.offer_pos
    option = {o.offer_id: o for o in built.offers}
    for (oid, t), rent in built.rent.items():
        place = built.place(option[oid].gpu, oid)
        terms: Terms = [(rent, 1.0)]
        terms += [(var, -1.0) for var in built.place_work(place, t).values()]
        terms += built.pinned_terms(place, t, -H)
        built.add_row("rental_hours", (f"o{opos[oid]}", f"t{t}"), terms, pulp.LpConstraintEQ, 0.0)
