"""``--solver auto``: the HiGHS and SCIP race, and the commercial solvers' clear refusals."""

from __future__ import annotations

import math
import sys

import pytest

from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.race import HIGHS, SCIP, _Race, proven
from tests.checked import solve_checked
from tests.paths import ROOT


def test_proven_means_half_a_cent_or_the_relative_gap() -> None:
    exact = SolverSettings()
    assert proven(100_000.00, 99_999.996, exact)
    assert not proven(100_000.00, 99_999.99, exact)
    assert proven(100_000.00, 99_000.00, SolverSettings(gap=0.01))
    assert not proven(100_000.00, 98_999.00, SolverSettings(gap=0.01))
    assert not proven(math.inf, 99_000.00, exact)  # no plan yet
    assert not proven(100_000.00, -math.inf, exact)  # no bound yet


def test_a_plan_from_one_solver_and_a_bound_from_the_other_end_the_race() -> None:
    race = _Race(SolverSettings(gap=0.001))
    assert race.report(HIGHS, 200_000.0, 190_000.0) is False
    assert race.report(SCIP, math.inf, 199_900.0) is True  # 0.05 % with HiGHS's plan
    assert race.stop.is_set()


def test_a_proof_or_infeasibility_ends_the_race_but_a_time_limit_does_not() -> None:
    race = _Race(SolverSettings())
    race.finished(SolveStatus.TIME_LIMIT)
    race.finished(SolveStatus.ERROR)
    assert not race.stop.is_set()
    race.finished(SolveStatus.INFEASIBLE)
    assert race.stop.is_set()


@pytest.fixture(scope="module")
def raced_for_eight_seconds():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT))
    from benchmarks.synthetic import synthetic_scenario

    scenario = synthetic_scenario(10, 20, 36, seed=2)
    return solve_checked(scenario, SolverSettings(solver="auto", time_limit=8.0, threads=2))


def test_a_stopped_race_reports_a_checked_plan_and_the_gap_to_the_best_bound(
    raced_for_eight_seconds,  # type: ignore[no-untyped-def]
) -> None:
    plan = raced_for_eight_seconds
    assert plan.solver is not None
    if plan.status is SolveStatus.ERROR:
        # A machine busy with other work may not reach a first plan in time; then
        # the race must say so, naming both solvers and the limit the user set.
        assert plan.diagnostics == (
            "HiGHS and SCIP found no plan within the 8 s time limit; raise --time-limit or "
            "simplify the scenario",
        )
        return
    assert plan.status is SolveStatus.TIME_LIMIT  # no solver proves this one in 8 s
    if plan.solver.bound is None:
        # A machine busy with other work may stop both solvers before either has a
        # bound (CI once did, after 2.8 s of building): then no gap may be claimed.
        assert plan.gap is None and plan.total_cost is not None
        return
    assert plan.total_cost is not None and plan.gap is not None
    assert plan.solver.name in {"HiGHS (raced with SCIP)", "SCIP (raced with HiGHS)"}
    assert "HiGHS" in plan.solver.version and "SCIP" in plan.solver.version
    assert plan.solver.bound <= plan.total_cost
    assert plan.gap == pytest.approx(
        (plan.total_cost - plan.solver.bound) / plan.total_cost, rel=1e-6
    )
    assert plan.diagnostics[0].startswith(
        "HiGHS and SCIP stopped at the 8 s time limit before proving the plan optimal: proven gap "
    )


@pytest.mark.parametrize(
    ("solver", "label", "package"),
    [
        ("gurobi", "Gurobi", "gurobipy"),
        ("cplex", "CPLEX", "cplex"),
        ("xpress", "Xpress", "xpress"),
        ("copt", "COPT", "coptpy"),
    ],
)
def test_a_commercial_solver_that_is_not_installed_is_named_with_its_package(
    solver: str, label: str, package: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from optimizer.cli import main
    from optimizer.solve.commercial import missing_solver

    if missing_solver(solver) is None:
        pytest.skip(f"{label} is installed here")
    assert main(["solve", "--solver", solver]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        f"usage: --solver {solver} needs {label}'s Python package, which is not installed "
        f"here: pip install {package} (and a {label} licence), or choose --solver auto"
    ) in captured.err


class _BrokenScip:
    """Stands in for SCIP's model and fails the way a solver crash would."""

    def includeEventhdlr(self, *args: object) -> None:
        pass

    def setParam(self, *args: object) -> None:
        pass

    def optimizeNogil(self) -> None:
        raise RuntimeError("SCIP: unspecified error!")


def test_a_solver_that_fails_in_the_race_leaves_the_other_ones_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import optimizer.solve.race as race
    from tests.builders import offer
    from tests.solve.test_solve import batch_on_h100

    monkeypatch.setattr(race, "build_scip_model", lambda problem, settings: _BrokenScip())
    s = batch_on_h100(1000.0, 12, offer("H100", "buy", 25_000.0), offer("H100", "on_demand", 3.15))
    plan = solve_checked(s, SolverSettings(solver="auto", threads=2, time_limit=60.0))
    assert plan.status is SolveStatus.OPTIMAL
    assert plan.solver is not None and plan.solver.name == "HiGHS (raced with SCIP)"
    assert plan.total_cost == pytest.approx(25_000.0 + 3.15 * 270 * 12, abs=0.005)


def test_highs_plans_are_costed_from_their_columns_not_from_highs_figure() -> None:
    """HiGHS 1.16 given a first plan reported s20-50-60-1's $495,969.75 plan as $494,225.88
    (its presolved model's figure); the race and the progress lines cost the columns."""
    from types import SimpleNamespace

    import highspy
    import numpy as np

    from optimizer.solve.progress import HighsPlans

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    # min 3 x + 5 y + 7 (offset), 0 <= x, y <= 10
    highs.addVars(2, np.array([0.0, 0.0]), np.array([10.0, 10.0]))
    highs.changeColsCost(2, np.array([0, 1], dtype=np.int32), np.array([3.0, 5.0]))
    highs.changeObjectiveOffset(7.0)
    plans = HighsPlans()
    wrong = SimpleNamespace(mip_primal_bound=1.0, mip_solution=[2.0, 1.0])
    assert plans.plan(True, wrong) == 1.0  # before it watches a model: HiGHS's figure
    plans.watch(highs)
    assert plans.plan(False, wrong) == math.inf  # no plan handed over yet
    assert plans.plan(True, wrong) == pytest.approx(3 * 2 + 5 * 1 + 7)
    dearer = SimpleNamespace(mip_primal_bound=0.5, mip_solution=[4.0, 4.0])
    assert plans.plan(True, dearer) == pytest.approx(18.0)  # the best so far stays
    assert plans.plan(False, dearer) == pytest.approx(18.0)
