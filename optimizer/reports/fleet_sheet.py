"""A scenario's ``Fleet`` sheet: GPUs bought, sold, owned, reserved and rented per type and month.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with the fleet
table (GPU types the plan uses) and a chart of GPUs in use by type. Where
those GPUs are held, place by place, is on the ``Places`` sheet
(``places_sheet``).
"""

from __future__ import annotations

from optimizer.reports.result_shared import _no_plan_note, used_gpu_names
from optimizer.reports.sheet_grid import Chart, Series, SheetModel, Style, Table
from optimizer.results import Plan


def _fleet_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 2))
    hours = plan.scenario.assumptions.hours_per_month
    sheet.header(
        0,
        0,
        [
            "GPU",
            "Month",
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
        sheet.number(r, 2, f.bought, Style.INTEGER)
        sheet.number(r, 3, f.sold, Style.INTEGER)
        sheet.number(r, 4, f.owned, Style.INTEGER)
        sheet.number(r, 5, f.servers, Style.INTEGER)
        sheet.number(r, 6, f.reserved, Style.INTEGER)
        sheet.number(r, 7, f.rented_hours, Style.HOURS)
        sheet.number(r, 8, f.spot_hours, Style.HOURS)
        sheet.number(r, 9, f.owned_utilization, Style.PERCENT)
    sheet.tables.append(Table(f"Fleet_{index}", 0, 0, len(rows), 9))
    # GPUs in use per type and month, for the chart: rented hours count as GPUs' worth of hours.
    months = sorted({f.month for f in plan.fleet})
    c0 = 11
    sheet.text(0, c0, "Month", Style.HEADER)
    for j, gpu in enumerate(gpus):
        sheet.text(0, c0 + 1 + j, gpu, Style.HEADER)
    by_key = {(f.gpu, f.month): f for f in plan.fleet}
    for i, month in enumerate(months):
        sheet.number(i + 1, c0, month, Style.INTEGER)
        for j, gpu in enumerate(gpus):
            held = by_key.get((gpu, month))
            in_use = (
                None
                if held is None
                else held.owned + held.reserved + (held.rented_hours + held.spot_hours) / hours
            )
            sheet.number(i + 1, c0 + 1 + j, in_use, Style.NUMBER)
    note_row = len(months) + 2
    sheet.text(
        note_row,
        c0,
        f"GPUs in use = owned + reserved + paid rented hours ÷ {hours:g} hours a month.",
        Style.NOTE,
    )
    sheet.charts.append(
        Chart(
            kind="stacked_column",
            title="GPUs in use by type",
            y_axis="GPUs",
            y_format="#,##0",
            categories=(1, c0, len(months), c0),
            series=tuple(
                Series((0, c0 + 1 + j), (1, c0 + 1 + j, len(months), c0 + 1 + j))
                for j in range(len(gpus))
            ),
            anchor=(note_row + 2, c0),
        )
    )
    return sheet
