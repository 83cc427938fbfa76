"""``gpumix solve``'s whole job: every scenario's plan, then its baselines and shadow prices.

The plans are solved as before (``auto``: one after another in this process,
each racing HiGHS and SCIP on two cores; another solver: side by side in
worker processes). Each plan's extras are independent solves of restricted
or relaxed copies of its scenario (:mod:`optimizer.check.baselines`,
:mod:`optimizer.solve.shadow`); they go to a pool of spawned workers, one
solver thread each, longest first, side by side with each other. With
``auto`` the plans are raced first, alone on the cores as before (a race's
winner, and so which of two equally cheap plans is shown, can depend on
timing, and workers beside it would change the timing); with another
solver each plan's extras go to the pool as soon as the plan is known.
Workers get data (scenarios, estimates, a plan's variable values), never a
PuLP model.

What is not solved at all: a baseline that the plan already keeps to (its
answer is the plan: :func:`optimizer.check.baselines.known_plan`), and why
an infeasible baseline is infeasible (no sheet shows it). Every shadow-price
solve is handed the plan's values as a first plan (raising a limit keeps
the plan feasible); HiGHS starts from it (tight-capex on the example: 4.2 ->
2.8 CPU-seconds), SCIP, which ``auto`` runs here, does not take it (given
it, the same solve took 3.5 s instead of 1.8 s). Every baseline still
passes the independent checker.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor, Future, as_completed
from dataclasses import dataclass, field, replace
from typing import Any

from optimizer.domain import Scenario
from optimizer.errors import terminal_text
from optimizer.results import Plan, SolverSettings
from optimizer.solve.budget import Budget


def say(quiet: bool, text: str) -> None:
    """Progress for people goes to stderr, so stdout stays clean for --json and pipes."""
    if not quiet:
        print(terminal_text(text), file=sys.stderr, flush=True)


def solve_plan(
    scenario: Scenario, settings: SolverSettings, quiet: bool
) -> tuple[Plan, dict[str, float]]:
    """One scenario's checked plan with its warnings, and its variable values by name.

    Module-level, so that a spawned worker can run it. The values are a
    first plan for the shadow-price solves (empty when there is no plan).
    """
    from optimizer.check.verify import solve_and_verify
    from optimizer.currency import money_text
    from optimizer.inputs.futures.notes import futures_notes
    from optimizer.inputs.price_warnings import scenario_warnings

    values: dict[str, float] = {}

    def keep_values(built: Any) -> None:
        values.update(
            {v.name: float(v.varValue) for v in built.problem.variables() if v.varValue is not None}
        )

    say(quiet, f"solving {scenario.name} ...")
    plan = solve_and_verify(scenario, settings, on_solved=keep_values)
    warnings = [*scenario_warnings(scenario), *futures_notes(scenario)]
    if warnings:
        plan = replace(plan, diagnostics=(*warnings, *plan.diagnostics))
    seconds = plan.solver.seconds if plan.solver else 0.0
    money = (
        f", total {money_text(plan.total_cost, plan.currency)}"
        if plan.total_cost is not None
        else ""
    )
    say(quiet, f"  {scenario.name}: {plan.status.value}{money} ({seconds:.1f} s)")
    return plan, values


@dataclass
class Extras:
    """One scenario's extras in flight: the futures of its baseline and shadow solves."""

    plan: Plan
    variants: list[Any] = field(default_factory=list)
    baselines: list[Plan | Future[Plan] | None] = field(default_factory=list)
    limits: list[Any] = field(default_factory=list)
    raised: list[Future[Plan]] = field(default_factory=list)
    singles: list[int] = field(default_factory=list)  # indices of the single-type variants
    single_plans: Future[list[Plan | None]] | None = None  # their plans, one task
    # Baselines not solved here: another scenario's plan of the same baseline, whose
    # model this one's restricts (index -> that plan, its scenario's name); and what
    # a fallback solve needs when that plan is no answer here.
    borrowed: dict[int, tuple[Future[Plan] | Plan, str]] = field(default_factory=dict)
    settings: SolverSettings | None = None
    deadline: float | None = None


# Baselines are shared between scenarios only where building a model is quick: the
# parent builds each rent-only and buy-only model once more to compare them.
SHARE_BUILD_S = 2.0


@dataclass
class SharedBaselines:
    """The rent-only and buy-only baselines submitted so far in a run, with their models' shapes.

    A later scenario's baseline whose model is one of these with more limits
    (:func:`optimizer.model.restriction.restricts`: a capex budget adds a row
    to the rent-only model, a power price for owned GPUs changes nothing there)
    borrows that plan instead of a solve of its own
    (:func:`optimizer.check.baselines.borrowed_plan`).
    """

    seen: list[tuple[str, str, Any, Future[Plan] | Plan]] = field(default_factory=list)

    def shape(self, variant: Any) -> Any:
        from optimizer.model.build import build_model
        from optimizer.model.restriction import model_shape

        return model_shape(build_model(variant.scenario, variant.estimates).problem)

    def source_for(self, variant: Any, shape: Any) -> tuple[Future[Plan] | Plan, str] | None:
        from optimizer.model.restriction import restricts

        for baseline, name, other, plan in self.seen:
            if baseline == variant.baseline and restricts(shape, other):
                return plan, name
        return None


# Without --time-limit the extras together get as long as the plans took, and at least this.
EXTRAS_AT_LEAST_S = 5.0
# With --time-limit the plans get this share of the budget; the extras what the plans leave.
PLANS_SHARE = 0.75


def _out_of_time(scenario: Scenario, part: str) -> Plan:
    from optimizer.results import SolveStatus
    from optimizer.solve.interrupt import STOPPED_BY_USER, stop_requested

    why = STOPPED_BY_USER if stop_requested() else "the time budget was spent"
    return Plan.without_plan(scenario, SolveStatus.ERROR, (), (f"{part} not solved: {why}",), None)


def variant_before(deadline: float | None, variant: Any, settings: SolverSettings) -> Plan:
    """A baseline's plan within what is left until ``deadline`` (``time.monotonic()``; None:
    no limit).

    Module-level, so that a spawned worker can run it: a worker reads the
    same clock, so a solve that waited in the queue gets only what is left.
    """
    from optimizer.check.baselines import solve_variant
    from optimizer.solve.budget import Budget

    budget = Budget(None, deadline)
    if budget.spent():
        return _out_of_time(variant.scenario, "baseline")
    return solve_variant(variant, budget.settings(settings))


def singles_before(
    deadline: float | None,
    variants: Any,
    known: Any,
    todo: Any,
    settings: SolverSettings,
) -> list[Plan | None]:
    """The single-type baselines' plans, cheapest LP bound first, the hopeless ones skipped
    (:func:`optimizer.check.baselines.solve_singles`), one worker, within ``deadline``."""
    from optimizer.check.baselines import single_type_bound, solve_singles
    from optimizer.solve.budget import Budget

    def solve(variant: Any) -> Plan:
        return variant_before(deadline, variant, settings)

    def bound(variant: Any) -> float | None:
        budget = Budget(None, deadline)
        return None if budget.spent() else single_type_bound(variant, budget.settings(settings))

    return solve_singles(variants, known, todo, solve, bound)


def raised_before(
    deadline: float | None, limit: Any, settings: SolverSettings, estimates: Any, start: Any
) -> Plan:
    """A shadow price's re-solve within what is left until ``deadline`` (as :func:`variant_before`)."""
    from optimizer.solve.budget import Budget
    from optimizer.solve.shadow import solve_raised

    budget = Budget(None, deadline)
    if budget.spent():
        return _out_of_time(limit.raised, "shadow price")
    return solve_raised(limit, budget.settings(settings), estimates, start)


def submit_extras(
    pool: Executor,
    plan: Plan,
    start: dict[str, float],
    settings: SolverSettings,
    deadline: float | None = None,
    shared: SharedBaselines | None = None,
) -> Extras:
    """Every solve the plan's extras need: rent only, the single types, buy only, the shadow prices."""
    from optimizer.check.baselines import (
        BEST_SINGLE_GPU,
        BUY_ONLY,
        RENT_ONLY,
        baseline_variants,
        known_plan,
        needs_solving,
    )
    from optimizer.solve.shadow import binding_limits

    def variant(i: int) -> Future[Plan]:
        return pool.submit(variant_before, deadline, extras.variants[i], settings)

    def raised(limit: Any) -> Future[Plan]:
        return pool.submit(raised_before, deadline, limit, settings, plan.options, start)

    from optimizer.solve.interrupt import stop_requested

    extras = Extras(plan, settings=settings, deadline=deadline)
    if stop_requested() or not _worth_extras(plan):  # after a Ctrl-C: write what is known
        return extras
    extras.variants = baseline_variants(plan.scenario, plan.options)
    known = [known_plan(v, plan) for v in extras.variants]
    todo = needs_solving(extras.variants, known, plan)
    # Rent only first: the figure page 1 reads most (the saving and the payback
    # month) and a short solve (0.4-0.7 s on the example), so a deadline never
    # leaves it out; then the single types (a few LP bounds and one or two
    # solves: 0.3 s on the example, 4 s on the company workbook), so that a
    # deadline does not leave them behind the longest solve; then buy only
    # (4-28 s), the shadow prices.
    (rent,) = [i for i, v in enumerate(extras.variants) if v.baseline == RENT_ONLY]
    (buy,) = [i for i, v in enumerate(extras.variants) if v.baseline == BUY_ONLY]
    futures: dict[int, Future[Plan]] = {}
    quick = plan.solver is not None and plan.solver.build_seconds <= SHARE_BUILD_S
    sharing = shared if quick else None

    def submit_or_borrow(i: int) -> None:
        """Submit variant ``i``'s solve, unless an earlier scenario's plan may answer it."""
        if sharing is None:
            futures[i] = variant(i)
            return
        one = extras.variants[i]
        shape = sharing.shape(one)
        source = sharing.source_for(one, shape)
        if source is not None:
            extras.borrowed[i] = source
            return
        futures[i] = variant(i)
        sharing.seen.append((one.baseline, plan.name, shape, futures[i]))

    if todo[rent]:
        submit_or_borrow(rent)
    singles = [i for i, v in enumerate(extras.variants) if v.baseline == BEST_SINGLE_GPU]
    if any(todo[i] for i in singles):
        extras.singles = singles
        extras.single_plans = pool.submit(
            singles_before,
            deadline,
            [extras.variants[i] for i in singles],
            [known[i] for i in singles],
            [todo[i] for i in singles],
            settings,
        )
    if todo[buy]:
        submit_or_borrow(buy)
    extras.limits = binding_limits(plan.scenario, plan) if plan.status.has_plan else []
    extras.raised = [raised(limit) for limit in extras.limits]
    extras.baselines = [futures.get(i, k) for i, k in enumerate(known)]
    return extras


def _worth_extras(plan: Plan) -> bool:
    """A plan gets baselines and shadow prices; so does a search that ended without
    one (a time limit, a rejected plan): a baseline's plan is then the best known."""
    from optimizer.results import SolveStatus

    if plan.status.has_plan:
        return True
    return plan.status is SolveStatus.ERROR and plan.solver is not None


def collect_extras(extras: Extras) -> tuple[Plan, dict[str, Plan]]:
    """The plan with its shadow prices, and its baselines; a cheaper baseline is the plan."""
    from optimizer.check.baselines import best_known, pick_baselines
    from optimizer.solve.shadow import prices_from

    plan = extras.plan
    if not extras.variants:
        return plan, {}
    raised = [f.result() for f in extras.raised]
    plan = replace(plan, shadow_prices=prices_from(plan, extras.limits, raised))
    plans = [b.result() if isinstance(b, Future) else b for b in extras.baselines]
    if extras.single_plans is not None:
        for i, single in zip(extras.singles, extras.single_plans.result(), strict=True):
            plans[i] = single
    for i, (source, name) in extras.borrowed.items():
        plans[i] = _borrowed(extras, i, source, name)
    baselines = pick_baselines(extras.variants, plans)
    return best_known(plan, baselines), baselines


def _borrowed(extras: Extras, i: int, source: Future[Plan] | Plan, name: str) -> Plan:
    """Variant ``i``'s plan from scenario ``name``'s, or solved here when that is no answer."""
    from optimizer.check.baselines import borrowed_plan

    variant = extras.variants[i]
    found = source.result() if isinstance(source, Future) else source
    plan = borrowed_plan(variant, found, name)
    if plan is not None:
        return plan
    assert extras.settings is not None
    return variant_before(extras.deadline, variant, extras.settings)


def extra_settings(settings: SolverSettings, jobs: int | None) -> tuple[int, SolverSettings]:
    """How many worker processes solve the extras (``jobs``, default one per usable core), and how.

    In workers each solve gets one solver thread; with ``auto``, SCIP rather
    than a race of two on one thread: on the bundled example SCIP solves the
    extras in fewer CPU-seconds than HiGHS (17 against 19) and it is the
    solver that won most of their races, so where two baseline plans cost
    the same the workbook shows the one the race showed. One worker: this
    process, the solver as the settings say.
    """
    from optimizer.solve.cores import usable_cores

    workers = jobs if jobs is not None else usable_cores()
    if workers == 1:
        return 1, replace(settings, progress=False)
    quiet = replace(settings, progress=False, threads=1)
    return workers, replace(quiet, solver="scip") if settings.solver == "auto" else quiet


def solve_with_extras(
    scenarios: Sequence[Scenario],
    settings: SolverSettings,
    *,
    quiet: bool,
    jobs: int | None,
    budget: Budget | None = None,
) -> tuple[list[Plan], dict[str, dict[str, Plan]]]:
    """Every scenario's plan, shadow prices and baselines (keyed by scenario name).

    ``jobs`` worker processes (default: one per usable core; 1: everything in
    this process, one solve after another). ``auto`` keeps its race for the
    plans, in this process; every other solve gets one solver thread (with
    ``auto``, SCIP).

    ``budget`` (the command's ``--time-limit``): the plans come first and
    get :data:`PLANS_SHARE` of it (each scenario an equal part of what is
    left when it starts); the extras, side by side, get what is left. Without
    a limit the plans are proven, and the extras together get as long as the
    plans took (at least :data:`EXTRAS_AT_LEAST_S`), each stopping with its
    proven gap shown.
    """
    from optimizer.analysis.executors import open_executor
    from optimizer.solve.budget import NO_LIMIT
    from optimizer.solve.small_models import all_small

    budget = budget or NO_LIMIT
    began = time.monotonic()
    workers, extras = extra_settings(settings, jobs)
    plans_here = workers == 1 or settings.solver == "auto"
    one_thread = replace(settings, progress=False, threads=1)
    if plans_here and workers > 1 and len(scenarios) > 1 and all_small(scenarios):
        # Small models: HiGHS alone proves each in seconds, so the scenarios go side
        # by side, one core each, as ``highs`` runs them (optimizer.solve.small_models).
        plans_here = False
        one_thread = replace(one_thread, solver="highs")
    plans_end = budget.until(budget.share(PLANS_SHARE) or 0.0) if budget.seconds else budget
    # A race's winner can depend on timing, so with ``auto`` the plans are
    # raced first, alone on the cores as before, and the pool starts after.
    solved = (
        [
            solve_plan(s, plans_end.settings(settings, 1 / (len(scenarios) - i)), quiet)
            for i, s in enumerate(scenarios)
        ]
        if plans_here
        else []
    )
    if workers > 1:
        say(quiet, f"baselines and shadow prices in {workers} processes ...")
    # One scenario has no other to share a baseline with: no model is built twice.
    shared = SharedBaselines() if len(scenarios) > 1 else None
    with open_executor(jobs=workers) as pool:
        in_flight: list[Extras | None] = [None] * len(scenarios)
        if plans_here:
            deadline = extras_deadline(budget, began, time.monotonic(), len(solved), len(solved))
            for i, (plan, start) in enumerate(solved):
                in_flight[i] = submit_extras(pool, plan, start, extras, deadline, shared)
        else:
            # Side by side: each plan gets the plans' share of the budget.
            plan_settings = plans_end.settings(one_thread)
            futures = {
                pool.submit(solve_plan, s, plan_settings, quiet): i for i, s in enumerate(scenarios)
            }
            deadline = 0.0
            for done, future in enumerate(as_completed(futures), start=1):
                plan, start = future.result()
                now = time.monotonic()
                # Never earlier than an earlier plan's: the estimate only firms up.
                deadline = max(deadline, extras_deadline(budget, began, now, done, len(scenarios)))
                in_flight[futures[future]] = submit_extras(
                    pool, plan, start, extras, deadline, shared
                )
        results = [collect_extras(one) for one in in_flight if one is not None]
    plans = [plan for plan, _ in results]
    baselines = {plan.name: extra for plan, extra in results if extra}
    return plans, baselines


def extras_deadline(budget: Budget, began: float, now: float, done: int, plans: int) -> float:
    """When the extras must stop (``time.monotonic()``), ``done`` of ``plans`` plans known at ``now``.

    With a time limit: the budget's end. Without: the plans' time again after
    the plans (at least :data:`EXTRAS_AT_LEAST_S`). While plans are still
    being solved side by side, their time is estimated from those done so
    far (``done`` plans in ``now - began`` seconds: ``plans`` of them in
    proportion): the first plan's extras would otherwise get only its own
    time, too little for the longer baselines while the other plans hold
    the cores (the example's us-baseline: 2.3 s, against 3.8 s for its
    buy-only baseline alone; on a loaded machine its rent-only baseline was
    never started).
    """
    if budget.deadline is not None:
        return budget.deadline
    plans_seconds = (now - began) * plans / max(1, done)
    return began + plans_seconds + max(EXTRAS_AT_LEAST_S, plans_seconds)
