"""A plan's money from its decisions: cash by month and category, credit, cost by type.

Takes a ``Scenario`` and the plan's ``results.Decisions``; hands on :class:`Money`
(undiscounted cash flow, discounted category totals, the residual credit,
owned stock) and each GPU type's cost per month for the assignment shares,
priced with the formulas of ``optimizer.model.costs``, the model's own
coefficients. Plan assembly (``optimizer.solve.assemble``) reports them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from optimizer.domain import CostCategory, FleetKind, Gpu, OfferOption, ResidualValue, Scenario
from optimizer.model.costs import (
    colocation_per_month,
    discount_factor,
    energy_cost_per_hour,
    existing_residual_fraction,
    existing_server_credit,
    existing_servers_of,
    maintenance_per_month,
    node_resale_value,
    resale_value,
    reservation_months,
    residual_fraction,
    server_running_per_month,
)
from optimizer.results import Decisions
from optimizer.solve.usage import Usage, usage_of


@dataclass(frozen=True)
class Money:
    """A plan's money, from its decisions (USD)."""

    cash: dict[int, dict[CostCategory, float]]  # undiscounted, months 1..T
    costs: dict[CostCategory, float]  # discounted totals
    residual_credit: float  # undiscounted
    residual_credit_discounted: float
    owned: dict[tuple[str, int], int]
    active_reserved: dict[tuple[str, int], int]  # (offer id, month)
    usage: Usage
    servers: dict[tuple[str, int], int]  # (gpu, month) -> servers owned

    @property
    def total_cost(self) -> float:
        return sum(self.costs.values()) - self.residual_credit_discounted

    @property
    def cash_out(self) -> float:
        """Cash spent, purchases included; sales (cash in) are not part of it."""
        return sum(
            sum(v for c, v in m.items() if c is not CostCategory.SALES) for m in self.cash.values()
        )


def offer_stock(scenario: Scenario, d: Decisions) -> dict[tuple[str, int], int]:
    """GPUs of each source owned in each month: existing (owned Fleet rows) plus bought
    so far minus sold so far."""
    existing = {r.source_id: r.count for r in scenario.fleet if r.kind is FleetKind.OWNED}
    return _levels(scenario, d.purchases, d.sales, existing)


def server_stock(scenario: Scenario, d: Decisions) -> dict[tuple[str, int], int]:
    """Servers of each GPU type owned in each month: those that came with Fleet rows plus
    bought so far minus sold so far."""
    existing = {g.name: n for g in scenario.gpus if (n := existing_servers_of(scenario, g.name))}
    return _levels(scenario, d.server_purchases, d.server_sales, existing)


def _levels(
    scenario: Scenario,
    bought: Mapping[tuple[str, int], int],
    sold: Mapping[tuple[str, int], int],
    existing: Mapping[str, int] | None = None,
) -> dict[tuple[str, int], int]:
    change: dict[tuple[str, int], int] = defaultdict(int)
    for key, n in (existing or {}).items():
        change[(key, 1)] += n
    for (key, s), n in bought.items():
        change[(key, s)] += n
    for (key, s), n in sold.items():
        change[(key, s)] -= n
    stock: dict[tuple[str, int], int] = {}
    for key in sorted({key for key, _ in change}):
        level = 0
        for t in scenario.months:
            level += change.get((key, t), 0)
            if level:
                stock[(key, t)] = level
    return stock


def money_of(scenario: Scenario, d: Decisions) -> Money:
    """Every cost of model.md, from the decisions, with the model's own coefficients."""
    a = scenario.assumptions
    T = scenario.horizon_months
    H = a.hours_per_month
    offers = {o.offer_id: o for o in scenario.all_offers}
    cash = {t: dict.fromkeys(CostCategory, 0.0) for t in scenario.months}
    owned: dict[tuple[str, int], int] = defaultdict(int)
    credit = 0.0
    for (oid, s), n in d.purchases.items():
        o = offers[oid]
        cash[s][CostCategory.PURCHASE] += o.price * n
        credit += o.price * residual_fraction(a, T, s) * n
    for (oid, s), n in d.sales.items():
        cash[s][CostCategory.SALES] -= resale_value(scenario, offers[oid].gpu, s) * n
    for (oid, t), n in offer_stock(scenario, d).items():
        o = offers[oid]
        owned[(o.gpu, t)] += n
        cash[t][CostCategory.MAINTENANCE] += maintenance_per_month(o, a) * n
        if t == T and a.sells:
            credit += resale_value(scenario, o.gpu, T + 1) * n
    for row in scenario.fleet:  # book: owned Fleet rows are never sold
        if row.kind is FleetKind.OWNED:
            credit += row.price * existing_residual_fraction(a, T, row) * row.count
            credit += existing_server_credit(scenario, row)
    servers = server_stock(scenario, d)
    credit += _server_cash(scenario, d, servers, cash)
    for g in scenario.gpus:
        for t in scenario.months:
            watts = (g.tdp_w or 0.0) * owned.get((g.name, t), 0)
            cash[t][CostCategory.COLOCATION] += colocation_per_month(watts, a)
    active: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, s), n in d.reservations.items():
        o = offers[oid]
        for t in reservation_months(o, s):
            active[(oid, t)] += n
            cash[t][CostCategory.RESERVED] += o.price * H * n
    use = usage_of(scenario, d)
    for (oid, t), hours in use.rented_hours.items():
        o = offers[oid]
        category = CostCategory.SPOT if o.option is OfferOption.SPOT else CostCategory.ON_DEMAND
        cash[t][category] += o.price * hours
    for g in scenario.gpus:
        ce = energy_cost_per_hour(g, a)
        for t in scenario.months:
            n = owned.get((g.name, t), 0)
            if n and ce:
                used = use.house_hours.get((g.name, t), 0.0)
                idle = H * n - used
                cash[t][CostCategory.ENERGY] += ce * (a.idle_power_fraction * idle + used)
    costs = dict.fromkeys(CostCategory, 0.0)
    for t, amounts in cash.items():
        df = discount_factor(a, t)
        for c, amount in amounts.items():
            costs[c] += amount * df
    return Money(
        cash=cash,
        costs=costs,
        residual_credit=credit,
        residual_credit_discounted=credit * discount_factor(a, T),
        owned=dict(owned),
        active_reserved=dict(active),
        usage=use,
        servers=servers,
    )


def _server_cash(
    scenario: Scenario,
    d: Decisions,
    servers: Mapping[tuple[str, int], int],
    cash: dict[int, dict[CostCategory, float]],
) -> float:
    """Servers' cash into ``cash`` (price, sales, maintenance, own draw, rack space);
    returns their undiscounted credit at the horizon (model v2 §E)."""
    a = scenario.assumptions
    T = scenario.horizon_months
    credit = 0.0
    for (g, s), n in d.server_purchases.items():
        gpu = scenario.gpu(g)
        cash[s][CostCategory.NODE] += gpu.node_price * n
        credit += gpu.node_price * residual_fraction(a, T, s) * n
    for (g, s), n in d.server_sales.items():
        cash[s][CostCategory.SALES] -= node_resale_value(scenario, scenario.gpu(g), s) * n
    for (g, t), n in servers.items():
        gpu = scenario.gpu(g)
        cash[t][CostCategory.MAINTENANCE] += a.maintenance_per_year / 12.0 * gpu.node_price * n
        kwh = gpu.node_power_w / 1000.0 * a.pue * a.hours_per_month * n
        cash[t][CostCategory.ENERGY] += kwh * a.electricity_per_kwh
        cash[t][CostCategory.COLOCATION] += colocation_per_month(gpu.node_power_w * n, a)
        if t == T and a.sells:
            credit += node_resale_value(scenario, gpu, T + 1) * n
    return credit


def capital_costs(s: Scenario, d: Decisions, paid: dict[tuple[str, int], float]) -> None:
    """The net capital cost and upkeep of owned GPUs and servers, by type and month.

    book and none: a purchase's price minus its credited book value, spread
    evenly over the months from the purchase to the horizon. market: each
    buy offer's (each type's servers') purchases net of sales and the market
    credit, spread over the unit-months owned (a month takes its share of the
    units it holds). Upkeep: GPU maintenance; a server's maintenance, own draw
    and rack space. What exists before month 1 (owned Fleet rows and their
    servers) counts as bought in month 1 at its :func:`existing_values`.
    """
    a = s.assumptions
    gpu_sources: dict[str, _Source] = {
        o.offer_id: (o.gpu, o.price, maintenance_per_month(o, a), _gpu_resale(s, o.gpu))
        for o in s.all_offers
    }
    gpu_start, server_start = existing_values(s)
    existing = {r.source_id: r.count for r in s.fleet if r.kind is FleetKind.OWNED}
    _spread(s, paid, d.purchases, d.sales, gpu_sources, existing, gpu_start)
    server_sources: dict[str, _Source] = {
        g.name: (g.name, g.node_price, server_running_per_month(g, a), _node_resale(s, g))
        for g in s.gpus
    }
    servers = {g.name: n for g in s.gpus if (n := existing_servers_of(s, g.name))}
    _spread(s, paid, d.server_purchases, d.server_sales, server_sources, servers, server_start)


def existing_values(s: Scenario) -> tuple[dict[str, float], dict[str, float]]:
    """What the owned Fleet rows (by source) and their servers (by type) are worth at the
    start of month 1, as the plan's cost shares count them: market: what selling them
    then would fetch; book: their book value by age; none: nothing (model v2 §E).

    Using a GPU one already has is not free: it forgoes that value. The Assignments
    sheet states the total beside the cash flow it reconciles with.
    """
    a = s.assumptions
    rule = a.residual_rule
    gpus: dict[str, float] = {}
    servers: dict[str, float] = defaultdict(float)
    for row in s.fleet:
        if row.kind is not FleetKind.OWNED:
            continue
        gpu = s.gpu(row.gpu)
        n_servers = -(-row.count // gpu.max_per_node) if gpu.has_servers else 0
        if rule is ResidualValue.MARKET:
            gpus[row.source_id] = resale_value(s, row.gpu, 1) * row.count
            servers[row.gpu] += node_resale_value(s, gpu, 1) * n_servers
        elif rule is ResidualValue.BOOK:
            share = max(0.0, 1.0 - row.age_months / a.depreciation_months)
            gpus[row.source_id] = row.price * share * row.count
            servers[row.gpu] += gpu.node_price * share * n_servers
    return gpus, dict(servers)


# (gpu, price of one unit, upkeep a unit-month, resale value of a unit sold in month t)
_Source = tuple[str, float, float, Callable[[int], float]]


def _gpu_resale(s: Scenario, gpu: str) -> Callable[[int], float]:
    return lambda t: resale_value(s, gpu, t)


def _node_resale(s: Scenario, gpu: Gpu) -> Callable[[int], float]:
    return lambda t: node_resale_value(s, gpu, t)


def _spread(
    s: Scenario,
    paid: dict[tuple[str, int], float],
    bought: Mapping[tuple[str, int], int],
    sold: Mapping[tuple[str, int], int],
    sources: Mapping[str, _Source],
    existing: Mapping[str, int],
    start_value: Mapping[str, float],
) -> None:
    a = s.assumptions
    T = s.horizon_months
    if not a.sells:
        for (key, t0), n in bought.items():
            gpu, price, upkeep, _resale = sources[key]
            per_month = price * (1.0 - residual_fraction(a, T, t0)) * n / (T - t0 + 1)
            for t in range(t0, T + 1):
                paid[(gpu, t)] += per_month + upkeep * n
        # What exists is never sold here: its value at month 1 less its book credit.
        ends = _existing_book_credit(s)
        for key, n in existing.items():
            gpu, _price, upkeep, _resale = sources[key]
            per_month = (start_value.get(key, 0.0) - ends.get(key, 0.0)) / T
            for t in s.months:
                paid[(gpu, t)] += per_month + upkeep * n
        return
    stock = _levels(s, bought, sold, existing)
    net: dict[str, float] = defaultdict(float, start_value)
    for (key, _t), n in bought.items():
        net[key] += sources[key][1] * n
    for (key, t), n in sold.items():
        net[key] -= sources[key][3](t) * n
    unit_months: dict[str, int] = defaultdict(int)
    for (key, t), n in stock.items():
        unit_months[key] += n
        if t == T:
            net[key] -= sources[key][3](T + 1) * n
    for (key, t), n in stock.items():
        gpu, _price, upkeep, _resale = sources[key]
        paid[(gpu, t)] += net[key] * n / unit_months[key] + upkeep * n


def _existing_book_credit(s: Scenario) -> dict[str, float]:
    """Book credit at the horizon of each owned Fleet row (by source) and of its servers
    (by type); empty unless ``residual_value`` is book."""
    a = s.assumptions
    credit: dict[str, float] = defaultdict(float)
    for row in s.fleet:
        if row.kind is FleetKind.OWNED:
            credit[row.source_id] += (
                row.price * existing_residual_fraction(a, s.horizon_months, row) * row.count
            )
            credit[row.gpu] += existing_server_credit(s, row)
    return dict(credit)


def type_month_costs(
    s: Scenario, d: Decisions, money: Money
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    """Undiscounted cost of each GPU type and month: (non-spot cost, spot cost).

    Non-spot: energy, maintenance, on-demand and reserved cash of that month,
    plus the net capital cost of what is owned (:func:`capital_costs`).
    """
    a = s.assumptions
    H = a.hours_per_month
    offers = {o.offer_id: o for o in s.all_offers}
    use = money.usage
    paid: dict[tuple[str, int], float] = defaultdict(float)
    spot: dict[tuple[str, int], float] = defaultdict(float)
    capital_costs(s, d, paid)
    for (oid, t), n in money.active_reserved.items():
        o = offers[oid]
        paid[(o.gpu, t)] += o.price * H * n
    for (oid, t), hours in use.rented_hours.items():
        o = offers[oid]
        (spot if o.option is OfferOption.SPOT else paid)[(o.gpu, t)] += o.price * hours
    for g in s.gpus:
        ce = energy_cost_per_hour(g, a)
        for t in s.months:
            n = money.owned.get((g.name, t), 0)
            if n and ce:
                used = use.house_hours.get((g.name, t), 0.0)
                paid[(g.name, t)] += ce * (a.idle_power_fraction * (H * n - used) + used)
            if n:
                paid[(g.name, t)] += colocation_per_month((g.tdp_w or 0.0) * n, a)
    return paid, spot
