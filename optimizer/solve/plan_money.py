"""A plan's money from its decisions: cash by month and category, credit, cost by type.

Takes a ``Scenario`` and the plan's ``results.Decisions``; hands on :class:`Money`
(undiscounted cash flow, discounted category totals, the residual credit,
owned stock) and each GPU type's cost per month for the assignment shares,
priced with the formulas of ``optimizer.model.costs``, the model's own
coefficients. Plan assembly (``optimizer.solve.assemble``) reports them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.model.costs import (
    discount_factor,
    energy_cost_per_hour,
    maintenance_per_month,
    resale_value,
    reservation_months,
    residual_fraction,
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
    change: dict[tuple[str, int], int] = defaultdict(int)
    for (oid, s), n in d.purchases.items():
        change[(oid, s)] += n
    for (oid, s), n in d.sales.items():
        change[(oid, s)] -= n
    stock: dict[tuple[str, int], int] = {}
    for oid in sorted({oid for oid, _ in change}):
        level = 0
        for t in scenario.months:
            level += change.get((oid, t), 0)
            if level:
                stock[(oid, t)] = level
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
    )


def capital_costs(s: Scenario, d: Decisions, paid: dict[tuple[str, int], float]) -> None:
    """Each purchase's net capital cost and the maintenance of what is owned, by type and month.

    book and none: a purchase's price minus its credited book value, spread
    evenly over the months from the purchase to the horizon. market: each
    offer's purchases net of its sales and its market credit, spread over the
    GPU-months it was owned (a month takes its share of the offer's GPUs).
    """
    a = s.assumptions
    T = s.horizon_months
    offers = {o.offer_id: o for o in s.offers}
    if not a.sells:
        for (oid, t0), n in d.purchases.items():
            o = offers[oid]
            per_month = o.price * (1.0 - residual_fraction(a, T, t0)) * n / (T - t0 + 1)
            for t in range(t0, T + 1):
                paid[(o.gpu, t)] += per_month + maintenance_per_month(o, a) * n
        return
    stock = offer_stock(s, d)
    net: dict[str, float] = defaultdict(float)
    for (oid, _t), n in d.purchases.items():
        net[oid] += offers[oid].price * n
    for (oid, t), n in d.sales.items():
        net[oid] -= resale_value(s, offers[oid].gpu, t) * n
    gpu_months: dict[str, int] = defaultdict(int)
    for (oid, t), n in stock.items():
        gpu_months[oid] += n
        if t == T:
            net[oid] -= resale_value(s, offers[oid].gpu, T + 1) * n
    for (oid, t), n in stock.items():
        o = offers[oid]
        paid[(o.gpu, t)] += net[oid] * n / gpu_months[oid] + maintenance_per_month(o, a) * n


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
    return paid, spot
