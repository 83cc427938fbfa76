"""Each resolved scenario gets its futures (issue 19), checked against it.

A scenario of the workbook gets its rows of sheet Futures. A scenario file
entry keeps its base's (with its own ``decide_by_month`` and regret bounds on
top) unless it gives ``futures:``, which replaces them (``futures: []``
removes them); ``decide_by_month`` or a regret bound with no futures at all is
an error. An entry whose ``futures:`` had problems of its own is checked only
in the futures left (``scenario_file.sound``). Then
``futures.located.futures_problems`` checks the futures against the scenario
as it finally is (horizon, workloads, GPU types, offers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from optimizer.domain import Scenario
from optimizer.errors import Problem
from optimizer.inputs.cells import Where
from optimizer.inputs.futures.located import LocatedFutures, futures_problems, with_settings
from optimizer.inputs.reader import WorkbookData
from optimizer.inputs.scenario_file.read import ScenarioEntry, ScenarioFile

Built = tuple[Scenario, Mapping[str, Where], str | None]  # scenario, workload rows, horizon origin


def with_futures(
    built: Sequence[Built],
    workbook: WorkbookData,
    scenario_file: ScenarioFile | None,
    default_base: str,
) -> tuple[list[Built], list[Problem]]:
    """``built`` with each scenario's futures, and every problem they have there.

    ``default_base``: the scenario a file entry without ``base`` builds on.
    """
    entries = {e.name: e for e in scenario_file.scenarios} if scenario_file is not None else {}
    out: list[Built] = []
    problems: list[Problem] = []
    broken = workbook.workload_names - {w.name for w in workbook.workloads}
    for scenario, wheres, horizon_origin in built:
        entry = entries.get(scenario.name)
        if entry is None:
            located = workbook.futures.get(scenario.name)
        else:
            located, found = _entry_futures(entry, workbook, default_base)
            problems.extend(found)
        if located is not None:
            known = {w.name: w for w in workbook.workloads}
            known.update({w.name: w for w in entry.add_workloads} if entry is not None else {})
            unsure = entry.unsure if entry is not None else frozenset()
            # A workload whose row has problems (reported there) is no problem of the futures.
            named = tuple(n for n in located.workloads if n.name not in broken)
            problems.extend(
                futures_problems(
                    scenario,
                    replace(located, workloads=named),
                    known,
                    workbook.gpu_names,
                    horizon_origin,
                    unsure,
                )
            )
            scenario = replace(scenario, futures=located.futures)
        out.append((scenario, wheres, horizon_origin))
    return out, problems


def _entry_futures(
    entry: ScenarioEntry, workbook: WorkbookData, default_base: str
) -> tuple[LocatedFutures | None, list[Problem]]:
    base = entry.base or default_base
    inherited = workbook.futures.get(base)
    override = entry.futures
    if "futures" in entry.unsure and (override is None or override.own is None):
        return None, []  # futures: had problems, and none of its futures is left to check
    if override is None:
        return inherited, []
    if override.replaces:
        return override.own, []
    if inherited is None:
        settings = override.settings
        return None, [
            settings.where.at(
                key,
                f"is given, but scenario {entry.name!r} has no futures (give futures: in "
                f"the scenario, or rows for its base {base!r} in sheet Futures)",
                getattr(settings, key),
                f"futures for the scenario, or no {key}",
            )
            for key in sorted(settings.given)
        ]
    return with_settings(inherited, override.settings), []
