"""Sweep parameters: the ``--vary`` grammar and the scenarios it makes.

Takes ``--vary KEY=START:STOP:POINTS`` text and the base ``domain.Scenario``;
hands on a :class:`VarySpec` per argument (what can be varied: an Assumptions
key, the horizon, a budget or the power cap, or one GPU type's price for one
option), the sweep's :class:`SweepMode`, and every :class:`Variant` scenario
(:func:`variants`, :func:`apply_setting`) to ``sweep`` and ``sweep_search``.
Bad arguments raise ``InputError`` naming the argument and what is expected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import product
from typing import Any

from optimizer.domain import OfferOption, Scenario
from optimizer.errors import InputError, Problem
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    FUTURES,
    PRICES,
    SCENARIOS,
    ColumnType,
    bound_text,
)

# Scenario fields a sweep may set, beside the Assumptions keys and prices.
LIMIT_KEYS = ("budget_total", "budget_capex", "budget_monthly", "power_cap_kw")
HORIZON_KEY = "horizon_months"
PRICE_PREFIX = "price"
PRICE_FACTOR_PREFIX = "price_factor"

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
        return (
            self.kind is SpecKind.ASSUMPTION
            and ASSUMPTION_KEYS[self.key].column_type is ColumnType.BOOL
        )


Setting = tuple[tuple[str, float], ...]  # (spec key, value) for each varied parameter


@dataclass(frozen=True)
class Variant:
    """One scenario of a sweep; ``setting`` is empty for the unchanged base."""

    index: int
    setting: Setting
    scenario: Scenario


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
        if ASSUMPTION_KEYS[key].label:
            # A label is text: a range of numbers cannot give one (issue 33 item 6).
            raise _vary_error(
                text,
                f"{key} is a label, not a number, and cannot be varied",
                f"a key that takes numbers ({key} is set once, in sheet Assumptions)",
            )
        if ASSUMPTION_KEYS[key].column_type is ColumnType.CHOICE:
            words = ", ".join(ASSUMPTION_KEYS[key].allowed)
            raise _vary_error(
                text,
                f"{key} takes a word ({words}), not a range",
                "one scenario per word to compare",
            )
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


# Limits that keep a sweep's size known before any solve: points of one
# --vary, and variants of the whole sweep (a grid multiplies its points).
MAX_SWEEP_POINTS = 1_000
MAX_SWEEP_VARIANTS = 10_000


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
    if points > MAX_SWEEP_POINTS:
        raise _vary_error(
            text, f"POINTS is {points:,}", f"at most {MAX_SWEEP_POINTS:,} points per --vary"
        )
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


def _upper(spec: VarySpec) -> float | None:
    """The largest value the parameter takes: the bound the reader puts on the same cell."""
    if spec.kind is SpecKind.ASSUMPTION:
        return ASSUMPTION_KEYS[spec.key].maximum
    if spec.kind in (SpecKind.HORIZON, SpecKind.LIMIT):
        return SCENARIOS.column(spec.key).maximum
    if spec.kind is SpecKind.PRICE:
        return PRICES.column("price").maximum
    return FUTURES.column("price_factor").maximum


def _value_ok(spec: VarySpec, value: float) -> bool:
    if spec.is_bool:
        return value in (0.0, 1.0)
    upper = _upper(spec)
    if upper is not None and value > upper:
        return False
    if spec.kind is SpecKind.HORIZON:
        return value >= 1
    if spec.kind is SpecKind.ASSUMPTION:
        declared = ASSUMPTION_KEYS[spec.key]
        if declared.at_most_one and value > 1:
            return False
        if declared.below_one and value >= 1:
            return False
        return value > 0 if declared.positive else value >= 0
    return value >= 0


def _expected_value(spec: VarySpec) -> str:
    if spec.is_bool:
        return "0 (FALSE) or 1 (TRUE)"
    upper = _upper(spec)
    most = "" if upper is None else f" and ≤ {bound_text(upper)}"
    if spec.kind is SpecKind.HORIZON:
        return f"whole months ≥ 1{most}"
    if spec.kind is SpecKind.ASSUMPTION:
        declared = ASSUMPTION_KEYS[spec.key]
        text = "> 0" if declared.positive else "≥ 0"
        if declared.at_most_one:
            text += " and ≤ 1"
        if declared.below_one:
            text += " and < 1"
        return f"a number {text}{most} ({declared.unit})"
    return f"a number ≥ 0{most}"


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
    count = (
        1 + sum(len(s.values) for s in specs)
        if mode is SweepMode.TORNADO
        else math.prod(len(s.values) for s in specs)
    )
    if count > MAX_SWEEP_VARIANTS:
        raise InputError(
            Problem(
                file="command line",
                message=f"the sweep has {count:,} variants; gpumix solves at most "
                f"{MAX_SWEEP_VARIANTS:,} in one sweep",
                expected="fewer points per --vary, or fewer --vary in a grid",
            )
        )
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
        value = getattr(base.assumptions, spec.key)
        return None if value is None else float(value)
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
