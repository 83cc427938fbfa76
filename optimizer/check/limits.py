"""Limit rules: the model's power and budgets families.

Takes a ``Scenario`` with the plan's ``Decisions`` (power) or its recomputed
undiscounted cash flow (budgets); hands on violation lines for owned GPUs over
``power_cap_kw`` or without a ``tdp_w``, and for capex, monthly operating spend
or all cash over their budgets.
"""

from __future__ import annotations

from collections.abc import Mapping

from optimizer.check.capacity import owned_stock
from optimizer.check.servers import server_levels
from optimizer.check.tolerances import HALF_CENT
from optimizer.currency import money_text
from optimizer.domain import CostCategory, Scenario
from optimizer.results import Decisions

OPERATING = (
    CostCategory.ENERGY,
    CostCategory.MAINTENANCE,
    CostCategory.ON_DEMAND,
    CostCategory.SPOT,
    CostCategory.RESERVED,
    CostCategory.COLOCATION,
)


def power_violations(scenario: Scenario, decisions: Decisions) -> list[str]:
    """Owned GPUs' ``tdp_w * pue`` summed ≤ ``power_cap_kw * 1000`` in every month."""
    found: list[str] = []
    stock = owned_stock(scenario, decisions)
    gpus = {g.name: g for g in scenario.gpus}
    for (gpu, _), owned in stock.items():
        if owned > 0 and gpus[gpu].tdp_w is None:
            found.append(f"power: {owned:g} {gpu} owned but the type has no tdp_w, energy unknown")
            break
    if scenario.power_cap_kw is None:
        return found
    limit_w = scenario.power_cap_kw * 1000.0
    servers = server_levels(scenario, decisions)
    for t in scenario.months:
        draw_w = sum(
            (
                stock.get((g.name, t), 0.0) * (g.tdp_w or 0.0)
                + servers.get((g.name, t), 0.0) * g.node_power_w
            )
            * scenario.assumptions.pue
            for g in scenario.gpus
        )
        if draw_w > limit_w * (1 + 1e-9) + 1e-9:
            found.append(
                f"power: owned GPUs and servers draw {draw_w / 1000:,.6g} kW incl. PUE in month {t}, "
                f"more than power_cap_kw {scenario.power_cap_kw:g}"
            )
    return found


def spent(cash: Mapping[int, Mapping[CostCategory, float]]) -> float:
    """All cash spent, purchases included: sales are cash in and never loosen a budget."""
    return sum(v for m in cash.values() for c, v in m.items() if c is not CostCategory.SALES)


def budget_violations(
    scenario: Scenario, cash: Mapping[int, Mapping[CostCategory, float]]
) -> list[str]:
    """Capex, each month's operating spend and all cash, undiscounted, before credit."""
    currency = scenario.assumptions.currency
    found: list[str] = []
    # Servers bought with the GPUs are capital spending too (model v2 §E).
    capex = sum(m[CostCategory.PURCHASE] + m[CostCategory.NODE] for m in cash.values())
    if scenario.budget_capex is not None and capex > scenario.budget_capex + HALF_CENT:
        found.append(
            f"budget: purchases {money_text(capex, currency)} exceed budget_capex {money_text(scenario.budget_capex, currency)}"
        )
    if scenario.budget_monthly is not None:
        for t, amounts in sorted(cash.items()):
            opex = sum(amounts[c] for c in OPERATING)
            if opex > scenario.budget_monthly + HALF_CENT:
                found.append(
                    f"budget: operating spend {money_text(opex, currency)} in month {t} exceeds budget_monthly "
                    f"{money_text(scenario.budget_monthly, currency)}"
                )
    total = spent(cash)
    if scenario.budget_total is not None and total > scenario.budget_total + HALF_CENT:
        found.append(
            f"budget: all cash {money_text(total, currency)} exceeds budget_total {money_text(scenario.budget_total, currency)}"
        )
    return found
