"""How a money figure is labelled: the workbook's currency (model v2 §E), never converted.

One format everywhere, text and Excel alike. USD keeps the dollar sign
exactly as before the currency existed (``$1,234.50``), so USD outputs do not
change. Any other currency is its label, a space, then the number with comma
thousands and a point for decimals: ``EUR 1,234.50``, ``€ 1,234.50``. In a
workbook the label is a quoted literal of the cell's number format, so a cell
stays a number (sums and LibreOffice's recalculation still work). Headers
that name the unit say the label itself: ``Total cost (EUR)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

USD = "USD"
CURRENCY_MAX_CHARS = 8
# A label that begins like a formula would be read as one by XlsxWriter in a
# chart title or axis name, so the input refuses it (see inputs.cells).
FORMULA_STARTS = ("=", "+", "-", "@")


def money_text(value: float, currency: str, decimals: int = 2) -> str:
    """``$1,234.50`` for USD, else ``EUR 1,234.50``; a negative keeps its sign after the label."""
    number = f"{value:,.{decimals}f}"
    return f"${number}" if currency == USD else f"{currency} {number}"


def money_format(currency: str, decimals: int = 2) -> str:
    """The Excel number format of a money cell: ``$#,##0.00``, or ``"EUR "#,##0.00;"EUR "-#,##0.00``.

    The second section puts a negative's sign after the label, as :func:`money_text`
    does (``EUR -5.00``, not Excel's default ``-EUR 5.00``).
    """
    digits = "#,##0" + ("." + "0" * decimals if decimals else "")
    if currency == USD:
        return f"${digits}"
    # A double quote inside an Excel literal closes it: write it as an escaped character.
    literal = currency.replace('"', '"\\""')
    return f'"{literal} "{digits};"{literal} "-{digits}'


def unit_in(unit: str, currency: str) -> str:
    """A declared unit (``USD per kWh``, from the input schema) in ``currency``: ``EUR per kWh``."""
    return re.sub(r"\bUSD\b", lambda _: currency, unit)  # a function: the label is literal text


def one_currency(currencies: Iterable[str]) -> str:
    """The one currency of a set of results (USD when there are none).

    A workbook has one currency, so a run's plans share it; two would mean a
    bug upstream, and a sheet labelled with one of them would be wrong.
    """
    found = sorted(set(currencies))
    if len(found) > 1:
        raise ValueError(f"money in more than one currency: {', '.join(found)}")
    return found[0] if found else USD
