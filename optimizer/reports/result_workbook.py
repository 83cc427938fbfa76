"""The result workbook that goes to finance (``gpumix solve``).

:func:`build_result_sheets` lays a :class:`RunResult` out as grids
(``optimizer.reports.sheet_grid``); :func:`write_result_workbook` renders them with
XlsxWriter. Sheets: ``Summary`` (one column per scenario), then per scenario
``Cash flow``, ``Fleet`` and the hidden ``Places``, ``Assignments`` and
``Options``, then ``Audit``. Live
formulas (totals, savings, unit costs) carry the solver's numbers as their
cached values, so every reader sees numbers without recalculating.
Each sheet is laid out by its own module (``summary_sheet``, ``audit_sheet``,
``cash_flow_sheet``, ``fleet_sheet``, ``places_sheet``, ``assignments_sheet``,
``options_sheet``); this module puts them in order and writes the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from optimizer.reports.assignments_sheet import _assignments_sheet
from optimizer.reports.audit_sheet import audit_sheet
from optimizer.reports.cash_flow_sheet import _cash_flow_sheet
from optimizer.reports.fleet_sheet import _fleet_sheet
from optimizer.reports.options_sheet import _options_sheet
from optimizer.reports.places_sheet import _places_sheet
from optimizer.reports.sheet_grid import SheetModel, render_xlsx
from optimizer.reports.sheet_names import result_sheet_names
from optimizer.reports.summary_sheet import _summary_sheet
from optimizer.results import RunResult


def build_result_sheets(run: RunResult, taken: Iterable[str] = ()) -> list[SheetModel]:
    """Every sheet of the result workbook, in order: Summary, five per scenario, then Audit.

    What finance prints comes first: the Summary, and each scenario's Cash
    flow and Fleet. The engineering detail follows: Places, Assignments and
    Options are hidden (kept whole, shown by Unhide, not printed) and the
    Audit prints last. ``taken``: names of sheets already in the workbook
    (``--in-place``) that the result sheets must not take.
    """
    names = result_sheet_names((p.name for p in run.plans), taken)
    summary, audit = _summary_sheet(run, names.audit), audit_sheet(run)
    summary.name, audit.name = names.summary, names.audit
    sheets = [summary]
    for index, plan in enumerate(run.plans, start=1):
        n = names.scenarios[plan.name]
        baselines = run.baselines.get(plan.name, {})
        sheets.append(_cash_flow_sheet(plan, n["Cash flow"], index, baselines))
        sheets.append(_fleet_sheet(plan, n["Fleet"], index))
        detail = [
            _places_sheet(plan, n["Places"], index),
            _assignments_sheet(plan, n["Assignments"], index),
            _options_sheet(plan, n["Options"], index),
        ]
        for sheet in detail:
            sheet.hidden = True
        sheets += detail
    for sheet in (*sheets, audit):
        sheet.currency = run.currency  # every money cell's number format carries the label
    return [*sheets, audit]


def write_result_workbook(path: Path, run: RunResult) -> None:
    """Write the result workbook for ``run`` to ``path`` (overwritten if it exists)."""
    render_xlsx(path, build_result_sheets(run))
