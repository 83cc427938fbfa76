"""The money defaults a non-USD workbook left blank (model v2 §E).

The defaults of money keys are US dollars (``electricity_per_kwh`` 0.10 is
the guide's $0.10/kWh). Nothing is converted, so a EUR workbook that leaves
one blank plans with 0.10 EUR/kWh: maybe right, maybe not. The plan says so
in one line, naming the keys and the defaults used.
"""

from __future__ import annotations

from optimizer.currency import USD
from optimizer.domain import Scenario
from optimizer.inputs.schema import ASSUMPTIONS, AssumptionKey


def _usd_money_defaults() -> tuple[AssumptionKey, ...]:
    """Assumptions keys priced in USD whose default is not zero (zero is zero in any currency)."""
    return tuple(
        a
        for a in ASSUMPTIONS
        if "USD" in a.unit and isinstance(a.default, float) and a.default != 0
    )


USD_MONEY_DEFAULTS = _usd_money_defaults()


def usd_default_warnings(scenario: Scenario) -> list[str]:
    """One line when the currency is not USD and some USD money default was left blank."""
    currency = scenario.assumptions.currency
    if currency == USD:
        return []
    blank = [
        a
        for a in USD_MONEY_DEFAULTS
        # default_settings writes exactly this source for a key nobody set.
        if scenario.assumption_sources.get(a.key) == f"default: {a.source}"
    ]
    if not blank:
        return []
    used = ", ".join(f"{a.key} = {a.default:g} ({a.unit})" for a in blank)
    return [
        f"warning: the currency is {currency} but these money keys were left blank and use "
        f"their USD defaults, unconverted: {used}; set them in sheet Assumptions in {currency}"
    ]
