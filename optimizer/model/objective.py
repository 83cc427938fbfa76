"""The cost objective: one discounted coefficient per variable.

Takes a :class:`~optimizer.model.built.BuiltModel` with its variables; hands on
the objective's terms (``build.build_model`` merges them and sets them as the
objective unless the model is elastic), priced with ``optimizer.model.costs``.
"""

from __future__ import annotations

from optimizer.domain import FleetKind
from optimizer.model.built import BuiltModel, Terms, house_used_terms
from optimizer.model.costs import (
    discount_factor,
    energy_cost_per_hour,
    existing_residual_fraction,
    existing_server_credit,
    node_resale_value,
    owned_running_per_month,
    resale_value,
    reservation_months,
    residual_fraction,
    server_running_per_month,
)


def _server_terms(built: BuiltModel, df: list[float], tail: list[float]) -> Terms:
    """Servers: price when bought, running cost while owned, resale or book credit.

    server_buy[g,s]: node_price * df(s)  (- node_price * residual_fraction(s) * df(T), book)
    servers[g,t]:    (maintenance + own draw + colocation) * df(t); without market
                     value the last level carries the months to T
    server_sell[g,t]: -node_resale(t) * df(t); the last level (market) is sold the
                     month after, or credited at node_resale(T+1) * df(T)
    """
    s = built.scenario
    a = s.assumptions
    T = s.horizon_months
    terms: Terms = []
    for (g, t), v in built.server_buy.items():
        gpu = s.gpu(g)
        terms.append((v, gpu.node_price * (df[t] - residual_fraction(a, T, t) * df[T])))
    for (g, t), v in built.servers.items():
        gpu = s.gpu(g)
        running = server_running_per_month(gpu, a)
        last = built.last_server_month[g]
        if t < last:
            terms.append((v, running * df[t]))
        elif a.sells:
            end = t + 1 if t < T else T
            terms.append((v, running * df[t] - node_resale_value(s, gpu, t + 1) * df[end]))
        else:
            terms.append((v, running * tail[t]))
    for (g, t), v in built.server_sell.items():
        terms.append((v, -node_resale_value(s, s.gpu(g), t) * df[t]))
    return terms


def _existing_terms(built: BuiltModel, df: list[float], tail: list[float]) -> Terms:
    """Owned Fleet rows (model v2 §E): no price, the same running cost while owned.

    owned[r,t]:  (maintenance on the row's price + ce*idle*H + rack space) * df(t)
    owned[r,L]:  market: -resale(L+1) * df(L+1) more (sold after the type's last useful
                 month L < T), or -resale(T+1) * df(T) (credited at the horizon);
                 book and none: the level never falls, so it carries the months to T,
                 less the row's book value at T (age_months + T months old) * df(T),
                 its servers' book value included
    """
    s = built.scenario
    a = s.assumptions
    T = s.horizon_months
    terms: Terms = []
    for row in s.fleet:
        if row.kind is not FleetKind.OWNED:
            continue
        gpu = s.gpu(row.gpu)
        offer = row.as_offer(T)
        running = owned_running_per_month(gpu, offer, a)
        last = built.last_buy_month[row.source_id]
        for t in range(1, last + 1):
            v = built.owned[(row.source_id, t)]
            if t < last:
                terms.append((v, running * df[t]))
            elif a.sells:
                end = t + 1 if t < T else T
                terms.append((v, running * df[t] - resale_value(s, row.gpu, t + 1) * df[end]))
            else:
                # The row's servers never fall either: their book value rides on it.
                book = row.price * existing_residual_fraction(a, T, row) * row.count
                book += existing_server_credit(s, row)
                credit = book / row.count * df[T]
                terms.append((v, running * tail[t] - credit))
    return terms


def objective_terms(built: BuiltModel) -> Terms:
    """Discounted cost of the plan (model.md, Objective), one coefficient per variable.

    buy[o,s]:     price*df(s) + sum_{t=s..T} (maintenance + ce*idle*H) * df(t)
                  - price * residual_fraction(s) * df(T)
    house work[w,g,t]: ce * (1 - idle) * df(t)   (energy of used hours;
    house rep[w,g,k,t]: ce * (1 - idle) * H * k * df(t)  a pinned GPU is used all month)
    rent[o,t]:    price * df(t)
    reserve[o,s]: price * H * sum_{t in term} df(t)

    Owned GPUs' running cost includes the rack space for their TDP
    (``colocation_per_kw_month``); servers (model v2 §E) see :func:`_server_terms`.

    Where owned GPUs can be sold (``residual_value`` market) the running cost
    sits on the stock levels instead, and sales earn the market value:
    buy[o,s]:     price * df(s)
    owned[o,t]:   (maintenance + ce*idle*H) * df(t)
    sell[o,t]:    -resale(t) * df(t)
    owned[o,L]:   -resale(L+1) * df(L+1) more (sold after the type's last
                  useful month L < T), or -resale(T+1) * df(T) (credited at
                  the horizon, L = T)
    """
    s = built.scenario
    a = s.assumptions
    T = s.horizon_months
    H = a.hours_per_month
    df = [0.0] + [discount_factor(a, t) for t in s.months]
    tail = [0.0] * (T + 2)  # tail[t] = sum_{tau=t..T} df(tau)
    for t in range(T, 0, -1):
        tail[t] = tail[t + 1] + df[t]
    offers = {o.offer_id: o for o in built.offers}
    terms: Terms = []
    for (oid, t), v in built.buy.items():
        o = offers[oid]
        gpu = s.gpu(o.gpu)
        running = owned_running_per_month(gpu, o, a)
        if a.sells:
            terms.append((v, o.price * df[t]))
            terms.append((built.owned[(oid, t)], running * df[t]))
            if t == built.last_buy_month[oid]:
                end = t + 1 if t < T else T  # the month the last stock's value is counted in
                terms.append((built.owned[(oid, t)], -resale_value(s, o.gpu, t + 1) * df[end]))
            continue
        coef = o.price * df[t] + running * tail[t] - o.price * residual_fraction(a, T, t) * df[T]
        terms.append((v, coef))
    terms += _existing_terms(built, df, tail)
    for (oid, t), v in built.sell.items():
        terms.append((v, -resale_value(s, offers[oid].gpu, t) * df[t]))
    terms += _server_terms(built, df, tail)
    for g in s.gpus:
        used = energy_cost_per_hour(g, a) * (1.0 - a.idle_power_fraction)
        if used:
            for t in s.months:
                terms += house_used_terms(built, g.name, t, used * df[t])
    for (oid, t), v in built.rent.items():
        terms.append((v, offers[oid].price * df[t]))
    for (oid, start), v in built.reserve.items():
        o = offers[oid]
        terms.append((v, o.price * H * sum(df[t] for t in reservation_months(o, start))))
    # Not a cost: a charge per move the search weighs against cost (methodology 2.16),
    # undiscounted; the plan's money never includes it.
    terms += [(v, a.change_cost) for v in built.moves.values()]
    return terms
