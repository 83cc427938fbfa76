"""Plans first (issue 30): every aggregated plan is a plan of the full model, at its cost.

The aggregated model ties layout integers in blocks of months; the tests tie
from month 1 (``coarse_after=0``, blocks of 3) so that the tiny enumerated
and random scenarios have blocks at all. Each aggregated plan must pass the
independent checker at the cost the aggregated model reported, to the cent,
never below the full optimum; the plan-first phase's start (aggregated model,
then fix-and-optimize) must be a plan of the full model, and the final answer
the full model's own optimum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

import pulp
import pytest

from benchmarks.synthetic import synthetic_scenario
from optimizer.check.rules import check_plan
from optimizer.domain import Scenario
from optimizer.estimate.pairs import estimate_pairs
from optimizer.model.aggregate import layout_integers, month_block, tie_pairs
from optimizer.model.build import build_model
from optimizer.model.built import BuiltModel
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus
from optimizer.solve import plan_first as pf
from optimizer.solve.cheapest_first import TypesPlan
from optimizer.solve.highs_copy import Solved
from optimizer.solve.plan_first import FirstPlan, plan_first, plan_first_budget, say_first_plan
from optimizer.solve.solver import solve_scenario
from tests.random_scenarios import random_scenario
from tests.solve.fake_clock import fake_clock
from tests.test_optimality import ALL, IDS, enumerated

CENT = 0.005
HIGHS = SolverSettings(solver="highs", threads=1)


def _coarse(
    scenario: Scenario, estimates: tuple[PairEstimate, ...] | None = None
) -> tuple[Plan, float | None, list[tuple[float, float]]]:
    """The plan with layouts tied from month 1; the objective the solver reported; tied values."""
    seen: list[BuiltModel] = []
    plan = solve_scenario(scenario, HIGHS, estimates, seen.append, coarse_after=0)
    if not seen:
        return plan, None, []
    built = seen[0]
    values = {v.name: v.varValue for v in built.problem.variables()}
    ties = [(values[a] or 0.0, values[b] or 0.0) for a, b in tie_pairs(built, 0)]
    return plan, pulp.value(built.problem.objective), ties


def _assert_checked_at(
    scenario: Scenario,
    plan: Plan,
    objective: float | None,
    estimates: tuple[PairEstimate, ...] | None = None,
) -> None:
    assert plan.total_cost is not None and objective is not None
    report = check_plan(scenario, plan, None if estimates is None else list(estimates))
    assert report.violations == [], "\n".join(report.violations)
    assert math.isclose(report.total_cost, objective, abs_tol=CENT)
    assert math.isclose(plan.total_cost, objective, abs_tol=CENT)


def test_blocks_are_single_months_then_quarters() -> None:
    assert [month_block(t) for t in (1, 12, 13, 14, 15, 16, 36)] == [1, 12, 13, 13, 13, 16, 34]
    assert [month_block(t, 0, 3) for t in (1, 2, 3, 4)] == [1, 1, 1, 4]


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_an_enumerated_case_aggregated_is_a_checked_plan_never_below_the_optimum(case) -> None:  # type: ignore[no-untyped-def]
    plan, objective, ties = _coarse(case.scenario, case.estimates)
    best = enumerated(case.name)
    if best is None:
        assert plan.status is SolveStatus.INFEASIBLE  # a restriction of an infeasible model
        return
    if plan.status is SolveStatus.INFEASIBLE:
        return  # the restriction may have no plan where the full model has one
    assert plan.status is SolveStatus.OPTIMAL
    _assert_checked_at(case.scenario, plan, objective, case.estimates)
    assert all(abs(a - b) <= 1e-6 for a, b in ties)
    assert plan.total_cost is not None and plan.total_cost >= best.total_cost - CENT


@pytest.mark.parametrize("seed", range(12))
def test_a_random_scenario_aggregated_is_a_checked_plan(seed: int) -> None:
    s = random_scenario(seed, longest_horizon=6, extra_jobs=2)
    plan, objective, ties = _coarse(s)
    full = solve_scenario(s, HIGHS)
    if plan.status is SolveStatus.INFEASIBLE:
        return
    assert plan.status is SolveStatus.OPTIMAL
    _assert_checked_at(s, plan, objective)
    assert all(abs(a - b) <= 1e-6 for a, b in ties)
    assert full.total_cost is not None and plan.total_cost is not None
    assert plan.total_cost >= full.total_cost - CENT


def _built(seed: int = 1) -> BuiltModel:
    s = synthetic_scenario(6, 5, 12, seed)
    return build_model(s, tuple(estimate_pairs(s)))


def _first(built: BuiltModel, monkeypatch: pytest.MonkeyPatch, **kw: object) -> FirstPlan:
    # Blocks from month 1, so that a 12-month model is aggregated.
    monkeypatch.setattr(pf, "MONTHLY_UNTIL", 0)
    found = plan_first(built, HIGHS, budget=(20.0, 10.0), **kw)  # type: ignore[arg-type]
    assert found is not None
    return found


def test_the_first_plan_is_a_plan_of_the_full_model_at_its_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _built()
    found = _first(built, monkeypatch)
    assert found.values is not None and found.cost is not None and found.improved is not None
    assert found.source == "the aggregated model"
    assert found.improved <= found.cost
    for var in built.problem.variables():
        var.varValue = found.values[var.name]
    assert all(var.valid(1e-6) for var in built.problem.variables())
    assert all(
        abs((var.varValue or 0.0) - round(var.varValue or 0.0)) <= 1e-9
        for var in built.problem.variables()
        if var.cat == pulp.LpInteger
    )
    assert [row.name for row in built.problem.constraints() if not row.valid(1e-5)] == []
    assert pulp.value(built.problem.objective) == pytest.approx(found.improved, abs=CENT)


def test_each_plan_the_phase_finds_is_handed_on_as_it_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _built()
    handed: list[dict[str, float]] = []
    monkeypatch.setattr(pf, "MONTHLY_UNTIL", 0)
    found = plan_first(built, HIGHS, budget=(20.0, 10.0), on_plan=handed.append)
    assert found is not None and found.values is not None and found.improved is not None
    # The aggregated model's plan first, then each one fix-and-optimize improved;
    # the last is the phase's answer.
    assert handed[-1] == found.values
    costs = []
    for values in handed:
        for var in built.problem.variables():
            var.varValue = values[var.name]
        costs.append(pulp.value(built.problem.objective))
    assert costs[0] == pytest.approx(found.cost, abs=CENT)
    assert costs[-1] == pytest.approx(found.improved, abs=CENT)
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == len(costs)
    assert len(handed) >= 2, "a case where fix-and-optimize improves the first plan"


def test_a_solve_started_from_the_first_plan_proves_the_same_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = synthetic_scenario(6, 5, 12, 1)
    plain = solve_scenario(s, HIGHS)
    calls: list[FirstPlan | None] = []
    real = pf.plan_first

    def spy(*args: object, **kw: object) -> FirstPlan | None:
        found = real(*args, budget=(20.0, 10.0), **kw)  # type: ignore[arg-type]
        calls.append(found)
        return found

    monkeypatch.setattr(pf, "MONTHLY_UNTIL", 0)
    monkeypatch.setattr("optimizer.solve.solver.plan_first", spy)
    # A small model, let in (the phase runs from MIN_INTEGERS integers).
    monkeypatch.setattr("optimizer.solve.solver.phase_may_run", lambda _built: True)
    for solver in ("highs", "scip", "auto"):
        started = solve_scenario(s, replace(HIGHS, solver=solver, threads=None))
        assert started.status is SolveStatus.OPTIMAL
        assert started.total_cost == pytest.approx(plain.total_cost, abs=CENT)
        report = check_plan(s, started)
        assert report.violations == []
    assert len(calls) == 3 and all(c is not None and c.values for c in calls)


def test_should_stop_ends_the_phase_with_the_best_plan_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = _built()
    stopped = _first(built, monkeypatch, should_stop=lambda: True)
    assert stopped.values is None and stopped.steps == 0
    # Stop once a first plan exists: fix-and-optimize runs no sub-MIP, the first plan stands.
    first_done = [False]
    real = pf._aggregated

    def aggregated(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        first_done[0] = True
        return found

    monkeypatch.setattr(pf, "_aggregated", aggregated)
    built = _built()
    found = _first(built, monkeypatch, should_stop=lambda: first_done[0])
    assert found.values is not None and found.steps == 0
    assert found.improved == found.cost


def _aggregated_cost(
    seed: int, gap: float, monkeypatch: pytest.MonkeyPatch, patience: float = -math.inf
) -> float:
    monkeypatch.setattr(pf, "MONTHLY_UNTIL", 0)
    monkeypatch.setattr(pf, "AGGREGATED_GAP", gap)
    built = _built(seed)
    highs = pf._highs_of(built.problem, HIGHS)
    column = {v.name: v.index for v in built.problem.variables()}
    _values, cost, source = pf._aggregated(highs, built, column, math.inf, pf.never, patience)
    assert cost is not None and source == "the aggregated model"
    return cost


def test_the_aggregated_model_stops_once_its_plan_is_within_its_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its optimum is only a start (fix-and-optimize improves it in the full
    # model), so the search stops at a plan within AGGREGATED_GAP of its bound.
    assert pf.AGGREGATED_GAP == 0.02
    within_2_percent = _aggregated_cost(2, pf.AGGREGATED_GAP, monkeypatch)
    proven = _aggregated_cost(2, 0.0, monkeypatch)
    assert proven == pytest.approx(54_066.63, abs=CENT)
    assert proven + 1.0 < within_2_percent <= proven * 1.02
    loose = _aggregated_cost(2, 1.0, monkeypatch)
    assert within_2_percent < loose <= proven * 2
    # Before its patience has run out the search goes on to its optimum.
    patient = _aggregated_cost(2, pf.AGGREGATED_GAP, monkeypatch, time.perf_counter() + 3600)
    assert patient == pytest.approx(proven, abs=CENT)


def test_the_phase_runs_on_large_models_only_within_its_share() -> None:
    from optimizer.inputs.load import load_input
    from tests.paths import ROOT

    company = load_input(ROOT / "benchmarks" / "company.xlsx", []).scenarios[0]
    assert pf.phase_may_run(build_model(company, tuple(estimate_pairs(company))))  # 5,023
    assert not pf.phase_may_run(_built())  # (6, 5, 12): below MIN_INTEGERS
    assert plan_first_budget(None, None, pf.MIN_INTEGERS - 1) is None
    # Above MAX_INTEGERS: a first plan from the cheapest GPU types, no fix-and-optimize.
    assert plan_first_budget(None, None, pf.MAX_INTEGERS + 1) == (pf.AGGREGATED_CAP_S, 0.0)
    assert plan_first_budget(None, None, pf.MIN_INTEGERS) == (
        pf.AGGREGATED_CAP_S,
        pf.IMPROVE_CAP_S,
    )
    assert plan_first_budget(60.0, 57.0, pf.MIN_INTEGERS) == (18.0, 14.25)
    assert plan_first_budget(2.0, 1.5, pf.MIN_INTEGERS) is None


def test_the_phase_leaves_the_full_solve_its_reserve_up_to_the_largest_model() -> None:
    # --time-limit 60 after a build of up to 15 s: aggregated + fallback + FO
    # together end early enough for the full solve's reserve.
    for integers in (pf.MIN_INTEGERS, 15_000, pf.MAX_INTEGERS):
        for left in (59.0, 50.0, 45.0):
            budget = plan_first_budget(60.0, left, integers)
            assert budget is not None
            assert sum(budget) <= left - pf.reserve_seconds(integers) + 1e-9
    assert pf.reserve_seconds(pf.MAX_INTEGERS) == 20.0
    # 45 s left at 50,000 integers: the shares (15 s, 11.25 s) scaled to leave 20 s.
    scale = 25.0 / 26.25
    assert plan_first_budget(60.0, 45.0, pf.MAX_INTEGERS) == pytest.approx(
        (15.0 * scale, 11.25 * scale)
    )


def test_the_fallback_start_comes_out_of_the_phase_total(monkeypatch: pytest.MonkeyPatch) -> None:
    """The aggregated model spends its share without a plan: fallback and FO end by the phase's end.

    A fake clock: each sub-solve "runs" until the time it is given.
    """
    from optimizer.solve.fix_optimize import Improved

    clock = fake_clock(monkeypatch, pf)
    given: dict[str, float] = {}

    def aggregated(_h: object, _b: object, _c: object, until: float, *_rest: object) -> object:
        given["aggregated"] = until
        clock[0] = until
        return None, None, "aggregated model: Interrupted by user"

    def solver_first(_h: object, until: float, _s: object) -> object:
        given["fallback"] = until
        clock[0] = until
        return Solved(500.0, [0.0] * n, until)

    def improve(
        _h: object, values: list[float], cost: float, *args: object, **_kw: object
    ) -> Improved:
        given["improve"] = float(args[2])  # type: ignore[arg-type]
        clock[0] = given["improve"]
        return Improved(values, cost, 0, 0)

    built = _built()
    n = len(built.problem.variables())

    def highs_of(problem: pulp.LpProblem, _settings: object) -> None:
        for i, v in enumerate(problem.variables()):
            v.index = i  # what building HiGHS's model sets

    monkeypatch.setattr(pf, "_highs_of", highs_of)

    def no_cheapest_plan(_h: object, _b: object, _c: object, until: float, *_r: object) -> object:
        given["cheapest types"] = until  # infeasible at once: the clock stands
        return TypesPlan(None, None, "each workload's cheapest GPU type (1 of 6 types): Infeasible")

    monkeypatch.setattr(pf, "_aggregated", aggregated)
    monkeypatch.setattr(pf, "cheapest_types_plan", no_cheapest_plan)
    monkeypatch.setattr(pf, "_solver_first", solver_first)
    monkeypatch.setattr(pf, "fix_and_optimize", improve)
    monkeypatch.setattr(pf, "neighbourhoods", lambda *_a: [])
    found = plan_first(built, HIGHS, deadline=1060.0, budget=(18.0, 15.0))
    assert found is not None and found.cost == 500.0 and found.source == "HiGHS's first plan"
    assert given == {
        "aggregated": 1018.0,
        "cheapest types": 1027.0,
        "fallback": 1027.0,
        "improve": 1033.0,
    }

    # The cheapest types give a plan: it is the first plan, HiGHS's own is not sought.
    def cheapest_plan(_h: object, _b: object, _c: object, until: float, *_r: object) -> object:
        given["cheapest types"] = until
        clock[0] = until - 4.0
        return TypesPlan([0.0] * n, 450.0, "each workload's cheapest GPU type (2 of 6 types)", 1)

    clock[0] = 1000.0
    given.clear()
    monkeypatch.setattr(pf, "cheapest_types_plan", cheapest_plan)
    found = plan_first(built, HIGHS, deadline=1060.0, budget=(18.0, 15.0))
    assert found is not None and found.cost == 450.0
    assert found.source == "each workload's cheapest GPU type (2 of 6 types)"
    assert given == {"aggregated": 1018.0, "cheapest types": 1027.0, "improve": 1033.0}


def test_the_progress_line_says_what_each_phase_gave() -> None:
    found = FirstPlan({}, 1234.5, "the aggregated model", 4.21, 1200.0, 9.84, 7)
    assert say_first_plan(found, "USD") == (
        "gpumix: first plan $1,234.50 from the aggregated model, 4.2 s; "
        "after fix-and-optimize $1,200.00, 9.8 s"
    )
    none = FirstPlan(None, None, "aggregated model: Time limit reached", 3.0)
    assert say_first_plan(none, "USD") == (
        "gpumix: no first plan (aggregated model: Time limit reached, 3.0 s)"
    )


def test_the_enumerated_cases_have_layouts_to_tie() -> None:
    """A guard against a check that ties nothing: most 2-month cases tie months 1 and 2."""
    tied = [c.name for c in ALL if tie_pairs(build_model(c.scenario, c.estimates), 0)]
    assert len(tied) >= len(ALL) // 3, tied


def test_the_race_runs_the_phase_beside_scip_and_hands_scip_its_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from optimizer.solve import race
    from optimizer.solve.solver import run_solver

    s = synthetic_scenario(6, 5, 12, 1)
    built = build_model(s, tuple(estimate_pairs(s)))
    optimum = run_solver(built.problem, HIGHS)
    assert optimum.status is SolveStatus.OPTIMAL
    cost = pulp.value(built.problem.objective)
    plan = {v.name: v.varValue or 0.0 for v in built.problem.variables()}
    threads_seen: list[tuple[str, bool]] = []

    def phase(stop: object, early: Callable[[dict[str, float]], None]) -> dict[str, float]:
        # The phase has HiGHS's thread while SCIP already searches on the other.
        scip_running = any(t.name == "gpumix-run_scip" for t in threading.enumerate())
        threads_seen.append((threading.current_thread().name, scip_running))
        early({name: 0.0 for name in plan})  # a first plan (nothing bought: infeasible)
        early(plan)
        return plan

    from optimizer.solve import scip

    taken: list[tuple[str, bool]] = []
    real = scip.try_scip_plan

    def spy(variables: object, model: object, values: dict[str, float], heur: object) -> bool:
        kept = real(variables, model, values, heur)  # type: ignore[arg-type]
        taken.append((threading.current_thread().name, kept))
        return kept

    monkeypatch.setattr(scip, "try_scip_plan", spy)
    # PuLP's problem.variables() re-sorts one list in place: SCIP's thread must not call it
    # while the phase's thread reads it (a plan came back cut short that way).
    listed_by: set[str] = set()
    real_variables = built.problem.variables

    def variables() -> list[pulp.LpVariable]:
        listed_by.add(threading.current_thread().name)
        return real_variables()

    monkeypatch.setattr(built.problem, "variables", variables)
    raced = run_solver(built.problem, SolverSettings(solver="race"), phase=phase)
    assert "gpumix-run_scip" not in listed_by
    assert threads_seen == [("gpumix-run_highs", True)]
    # In SCIP's own thread, in the order given; SCIP refuses the infeasible one.
    assert taken == [("gpumix-run_scip", False), ("gpumix-run_scip", True)]
    assert raced.status is SolveStatus.OPTIMAL
    assert pulp.value(built.problem.objective) == pytest.approx(cost, abs=CENT)
    # A caller's own start (alternatives, shadow prices) stays out of the race, as before.
    given: list[int] = []
    monkeypatch.setattr(race, "add_scip_start", lambda *a: given.append(1))
    run_solver(built.problem, SolverSettings(solver="race"), start=plan)
    assert given == []


def test_coarse_after_month_in_the_assumptions_plans_quarters_and_the_audit_says_so() -> None:
    from optimizer.reports.audit_sheet import audit_sheet
    from optimizer.results import RunResult

    s = random_scenario(5, longest_horizon=6, extra_jobs=2)
    assert s.horizon_months >= 4, "a horizon with a block of months to tie"
    coarse = replace(
        s,
        assumptions=replace(s.assumptions, coarse_after_month=0.0),
        assumption_sources={**s.assumption_sources, "coarse_after_month": "--coarse-after"},
    )
    seen: list[BuiltModel] = []
    plan = solve_scenario(coarse, HIGHS, on_solved=seen.append)
    by_argument, objective, _ties = _coarse(s)
    assert plan.status is SolveStatus.OPTIMAL and by_argument.status is SolveStatus.OPTIMAL
    assert plan.total_cost == pytest.approx(objective, abs=CENT)
    assert seen and tie_pairs(seen[0], 0), "the layouts were tied"
    run = RunResult(plans=(plan,), input_files=(), started_at="", gpumix_version="", settings=HIGHS)
    cells = audit_sheet(run).cells
    rows = {r for (r, _c), cell in cells.items() if cell.value == "coarse_after_month"}
    assert len(rows) == 1
    row = {c: cell.value for (r, c), cell in cells.items() if r in rows}
    assert 0.0 in row.values() and "--coarse-after" in row.values()


def test_the_phase_says_what_it_gave_on_stderr_only_with_progress_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pf, "MIN_INTEGERS", 0)
    s = synthetic_scenario(6, 5, 12, 1)
    plan = solve_scenario(s, replace(HIGHS, progress=True))
    out, err = capsys.readouterr()
    assert out == ""
    lines = [line for line in err.splitlines() if "first plan" in line or "full model" in line]
    assert lines[0].startswith("gpumix: first plan $") and "from the aggregated model" in lines[0]
    assert "after fix-and-optimize $" in lines[0]
    assert plan.total_cost is not None
    assert lines[1].startswith(
        f"gpumix: full model: plan ${plan.total_cost:,.2f}, proven gap 0.00%"
    )
    solve_scenario(s, HIGHS)
    assert capsys.readouterr() == ("", "")


def test_fix_and_optimize_frees_month_blocks_and_pairs_of_gpu_types_in_turn() -> None:
    built = _built()
    column = {v.name: i for i, v in enumerate(built.problem.variables())}
    found = pf.neighbourhoods(built, column)
    names = [name for name, _cols in found]
    blocks = [n for n in names if n.startswith("months ")]
    assert blocks == ["months 1-6", "months 4-9", "months 7-12"]
    assert names[0:3:2] == blocks[:2] and names[1].count(" + ") == 1  # block, pair, block
    used = [
        g.name for g in built.scenario.gpus if any(c.gpu == g.name for c in layout_integers(built))
    ]
    pairs = [n for n in names if not n.startswith("months ")]
    assert len(pairs) == len(used) * (len(used) - 1) // 2 >= 3
    # A pair frees both types' layout and every training pick.
    by_name = dict(found)
    a, b = used[0], used[1]
    freed = {c for c in by_name[f"{a} + {b}"]}
    layout = {column[c.name]: c for c in layout_integers(built)}
    assert {layout[c].gpu for c in freed if layout[c].month is not None} == {a, b}
    assert {c for c, li in layout.items() if li.month is None} <= freed
