"""Near-optimal alternatives in the model: the cost cap row and each goal's expression.

Takes a built (cost-minimising) :class:`~optimizer.model.built.BuiltModel`;
:func:`add_cost_cap` adds the row ``total cost <= limit`` (the model's own
objective expression), :func:`goal_terms` adds what a goal needs (a peak
variable and its rows, or a binary per GPU type) and returns the expression
to minimise. Rows are named ``alternatives_<...>`` like every other family.
The goals are defined in :mod:`optimizer.model.goal_names`.
"""

from __future__ import annotations

import pulp

from optimizer.model.built import BuiltModel, Terms, _merge
from optimizer.model.families.budgets import capex_terms, provider_terms
from optimizer.model.goal_names import Goal

FAMILY = "alternatives"


def add_cost_cap(built: BuiltModel, limit: float) -> pulp.LpConstraint:
    """``alternatives_cost``: the objective expression (total cost, USD) <= ``limit``."""
    objective = built.problem.objective
    if objective is None:
        raise ValueError("the model has no objective to cap")
    terms = [(var, float(coef)) for var, coef in objective.items()]
    rhs = limit - float(objective.constant)
    return built.add_row(FAMILY, ("cost",), terms, pulp.LpConstraintLE, rhs)


def goal_terms(built: BuiltModel, goal: Goal) -> Terms:
    """The expression ``goal`` minimises, with any variables and rows it needs added."""
    s = built.scenario
    H = s.assumptions.hours_per_month
    if goal is Goal.LEAST_CAPEX:
        return _merge(capex_terms(built))
    if goal is Goal.LEAST_RENT:
        return _merge(vc for t in s.months for vc in provider_terms(built, t))
    if goal is Goal.MOST_OWNED:
        return _merge(vc for t in s.months for vc in provider_terms(built, t, hours=True))
    if goal is Goal.FEWEST_GPUS:
        # GPUs held in month t: owned + reserved active + rented hours / H (paid
        # hours over H count a reserved GPU as one GPU, as provider_terms' hours do).
        held = {
            t: [
                *(vc for g in s.gpus for vc in built.own_terms(g.name, t)),
                *((v, c / H) for v, c in provider_terms(built, t, hours=True)),
            ]
            for t in s.months
        }
        return _peak(built, "gpus", held)
    if goal is Goal.LEAST_POWER:
        kw = s.assumptions.pue / 1000.0
        draw = {
            t: [
                vc
                for g in s.gpus
                for vc in (
                    *built.own_terms(g.name, t, (g.tdp_w or 0.0) * kw),
                    *built.server_terms(g.name, t, g.node_power_w * kw),
                )
            ]
            for t in s.months
        }
        return _peak(built, "power", draw)
    return _types_used(built)


def goal_start(built: BuiltModel, goal: Goal) -> dict[str, float]:
    """Values for the variables ``goal_terms`` added that keep any plan feasible.

    Every type counted as used (a peak variable is left out: HiGHS completes it).
    """
    if goal is not Goal.FEWEST_TYPES:
        return {}
    gpos = built.gpu_pos
    return {f"uses_g{gpos[g.name]}": 1.0 for g in built.scenario.gpus}


def _peak(built: BuiltModel, name: str, per_month: dict[int, Terms]) -> Terms:
    """A variable ``peak`` >= every month's expression (``alternatives_<name>_t<t>``); minimised."""
    peak = built.problem.add_variable(f"peak_{name}", lowBound=0)
    for t, terms in per_month.items():
        if terms:
            built.add_row(
                FAMILY, (name, f"t{t}"), [*_merge(terms), (peak, -1.0)], pulp.LpConstraintLE, 0.0
            )
    return [(peak, 1.0)]


def _types_used(built: BuiltModel) -> Terms:
    """A binary ``uses[g]`` per GPU type, 1 when any work of that type is done.

    Linked to every variable of work on the type, each with a bound that any
    plan may keep without loss (trimming surplus work lowers no goal and
    raises no cost):
    ``alternatives_types_*``: ``rep <= upBound * uses[g]`` (the replicas one
    width would need alone), ``work <= need / coef * uses[g]`` for recurring
    work (its demand row's right-hand side over its coefficient there) and
    ``pick[w,g] <= uses[g]`` for one-off training. A type held but doing no
    work is not counted; the cheapest plan among those with the fewest types
    (the tie-break solve) holds none, since every GPU held costs money.
    """
    s = built.scenario
    gpos = built.gpu_pos
    uses = {
        g.name: built.problem.add_variable(f"uses_g{gpos[g.name]}", cat=pulp.LpBinary)
        for g in s.gpus
    }
    links: list[tuple[str, pulp.LpVariable, float]] = []
    for (_w, g, _key, _k, _t), var in built.replicas.items():
        if var.upBound is None:
            raise ValueError(f"replica variable {var.name} has no upper bound")
        links.append((g, var, float(var.upBound)))
    for (_w, g), var in built.pick.items():
        links.append((g, var, 1.0))
    recurring = {var.name: (g, var) for (_w, g, _key, _t), var in built.work.items()}
    for name in built.family_rows.get("recurring_demand", ()):
        row = built.problem.get_constraint_by_name(name)
        if row is None:
            continue
        need = -float(row.constant)
        for var, coef in row.items():
            if var.name in recurring and coef > 0:
                links.append((recurring.pop(var.name)[0], var, need / float(coef)))
    for i, (g, var, most) in enumerate(links):
        built.add_row(
            FAMILY,
            ("types", f"g{gpos[g]}", i),
            [(var, 1.0), (uses[g], -most)],
            pulp.LpConstraintLE,
            0.0,
        )
    return [(v, 1.0) for v in uses.values()]
