"""The independent checker: recompute a plan's money and test every rule.

A wrong number in a result is the worst failure gpumix can have, so nothing
here trusts the model. :func:`check_plan` reads the scenario and the plan's
:class:`~optimizer.results.Decisions` only (never PuLP, never the model or
solve modules), recomputes every cost term of model.md from them, checks every
rule of model.md and model-v2.md §A–§D, and then compares what it found with
the numbers the plan reports (total, categories, cash flow per month, fleet,
places and assignment rows, options). Every disagreement becomes one line of
``CheckReport.violations`` that names the rule or item, the value found and
the value expected.

Tolerances: hours and work agree to a relative 1e-6 (solvers round), money to
half a cent (what finance sees).

Shared figures: ``tolerances`` (comparisons, formatting), ``capacity`` (stock,
places and the hours derived from the decisions), ``demand`` (each pair's
gang, serving capacity and useful hours), ``money`` (cash recomputed). Rules,
one family to a module as in the model: ``decisions`` (keys and places, whole
numbers, the stock family), ``place_capacity``, ``slot_hours``,
``free_hours``, ``deadline_slots``, ``serving``, ``training_demand``,
``recurring_demand``, ``limits`` (power, budgets); what the plan says:
``reported``, ``assignments`` and ``moves`` (serving moves and the objective
with ``change_cost``, methodology 2.16). This module keeps :func:`check_plan`, which
runs them all and hands on a :class:`~optimizer.check.check_report.CheckReport`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from optimizer.check.assignments import assignment_violations
from optimizer.check.check_report import CheckReport
from optimizer.check.deadline_slots import deadline_slots_violations
from optimizer.check.decisions import (
    integrality_violations,
    key_violations,
    non_finite_violations,
    offer_violations,
)
from optimizer.check.fleet import fleet_rule_violations
from optimizer.check.free_hours import free_hours_violations
from optimizer.check.limits import budget_violations, power_violations, spent
from optimizer.check.money import (
    cash_flow_of,
    discount_factor,
    discounted_costs,
    residual_credit_of,
)
from optimizer.check.moves import moves_by_workload, moves_violations, objective_of
from optimizer.check.place_capacity import place_capacity_violations
from optimizer.check.recurring_demand import recurring_demand_violations
from optimizer.check.reported import (
    fleet_violations,
    offer_use_violations,
    options_violations,
    place_violations,
    reported_money_violations,
)
from optimizer.check.servers import server_violations
from optimizer.check.serving import serving_violations
from optimizer.check.slot_hours import slot_hours_violations
from optimizer.check.training_demand import training_demand_violations
from optimizer.domain import CostCategory, Scenario
from optimizer.results import Decisions, PairEstimate, Plan


def check_plan(
    scenario: Scenario, plan: Plan, estimates: Sequence[PairEstimate] | None = None
) -> CheckReport:
    """Recompute ``plan``'s costs from its decisions and check every constraint.

    ``estimates`` default to ``optimizer.estimate.pairs.estimate_pairs(scenario)``;
    the plan's ``options`` must equal them.
    """
    if estimates is None:
        # Imported here: the estimator is another stage; the checker only needs
        # its output, and tests may hand estimates in directly.
        from optimizer.estimate.pairs import estimate_pairs

        estimates = estimate_pairs(scenario)
    violations: list[str] = []
    if plan.scenario != scenario:
        violations.append(f"plan is for scenario {plan.scenario.name!r}, not the one checked")
    violations += options_violations(estimates, plan.options)
    decisions = plan.decisions
    if decisions is None:
        violations.append(f"plan has no decisions to check (status {plan.status.value})")
        return CheckReport(0.0, 0.0, 0.0, {c: 0.0 for c in CostCategory}, {}, violations)

    not_numbers = non_finite_violations(decisions)
    if not_numbers:
        # Nothing can be recomputed from a NaN or an infinity: report them alone.
        return CheckReport(
            0.0, 0.0, 0.0, {c: 0.0 for c in CostCategory}, {}, violations + not_numbers
        )
    violations += decision_violations(scenario, decisions, estimates)
    cash = cash_flow_of(scenario, decisions)
    credit = residual_credit_of(scenario, decisions)
    costs = discounted_costs(scenario, cash)
    credit_discounted = credit * discount_factor(
        scenario.assumptions.discount_rate, scenario.horizon_months
    )
    total_cost = sum(costs.values()) - credit_discounted
    cash_out = spent(cash)
    moves = moves_by_workload(scenario, decisions)
    recomputed = CheckReport(
        total_cost=total_cost,
        cash_out=cash_out,
        residual_credit=credit,
        costs=costs,
        cash_flow=cash,
        violations=[],
        residual_credit_discounted=credit_discounted,
        moves=sum(moves.values()),
        objective=objective_of(scenario, total_cost, moves),
    )
    return replace(
        recomputed,
        violations=[
            *violations,
            *budget_violations(scenario, cash),
            *reported_money_violations(recomputed, plan),
            *fleet_violations(scenario, decisions, plan.fleet),
            *place_violations(scenario, decisions, plan.places),
            *assignment_violations(scenario, decisions, estimates, plan.assignments),
            *offer_use_violations(scenario, decisions, plan.offer_use),
            *moves_violations(scenario, decisions, plan),
        ],
    )


def decision_violations(
    scenario: Scenario, decisions: Decisions, estimates: Sequence[PairEstimate]
) -> list[str]:
    """Every rule of model.md and model-v2.md §A–§D that does not involve money."""
    return [
        *key_violations(scenario, decisions, estimates),
        *integrality_violations(decisions),
        *offer_violations(scenario, decisions),
        *place_capacity_violations(scenario, decisions),
        *slot_hours_violations(scenario, decisions, estimates),
        *free_hours_violations(scenario, decisions, estimates),
        *deadline_slots_violations(scenario, decisions, estimates),
        *serving_violations(scenario, decisions, estimates),
        *training_demand_violations(scenario, decisions, estimates),
        *recurring_demand_violations(scenario, decisions, estimates),
        *power_violations(scenario, decisions),
        *server_violations(scenario, decisions),
        *fleet_rule_violations(scenario, decisions),
    ]
