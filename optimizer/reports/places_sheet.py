"""A scenario's ``Places`` sheet: where the plan's GPUs are held, place by place (model v2 §A).

Takes one :class:`Plan` and hands on a :class:`SheetModel` with a row per
finite place and month (``Plan.places``): the house (owned GPUs), each
reserved offer, each rental offer capped at some GPUs at once. Each row has
the place's size, the GPUs pinned by serving replicas, the free ones (a live
formula), the GPUs set aside in slots for training and batch gangs, and the
slots as ``count × GPUs each``. It is a sheet of its own rather than a block
under the fleet table so that every printed page repeats the right headers.
"""

from __future__ import annotations

from optimizer.reports.result_shared import _no_plan_note, place_label
from optimizer.reports.sheet_grid import SheetModel, Style, Table, a1
from optimizer.results import Plan

PLACES_HEADERS = (
    "GPU",
    "Place",
    "Offer",
    "Month",
    "Size (GPUs)",
    "Pinned by serving replicas (GPUs)",
    "Free = size − pinned (GPUs)",
    "Set aside in slots (GPUs)",
    "Slots (count × GPUs each)",
)
# Text before numbers: a number right-aligned next to text left-aligned reads as one word.
SIZE_COL, PINNED_COL, FREE_COL, IN_SLOTS_COL, SLOTS_COL = 4, 5, 6, 7, 8
NO_PLACES = "No owned, reserved or capped rental GPUs: every GPU is rented by the hour."


def slots_text(slots: dict[int, int]) -> str:
    """``2 × 16 GPUs, 1 × 3 GPUs``: slots per copy width, widest first; blank when none."""
    return ", ".join(
        f"{n} × {width} GPU{'' if width == 1 else 's'}"
        for width, n in sorted(slots.items(), reverse=True)
        if n
    )


def _places_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 3))
    sheet.header(0, 0, PLACES_HEADERS)
    for col, width in ((SIZE_COL, 10), (PINNED_COL, 14), (FREE_COL, 14), (IN_SLOTS_COL, 12)):
        sheet.widths[col] = width
    if not plan.status.has_plan:
        _no_plan_note(sheet, plan, 1)
        return sheet
    if not plan.places:
        sheet.text(1, 0, NO_PLACES, Style.NOTE)
        return sheet
    for i, p in enumerate(plan.places):
        r = i + 1
        sheet.text(r, 0, p.gpu)
        sheet.text(r, 1, place_label(p.place))
        if p.offer is not None:
            sheet.text(r, 2, p.offer)
        sheet.number(r, 3, p.month, Style.INTEGER)
        sheet.number(r, SIZE_COL, p.size, Style.INTEGER)
        sheet.number(r, PINNED_COL, p.pinned, Style.INTEGER)
        sheet.formula(
            r,
            FREE_COL,
            f"={a1(r, SIZE_COL)}-{a1(r, PINNED_COL)}",
            p.free,
            Style.INTEGER_FORMULA,
        )
        sheet.number(r, IN_SLOTS_COL, sum(k * n for k, n in p.slots.items()), Style.INTEGER)
        text = slots_text(p.slots)
        if text:
            # Right-aligned, so it never runs into the number on its left ("84 × 2").
            sheet.text(r, SLOTS_COL, text, Style.VALUE_TEXT)
    last = len(plan.places)
    sheet.tables.append(Table(f"Places_{index}", 0, 0, last, SLOTS_COL))
    for i, note in enumerate(
        (
            "Size: GPUs the place holds that month (owned in the house, reserved and active,",
            "or an offer's cap on GPUs at once; offers without a cap are not listed).",
            "Pinned: GPUs that serving replicas hold all month.",
            "Slots: free GPUs set aside for training and batch gangs, as count × GPUs each;",
            "work of one copy width shares its slots over the month. Free GPUs outside slots",
            "do 1-GPU work.",
        )
    ):
        sheet.text(last + 2 + i, 0, note, Style.NOTE)
    return sheet
