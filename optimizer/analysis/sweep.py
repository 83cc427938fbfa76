"""Sensitivity sweeps: the same optimiser over many variants of one scenario.

``--vary KEY=START:STOP:POINTS`` becomes a :class:`VarySpec`;
:func:`variants` turns specs into scenarios (a one-way series, a two-way grid
or a tornado); :func:`run_sweep` solves every variant on an executor and
keeps a small :class:`VariantOutcome` per variant; :func:`find_flips` finds
where the chosen fleet changes, and :func:`describe_flips` says so in words.

Every variant is a full solve of a ``dataclasses.replace`` of the base
scenario, so a sweep answers with exactly the model ``gpumix solve`` uses.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import pairwise, product
from typing import Any

from optimizer.analysis.executors import ProgressBar, open_executor, run_in_order
from optimizer.domain import CostCategory, OfferOption, Scenario
from optimizer.errors import InputError, Problem
from optimizer.inputs.schema import ASSUMPTION_KEYS
from optimizer.results import Plan, SolverSettings, SolveStatus
from optimizer.solve.solver import solve_scenario

SolveFn = Callable[[Scenario, SolverSettings], Plan]

# Scenario fields a sweep may set, beside the Assumptions keys and prices.
LIMIT_KEYS = ("budget_total", "budget_capex", "budget_monthly", "power_cap_kw")
HORIZON_KEY = "horizon_months"
PRICE_PREFIX = "price"
PRICE_FACTOR_PREFIX = "price_factor"

# Hours and dollars below this are rounding noise of the solver, not a choice.
_NOISE = 1e-6
_EXPECTED_KEYS = (
    "an Assumptions key, horizon_months, budget_total, budget_capex, budget_monthly, "
    "power_cap_kw, price:GPU:OPTION or price_factor:GPU:OPTION"
)
_EXPECTED_FORM = "KEY=START:STOP:POINTS, e.g. electricity_per_kwh=0.10:0.30:5"


class SpecKind(StrEnum):
    """What a --vary argument changes in the scenario."""

    ASSUMPTION = "assumption"
    HORIZON = "horizon"
    LIMIT = "limit"  # a budget or the power cap
    PRICE = "price"  # a new price for every offer of one GPU type and option
    PRICE_FACTOR = "price_factor"  # a multiplier on those offers' prices


class SweepMode(StrEnum):
    ONE_WAY = "one_way"  # one parameter
    GRID = "grid"  # every combination of the parameters' points
    TORNADO = "tornado"  # each parameter varied alone around the base


@dataclass(frozen=True)
class VarySpec:
    """One parsed ``--vary`` argument: a parameter and the points it takes."""

    text: str  # the argument as given, for messages
    key: str  # e.g. "electricity_per_kwh", "price:H100:on_demand"
    kind: SpecKind
    values: tuple[float, ...]
    gpu: str | None = None  # price kinds only
    option: OfferOption | None = None  # price kinds only

    @property
    def is_integer(self) -> bool:
        return self.kind is SpecKind.HORIZON

    @property
    def is_bool(self) -> bool:
        return self.kind is SpecKind.ASSUMPTION and isinstance(
            ASSUMPTION_KEYS[self.key].default, bool
        )


Setting = tuple[tuple[str, float], ...]  # (spec key, value) for each varied parameter


@dataclass(frozen=True)
class Variant:
    """One scenario of a sweep; ``setting`` is empty for the unchanged base."""

    index: int
    setting: Setting
    scenario: Scenario


@dataclass(frozen=True)
class FleetSignature:
    """What a plan chose, per GPU type, in a few numbers (all over the horizon).

    Each tuple is sorted by GPU name and holds only the types with a non-zero
    figure: GPUs bought, the most reserved GPUs active in any month, paid
    on-demand hours, paid spot hours.
    """

    bought: tuple[tuple[str, int], ...] = ()
    reserved: tuple[tuple[str, int], ...] = ()
    rented_hours: tuple[tuple[str, float], ...] = ()
    spot_hours: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Regime:
    """The shape of a plan, without hours: two plans with one regime are the
    same decision (what to buy, what to reserve, what to rent), at most
    differently sized rentals. A change of regime is a flip."""

    status: SolveStatus
    bought: tuple[tuple[str, int], ...] = ()
    reserved: tuple[tuple[str, int], ...] = ()
    rented: tuple[str, ...] = ()
    spot: tuple[str, ...] = ()

    def describe(self) -> str:
        if not self.status.has_plan:
            return f"no plan ({self.status.value})"
        # One clause per option, types grouped: "buying 9 RTX 4090 and 2 H100; renting
        # H100 on demand" reads unambiguously where a flat list of types would not.
        parts = []
        if self.bought:
            parts.append("buying " + _and([f"{n} {g}" for g, n in self.bought]))
        if self.reserved:
            parts.append("reserving " + _and([f"{n} {g}" for g, n in self.reserved]))
        if self.rented:
            parts.append("renting " + _and(list(self.rented)) + " on demand")
        if self.spot:
            parts.append("renting " + _and(list(self.spot)) + " on spot")
        return "; ".join(parts) if parts else "no GPUs"

    def change_to(self, other: Regime) -> str:
        """How the plan changes from this regime to ``other``, in words.

        Two short plans read best in full ("from renting H100 on demand to
        buying 1 H100"); for larger ones only what differs is said, since the
        unchanged part would bury the change.
        """
        before, after = self.describe(), other.describe()
        if not (self.status.has_plan and other.status.has_plan) or (
            ";" not in before and ";" not in after
        ):
            return f"the plan switches from {before} to {after}"
        return "the plan changes: " + "; ".join(self._differences(other))

    def _differences(self, other: Regime) -> list[str]:
        changes = []
        for verb, gerund, mine, theirs in (
            ("buy", "buying", dict(self.bought), dict(other.bought)),
            ("reserve", "reserving", dict(self.reserved), dict(other.reserved)),
        ):
            for gpu in sorted(set(mine) | set(theirs)):
                was, now = mine.get(gpu, 0), theirs.get(gpu, 0)
                if was == now:
                    continue
                if not was:
                    changes.append(f"starts to {verb} {now} {gpu}")
                elif not now:
                    changes.append(f"stops {gerund} {gpu} ({was} before)")
                else:
                    changes.append(f"{verb}s {now} {gpu} instead of {was}")
        for how, mine_set, theirs_set in (
            ("on demand", set(self.rented), set(other.rented)),
            ("on spot", set(self.spot), set(other.spot)),
        ):
            changes += [f"starts renting {g} {how}" for g in sorted(theirs_set - mine_set)]
            changes += [f"stops renting {g} {how}" for g in sorted(mine_set - theirs_set)]
        return changes


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True)
class PlanSummary:
    """The part of a plan a sweep keeps: small enough to ship back from a worker."""

    status: SolveStatus
    total_cost: float | None
    cash_out: float | None
    costs: dict[CostCategory, float]
    fleet: FleetSignature
    diagnostics: tuple[str, ...] = ()
    # Wall time of the worker's solve (estimate, build, solve); not part of the answer.
    seconds: float = field(default=0.0, compare=False)

    @property
    def regime(self) -> Regime:
        if not self.status.has_plan:
            return Regime(self.status)
        return Regime(
            status=SolveStatus.OPTIMAL,  # a time-limited plan is still the same fleet
            bought=self.fleet.bought,
            reserved=self.fleet.reserved,
            rented=tuple(g for g, _ in self.fleet.rented_hours),
            spot=tuple(g for g, _ in self.fleet.spot_hours),
        )


@dataclass(frozen=True)
class VariantOutcome:
    index: int
    setting: Setting
    summary: PlanSummary

    def value(self, key: str) -> float | None:
        return dict(self.setting).get(key)


@dataclass(frozen=True)
class Flip:
    """Where the regime changes as parameter ``key`` rises from ``low`` to ``high``.

    ``refined`` says the bracket was narrowed by bisection after the grid;
    ``fixed`` holds the other parameter's value in a two-way grid.
    """

    key: str
    low: float
    high: float
    before: Regime
    after: Regime
    refined: bool = False
    fixed: Setting = ()

    @property
    def point(self) -> float:
        return (self.low + self.high) / 2

    @property
    def precision(self) -> float:
        """Half the bracket: the flip point is ``point ± precision``."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class SweepResult:
    base_name: str
    specs: tuple[VarySpec, ...]
    mode: SweepMode
    outcomes: tuple[VariantOutcome, ...]
    flips: tuple[Flip, ...] = ()
    base_values: dict[str, float | None] = field(default_factory=dict)  # each spec in the base

    def spec(self, key: str) -> VarySpec:
        for spec in self.specs:
            if spec.key == key:
                return spec
        raise KeyError(key)


# --------------------------------------------------------------------------- parsing


def parse_vary(text: str, scenario: Scenario | None = None) -> VarySpec:
    """Parse ``KEY=START:STOP:POINTS``; POINTS values, both ends included.

    POINTS = 1 means START alone. With ``scenario``, price keys are also
    checked against its offers. Bad text raises :class:`InputError` naming
    the argument and what is expected.
    """
    key_text, sep, range_text = text.partition("=")
    key_text = key_text.strip()
    if not sep or not key_text:
        raise _vary_error(text, "no KEY= before the range", _EXPECTED_FORM)
    kind, gpu, option = _parse_key(text, key_text)
    start, stop, points = _parse_range(text, range_text)
    if kind is SpecKind.HORIZON:
        if start != int(start) or stop != int(stop):
            raise _vary_error(text, "horizon_months takes whole months", "whole numbers ≥ 1")
        values = tuple(dict.fromkeys(float(round(v)) for v in _points(start, stop, points)))
    else:
        values = tuple(dict.fromkeys(_points(start, stop, points)))
    key = key_text if gpu is None else f"{key_text.split(':', 1)[0].strip()}:{gpu}:{option}"
    spec = VarySpec(text=text, key=key, kind=kind, values=values, gpu=gpu, option=option)
    problems = _value_problems(spec)
    if scenario is not None:
        problems += _scenario_problems(spec, scenario)
    if problems:
        raise InputError(problems)
    return spec


def _parse_key(text: str, key: str) -> tuple[SpecKind, str | None, OfferOption | None]:
    if key in ASSUMPTION_KEYS:
        return SpecKind.ASSUMPTION, None, None
    if key == HORIZON_KEY:
        return SpecKind.HORIZON, None, None
    if key in LIMIT_KEYS:
        return SpecKind.LIMIT, None, None
    head, _, rest = key.partition(":")
    kinds = {PRICE_PREFIX: SpecKind.PRICE, PRICE_FACTOR_PREFIX: SpecKind.PRICE_FACTOR}
    if head.strip() not in kinds:
        raise _vary_error(text, f"unknown key {key!r}", _EXPECTED_KEYS)
    gpu, colon, option_text = rest.rpartition(":")
    if not colon or not gpu.strip() or not option_text.strip():
        raise _vary_error(
            text, f"{head.strip()} needs a GPU type and an option", f"{head.strip()}:GPU:OPTION"
        )
    try:
        option = OfferOption(option_text.strip())
    except ValueError:
        options = ", ".join(o.value for o in OfferOption)
        raise _vary_error(
            text, f"unknown option {option_text.strip()!r}", f"one of {options}"
        ) from None
    return kinds[head.strip()], gpu.strip(), option


def _parse_range(text: str, range_text: str) -> tuple[float, float, int]:
    parts = range_text.split(":")
    if len(parts) != 3:
        raise _vary_error(text, "the range must have three parts", _EXPECTED_FORM)
    bounds: list[float] = []
    for name, part in zip(("START", "STOP"), parts[:2], strict=True):
        try:
            number = float(part)
        except ValueError:
            raise _vary_error(
                text, f"{name} {part.strip()!r} is not a number", "a number"
            ) from None
        if not math.isfinite(number):
            raise _vary_error(text, f"{name} {part.strip()!r} is not a finite number", "a number")
        bounds.append(number)
    try:
        points = int(parts[2])
    except ValueError:
        raise _vary_error(
            text, f"POINTS {parts[2].strip()!r} is not a whole number", "a whole number ≥ 1"
        ) from None
    if points < 1:
        raise _vary_error(text, f"POINTS is {points}", "a whole number ≥ 1 (1 means START alone)")
    return bounds[0], bounds[1], points


def _points(start: float, stop: float, points: int) -> list[float]:
    if points == 1:
        return [start]
    step = (stop - start) / (points - 1)
    # Rounded to 12 digits so that 0.1 + 2 * 0.1 shows as 0.3, not 0.30000000000000004.
    return [round(start + i * step, 12) for i in range(points - 1)] + [stop]


def _value_problems(spec: VarySpec) -> list[Problem]:
    """Points a scenario cannot take, e.g. a negative price or a 120 % utilisation."""
    expected = _expected_value(spec)
    return [
        _vary_problem(spec.text, f"{spec.key} cannot be {value:g}", expected)
        for value in spec.values
        if not _value_ok(spec, value)
    ]


def _value_ok(spec: VarySpec, value: float) -> bool:
    if spec.is_bool:
        return value in (0.0, 1.0)
    if spec.kind is SpecKind.HORIZON:
        return value >= 1
    if spec.kind is SpecKind.ASSUMPTION:
        declared = ASSUMPTION_KEYS[spec.key]
        if declared.at_most_one and value > 1:
            return False
        return value > 0 if declared.positive else value >= 0
    return value >= 0


def _expected_value(spec: VarySpec) -> str:
    if spec.is_bool:
        return "0 (FALSE) or 1 (TRUE)"
    if spec.kind is SpecKind.HORIZON:
        return "whole months ≥ 1"
    if spec.kind is SpecKind.ASSUMPTION:
        declared = ASSUMPTION_KEYS[spec.key]
        text = "> 0" if declared.positive else "≥ 0"
        if declared.at_most_one:
            text += " and ≤ 1"
        return f"a number {text} ({declared.unit})"
    return "a number ≥ 0"


def _scenario_problems(spec: VarySpec, scenario: Scenario) -> list[Problem]:
    """What makes a spec impossible for this scenario (a missing offer, a window past the horizon)."""
    if spec.kind in (SpecKind.PRICE, SpecKind.PRICE_FACTOR):
        assert spec.gpu is not None and spec.option is not None  # set by _parse_key for price kinds
        if spec.gpu not in {g.name for g in scenario.gpus}:
            known = ", ".join(g.name for g in scenario.gpus) or "none"
            return [
                _vary_problem(
                    spec.text,
                    f"scenario {scenario.name!r} has no GPU type {spec.gpu!r}",
                    f"one of {known}",
                )
            ]
        if not scenario.offers_of(spec.gpu, spec.option):
            had = (
                ", ".join(sorted({o.option.value for o in scenario.offers_of(spec.gpu)})) or "none"
            )
            return [
                _vary_problem(
                    spec.text,
                    f"scenario {scenario.name!r} has no {spec.option.value} offer for {spec.gpu}",
                    f"an option it has: {had}",
                )
            ]
    if spec.kind is SpecKind.HORIZON:
        shortest = min(spec.values)
        late = [
            w.name for w in scenario.workloads if max(w.start_month, w.end_month or 0) > shortest
        ]
        if late:
            return [
                _vary_problem(
                    spec.text,
                    f"workloads {', '.join(late)} have windows past month {shortest:g}",
                    "a horizon that holds every workload's window",
                )
            ]
    return []


def _vary_problem(text: str, message: str, expected: str) -> Problem:
    return Problem(file="command line", message=f"--vary {text!r}: {message}", expected=expected)


def _vary_error(text: str, message: str, expected: str) -> InputError:
    return InputError(_vary_problem(text, message, expected))


# --------------------------------------------------------------------------- variants


def sweep_mode(specs: Sequence[VarySpec], tornado: bool | None = None) -> SweepMode:
    """One spec: one-way; two: a grid; three or more: a tornado (``tornado`` overrides)."""
    if len(specs) == 1:
        return SweepMode.ONE_WAY
    if tornado is None:
        tornado = len(specs) > 2
    return SweepMode.TORNADO if tornado else SweepMode.GRID


def variants(
    base: Scenario, specs: Sequence[VarySpec], tornado: bool | None = None
) -> list[Variant]:
    """Every scenario the sweep solves, in a stable order.

    One or two specs: the full grid (the last spec varies fastest). A tornado
    starts with the base itself, then each spec's points with the others left
    at the base.
    """
    _check_specs(base, specs)
    mode = sweep_mode(specs, tornado)
    if mode is SweepMode.TORNADO:
        settings: list[Setting] = [()]
        settings += [((s.key, v),) for s in specs for v in s.values]
    else:
        keys = [s.key for s in specs]
        settings = [
            tuple(zip(keys, combo, strict=True)) for combo in product(*(s.values for s in specs))
        ]
    by_key = {s.key: s for s in specs}
    return [
        Variant(i, setting, apply_setting(base, by_key, setting))
        for i, setting in enumerate(settings)
    ]


def _check_specs(base: Scenario, specs: Sequence[VarySpec]) -> None:
    if not specs:
        raise InputError(
            Problem(
                file="command line",
                message="a sweep needs at least one --vary",
                expected=_EXPECTED_FORM,
            )
        )
    problems: list[Problem] = []
    seen: set[str] = set()
    for spec in specs:
        if spec.key in seen:
            problems.append(
                _vary_problem(spec.text, f"{spec.key} is varied twice", "each key once")
            )
        seen.add(spec.key)
        problems += _scenario_problems(spec, base)
    if problems:
        raise InputError(problems)


def apply_setting(base: Scenario, specs: dict[str, VarySpec], setting: Setting) -> Scenario:
    """The base scenario with each (key, value) of ``setting`` applied."""
    scenario = base
    for key, value in setting:
        scenario = _apply(scenario, specs[key], value)
    if setting:
        label = ", ".join(f"{k}={v:g}" for k, v in setting)
        scenario = replace(scenario, name=f"{base.name} [{label}]")
    return scenario


def _apply(scenario: Scenario, spec: VarySpec, value: float) -> Scenario:
    note = f"sweep (--vary {spec.text})"
    if spec.kind is SpecKind.ASSUMPTION:
        # A field named at run time: typed as Any, checked by _value_problems.
        changed: dict[str, Any] = {spec.key: bool(value) if spec.is_bool else float(value)}
        sources = {**scenario.assumption_sources, spec.key: note}
        return replace(
            scenario,
            assumptions=replace(scenario.assumptions, **changed),
            assumption_sources=sources,
        )
    if spec.kind is SpecKind.HORIZON:
        return replace(scenario, horizon_months=int(value))
    if spec.kind is SpecKind.LIMIT:
        limit: dict[str, Any] = {spec.key: float(value)}
        return replace(scenario, **limit)
    offers = tuple(
        replace(o, price=_new_price(spec, o.price, value), source=note)
        if o.gpu == spec.gpu and o.option is spec.option
        else o
        for o in scenario.offers
    )
    return replace(scenario, offers=offers)


def _new_price(spec: VarySpec, price: float, value: float) -> float:
    return price * value if spec.kind is SpecKind.PRICE_FACTOR else value


def base_value(base: Scenario, spec: VarySpec) -> float | None:
    """The value a spec's parameter has in the base (the first offer's price for prices)."""
    if spec.kind is SpecKind.ASSUMPTION:
        return float(getattr(base.assumptions, spec.key))
    if spec.kind is SpecKind.HORIZON:
        return float(base.horizon_months)
    if spec.kind is SpecKind.LIMIT:
        limit: float | None = getattr(base, spec.key)
        return limit
    if spec.kind is SpecKind.PRICE_FACTOR:
        return 1.0
    assert spec.gpu is not None  # price kinds carry a GPU
    offers = base.offers_of(spec.gpu, spec.option)
    return offers[0].price if offers else None


# --------------------------------------------------------------------------- running


def summarize_plan(plan: Plan) -> PlanSummary:
    """The few numbers of a plan a sweep keeps (the Plan itself stays in the worker)."""
    bought: dict[str, int] = {}
    reserved: dict[str, int] = {}
    rented: dict[str, float] = {}
    spot: dict[str, float] = {}
    for row in plan.fleet:
        bought[row.gpu] = bought.get(row.gpu, 0) + row.bought
        reserved[row.gpu] = max(reserved.get(row.gpu, 0), row.reserved)
        rented[row.gpu] = rented.get(row.gpu, 0.0) + row.rented_hours
        spot[row.gpu] = spot.get(row.gpu, 0.0) + row.spot_hours
    fleet = FleetSignature(
        bought=tuple(sorted((g, n) for g, n in bought.items() if n > 0)),
        reserved=tuple(sorted((g, n) for g, n in reserved.items() if n > 0)),
        rented_hours=tuple(sorted((g, h) for g, h in rented.items() if h > _NOISE)),
        spot_hours=tuple(sorted((g, h) for g, h in spot.items() if h > _NOISE)),
    )
    return PlanSummary(
        status=plan.status,
        total_cost=plan.total_cost,
        cash_out=plan.cash_out,
        costs=dict(plan.costs),
        fleet=fleet,
        diagnostics=plan.diagnostics[:3] if not plan.status.has_plan else (),
    )


def solve_summary(solve: SolveFn, scenario: Scenario, settings: SolverSettings) -> PlanSummary:
    """What a worker runs: one full solve, summarised before it travels back."""
    started = time.perf_counter()
    plan = solve(scenario, settings)
    return replace(summarize_plan(plan), seconds=time.perf_counter() - started)


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
) -> SweepResult:
    """Solve every variant and find where the fleet flips.

    Runs on local spawn processes (``jobs``; 1 = this process), or on the
    Dask cluster at ``scheduler``; each solve uses one solver thread, since
    the parallelism is across variants. Results come back in variant order.
    For one-way sweeps and tornados, each flip is then narrowed by
    ``refine_steps`` rounds of bisection (each round halves every bracket,
    with all brackets' midpoints solved together); 0 keeps the grid's brackets.
    ``solve`` is a parameter so that tests can stand in for the solver.
    """
    mode = sweep_mode(specs, tornado)
    todo = variants(base, specs, tornado)
    worker_settings = replace(settings, threads=1, progress=False)
    bar = ProgressBar(len(todo)) if progress else None
    with open_executor(jobs, scheduler, tasks=len(todo)) as executor:
        summaries = run_in_order(
            executor, solve_summary, [(solve, v.scenario, worker_settings) for v in todo], bar
        )
        outcomes = tuple(
            VariantOutcome(v.index, v.setting, s) for v, s in zip(todo, summaries, strict=True)
        )
        flips = find_flips(outcomes, specs, mode)
        if refine_steps > 0 and mode is not SweepMode.GRID and flips:
            by_key = {s.key: s for s in specs}
            rounds = ProgressBar(refine_steps, label="refine") if progress else None

            def solve_points(points: Sequence[tuple[str, float]]) -> list[PlanSummary]:
                jobs_args = [
                    (solve, apply_setting(base, by_key, (p,)), worker_settings) for p in points
                ]
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
    )


# --------------------------------------------------------------------------- flips


def find_flips(
    outcomes: Sequence[VariantOutcome], specs: Sequence[VarySpec], mode: SweepMode
) -> list[Flip]:
    """Every pair of neighbouring points (by value) whose regimes differ.

    One-way and tornado: along each parameter, others at the base. Grid:
    along each parameter, for every value of the other parameters.
    """
    flips: list[Flip] = []
    for spec in specs:
        others = [s.key for s in specs if s.key != spec.key]
        lines: dict[Setting, list[VariantOutcome]] = {}
        for outcome in outcomes:
            if outcome.value(spec.key) is None:
                continue  # the tornado's base, or another parameter's points
            fixed = (
                tuple((k, v) for k, v in outcome.setting if k in others)
                if mode is SweepMode.GRID
                else ()
            )
            lines.setdefault(fixed, []).append(outcome)
        for fixed, line in lines.items():
            flips += _flips_along(
                spec.key, sorted(line, key=lambda o: o.value(spec.key) or 0.0), fixed
            )
    return flips


def _flips_along(key: str, line: Sequence[VariantOutcome], fixed: Setting) -> list[Flip]:
    flips = []
    for lo, hi in pairwise(line):
        if lo.summary.regime != hi.summary.regime:
            low, high = lo.value(key), hi.value(key)
            assert low is not None and high is not None  # every outcome on the line sets key
            flips.append(Flip(key, low, high, lo.summary.regime, hi.summary.regime, fixed=fixed))
    return flips


def refine_flips(
    flips: Iterable[Flip],
    specs: Sequence[VarySpec],
    solve_points: Callable[[Sequence[tuple[str, float]]], list[PlanSummary]],
    steps: int,
) -> list[Flip]:
    """Narrow each flip by bisection: ``steps`` rounds, every bracket halved per round.

    A midpoint with the regime of neither end holds two flips; both halves
    are then kept and refined. Whole-number parameters stop at adjacent
    integers.
    """
    by_key = {s.key: s for s in specs}
    open_flips = list(flips)
    for _ in range(steps):
        splittable = [f for f in open_flips if _midpoint(f, by_key[f.key]) is not None]
        if not splittable:
            break
        points = [(f.key, _midpoint(f, by_key[f.key]) or 0.0) for f in splittable]
        summaries = solve_points(points)
        refined: dict[int, list[Flip]] = {}
        for f, (_, mid), summary in zip(splittable, points, summaries, strict=True):
            regime = summary.regime
            halves = []
            if regime != f.before:
                halves.append(replace(f, high=mid, after=regime, refined=True))
            if regime != f.after:
                halves.append(replace(f, low=mid, before=regime, refined=True))
            refined[id(f)] = halves
        open_flips = [g for f in open_flips for g in refined.get(id(f), [f])]
    return open_flips


def _midpoint(flip: Flip, spec: VarySpec) -> float | None:
    if spec.is_integer or spec.is_bool:
        if flip.high - flip.low <= 1:
            return None
        return float(math.floor(flip.point))
    return flip.point


def describe_flips(result: SweepResult) -> list[str]:
    """The points where the chosen fleet changes, in words, in sweep order."""
    if not result.flips:
        if result.outcomes:
            regimes = {o.summary.regime for o in result.outcomes}
            if len(regimes) == 1:
                return [f"the plan is the same at every point: {next(iter(regimes)).describe()}"]
        return []
    return [_describe_flip(result, flip) for flip in result.flips]


def _describe_flip(result: SweepResult, flip: Flip) -> str:
    spec = result.spec(flip.key)
    resolution = flip.precision if flip.refined else None
    low = _format_value(spec, flip.low, resolution)
    high = _format_value(spec, flip.high, resolution)
    change = flip.before.change_to(flip.after)
    context = ""
    if flip.fixed:
        fixed = ", ".join(
            f"{_label(result.spec(k))} {_format_value(result.spec(k), v)}" for k, v in flip.fixed
        )
        context = f"with {fixed}, "
    if flip.refined:
        point = _format_value(spec, flip.point, resolution)
        plus_minus = f"± {_format_value(spec, flip.precision, resolution)}"
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


_OPTION_WORDS = {
    OfferOption.BUY: "purchase",
    OfferOption.ON_DEMAND: "on-demand",
    OfferOption.SPOT: "spot",
    OfferOption.RESERVED: "reserved",
}


def _price_noun(spec: VarySpec) -> str:
    assert spec.option is not None  # price kinds carry an option
    noun = "price" if spec.kind is SpecKind.PRICE else "price factor"
    return f"{_OPTION_WORDS[spec.option]} {noun}"


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


def _format_value(spec: VarySpec, value: float, resolution: float | None = None) -> str:
    """A value as a reader wants it: dollars for money, with enough digits to show
    ``resolution`` (a refined flip's precision) when one is given."""
    digits = None
    if resolution is not None and resolution > 0:
        digits = max(0, -math.floor(math.log10(resolution)))
    is_hourly_price = spec.kind is SpecKind.PRICE and spec.option is not OfferOption.BUY
    if is_hourly_price:
        return f"${value:,.{max(2, digits or 0)}f}/h"
    if spec.kind is SpecKind.PRICE or spec.key in (
        "budget_total",
        "budget_capex",
        "budget_monthly",
    ):
        return f"${value:,.{digits or 0}f}"
    if spec.is_integer or digits is None:
        return f"{value:g}"
    return f"{value:.{digits}f}"
