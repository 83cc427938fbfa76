"""The restricted warm start: a plan of the full model, the same optimum, within its share of the limit."""

from __future__ import annotations

import math
from typing import Any

import pulp
import pytest

from benchmarks.synthetic import synthetic_scenario
from optimizer.estimate.pairs import estimate_pairs
from optimizer.model.build import build_model
from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve import warm_start
from optimizer.solve.solver import solve_scenario
from optimizer.solve.warm_start import (
    WARM_CAP_S,
    WARM_MAX_INTEGERS,
    WARM_MIN_INTEGERS,
    WARM_RESERVE_S,
    choose_picks,
    pick_groups,
    warm_budget,
)
from tests.random_scenarios import random_scenario


def test_the_warm_start_is_a_plan_of_the_full_model() -> None:
    s = synthetic_scenario(6, 5, 12, 1)
    built = build_model(s, tuple(estimate_pairs(s)))
    assert pick_groups(built), "the scenario has training jobs with a choice of type"
    start = warm_start.warm_start(built, deadline=math.inf, threads=1)
    assert start is not None
    for var in built.problem.variables():
        var.varValue = start[var.name]
    assert all(var.valid(1e-6) for var in built.problem.variables())
    assert all(
        abs(var.varValue - round(var.varValue)) <= 1e-6
        for var in built.problem.variables()
        if var.cat == pulp.LpInteger
    )
    violated = [row.name for row in built.problem.constraints() if not row.valid(1e-5)]
    assert violated == []
    # Each job runs on exactly the one type its fixed pick names.
    for group in pick_groups(built):
        assert sorted(round(start[name]) for name in group) == [0] * (len(group) - 1) + [1]


@pytest.mark.parametrize("seed", [3, 8, 12, 19])
def test_a_warm_started_solve_proves_the_same_optimum(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = random_scenario(seed, extra_jobs=3)
    # A time limit far beyond what these take: the warm start runs under a limit only.
    settings = SolverSettings(solver="highs", threads=1, time_limit=600.0)
    plain = solve_scenario(s, settings)
    calls: list[object] = []
    real = warm_start.restricted_start

    def spy(*args: object, **kw: object) -> warm_start.WarmStart:
        found = real(*args, **kw)  # type: ignore[arg-type]
        calls.append(found)
        return found

    monkeypatch.setattr(warm_start, "WARM_MIN_INTEGERS", 0)
    monkeypatch.setattr(warm_start, "restricted_start", spy)
    warmed = solve_scenario(s, settings)
    assert warmed.status is plain.status
    if plain.status is SolveStatus.OPTIMAL:
        assert warmed.total_cost == pytest.approx(plain.total_cost, abs=0.01)
    built = build_model(s, tuple(estimate_pairs(s)))
    assert pick_groups(built) and calls, "the warm start ran"


def test_the_warm_start_runs_on_large_models_under_a_time_limit_only() -> None:
    assert warm_budget(60.0, 55.0, WARM_MIN_INTEGERS - 1) is None
    assert warm_budget(60.0, 55.0, WARM_MAX_INTEGERS + 1) is None
    assert warm_budget(60.0, 55.0, WARM_MIN_INTEGERS) == WARM_CAP_S
    # No limit: the run is to prove optimality.
    assert warm_budget(None, None, WARM_MIN_INTEGERS) is None


@pytest.mark.parametrize(
    ("limit", "left"), [(20.0, 19.5), (60.0, 57.0), (600.0, 590.0), (10.0, 9.0), (8.0, 2.0)]
)
def test_the_warm_start_takes_its_share_of_the_limit_and_leaves_the_rest(
    limit: float, left: float
) -> None:
    budget = warm_budget(limit, left, WARM_MIN_INTEGERS)
    if budget is None:
        return  # too little left to be worth it
    assert budget >= 1.0
    assert budget <= 0.25 * limit
    assert budget <= WARM_CAP_S
    assert budget <= left / 2
    assert left - budget >= WARM_RESERVE_S


def test_too_little_time_left_means_no_warm_start() -> None:
    assert warm_budget(8.0, 2.0, WARM_MIN_INTEGERS) is None
    assert warm_budget(60.0, 4.0, WARM_MIN_INTEGERS) is None
    assert warm_budget(20.0, 19.0, WARM_MIN_INTEGERS) == pytest.approx(5.0)


def test_each_job_is_fixed_to_the_type_with_the_largest_lp_share() -> None:
    lp = [0.2, 0.8, 0.0, 0.5, 0.5, 1.0]
    assert choose_picks(lp, [[0, 1], [3, 4], [2, 5]]) == [1, 3, 5]


def test_the_race_with_the_warm_start_proves_the_same_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off by default in the race (measured mixed); when switched on it changes no optimum."""
    s = random_scenario(19, extra_jobs=3)
    settings = SolverSettings(solver="auto", threads=2, time_limit=600.0)
    plain = solve_scenario(s, settings)
    monkeypatch.setattr(warm_start, "WARM_MIN_INTEGERS", 0)
    monkeypatch.setattr(warm_start, "WARM_IN_RACE", True)
    warmed = solve_scenario(s, settings)
    assert plain.status is warmed.status is SolveStatus.OPTIMAL
    assert warmed.total_cost == pytest.approx(plain.total_cost, abs=0.01)


def _knapsack() -> Any:
    """A 0-1 knapsack HiGHS must branch on (its LP optimum is fractional)."""
    import highspy
    import numpy as np

    weights = [23, 31, 29, 44, 53, 38, 63, 85, 89, 82, 17, 41, 67, 73, 59, 47, 33, 27, 71, 91]
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    n = len(weights)
    for w in weights:
        highs.addVar(0.0, 1.0)
        highs.changeColCost(highs.getNumCol() - 1, -(w + (w * 7) % 13))
    highs.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.ones(n, dtype=np.uint8))
    highs.addRow(
        -highspy.kHighsInf, 500.0, n, np.arange(n, dtype=np.int32), np.array(weights, float)
    )
    return highs


def test_a_model_interrupted_once_runs_to_its_optimum_when_run_again() -> None:
    # HiGHS 1.16 keeps the callback's interrupt flag between runs; fix-and-optimize
    # runs one model many times, and every step after the first one stopped by its
    # own cap stopped at once (s6-8-36-2: 22 steps of 0 iterations).
    highs = _knapsack()
    stop = [True]
    warm_start.interrupt_when(highs, lambda: stop[0])
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Interrupted by user"
    stop[0] = False
    highs.run()
    assert highs.modelStatusToString(highs.getModelStatus()) == "Optimal"
    assert highs.getInfo().mip_node_count >= 1
