"""Build the planning MILP (``model.md``, v2 §A–§D) from a scenario and its pair estimates.

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
* Optionally (``serving_hull=True``; off by default, as it measured mixed on
  HiGHS: docs/performance.md), the convex hull of each serving month's whole
  replica counts by capacity: a convex combination of its minimal covers
  (:func:`define_serving_hull_constraints`). Exact, and a tighter relaxation.
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
* Work runs in places (model v2 §A): the house of a type, each reserved
  offer, each rental offer. Serving replicas are whole and pinned per place
  and width (``rep``); training and batch work are hours per place
  (``work``); a finite place's GPUs are split between pinned replicas,
  slots of each copy width (``slots``) and width-1 work on what is left
  (``place_capacity``, ``slot_hours``, ``free_hours``). A gang that cannot
  fit a capped place gets no variable there. Deadline gangs of several
  copies get the only binaries of these rules, and only in finite places
  (``deadline_slots``). Rented hours are tied to the work and replicas on
  each offer by one ``rental_hours`` row.
* Every cost is a precomputed coefficient (discounting included), so the
  objective is one expression built in bulk.
* An offer dominated by an uncapped offer of the same GPU type and option
  (price no higher, available no later, same term) is left out: anything it
  could do the dominating offer does at no higher cost, and it removes
  symmetric choices from the search.
* One-off training jobs may spread their work over the months and places
  of their window; a per-month link to ``pick`` is implied by the job's
  total row and nonnegativity, so it is not added. Recurring runs and batch
  inference do their runs in every month, across types and places.

LP names are built from the family and integer positions (``gpus``,
``workloads``, ``offers`` order of the scenario), never from user text, and
are checked for collisions.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

import pulp

from optimizer.domain import Kind, Offer, OfferOption, Scenario
from optimizer.errors import InputError, Problem
from optimizer.model.built import BuiltModel, _merge
from optimizer.model.costs import dominated_offers, usable_estimate
from optimizer.model.families.budgets import define_budgets_constraints
from optimizer.model.families.deadline_slots import define_deadline_slots_constraints
from optimizer.model.families.free_hours import define_free_hours_constraints
from optimizer.model.families.moves import define_moves_constraints
from optimizer.model.families.place_capacity import define_place_capacity_constraints
from optimizer.model.families.power import define_power_constraints
from optimizer.model.families.realtime_demand import define_realtime_demand_constraints
from optimizer.model.families.recurring_demand import define_recurring_demand_constraints
from optimizer.model.families.rental_hours import define_rental_hours_constraints
from optimizer.model.families.servers import define_servers_constraints
from optimizer.model.families.serving_hull import define_serving_hull_constraints
from optimizer.model.families.slot_hours import define_slot_hours_constraints
from optimizer.model.families.stock import define_stock_constraints
from optimizer.model.families.training_demand import define_training_demand_constraints
from optimizer.model.objective import objective_terms
from optimizer.model.places import pair_figures, places_of
from optimizer.model.variables import _define_variables
from optimizer.results import PairEstimate

# Constraint families, in the order rows are added. Each has a module
# ``optimizer/model/families/<family>.py`` defining ``define_<family>_constraints``
# and a golden LP file ``tests/model/golden/<family>.lp``.
FAMILIES: tuple[str, ...] = (
    "training_demand",
    "recurring_demand",
    "realtime_demand",
    "serving_hull",
    "place_capacity",
    "slot_hours",
    "free_hours",
    "deadline_slots",
    "rental_hours",
    "stock",
    "servers",
    "budgets",
    "power",
    "moves",
)

# Whether build_model adds the serving pattern hull by default. Off: exact and
# a tighter relaxation, but measured mixed on HiGHS (docs/performance.md).
SERVING_HULL = False


class BuildTimeLimit(Exception):
    """The time limit passed while the model was being built (before ``step``)."""

    def __init__(self, step: str) -> None:
        super().__init__(step)
        self.step = step


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
    deadline: float | None = None,
    dominated: frozenset[str] | None = None,
    bound_levels_by_use: bool = True,
    serving_hull: bool | None = None,
    charge_moves: bool = True,
) -> BuiltModel:
    """The MILP of ``model.md`` for ``scenario`` (pure: solves nothing).

    ``elastic`` (used by :mod:`optimizer.solve.diagnose` only) adds penalised slack
    to the rows of the named groups and makes the objective the weighted
    total slack instead of the cost. ``deadline`` (a ``time.perf_counter()``
    value) stops the build with :class:`BuildTimeLimit` once passed.
    ``dominated`` (used by the futures solve only) names the offers left out
    as dominated instead of :func:`~optimizer.model.costs.dominated_offers` of
    the scenario's: several futures' models then have the same offers even
    where price factors would prune them differently. ``bound_levels_by_use``
    False leaves the stock levels bounded by ``max_units`` only: the futures
    solve needs it (the most GPUs one future can use does not bound a level
    shared with futures that use more), and the alternatives run faster
    without the bounds. ``serving_hull`` adds the ``serving_hull`` family;
    None (the default) reads :data:`SERVING_HULL` at the call.
    ``charge_moves`` False leaves out the moves family and its charge even where
    ``change_cost`` > 0 (methodology 2.16): the alternatives cap the plan's
    cost, which the charge is not part of.
    """
    T = scenario.horizon_months
    hull = SERVING_HULL if serving_hull is None else serving_hull
    workloads = {w.name: w for w in scenario.workloads}
    usable = {
        (e.workload, e.gpu): e
        for e in estimates
        if e.workload in workloads
        and e.gpu in {g.name for g in scenario.gpus}
        and usable_estimate(e, workloads[e.workload])
    }
    # Months in which some workload can use each type.
    active: dict[str, set[int]] = defaultdict(set)
    for w_name, g_name in usable:
        active[g_name] |= set(workloads[w_name].window(T))

    dropped = dominated_offers(scenario.offers) if dominated is None else dominated
    offers = tuple(o for o in scenario.offers if o.offer_id not in dropped and active.get(o.gpu))
    # What exists is always in the model (model v2 §E): owned GPUs cost money until
    # sold, and a signed reservation is paid whether or not it is used.
    offers += scenario.fleet_offers
    _check_inputs(scenario, offers)

    built = BuiltModel(
        problem=pulp.LpProblem(f"gpumix_{_safe(scenario.name)}", pulp.LpMinimize),
        scenario=scenario,
        estimates=usable,
        offers=offers,
        elastic=frozenset(elastic),
        bound_levels_by_use=bound_levels_by_use,
        charge_moves=charge_moves,
    )
    for o in offers:
        if o.option is OfferOption.BUY:
            built.buy_offers_of[o.gpu].append(o)
        elif o.option is OfferOption.RESERVED:
            built.reserved_offers_of[o.gpu].append(o)
    positions = built.offer_pos
    built.places = {g.name: places_of(g.name, offers, positions) for g in scenario.gpus}
    built.figures = {
        pair: pair_figures(workloads[pair[0]], est, T)
        for pair, est in usable.items()
        if workloads[pair[0]].kind is not Kind.REALTIME_INFERENCE
    }
    steps: tuple[tuple[str, Callable[[BuiltModel], None]], ...] = (
        ("variables", lambda b: _define_variables(b, active)),
        ("training_demand", define_training_demand_constraints),
        ("recurring_demand", define_recurring_demand_constraints),
        ("realtime_demand", define_realtime_demand_constraints),
        ("serving_hull", define_serving_hull_constraints if hull else lambda b: None),
        ("place_capacity", define_place_capacity_constraints),
        ("slot_hours", define_slot_hours_constraints),
        ("free_hours", define_free_hours_constraints),
        ("deadline_slots", define_deadline_slots_constraints),
        ("rental_hours", define_rental_hours_constraints),
        ("stock", define_stock_constraints),
        ("servers", define_servers_constraints),
        ("budgets", define_budgets_constraints),
        ("power", define_power_constraints),
        ("moves", define_moves_constraints),
    )
    for step, define in steps:
        # --time-limit covers building: stop between steps once it is spent.
        if deadline is not None and time.perf_counter() > deadline:
            raise BuildTimeLimit(step)
        define(built)
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
