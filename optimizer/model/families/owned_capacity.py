"""Constraint family ``owned_capacity``: owned GPUs work at most ``max_utilization`` of their hours.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/owned_capacity.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel


def define_owned_capacity_constraints(built: BuiltModel) -> None:
    """Owned GPUs work at most ``max_utilization`` of their hours.

    ``owned_capacity_g{g}_t{t}``:
        use_own[g,t] - max_utilization * H * sum_{o of g, s <= t} buy[o,s] <= 0
    """
    a = built.scenario.assumptions
    gpos = built.gpu_pos
    cap = a.max_utilization * a.hours_per_month
    for (g, t), var in built.use_own.items():
        terms = [(var, 1.0), *built.own_terms(g, t, -cap)]
        built.add_row("owned_capacity", (f"g{gpos[g]}", f"t{t}"), terms, pulp.LpConstraintLE, 0.0)
