"""A scenario's ``Assignments`` sheet: which workload runs on which GPU type, and its cost share.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with a row per
assignment, live totals and cost per million tokens, and the idle cost that
reconciles the shares with the cash flow.
"""

from __future__ import annotations

from optimizer.reports.result_shared import _no_plan_note
from optimizer.reports.sheet_grid import SheetModel, Style, Table, a1, column_letter, finite_or_none
from optimizer.results import Plan


def _assignments_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 1))
    sheet.header(
        0,
        0,
        [
            "Workload",
            "GPU",
            "Month",
            "GPUs per replica",
            "Replicas (realtime)",
            "Paid GPU-hours",
            "of which spot (paid GPU-hours)",
            "Cost share (USD)",
            "Tokens that month",
            "Cost per million tokens (USD)",
        ],
    )
    if not plan.assignments:
        _no_plan_note(sheet, plan, 1)
        return sheet
    for i, a in enumerate(plan.assignments):
        r = i + 1
        sheet.text(r, 0, a.workload)
        sheet.text(r, 1, a.gpu)
        sheet.number(r, 2, a.month, Style.INTEGER)
        sheet.number(r, 3, a.gpus_per_replica, Style.INTEGER)
        sheet.number(r, 4, a.replicas, Style.INTEGER)
        sheet.number(r, 5, a.gpu_hours, Style.HOURS)
        sheet.number(r, 6, a.spot_hours, Style.HOURS)
        sheet.number(r, 7, a.cost, Style.MONEY)
        sheet.number(r, 8, a.tokens, Style.INTEGER)
        if a.tokens and finite_or_none(a.tokens) and finite_or_none(a.cost) is not None:
            sheet.formula(
                r,
                9,
                f"={a1(r, 7)}/{a1(r, 8)}*1000000",
                a.cost / a.tokens * 1e6,
                Style.MONEY_FORMULA,
            )
    last = len(plan.assignments)
    sheet.tables.append(Table(f"Assignments_{index}", 0, 0, last, 9))
    tr = last + 1
    sheet.text(tr, 0, "Total", Style.TOTAL_LABEL)
    for col, style, cached in (
        (5, Style.TOTAL_HOURS_FORMULA, sum(a.gpu_hours for a in plan.assignments)),
        (6, Style.TOTAL_HOURS_FORMULA, sum(a.spot_hours for a in plan.assignments)),
        (7, Style.TOTAL_MONEY_FORMULA, sum(a.cost for a in plan.assignments)),
    ):
        letter = column_letter(col)
        sheet.formula(tr, col, f"=SUM({letter}2:{letter}{last + 1})", cached, style)
    note_row = tr + 1
    if plan.cash_out is not None:
        # Reconciles with the cash flow: cost shares carry purchases net of
        # their credited book value (methodology 2.5), so shares + idle =
        # cash out - residual credit; what is left is idle owned or reserved GPUs.
        assigned = sum(a.cost for a in plan.assignments)
        credit = plan.residual_credit or 0.0
        sheet.text(tr + 1, 0, "Cash out of the plan (USD, the Cash flow total)", Style.TEXT)
        sheet.number(tr + 1, 7, plan.cash_out, Style.MONEY)
        sheet.text(
            tr + 2, 0, "Residual credit (USD, book value credited at the horizon)", Style.TEXT
        )
        sheet.number(tr + 2, 7, credit, Style.MONEY)
        sheet.text(
            tr + 3, 0, "Not assigned to any workload (USD, idle capacity)", Style.TOTAL_LABEL
        )
        sheet.formula(
            tr + 3,
            7,
            f"={a1(tr + 1, 7)}-{a1(tr + 2, 7)}-{a1(tr, 7)}",
            plan.cash_out - credit - assigned,
            Style.TOTAL_MONEY_FORMULA,
        )
        note_row = tr + 4
    sheet.text(
        note_row,
        0,
        "Cost share: the workload's share, by GPU-hours, of its GPU type's cost that month "
        "(undiscounted cash; a purchase counts as its price less the credited book value, "
        "spread over the months it is owned).",
        Style.NOTE,
    )
    return sheet
