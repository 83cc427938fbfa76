"""A scenario's ``Fleet`` sheet: GPUs existing, bought, sold, owned, reserved and rented per type and month.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with the fleet
table (GPU types the plan uses) and, to its right, GPUs in use per month by
type and place (owned, reserved, on demand, spot) with their chart: that
block is the printed page, on one portrait page while legible. Where
those GPUs are held, place by place, is on the ``Places`` sheet
(``places_sheet``).
"""

from __future__ import annotations

from collections.abc import Callable

from optimizer.reports.page_fit import chart_end, fit_one_page_when_legible
from optimizer.reports.result_shared import _no_plan_note, used_gpu_names
from optimizer.reports.sheet_grid import (
    Chart,
    Series,
    SheetModel,
    Style,
    Table,
    fitted_widths,
)
from optimizer.results import FleetRow, Plan


def _fleet_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 2), landscape=False)
    sheet.header(
        0,
        0,
        [
            "GPU",
            "Month",
            "Existing (GPUs)",
            "Bought (GPUs)",
            "Sold (GPUs)",
            "Owned (GPUs)",
            "Servers",
            "Reserved active (GPUs)",
            "On-demand (paid GPU-hours)",
            "Spot (paid GPU-hours)",
            "Owned utilisation (%)",
        ],
    )
    if not plan.fleet:
        _no_plan_note(sheet, plan, 1)
        return sheet
    gpus = used_gpu_names([plan])
    order = {name: i for i, name in enumerate(gpus)}
    rows = sorted((f for f in plan.fleet if f.gpu in order), key=lambda r: (order[r.gpu], r.month))
    unused = sorted({f.gpu for f in plan.fleet} - set(gpus))
    if not rows:
        sheet.text(1, 0, "This plan uses no GPU.", Style.NOTE)
        return sheet
    if unused:
        sheet.text(
            len(rows) + 2, 0, "Not used by this plan: " + ", ".join(unused) + ".", Style.NOTE
        )
    sheet.text(
        len(rows) + (3 if unused else 2),
        0,
        "Where these GPUs are held (house, each reserved or capped offer), with the GPUs "
        "serving replicas pin and the slots set aside for gangs: the scenario's Places sheet.",
        Style.NOTE,
    )
    for i, f in enumerate(rows):
        r = i + 1
        sheet.text(r, 0, f.gpu)
        sheet.number(r, 1, f.month, Style.INTEGER)
        sheet.number(r, 2, f.existing, Style.INTEGER)
        sheet.number(r, 3, f.bought, Style.INTEGER)
        sheet.number(r, 4, f.sold, Style.INTEGER)
        sheet.number(r, 5, f.owned, Style.INTEGER)
        sheet.number(r, 6, f.servers, Style.INTEGER)
        sheet.number(r, 7, f.reserved, Style.INTEGER)
        sheet.number(r, 8, f.rented_hours, Style.HOURS)
        sheet.number(r, 9, f.spot_hours, Style.HOURS)
        sheet.number(r, 10, f.owned_utilization, Style.PERCENT)
    sheet.tables.append(Table(f"Fleet_{index}", 0, 0, len(rows), 10))
    _in_use_block(sheet, plan, gpus, c0=12)
    return sheet


# How GPUs are held, for the chart: (label, GPUs in use from a fleet row and the hours a month).
PLACES_IN_USE: tuple[tuple[str, Callable[[FleetRow, float], float]], ...] = (
    ("owned", lambda f, hours: f.owned),
    ("reserved", lambda f, hours: f.reserved),
    ("on demand", lambda f, hours: f.rented_hours / hours),
    ("spot", lambda f, hours: f.spot_hours / hours),
)


def _in_use_block(sheet: SheetModel, plan: Plan, gpus: list[str], c0: int) -> None:
    """GPUs in use per month by type and place, and its chart: the printed page of the sheet.

    The fleet table at the left is on screen only; this block says the same
    per month in GPUs, one column per type and place the plan uses.
    """
    hours = plan.scenario.assumptions.hours_per_month
    months = sorted({f.month for f in plan.fleet})
    by_key = {(f.gpu, f.month): f for f in plan.fleet}
    columns = [
        (
            f"{gpu} {place}",
            [get(by_key[(gpu, m)], hours) if (gpu, m) in by_key else 0.0 for m in months],
        )
        for gpu in gpus
        for place, get in PLACES_IN_USE
        if any(get(f, hours) for f in plan.fleet if f.gpu == gpu)
    ]
    sheet.text(0, c0, "Month", Style.HEADER)
    for i, month in enumerate(months):
        sheet.number(i + 1, c0, month, Style.INTEGER)
    for j, (label, values) in enumerate(columns, start=1):
        sheet.text(0, c0 + j, label, Style.COLUMN_HEADER)
        sheet.widths[c0 + j] = 11
        for i, value in enumerate(values):
            sheet.number(i + 1, c0 + j, value, Style.NUMBER)
    note_row = len(months) + 2
    sheet.text(
        note_row,
        c0,
        f"GPUs in use = owned, reserved, or paid rented hours ÷ {hours:g} hours a month.",
        Style.NOTE,
    )
    sheet.text(
        note_row + 1,
        c0,
        "The table at the left (each GPU type by month, with hours and utilisation) is not printed.",
        Style.NOTE,
    )
    chart = Chart(
        kind="stacked_column",
        title="GPUs in use by type and place",
        y_axis="GPUs",
        y_format="#,##0",
        categories=(1, c0, len(months), c0),
        series=tuple(
            Series((0, c0 + j), (1, c0 + j, len(months), c0 + j))
            for j in range(1, len(columns) + 1)
        ),
        anchor=(note_row + 3, c0),
        scale=(1.45, 1.1),  # about the width of a portrait page: a label per month
    )
    sheet.charts.append(chart)
    end_row, end_col = chart_end(chart, fitted_widths(sheet))
    sheet.print_last_row = end_row
    sheet.print_columns = (c0, max(end_col, c0 + len(columns)))
    fit_one_page_when_legible(sheet)
