"""Build the planning MILP of ``model.md`` from a scenario and its pair estimates.

:func:`build_model` is pure: it reads a :class:`Scenario` and the estimates and
returns a :class:`BuiltModel` (the PuLP problem plus typed maps from our keys
to its variables). Nothing here solves; ``optimizer.solve.solver`` does.

The pieces: ``costs`` (PuLP-free cost coefficients and rules), ``built``
(:class:`BuiltModel`, row naming), ``variables``, one module per constraint
family in ``families/`` and ``objective``; this module checks the inputs and
calls them in order.

Design (what makes it small and tight):

* Variables exist only where they can be nonzero: allowed pairs, months in the
  workload's window, offers from ``available_from``, reservations that start
  on or after ``available_from`` and end inside the horizon, spot only for
  interruptible non-realtime work, and capacity only in months where some
  workload can use that GPU type. Purchases stop after a type's last useful
  month and reservations must overlap a useful month (either would only
  add cost); offers of a type no workload can use are left out.
* Realtime rows are tightened without changing any integer solution:
  coefficients capped at the demand, a fewest-replicas row, and a bound of
  the replicas one type would need alone (see
  :func:`define_realtime_demand_constraints`).
* The integers are stock levels, not month-by-month changes: ``owned[o,t]``
  (GPUs bought from offer ``o`` so far) and ``active[o,t]`` (reserved GPUs of
  ``o`` active in month ``t``). Purchases and reservation starts are
  continuous, tied to the levels by one ``stock`` row each month; whole levels
  in every month force whole purchases and starts (their differences), so no
  integer plan is gained or lost. Branching on a level ("own at least 3 from
  month 12 on") cuts the search far deeper than branching on one month's
  purchase. The levels also keep rows short (one term per offer instead of
  one per past month) and turn ``max_units`` of buy and reserved offers into
  variable bounds.
* GPU-hours are pooled per type and month (accounting rule 5): work variables
  per workload meet source variables (owned, reserved, each rented offer) in
  one balance row per type and month. Realtime hours are
  ``replicas * k * H``, substituted directly.
* Every cost is a precomputed coefficient (discounting included), so the
  objective is one expression built in bulk.
* An offer dominated by an uncapped offer of the same GPU type and option
  (price no higher, available no later, same term) is left out: anything it
  could do the dominating offer does at no higher cost, and it removes
  symmetric choices from the search.
* Training jobs may spread their work over the months of their window; the
  per-month linking ``h + e*s <= gh*pick`` is implied by the job's total row
  and nonnegativity, so it is not added.

LP names are built from the family and integer positions (``gpus``,
``workloads``, ``offers`` order of the scenario), never from user text, and
are checked for collisions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import pulp

from optimizer.domain import Offer, OfferOption, Scenario
from optimizer.errors import InputError, Problem
from optimizer.model.built import BuiltModel, _merge
from optimizer.model.costs import dominated_offers, spot_allowed, usable_estimate
from optimizer.model.families.batch_demand import define_batch_demand_constraints
from optimizer.model.families.budgets import define_budgets_constraints
from optimizer.model.families.owned_capacity import define_owned_capacity_constraints
from optimizer.model.families.pool_balance import define_pool_balance_constraints
from optimizer.model.families.power import define_power_constraints
from optimizer.model.families.realtime_demand import define_realtime_demand_constraints
from optimizer.model.families.reserved_capacity import define_reserved_capacity_constraints
from optimizer.model.families.stock import define_stock_constraints
from optimizer.model.families.training_demand import define_training_demand_constraints
from optimizer.model.objective import objective_terms
from optimizer.model.variables import _define_variables
from optimizer.results import PairEstimate

# Constraint families, in the order rows are added. Each has a module
# ``optimizer/model/families/<family>.py`` defining ``define_<family>_constraints``
# and a golden LP file ``tests/model/golden/<family>.lp``.
FAMILIES: tuple[str, ...] = (
    "training_demand",
    "batch_demand",
    "realtime_demand",
    "owned_capacity",
    "reserved_capacity",
    "pool_balance",
    "stock",
    "budgets",
    "power",
)


def _check_inputs(scenario: Scenario, offers: Sequence[Offer]) -> None:
    """Things the model cannot price, which input checks should already have caught."""
    problems = []
    for o in offers:
        gpu = scenario.gpu(o.gpu)
        needs_tdp = (
            scenario.assumptions.electricity_per_kwh > 0 or scenario.power_cap_kw is not None
        )
        if o.option is OfferOption.BUY and gpu.tdp_w is None and needs_tdp:
            problems.append(
                Problem(file="", sheet="GPUs", message=f"{gpu.name} can be bought but has no tdp_w")
            )
        if o.option is OfferOption.RESERVED and not o.term_months:
            problems.append(
                Problem(
                    file="",
                    sheet="Prices",
                    message=f"reserved offer {o.offer_id} has no term_months",
                )
            )
    if problems:
        raise InputError(problems)


def build_model(
    scenario: Scenario,
    estimates: Sequence[PairEstimate],
    *,
    elastic: Iterable[str] = (),
) -> BuiltModel:
    """The MILP of ``model.md`` for ``scenario`` (pure: solves nothing).

    ``elastic`` (used by :mod:`optimizer.solve.diagnose` only) adds penalised slack
    to the rows of the named groups and makes the objective the weighted
    total slack instead of the cost.
    """
    T = scenario.horizon_months
    workloads = {w.name: w for w in scenario.workloads}
    usable = {
        (e.workload, e.gpu): e
        for e in estimates
        if e.workload in workloads
        and e.gpu in {g.name for g in scenario.gpus}
        and usable_estimate(e, workloads[e.workload])
    }
    # Months in which some workload can use each type (all work / spot work).
    active: dict[str, set[int]] = defaultdict(set)
    spot_active: dict[str, set[int]] = defaultdict(set)
    for w_name, g_name in usable:
        w = workloads[w_name]
        months = set(w.window(T))
        active[g_name] |= months
        if spot_allowed(w):
            spot_active[g_name] |= months

    dropped = dominated_offers(scenario.offers)
    offers = tuple(o for o in scenario.offers if o.offer_id not in dropped and active.get(o.gpu))
    _check_inputs(scenario, offers)

    built = BuiltModel(
        problem=pulp.LpProblem(f"gpumix_{_safe(scenario.name)}", pulp.LpMinimize),
        scenario=scenario,
        estimates=usable,
        offers=offers,
        elastic=frozenset(elastic),
    )
    for o in offers:
        if o.option is OfferOption.BUY:
            built.buy_offers_of[o.gpu].append(o)
        elif o.option is OfferOption.RESERVED:
            built.reserved_offers_of[o.gpu].append(o)
    _define_variables(built, active, spot_active)
    define_training_demand_constraints(built)
    define_batch_demand_constraints(built)
    define_realtime_demand_constraints(built)
    define_owned_capacity_constraints(built)
    define_reserved_capacity_constraints(built)
    define_pool_balance_constraints(built)
    define_stock_constraints(built)
    define_budgets_constraints(built)
    define_power_constraints(built)
    if built.elastic:
        built.problem.setObjective(
            pulp.LpAffineExpression(
                [(var, built.shortfall_weights[key]) for key, var in built.shortfalls.items()]
            )
        )
    else:
        built.problem.setObjective(pulp.LpAffineExpression(_merge(objective_terms(built))))
    return built


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text)[:40] or "scenario"
