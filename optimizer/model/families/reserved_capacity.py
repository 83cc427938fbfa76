"""Constraint family ``reserved_capacity``: reserved use fits the reservations active that month.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/reserved_capacity.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_reserved_capacity_constraints(built: BuiltModel) -> None:
    """Reserved use is at most the hours of the reservations active that month.

    ``reserved_capacity_g{g}_t{t}``:
        use_res[g,t] - H * sum_{reserved o of g} active[o,t] <= 0,
        active[o,t] = sum_{s <= t <= s + term - 1} reserve[o,s]
    """
    a = built.scenario.assumptions
    gpos = built.gpu_pos
    for (g, t), var in built.use_res.items():
        terms: Terms = [(var, 1.0)]
        for o in built.reserved_offers_of.get(g, ()):
            terms += built.active_terms(o, t, -a.hours_per_month)
        built.add_row(
            "reserved_capacity", (f"g{gpos[g]}", f"t{t}"), terms, pulp.LpConstraintLE, 0.0
        )
