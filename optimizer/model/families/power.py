"""Constraint family ``power``: owned GPUs' draw with PUE fits the power cap.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/power.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import ELASTIC_LIMITS, BuiltModel, Terms, _merge


def define_power_constraints(built: BuiltModel) -> None:
    """Owned GPUs' draw with PUE fits the power cap.

    ``power_cap``: sum_g (tdp_w[g] * own[g,T] + node_power_w[g] * servers[g,T]) * pue
                   <= power_cap_kw * 1000

    Where owned GPUs are never sold the stock never falls, so the last month
    is the binding one. Where they can be sold (``residual_value`` market),
    every month has its row ``power_cap_t{t}``. Elastic (``limits``): one
    ``short`` in watts on the right of every row.
    """
    s = built.scenario
    if s.power_cap_kw is None:
        return
    a = s.assumptions
    rhs = s.power_cap_kw * 1000.0
    short = built.add_shortfall(ELASTIC_LIMITS, ("power",), 1.0 / max(rhs, 1.0))
    months = list(s.months) if a.sells else [s.horizon_months]
    for t in months:
        terms: Terms = []
        for g in s.gpus:
            terms += built.own_terms(g.name, t, (g.tdp_w or 0.0) * a.pue)
            terms += built.server_terms(g.name, t, g.node_power_w * a.pue)
        if a.sells and not terms:
            continue
        if short is not None:
            terms.append((short, -1.0))
        key = ("cap", f"t{t}") if a.sells else ("cap",)
        built.add_row("power", key, _merge(terms), pulp.LpConstraintLE, rhs)
