"""Reads an input workbook into typed rows, collecting every problem found.

The stages, each of small pure functions in a module of its own:

1. ``xlsx_safety.check_xlsx_file`` vets the archive (zip bombs, entity bombs).
2. ``grid``: python-calamine reads every cell value of the input sheets
   (fast); only when the archive holds formulas or error cells does it find
   the formula cells with no saved value and the ``#N/A``-style errors,
   which calamine would otherwise read as blank.
3. ``tables`` and ``cells``: each row's cells are coerced by the column
   declarations of ``optimizer.inputs.schema`` (``FieldSpec``), and ``rows``
   builds them into the typed objects of ``optimizer.domain``; what a row's
   kind needs is checked per row.
4. ``sheets``: checks across rows and sheets: unique names, references that
   exist, duplicate measurements, ``tdp_w`` where a type can be bought.

This module puts them together into ``WorkbookData``. The cell coercion and
record builders (``cells.coerce``, ``rows.build_workload`` ...) are shared with
``optimizer.inputs.scenario_file.read``, whose ``add_workloads`` entries follow the same
rules as the Workloads sheet; only the location in messages differs
(``SheetCell`` versus a YAML line, both behind ``Where``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from optimizer.domain import CatalogueFigure, Gpu, Measurement, Offer, Workload
from optimizer.errors import InputError, Problem
from optimizer.inputs.catalogue_fill import CatalogueFills
from optimizer.inputs.cells import SheetRow, Where
from optimizer.inputs.demand_rows import DemandRow, demand_problems
from optimizer.inputs.fleet_rows import FleetEntry
from optimizer.inputs.futures.located import LocatedFutures
from optimizer.inputs.futures.rows import sheet_futures
from optimizer.inputs.grid import _find_sheet, _read_grids, _unreadable_cells
from optimizer.inputs.lookalike import lookalikes_in_table
from optimizer.inputs.merged import explain_merged_blanks, merged_data_problems
from optimizer.inputs.partial_rows import PartialWorkload, partial_workload, stand_ins
from optimizer.inputs.plausible import implausible_values
from optimizer.inputs.plausible_rows import implausible_gpus, implausible_workloads
from optimizer.inputs.rows import build_gpu, build_workload
from optimizer.inputs.schema import (
    ASSUMPTION_KEYS,
    ASSUMPTIONS_SHEET_NAME,
    DEMAND,
    FLEET,
    FUTURES,
    GPUS,
    IMPLICIT_SCENARIO,
    INPUT_SHEETS,
    PRICES,
    SCENARIOS,
    THROUGHPUT,
    WORKLOADS,
    Sheet,
)
from optimizer.inputs.sheets import (
    AssumptionRow,
    ScenarioRow,
    _assumptions,
    _checkable,
    _fleet,
    _measurements,
    _offers,
    _records,
    _scenarios,
    _tdp_needed,
)
from optimizer.inputs.tables import (
    SheetTable,
    _missing_columns,
    _rows,
    _table,
    near_miss_headers,
)
from optimizer.inputs.xlsx_safety import check_xlsx_file

# ---------------------------------------------------------------- workbook data


@dataclass(frozen=True)
class WorkbookData:
    """Everything read from one workbook, before any scenario is resolved.

    Rows with a problem are left out of the typed tuples, but their names are
    kept in ``gpu_names``/``workload_names`` so that references to them do not
    raise a second, misleading "unknown name" problem.
    """

    path: Path
    gpus: tuple[Gpu, ...] = ()
    offers: tuple[Offer, ...] = ()
    workloads: tuple[Workload, ...] = ()
    measurements: tuple[Measurement, ...] = ()
    demand: tuple[DemandRow, ...] = ()  # sheet Demand (model v2 §E)
    fleet: tuple[FleetEntry, ...] = ()  # sheet Fleet (model v2 §E)
    futures: Mapping[str, LocatedFutures] = field(
        default_factory=dict
    )  # sheet Futures, by scenario
    scenarios: tuple[ScenarioRow, ...] = ()
    assumptions: tuple[AssumptionRow, ...] = ()
    has_scenarios_sheet: bool = False
    gpu_names: frozenset[str] = frozenset()
    workload_names: frozenset[str] = frozenset()
    scenario_names: frozenset[str] = frozenset()
    workload_rows: Mapping[str, SheetRow] = field(default_factory=dict)
    # Workloads rows with problems: what can still be checked of them (never planned)
    partial_workloads: tuple[PartialWorkload, ...] = ()
    measurement_rows: Mapping[tuple[str, str], SheetRow] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # things to look at that are not errors
    catalogue_figures: tuple[CatalogueFigure, ...] = ()  # GPUs cells the catalogue filled


# ---------------------------------------------------------------- reading


def _demand(
    file: str,
    table: SheetTable | None,
    workloads: Sequence[Workload],
    workload_names: Iterable[str],
    problems: list[Problem],
    partials: Sequence[PartialWorkload] = (),
) -> tuple[DemandRow, ...]:
    """Rows of sheet Demand, each checked against its workload (model v2 §E).

    A row naming a workload whose own row has a problem is checked against the
    kind and window of that row where they read fine, else left out silently:
    that problem is reported already. Only rows of sound workloads are handed on.
    """
    valid = {w.name: w for w in workloads}
    standing = {name: w for name, w in stand_ins(partials).items() if w is not None}
    broken = set(workload_names) - set(valid) - set(standing)
    rows = []
    for where, typed, found in _rows(file, table, DEMAND):
        problems.extend(found)
        if found or typed.get("workload") in broken or "workload" not in typed:
            continue
        rows.append(DemandRow(typed["workload"], typed["month"], typed["value"], where))
    problems.extend(demand_problems(rows, {**standing, **valid}))
    return tuple(r for r in rows if r.workload not in standing)


def parse_workbook(path: Path) -> tuple[WorkbookData, list[Problem]]:
    """Read a workbook; return its data and every problem found in it.

    Raises InputError only when nothing can be read at all (not a workbook,
    damaged archive). Rows with problems are left out of the data.
    """
    facts = check_xlsx_file(path)
    file = str(path)
    names, grids = _read_grids(path)
    try:
        unreadable = _unreadable_cells(path, facts, list(grids), grids)
    except InputError:
        raise
    except Exception as exc:  # openpyxl raises many kinds of errors on damaged parts
        raise InputError(
            Problem(
                file=file,
                message=f"cannot be read as a workbook ({type(exc).__name__}: {exc})",
                expected="an .xlsx file saved by Excel or LibreOffice",
            )
        ) from exc
    problems: list[Problem] = []
    read_tables: list[SheetTable] = []
    header_warnings: list[str] = []

    def table(sheet: Sheet | str) -> SheetTable | None:
        sheet_name = sheet if isinstance(sheet, str) else sheet.name
        actual = _find_sheet(names, sheet_name)
        if actual is None:
            if isinstance(sheet, Sheet) and not sheet.optional_sheet:
                problems.append(
                    Problem(
                        file=file,
                        message=f"sheet {sheet_name} is missing (the workbook has {', '.join(names)})",
                        expected=f"a sheet named {sheet_name}",
                    )
                )
            return None
        known = (
            [c.name for c in sheet.columns]
            if isinstance(sheet, Sheet)
            else ["key", "value", "source"]
        )
        if sheet is SCENARIOS:
            known += list(ASSUMPTION_KEYS)
        t, found = _table(file, actual, grids[actual], unreadable[actual], known)
        problems.extend(found)
        if sheet is not SCENARIOS and grids[actual]:  # Scenarios refuses unknown columns
            header_warnings.extend(near_miss_headers(file, t, grids[actual][0], known))
        header_warnings.extend(lookalikes_in_table(file, t))
        read_tables.append(t)
        if isinstance(sheet, Sheet):
            problems.extend(_missing_columns(file, t, sheet))
        return t

    gpu_table, price_table, fleet_table = table(GPUS), table(PRICES), table(FLEET)
    workload_table = table(WORKLOADS)
    throughput_table, demand_table, scenario_table, futures_table, assumption_table = (
        table(THROUGHPUT),
        table(DEMAND),
        table(SCENARIOS),
        table(FUTURES),
        table(ASSUMPTIONS_SHEET_NAME),
    )

    # Problems come out sheet by sheet, in the workbook's order.
    fills = CatalogueFills()
    gpus, gpu_names, gpu_rows = _records(
        file, gpu_table, GPUS, build_gpu, "gpu", problems, prepare=fills.fill
    )
    if gpu_table is not None:  # a GPUs sheet of names only: the catalogue gave every column
        problems[:] = [p for p in problems if not (p.sheet == gpu_table.name and fills.covers(p))]
    gpus_known = _checkable(gpu_names, gpu_table, "gpu")
    offers = _offers(file, price_table, gpus_known, problems)
    fleet = _fleet(file, fleet_table, gpus_known, problems)
    problems.extend(_tdp_needed(gpus, gpu_rows, offers, fleet))
    partials: list[PartialWorkload] = []

    def keep_partial(values: Mapping[str, Any], where: Where, found: list[Problem]) -> None:
        if (p := partial_workload(values, where, found)) is not None:
            partials.append(p)

    workloads, workload_names, workload_rows = _records(
        file, workload_table, WORKLOADS, build_workload, "workload", problems, keep_partial
    )
    workloads_known = _checkable(workload_names, workload_table, "workload")
    measurements, measurement_rows = _measurements(
        file, throughput_table, workloads, workloads_known, gpus_known, problems, gpus
    )
    demand = _demand(file, demand_table, workloads, workload_names, problems, partials)
    scenarios, scenario_names = _scenarios(
        file, scenario_table, gpus_known, workloads_known, problems
    )
    scenarios_known = (
        _checkable(scenario_names, scenario_table, "scenario")
        if scenario_table is not None
        else frozenset({IMPLICIT_SCENARIO})
    )
    futures = sheet_futures(
        file, futures_table, scenarios_known, workloads, workloads_known, gpus_known, problems
    )
    assumptions = _assumptions(file, assumption_table, problems)
    data = WorkbookData(
        path=path,
        gpus=gpus,
        offers=offers,
        workloads=workloads,
        measurements=measurements,
        demand=demand,
        fleet=fleet,
        futures=futures,
        scenarios=scenarios,
        assumptions=assumptions,
        has_scenarios_sheet=scenario_table is not None,
        scenario_names=scenario_names,
        gpu_names=frozenset(gpu_names),
        workload_names=frozenset(workload_names),
        workload_rows={w.name: workload_rows[w.name] for w in workloads},
        partial_workloads=tuple(partials),
        measurement_rows=measurement_rows,
        warnings=(
            *_near_miss_sheets(file, names),
            *header_warnings,
            *fills.warnings,
            *implausible_values(assumptions, scenarios),
            *implausible_gpus(gpus, gpu_rows, fills.warned),
            *implausible_workloads(workloads, workload_rows),
        ),
        catalogue_figures=tuple(fills.figures),
    )
    problems.extend(merged_data_problems(path, read_tables, grids, problems))
    return data, explain_merged_blanks(path, problems)


def _near_miss_sheets(file: str, names: Sequence[str]) -> list[str]:
    """Warnings for an optional sheet that is absent while a sheet with a close name is there.

    Extra sheets are ignored and the optional sheets may be absent, so a
    sheet named ``Scenario`` is not an error; but its rows would be silently
    replaced by defaults, which a person should hear about.
    """
    expected = [*(sheet.name for sheet in INPUT_SHEETS), ASSUMPTIONS_SHEET_NAME]
    found = {n for e in expected if (n := _find_sheet(names, e)) is not None}
    others = {n.strip().lower(): n for n in names if n not in found}
    optional = [sheet.name for sheet in INPUT_SHEETS if sheet.optional_sheet]
    warnings = []
    for wanted in (*optional, ASSUMPTIONS_SHEET_NAME):
        if _find_sheet(names, wanted) is not None:
            continue
        close = difflib.get_close_matches(wanted.lower(), list(others), n=1, cutoff=0.75)
        if close:
            warnings.append(
                f"warning: {Path(file).name}: sheet {others[close[0]]!r} is not read; the "
                f"optional sheet {wanted} is absent, so its defaults apply (rename the sheet to "
                f"{wanted} if it holds those rows)"
            )
    return warnings


def read_workbook(path: Path) -> WorkbookData:
    """Read a workbook into typed rows; raise one InputError with every problem found."""
    data, problems = parse_workbook(path)
    if problems:
        raise InputError(problems)
    return data
