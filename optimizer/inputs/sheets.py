"""Each input sheet's rows as typed records, with the checks across rows and sheets.

Takes the ``SheetTable`` of each sheet (``tables``); hands on the GPU types,
offers, workloads, measurements, ``ScenarioRow`` and ``AssumptionRow`` records
whose rows are sound, and a ``Problem`` for every other row: unique names,
references that exist, duplicate measurements, ``tdp_w`` where a type can be
bought, Scenarios columns that would be ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, cast

from optimizer.domain import FleetKind, Gpu, Kind, Measurement, Offer, OfferOption, Workload
from optimizer.errors import Problem
from optimizer.inputs.cells import (
    BadValue,
    FieldSpec,
    SheetRow,
    Where,
    beyond,
    coerce,
    coerce_fields,
    column_letter,
    is_blank,
    name_suggestion,
    shown,
    suggestion,
)
from optimizer.inputs.fleet_rows import FleetEntry, fleet_entry
from optimizer.inputs.rows import (
    ASSUMPTION_SPECS,
    SCENARIO_FIELDS,
    SPECS,
    build_measurement,
    build_offer,
    offer_id,
)
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    FLEET,
    PRICES,
    RESIDUAL_KEYS,
    RESIDUAL_KEYS_CLASH,
    SCENARIOS,
    SHEET_ONLY_EXPECTED,
    SHEET_ONLY_KEYS,
    THROUGHPUT,
    ColumnType,
    Sheet,
    both_residual_keys,
    sheet_only_message,
)
from optimizer.inputs.tables import SheetTable, _raw_record, _rows

# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class ScenarioRow:
    """One row of sheet Scenarios: the non-blank cells, typed."""

    name: str
    where: SheetRow
    # Scenario fields given in the row (horizon_months ... exclude_gpus), typed.
    settings: Mapping[str, Any]
    assumptions: Mapping[str, float | bool | str]  # Assumptions keys given as columns

    def origin(self) -> str:
        return f"Scenarios sheet, row {self.where.row}"


@dataclass(frozen=True)
class AssumptionRow:
    """One row of sheet Assumptions."""

    key: str
    value: float | bool | str | None  # None: blank, the default stands
    source: str | None
    where: SheetRow


def _records(
    file: str,
    table: SheetTable | None,
    sheet: Sheet,
    build: Callable[[Mapping[str, Any], Where], tuple[Any, list[Problem]]],
    key: str,
    problems: list[Problem],
    partial: Callable[[Mapping[str, Any], Where, list[Problem]], Any] | None = None,
    prepare: Callable[[SheetRow, dict[str, Any], list[Problem]], tuple[Any, list[Problem]]]
    | None = None,
) -> tuple[tuple[Any, ...], set[str], dict[str, SheetRow]]:
    """Rows of a sheet whose rows are named (GPUs, Workloads), with unique names. ``partial``
    gets the sound cells and problems of each row with problems (not a duplicate's), for the
    checks still to make; ``prepare`` first changes a row (GPUs: the catalogue fills blanks)."""
    built = []
    names: set[str] = set()
    rows: dict[str, SheetRow] = {}
    seen: dict[str, SheetRow] = {}
    for where, read, problems_read in _rows(file, table, sheet):
        typed, found = (
            (read, problems_read) if prepare is None else prepare(where, read, problems_read)
        )
        problems.extend(found)
        name = typed.get(key)
        if name is not None:
            first = seen.get(name.lower())
            if first is not None:
                problems.append(
                    where.at(
                        key,
                        f"duplicate name (first in row {first.row})",
                        name,
                        "a name used once in the sheet",
                    )
                )
                continue
            seen[name.lower()] = where
            names.add(name)
            rows[name] = where
        record, more = build(typed, where)
        problems.extend(beyond(found, more))
        if record is not None and not found:
            built.append(record)
        elif partial is not None:
            partial(typed, where, [*found, *more])
    return tuple(built), names, rows


# Names of a sheet, or None when the sheet or its name column is missing:
# that is reported once, and references to the sheet are then not checked
# (every row would otherwise repeat it as "not a name in sheet GPUs").
Names = AbstractSet[str] | None


def _unknown(name: str, known: Names) -> bool:
    return known is not None and name not in known


def _checkable(names: AbstractSet[str], table: SheetTable | None, key: str) -> Names:
    return names if table is not None and key in table.columns else None


def _unknown_reference(
    where: Where, column: str, name: str, sheet: str, known: Iterable[str]
) -> Problem:
    return where.at(
        column,
        f"not a name in sheet {sheet}{suggestion(name, known)}",
        name,
        f"a name from sheet {sheet}",
    )


def _offers(
    file: str, table: SheetTable | None, gpu_names: Names, problems: list[Problem]
) -> tuple[Offer, ...]:
    offers = []
    counts: dict[tuple[str, str], int] = {}
    for where, typed, found in _rows(file, table, PRICES):
        bad = list(found)
        if "gpu" in typed and _unknown(typed["gpu"], gpu_names):
            bad.append(_unknown_reference(where, "gpu", typed["gpu"], "GPUs", gpu_names or ()))
        if bad:
            problems.extend(bad)
            continue
        number = offer_id(typed.get("gpu", ""), typed.get("option", ""), counts)
        offer, more = build_offer(typed, where, number, where.row)
        problems.extend(more)
        if offer is not None and not more:
            offers.append(offer)
    return tuple(offers)


def _fleet(
    file: str, table: SheetTable | None, gpu_names: Names, problems: list[Problem]
) -> tuple[FleetEntry, ...]:
    """Rows of sheet Fleet (model v2 §E), each checked on its own and against sheet GPUs."""
    entries = []
    for where, typed, found in _rows(file, table, FLEET):
        bad = list(found)
        if "gpu" in typed and _unknown(typed["gpu"], gpu_names):
            bad.append(_unknown_reference(where, "gpu", typed["gpu"], "GPUs", gpu_names or ()))
        entry, more = fleet_entry(typed, where, f"Fleet row {where.row}")
        bad += beyond(found, more)  # a bad months_left is not also "blank"
        if bad:
            problems.extend(bad)
        elif entry is not None:
            entries.append(entry)
    return tuple(entries)


def _measurements(
    file: str,
    table: SheetTable | None,
    workloads: Sequence[Workload],
    workload_names: Names,
    gpu_names: Names,
    problems: list[Problem],
    gpus: Sequence[Gpu] = (),
) -> tuple[tuple[Measurement, ...], dict[tuple[str, str], SheetRow]]:
    kinds = {w.name: w.kind for w in workloads}
    servers = {gpu.name: gpu for gpu in gpus}
    measurements = []
    rows: dict[tuple[str, str], SheetRow] = {}
    for where, typed, found in _rows(file, table, THROUGHPUT):
        bad = list(found)
        w, g = typed.get("workload"), typed.get("gpu")
        if w is not None and _unknown(w, workload_names):
            bad.append(_unknown_reference(where, "workload", w, "Workloads", workload_names or ()))
        if g is not None and _unknown(g, gpu_names):
            bad.append(_unknown_reference(where, "gpu", g, "GPUs", gpu_names or ()))
        if w is not None and g is not None:
            first = rows.get((w, g))
            if first is not None:
                bad.append(
                    where.at(
                        "gpu",
                        f"duplicate measurement of workload {w!r} on this GPU type "
                        f"(first in row {first.row})",
                        g,
                        "one Throughput row per workload and GPU type",
                    )
                )
            else:
                rows[(w, g)] = where
        kind = kinds.get(w) if w is not None else None
        if kind is Kind.REALTIME_INFERENCE and "gpu_hours" in typed:
            bad.append(
                where.at(
                    "gpu_hours",
                    f"is for training and batch_inference workloads; {w!r} is realtime_inference",
                    typed["gpu_hours"],
                    "blank (use tokens_per_second_per_replica)",
                )
            )
        if (
            kind is not None
            and kind is not Kind.REALTIME_INFERENCE
            and "tokens_per_second_per_replica" in typed
        ):
            bad.append(
                where.at(
                    "tokens_per_second_per_replica",
                    f"is for realtime_inference workloads; {w!r} is {kind.value}",
                    typed["tokens_per_second_per_replica"],
                    "blank (use gpu_hours)",
                )
            )
        gpu = servers.get(g) if g is not None else None
        if kind is Kind.REALTIME_INFERENCE and gpu is not None:
            bad.extend(_realtime_width_problems(where, typed.get("gpus_per_replica"), gpu))
        problems.extend(bad)
        m, _ = build_measurement(typed, where)
        if m is not None and not bad:
            measurements.append(m)
    return tuple(measurements), rows


def _realtime_width_problems(where: SheetRow, width: object, gpu: Gpu) -> list[Problem]:
    """A measured realtime width must divide ``max_per_node`` (model v2 §B, §D).

    A serving replica runs in one server and its place's servers hold whole
    replicas; a width that does not divide the server (3 of 8) leaves GPUs no
    replica can use, and the plan's replicas would not pack.
    """
    per_node = gpu.max_per_node
    if not isinstance(width, int) or width < 1 or per_node % width == 0:
        return []
    divisors = [str(d) for d in range(1, per_node + 1) if per_node % d == 0]
    listed = divisors[0] if len(divisors) == 1 else ", ".join(divisors[:-1]) + " or " + divisors[-1]
    return [
        where.at(
            "gpus_per_replica",
            f"a realtime_inference replica runs in one server and the servers of a place hold "
            f"whole replicas, so its width must divide max_per_node {per_node} of {gpu.name!r}",
            width,
            listed,
        )
    ]


def _tdp_needed(
    gpus: Sequence[Gpu],
    rows: Mapping[str, SheetRow],
    offers: Sequence[Offer],
    fleet: Sequence[FleetEntry] = (),
) -> list[Problem]:
    """Owned GPUs' power is costed: a type that can be owned needs its ``tdp_w``."""
    bought = {o.gpu for o in offers if o.option is OfferOption.BUY}
    existing = {e.gpu for e in fleet if e.kind is FleetKind.OWNED}
    return [
        rows[g.name].at(
            "tdp_w",
            f"is blank; GPU type {g.name!r} "
            + ("has a buy offer" if g.name in bought else "has owned rows in sheet Fleet")
            + ", and owned GPUs' power is costed",
            None,
            "a number > 0 (W)",
        )
        for g in gpus
        if (g.name in bought or g.name in existing) and g.tdp_w is None
    ]


def _scenario_header_problems(file: str, table: SheetTable) -> list[Problem]:
    """Scenarios columns that would be silently ignored: unknown names, or values without one.

    Every other sheet ignores extra columns; here an unknown column is most
    likely a mistyped Assumptions key, and a column with values but no name
    (blank, or only "(notes)") would be ignored just the same.
    """
    allowed = {c.name for c in SCENARIOS.columns} | set(ASSUMPTION_KEYS)
    width = max([len(table.header), *(len(values) for _, values in table.rows)])
    problems = []
    for index in range(width):
        header = table.header[index] if index < len(table.header) else ""
        letter = column_letter(index)
        if header:
            if header in allowed:
                continue
            message = f"unknown column {header!r}{name_suggestion(header, allowed)}"
            expected = "a scenario field or an Assumptions key"
        else:
            used = [r for r, row in table.rows if index < len(row) and not is_blank(row[index])]
            if not used:
                continue
            message = (
                f"column {letter} has values (first in row {used[0]}) but no name in its header"
            )
            expected = "a scenario field or an Assumptions key as the header"
        problems.append(
            Problem(
                file=file,
                sheet=table.name,
                row=1,
                cell=f"{letter}1",
                message=message,
                expected=expected,
            )
        )
    return problems


def _scenarios(
    file: str,
    table: SheetTable | None,
    gpu_names: Names,
    workload_names: Names,
    problems: list[Problem],
) -> tuple[tuple[ScenarioRow, ...], frozenset[str]]:
    if table is None:
        return (), frozenset()
    problems.extend(_scenario_header_problems(file, table))
    specs = {**SPECS[SCENARIOS.name], **ASSUMPTION_SPECS}
    rows = []
    seen: dict[str, SheetRow] = {}
    seen_names: set[str] = set()  # rows with problems included
    for r, values in table.rows:
        where = SheetRow(file, table.name, r, table.columns)
        typed, found = coerce_fields(specs, _raw_record(table, values, specs), where)
        bad = list(found)
        name: str | None = typed.get("scenario")
        if name is not None:
            first = seen.get(name.lower())
            if first is not None:
                bad.append(
                    where.at(
                        "scenario",
                        f"duplicate name (first in row {first.row})",
                        name,
                        "a name used once in the sheet",
                    )
                )
            seen.setdefault(name.lower(), where)
            seen_names.add(name)
        for column, known, sheet in (
            ("workloads", workload_names, "Workloads"),
            ("exclude_gpus", gpu_names, "GPUs"),
        ):
            bad.extend(
                _unknown_reference(where, column, n, sheet, known or ())
                for n in typed.get(column, ())
                if _unknown(n, known)
            )
        bad.extend(
            where.at(key, sheet_only_message(key), typed[key], SHEET_ONLY_EXPECTED)
            for key in SHEET_ONLY_KEYS
            if typed.get(key) is not None
        )
        problems.extend(bad)
        if name is not None and not bad:
            settings = {k: v for k, v in typed.items() if k in SCENARIO_FIELDS}
            assumptions = {k: v for k, v in typed.items() if k in ASSUMPTION_KEYS}
            if both_residual_keys(k for k, v in assumptions.items() if v is not None):
                problems.append(
                    where.at(
                        "residual_value",
                        RESIDUAL_KEYS_CLASH,
                        typed["residual_value"],
                        "one of the two columns",
                    )
                )
                continue
            rows.append(ScenarioRow(name, where, settings, assumptions))
    return tuple(rows), frozenset(seen_names)


def _assumptions(
    file: str, table: SheetTable | None, problems: list[Problem]
) -> tuple[AssumptionRow, ...]:
    if table is None:
        return ()
    for column in ("key", "value"):
        if column not in table.columns:
            problems.append(
                Problem(
                    file=file,
                    sheet=table.name,
                    row=1,
                    column=column,
                    message=f"required column {column} is missing",
                    expected=f"a header {column!r} in row 1",
                )
            )
    if "key" not in table.columns:
        return ()
    rows = []
    seen: dict[str, SheetRow] = {}
    key_spec = FieldSpec("key", ColumnType.TEXT, "an assumption key")
    source_spec = FieldSpec("source", ColumnType.TEXT, "text")
    for r, values in table.rows:
        where = SheetRow(file, table.name, r, table.columns)
        raw = _raw_record(table, values, ("key", "value", "source"))
        try:
            key = coerce(key_spec, raw.get("key"))
            source = coerce(source_spec, raw.get("source"))
        except BadValue as bad:
            problems.append(
                where.at("key", bad.message, shown(raw.get("key")), "an assumption key")
            )
            continue
        if not isinstance(key, str):
            problems.append(
                where.at("key", "is blank", shown(raw.get("value")), "an assumption key")
            )
            continue
        spec = ASSUMPTION_SPECS.get(key)
        if spec is None:
            problems.append(
                where.at(
                    "key",
                    f"unknown assumption key{name_suggestion(key, ASSUMPTION_KEYS)}",
                    key,
                    "a key listed in the README sheet",
                )
            )
            continue
        first = seen.get(key)
        if first is not None:
            problems.append(
                where.at("key", f"duplicate key (first in row {first.row})", key, "each key once")
            )
            continue
        seen[key] = where
        try:
            value = coerce(spec, raw.get("value"))
            if value is None and spec.label_chars:
                # A currency row left blank (or spaces, read as blank) is not USD by
                # silence: every money figure would carry a label nobody chose (issue 33).
                raise BadValue("is empty or only spaces (delete the row to plan in USD)")
        except BadValue as bad:
            problems.append(
                where.at(
                    "value",
                    f"{key}: {bad.message}",
                    shown(raw.get("value")),
                    bad.expected or spec.expected,
                )
            )
            continue
        # A NUMBER spec coerces to float, a BOOL spec to bool, a CHOICE spec to its word.
        rows.append(
            AssumptionRow(
                key, cast(float | bool | str | None, value), cast(str | None, source), where
            )
        )
    given = [row for row in rows if row.value is not None]
    if both_residual_keys(row.key for row in given):
        later = max(
            (row for row in given if row.key in RESIDUAL_KEYS), key=lambda row: row.where.row
        )
        problems.append(
            later.where.at("key", RESIDUAL_KEYS_CLASH, later.key, "one of the two keys")
        )
    return tuple(rows)
