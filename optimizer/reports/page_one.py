"""Page 1 of the Summary: what to do, what it costs and saves, and the cash chart, whole.

:func:`glance_block` writes the at-a-glance rows and :func:`cash_chart` the
chart's data and the chart (the saving against renting everything, month by
month, its last step the residual credit of the GPUs still owned, so that the
line ends on page 1's saving). A new user's 24-month plan said "What to do"
in 17 wrapped lines, which pushed the chart across the page break (its title
on page 1, its plot on page 2, issue 33.13): each sentence gets the lines the
page has room for (whole clauses, then how many more there are), and the
whole sentence opens page 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from optimizer.check.baselines import BASELINE_NAMES, RENT_ONLY
from optimizer.currency import money_format
from optimizer.reports.at_a_glance import (
    binding_limits,
    capex,
    cumulative_cash,
    payback_text,
    recommendation,
)
from optimizer.reports.page_fit import PRINTABLE_PT, _column_pt
from optimizer.reports.sheet_grid import (
    LINE_HEIGHT,
    Chart,
    Series,
    SheetModel,
    Style,
    a1,
    finite_or_none,
)
from optimizer.results import Plan, RunResult

# Characters per line of a wrapped cell, as ``sheet_grid.fitted_heights`` counts them.
CHARS_PER_WIDTH = 1.2
# Words wrap short of a full line: count on this share of it.
LINE_FILL = 0.85
# Lines the limits row keeps on page 1; the shadow prices are in full on page 2.
LIMIT_LINES = 3


def lines_of(text: str, width: float) -> int:
    """Lines ``text`` wraps to in a column ``width`` wide (as ``fitted_heights`` counts)."""
    per_line = max(int(width * CHARS_PER_WIDTH) - 2, 1)
    return max(1, -(-len(text) // per_line))


def spare_lines(single_rows: int, widths: Sequence[float]) -> int:
    """Lines of text a landscape page 1 has for its wrapped rows, beside ``single_rows``
    rows of one line each (the chart's included), at the scale one page wide prints."""
    scale = min(1.0, PRINTABLE_PT[0] / sum(_column_pt(w) for w in widths))
    return int(PRINTABLE_PT[1] / scale / LINE_HEIGHT) - single_rows


def shortened(sentence: str, lines: int, width: float, where: str) -> str:
    """``sentence`` in at most ``lines`` lines of a column ``width`` wide: its first clauses
    (split at "; "), then "… and 3 more: <where>". Unchanged when it fits."""
    if lines_of(sentence, width) <= lines:
        return sentence
    room = int(lines * (int(width * CHARS_PER_WIDTH) - 2) * LINE_FILL)
    clauses = sentence.rstrip(".").split("; ")
    for kept in range(len(clauses) - 1, 0, -1):
        more = len(clauses) - kept
        text = "; ".join(clauses[:kept]) + f"; … and {more} more: {where}"
        if len(text) <= room:
            return text
    return f"{sentence[: max(room - len(where) - 4, 0)].rstrip()} … {where}"


@dataclass(frozen=True)
class _Glance:
    """Rows of the at-a-glance block that are filled once the rows below exist."""

    total: int
    savings: dict[str, int]
    chart_row: int
    next_row: int


# Rows the cumulative-cash chart covers on the first printed page.
_CHART_ROWS = 16


def glance_block(sheet: SheetModel, run: RunResult) -> _Glance:
    """The first printed page: what to do, what it costs and saves, and the cash chart."""
    currency = run.currency
    plans = run.plans
    sheet.text(1, 0, "At a glance", Style.SECTION)
    sheet.text(2, 0, "What to do", Style.LABEL)
    sheet.text(3, 0, f"Total cost ({currency}, after residual credit; as below)", Style.LABEL)
    sheet.text(4, 0, f"Capex: GPUs and servers bought ({currency}, undiscounted)", Style.LABEL)
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
    width = value_width(plans)
    chart_row = r + 3
    next_row = chart_row + _CHART_ROWS
    # Page 1 holds every row to the chart's end: the wrapped ones get what is left.
    paybacks = [payback_text(plan, _rent_only(run, plan)) for plan in plans]
    single = next_row - 3 + max((lines_of(p, width) for p in paybacks), default=1)
    spare = spare_lines(single, [LABEL_WIDTH, *[width] * len(plans)])
    limits = [
        shortened(binding_limits(p), LIMIT_LINES, width, "page 2, Binding limits") for p in plans
    ]
    limit_lines = max((lines_of(text, width) for text in limits), default=1)
    full = [recommendation(plan) for plan in plans]
    said = [shortened(text, spare - limit_lines, width, IN_FULL) for text in full]
    for j, plan in enumerate(plans):
        sheet.text(2, j + 1, said[j], Style.WRAP)
        sheet.number(4, j + 1, capex(plan), Style.MONEY)
        sheet.text(r, j + 1, paybacks[j], Style.WRAP)
        sheet.text(r + 1, j + 1, limits[j], Style.WRAP)
    sheet.page_breaks.append(next_row)  # the details start on page 2
    if said != full:
        sheet.text(next_row, 0, IN_FULL_LABEL, Style.LABEL)
        for j, text in enumerate(full):
            sheet.text(next_row, j + 1, text, Style.WRAP)
        next_row += 1
    return _Glance(total=3, savings=savings, chart_row=chart_row, next_row=next_row)


# The Summary's column widths (characters): labels, then one column per scenario;
# one scenario's column is wider, as the page has room: page 1's sentences wrap less.
LABEL_WIDTH = 58
VALUE_WIDTH = 22
ONE_VALUE_WIDTH = 36


def value_width(plans: Sequence[Plan]) -> int:
    return ONE_VALUE_WIDTH if len(plans) == 1 else VALUE_WIDTH


IN_FULL_LABEL = "What to do, in full"
IN_FULL = f"'{IN_FULL_LABEL}', top of page 2"


def cash_chart(sheet: SheetModel, run: RunResult, first: int, chart_row: int) -> None:
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
    # Each block: its title, one row a month, the horizon's last month less the residual
    # credit (what the GPUs still owned are worth: page 1's saving counts it, and a
    # line that ended on cash alone read "not paid back" beside a saving, issue 33),
    # then a blank row.
    starts = [first + i * (months + 3) for i in range(len(blocks))]
    for start, (what, _label) in zip(starts, blocks, strict=True):
        sheet.text(
            start, 0, f"Cumulative cash by month, {what} ({currency}, undiscounted)", Style.SECTION
        )
        for t in range(months):
            sheet.number(start + 1 + t, 0, t + 1, Style.INTEGER)
        sheet.text(start + 1 + months, 0, CREDIT_STEP, Style.TEXT)
    series = []
    for col, (mine, theirs) in columns.items():
        name = plans[col - 1].name
        credits = (plans[col - 1].residual_credit or 0.0, _credit(_rent_only(run, plans[col - 1])))
        for start, (_what, label) in zip(starts, blocks, strict=True):
            sheet.text(start, col, f"{name}: {label}", Style.COLUMN_HEADER)
        # The credit step sits on its own row, after the longest horizon's months (a
        # shorter horizon's rows between stay blank).
        rows = [*range(len(mine)), months]
        mine = [*mine, mine[-1] - credits[0]]
        theirs = [*theirs, theirs[-1] - credits[1]]
        for at, a, b in zip(rows, mine, theirs, strict=True):
            sheet.number(starts[0] + 1 + at, col, a, Style.MONEY)
            sheet.number(starts[1] + 1 + at, col, b, Style.MONEY)
            sheet.formula(
                starts[2] + 1 + at,
                col,
                f"={a1(starts[1] + 1 + at, col)}-{a1(starts[0] + 1 + at, col)}",
                b - a,
                Style.MONEY_FORMULA,
            )
        series.append(Series((starts[2], col), (starts[2] + 1, col, starts[2] + months + 1, col)))
    width = LABEL_WIDTH + value_width(plans) * len(plans)  # characters, about 7 px each
    sheet.charts.append(
        Chart(
            kind="line",
            title=(
                f"Cash saved so far against renting everything ({currency}; below 0: not paid "
                "back yet; last step: the residual credit of GPUs still owned)"
            ),
            y_axis=f"{currency} saved so far",
            y_format=money_format(currency, 0),
            categories=(starts[2] + 1, 0, starts[2] + months + 1, 0),
            series=tuple(series),
            anchor=(chart_row, 0),
            scale=(min(1.6, width * 7 / 480 * 0.95), 1.05),
        )
    )


# The chart's last category: the end of the horizon with the residual credit counted.
CREDIT_STEP = "+ credit"


def _credit(plan: Plan | None) -> float:
    return 0.0 if plan is None or plan.residual_credit is None else plan.residual_credit


def _rent_only(run: RunResult, plan: Plan) -> Plan | None:
    return run.baselines.get(plan.name, {}).get(RENT_ONLY)
