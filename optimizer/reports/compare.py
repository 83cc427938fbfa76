"""Scenarios side by side (``gpumix compare``): a workbook and a terminal table.

One column per scenario: status, total cost, cash out, each cost category,
the GPUs and hours each plan takes per GPU type and option, and the
difference against the first scenario. Numbers are written as numbers; the
differences are live formulas that carry their value as the cached result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from optimizer.currency import money_format, money_text, one_currency
from optimizer.domain import CostCategory, OfferOption
from optimizer.reports.page_fit import fit_one_page_when_legible, turn_to_fit
from optimizer.reports.result_shared import CATEGORY_LABELS, any_discounted, the_objective
from optimizer.reports.sheet_grid import Chart, Series, SheetModel, Style, a1, render_xlsx
from optimizer.reports.sheet_names import COMPARISON
from optimizer.results import Plan, SolveStatus

# What one unit of an offer's use is, per option (OfferUse.units).
_UNITS = {
    OfferOption.BUY: "GPUs bought",
    OfferOption.RESERVED: "GPU-months reserved",
    OfferOption.ON_DEMAND: "on-demand paid GPU-hours",
    OfferOption.SPOT: "spot paid GPU-hours",
}
_UNIT_STYLE = {
    OfferOption.BUY: Style.INTEGER,
    OfferOption.RESERVED: Style.INTEGER,
    OfferOption.ON_DEMAND: Style.HOURS,
    OfferOption.SPOT: Style.HOURS,
}


CREDIT_LABEL = "Residual credit"  # its row's label starts so, whatever the currency


def _money_rows(plans: Sequence[Plan]) -> list[tuple[str, list[float | None]]]:
    """(label, one value per plan) for every money row; None where a plan has none.

    The total and the categories are present values when a scenario has a
    discount rate, and the labels say so: a comparison must not pass a
    present value off as cash.
    """

    def each(get: Callable[[Plan], float | None]) -> list[float | None]:
        return [get(p) if p.status.has_plan else None for p in plans]

    basis = "present value at each scenario's discount rate" if any_discounted(plans) else "cash"
    currency = plans_currency(plans)
    rows: list[tuple[str, list[float | None]]] = [
        (
            f"Total cost ({currency}, {basis}; {the_objective(plans)})",
            each(lambda p: p.total_cost),
        ),
        (f"Cash out ({currency}, undiscounted)", each(lambda p: p.cash_out)),
        (f"{CREDIT_LABEL} ({currency}, undiscounted)", each(lambda p: p.residual_credit)),
    ]
    for category in CostCategory:
        values = [p.costs.get(category, 0.0) if p.status.has_plan else None for p in plans]
        if category in V2_CATEGORIES and not any(values):
            continue  # servers, rack space, sales: shown where some plan has them
        rows.append((f"{CATEGORY_LABELS[category]} ({currency}, {basis})", values))
    return rows


V2_CATEGORIES = (CostCategory.NODE, CostCategory.COLOCATION, CostCategory.SALES)


def _setting_rows(plans: Sequence[Plan]) -> list[tuple[str, list[object], Style]]:
    """What a reader must know before comparing totals: horizon, discount rate, why no plan.

    (label, one value per plan, the cell style); text for "Why no plan".
    """
    rows: list[tuple[str, list[object], Style]] = [
        ("Horizon (months)", [p.scenario.horizon_months for p in plans], Style.INTEGER),
        (
            "Discount rate (per year)",
            [p.scenario.assumptions.discount_rate for p in plans],
            Style.PERCENT,
        ),
    ]
    if not all(p.status.has_plan for p in plans):
        reasons: list[object] = [
            "" if p.status.has_plan else "; ".join(p.diagnostics) for p in plans
        ]
        rows.append(("Why no plan", reasons, Style.VALUE_TEXT))
    if any(p.status is SolveStatus.TIME_LIMIT for p in plans):
        # A plan stopped by the time limit may not be the cheapest: a difference
        # between totals means little until it is larger than the gaps.
        rows.append(
            (UNPROVEN_GAP, [p.gap if p.status.has_plan else None for p in plans], Style.PERCENT)
        )
        # With change_cost (methodology 2.16) the bound is of cost plus the charge per move.
        charged = any(p.scenario.assumptions.change_cost > 0 for p in plans)
        floor = (
            "No plan's cost plus change_cost per move is below"
            if charged
            else "No plan can cost less than"
        )
        rows.append(
            (f"{floor} ({plans_currency(plans)}, proven)", [_bound(p) for p in plans], Style.MONEY)
        )
    return rows


UNPROVEN_GAP = "Proven gap (0 %: the cheapest plan)"
UNPROVEN_NOTE = (
    "some plans were stopped by the time limit: a difference smaller than their gaps "
    "is not proven (a cheaper plan may exist)"
)


def _bound(plan: Plan) -> float | None:
    """The proven lower bound on any plan's cost (the plan's own cost when proven).

    Of what the search minimised: with change_cost the cost plus the charge per move.
    """
    if plan.status is SolveStatus.OPTIMAL:
        return plan.objective
    return plan.solver.bound if plan.solver is not None else None


def _setting_text(value: object, style: Style, currency: str) -> str:
    if value is None:
        return "—"
    if style is Style.PERCENT and isinstance(value, float):
        return f"{value:.1%}"
    if style is Style.MONEY and isinstance(value, float):
        return money_text(value, currency)
    return str(value)


def _delta_label(label: str) -> str:
    # A larger credit makes a plan cheaper, unlike every other money row.
    if label.startswith(CREDIT_LABEL):
        return f"Δ {label[:-1]}; positive = more credit, cheaper)"
    return f"Δ {label}"


def _use_rows(plans: Sequence[Plan]) -> list[tuple[str, OfferOption, list[float | None]]]:
    keys: list[tuple[str, OfferOption]] = []
    for plan in plans:
        for use in plan.offer_use:
            if (use.gpu, use.option) not in keys:
                keys.append((use.gpu, use.option))
    keys.sort(key=lambda k: (k[0], list(OfferOption).index(k[1])))
    rows = []
    for gpu, option in keys:
        values: list[float | None] = [
            sum(u.units for u in p.offer_use if (u.gpu, u.option) == (gpu, option))
            if p.status.has_plan
            else None
            for p in plans
        ]
        if any(values):  # rows of zeros only hide the numbers that differ
            rows.append((f"{gpu}: {_UNITS[option]}", option, values))
    return rows


def plans_currency(plans: Sequence[Plan]) -> str:
    """The currency every compared plan shares (``gpumix compare`` refuses a mix first)."""
    return one_currency(p.currency for p in plans)


def comparison_sheet(plans: Sequence[Plan]) -> SheetModel:
    currency = plans_currency(plans)
    sheet = SheetModel(COMPARISON, freeze=(1, 1), currency=currency)
    sheet.text(0, 0, "Scenario", Style.HEADER)
    for j, plan in enumerate(plans):
        sheet.text(0, j + 1, plan.name, Style.COLUMN_HEADER)
    sheet.text(1, 0, "Status", Style.LABEL)
    for j, plan in enumerate(plans):
        sheet.text(1, j + 1, plan.status.value, Style.VALUE_TEXT)
    row = 2
    for label, settings, style in _setting_rows(plans):
        sheet.text(row, 0, label, Style.LABEL)
        for j, value in enumerate(settings):
            if isinstance(value, str):
                sheet.text(row, j + 1, value, Style.WRAP)
            else:
                sheet.number(row, j + 1, cast(float, value), style)
        row += 1
    money_at: list[int] = []
    for label, values in _money_rows(plans):
        sheet.text(row, 0, label, Style.LABEL)
        for j, v in enumerate(values):
            sheet.number(row, j + 1, v, Style.MONEY)
        money_at.append(row)
        row += 1
    use_rows = _use_rows(plans)
    if use_rows:
        row += 1
        sheet.text(row, 0, "GPUs and hours per type and option (over the horizon)", Style.SECTION)
        row += 1
        for label, option, values in use_rows:
            sheet.text(row, 0, label, Style.LABEL)
            for j, v in enumerate(values):
                sheet.number(row, j + 1, v, _UNIT_STYLE[option])
            row += 1
    if plans:
        row += 1
        sheet.text(
            row,
            0,
            f"Difference against {plans[0].name} ({currency}; positive = dearer)",
            Style.SECTION,
        )
        row += 1
        if any(p.status is SolveStatus.TIME_LIMIT for p in plans):
            sheet.text(row, 0, f"Note: {UNPROVEN_NOTE}", Style.WRAP)
            row += 1
        first = plans[0]
        for (label, values), source_row in zip(_money_rows(plans), money_at, strict=True):
            sheet.text(row, 0, _delta_label(label), Style.LABEL)
            for j in range(1, len(plans)):
                base, this = values[0], values[j]
                if base is not None and this is not None and first.status.has_plan:
                    sheet.formula(
                        row,
                        j + 1,
                        f"={a1(source_row, j + 1)}-{a1(source_row, 1)}",
                        this - base,
                        Style.MONEY_FORMULA,
                    )
            row += 1
    category_rows = money_at[3:]
    used = [
        r
        for r, (_, values) in zip(category_rows, _money_rows(plans)[3:], strict=True)
        if any(values)
    ]
    if plans and used:
        sheet.charts.append(
            Chart(
                kind="stacked_column",
                title=f"Cost by category per scenario ({currency})",
                x_axis="Scenario",
                y_axis=currency,
                y_format=money_format(currency, 0),
                categories=(0, 1, 0, len(plans)),
                series=tuple(Series((r, 0), (r, 1, r, len(plans))) for r in used),
                anchor=(row + 1, 0),
                scale=(1.5, 1.15),  # a little short, so that the sheet fits one landscape page
            )
        )
    sheet.widths[0] = 52
    for j in range(len(plans)):
        sheet.widths[j + 1] = 20
    # One page with its chart, never the chart cut across two, while the text stays legible:
    # a few scenarios fit best upright, many across.
    turn_to_fit(sheet)
    fit_one_page_when_legible(sheet)
    return sheet


def write_comparison(path: Path, plans: Sequence[Plan]) -> None:
    """Write the comparison workbook (one sheet, ``Comparison``) to ``path``."""
    render_xlsx(path, [comparison_sheet(plans)])


def _fmt(value: float | None, currency: str | None) -> str:
    """A money figure in ``currency``, or (``currency`` None) a count of GPUs or hours."""
    if value is None:
        return "—"
    if currency is not None:
        return money_text(value, currency)
    return f"{value:,.1f}".removesuffix(".0")


def comparison_table(plans: Sequence[Plan]) -> str:
    """The comparison as fixed-width text for the terminal."""
    currency = plans_currency(plans)
    lines: list[tuple[str, list[str]]] = [("Scenario", [p.name for p in plans])]
    lines.append(("Status", [p.status.value for p in plans]))
    lines.extend(
        (label, [_setting_text(v, style, currency) for v in settings])
        for label, settings, style in _setting_rows(plans)
        if label != "Why no plan"  # printed below the table, one sentence per scenario
    )
    for label, values in _money_rows(plans):
        lines.append((label, [_fmt(v, currency) for v in values]))
    for label, _, values in _use_rows(plans):
        lines.append((label, [_fmt(v, None) for v in values]))
    if len(plans) > 1:
        totals = _money_rows(plans)[0][1]
        deltas = [
            _fmt(t - totals[0], currency) if t is not None and totals[0] is not None else "—"
            for t in totals[1:]
        ]
        lines.append((f"Δ total vs {plans[0].name}", ["", *deltas]))
    label_width = max(len(label) for label, _ in lines)
    widths = [max(len(cells[j]) for _, cells in lines) for j in range(len(plans))]
    out = []
    for label, cells in lines:
        out.append(
            "  ".join(
                [
                    label.ljust(label_width),
                    *(c.rjust(w) for c, w in zip(cells, widths, strict=True)),
                ]
            ).rstrip()
        )
    if len(plans) > 1 and any(p.status is SolveStatus.TIME_LIMIT for p in plans):
        out.append(f"Note: {UNPROVEN_NOTE}")  # below the table, not one of its labels
    return "\n".join(out)
