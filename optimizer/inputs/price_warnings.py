"""Warnings about prices a person should look at before trusting a plan.

A price of zero is almost always a blank that was typed as 0, and a price
whose source is years old plans with last generation's market. Neither is an
input error (both can be deliberate), so they travel with the plan as
diagnostics and ``gpumix validate`` prints them. ``scenario_warnings`` puts
them after the input's own warnings (a sheet named almost like an optional
sheet) and an empty scenario's.
"""

from __future__ import annotations

import re
from datetime import date

from optimizer.domain import Offer, Scenario
from optimizer.inputs.currency_defaults import usd_default_warnings

# A source is stale when the newest year it names is this many years before today.
STALE_AFTER_YEARS = 2
_YEAR = re.compile(r"(?<!\d)(19[89]\d|20\d\d)(?!\d)")


def _where(offer: Offer) -> str:
    row = f", Prices row {offer.row}" if offer.row else ""
    return f"{offer.gpu} {offer.option.value} offer{row}"


def scenario_warnings(scenario: Scenario, today: date | None = None) -> list[str]:
    """Everything a person should look at before trusting the scenario's plan.

    The input's own warnings (found while reading it), a scenario that plans
    nothing (an empty template solves to an "optimal" $0 plan), the USD
    money defaults a workbook in another currency left blank, then the price
    warnings.
    """
    warnings = list(scenario.input_warnings)
    if not scenario.workloads:
        warnings.append(
            f"warning: scenario {scenario.name!r} plans no workloads, so its plan is empty "
            "(fill in sheet Workloads, or check the scenario's workloads list)"
        )
    return [*warnings, *usd_default_warnings(scenario), *price_warnings(scenario, today)]


def price_warnings(scenario: Scenario, today: date | None = None) -> list[str]:
    """One sentence per offer whose price is zero, whose source looks stale, or that
    the scenario's horizon ends before (an outside audit typed month 99 and got no word)."""
    today = today or date.today()
    warnings: list[str] = []
    for offer in scenario.offers:
        if offer.price == 0:
            warnings.append(
                f"warning: {_where(offer)} has price 0 — the planner treats it as free; "
                "leave the row out if the price is unknown"
            )
        years = [int(y) for y in _YEAR.findall(offer.source or "")]
        if years and today.year - max(years) >= STALE_AFTER_YEARS:
            warnings.append(
                f"warning: {_where(offer)} has a price sourced in {max(years)} "
                f"({offer.source!r}); prices move fast, check it is still current"
            )
        if offer.available_from > scenario.horizon_months:
            warnings.append(
                f"warning: {_where(offer)} is available from month {offer.available_from}, "
                f"after the {scenario.horizon_months}-month horizon of scenario "
                f"{scenario.name!r}, which therefore never uses it"
            )
    return warnings
