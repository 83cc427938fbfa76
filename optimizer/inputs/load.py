"""The front door: any input path (workbook, scenario file, nothing) → checked Scenarios.

``load_input`` reads the workbook (and the scenario file naming it), resolves
every scenario and raises ONE InputError carrying every problem found in
all of them, so that a user fixes everything in one pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import optimizer
from optimizer.domain import LoadedInput, Scenario
from optimizer.errors import InputError, Problem
from optimizer.inputs.files import unreadable_reason
from optimizer.inputs.lookalike import lookalikes_in_file
from optimizer.inputs.plausible import implausible_in_file
from optimizer.inputs.plausible_rows import growth_warning
from optimizer.inputs.reader import WorkbookData, parse_workbook
from optimizer.inputs.resolve import check_scenarios
from optimizer.inputs.scenario_file.read import ScenarioEntry, ScenarioFile, parse_scenario_file
from optimizer.inputs.schema import MAX_WORKLOAD_TYPE_MONTHS

WORKBOOK_SUFFIXES = (".xlsx",)
SCENARIO_FILE_SUFFIXES = (".yaml", ".yml")


def bundled_example() -> Path:
    """The example workbook shipped beside the package."""
    return Path(optimizer.__file__).resolve().parent.parent / "workbooks" / "example.xlsx"


def load_input(path: Path | None, scenario_names: Sequence[str] = ()) -> LoadedInput:
    """Read and check an input; return its resolved scenarios (only ``scenario_names``, if given).

    ``.xlsx``: the workbook's scenarios; ``.yaml``/``.yml``: the scenario
    file's, on the workbook it names; ``None``: the bundled example.
    """
    if path is None:
        path = bundled_example()
        if not path.is_file():
            raise InputError(
                Problem(
                    file=str(path),
                    message="the bundled example workbook is missing from this installation; name an input file",
                )
            )
    try:
        is_folder = path.is_dir()
    except OSError as exc:  # a name too long, a folder we may not enter, ...
        raise InputError(
            Problem(file=str(path), message=f"cannot be read: {exc.strerror or exc}")
        ) from exc
    if is_folder:
        raise InputError(
            Problem(
                file=str(path),
                message="this is a folder, not a file",
                expected="a workbook (.xlsx) or a scenario file (.yaml, .yml)",
            )
        )
    suffix = path.suffix.lower()
    if suffix not in WORKBOOK_SUFFIXES + SCENARIO_FILE_SUFFIXES:
        raise InputError(
            Problem(
                file=str(path),
                message=f"cannot read a {suffix} file"
                if suffix
                else "cannot read a file without an extension",
                value=path.name,
                expected="a workbook (.xlsx) or a scenario file (.yaml, .yml)",
            )
        )
    if (why := unreadable_reason(path)) is not None:
        raise InputError(Problem(file=str(path), message=why))
    problems: list[Problem] = []
    scenario_file: ScenarioFile | None = None
    if suffix in SCENARIO_FILE_SUFFIXES:
        scenario_file, problems = parse_scenario_file(path)
        if scenario_file is None:
            raise InputError(problems)
        workbook_path = scenario_file.workbook
        wrong = _workbook_reference_problem(workbook_path)
        if wrong is not None:
            line = scenario_file.workbook_where.line
            problems.append(
                Problem(
                    file=str(path),
                    row=line,
                    message=wrong,
                    value=str(workbook_path),
                    expected="an existing .xlsx file",
                )
            )
            raise InputError(problems)
    else:
        workbook_path = path
    workbook, found = parse_workbook(workbook_path)
    problems.extend(found)
    scenarios, found = check_scenarios(workbook, scenario_file)
    problems.extend(found)
    problems.extend(_too_large(path, scenarios))
    if problems:
        raise InputError(problems, notes=workbook.warnings)
    if scenario_file is not None:
        scenarios = _with_file_warnings(scenarios, scenario_file)
    scenarios = _selected(path, scenarios, scenario_names)
    return LoadedInput(
        scenarios=scenarios,
        files=(path, workbook_path) if scenario_file is not None else (path,),
        gpu_count=len(workbook.gpus),
        offer_count=len(workbook.offers),
        workload_count=_workload_count(workbook, scenarios),
    )


def _with_file_warnings(
    scenarios: tuple[Scenario, ...], scenario_file: ScenarioFile
) -> tuple[Scenario, ...]:
    """Each scenario with the warnings about implausible values its file entry sets, and
    about look-alike names of its futures."""
    entries = {entry.name: entry for entry in scenario_file.scenarios}
    out = []
    for s in scenarios:
        entry = entries.get(s.name)
        found = [] if entry is None else implausible_in_file(entry.assumptions, entry.origin)
        own = None if entry is None or entry.futures is None else entry.futures.own
        if own is not None and entry is not None:
            names = [f.name for f in own.futures.futures]
            found += lookalikes_in_file("future", names, entry.origin("futures"))
        if entry is not None:
            found += _growth_warnings(entry)
        out.append(replace(s, input_warnings=(*s.input_warnings, *found)) if found else s)
    return tuple(out)


def _growth_warnings(entry: ScenarioEntry) -> list[str]:
    """Growth rates of an entry's added workloads and futures that multiply demand more
    than tenfold a year (as ``plausible_rows`` warns for sheet Workloads)."""
    growths = [
        (entry.add_workload_wheres[w.name].label, w.growth_per_month)
        for w in entry.add_workloads
        if w.name in entry.add_workload_wheres
    ]
    own = None if entry.futures is None else entry.futures.own
    for future in own.futures.futures if own is not None else ():
        rates = [future.growth_per_month, *(g for _, g in future.workload_growth)]
        growths += [(entry.origin("futures"), g) for g in rates if g is not None]
    found = (growth_warning(place, growth) for place, growth in growths)
    return [w for w in found if w is not None]


def _too_large(path: Path, scenarios: Sequence[Scenario]) -> list[Problem]:
    """Scenarios larger than gpumix plans (``MAX_WORKLOAD_TYPE_MONTHS``)."""
    problems = []
    for s in scenarios:
        size = len(s.workloads) * len(s.gpus) * s.horizon_months
        if size > MAX_WORKLOAD_TYPE_MONTHS:
            problems.append(
                Problem(
                    file=str(path),
                    message=f"scenario {s.name!r} is too large to plan: {len(s.workloads):,} "
                    f"workloads × {len(s.gpus):,} GPU types × {s.horizon_months:,} months = "
                    f"{size:,}; gpumix plans at most {MAX_WORKLOAD_TYPE_MONTHS:,}",
                    expected="fewer workloads, GPU types or months (or split the scenario)",
                )
            )
    return problems


def _workbook_reference_problem(workbook: Path) -> str | None:
    """What is wrong with the workbook a scenario file names, or None."""
    if workbook.suffix.lower() not in WORKBOOK_SUFFIXES:
        return f"workbook {workbook.name} is not an .xlsx workbook"
    why = unreadable_reason(workbook)
    if why == "file not found":
        return f"workbook {workbook} not found (paths are relative to the scenario file)"
    if why is not None:
        return f"workbook {workbook}: {why}"
    return None


def _selected(
    path: Path, scenarios: tuple[Scenario, ...], names: Sequence[str]
) -> tuple[Scenario, ...]:
    if not names:
        return scenarios
    available = [s.name for s in scenarios]
    unknown = [n for n in names if n not in available]
    if unknown:
        raise InputError(
            [
                Problem(
                    file=str(path),
                    message=f"no scenario named {n!r}",
                    value=n,
                    expected="one of " + ", ".join(available),
                )
                for n in unknown
            ]
        )
    wanted = set(names)
    return tuple(s for s in scenarios if s.name in wanted)


def _workload_count(workbook: WorkbookData, scenarios: Sequence[Scenario]) -> int:
    """The workbook's workloads plus any a scenario file adds."""
    names = {w.name for w in workbook.workloads}
    names.update(w.name for s in scenarios for w in s.workloads)
    return len(names)
