"""Selling owned GPUs and the credit at the horizon (model v2 §E), by hand.

One H100 bought at $25,000 serves a batch job in months 1–12 of a 24-month
plan; renting the same hours costs $28,800. The figures below are the worked
example of docs/methodology.md, section 2.4, each recomputed by hand. Every
solve goes through the independent checker (``tests.checked.solve_checked``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.domain import Assumptions, CostCategory, ResidualValue, Scenario
from optimizer.model.costs import resale_value
from optimizer.results import HOUSE, Decisions, SolveStatus
from tests.builders import gpu, measured, offer, scenario, workload
from tests.check.test_check import pair, violations_of
from tests.checked import CENT, solve_checked

BUY = "H100|buy|1"
PRICE = 25_000.0
MAINTENANCE = 0.05 / 12 * PRICE  # $104.17 a month


def one_year_job(**assumptions: object) -> Scenario:
    """600 GPU-hours a month of batch work in months 1–12; on demand at $4/h is dearer."""
    a = replace(Assumptions(electricity_per_kwh=0.0, max_utilization=1.0), **assumptions)
    return scenario(
        [gpu("H100")],
        [offer("H100", "buy", PRICE), offer("H100", "on_demand", 4.0)],
        [workload("batch", "batch_inference", tokens=1.0, end_month=12)],
        [measured("batch", "H100", gpus_per_replica=1, gpu_hours=600.0)],
        assumptions=a,
        horizon_months=24,
    )


def test_the_market_value_falls_by_the_decline_each_year() -> None:
    s = one_year_job()
    # 0.7 × 25,000 × 0.7 ^ ((t − 1) / 12)
    assert resale_value(s, "H100", 1) == pytest.approx(17_500.00, abs=CENT)
    assert resale_value(s, "H100", 13) == pytest.approx(12_250.00, abs=CENT)
    assert resale_value(s, "H100", 25) == pytest.approx(8_575.00, abs=CENT)


def test_a_gpu_no_longer_needed_is_sold_the_month_after() -> None:
    plan = solve_checked(one_year_job())
    assert plan.status is SolveStatus.OPTIMAL and plan.decisions is not None
    assert plan.decisions.purchases == {(BUY, 1): 1}
    assert plan.decisions.sales == {(BUY, 13): 1}
    cash = {m.month: m.amounts for m in plan.cash_flow}
    assert cash[13][CostCategory.SALES] == pytest.approx(-12_250.00, abs=CENT)
    assert cash[12][CostCategory.MAINTENANCE] == pytest.approx(MAINTENANCE, abs=CENT)
    assert cash[13][CostCategory.MAINTENANCE] == 0.0
    # 25,000 + 12 × 104.17 − 12,250 = 14,000.00 against 28,800 rented.
    assert plan.total_cost == pytest.approx(14_000.00, abs=CENT)
    assert plan.cash_out == pytest.approx(26_250.00, abs=CENT)  # sales are not spending
    assert plan.residual_credit == 0.0
    fleet = {f.month: f for f in plan.fleet}
    assert (fleet[12].owned, fleet[13].sold, fleet[13].owned) == (1, 1, 0)


def test_a_gpu_used_to_the_end_is_credited_its_market_value_in_month_t_plus_1() -> None:
    s = replace(
        one_year_job(),
        workloads=(workload("batch", "batch_inference", tokens=1.0),),
    )
    plan = solve_checked(s)
    assert plan.decisions is not None and not plan.decisions.sales
    # Used all 24 months: 25,000 + 24 × 104.17 − 8,575 = 18,925.00.
    assert plan.residual_credit == pytest.approx(8_575.00, abs=CENT)
    assert plan.total_cost == pytest.approx(18_925.00, abs=CENT)


@pytest.mark.parametrize(
    ("rule", "credit", "total"),
    [
        # Book: 24 months old of 36, a third of the price: 25,000 + 2,500 − 8,333.33.
        ({"residual_value": "book"}, 8_333.33, 19_166.67),
        ({"credit_residual_value": True}, 8_333.33, 19_166.67),
        ({"residual_value": "none"}, 0.0, 27_500.00),
        ({"credit_residual_value": False}, 0.0, 27_500.00),
    ],
)
def test_book_and_none_keep_the_gpu_to_the_end(rule: dict, credit: float, total: float) -> None:
    plan = solve_checked(one_year_job(**rule))
    assert plan.decisions is not None
    assert plan.decisions.purchases == {(BUY, 1): 1} and plan.decisions.sales == {}
    assert plan.residual_credit == pytest.approx(credit, abs=CENT)
    assert plan.total_cost == pytest.approx(total, abs=CENT)


def test_v1_key_wins_over_the_default_and_says_which_rule_holds() -> None:
    assert Assumptions().residual_rule is ResidualValue.MARKET
    assert Assumptions(credit_residual_value=True).residual_rule is ResidualValue.BOOK
    assert Assumptions(credit_residual_value=False).residual_rule is ResidualValue.NONE
    assert not Assumptions(residual_value="book").sells


def test_a_sale_never_makes_room_in_the_total_budget() -> None:
    # Buying spends 26,250 (sale not counted); renting 28,800. With 26,249 of
    # budget neither fits, although the sale would bring the net to 14,000.
    tight = solve_checked(replace(one_year_job(), budget_total=26_249.0))
    assert tight.status is SolveStatus.INFEASIBLE
    enough = solve_checked(replace(one_year_job(), budget_total=26_250.01))
    assert enough.decisions is not None and enough.decisions.sales == {(BUY, 13): 1}


def test_the_reference_price_outlives_allow_buy() -> None:
    # A type whose buy offers a scenario removed keeps the listed price as its reference.
    s = replace(one_year_job(), offers=(offer("H100", "on_demand", 4.0),))
    assert resale_value(s, "H100", 1) == 0.0
    listed = replace(s, listed_buy_prices=(("H100", PRICE),))
    assert resale_value(listed, "H100", 13) == pytest.approx(12_250.00, abs=CENT)


# ---------------------------------------------------------------- the checker


def _sold_plan_violations(s: Scenario, **decisions: object) -> list[str]:
    d = Decisions(
        work={("batch", "H100", HOUSE, t): 600.0 for t in range(1, 13)},
        **decisions,  # type: ignore[arg-type]
    )
    return violations_of(s, d, [pair("batch", "H100", gpu_hours=600.0)])


def test_the_checker_accepts_the_sale_and_rejects_selling_what_is_not_owned() -> None:
    s = one_year_job()
    assert _sold_plan_violations(s, purchases={(BUY, 1): 1}, sales={(BUY, 13): 1}) == []
    found = _sold_plan_violations(s, purchases={(BUY, 1): 1}, sales={(BUY, 13): 2})
    assert "sales: 1 more GPUs of H100|buy|1 sold than bought by month 13" in found


def test_the_checker_rejects_a_sale_where_nothing_may_be_sold() -> None:
    found = _sold_plan_violations(
        one_year_job(residual_value="book"), purchases={(BUY, 1): 1}, sales={(BUY, 13): 1}
    )
    assert "sales: GPUs sold while residual_value is book (selling needs market)" in found


def test_the_checker_rejects_work_on_a_gpu_already_sold() -> None:
    found = _sold_plan_violations(one_year_job(), purchases={(BUY, 1): 1}, sales={(BUY, 12): 1})
    assert any("month 12" in v and "house" in v for v in found), found
