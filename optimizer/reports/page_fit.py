"""How a sheet fits the printed page: where a chart ends, and the scale one page needs.

Takes a :class:`SheetModel` and hands on its printed size, so that a sheet
asks for one page tall only when its text stays legible there.
"""

from __future__ import annotations

import math

from optimizer.reports.sheet_grid import (
    LINE_HEIGHT,
    Chart,
    SheetModel,
    fitted_heights,
    fitted_widths,
)

# Letter or A4 less the margins and footer, in points: (width, height) landscape.
PRINTABLE_PT = (734.0, 520.0)
LEGIBLE_SCALE = 0.7  # below this, 11-point text prints smaller than about 8 points


def _column_pt(width: float) -> float:
    return (width * 7 + 5) * 0.75  # a width counts digits of about 7 px, plus padding


def chart_end(chart: Chart, widths: dict[int, float]) -> tuple[int, int]:
    """The last row and column a chart covers (rows of the default 20 px)."""
    px, col = 480 * chart.scale[0], chart.anchor[1]
    while px > 0:
        px -= _column_pt(widths.get(col, 8.43)) / 0.75
        col += 1
    return chart.anchor[0] + math.ceil(288 * chart.scale[1] / 20), col - 1


def page_scales(sheet: SheetModel) -> tuple[float, float]:
    """The print scales at which the printed area fits one page's (width, height), at most 1."""
    widths = fitted_widths(sheet)
    heights = fitted_heights(sheet, widths)
    area = sheet.print_area() or (0, 0, sheet.last_row, max((c for _, c in sheet.cells), default=0))
    first_row, first_col, last_row, last_col = area
    for chart in sheet.charts:
        end_row, end_col = chart_end(chart, widths)
        if sheet.print_area() is None:
            last_row, last_col = max(last_row, end_row), max(last_col, end_col)
    folded = sheet.folded()
    tall = sum(
        heights.get(r, LINE_HEIGHT) for r in range(first_row, last_row + 1) if r not in folded
    )
    wide = sum(_column_pt(widths.get(c, 8.43)) for c in range(first_col, last_col + 1))
    page_wide, page_tall = PRINTABLE_PT if sheet.landscape else PRINTABLE_PT[::-1]
    return min(1.0, page_wide / wide), min(1.0, page_tall / tall)


def one_page_scale(sheet: SheetModel) -> float:
    """The print scale at which the sheet's printed area fits one page (at most 1)."""
    return min(page_scales(sheet))


def fit_one_page_when_legible(sheet: SheetModel) -> None:
    """One page tall when the text stays legible there, or when the page's width already
    sets the scale (one page wide); else as many pages as it takes."""
    wide, tall = page_scales(sheet)
    sheet.pages_tall = 1 if tall >= min(LEGIBLE_SCALE, wide) else 0


def turn_to_fit(sheet: SheetModel) -> None:
    """Portrait or landscape, whichever prints the sheet on one page at the larger scale."""
    scales = {}
    for landscape in (True, False):
        sheet.landscape = landscape
        scales[landscape] = one_page_scale(sheet)
    sheet.landscape = scales[True] >= scales[False]
