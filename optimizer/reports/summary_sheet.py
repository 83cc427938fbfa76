"""The ``Summary`` sheet of the result workbook: one column per scenario.

Takes a :class:`RunResult` (plans, their baselines and shadow prices) and
hands on a :class:`SheetModel` with totals, costs by category, the fleet,
savings against the baselines and diagnostics, its sums as live formulas.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from optimizer.check.baselines import BASELINE_NAMES
from optimizer.domain import CostCategory
from optimizer.reports.baseline_note import baseline_missing_text, baseline_note
from optimizer.reports.coarse_note import coarse_notes
from optimizer.reports.moves_note import moves_notes
from optimizer.reports.page_one import LABEL_WIDTH, cash_chart, glance_block, value_width
from optimizer.reports.result_shared import (
    CATEGORY_LABELS,
    any_discounted,
    the_objective,
    used_gpu_names,
)
from optimizer.reports.sheet_grid import (
    SheetModel,
    Style,
    a1,
    column_letter,
    finite_or_none,
)
from optimizer.reports.sheet_names import AUDIT, SUMMARY
from optimizer.results import Plan, RunResult


def _money(plan: Plan, value: float | None) -> float | None:
    return value if plan.status.has_plan else None


def _summary_sheet(run: RunResult, audit_name: str = AUDIT) -> SheetModel:
    """One column per scenario; ``audit_name``: the Audit sheet's ("Audit (2)" beside a user's)."""
    currency = run.currency
    sheet = SheetModel(SUMMARY, freeze=(1, 1))
    plans = run.plans
    sheet.text(0, 0, "Scenario", Style.HEADER)
    for j, plan in enumerate(plans):
        sheet.text(0, j + 1, plan.name, Style.COLUMN_HEADER)
    row = 1

    def label(text: str, style: Style = Style.LABEL) -> int:
        nonlocal row
        sheet.text(row, 0, text, style)
        row += 1
        return row - 1

    def section(text: str) -> None:
        nonlocal row
        row += 1
        label(text, Style.SECTION)

    def each(text: str, values: Sequence[float | int | None], style: Style) -> int:
        r = label(text)
        for j, v in enumerate(values):
            sheet.number(r, j + 1, v, style)
        return r

    def each_nonzero(text: str, values: Sequence[float | int | None], style: Style) -> None:
        if any(values):
            each(text, values, style)

    glance = glance_block(sheet, run)
    row = glance.next_row

    r = label("Status")
    for j, plan in enumerate(plans):
        sheet.text(r, j + 1, plan.status.value, Style.VALUE_TEXT)
    each("Proven gap (%)", [p.gap for p in plans], Style.PERCENT)
    each(
        "Discount rate (% per year)",
        [p.scenario.assumptions.discount_rate for p in plans],
        Style.PERCENT,
    )
    each("Horizon (months)", [p.scenario.horizon_months for p in plans], Style.INTEGER)
    total_label = (
        f"Total cost ({currency}, present value, after residual credit; {the_objective(plans)})"
        if any_discounted(plans)
        else f"Total cost ({currency}, after residual credit; {the_objective(plans)})"
    )
    total_row = each(total_label, [_money(p, p.total_cost) for p in plans], Style.MONEY)
    for j, plan in enumerate(plans):
        # A link only where the row below holds a number (never to a blank cell).
        if plan.status.has_plan and finite_or_none(plan.total_cost) is not None:
            sheet.formula(
                glance.total,
                j + 1,
                f"={a1(total_row, j + 1)}",
                plan.total_cost,
                Style.MONEY_FORMULA,
            )
    cash_row = each(
        f"Cash out ({currency}, undiscounted, purchases included, before credit)",
        [_money(p, p.cash_out) for p in plans],
        Style.MONEY,
    )
    sales_row = each(
        f"Sales ({currency}, undiscounted; cash in, negative)",
        [_money(p, _sales(p)) for p in plans],
        Style.MONEY,
    )
    credit_row = each(
        f"Residual credit ({currency}, undiscounted value of what is owned at the horizon)",
        [_money(p, p.residual_credit) for p in plans],
        Style.MONEY,
    )
    r = label(f"Net undiscounted cost ({currency}) = cash out + sales − residual credit")
    for j, plan in enumerate(plans):
        if plan.cash_out is not None and plan.residual_credit is not None:
            sheet.formula(
                r,
                j + 1,
                f"={a1(cash_row, j + 1)}+{a1(sales_row, j + 1)}-{a1(credit_row, j + 1)}",
                plan.cash_out + _sales(plan) - plan.residual_credit,
                Style.MONEY_FORMULA,
            )

    section(
        f"Cost by category ({currency}, present value)"
        if any_discounted(plans)
        else f"Cost by category ({currency})"
    )
    first_cat = row
    for category in CostCategory:
        each(
            CATEGORY_LABELS[category],
            [_money(p, p.costs.get(category, 0.0)) for p in plans],
            Style.MONEY,
        )
    last_cat = row - 1
    credit_pv_row = each(
        f"Less residual credit ({currency}, present value)"
        if any_discounted(plans)
        else f"Less residual credit ({currency})",
        [_money(p, _credit_pv(p)) for p in plans],
        Style.MONEY,
    )
    r = label(f"Total cost = categories − credit ({currency}; check against total cost)")
    for j, plan in enumerate(plans):
        if plan.status.has_plan:
            col = column_letter(j + 1)
            sheet.formula(
                r,
                j + 1,
                f"=SUM({col}{first_cat + 1}:{col}{last_cat + 1})-{a1(credit_pv_row, j + 1)}",
                sum(plan.costs.get(c, 0.0) for c in CostCategory) - (_credit_pv(plan) or 0.0),
                Style.MONEY_FORMULA,
            )

    gpus = used_gpu_names(plans)
    if gpus:
        section("Fleet over the horizon (GPU types no plan uses are left out)")
        for gpu in gpus:
            each_nonzero(
                f"{gpu}: GPUs bought",
                [_fleet_total(p, gpu, "bought") for p in plans],
                Style.INTEGER,
            )
            each_nonzero(
                f"{gpu}: most reserved GPUs in a month",
                [_fleet_max(p, gpu) for p in plans],
                Style.INTEGER,
            )
            each_nonzero(
                f"{gpu}: on-demand hours (paid GPU-hours)",
                [_fleet_total(p, gpu, "rented_hours") for p in plans],
                Style.HOURS,
            )
            each_nonzero(
                f"{gpu}: spot hours (paid GPU-hours)",
                [_fleet_total(p, gpu, "spot_hours") for p in plans],
                Style.HOURS,
            )

    serving = serving_workloads(plans)
    if serving:
        section("Serving: replicas and load (load = demand ÷ capacity of all replicas)")
        each(
            "Target load (% of serving capacity; the plan stays at or below it)",
            [p.scenario.assumptions.target_load for p in plans],
            Style.PERCENT,
        )
        for w in serving:
            each(
                f"{w}: replicas (most in a month)",
                [_most_replicas(p, w) for p in plans],
                Style.INTEGER,
            )
            each(
                f"{w}: GPUs its replicas hold (most in a month)",
                [_most_replicas(p, w, gpus=True) for p in plans],
                Style.INTEGER,
            )
            each(
                f"{w}: peak load (% of serving capacity)",
                [_peak_load(p, w) for p in plans],
                Style.PERCENT,
            )
        # Methodology 2.16: replicas taken down while their workload still serves.
        each(
            "Serving moves (replicas taken down while their workload still serves)",
            [None if p.moves is None or p.total_cost is None else p.move_count for p in plans],
            Style.INTEGER,
        )
        each(
            f"change_cost ({currency} a move; weighed in the search, in no cost)",
            [p.scenario.assumptions.change_cost for p in plans],
            Style.MONEY,
        )

    section("Savings against simple alternatives (total cost of the alternative − this plan)")
    for name in BASELINE_NAMES:
        cost_row = label(f"{name}: total cost ({currency})")
        saving_row = label(f"{name}: saving ({currency})")
        pct_row = label(f"{name}: saving (% of the alternative)")
        for j, plan in enumerate(plans):
            baseline = run.baselines.get(plan.name, {}).get(name)
            if baseline is None:
                sheet.text(cost_row, j + 1, "not computed", Style.VALUE_NOTE)
                continue
            if baseline.total_cost is None or not baseline.status.has_plan:
                sheet.text(cost_row, j + 1, baseline_missing_text(baseline), Style.VALUE_NOTE)
                continue
            sheet.number(cost_row, j + 1, baseline.total_cost, Style.MONEY)
            if plan.total_cost is None:
                continue
            saving = baseline.total_cost - plan.total_cost
            sheet.formula(
                saving_row,
                j + 1,
                f"={a1(cost_row, j + 1)}-{a1(total_row, j + 1)}",
                saving,
                Style.MONEY_FORMULA,
            )
            if baseline.total_cost != 0:
                sheet.formula(
                    pct_row,
                    j + 1,
                    # Of the alternative's size: a saving stays "+" when its total is negative.
                    f"={a1(saving_row, j + 1)}/ABS({a1(cost_row, j + 1)})",
                    saving / abs(baseline.total_cost),
                    Style.PERCENT_FORMULA,
                )
        for j in range(len(plans)):
            if (saving_row, j + 1) in sheet.cells:
                cached = sheet.cells[(saving_row, j + 1)].value
                if isinstance(cached, float | int) and finite_or_none(cached) is not None:
                    sheet.formula(
                        glance.savings[name],
                        j + 1,
                        f"={a1(saving_row, j + 1)}",
                        cached,
                        Style.MONEY_FORMULA,
                    )
        notes = [baseline_note(name, run.baselines.get(p.name, {}).get(name), p) for p in plans]
        if any(notes):
            r = label(f"{name}: note")
            for j, note in enumerate(notes):
                if note:
                    # Wrapped: right-aligned it ran into the label and printed clipped.
                    sheet.text(r, j + 1, note, Style.WRAP)

    shadow_keys: list[tuple[str, int | None, str]] = []
    for plan in plans:
        for s in plan.shadow_prices:
            if (s.constraint, s.month, s.unit) not in shadow_keys:
                shadow_keys.append((s.constraint, s.month, s.unit))
    if shadow_keys:
        section(f"Binding limits: {currency} saved by one more unit (shadow prices)")
        for constraint, month, unit in shadow_keys:
            where = f", month {month}" if month is not None else ""
            values = [
                next(
                    (
                        s.saving_per_unit
                        for s in p.shadow_prices
                        if (s.constraint, s.month, s.unit) == (constraint, month, unit)
                    ),
                    None,
                )
                for p in plans
            ]
            each(f"{constraint}{where}: {currency} saved per one more {unit}", values, Style.MONEY)

    most = max((len(p.diagnostics) for p in plans), default=0)
    if most:
        section("Diagnostics")
        for i in range(most):
            r = label(f"Diagnostic {i + 1}")
            for j, plan in enumerate(plans):
                if i < len(plan.diagnostics):
                    sheet.text(r, j + 1, plan.diagnostics[i], Style.WRAP)

    row += 1
    # Notes run over the empty cells to their right, and print clipped at the printed
    # area's edge (issue 35: page 4 cut a note): lines no wider than its columns.
    across = LABEL_WIDTH + value_width(plans) * len(plans)
    for note in (
        f"All money in {currency}. Blue figures on grey are computed from other cells (totals, "
        "differences, savings); every other number is the solver's.",
        *coarse_notes(plans),  # --coarse-after: layouts per quarter, cost against monthly
        *moves_notes(plans),  # serving moves, and change_cost where set
        "Detail per scenario: sheets '<scenario> Cash flow' and '<scenario> Fleet'; the "
        "engineering detail in '<scenario> Places', 'Assignments' and 'Options' is hidden "
        "(right-click a tab › Unhide).",
        f"Every input and assumption with its source: sheet '{audit_name}'.",
    ):
        for line in textwrap.wrap(note, across):
            label(line, Style.NOTE)
    # The chart's data table follows; the printed Summary ends here (the chart shows it).
    sheet.print_last_row = row - 1
    cash_chart(sheet, run, row + 1, glance.chart_row)
    sheet.widths[0] = LABEL_WIDTH
    for j in range(len(plans)):
        sheet.widths[j + 1] = value_width(plans)
    if plans:
        # Names a finance model can link to: =SUM(TotalCost) stays right if rows move.
        for name, r in (
            ("TotalCost", total_row),
            ("CashOut", cash_row),
            ("ResidualCredit", credit_row),
        ):
            sheet.names[name] = (r, 1, r, len(plans))
    return sheet


def _sales(plan: Plan) -> float:
    """Undiscounted cash in from GPUs sold (negative, as the cash flow shows it)."""
    return sum(m.amounts.get(CostCategory.SALES, 0.0) for m in plan.cash_flow)


def _credit_pv(plan: Plan) -> float | None:
    if not plan.status.has_plan:
        return None
    if plan.residual_credit_discounted is not None:
        return plan.residual_credit_discounted
    return plan.residual_credit if plan.scenario.assumptions.discount_rate == 0 else None


def _fleet_total(plan: Plan, gpu: str, attr: str) -> float | None:
    if not plan.status.has_plan:
        return None
    return sum(getattr(r, attr) for r in plan.fleet if r.gpu == gpu)


def _fleet_max(plan: Plan, gpu: str) -> int | None:
    if not plan.status.has_plan:
        return None
    return max((r.reserved for r in plan.fleet if r.gpu == gpu), default=0)


def serving_workloads(plans: Sequence[Plan]) -> list[str]:
    """Workloads some plan serves with replicas, in the order the plans list them."""
    names: list[str] = []
    for plan in plans:
        for a in plan.assignments:
            if a.replicas is not None and a.workload not in names:
                names.append(a.workload)
    return names


def _most_replicas(plan: Plan, workload: str, gpus: bool = False) -> int | None:
    """The most replicas of ``workload`` in any month, all places and widths together.

    ``gpus``: the most GPUs those replicas hold (width × replicas) instead.
    """
    per_month: dict[int, int] = {}
    for a in plan.assignments:
        if a.workload == workload and a.replicas is not None:
            held = a.replicas * a.width if gpus else a.replicas
            per_month[a.month] = per_month.get(a.month, 0) + held
    return max(per_month.values(), default=None)


def _peak_load(plan: Plan, workload: str) -> float | None:
    """The highest monthly load of ``workload`` (demand ÷ capacity of all its replicas)."""
    loads = [a.load for a in plan.assignments if a.workload == workload and a.load is not None]
    return max(loads, default=None)
