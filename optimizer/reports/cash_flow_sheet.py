"""A scenario's ``Cash flow`` sheet: undiscounted cash by month and category.

Takes one :class:`Plan` and hands on a :class:`SheetModel` with a row per
month, live totals, the residual credit, the net cash and a stacked chart.
"""

from __future__ import annotations

from optimizer.domain import CostCategory
from optimizer.reports.result_shared import CATEGORY_LABELS, _no_plan_note
from optimizer.reports.sheet_grid import Chart, Series, SheetModel, Style, Table, a1, column_letter
from optimizer.results import Plan


def _cash_flow_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 1))
    categories = list(CostCategory)
    total_col = len(categories) + 1
    sheet.header(
        0, 0, ["Month", *(f"{CATEGORY_LABELS[c]} (USD)" for c in categories), "Total (USD)"]
    )
    if not plan.cash_flow:
        _no_plan_note(sheet, plan, 1)
        return sheet
    first = 1
    for i, month in enumerate(plan.cash_flow):
        r = first + i
        sheet.number(r, 0, month.month, Style.INTEGER)
        for j, c in enumerate(categories):
            sheet.number(r, j + 1, month.amounts.get(c, 0.0), Style.MONEY)
        sheet.formula(
            r,
            total_col,
            f"=SUM({a1(r, 1)}:{a1(r, len(categories))})",
            sum(month.amounts.get(c, 0.0) for c in categories),
            Style.MONEY_FORMULA,
        )
    last = first + len(plan.cash_flow) - 1
    sheet.tables.append(Table(f"CashFlow_{index}", 0, 0, last, total_col))
    tr = last + 1
    sheet.text(tr, 0, "Total", Style.TOTAL_LABEL)
    for j in range(1, total_col + 1):
        col = column_letter(j)
        cached = (
            sum(m.total for m in plan.cash_flow)
            if j == total_col
            else sum(m.amounts.get(categories[j - 1], 0.0) for m in plan.cash_flow)
        )
        sheet.formula(
            tr, j, f"=SUM({col}{first + 1}:{col}{last + 1})", cached, Style.TOTAL_MONEY_FORMULA
        )
    credit = plan.residual_credit or 0.0
    # TEXT, not the wrapping LABEL: the narrow Month column would wrap it into a tower.
    sheet.text(tr + 2, 0, "Less residual credit at horizon (USD, undiscounted)", Style.TEXT)
    sheet.number(tr + 2, total_col, credit, Style.MONEY)
    sheet.text(tr + 3, 0, "Net cash after credit (USD, undiscounted)", Style.TOTAL_LABEL)
    sheet.formula(
        tr + 3,
        total_col,
        f"={a1(tr, total_col)}-{a1(tr + 2, total_col)}",
        sum(m.total for m in plan.cash_flow) - credit,
        Style.TOTAL_MONEY_FORMULA,
    )
    sheet.text(
        tr + 4,
        0,
        "Undiscounted cash by month; purchases are paid at the start of their month. "
        "The Summary's category costs are present values when the discount rate > 0.",
        Style.NOTE,
    )
    used = [
        j for j, c in enumerate(categories) if any(m.amounts.get(c, 0.0) for m in plan.cash_flow)
    ]
    # Purchases get their own axis: one month's GPUs would flatten every running cost.
    capital = (CostCategory.PURCHASE, CostCategory.NODE, CostCategory.SALES)
    capex = [j for j in used if categories[j] in capital]
    running = [j for j in used if j not in capex]
    sheet.charts.append(
        Chart(
            kind="stacked_column",
            title="Monthly cash: running costs stacked (left), purchases (right)",
            y_axis="USD a month, running costs",
            y_format="$#,##0",
            categories=(first, 0, last, 0),
            series=tuple(
                Series((0, j + 1), (first, j + 1, last, j + 1)) for j in running or used or [0]
            ),
            secondary=tuple(Series((0, j + 1), (first, j + 1, last, j + 1)) for j in capex)
            if running
            else (),
            y2_axis="USD a month, purchases",
            # Below the table (a printed page keeps the table readable), on a page of its own.
            anchor=(tr + 6, 0),
        )
    )
    sheet.page_breaks.append(tr + 6)
    sheet.widths[0] = 10
    return sheet
