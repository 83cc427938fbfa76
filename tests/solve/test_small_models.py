"""``--solver auto`` runs small models as ``highs`` does: HiGHS alone, scenarios side by side.

The bundled example's whole ``gpumix solve`` took 21.5 s with the race and
13.5 s with ``--solver highs`` on an idle machine (docs/performance.md); the
default must be the faster choice there too.
"""

from __future__ import annotations

from benchmarks.synthetic import synthetic_scenario
from optimizer.analysis.extras import solve_with_extras
from optimizer.inputs.load import load_input
from optimizer.results import SolverSettings
from optimizer.solve.small_models import SMALL_INTEGERS, all_small
from tests.paths import ROOT


def test_the_example_is_small_and_the_company_workbook_is_not() -> None:
    example = load_input(None, []).scenarios
    assert all_small(example)
    # 8 workloads × 7 types × 36 months is few cells, but its model has 5,023 integers.
    company = load_input(ROOT / "benchmarks" / "company.xlsx", []).scenarios
    assert SMALL_INTEGERS <= 5_023
    assert not all_small(company)
    assert not all_small((*example, *company))


def test_a_large_scenario_is_judged_without_building_its_model() -> None:
    # 20 workloads × 10 types × 36 months: past CELLS_WORTH_COUNTING, so no model is built.
    assert not all_small([synthetic_scenario(10, 20, 36, 1)])


def test_auto_plans_the_example_with_highs_side_by_side_at_the_same_optima() -> None:
    scenarios = load_input(None, []).scenarios
    plans, _baselines = solve_with_extras(
        scenarios, SolverSettings(solver="auto"), quiet=True, jobs=2
    )
    totals = [round(p.total_cost or 0.0, 2) for p in plans]
    assert totals == [161_812.08, 184_016.50, 178_446.21]
    names = [p.solver.name if p.solver else "" for p in plans]
    assert all("HiGHS" in n and "SCIP" not in n for n in names), names


def test_highs_searches_small_models_with_more_heuristic_effort() -> None:
    # tight-capex: 1,060-1,385 nodes at HiGHS's default effort, 135-240 at 0.2
    # (docs/performance.md); larger models keep HiGHS's default.
    import highspy

    from optimizer.estimate.pairs import estimate_pairs
    from optimizer.model.build import build_model
    from optimizer.solve.adapters import (
        SMALL_MODEL_HEURISTIC_EFFORT,
        SMALL_MODEL_INTEGERS,
        tune_for_size,
    )

    assert SMALL_MODEL_INTEGERS == SMALL_INTEGERS
    efforts = []
    for scenario in (
        load_input(None, []).scenarios[2],
        load_input(ROOT / "benchmarks" / "company.xlsx", []).scenarios[0],
    ):
        built = build_model(scenario, tuple(estimate_pairs(scenario)))
        highs = highspy.Highs()
        tune_for_size(built.problem, highs)
        efforts.append(highs.getOptionValue("mip_heuristic_effort")[1])
    assert SMALL_MODEL_HEURISTIC_EFFORT == 0.2
    assert efforts == [0.2, 0.05]  # 0.05: HiGHS's default
