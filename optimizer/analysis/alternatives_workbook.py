"""The alternatives workbook and JSON: each alternative beside the optimum, for finance.

One sheet, ``Alternatives``: one column for the optimum and one per goal;
rows for the total cost and its difference (USD and %), capital and
operating cash, peak power, every goal's value, the GPUs each plan takes per
type and place, what changed in words, and how each was solved. The goals'
definitions are printed under the table. Differences are live formulas
carrying their value as the cached result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from optimizer.analysis.alternative_words import describe_change, opex_of
from optimizer.analysis.alternatives import Alternative, AlternativesResult
from optimizer.analysis.goal_values import (
    TypeFleet,
    capex_of,
    fleet_summary,
    goal_value,
    peak_power_kw,
)
from optimizer.currency import money_text, unit_in
from optimizer.model.goal_names import GOALS, Goal
from optimizer.reports.page_fit import fit_one_page_when_legible, turn_to_fit
from optimizer.reports.report_json import assignment_json, place_json
from optimizer.reports.sheet_grid import SheetModel, Style, a1, render_xlsx
from optimizer.results import Plan

SHEET = "Alternatives"

# (label, figure of a plan, style)
_FIGURES: tuple[tuple[str, Any, Style], ...] = (
    ("Capital: purchases ({currency}, undiscounted)", capex_of, Style.MONEY),
    ("Operating cash ({currency}, undiscounted)", opex_of, Style.MONEY),
    ("Peak owned power (kW, PUE included)", peak_power_kw, Style.NUMBER),
)
_FLEET: tuple[tuple[str, str, Style], ...] = (
    ("bought", "GPUs bought", Style.INTEGER),
    ("peak_owned", "most owned at once", Style.INTEGER),
    ("peak_reserved", "most reserved at once", Style.INTEGER),
    ("rented_hours", "rented GPU-hours (on-demand, spot)", Style.HOURS),
)


def _columns(result: AlternativesResult) -> list[tuple[str, Plan, Alternative | None]]:
    return [("Optimum", result.optimum, None)] + [
        (GOALS[a.goal].label, a.plan, a) for a in result.alternatives
    ]


def alternatives_sheet(result: AlternativesResult) -> SheetModel:
    currency = result.scenario.assumptions.currency
    sheet = SheetModel(SHEET, freeze=(1, 1), currency=currency)
    cols = _columns(result)
    sheet.text(
        0, 0, f"{result.scenario.name}: alternatives within {result.slack:.1%}", Style.HEADER
    )
    for j, (label, _plan, _alt) in enumerate(cols):
        sheet.text(0, j + 1, label, Style.COLUMN_HEADER)
    row = 1
    sheet.text(row, 0, "Status", Style.LABEL)
    for j, (_label, plan, _alt) in enumerate(cols):
        sheet.text(row, j + 1, plan.status.value, Style.VALUE_TEXT)
    row += 1
    total_row = row
    sheet.text(row, 0, f"Total cost ({currency}; the objective)", Style.LABEL)
    for j, (_label, plan, _alt) in enumerate(cols):
        sheet.number(row, j + 1, plan.total_cost, Style.MONEY)
    row += 1
    best = result.optimum.total_cost
    for label, style, formula in (
        (f"Difference from the optimum ({currency})", Style.MONEY_FORMULA, "{c}-{b}"),
        # Of the optimum's size: a negative optimum (credit above costs) keeps the sign.
        ("Difference from the optimum (%)", Style.PERCENT_FORMULA, "({c}-{b})/ABS({b})"),
    ):
        sheet.text(row, 0, label, Style.LABEL)
        for j, (_label, plan, _alt) in enumerate(cols):
            if plan.total_cost is None or not best:
                continue
            diff = plan.total_cost - best
            cached = diff if style is Style.MONEY_FORMULA else diff / abs(best)
            text = formula.format(c=a1(total_row, j + 1), b=a1(total_row, 1))
            sheet.formula(row, j + 1, f"={text}", cached, style)
        row += 1
    for label, figure, style in _FIGURES:
        sheet.text(row, 0, label.format(currency=currency), Style.LABEL)
        for j, (_label, plan, _alt) in enumerate(cols):
            sheet.number(row, j + 1, figure(plan) if plan.status.has_plan else None, style)
        row += 1
    row += 1
    sheet.text(
        row,
        0,
        "Each goal's value (lower is better for every goal; each column pushes its own)",
        Style.SECTION,
    )
    row += 1
    for goal, info in GOALS.items():
        sheet.text(row, 0, f"{info.label} ({unit_in(info.unit, currency)})", Style.LABEL)
        for j, (_label, plan, _alt) in enumerate(cols):
            # Money goals carry the workbook's currency, as every money cell does.
            style = (
                Style.MONEY if info.unit == "USD" else Style.INTEGER if info.whole else Style.NUMBER
            )
            sheet.number(row, j + 1, goal_value(plan, goal), style)
        row += 1
    row = _fleet_rows(sheet, row + 1, cols)
    row += 1
    sheet.text(row, 0, "What changed against the optimum", Style.LABEL)
    for j, (_label, plan, alt) in enumerate(cols):
        if alt is not None:
            sheet.text(row, j + 1, describe_change(result.optimum, plan), Style.WRAP)
    row += 1
    sheet.text(row, 0, "Goal proven best (gap)", Style.LABEL)
    for j, (_label, _plan, alt) in enumerate(cols):
        if alt is not None:
            gap = "" if alt.goal_gap is None else f" ({alt.goal_gap:.2%})"
            sheet.text(row, j + 1, f"{alt.goal_status.value}{gap}", Style.VALUE_TEXT)
    row += 1
    sheet.text(row, 0, "Notes", Style.LABEL)
    for j, (_label, plan, _alt) in enumerate(cols):
        if plan.diagnostics:
            sheet.text(row, j + 1, "; ".join(plan.diagnostics), Style.WRAP)
    row += 2
    for line in _notes(result):
        sheet.text(row, 0, line, Style.NOTE)
        row += 1
    sheet.widths[0] = 44
    for j in range(len(cols)):
        sheet.widths[j + 1] = 18
    turn_to_fit(sheet)
    fit_one_page_when_legible(sheet)
    return sheet


def _fleet_rows(
    sheet: SheetModel, row: int, cols: list[tuple[str, Plan, Alternative | None]]
) -> int:
    sheet.text(row, 0, "GPUs by type and place (over the horizon)", Style.SECTION)
    row += 1
    summaries = [{t.gpu: t for t in fleet_summary(plan)} for _l, plan, _a in cols]
    gpus = list(dict.fromkeys(g for s in summaries for g in s))
    empty = TypeFleet("", 0, 0, 0, 0.0)
    for gpu in gpus:
        for field, words, style in _FLEET:
            values = [getattr(s.get(gpu, empty), field) for s in summaries]
            if not any(values):
                continue
            sheet.text(row, 0, f"{gpu}: {words}", Style.LABEL)
            for j, value in enumerate(values):
                sheet.number(row, j + 1, value if cols[j][1].status.has_plan else None, style)
            row += 1
    return row


def _notes(result: AlternativesResult) -> list[str]:
    lines = [
        f"Each alternative costs at most the optimum's total plus {result.slack:.2%} of its size "
        f"(limit {money_text(result.cost_limit or 0.0, result.scenario.assumptions.currency)}), checked by the independent checker; among "
        "the plans best for its goal it is the cheapest.",
        *result.diagnostics,
        "Goals:",
    ]
    lines += [f"  {info.label}: {info.definition}." for info in GOALS.values()]
    return lines


def write_alternatives_workbook(path: Path, result: AlternativesResult) -> None:
    """Write the alternatives workbook (one sheet, ``Alternatives``) to ``path``."""
    render_xlsx(path, [alternatives_sheet(result)])


def _plan_json(plan: Plan, optimum: Plan) -> dict[str, Any]:
    best = optimum.total_cost
    total = plan.total_cost
    has = plan.status.has_plan
    return {
        "status": plan.status.value,
        "gap": plan.gap,
        "total_cost": total,
        "difference": None if total is None or best is None else total - best,
        "difference_share": None if total is None or not best else (total - best) / abs(best),
        "capex": capex_of(plan) if has else None,
        "opex": opex_of(plan) if has else None,
        "peak_power_kw": peak_power_kw(plan) if has else None,
        "goal_values": {g.value: goal_value(plan, g) for g in Goal},
        "fleet": [vars(t) for t in fleet_summary(plan)] if has else [],
        # As in `gpumix solve --json`: enough to lay the plan out GPU by GPU.
        "places": [place_json(r) for r in plan.places],
        "assignments": [assignment_json(r) for r in plan.assignments],
        "diagnostics": list(plan.diagnostics),
    }


def alternatives_json(result: AlternativesResult) -> str:
    """One JSON object: the optimum, each alternative with its goal, and the diagnostics."""
    alternatives = []
    for alt in result.alternatives:
        entry: dict[str, Any] = {
            "goal": alt.goal.value,
            "goal_definition": GOALS[alt.goal].definition,
            "goal_unit": unit_in(GOALS[alt.goal].unit, result.scenario.assumptions.currency),
            "goal_value": alt.goal_value,
            "optimum_goal_value": result.optimum_goal_values.get(alt.goal),
            "goal_status": alt.goal_status.value,
            "goal_gap": alt.goal_gap,
            "what_changed": describe_change(result.optimum, alt.plan),
            "seconds": alt.seconds,
        }
        entry.update(_plan_json(alt.plan, result.optimum))
        alternatives.append(entry)
    document = {
        "scenario": result.scenario.name,
        "slack": result.slack,
        "cost_limit": result.cost_limit,
        "optimum": _plan_json(result.optimum, result.optimum),
        "alternatives": alternatives,
        "diagnostics": list(result.diagnostics),
    }
    return json.dumps(document, indent=2, allow_nan=False)
