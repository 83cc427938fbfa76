"""Servers (model v2 §E), from a plan's decisions alone: levels, rules and money.

Takes a ``Scenario`` and the plan's ``Decisions`` (``server_purchases``,
``server_sales``); hands on the servers of each type owned in each month, the
violations of the servers rules (whole, never below 0, sold only under market
value, enough to hold the owned GPUs, only where a type has servers) and the
servers' cash by category and their credit at the horizon.
"""

from __future__ import annotations

import math
from collections import defaultdict

from optimizer.check.capacity import owned_stock, running_levels, spread_over_units
from optimizer.check.fleet import existing_book_credit, existing_book_start, existing_servers
from optimizer.check.tolerances import INTEGER_TOL
from optimizer.domain import CostCategory, Gpu, ResidualValue, Scenario
from optimizer.results import Decisions


def server_levels(scenario: Scenario, decisions: Decisions) -> dict[tuple[str, int], float]:
    """Servers of each type owned in each month 1..T: those that came with owned Fleet
    rows, plus bought so far, minus sold so far."""
    bought = existing_servers(scenario)
    for key, n in decisions.server_purchases.items():
        bought[key] = bought.get(key, 0.0) + n
    return running_levels(scenario.horizon_months, bought, decisions.server_sales)


def server_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """``servers[g,t] × max_per_node >= owned[g,t]`` for every type with servers, and
    every server decision in the horizon, for such a type, never selling more than is
    owned, and selling only under ``residual_value`` market (whole numbers:
    ``integrality_violations``)."""
    found: list[str] = []
    gpus = {g.name: g for g in scenario.gpus}
    for table, moves in (
        ("server_purchases", decisions.server_purchases),
        ("server_sales", decisions.server_sales),
    ):
        for gpu, t in moves:
            g = gpus.get(gpu)
            if g is None or not g.has_servers:
                found.append(f"{table}: {gpu!r} has no servers (no node_price or node_power_w)")
            if not 1 <= t <= scenario.horizon_months:
                found.append(f"{table}: {gpu} in month {t}, outside 1..{scenario.horizon_months}")
    if decisions.server_sales and not scenario.assumptions.sells:
        rule = scenario.assumptions.residual_rule.value
        found.append(f"server_sales: servers sold while residual_value is {rule}")
    levels = server_levels(scenario, decisions)
    owned = owned_stock(scenario, decisions)
    for g in scenario.gpus:
        if not g.has_servers:
            continue
        for t in scenario.months:
            have, held = levels.get((g.name, t), 0.0), owned.get((g.name, t), 0.0)
            if have < -INTEGER_TOL:
                found.append(
                    f"servers: {-have:g} more {g.name} servers sold than bought by month {t}"
                )
            elif have * g.max_per_node < held - INTEGER_TOL:
                need = math.ceil(held / g.max_per_node - INTEGER_TOL)
                found.append(
                    f"servers: {held:g} {g.name} owned in month {t} need {need} servers of "
                    f"{g.max_per_node}, the plan has {have:g}"
                )
    return found


def node_market_value(scenario: Scenario, gpu: Gpu, month: int) -> float:
    """A server sold at the start of ``month``: ``resale_fraction × node_price`` on the GPUs' curve."""
    return used_market_price(scenario, gpu.node_price, month)


def used_market_price(scenario: Scenario, new_price: float, month: int) -> float:
    """model v2 §E: used hardware fetches ``resale_fraction`` of ``new_price``, less
    ``resale_decline_per_year`` a year: ``× (1 − decline) ^ ((month − 1) / 12)``."""
    a = scenario.assumptions
    return a.resale_fraction * new_price * (1.0 - a.resale_decline_per_year) ** ((month - 1) / 12.0)


def server_credit(scenario: Scenario, decisions: Decisions) -> float:
    """Servers' undiscounted credit at the horizon: market, each server still owned in
    month T at its value in T + 1; book, ``node_price × max(0, 1 − age / depreciation)``."""
    a = scenario.assumptions
    t_end = scenario.horizon_months
    gpus = {g.name: g for g in scenario.gpus}
    credit = 0.0
    if a.residual_rule is ResidualValue.BOOK:
        existing = existing_book_credit(scenario)
        credit += sum(existing.get(g, 0.0) for g in gpus)
        for (gpu, month), n in decisions.server_purchases.items():
            if (g := gpus.get(gpu)) is not None and 1 <= month <= t_end:
                age = t_end - month + 1
                credit += g.node_price * n * max(0.0, 1.0 - age / a.depreciation_months)
    elif a.residual_rule is ResidualValue.MARKET:
        for (gpu, t), level in server_levels(scenario, decisions).items():
            if (g := gpus.get(gpu)) is not None and t == t_end and level > 0:
                credit += node_market_value(scenario, g, t_end + 1) * level
    return credit


def server_cash(
    scenario: Scenario, decisions: Decisions, cash: dict[int, dict[CostCategory, float]]
) -> None:
    """Add the servers' cash to ``cash``.

    A server bought pays ``node_price`` (category node); every owned server pays
    ``maintenance_per_year / 12 × node_price`` a month, draws ``node_power_w`` all
    month (energy, with PUE) and rents rack space for it (colocation); a server
    sold earns its market value (sales).
    """
    a = scenario.assumptions
    gpus = {g.name: g for g in scenario.gpus}
    for (gpu, month), n in decisions.server_purchases.items():
        g = gpus.get(gpu)
        if g is not None and month in cash:
            cash[month][CostCategory.NODE] += g.node_price * n
    for (gpu, month), n in decisions.server_sales.items():
        g = gpus.get(gpu)
        if g is not None and month in cash:
            cash[month][CostCategory.SALES] -= node_market_value(scenario, g, month) * n
    for (gpu, t), level in server_levels(scenario, decisions).items():
        g = gpus.get(gpu)
        if g is None or level <= 0:
            continue
        cash[t][CostCategory.MAINTENANCE] += a.maintenance_per_year / 12.0 * g.node_price * level
        kwh = g.node_power_w / 1000.0 * a.pue * a.hours_per_month * level
        cash[t][CostCategory.ENERGY] += kwh * a.electricity_per_kwh
        cash[t][CostCategory.COLOCATION] += (
            g.node_power_w / 1000.0 * a.colocation_per_kw_month * level
        )


def server_type_month_costs(
    scenario: Scenario, decisions: Decisions, paid: dict[tuple[str, int], float]
) -> None:
    """Each type's servers in ``paid[gpu, month]``, for the assignment shares.

    Upkeep (maintenance, own draw, rack space) in each month a server is owned,
    plus the servers' net capital cost: without market value each purchase's
    ``node_price`` minus its book credit spread evenly from its month to T;
    with it the type's servers bought minus sold minus the credit at T, spread
    over the server-months (a month takes its share of the servers it holds).
    """
    a = scenario.assumptions
    t_end = scenario.horizon_months
    gpus = {g.name: g for g in scenario.gpus}
    levels = server_levels(scenario, decisions)
    for (gpu, t), level in levels.items():
        g = gpus.get(gpu)
        if g is None or level <= 0:
            continue
        kwh = g.node_power_w / 1000.0 * a.pue * a.hours_per_month
        per_server = (
            a.maintenance_per_year / 12.0 * g.node_price
            + kwh * a.electricity_per_kwh
            + g.node_power_w / 1000.0 * a.colocation_per_kw_month
        )
        paid[gpu, t] += per_server * level
    if a.residual_rule is not ResidualValue.MARKET:
        book = a.residual_rule is ResidualValue.BOOK
        for (gpu, month), n in decisions.server_purchases.items():
            g = gpus.get(gpu)
            if g is None or not 1 <= month <= t_end:
                continue
            age = t_end - month + 1
            left = max(0.0, 1.0 - age / a.depreciation_months) if book else 0.0
            for t in range(month, t_end + 1):
                paid[gpu, t] += g.node_price * n * (1.0 - left) / age
        start, end = existing_book_start(scenario), existing_book_credit(scenario)
        for (gpu, _month), _n in existing_servers(scenario).items():
            for t in scenario.months:
                paid[gpu, t] += (start.get(gpu, 0.0) - end.get(gpu, 0.0)) / t_end
        return
    net: dict[str, float] = defaultdict(float)
    for (gpu, _month), n in decisions.server_purchases.items():
        if gpu in gpus:
            net[gpu] += gpus[gpu].node_price * n
    for (gpu, month), n in decisions.server_sales.items():
        if gpu in gpus:
            net[gpu] -= node_market_value(scenario, gpus[gpu], month) * n
    for (gpu, t), level in levels.items():
        if t == t_end and gpu in gpus:
            net[gpu] -= node_market_value(scenario, gpus[gpu], t_end + 1) * level
    for (gpu, _month), there in existing_servers(scenario).items():
        net[gpu] += node_market_value(scenario, gpus[gpu], 1) * there  # forgone sale in month 1
    spread_over_units(levels, net, {g: g for g in gpus}, paid)
