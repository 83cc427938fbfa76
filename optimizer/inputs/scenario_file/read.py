"""Reads a scenario file (YAML) into typed overrides, every problem with its line.

The file's shape is checked by closed pydantic models (``extra="forbid"``: an
unknown key is a typo that would be silently ignored; ``scenario_file.models``).
Line numbers come from ``yaml.compose``'s node marks (``scenario_file.lines``), so
each problem names the file and line. ``assumptions`` values and
``add_workloads`` entries follow the same rules as the Assumptions and
Workloads sheets, with the cell coercion of ``optimizer.inputs.cells`` and the
record builders of ``optimizer.inputs.rows``. References to the workbook (base
scenario, GPU and workload names, offers) are checked later, by
``optimizer.inputs.resolve``.

What an entry means, on top of its base scenario: a key that is absent keeps
the base's value; ``exclude_gpus`` and ``workloads`` replace the base's lists
(``exclude_gpus: []`` brings every GPU type back); a ``budget`` part (or
``power_cap_kw``) set to null removes that limit; ``add_workloads`` come on
top of the workloads kept. ``futures:`` and its settings (issue 19) are read
by ``futures.file``, which says what they mean on top of the base.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from yaml.nodes import Node

from optimizer.domain import OfferOption, Workload
from optimizer.errors import InputError, Problem
from optimizer.inputs.added_workloads import added_workloads
from optimizer.inputs.cells import BadValue, coerce, name_suggestion, shown
from optimizer.inputs.demand_rows import DemandRow
from optimizer.inputs.files import unreadable_reason
from optimizer.inputs.fleet_rows import FleetEntry, fleet_entry
from optimizer.inputs.futures.file import FuturesOverride, entry_futures
from optimizer.inputs.partial_rows import PartialWorkload
from optimizer.inputs.rows import ASSUMPTION_SPECS
from optimizer.inputs.scenario_file.lines import (
    YamlWhere,
    _child,
    _entry_wheres,
    _key_lines,
    _pydantic_problems,
    _structure_problems,
)
from optimizer.inputs.scenario_file.models import FileModel, ScenarioModel
from optimizer.inputs.scenario_file.sound import (
    SoundPart,
    dropped_gpus,
    hidden_price_problems,
    sound_part,
    unsure_added,
)
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    RESIDUAL_KEYS_CLASH,
    SHEET_ONLY_EXPECTED,
    SHEET_ONLY_KEYS,
    both_residual_keys,
    sheet_only_message,
)

MAX_FILE_BYTES = 5 * 1024 * 1024  # a scenario file is a page of text; refuse anything huge
# libyaml's loader where PyYAML has it (the same safe types and marks, many times faster).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class PriceChange:
    """A ``prices`` entry: every offer of ``gpu`` and ``option`` gets a new price."""

    gpu: str
    option: OfferOption
    multiply: float | None
    price: float | None
    where: YamlWhere


@dataclass(frozen=True)
class ScenarioEntry:
    """One scenario of the file: only what it sets (``None`` budgets remove a limit)."""

    name: str
    where: YamlWhere
    base: str | None
    settings: Mapping[
        str, Any
    ]  # scenario fields as in sheet Scenarios (budget_total, workloads, ...)
    assumptions: Mapping[str, float | bool | str]
    prices: tuple[PriceChange, ...] = ()
    add_workloads: tuple[Workload, ...] = ()
    add_workload_wheres: Mapping[str, YamlWhere] = field(default_factory=dict)
    add_workload_partials: tuple[PartialWorkload, ...] = ()  # entries with problems, in part
    demand: tuple[DemandRow, ...] = ()  # model v2 §E: rows as in sheet Demand
    fleet: tuple[FleetEntry, ...] = ()  # model v2 §E: rows as in sheet Fleet
    futures: FuturesOverride | None = None  # issue 19: futures:, decide_by_month, max_regret*
    # Built from the entry's sound keys only: its other keys have problems,
    # already reported. It is checked (but what depends on ``unsure``) and never solved.
    partial: bool = False
    unsure: frozenset[str] = frozenset()  # keys with problems: checks that need them are skipped
    price_gpus: tuple[tuple[str, YamlWhere], ...] = ()  # GPU types of price changes dropped
    fleet_gpus: tuple[tuple[str, YamlWhere], ...] = ()  # GPU type of every fleet entry

    def origin(self, key: str) -> str:
        """Where a setting or assumption of this entry was written: ``eu.yaml, line 12``."""
        return (
            f"{Path(self.where.file).name}, line {self.where.key_lines.get(key, self.where.line)}"
        )


@dataclass(frozen=True)
class ScenarioFile:
    path: Path
    workbook: Path  # resolved relative to the file
    workbook_where: YamlWhere
    scenarios: tuple[ScenarioEntry, ...]


# ---------------------------------------------------------------- reading


def parse_scenario_file(path: Path) -> tuple[ScenarioFile | None, list[Problem]]:
    """Read a scenario file: its sound entries (None when it is unusable as a whole) and every problem."""
    file = str(path)
    if (why := unreadable_reason(path)) is not None:
        return None, [Problem(file=file, message=why)]
    size = path.stat().st_size
    if size == 0:
        return None, [
            Problem(
                file=file,
                message="the file is empty",
                expected="a scenario file (workbook: ..., scenarios: [...])",
            )
        ]
    if size > MAX_FILE_BYTES:
        return None, [
            Problem(
                file=file,
                message=f"the file is {size / 2**20:,.1f} MB",
                expected=f"at most {MAX_FILE_BYTES // 2**20} MB",
            )
        ]
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            Problem(file=file, message=f"is not UTF-8 text ({exc.reason} at byte {exc.start})")
        ]
    loader = _LOADER(text)
    try:
        # Composed once (libyaml where installed): the nodes give the lines, then the data.
        root = loader.get_single_node()
        if root is None:
            return None, [
                Problem(
                    file=file,
                    message="the file holds no YAML document",
                    expected="workbook: ... and scenarios: [...]",
                )
            ]
        problems = _structure_problems(file, root)
        if problems:
            return None, problems
        data = loader.construct_document(root)
    except RecursionError:
        return None, [Problem(file=file, message="is nested too deeply to be a scenario file")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(exc, "problem", None) or str(exc)
        if "maximum nesting depth" in reason:  # libyaml's word for the RecursionError above
            return None, [Problem(file=file, message="is nested too deeply to be a scenario file")]
        return None, [Problem(file=file, row=line, message=f"is not valid YAML: {reason}")]
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        return None, [
            Problem(
                file=file,
                row=1,
                message="must be a mapping with keys workbook and scenarios",
                value=shown(data) if not isinstance(data, list) else None,
            )
        ]
    try:
        top = FileModel.model_validate(data)
    except ValidationError as exc:
        problems = _pydantic_problems(file, root, exc)
        if isinstance(data.get("scenarios"), list):
            # Still check the scenarios, so one pass reports everything.
            problems.extend(
                p for i, s in enumerate(data["scenarios"]) for p in _scenario(path, root, i, s)[1]
            )
        return None, problems
    problems = []
    entries = []
    names: dict[str, int] = {}
    for index, raw in enumerate(top.scenarios):
        entry, found = _scenario(path, root, index, raw)
        problems.extend(found)
        # Names are compared even for entries with problems of their own, so a
        # clash is reported in the same run. Case is ignored: result sheets are
        # named after scenarios.
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and name:
            line = _entry_line(root, index)
            first = names.get(name.lower())
            if first is not None:
                problems.append(
                    Problem(
                        file=file,
                        row=line,
                        message=f"scenario {name!r}: scenario name used twice (first on line {first})",
                    )
                )
            names.setdefault(name.lower(), line)
        if entry is not None:
            entries.append(entry)
    _, workbook_node = _child(root, "workbook")
    workbook_where = YamlWhere(file, (workbook_node or root).start_mark.line + 1, "workbook")
    result = ScenarioFile(
        path=path,
        workbook=path.parent / top.workbook,
        workbook_where=workbook_where,
        scenarios=tuple(entries),
    )
    # The entries that are sound come back too, so the workbook is still read and
    # checked: one run reports the problems of both files.
    return result, problems


def read_scenario_file(path: Path) -> ScenarioFile:
    """Read a scenario file; raise one InputError with every problem found."""
    result, problems = parse_scenario_file(path)
    if problems or result is None:
        raise InputError(problems or [Problem(file=str(path), message="cannot be read")])
    return result


def _entry_node(root: Node, index: int) -> Node | None:
    _, scenarios_node = _child(root, "scenarios")
    return _child(scenarios_node, index)[1] if scenarios_node is not None else None


def _entry_line(root: Node, index: int) -> int:
    node = _entry_node(root, index)
    return node.start_mark.line + 1 if node is not None else 1


def _scenario(
    path: Path, root: Node, index: int, raw: object
) -> tuple[ScenarioEntry | None, list[Problem]]:
    file = str(path)
    loc: tuple[object, ...] = ("scenarios", index)
    node = _entry_node(root, index)
    line = _entry_line(root, index)
    if not isinstance(raw, dict):
        return None, [
            Problem(
                file=file,
                row=line,
                message=f"scenarios.{index}: must be a mapping (name: ..., ...)",
            )
        ]
    label = f"scenario {raw.get('name', index + 1)!r}"
    where = YamlWhere(file, line, label, _key_lines(node))
    problems: list[Problem] = []
    price_wheres = _wheres(node, "prices", file, label, raw)
    try:
        sound = SoundPart(ScenarioModel.model_validate(raw))
    except ValidationError as exc:
        problems.extend(_pydantic_problems(file, root, exc, loc, label))
        sound = sound_part(raw, exc)
        problems.extend(hidden_price_problems(raw, sound, price_wheres))
    unsure = set(sound.bad)
    assumptions, found = _assumptions(raw.get("assumptions"), node, where)
    problems.extend(found)
    unsure.update(p.about for p in found if p.about)
    added, wheres, partials, found = added_workloads(raw.get("add_workloads"), node, file, label)
    problems.extend(found)
    unsure.update(unsure_added(raw.get("add_workloads"), wheres) if found else ())
    model = sound.model
    if model is None:
        return None, problems
    settings: dict[str, Any] = {}
    key_lines = dict(where.key_lines)
    given = model.model_fields_set
    for name in ("horizon_months", "power_cap_kw", "allow_buy", "allow_rent"):
        if name in given:
            settings[name] = getattr(model, name)
    for name in ("exclude_gpus", "workloads"):
        if name in given:
            settings[name] = tuple(getattr(model, name))
    if "budget" in given:
        _, budget_node = _child(node, "budget") if node is not None else (None, None)
        budget_lines = _key_lines(budget_node)
        for piece in ("total", "capex", "monthly"):
            if model.budget is None or piece in model.budget.model_fields_set:
                settings[f"budget_{piece}"] = (
                    None if model.budget is None else getattr(model.budget, piece)
                )
                key_lines[f"budget_{piece}"] = budget_lines.get(
                    piece, key_lines.get("budget", line)
                )
    _, assumptions_node = _child(node, "assumptions") if node is not None else (None, None)
    key_lines.update(_key_lines(assumptions_node))
    where = YamlWhere(file, line, label, key_lines)
    prices = tuple(
        PriceChange(price.gpu, OfferOption(price.option), price.multiply, price.price, at)
        for price, at in zip(model.prices, _kept(sound, "prices", price_wheres), strict=False)
    )
    demand = tuple(
        DemandRow(row.workload, row.month, row.value, at)
        for row, at in zip(
            model.demand,
            _kept(sound, "demand", _wheres(node, "demand", file, label, raw)),
            strict=False,
        )
    )
    fleet_wheres = _wheres(node, "fleet", file, label, raw)
    fleet, fleet_gpus, fleet_problems = _fleet(model, _kept(sound, "fleet", fleet_wheres), file)
    problems.extend(fleet_problems)
    unsure.update(["fleet"] if fleet_problems else [])
    # In file order. By position, not list.index: that made 90,000 entries quadratic.
    position = {id(w): i for i, w in enumerate(fleet_wheres)}
    fleet_gpus = tuple(
        sorted(
            (*fleet_gpus, *dropped_gpus(sound, "fleet", fleet_wheres)),
            key=lambda g: position[id(g[1])],
        )
    )
    # The futures' own problems leave the entry whole: its names are still checked.
    futures, futures_problems = entry_futures(
        model, node, where, sound.indices.get("futures"), not sound.dropped.get("futures")
    )
    entry = ScenarioEntry(
        name=model.name,
        where=where,
        base=model.base,
        settings=settings,
        assumptions=assumptions,
        prices=prices,
        add_workloads=added,
        add_workload_wheres=wheres,
        add_workload_partials=partials,
        demand=demand,
        fleet=fleet,
        futures=futures,
        partial=bool(problems),
        unsure=frozenset(unsure),
        price_gpus=dropped_gpus(sound, "prices", price_wheres),
        fleet_gpus=fleet_gpus,
    )
    return entry, [*problems, *futures_problems]


def _assumptions(
    raw: object, node: Node | None, where: YamlWhere
) -> tuple[dict[str, float | bool | str], list[Problem]]:
    if not isinstance(raw, dict):
        return {}, []  # absent, or the wrong shape: pydantic reports that
    _, assumptions_node = _child(node, "assumptions") if node is not None else (None, None)
    lines = {f"assumptions.{k}": line for k, line in _key_lines(assumptions_node).items()}
    local = YamlWhere(where.file, where.line, where.context, lines)
    values: dict[str, float | bool | str] = {}
    problems = []
    for key, value in raw.items():
        spec = ASSUMPTION_SPECS.get(str(key))
        if spec is None:
            problems.append(
                local.at(
                    f"assumptions.{key}",
                    f"unknown assumption key{name_suggestion(str(key), ASSUMPTION_KEYS)}",
                    None,
                    "a key of the Assumptions sheet",
                )
            )
            continue
        try:
            typed = coerce(spec, value)
        except BadValue as bad:
            problems.append(
                local.at(f"assumptions.{key}", bad.message, shown(value), spec.expected)
            )
            continue
        if typed is None:
            problems.append(local.at(f"assumptions.{key}", "is empty", None, spec.expected))
            continue
        if key in SHEET_ONLY_KEYS:
            problems.append(
                local.at(f"assumptions.{key}", sheet_only_message(key), typed, SHEET_ONLY_EXPECTED)
            )
            continue
        if isinstance(typed, float | bool | str):
            values[str(key)] = typed
    if both_residual_keys(values):
        problems.append(
            local.at(
                "assumptions.residual_value",
                RESIDUAL_KEYS_CLASH,
                values["residual_value"],
                "one of the two keys",
            )
        )
    return values, problems


def _wheres(
    node: Node | None, key: str, file: str, label: str, raw: Mapping[str, Any]
) -> list[YamlWhere]:
    """Where each entry of the list ``key`` of the entry is, by its index in the file."""
    entries = raw.get(key)
    count = len(entries) if isinstance(entries, list) else 0
    return list(islice(_entry_wheres(node, key, file, label), count))


def _kept(part: SoundPart, key: str, wheres: list[YamlWhere]) -> list[YamlWhere]:
    """Where each entry of the list ``key`` that the sound part kept is."""
    indices = part.indices.get(key)
    return wheres if indices is None else [wheres[i] for i in indices]


def _fleet(
    model: ScenarioModel, wheres: list[YamlWhere], file: str
) -> tuple[tuple[FleetEntry, ...], tuple[tuple[str, YamlWhere], ...], list[Problem]]:
    """The entry's ``fleet:`` rows, each checked as a row of sheet Fleet, and the GPU
    type each names (rows with problems too, for the reference check)."""
    entries: list[FleetEntry] = []
    gpus: list[tuple[str, YamlWhere]] = []
    problems: list[Problem] = []
    for row, where in zip(model.fleet, wheres, strict=False):
        gpus.append((row.gpu, where))
        values = row.model_dump(exclude_none=True)
        # Results name the row "fleet entry 2 of eu.yaml".
        name = f"{where.context.rsplit(', ', 1)[-1]} of {Path(file).name}"
        entry, found = fleet_entry(values, where, name)
        problems.extend(found)
        if entry is not None:
            entries.append(entry)
    return tuple(entries), tuple(gpus), problems
