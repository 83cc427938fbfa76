"""Rows of sheet ``Futures`` (issue 19): each scenario's futures.

Takes the typed rows of the sheet (``tables._rows``) and the names of the
workbook's scenarios, workloads and GPU types; hands on, per scenario, its
:class:`~optimizer.inputs.futures.located.LocatedFutures` and a ``Problem``
for every row that cannot stand.

One row is one change; a future's rows combine. A row's ``workload`` says
whose demand its ``demand_factor`` and ``growth_per_month`` change (blank:
every realtime and batch workload), its ``gpu`` and ``option`` whose prices
its ``price_factor`` multiplies (blank: every type, every option). A value
given on several rows must be the same on each: ``probability`` per future
(given on one row at least), ``decide_by_month`` and the regret bounds per
scenario, a factor or growth per future and workload, a price factor per
future, GPU type and option. The probabilities of a scenario's futures sum to
1. Whether a workload or GPU type is in the scenario (and not left out) is
checked once the scenario is resolved (``futures.attach``).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from optimizer.domain import OfferOption, Workload
from optimizer.domain.futures import MAX_FUTURES, Futures, FutureSpec, PriceFactor, too_many_futures
from optimizer.errors import Problem
from optimizer.inputs.cells import SheetRow, beyond
from optimizer.inputs.futures.located import (
    ONE_IN_SUM,
    SCALED,
    SETTINGS,
    LocatedFutures,
    LocatedPrice,
    Named,
    offers_named,
    sum_message,
    training_message,
)
from optimizer.inputs.schema import FUTURES
from optimizer.inputs.sheets import Names, _unknown, _unknown_reference
from optimizer.inputs.tables import SheetTable, _rows


@dataclass
class _Future:
    """One future while its rows are read."""

    name: str
    first: SheetRow
    probability: float | None = None
    demand_factor: float = 1.0
    growth_per_month: float | None = None
    workload_factors: dict[str, float] = field(default_factory=dict)
    workload_growth: dict[str, float] = field(default_factory=dict)
    prices: list[LocatedPrice] = field(default_factory=list)
    named: list[Named] = field(default_factory=list)
    gpus: list[Named] = field(default_factory=list)
    sound: bool = False  # a row without problems gives it (else only its probability is read)

    def spec(self) -> FutureSpec:
        return FutureSpec(
            name=self.name,
            probability=self.probability or 0.0,
            demand_factor=self.demand_factor,
            workload_demand_factors=tuple(self.workload_factors.items()),
            growth_per_month=self.growth_per_month,
            workload_growth=tuple(self.workload_growth.items()),
            price_factors=tuple(p.factor for p in self.prices),
        )


@dataclass
class _Scenario:
    """One scenario's futures while the sheet is read."""

    futures: dict[str, _Future] = field(default_factory=dict)  # by name, lower case
    settings: dict[str, Any] = field(default_factory=dict)
    decide_where: SheetRow | None = None
    given: dict[Hashable, tuple[Any, SheetRow]] = field(default_factory=dict)
    unsure: bool = False  # a probability, future or scenario cell had a problem: no sum


def sheet_futures(
    file: str,
    table: SheetTable | None,
    scenario_names: Names,
    workloads: Sequence[Workload],
    workload_names: Names,
    gpu_names: Names,
    problems: list[Problem],
) -> dict[str, LocatedFutures]:
    """Each scenario's futures from sheet Futures; every problem goes to ``problems``.

    A row with a problem is left out but for its future's probability, where
    its scenario, future and probability cells read fine: the probabilities are
    still summed. Where one of those cells had a problem, the sum is not checked
    (the cell may be why it is off): its scenario's, or every scenario's when
    it is the scenario cell of a row that gives a probability.
    """
    valid = {w.name: w for w in workloads}
    scenarios: dict[str, _Scenario] = {}
    every_sum_unsure = False
    for where, typed, found in _rows(file, table, FUTURES):
        name = typed.get("scenario")
        more = _reference_problems(where, typed, scenario_names, valid, workload_names, gpu_names)
        bad = [*found, *beyond(found, more)]
        about = {p.about for p in bad}
        if name is None or "scenario" in about:
            every_sum_unsure |= "probability" in typed or "probability" in about
        if name is None:
            problems.extend(bad)
            continue
        scenario = scenarios.setdefault(name, _Scenario())
        if not bad:
            bad = _combine(scenario, name, where, typed)
        elif not about & {"scenario", "future", "probability"}:
            bad += _combine(scenario, name, where, typed, only_probability=True)
        problems.extend(bad)
        scenario.unsure |= bool({p.about for p in bad} & {"scenario", "future", "probability"})
    out: dict[str, LocatedFutures] = {}
    for name, scenario in scenarios.items():
        if (too_many := too_many_futures(len(scenario.futures), name)) is not None:
            past = list(scenario.futures.values())[MAX_FUTURES]
            problems.append(
                past.first.at("future", too_many, past.name, f"at most {MAX_FUTURES} futures")
            )
            scenario.unsure = True  # the sum would count futures that cannot be planned
        if not (scenario.unsure or every_sum_unsure):
            problems.extend(_probability_problems(file, table, name, scenario))
        out[name] = _located(scenario)
    return out


def _reference_problems(
    where: SheetRow,
    typed: Mapping[str, Any],
    scenario_names: Names,
    valid: Mapping[str, Workload],
    workload_names: Names,
    gpu_names: Names,
) -> list[Problem]:
    problems = []
    scenario, workload, gpu = typed.get("scenario"), typed.get("workload"), typed.get("gpu")
    if scenario is not None and _unknown(scenario, scenario_names):
        problems.append(
            _unknown_reference(where, "scenario", scenario, "Scenarios", scenario_names or ())
        )
    if workload is not None:
        if _unknown(workload, workload_names):
            problems.append(
                _unknown_reference(where, "workload", workload, "Workloads", workload_names or ())
            )
        elif workload in valid and valid[workload].kind.is_training:
            problems.append(
                where.at("workload", training_message(valid[workload]), workload, SCALED)
            )
        elif "demand_factor" not in typed and "growth_per_month" not in typed:
            problems.append(
                where.at(
                    "workload",
                    "is given, but demand_factor and growth_per_month are blank on this row "
                    "(workload says whose demand they change)",
                    workload,
                    "a demand_factor or growth_per_month on the row, or a blank workload",
                )
            )
    if gpu is not None and _unknown(gpu, gpu_names):
        problems.append(_unknown_reference(where, "gpu", gpu, "GPUs", gpu_names or ()))
    if ("gpu" in typed or "option" in typed) and "price_factor" not in typed:
        problems.append(
            where.at(
                "price_factor",
                "is blank, but the row gives a gpu or option (they say whose prices "
                "price_factor multiplies)",
                None,
                "a number > 0 (factor), or a blank gpu and option",
            )
        )
    return problems


def _combine(
    scenario: _Scenario,
    name: str,
    where: SheetRow,
    typed: Mapping[str, Any],
    only_probability: bool = False,
) -> list[Problem]:
    """Lay one sound row onto its scenario's futures; the problems of disagreeing values.

    ``only_probability``: the row has problems; only its future's probability is read.
    """
    problems: list[Problem] = []
    future_name: str = typed["future"]
    future = scenario.futures.setdefault(future_name.lower(), _Future(future_name, where))
    if future.name != future_name:
        return [
            where.at(
                "future",
                f"differs from future {future.name!r} (row {future.first.row}) only in case; "
                "a future's rows spell its name the same way",
                future_name,
                f"{future.name!r}, or another name",
            )
        ]

    def agree(key: Hashable, column: str, whose: str, what: str = "") -> bool:
        value = typed[column]
        first = scenario.given.setdefault(key, (value, where))
        if first[0] == value:
            return True
        problems.append(
            where.at(
                column,
                f"{whose} has {column} {first[0]:g}{what} in row {first[1].row}; "
                "the rows that give it must agree",
                value,
                f"{first[0]:g}, or blank",
            )
        )
        return False

    of_future = f"future {future_name!r} of scenario {name!r}"
    if only_probability:
        if "probability" in typed and agree((future.name, "probability"), "probability", of_future):
            future.probability = typed["probability"]
        return problems
    future.sound = True
    for key in SETTINGS:
        if key in typed and agree(key, key, f"scenario {name!r}"):
            scenario.settings[key] = typed[key]
            if key == "decide_by_month" and scenario.decide_where is None:
                scenario.decide_where = where
    if "probability" in typed and agree((future.name, "probability"), "probability", of_future):
        future.probability = typed["probability"]
    workload = typed.get("workload")
    what = f" for workload {workload!r}" if workload else ""
    for column in ("demand_factor", "growth_per_month"):
        if column in typed and agree((future.name, column, workload), column, of_future, what):
            _set_demand(future, column, workload, typed[column], where)
    if "price_factor" in typed:
        option = typed.get("option")
        factor = PriceFactor(
            typed["price_factor"], typed.get("gpu"), OfferOption(option) if option else None
        )
        price_key = (future.name, "price_factor", factor.gpu, factor.option)
        offers = f" for {offers_named(factor)} offers"
        # Only the first row to give a factor adds it; the others agree with it.
        if agree(price_key, "price_factor", of_future, offers) and (
            scenario.given[price_key][1] is where
        ):
            future.prices.append(LocatedPrice(factor, future.name, where, "price_factor"))
            if factor.gpu is not None:
                future.gpus.append(Named(factor.gpu, future.name, where, "gpu"))
    return problems


def _set_demand(
    future: _Future, column: str, workload: str | None, value: float, where: SheetRow
) -> None:
    if workload is None:
        setattr(future, column, value)
        return
    by_workload = future.workload_factors if column == "demand_factor" else future.workload_growth
    if workload not in by_workload:
        by_workload[workload] = value
    if not any(n.name == workload and n.where is where for n in future.named):
        future.named.append(Named(workload, future.name, where, "workload"))


def _probability_problems(
    file: str, table: SheetTable | None, name: str, scenario: _Scenario
) -> list[Problem]:
    """A future without a probability, or probabilities that do not sum to 1."""
    futures = list(scenario.futures.values())
    problems = [
        f.first.at(
            "probability",
            f"is blank on every row of future {f.name!r} (scenario {name!r}); give it on one",
            None,
            "a number > 0 (fraction), at most 1",
        )
        for f in futures
        if f.probability is None
    ]
    wrong_sum = None if problems else sum_message([f.spec() for f in futures])
    if wrong_sum is not None:
        problems.append(
            Problem(
                file=file,
                sheet=table.name if table is not None else FUTURES.name,
                column="probability",
                message=f"scenario {name!r}: {wrong_sum}",
                expected=f"{ONE_IN_SUM} (a third: =1/3, not 0.33)",
            )
        )
    return problems


def _located(scenario: _Scenario) -> LocatedFutures:
    futures = [f for f in scenario.futures.values() if f.sound]
    settings = scenario.settings
    return LocatedFutures(
        Futures(
            tuple(f.spec() for f in futures),
            decide_by_month=settings.get("decide_by_month", 1),
            max_regret=settings.get("max_regret"),
            max_regret_share=settings.get("max_regret_share"),
        ),
        workloads=tuple(n for f in futures for n in f.named),
        gpus=tuple(n for f in futures for n in f.gpus),
        prices=tuple(p for f in futures for p in f.prices),
        decide_where=scenario.decide_where,
    )
