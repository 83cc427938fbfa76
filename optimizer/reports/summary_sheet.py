"""The ``Summary`` sheet of the result workbook: one column per scenario.

Takes a :class:`RunResult` (plans, their baselines and shadow prices) and
hands on a :class:`SheetModel` with totals, costs by category, the fleet,
savings against the baselines and diagnostics, its sums as live formulas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from optimizer.check.baselines import BASELINE_NAMES, BEST_SINGLE_GPU, RENT_ONLY
from optimizer.currency import money_format
from optimizer.domain import CostCategory
from optimizer.reports.at_a_glance import (
    binding_limits,
    capex,
    cumulative_cash,
    payback_text,
    recommendation,
)
from optimizer.reports.coarse_note import coarse_notes
from optimizer.reports.result_shared import CATEGORY_LABELS, any_discounted, used_gpu_names
from optimizer.reports.sheet_grid import (
    Chart,
    Series,
    SheetModel,
    Style,
    a1,
    column_letter,
    finite_or_none,
)
from optimizer.reports.sheet_names import AUDIT, SUMMARY
from optimizer.results import Plan, RunResult, SolveStatus


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

    glance = _glance_block(sheet, run)
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
        f"Total cost ({currency}, present value, after residual credit; the objective)"
        if any_discounted(plans)
        else f"Total cost ({currency}, after residual credit; the objective)"
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
                sheet.text(cost_row, j + 1, f"no plan ({baseline.status.value})", Style.VALUE_NOTE)
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
        notes = [_baseline_note(name, run.baselines.get(p.name, {}).get(name)) for p in plans]
        if any(notes):
            r = label(f"{name}: note")
            for j, note in enumerate(notes):
                if note:
                    sheet.text(r, j + 1, note, Style.VALUE_TEXT)

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
    label(
        f"All money in {currency}. Blue figures on grey are computed from other cells (totals, "
        "differences, savings); every other number is the solver's.",
        Style.NOTE,
    )
    for note in (
        *coarse_notes(plans),  # --coarse-after: layouts per quarter, cost against monthly
        "Detail per scenario: sheets '<scenario> Cash flow' and '<scenario> Fleet'; the engineering",
        "detail in '<scenario> Places', 'Assignments' and 'Options' is hidden (right-click a tab › "
        "Unhide).",
        f"Every input and assumption with its source: sheet '{audit_name}'.",
    ):
        label(note, Style.NOTE)
    # The chart's data table follows; the printed Summary ends here (the chart shows it).
    sheet.print_last_row = row - 1
    _cumulative_cash(sheet, run, row + 1, glance.chart_row)
    sheet.widths[0] = 58
    for j in range(len(plans)):
        sheet.widths[j + 1] = 22
    if plans:
        # Names a finance model can link to: =SUM(TotalCost) stays right if rows move.
        for name, r in (
            ("TotalCost", total_row),
            ("CashOut", cash_row),
            ("ResidualCredit", credit_row),
        ):
            sheet.names[name] = (r, 1, r, len(plans))
    return sheet


@dataclass(frozen=True)
class _Glance:
    """Rows of the at-a-glance block that are filled once the rows below exist."""

    total: int
    savings: dict[str, int]
    chart_row: int
    next_row: int


# Rows the cumulative-cash chart covers on the first printed page.
_CHART_ROWS = 16


def _glance_block(sheet: SheetModel, run: RunResult) -> _Glance:
    """The first printed page: what to do, what it costs and saves, and the cash chart."""
    currency = run.currency
    plans = run.plans
    sheet.text(1, 0, "At a glance", Style.SECTION)
    sheet.text(2, 0, "What to do", Style.LABEL)
    sheet.text(3, 0, f"Total cost ({currency}, after residual credit; as below)", Style.LABEL)
    sheet.text(4, 0, f"Capex: GPUs bought ({currency}, undiscounted)", Style.LABEL)
    savings = {}
    for i, name in enumerate(BASELINE_NAMES):
        savings[name] = 5 + i
        sheet.text(5 + i, 0, f"Saving against {name} ({currency})", Style.LABEL)
    r = 5 + len(BASELINE_NAMES)
    sheet.text(r, 0, "Buying pays back against rent only from", Style.LABEL)
    sheet.text(
        r + 1,
        0,
        f"Limits that hold the plan back ({currency} saved per one more unit)",
        Style.LABEL,
    )
    for j, plan in enumerate(plans):
        rent_only = _rent_only(run, plan)
        sheet.text(2, j + 1, recommendation(plan), Style.WRAP)
        sheet.number(4, j + 1, capex(plan), Style.MONEY)
        sheet.text(r, j + 1, payback_text(plan, rent_only), Style.VALUE_TEXT)
        sheet.text(r + 1, j + 1, binding_limits(plan), Style.WRAP)
    chart_row = r + 3
    next_row = chart_row + _CHART_ROWS
    sheet.page_breaks.append(next_row)  # the details start on page 2
    return _Glance(total=3, savings=savings, chart_row=chart_row, next_row=next_row)


def _cumulative_cash(sheet: SheetModel, run: RunResult, first: int, chart_row: int) -> None:
    """Cumulative cash by month, this plan and rent only, what the plan has saved so far,
    and the chart on page 1 that shows the saving (below zero until buying pays back)."""
    currency = run.currency
    plans = run.plans
    months = max((p.scenario.horizon_months for p in plans), default=0)
    columns: dict[int, tuple[list[float], list[float]]] = {}
    for j, plan in enumerate(plans):
        mine = cumulative_cash(plan)
        rent_only = _rent_only(run, plan)
        theirs = cumulative_cash(rent_only) if rent_only is not None else None
        if mine is None or theirs is None:
            continue
        if all(finite_or_none(x) is not None for x in (*mine, *theirs)):
            columns[j + 1] = (mine, theirs)
    if not columns:
        return
    # (what the block holds, the label of its column per scenario)
    blocks = (
        ("this plan", "this plan"),
        ("rent only", "rent only"),
        ("saved so far against rent only", "saved so far"),
    )
    starts = [first + i * (months + 2) for i in range(len(blocks))]
    for start, (what, _label) in zip(starts, blocks, strict=True):
        sheet.text(
            start, 0, f"Cumulative cash by month, {what} ({currency}, undiscounted)", Style.SECTION
        )
        for t in range(months):
            sheet.number(start + 1 + t, 0, t + 1, Style.INTEGER)
    series = []
    for col, (mine, theirs) in columns.items():
        name = plans[col - 1].name
        for start, (_what, label) in zip(starts, blocks, strict=True):
            sheet.text(start, col, f"{name}: {label}", Style.COLUMN_HEADER)
        for t, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            sheet.number(starts[0] + 1 + t, col, a, Style.MONEY)
            sheet.number(starts[1] + 1 + t, col, b, Style.MONEY)
            sheet.formula(
                starts[2] + 1 + t,
                col,
                f"={a1(starts[1] + 1 + t, col)}-{a1(starts[0] + 1 + t, col)}",
                b - a,
                Style.MONEY_FORMULA,
            )
        series.append(Series((starts[2], col), (starts[2] + 1, col, starts[2] + len(mine), col)))
    width = 58 + 22 * len(plans)  # characters across the page, about 7 px each
    sheet.charts.append(
        Chart(
            kind="line",
            title=f"Cash saved so far against renting everything ({currency}; below 0: not paid back yet)",
            y_axis=f"{currency} saved so far",
            y_format=money_format(currency, 0),
            categories=(starts[2] + 1, 0, starts[2] + months, 0),
            series=tuple(series),
            anchor=(chart_row, 0),
            scale=(min(1.6, width * 7 / 480 * 0.95), 1.05),
        )
    )


def _rent_only(run: RunResult, plan: Plan) -> Plan | None:
    return run.baselines.get(plan.name, {}).get(RENT_ONLY)


def _baseline_note(name: str, baseline: Plan | None) -> str:
    """Which GPU type the single-type baseline kept, and whether its cost is only a bound."""
    if baseline is None or not baseline.status.has_plan:
        return ""
    parts = []
    if name == BEST_SINGLE_GPU and len(baseline.scenario.gpus) == 1:
        parts.append(f"only {baseline.scenario.gpus[0].name}")
    if baseline.status is SolveStatus.TIME_LIMIT:
        # Stopped early: its cost is an upper bound, so the saving may be smaller.
        gap = f", gap {baseline.gap:.1%}" if baseline.gap is not None else ""
        parts.append(f"time limit{gap}: saving at most this")
    return "; ".join(parts)


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
