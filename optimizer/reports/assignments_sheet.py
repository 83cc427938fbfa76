"""A scenario's ``Assignments`` sheet: which workload runs where, on how many GPUs, at what cost.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with a row per
assignment (workload, GPU type, month, place and offer, copy and gang or
replica width, replicas and load for serving), live totals and cost per
million tokens, and the idle cost that reconciles the shares with the cash flow.
"""

from __future__ import annotations

from optimizer.domain import CostCategory
from optimizer.reports.result_shared import _no_plan_note, place_label
from optimizer.reports.sheet_grid import SheetModel, Style, Table, a1, column_letter, finite_or_none
from optimizer.results import Plan


def assignment_headers(currency: str) -> tuple[str, ...]:
    """The column headers; the money ones name ``currency``."""
    return (
        "Workload",
        "GPU",
        "Place",
        "Offer",
        "Month",
        "Copy width (GPUs one copy needs)",
        "Width (GPUs held at once)",
        "Replicas (serving)",
        "Serving load (% of capacity)",
        "Paid GPU-hours",
        "of which spot (paid GPU-hours)",
        f"Cost share ({currency})",
        "Tokens that month",
        f"Cost per million tokens ({currency})",
    )


# Text before numbers: a number right-aligned next to text left-aligned reads as one word.
HOURS_COL, SPOT_COL, COST_COL, TOKENS_COL, UNIT_COST_COL = 9, 10, 11, 12, 13


def _assignments_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    currency = plan.currency
    sheet = SheetModel(name, freeze=(1, 1))
    sheet.header(0, 0, assignment_headers(currency))
    # Narrow number columns under wrapped headers: the sheet prints one page wide.
    for col, width in (
        (2, 11),
        (4, 7),
        (5, 12),
        (6, 12),
        (7, 10),
        (8, 11),
        (HOURS_COL, 12),
        (SPOT_COL, 13),
        (COST_COL, 14),
        (TOKENS_COL, 18),
        (UNIT_COST_COL, 14),
    ):
        sheet.widths[col] = width
    if not plan.assignments:
        _no_plan_note(sheet, plan, 1)
        return sheet
    # Long labels of the reconciliation rows run over the empty cells to their right.
    sheet.widths[0] = max(12, *(len(a.workload) + 2 for a in plan.assignments))
    for i, a in enumerate(plan.assignments):
        r = i + 1
        sheet.text(r, 0, a.workload)
        sheet.text(r, 1, a.gpu)
        sheet.text(r, 2, place_label(a.place))
        if a.offer is not None:
            sheet.text(r, 3, a.offer)
        sheet.number(r, 4, a.month, Style.INTEGER)
        sheet.number(r, 5, a.copy_width, Style.INTEGER)
        sheet.number(r, 6, a.width, Style.INTEGER)
        sheet.number(r, 7, a.replicas, Style.INTEGER)
        sheet.number(r, 8, a.load, Style.PERCENT)
        sheet.number(r, HOURS_COL, a.gpu_hours, Style.HOURS)
        sheet.number(r, SPOT_COL, a.spot_hours, Style.HOURS)
        sheet.number(r, COST_COL, a.cost, Style.MONEY)
        sheet.number(r, TOKENS_COL, a.tokens, Style.INTEGER)
        if a.tokens and finite_or_none(a.tokens) and finite_or_none(a.cost) is not None:
            sheet.formula(
                r,
                UNIT_COST_COL,
                f"={a1(r, COST_COL)}/{a1(r, TOKENS_COL)}*1000000",
                a.cost / a.tokens * 1e6,
                Style.MONEY_FORMULA,
            )
    last = len(plan.assignments)
    sheet.tables.append(Table(f"Assignments_{index}", 0, 0, last, UNIT_COST_COL))
    tr = last + 1
    sheet.text(tr, 0, "Total", Style.TOTAL_LABEL)
    for col, style, cached in (
        (HOURS_COL, Style.TOTAL_HOURS_FORMULA, sum(a.gpu_hours for a in plan.assignments)),
        (SPOT_COL, Style.TOTAL_HOURS_FORMULA, sum(a.spot_hours for a in plan.assignments)),
        (COST_COL, Style.TOTAL_MONEY_FORMULA, sum(a.cost for a in plan.assignments)),
    ):
        letter = column_letter(col)
        sheet.formula(tr, col, f"=SUM({letter}2:{letter}{last + 1})", cached, style)
    note_row = tr + 1
    if plan.cash_out is not None:
        note_row = _reconciliation(sheet, plan, tr)
    for i, note in enumerate(
        (
            "Cost share: the workload's share, by GPU-hours, of its GPU type's cost that month "
            "(undiscounted cash; a purchase counts as its price, a GPU already owned as its "
            "value at month 1,",
            "less what it is sold for or credited at the horizon, spread over the months it is "
            "owned).",
            "Place: house = the GPUs the plan owns; reserved, on-demand, spot = GPUs of the "
            "offer named.",
            "Width: GPUs a serving replica, or a training or batch gang, holds at once (a gang "
            "is one or more copies of the model, each copy-width GPUs).",
            "Serving: whole replicas, each holding its GPUs all month; load = demand ÷ the "
            "capacity of all the workload's replicas that month.",
        )
    ):
        sheet.text(note_row + i, 0, note, Style.NOTE)
    return sheet


def _reconciliation(sheet: SheetModel, plan: Plan, tr: int) -> int:
    """Rows under the total that tie the cost shares to the Cash flow; returns the next row.

    Cost shares carry each GPU's capital net of what it is sold for or credited
    (methodology 2.5), and a GPU already owned at its value in month 1, so:
    shares + not assigned = cash out + sales (negative) - credit + that value.
    What is left is idle owned or reserved GPUs.
    """
    assert plan.cash_out is not None
    currency = plan.currency
    sales = sum(m.amounts.get(CostCategory.SALES, 0.0) for m in plan.cash_flow)
    parts = [
        (f"Cash out of the plan ({currency}, the Cash flow total)", plan.cash_out, 1.0),
        (f"Sales ({currency}, cash in, negative)", sales, 1.0),
        (
            f"Residual credit ({currency}, value credited at the horizon)",
            plan.residual_credit or 0.0,
            -1.0,
        ),
    ]
    if plan.existing_value:
        parts.append(
            (
                f"Value of the GPUs and servers already owned at month 1 ({currency}, sheet Fleet)",
                plan.existing_value,
                1.0,
            )
        )
    terms = []
    for i, (label, value, sign) in enumerate(parts, start=1):
        sheet.text(tr + i, 0, label, Style.TEXT)
        sheet.number(tr + i, COST_COL, value, Style.MONEY)
        terms.append(("+" if sign > 0 else "-") + a1(tr + i, COST_COL))
    row = tr + len(parts) + 1
    assigned = sum(a.cost for a in plan.assignments)
    cached = sum(value * sign for _label, value, sign in parts) - assigned
    sheet.text(
        row, 0, f"Not assigned to any workload ({currency}, idle capacity)", Style.TOTAL_LABEL
    )
    sheet.formula(
        row,
        COST_COL,
        "=" + "".join(terms).lstrip("+") + f"-{a1(tr, COST_COL)}",
        cached,
        Style.TOTAL_MONEY_FORMULA,
    )
    return row + 1
