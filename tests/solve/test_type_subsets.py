"""``fewest_types`` by trying subsets of types gives the MILP's answer, without its search.

Random scenarios of 2-3 GPU types (tests/random_scenarios.py, with extra
jobs): the subsets' answer (goal value, and the total of the cheapest plan
reaching it) equals the MILP's, which the brute-force enumeration in
tests/test_alternatives.py checks on the tiny serving cases.
"""

from __future__ import annotations

import pytest

import optimizer.solve.type_subsets as type_subsets
from optimizer.analysis.alternatives import run_alternatives
from optimizer.model.goal_names import Goal
from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.type_subsets import MOST_SUBSETS, subsets_to_try
from tests.random_scenarios import random_scenario

SETTINGS = SolverSettings(solver="highs", gap=0.0)
HALF_CENT = 0.005


def _fewest_types(seed: int, slack: float) -> tuple[float | None, float | None, SolveStatus]:
    s = random_scenario(seed, extra_jobs=2)
    result = run_alternatives(s, SETTINGS, [Goal.FEWEST_TYPES], slack, jobs=1)
    (alt,) = result.alternatives
    return alt.goal_value, alt.plan.total_cost, alt.plan.status


def test_subsets_to_try() -> None:
    assert subsets_to_try(7, 2) == 7
    assert subsets_to_try(7, 3) == 7 + 21
    assert subsets_to_try(3, 1) == 0
    assert subsets_to_try(3, 5) == 3 + 3 + 1
    assert subsets_to_try(7, 4) > MOST_SUBSETS


@pytest.mark.parametrize("slack", [0.0, 0.1, 0.6])
def test_subsets_give_the_milps_answer(
    monkeypatch: pytest.MonkeyPatch, alternative_solves: list[object], slack: float
) -> None:
    solves = alternative_solves
    seeds = [seed for seed in range(40) if len(random_scenario(seed, extra_jobs=2).gpus) >= 2]
    fewer = 0
    for seed in seeds[:8]:
        by_subsets = _fewest_types(seed, slack)
        assert not solves, seed  # no MILP: the subsets gave the proof
        with monkeypatch.context() as m:
            m.setattr(type_subsets, "MOST_SUBSETS", -1)  # every case to the MILP
            by_milp = _fewest_types(seed, slack)
        solves.clear()
        assert by_subsets[2] is SolveStatus.OPTIMAL and by_milp[2] is SolveStatus.OPTIMAL
        assert by_subsets[0] == by_milp[0], seed
        assert by_subsets[1] == pytest.approx(by_milp[1], abs=HALF_CENT), seed
        optimum = run_alternatives(
            random_scenario(seed, extra_jobs=2), SETTINGS, [Goal.FEWEST_TYPES], 0.0, jobs=1
        ).optimum_goal_values[Goal.FEWEST_TYPES]
        fewer += by_subsets[0] is not None and optimum is not None and by_subsets[0] < optimum
    if slack > 0.5:
        assert fewer  # some case's answer is a plan other than the cheapest
