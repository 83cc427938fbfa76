"""A scenario's ``Fleet`` sheet: GPUs bought, owned, reserved and rented per type and month.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with the fleet
table (GPU types the plan uses), a chart of GPUs in use by type, and below
the table a block of places (model v2 §A): each finite place and month with
its size, the GPUs pinned by serving replicas, the free ones and the slots
set aside for training and batch gangs.
"""

from __future__ import annotations

from optimizer.reports.result_shared import _no_plan_note, place_label, used_gpu_names
from optimizer.reports.sheet_grid import Chart, Series, SheetModel, Style, Table
from optimizer.results import Plan

PLACES_TITLE = "Places: pinned GPUs, free GPUs and slots"
PLACES_HEADERS = (
    "GPU",
    "Month",
    "Place",
    "Offer",
    "Size (GPUs)",
    "Pinned by serving replicas (GPUs)",
    "Free (GPUs)",
    "Slots (count × GPUs each)",
)


def slots_text(slots: dict[int, int]) -> str:
    """``2 × 16 GPUs, 1 × 3 GPUs``: slots per copy width, widest first; blank when none."""
    return ", ".join(
        f"{n} × {width} GPU{'' if width == 1 else 's'}"
        for width, n in sorted(slots.items(), reverse=True)
        if n
    )


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
            "Owned (GPUs)",
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
    places_row = len(rows) + 2
    if unused:
        sheet.text(places_row, 0, "Not used by this plan: " + ", ".join(unused) + ".", Style.NOTE)
        places_row += 2
    for i, f in enumerate(rows):
        r = i + 1
        sheet.text(r, 0, f.gpu)
        sheet.number(r, 1, f.month, Style.INTEGER)
        sheet.number(r, 2, f.bought, Style.INTEGER)
        sheet.number(r, 3, f.owned, Style.INTEGER)
        sheet.number(r, 4, f.reserved, Style.INTEGER)
        sheet.number(r, 5, f.rented_hours, Style.HOURS)
        sheet.number(r, 6, f.spot_hours, Style.HOURS)
        sheet.number(r, 7, f.owned_utilization, Style.PERCENT)
    sheet.tables.append(Table(f"Fleet_{index}", 0, 0, len(rows), 7))
    _places_block(sheet, plan, places_row, index)
    # GPUs in use per type and month, for the chart: rented hours count as GPUs' worth of hours.
    months = sorted({f.month for f in plan.fleet})
    c0 = 9
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


def _places_block(sheet: SheetModel, plan: Plan, top: int, index: int) -> None:
    """Every finite place in every month it holds GPUs, under the fleet table from ``top``."""
    sheet.text(top, 0, PLACES_TITLE, Style.SECTION)
    head = top + 1
    sheet.header(head, 0, PLACES_HEADERS)
    for i, p in enumerate(plan.places):
        r = head + 1 + i
        sheet.text(r, 0, p.gpu)
        sheet.number(r, 1, p.month, Style.INTEGER)
        sheet.text(r, 2, place_label(p.place))
        if p.offer is not None:
            sheet.text(r, 3, p.offer)
        sheet.number(r, 4, p.size, Style.INTEGER)
        sheet.number(r, 5, p.pinned, Style.INTEGER)
        sheet.number(r, 6, p.free, Style.INTEGER)
        text = slots_text(p.slots)
        if text:
            sheet.text(r, 7, text)
    if plan.places:
        sheet.tables.append(Table(f"Places_{index}", head, 0, head + len(plan.places), 7))
        note_row = head + len(plan.places) + 1
    else:
        sheet.text(
            head + 1,
            0,
            "No owned, reserved or capped rental GPUs: every GPU is rented by the hour.",
            Style.NOTE,
        )
        note_row = head + 2
    for i, note in enumerate(
        (
            "Size: GPUs the place holds that month (owned in the house, reserved and active, "
            "or an offer's cap on GPUs at once). Pinned: GPUs serving replicas hold all month. "
            "Free = size − pinned.",
            "Slots: free GPUs set aside for training and batch gangs, as count × GPUs each; "
            "work of one copy width shares its slots over the month. Offers without a cap on "
            "GPUs at once are not listed.",
        )
    ):
        sheet.text(note_row + i, 0, note, Style.NOTE)
