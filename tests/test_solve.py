"""solve_scenario against hand arithmetic: every figure to the cent.

Each scenario uses measured Throughput rows (final by accounting rule 2), so
the GPU-hours the model sees are exactly the ones in the arithmetic here.
Every solve goes through ``solve_checked`` (the independent checker).
"""

from __future__ import annotations

import pytest

from optimizer.domain import CostCategory
from optimizer.results import SolverSettings, SolveStatus
from tests.builders import BARE, gpu, measured, offer, scenario, workload
from tests.checked import solve_checked

H = 730.0


def batch_on_h100(hours_per_month: float, months: int, *offers_: object, **kw: object):
    """One batch job needing ``hours_per_month`` H100 GPU-hours every month."""
    return scenario(
        [gpu("H100")],
        list(offers_),  # type: ignore[arg-type]
        [workload("batch", "batch_inference", params_b=8, tokens=1e9)],
        [measured("batch", "H100", gpu_hours=hours_per_month, gpus_per_replica=1)],
        assumptions=kw.pop("assumptions", BARE),  # type: ignore[arg-type]
        horizon_months=months,
        **kw,
    )


def test_renting_wins_below_break_even() -> None:
    # 10 months of one GPU's hours: renting 3.15 × 730 × 10 = 22,995 < 25,000.
    s = batch_on_h100(H, 10, offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15))
    plan = solve_checked(s)
    assert plan.status is SolveStatus.OPTIMAL
    assert plan.total_cost == pytest.approx(22_995.0, abs=0.005)
    assert plan.costs[CostCategory.PURCHASE] == 0.0


def test_buying_wins_above_break_even() -> None:
    # 12 months: renting 27,594 > buying 25,000.
    s = batch_on_h100(H, 12, offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15))
    plan = solve_checked(s)
    assert plan.total_cost == pytest.approx(25_000.0, abs=0.005)
    assert plan.decisions is not None
    assert plan.decisions.purchases == {("H100|buy|1", 1): 1}
    assert [f.owned for f in plan.fleet] == [1] * 12


def test_buy_the_base_and_rent_the_peak() -> None:
    # 1,000 h/month for 12 months: one GPU (730 h) + 270 h rented each month.
    s = batch_on_h100(1000.0, 12, offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15))
    plan = solve_checked(s)
    assert plan.total_cost == pytest.approx(25_000.0 + 3.15 * 270 * 12, abs=0.005)
    assert plan.cash_flow[0].amounts[CostCategory.PURCHASE] == pytest.approx(25_000.0)
    assert plan.cash_flow[5].amounts[CostCategory.ON_DEMAND] == pytest.approx(3.15 * 270, abs=0.005)
    assert plan.fleet[3].rented_hours == pytest.approx(270.0)
    assert plan.fleet[3].owned_utilization == pytest.approx(1.0)
    # Every dollar is assigned to the one workload.
    assert sum(a.cost for a in plan.assignments) == pytest.approx(plan.cash_out, abs=0.005)


def test_cbc_gives_the_same_total_as_highs() -> None:
    s = batch_on_h100(1000.0, 12, offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15))
    highs = solve_checked(s)
    cbc = solve_checked(s, SolverSettings(solver="cbc"))
    assert cbc.status is SolveStatus.OPTIMAL
    assert cbc.solver is not None and cbc.solver.name == "CBC"
    assert cbc.total_cost == pytest.approx(highs.total_cost, abs=0.005)
