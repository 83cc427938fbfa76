"""Turns a workbook's rows and a scenario file's overrides into one Scenario each.

Precedence, lowest first: built-in defaults, the Assumptions sheet, the
scenario's row in Scenarios (non-blank cells), the scenario file. Every
assumption's source is kept (``Scenario.assumption_sources``). After every
override, each scenario is checked on its own: windows inside its horizon,
a recurring run's deadline inside a month, and ``params_b`` given wherever
a GPU type of the scenario would need the estimate. References in the
scenario file (base, names, offers) are checked here (``scenario_file.refs``),
because only here are the workbook and the file seen together.

A scenario file entry with problems of its own is still built from its sound
part and checked, so one run reports every problem; a check that depends on
one of its keys with a problem (``ScenarioEntry.unsure``: a bad horizon, say)
is skipped rather than run on the base's value, and the entry is never solved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from optimizer.domain import Assumptions, Kind, Measurement, Offer, OfferOption, Scenario, Workload
from optimizer.errors import InputError, Problem
from optimizer.inputs.cells import Where
from optimizer.inputs.demand_rows import DemandRow, checkable_rows, demand_problems, with_demand
from optimizer.inputs.fleet_rows import FleetEntry, existing_fleet
from optimizer.inputs.futures.attach import with_futures
from optimizer.inputs.growth_bounds import growth_problems
from optimizer.inputs.partial_rows import (
    PartialWorkload,
    added_partials,
    planned,
    stand_ins,
    unsure_name,
)
from optimizer.inputs.reader import WorkbookData
from optimizer.inputs.scenario_file.read import PriceChange, ScenarioEntry, ScenarioFile
from optimizer.inputs.scenario_file.refs import entry_problems
from optimizer.inputs.schema import ASSUMPTIONS, IMPLICIT_SCENARIO
from optimizer.inputs.sheets import ScenarioRow

DEADLINE_ASSUMPTIONS = ("max_utilization", "hours_per_month")  # a month's working hours


@dataclass(frozen=True)
class Settings:
    """A scenario's settings while overrides are being applied, with where each came from."""

    horizon_months: int = 36
    budget_total: float | None = None
    budget_capex: float | None = None
    budget_monthly: float | None = None
    power_cap_kw: float | None = None
    allow_buy: bool = True
    allow_rent: bool = True
    workloads: tuple[str, ...] | None = None  # None: every workload of the workbook
    exclude_gpus: tuple[str, ...] = ()
    assumptions: Assumptions = field(default_factory=Assumptions)
    assumption_sources: Mapping[str, str] = field(default_factory=dict)
    origins: Mapping[str, str] = field(default_factory=dict)  # setting → where it was set


def default_settings(workbook: WorkbookData) -> Settings:
    """Built-in defaults, then the workbook's Assumptions sheet."""
    sources = {a.key: f"default: {a.source}" for a in ASSUMPTIONS}
    values: dict[str, Any] = {}
    for row in workbook.assumptions:
        if row.value is not None:
            values[row.key] = row.value
            sources[row.key] = f"Assumptions sheet: {row.source or 'no source given'}"
    _residual_rule_of_credit(values, sources)
    return Settings(assumptions=replace(Assumptions(), **values), assumption_sources=sources)


def apply_overrides(
    settings: Settings,
    values: Mapping[str, Any],
    assumptions: Mapping[str, float | bool | str],
    origin: Callable[[str], str],
) -> Settings:
    """``settings`` with ``values`` and ``assumptions`` laid on top; ``origin(key)`` says where each was set."""
    sources = dict(settings.assumption_sources)
    sources.update({key: origin(key) for key in assumptions})
    origins = dict(settings.origins)
    origins.update({key: origin(key) for key in values})
    new_assumptions: dict[str, Any] = dict(assumptions)
    if "residual_value" in new_assumptions and "credit_residual_value" not in new_assumptions:
        # A later residual_value replaces v1's key set at an earlier level.
        new_assumptions["credit_residual_value"] = None
    _residual_rule_of_credit(new_assumptions, sources)
    return replace(
        settings,
        **values,
        assumptions=replace(settings.assumptions, **new_assumptions),
        assumption_sources=sources,
        origins=origins,
    )


def _residual_rule_of_credit(assumptions: dict[str, Any], sources: dict[str, str]) -> None:
    """Where v1's ``credit_residual_value`` is given, ``residual_value`` says the rule it means.

    TRUE is ``book`` and FALSE ``none`` (model v2 §E). Set at the same level,
    so a scenario's TRUE over the Assumptions sheet's ``market`` shows as
    ``book`` in the Audit sheet, with the scenario as its source, not as the
    sheet's ``market`` that no longer applies.
    """
    credit = assumptions.get("credit_residual_value")
    if credit is None:
        return
    assumptions["residual_value"] = "book" if credit else "none"
    given = "TRUE" if credit else "FALSE"
    sources["residual_value"] = (
        f"{sources['credit_residual_value']} (credit_residual_value {given})"
    )


def _row_settings(base: Settings, row: ScenarioRow) -> Settings:
    return apply_overrides(base, row.settings, row.assumptions, lambda _key: row.origin())


# ---------------------------------------------------------------- building


def _price_changed(offer: Offer, change: PriceChange) -> Offer:
    before = offer.source or f"Prices sheet, row {offer.row}"
    if change.multiply is not None:
        price = offer.price * change.multiply
        note = f"{before}; × {change.multiply:g} by {change.where.label}"
    else:
        price = change.price if change.price is not None else offer.price
        note = f"{before}; replaced by {price:g} by {change.where.label}"
    return replace(offer, price=price, source=note)


def _changed_offers(workbook: WorkbookData, changes: Sequence[PriceChange]) -> list[Offer]:
    """Every offer of the workbook with the scenario's price changes applied."""
    offers = []
    for offer in workbook.offers:
        for change in changes:
            if change.gpu == offer.gpu and change.option is offer.option:
                offer = _price_changed(offer, change)
        offers.append(offer)
    return offers


def _listed_buy_prices(offers: Sequence[Offer]) -> tuple[tuple[str, float], ...]:
    lowest: dict[str, float] = {}
    for o in offers:
        if o.option is OfferOption.BUY:
            lowest[o.gpu] = min(o.price, lowest.get(o.gpu, o.price))
    return tuple(lowest.items())


def _offers(settings: Settings, changed: Sequence[Offer]) -> tuple[Offer, ...]:
    offers = []
    for offer in changed:
        if offer.gpu in settings.exclude_gpus:
            continue
        if (offer.option.is_rent and not settings.allow_rent) or (
            not offer.option.is_rent and not settings.allow_buy
        ):
            continue
        offers.append(offer)
    return tuple(offers)


def build_scenario(
    name: str,
    settings: Settings,
    workbook: WorkbookData,
    source_files: tuple[Path, ...],
    changes: Sequence[PriceChange] = (),
    added: Sequence[Workload] = (),
    demand: Sequence[DemandRow] = (),
    fleet: Sequence[FleetEntry] = (),
) -> Scenario:
    """One fully resolved Scenario: offers, GPUs, workloads and measurements filtered.

    ``exclude_gpus`` never removes what exists (model v2 §E): a type with rows in sheet
    Fleet stays in the scenario with its existing GPUs, without offers."""
    keep = set(settings.workloads) if settings.workloads is not None else None
    workloads = with_demand(
        (*(w for w in workbook.workloads if keep is None or w.name in keep), *added),
        workbook.demand,
        demand,  # the scenario file's rows replace the sheet's for the same month
        horizon=settings.horizon_months,
    )
    existing = existing_fleet(workbook.fleet, fleet)  # the file's rows replace the sheet's
    has_fleet = {r.gpu for r in existing}
    gpus = tuple(
        g for g in workbook.gpus if g.name not in settings.exclude_gpus or g.name in has_fleet
    )
    gpu_names = {g.name for g in gpus}
    workload_names = {w.name for w in workloads}
    measurements = tuple(
        m for m in workbook.measurements if m.gpu in gpu_names and m.workload in workload_names
    )
    changed = _changed_offers(workbook, changes)
    return Scenario(
        name=name,
        horizon_months=settings.horizon_months,
        budget_total=settings.budget_total,
        budget_capex=settings.budget_capex,
        budget_monthly=settings.budget_monthly,
        power_cap_kw=settings.power_cap_kw,
        allow_buy=settings.allow_buy,
        allow_rent=settings.allow_rent,
        gpus=gpus,
        offers=_offers(settings, changed),
        workloads=workloads,
        measurements=measurements,
        assumptions=settings.assumptions,
        assumption_sources=dict(settings.assumption_sources),
        excluded_gpus=tuple(settings.exclude_gpus),
        source_files=source_files,
        input_warnings=workbook.warnings,
        listed_buy_prices=_listed_buy_prices(changed),
        fleet=existing,
        catalogue_figures=tuple(f for f in workbook.catalogue_figures if f.gpu in gpu_names),
    )


# ---------------------------------------------------------------- per-scenario checks


def window_problems(
    scenario: Scenario,
    wheres: Mapping[str, Where],
    horizon_origin: str | None,
    partials: Sequence[PartialWorkload] = (),
) -> list[Problem]:
    """Windows that run past this scenario's horizon (checked after every override).

    ``partials``: the workloads with problems it would plan, where their window read fine.
    """
    horizon = scenario.horizon_months
    set_in = (
        f" (horizon_months from {horizon_origin})" if horizon_origin else " (the default horizon)"
    )
    windows = [(w.name, w.start_month, w.end_month) for w in scenario.workloads]
    windows += [(p.name, *p.window) for p in partials if p.window is not None]
    problems = []
    for name, start, end in windows:
        where = wheres.get(name)
        if where is None:
            continue
        if end is not None and end > horizon:
            problems.append(
                where.at(
                    "end_month",
                    f"scenario {scenario.name!r}: the window ends in month {end}, past its {horizon}-month horizon{set_in}",
                    end,
                    f"a month from {start} to {horizon}",
                )
            )
        elif start > horizon:
            problems.append(
                where.at(
                    "start_month",
                    f"scenario {scenario.name!r}: the window starts in month {start}, past its {horizon}-month horizon{set_in}",
                    start,
                    f"a month from 1 to {horizon}",
                )
            )
    return problems


def deadline_problems(
    built: Sequence[tuple[Scenario, Mapping[str, Where], str | None]],
    partials: Mapping[str, Sequence[PartialWorkload]] = {},
) -> list[Problem]:
    """Recurring runs whose deadline is longer than a month's working hours (after every override).

    One problem per workload and limit, naming every scenario where it is too long.
    ``partials``: by scenario, the workloads with problems it would plan.
    """
    found: dict[tuple[str, str, float, float], tuple[float, Where, list[str]]] = {}
    for scenario, wheres, _ in built:
        a = scenario.assumptions
        hours = a.max_utilization * a.hours_per_month
        runs = [(w.name, w.recurring, w.deadline_hours) for w in scenario.workloads]
        runs += [(p.name, p.recurring, p.deadline_hours) for p in partials.get(scenario.name, ())]
        for name, recurring, deadline in runs:
            where = wheres.get(name)
            if where is None or not recurring or deadline is None:
                continue
            # A hair of slack, so that the limit the message states is itself accepted.
            if deadline > hours * (1 + 1e-9):
                key = (name, where.label, a.max_utilization, a.hours_per_month)
                found.setdefault(key, (deadline, where, []))[2].append(scenario.name)
    problems = []
    for (_, _, utilization, per_month), (deadline, where, scenarios) in found.items():
        hours = utilization * per_month
        named = ", ".join(repr(s) for s in scenarios)
        problems.append(
            where.at(
                "deadline_hours",
                f"scenario{'s' if len(scenarios) > 1 else ''} {named}: longer than a month's "
                f"{hours:g} working hours (max_utilization {utilization:g} × hours_per_month "
                f"{per_month:g}); a recurring run (runs_per_month given) must fit inside a month",
                deadline,
                f"a number > 0, at most {hours:g} (hours)",
            )
        )
    return problems


def gpus_needing_params(
    workload: Workload, scenario: Scenario
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(gpu, figures not measured)`` for the scenario's GPU types where ``workload`` needs ``params_b``.

    The estimator needs ``params_b`` on a type unless both the memory and the
    speed of the workload are measured there; the figures missing are
    ``"memory"``, ``"speed"`` or both. Empty when ``params_b`` is given.
    """
    if workload.params_b is not None:
        return ()
    missing = []
    for gpu in scenario.gpus:
        m: Measurement | None = scenario.measurement(workload.name, gpu.name)
        memory = workload.vram_gb is not None or (m is not None and m.gpus_per_replica is not None)
        speed = m is not None and (
            m.tokens_per_second_per_replica is not None
            if workload.kind is Kind.REALTIME_INFERENCE
            else m.gpu_hours is not None
        )
        lacking = tuple(part for part, given in (("memory", memory), ("speed", speed)) if not given)
        if lacking:
            missing.append((gpu.name, lacking))
    return tuple(missing)


def _params_message(workload: Workload, missing: Sequence[tuple[str, tuple[str, ...]]]) -> str:
    """The params_b message: which figures are not measured, for each group of GPU types."""
    speed_column = (
        "tokens_per_second_per_replica" if workload.kind is Kind.REALTIME_INFERENCE else "gpu_hours"
    )
    figures = {
        "memory": "memory (vram_gb, or gpus_per_replica in Throughput)",
        "speed": f"speed ({speed_column} in Throughput)",
    }
    groups: dict[tuple[str, ...], list[str]] = {}
    for gpu, lacking in missing:
        groups.setdefault(lacking, []).append(gpu)
    parts = [
        f"GPU type{'s' if len(gpus) > 1 else ''} {', '.join(gpus)} "
        f"{'have' if len(gpus) > 1 else 'has'} no measured "
        + " and ".join(figures[f] for f in lacking)
        for lacking, gpus in groups.items()
    ]
    return f"is blank, and {'; '.join(parts)} for workload {workload.name!r}"


def _params_problems(
    needs: Mapping[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], list[str]],
    workloads: Mapping[str, Workload],
    wheres: Mapping[str, Where],
) -> list[Problem]:
    problems = []
    for (name, missing), scenarios in needs.items():
        problems.append(
            wheres[name].at(
                "params_b",
                f"{_params_message(workloads[name], missing)} "
                f"(scenario{'s' if len(scenarios) > 1 else ''} {', '.join(scenarios)}); "
                "without params_b they cannot be estimated",
                None,
                "a number > 0 (billion parameters)",
            )
        )
    return problems


# ---------------------------------------------------------------- entry points


def _base_settings(entry: ScenarioEntry, row_settings: Mapping[str, Settings]) -> Settings | None:
    """The settings ``entry`` builds on; None when its base is unknown or had problems."""
    if "base" in entry.unsure or (entry.base is not None and entry.base not in row_settings):
        return None
    return row_settings[entry.base] if entry.base is not None else next(iter(row_settings.values()))


def check_scenarios(
    workbook: WorkbookData, scenario_file: ScenarioFile | None = None
) -> tuple[tuple[Scenario, ...], list[Problem]]:
    """Every scenario to solve, and every problem found while resolving them."""
    defaults = default_settings(workbook)
    rows = workbook.scenarios
    row_settings = {row.name: _row_settings(defaults, row) for row in rows}
    if not rows:
        row_settings = {IMPLICIT_SCENARIO: defaults}
    workbook_wheres: dict[str, Where] = dict(workbook.workload_rows)
    workbook_wheres.update((p.name, p.where) for p in workbook.partial_workloads)
    standing = stand_ins(workbook.partial_workloads)  # rows with problems (None: unsure)
    partials: dict[str, tuple[PartialWorkload, ...]] = {}  # by scenario, the ones it plans
    problems: list[Problem] = []
    built: list[tuple[Scenario, Mapping[str, Where], str | None]] = []
    unsound: dict[str, frozenset[str]] = {}  # entry → its keys with problems
    if scenario_file is None:
        files: tuple[Path, ...] = (workbook.path,)
        for name, settings in row_settings.items():
            scenario = build_scenario(name, settings, workbook, files)
            partials[name] = planned(workbook.partial_workloads, settings.workloads)
            built.append((scenario, workbook_wheres, settings.origins.get("horizon_months")))
    else:
        files = (scenario_file.path, workbook.path)
        bases = list(row_settings)
        for entry in scenario_file.scenarios:
            found = entry_problems(entry, workbook, bases)
            problems.extend(found)
            if found or entry.partial:
                unsound[entry.name] = entry.unsure
            known = {n: w for n, w in standing.items() if w is not None}
            known.update({w.name: w for w in (*workbook.workloads, *entry.add_workloads)})
            base = _base_settings(entry, row_settings)
            own = (
                None
                if base is None
                else apply_overrides(base, entry.settings, entry.assumptions, entry.origin)
            )
            horizon = (
                own.horizon_months
                if own is not None and "horizon_months" not in entry.unsure
                else None
            )
            file_rows = checkable_rows(
                entry.demand,
                known,
                horizon,
                partial(unsure_name, standing=standing, unsure=entry.unsure),
            )
            problems.extend(demand_problems(file_rows, known, horizon))
            if own is None:
                continue  # its base has problems, or is unknown (reported): nothing to build on
            scenario = build_scenario(
                entry.name,
                own,
                workbook,
                files,
                entry.prices,
                entry.add_workloads,
                entry.demand,
                [f for f in entry.fleet if f.gpu in workbook.gpu_names],
            )
            wheres = {**workbook_wheres, **entry.add_workload_wheres}
            added = added_partials(entry.add_workload_partials, wheres)
            wheres.update((p.name, p.where) for p in added)
            partials[entry.name] = (*planned(workbook.partial_workloads, own.workloads), *added)
            built.append((scenario, wheres, own.origins.get("horizon_months")))
    built, found = with_futures(built, workbook, scenario_file, next(iter(row_settings)))
    problems.extend(found)
    needs: dict[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], list[str]] = {}
    all_wheres: dict[str, Where] = {}
    needy: dict[str, Workload] = {}
    for scenario, located, horizon_origin in built:
        unsure = unsound.get(scenario.name, frozenset())
        if not unsure & {"horizon_months", "workloads"}:
            problems.extend(
                window_problems(scenario, located, horizon_origin, partials[scenario.name])
            )
        if unsure & {"workloads", "exclude_gpus"}:
            continue  # the workloads or GPU types it plans are not known for sure
        for w in scenario.workloads:
            missing = gpus_needing_params(w, scenario)
            if missing and w.name in located:
                needs.setdefault((w.name, missing), []).append(scenario.name)
                all_wheres[w.name] = located[w.name]
                needy[w.name] = w
    deadline_keys = {
        "workloads",
        "assumptions",
        *(f"assumptions.{k}" for k in DEADLINE_ASSUMPTIONS),
    }
    problems.extend(
        deadline_problems(
            [b for b in built if not unsound.get(b[0].name, frozenset()) & deadline_keys],
            partials,
        )
    )
    problems.extend(_params_problems(needs, needy, all_wheres))
    problems.extend(growth_problems(built, unsound))
    # An entry with problems of its own was checked as far as it goes, never to be solved.
    return tuple(s for s, _, _ in built if s.name not in unsound), problems


def resolve_scenarios(
    workbook: WorkbookData, scenario_file: ScenarioFile | None = None
) -> tuple[Scenario, ...]:
    """Every scenario to solve, resolved; raise one InputError with every problem found."""
    scenarios, problems = check_scenarios(workbook, scenario_file)
    if problems:
        raise InputError(problems)
    return scenarios
