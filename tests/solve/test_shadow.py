"""Shadow prices: what one more unit of a binding budget or cap saves, by re-solve.

Scenarios are the rent-versus-buy case of ``test_sweep`` (one H100 type,
$25,000 to buy, $3.00/h on demand, BARE assumptions): over 12 months buying
one GPU ($25,000) beats renting its 8,760 hours ($26,280).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.domain import OfferOption, Scenario
from optimizer.results import Plan, SolverSettings
from optimizer.solve.shadow import binding_limits, shadow_prices
from tests.analysis.test_sweep import BUY_PRICE, HOURS, MONTHS, rent_vs_buy
from tests.builders import measured
from tests.checked import solve_checked

SETTINGS = SolverSettings(threads=1)
RENT_ALL_YEAR = 3.0 * HOURS * MONTHS  # 26,280: one GPU rented for the whole horizon


def _solved(budget_capex: float) -> tuple[Scenario, Plan]:
    scenario = rent_vs_buy(od_price=3.0, budget_capex=budget_capex)
    return scenario, solve_checked(scenario, SETTINGS)


def test_binding_capex_budget_has_the_saving_of_one_more_gpu() -> None:
    scenario, plan = _solved(budget_capex=20_000.0)  # one H100 does not fit: rent
    assert plan.total_cost == pytest.approx(RENT_ALL_YEAR)
    (price,) = shadow_prices(scenario, plan, SETTINGS, solve=solve_checked)
    assert price.constraint == "budget_capex" and price.month is None
    # $25,000 more budget buys the GPU: saves 26,280 − 25,000 per $25,000.
    assert price.saving_per_unit == pytest.approx((RENT_ALL_YEAR - BUY_PRICE) / BUY_PRICE)
    assert price.saving_per_unit > 0
    assert "budget_capex" in price.unit and "step $25,000" in price.unit


def test_slack_capex_budget_has_no_shadow_price() -> None:
    scenario, plan = _solved(budget_capex=100_000.0)
    assert binding_limits(scenario, plan) == []
    assert shadow_prices(scenario, plan, SETTINGS, solve=solve_checked) == ()


def test_budget_that_is_tight_but_holds_nothing_back_is_omitted() -> None:
    # Exactly one GPU's price: the plan buys it and has $0 left, but more money buys nothing useful.
    scenario, plan = _solved(budget_capex=BUY_PRICE)
    assert [limit.constraint for limit in binding_limits(scenario, plan)] == ["budget_capex"]
    assert shadow_prices(scenario, plan, SETTINGS, solve=solve_checked) == ()


def test_power_cap_prices_one_more_gpu_of_draw() -> None:
    # Two GPUs' worth of work; the cap powers one H100 (700 W × PUE 1.3 = 0.91 kW).
    base = rent_vs_buy(od_price=3.0, power_cap_kw=1.0)
    scenario = replace(base, measurements=(measured("batch", "H100", gpu_hours=2 * HOURS),))
    plan = solve_checked(scenario, SETTINGS)
    (price,) = shadow_prices(scenario, plan, SETTINGS, solve=solve_checked)
    assert price.constraint == "power_cap_kw"
    assert price.saving_per_unit == pytest.approx((RENT_ALL_YEAR - BUY_PRICE) / 0.91)
    assert "step 0.91 kW" in price.unit


def test_offer_max_units_prices_one_more_gpu() -> None:
    base = rent_vs_buy(od_price=3.0)
    capped = tuple(
        replace(o, max_units=1) if o.option is OfferOption.BUY else o for o in base.offers
    )
    scenario = replace(
        base, offers=capped, measurements=(measured("batch", "H100", gpu_hours=2 * HOURS),)
    )
    plan = solve_checked(scenario, SETTINGS)
    (price,) = shadow_prices(scenario, plan, SETTINGS, solve=solve_checked)
    assert price.constraint == "max_units H100|buy|1"
    assert price.saving_per_unit == pytest.approx(RENT_ALL_YEAR - BUY_PRICE)


def test_monthly_budget_names_the_months_it_binds_in() -> None:
    # Renting is cheaper at $2/h; a $1,000 monthly budget allows 500 rented hours of 730,
    # so the plan must buy — until the budget rises by one GPU-month of rent ($1,460).
    scenario = rent_vs_buy(od_price=2.0, budget_monthly=1_000.0, months=3)
    plan = solve_checked(scenario, SETTINGS)
    assert plan.total_cost is not None
    (price,) = shadow_prices(scenario, plan, SETTINGS, solve=solve_checked)
    assert price.constraint == "budget_monthly"
    assert price.saving_per_unit > 0
    assert "binds in months 1, 2, 3" in price.unit
