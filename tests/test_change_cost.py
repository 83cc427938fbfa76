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
from pathlib import Path

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
def solved(name: str, solver: str = "auto") -> Plan:
    case = next(c for c in ALL if c.name == name)
    return solve_scenario(case.scenario, replace(EXACT, solver=solver), estimates=case.estimates)


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


@pytest.mark.parametrize("solver", ["auto", "highs", "scip"])
@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_the_plan_minimises_cost_plus_the_charge_per_move(case: Case, solver: str) -> None:
    plan, best = solved(case.name, solver), enumerated(case.name)
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
    # Each optimum is proven to half a cent: two of them may differ by a cent the wrong way.
    assert all(b >= a - 2 * CENT for a, b in itertools.pairwise(costs)), costs


# ---------------------------------------------------------------- around the model


def _charged(charge: float, name: str = "moving-1") -> Case:
    case = moving_service(random.Random(name))
    return replace(case, scenario=with_assumptions(case.scenario, change_cost=charge))


def test_coarse_layouts_with_a_charge_are_still_plans_of_the_full_model() -> None:
    """--coarse-after ties the replicas of a quarter: no move inside it, and the plan
    is checked under the full model, at an objective no lower than the monthly one."""
    case = _charged(100.0)
    monthly = solve_scenario(case.scenario, EXACT, estimates=case.estimates)
    coarse = solve_scenario(case.scenario, EXACT, estimates=case.estimates, coarse_after=0)
    assert coarse.status is SolveStatus.OPTIMAL
    assert coarse.move_count == 0  # months 1-3 are one quarter: one layout
    assert check_plan(case.scenario, coarse, list(case.estimates)).violations == []
    assert (coarse.objective or 0.0) >= (monthly.objective or 0.0) - CENT


def test_the_checker_flags_moves_the_plan_misreports() -> None:
    case = _charged(100.0, "moving-0")
    plan = solved("moving-0-cc0")
    assert plan.decisions is not None and plan.move_count > 0
    at_charge = replace(plan, scenario=case.scenario)
    wrong = replace(at_charge, moves={"chat": plan.move_count + 1})
    found = check_plan(case.scenario, wrong, list(case.estimates)).violations
    assert found == [
        f"moves of chat: reported {plan.move_count + 1} but recomputed {plan.move_count}"
    ]
    missing = replace(at_charge, moves=None)
    assert check_plan(case.scenario, missing, list(case.estimates)).violations == [
        f"reported moves are missing; recomputed {plan.move_count}"
    ]


def test_json_and_summary_say_the_charge_the_moves_and_keep_the_real_cost() -> None:
    from optimizer.reports.moves_note import moves_note
    from optimizer.reports.report_json import plan_to_dict

    free, kept = solved("moving-0-cc0"), solved("moving-0-cc400")
    d = plan_to_dict(kept)
    assert d["change_cost"] == 400.0
    assert d["moves"] == dict(kept.moves or {})
    assert d["total_cost"] == kept.total_cost  # the charge is in no money figure
    assert d["objective"] == pytest.approx((kept.total_cost or 0.0) + 400.0 * kept.move_count)
    assert plan_to_dict(free)["objective"] == free.total_cost
    n = free.move_count
    assert moves_note(free) == (
        f"Scenario 'moving-0-cc0': its serving replicas move {n} times (chat {n}) (a replica"
        " taken down while its workload still serves the next month); moves often only choose"
        " between plans of the same cost. Assumptions change_cost (money per move, e.g. 1) keeps"
        " replicas in place; the costs shown stay the plan's real cost (methodology 2.16)."
    )
    charged = moves_note(kept)
    assert charged is not None
    assert "change_cost $400.00 a move was weighed in the search and is in no cost" in charged


def test_a_scenario_file_sets_change_cost_and_a_bad_value_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from optimizer.cli import main
    from tests.paths import ROOT

    path = tmp_path / "keep.yaml"
    text = (
        f"workbook: {ROOT / 'workbooks' / 'example.xlsx'}\n"
        "scenarios:\n"
        "  - name: keep\n"
        "    base: us-baseline\n"
        "    assumptions: {change_cost: 10}\n"
    )
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    path.write_text(text.replace("10}", "-1}"), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    assert (
        "keep.yaml, line 5: scenario 'keep', assumptions.change_cost: must be at least 0"
        " (found -1); expected a number ≥ 0 (USD per move)"
    ) in capsys.readouterr().err


def test_the_best_known_plan_is_the_one_with_the_least_cost_plus_charge() -> None:
    """A baseline of lower cost but more moves does not replace a plan of lower objective
    (the search's bound is of the objective); one of lower objective does, its note saying
    what the bound is of."""
    from optimizer.check.baselines import RENT_ONLY, best_known

    name = next(
        c.name
        for c in ALL
        if c.scenario.assumptions.change_cost > 0
        and (solved(c.name).total_cost or 0.0)
        > (solved(c.name.rsplit("-cc", 1)[0] + "-cc0").total_cost or 0.0) + 0.01
    )
    case = next(c for c in ALL if c.name == name)
    kept = solved(name)
    cheap = replace(solved(name.rsplit("-cc", 1)[0] + "-cc0"), scenario=case.scenario)
    assert kept.solver is not None and kept.objective is not None
    assert (cheap.total_cost or 0.0) < (kept.total_cost or 0.0)
    assert (cheap.objective or 0.0) > kept.objective
    stopped = replace(
        kept, status=SolveStatus.TIME_LIMIT, solver=replace(kept.solver, bound=kept.objective - 50)
    )
    assert best_known(stopped, {RENT_ONLY: cheap}) is stopped
    worse = replace(cheap, status=SolveStatus.TIME_LIMIT, solver=stopped.solver)
    best = best_known(worse, {RENT_ONLY: kept})
    assert best.total_cost == kept.total_cost and best.move_count == kept.move_count
    assert best.diagnostics[0].endswith(
        f"(no plan's cost plus change_cost per move is below ${kept.objective - 50:,.2f})"
    )


def test_futures_plan_by_cost_alone() -> None:
    """Expected cost, regret, EVPI and VSS compare costs: a future carries no charge."""
    from optimizer.domain.future_scenario import future_scenario
    from optimizer.domain.futures import FutureSpec

    s = _charged(100.0).scenario
    future = future_scenario(s, FutureSpec("low", 0.5))
    assert future.assumptions.change_cost == 0.0
    assert replace(future.assumptions, change_cost=100.0) == s.assumptions


def test_a_stated_gap_names_what_was_minimised() -> None:
    """With a charge the solver's gap and bound are of cost plus the charge: the words say so;
    at 0 they read as before."""
    from optimizer.solve.assemble import no_plan_below, searched_for

    free, charged = _charged(0.0).scenario, _charged(100.0).scenario
    assert (searched_for(free), no_plan_below(free)) == ("cost", "no plan can cost less than")
    assert searched_for(charged) == "cost plus $100.00 a move (change_cost)"
    assert no_plan_below(charged) == "no plan's cost plus $100.00 a move (change_cost) is below"


def test_compare_states_the_bound_and_total_of_a_charged_search() -> None:
    """A charged plan's total is its cost, not what was minimised; its bound is of the
    cost plus the charge, and the labels say so."""
    from optimizer.reports.compare import comparison_table

    name = next(
        c.name
        for c in ALL
        if c.scenario.assumptions.change_cost > 0 and solved(c.name).move_count > 0
    )
    kept = solved(name)
    assert kept.solver is not None and kept.objective is not None
    stopped = replace(
        kept, status=SolveStatus.TIME_LIMIT, gap=0.1, solver=replace(kept.solver, bound=10.0)
    )
    lines = comparison_table([stopped, kept]).splitlines()
    floor = next(x for x in lines if x.startswith("No plan"))
    assert floor.split()[:11] == (
        [
            "No",
            "plan's",
            "cost",
            "plus",
            "change_cost",
            "per",
            "move",
            "is",
            "below",
            "(USD,",
            "proven)",
        ]
    )
    assert floor.split()[-2:] == ["$10.00", f"${kept.objective:,.2f}"]
    total = next(x for x in lines if x.startswith("Total cost"))
    assert "; the objective less change_cost × moves)" in total
    assert total.split()[-1] == f"${kept.total_cost:,.2f}"
