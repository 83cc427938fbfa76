"""References of a scenario file entry to the workbook: base, workload and GPU names, offers.

Takes one entry of the file (``scenario_file.read``) and the workbook; hands on a
problem for each name the workbook lacks, each offer a price change would not
find, each price change given twice and each added workload the workbook
already has. Checked for every entry, its entries with problems of their own
too (``scenario_file.sound`` keeps the GPU type of a price or fleet entry dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

from optimizer.errors import Problem
from optimizer.inputs.cells import suggestion
from optimizer.inputs.fleet_rows import unknown_gpu_problems
from optimizer.inputs.reader import WorkbookData
from optimizer.inputs.scenario_file.read import ScenarioEntry
from optimizer.inputs.scenario_file.sound import maybe_added


def entry_problems(
    entry: ScenarioEntry, workbook: WorkbookData, bases: Sequence[str]
) -> list[Problem]:
    where = entry.where
    problems = []
    # A base whose row has problems of its own was reported with them.
    if (
        entry.base is not None
        and entry.base not in bases
        and entry.base not in workbook.scenario_names
    ):
        problems.append(
            where.at(
                "base",
                f"no scenario {entry.base!r} in the workbook{suggestion(entry.base, bases)}",
                entry.base,
                "one of " + ", ".join(bases),
            )
        )
    added = {w.name for w in entry.add_workloads}
    for name in entry.settings.get("workloads", ()):
        if (
            name not in workbook.workload_names
            and name not in added
            and not maybe_added(name, entry.unsure)  # its entry's problems were reported
        ):
            problems.append(
                where.at(
                    "workloads",
                    f"no workload {name!r} in the workbook{suggestion(name, workbook.workload_names)}",
                    name,
                    "a name from sheet Workloads",
                )
            )
    for name in entry.settings.get("exclude_gpus", ()):
        if name not in workbook.gpu_names:
            problems.append(
                where.at(
                    "exclude_gpus",
                    f"no GPU type {name!r} in the workbook{suggestion(name, workbook.gpu_names)}",
                    name,
                    "a name from sheet GPUs",
                )
            )
    problems.extend(unknown_gpu_problems(entry.fleet_gpus, workbook.gpu_names))
    seen: dict[tuple[str, str], int] = {}
    for change in entry.prices:
        key = (change.gpu, change.option.value)
        if key in seen:
            problems.append(
                change.where.whole(
                    f"a second price change for {change.gpu} {change.option.value} (first on line {seen[key]})"
                )
            )
        seen.setdefault(key, change.where.line)
        if change.gpu not in workbook.gpu_names:
            problems.append(
                change.where.at(
                    "gpu",
                    f"no GPU type {change.gpu!r} in the workbook{suggestion(change.gpu, workbook.gpu_names)}",
                    change.gpu,
                    "a name from sheet GPUs",
                )
            )
        elif not any(o.gpu == change.gpu and o.option is change.option for o in workbook.offers):
            problems.append(
                change.where.at(
                    "option",
                    f"the workbook has no {change.option.value} offer for {change.gpu}",
                    change.option.value,
                    "an option the Prices sheet offers for this GPU type",
                )
            )
    # Price changes dropped for problems of their own still name a GPU type.
    problems.extend(unknown_gpu_problems(entry.price_gpus, workbook.gpu_names))
    for w in entry.add_workloads:
        if w.name in workbook.workload_names:
            row = workbook.workload_rows.get(w.name)
            at = f" (sheet Workloads, row {row.row})" if row is not None else ""
            problems.append(
                entry.add_workload_wheres[w.name].at(
                    "workload",
                    f"a workload of this name is already in the workbook{at}",
                    w.name,
                    "a new name",
                )
            )
    return problems
