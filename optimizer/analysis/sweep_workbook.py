"""The sweep workbook: what finance reads after ``gpumix sweep``.

Sheets: ``Summary`` (the base scenario, the parameters, and where the plan
flips, in words), ``Variants`` (one row per solve: parameter values, status,
total, costs by category, fleet), then ``Tornado`` (one-way sweeps over
several parameters: total cost at each parameter's low and high end, as a
native bar chart) or ``Heat map`` (two-way sweeps: total cost over the grid,
coloured by a conditional colour scale). Numbers are written as numbers;
text that came from users goes through ``write_string`` with a quote prefix
where it would read as a formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xlsxwriter

from optimizer.analysis.sweep import SweepResult, describe_flips
from optimizer.analysis.sweep_outcomes import VariantOutcome
from optimizer.analysis.sweep_params import SpecKind, SweepMode, VarySpec
from optimizer.currency import money_format
from optimizer.domain import CostCategory, OfferOption
from optimizer.inputs.schema import ASSUMPTION_KEYS
from optimizer.reports.cell_text import cell_text, looks_like_formula

MONEY = "#,##0.00"
FLEET_WIDTH = 40  # the Variants column that says the fleet in words
CHART_Y_SCALE = 1.5  # of 288 px: the Summary's two charts, under the sentences, on one page
HOURS = "#,##0.0"


def spec_unit(spec: VarySpec, currency: str) -> str:
    """The unit of a swept parameter, for column headers."""
    if spec.kind is SpecKind.ASSUMPTION:
        return ASSUMPTION_KEYS[spec.key].unit
    if spec.kind is SpecKind.HORIZON:
        return "months"
    if spec.kind is SpecKind.LIMIT:
        return "kW" if spec.key == "power_cap_kw" else currency
    if spec.kind is SpecKind.PRICE_FACTOR:
        return "× the input price"
    return f"{currency} per GPU" if spec.option is OfferOption.BUY else f"{currency} per GPU-hour"


class _Writer:
    """One workbook's formats, and cell writers that keep text safe and numbers numeric."""

    def __init__(self, workbook: Any) -> None:
        self.header = workbook.add_format({"bold": True, "text_wrap": True, "valign": "top"})
        self.text = workbook.add_format({})
        self.quoted = workbook.add_format({"quote_prefix": True})
        # Top-aligned, level with the first line of a wrapped fleet in the same row.
        self.money = workbook.add_format({"num_format": MONEY, "valign": "top"})
        self.hours = workbook.add_format({"num_format": HOURS, "valign": "top"})
        self.plain = workbook.add_format({"valign": "top"})
        self.title = workbook.add_format({"bold": True, "font_size": 13})
        self.wrap = workbook.add_format({"text_wrap": True, "valign": "top"})
        self.left = workbook.add_format({"align": "left"})

    def string(self, ws: Any, row: int, col: int, value: object, fmt: Any = None) -> None:
        safe = cell_text(value)
        if looks_like_formula(safe):
            fmt = self.quoted
        ws.write_string(row, col, safe, fmt if fmt is not None else self.text)

    def number(self, ws: Any, row: int, col: int, value: float | None, fmt: Any = None) -> None:
        if value is not None:
            ws.write_number(row, col, value, fmt)


def write_sweep_workbook(path: Path, result: SweepResult) -> None:
    """Write ``result`` as an xlsx workbook at ``path`` (replacing any file there)."""
    workbook = xlsxwriter.Workbook(str(path))
    try:
        writer = _Writer(workbook)
        _summary_sheet(workbook, writer, result)
        _variants_sheet(workbook, writer, result)
        if result.mode is SweepMode.TORNADO:
            _tornado_sheet(workbook, writer, result)
        if result.mode is SweepMode.GRID and len(result.specs) == 2:
            _heat_map_sheet(workbook, writer, result)
    finally:
        workbook.close()


def _summary_sheet(workbook: Any, w: _Writer, result: SweepResult) -> None:
    ws = workbook.add_worksheet("Summary")
    ws.set_column(0, 0, 36)
    ws.set_column(1, 1, 100)
    w.string(ws, 0, 0, "Sweep", w.title)
    w.string(ws, 1, 0, "base scenario", w.header)
    w.string(ws, 1, 1, result.base_name)
    w.string(ws, 2, 0, "kind", w.header)
    w.string(ws, 2, 1, _mode_words(result))
    w.string(ws, 3, 0, "variants solved", w.header)
    ws.write_number(3, 1, len(result.outcomes), w.left)
    row = 5
    w.string(ws, row, 0, "parameter", w.header)
    w.string(ws, row, 1, "--vary", w.header)
    for spec in result.specs:
        row += 1
        w.string(ws, row, 0, spec.key)
        w.string(
            ws,
            row,
            1,
            f"{spec.text}  ({len(spec.values)} points, {spec_unit(spec, result.currency)})",
        )
    row += 2
    w.string(ws, row, 0, "where the plan changes", w.header)
    for sentence in describe_flips(result) or ["no plan was found at any point"]:
        row += 1
        w.string(ws, row, 0, "•", w.wrap)
        w.string(ws, row, 1, sentence, w.wrap)
        # Wrapped text keeps the height it is given: about 95 characters a line here.
        ws.set_row(row, 15 * max(1, math.ceil(len(sentence) / 95)))
    if result.mode is SweepMode.ONE_WAY:
        _charts(workbook, ws, row + 2, result)
        # The printed columns end at B; the flip lines' ends are written to their right.
        ws.print_area(0, 0, row + 2 + math.ceil(288 * CHART_Y_SCALE / 20), 1)
    _print_setup(ws, pages_tall=1)


def _print_setup(ws: Any, pages_tall: int = 0, header_rows: int = 0, pages_wide: int = 1) -> None:
    """Landscape, ``pages_wide`` pages wide (``pages_tall`` 0: as tall as it takes), a footer."""
    ws.set_landscape()
    ws.fit_to_pages(pages_wide, pages_tall)
    if header_rows:
        ws.repeat_rows(0, header_rows - 1)
    ws.set_footer("&L&A&RPage &P of &N")


def _charts(workbook: Any, ws: Any, row: int, result: SweepResult) -> None:
    """Total cost, and the chosen mix, against the varied parameter (one-way sweeps),
    side by side under the sentences, each with the flip points as dashed vertical lines.

    The charts read the Variants sheet; the flip lines' ends are written to the
    right of the printed columns (A:B).
    """
    currency = result.currency
    columns = [c.title for c in _variant_columns(result)]
    last = len(result.outcomes)
    spec = result.specs[0]
    x_axis = {"name": f"{spec.key} ({spec_unit(spec, result.currency)})"}

    def from_variants(title: str, **style: object) -> dict[str, object]:
        col = columns.index(title)
        return {
            "name": title,
            "categories": ["Variants", 1, 1, last, 1],  # the parameter's column
            "values": ["Variants", 1, col, last, col],
            **style,
        }

    totals = [o.summary.total_cost for o in result.outcomes if o.summary.total_cost is not None]
    cost = workbook.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    cost.add_series(from_variants(f"total cost ({currency})", name="total cost"))
    mix = workbook.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    gpus, hours = _mix_columns(result, columns)
    for title, name in gpus:
        mix.add_series(from_variants(title, name=name))
    for title, name in hours:
        mix.add_series(from_variants(title, name=name, y2_axis=True, line={"dash_type": "dash"}))
    flips = [f.point for f in result.flips if f.key == spec.key and not f.fixed]
    if flips:
        most = max(
            (
                _of(pairs, gpu)
                for o in result.outcomes
                for pairs in (o.summary.fleet.bought, o.summary.fleet.reserved)
                for gpu, _ in pairs
            ),
            default=1.0,
        )
        for chart, (low, high) in (
            (cost, (min(totals, default=0.0), max(totals, default=0.0))),
            (mix, (0.0, most)),
        ):
            chart.add_series(_flip_lines(ws, flips, low, high, 3 if chart is cost else 5))
    cost.set_title({"name": "Total cost against the varied parameter", "name_font": {"size": 12}})
    cost.set_x_axis(x_axis)
    cost.set_y_axis({"name": f"total cost ({currency})", "num_format": money_format(currency, 0)})
    cost.set_legend({"position": "bottom"})
    mix.set_title(
        {"name": "The chosen mix against the varied parameter", "name_font": {"size": 12}}
    )
    mix.set_x_axis(x_axis)
    mix.set_y_axis({"name": "GPUs"})
    if hours:
        # From zero, so that a fraction of an hour does not swing across the chart.
        mix.set_y2_axis({"name": "paid GPU-hours (dashed)", "num_format": "#,##0", "min": 0})
    mix.set_legend({"position": "bottom"})
    # Columns A (36) and B (100) are about 960 px: a chart in each half.
    ws.insert_chart(row, 0, cost, {"x_scale": 1.0, "y_scale": CHART_Y_SCALE})
    if gpus or hours:  # no variant planned in time: no mix to draw (an empty chart is an error)
        ws.insert_chart(row, 1, mix, {"x_scale": 1.0, "y_scale": CHART_Y_SCALE, "x_offset": 235})


Legend = list[tuple[str, str]]  # (Variants column, the series' short name)


def _mix_columns(result: SweepResult, columns: list[str]) -> tuple[Legend, Legend]:
    """Variants columns of the fleet that some variant fills: (GPU counts, GPU-hours)."""
    gpus, hours = [], []
    fleet = [o.summary.fleet for o in result.outcomes]
    for gpu in _gpus_in(result):
        if any(_of(f.bought, gpu) for f in fleet):
            gpus.append((f"{gpu} bought (GPUs)", f"{gpu} bought"))
        if any(_of(f.reserved, gpu) for f in fleet):
            gpus.append((f"{gpu} reserved (GPUs, most active in a month)", f"{gpu} reserved"))
        if any(_of(f.rented_hours, gpu) for f in fleet):
            hours.append((f"{gpu} on-demand (GPU-hours)", f"{gpu} on demand (hours)"))
        if any(_of(f.spot_hours, gpu) for f in fleet):
            hours.append((f"{gpu} spot (GPU-hours)", f"{gpu} spot (hours)"))
    return [c for c in gpus if c[0] in columns], [c for c in hours if c[0] in columns]


def _flip_lines(
    ws: Any, flips: list[float], low: float, high: float, col: int
) -> dict[str, object]:
    """A series of vertical lines from ``low`` to ``high`` at each flip point, its ends
    written in columns ``col`` and ``col + 1`` (a blank row between lines breaks the line)."""
    ws.write_string(0, col, "plan changes at")
    ws.write_string(0, col + 1, "line end")
    r = 1
    for x in flips:
        for y in (low, high):
            ws.write_number(r, col, x)
            ws.write_number(r, col + 1, y)
            r += 1
        r += 1
    return {
        "name": "plan changes",
        "categories": ["Summary", 1, col, r - 2, col],
        "values": ["Summary", 1, col + 1, r - 2, col + 1],
        "line": {"color": "#C00000", "dash_type": "dash", "width": 1.25},
        "marker": {"type": "none"},
    }


def _mode_words(result: SweepResult) -> str:
    if result.mode is SweepMode.ONE_WAY:
        return "one-way: one parameter over its range"
    if result.mode is SweepMode.TORNADO:
        return "tornado: each parameter varied alone, the others at the base scenario's values"
    return "grid: every combination of the parameters' points"


@dataclass(frozen=True)
class _Column:
    title: str
    fmt: str  # "number", "money", "hours", "text"
    value: Any  # VariantOutcome -> cell value
    needs_plan: bool = True  # blank in a variant without a plan


def _variant_columns(result: SweepResult) -> list[_Column]:
    currency = result.currency
    columns = [_Column("variant", "number", lambda o: o.index + 1, needs_plan=False)]
    for spec in result.specs:
        columns.append(
            _Column(
                f"{spec.key} ({spec_unit(spec, result.currency)})",
                "number",
                lambda o, s=spec: _value_used(result, o, s),
                needs_plan=False,
            )
        )
    columns.append(_Column("status", "text", lambda o: o.summary.status.value, needs_plan=False))
    columns.append(_Column(f"total cost ({currency})", "money", lambda o: o.summary.total_cost))
    columns.append(_Column(f"cash out ({currency})", "money", lambda o: o.summary.cash_out))
    for category in CostCategory:
        columns.append(
            _Column(f"{category.value} ({currency})", "money", lambda o, c=category: _cost(o, c))
        )
    columns.append(_Column("fleet", "text", _fleet_text, needs_plan=False))
    for gpu in _gpus_in(result):
        columns += [
            _Column(
                f"{gpu} bought (GPUs)", "number", lambda o, g=gpu: _of(o.summary.fleet.bought, g)
            ),
            _Column(
                f"{gpu} reserved (GPUs, most active in a month)",
                "number",
                lambda o, g=gpu: _of(o.summary.fleet.reserved, g),
            ),
            _Column(
                f"{gpu} on-demand (GPU-hours)",
                "hours",
                lambda o, g=gpu: _of(o.summary.fleet.rented_hours, g),
            ),
            _Column(
                f"{gpu} spot (GPU-hours)",
                "hours",
                lambda o, g=gpu: _of(o.summary.fleet.spot_hours, g),
            ),
        ]
    return columns


def _value_used(result: SweepResult, outcome: VariantOutcome, spec: VarySpec) -> float | None:
    """The parameter's value in this variant: swept, or the base's where it was left alone."""
    value = outcome.value(spec.key)
    return value if value is not None else result.base_values.get(spec.key)


def _cost(outcome: VariantOutcome, category: CostCategory) -> float | None:
    if not outcome.summary.status.has_plan:
        return None
    return outcome.summary.costs.get(category, 0.0)


def _fleet_text(outcome: VariantOutcome) -> str:
    text = outcome.summary.regime.describe()
    if not outcome.summary.status.has_plan and outcome.summary.diagnostics:
        text += ": " + "; ".join(outcome.summary.diagnostics)
    return text


def _of(pairs: tuple[tuple[str, Any], ...], gpu: str) -> float:
    """A GPU's figure from a signature tuple; 0 when the plan has none of it."""
    return float(dict(pairs).get(gpu, 0))


def _gpus_in(result: SweepResult) -> list[str]:
    """GPU types any variant uses, in name order (types no plan touches get no columns)."""
    names: set[str] = set()
    for o in result.outcomes:
        fleet = o.summary.fleet
        for pairs in (fleet.bought, fleet.reserved, fleet.rented_hours, fleet.spot_hours):
            names.update(g for g, _ in pairs)
    return sorted(names)


def _variants_sheet(workbook: Any, w: _Writer, result: SweepResult) -> None:
    ws = workbook.add_worksheet("Variants")
    columns = _variant_columns(result)
    formats = {"number": w.plain, "money": w.money, "hours": w.hours}
    for c, column in enumerate(columns):
        w.string(ws, 0, c, column.title, w.header)
        ws.set_column(c, c, FLEET_WIDTH if column.title == "fleet" else 14)
    for r, outcome in enumerate(result.outcomes, start=1):
        for c, column in enumerate(columns):
            value = column.value(outcome)
            if column.needs_plan and not outcome.summary.status.has_plan:
                continue
            if column.fmt == "text":
                w.string(ws, r, c, value, w.wrap)
            else:
                w.number(ws, r, c, value, formats[column.fmt])
        # Wrapped text keeps the height it is given: about 46 letters a line of the fleet.
        ws.set_row(r, 15 * max(1, math.ceil(len(_fleet_text(outcome)) / 46)))
    # Bold headers, about 12 letters a line of a 14-wide column.
    ws.set_row(0, 15 * max(math.ceil(len(c.title) / 12) for c in columns))
    ws.freeze_panes(1, 1 + len(result.specs))
    ws.autofilter(0, 0, len(result.outcomes), len(columns) - 1)
    # About 14 columns a page stay legible; the variant and parameters repeat on each.
    _print_setup(ws, header_rows=1, pages_wide=max(1, math.ceil(len(columns) / 14)))
    ws.repeat_columns(0, len(result.specs))


@dataclass(frozen=True)
class TornadoBar:
    """One parameter's swing: total cost at the low and at the high end of its range."""

    key: str
    low_value: float
    high_value: float
    low_total: float | None
    high_total: float | None


def tornado_bars(result: SweepResult) -> list[TornadoBar]:
    """One bar per parameter, the widest swing first."""
    bars = []
    for spec in result.specs:
        points = [o for o in result.outcomes if o.value(spec.key) is not None]
        if not points:
            continue
        low = min(points, key=lambda o: o.value(spec.key) or 0.0)
        high = max(points, key=lambda o: o.value(spec.key) or 0.0)
        bars.append(
            TornadoBar(
                spec.key,
                low.value(spec.key) or 0.0,
                high.value(spec.key) or 0.0,
                low.summary.total_cost,
                high.summary.total_cost,
            )
        )
    return sorted(bars, key=_swing, reverse=True)


def _swing(bar: TornadoBar) -> float:
    if bar.low_total is None or bar.high_total is None:
        return float("inf")  # a parameter that can make the plan impossible matters most
    return abs(bar.high_total - bar.low_total)


def _base_total(result: SweepResult) -> float | None:
    base = [o for o in result.outcomes if not o.setting]
    return base[0].summary.total_cost if base else None


def _tornado_sheet(workbook: Any, w: _Writer, result: SweepResult) -> None:
    currency = result.currency
    ws = workbook.add_worksheet("Tornado")
    _print_setup(ws, pages_tall=1)
    base = _base_total(result)
    titles = [
        "parameter",
        "low value",
        "high value",
        f"total at low value ({currency})",
        f"total at high value ({currency})",
        f"base total ({currency})",
        f"change at low value ({currency})",
        f"change at high value ({currency})",
    ]
    for c, title in enumerate(titles):
        w.string(ws, 0, c, title, w.header)
    ws.set_column(0, 0, 28)
    ws.set_column(1, len(titles) - 1, 16)
    ws.set_row(0, 30)
    # Excel draws a bar chart's first category at the bottom: write the narrowest swing
    # first so that the widest bar is on top, as a tornado should be.
    bars = list(reversed(tornado_bars(result)))
    for r, bar in enumerate(bars, start=1):
        w.string(ws, r, 0, bar.key)
        ws.write_number(r, 1, bar.low_value)
        ws.write_number(r, 2, bar.high_value)
        w.number(ws, r, 3, bar.low_total, w.money)
        w.number(ws, r, 4, bar.high_total, w.money)
        w.number(ws, r, 5, base, w.money)
        if base is not None:
            w.number(ws, r, 6, None if bar.low_total is None else bar.low_total - base, w.money)
            w.number(ws, r, 7, None if bar.high_total is None else bar.high_total - base, w.money)
    if not bars:
        return
    chart = workbook.add_chart({"type": "bar"})
    last = len(bars)
    for col, name in ((6, "at low value"), (7, "at high value")):
        chart.add_series(
            {
                "name": name,
                "categories": ["Tornado", 1, 0, last, 0],
                "values": ["Tornado", 1, col, last, col],
                "overlap": 100,
                "gap": 40,
            }
        )
    chart.set_title({"name": "Total cost: change from the base scenario"})
    chart.set_x_axis({"name": currency, "num_format": "#,##0"})
    chart.set_size({"width": 720, "height": 80 + 40 * last})
    ws.insert_chart(last + 3, 0, chart)


def _heat_map_sheet(workbook: Any, w: _Writer, result: SweepResult) -> None:
    currency = result.currency
    ws = workbook.add_worksheet("Heat map")
    _print_setup(ws)
    rows_spec, cols_spec = result.specs
    w.string(
        ws, 0, 0, f"total cost ({currency}): {rows_spec.key} down, {cols_spec.key} across", w.title
    )
    w.string(ws, 1, 0, f"{rows_spec.key} ({spec_unit(rows_spec, result.currency)})", w.header)
    ws.set_column(0, 0, 28)
    ws.set_column(1, len(cols_spec.values), 14)
    totals = {
        (o.value(rows_spec.key), o.value(cols_spec.key)): o.summary.total_cost
        for o in result.outcomes
    }
    for c, col_value in enumerate(cols_spec.values, start=1):
        ws.write_number(1, c, col_value, w.header)
    for r, row_value in enumerate(rows_spec.values, start=2):
        ws.write_number(r, 0, row_value, w.header)
        for c, col_value in enumerate(cols_spec.values, start=1):
            w.number(ws, r, c, totals.get((row_value, col_value)), w.money)
    last_row, last_col = 1 + len(rows_spec.values), len(cols_spec.values)
    ws.conditional_format(
        2,
        1,
        last_row,
        last_col,
        {
            "type": "3_color_scale",
            "min_color": "#63BE7B",
            "mid_color": "#FFEB84",
            "max_color": "#F8696B",
        },
    )
    w.string(ws, last_row + 2, 0, "blank: no plan at that point (see the Variants sheet)")
