"""A scenario file entry's futures (issue 19): ``futures:``, ``decide_by_month``,
``max_regret`` and ``max_regret_share``.

Takes the entry's validated model (``scenario_file.models.FutureModel``: the shape
is checked there) and its YAML node for the lines; hands on a
:class:`FuturesOverride` and the problems only the entry shows: a future's
name twice, a price factor twice in one future, probabilities that do not sum
to 1, ``decide_by_month`` or a regret bound beside ``futures: []``.

What an entry means: without ``futures:`` it keeps its base scenario's futures
(sheet Futures), with its own ``decide_by_month`` and regret bounds on top
(``max_regret: null`` removes the base's bound); ``futures:`` replaces the
base's futures and, with them, their ``decide_by_month`` (back to 1 unless the
entry gives it) and regret bounds; ``futures: []`` removes them. Names in the
futures are checked against the scenario later (``futures.attach``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yaml.nodes import Node

from optimizer.domain import OfferOption
from optimizer.domain.futures import MAX_FUTURES, Futures, FutureSpec, PriceFactor, too_many_futures
from optimizer.errors import Problem
from optimizer.inputs.futures.located import (
    ONE_IN_SUM,
    SETTINGS,
    FutureSettings,
    LocatedFutures,
    LocatedPrice,
    Named,
    offers_named,
    sum_message,
)
from optimizer.inputs.scenario_file.lines import YamlWhere, _child, _key_lines
from optimizer.inputs.scenario_file.models import FutureModel, ScenarioModel


@dataclass(frozen=True)
class FuturesOverride:
    """What a scenario file entry says about futures."""

    settings: FutureSettings
    replaces: bool = False  # futures: given: it replaces the base's ([] removes them)
    own: LocatedFutures | None = None  # the entry's futures, when it gives some


def entry_futures(
    model: ScenarioModel,
    node: Node | None,
    where: YamlWhere,
    indices: Sequence[int] | None = None,
    complete: bool = True,
) -> tuple[FuturesOverride | None, list[Problem]]:
    """The entry's futures and settings (None when it says nothing of futures).

    ``indices``: where in the file's list each of ``model.futures`` is (when some
    were dropped for problems of their own); ``complete``: none was dropped, so
    the probabilities can be summed.
    """
    given = model.model_fields_set
    settings = FutureSettings(
        where=where,
        given=frozenset(k for k in SETTINGS if k in given),
        decide_by_month=model.decide_by_month or 1,
        max_regret=model.max_regret,
        max_regret_share=model.max_regret_share,
    )
    if "futures" not in given or model.futures is None:
        return (FuturesOverride(settings) if settings.given else None), []
    if not model.futures and not complete:
        return FuturesOverride(settings, replaces=True), []  # every future had problems
    if not model.futures:
        problems = [
            where.at(
                key,
                "is given, but futures: [] removes this scenario's futures",
                getattr(model, key),
                f"no {key} without futures",
            )
            for key in SETTINGS
            if key in settings.given
        ]
        return FuturesOverride(settings, replaces=True), problems
    if (too_many := too_many_futures(len(model.futures))) is not None:
        # Refused before each future is read: 10,000 of them must not take minutes.
        return FuturesOverride(settings, replaces=True), [
            where.at("futures", too_many, None, f"at most {MAX_FUTURES} futures")
        ]
    at = list(indices) if indices is not None else list(range(len(model.futures)))
    own, problems = _own_futures(model.futures, node, where, settings, at, complete)
    return FuturesOverride(settings, replaces=True, own=own), problems


def _own_futures(
    entries: list[FutureModel],
    node: Node | None,
    where: YamlWhere,
    settings: FutureSettings,
    at: Sequence[int],
    complete: bool,
) -> tuple[LocatedFutures, list[Problem]]:
    _, list_node = _child(node, "futures") if node is not None else (None, None)
    problems: list[Problem] = []
    specs: list[FutureSpec] = []
    workloads: list[Named] = []
    gpus: list[Named] = []
    prices: list[LocatedPrice] = []
    first: dict[str, tuple[int, int]] = {}  # name → (index, line) of its first entry
    for index, future in zip(at, entries, strict=True):
        entry_node = _child(list_node, index)[1] if list_node is not None else None
        here = _future_where(where, future.name, entry_node)
        seen = first.setdefault(future.name.lower(), (index, here.line))
        if seen[0] != index:
            problems.append(
                here.at(
                    "name",
                    f"a second future of this name in the scenario (first on line {seen[1]})",
                    future.name,
                    "a name used once per scenario",
                )
            )
        for key in ("demand_factors", "growth"):
            workloads.extend(
                Named(w, future.name, here, f"{key}.{w}") for w in getattr(future, key)
            )
        factors, found = _prices(future, entry_node, here, prices, gpus)
        problems.extend(found)
        specs.append(
            FutureSpec(
                name=future.name,
                probability=future.probability,
                demand_factor=1.0 if future.demand_factor is None else future.demand_factor,
                workload_demand_factors=tuple(future.demand_factors.items()),
                growth_per_month=future.growth_per_month,
                workload_growth=tuple(future.growth.items()),
                price_factors=factors,
            )
        )
    wrong_sum = sum_message(specs) if complete else None  # a future dropped: no sum to check
    if wrong_sum is not None:
        problems.append(where.at("futures", wrong_sum, None, ONE_IN_SUM))
    futures = Futures(
        tuple(specs),
        decide_by_month=settings.decide_by_month,
        max_regret=settings.max_regret,
        max_regret_share=settings.max_regret_share,
    )
    decide_where = where if "decide_by_month" in settings.given else None
    return LocatedFutures(futures, tuple(workloads), tuple(gpus), tuple(prices), decide_where), (
        problems
    )


def _future_where(where: YamlWhere, name: str, node: Node | None) -> YamlWhere:
    """``scenario 'x', future 'high'`` with the line of each key (``demand_factors.chat-8b`` too)."""
    lines = _key_lines(node)
    for key in ("demand_factors", "growth"):
        _, mapping = _child(node, key) if node is not None else (None, None)
        lines.update({f"{key}.{w}": line for w, line in _key_lines(mapping).items()})
    line = node.start_mark.line + 1 if node is not None else where.line
    return YamlWhere(where.file, line, f"{where.context}, future {name!r}", lines)


def _prices(
    future: FutureModel,
    node: Node | None,
    where: YamlWhere,
    located: list[LocatedPrice],
    gpus: list[Named],
) -> tuple[tuple[PriceFactor, ...], list[Problem]]:
    _, list_node = _child(node, "prices") if node is not None else (None, None)
    factors: list[PriceFactor] = []
    problems: list[Problem] = []
    first: dict[tuple[str | None, str | None], tuple[int, int]] = {}
    for index, price in enumerate(future.prices):
        entry_node = _child(list_node, index)[1] if list_node is not None else None
        line = entry_node.start_mark.line + 1 if entry_node is not None else where.line
        here = YamlWhere(
            where.file, line, f"{where.context}, prices entry {index + 1}", _key_lines(entry_node)
        )
        factor = PriceFactor(
            price.multiply, price.gpu, OfferOption(price.option) if price.option else None
        )
        seen = first.setdefault((price.gpu, price.option), (index, line))
        if seen[0] != index:
            problems.append(
                here.whole(
                    f"a second price factor for {offers_named(factor)} offers in this future "
                    f"(first on line {seen[1]})"
                )
            )
            continue
        factors.append(factor)
        located.append(LocatedPrice(factor, future.name, here, "multiply"))
        if price.gpu is not None:
            gpus.append(Named(price.gpu, future.name, here, "gpu"))
    return tuple(factors), problems
