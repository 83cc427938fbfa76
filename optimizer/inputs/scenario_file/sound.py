"""The sound part of a scenario file entry whose shape has problems, entry by entry.

Takes one ``scenarios`` entry as loaded and pydantic's ``ValidationError`` for
it; hands on the entry's model without what has problems, so every other part
is still checked in the same run. A key with a problem is left out; inside the
lists (``prices``, ``demand``, ``fleet``, ``futures``) only the entries with
problems are: an entry whose bad keys can be left out keeps its other keys,
one that cannot is dropped, and the GPU type it names is kept for the
reference checks. ``bad`` names the keys that had problems, so checks that
depend on them are skipped rather than run on a guess (``resolve``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from optimizer.errors import Problem
from optimizer.inputs.scenario_file.lines import YamlWhere
from optimizer.inputs.scenario_file.models import (
    DemandModel,
    FleetModel,
    FutureModel,
    PriceModel,
    ScenarioModel,
    _name,
)

LISTS: dict[str, type[BaseModel]] = {
    "prices": PriceModel,
    "demand": DemandModel,
    "fleet": FleetModel,
    "futures": FutureModel,
}
ONE_OF = "give exactly one of multiply or price"


@dataclass(frozen=True)
class SoundPart:
    """An entry's sound part: its model, where each kept list entry was, what was dropped."""

    model: ScenarioModel | None
    bad: frozenset[str] = frozenset()  # keys with problems (in some of their entries, for a list)
    indices: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # list → kept entries
    dropped: Mapping[str, tuple[tuple[int, Mapping[str, Any]], ...]] = field(
        default_factory=dict
    )  # list → (index, the sound keys) of each entry dropped
    # list → index → the keys with problems of each entry (None: the entry as a whole)
    entry_errors: Mapping[str, Mapping[int, frozenset[str | None]]] = field(default_factory=dict)


def sound_part(raw: Mapping[str, Any], error: ValidationError) -> SoundPart:
    """``raw`` without what ``error`` found wrong. No model when the name is bad or nothing fits."""
    whole: set[str] = set()
    in_entries: dict[str, dict[int, set[str | None]]] = {}
    for err in error.errors():
        loc = err["loc"]
        if not loc:
            continue
        key = str(loc[0])
        if (
            key in LISTS
            and len(loc) >= 2
            and isinstance(loc[1], int)
            and isinstance(raw.get(key), list)
        ):
            inner = str(loc[2]) if len(loc) >= 3 else None  # None: the entry as a whole
            in_entries.setdefault(key, {}).setdefault(loc[1], set()).add(inner)
        else:
            whole.add(key)
    bad = frozenset(whole | in_entries.keys())
    if "name" in whole:
        return SoundPart(None, bad)
    cleaned = {k: v for k, v in raw.items() if str(k) not in whole}
    indices: dict[str, tuple[int, ...]] = {}
    dropped: dict[str, tuple[tuple[int, Mapping[str, Any]], ...]] = {}
    for key, entries in in_entries.items():
        kept, lost = _sound_entries(LISTS[key], raw[key], entries)
        cleaned[key] = [entry for _, entry in kept]
        indices[key] = tuple(index for index, _ in kept)
        dropped[key] = tuple(lost)
    try:
        model = ScenarioModel.model_validate(cleaned)
    except ValidationError:
        return _without(raw, bad)
    errors = {k: {i: frozenset(v) for i, v in e.items()} for k, e in in_entries.items()}
    return SoundPart(model, bad, indices, dropped, errors)


def _without(raw: Mapping[str, Any], bad: frozenset[str]) -> SoundPart:
    """``raw`` without every key that had a problem, lists and all."""
    try:
        model = ScenarioModel.model_validate({k: v for k, v in raw.items() if str(k) not in bad})
    except ValidationError:
        return SoundPart(None, bad)
    return SoundPart(model, bad)


def _sound_entries(
    model: type[BaseModel], entries: list[Any], bad: Mapping[int, set[str | None]]
) -> tuple[list[tuple[int, Any]], list[tuple[int, Mapping[str, Any]]]]:
    """The entries kept (each without its bad keys) and the ones dropped (their sound keys)."""
    kept: list[tuple[int, Any]] = []
    lost: list[tuple[int, Mapping[str, Any]]] = []
    for index, entry in enumerate(entries):
        keys = bad.get(index)
        if keys is None:
            kept.append((index, entry))
            continue
        if not isinstance(entry, dict):
            lost.append((index, {}))
            continue
        sound = {k: v for k, v in entry.items() if str(k) not in keys}
        try:
            model.model_validate(sound)
        except ValidationError:
            lost.append((index, sound))
            continue
        if None in keys:  # the entry as a whole has a problem (its own validator)
            lost.append((index, sound))
        else:
            kept.append((index, sound))
    return kept, lost


def hidden_price_problems(
    raw: Mapping[str, Any], part: SoundPart, wheres: list[YamlWhere]
) -> list[Problem]:
    """``give exactly one of multiply or price`` for price entries whose keys had problems.

    Pydantic checks an entry as a whole only once its keys are sound, so this
    problem would show only after the others are fixed.
    """
    prices = raw.get("prices")
    if not isinstance(prices, list):
        return []
    problems = []
    for index, keys in sorted(part.entry_errors.get("prices", {}).items()):
        entry = prices[index] if index < len(prices) else None
        if None in keys or not isinstance(entry, dict) or index >= len(wheres):
            continue  # the entry as a whole was checked, or it is no mapping
        if (entry.get("multiply") is None) == (entry.get("price") is None):
            problems.append(wheres[index].whole(ONE_OF))
    return problems


def maybe_added(name: str, unsure: Collection[str]) -> bool:
    """Whether ``name`` may be the workload an ``add_workloads`` entry with problems adds
    (``unsure`` holds ``add_workloads.<name>`` for each, or ``add_workloads`` when one is
    nameless): a name the workbook lacks is then no problem of its own."""
    return "add_workloads" in unsure or f"add_workloads.{name}" in unsure


def unsure_added(raw: object, added: Collection[str]) -> set[str]:
    """``add_workloads.<name>`` for each entry of ``raw`` not ``added``; ``add_workloads``
    when such an entry has no name to tell."""
    if not isinstance(raw, list):
        return set()
    unsure = set()
    for entry in raw:
        name = _name(entry.get("workload")) if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name:
            unsure.add("add_workloads")
        elif name not in added:
            unsure.add(f"add_workloads.{name}")
    return unsure


def dropped_gpus(
    part: SoundPart, key: str, wheres: list[YamlWhere]
) -> tuple[tuple[str, YamlWhere], ...]:
    """The GPU type each dropped entry of ``key`` names, where its ``gpu`` is sound."""
    named = []
    for index, sound in part.dropped.get(key, ()):
        gpu = _name(sound.get("gpu"))
        if isinstance(gpu, str) and gpu and index < len(wheres):
            named.append((gpu, wheres[index]))
    return tuple(named)
