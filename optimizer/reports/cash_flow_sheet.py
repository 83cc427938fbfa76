"""A scenario's ``Cash flow`` sheet: undiscounted cash by month and category.

Takes one :class:`Plan` and its baselines and hands on a :class:`SheetModel`
with a row per month, live totals, the residual credit, the net cash, and
two charts side by side under the table: the monthly cash stacked by
category, and the cumulative cash of the plan against each simple
alternative (the chart's data sits below the printed page). The sheet
prints on one portrait page while that stays legible.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from optimizer.check.baselines import BASELINE_NAMES
from optimizer.currency import money_format
from optimizer.domain import CostCategory
from optimizer.reports.at_a_glance import cumulative_cash
from optimizer.reports.page_fit import chart_end, fit_one_page_when_legible
from optimizer.reports.result_shared import CATEGORY_LABELS, _no_plan_note
from optimizer.reports.sheet_grid import (
    Chart,
    Series,
    SheetModel,
    Style,
    Table,
    a1,
    column_letter,
    finite_or_none,
    fitted_widths,
)
from optimizer.results import Plan

MONEY_WIDTH = 13  # a money column under a header wrapped onto two lines
CHART_HEIGHT = 1.2  # of the default 288 px: two charts side by side under 36 months of table


def _cash_flow_sheet(
    plan: Plan, name: str, index: int, baselines: Mapping[str, Plan] | None = None
) -> SheetModel:
    currency = plan.currency
    sheet = SheetModel(name, freeze=(1, 1), landscape=False)
    categories = list(CostCategory)
    total_col = len(categories) + 1
    sheet.header(
        0,
        0,
        [
            "Month",
            *(f"{CATEGORY_LABELS[c]} ({currency})" for c in categories),
            f"Total ({currency})",
        ],
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
    sheet.text(tr + 2, 0, f"Less residual credit at horizon ({currency}, undiscounted)", Style.TEXT)
    sheet.number(tr + 2, total_col, credit, Style.MONEY)
    sheet.text(tr + 3, 0, f"Net cash after credit ({currency}, undiscounted)", Style.TOTAL_LABEL)
    sheet.formula(
        tr + 3,
        total_col,
        f"={a1(tr, total_col)}-{a1(tr + 2, total_col)}",
        sum(m.total for m in plan.cash_flow) - credit,
        Style.TOTAL_MONEY_FORMULA,
    )
    # Two short lines: a note runs over the empty cells to its right, up to the page's edge.
    for i, note in enumerate(
        (
            "Undiscounted cash by month; purchases are paid at the start of their month.",
            "The Summary's category costs are present values when the discount rate > 0.",
        )
    ):
        sheet.text(tr + 4 + i, 0, note, Style.NOTE)
    sheet.widths[0] = 10
    for j in range(1, total_col + 1):
        sheet.widths[j] = MONEY_WIDTH
    used = [
        j for j, c in enumerate(categories) if any(m.amounts.get(c, 0.0) for m in plan.cash_flow)
    ]
    # Purchases get their own axis: one month's GPUs would flatten every running cost.
    capital = (CostCategory.PURCHASE, CostCategory.NODE, CostCategory.SALES)
    capex = [j for j in used if categories[j] in capital]
    running = [j for j in used if j not in capex]
    # Two charts side by side under the table, each about half its width.
    half = math.ceil((total_col + 1) / 2)
    widths = fitted_widths(sheet)
    px = [widths.get(c, 8.43) * 7 + 5 for c in range(total_col + 1)]
    chart_row = tr + 7
    monthly = Chart(
        kind="stacked_column",
        title="Monthly cash: running costs (left), purchases (right)",
        y_axis=f"{currency} a month, running costs",
        y_format=money_format(currency, 0),
        categories=(first, 0, last, 0),
        series=tuple(
            Series((0, j + 1), (first, j + 1, last, j + 1)) for j in running or used or [0]
        ),
        secondary=tuple(Series((0, j + 1), (first, j + 1, last, j + 1)) for j in capex)
        if running
        else (),
        y2_axis=f"{currency} a month, purchases",
        anchor=(chart_row, 0),
        scale=(sum(px[:half]) / 480 * 0.97, CHART_HEIGHT),
    )
    sheet.charts.append(monthly)
    # The printed page ends under the charts; the cumulative chart's data follows.
    sheet.print_last_row = chart_end(monthly, widths)[0]
    columns = _cumulative_columns(plan, baselines or {})
    if len(columns) > 1:
        head = _cumulative_table(sheet, plan, columns, sheet.print_last_row + 2)
        months = len(plan.cash_flow)
        sheet.charts.append(
            Chart(
                kind="line",
                title="Cumulative cash: this plan against each simple alternative",
                y_axis=f"{currency} paid so far",
                y_format=money_format(currency, 0),
                categories=(head + 1, 0, head + months, 0),
                series=tuple(
                    Series((head, j), (head + 1, j, head + months, j))
                    for j in range(1, len(columns) + 1)
                ),
                anchor=(chart_row, half),
                scale=(sum(px[half:]) / 480 * 0.97, CHART_HEIGHT),
            )
        )
    fit_one_page_when_legible(sheet)
    return sheet


def _cumulative_columns(plan: Plan, baselines: Mapping[str, Plan]) -> list[tuple[str, list[float]]]:
    """(name, cumulative cash by month) for the plan and each alternative that has a plan."""
    columns = []
    for label, other in (("this plan", plan), *((n, baselines.get(n)) for n in BASELINE_NAMES)):
        cash = cumulative_cash(other) if other is not None else None
        if (
            cash
            and len(cash) == len(plan.cash_flow)
            and all(finite_or_none(x) is not None for x in cash)
        ):
            columns.append((label, cash))
    return columns


def _cumulative_table(
    sheet: SheetModel, plan: Plan, columns: list[tuple[str, list[float]]], row: int
) -> int:
    """Writes the table at ``row``; returns the row of its column headers."""
    currency = plan.currency
    sheet.text(
        row,
        0,
        f"Cumulative cash by month ({currency}, undiscounted): this plan and each simple alternative",
        Style.SECTION,
    )
    sheet.text(row + 1, 0, "Month", Style.HEADER)
    for j, (label, cash) in enumerate(columns, start=1):
        sheet.text(row + 1, j, label, Style.COLUMN_HEADER)
        for t, value in enumerate(cash):
            sheet.number(row + 2 + t, j, value, Style.MONEY)
    for t, month in enumerate(plan.cash_flow):
        sheet.number(row + 2 + t, 0, month.month, Style.INTEGER)
    return row + 1
