"""Servers and colocation (model v2 §E): the worked example of docs/methodology.md, by hand.

Ten H100 (700 W, 8 a server) work all month on a batch job that renting
would make dear; servers cost $40,000 and draw 1,200 W; a rack costs $184
per kW a month. Every solve goes through the independent checker.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.domain import Assumptions, CostCategory, Scenario
from optimizer.reports.at_a_glance import recommendation
from optimizer.results import HOUSE, Decisions, SolveStatus
from tests.builders import gpu, measured, offer, scenario, workload
from tests.check.test_check import pair, violations_of
from tests.checked import CENT, solve_checked

HOURS = 0.95 * 730  # a GPU's working hours a month (max_utilization 0.95)


def ten_gpus(**gpu_figures: float) -> Scenario:
    figures = {"node_price": 40_000.0, "node_power_w": 1_200.0, **gpu_figures}
    return scenario(
        [gpu("H100", max_per_node=8, **figures)],
        [offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 30.0)],
        [workload("batch", "batch_inference", tokens=1.0)],
        [measured("batch", "H100", gpus_per_replica=1, gpu_hours=10 * HOURS)],
        assumptions=Assumptions(colocation_per_kw_month=184.0),
        horizon_months=2,
    )


def test_ten_gpus_sit_in_two_servers_and_pay_for_their_rack() -> None:
    plan = solve_checked(ten_gpus())
    assert plan.status is SolveStatus.OPTIMAL and plan.decisions is not None
    assert plan.decisions.purchases == {("H100|buy|1", 1): 10}
    assert plan.decisions.server_purchases == {("H100", 1): 2}
    # The Summary's "What to do" says the servers as well as the GPUs.
    assert recommendation(plan) == "Buy 10 H100 in month 1; buy 2 servers for H100 in month 1."
    month1 = plan.cash_flow[0].amounts
    assert month1[CostCategory.NODE] == pytest.approx(80_000.00, abs=CENT)
    # (10 × 0.7 + 2 × 1.2) kW × $184
    assert month1[CostCategory.COLOCATION] == pytest.approx(1_729.60, abs=CENT)
    # GPUs: 10 × 5 % / 12 × 25,000; servers: 2 × 5 % / 12 × 40,000
    assert month1[CostCategory.MAINTENANCE] == pytest.approx(1_041.67 + 333.33, abs=0.01)
    # GPUs busy 693.5 h at 700 W, idle 36.5 h at 10 %; servers 1.2 kW all 730 h; × 1.3 × $0.10
    gpu_kwh = 10 * (HOURS * 0.7 + (730 - HOURS) * 0.07)
    assert month1[CostCategory.ENERGY] == pytest.approx(
        (gpu_kwh + 2 * 1.2 * 730) * 1.3 * 0.10, abs=CENT
    )
    assert {f.month: f.servers for f in plan.fleet} == {1: 2, 2: 2}


def test_the_power_cap_counts_the_servers_draw() -> None:
    # 10 GPUs and 2 servers draw (7 + 2.4) kW × 1.3 = 12.22 kW.
    fits = solve_checked(replace(ten_gpus(), power_cap_kw=12.22))
    assert fits.decisions is not None and fits.decisions.server_purchases == {("H100", 1): 2}
    short = solve_checked(replace(ten_gpus(), power_cap_kw=12.21))
    assert short.decisions is not None
    assert sum(short.decisions.purchases.values()) < 10  # the rest is rented


def test_a_type_without_server_figures_is_planned_card_by_card() -> None:
    plan = solve_checked(ten_gpus(node_price=0.0, node_power_w=0.0))
    assert plan.decisions is not None and plan.decisions.server_purchases == {}
    assert plan.cash_flow[0].amounts[CostCategory.NODE] == 0.0


def test_the_checker_asks_for_enough_servers() -> None:
    s = ten_gpus()
    work = {("batch", "H100", HOUSE, t): 10 * HOURS for t in (1, 2)}
    estimates = [pair("batch", "H100", gpu_hours=10 * HOURS)]
    d = Decisions(purchases={("H100|buy|1", 1): 10}, work=work, server_purchases={("H100", 1): 1})
    assert "servers: 10 H100 owned in month 1 need 2 servers of 8, the plan has 1" in (
        violations_of(s, d, estimates)
    )
    enough = replace(d, server_purchases={("H100", 1): 2})
    assert violations_of(s, enough, estimates) == []
