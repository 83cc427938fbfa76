"""What can still be checked of a workload whose row (or ``add_workloads`` entry) has problems.

Takes the cells of the row that read fine and the row's problems; hands on a
``PartialWorkload``: its name, and its window, recurrence, deadline and kind
where the cells they come from had no problem. ``resolve`` and ``reader`` run
the checks made later (windows against each scenario's horizon, Demand rows
against the window, a deadline against a month's hours) on it, so that one
run reports every problem. A check whose input had a problem is skipped, not
run on a guess; a partial workload is never solved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from optimizer.domain import Kind, Workload
from optimizer.errors import Problem
from optimizer.inputs.cells import Where
from optimizer.inputs.scenario_file.sound import maybe_added


@dataclass(frozen=True)
class PartialWorkload:
    """The sound part of a workload with problems; never planned."""

    name: str
    where: Where
    kind: Kind | None  # None: the cell had a problem
    window: tuple[int, int | None] | None  # (start_month, end_month); None: either had a problem
    recurring: bool  # runs_per_month is given (even with a problem of its own)
    deadline_hours: float | None  # None: blank, or not checkable (its cell or the kind had one)

    @property
    def name_and_window(self) -> tuple[str, int, int | None] | None:
        return None if self.window is None else (self.name, *self.window)

    def stand_in(self) -> Workload | None:
        """A workload of its kind and window for the Demand rows' checks (None: either unsure)."""
        if self.kind is None or self.window is None:
            return None
        return Workload(self.name, self.kind, start_month=self.window[0], end_month=self.window[1])


def partial_workload(
    values: Mapping[str, Any], where: Where, problems: Sequence[Problem]
) -> PartialWorkload | None:
    """The sound part of a row with ``problems`` (None without a sound name)."""
    bad = {p.about for p in problems}
    name = values.get("workload")
    if name is None or "workload" in bad:
        return None
    kind = Kind(values["kind"]) if "kind" in values and "kind" not in bad else None
    window = (
        None
        if bad & {"start_month", "end_month"}
        else (values.get("start_month", 1), values.get("end_month"))
    )
    deadline = values.get("deadline_hours")
    checkable = kind is not None and kind is not Kind.REALTIME_INFERENCE
    return PartialWorkload(
        name=name,
        where=where,
        kind=kind,
        window=window,
        recurring="runs_per_month" in values or "runs_per_month" in bad,
        deadline_hours=deadline if checkable and "deadline_hours" not in bad else None,
    )


def planned(
    partials: Iterable[PartialWorkload], workloads: Sequence[str] | None
) -> tuple[PartialWorkload, ...]:
    """The partial workloads a scenario planning ``workloads`` (None: all) would plan."""
    return tuple(p for p in partials if workloads is None or p.name in workloads)


def added_partials(
    partials: Iterable[PartialWorkload], taken: Mapping[str, object]
) -> tuple[PartialWorkload, ...]:
    """A scenario file entry's ``add_workloads`` with problems, but those whose name is
    ``taken`` (by the workbook or by an entry added): which one they mean is unsure."""
    return tuple(p for p in partials if p.name not in taken)


def stand_ins(partials: Iterable[PartialWorkload]) -> dict[str, Workload | None]:
    """Each partial workload's stand-in for the Demand rows' checks, by name."""
    return {p.name: p.stand_in() for p in partials}


def unsure_name(name: str, standing: Mapping[str, object], unsure: Iterable[str]) -> bool:
    """Whether a name a scenario file's demand row gives may be a workload with problems:
    a Workloads row (in ``standing``) or an ``add_workloads`` entry (``unsure``)."""
    return name in standing or maybe_added(name, frozenset(unsure))
