"""Warnings for Assumptions values that are allowed but physically implausible.

The contract only asks ``hours_per_month`` and ``pue`` to be more than 0, so
gpumix plans with whatever is given; but a month of 7,300 hours (a typo for
730) or a PUE of 0.5 (a site drawing less power than its GPUs) changes every
cost quietly. Each such cell gets one warning naming the file, sheet, cell
and value and saying why, wherever it was set: sheet Assumptions or a
scenario's row in sheet Scenarios, or a scenario file's ``assumptions:``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from optimizer.inputs.sheets import AssumptionRow, ScenarioRow

HOURS_IN_LONGEST_MONTH = 31 * 24  # 744

# key → (is it implausible?, why, in words that follow "is <value>, ").
_CHECKS: Mapping[str, tuple[Callable[[float], bool], str]] = {
    "hours_per_month": (
        lambda v: v > HOURS_IN_LONGEST_MONTH,
        f"more than the {HOURS_IN_LONGEST_MONTH} hours of the longest month "
        "(31 × 24; an average month has 730)",
    ),
    "pue": (
        lambda v: v < 1,
        "less than 1, yet a site cannot draw less power than its IT equipment "
        "(1 means no cooling overhead; the default is 1.3)",
    ),
}


def _warning(place: str, key: str, value: object) -> str | None:
    check = _CHECKS.get(key)
    if check is None or not isinstance(value, float | int) or isinstance(value, bool):
        return None
    implausible, why = check
    if not implausible(float(value)):
        return None
    return (
        f"warning: {place}: {key} is {value:g}, {why}; "
        "gpumix plans with it as given, check it is not a typo"
    )


def _cell(file: str, sheet: str, cell: str | None) -> str:
    return f"{Path(file).name}, sheet {sheet}" + (f", cell {cell}" if cell else "")


def implausible_values(
    assumptions: Iterable[AssumptionRow], scenarios: Iterable[ScenarioRow]
) -> list[str]:
    """One warning per implausible value in sheet Assumptions, then in sheet Scenarios."""
    found = [
        _warning(
            _cell(row.where.file, row.where.sheet, row.where.cell("value")), row.key, row.value
        )
        for row in assumptions
    ]
    found += [
        _warning(_cell(row.where.file, row.where.sheet, row.where.cell(key)), key, value)
        for row in scenarios
        for key, value in row.assumptions.items()
    ]
    return [w for w in found if w is not None]


def implausible_in_file(
    assumptions: Mapping[str, object], origin: Callable[[str], str]
) -> list[str]:
    """The same warnings for a scenario file's ``assumptions:``; ``origin(key)`` is ``eu.yaml, line 12``."""
    found = [_warning(origin(key), key, value) for key, value in assumptions.items()]
    return [w for w in found if w is not None]
