"""The futures workbook and JSON (issue 19): one purchase plan for several futures, for finance.

First sheet, ``Futures plan``: what to decide now (the shared decisions of
months 1..``decide_by_month``), then one column per future and one for the
probability-weighted expectation: the future's probability and what it
changes, the shared plan's total cost there, the cost of the plan made for
that future alone and the regret between them, and the cost of deciding now
as if the expected future were sure. The expectation column's formulas are
the headline figures: expected cost, wait and see, EVPI (the expected
regret), and VSS. Every total is a live formula carrying the solver's number
as its cached value.

Then the result workbook's own sheets for the shared plan in each future
(``<scenario> / <future>``: Summary, Cash flow, Fleet, ...), so that each
future's plan can be read and checked like any plan.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from optimizer.currency import money_text
from optimizer.reports.futures_words import (
    UNPROVEN_NOTE,
    bounded_words,
    describe_future,
    describe_shared,
    plan_proof_words,
)
from optimizer.reports.page_fit import fit_one_page_when_legible, turn_to_fit
from optimizer.reports.report_json import plan_to_dict
from optimizer.reports.result_workbook import build_result_sheets
from optimizer.reports.sheet_grid import SheetModel, Style, a1, render_xlsx
from optimizer.results import Plan, RunResult
from optimizer.results.futures import Bounded, FuturesResult, proven_floor

SHEET = "Futures plan"


def _cost(plan: Plan | None) -> float | None:
    return None if plan is None else plan.total_cost


def _shared_block(sheet: SheetModel, result: FuturesResult, row: int) -> int:
    d = result.futures.decide_by_month
    months = "month 1" if d == 1 else f"months 1–{d}"
    sheet.text(row, 0, f"What to decide now ({months}; the same in every future)", Style.SECTION)
    row += 1
    if not result.status.has_plan:
        sheet.text(row, 0, "No plan: see the notes below.", Style.NOTE)
        return row + 2
    if not result.shared:
        sheet.text(
            row,
            0,
            f"Nothing to buy, sell or reserve in {months}: every future starts on what it "
            "rents (and on what is already owned or reserved).",
            Style.NOTE,
        )
        return row + 2
    sheet.header(row, 0, ["Decision", "Month", "Count", "Offer"])
    for decision in result.shared:
        row += 1
        sheet.text(row, 0, describe_shared(decision, result.scenario), Style.TEXT)
        sheet.number(row, 1, decision.month, Style.INTEGER)
        sheet.number(row, 2, decision.count, Style.INTEGER)
        sheet.text(row, 3, decision.source, Style.TEXT)
    return row + 2


def _future_rows(sheet: SheetModel, result: FuturesResult, row: int) -> dict[str, int]:
    """The per-future table; returns the row of each figure (for the headline references)."""
    currency = result.currency
    outcomes = result.outcomes
    n = len(outcomes)
    last = n  # columns 1..n hold the futures, n + 1 the expectation
    expect = n + 1
    sheet.text(row, 0, "Each future", Style.SECTION)
    row += 1
    sheet.text(row, 0, "", Style.LABEL)
    for j, o in enumerate(outcomes, start=1):
        sheet.text(row, j, o.spec.name, Style.COLUMN_HEADER)
    sheet.text(row, expect, "Expected (weighted)", Style.COLUMN_HEADER)
    rows: dict[str, int] = {}
    row += 1
    rows["probability"] = row
    sheet.text(row, 0, "Probability", Style.LABEL)
    for j, o in enumerate(outcomes, start=1):
        sheet.number(row, j, o.probability, Style.PERCENT)
    total = sum(o.probability for o in outcomes)
    sheet.formula(row, expect, f"=SUM({a1(row, 1)}:{a1(row, last)})", total, Style.PERCENT_FORMULA)
    row += 1
    sheet.text(row, 0, "What this future changes", Style.LABEL)
    for j, o in enumerate(outcomes, start=1):
        sheet.text(row, j, describe_future(o.spec), Style.WRAP)
    row += 1
    sheet.text(row, 0, "Status of its plan", Style.LABEL)
    for j, o in enumerate(outcomes, start=1):
        sheet.text(row, j, o.plan.status.value, Style.VALUE_TEXT)
    row += 1

    def weighted(label: str, key: str, values: list[float | None]) -> None:
        nonlocal row
        rows[key] = row
        sheet.text(row, 0, label, Style.LABEL)
        for j, value in enumerate(values, start=1):
            sheet.number(row, j, value, Style.MONEY)
        if all(v is not None for v in values):
            cached = sum(o.probability * (v or 0.0) for o, v in zip(outcomes, values, strict=True))
            prob = f"{a1(rows['probability'], 1)}:{a1(rows['probability'], last)}"
            formula = f"=SUMPRODUCT({prob},{a1(row, 1)}:{a1(row, last)})"
            sheet.formula(row, expect, formula, cached, Style.TOTAL_MONEY_FORMULA)
        row += 1

    def difference(label: str, key: str, minuend: str, subtrahend: str) -> None:
        nonlocal row
        rows[key] = row
        sheet.text(row, 0, label, Style.LABEL)
        for j in range(1, expect + 1):
            high, low = sheet.cells.get((rows[minuend], j)), sheet.cells.get((rows[subtrahend], j))
            if high is None or low is None or high.value is None or low.value is None:
                continue
            # To the cent: two solves' equal costs may differ in the tenth decimal,
            # and a spreadsheet shows that as "-$0.00".
            cached = round(float(high.value) - float(low.value), 2) + 0.0
            text = f"=ROUND({a1(rows[minuend], j)}-{a1(rows[subtrahend], j)},2)"
            style = Style.TOTAL_MONEY_FORMULA if j == expect else Style.MONEY_FORMULA
            sheet.formula(row, j, text, cached, style)
        row += 1

    weighted(
        f"Total cost of the shared plan in this future ({currency})",
        "shared",
        [o.plan.total_cost for o in outcomes],
    )
    weighted(
        f"Total cost if this future were known now: planned alone ({currency})",
        "alone",
        [_cost(o.alone) for o in outcomes],
    )
    if result.proven:
        difference(
            f"Regret: shared plan minus planned alone ({currency})", "regret", "shared", "alone"
        )
    else:
        _unproven_regret_rows(sheet, result, row, rows)
        row = max(rows.values()) + 1
    weighted(
        f"Total cost deciding now as if the expected future were sure ({currency})",
        "expected_future",
        [_cost(o.expected_future_plan) for o in outcomes],
    )
    difference(
        f"Saved by planning for every future ({currency})", "saved", "expected_future", "shared"
    )
    return rows


def _unproven_regret_rows(
    sheet: SheetModel, result: FuturesResult, row: int, rows: dict[str, int]
) -> None:
    """Where a plan made alone was stopped early: how far each is proven, and the regret
    as the range it is proven to lie in (issue 33: a difference of an unproven plan
    read as a negative regret). The expectation column holds the EVPI's range."""
    currency = result.currency
    outcomes = result.outcomes
    sheet.text(row, 0, "How far the plan made alone is proven", Style.LABEL)
    for j, o in enumerate(outcomes, start=1):
        sheet.text(row, j, plan_proof_words(o.alone) or "optimal", Style.VALUE_TEXT)
    row += 1
    sheet.text(
        row, 0, f"This future's own optimum costs at least ({currency}, proven)", Style.LABEL
    )
    for j, o in enumerate(outcomes, start=1):
        sheet.number(row, j, proven_floor(o.alone), Style.MONEY)
    row += 1
    ranges: list[Bounded | None] = [o.regret_bounds for o in outcomes]
    evpi = result.evpi_bounds
    for key, label, side in (
        ("regret", f"Regret: proven at least ({currency})", "low"),
        ("regret_high", f"Regret: proven at most ({currency})", "high"),
    ):
        rows[key] = row
        sheet.text(row, 0, label, Style.LABEL)
        for j, figure in enumerate([*ranges, evpi], start=1):
            value = None if figure is None else getattr(figure, side)
            if value is None:
                sheet.text(row, j, "not known", Style.VALUE_NOTE)
            else:
                sheet.number(row, j, round(value, 2) + 0.0, Style.MONEY)
        row += 1


def _headline(sheet: SheetModel, result: FuturesResult, row: int, rows: dict[str, int]) -> int:
    expect = len(result.outcomes) + 1
    currency = result.currency
    sheet.text(row, 0, "In one figure each", Style.SECTION)
    row += 1
    lines = (
        ("shared", f"Expected total cost of the shared plan ({currency})", result.expected_cost),
        ("regret", f"EVPI: what knowing the future now would save ({currency})", result.evpi),
        ("saved", f"VSS: what planning for every future saves ({currency})", result.vss),
    )
    ranges = {"regret": result.evpi_bounds, "saved": result.vss_bounds}
    for key, label, value in lines:
        sheet.text(row, 0, label, Style.LABEL)
        source = sheet.cells.get((rows[key], expect))
        figure = ranges.get(key)
        if figure is not None and not figure.exact:
            words = bounded_words(figure, lambda v: money_text(round(v, 2) + 0.0, currency))
            sheet.text(row, 1, words, Style.VALUE_TEXT)
        elif source is not None and source.formula is not None and value is not None:
            cached = float(source.value) if source.value is not None else value
            sheet.formula(row, 1, f"={a1(rows[key], expect)}", cached, Style.MONEY_FORMULA)
        elif figure is not None:
            sheet.number(row, 1, round(figure.value, 2) + 0.0, Style.MONEY)
        else:
            sheet.text(row, 1, "not known", Style.VALUE_NOTE)
        row += 1
    return row + 1


def _notes(result: FuturesResult) -> list[str]:
    d = result.futures.decide_by_month
    gap = "" if result.gap is None else f", proven gap {result.gap:.2%}"
    checked = (
        f" Every future's plan was checked by the independent checker, and so was the "
        f"sharing of every decision up to month {d}."
        if result.status.has_plan
        else " There is no shared plan, so nothing was checked; the notes below say why."
    )
    lines = [
        f"Solved: {result.status.value}{gap}.{checked}",
        "Shared: every purchase, sale and reservation start up to the month above. After it, "
        "each future buys, rents and sells for itself.",
        "Regret: how much more the shared plan costs in a future than the plan made for that "
        "future alone. Its expectation is the EVPI.",
        "Expected future: every factor weighted by the probabilities; its plan's decisions up "
        "to the month above are kept and the rest re-planned in each future.",
    ]
    if result.futures.max_regret is not None:
        bound = money_text(result.futures.max_regret, result.currency)
        lines.append(f"Regret bounded by {bound} in every future.")
    if result.futures.max_regret_share is not None:
        lines.append(
            f"Regret bounded by {result.futures.max_regret_share:.1%} of each future's own optimum."
        )
    if not result.proven:
        lines.append(UNPROVEN_NOTE[0].upper() + UNPROVEN_NOTE[1:] + ".")
        for o in result.outcomes:
            for role, plan in (("made alone", o.alone), ("re-planned", o.expected_future_plan)):
                if words := plan_proof_words(plan):
                    lines.append(f"Future {o.spec.name!r}, plan {role}: {words}.")
    return lines + list(result.diagnostics)


def futures_sheet(result: FuturesResult) -> SheetModel:
    """The first sheet: what to decide now, each future, the headline figures, notes."""
    sheet = SheetModel(SHEET, freeze=(0, 1), currency=result.currency)
    n = len(result.outcomes)
    sheet.text(
        0,
        0,
        f"{result.scenario.name}: one plan for {n} future{'s' if n != 1 else ''}",
        Style.TITLE,
    )
    row = _shared_block(sheet, result, 2)
    rows = _future_rows(sheet, result, row)
    row = _headline(sheet, result, max(rows.values()) + 2, rows)
    for line in _notes(result):
        sheet.text(row, 0, line, Style.NOTE)
        row += 1
    sheet.widths[0] = 52
    for j in range(1, n + 2):
        sheet.widths[j] = 20
    turn_to_fit(sheet)
    fit_one_page_when_legible(sheet)
    return sheet


def write_futures_workbook(path: Path, result: FuturesResult, run: RunResult) -> None:
    """``Futures plan``, then the result sheets of ``run`` (the shared plan in each future)."""
    first = futures_sheet(result)
    render_xlsx(path, [first, *build_result_sheets(run, taken=(SHEET,))])


def futures_to_dict(result: FuturesResult) -> dict[str, Any]:
    """The JSON object: the headline figures, the shared decisions and each future's plan."""
    return {
        "scenario": result.scenario.name,
        "currency": result.currency,
        "decide_by_month": result.futures.decide_by_month,
        "max_regret": result.futures.max_regret,
        "max_regret_share": result.futures.max_regret_share,
        "status": result.status.value,
        "gap": result.gap,
        "bound": result.bound,
        "expected_cost": result.expected_cost,
        "wait_and_see": result.wait_and_see,
        "evpi": _fact(result.evpi_bounds),
        "expected_future_cost": result.expected_future_cost,
        "vss": _fact(result.vss_bounds),
        # Every plan behind regret, EVPI and VSS proven optimal; else each is
        # proven only within its range (at_least / at_most; null: not known).
        "proven": result.proven,
        **_range_fields("evpi", result.evpi_bounds),
        **_range_fields("vss", result.vss_bounds),
        "shared": [
            {
                "month": d.month,
                "action": d.action.value,
                "gpu": d.gpu,
                "source": d.source,
                "count": d.count,
                "words": describe_shared(d, result.scenario),
            }
            for d in result.shared
        ],
        "futures": [
            {
                "future": o.spec.name,
                "probability": o.probability,
                "changes": describe_future(o.spec),
                "total_cost": o.plan.total_cost,
                "alone_cost": _cost(o.alone),
                "alone_status": None if o.alone is None else o.alone.status.value,
                "alone_gap": None if o.alone is None else o.alone.gap,
                "alone_bound": proven_floor(o.alone),
                "regret": _fact(o.regret_bounds),
                **_range_fields("regret", o.regret_bounds),
                "expected_future_plan_cost": _cost(o.expected_future_plan),
                "plan": plan_to_dict(o.plan),
            }
            for o in result.outcomes
        ],
        "diagnostics": list(result.diagnostics),
    }


def _fact(figure: Bounded | None) -> float | None:
    """The figure where it is proven, else None (its range is in ``*_at_least`` / ``*_at_most``)."""
    return figure.value if figure is not None and figure.exact else None


def _range_fields(name: str, figure: Bounded | None) -> dict[str, float | None]:
    return {
        f"{name}_at_least": None if figure is None else figure.low,
        f"{name}_at_most": None if figure is None else figure.high,
    }


def futures_json(result: FuturesResult) -> str:
    return json.dumps(futures_to_dict(result), indent=2, allow_nan=False)
