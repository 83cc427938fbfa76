"""Sensitivity sweeps: the same optimiser over many variants of one scenario.

``--vary KEY=START:STOP:POINTS`` becomes a ``VarySpec`` and
``sweep_params.variants`` turns specs into scenarios (a one-way series, a
two-way grid or a tornado); :func:`run_sweep` solves every variant on an
executor and keeps a small ``VariantOutcome`` per variant (``sweep_outcomes``);
``sweep_search`` finds where the chosen fleet changes, and :func:`describe_flips`
says so in words.

Every variant is a full solve of a ``dataclasses.replace`` of the base
scenario, so a sweep answers with exactly the model ``gpumix solve`` uses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from optimizer.analysis.executors import ProgressBar, open_executor, run_in_order
from optimizer.analysis.sweep_outcomes import PlanSummary, SolveFn, VariantOutcome, solve_summary
from optimizer.analysis.sweep_params import (
    SpecKind,
    SweepMode,
    VarySpec,
    apply_setting,
    base_value,
    sweep_mode,
    variants,
)
from optimizer.analysis.sweep_search import Flip, find_flips, refine_flips
from optimizer.currency import USD, money_text
from optimizer.domain import OfferOption, Scenario
from optimizer.results import SolverSettings, SolveStatus
from optimizer.solve.budget import NO_LIMIT, Budget
from optimizer.solve.solver import solve_scenario


@dataclass(frozen=True)
class SweepResult:
    base_name: str
    specs: tuple[VarySpec, ...]
    mode: SweepMode
    outcomes: tuple[VariantOutcome, ...]
    flips: tuple[Flip, ...] = ()
    base_values: dict[str, float | None] = field(default_factory=dict)  # each spec in the base
    currency: str = USD  # the base scenario's: the label of every money figure (model v2 §E)
    # Changes of plan next to a plan stopped early: not reported as flips, only counted.
    unproven: tuple[Flip, ...] = ()

    def spec(self, key: str) -> VarySpec:
        for spec in self.specs:
            if spec.key == key:
                return spec
        raise KeyError(key)


def run_sweep(
    base: Scenario,
    specs: Sequence[VarySpec],
    settings: SolverSettings,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    solve: SolveFn = solve_scenario,
    *,
    tornado: bool | None = None,
    refine_steps: int = 6,
    budget: Budget | None = None,
) -> SweepResult:
    """Solve every variant and find where the fleet flips.

    Runs on local spawn processes (``jobs``; 1 = this process), or on the
    Dask cluster at ``scheduler``; each solve uses one solver thread, since
    the parallelism is across variants. Results come back in variant order.
    For one-way sweeps and tornados, each flip is then narrowed by
    ``refine_steps`` rounds of bisection (each round halves every bracket,
    with all brackets' midpoints solved together); 0 keeps the grid's brackets.
    ``solve`` is a parameter so that tests can stand in for the solver.
    ``budget`` (the command's ``--time-limit``) is shared out: the grid gets
    :data:`GRID_SHARE` of it (all of it when nothing is refined), each
    bisection round an equal part of the rest.
    """
    mode = sweep_mode(specs, tornado)
    todo = variants(base, specs, tornado)
    worker_settings = replace(settings, threads=1, progress=False)
    budget = budget or NO_LIMIT
    refining = refine_steps > 0 and mode is not SweepMode.GRID
    # With --time-limit: the grid's variants side by side, in waves of one per
    # worker, each wave an equal part of the grid's share; bisection gets the rest.
    grid = budget.settings(
        worker_settings, (GRID_SHARE if refining else 1.0) / _waves(len(todo), jobs, scheduler)
    )
    bar = ProgressBar(len(todo)) if progress else None
    with open_executor(jobs, scheduler, tasks=len(todo)) as executor:
        summaries = run_in_order(
            executor, solve_summary, [(solve, v.scenario, grid) for v in todo], bar
        )
        outcomes = tuple(
            VariantOutcome(v.index, v.setting, s) for v, s in zip(todo, summaries, strict=True)
        )
        found = find_flips(outcomes, specs, mode)
        flips = [f for f in found if f.proven]
        unproven = tuple(f for f in found if not f.proven)
        if refining and flips and not budget.spent():
            by_key = {s.key: s for s in specs}
            rounds = ProgressBar(refine_steps, label="refine") if progress else None
            left = [refine_steps]

            def solve_points(points: Sequence[tuple[str, float]]) -> list[PlanSummary]:
                share = 1 / (max(1, left[0]) * _waves(len(points), jobs, scheduler))
                left[0] -= 1
                each = budget.settings(worker_settings, share)
                jobs_args = [(solve, apply_setting(base, by_key, (p,)), each) for p in points]
                summaries = run_in_order(executor, solve_summary, jobs_args)
                if rounds is not None:
                    rounds.advance()
                return summaries

            flips = refine_flips(flips, specs, solve_points, refine_steps)
            if rounds is not None:
                rounds.finish()
    return SweepResult(
        base_name=base.name,
        specs=tuple(specs),
        mode=mode,
        outcomes=outcomes,
        flips=tuple(flips),
        base_values={s.key: base_value(base, s) for s in specs},
        currency=base.assumptions.currency,
        unproven=unproven,
    )


# With --time-limit, the grid's share of the budget when flips are refined after it.
GRID_SHARE = 0.6


def _waves(tasks: int, jobs: int | None, scheduler: str | None) -> int:
    """How many rounds ``tasks`` solves take on the workers ``open_executor`` starts."""
    import multiprocessing

    if scheduler is not None:
        return 1  # a cluster: assume a worker per task
    workers = jobs if jobs is not None else (multiprocessing.cpu_count() or 1)
    return max(1, -(-tasks // max(1, min(workers, tasks))))


def describe_flips(result: SweepResult) -> list[str]:
    """The points where the chosen fleet changes, in words, in sweep order."""
    unproven = _unproven_sentence(result)
    if not result.flips:
        if result.outcomes and not unproven:
            regimes = {o.summary.regime for o in result.outcomes}
            if len(regimes) == 1:
                return [f"the plan is the same at every point: {next(iter(regimes)).describe()}"]
        return unproven
    return [*(_describe_flip(result, flip) for flip in result.flips), *unproven]


def _unproven_sentence(result: SweepResult) -> list[str]:
    """Changes of plan beside a plan stopped early are counted, not reported as findings."""
    if not result.unproven:
        return []
    gaps = [o.summary.gap for o in result.outcomes if o.summary.status is SolveStatus.TIME_LIMIT]
    known = [g for g in gaps if g is not None]
    widest = f", gaps up to {max(known):.2%}" if known else ""
    n = len(result.unproven)
    changes = "change of plan" if n == 1 else "changes of plan"
    return [
        f"{n} {changes} between points whose plans were stopped early ({len(gaps)} of "
        f"{len(result.outcomes)} points{widest}) not reported: a difference inside the plans' "
        "gaps is not proven; raise --time-limit to settle them"
    ]


def _describe_flip(result: SweepResult, flip: Flip) -> str:
    spec = result.spec(flip.key)
    resolution = flip.precision if flip.refined else None
    low = _format_value(spec, flip.low, result.currency, resolution)
    high = _format_value(spec, flip.high, result.currency, resolution)
    change = flip.before.change_to(flip.after)
    context = ""
    if flip.fixed:
        fixed = ", ".join(
            f"{_label(result.spec(k))} {_format_value(result.spec(k), v, result.currency)}"
            for k, v in flip.fixed
        )
        context = f"with {fixed}, "
    if flip.refined:
        point = _format_value(spec, flip.point, result.currency, resolution)
        plus_minus = f"± {_format_value(spec, flip.precision, result.currency, resolution)}"
        threshold = f"{point} ({plus_minus})"
    else:
        # The grid only brackets the flip: saying a midpoint would claim a precision it lacks.
        threshold = f"a value between {low} and {high}"
    lead = _buying_phrase(spec, flip, threshold)
    if not lead:
        sentence = f"between {_label(spec)} {low} and {high} {change}"
        if flip.refined:
            sentence += f" (flip at {point} {plus_minus})"
        return context + sentence
    if flip.refined:
        return f"{context}{lead}: between {low} and {high} {change}"
    return f"{context}{lead}: there {change}"


def _buying_phrase(spec: VarySpec, flip: Flip, threshold: str) -> str:
    """'buying H100 stops paying when its on-demand price falls below <threshold>', where
    that is what happened: a GPU type bought on one side of the flip and not on the other."""
    if not (flip.before.status.has_plan and flip.after.status.has_plan):
        return ""
    bought_before, bought_after = dict(flip.before.bought), dict(flip.after.bought)
    phrases = []
    for gpu in sorted(set(bought_before) ^ set(bought_after)):
        # Bought above the flip: buying stops paying as the value falls below it.
        direction = "falls below" if gpu in bought_after else "rises above"
        phrases.append(
            f"buying {gpu} stops paying when {_quantity(spec, gpu)} {direction} {threshold}"
        )
    return "; ".join(phrases)


def _price_noun(spec: VarySpec) -> str:
    assert spec.option is not None  # price kinds carry an option
    noun = "price" if spec.kind is SpecKind.PRICE else "price factor"
    return f"{spec.option.price_words} {noun}"


def _quantity(spec: VarySpec, gpu: str) -> str:
    """The parameter as the subject of 'buying <gpu> stops paying when ...'."""
    if spec.kind in (SpecKind.PRICE, SpecKind.PRICE_FACTOR):
        whose = "its" if spec.gpu == gpu else f"the {spec.gpu}"
        return f"{whose} {_price_noun(spec)}"
    return spec.key


def _label(spec: VarySpec) -> str:
    if spec.kind in (SpecKind.PRICE, SpecKind.PRICE_FACTOR):
        return f"the {spec.gpu} {_price_noun(spec)}"
    return spec.key


def _format_value(
    spec: VarySpec, value: float, currency: str, resolution: float | None = None
) -> str:
    """A value as a reader wants it: money in ``currency``, with enough digits to show
    ``resolution`` (a refined flip's precision) when one is given."""
    digits = None
    if resolution is not None and resolution > 0:
        digits = max(0, -math.floor(math.log10(resolution)))
    is_hourly_price = spec.kind is SpecKind.PRICE and spec.option is not OfferOption.BUY
    if is_hourly_price:
        return f"{money_text(value, currency, max(2, digits or 0))}/h"
    if spec.kind is SpecKind.PRICE or spec.key in (
        "budget_total",
        "budget_capex",
        "budget_monthly",
    ):
        return money_text(value, currency, digits or 0)
    if spec.is_integer or digits is None:
        return f"{value:g}"
    return f"{value:.{digits}f}"
