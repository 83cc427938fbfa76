"""The result workbook that goes to finance (``gpumix solve``).

:func:`build_result_sheets` lays a :class:`RunResult` out as grids
(``optimizer.reports.sheet_grid``); :func:`write_result_workbook` renders them with
XlsxWriter. Sheets: ``Summary`` (one column per scenario), ``Audit``, then per
scenario ``Cash flow``, ``Fleet``, ``Assignments`` and ``Options``. Live
formulas (totals, savings, unit costs) carry the solver's numbers as their
cached values, so every reader sees numbers without recalculating.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from optimizer.check.baselines import BASELINE_NAMES, BEST_SINGLE_GPU
from optimizer.domain import CostCategory, Kind, Offer, OfferOption, Scenario
from optimizer.reports.audit_sheet import audit_sheet
from optimizer.reports.sheet_grid import (
    Chart,
    Series,
    SheetModel,
    Style,
    Table,
    a1,
    column_letter,
    finite_or_none,
    render_xlsx,
)
from optimizer.reports.sheet_names import AUDIT, SUMMARY, result_sheet_names
from optimizer.results import Plan, RunResult, SolveStatus

# ---------------------------------------------------------------------------
# Labels the sheets share

CATEGORY_LABELS: dict[CostCategory, str] = {
    CostCategory.PURCHASE: "Purchase (capex)",
    CostCategory.ENERGY: "Energy",
    CostCategory.MAINTENANCE: "Maintenance",
    CostCategory.ON_DEMAND: "On-demand rent",
    CostCategory.SPOT: "Spot rent",
    CostCategory.RESERVED: "Reserved",
}


def _money(plan: Plan, value: float | None) -> float | None:
    return value if plan.status.has_plan else None


def used_gpu_names(plans: Iterable[Plan]) -> list[str]:
    """GPU types some plan buys, reserves or rents, in the order the plans list them.

    Types no plan touches are left out of the sheets (the JSON keeps them):
    rows of zeros only hide the numbers that matter.
    """
    names: list[str] = []
    for plan in plans:
        for row in plan.fleet:
            busy = row.bought or row.owned or row.reserved or row.rented_hours or row.spot_hours
            if busy and row.gpu not in names:
                names.append(row.gpu)
    return names


def any_discounted(plans: Iterable[Plan]) -> bool:
    """Some plan's money is a present value (its scenario has a discount rate)."""
    return any(p.scenario.assumptions.discount_rate > 0 for p in plans)


# ---------------------------------------------------------------------------
# Summary


def _summary_sheet(run: RunResult, audit_name: str = AUDIT) -> SheetModel:
    """One column per scenario; ``audit_name`` is the Audit sheet's actual name.

    (``--in-place`` next to a user's own "Audit" sheet makes ours "Audit (2)".)
    """
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
        "Total cost (USD, present value, after residual credit; the objective)"
        if any_discounted(plans)
        else "Total cost (USD, after residual credit; the objective)"
    )
    total_row = each(total_label, [_money(p, p.total_cost) for p in plans], Style.MONEY)
    cash_row = each(
        "Cash out (USD, undiscounted, purchases included, before credit)",
        [_money(p, p.cash_out) for p in plans],
        Style.MONEY,
    )
    credit_row = each(
        "Residual credit (USD, undiscounted book value at horizon)",
        [_money(p, p.residual_credit) for p in plans],
        Style.MONEY,
    )
    r = label("Net undiscounted cost (USD) = cash out − residual credit")
    for j, plan in enumerate(plans):
        if plan.cash_out is not None and plan.residual_credit is not None:
            sheet.formula(
                r,
                j + 1,
                f"={a1(cash_row, j + 1)}-{a1(credit_row, j + 1)}",
                plan.cash_out - plan.residual_credit,
                Style.MONEY_FORMULA,
            )

    section(
        "Cost by category (USD, present value)"
        if any_discounted(plans)
        else "Cost by category (USD)"
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
        "Less residual credit (USD, present value)"
        if any_discounted(plans)
        else "Less residual credit (USD)",
        [_money(p, _credit_pv(p)) for p in plans],
        Style.MONEY,
    )
    r = label("Total cost = categories − credit (USD; check against total cost)")
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

    section("Savings against simple alternatives (total cost of the alternative − this plan)")
    for name in BASELINE_NAMES:
        cost_row = label(f"{name}: total cost (USD)")
        saving_row = label(f"{name}: saving (USD)")
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
                    f"={a1(saving_row, j + 1)}/{a1(cost_row, j + 1)}",
                    saving / baseline.total_cost,
                    Style.PERCENT_FORMULA,
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
        section("Binding limits: USD saved by one more unit (shadow prices)")
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
            each(f"{constraint}{where}: USD saved per one more {unit}", values, Style.MONEY)

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
        "All money in USD. Blue figures on grey are computed from other cells (totals, "
        "differences, savings); every other number is the solver's.",
        Style.NOTE,
    )
    label(
        "Detail per scenario: sheets '<scenario> Cash flow', 'Fleet', 'Assignments', "
        f"'Options'. Every input and assumption with its source: sheet '{audit_name}'.",
        Style.NOTE,
    )
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


# ---------------------------------------------------------------------------
# Per-scenario sheets


def _no_plan_note(sheet: SheetModel, plan: Plan, row: int) -> None:
    sheet.text(
        row,
        0,
        f"No plan: status {plan.status.value}. The Summary sheet lists the reasons.",
        Style.NOTE,
    )


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
    sheet.charts.append(
        Chart(
            kind="stacked_column",
            title="Monthly cash by category (USD)",
            y_axis="USD",
            y_format="$#,##0",
            categories=(first, 0, last, 0),
            series=tuple(Series((0, j + 1), (first, j + 1, last, j + 1)) for j in used or [0]),
            # Below the table (a printed page keeps the table readable), on a page of its own.
            anchor=(tr + 6, 0),
        )
    )
    sheet.page_breaks.append(tr + 6)
    sheet.widths[0] = 10
    return sheet


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
    if unused:
        sheet.text(
            len(rows) + 2, 0, "Not used by this plan: " + ", ".join(unused) + ".", Style.NOTE
        )
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


@dataclass(frozen=True)
class _UnitCost:
    offer: Offer
    formula: str
    value: float
    unit: str


def cheapest_hourly_offer(scenario: Scenario, gpu: str, spot_ok: bool) -> Offer | None:
    """The lowest-priced on-demand or reserved offer (spot too when the work may be interrupted).

    Only offers the plan could take: available within the horizon, and a
    reservation whose whole term fits in it (model.md, Reservations).
    """
    allowed = {OfferOption.ON_DEMAND, OfferOption.RESERVED} | (
        {OfferOption.SPOT} if spot_ok else set()
    )
    T = scenario.horizon_months
    offers = [
        o
        for o in scenario.offers
        if o.gpu == gpu and o.option in allowed and o.available_from + (o.term_months or 1) - 1 <= T
    ]
    return min(offers, key=lambda o: o.price, default=None)


def _offer_label(offer: Offer) -> str:
    """``reserved, 12 months (Cloud A)``: option, term, provider (or the offer id)."""
    term = f", {offer.term_months} months" if offer.option is OfferOption.RESERVED else ""
    return f"{offer.option.value}{term} ({offer.provider or offer.offer_id})"


def _unit_cost(
    plan: Plan,
    row: int,
    workload: str,
    gpu: str,
    gph: float | None,
    tps: float | None,
    k: int | None,
) -> _UnitCost | None:
    """Cost of one unit of work at the cheapest hourly offer, as a live formula on this row."""
    w = next((w for w in plan.scenario.workloads if w.name == workload), None)
    if w is None:
        return None
    spot_ok = w.interruptible and w.kind is not Kind.REALTIME_INFERENCE
    offer = cheapest_hourly_offer(plan.scenario, gpu, spot_ok)
    if offer is None:
        return None
    price_cell = a1(row, 10)
    # A paid spot hour yields spot_efficiency hours of work.
    eff = plan.scenario.assumptions.spot_efficiency if offer.option is OfferOption.SPOT else 1.0
    if w.kind is Kind.REALTIME_INFERENCE:
        if not tps or not k or finite_or_none(tps) is None:
            return None
        return _UnitCost(
            offer,
            f"={a1(row, 5)}*{price_cell}/({a1(row, 7)}*3600)*1000000",
            k * offer.price / (tps * 3600) * 1e6,
            "USD per million tokens",
        )
    if gph is None or finite_or_none(gph) is None:
        return None
    unit = "USD per month" if w.kind is Kind.BATCH_INFERENCE else "USD per job"
    if eff != 1.0:
        return _UnitCost(
            offer, f"={a1(row, 6)}/{eff!r}*{price_cell}", gph / eff * offer.price, unit
        )
    return _UnitCost(offer, f"={a1(row, 6)}*{price_cell}", gph * offer.price, unit)


def _options_sheet(plan: Plan, name: str, index: int) -> SheetModel:
    sheet = SheetModel(name, freeze=(1, 2), pages_wide=2)  # 15 columns: two pages stay legible
    sheet.header(
        0,
        0,
        [
            "Workload",
            "GPU",
            "Allowed",
            "Why not",
            "Memory need (GB)",
            "GPUs per replica",
            "GPU-hours (training: job; batch: per month)",
            "Tokens/s per replica",
            "Batch-1 latency (ms per token)",
            "Source",
            "Cheapest hourly price (USD per GPU-hour)",
            "Cheapest hourly offer",
            "Cost per unit of work (USD)",
            "Unit of work",
            "Chosen",
        ],
    )
    if not plan.options:
        sheet.text(1, 0, "No workload × GPU pair was estimated.", Style.NOTE)
        return sheet
    chosen = {(a.workload, a.gpu) for a in plan.assignments if a.gpu_hours > 0}
    for i, o in enumerate(plan.options):
        r = i + 1
        sheet.text(r, 0, o.workload)
        sheet.text(r, 1, o.gpu)
        sheet.text(r, 2, "yes" if o.allowed else "no")
        sheet.text(r, 3, o.reason, Style.WRAP)
        sheet.number(r, 4, o.memory_gb, Style.NUMBER)
        sheet.number(r, 5, o.gpus_per_replica, Style.INTEGER)
        sheet.number(r, 6, o.gpu_hours, Style.HOURS)
        sheet.number(r, 7, o.tokens_per_second_per_replica, Style.NUMBER)
        sheet.number(r, 8, o.latency_ms, Style.NUMBER)
        sheet.text(r, 9, o.source.value)
        unit_cost = (
            _unit_cost(
                plan,
                r,
                o.workload,
                o.gpu,
                o.gpu_hours,
                o.tokens_per_second_per_replica,
                o.gpus_per_replica,
            )
            if o.allowed
            else None
        )
        if unit_cost is not None:
            sheet.number(r, 10, unit_cost.offer.price, Style.MONEY)
            sheet.text(r, 11, _offer_label(unit_cost.offer))
            sheet.formula(r, 12, unit_cost.formula, unit_cost.value, Style.MONEY_FORMULA)
            sheet.text(r, 13, unit_cost.unit)
        if (o.workload, o.gpu) in chosen:
            sheet.text(r, 14, "✔", Style.MARK)
    sheet.tables.append(Table(f"Options_{index}", 0, 0, len(plan.options), 14))
    for i, note in enumerate(
        (
            "Cost per unit of work = GPU-hours (realtime: GPUs per replica ÷ tokens/s) × the "
            "cheapest hourly price.",
            "A reserved price assumes its whole term is used; a spot hour yields "
            "spot_efficiency hours of work. ✔ = the plan runs the workload on that GPU.",
        )
    ):
        sheet.text(len(plan.options) + 2 + i, 0, note, Style.NOTE)
    sheet.widths[3] = 48
    return sheet


def build_result_sheets(run: RunResult, taken: Iterable[str] = ()) -> list[SheetModel]:
    """Every sheet of the result workbook, in order: Summary, Audit, then four per scenario.

    ``taken``: names of sheets already in the workbook (``--in-place``) that
    the result sheets must not take.
    """
    names = result_sheet_names((p.name for p in run.plans), taken)
    summary, audit = _summary_sheet(run, names.audit), audit_sheet(run)
    summary.name, audit.name = names.summary, names.audit
    sheets = [summary, audit]
    for index, plan in enumerate(run.plans, start=1):
        n = names.scenarios[plan.name]
        sheets.append(_cash_flow_sheet(plan, n["Cash flow"], index))
        sheets.append(_fleet_sheet(plan, n["Fleet"], index))
        sheets.append(_assignments_sheet(plan, n["Assignments"], index))
        sheets.append(_options_sheet(plan, n["Options"], index))
    return sheets


def write_result_workbook(path: Path, run: RunResult) -> None:
    """Write the result workbook for ``run`` to ``path`` (overwritten if it exists)."""
    render_xlsx(path, build_result_sheets(run))
