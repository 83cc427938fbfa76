"""Simple alternatives a plan is measured against: rent only, buy only, one GPU type.

Each baseline is the same scenario with fewer choices, solved by the same
engine under the same demand and budgets, so "saving against rent only"
means what finance expects: what the mix saves compared with renting
everything. A baseline that cannot meet the demand (say, buy only under a
small capex budget) is reported as having no plan, never as a zero cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from optimizer.check.tolerances import HALF_CENT
from optimizer.domain import OfferOption, Scenario
from optimizer.results import PairEstimate, Plan, SolverSettings, SolveStatus

RENT_ONLY = "rent only"
BUY_ONLY = "buy only"
BEST_SINGLE_GPU = "best single GPU type"
BASELINE_NAMES = (RENT_ONLY, BUY_ONLY, BEST_SINGLE_GPU)


def rent_only(scenario: Scenario) -> Scenario:
    """No purchases: on-demand, spot and reserved offers only."""
    return replace(
        scenario,
        name=f"{scenario.name} ({RENT_ONLY})",
        allow_buy=False,
        offers=tuple(o for o in scenario.offers if o.option is not OfferOption.BUY),
    )


def buy_only(scenario: Scenario) -> Scenario:
    """Owned GPUs only: no on-demand, spot or reserved offers."""
    return replace(
        scenario,
        name=f"{scenario.name} ({BUY_ONLY})",
        allow_rent=False,
        offers=tuple(o for o in scenario.offers if o.option is OfferOption.BUY),
    )


def single_gpu(scenario: Scenario, gpu: str) -> Scenario:
    """Every GPU type but ``gpu`` excluded, as ``exclude_gpus`` would do: what exists
    (sheet Fleet) stays, so types with Fleet rows keep their GPUs but no offers."""
    others = tuple(g.name for g in scenario.gpus if g.name != gpu)
    kept = {gpu} | {r.gpu for r in scenario.fleet}
    return replace(
        scenario,
        name=f"{scenario.name} (only {gpu})",
        gpus=tuple(g for g in scenario.gpus if g.name in kept),
        offers=tuple(o for o in scenario.offers if o.gpu == gpu),
        measurements=tuple(m for m in scenario.measurements if m.gpu in kept),
        excluded_gpus=(*scenario.excluded_gpus, *others),
    )


def _cheapest(plans: list[Plan]) -> Plan | None:
    """The plan with the least objective (its cost, plus change_cost per move where set)."""
    feasible = [p for p in plans if p.status.has_plan and p.total_cost is not None]
    return min(feasible, key=_cost, default=None)


@dataclass(frozen=True)
class Variant:
    """One restricted scenario a baseline is solved on, and the pair estimates it keeps."""

    baseline: str  # one of BASELINE_NAMES
    scenario: Scenario
    estimates: tuple[PairEstimate, ...]
    gpu: str | None = None  # the one type of a single-type variant


def baseline_variants(
    scenario: Scenario, estimates: Sequence[PairEstimate] | None = None
) -> list[Variant]:
    """Rent only, buy only, then one single-type scenario per GPU type, in the scenario's order.

    Pair estimates depend on GPUs, workloads and assumptions, not on offers:
    they are computed once (or taken from ``estimates``) and cut to each variant's types.
    """
    if estimates is None:
        from optimizer.estimate.pairs import estimate_pairs

        estimates = estimate_pairs(scenario)
    every = tuple(estimates)
    singles = {g.name: single_gpu(scenario, g.name) for g in scenario.gpus}
    return [
        Variant(RENT_ONLY, rent_only(scenario), every),
        Variant(BUY_ONLY, buy_only(scenario), every),
        *(
            Variant(BEST_SINGLE_GPU, only, _only(every, {g.name for g in only.gpus}), gpu)
            for gpu, only in singles.items()
        ),
    ]


def solve_variant(variant: Variant, settings: SolverSettings) -> Plan:
    """One baseline's checked plan (module-level, so that a spawned worker can run it).

    An infeasible baseline is reported by its status alone: the elastic
    re-solves that explain infeasibility are skipped (no sheet shows a
    baseline's reasons, and they cost seconds).
    """
    # Baseline totals reach the Summary as savings, so they are checked like any plan.
    from optimizer.check.verify import solve_and_verify

    return solve_and_verify(variant.scenario, settings, variant.estimates, explain=False)


def known_plan(variant: Variant, optimum: Plan | None) -> Plan | None:
    """The optimum itself as ``variant``'s plan, when it is one; else None (solve it).

    A baseline only takes choices away, so no plan of it is cheaper than the
    optimum's bound: when the optimum's decisions are a plan of the
    restricted scenario (the independent checker finds nothing wrong with
    them there), the optimum is that baseline's answer, with the same status
    and proven gap, and solving it again would find nothing cheaper.
    """
    from optimizer.check.rules import check_plan

    if optimum is None or not optimum.status.has_plan or optimum.decisions is None:
        return None
    note = "the cheapest plan itself: it already keeps to this baseline's restriction"
    plan = _relabelled(variant, optimum, note)
    return None if check_plan(variant.scenario, plan, variant.estimates).violations else plan


def borrowed_plan(variant: Variant, source: Plan, source_name: str) -> Plan | None:
    """Scenario ``source_name``'s plan of the same baseline as ``variant``'s answer, or None.

    Only for a ``variant`` whose model is the source's with rows added or
    bounds tightened (the caller checks: :func:`optimizer.model.restriction.restricts`):
    then no plan of it is cheaper than the source's bound. A source with no
    plan at all (infeasible) means none here either; a source plan the
    independent checker accepts for ``variant`` is its answer, with the
    source's status, gap and bound. Anything else (not solved, or a plan
    that breaks an added limit): None, solve it.
    """
    from optimizer.check.rules import check_plan

    note = (
        f"the {variant.baseline} plan of scenario {source_name}: this scenario's "
        f"{variant.baseline} model is that one's with more limits, and the plan keeps to them"
    )
    if source.status is SolveStatus.INFEASIBLE:
        return replace(source, scenario=variant.scenario, options=variant.estimates)
    if not source.status.has_plan or source.decisions is None:
        return None
    plan = _relabelled(variant, source, note)
    return None if check_plan(variant.scenario, plan, variant.estimates).violations else plan


def _relabelled(variant: Variant, plan: Plan, note: str) -> Plan:
    """``plan``'s decisions as a plan of ``variant``'s scenario (to be checked there)."""
    # Rows of types and offers the variant has not are dropped; the checker
    # then finds any decision that used them.
    gpus = {g.name for g in variant.scenario.gpus}
    offers = {o.offer_id for o in variant.scenario.offers}
    return replace(
        plan,
        scenario=variant.scenario,
        options=variant.estimates,
        fleet=tuple(r for r in plan.fleet if r.gpu in gpus),
        places=tuple(r for r in plan.places if r.gpu in gpus),
        assignments=tuple(r for r in plan.assignments if r.gpu in gpus),
        offer_use=tuple(u for u in plan.offer_use if u.offer_id in offers),
        shadow_prices=(),
        diagnostics=(note,),
    )


def pick_baselines(variants: Sequence[Variant], plans: Sequence[Plan | None]) -> dict[str, Plan]:
    """The three baselines from every variant's plan (same order as ``variants``).

    A single type's plan may be None (not solved) only when it cannot be the
    cheapest: another single type's plan is the proven optimum (see
    :func:`needs_solving`) or costs less than its LP bound (:func:`solve_singles`).
    """
    result: dict[str, Plan] = {}
    singles: list[tuple[str, Plan]] = []
    for variant, plan in zip(variants, plans, strict=True):
        if variant.baseline != BEST_SINGLE_GPU:
            assert plan is not None  # rent and buy only are always solved or known
            result[variant.baseline] = plan
        elif plan is not None:
            singles.append((variant.gpu or "", plan))
    best = _cheapest([p for _, p in singles])
    if best is None and singles:
        reasons = tuple(f"only {name}: {d}" for name, p in singles for d in p.diagnostics)
        best = replace(singles[0][1], diagnostics=reasons)
    if best is not None:
        result[BEST_SINGLE_GPU] = best
    return result


def needs_solving(
    variants: Sequence[Variant], known: Sequence[Plan | None], optimum: Plan | None
) -> list[bool]:
    """Which variants still need a solve, given the plans ``known`` without one.

    When a single type's variant is the optimum itself, proven to half a cent,
    no other single type can be cheaper, so none of them is solved.
    """
    proven = (
        optimum is not None
        and optimum.status is SolveStatus.OPTIMAL
        and optimum.solver is not None
        and optimum.solver.bound is not None
        and optimum.objective is not None
        and optimum.objective - optimum.solver.bound <= HALF_CENT + 1e-9 * abs(optimum.objective)
    )
    single_known = proven and any(
        k is not None for v, k in zip(variants, known, strict=True) if v.baseline == BEST_SINGLE_GPU
    )
    return [
        k is None and not (single_known and v.baseline == BEST_SINGLE_GPU)
        for v, k in zip(variants, known, strict=True)
    ]


def solve_singles(
    variants: Sequence[Variant],
    known: Sequence[Plan | None],
    todo: Sequence[bool],
    solve: Callable[[Variant], Plan],
    bound: Callable[[Variant], float | None],
) -> list[Plan | None]:
    """Plans of the single-type ``variants`` (None: not solved, it cannot be the cheapest).

    Only the cheapest single-type plan is the baseline. Each variant still
    ``todo`` gets its LP bound (``bound``: inf when infeasible, None when not
    known); they are solved in order of bound, and one whose bound is above
    the cheapest plan found so far (or ``known``) is not solved: its own plan
    would cost at least that. Types with an infeasible relaxation are solved
    only while no type has a plan (their reasons are then the baseline's).
    """
    plans: list[Plan | None] = list(known)
    best = min((_cost(p) for p in known if p is not None and p.status.has_plan), default=math.inf)
    bounds = {i: bound(v) for i, v in enumerate(variants) if todo[i]}

    def lowest_first(i: int) -> float:
        found = bounds[i]
        return -math.inf if found is None else found

    order = sorted(bounds, key=lowest_first)
    for i in order:
        lowest = bounds[i]
        if lowest is not None and lowest > best + max(2 * HALF_CENT, 1e-6 * abs(best)):
            continue
        plans[i] = plan = solve(variants[i])
        if plan.status.has_plan:
            best = min(best, _cost(plan))
    return plans


def single_type_bound(variant: Variant, settings: SolverSettings) -> float | None:
    """The LP bound of a variant (:func:`optimizer.solve.lp_bound.lp_bound`)."""
    from optimizer.solve.lp_bound import lp_bound

    return lp_bound(variant.scenario, variant.estimates, settings)


def solve_baselines(
    scenario: Scenario, settings: SolverSettings, optimum: Plan | None = None
) -> dict[str, Plan]:
    """The three baselines' plans, keyed by :data:`BASELINE_NAMES`, one solve after another.

    "best single GPU type" solves once per GPU type and keeps the cheapest
    feasible plan; when no single type can carry every workload it is the
    first type's plan, with every type's reasons in its diagnostics. With
    ``optimum`` (the scenario's own plan), a baseline the optimum already
    keeps to is not solved (:func:`known_plan`).
    """
    variants = baseline_variants(scenario, None if optimum is None else optimum.options)
    known = [known_plan(v, optimum) for v in variants]
    todo = needs_solving(variants, known, optimum)
    plans = [
        solve_variant(v, settings) if solve and v.baseline != BEST_SINGLE_GPU else k
        for v, k, solve in zip(variants, known, todo, strict=True)
    ]
    singles = [i for i, v in enumerate(variants) if v.baseline == BEST_SINGLE_GPU]
    found = solve_singles(
        [variants[i] for i in singles],
        [known[i] for i in singles],
        [todo[i] for i in singles],
        lambda v: solve_variant(v, settings),
        lambda v: single_type_bound(v, settings),
    )
    for i, plan in zip(singles, found, strict=True):
        plans[i] = plan
    return pick_baselines(variants, plans)


def _only(estimates: tuple[PairEstimate, ...], gpus: set[str]) -> tuple[PairEstimate, ...]:
    return tuple(e for e in estimates if e.gpu in gpus)


def best_known(optimum: Plan, baselines: Mapping[str, Plan]) -> Plan:
    """The cheapest plan the run knows: ``optimum``, or a baseline cheaper than it.

    Every baseline is a plan of the same model with fewer choices, so when a
    search stopped early (time limit, Ctrl-C) a baseline can be cheaper than
    the plan it found (an outside audit: a "saving" of -$6,770.74 against
    rent only). Such a baseline is reported as the plan, when the independent
    checker accepts it under the full scenario: its status and gap are
    measured against the full search's proven bound, and its solver name and
    first diagnostic say where it came from. Shadow prices were priced from
    the other plan, so none are kept.
    """
    from optimizer.check.rules import check_plan
    from optimizer.currency import money_text

    # A search that ended without a plan (time limit): any baseline's plan is better.
    # Plans compare by what the search minimised (methodology 2.16: with change_cost
    # > 0, cost plus the charge per move; the solver's bound is of that too).
    cost = optimum.objective if optimum.status.has_plan else None
    if cost is None and optimum.status is SolveStatus.INFEASIBLE:
        return optimum
    cheaper = [
        (name, b)
        for name, b in baselines.items()
        if b.status.has_plan
        and (objective := b.objective) is not None
        and b.decisions is not None
        and (cost is None or objective < cost - HALF_CENT)
    ]
    if not cheaper:
        return optimum
    name, best = min(cheaper, key=lambda item: _cost(item[1]))
    total = best.objective or 0.0
    bound = optimum.solver.bound if optimum.solver is not None else None
    gap = None if bound is None else max(0.0, total - bound) / max(abs(total), 1e-9)
    proven = bound is not None and total - bound <= HALF_CENT + 1e-9 * abs(total)
    currency = optimum.currency
    found = (
        "found none before it stopped"
        if cost is None
        else f"stopped at {money_text(cost, currency)}, dearer than this plan"
    )
    note = (
        f"this plan is the {name} baseline's: the search for the cheapest plan {found}; "
        "proven gap "
        + (f"{gap:.3%}" if gap is not None else "unknown")
        + (
            f" ({_no_plan_below(optimum)} {money_text(bound, currency)})"
            if bound is not None
            else ""
        )
    )
    solver = optimum.solver
    if solver is not None:
        solver = replace(solver, name=f"{solver.name}; plan from the {name} baseline")
    plan = replace(
        best,
        scenario=optimum.scenario,
        options=optimum.options,
        status=SolveStatus.OPTIMAL if proven else SolveStatus.TIME_LIMIT,
        gap=gap,
        solver=solver,
        shadow_prices=(),
        diagnostics=(note, *optimum.diagnostics),
    )
    if check_plan(optimum.scenario, plan, optimum.options).violations:
        return optimum
    return plan


def _cost(plan: Plan) -> float:
    """What the search minimised (``Plan.objective``), infinite without a plan."""
    objective = plan.objective
    return objective if objective is not None else float("inf")


def _no_plan_below(plan: Plan) -> str:
    """The words before a proven bound (of the cost plus change_cost per move where set)."""
    if plan.scenario.assumptions.change_cost <= 0:
        return "no plan can cost less than"
    return "no plan's cost plus change_cost per move is below"
