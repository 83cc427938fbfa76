"""Futures as read (issue 19): a scenario's :class:`~optimizer.domain.futures.Futures` with
where each part was given, and the checks that need the scenario they reach.

Sheet ``Futures`` (``futures.rows``) and a scenario file's ``futures:``
(``futures.file``) both hand on :class:`LocatedFutures`; ``futures.attach``
gives each resolved scenario its own and checks them against it, after every
override: ``decide_by_month`` inside the horizon, every workload named one the
scenario plans (and not a training job: its demand does not scale), every GPU
type named one it keeps, and every price factor changing some offer of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from optimizer.domain import Scenario, Workload
from optimizer.domain.futures import PROBABILITY_TOLERANCE, Futures, FutureSpec, PriceFactor
from optimizer.errors import Problem
from optimizer.inputs.cells import Where, suggestion
from optimizer.inputs.scenario_file.sound import maybe_added

SETTINGS = ("decide_by_month", "max_regret", "max_regret_share")  # per scenario, not per future
SCALED = "a realtime_inference or batch_inference workload"
ONE_IN_SUM = "probabilities that sum to 1"


@dataclass(frozen=True)
class Named:
    """A workload or GPU type a future names, and where (checked against each scenario)."""

    name: str
    future: str
    where: Where
    column: str  # the column or key that names it: workload, demand_factors.chat-8b, gpu


@dataclass(frozen=True)
class LocatedPrice:
    """A future's price factor, and where (it must change some offer of the scenario)."""

    factor: PriceFactor
    future: str
    where: Where
    column: str  # price_factor (sheet) or multiply (scenario file)


@dataclass(frozen=True)
class FutureSettings:
    """``decide_by_month`` and the regret bounds as a scenario file entry gives them."""

    where: Where  # the entry, with the line of each key
    given: frozenset[str] = frozenset()  # which of SETTINGS the entry gives
    decide_by_month: int = 1
    max_regret: float | None = None  # given as null: no bound
    max_regret_share: float | None = None


@dataclass(frozen=True)
class LocatedFutures:
    """A scenario's futures, with where each name and ``decide_by_month`` were given."""

    futures: Futures
    workloads: tuple[Named, ...] = ()
    gpus: tuple[Named, ...] = ()
    prices: tuple[LocatedPrice, ...] = ()
    decide_where: Where | None = None  # None: the default, month 1


def training_message(workload: Workload) -> str:
    return (
        f"{workload.name!r} is {workload.kind.value}: the demand of a training job does not "
        "scale in a future (demand factors and growth are for realtime_inference and "
        "batch_inference workloads)"
    )


def sum_message(specs: Sequence[FutureSpec]) -> str | None:
    """Why the futures' probabilities do not sum to 1, or None when they do."""
    total = sum(f.probability for f in specs)
    if abs(total - 1.0) <= PROBABILITY_TOLERANCE:
        return None
    each = ", ".join(f"{f.name} {f.probability:g}" for f in specs)
    return f"the probabilities of its futures ({each}) sum to {total:.10g}, not 1"


def offers_named(factor: PriceFactor) -> str:
    """``H100 spot``, ``spot``, ``H100`` or ``any``: the offers a factor multiplies."""
    parts = [p for p in (factor.gpu, factor.option.value if factor.option else None) if p]
    return " ".join(parts) or "any"


def futures_problems(
    scenario: Scenario,
    located: LocatedFutures,
    known_workloads: Mapping[str, Workload],
    known_gpus: frozenset[str],
    horizon_origin: str | None,
    unsure: frozenset[str] = frozenset(),
) -> list[Problem]:
    """What does not fit ``scenario`` (after every override) in the futures it carries.

    ``unsure``: the scenario file entry's keys that had problems of their own;
    a check that depends on one is skipped, not run on the base's value.
    """
    problems = (
        [] if "horizon_months" in unsure else _decide_problems(scenario, located, horizon_origin)
    )
    problems += _workload_problems(scenario, located.workloads, known_workloads, unsure)
    gpu_problems = _gpu_problems(scenario, located.gpus, known_gpus, unsure)
    # Named but not kept: reported above (or skipped), never again as "no offer".
    left_out = {n.name for n in located.gpus} - {g.name for g in scenario.gpus}
    if unsure & {"exclude_gpus", "allow_buy", "allow_rent"}:
        return problems + gpu_problems  # the offers kept depend on them
    for p in located.prices:
        if p.factor.gpu in left_out or any(
            p.factor.applies_to(o.gpu, o.option) for o in scenario.offers
        ):
            continue
        gpu_problems.append(
            p.where.at(
                p.column,
                f"scenario {scenario.name!r} has no {offers_named(p.factor)} offer, so this "
                f"factor of future {p.future!r} would change no price",
                p.factor.factor,
                "a factor for a GPU type and option the scenario offers (sheet Prices)",
            )
        )
    return problems + gpu_problems


def _decide_problems(
    scenario: Scenario, located: LocatedFutures, horizon_origin: str | None
) -> list[Problem]:
    decide, horizon = located.futures.decide_by_month, scenario.horizon_months
    if located.decide_where is None or decide <= horizon:
        return []
    set_in = (
        f" (horizon_months from {horizon_origin})" if horizon_origin else " (the default horizon)"
    )
    return [
        located.decide_where.at(
            "decide_by_month",
            f"month {decide} is past the {horizon}-month horizon of scenario "
            f"{scenario.name!r}{set_in}",
            decide,
            f"a month from 1 to {horizon}",
        )
    ]


def _workload_problems(
    scenario: Scenario,
    named: Sequence[Named],
    known: Mapping[str, Workload],
    unsure: frozenset[str] = frozenset(),
) -> list[Problem]:
    planned = {w.name: w for w in scenario.workloads}
    problems = []
    for n in named:
        w = planned.get(n.name)
        if ("workloads" in unsure and n.name in known) or (
            n.name not in known and maybe_added(n.name, unsure)
        ):
            continue  # the workloads planned, or the names added, are not known for sure
        if w is None and n.name in known:
            message = (
                f"scenario {scenario.name!r} does not plan workload {n.name!r} "
                f"(its workloads: {', '.join(planned) or 'none'})"
            )
            expected = f"a workload scenario {scenario.name!r} plans"
            problems.append(n.where.at(n.column, message, n.name, expected))
        elif w is None:
            problems.append(
                n.where.at(
                    n.column,
                    f"no workload {n.name!r} in the workbook{suggestion(n.name, known)}",
                    n.name,
                    "a name from sheet Workloads (or added by the scenario)",
                )
            )
        elif w.kind.is_training:
            problems.append(n.where.at(n.column, training_message(w), n.name, SCALED))
    return problems


def _gpu_problems(
    scenario: Scenario,
    named: Sequence[Named],
    known: frozenset[str],
    unsure: frozenset[str] = frozenset(),
) -> list[Problem]:
    kept = {g.name for g in scenario.gpus}
    problems = []
    for n in named:
        if n.name in kept:
            continue
        if n.name in known and unsure & {"exclude_gpus", "fleet"}:
            continue  # the types kept depend on them
        if n.name in known:
            message = f"scenario {scenario.name!r} leaves out GPU type {n.name!r} (exclude_gpus)"
            expected = f"a GPU type scenario {scenario.name!r} keeps"
            problems.append(n.where.at(n.column, message, n.name, expected))
        else:
            problems.append(
                n.where.at(
                    n.column,
                    f"no GPU type {n.name!r} in the workbook{suggestion(n.name, known)}",
                    n.name,
                    "a name from sheet GPUs",
                )
            )
    return problems


def with_settings(base: LocatedFutures, settings: FutureSettings) -> LocatedFutures:
    """``base`` with a scenario file entry's ``decide_by_month`` and regret bounds on top."""
    changes = {key: getattr(settings, key) for key in settings.given}
    decide_where = settings.where if "decide_by_month" in settings.given else base.decide_where
    return replace(base, futures=replace(base.futures, **changes), decide_where=decide_where)
