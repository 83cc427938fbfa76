"""Money recomputed from a plan's decisions alone (model.md's cost terms, model v2's hours).

Takes a ``Scenario`` and the plan's ``Decisions``; hands on the undiscounted
cash flow by category, the residual credit and the discounted category totals
that the budget and reporting rules check. Every v1 formula is kept; v2
changes only which hours are paid or used (``capacity.derived_hours``).
"""

from __future__ import annotations

from collections.abc import Mapping

from optimizer.check.capacity import (
    active_reservations,
    derived_hours,
    offers_by_id,
    owned_stock,
    source_stock,
)
from optimizer.check.fleet import existing_book_credit, existing_book_start, servers_of_row
from optimizer.check.servers import (
    node_market_value,
    server_cash,
    server_credit,
    used_market_price,
)
from optimizer.domain import CostCategory, FleetKind, OfferOption, ResidualValue, Scenario
from optimizer.results import Decisions


def discount_factor(rate: float, month: int) -> float:
    """model.md: every cash item of month ``t`` is worth ``(1 + r) ** (-(t - 1) / 12)``."""
    return float((1.0 + rate) ** (-(month - 1) / 12.0))


# ---------------------------------------------------------------- money


def cash_flow_of(scenario: Scenario, decisions: Decisions) -> dict[int, dict[CostCategory, float]]:
    """Undiscounted cash of every month 1..T by category, from the decisions alone.

    Purchases are paid at the start of their month; owned GPUs draw power all
    month (used hours ``H × pinned house GPUs + house work hours`` at TDP, idle
    hours ``H * owned - used`` at ``idle_power_fraction``, both times PUE) and
    pay maintenance in every month they are owned; a GPU sold earns its market
    value in its month (category sales, negative); on-demand and spot pay
    ``price × (work on the offer + width × H × replicas on it)``; a reservation
    pays ``price × H`` per GPU in every month of its term, used or not.
    Items naming an offer or GPU the scenario lacks are left out here (they
    are violations, reported by :func:`decision_violations`).
    """
    a = scenario.assumptions
    h = a.hours_per_month
    offers = offers_by_id(scenario)
    gpus = {g.name: g for g in scenario.gpus}
    derived = derived_hours(scenario, decisions)
    cash: dict[int, dict[CostCategory, float]] = {
        t: {c: 0.0 for c in CostCategory} for t in scenario.months
    }

    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or month not in cash:
            continue
        cash[month][CostCategory.PURCHASE] += offer.price * count
    for (offer_id, month), count in decisions.sales.items():
        offer = offers.get(offer_id)
        if offer is None or month not in cash:
            continue
        cash[month][CostCategory.SALES] -= market_value(scenario, offer.gpu, month) * count
    for (offer_id, t), level in source_stock(scenario, decisions).items():
        offer = offers.get(offer_id)
        if offer is not None:
            cash[t][CostCategory.MAINTENANCE] += a.maintenance_per_year / 12.0 * offer.price * level

    server_cash(scenario, decisions, cash)
    stock = owned_stock(scenario, decisions)
    for t in scenario.months:
        for g in gpus.values():
            owned = stock.get((g.name, t), 0.0)
            if owned > 0:  # rack space for the GPUs' own draw (model v2 §E)
                cash[t][CostCategory.COLOCATION] += (
                    (g.tdp_w or 0.0) / 1000.0 * a.colocation_per_kw_month * owned
                )
            used = derived.house_used.get((g.name, t), 0.0)
            if owned == 0 and used == 0:
                continue
            idle = h * owned - used
            kwh = (used + a.idle_power_fraction * idle) * (g.tdp_w or 0.0) / 1000.0 * a.pue
            cash[t][CostCategory.ENERGY] += kwh * a.electricity_per_kwh

    for (offer_id, month), hours in derived.paid.items():
        offer = offers.get(offer_id)
        if offer is None or month not in cash:
            continue
        if offer.option is OfferOption.ON_DEMAND:
            cash[month][CostCategory.ON_DEMAND] += offer.price * hours
        elif offer.option is OfferOption.SPOT:
            cash[month][CostCategory.SPOT] += offer.price * hours

    for (offer_id, t), active in active_reservations(scenario, decisions).items():
        cash[t][CostCategory.RESERVED] += offers[offer_id].price * h * active
    return cash


def market_value(scenario: Scenario, gpu: str, month: int) -> float:
    """model v2 §E: a used GPU sold at the start of ``month`` fetches
    ``resale_fraction × reference price × (1 − resale_decline_per_year) ^ ((month − 1) / 12)``,
    the reference price being the type's lowest buy price (before ``allow_buy``)."""
    buy = [o.price for o in scenario.offers if o.gpu == gpu and o.option is OfferOption.BUY]
    listed = dict(scenario.listed_buy_prices)
    if buy:
        reference = min(buy)
    elif gpu in listed:
        reference = listed[gpu]
    else:  # no buy offer at all: the count-weighted mean of its owned Fleet rows' prices
        rows = [r for r in scenario.fleet if r.gpu == gpu and r.kind is FleetKind.OWNED]
        count = sum(r.count for r in rows)
        reference = sum(r.price * r.count for r in rows) / count if count else 0.0
    return used_market_price(scenario, reference, month)


def fleet_value_at_start(scenario: Scenario) -> float:
    """What the owned Fleet rows and their servers are worth at the start of month 1, the
    capital their cost shares carry: market, at the used price of month 1; book, at book
    value by age; none, nothing (model v2 §E; the methodology, section 2.5)."""
    rule = scenario.assumptions.residual_rule
    if rule is ResidualValue.BOOK:
        return sum(existing_book_start(scenario).values())
    if rule is not ResidualValue.MARKET:
        return 0.0
    gpus = {g.name: g for g in scenario.gpus}
    return sum(
        market_value(scenario, r.gpu, 1) * r.count
        + node_market_value(scenario, gpus[r.gpu], 1) * servers_of_row(scenario, r.source_id)
        for r in scenario.fleet
        if r.kind is FleetKind.OWNED
    )


def residual_credit_of(scenario: Scenario, decisions: Decisions) -> float:
    """Undiscounted value credited for owned GPUs at the horizon (``residual_value``).

    market: every GPU still owned in month T at its market value in month
    T + 1. book: a GPU bought in month ``t`` is ``T - t + 1`` months old at the
    end and is worth ``price * max(0, 1 - age / depreciation_months)``. none: 0.
    """
    return _gpu_credit(scenario, decisions) + server_credit(scenario, decisions)


def _gpu_credit(scenario: Scenario, decisions: Decisions) -> float:
    a = scenario.assumptions
    rule = a.residual_rule
    if rule is ResidualValue.MARKET:
        offers = offers_by_id(scenario)
        t_end = scenario.horizon_months
        return sum(
            market_value(scenario, offers[o].gpu, t_end + 1) * n
            for (o, t), n in source_stock(scenario, decisions).items()
            if t == t_end and o in offers
        )
    if rule is not ResidualValue.BOOK:
        return 0.0
    offers = offers_by_id(scenario)
    existing = existing_book_credit(scenario)  # owned Fleet rows: age_months + T months old
    credit = sum(existing.get(row.source_id, 0.0) for row in scenario.fleet)
    for (offer_id, month), count in decisions.purchases.items():
        offer = offers.get(offer_id)
        if offer is None or not 1 <= month <= scenario.horizon_months:
            continue
        age = scenario.horizon_months - month + 1
        credit += offer.price * count * max(0.0, 1.0 - age / a.depreciation_months)
    return credit


def discounted_costs(
    scenario: Scenario, cash: Mapping[int, Mapping[CostCategory, float]]
) -> dict[CostCategory, float]:
    """Each category's total over the horizon, every month discounted."""
    rate = scenario.assumptions.discount_rate
    costs = {c: 0.0 for c in CostCategory}
    for t, amounts in cash.items():
        factor = discount_factor(rate, t)
        for c, amount in amounts.items():
            costs[c] += amount * factor
    return costs
