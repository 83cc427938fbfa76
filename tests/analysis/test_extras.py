"""``gpumix solve``'s baselines and shadow prices as concurrent tasks: the same answers as
solving them one after another, in this process and in spawned workers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from optimizer.analysis.extras import solve_with_extras
from optimizer.check.baselines import BASELINE_NAMES, solve_baselines
from optimizer.results import SolverSettings
from optimizer.solve.shadow import shadow_prices
from tests.analysis.test_sweep import rent_vs_buy
from tests.checked import CENT, solve_checked

SETTINGS = SolverSettings(solver="highs", threads=1, progress=False)


def _scenarios() -> list:
    tight = rent_vs_buy(od_price=3.0, budget_capex=20_000.0)  # capex binds: a shadow price
    free = replace(rent_vs_buy(od_price=3.0), name="free")  # buys: "buy only" is the optimum
    return [tight, free]


@pytest.mark.parametrize(
    ("solver", "jobs"),
    [("highs", 1), ("highs", 2), ("auto", 2)],  # auto: plans raced here, extras SCIP in workers
)
def test_extras_side_by_side_equal_extras_one_after_another(solver: str, jobs: int) -> None:
    scenarios = _scenarios()
    settings = replace(SETTINGS, solver=solver, threads=None)
    plans, baselines = solve_with_extras(scenarios, settings, quiet=True, jobs=jobs)
    assert [p.name for p in plans] == [s.name for s in scenarios]
    for scenario, plan in zip(scenarios, plans, strict=True):
        alone = solve_checked(scenario, SETTINGS)
        assert plan.total_cost == pytest.approx(alone.total_cost, abs=CENT)
        expected = shadow_prices(scenario, alone, SETTINGS, solve=solve_checked)
        assert [(p.constraint, p.unit) for p in plan.shadow_prices] == [
            (p.constraint, p.unit) for p in expected
        ]
        for got, want in zip(plan.shadow_prices, expected, strict=True):
            assert got.saving_per_unit == pytest.approx(want.saving_per_unit, rel=1e-9)
        serial = solve_baselines(scenario, SETTINGS)
        assert set(baselines[plan.name]) == set(serial) <= set(BASELINE_NAMES)
        for name, want in serial.items():
            got = baselines[plan.name][name]
            assert got.status is want.status
            assert got.total_cost == pytest.approx(want.total_cost, abs=CENT)
            assert got.name == want.name
    assert len(plans[0].shadow_prices) == 1  # the capex budget binds and one more GPU pays


def test_a_scenario_without_a_plan_has_no_extras() -> None:
    broken = rent_vs_buy(od_price=3.0, budget_total=1.0)
    plans, baselines = solve_with_extras([broken], SETTINGS, quiet=True, jobs=1)
    assert not plans[0].status.has_plan
    assert baselines == {}
