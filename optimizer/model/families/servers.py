"""Constraint family ``servers``: owned GPUs sit in whole servers (model v2 §E).

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/servers.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms


def define_servers_constraints(built: BuiltModel) -> None:
    """Servers hold the owned GPUs; bought and sold servers move the integer level.

    ``servers_hold_g{g}_t{t}``:
        max_per_node[g] * servers[g,t] - own[g,t] >= 0
    ``servers_stock_g{g}_t{t}``:
        servers[g,t] - servers[g,t-1] - server_buy[g,t] + server_sell[g,t] = 0
        (``= existing`` in month 1: the servers of the type's owned Fleet rows)

    Only types with a ``node_price`` or ``node_power_w`` above 0 have servers.
    Servers are sold (``residual_value`` market) as GPUs are; without market
    value the level never falls, like the GPUs it holds.
    """
    s = built.scenario
    gpos = built.gpu_pos
    for (g, t), level in built.servers.items():
        j = gpos[g]
        gpu = s.gpu(g)
        hold: Terms = [(level, float(gpu.max_per_node)), *built.own_terms(g, t, -1.0)]
        built.add_row("servers", ("hold", f"g{j}", f"t{t}"), hold, pulp.LpConstraintGE, 0.0)
        stock: Terms = [(level, 1.0), (built.server_buy[(g, t)], -1.0)]
        if (before := built.servers.get((g, t - 1))) is not None:
            stock.append((before, -1.0))
        if (sold := built.server_sell.get((g, t))) is not None:
            stock.append((sold, 1.0))
        # Servers that came with owned Fleet rows are there in month 1, unbought.
        start = float(built.existing_servers(g)) if t == 1 else 0.0
        built.add_row("servers", ("stock", f"g{j}", f"t{t}"), stock, pulp.LpConstraintEQ, start)
