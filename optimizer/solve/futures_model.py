"""The two-stage MILP of a scenario's futures (issue 19): one model per future, linked.

Takes the futures' plain scenarios (``optimizer.domain.future_scenario``) and
their estimates; hands on a :class:`TwoStage`: one PuLP problem holding every
future's model (variables and rows renamed ``f<k>_<name>``), the objective
``sum_f p_f * cost_f`` and the rows that make the shared decisions equal.

What is shared (months ``1..D``, ``D = decide_by_month``): every purchase,
sale and reservation start, and every server purchase and sale. The rows link
fewer, equivalent variables: the integer stock levels ``owned[o,t]``,
``active[o,t]`` and ``servers[g,t]`` of months ``t <= D`` and the sales
``sell[o,t]``, ``server_sell[g,t]`` of those months. Exact, by the stock rows
(``families/stock.py``, ``families/servers.py``), each future's and the same
in all:

* ``owned[o,t] = owned[o,t-1] + buy[o,t] - sell[o,t]`` (``owned[o,0]`` is the
  Fleet row's count, or 0): equal levels up to ``t`` and equal sales give
  equal purchases ``buy[o,t] = owned[o,t] - owned[o,t-1] + sell[o,t]``, and
  equal purchases and sales give equal levels (by induction from month 1,
  whose start is a fact of every future). A sale at the start of month ``t``
  is a variable of month ``t`` and so linked with it; the sale the plan
  reads after a type's last useful month ``L`` (the whole level of ``L``,
  sold at ``L + 1``) is the level of ``L`` and linked when ``L + 1 <= D``.
* ``active[o,t] = active[o,t-1] + reserve[o,t] - reserve[o,t-term]``: by
  induction on ``t`` the starts ``reserve[o,t]`` (``t <= D``) are equal
  exactly when the levels are (the start ending at ``t`` began earlier).
  An existing reservation's start is fixed by its bounds in every future.
* servers as GPUs: ``servers[g,t] = servers[g,t-1] + server_buy - server_sell``.

Pruning must not differ between futures (a decision pruned in one future's
model would silently be fixed to 0 in all): the offers left out as dominated
are those dominated by the same offer in every future
(:func:`~optimizer.model.costs.jointly_dominated_offers`); what else
:func:`~optimizer.model.build.build_model` prunes depends on workload windows
and pairs, which futures do not change. :func:`shared_names` lists each
future's shared decisions and levels, and :func:`build_two_stage` refuses
futures whose lists differ (an internal error, never silently fixed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pulp

from optimizer.domain import Scenario
from optimizer.errors import SolveError
from optimizer.model.build import build_model
from optimizer.model.built import BuiltModel
from optimizer.model.costs import jointly_dominated_offers
from optimizer.results import PairEstimate


@dataclass
class FutureModel:
    """One future's model inside the two-stage problem."""

    name: str  # the future's name
    probability: float
    scenario: Scenario  # the future's plain scenario
    estimates: tuple[PairEstimate, ...]
    built: BuiltModel  # its variables renamed with ``prefix``
    prefix: str
    cost: pulp.LpAffineExpression  # this future's objective (its renamed variables)


@dataclass
class TwoStage:
    """The two-stage problem and the futures' models inside it."""

    problem: pulp.LpProblem
    futures: list[FutureModel]
    linked: tuple[str, ...]  # shared variables (unprefixed names) linked across futures


def _levels_and_sales(built: BuiltModel, D: int) -> dict[str, pulp.LpVariable]:
    """The variables linked across futures: levels and sales of months ``<= D``."""
    found: dict[str, pulp.LpVariable] = {}
    for table in (built.owned, built.sell, built.active, built.servers, built.server_sell):
        for (_key, t), var in table.items():
            if t <= D:
                found[var.name] = var
    return found


def shared_names(built: BuiltModel, D: int) -> frozenset[str]:
    """Names of every shared decision and level of months ``<= D`` in one future's model."""
    names = set(_levels_and_sales(built, D))
    for table in (built.buy, built.reserve, built.server_buy):
        names |= {var.name for (_key, t), var in table.items() if t <= D}
    return frozenset(names)


def joint_dominated(scenarios: Sequence[Scenario]) -> frozenset[str]:
    """Offers left out in every future's model: dominated by one offer in all of them."""
    return jointly_dominated_offers([s.offers for s in scenarios])


def build_future(
    scenario: Scenario, estimates: Sequence[PairEstimate], dominated: frozenset[str]
) -> BuiltModel:
    """One future's model, pruned like every other future's."""
    # Levels are not bounded by what this future alone can use: a level shared
    # in months 1..D (or fixed from the expected future) may hold GPUs only
    # another future puts to work.
    return build_model(scenario, estimates, dominated=dominated, bound_levels_by_use=False)


def build_replan(
    scenario: Scenario,
    estimates: Sequence[PairEstimate],
    dominated: frozenset[str],
    D: int,
    fixed: Callable[[BuiltModel], dict[str, float]],
) -> BuiltModel:
    """One future's model with its levels and sales of months ``<= D`` fixed (a re-plan).

    ``fixed(built)`` gives the fixed values by name (every linked variable).
    Unlike :func:`build_future`, the levels after month ``D`` keep the
    bounds of what this future can use (``optimizer.model.bounds``), raised
    where the fixed levels need it; the re-plan's optimum is unchanged:

    * owned, per buy offer: at most ``B = max(U, the fixed levels)``. Cut
      every month's level to ``min(level, B)``: the fixed months are at most
      ``B`` and stay as they are, every month still holds what it uses
      (at most ``U``), and the cut GPUs were never used (the bounds'
      argument with ``B`` for ``U``);
    * reserved, per new reservation offer: at most ``2 U`` plus the most GPUs
      the fixed starts hold in a month ``<= D``. In a plan where no free
      term (a start after ``D``) can be dropped, the free terms over a month
      hold at most ``2 U`` (the bounds' argument), and the fixed terms that
      cover a month after ``D`` also cover month ``D``.

    Measured on the bundled example's futures: the three re-plans take half
    the CPU seconds (4.0 against 7.6 s, same optima to the cent).
    """
    built = build_model(scenario, estimates, dominated=dominated)
    values = fixed(built)
    most_owned: dict[str, float] = {}
    for (oid, t), var in built.owned.items():
        if t <= D:
            most_owned[oid] = max(most_owned.get(oid, 0.0), values[var.name])
    most_active: dict[str, float] = {}
    for (oid, t), var in built.active.items():
        if t <= D:
            most_active[oid] = max(most_active.get(oid, 0.0), values[var.name])
    max_units = {o.offer_id: o.max_units for o in built.offers}
    for (oid, t), var in built.owned.items():
        if t > D and var.upBound is not None:
            var.upBound = max(var.upBound, round(most_owned.get(oid, 0.0)))
    for (oid, t), var in built.active.items():
        if t > D and var.upBound is not None and not built.existing_count(oid):
            raised = var.upBound + round(most_active.get(oid, 0.0))
            cap = max_units.get(oid)
            var.upBound = raised if cap is None else min(cap, raised)
    fix_shared(built, D, values, "the expected future")
    return built


def build_two_stage(
    futures: Sequence[tuple[str, float, Scenario, tuple[PairEstimate, ...]]],
    decide_by_month: int,
    dominated: frozenset[str],
) -> TwoStage:
    """Every future's model in one problem, shared decisions linked, expected cost minimised.

    ``futures``: (name, probability, scenario, estimates) per future.
    Raises :class:`SolveError` when the futures' models do not have the same
    shared variables.
    """
    D = decide_by_month
    problem = pulp.LpProblem("gpumix_futures", pulp.LpMinimize)
    models: list[FutureModel] = []
    objective: list[tuple[pulp.LpVariable, float]] = []
    first_shared: frozenset[str] | None = None
    first_links: dict[str, pulp.LpVariable] = {}
    linked: tuple[str, ...] = ()
    for k, (name, probability, scenario, estimates) in enumerate(futures):
        built = build_future(scenario, estimates, dominated)
        shared = shared_names(built, D)
        links = _levels_and_sales(built, D)
        if first_shared is None:
            first_shared, first_links = shared, links
            linked = tuple(sorted(links))
        elif shared != first_shared:
            only_here = sorted(shared - first_shared)[:5]
            only_first = sorted(first_shared - shared)[:5]
            raise SolveError(
                f"internal error: future {name!r} has other shared decisions than "
                f"{futures[0][0]!r} (only here: {only_here}; only there: {only_first})"
            )
        prefix = f"f{k}_"
        cost = built.problem.objective
        for var in built.problem.variables():
            var.name = prefix + var.name
        for row in built.problem.constraints():
            problem.addConstraint(row, name=prefix + row.name)
        objective += [(var, probability * coef) for var, coef in cost.items()]
        if k:
            for lp_name, var in sorted(links.items()):
                first = first_links[lp_name]
                problem.addConstraint(
                    pulp.LpConstraint(
                        pulp.LpAffineExpression([(var, 1.0), (first, -1.0)]),
                        pulp.LpConstraintEQ,
                        f"link_{prefix}{lp_name}",
                        0.0,
                    )
                )
        models.append(FutureModel(name, probability, scenario, estimates, built, prefix, cost))
    constant = sum(m.probability * m.cost.constant for m in models)
    problem.setObjective(pulp.LpAffineExpression(objective, constant=constant))
    return TwoStage(problem, models, linked)


def add_cost_cap(two: TwoStage, k: int, cap: float) -> None:
    """Future ``k``'s cost (its model's objective) at most ``cap`` (a regret bound)."""
    m = two.futures[k]
    two.problem.addConstraint(
        pulp.LpConstraint(
            pulp.LpAffineExpression(list(m.cost.items())),
            pulp.LpConstraintLE,
            f"regret_{m.prefix}cap",
            cap - m.cost.constant,
        )
    )


def fix_shared(built: BuiltModel, D: int, values: dict[str, float], source: str) -> None:
    """Fix a future's shared levels and sales (months ``<= D``) to ``values`` by name.

    ``values`` hold every linked variable of the plan the decisions come
    from (``source`` names it in the error when a name is missing).
    """
    links = _levels_and_sales(built, D)
    if set(links) != set(values):
        raise SolveError(
            f"internal error: the shared decisions of {source} do not match the model of "
            f"{built.scenario.name!r}"
        )
    for lp_name, var in links.items():
        value = float(round(values[lp_name]))
        var.lowBound = value
        var.upBound = value


def linked_values(built: BuiltModel, D: int) -> dict[str, float]:
    """The solved values of a model's linked variables (levels and sales of months ``<= D``)."""
    return {name: float(var.varValue or 0.0) for name, var in _levels_and_sales(built, D).items()}
