"""The ``gpumix breakeven --output`` workbook: the table, and per GPU type a sheet of
cumulative cost by month with a line chart whose lines cross where the table says.

Every number is a value (no formulas); every user text is a string cell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from optimizer.analysis.breakeven import BreakevenRow, cumulative_costs, extras_note, money_unit
from optimizer.domain import Scenario
from optimizer.reports.cell_text import cell_text, looks_like_formula
from optimizer.reports.sheet_names import SheetNamer

BREAKEVEN_SHEET = "Break-even"

_MONEY = "#,##0.00"
_MONEY_WHOLE = "#,##0"
_HOURS = "#,##0"
_MONTHS = "0.0"
_PER_TFLOP = "0.0000"


def _print_setup(ws: Worksheet) -> None:
    # Finance prints these: landscape, every column on one page width.
    ws.set_landscape()
    ws.fit_to_pages(1, 0)


def write_breakeven_workbook(path: Path, rows: Sequence[BreakevenRow], scenario: Scenario) -> None:
    """A ``Break-even`` table, and per GPU type with a buy and a rental offer a
    sheet of cumulative cost by month (owned net of resale, and each rental
    option) with a line chart.
    """
    workbook = xlsxwriter.Workbook(str(path))
    try:
        _Writer(workbook, rows, scenario).write()
    finally:
        workbook.close()


class _Writer:
    def __init__(
        self, workbook: xlsxwriter.Workbook, rows: Sequence[BreakevenRow], scenario: Scenario
    ) -> None:
        self.workbook = workbook
        self.rows = rows
        self.scenario = scenario
        self.bold = workbook.add_format(
            {"bold": True, "text_wrap": True, "valign": "top", "bottom": 1}
        )
        self.text = workbook.add_format({})
        self.label = workbook.add_format({"bold": True})
        self.quoted = workbook.add_format({"quote_prefix": True})
        self.formats = {
            spec: workbook.add_format({"num_format": spec})
            for spec in (_MONEY, _MONEY_WHOLE, _HOURS, _MONTHS, _PER_TFLOP)
        }
        self.pct = f"{rows[0].utilization:.0%}" if rows else ""
        self.namer = SheetNamer()

    def user_text(self, ws: Worksheet, r: int, c: int, value: str) -> None:
        safe = cell_text(value)
        ws.write_string(r, c, safe, self.quoted if looks_like_formula(safe) else self.text)

    def number(self, ws: Worksheet, r: int, c: int, value: float | None, spec: str) -> None:
        if value is None:
            ws.write_blank(r, c, None)
        elif math.isinf(value):
            ws.write_string(r, c, "never", self.text)
        else:
            ws.write_number(r, c, value, self.formats[spec])

    def write(self) -> None:
        self.table()
        gpus = list(dict.fromkeys(r.gpu for r in self.rows))
        for gpu in gpus:
            self.chart_sheet([r for r in self.rows if r.gpu == gpu and cumulative_costs(r)])

    def table(self) -> None:
        a = self.scenario.assumptions
        pct = self.pct
        horizon = self.rows[0].horizon_months if self.rows else self.scenario.horizon_months
        currency = a.currency
        usd, per_h = money_unit(currency), money_unit(currency, "GPU-hour")
        columns = (
            (f"rent ({per_h})", _MONEY),
            (f"buy, cheapest offer ({usd} per GPU)", _MONEY_WHOLE),
            ("guide's rule: break-even (rented GPU-hours) = buy / rent", _HOURS),
            ("guide's rule: months at 24/7", _MONTHS),
            (f"guide's rule: months at {pct} use (hours paid a month)", _MONTHS),
            (f"full cost: months until buying pays off at {pct} use", _MONTHS),
            ("full cost: rented GPU-hours paid by then", _HOURS),
            ("full cost: first whole month buying costs no more (chart)", _HOURS),
            ("full cost is later than the rule by (months; below 0: earlier)", _MONTHS),
            (f"full cost with resale left out: months at {pct} use", _MONTHS),
            (f"owned: price + server share ({usd})", _MONEY),
            (f"owned: running a month at {pct} use ({usd})", _MONEY),
            (f"rent a month ({usd})", _MONEY),
            (f"owned over {a.depreciation_months:g} months at full use ({per_h})", _MONEY),
            (f"rent per FP16 TFLOP ({money_unit(currency, 'TFLOP-hour')})", _PER_TFLOP),
            (f"electricity at {pct} use ({usd} per year)", _MONEY_WHOLE),
        )
        ws = self.workbook.add_worksheet(self.namer.name(BREAKEVEN_SHEET))
        ws.write_string(0, 0, "GPU", self.bold)
        ws.write_string(0, 1, "rental option", self.bold)
        ws.set_column(0, 1, 16)
        for c, (title, _) in enumerate(columns, start=2):
            ws.write_string(0, c, title, self.bold)
            ws.set_column(c, c, 14)
        ws.set_row(0, 100)
        ws.freeze_panes(1, 2)
        _print_setup(ws)
        for r, row in enumerate(self.rows, start=1):
            self.user_text(ws, r, 0, row.gpu)
            ws.write_string(r, 1, row.option or "—", self.text)
            owned = row.owned
            first = row.paid_off_month
            values = (
                row.rent_per_hour,
                row.buy_price,
                row.breakeven_hours,
                row.months_24_7,
                row.months_at_utilization,
                row.full_cost_months,
                row.full_cost_hours,
                math.inf if first is None and row.full_cost_months == math.inf else first,
                row.later_months,
                row.months_without_resale,
                None if owned is None else owned.upfront,
                None if owned is None else owned.running_per_month,
                row.rent_per_month,
                row.owned_cost_per_hour,
                row.cost_per_tflop_hour,
                row.yearly_power_cost,
            )
            for c, (value, (_, spec)) in enumerate(zip(values, columns, strict=True), start=2):
                self.number(ws, r, c, value, spec)
        note_row = len(self.rows) + 2
        ws.write_string(note_row, 0, "scenario", self.label)
        self.user_text(ws, note_row, 1, self.scenario.name)
        notes = (
            "Guide's rule: break-even hours = buy price / rent per hour; months = those hours / "
            f"hours paid a month ({a.hours_per_month:g} at 24/7; on-demand {pct} of them, spot "
            f"{pct} / spot efficiency {a.spot_efficiency:g}, reserved all of them).",
            "Full cost: the first point where the owned GPU's cumulative cost net of what it "
            "fetches sold then is no more than the cumulative rent (straight lines between "
            "whole months): where the lines of each GPU's chart cross.",
            "Owned: price + server share (node_price / max_per_node) at the start of month 1; "
            f"each month energy ({a.electricity_per_kwh:g} {usd}/kWh × PUE {a.pue:g}, idle hours "
            f"at {a.idle_power_fraction:.0%}), maintenance ({a.maintenance_per_year:.0%} of the "
            "price a year), the server share's maintenance, own draw and rack space, and rack "
            f"space for the GPU ({a.colocation_per_kw_month:g} {usd} per kW a month).",
            f"Resale ({a.residual_rule.value}): market = resale_fraction "
            f"{a.resale_fraction:g} × price × (1 − {a.resale_decline_per_year:g}) ^ (months "
            "used / 12); book = price × (1 − months used / depreciation_months); none = 0.",
            "Reserved: paid every hour of every month of its term, used or not, renewed "
            "back to back.",
            extras_note(self.scenario, horizon) + ". Cash view: no discounting.",
            "docs/methodology.md states every formula with a worked example.",
        )
        for offset, note in enumerate(notes, start=1):
            ws.write_string(note_row + offset, 0, note)

    def chart_sheet(self, rows: Sequence[BreakevenRow]) -> None:
        if not rows:
            return
        series = [cumulative_costs(r) for r in rows]
        owned = rows[0].owned
        assert owned is not None  # cumulative_costs is empty without it
        ws = self.workbook.add_worksheet(self.namer.name(f"{rows[0].gpu} rent vs buy"))
        usd = money_unit(self.scenario.assumptions.currency)
        titles = [
            "month",
            f"owned: paid so far ({usd})",
            f"owned: resale value then ({usd})",
            f"owned, net of resale ({usd})",
            *(
                f"rent, {r.option}, cumulative: {r.rent_hours_per_month or 0:,.0f} h paid a month "
                f"({usd})"
                for r in rows
            ),
        ]
        for c, title in enumerate(titles):
            ws.write_string(0, c, title, self.bold)
        ws.set_row(0, 60)
        _print_setup(ws)
        ws.set_column(0, 0, 8)
        ws.set_column(1, len(titles) - 1, 16)
        money = self.formats[_MONEY_WHOLE]
        for i, (month, _rent, net) in enumerate(series[0], start=1):
            ws.write_number(i, 0, month)
            ws.write_number(i, 1, owned.paid(month), money)
            ws.write_number(i, 2, owned.resale[month], money)
            ws.write_number(i, 3, net, money)
            for c, line in enumerate(series, start=4):
                ws.write_number(i, c, line[i - 1][1], money)
        last = len(series[0])
        chart = self.workbook.add_chart({"type": "line"})
        for col in range(3, len(titles)):
            chart.add_series(
                {
                    "name": [ws.name, 0, col],
                    "categories": [ws.name, 1, 0, last, 0],
                    "values": [ws.name, 1, col, last, col],
                }
            )
        chart.set_title({"name": f"Cumulative cost of one GPU, rent vs buy, at {self.pct} use"})
        chart.set_x_axis({"name": "month"})
        chart.set_y_axis({"name": usd, "num_format": _MONEY_WHOLE})
        chart.set_legend({"position": "bottom"})
        anchor = len(titles) + 1
        ws.insert_chart(1, anchor, chart, {"x_scale": 1.5, "y_scale": 1.5})
        ws.write_string(0, anchor, "GPU type:", self.label)
        self.user_text(ws, 0, anchor + 1, rows[0].gpu)
