"""A scenario file's ``add_workloads:`` entries, each read as a row of sheet Workloads.

Takes the entry's raw list and its YAML node; hands on the workloads added,
where each is in the file, the sound part of entries with problems (so their
window and deadline are still checked, model v2 §C) and the problems.
"""

from __future__ import annotations

from yaml.nodes import Node

from optimizer.domain import Workload
from optimizer.errors import Problem
from optimizer.inputs.cells import beyond, coerce_fields, suggestion
from optimizer.inputs.partial_rows import PartialWorkload, partial_workload
from optimizer.inputs.rows import SPECS, build_workload
from optimizer.inputs.scenario_file.lines import YamlWhere, _child, _key_lines
from optimizer.inputs.schema import WORKLOADS


def added_workloads(
    raw: object, node: Node | None, file: str, label: str
) -> tuple[tuple[Workload, ...], dict[str, YamlWhere], tuple[PartialWorkload, ...], list[Problem]]:
    """The entries added, where each is, the sound part of those with problems (but with an
    unknown key, which may be any column mistyped), and the problems."""
    if not isinstance(raw, list):
        return (), {}, (), []
    partials: dict[str, PartialWorkload] = {}
    _, list_node = _child(node, "add_workloads") if node is not None else (None, None)
    specs = SPECS[WORKLOADS.name]
    workloads = []
    wheres: dict[str, YamlWhere] = {}
    problems: list[Problem] = []
    for index, entry in enumerate(raw):
        entry_node = _child(list_node, index)[1] if list_node is not None else None
        line = entry_node.start_mark.line + 1 if entry_node is not None else 1
        where = YamlWhere(
            file, line, f"{label}, add_workloads entry {index + 1}", _key_lines(entry_node)
        )
        if not isinstance(entry, dict):
            problems.append(
                where.whole("must be a mapping of Workloads columns (workload: ..., kind: ...)")
            )
            continue
        unknown = [str(k) for k in entry if str(k) not in specs]
        nested = [str(k) for k, v in entry.items() if isinstance(v, dict | list)]
        bad = [
            where.at(k, "must be a single value, not a list or mapping", None, specs[k].expected)
            for k in nested
            if k in specs
        ]
        problems.extend(bad)
        problems.extend(
            where.at(
                k, f"unknown key{suggestion(k, specs)}", None, "a column of the Workloads sheet"
            )
            for k in unknown
        )
        values, found = coerce_fields(
            specs, {str(k): v for k, v in entry.items() if str(k) not in nested}, where
        )
        workload, more = build_workload(values, where)
        problems.extend([*found, *beyond(found, more)])
        if workload is None or found or unknown or nested:
            sound = None if unknown else partial_workload(values, where, [*bad, *found, *more])
            if sound is not None and sound.name not in wheres:
                partials.setdefault(sound.name, sound)
        else:
            if workload.name in wheres:
                problems.append(
                    where.at(
                        "workload",
                        f"added twice in this scenario (first on line {wheres[workload.name].line})",
                        workload.name,
                    )
                )
                continue
            workloads.append(workload)
            wheres[workload.name] = where
    return tuple(workloads), wheres, tuple(partials.values()), problems
