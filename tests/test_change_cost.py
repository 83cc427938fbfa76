"""``change_cost`` (methodology 2.16): the solver's plan minimises its cost plus the
charge per move over every deployable plan, found by enumeration without the model.

The enumeration is ``tests.brute_force_search`` (see ``tests/test_optimality.py``
for why it is exhaustive), with two changes where ``change_cost`` > 0, argued in
``tests.brute_force.kept_replica_sets`` and ``_cheapest_flex_with_moves``: a
month may keep replicas it does not need (to avoid a move), and months are tied
by the moves between their layouts (dynamic programming over the months).
With ``change_cost`` 0 the plan is the cheapest, to the cent, as before.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import replace

import pytest

from optimizer.check.rules import check_plan
from optimizer.results import Plan, SolverSettings, SolveStatus
from optimizer.solve.solver import solve_scenario
from tests.brute_force import evaluate, instance, moves_of
from tests.brute_force_search import Cheapest, cheapest
from tests.builders import gpu, offer, scenario, with_assumptions, workload
from tests.test_optimality import Case, assumptions, serving_estimate

CENT = 0.005
EXACT = SolverSettings(gap=0.0)
CHARGES = (0.0, 20.0, 100.0, 400.0)


def moving_service(rng: random.Random) -> Case:
    """A service over three months whose cheapest cover changes type, place and width:
    two types on demand (one capped), and a reserved or owned place where chosen."""
    offers = [
        offer("A", "on_demand", rng.choice([1.0, 1.6])),
        offer("B", "on_demand", rng.choice([0.5, 0.9]), max_units=rng.choice([None, 2])),
    ]
    if rng.random() < 0.4:
        offers.append(offer("B", "reserved", rng.choice([0.4, 0.7]), term_months=1, max_units=2))
    if rng.random() < 0.3:
        offers.append(offer("A", "buy", rng.choice([60.0, 200.0]), max_units=1))
    demand = rng.choice([(300.0, 700.0, 300.0), (200.0, 450.0, 900.0), (600.0, 250.0, 600.0)])
    s = scenario(
        [gpu("A", tdp_w=700.0, max_per_node=2), gpu("B", tdp_w=300.0, max_per_node=2)],
        offers,
        [
            workload(
                "chat",
                "realtime_inference",
                tokens_per_second=demand[0],
                min_replicas=1,
                demand_by_month=((2, demand[1]), (3, demand[2])),
            )
        ],
        assumptions=assumptions(rng, target_load=1.0, residual_value="none"),
        horizon_months=3,
    )
    estimates = (
        serving_estimate("chat", "A", {1: 500.0}),
        serving_estimate("chat", "B", {1: 250.0, 2: rng.choice([520.0, 600.0])}),
    )
    return Case("", s, estimates)


def _cases() -> list[Case]:
    made = []
    for i in range(12):
        rng = random.Random(f"moving-{i}")
        case = moving_service(rng)
        made.append((f"moving-{i}", case, rng.choice(CHARGES[1:])))
    found = []
    for name, case, charge in made:
        for value in (0.0, charge):
            label = f"{name}-cc{value:g}"
            s = replace(with_assumptions(case.scenario, change_cost=value), name=label)
            found.append(replace(case, name=label, scenario=s))
    return found


ALL = _cases()
IDS = [c.name for c in ALL]


@functools.cache
def solved(name: str) -> Plan:
    case = next(c for c in ALL if c.name == name)
    return solve_scenario(case.scenario, EXACT, estimates=case.estimates)


@functools.cache
def enumerated(name: str) -> Cheapest | None:
    case = next(c for c in ALL if c.name == name)
    return cheapest(case.scenario, case.estimates)


def test_the_cases_move_and_the_charge_keeps_replicas_in_place() -> None:
    """A guard against cases that test nothing: at 0 some optimum moves, and a charge
    changes some optimum's moves (and so its cost)."""
    moved, fewer = 0, 0
    for case in ALL:
        if case.scenario.assumptions.change_cost == 0:
            plan = solved(case.name)
            assert plan.decisions is not None
            moves = moves_of(case.scenario, plan.decisions.replicas)
            moved += moves > 0
            charged = solved(case.name.replace("-cc0", f"-cc{_charge_of(case.name):g}"))
            fewer += charged.move_count < moves
    assert moved >= 5 and fewer >= 3, (moved, fewer)


def _charge_of(name: str) -> float:
    base = name.rsplit("-cc", 1)[0]
    return next(
        c.scenario.assumptions.change_cost
        for c in ALL
        if c.name.startswith(base + "-cc") and c.scenario.assumptions.change_cost > 0
    )


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_the_plan_minimises_cost_plus_the_charge_per_move(case: Case) -> None:
    plan, best = solved(case.name), enumerated(case.name)
    assert best is not None
    assert plan.status is SolveStatus.OPTIMAL, plan.diagnostics
    assert plan.objective == pytest.approx(best.total_cost, abs=CENT), (
        plan.decisions,
        best.decisions,
    )
    if case.scenario.assumptions.change_cost == 0:
        assert plan.objective == plan.total_cost  # the cheapest plan, to the cent


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_the_plan_costs_its_money_and_counts_its_moves_by_hand(case: Case) -> None:
    """Real cost by the enumeration's arithmetic; moves by hand; the checker agrees."""
    plan = solved(case.name)
    assert plan.decisions is not None
    cost, broken = evaluate(instance(case.scenario, case.estimates), plan.decisions)
    assert broken == []
    assert plan.total_cost == pytest.approx(cost, abs=CENT)  # the charge is no money
    moves = moves_of(case.scenario, plan.decisions.replicas)
    assert plan.move_count == moves
    report = check_plan(case.scenario, plan, list(case.estimates))
    assert report.violations == []
    assert report.moves == moves
    charge = case.scenario.assumptions.change_cost
    assert report.objective == pytest.approx(cost + charge * moves, abs=CENT)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_the_enumerated_plan_costs_what_it_says(case: Case) -> None:
    best = enumerated(case.name)
    assert best is not None
    cost, broken = evaluate(instance(case.scenario, case.estimates), best.decisions)
    assert broken == []
    moves = moves_of(case.scenario, best.decisions.replicas)
    charge = case.scenario.assumptions.change_cost
    assert cost + charge * moves == pytest.approx(best.total_cost, abs=CENT)


@pytest.mark.parametrize("seed", range(6))
def test_a_higher_charge_never_adds_moves_nor_lowers_the_cost(seed: int) -> None:
    """For optima at charges c1 < c2: c1's objective at its plan is at most at c2's
    plan and vice versa, so moves(c2) <= moves(c1) and cost(c2) >= cost(c1)."""
    case = moving_service(random.Random(f"property-{seed}"))
    plans = [
        solve_scenario(
            with_assumptions(case.scenario, change_cost=charge), EXACT, estimates=case.estimates
        )
        for charge in (0.0, 1.0, 10.0, 100.0, 1000.0, 10_000.0)
    ]
    assert all(p.status is SolveStatus.OPTIMAL for p in plans)
    moves = [p.move_count for p in plans]
    costs = [p.total_cost or 0.0 for p in plans]
    assert all(b <= a for a, b in itertools.pairwise(moves)), moves
    assert all(b >= a - CENT for a, b in itertools.pairwise(costs)), costs
