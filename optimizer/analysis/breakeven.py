"""Rent-versus-buy break-even per GPU type (``gpumix breakeven``).

The guide's rules of thumb, computed from a scenario's own prices and
assumptions, before any plan is solved: how many rented hours a purchase
price buys, how many months that is at 24/7 and at a given utilisation, what
an owned GPU-hour costs over the depreciation period, rent per TFLOP-hour,
and a year's electricity. ``docs/methodology.md`` states every formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from optimizer.domain import Assumptions, Gpu, Offer, OfferOption, Scenario
from optimizer.reports.cell_text import cell_text, looks_like_formula
from optimizer.reports.sheet_names import SheetNamer

MONTHS_PER_YEAR = 12
BREAKEVEN_SHEET = "Break-even"


@dataclass(frozen=True)
class BreakevenRow:
    """One GPU type's rent-versus-buy figures (USD; None where an input is missing).

    ``rent_per_hour`` and ``buy_price`` are the cheapest on-demand and buy
    offers. ``owned_cost_per_hour`` is over ``depreciation_months`` at full
    use; ``yearly_power_cost`` and ``months_at_utilization`` are at
    ``utilization``.
    """

    gpu: str
    fp16_tflops: float
    utilization: float
    depreciation_months: float
    rent_per_hour: float | None
    buy_price: float | None
    breakeven_hours: float | None
    months_24_7: float | None
    months_at_utilization: float | None
    owned_cost_per_hour: float | None
    cost_per_tflop_hour: float | None
    yearly_power_cost: float | None
    # Monthly cost of keeping one owned GPU at ``utilization`` (energy incl. idle, maintenance).
    owned_running_per_month: float | None
    # Months until buying pays off with those running costs counted (where the
    # chart's two lines cross); math.inf when renting stays cheaper every month.
    months_with_running: float | None = None


def _cheapest(offers: Sequence[Offer]) -> Offer | None:
    return min(offers, key=lambda o: o.price) if offers else None


def energy_per_hour(gpu: Gpu, a: Assumptions) -> float | None:
    """USD one busy owned GPU burns per hour: kW × PUE × USD/kWh."""
    if gpu.tdp_w is None:
        return None
    return gpu.tdp_w / 1000.0 * a.pue * a.electricity_per_kwh


def owned_cost_per_hour(gpu: Gpu, price: float, a: Assumptions) -> float | None:
    """USD per GPU-hour of an owned GPU worked every hour of ``depreciation_months``.

    (price + energy + maintenance over the period) / hours in the period.
    """
    energy = energy_per_hour(gpu, a)
    if energy is None:
        return None
    hours = a.depreciation_months * a.hours_per_month
    maintenance = a.maintenance_per_year / MONTHS_PER_YEAR * price * a.depreciation_months
    return (price + energy * hours + maintenance) / hours


def owned_running_per_month(
    gpu: Gpu, price: float, utilization: float, a: Assumptions
) -> float | None:
    """USD a month to keep one owned GPU: energy on busy and idle hours, and maintenance."""
    energy = energy_per_hour(gpu, a)
    if energy is None:
        return None
    powered_share = utilization + (1.0 - utilization) * a.idle_power_fraction
    maintenance = a.maintenance_per_year / MONTHS_PER_YEAR * price
    return energy * a.hours_per_month * powered_share + maintenance


def yearly_power_cost(gpu: Gpu, utilization: float, a: Assumptions) -> float | None:
    """USD of electricity a year at ``utilization``: kW × 8,760 h × utilisation × USD/kWh × PUE."""
    energy = energy_per_hour(gpu, a)
    if energy is None:
        return None
    return energy * MONTHS_PER_YEAR * a.hours_per_month * utilization


def breakeven_row(scenario: Scenario, gpu: Gpu, utilization: float) -> BreakevenRow:
    a = scenario.assumptions
    rent = _cheapest(scenario.offers_of(gpu.name, OfferOption.ON_DEMAND))
    buy = _cheapest(scenario.offers_of(gpu.name, OfferOption.BUY))
    rent_price = rent.price if rent is not None else None
    buy_price = buy.price if buy is not None else None
    hours = None
    if rent_price is not None and buy_price is not None and rent_price > 0:
        hours = buy_price / rent_price
    owned = running = paid_off = None
    if buy_price is not None:
        owned = owned_cost_per_hour(gpu, buy_price, a)
        running = owned_running_per_month(gpu, buy_price, utilization, a)
    if rent_price is not None and buy_price is not None and running is not None:
        # buy + running × m = rent a month × m: the month the cumulative lines cross.
        saved = rent_price * a.hours_per_month * utilization - running
        paid_off = buy_price / saved if saved > 0 else math.inf
    return BreakevenRow(
        gpu=gpu.name,
        fp16_tflops=gpu.fp16_tflops,
        utilization=utilization,
        depreciation_months=a.depreciation_months,
        rent_per_hour=rent_price,
        buy_price=buy_price,
        breakeven_hours=hours,
        months_24_7=None if hours is None else hours / a.hours_per_month,
        months_at_utilization=None if hours is None else hours / (a.hours_per_month * utilization),
        owned_cost_per_hour=owned,
        cost_per_tflop_hour=None if rent_price is None else rent_price / gpu.fp16_tflops,
        yearly_power_cost=yearly_power_cost(gpu, utilization, a),
        owned_running_per_month=running,
        months_with_running=paid_off,
    )


def breakeven_rows(scenario: Scenario, utilization: float) -> tuple[BreakevenRow, ...]:
    """One row per GPU type with an on-demand or a buy offer, in sheet order.

    ``utilization`` is a fraction (0.6 is 60 %); the command line checks it
    lies in (0, 1].
    """
    return tuple(
        breakeven_row(scenario, gpu, utilization)
        for gpu in scenario.gpus
        if scenario.offers_of(gpu.name, OfferOption.ON_DEMAND)
        or scenario.offers_of(gpu.name, OfferOption.BUY)
    )


def cumulative_costs(row: BreakevenRow, scenario: Scenario) -> list[tuple[int, float, float]]:
    """(month, rent so far, buy so far) for one GPU at the row's utilisation, months 1..T.

    Rent: cheapest on-demand price × hours used. Buy: the purchase at the
    start of month 1, plus each month's energy and maintenance. Cash view:
    no residual value, no discounting. Empty when either offer is missing.
    """
    if row.rent_per_hour is None or row.buy_price is None or row.owned_running_per_month is None:
        return []
    rent_month = row.rent_per_hour * scenario.assumptions.hours_per_month * row.utilization
    return [
        (m, rent_month * m, row.buy_price + row.owned_running_per_month * m)
        for m in scenario.months
    ]


# ---------------------------------------------------------------- terminal


def _fmt(value: float | None, spec: str) -> str:
    if value is None:
        return "—"
    return "never" if math.isinf(value) else format(value, spec)


def format_breakeven_table(rows: Sequence[BreakevenRow], currency: str) -> str:
    """The rows as a fixed-width table for the terminal, units (money in ``currency``) in the headers."""
    if not rows:
        return "No GPU type has an on-demand or a buy offer: nothing to compare."
    pct = f"{rows[0].utilization:.0%}"
    months = f"{rows[0].depreciation_months:g}"
    header = (
        "GPU",
        f"rent ({currency}/h)",
        f"buy ({currency})",
        "break-even (GPU-h)",
        "months at 24/7",
        f"months at {pct}",
        f"with running costs at {pct} (months)",
        f"owned over {months} mo ({currency}/GPU-h)",
        f"rent ({currency}/TFLOP-h)",
        f"power at {pct} ({currency}/yr)",
    )
    body = [
        (
            r.gpu,
            _fmt(r.rent_per_hour, ",.2f"),
            _fmt(r.buy_price, ",.0f"),
            _fmt(r.breakeven_hours, ",.0f"),
            _fmt(r.months_24_7, ",.1f"),
            _fmt(r.months_at_utilization, ",.1f"),
            _fmt(r.months_with_running, ",.1f"),
            _fmt(r.owned_cost_per_hour, ",.2f"),
            _fmt(r.cost_per_tflop_hour, ".4f"),
            _fmt(r.yearly_power_cost, ",.0f"),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join((first, *rest)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(b) for b in body)])


# ---------------------------------------------------------------- workbook

_USD = "#,##0.00"
_USD_WHOLE = "#,##0"
_HOURS = "#,##0"
_MONTHS = "0.0"
_PER_TFLOP = "0.0000"


def _print_setup(ws: Worksheet) -> None:
    # Finance prints these: landscape, every column on one page width.
    ws.set_landscape()
    ws.fit_to_pages(1, 0)


def write_breakeven_workbook(path: Path, rows: Sequence[BreakevenRow], scenario: Scenario) -> None:
    """A ``Break-even`` table, and per GPU type with both offers a sheet of
    cumulative rent and buy cost by month with a line chart. Every number is a
    value (no formulas); every user text is a string cell.
    """
    workbook = xlsxwriter.Workbook(str(path))
    try:
        _write(workbook, rows, scenario)
    finally:
        workbook.close()


def _write(workbook: xlsxwriter.Workbook, rows: Sequence[BreakevenRow], scenario: Scenario) -> None:
    currency = scenario.assumptions.currency
    bold = workbook.add_format({"bold": True, "text_wrap": True, "valign": "top", "bottom": 1})
    text = workbook.add_format({})
    label = workbook.add_format({"bold": True})
    quoted = workbook.add_format({"quote_prefix": True})
    formats = {
        spec: workbook.add_format({"num_format": spec})
        for spec in (_USD, _USD_WHOLE, _HOURS, _MONTHS, _PER_TFLOP)
    }
    a = scenario.assumptions
    pct = f"{rows[0].utilization:.0%}" if rows else ""

    def user_text(ws: Worksheet, r: int, c: int, value: str) -> None:
        safe = cell_text(value)
        ws.write_string(r, c, safe, quoted if looks_like_formula(safe) else text)

    def number(ws: Worksheet, r: int, c: int, value: float | None, spec: str) -> None:
        if value is None:
            ws.write_blank(r, c, None)
        elif math.isinf(value):
            ws.write_string(r, c, "never", text)
        else:
            ws.write_number(r, c, value, formats[spec])

    namer = SheetNamer()
    table = workbook.add_worksheet(namer.name(BREAKEVEN_SHEET))
    number_columns = (
        (f"rent, cheapest on-demand ({currency} per GPU-hour)", _USD),
        (f"buy, cheapest offer ({currency} per GPU)", _USD_WHOLE),
        ("break-even (rented GPU-hours)", _HOURS),
        ("months to break even at 24/7", _MONTHS),
        (f"months to break even at {pct} use", _MONTHS),
        (f"months until buying pays off at {pct} use, energy and maintenance counted", _MONTHS),
        (
            f"owned cost over {a.depreciation_months:g} months at full use ({currency} per GPU-hour)",
            _USD,
        ),
        (f"rent per FP16 TFLOP ({currency} per TFLOP-hour)", _PER_TFLOP),
        (f"electricity at {pct} use ({currency} per year)", _USD_WHOLE),
    )
    table.write_string(0, 0, "GPU", bold)
    table.set_column(0, 0, 16)
    for c, (title, _) in enumerate(number_columns, start=1):
        table.write_string(0, c, title, bold)
        table.set_column(c, c, 14)
    table.set_row(0, 64)
    table.freeze_panes(1, 1)
    _print_setup(table)
    for r, row in enumerate(rows, start=1):
        user_text(table, r, 0, row.gpu)
        values = (
            row.rent_per_hour,
            row.buy_price,
            row.breakeven_hours,
            row.months_24_7,
            row.months_at_utilization,
            row.months_with_running,
            row.owned_cost_per_hour,
            row.cost_per_tflop_hour,
            row.yearly_power_cost,
        )
        for c, (value, (_, spec)) in enumerate(zip(values, number_columns, strict=True), start=1):
            number(table, r, c, value, spec)
    note_row = len(rows) + 2
    table.write_string(note_row, 0, "scenario", label)
    user_text(table, note_row, 1, scenario.name)
    notes = (
        "Break-even hours = buy price / rent per hour (running costs left out: the guide's rule).",
        "Pays off with running costs = buy price / (rent a month at that use − energy and "
        "maintenance a month): where the lines of each GPU's chart cross; never when renting "
        "stays cheaper.",
        f"Months = break-even hours / {a.hours_per_month:g} hours a month (and / {pct} at that use).",
        f"Owned cost = (price + energy at {a.electricity_per_kwh:g} {currency}/kWh × PUE {a.pue:g}"
        f" + maintenance {a.maintenance_per_year:.0%} of the price a year)",
        f"    / ({a.depreciation_months:g} months × {a.hours_per_month:g} hours), every hour worked.",
        "docs/methodology.md states every formula.",
    )
    for offset, note in enumerate(notes, start=1):
        table.write_string(note_row + offset, 0, note)

    for row in rows:
        series = cumulative_costs(row, scenario)
        if not series:
            continue
        ws = workbook.add_worksheet(namer.name(f"{row.gpu} rent vs buy"))
        ws.write_string(0, 0, "month", bold)
        ws.write_string(0, 1, f"rent, cumulative at {pct} use ({currency})", bold)
        ws.write_string(0, 2, f"buy, cumulative: price + energy + maintenance ({currency})", bold)
        ws.set_row(0, 48)
        _print_setup(ws)
        ws.set_column(0, 0, 8)
        ws.set_column(1, 2, 18)
        for r, (month, rent, buy) in enumerate(series, start=1):
            ws.write_number(r, 0, month)
            ws.write_number(r, 1, rent, formats[_USD_WHOLE])
            ws.write_number(r, 2, buy, formats[_USD_WHOLE])
        last = len(series)
        chart = workbook.add_chart({"type": "line"})
        for col in (1, 2):
            chart.add_series(
                {
                    "name": [ws.name, 0, col],
                    "categories": [ws.name, 1, 0, last, 0],
                    "values": [ws.name, 1, col, last, col],
                }
            )
        chart.set_title({"name": f"Cumulative cost of one GPU, rent vs buy, at {pct} use"})
        chart.set_x_axis({"name": "month"})
        chart.set_y_axis({"name": currency, "num_format": _USD_WHOLE})
        chart.set_legend({"position": "bottom"})
        ws.insert_chart(1, 4, chart, {"x_scale": 1.5, "y_scale": 1.5})
        ws.write_string(0, 4, "GPU type:", label)
        user_text(ws, 0, 5, row.gpu)
