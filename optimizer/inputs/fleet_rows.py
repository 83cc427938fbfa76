"""What a company already has (model v2 §E): rows of sheet ``Fleet`` and of a scenario file's ``fleet:``.

Takes the typed values of each row with where it came from; hands on the
problems of a row on its own (a reservation without ``months_left``, an owned
row with one, a reservation with an age) and, for ``resolve``, the scenario's
:class:`~optimizer.domain.ExistingGpus` after a scenario file's rows have
replaced or added to the sheet's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from optimizer.domain import ExistingGpus, FleetKind
from optimizer.errors import Problem
from optimizer.inputs.cells import Where, suggestion


@dataclass(frozen=True)
class FleetEntry:
    """One row of sheet Fleet or of a scenario file's ``fleet:``, and where it was given."""

    gpu: str
    count: int
    kind: FleetKind
    price: float
    months_left: int | None
    age_months: int
    where: Where
    label: str  # how results name the row: "Fleet row 4", "fleet entry 1 of x.yaml"


def fleet_entry(
    values: Mapping[str, Any], where: Where, label: str
) -> tuple[FleetEntry | None, list[Problem]]:
    """The row as a :class:`FleetEntry`, or the problems of its kind's fields."""
    problems: list[Problem] = []
    kind = values.get("kind")
    if kind == FleetKind.RESERVED.value:
        if values.get("months_left") is None:
            problems.append(
                where.at(
                    "months_left",
                    "is blank; a reserved row needs the months of its term still to pay",
                    None,
                    "a whole number ≥ 1 (months)",
                )
            )
        if values.get("age_months"):
            problems.append(
                where.at(
                    "age_months",
                    "is only for owned rows, not reserved",
                    values["age_months"],
                    "blank",
                )
            )
    elif kind == FleetKind.OWNED.value and values.get("months_left") is not None:
        problems.append(
            where.at(
                "months_left",
                "is only for reserved rows, not owned (owned GPUs stay until sold)",
                values["months_left"],
                "blank",
            )
        )
    needed = {"gpu", "count", "kind", "price"}
    if problems or kind is None or not needed <= values.keys():
        return None, problems
    return (
        FleetEntry(
            gpu=values["gpu"],
            count=int(values["count"]),
            kind=FleetKind(str(kind)),
            price=float(values["price"]),
            months_left=values.get("months_left"),
            age_months=int(values.get("age_months") or 0),
            where=where,
            label=label,
        ),
        [],
    )


def unknown_gpu_problems(
    named: Sequence[tuple[str, Where]], gpu_names: Collection[str]
) -> list[Problem]:
    """A scenario file's rows (``(gpu, where)``) naming a GPU type the workbook lacks."""
    return [
        where.at(
            "gpu",
            f"no GPU type {gpu!r} in the workbook{suggestion(gpu, gpu_names)}",
            gpu,
            "a name from sheet GPUs",
        )
        for gpu, where in named
        if gpu not in gpu_names
    ]


def existing_fleet(
    sheet_rows: Sequence[FleetEntry], file_rows: Sequence[FleetEntry] = ()
) -> tuple[ExistingGpus, ...]:
    """The scenario's existing GPUs: a scenario file's rows replace every sheet row of the
    same GPU type and kind (a count of 0 removes them) and add the others; rows of
    count 0 are left out. Ids count each type's rows from 1 in that order."""
    replaced = {(e.gpu, e.kind) for e in file_rows}
    kept = [e for e in sheet_rows if (e.gpu, e.kind) not in replaced]
    counts: dict[str, int] = {}
    rows: list[ExistingGpus] = []
    for e in [*kept, *file_rows]:
        if e.count == 0:
            continue
        counts[e.gpu] = counts.get(e.gpu, 0) + 1
        rows.append(
            ExistingGpus(
                source_id=f"{e.gpu}|fleet|{counts[e.gpu]}",
                gpu=e.gpu,
                count=e.count,
                kind=e.kind,
                price=e.price,
                months_left=e.months_left if e.kind is FleetKind.RESERVED else None,
                age_months=e.age_months if e.kind is FleetKind.OWNED else 0,
                label=e.label,
            )
        )
    return tuple(rows)
