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

from optimizer.domain import CostCategory, Gpu, OfferOption, Scenario
from optimizer.model.costs import (
    colocation_per_month,
    discount_factor,
    energy_cost_per_hour,
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
    """GPUs of each buy offer owned in each month: bought so far minus sold so far."""
    return _levels(scenario, d.purchases, d.sales)


def server_stock(scenario: Scenario, d: Decisions) -> dict[tuple[str, int], int]:
    """Servers of each GPU type owned in each month: bought so far minus sold so far."""
    return _levels(scenario, d.server_purchases, d.server_sales)


def _levels(
    scenario: Scenario, bought: Mapping[tuple[str, int], int], sold: Mapping[tuple[str, int], int]
) -> dict[tuple[str, int], int]:
    change: dict[tuple[str, int], int] = defaultdict(int)
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
    offers = {o.offer_id: o for o in scenario.offers}
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
    and rack space.
    """
    a = s.assumptions
    gpu_sources: dict[str, _Source] = {
        o.offer_id: (o.gpu, o.price, maintenance_per_month(o, a), _gpu_resale(s, o.gpu))
        for o in s.offers
    }
    _spread(s, paid, d.purchases, d.sales, gpu_sources)
    server_sources: dict[str, _Source] = {
        g.name: (g.name, g.node_price, server_running_per_month(g, a), _node_resale(s, g))
        for g in s.gpus
    }
    _spread(s, paid, d.server_purchases, d.server_sales, server_sources)


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
) -> None:
    a = s.assumptions
    T = s.horizon_months
    if not a.sells:
        for (key, t0), n in bought.items():
            gpu, price, upkeep, _resale = sources[key]
            per_month = price * (1.0 - residual_fraction(a, T, t0)) * n / (T - t0 + 1)
            for t in range(t0, T + 1):
                paid[(gpu, t)] += per_month + upkeep * n
        return
    stock = _levels(s, bought, sold)
    net: dict[str, float] = defaultdict(float)
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


def type_month_costs(
    s: Scenario, d: Decisions, money: Money
) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    """Undiscounted cost of each GPU type and month: (non-spot cost, spot cost).

    Non-spot: energy, maintenance, on-demand and reserved cash of that month,
    plus the net capital cost of what is owned (:func:`capital_costs`).
    """
    a = s.assumptions
    H = a.hours_per_month
    offers = {o.offer_id: o for o in s.offers}
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
