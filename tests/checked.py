"""Every solve in the test suite goes through here: solve, then check the plan
with the independent checker, which recomputes costs and constraints from the
inputs. A plan the checker rejects is a bug in the model."""

from __future__ import annotations

import math

from optimizer.domain import Scenario
from optimizer.results import Plan, SolverSettings

CENT = 0.005


def solve_checked(scenario: Scenario, settings: SolverSettings | None = None) -> Plan:
    from optimizer.check.rules import check_plan
    from optimizer.solve.solver import solve_scenario

    plan = solve_scenario(scenario, settings or SolverSettings())
    if plan.status.has_plan:
        report = check_plan(scenario, plan)
        assert report.violations == [], "\n".join(report.violations)
        assert plan.total_cost is not None
        assert math.isclose(report.total_cost, plan.total_cost, abs_tol=CENT), (
            report.total_cost,
            plan.total_cost,
        )
        assert plan.cash_out is not None
        assert math.isclose(report.cash_out, plan.cash_out, abs_tol=CENT)
    return plan
