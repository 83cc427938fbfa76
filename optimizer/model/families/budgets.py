"""Constraint family ``budgets``: capex, monthly and total budgets (and ``opex_terms``).

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; adds the
family's rows through :meth:`~optimizer.model.built.BuiltModel.add_row`. Golden
LP text: ``tests/model/golden/budgets.lp``.
"""

from __future__ import annotations

import pulp

from optimizer.domain import OfferOption
from optimizer.model.built import ELASTIC_LIMITS, BuiltModel, Key, Terms, _merge, house_used_terms
from optimizer.model.costs import (
    colocation_per_month,
    energy_cost_per_hour,
    maintenance_per_month,
    server_running_per_month,
)


def opex_terms(built: BuiltModel, month: int) -> Terms:
    """Undiscounted operating cash of ``month``: energy, maintenance, rent, spot, reserved."""
    s = built.scenario
    a = s.assumptions
    H = a.hours_per_month
    terms: Terms = []
    for g in s.gpus:
        ce = energy_cost_per_hour(g, a)
        if ce:
            # energy = ce * (idle * (H * own - used) + used); used = H * pinned + work
            terms += built.own_terms(g.name, month, ce * a.idle_power_fraction * H)
            terms += house_used_terms(built, g.name, month, ce * (1.0 - a.idle_power_fraction))
        if colocation := colocation_per_month(g.tdp_w or 0.0, a):
            terms += built.own_terms(g.name, month, colocation)
        if g.has_servers:
            terms += built.server_terms(g.name, month, server_running_per_month(g, a))
    for o in built.offers:
        if o.option is OfferOption.BUY and (m := maintenance_per_month(o, a)):
            terms += built.owned_terms(o, month, m)
    return terms + provider_terms(built, month)


def provider_terms(built: BuiltModel, month: int, hours: bool = False) -> Terms:
    """Undiscounted cash paid to providers in ``month``: on-demand, spot and reserved.

    ``hours``: the GPU-hours paid for instead of the cash (reserved GPUs count
    ``hours_per_month`` each, used or not).
    """
    H = built.scenario.assumptions.hours_per_month
    terms: Terms = []
    for o in built.offers:
        price = 1.0 if hours else o.price
        if o.option is OfferOption.RESERVED:
            terms += built.active_terms(o, month, price * H)
        elif (v := built.rent.get((o.offer_id, month))) is not None:
            terms.append((v, price))
    return terms


def capex_terms(built: BuiltModel) -> Terms:
    """Every purchase over the horizon, undiscounted: GPUs x price + servers x node_price."""
    price = {o.offer_id: o.price for o in built.offers}
    capex: Terms = [(v, price[oid]) for (oid, _t), v in built.buy.items()]
    return capex + [
        (v, built.scenario.gpu(g).node_price) for (g, _t), v in built.server_buy.items()
    ]


def define_budgets_constraints(built: BuiltModel) -> None:
    """Budgets, undiscounted (model.md, Budgets); each only when given.

    ``budgets_capex``:       sum_{o,t} price[o] * buy[o,t]
                             + sum_{g,t} node_price[g] * server_buy[g,t] <= budget_capex
    ``budgets_monthly_t{t}``: opex[t] <= budget_monthly for every month
    ``budgets_total``:       capex + sum_t opex[t] <= budget_total

    ``opex[t]`` is energy + maintenance + colocation + on-demand + spot +
    reserved cash of month ``t``, servers' included (see :func:`opex_terms`). Elastic (``limits``): ``short`` USD
    on the right, weighted per budget.
    """
    s = built.scenario
    # Sales never loosen a budget (model v2 §E): capex counts every purchase.
    capex = capex_terms(built)

    def limit(key: str, terms: Terms, rhs: float, month: int | None = None) -> None:
        short_key: Key = ("budget", key) if month is None else ("budget", key, month)
        short = built.add_shortfall(ELASTIC_LIMITS, short_key, 1.0 / max(rhs, 1.0))
        if short is not None:
            terms = [*terms, (short, -1.0)]
        row_key = (key,) if month is None else (key, f"t{month}")
        built.add_row("budgets", row_key, _merge(terms), pulp.LpConstraintLE, rhs)

    if s.budget_capex is not None:
        limit("capex", capex, s.budget_capex)
    monthly = (
        {t: opex_terms(built, t) for t in s.months}
        if (s.budget_monthly is not None or s.budget_total is not None)
        else {}
    )
    if s.budget_monthly is not None:
        for t in s.months:
            if monthly[t]:
                limit("monthly", monthly[t], s.budget_monthly, t)
    if s.budget_total is not None:
        limit("total", [*capex, *(vc for t in s.months for vc in monthly[t])], s.budget_total)
