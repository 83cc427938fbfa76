"""Demand over time (model v2 §E): rows of sheet ``Demand`` and of a scenario file's ``demand:``.

Takes the typed rows (workload, month, value) with where each came from and the
workloads they name; hands on the problems of each row (its workload unknown or
a training job, its month outside the window, a month given twice) and the
workloads with their ``demand_by_month`` filled in, for ``resolve`` to plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from optimizer.domain import Kind, Workload
from optimizer.errors import Problem
from optimizer.inputs.cells import Where, suggestion


@dataclass(frozen=True)
class DemandRow:
    """One month's demand of one workload, and where it was given."""

    workload: str
    month: int
    value: float
    where: Where


def demand_problems(
    rows: Sequence[DemandRow], workloads: Mapping[str, Workload], horizon: int | None = None
) -> list[Problem]:
    """Every row that cannot stand: unknown or training workload, month outside the window,
    the same workload and month twice. ``horizon``: a scenario's, where known (a window
    without ``end_month`` runs to it; rows past it are ignored, not errors)."""
    problems: list[Problem] = []
    first: dict[tuple[str, int], DemandRow] = {}
    for row in rows:
        w = workloads.get(row.workload)
        if w is None:
            problems.append(
                row.where.at(
                    "workload",
                    f"unknown workload{suggestion(row.workload, workloads)}",
                    row.workload,
                    "a workload of sheet Workloads (or added by the scenario)",
                )
            )
            continue
        if w.kind.is_training:
            problems.append(
                row.where.at(
                    "workload",
                    f"{row.workload!r} is {w.kind.value}: demand over time is for "
                    "realtime_inference and batch_inference workloads",
                    row.workload,
                    "a realtime_inference or batch_inference workload",
                )
            )
            continue
        end = w.end_month if w.end_month is not None else horizon
        past_horizon = horizon is not None and row.month > horizon and w.end_month is None
        if not past_horizon and (
            row.month < w.start_month or (end is not None and row.month > end)
        ):
            window = f"{w.start_month} to {end}" if end is not None else f"{w.start_month} on"
            problems.append(
                row.where.at(
                    "month",
                    f"outside the window of {row.workload!r} (months {window})",
                    row.month,
                    f"a month from {w.start_month}" + (f" to {end}" if end is not None else ""),
                )
            )
            continue
        key = (row.workload, row.month)
        if key in first:
            problems.append(
                row.where.at(
                    "month",
                    f"month {row.month} of {row.workload!r} is given twice "
                    f"(first at {first[key].where.label})",
                    row.month,
                    "one row per workload and month",
                )
            )
            continue
        first[key] = row
    return problems


def checkable_rows(
    rows: Sequence[DemandRow],
    workloads: Mapping[str, Workload],
    horizon: int | None,
    names_unsure: Callable[[str], bool] = lambda _name: False,
) -> list[DemandRow]:
    """The rows of a scenario file entry whose problems can be told for sure.

    Without its horizon (``horizon_months`` or the base had problems), a row before
    the start of a window that runs to the horizon is left out: its message names
    the horizon. So is a row naming a workload not known that ``names_unsure``
    says may be one whose ``add_workloads`` entry had problems.
    """
    kept = []
    for row in rows:
        w = workloads.get(row.workload)
        if w is None and names_unsure(row.workload):
            continue
        if (
            w is not None
            and horizon is None
            and w.end_month is None
            and not w.kind.is_training
            and row.month < w.start_month
        ):
            continue
        kept.append(row)
    return kept


def with_demand(
    workloads: Iterable[Workload], *layers: Sequence[DemandRow], horizon: int
) -> tuple[Workload, ...]:
    """The workloads with their months' demand: later layers replace earlier rows of the
    same workload and month; months past ``horizon`` are dropped."""
    by_workload: dict[str, dict[int, float]] = {}
    for layer in layers:
        for row in layer:
            if row.month <= horizon:
                by_workload.setdefault(row.workload, {})[row.month] = row.value
    return tuple(
        replace(w, demand_by_month=tuple(sorted(by_workload[w.name].items())))
        if w.name in by_workload and w.kind in (Kind.REALTIME_INFERENCE, Kind.BATCH_INFERENCE)
        else w
        for w in workloads
    )
