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


def test_without_a_limit_the_extras_get_the_plans_time_again_estimated_from_those_done() -> None:
    from optimizer.analysis.extras import EXTRAS_AT_LEAST_S, extras_deadline
    from optimizer.solve.budget import NO_LIMIT, Budget

    began = 100.0
    # All three plans done after 12 s: the extras get 12 s more.
    assert extras_deadline(NO_LIMIT, began, 112.0, 3, 3) == pytest.approx(124.0)
    # The first of three done after 4 s: the plans' time is estimated at 12 s.
    assert extras_deadline(NO_LIMIT, began, 104.0, 1, 3) == pytest.approx(124.0)
    # Before this fix its extras got only until 104 + 5 s (its own 4 s, at least 5 s).
    assert extras_deadline(NO_LIMIT, began, 104.0, 1, 3) > 104.0 + EXTRAS_AT_LEAST_S
    # Quick plans: at least EXTRAS_AT_LEAST_S after them.
    assert extras_deadline(NO_LIMIT, began, 101.0, 2, 2) == pytest.approx(101.0 + EXTRAS_AT_LEAST_S)
    # A time limit: its end, whatever the plans took.
    assert extras_deadline(Budget(60.0, 160.0), began, 104.0, 1, 3) == 160.0


def test_rent_only_is_submitted_first_then_the_single_types_then_buy_only() -> None:
    from concurrent.futures import Future

    from optimizer.analysis.extras import singles_before, solve_plan, submit_extras
    from optimizer.check.baselines import BUY_ONLY, RENT_ONLY

    class Recorder:
        def __init__(self) -> None:
            self.calls: list[object] = []

        def submit(self, fn: object, *args: object) -> Future:
            self.calls.append((fn, *args))
            done: Future = Future()
            done.set_result(None)
            return done

    from optimizer.inputs.load import load_input

    # The example's tight-capex buys and rents (no baseline is its plan) and its capex binds.
    tight = load_input(None, []).scenarios[2]
    plan, start = solve_plan(tight, SETTINGS, quiet=True)
    pool = Recorder()
    submit_extras(pool, plan, start, SETTINGS)  # type: ignore[arg-type]

    def kind(call: tuple[object, ...]) -> str:
        fn, _deadline, *args = call
        if fn is singles_before:  # the single types, one task
            return "single types"
        return str(getattr(args[0], "baseline", "shadow price"))

    kinds = [kind(call) for call in pool.calls]
    # The single types before the longest solve (buy only), so that a deadline never
    # leaves them out behind it (the company workbook's default run did).
    assert kinds == [RENT_ONLY, "single types", BUY_ONLY, "shadow price"]


def test_a_baseline_whose_model_restricts_an_earlier_ones_borrows_its_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from optimizer.check import baselines as baselines_module
    from optimizer.check.baselines import RENT_ONLY, baseline_variants
    from optimizer.model.build import build_model
    from optimizer.model.restriction import model_shape, restricts
    from optimizer.results import SolveStatus

    free = replace(rent_vs_buy(od_price=3.0), name="free")
    # Rent only adds a capex row (it buys nothing, so the row never binds) ...
    loose = replace(rent_vs_buy(od_price=3.0, budget_capex=1_000_000.0), name="loose")
    # ... or a total-budget row that free's rent-only plan ($26,280) breaks: solved itself.
    capped = replace(rent_vs_buy(od_price=3.0, budget_total=25_500.0), name="capped")
    scenarios = [free, loose, capped]
    solved: list[str] = []
    real = baselines_module.solve_variant

    def spy(variant: baselines_module.Variant, settings: SolverSettings) -> object:
        solved.append(variant.scenario.name)
        return real(variant, settings)

    monkeypatch.setattr(baselines_module, "solve_variant", spy)
    _plans, baselines = solve_with_extras(scenarios, SETTINGS, quiet=True, jobs=1)
    assert [n for n in solved if n.endswith(f"({RENT_ONLY})")] == [
        f"free ({RENT_ONLY})",
        f"capped ({RENT_ONLY})",
    ]
    borrowed = baselines["loose"][RENT_ONLY]
    assert borrowed.total_cost == pytest.approx(0.0 + 3.0 * 730.0 * 12, abs=CENT)
    assert borrowed.name == f"loose ({RENT_ONLY})"
    assert "rent only plan of scenario free" in borrowed.diagnostics[0]
    assert baselines["capped"][RENT_ONLY].status is SolveStatus.INFEASIBLE
    # capped's rent-only model does restrict free's: it was borrowed, refused by the
    # checker (over the budget), and then solved.
    shapes = [
        model_shape(build_model(v.scenario, v.estimates).problem)
        for v in (baseline_variants(s)[0] for s in (free, capped))
    ]
    assert restricts(shapes[1], shapes[0])
    monkeypatch.setattr(baselines_module, "solve_variant", real)
    for scenario in scenarios:
        alone = solve_baselines(scenario, SETTINGS)
        for name in BASELINE_NAMES:
            ours = baselines[scenario.name][name]
            assert ours.status is alone[name].status, (scenario.name, name)
            assert ours.total_cost == pytest.approx(alone[name].total_cost, abs=CENT)
